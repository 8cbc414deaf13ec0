/*
 * The store: one LMDB environment in .kbx/, its named databases, the
 * schema check, the writer's lock and the growth of the map.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/trust.h"

#define MAP_MIN (64u << 20)

static int set_map_size(struct kbx_store *s, size_t want);
static kbx_status_t reopen_env(struct kbx_store *s, int flags, size_t map_size,
			       struct kbx_error *err);

/* The names kbx opens in a store directory.  None may be a symbolic
 * link: LMDB opens data.mdb and lock.mdb by name, and a link there
 * would make even a reader write wherever it points. */
static const char *const store_files[] = {
	"data.mdb", "lock.mdb", "index.lock", "config", "vectors.kbxv", ".gitignore", "current", NULL
};

static kbx_status_t fail_link(struct kbx_error *err, const char *path)
{
	return _kbx_fail(err, KBX_ERR_UNSAFE,
			 "'%s' is a symbolic link: kbx never follows a link for its store (a repository could point it anywhere); remove the link and run 'kbx index'",
			 path);
}

/*
 * index.lock holds the pid of the process that has it locked, so that
 * the one told to retry can say which process it waits for.  The pid is
 * only a hint: the flock is the lock.
 */
static void note_holder(int fd)
{
	char buf[32];
	int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, n, 0) == n)
		return;
	/* a lock without its pid still locks */
}

static kbx_status_t fail_busy(struct kbx_error *err, int fd, const char *kbx_dir)
{
	char buf[32], *end;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	long pid = 0;
	if (n > 0) {
		buf[n] = '\0';
		pid = strtol(buf, &end, 10);
		if (end == buf || (*end && *end != '\n') || pid <= 0 || pid > INT_MAX ||
		    (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
			pid = 0;   /* not a pid, or a stale one: some other program holds the lock */
	}
	if (pid)
		return _kbx_fail(err, KBX_ERR_BUSY,
				 "another kbx process (pid %ld) is indexing '%s': retry when it has finished",
				 pid, kbx_dir);
	return _kbx_fail(err, KBX_ERR_BUSY,
			 "another kbx process is indexing '%s': retry when it has finished", kbx_dir);
}

/* lstat the store directory: *exists tells whether it is there.  A link,
 * anything but a directory, or (unless trusted) a directory of another
 * user is refused. */
static kbx_status_t check_dir(const char *kbx_dir, int trusted, int *exists,
			      struct kbx_error *err)
{
	struct stat st;
	*exists = 0;
	if (lstat(kbx_dir, &st) < 0) {
		if (errno == ENOENT)
			return KBX_OK;
		return _kbx_fail(err, KBX_ERR_IO, "cannot read '%s': %s", kbx_dir, strerror(errno));
	}
	if (S_ISLNK(st.st_mode))
		return fail_link(err, kbx_dir);
	if (!S_ISDIR(st.st_mode))
		return _kbx_fail(err, KBX_ERR_IO,
				 "'%s' is not a directory: kbx keeps its index in a directory of that name; move the file away and run 'kbx index'",
				 kbx_dir);
	if (!trusted && st.st_uid != geteuid())
		return _kbx_fail(err, KBX_ERR_UNSAFE,
				 "the index directory '%s' belongs to another user (uid %u): kbx opens only stores you own; if you trust it, add its repository to safe.directory in your own settings (kbx config --user safe.directory DIR)",
				 kbx_dir, (unsigned)st.st_uid);
	*exists = 1;
	return KBX_OK;
}

/* Every file kbx opens in the store: a regular file of this user (or,
 * trusted, of anyone), or absent. */
static kbx_status_t check_files(const char *kbx_dir, int trusted, struct kbx_error *err)
{
	struct strbuf p = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	for (size_t i = 0; store_files[i] && !st; i++) {
		struct stat sb;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", kbx_dir, store_files[i]);
		if (p.failed)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		else if (lstat(p.buf, &sb) < 0)
			continue;
		else if (S_ISLNK(sb.st_mode))
			st = fail_link(err, p.buf);
		else if (!S_ISREG(sb.st_mode))
			st = _kbx_fail(err, KBX_ERR_UNSAFE,
				       "'%s' is not a regular file: remove it and run 'kbx index'", p.buf);
		else if (!trusted && sb.st_uid != geteuid())
			st = _kbx_fail(err, KBX_ERR_UNSAFE,
				       "'%s' belongs to another user (uid %u): kbx opens only stores you own; remove it and run 'kbx index --rebuild'",
				       p.buf, (unsigned)sb.st_uid);
	}
	strbuf_release(&p);
	return st;
}

/* What the data file of a store is, before LMDB is let near it. */
enum data_state {
	DATA_NONE,      /* no data file: a new store */
	DATA_UNBUILT,   /* no mark, and nothing committed: a first run that
			 * was killed before it marked the file, or a decoy */
	DATA_OURS,      /* marked with this user's key */
	DATA_FOREIGN    /* a data file kbx did not build for this user */
};

static kbx_status_t check_data(const char *kbx_dir, enum data_state *state,
			       struct kbx_error *err)
{
	unsigned char mark[KBX_STORE_MARK_LEN], key[KBX_STORE_KEY_LEN];
	char *path = _kbx_path_concat(kbx_dir, "data.mdb");
	struct stat st = { 0 };
	ssize_t n = 0;
	if (!path)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		free(path);
		if (e == ENOENT) {
			*state = DATA_NONE;
			return KBX_OK;
		}
		return _kbx_fail(err, KBX_ERR_IO, "cannot read the index in '%s': %s", kbx_dir,
				 strerror(e));
	}
	if (fstat(fd, &st) == 0)
		n = pread(fd, mark, sizeof(mark), KBX_STORE_MARK_OFFSET);
	close(fd);
	free(path);
	struct kbx_error kerr = KBX_ERROR_INIT;
	kbx_status_t kst = KBX_NOT_FOUND;
	if (n == (ssize_t)sizeof(mark))
		kst = _kbx_store_key(key, 0, &kerr);
	if (kst && kst != KBX_NOT_FOUND) {
		*err = kerr;
		return kst;
	}
	if (!kst && _kbx_store_mark_valid(key, mark))
		*state = DATA_OURS;
	else if (st.st_size <= 2 * sysconf(_SC_PAGESIZE))
		*state = DATA_UNBUILT;   /* two meta pages and nothing else */
	else
		*state = DATA_FOREIGN;
	return KBX_OK;
}

static kbx_status_t fail_foreign(struct kbx_error *err, const char *kbx_dir)
{
	return _kbx_fail(err, KBX_ERR_UNSAFE,
			 "the index in '%s' was not built by kbx for you (it came with the checkout or an archive, or an older kbx built it): kbx does not open it; run 'kbx index --rebuild' to replace it",
			 kbx_dir);
}

/* Remove the data files of a store without opening them: what a
 * rebuild does to a store kbx does not trust.  The writer's lock is
 * held.  The environment's files are in env, the vectors in kbx_dir. */
static kbx_status_t remove_data(const char *kbx_dir, const char *env, struct kbx_error *err)
{
	static const char *const names[] = { "data.mdb", "lock.mdb", "vectors.kbxv", NULL };
	kbx_status_t st = KBX_OK;
	for (size_t i = 0; names[i] && !st; i++) {
		const char *dir = names[i + 1] ? env : kbx_dir;
		char *path = _kbx_path_concat(dir, names[i]);
		if (!path)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		else if (unlink(path) < 0 && errno != ENOENT)
			st = _kbx_fail(err, KBX_ERR_IO, "cannot remove '%s': %s", path, strerror(errno));
		free(path);
	}
	return st;
}

/* Give lock.mdb its room on the disk before LMDB maps it: LMDB makes
 * the file with ftruncate(), and the first write to a page that a full
 * disk cannot hold is then a SIGBUS instead of an error.  Room for more
 * readers than LMDB's own size (254 readers of 64 bytes) is harmless. */
#define LOCK_FILE_ROOM (32u << 10)

static kbx_status_t reserve_lock_file(const char *kbx_dir, struct kbx_error *err)
{
	char *path = _kbx_path_concat(kbx_dir, "lock.mdb");
	if (!path)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
	free(path);
	if (fd < 0)
		return KBX_OK;   /* read-only: LMDB says what it makes of it */
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) == 0 && st.st_size < (off_t)LOCK_FILE_ROOM)
		rc = posix_fallocate(fd, 0, LOCK_FILE_ROOM);
	close(fd);
	if (rc == ENOSPC || rc == EDQUOT)
		return _kbx_fail(err, KBX_ERR_FULL, "cannot create the index in '%s': %s", kbx_dir,
				 strerror(rc));
	return KBX_OK;
}

/* Mark a data file LMDB has just created as this user's (trust.h). */
kbx_status_t _kbx_store_mark(const char *kbx_dir, struct kbx_error *err)
{
	unsigned char key[KBX_STORE_KEY_LEN], mark[KBX_STORE_MARK_LEN];
	kbx_status_t st = _kbx_store_key(key, 1, err);
	if (st)
		return st;
	if (_kbx_store_mark_make(key, mark) < 0)
		return _kbx_fail(err, KBX_ERR_INTERNAL, "no random bytes for the index's mark: %s",
				 strerror(errno));
	char *path = _kbx_path_concat(kbx_dir, "data.mdb");
	int fd = path ? open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW) : -1;
	int e = errno;
	free(path);
	ssize_t n = -1;
	if (fd >= 0) {
		n = pwrite(fd, mark, sizeof(mark), KBX_STORE_MARK_OFFSET);
		e = errno;
		if (n == (ssize_t)sizeof(mark) && fdatasync(fd) < 0)
			n = -1, e = errno;
		close(fd);
	}
	if (n != (ssize_t)sizeof(mark))
		return _kbx_fail(err, e == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
				 "cannot mark the new index in '%s': %s", kbx_dir, strerror(e));
	return KBX_OK;
}

/* Write text to a new file at path (O_EXCL: never over a link or
 * anything else); on failure nothing is left behind. */
static kbx_status_t write_new_file(const char *path, const char *text, struct kbx_error *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			return KBX_OK;
		return _kbx_fail(err, errno == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
				 "cannot create '%s': %s", path, strerror(errno));
	}
	size_t len = strlen(text);
	ssize_t n = write(fd, text, len);
	int e = n < 0 ? errno : ENOSPC;
	if (close(fd) < 0 && n == (ssize_t)len)
		n = -1, e = errno;
	if (n == (ssize_t)len)
		return KBX_OK;
	unlink(path);
	return _kbx_fail(err, _kbx_write_status(e),
			 "cannot write '%s': %s", path, strerror(e));
}

kbx_status_t kbx_store_make_dir(const char *kbx_dir, struct kbx_error *err)
{
	int exists;
	kbx_status_t st = check_dir(kbx_dir, 0, &exists, err);
	if (st || exists)
		return st;
	if (mkdir(kbx_dir, 0777) < 0 && errno != EEXIST)
		return _kbx_fail(err, errno == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
				 "cannot create '%s': %s", kbx_dir, strerror(errno));
	/* keep the store out of git's way */
	char *gi = _kbx_path_concat(kbx_dir, ".gitignore");
	if (!gi)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	st = write_new_file(gi, "# kbx's index: never committed\n*\n", err);
	free(gi);
	if (st)
		rmdir(kbx_dir);   /* empty again: as if never made */
	return st;
}

/* KBX_CEILING_DIRECTORIES: a colon-separated list of directories the
 * upward search for .kbx never enters (as GIT_CEILING_DIRECTORIES). */
static int is_ceiling(const char *dir)
{
	const char *list = getenv("KBX_CEILING_DIRECTORIES");
	if (!list || !*list)
		return 0;
	size_t dl = strlen(dir);
	for (const char *p = list; *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		while (n > 1 && p[n - 1] == '/')
			n--;
		if (n == dl && !strncmp(p, dir, n))
			return 1;
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

kbx_status_t kbx_store_locate(const char *start, int create, char **kbx_dir, char **root,
			      struct kbx_error *err)
{
	char real[PATH_MAX];
	*kbx_dir = *root = NULL;
	const char *env = getenv("KBX_DIR");
	if (env && *env) {
		if (!realpath(start, real))
			return _kbx_fail(err, KBX_ERR_IO, "cannot resolve '%s': %s", start,
					 strerror(errno));
		*kbx_dir = strdup(env);
		*root = strdup(real);
		return *kbx_dir && *root ? KBX_OK : _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	if (!realpath(start, real))
		return _kbx_fail(err, KBX_ERR_IO, "cannot resolve '%s': %s", start, strerror(errno));

	/* Walk up for .kbx, remembering the nearest .git on the way. */
	char dir[PATH_MAX], git_root[PATH_MAX] = "";
	snprintf(dir, sizeof(dir), "%s", real);
	for (;;) {
		char *k = _kbx_path_concat(dir, ".kbx");
		char *g = _kbx_path_concat(dir, ".git");
		if (!k || !g) {
			free(k);
			free(g);
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		}
		struct stat kst;
		int has_kbx = lstat(k, &kst) == 0;
		int has_git = access(g, F_OK) == 0;
		free(g);
		if (has_kbx && S_ISLNK(kst.st_mode)) {
			kbx_status_t st = fail_link(err, k);
			free(k);
			return st;
		}
		has_kbx = has_kbx && S_ISDIR(kst.st_mode);
		if (has_kbx) {
			*kbx_dir = k;
			*root = strdup(dir);
			return *root ? KBX_OK : _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		}
		free(k);
		/* a repository root ends the search, as for git: a repository
		 * nested in an indexed tree has an index of its own */
		if (has_git) {
			snprintf(git_root, sizeof(git_root), "%s", dir);
			break;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
		if (is_ceiling(dir))
			break;
	}
	if (!create)
		return _kbx_fail(err, KBX_ERR_NO_STORE,
				 "no kbx index in '%s' or any parent directory: run 'kbx index' at the repository root",
				 real);
	*root = strdup(*git_root ? git_root : real);
	*kbx_dir = *root ? _kbx_path_concat(*root, ".kbx") : NULL;
	return *root && *kbx_dir ? KBX_OK : _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
}

int _kbx_meta_put_str(struct kbx_store *s, MDB_txn *txn, const char *key, const char *v)
{
	MDB_val k = { strlen(key), (void *)key }, d = { strlen(v), (void *)v };
	return mdb_put(txn, s->meta, &k, &d, 0);
}

int _kbx_meta_del(struct kbx_store *s, MDB_txn *txn, const char *key)
{
	MDB_val k = { strlen(key), (void *)key };
	int rc = mdb_del(txn, s->meta, &k, NULL);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

int _kbx_meta_put_u64(struct kbx_store *s, MDB_txn *txn, const char *key, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return _kbx_meta_put_str(s, txn, key, buf);
}

kbx_status_t _kbx_meta_get_u64(struct kbx_store *s, MDB_txn *txn, const char *key,
			       uint64_t *out)
{
	MDB_val k = { strlen(key), (void *)key }, d;
	int rc = mdb_get(txn, s->meta, &k, &d);
	if (rc == MDB_NOTFOUND)
		return KBX_NOT_FOUND;
	if (rc)
		return KBX_ERR_STORE;
	char buf[32];
	if (d.mv_size >= sizeof(buf))
		return KBX_ERR_CORRUPT;
	memcpy(buf, d.mv_data, d.mv_size);
	buf[d.mv_size] = '\0';
	char *end;
	*out = strtoull(buf, &end, 10);
	return *end ? KBX_ERR_CORRUPT : KBX_OK;
}

/*
 * Comparisons in the order LMDB's default (mdb_cmp_memn: the bytes, then
 * the shorter first) gives, so that they may be set or not on the same
 * file: a key of a 4-byte id (nodes, chunks) or of an edge (id, kind,
 * id: 9 bytes) compares as numbers (_kbx_get_u32), without a call of memcmp.  A graph
 * query compares keys some twenty times a node it reads.
 */
static int cmp_bytes(const MDB_val *a, const MDB_val *b)
{
	size_t n = a->mv_size < b->mv_size ? a->mv_size : b->mv_size;
	int c = n ? memcmp(a->mv_data, b->mv_data, n) : 0;
	if (c)
		return c;
	return a->mv_size < b->mv_size ? -1 : a->mv_size > b->mv_size;
}

int _kbx_cmp_id_key(const MDB_val *a, const MDB_val *b)
{
	if (a->mv_size == 4 && b->mv_size == 4) {
		uint32_t x = _kbx_get_u32(a->mv_data), y = _kbx_get_u32(b->mv_data);
		return x < y ? -1 : x > y;
	}
	return cmp_bytes(a, b);
}

int _kbx_cmp_edge_key(const MDB_val *a, const MDB_val *b)
{
	if (a->mv_size == KBX_EDGE_KEY_LEN && b->mv_size == KBX_EDGE_KEY_LEN) {
		const unsigned char *p = a->mv_data, *q = b->mv_data;
		uint32_t x = _kbx_get_u32(p), y = _kbx_get_u32(q);
		if (x != y)
			return x < y ? -1 : 1;
		if (p[4] != q[4])
			return p[4] < q[4] ? -1 : 1;
		x = _kbx_get_u32(p + 5);
		y = _kbx_get_u32(q + 5);
		return x < y ? -1 : x > y;
	}
	return cmp_bytes(a, b);
}

static int open_dbis(struct kbx_store *s, MDB_txn *txn, unsigned flags)
{
	struct {
		const char *name;
		MDB_dbi *dbi;
		unsigned extra;
		MDB_cmp_func *cmp;      /* the keys' comparison, or LMDB's */
	} t[] = {
		{ "meta", &s->meta, 0, NULL },
		{ "files", &s->files, 0, NULL },
		{ "nodes", &s->nodes, 0, _kbx_cmp_id_key },
		{ "ids", &s->ids, 0, NULL },
		{ "names", &s->names, MDB_DUPSORT | MDB_DUPFIXED, NULL },
		{ "edges", &s->edges, 0, _kbx_cmp_edge_key },
		{ "redges", &s->redges, 0, _kbx_cmp_edge_key },
		{ "refs", &s->refs, 0, NULL },
		{ "refnames", &s->refnames, MDB_DUPSORT | MDB_DUPFIXED, NULL },
		{ "bodies", &s->bodies, 0, NULL },
		{ "chunks", &s->chunks, 0, _kbx_cmp_id_key },
		{ "ckeys", &s->ckeys, 0, NULL },
		{ "sources", &s->sources, 0, NULL },
		{ "docids", &s->docids, 0, NULL },
		{ "postings", &s->postings, MDB_DUPSORT | MDB_DUPFIXED, NULL },
		{ "patterns", &s->patterns, 0, NULL },
		{ "vcache", &s->vcache, 0, NULL },
		{ "registries", &s->registries, 0, NULL },
		{ "vdelta", &s->vdelta, 0, NULL },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int rc = mdb_dbi_open(txn, t[i].name, flags | t[i].extra, t[i].dbi);
		if (!rc && t[i].cmp)
			rc = mdb_set_compare(txn, *t[i].dbi, t[i].cmp);
		if (rc)
			return rc;
	}
	return 0;
}

static kbx_status_t check_schema(struct kbx_store *s, MDB_txn *txn, struct kbx_error *err)
{
	uint64_t v;
	kbx_status_t st = _kbx_meta_get_u64(s, txn, "schema", &v);
	if (st == KBX_NOT_FOUND)
		return _kbx_fail(err, KBX_ERR_SCHEMA,
				 "the index in '%s' has no schema version: run 'kbx index --rebuild'",
				 s->dir);
	if (st)
		return _kbx_fail(err, st, "cannot read the schema version of '%s': run 'kbx index --rebuild'",
				 s->dir);
	if (v != KBX_SCHEMA_VERSION)
		return _kbx_fail(err, KBX_ERR_SCHEMA,
				 "the index in '%s' has schema version %llu but this kbx uses version %d: run 'kbx index --rebuild'",
				 s->dir, (unsigned long long)v, KBX_SCHEMA_VERSION);
	return KBX_OK;
}

/* A store inside its repository (ROOT/.kbx) belongs to wherever that
 * repository is now: moved or copied with its .kbx, it indexes the new
 * place.  Only a store kept elsewhere (KBX_DIR, --kbx-dir) remembers its
 * root. */
static int store_inside_root(const struct kbx_store *s)
{
	if (!s->root)
		return 0;
	size_t rl = strlen(s->root);
	while (rl > 1 && s->root[rl - 1] == '/')
		rl--;
	return !strncmp(s->dir, s->root, rl) && !strcmp(s->dir + rl, rl == 1 ? ".kbx" : "/.kbx");
}

static kbx_status_t read_root(struct kbx_store *s, MDB_txn *txn)
{
	if (store_inside_root(s))
		return KBX_OK;
	MDB_val k = { 4, "root" }, d;
	if (mdb_get(txn, s->meta, &k, &d) == 0) {
		free(s->root);
		s->root = strndup(d.mv_data, d.mv_size);
		if (!s->root)
			return KBX_ERR_NOMEM;
	}
	return KBX_OK;
}

/* Does the environment hold no database at all yet? */
static int env_is_empty(MDB_txn *txn)
{
	MDB_dbi main;
	MDB_stat ms;
	return mdb_dbi_open(txn, NULL, 0, &main) == 0 && mdb_stat(txn, main, &ms) == 0 &&
	       ms.ms_entries == 0;
}

static kbx_status_t fail_not_built(struct kbx_error *err, const char *kbx_dir)
{
	return _kbx_fail(err, KBX_ERR_NO_STORE,
			 "the index in '%s' has not been built yet (a first 'kbx index' is running or did not finish): run 'kbx index'",
			 kbx_dir);
}

/* Find the environment's directory from .kbx/current into s->env_dir. */
static kbx_status_t locate_env(struct kbx_store *s, int flags, struct kbx_error *err)
{
	int trusted = (flags & KBX_OPEN_TRUSTED) != 0, exists = 0;
	uint64_t gen = 0;
	free(s->env_dir);
	s->env_dir = NULL;
	kbx_status_t st = _kbx_store_pointer_read(s->dir, trusted, &gen, err);
	if (st == KBX_ERR_CORRUPT && s->writable && (flags & KBX_OPEN_REPLACE_FOREIGN)) {
		/* --rebuild: a pointer that names nothing goes, and the store
		 * is made again in .kbx */
		char *p = _kbx_path_concat(s->dir, "current");
		if (!p || unlink(p) < 0) {
			free(p);
			return st;
		}
		free(p);
		if (err)
			*err = (struct kbx_error)KBX_ERROR_INIT;
		st = KBX_OK;
	}
	if (st)
		return st;
	s->env_gen = gen;
	s->env_dir = _kbx_store_env_path(s->dir, gen);
	if (!s->env_dir)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!gen)
		return KBX_OK;
	st = check_dir(s->env_dir, trusted, &exists, err);
	if (!st && !exists && s->writable && (flags & KBX_OPEN_REPLACE_FOREIGN) &&
	    mkdir(s->env_dir, 0777) < 0 && errno != EEXIST)
		st = _kbx_fail(err, errno == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
			       "cannot create '%s': %s", s->env_dir, strerror(errno));
	else if (!st && !exists && !(s->writable && (flags & KBX_OPEN_REPLACE_FOREIGN)))
		st = _kbx_fail(err, s->writable ? KBX_ERR_CORRUPT : KBX_ERR_NO_STORE,
			       "the index directory '%s' that '%s/current' names is missing: run 'kbx index --rebuild'",
			       s->env_dir, s->dir);
	return st;
}

/* Close the environment alone (not the writer's lock). */
static void env_close(struct kbx_store *s)
{
	if (s->wtxn)
		mdb_txn_abort(s->wtxn);
	if (s->rtxn)
		mdb_txn_abort(s->rtxn);
	if (s->env)
		mdb_env_close(s->env);
	s->wtxn = s->rtxn = NULL;
	s->env = NULL;
}

/* Open the environment in s->env_dir (the writer's lock, if any, held).
 * On failure s has no environment and no transaction. */
static kbx_status_t open_env(struct kbx_store *s, int flags, size_t map_size,
			     struct kbx_error *err)
{
	const char *kbx_dir = s->dir, *env = s->env_dir;
	int trusted = (flags & KBX_OPEN_TRUSTED) != 0;
	int rc;
	kbx_status_t st;

	/* Nothing of the store is read before it is known to be kbx's own
	 * (trust.h): its files must not be links, and its data file must
	 * carry this user's mark. */
	enum data_state dstate = DATA_NONE;
	st = check_files(kbx_dir, trusted, err);
	if (!st && strcmp(env, kbx_dir))
		st = check_files(env, trusted, err);
	if (!st)
		st = check_data(env, &dstate, err);
	if (!st && dstate == DATA_FOREIGN && trusted)
		dstate = DATA_OURS;   /* safe.directory vouches for it */
	if (!st && !s->writable) {
		if (dstate == DATA_NONE)
			st = _kbx_fail(err, KBX_ERR_NO_STORE,
				       "no kbx index at '%s': run 'kbx index' first", kbx_dir);
		else if (dstate == DATA_UNBUILT)
			st = fail_not_built(err, kbx_dir);
		else if (dstate == DATA_FOREIGN)
			st = fail_foreign(err, kbx_dir);
	} else if (!st && (dstate == DATA_UNBUILT ||
			   (dstate == DATA_FOREIGN && (flags & KBX_OPEN_REPLACE_FOREIGN)))) {
		st = remove_data(kbx_dir, env, err);
		dstate = DATA_NONE;
	} else if (!st && dstate == DATA_FOREIGN) {
		st = fail_foreign(err, kbx_dir);
	}
	if (!st)
		st = reserve_lock_file(env, err);
	if (st) {
		env_close(s);
		return st;
	}

	if ((rc = mdb_env_create(&s->env)) ||
	    (rc = mdb_env_set_maxdbs(s->env, 32)) ||
	    (rc = mdb_env_set_maxreaders(s->env, 254))) {
		env_close(s);
		return _kbx_fail_mdb(err, rc, "cannot create the LMDB environment");
	}
	if (s->writable) {
		char *data = _kbx_path_concat(env, "data.mdb");
		struct stat st_data;
		size_t want = map_size ? map_size : MAP_MIN;
		if (!map_size && data && stat(data, &st_data) == 0) {
			while (want < (size_t)st_data.st_size * 2)
				want *= 2;
		}
		free(data);
		mdb_env_set_mapsize(s->env, want);
		s->map_size = want;
	}
	unsigned env_flags = MDB_NOTLS | MDB_NORDAHEAD;
	if (!s->writable)
		env_flags |= MDB_RDONLY;
	rc = mdb_env_open(s->env, env, env_flags, 0666);
	if (rc) {
		env_close(s);
		if (rc == ENOENT || (rc == EACCES && !s->writable))
			return _kbx_fail(err, KBX_ERR_NO_STORE,
					 "no kbx index at '%s': run 'kbx index' first", kbx_dir);
		return _kbx_fail_mdb(err, rc, "cannot open the index");
	}
	if (dstate == DATA_NONE && (st = _kbx_store_mark(env, err))) {
		env_close(s);
		return st;
	}
	/* Clear reader slots that processes killed mid-query left behind. */
	int dead = 0;
	mdb_reader_check(s->env, &dead);

	MDB_envinfo info;
	mdb_env_info(s->env, &info);
	s->map_size = info.me_mapsize;

	MDB_txn *txn;
	if (s->writable) {
		rc = mdb_txn_begin(s->env, NULL, 0, &txn);
		if (rc) {
			env_close(s);
			return _kbx_fail_mdb(err, rc, "cannot begin a write transaction");
		}
		rc = open_dbis(s, txn, MDB_CREATE);
		uint64_t v;
		st = _kbx_meta_get_u64(s, txn, "schema", &v);
		if (!rc && st == KBX_NOT_FOUND) {
			/* a new store */
			rc = _kbx_meta_put_u64(s, txn, "schema", KBX_SCHEMA_VERSION);
			if (!rc)
				rc = _kbx_meta_put_u64(s, txn, "generation", 0);
			if (!rc)
				rc = _kbx_meta_put_u64(s, txn, "created", (uint64_t)time(NULL));
			if (!rc && s->root)
				rc = _kbx_meta_put_str(s, txn, "root", s->root);
		}
		if (!rc)
			rc = mdb_txn_commit(txn);
		else
			mdb_txn_abort(txn);
		if (rc) {
			rc = _kbx_store_write_error(s, rc);   /* a write cut short: the disk */
			env_close(s);
			return _kbx_fail_mdb(err, rc, "cannot initialise the index");
		}
		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
		if (rc) {
			env_close(s);
			return _kbx_fail_mdb(err, rc, "cannot begin a read transaction");
		}
		st = KBX_OK;
		if (!(flags & KBX_OPEN_ANY_SCHEMA))
			st = check_schema(s, txn, err);
		if (!st)
			st = read_root(s, txn);
		mdb_txn_abort(txn);
		if (st) {
			env_close(s);
			return st;
		}
	} else {
		rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
		if (rc == MDB_MAP_RESIZED) {
			s->rtxn = NULL;
			rc = set_map_size(s, 0);
			if (!rc)
				rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
		}
		if (rc) {
			env_close(s);
			return _kbx_fail_mdb(err, rc, "cannot begin a read transaction");
		}
		rc = open_dbis(s, s->rtxn, 0);
		if (rc == MDB_NOTFOUND && env_is_empty(s->rtxn)) {
			/* a first 'kbx index' has created the files and not yet
			 * committed anything */
			env_close(s);
			return fail_not_built(err, kbx_dir);
		}
		if (rc == MDB_NOTFOUND) {
			env_close(s);
			return _kbx_fail(err, KBX_ERR_SCHEMA,
					 "'%s' is not a kbx index of this version: run 'kbx index --rebuild'",
					 kbx_dir);
		}
		/* A table opened in a read transaction is that transaction's
		 * alone until it commits: committed, the handles are the
		 * environment's, for any later transaction of this store
		 * (kbx_store_refresh, a look at the latest state) */
		if (!rc) {
			rc = mdb_txn_commit(s->rtxn);
			s->rtxn = NULL;
			if (!rc)
				rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
			if (rc)
				s->rtxn = NULL;
		}
		if (rc) {
			env_close(s);
			return _kbx_fail_mdb(err, rc, "cannot open the index's tables");
		}
		st = check_schema(s, s->rtxn, err);
		/* Generation 0 is a store whose first run has not committed
		 * (still running, killed, or out of space): its empty tables
		 * would answer every query with a wrong "nothing found". */
		uint64_t gen = 0;
		if (!st && _kbx_meta_get_u64(s, s->rtxn, "generation", &gen) == KBX_OK && !gen)
			st = fail_not_built(err, kbx_dir);
		if (!st)
			st = read_root(s, s->rtxn);
		if (st) {
			env_close(s);
			return st;
		}
	}
	return KBX_OK;
}

kbx_status_t kbx_store_open(const char *kbx_dir, const char *root, int flags, size_t map_size,
			    kbx_store_t **out, struct kbx_error *err)
{
	kbx_status_t st;
	struct kbx_store *s = calloc(1, sizeof(*s));
	*out = NULL;
	if (!s)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	s->lock_fd = -1;
	s->dir = strdup(kbx_dir);
	s->root = root ? strdup(root) : NULL;
	s->writable = (flags & KBX_OPEN_WRITE) != 0;
	s->open_flags = flags;
	if (!s->dir || (root && !s->root)) {
		kbx_store_close(s);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}

	int trusted = (flags & KBX_OPEN_TRUSTED) != 0, exists;
	st = check_dir(kbx_dir, trusted, &exists, err);
	if (!st && !exists && !(flags & KBX_OPEN_CREATE))
		st = _kbx_fail(err, KBX_ERR_NO_STORE, "no kbx index at '%s': run 'kbx index' first",
			       kbx_dir);
	if (!st && !exists)
		st = kbx_store_make_dir(kbx_dir, err);
	if (st) {
		kbx_store_close(s);
		return st;
	}

	if (s->writable) {
		/* One writer at a time; a second one is told to retry rather
		 * than queueing behind LMDB's own writer mutex. */
		char *lock = _kbx_path_concat(kbx_dir, "index.lock");
		s->lock_fd = lock ? open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666) : -1;
		int e = errno;
		if (s->lock_fd < 0 && e == ELOOP)
			st = fail_link(err, lock);
		else if (s->lock_fd < 0)
			st = _kbx_fail(err, e == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
				       "cannot open the lock file in '%s': %s", kbx_dir, strerror(e));
		else if (flock(s->lock_fd, LOCK_EX | LOCK_NB) < 0) {
			st = fail_busy(err, s->lock_fd, kbx_dir);
			close(s->lock_fd);   /* not ours: closing must not clear the holder's pid */
			s->lock_fd = -1;
		}
		else
			note_holder(s->lock_fd);
		free(lock);
		if (st) {
			kbx_store_close(s);
			return st;
		}
	}

	/* Where the environment is: .kbx/current names it when a
	 * compaction has moved it (compact.c). */
	st = reopen_env(s, flags, map_size, err);
	if (st) {
		kbx_store_close(s);
		return st;
	}
	if (s->writable)
		_kbx_store_sweep(kbx_dir, s->env_gen);   /* what a killed compaction left */
	*out = s;
	return KBX_OK;
}

void kbx_store_close(kbx_store_t *s)
{
	if (!s)
		return;
	env_close(s);
	if (s->lock_fd >= 0) {
		if (s->writable && ftruncate(s->lock_fd, 0) < 0) {
			/* a pid left behind is checked before it is named */
		}
		close(s->lock_fd);   /* releases the flock */
	}
	free(s->dir);
	free(s->env_dir);
	free(s->root);
	free(s);
}

/* Has an index run committed since the snapshot this reader sees, or a
 * compaction moved the store to another file? */
int kbx_store_outdated(kbx_store_t *s)
{
	MDB_envinfo ei;
	if (s->wtxn || !s->rtxn || mdb_env_info(s->env, &ei))
		return 0;
	return (size_t)ei.me_last_txnid > mdb_txn_id(s->rtxn) || _kbx_store_pointer_moved(s);
}

/* Open the environment .kbx/current names now, s's own closed first.  A
 * reader overtaken by another compaction while it opens looks again. */
static kbx_status_t reopen_env(struct kbx_store *s, int flags, size_t map_size,
			       struct kbx_error *err)
{
	kbx_status_t st;
	env_close(s);
	for (int tries = 0;; tries++) {
		st = locate_env(s, flags, err);
		if (!st)
			st = open_env(s, flags, map_size, err);
		if (!st || s->writable || tries >= 3 || !_kbx_store_pointer_moved(s))
			return st;
		if (err)
			*err = (struct kbx_error)KBX_ERROR_INIT;
	}
}

kbx_status_t _kbx_store_reopen(struct kbx_store *s, struct kbx_error *err)
{
	return reopen_env(s, s->open_flags & ~KBX_OPEN_REPLACE_FOREIGN, s->map_size, err);
}

kbx_status_t kbx_store_refresh(kbx_store_t *s, struct kbx_error *err)
{
	if (s->wtxn || !s->rtxn)
		return KBX_OK;
	if (_kbx_store_pointer_moved(s))
		return reopen_env(s, s->open_flags, 0, err);
	mdb_txn_reset(s->rtxn);
	int rc = mdb_txn_renew(s->rtxn);
	if (rc == MDB_MAP_RESIZED) {
		mdb_txn_abort(s->rtxn);
		s->rtxn = NULL;
		rc = set_map_size(s, 0);
		if (!rc)
			rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &s->rtxn);
	}
	if (rc) {
		if (s->rtxn)
			mdb_txn_abort(s->rtxn);
		s->rtxn = NULL;
		return _kbx_fail_mdb(err, rc, "cannot begin a read transaction");
	}
	kbx_status_t st = check_schema(s, s->rtxn, err);
	uint64_t gen = 0;
	if (!st && _kbx_meta_get_u64(s, s->rtxn, "generation", &gen) == KBX_OK && !gen)
		st = fail_not_built(err, s->dir);
	if (!st)
		st = read_root(s, s->rtxn);
	return st;
}

const char *kbx_store_root(const kbx_store_t *s)
{
	return s->root;
}

/*
 * Change the size of an open store's map.  LMDB unmaps the old map
 * before it maps the new one, and when that mmap() fails (an address
 * space limit such as ulimit -v) the environment is left with no map:
 * the next transaction reads the meta pages at the old, unmapped
 * address, and crashes, or finds whatever malloc() has put there since
 * and reports a page of the wrong type (MDB_CORRUPTED) although nothing
 * on disk is damaged.  So the extra address space is reserved for a
 * moment first: when that fails, the old map stays and can still be
 * used.  Only with no transaction open in this process.
 */
static int set_map_size(struct kbx_store *s, size_t want)
{
	MDB_envinfo ei;
	if (s->map_lost)
		return ENOMEM;
	if (s->wtxn || s->rtxn)
		return EINVAL;
	if (mdb_env_info(s->env, &ei) == 0 && want > ei.me_mapsize) {
		size_t extra = want - ei.me_mapsize;
		void *p = mmap(NULL, extra, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
			       -1, 0);
		if (p == MAP_FAILED)
			return errno ? errno : ENOMEM;
		munmap(p, extra);
	}
	int rc = mdb_env_set_mapsize(s->env, want);
	if (rc)
		s->map_lost = 1;
	return rc;
}

kbx_status_t _kbx_store_write_begin(struct kbx_store *s, struct kbx_error *err)
{
	if (!s->env)
		return _kbx_fail(err, KBX_ERR_STORE,
				 "cannot begin a write transaction: the index was compacted but could not be opened again; nothing was written: run 'kbx index' again");
	if (s->map_lost)
		return _kbx_fail(err, KBX_ERR_NOMEM,
				 "cannot begin a write transaction: the index's map was lost when the address space ran out while it grew; nothing was written: run 'kbx index' again with more memory");
	int rc = mdb_txn_begin(s->env, NULL, 0, &s->wtxn);
	if (rc == MDB_MAP_RESIZED) {
		/* another process grew the map: take its size */
		rc = set_map_size(s, 0);
		if (!rc)
			rc = mdb_txn_begin(s->env, NULL, 0, &s->wtxn);
	}
	if (rc) {
		s->wtxn = NULL;
		return _kbx_fail_mdb(err, rc, "cannot begin a write transaction");
	}
	return KBX_OK;
}

int _kbx_store_write_error(const struct kbx_store *s, int rc)
{
	if (rc != EIO)
		return rc;
	/* LMDB writes up to 64 pages at a time: a write cut short leaves
	 * less than that free behind it */
	struct statvfs vfs;
	if (statvfs(s->dir, &vfs) == 0) {
		uint64_t avail = geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail;
		if (avail * vfs.f_frsize < (1u << 20))
			return ENOSPC;
	}
	struct rlimit rl;
	char *data = _kbx_path_concat(s->env_dir, "data.mdb");
	struct stat st;
	int at_limit = data && getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
		       stat(data, &st) == 0 && (uint64_t)st.st_size + (1u << 20) >= rl.rlim_cur;
	free(data);
	return at_limit ? EFBIG : rc;
}

kbx_status_t _kbx_store_write_commit(struct kbx_store *s, struct kbx_error *err)
{
	int rc = mdb_txn_commit(s->wtxn);
	s->wtxn = NULL;
	if (rc)
		return _kbx_fail_mdb(err, _kbx_store_write_error(s, rc), "cannot commit the index");
	return KBX_OK;
}

void _kbx_store_write_abort(struct kbx_store *s)
{
	if (s->wtxn)
		mdb_txn_abort(s->wtxn);
	s->wtxn = NULL;
}

/* Double the map, for a run that filled it.  When the address space
 * cannot hold the bigger map (a limit such as ulimit -v, or a 32-bit
 * system), the run has failed for want of room, which is KBX_ERR_FULL
 * like a full disk, not an out-of-memory crash: nothing was committed. */
kbx_status_t _kbx_store_grow(struct kbx_store *s, struct kbx_error *err)
{
	size_t want = s->map_size * 2;
	if (want < s->map_size)
		return _kbx_fail(err, KBX_ERR_FULL, "the index cannot grow any further");
	int rc = set_map_size(s, want);
	if (rc)
		return _kbx_fail(err, KBX_ERR_FULL,
				 "the index's map is full at %.1f MiB and cannot grow to %.1f MiB: %s%s",
				 (double)s->map_size / (1 << 20), (double)want / (1 << 20),
				 mdb_strerror(rc),
				 rc == ENOMEM ? " (the address space ran out: see ulimit -v)" : "");
	s->map_size = want;
	return KBX_OK;
}

kbx_status_t _kbx_meta_get_str(struct kbx_store *s, MDB_txn *txn, const char *key, char *out,
			       size_t outsz)
{
	MDB_val k = { strlen(key), (void *)key }, d;
	out[0] = '\0';
	int rc = mdb_get(txn, s->meta, &k, &d);
	if (rc == MDB_NOTFOUND)
		return KBX_NOT_FOUND;
	if (rc)
		return KBX_ERR_STORE;
	size_t n = d.mv_size < outsz - 1 ? d.mv_size : outsz - 1;
	memcpy(out, d.mv_data, n);
	out[n] = '\0';
	return KBX_OK;
}

kbx_status_t _kbx_store_reserve(struct kbx_store *s, uint64_t extra)
{
	MDB_envinfo ei;
	MDB_stat st;
	if (mdb_env_info(s->env, &ei) || mdb_env_stat(s->env, &st))
		return KBX_OK;   /* the retries will tell */
	uint64_t used = ((uint64_t)ei.me_last_pgno + 1) * st.ms_psize;
	size_t want = s->map_size;
	while (want && (uint64_t)want < used + extra)
		want *= 2;
	if (!want || want == s->map_size)
		return KBX_OK;
	if (set_map_size(s, want) == 0)
		s->map_size = want;
	/* a map that cannot grow now is reported by the run that fills it */
	return KBX_OK;
}

int _kbx_store_clear(struct kbx_store *s, unsigned what)
{
	/* Never the registries, which are settings, nor the vector cache,
	 * whose entries are keyed by content and stay right: a rebuild with
	 * a remote embedding provider does not pay for every vector again. */
	MDB_dbi graph[] = { s->files, s->nodes, s->ids, s->names, s->edges, s->redges,
			    s->refs, s->refnames, s->bodies };
	MDB_dbi search[] = { s->chunks, s->ckeys, s->sources, s->docids, s->postings,
			     s->patterns, s->vdelta };
	/* the search index's counters start again ("next_chunk" does not,
	 * so that a new chunk is never taken for an old one) */
	static const char *const counters[] = {
		"chunks", "chunk_tokens", "chunks.error", "chunks.pattern", "chunks.doc",
		"chunks.adr", "chunks.behavioral", "chunks.code", NULL,
	};
	static const char *const vector_file[] = {
		"vectors", "vector_count", "vector_kind", "vector_file", NULL,
	};
	const char *const *meta[] = { what & KBX_CLEAR_SEARCH ? counters : NULL,
				      what & KBX_CLEAR_VECTORS ? vector_file : NULL };
	int rc = 0;
	for (size_t i = 0; (what & KBX_CLEAR_GRAPH) && !rc && i < sizeof(graph) / sizeof(graph[0]); i++)
		rc = mdb_drop(s->wtxn, graph[i], 0);
	for (size_t i = 0; (what & KBX_CLEAR_SEARCH) && !rc && i < sizeof(search) / sizeof(search[0]); i++)
		rc = mdb_drop(s->wtxn, search[i], 0);
	for (size_t i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
		for (const char *const *key = meta[i]; key && *key && !rc; key++)
			rc = _kbx_meta_del(s, s->wtxn, *key);
	if (!rc && (what & KBX_CLEAR_SEARCH)) {
		/* "search_generation" goes on counting, and moves on: a vector
		 * file is stamped with the generation whose chunks it holds,
		 * and the chunks of no other generation are those */
		uint64_t gen = 0;
		kbx_status_t st = _kbx_meta_get_u64(s, s->wtxn, "search_generation", &gen);
		if (st && st != KBX_NOT_FOUND)
			return MDB_CORRUPTED;
		rc = _kbx_meta_put_u64(s, s->wtxn, "search_generation", gen + 1);
	}
	/* keep "created" and "generation"; rewrite the schema */
	if (!rc && (what & KBX_CLEAR_GRAPH))
		rc = _kbx_meta_put_u64(s, s->wtxn, "schema", KBX_SCHEMA_VERSION);
	return rc;
}

kbx_status_t kbx_store_info(kbx_store_t *s, struct kbx_store_info *info, struct kbx_error *err)
{
	MDB_txn *txn = _kbx_txn(s);
	MDB_stat ms;
	uint64_t v;
	memset(info, 0, sizeof(*info));
	info->schema_version = KBX_SCHEMA_VERSION;
	if (_kbx_meta_get_u64(s, txn, "generation", &v) == KBX_OK)
		info->generation = v;
	if (_kbx_meta_get_u64(s, txn, "created", &v) == KBX_OK)
		info->created = (int64_t)v;
	if (_kbx_meta_get_u64(s, txn, "updated", &v) == KBX_OK)
		info->updated = (int64_t)v;
	if (mdb_stat(txn, s->files, &ms) == 0)
		info->files = ms.ms_entries;
	if (mdb_stat(txn, s->edges, &ms) == 0)
		info->edges = ms.ms_entries;

	/* Walk files for languages, nodes for kinds; both are cheap scans. */
	MDB_cursor *c;
	MDB_val k, d;
	int rc = mdb_cursor_open(txn, s->files, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the files table");
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct _kbx_file_rec fr;
		if (_kbx_file_rec_decode(d.mv_data, d.mv_size, &fr) == KBX_OK && fr.lang < 32)
			info->files_by_lang[fr.lang]++;
	}
	mdb_cursor_close(c);
	rc = mdb_cursor_open(txn, s->nodes, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the nodes table");
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		const unsigned char *p = d.mv_data;
		if (d.mv_size < 1)
			continue;
		if (p[0] == KBX_KIND_EXTERNAL)
			info->externals++;
		else if (p[0] == KBX_KIND_MODULE)
			info->modules++;
		else if (p[0] != KBX_KIND_FILE && p[0] != KBX_KIND_NAMEREF)
			info->symbols++;
	}
	mdb_cursor_close(c);
	rc = mdb_cursor_open(txn, s->edges, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the edges table");
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		const unsigned char *kp = k.mv_data, *dp = d.mv_data;
		if (k.mv_size != KBX_EDGE_KEY_LEN || d.mv_size < 1)
			continue;
		if (kp[4] < KBX_EDGE__COUNT)
			info->edges_by_kind[kp[4]]++;
		if (dp[0] == KBX_CONF_AMBIGUOUS)
			info->ambiguous_edges++;
		else if (dp[0] == KBX_CONF_UNRESOLVED)
			info->unresolved_edges++;
	}
	mdb_cursor_close(c);

	char *data = _kbx_path_concat(s->env_dir, "data.mdb");
	struct stat st;
	if (data && stat(data, &st) == 0)
		info->store_bytes = (uint64_t)st.st_blocks * 512;
	free(data);
	MDB_envinfo ei;
	if (mdb_env_info(s->env, &ei) == 0)
		info->map_bytes = ei.me_mapsize;
	return KBX_OK;
}

kbx_status_t _kbx_fail_mdb(struct kbx_error *err, int rc, const char *what)
{
	kbx_status_t st = KBX_ERR_STORE;
	const char *hint = "";
	switch (rc) {
	case MDB_MAP_FULL:
		st = KBX_ERR_FULL;
		hint = "; the store's map is full: run 'kbx index' again to grow it";
		break;
	case ENOSPC:
		st = KBX_ERR_FULL;
		hint = "; free some disk space and run 'kbx index' again";
		break;
	case EDQUOT:
		st = KBX_ERR_FULL;
		hint = "; free some space under your disk quota and run 'kbx index' again";
		break;
	case EFBIG:
		st = KBX_ERR_FULL;
		hint = "; the store has reached the file size limit (ulimit -f)";
		break;
	case ENOMEM:
		st = KBX_ERR_NOMEM;
		break;
	case MDB_CORRUPTED:
	case MDB_PAGE_NOTFOUND:
	case MDB_INVALID:
		st = KBX_ERR_CORRUPT;
		hint = "; run 'kbx index --rebuild'";
		break;
	case MDB_READERS_FULL:
		st = KBX_ERR_BUSY;
		break;
	}
	return _kbx_fail(err, st, "%s: %s%s", what, mdb_strerror(rc), hint);
}
