/*
 * kbx_watch: keep the index current while files are saved.
 *
 * One inotify watch per directory that a scan enters (scan.c decides,
 * with the ignore files), added as directories appear and dropped as
 * they go.  Events name a directory and an entry in it; the entries that
 * a scan would index are collected until nothing has happened for the
 * debounce time, and then one index run over just those paths brings the
 * store up to date (the index itself tells new, changed and deleted
 * files apart, so an event's kind matters only for directories).
 *
 * Editors save in several ways, all of which end up as "this path
 * changed": writing in place (IN_MODIFY, IN_CLOSE_WRITE), writing a
 * temporary file and renaming it over the old one (IN_MOVED_TO), or
 * deleting and creating again (IN_DELETE, IN_CREATE).  Their temporary
 * and backup files (.x.swp, x~, 4913, #x#) are of no known language and
 * are left out before they cause a run.
 *
 * Why runs are limited to the changed paths rather than the whole tree:
 * both parse and resolve the same things, but a whole-tree run first
 * walks the tree and compares every file with the index.  Measured on
 * 2 cores (kbx_index_run's own time, median): after one saved file whose
 * content did not change, 12 ms for the whole tree against 9 ms limited
 * on git's 849 C files, and 48 ms against 8 ms on postgresql's 2373; the
 * walk alone is 3 to 8 ms and 27 to 33 ms of every whole-tree run.  From
 * a save to the index showing it takes about 0.4 s on postgresql (the
 * 200 ms of quiet, then the run).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "graph/graph.h"

#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | \
		    IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | \
		    IN_DONT_FOLLOW | IN_EXCL_UNLINK)
#define DEFAULT_DEBOUNCE_MS 200
/* changes that never stop (a build writing files) still get a run this
 * many debounce periods after the first one */
#define MAX_WAIT_FACTOR 10
/* beyond this many changed paths one run over the whole tree is cheaper */
#define MAX_PATHS 4096

struct wdir {
	int wd;
	int seen;       /* found again by the last resync */
	char *rel;      /* repository-relative, "" for the root */
};

struct watcher {
	const char *root;
	int fd;
	struct wdir *dirs;      /* sorted by wd */
	size_t n, alloc;
	char **changed;
	size_t nchanged, achanged;
	int full;
	struct kbx_error *err;
};

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static size_t wd_pos(const struct watcher *w, int wd)
{
	size_t lo = 0, hi = w->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (w->dirs[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct wdir *wd_find(struct watcher *w, int wd)
{
	size_t i = wd_pos(w, wd);
	return i < w->n && w->dirs[i].wd == wd ? &w->dirs[i] : NULL;
}

static void wd_remove_at(struct watcher *w, size_t i)
{
	free(w->dirs[i].rel);
	memmove(&w->dirs[i], &w->dirs[i + 1], (w->n - i - 1) * sizeof(*w->dirs));
	w->n--;
}

/* _kbx_scan_dirs callback: watch one directory. */
static kbx_status_t add_dir(void *data, const char *rel)
{
	struct watcher *w = data;
	struct strbuf abs = STRBUF_INIT;
	strbuf_addf(&abs, "%s%s%s", w->root, *rel ? "/" : "", rel);
	if (abs.failed) {
		strbuf_release(&abs);
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	}
	int wd = inotify_add_watch(w->fd, abs.buf, WATCH_MASK);
	if (wd < 0) {
		int e = errno;
		kbx_status_t st = KBX_OK;
		if (e == ENOSPC)
			st = _kbx_fail(w->err, KBX_ERR_IO,
				       "cannot watch '%s': the system's limit of inotify watches is reached; raise it with 'sysctl fs.inotify.max_user_watches=N', or ignore directories in .kbxignore",
				       abs.buf);
		else if (e == ENOMEM)
			st = _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory watching '%s'", abs.buf);
		else if (e != ENOENT && e != ENOTDIR && e != EACCES)
			st = _kbx_fail(w->err, KBX_ERR_IO, "cannot watch '%s': %s", abs.buf,
				       strerror(e));
		/* gone or unreadable since the walk saw it: nothing to watch */
		strbuf_release(&abs);
		return st;
	}
	strbuf_release(&abs);
	char *copy = strdup(rel);
	if (!copy)
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	struct wdir *d = wd_find(w, wd);
	if (d) {
		/* the same directory again (a resync), or moved */
		free(d->rel);
		d->rel = copy;
		d->seen = 1;
		return KBX_OK;
	}
	if (w->n == w->alloc) {
		size_t na = w->alloc ? w->alloc * 2 : 64;
		struct wdir *nd = realloc(w->dirs, na * sizeof(*nd));
		if (!nd) {
			free(copy);
			return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		}
		w->dirs = nd;
		w->alloc = na;
	}
	size_t i = wd_pos(w, wd);
	memmove(&w->dirs[i + 1], &w->dirs[i], (w->n - i) * sizeof(*w->dirs));
	w->dirs[i].wd = wd;
	w->dirs[i].seen = 1;
	w->dirs[i].rel = copy;
	w->n++;
	return KBX_OK;
}

/* Stop watching rel and every directory below it; how many were
 * watched. */
static size_t remove_tree(struct watcher *w, const char *rel)
{
	size_t len = strlen(rel), removed = 0;
	for (size_t i = w->n; i-- > 0;) {
		const char *r = w->dirs[i].rel;
		if (!strncmp(r, rel, len) && (r[len] == '\0' || r[len] == '/')) {
			inotify_rm_watch(w->fd, w->dirs[i].wd);
			wd_remove_at(w, i);
			removed++;
		}
	}
	return removed;
}

/* After an ignore file changed: watch what a scan now enters, and only
 * that. */
static kbx_status_t resync(struct watcher *w)
{
	for (size_t i = 0; i < w->n; i++)
		w->dirs[i].seen = 0;
	kbx_status_t st = _kbx_scan_dirs(w->root, "", add_dir, w, w->err);
	if (st)
		return st;
	for (size_t i = w->n; i-- > 0;)
		if (!w->dirs[i].seen) {
			inotify_rm_watch(w->fd, w->dirs[i].wd);
			wd_remove_at(w, i);
		}
	return KBX_OK;
}

static kbx_status_t add_changed(struct watcher *w, const char *rel)
{
	if (w->full)
		return KBX_OK;
	for (size_t i = 0; i < w->nchanged; i++)
		if (!strcmp(w->changed[i], rel))
			return KBX_OK;
	if (w->nchanged >= MAX_PATHS) {
		w->full = 1;
		return KBX_OK;
	}
	if (w->nchanged == w->achanged) {
		size_t na = w->achanged ? w->achanged * 2 : 16;
		char **nc = realloc(w->changed, na * sizeof(*nc));
		if (!nc)
			return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		w->changed = nc;
		w->achanged = na;
	}
	if (!(w->changed[w->nchanged] = strdup(rel)))
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	w->nchanged++;
	return KBX_OK;
}

static void clear_changed(struct watcher *w)
{
	for (size_t i = 0; i < w->nchanged; i++)
		free(w->changed[i]);
	w->nchanged = 0;
	w->full = 0;
}

static kbx_status_t on_event(struct watcher *w, const struct inotify_event *ev)
{
	if (ev->mask & IN_Q_OVERFLOW) {
		/* events were lost: look at everything */
		w->full = 1;
		return KBX_OK;
	}
	size_t i = wd_pos(w, ev->wd);
	if (i >= w->n || w->dirs[i].wd != ev->wd)
		return KBX_OK;   /* a watch already dropped */
	if (ev->mask & IN_IGNORED) {
		/* the kernel dropped a watch we still hold: the directory is
		 * gone (its parent's event may come before this or after) */
		if (!*w->dirs[i].rel)
			return _kbx_fail(w->err, KBX_ERR_IO,
					 "the repository '%s' was removed or unmounted", w->root);
		kbx_status_t st = add_changed(w, w->dirs[i].rel);
		wd_remove_at(w, i);
		return st;
	}
	if (!ev->len || !ev->name[0]) {
		/* about the directory itself: its parent reports the move
		 * or deletion, except for the root */
		if (!*w->dirs[i].rel && (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF)))
			return _kbx_fail(w->err, KBX_ERR_IO,
					 "the repository '%s' was moved or removed: watch it where it is now",
					 w->root);
		return KBX_OK;
	}
	const char *name = ev->name;
	if (!strcmp(name, ".git") || !strcmp(name, ".kbx"))
		return KBX_OK;
	struct strbuf rel = STRBUF_INIT;
	const char *dir = w->dirs[i].rel;
	strbuf_addf(&rel, "%s%s%s", dir, *dir ? "/" : "", name);
	if (rel.failed) {
		strbuf_release(&rel);
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	}
	kbx_status_t st = KBX_OK;
	if (!strcmp(name, ".gitignore") || !strcmp(name, ".kbxignore")) {
		/* what is indexed and what is watched may both change */
		w->full = 1;
	} else if (ev->mask & IN_ISDIR) {
		/* what was indexed under it goes, what is there now comes;
		 * a directory the scan leaves out (ignored, a nested
		 * repository) was never watched and is not looked at */
		size_t before = w->n, gone = 0;
		if (ev->mask & (IN_MOVED_FROM | IN_DELETE))
			gone = remove_tree(w, rel.buf);
		if (ev->mask & (IN_CREATE | IN_MOVED_TO))
			st = _kbx_scan_dirs(w->root, rel.buf, add_dir, w, w->err);
		if (!st && (gone || w->n > before))
			st = add_changed(w, rel.buf);
	} else if (_kbx_scan_wants(w->root, rel.buf)) {
		/* a link is never indexed: an Emacs lock file ".#x.py" */
		struct strbuf abs = STRBUF_INIT;
		struct stat lst;
		strbuf_addf(&abs, "%s/%s", w->root, rel.buf);
		if (lstat(abs.buf, &lst) < 0 || !S_ISLNK(lst.st_mode))
			st = add_changed(w, rel.buf);
		strbuf_release(&abs);
	}
	strbuf_release(&rel);
	return st;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

kbx_status_t kbx_watch(kbx_store_t *s, const struct kbx_watch_opts *o, struct kbx_error *err)
{
	struct kbx_error local = KBX_ERROR_INIT;
	struct watcher w = { 0 };
	kbx_status_t st = KBX_OK;
	/* room for many events; aligned for struct inotify_event */
	static const size_t bufsize = 64 * 1024;
	char *buf = NULL;

	if (!err)
		err = &local;
	if (!s->writable)
		return _kbx_fail(err, KBX_ERR_USAGE, "the index was opened read-only");
	w.root = s->root;
	w.err = err;
	w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w.fd < 0) {
		int e = errno;
		return _kbx_fail(err, e == ENOMEM ? KBX_ERR_NOMEM : KBX_ERR_IO,
				 "cannot watch files: inotify: %s%s", strerror(e),
				 e == EMFILE ? " (fs.inotify.max_user_instances is reached)" : "");
	}
	buf = malloc(bufsize);
	if (!buf) {
		close(w.fd);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	st = _kbx_scan_dirs(w.root, "", add_dir, &w, err);
	if (!st && o->on_ready)
		o->on_ready(o->data, w.n);

	unsigned debounce = o->debounce_ms ? o->debounce_ms : DEFAULT_DEBOUNCE_MS;
	uint64_t first = 0, last = 0;
	int pending = 0;
	while (!st) {
		int timeout = -1;
		if (pending) {
			uint64_t now = now_ms();
			uint64_t due = last + debounce;
			if (first + (uint64_t)debounce * MAX_WAIT_FACTOR < due)
				due = first + (uint64_t)debounce * MAX_WAIT_FACTOR;
			timeout = due > now ? (int)(due - now) : 0;
		}
		struct pollfd p[2] = { { w.fd, POLLIN, 0 }, { o->stop_fd, POLLIN, 0 } };
		int r = poll(p, o->stop_fd >= 0 ? 2 : 1, timeout);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			st = _kbx_fail(err, KBX_ERR_IO, "cannot wait for changes: %s", strerror(errno));
			break;
		}
		if (o->stop_fd >= 0 && p[1].revents)
			break;
		if (p[0].revents & POLLIN) {
			size_t before = w.nchanged;
			int was_full = w.full;
			for (;;) {
				ssize_t n = read(w.fd, buf, bufsize);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
					break;
				if (n <= 0) {
					st = _kbx_fail(err, KBX_ERR_IO, "cannot read file events: %s",
						       n < 0 ? strerror(errno) : "end of file");
					break;
				}
				for (char *q = buf; q < buf + n && !st;) {
					const struct inotify_event *ev = (const struct inotify_event *)q;
					st = on_event(&w, ev);
					q += sizeof(*ev) + ev->len;
				}
				if (st)
					break;
			}
			if (st)
				break;
			if (w.nchanged != before || w.full != was_full) {
				last = now_ms();
				if (!pending)
					first = last;
				pending = 1;
			}
		}
		if (!pending)
			continue;
		uint64_t now = now_ms();
		if (now < last + debounce && now < first + (uint64_t)debounce * MAX_WAIT_FACTOR)
			continue;

		/* quiet long enough: bring the index up to date */
		struct kbx_index_opts io = *o->index;
		struct kbx_index_stats stats;
		struct kbx_error rerr = KBX_ERROR_INIT;
		struct kbx_watch_report rep = { 0 };
		int full = w.full;
		if (full) {
			st = resync(&w);
			if (st)
				break;
			io.paths = NULL;
			io.npaths = 0;
		} else {
			qsort(w.changed, w.nchanged, sizeof(*w.changed), cmp_path);
			io.paths = (const char *const *)w.changed;
			io.npaths = w.nchanged;
		}
		rep.status = kbx_index_run(s, &io, &stats, &rerr);
		rep.err = &rerr;
		rep.stats = &stats;
		rep.paths = (const char *const *)w.changed;
		rep.npaths = full ? 0 : w.nchanged;
		rep.full = full;
		int stop = o->on_run ? o->on_run(o->data, &rep) : 0;
		clear_changed(&w);
		/* the changes of a failed run are not in the index: look at
		 * everything next time */
		if (rep.status)
			w.full = 1;
		pending = 0;
		if (stop)
			break;
	}
	clear_changed(&w);
	free(w.changed);
	for (size_t i = 0; i < w.n; i++)
		free(w.dirs[i].rel);
	free(w.dirs);
	free(buf);
	close(w.fd);
	return st;
}
