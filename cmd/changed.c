#define _GNU_SOURCE /* memmem */
/*
 * kbx changed: the functions, methods and types added, removed or changed
 * (by body, not by line) between the index and the working tree, or
 * between a git revision and the index; with --callers, who calls them.
 *
 *   kbx changed                 index (old) against the working tree (new)
 *   kbx changed origin/main     the revision (old) against the index (new)
 *
 * With a revision, the files compared are those git diff REV names,
 * the untracked files git does not ignore, and the files whose stamp in
 * the index differs from the working tree.  Blobs come from one git
 * cat-file --batch process.  git runs without a shell (posix_spawnp).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "util/config.h"
#include "dependents.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "util/strbuf.h"

extern char **environ;

static const char *const changed_usage[] = {
	"kbx changed [--callers [--depth=<n> | --transitive]] [--moved] [--format=<format>] [<rev>]",
	NULL
};

/* ---- running git ---- */

struct git_proc {
	pid_t pid;
	int in;          /* its stdin, or -1 */
	FILE *out;       /* its stdout */
	int err;         /* its stderr with GIT_ERR_KEEP, or -1 */
};

/* Where git's stderr goes: ours, /dev/null, or a pipe kbx reads */
enum { GIT_ERR_OURS, GIT_ERR_QUIET, GIT_ERR_KEEP };

/* Start git -C root ARGS with its stdout (and with want_stdin its stdin)
 * on pipes; its stderr as err_to says. */
static int git_start(struct git_proc *g, const char *root, const char *const *args, int want_stdin,
		     int err_to)
{
	const char *argv[32];
	size_t n = 0;
	int out[2] = { -1, -1 }, in[2] = { -1, -1 }, errp[2] = { -1, -1 };
	posix_spawn_file_actions_t fa;
	argv[n++] = "git";
	argv[n++] = "-C";
	argv[n++] = root;
	/* a repository's .git/config may name a program for git to run
	 * (core.fsmonitor): not when kbx is the one running git in it
	 * (kbx-security(7)) */
	argv[n++] = "-c";
	argv[n++] = "core.fsmonitor=false";
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (pipe(out) < 0 || (want_stdin && pipe(in) < 0) ||
	    (err_to == GIT_ERR_KEEP && pipe(errp) < 0)) {
		fprintf(stderr, "error: cannot run git: %s\n", strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (out[i] >= 0)
				close(out[i]);
			if (in[i] >= 0)
				close(in[i]);
		}
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	posix_spawn_file_actions_addclose(&fa, out[0]);
	posix_spawn_file_actions_addclose(&fa, out[1]);
	if (want_stdin) {
		posix_spawn_file_actions_adddup2(&fa, in[0], 0);
		posix_spawn_file_actions_addclose(&fa, in[0]);
		posix_spawn_file_actions_addclose(&fa, in[1]);
	} else {
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	}
	if (err_to == GIT_ERR_QUIET) {
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	} else if (err_to == GIT_ERR_KEEP) {
		posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
		posix_spawn_file_actions_addclose(&fa, errp[0]);
		posix_spawn_file_actions_addclose(&fa, errp[1]);
	}
	int rc = posix_spawnp(&g->pid, "git", &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(out[1]);
	if (want_stdin)
		close(in[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	if (rc) {
		fprintf(stderr, "error: cannot run git: %s\n", strerror(rc));
		close(out[0]);
		if (want_stdin)
			close(in[1]);
		if (errp[0] >= 0)
			close(errp[0]);
		return -1;
	}
	g->in = want_stdin ? in[1] : -1;
	g->err = errp[0];
	g->out = fdopen(out[0], "r");
	if (!g->out) {
		close(out[0]);
		if (g->err >= 0)
			close(g->err);
		return -1;
	}
	return 0;
}

/* Wait for git; its exit status, or -1 when it died by a signal. */
static int git_finish(struct git_proc *g)
{
	int status;
	if (g->in >= 0)
		close(g->in);
	if (g->out)
		fclose(g->out);
	if (g->err >= 0)
		close(g->err);
	while (waitpid(g->pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run git and keep its whole output; its exit status, or -1.  Its
 * stderr goes to ours, to /dev/null with quiet, or with errs into errs
 * (the first 64 KiB): both pipes are read as git writes them, so that
 * neither can fill while kbx waits on the other. */
static int git_capture(const char *root, const char *const *args, int quiet, struct strbuf *out,
		       struct strbuf *errs)
{
	struct git_proc g;
	char buf[8192];
	if (git_start(&g, root, args, 0,
		      errs ? GIT_ERR_KEEP : quiet ? GIT_ERR_QUIET : GIT_ERR_OURS))
		return -1;
	struct pollfd pfd[2] = { { fileno(g.out), POLLIN, 0 }, { g.err, POLLIN, 0 } };
	struct strbuf *to[2] = { out, errs };
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			ssize_t n = read(pfd[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				pfd[i].fd = -1;  /* closed by git_finish */
				continue;
			}
			if (i == 0 || to[i]->len < 65536)
				strbuf_add(to[i], buf, (size_t)n);
		}
	}
	return git_finish(&g);
}

static void trim_newline(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->buf[--sb->len] = '\0';
}

/* ---- the files to compare ---- */

struct pair {
	char *old_path;         /* at the revision, or the index (NULL: none) */
	char *new_path;         /* the working tree's, or the index's (NULL: none) */
};

struct pairs {
	struct pair *v;
	size_t n, alloc;
};

static int pair_add(struct pairs *p, const char *old_path, const char *new_path)
{
	for (size_t i = 0; i < p->n; i++) {
		const char *a = p->v[i].old_path, *b = p->v[i].new_path;
		/* once per path: the first reason wins */
		if ((new_path && b && !strcmp(b, new_path)) || (old_path && a && !strcmp(a, old_path)))
			return 0;
	}
	if (p->n == p->alloc) {
		size_t na = p->alloc ? p->alloc * 2 : 32;
		struct pair *v = realloc(p->v, na * sizeof(*v));
		if (!v)
			return -1;
		p->v = v;
		p->alloc = na;
	}
	p->v[p->n].old_path = old_path ? strdup(old_path) : NULL;
	p->v[p->n].new_path = new_path ? strdup(new_path) : NULL;
	p->n++;
	return 0;
}

static void pairs_release(struct pairs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].old_path);
		free(p->v[i].new_path);
	}
	free(p->v);
}

/* Read a file of the working tree; -1 (after a warning) when it cannot
 * be read, 1 when it is gone. */
static int read_worktree(const char *root, const char *path, uint64_t max, struct strbuf *sb)
{
	int rr = strbuf_read_regular_at(sb, root, path, max ? max : (1u << 20));
	int e = errno;
	if (rr >= 0)
		return 0;
	if (rr == -1 && e == ENOENT)
		return 1;
	fprintf(stderr, "warning: cannot read '%s'%s%s; skipped\n", out_esc(path),
		rr == -1 ? ": " : "",
		rr == -1 ? strerror(e) : rr == STRBUF_TOO_BIG ? " (larger than the size limit)"
							       : " (not a regular file)");
	return -1;
}

/* The index against the working tree. */
static int compare_worktree(struct kbx_ctx *ctx, uint64_t max, struct kbx_changes *changes)
{
	struct kbx_file_changes files = KBX_FILE_CHANGES_INIT;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_comparer_t *cmp = NULL;
	int rc = 0;
	struct kbx_header_langs headers;
	header_langs_setting(ctx->config, &headers);
	if (kbx_worktree_changes(ctx->store, max, &files, &err) ||
	    kbx_comparer_new(ctx->store, KBX_INDEX_IS_OLD, &cmp, &err) ||
	    kbx_comparer_set_headers(cmp, &headers, &err)) {
		kbx_comparer_free(cmp);
		kbx_file_changes_release(&files);
		return die_status(&err);
	}
	const char *root = kbx_store_root(ctx->store);
	for (size_t i = 0; i < files.n && !rc; i++) {
		const struct kbx_file_change *f = &files.items[i];
		struct strbuf src = STRBUF_INIT;
		const char *index_path = f->status == KBX_FILE_RENAMED ? f->old_path
					 : f->status == KBX_FILE_ADDED ? NULL : f->path;
		const char *content_path = f->status == KBX_FILE_DELETED ? NULL : f->path;
		if (content_path) {
			int r = read_worktree(root, content_path, max, &src);
			if (r < 0) {
				strbuf_release(&src);
				continue;
			}
			if (r > 0)
				content_path = NULL;  /* gone since the scan */
		}
		if (kbx_compare_file(cmp, index_path, content_path, src.buf ? src.buf : "", src.len,
				     changes, &err))
			rc = die_status(&err);
		strbuf_release(&src);
	}
	kbx_comparer_free(cmp);
	kbx_file_changes_release(&files);
	return rc;
}

/* Parse git diff --name-status -z output into pairs. */
static int parse_name_status(const struct strbuf *sb, struct pairs *pairs)
{
	const char *p = sb->buf, *end = sb->buf + sb->len;
	while (p && p < end) {
		const char *status = p;
		p = memchr(p, '\0', (size_t)(end - p));
		if (!p++)
			break;
		const char *a = p;
		p = memchr(p, '\0', (size_t)(end - p));
		if (!p++)
			break;
		if (status[0] == 'R' || status[0] == 'C') {
			const char *b = p;
			p = memchr(p, '\0', (size_t)(end - p));
			if (!p++)
				break;
			if (pair_add(pairs, status[0] == 'R' ? a : NULL, b))
				return -1;
			if (status[0] == 'C' && pair_add(pairs, a, a))
				return -1;
		} else if (status[0] == 'A') {
			if (pair_add(pairs, NULL, a))
				return -1;
		} else if (pair_add(pairs, a, a)) {
			return -1;
		}
	}
	return 0;
}

/* Read one object's answer from cat-file --batch: 0 with the content in
 * sb, 1 when the path does not exist at the revision, -1 on error. */
static int cat_file(struct git_proc *g, const char *oid, const char *prefix, const char *path,
		    struct strbuf *sb)
{
	if (strchr(path, '\n'))
		return 1;  /* cannot be asked for; treated as missing */
	struct strbuf req = STRBUF_INIT;
	strbuf_addf(&req, "%s:%s%s\n", oid, prefix ? prefix : "", path);
	size_t off = 0;
	while (off < req.len) {
		ssize_t w = write(g->in, req.buf + off, req.len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			strbuf_release(&req);
			return -1;
		}
		off += (size_t)w;
	}
	strbuf_release(&req);
	/* "<oid> blob <size>", or "<name> missing" (the name holds the path:
	 * any length) */
	char *line = NULL;
	size_t cap = 0;
	ssize_t ll = getline(&line, &cap, g->out);
	if (ll <= 0) {
		free(line);
		return -1;
	}
	char type[32];
	unsigned long long size;
	int fields = sscanf(line, "%*s %31s %llu", type, &size);
	int missing = ll >= 8 && !strcmp(line + ll - 8, "missing\n");
	free(line);
	if (missing)
		return 1;
	if (fields != 2)
		return -1;
	char buf[65536];
	unsigned long long left = size + 1;  /* and the newline after it */
	while (left) {
		size_t want = left < sizeof(buf) ? (size_t)left : sizeof(buf);
		size_t got = fread(buf, 1, want, g->out);
		if (!got)
			return -1;
		left -= got;
		strbuf_add(sb, buf, left ? got : got - 1);
	}
	return strcmp(type, "blob") ? 1 : 0;
}

/* The line of text that holds needle, else the first that is not
 * blank; without its leading and trailing white space.  NULL: none. */
static char *line_of(const struct strbuf *text, const char *needle)
{
	const char *p = strbuf_str(text), *end = p + text->len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			e--;
		if (e > p && (!needle || memmem(p, (size_t)(e - p), needle, strlen(needle))))
			return strndup(p, (size_t)(e - p));
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* git would not say where the top of root's repository is: say why, in
 * git's words (its first line), and what to do.  A repository another
 * user owns is one git refuses (its "dubious ownership"), and says how to
 * trust it: git's setting safe.directory, whose name git never
 * translates, so that it is what kbx looks for. */
static void no_repository(const char *root, const struct strbuf *git_err)
{
	char *why = line_of(git_err, NULL);
	char *fix = line_of(git_err, "safe.directory");
	if (fix) {
		fprintf(stderr, "error: git refuses to work in '%s': '%s'; if you trust the repository and its owner, add it to git's safe.directory, as git says: '%s'\n",
			out_esc(root), out_esc(why), out_esc(fix));
	} else {
		struct strbuf says = STRBUF_INIT;
		if (why)
			strbuf_addf(&says, " (git: '%s')", why);
		fprintf(stderr, "error: '%s' is not in a git repository%s: kbx changed <rev> needs git; without a revision it compares the index with the working tree\n",
			out_esc(root), out_esc(strbuf_str(&says)));
		strbuf_release(&says);
	}
	free(why);
	free(fix);
}

/* A revision against the index. */
static int compare_revision(struct kbx_ctx *ctx, const char *rev, uint64_t max,
			    struct kbx_changes *changes)
{
	const char *root = kbx_store_root(ctx->store);
	struct strbuf sb = STRBUF_INIT, oid = STRBUF_INIT, prefix = STRBUF_INIT;
	struct pairs pairs = { 0 };
	struct kbx_file_changes stale = KBX_FILE_CHANGES_INIT;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_comparer_t *cmp = NULL;
	struct git_proc cat = { -1, -1, NULL, -1 };
	int rc = 0, cat_started = 0;

	const char *args_top[] = { "rev-parse", "--show-prefix", NULL };
	if (git_capture(root, args_top, 1, &prefix, &sb) != 0) {
		no_repository(root, &sb);
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	trim_newline(&prefix);
	if (rev[0] == '-') {
		fprintf(stderr, "error: '%s' is not a revision\n", out_esc(rev));
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	strbuf_addf(&sb, "%s^{commit}", rev);
	const char *args_rev[] = { "rev-parse", "--verify", "--quiet", "--end-of-options", sb.buf,
				   NULL };
	if (git_capture(root, args_rev, 1, &oid, NULL) != 0 || !oid.len) {
		fprintf(stderr, "error: unknown revision '%s': git knows no commit by that name (try 'git log --oneline %s')\n",
			out_esc(rev), out_esc(rev));
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	trim_newline(&oid);

	/* what git says differs, then what git does not track */
	strbuf_reset(&sb);
	const char *args_diff[] = { "diff", "--name-status", "-z", "-M", "--relative",
				    "--no-ext-diff", oid.buf, "--", NULL };
	if (git_capture(root, args_diff, 0, &sb, NULL) != 0 || parse_name_status(&sb, &pairs)) {
		fprintf(stderr, "error: git diff --name-status %s failed\n", out_esc(rev));
		rc = KBX_EXIT_IO;
		goto out;
	}
	strbuf_reset(&sb);
	const char *args_others[] = { "ls-files", "-z", "--others", "--exclude-standard", NULL };
	if (git_capture(root, args_others, 0, &sb, NULL) != 0) {
		fprintf(stderr, "error: git ls-files --others failed\n");
		rc = KBX_EXIT_IO;
		goto out;
	}
	for (const char *p = sb.buf; p && p < sb.buf + sb.len; p += strlen(p) + 1)
		if (pair_add(&pairs, NULL, p)) {
			rc = KBX_EXIT_INTERNAL;
			goto out;
		}

	/* the index is the new side: what it does not know yet is missed */
	if (kbx_worktree_changes(ctx->store, max, &stale, &err)) {
		rc = die_status(&err);
		goto out;
	}
	if (stale.n) {
		fprintf(stderr, "warning: %zu file%s of the working tree differ%s from the index (first '%s'); compared as the index has %s: run 'kbx index' to include the changes\n",
			stale.n, stale.n == 1 ? "" : "s", stale.n == 1 ? "s" : "",
			out_esc(stale.items[0].path),
			stale.n == 1 ? "it" : "them");
		for (size_t i = 0; i < stale.n; i++) {
			const struct kbx_file_change *f = &stale.items[i];
			if ((f->old_path && pair_add(&pairs, f->old_path, f->old_path)) ||
			    pair_add(&pairs, f->path, f->path)) {
				rc = KBX_EXIT_INTERNAL;
				goto out;
			}
		}
	}

	struct kbx_header_langs headers;
	header_langs_setting(ctx->config, &headers);
	if (kbx_comparer_new(ctx->store, KBX_INDEX_IS_NEW, &cmp, &err) ||
	    kbx_comparer_set_headers(cmp, &headers, &err)) {
		rc = die_status(&err);
		goto out;
	}
	const char *args_cat[] = { "cat-file", "--batch", NULL };
	if (git_start(&cat, root, args_cat, 1, GIT_ERR_OURS)) {
		rc = KBX_EXIT_IO;
		goto out;
	}
	cat_started = 1;
	for (size_t i = 0; i < pairs.n && !rc; i++) {
		const struct pair *p = &pairs.v[i];
		const char *old_path = p->old_path && kbx_path_indexable(ctx->store, p->old_path)
			? p->old_path : NULL;
		struct strbuf blob = STRBUF_INIT;
		if (old_path) {
			int r = cat_file(&cat, strbuf_str(&oid), strbuf_str(&prefix), old_path, &blob);
			if (r < 0) {
				fprintf(stderr, "error: git cat-file cannot read '%s' at %s\n",
					out_esc(old_path), out_esc(rev));
				rc = KBX_EXIT_IO;
			} else if (r > 0 || (max && blob.len > max)) {
				old_path = NULL;
			}
		}
		if (!rc && (old_path || p->new_path) &&
		    kbx_compare_file(cmp, p->new_path, old_path, blob.buf ? blob.buf : "", blob.len,
				     changes, &err))
			rc = die_status(&err);
		strbuf_release(&blob);
	}
out:
	if (cat_started && git_finish(&cat) != 0 && !rc) {
		fprintf(stderr, "error: git cat-file --batch failed\n");
		rc = KBX_EXIT_IO;
	}
	kbx_comparer_free(cmp);
	kbx_file_changes_release(&stale);
	pairs_release(&pairs);
	strbuf_release(&sb);
	strbuf_release(&oid);
	strbuf_release(&prefix);
	return rc;
}

/* ---- output ---- */

static int status_rank(int status)
{
	switch (status) {
	case KBX_CHANGE_CHANGED: return 0;
	case KBX_CHANGE_ADDED: return 1;
	case KBX_CHANGE_REMOVED: return 2;
	default: return 3;
	}
}

static int change_cmp(const void *a, const void *b)
{
	const struct kbx_change *x = a, *y = b;
	int c = status_rank(x->status) - status_rank(y->status);
	if (c)
		return c;
	c = strcmp(x->path, y->path);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->qual, y->qual);
}

static void print_change(struct out *o, const struct kbx_change *c, int *last_status)
{
	struct strbuf id = STRBUF_INIT;
	strbuf_addf(&id, "%s#%s", c->path, c->qual);
	switch (out_format(o)) {
	case FMT_NUL:
		fputs(id.buf, stdout);
		putchar('\0');
		break;
	case FMT_GREP:
		printf("%s:%u:%u: %s %s %s\n", out_grep_path(NULL, c->path, strlen(c->path)),
		       c->line ? c->line : 1, c->col ? c->col : 1, kbx_change_status_str(c->status),
		       kbx_kind_str(c->kind), out_esc(c->qual));
		break;
	case FMT_JSON:
		out_record_begin(o, "changed");
		out_field_str(o, "id", id.buf);
		out_field_str(o, "name", c->name);
		out_field_str(o, "kind", kbx_kind_str(c->kind));
		out_field_str(o, "path", c->path);
		out_field_int(o, "line", c->line);
		out_field_int(o, "distance", 0);
		out_field_str(o, "from", id.buf);
		out_field_str(o, "confidence", "certain");
		out_field_str(o, "status", kbx_change_status_str(c->status));
		out_field_int(o, "end_line", c->end_line);
		out_field_str(o, "old_path", c->old_path);
		if (c->old_path)
			out_field_int(o, "old_line", c->old_line);
		else
			out_field_str(o, "old_line", NULL);
		out_record_end(o);
		break;
	default:
		if (c->status != *last_status) {
			out_heading(o, "%s", kbx_change_status_str(c->status));
			*last_status = c->status;
		}
		printf("  %s:%u  %s (%s)", out_esc(c->path), c->line, out_esc(c->qual),
		       kbx_kind_str(c->kind));
		if (c->old_path && strcmp(c->old_path, c->path))
			printf("  was %s:%u", out_esc(c->old_path), c->old_line);
		else if (c->status == KBX_CHANGE_MOVED)
			printf("  was line %u", c->old_line);
		putchar('\n');
	}
	strbuf_release(&id);
}

/* The nodes whose callers --callers follows: changed and removed
 * definitions the index has; for one removed from the index, the
 * external name its remaining callers now call. */
static int seed_callers(struct kbx_ctx *ctx, struct dependents *dep, const struct kbx_change *c)
{
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_node n;
	if (c->status != KBX_CHANGE_CHANGED && c->status != KBX_CHANGE_REMOVED)
		return 0;
	if (c->id) {
		if (kbx_node_get(ctx->store, c->id, &n, &err) == KBX_OK &&
		    dependents_walk(dep, &n, &err))
			return die_status(&err);
		return 0;
	}
	struct kbx_nodelist l = KBX_NODELIST_INIT;
	struct strbuf cid = STRBUF_INIT;
	strbuf_addf(&cid, "extern:%s", c->name);
	int rc = 0;
	if (kbx_lookup(ctx->store, cid.buf, &l, &err) == KBX_OK)
		for (size_t i = 0; i < l.n && !rc; i++)
			if (l.items[i].kind == KBX_KIND_EXTERNAL && dependents_walk(dep, &l.items[i], &err))
				rc = die_status(&err);
	kbx_nodelist_release(&l);
	strbuf_release(&cid);
	return rc;
}

int cmd_changed(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int callers = 0, moved = 0, transitive = 0;
	long depth = 1;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_BOOL_F(0, "callers", &callers, "add who calls what changed or was removed"),
		OPT_INT_F('d', "depth", &depth, "N",
			  "with --callers, follow callers N hops (default 1: direct callers; 0: all)"),
		OPT_BOOL_F('t', "transitive", &transitive,
			   "with --callers, follow callers as far as they go (--depth=0)"),
		OPT_BOOL_F(0, "moved", &moved, "also list definitions that only moved (same body, another line or file)"),
		OPT_OUTPUT_COMMON(&oo),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, changed_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs > 1 || depth < 0) {
		fprintf(stderr, nargs > 1 ? "error: 'changed' takes at most one revision\n"
					  : "error: --depth must not be negative\n");
		usage_with_options(changed_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	/* a format this command cannot print is refused before git runs */
	if (out_check(&oo))
		return KBX_EXIT_USAGE;
	uint64_t max = 0;
	struct kbx_config_value v;
	if (kbx_config_get(ctx->config, "index.maxFileSize", &v, NULL) == KBX_OK)
		max = (uint64_t)v.number;

	struct kbx_changes changes = KBX_CHANGES_INIT;
	int rc = nargs ? compare_revision(ctx, argv[0], max, &changes)
		       : compare_worktree(ctx, max, &changes);
	if (rc) {
		kbx_changes_release(&changes);
		return rc;
	}
	/* what is reported */
	size_t n = 0;
	for (size_t i = 0; i < changes.n; i++) {
		if (changes.items[i].status == KBX_CHANGE_MOVED && !moved)
			continue;
		if (n != i) {
			struct kbx_change t = changes.items[n];
			changes.items[n] = changes.items[i];
			changes.items[i] = t;
		}
		n++;
	}
	if (n > 1)
		qsort(changes.items, n, sizeof(*changes.items), change_cmp);

	struct dependents *dep = NULL;
	if (callers) {
		dep = dependents_new(ctx->store, transitive ? 0 : (uint32_t)depth, 0);
		if (!dep) {
			kbx_changes_release(&changes);
			fprintf(stderr, "fatal: out of memory\n");
			return KBX_EXIT_INTERNAL;
		}
		for (size_t i = 0; i < n && !rc; i++)
			rc = seed_callers(ctx, dep, &changes.items[i]);
	}
	struct out *o = rc ? NULL : out_new(&oo);
	if (o) {
		int last = 0;
		for (size_t i = 0; i < n; i++)
			print_change(o, &changes.items[i], &last);
		if (dep)
			dependents_print(o, dep, 1);
		if (out_finish(o) && !rc)
			rc = KBX_EXIT_IO;
	} else if (!rc) {
		rc = KBX_EXIT_USAGE;
	}
	dependents_free(dep);
	kbx_changes_release(&changes);
	if (rc)
		return rc;
	return n ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
