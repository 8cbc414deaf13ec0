/*
 * The list of repositories kbx knows (see repos.h): reading and writing
 * the file under its lock, naming stores, telling a repository worth
 * listing (a remote on another machine) and one that is gone.  Fusing
 * the ranked lists of several stores is lib/search/fuse.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "util/util.h"
#include "util/repos.h"

#define NAME_MAX_LEN 64
#define LOCK_WAIT_MS 10000
#define REPOS_FILE_MAX (16u << 20)   /* a line a repository: far more than any list */

static const char header[] =
	"# kbx repositories: name, store directory, repository root (tab-separated).\n"
	"# kbx index adds to this file; change it with 'kbx repos' (see kbx-repos(1)).\n";

void kbx_repo_list_release(struct kbx_repo_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].kbx_dir);
		free(l->items[i].root);
	}
	free(l->items);
	l->items = NULL;
	l->n = l->alloc = 0;
}

kbx_status_t kbx_repos_path(char **out, struct kbx_error *err)
{
	kbx_status_t st = _kbx_xdg_path("XDG_CONFIG_HOME", ".config", "kbx/repos", out);
	if (st == KBX_NOT_FOUND)
		return _kbx_fail(err, st,
				 "there is no list of repositories: neither XDG_CONFIG_HOME nor HOME is set");
	return st ? _kbx_fail(err, st, "out of memory") : KBX_OK;
}

/* Append an entry, copying the strings. */
static kbx_status_t list_push(struct kbx_repo_list *l, const char *name, size_t nlen,
			      const char *dir, size_t dlen, const char *root, size_t rlen)
{
	if (l->n == l->alloc) {
		size_t na = l->alloc ? 2 * l->alloc : 8;
		struct kbx_repo *p = realloc(l->items, na * sizeof(*p));
		if (!p)
			return KBX_ERR_NOMEM;
		l->items = p;
		l->alloc = na;
	}
	struct kbx_repo *r = &l->items[l->n];
	r->name = strndup(name, nlen);
	r->kbx_dir = strndup(dir, dlen);
	r->root = strndup(root, rlen);
	if (!r->name || !r->kbx_dir || !r->root) {
		free(r->name);
		free(r->kbx_dir);
		free(r->root);
		return KBX_ERR_NOMEM;
	}
	l->n++;
	return KBX_OK;
}

int kbx_repo_name_ok(const char *name, const char **why)
{
	const char *w = NULL;
	size_t len = strlen(name);
	if (!len)
		w = "is empty";
	else if (len > NAME_MAX_LEN)
		w = "is longer than 64 bytes";
	else if (name[0] == '.' || name[0] == '-')
		w = "starts with '.' or '-'";
	for (const unsigned char *p = (const unsigned char *)name; !w && *p; p++)
		if (!(*p >= 0x80 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr("._-+@", *p)))
			w = "holds a character other than letters, digits and . _ - + @";
	if (why)
		*why = w;
	return !w;
}

kbx_status_t kbx_repos_load(const char *path, struct kbx_repo_list *out, struct kbx_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	char resolved[PATH_MAX];
	/* the user's own file: a link to one kept elsewhere is followed */
	int rc = strbuf_read_regular_file(&sb, realpath(path, resolved) ? resolved : path,
					  REPOS_FILE_MAX);
	if (rc < 0) {
		int e = errno;
		strbuf_release(&sb);
		if (rc == -1 && e == ENOENT)
			return KBX_OK;
		if (rc == STRBUF_TOO_BIG)
			return _kbx_fail(err, KBX_ERR_PARSE, "'%s' is larger than %u MiB: is it the right file?",
					 path, REPOS_FILE_MAX >> 20);
		if (rc == STRBUF_NOT_REGULAR)
			return _kbx_fail(err, KBX_ERR_IO, "cannot read '%s': not a regular file", path);
		return _kbx_fail(err, e == ENOMEM ? KBX_ERR_NOMEM : KBX_ERR_IO, "cannot read '%s': %s",
				 path, strerror(e));
	}
	const char *p = strbuf_str(&sb), *end = p + sb.len;
	unsigned line = 0;
	kbx_status_t st = KBX_OK;
	while (p < end && !st) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		line++;
		const char *f[3], *fe[3];
		size_t nf = 0;
		const char *q = p;
		if (q == eol || *q == '#') {
			p = nl ? nl + 1 : end;
			continue;
		}
		while (nf < 3) {
			const char *tab = memchr(q, '\t', (size_t)(eol - q));
			f[nf] = q;
			fe[nf] = nf < 2 && tab ? tab : eol;
			nf++;
			if (!tab || nf == 3)
				break;
			q = tab + 1;
		}
		char name[NAME_MAX_LEN + 1];
		const char *why = NULL, *name_why = NULL;
		size_t nlen = (size_t)(fe[0] - f[0]);
		if (nf != 3 || memchr(f[2], '\t', (size_t)(fe[2] - f[2]))) {
			why = "it is not three tab-separated fields (name, store, root)";
		} else if (nlen > NAME_MAX_LEN) {
			why = "the name is longer than 64 bytes";
		} else {
			memcpy(name, f[0], nlen);
			name[nlen] = '\0';
			if (memchr(f[0], '\0', nlen))
				why = "the name holds a NUL byte";
			else if (!kbx_repo_name_ok(name, &name_why))
				;
			else if (*f[1] != '/' || *f[2] != '/')
				why = "the store and the root must be absolute paths";
			else if (kbx_repo_list_find(out, name))
				why = "the name is listed twice";
		}
		if (!why && !name_why) {
			char *dir = strndup(f[1], (size_t)(fe[1] - f[1]));
			if (!dir) {
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				break;
			}
			if (kbx_repo_list_find_dir(out, dir))
				why = "the store is listed twice";
			free(dir);
		}
		if (name_why) {
			st = _kbx_fail(err, KBX_ERR_PARSE,
				       "'%s', line %u: the name '%s' %s: correct or remove the line",
				       path, line, name, name_why);
			break;
		}
		if (why) {
			st = _kbx_fail(err, KBX_ERR_PARSE, "'%s', line %u: %s: correct or remove the line",
				       path, line, why);
			break;
		}
		if (list_push(out, f[0], nlen, f[1], (size_t)(fe[1] - f[1]), f[2],
			      (size_t)(fe[2] - f[2])))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		p = nl ? nl + 1 : end;
	}
	strbuf_release(&sb);
	return st;
}

struct kbx_repo *kbx_repo_list_find(const struct kbx_repo_list *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].name, name))
			return &l->items[i];
	return NULL;
}

struct kbx_repo *kbx_repo_list_find_dir(const struct kbx_repo_list *l, const char *kbx_dir)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->items[i].kbx_dir, kbx_dir))
			return &l->items[i];
	return NULL;
}

size_t kbx_repo_list_suggest(const struct kbx_repo_list *l, const char *name, const char **out,
			     size_t max)
{
	size_t n = 0;
	for (size_t d = 0; d <= 2 && n < max; d++)
		for (size_t i = 0; i < l->n && n < max; i++) {
			const char *c = l->items[i].name;
			size_t dist = _kbx_edit_distance(name, c, 2);
			if (strlen(name) >= 2 && !strncmp(c, name, strlen(name)))
				dist = dist ? 1 : 0;
			if (dist == d)
				out[n++] = c;
		}
	return n;
}

/* A name made from a path component: characters a name may not hold
 * become '-', and a leading '.' or '-' is dropped. */
static void name_from(struct strbuf *sb, const char *s, size_t len)
{
	size_t start = sb->len;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int okc = c >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || strchr("._-+@", c);
		if (sb->len == start && (c == '.' || c == '-'))
			continue;
		strbuf_addch(sb, okc ? c : '-');
	}
	if (sb->len - start > 40)
		strbuf_setlen(sb, start + 40);
}

/* The last component of root (ignoring trailing slashes) as [p, p+len),
 * and the one before it. */
static void components(const char *root, const char **last, size_t *last_len,
		       const char **parent, size_t *parent_len)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	size_t b = n;
	while (b > 0 && root[b - 1] != '/')
		b--;
	*last = root + b;
	*last_len = n - b;
	size_t pe = b;
	while (pe > 1 && root[pe - 1] == '/')
		pe--;
	size_t pb = pe;
	while (pb > 0 && root[pb - 1] != '/')
		pb--;
	*parent = root + pb;
	*parent_len = pe > pb ? pe - pb : 0;
}

static kbx_status_t derive_name(const struct kbx_repo_list *l, const char *root,
				struct strbuf *out)
{
	const char *last, *parent;
	size_t last_len, parent_len;
	components(root, &last, &last_len, &parent, &parent_len);
	strbuf_reset(out);
	name_from(out, last, last_len);
	if (!out->len)
		strbuf_addstr(out, "repo");
	if (out->failed)
		return KBX_ERR_NOMEM;
	if (!kbx_repo_list_find(l, out->buf))
		return KBX_OK;
	struct strbuf base = STRBUF_INIT;
	strbuf_addstr(&base, out->buf);
	if (parent_len) {
		strbuf_reset(out);
		name_from(out, parent, parent_len);
		if (out->len) {
			strbuf_addch(out, '-');
			strbuf_addstr(out, base.buf);
			if (!out->failed && !kbx_repo_list_find(l, out->buf)) {
				strbuf_release(&base);
				return KBX_OK;
			}
		}
	}
	for (unsigned i = 2;; i++) {
		strbuf_reset(out);
		strbuf_addf(out, "%s-%u", base.buf, i);
		if (out->failed || !kbx_repo_list_find(l, out->buf))
			break;
	}
	strbuf_release(&base);
	return out->failed ? KBX_ERR_NOMEM : KBX_OK;
}

static int path_ok(const char *p)
{
	return p[0] == '/' && !strpbrk(p, "\t\n\r");
}

kbx_status_t kbx_repo_list_add(struct kbx_repo_list *l, const char *kbx_dir, const char *root,
			       const char *name, size_t *index, int *added, struct kbx_error *err)
{
	const char *why;
	*added = 0;
	if (!path_ok(kbx_dir) || !path_ok(root))
		return _kbx_fail(err, KBX_ERR_USAGE,
				 "'%s' cannot be listed: the paths must be absolute and hold no tab or line break",
				 path_ok(kbx_dir) ? root : kbx_dir);
	if (name && !kbx_repo_name_ok(name, &why))
		return _kbx_fail(err, KBX_ERR_USAGE, "the name '%s' %s", name, why);
	struct kbx_repo *r = kbx_repo_list_find_dir(l, kbx_dir);
	if (r) {
		if (name && strcmp(name, r->name))
			return _kbx_fail(err, KBX_ERR_USAGE,
					 "the index '%s' is listed as '%s' already: rename it with 'kbx repos rename %s %s'",
					 kbx_dir, r->name, r->name, name);
		if (strcmp(r->root, root)) {
			char *nr = strdup(root);
			if (!nr)
				return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			free(r->root);
			r->root = nr;
		}
		*index = (size_t)(r - l->items);
		return KBX_OK;
	}
	struct strbuf sb = STRBUF_INIT;
	if (name) {
		r = kbx_repo_list_find(l, name);
		if (r)
			return _kbx_fail(err, KBX_ERR_USAGE,
					 "the name '%s' is taken by '%s': choose another with --name",
					 name, r->root);
		strbuf_addstr(&sb, name);
	} else if (derive_name(l, root, &sb)) {
		strbuf_release(&sb);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	kbx_status_t st = sb.failed ? KBX_ERR_NOMEM
				    : list_push(l, sb.buf, sb.len, kbx_dir, strlen(kbx_dir), root,
						strlen(root));
	strbuf_release(&sb);
	if (st)
		return _kbx_fail(err, st, "out of memory");
	*index = l->n - 1;
	*added = 1;
	return KBX_OK;
}

void kbx_repo_list_remove(struct kbx_repo_list *l, size_t i)
{
	if (i >= l->n)
		return;
	free(l->items[i].name);
	free(l->items[i].kbx_dir);
	free(l->items[i].root);
	memmove(&l->items[i], &l->items[i + 1], (l->n - i - 1) * sizeof(l->items[0]));
	l->n--;
}

/* mkdir -p of the directory holding path. */
static kbx_status_t make_parents(const char *path, struct kbx_error *err)
{
	char dir[4096];
	int e = _kbx_make_parents(path, dir, sizeof(dir));
	if (e == ENOMEM)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (e)
		return _kbx_fail(err, e == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
				 "cannot create the directory '%s': %s", dir, strerror(e));
	return KBX_OK;
}

kbx_status_t kbx_repos_edit_begin(struct kbx_repos_edit *e, const char *path,
				  struct kbx_error *err)
{
	kbx_status_t st;
	struct strbuf lock = STRBUF_INIT;
	e->lock_fd = -1;
	e->path = strdup(path);
	strbuf_addf(&lock, "%s.lock", path);
	if (!e->path || lock.failed) {
		strbuf_release(&lock);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	if ((st = make_parents(path, err))) {
		strbuf_release(&lock);
		return st;
	}
	e->lock_fd = open(lock.buf, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (e->lock_fd < 0) {
		int en = errno;
		st = _kbx_fail(err, en == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO, "cannot open '%s': %s",
			       lock.buf, strerror(en));
		strbuf_release(&lock);
		return st;
	}
	/* wait for the other writer, a while: its change is a few writes */
	for (int waited = 0;; waited += 10) {
		if (flock(e->lock_fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int en = errno;
			st = _kbx_fail(err, KBX_ERR_IO, "cannot lock '%s': %s", lock.buf, strerror(en));
			strbuf_release(&lock);
			return st;
		}
		if (waited >= LOCK_WAIT_MS) {
			st = _kbx_fail(err, KBX_ERR_BUSY,
				       "another kbx has been changing '%s' for ten seconds: retry later",
				       path);
			strbuf_release(&lock);
			return st;
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	strbuf_release(&lock);
	return kbx_repos_load(path, &e->list, err);
}

kbx_status_t kbx_repos_edit_commit(struct kbx_repos_edit *e, struct kbx_error *err)
{
	struct strbuf out = STRBUF_INIT, tmp = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	strbuf_addstr(&out, header);
	for (size_t i = 0; i < e->list.n; i++)
		strbuf_addf(&out, "%s\t%s\t%s\n", e->list.items[i].name, e->list.items[i].kbx_dir,
			    e->list.items[i].root);
	strbuf_addf(&tmp, "%s.tmp", e->path);
	if (out.failed || tmp.failed) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto done;
	}
	/* under the lock, so the temporary file is ours alone */
	int fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		int en = errno;
		st = _kbx_fail(err, en == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO, "cannot create '%s': %s",
			       tmp.buf, strerror(en));
		goto done;
	}
	const char *p = out.buf;
	size_t left = out.len;
	int en = 0;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			en = errno;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	if (!en && fsync(fd) < 0)
		en = errno;
	if (close(fd) < 0 && !en)
		en = errno;
	if (!en && rename(tmp.buf, e->path) < 0)
		en = errno;
	if (en) {
		unlink(tmp.buf);
		st = _kbx_fail(err, _kbx_write_status(en),
			       "cannot write '%s': %s", e->path, strerror(en));
	}
done:
	strbuf_release(&out);
	strbuf_release(&tmp);
	return st;
}

void kbx_repos_edit_end(struct kbx_repos_edit *e)
{
	if (e->lock_fd >= 0)
		close(e->lock_fd);   /* releases the flock */
	e->lock_fd = -1;
	kbx_repo_list_release(&e->list);
	free(e->path);
	e->path = NULL;
}

kbx_status_t kbx_repos_register(const char *path, const char *kbx_dir, const char *root,
				int may_add, char **name_out, int *added, struct kbx_error *err)
{
	struct kbx_repo_list l = KBX_REPO_LIST_INIT;
	kbx_status_t st;
	*added = 0;
	if (name_out)
		*name_out = NULL;
	/* the common case, an index run of a store listed already, reads
	 * the file and takes no lock */
	st = kbx_repos_load(path, &l, err);
	struct kbx_repo *r = st ? NULL : kbx_repo_list_find_dir(&l, kbx_dir);
	if (r && !strcmp(r->root, root)) {
		if (name_out && !(*name_out = strdup(r->name)))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		kbx_repo_list_release(&l);
		return st;
	}
	int listed = r != NULL;
	kbx_repo_list_release(&l);
	if (st || (!listed && !may_add))
		return st;

	struct kbx_repos_edit e = KBX_REPOS_EDIT_INIT;
	size_t i = 0;
	st = kbx_repos_edit_begin(&e, path, err);
	/* another writer may have dropped it meanwhile: the rule holds */
	if (!st && !may_add && !kbx_repo_list_find_dir(&e.list, kbx_dir)) {
		kbx_repos_edit_end(&e);
		return KBX_OK;
	}
	if (!st)
		st = kbx_repo_list_add(&e.list, kbx_dir, root, NULL, &i, added, err);
	if (!st)
		st = kbx_repos_edit_commit(&e, err);
	if (!st && name_out && !(*name_out = strdup(e.list.items[i].name)))
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	kbx_repos_edit_end(&e);
	return st;
}

kbx_status_t kbx_repos_read(struct kbx_repo_list *out, struct kbx_error *err)
{
	char *path = NULL;
	kbx_status_t st = kbx_repos_path(&path, err);
	if (st == KBX_OK)
		st = kbx_repos_load(path, out, err);
	free(path);
	return st == KBX_NOT_FOUND ? KBX_OK : st;
}

/* ---- what is listed, and what is gone ---- */

#define GIT_CONFIG_MAX (1u << 20)

/* Does url name another machine?  A scheme with "//" other than file,
 * or scp's host:path (a ':' before any '/'). */
static int url_has_host(const char *url, size_t len)
{
	const char *colon = memchr(url, ':', len);
	if (!colon)
		return 0;
	size_t before = (size_t)(colon - url);
	if (len - before >= 3 && !memcmp(colon, "://", 3))
		return !(before == 4 && !strncasecmp(url, "file", 4));
	return before > 0 && !memchr(url, '/', before);
}

/* The remotes' URLs in a git config file's text: 1 when one has a host
 * (copied into url). */
static int config_has_remote(const char *text, size_t len, char *url, size_t n)
{
	const char *p = text, *end = text + len;
	int in_remote = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		if (p < eol && *p == '[') {
			in_remote = eol - p > 8 && !strncasecmp(p, "[remote ", 8);
		} else if (in_remote && eol - p > 3 && !strncasecmp(p, "url", 3)) {
			const char *v = p + 3;
			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			if (v < eol && *v == '=') {
				v++;
				while (v < eol && (*v == ' ' || *v == '\t'))
					v++;
				const char *ve = eol;
				while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
					ve--;
				if (ve - v >= 2 && *v == '"' && ve[-1] == '"') {
					v++;
					ve--;
				}
				if (url_has_host(v, (size_t)(ve - v))) {
					if (url && n) {
						size_t l = (size_t)(ve - v) < n - 1 ? (size_t)(ve - v) : n - 1;
						memcpy(url, v, l);
						url[l] = '\0';
					}
					return 1;
				}
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

/* Read the git config of the repository whose .git is at git (a
 * directory, or a file naming one); 1 when a remote has a host. */
static int git_dir_has_remote(const char *git, const struct stat *st, char *url, size_t n)
{
	struct strbuf sb = STRBUF_INIT, dir = STRBUF_INIT, cfg = STRBUF_INIT;
	int found = 0;
	if (S_ISDIR(st->st_mode)) {
		strbuf_addstr(&dir, git);
	} else if (strbuf_read_regular_file(&sb, git, 4096) == 0 && sb.len > 8 &&
		   !strncmp(sb.buf, "gitdir: ", 8)) {
		/* a worktree or a submodule: "gitdir: <path>" */
		size_t l = sb.len - 8;
		const char *g = sb.buf + 8;
		while (l && (g[l - 1] == '\n' || g[l - 1] == '\r'))
			l--;
		if (*g != '/') {
			const char *slash = strrchr(git, '/');
			strbuf_add(&dir, git, slash ? (size_t)(slash - git) + 1 : 0);
		}
		strbuf_add(&dir, g, l);
		/* a worktree's config is the common directory's */
		strbuf_reset(&sb);
		strbuf_addf(&cfg, "%s/commondir", dir.buf);
		if (!cfg.failed && strbuf_read_regular_file(&sb, cfg.buf, 4096) == 0 && sb.len) {
			while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == '\r'))
				strbuf_setlen(&sb, sb.len - 1);
			if (sb.buf[0] == '/') {
				strbuf_reset(&dir);
				strbuf_addstr(&dir, sb.buf);
			} else {
				strbuf_addf(&dir, "/%s", sb.buf);
			}
		}
	}
	if (dir.len && !dir.failed) {
		strbuf_reset(&cfg);
		strbuf_addf(&cfg, "%s/config", dir.buf);
		strbuf_reset(&sb);
		if (!cfg.failed && strbuf_read_regular_file(&sb, cfg.buf, GIT_CONFIG_MAX) == 0)
			found = config_has_remote(sb.buf, sb.len, url, n);
	}
	strbuf_release(&sb);
	strbuf_release(&dir);
	strbuf_release(&cfg);
	return found;
}

int kbx_repo_has_remote(const char *root, char *url, size_t n)
{
	struct strbuf p = STRBUF_INIT;
	int found = 0;
	if (url && n)
		url[0] = '\0';
	strbuf_addstr(&p, root);
	while (p.len > 1 && p.buf[p.len - 1] == '/')
		strbuf_setlen(&p, p.len - 1);
	/* the nearest .git at or above root, as git finds it */
	while (!p.failed) {
		size_t len = p.len;
		struct stat st;
		strbuf_addstr(&p, len == 1 ? ".git" : "/.git");
		if (!p.failed && stat(p.buf, &st) == 0) {
			found = git_dir_has_remote(p.buf, &st, url, n);
			break;
		}
		strbuf_setlen(&p, len);
		char *slash = strrchr(p.buf, '/');
		if (!slash || len == 1)
			break;
		strbuf_setlen(&p, slash == p.buf ? 1 : (size_t)(slash - p.buf));
	}
	strbuf_release(&p);
	return found;
}

static int missing(const char *path)
{
	struct stat st;
	return stat(path, &st) < 0 && errno == ENOENT;
}

int kbx_repo_gone(const struct kbx_repo *r)
{
	return missing(r->root) && missing(r->kbx_dir);
}

int kbx_repo_store_gone(const struct kbx_repo *r)
{
	return missing(r->kbx_dir);
}

kbx_status_t kbx_repos_prune(const char *path, int (*gone)(const struct kbx_repo *),
			     int dry_run, struct kbx_repo_list *dropped, struct kbx_error *err)
{
	struct kbx_repo_list l = KBX_REPO_LIST_INIT;
	/* the common case, nothing gone, takes no lock and writes nothing */
	kbx_status_t st = kbx_repos_load(path, &l, err);
	size_t ngone = 0;
	for (size_t i = 0; !st && i < l.n; i++)
		ngone += gone(&l.items[i]) != 0;
	kbx_repo_list_release(&l);
	if (st || !ngone)
		return st;
	struct kbx_repos_edit e = KBX_REPOS_EDIT_INIT;
	st = kbx_repos_edit_begin(&e, path, err);
	size_t n = 0;
	for (size_t i = 0; !st && i < e.list.n;) {
		const struct kbx_repo *r = &e.list.items[i];
		if (!gone(r)) {
			i++;
			continue;
		}
		if (list_push(dropped, r->name, strlen(r->name), r->kbx_dir, strlen(r->kbx_dir),
			      r->root, strlen(r->root)))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		n++;
		if (dry_run)
			i++;
		else
			kbx_repo_list_remove(&e.list, i);
	}
	if (!st && n && !dry_run)
		st = kbx_repos_edit_commit(&e, err);
	kbx_repos_edit_end(&e);
	return st;
}
