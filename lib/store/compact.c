/*
 * Compaction: the store written again, page by page in key order, into
 * a new file, and switched to without a reader ever seeing a file half
 * written or replaced under it.
 *
 * Why.  LMDB reuses the pages that transactions free, wherever they
 * are: a store grown by index runs (and every --rebuild, which writes a
 * whole new graph beside the old one before freeing it) has the pages
 * of one key range scattered over the file and free pages between them,
 * so a query touches, and faults in, more pages than the data needs.
 * mdb_env_copy2(MDB_CP_COMPACT) writes the live pages alone, each tree
 * in order, to a new file.
 *
 * The layout.  An LMDB environment is a directory with data.mdb and its
 * lock.mdb, and a lock file belongs to one data file: two environments
 * must never share one (the lock file holds the last transaction id,
 * which picks the meta page a reader trusts, and a compacted copy starts
 * its ids again).  So a compacted store is a new environment in a new
 * directory, .kbx/db.N (N counts up from 1), and the file .kbx/current
 * ("db.N\n") names the one in use.  Without .kbx/current the environment
 * is .kbx itself, as every store was before compaction existed and a
 * new store is until its first compaction.  index.lock, config and
 * vectors.kbxv stay in .kbx: the lock is the writer's across every
 * switch, and the vector file is stamped with the search generation,
 * which the copy keeps.  No link anywhere: kbx refuses links in .kbx.
 *
 * The switch, by the writer, which holds index.lock throughout:
 *   1. remove what a run killed earlier left: db.* directories and
 *      .kbx's own data files that .kbx/current does not name, current.tmp;
 *   2. mkdir db.N+1, copy the committed store into it (compacted), mark
 *      the copy as this user's (trust.h) and fdatasync it, fsync the
 *      directory;
 *   3. write current.tmp, fsync it, rename() it over current, fsync .kbx:
 *      the one atomic step; before it every opener finds the old store,
 *      after it the new one;
 *   4. open the new environment in this process (so that --watch goes
 *      on writing to the store in use), and remove the old one's files.
 * A reader that opened the old environment keeps its map and its lock
 * file, unlinked or not, and goes on answering from it; kbx serve and
 * kbx mcp open the store for every request, and a search that asks
 * kbx_store_outdated() learns that current names another directory and
 * opens it (kbx_store_refresh).  A reader that read current just before
 * the switch and finds the old files gone when it opens them reads
 * current again and opens the new one (kbx_store_open).
 *
 * A kill at any step leaves a usable store: before step 3 the old store
 * is in use and untouched, and the leftovers of step 2 are removed by
 * the next writer; after it the new one is complete on disk, and the
 * old one's files are the next writer's to remove.
 *
 * When.  After every run that writes the whole graph: a store's first
 * run and every index --rebuild (which also leaves about a third of
 * the file free), since one transaction writes each file's nodes,
 * edges, names and chunks side by side; and after any other run that
 * leaves the free pages at a quarter of the file or more
 * (KBX_COMPACT_FREE_SHARE) and at 8 MiB or more (KBX_COMPACT_FREE_MIN).
 * After a whole-graph run, a store under 32 MiB (KBX_COMPACT_FLOOR) is
 * left as it is unless the index.compact setting says eager: a small
 * store is read from the page cache whatever its order, and the copy
 * would double a small repository's run.  The cost is a read of the
 * live pages and a write of them, about the size of the compacted file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "util/util.h"

#define POINTER_NAME "current"
#define POINTER_TMP "current.tmp"
#define POINTER_MAX 32

/* "db.N" with N a decimal number from 1, no sign, no leading zero. */
static int parse_env_name(const char *name, size_t len, uint64_t *gen)
{
	if (len < 4 || len > 3 + 19 || memcmp(name, "db.", 3) || name[3] == '0')
		return -1;
	uint64_t n = 0;
	for (size_t i = 3; i < len; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		n = n * 10 + (uint64_t)(name[i] - '0');
	}
	*gen = n;
	return 0;
}

kbx_status_t _kbx_store_pointer_read(const char *kbx_dir, int trusted, uint64_t *gen,
				     struct kbx_error *err)
{
	char *path = _kbx_path_concat(kbx_dir, POINTER_NAME);
	char buf[POINTER_MAX + 1];
	struct stat st;
	*gen = 0;
	if (!path)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		kbx_status_t s = KBX_OK;
		if (e == ELOOP)
			s = _kbx_fail(err, KBX_ERR_UNSAFE,
				      "'%s' is a symbolic link: kbx never follows a link for its store (a repository could point it anywhere); remove the link and run 'kbx index --rebuild'",
				      path);
		else if (e != ENOENT)
			s = _kbx_fail(err, KBX_ERR_IO, "cannot read '%s': %s", path, strerror(e));
		free(path);
		return s;
	}
	ssize_t n = -1;
	kbx_status_t s = KBX_OK;
	if (fstat(fd, &st) < 0)
		s = _kbx_fail(err, KBX_ERR_IO, "cannot read '%s': %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		s = _kbx_fail(err, KBX_ERR_UNSAFE,
			      "'%s' is not a regular file: remove it and run 'kbx index --rebuild'", path);
	else if (!trusted && st.st_uid != geteuid())
		s = _kbx_fail(err, KBX_ERR_UNSAFE,
			      "'%s' belongs to another user (uid %u): kbx opens only stores you own; remove it and run 'kbx index --rebuild'",
			      path, (unsigned)st.st_uid);
	else
		n = read(fd, buf, sizeof(buf));
	close(fd);
	if (!s && (n < 2 || n > POINTER_MAX || buf[n - 1] != '\n' ||
		   parse_env_name(buf, (size_t)n - 1, gen)))
		s = _kbx_fail(err, KBX_ERR_CORRUPT,
			      "'%s' does not name a store directory (it should hold 'db.N' and a newline): run 'kbx index --rebuild'",
			      path);
	free(path);
	return s;
}

char *_kbx_store_env_path(const char *kbx_dir, uint64_t gen)
{
	struct strbuf p = STRBUF_INIT;
	if (gen)
		strbuf_addf(&p, "%s/db.%llu", kbx_dir, (unsigned long long)gen);
	else
		strbuf_addstr(&p, kbx_dir);
	if (p.failed) {
		strbuf_release(&p);
		return NULL;
	}
	return strbuf_detach(&p, NULL);
}

int _kbx_store_pointer_moved(const struct kbx_store *s)
{
	uint64_t gen;
	struct kbx_error e = KBX_ERROR_INIT;
	if (_kbx_store_pointer_read(s->dir, 1, &gen, &e))
		return 0;   /* the next open says what is wrong */
	return gen != s->env_gen;
}

/*
 * The committed store, compacted, into dir/data.mdb.  Not by
 * mdb_env_copy2(), which writes its copy with O_DIRECT: the new store
 * would then start outside the page cache, and the first queries after
 * an index, and the next run's work on the old pages, would read it back
 * from the disk.
 */
static kbx_status_t copy_compact(struct kbx_store *s, const char *dir, struct kbx_error *err)
{
	char *path = _kbx_path_concat(dir, "data.mdb");
	if (!path)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	kbx_status_t st = KBX_OK;
	if (fd < 0) {
		st = _kbx_fail(err, _kbx_write_status(errno),
			       "cannot create '%s': %s", path, strerror(errno));
	} else {
		int rc = mdb_env_copyfd2(s->env, fd, MDB_CP_COMPACT);
		if (rc)
			st = _kbx_fail_mdb(err, _kbx_store_write_error(s, rc),
					   "cannot write the compacted index");
		if (close(fd) < 0 && !st)
			st = _kbx_fail(err, KBX_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	}
	free(path);
	return st;
}

static int fsync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* Remove an environment's files (never anything else it may hold) and,
 * when it is a db.N directory, the directory once empty.  A reader
 * that still has them open keeps them until it closes them. */
static void remove_env(int dfd, const char *sub)
{
	static const char *const names[] = { "data.mdb", "lock.mdb", NULL };
	int fd = sub ? openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : dfd;
	if (fd < 0)
		return;
	for (size_t i = 0; names[i]; i++)
		unlinkat(fd, names[i], 0);
	if (sub) {
		close(fd);
		unlinkat(dfd, sub, AT_REMOVEDIR);   /* not empty: left to the next writer */
	}
}

void _kbx_store_sweep(const char *kbx_dir, uint64_t keep)
{
	int dfd = open(kbx_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	int dfd2 = dup(dfd);
	DIR *d = dfd2 >= 0 ? fdopendir(dfd2) : NULL;
	if (!d) {
		if (dfd2 >= 0)
			close(dfd2);
		close(dfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		uint64_t gen;
		if (!parse_env_name(de->d_name, strlen(de->d_name), &gen) && gen != keep)
			remove_env(dfd, de->d_name);
	}
	closedir(d);
	unlinkat(dfd, POINTER_TMP, 0);
	if (keep)
		remove_env(dfd, NULL);   /* .kbx's own, from before the first compaction */
	close(dfd);
}

/* The pages of the store: in use, free (listed in the free database),
 * and the file's length in pages. */
static int count_pages(struct kbx_store *s, struct kbx_compact_stats *cs)
{
	MDB_envinfo ei;
	MDB_stat st;
	MDB_txn *txn;
	MDB_cursor *c;
	MDB_val k, d;
	int rc = mdb_env_info(s->env, &ei);
	if (!rc)
		rc = mdb_env_stat(s->env, &st);
	if (rc)
		return rc;
	cs->page_size = st.ms_psize;
	cs->pages = (uint64_t)ei.me_last_pgno + 1;
	cs->free_pages = 0;
	if ((rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn)))
		return rc;
	/* database 0 is LMDB's free list: txnid -> a list of page numbers,
	 * its first word their count */
	rc = mdb_cursor_open(txn, 0, &c);
	if (!rc) {
		while ((rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) == 0)
			if (d.mv_size >= sizeof(size_t))
				cs->free_pages += *(const size_t *)d.mv_data;
		if (rc == MDB_NOTFOUND)
			rc = 0;
		mdb_cursor_close(c);
	}
	mdb_txn_abort(txn);
	return rc;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write current.tmp naming db.gen, and rename it over current. */
static kbx_status_t switch_pointer(const char *kbx_dir, uint64_t gen, struct kbx_error *err)
{
	char *tmp = _kbx_path_concat(kbx_dir, POINTER_TMP);
	char *cur = _kbx_path_concat(kbx_dir, POINTER_NAME);
	char text[POINTER_MAX];
	int len = snprintf(text, sizeof(text), "db.%llu\n", (unsigned long long)gen);
	kbx_status_t st = KBX_OK;
	int fd = tmp && cur ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666)
			    : -1;
	if (!tmp || !cur)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	else if (fd < 0 || write(fd, text, (size_t)len) != len || fsync(fd) < 0)
		st = _kbx_fail(err, _kbx_write_status(errno),
			       "cannot write '%s': %s", tmp, strerror(errno));
	if (fd >= 0 && close(fd) < 0 && !st)
		st = _kbx_fail(err, KBX_ERR_IO, "cannot write '%s': %s", tmp, strerror(errno));
	if (!st && rename(tmp, cur) < 0)
		st = _kbx_fail(err, KBX_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, cur,
			       strerror(errno));
	if (st && tmp)
		unlink(tmp);
	if (!st)
		fsync_path(kbx_dir, O_RDONLY | O_DIRECTORY);   /* the rename, on disk */
	free(tmp);
	free(cur);
	return st;
}

kbx_status_t kbx_store_compact(kbx_store_t *s, int always, uint64_t floor,
			       struct kbx_compact_stats *cs, struct kbx_error *err)
{
	memset(cs, 0, sizeof(*cs));
	if (!s->writable || s->wtxn || !s->env)
		return _kbx_fail(err, KBX_ERR_INTERNAL, "compaction needs the writer's store, between runs");
	double t0 = now_seconds();
	int rc = count_pages(s, cs);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot count the index's pages");
	cs->bytes_before = cs->pages * cs->page_size;
	if (always && cs->bytes_before < floor)
		return KBX_OK;
	if (!always && (cs->free_pages * KBX_COMPACT_FREE_SHARE < cs->pages ||
			cs->free_pages * cs->page_size < KBX_COMPACT_FREE_MIN))
		return KBX_OK;

	_kbx_store_sweep(s->dir, s->env_gen);
	uint64_t old_gen = s->env_gen, gen = old_gen + 1;
	char *dir = _kbx_store_env_path(s->dir, gen);
	if (!dir)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	kbx_status_t st = KBX_OK;
	if (mkdir(dir, 0777) < 0)
		st = _kbx_fail(err, _kbx_write_status(errno),
			       "cannot create '%s': %s", dir, strerror(errno));
	if (!st)
		st = copy_compact(s, dir, err);
	if (!st)
		st = _kbx_store_mark(dir, err);   /* and its data, on disk */
	if (!st && fsync_path(dir, O_RDONLY | O_DIRECTORY) < 0)
		st = _kbx_fail(err, KBX_ERR_IO, "cannot sync '%s': %s", dir, strerror(errno));
	if (!st)
		st = switch_pointer(s->dir, gen, err);
	if (st) {
		/* the store in use is untouched */
		int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dfd >= 0) {
			remove_env(dfd, dir + strlen(s->dir) + 1);
			close(dfd);
		}
		free(dir);
		return st;
	}
	free(dir);

	/* the new store is the one in use: this process moves to it */
	st = _kbx_store_reopen(s, err);
	int dfd = open(s->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd >= 0) {
		char old[32];
		snprintf(old, sizeof(old), "db.%llu", (unsigned long long)old_gen);
		remove_env(dfd, old_gen ? old : NULL);
		close(dfd);
	}
	if (st)
		return st;
	struct kbx_compact_stats after;
	if (count_pages(s, &after) == 0)
		cs->bytes_after = after.pages * after.page_size;
	cs->compacted = 1;
	cs->seconds = now_seconds() - t0;
	return KBX_OK;
}
