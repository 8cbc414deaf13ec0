/*
 * The queries kbx serves to other programs and running one in a child
 * (tool-run.h): the table of tools, their arguments into a command line,
 * the child, its pipes, and its JSON Lines into records.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool-run.h"

static const char *const search_modes[] = { "hybrid", "vector", "lexical", NULL };
static const char *const path_kinds[] = { "calls", "imports", NULL };

#define ARG_DEPTH(what) { "depth", ARG_INT, "--depth", 0, what, NULL }
#define ARG_CERTAIN { "certain", ARG_BOOL, "--certain", 0, \
	"only certain edges: leave out the calls and imports kbx could not pin down", NULL }
#define ARG_LIMIT { "limit", ARG_INT, "--limit", 0, "at most this many results", NULL }
#define ARG_ALL_REPOS { "all_repos", ARG_BOOL, "--all-repos", 0, \
	"ask every repository of 'kbx repos' instead of one (not with repo)", NULL }

const struct tool kbx_tools[] = {
	{ "context", "Answer a question with the text a model needs, within a token budget: "
	  "function bodies, the signatures around them, documents and error entries, each "
	  "with its path, lines and why it is there (kbx context).",
	  { { "question", ARG_OPERAND, NULL, 1, "the question, in words", NULL },
	    { "budget", ARG_INT, "--budget", 0, "the most tokens the answer may take", NULL },
	    ARG_ALL_REPOS } },
	{ "search", "Search the repository's code, documents and error entries by meaning and "
	  "by words; each hit has a path, lines, an id and a confidence (kbx search).",
	  { { "query", ARG_OPERAND, NULL, 1, "what to look for, in words or code", NULL },
	    ARG_LIMIT,
	    { "type", ARG_STRING, "--type", 0,
	      "only these kinds: error, pattern, doc, adr, behavioral, code (comma-separated)", NULL },
	    { "lang", ARG_STRING, "--lang", 0, "only this language", NULL },
	    { "path", ARG_STRING, "--path", 0, "only under this path, or matching this glob", NULL },
	    { "mode", ARG_STRING, "--mode", 0, "the signals: hybrid (default), vector or lexical",
	      search_modes } } },
	{ "hybrid", "Answer a question with the search and the code graph together: the "
	  "functions it names, then their callers, callees or definitions as the question "
	  "asks (kbx hybrid).",
	  { { "question", ARG_OPERAND, NULL, 1, "the question, in words", NULL },
	    ARG_LIMIT, ARG_DEPTH("hops of the traversal, 0 for all"), ARG_CERTAIN,
	    ARG_ALL_REPOS } },
	{ "callers", "List the functions that call a function or method (kbx callers).",
	  { { "symbol", ARG_OPERAND, NULL, 1, "the function: a name, Class.method or an id", NULL },
	    ARG_DEPTH("follow calls this many hops (default 1)"),
	    { "transitive", ARG_BOOL, "--transitive", 0, "follow calls as far as they go", NULL },
	    ARG_CERTAIN } },
	{ "callees", "List the functions a function or method calls (kbx callees).",
	  { { "symbol", ARG_OPERAND, NULL, 1, "the function: a name, Class.method or an id", NULL },
	    ARG_DEPTH("follow calls this many hops (default 1)"),
	    { "transitive", ARG_BOOL, "--transitive", 0, "follow calls as far as they go", NULL },
	    ARG_CERTAIN } },
	{ "defs", "Show where a symbol is defined: path, line and kind of each definition (kbx defs).",
	  { { "symbol", ARG_OPERAND, NULL, 1, "the symbol: a name, Class.method or an id", NULL } } },
	{ "impact", "List what a change to a symbol or a file affects: its callers and "
	  "importers, as far as they go (kbx impact).",
	  { { "symbol", ARG_OPERAND, NULL, 1, "the symbol or file that changes", NULL },
	    ARG_DEPTH("follow callers and importers this many hops (default: all)"),
	    ARG_CERTAIN } },
	{ "path", "Show the shortest call or import path between two symbols (kbx path).",
	  { { "from", ARG_OPERAND, NULL, 1, "where the path starts", NULL },
	    { "to", ARG_OPERAND, NULL, 1, "where it ends", NULL },
	    { "kind", ARG_STRING, "--kind", 0, "follow calls (the default) or imports", path_kinds },
	    { "max_depth", ARG_INT, "--max-depth", 0, "only paths of at most this many steps", NULL },
	    { "all", ARG_BOOL, "--all", 0, "every shortest path, not one", NULL },
	    ARG_LIMIT, ARG_CERTAIN } },
	{ "changed", "List the functions added, removed or changed since the index or a git "
	  "revision (kbx changed).",
	  { { "rev", ARG_OPERAND, NULL, 0, "a git revision (default: the index)", NULL },
	    { "callers", ARG_BOOL, "--callers", 0, "add who calls what changed", NULL },
	    { "moved", ARG_BOOL, "--moved", 0, "also list definitions that only moved", NULL } } },
	{ "repos", "List the repositories kbx knows, by name, with their paths (kbx repos).",
	  { { NULL } } },
	{ "status", "Show what the index holds and whether it is current (kbx status).",
	  { { NULL } } },
	{ "index", "Build or update the index of the repository; reports progress when the "
	  "request asks for it, and stops when cancelled, leaving the previous index (kbx index).",
	  { { "rebuild", ARG_BOOL, "--rebuild", 0, "drop the index and build it again", NULL } } },
};
const size_t kbx_ntools = sizeof(kbx_tools) / sizeof(kbx_tools[0]);

const struct tool *tool_find(const char *name)
{
	for (size_t i = 0; i < kbx_ntools; i++)
		if (!strcmp(kbx_tools[i].name, name))
			return &kbx_tools[i];
	return NULL;
}


/*
 * The command line of a call of t with the arguments args (an object or
 * NULL), into argv (NULL-terminated; the strings are args' or in
 * scratch).  A bad argument: -1 with the message in msg, as kbx would
 * print it.
 */
static int build_argv(const struct tool *t, const struct kbx_json *args, int progress_fd,
		      const char ***argv_out, const char **repo, struct strbuf *scratch,
		      struct strbuf *msg)
{
	size_t n = 0, max = 8 + (args ? args->n * 2 : 0);
	const char **argv = calloc(max, sizeof(*argv));
	size_t *offsets = calloc(max, sizeof(*offsets));   /* into scratch, +1; 0: not */
	const char *operands[4];
	size_t noperands = 0;
	*repo = NULL;
	if (!argv || !offsets) {
		free(argv);
		free(offsets);
		strbuf_addstr(msg, "fatal: out of memory");
		return -1;
	}
	argv[n++] = t->name;
	if (strcmp(t->name, "repos"))
		argv[n++] = "--format=json";
	else {
		argv[n++] = "list";
		argv[n++] = "--format=json";
	}
	if (!strcmp(t->name, "index") && progress_fd >= 0) {
		offsets[n] = scratch->len + 1;
		strbuf_addf(scratch, "--progress-fd=%d", progress_fd);
		strbuf_addch(scratch, '\0');
		argv[n++] = NULL;
	}
	if (args && args->type != KBX_JSON_OBJECT) {
		strbuf_addf(msg, "error: the arguments of '%s' must be an object", t->name);
		goto fail;
	}
	for (size_t i = 0; args && i < args->n; i++) {
		const char *key = args->keys[i];
		const struct kbx_json *v = args->items[i];
		if (strlen(key) != args->keylens[i]) {
			strbuf_addf(msg, "error: '%s' takes no argument with a NUL character in its name", t->name);
			goto fail;
		}
		if (!strcmp(key, "repo")) {
			if (v->type != KBX_JSON_STRING) {
				strbuf_addstr(msg, "error: 'repo' must be a string: a name from 'kbx repos'");
				goto fail;
			}
			if (!*v->str || strlen(v->str) != v->len || strchr(v->str, '/') ||
			    !strcmp(v->str, ".") || !strcmp(v->str, "..")) {
				strbuf_addstr(msg, "error: 'repo' takes a repository's name from 'kbx repos', not a path");
				goto fail;
			}
			*repo = v->str;
			continue;
		}
		const struct tool_arg *a = t->args;
		while (a->name && strcmp(a->name, key))
			a++;
		if (!a->name) {
			strbuf_addf(msg, "error: '%s' takes no argument '%s'; it takes", t->name, key);
			for (a = t->args; a->name; a++)
				strbuf_addf(msg, " '%s',", a->name);
			strbuf_addstr(msg, " 'repo'");
			goto fail;
		}
		switch (a->kind) {
		case ARG_OPERAND:
		case ARG_STRING:
			if (v->type != KBX_JSON_STRING) {
				strbuf_addf(msg, "error: '%s' must be a string", a->name);
				goto fail;
			}
			if (strlen(v->str) != v->len) {
				strbuf_addf(msg, "error: '%s' holds a NUL character", a->name);
				goto fail;
			}
			if (a->values) {
				size_t k = 0;
				while (a->values[k] && strcmp(a->values[k], v->str))
					k++;
				if (!a->values[k]) {
					strbuf_addf(msg, "error: '%s' must be one of", a->name);
					for (k = 0; a->values[k]; k++)
						strbuf_addf(msg, "%s %s", k ? "," : "", a->values[k]);
					goto fail;
				}
			}
			/* operands go after "--", in the order of the table */
			if (a->kind == ARG_OPERAND)
				break;
			offsets[n] = scratch->len + 1;
			strbuf_addf(scratch, "%s=", a->opt);
			strbuf_add(scratch, v->str, v->len);
			strbuf_addch(scratch, '\0');
			argv[n++] = NULL;
			break;
		case ARG_INT:
			if (v->type != KBX_JSON_NUMBER || !v->is_int) {
				strbuf_addf(msg, "error: '%s' must be an integer", a->name);
				goto fail;
			}
			offsets[n] = scratch->len + 1;
			strbuf_addf(scratch, "%s=%lld", a->opt, (long long)v->ival);
			strbuf_addch(scratch, '\0');
			argv[n++] = NULL;
			break;
		case ARG_BOOL:
			if (v->type != KBX_JSON_TRUE && v->type != KBX_JSON_FALSE) {
				strbuf_addf(msg, "error: '%s' must be true or false", a->name);
				goto fail;
			}
			if (v->type == KBX_JSON_TRUE)
				argv[n++] = a->opt;
			break;
		}
	}
	for (const struct tool_arg *a = t->args; a->name; a++) {
		if (a->kind != ARG_OPERAND)
			continue;
		const struct kbx_json *v = kbx_json_get(args, a->name);
		if (v)
			operands[noperands++] = v->str;
		else if (a->required) {
			strbuf_addf(msg, "error: '%s' takes the argument '%s'", t->name, a->name);
			goto fail;
		}
	}
	if (noperands)
		argv[n++] = "--";
	for (size_t i = 0; i < noperands; i++)
		argv[n++] = operands[i];
	argv[n] = NULL;
	if (scratch->failed) {
		strbuf_addstr(msg, "fatal: out of memory");
		goto fail;
	}
	for (size_t i = 0; i < n; i++)
		if (offsets[i])
			argv[i] = scratch->buf + offsets[i] - 1;
	free(offsets);
	*argv_out = argv;
	return 0;

fail:
	free(argv);
	free(offsets);
	return -1;
}

void tool_arg_schema(struct strbuf *sb, const struct tool_arg *a)
{
	static const char *const types[] = { "string", "string", "integer", "boolean" };
	strbuf_add_json_str(sb, a->name, strlen(a->name));
	strbuf_addf(sb, ":{\"type\":\"%s\",\"description\":", types[a->kind]);
	strbuf_add_json_str(sb, a->description, strlen(a->description));
	if (a->values) {
		strbuf_addstr(sb, ",\"enum\":[");
		for (size_t i = 0; a->values[i]; i++)
			strbuf_addf(sb, "%s\"%s\"", i ? "," : "", a->values[i]);
		strbuf_addch(sb, ']');
	}
	strbuf_addch(sb, '}');
}

/*
 * The child runs the command in the process fork() made, without an exec:
 * a call then costs no start-up.  That is safe with glibc, whose fork()
 * leaves its allocator and stdio unlocked in the child.  The allocator of
 * AddressSanitizer (gcc 12's libasan) is not: a thread of kbx serve that
 * was allocating at the moment of the fork leaves a lock held in the
 * child for ever, and the call hangs until --query-timeout.  A build with
 * it runs kbx afresh instead, with a command line made before the fork
 * (nothing may be allocated after it), unless an argument is too long for
 * a command line (a question of a megabyte: the kernel takes 128 KiB an
 * argument).
 */
#define EXEC_ARG_MAX (64 * 1024)
#if defined(__SANITIZE_ADDRESS__)
#define EXEC_CHILD 1
#else
#define EXEC_CHILD 0
#endif

/* kbx's global options for ctx and repo, then argv[0..argc): the command
 * line of the child that is started afresh, in one allocation (free()
 * it); NULL when out of memory or when an argument is too long for one. */
static char **exec_argv(const struct kbx_ctx *ctx, const char *repo, const char **argv, int argc)
{
	static const char kd_opt[] = "--kbx-dir=", repo_opt[] = "--repo=";
	const char *kd = ctx->kbx_dir_opt, *rp = repo ? repo : ctx->repo_opt;
	size_t n = 0, max = (size_t)argc + 2 * ctx->nconfig_params + 5;
	for (int i = 0; i < argc; i++)
		if (strlen(argv[i]) >= EXEC_ARG_MAX)
			return NULL;
	size_t kd_len = kd ? sizeof(kd_opt) + strlen(kd) : 0;
	size_t rp_len = rp ? sizeof(repo_opt) + strlen(rp) : 0;
	char **xa = malloc(max * sizeof(*xa) + kd_len + rp_len);
	if (!xa)
		return NULL;
	char *text = (char *)(xa + max);
	xa[n++] = "kbx";
	xa[n++] = "--no-pager";
	if (kd) {
		snprintf(text, kd_len, "%s%s", kd_opt, kd);
		xa[n++] = text;
		text += kd_len;
	}
	if (rp) {
		snprintf(text, rp_len, "%s%s", repo_opt, rp);
		xa[n++] = text;
	}
	for (size_t i = 0; i < ctx->nconfig_params; i++) {
		xa[n++] = "-c";
		xa[n++] = (char *)ctx->config_params[i];
	}
	for (int i = 0; i < argc; i++)
		xa[n++] = (char *)argv[i];
	xa[n] = NULL;
	return xa;
}

/* In the child: become the command (or, with xargv, start it afresh). */
static void run_child(const struct kbx_ctx *parent, const struct tool *t, const char **argv,
		      int argc, const char *repo, int out, int err, int prog,
		      const sigset_t *mask, char **xargv)
{
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	/* the caller's mask, but never with SIGTERM blocked: it is how a
	 * call is cancelled (kbx serve's threads block it for sigwait) */
	sigset_t m = *mask;
	sigdelset(&m, SIGTERM);
	sigdelset(&m, SIGINT);
	sigprocmask(SIG_SETMASK, &m, NULL);
	int null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
	    (prog >= 0 && dup2(prog, 3) < 0))
		_exit(KBX_EXIT_INTERNAL);
	if (null > 3)
		close(null);
	/* the other calls' pipes and sockets, and ours under their old
	 * numbers */
	int first = prog >= 0 ? 4 : 3;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0u, 0u) == 0)
		first = 1024;
#endif
	for (int fd = first; fd < 1024; fd++)
		close(fd);
	if (xargv) {
		execv("/proc/self/exe", xargv);
		_exit(KBX_EXIT_INTERNAL);
	}
	struct kbx_ctx ctx = { 0 };
	ctx.kbx_dir_opt = parent->kbx_dir_opt;
	ctx.repo_opt = repo ? repo : parent->repo_opt;
	ctx.config_params = parent->config_params;
	ctx.nconfig_params = parent->nconfig_params;
	ctx.no_pager = 1;
	int rc = run_command(find_command(t->name), argc, argv, &ctx);
	/* no exit handlers: the libraries' destructors would only fault in
	 * copies of the server's pages (the pager's handler has nothing to
	 * wait for here) */
	if (fflush(stdout) || fflush(stderr))
		_exit(rc ? rc : KBX_EXIT_IO);
	_exit(rc);
}

int tool_call_start(struct tool_call *c, const struct tool *t, const struct kbx_json *args,
		    int progress_fd, const struct kbx_ctx *ctx, struct strbuf *msg)
{
	struct strbuf scratch = STRBUF_INIT;
	const char **argv = NULL;
	const char *repo;
	int p[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int want_progress = progress_fd >= 0 && !strcmp(t->name, "index");
	int rc = KBX_EXIT_USAGE;
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	for (int i = 0; i < 3; i++) {
		c->fd[i] = -1;
		strbuf_init(&c->buf[i]);
	}
	if (build_argv(t, args, want_progress ? progress_fd : -1, &argv, &repo, &scratch, msg))
		goto out;
	rc = KBX_EXIT_IO;
	int argc = 0;
	while (argv[argc])
		argc++;
	for (int i = 0; i < 3; i++) {
		if (i == 2 && !want_progress)
			break;
		if (pipe(p[i]) < 0) {
			strbuf_addf(msg, "error: cannot make a pipe: %s", strerror(errno));
			goto close_pipes;
		}
	}
	char **xargv = EXEC_CHILD ? exec_argv(ctx, repo, argv, argc) : NULL;
	fflush(stdout);
	fflush(stderr);
	/* a cancel that comes at once must find the child with the default
	 * SIGTERM, not our handler: blocked until the child has reset it */
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	pthread_sigmask(SIG_BLOCK, &term, &old);
	pid_t pid = fork();
	if (pid)
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid)
		free(xargv);
	if (pid < 0) {
		strbuf_addf(msg, "error: cannot start a process: %s", strerror(errno));
		goto close_pipes;
	}
	if (!pid)
		run_child(ctx, t, argv, argc, repo, p[0][1], p[1][1], p[2][1], &old, xargv);
	c->pid = pid;
	c->tool = t;
	for (int i = 0; i < 3; i++) {
		c->fd[i] = p[i][0];
		if (p[i][1] >= 0)
			close(p[i][1]);
	}
	rc = 0;
	goto out;
close_pipes:
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			if (p[i][j] >= 0)
				close(p[i][j]);
out:
	free(argv);
	strbuf_release(&scratch);
	return rc;
}

int tool_call_read(struct tool_call *c, int i)
{
	char buf[65536];
	ssize_t r = read(c->fd[i], buf, sizeof(buf));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r > 0) {
		if (c->buf[0].len + c->buf[1].len + (size_t)r > TOOL_MAX_OUTPUT) {
			if (!c->too_big)
				kill(c->pid, SIGTERM);
			c->too_big = 1;
		} else {
			strbuf_add(&c->buf[i], buf, (size_t)r);
		}
		return 0;
	}
	close(c->fd[i]);
	c->fd[i] = -1;
	return c->fd[0] < 0 && c->fd[1] < 0 && c->fd[2] < 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int tool_call_wait(struct tool_call *c, long timeout_ms)
{
	long deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	long kill_at = 0;       /* stopped: when SIGKILL follows SIGTERM */
	for (;;) {
		struct pollfd pfd[3];
		int who[3], n = 0;
		for (int i = 0; i < 3; i++)
			if (c->fd[i] >= 0) {
				pfd[n].fd = c->fd[i];
				pfd[n].events = POLLIN;
				who[n++] = i;
			}
		if (!n)
			break;
		if (c->too_big && !kill_at)
			kill_at = now_ms() + TOOL_KILL_GRACE_MS;
		int wait = -1;
		if (deadline && !c->timed_out) {
			long left = deadline - now_ms();
			if (left <= 0) {
				c->timed_out = 1;
				tool_call_cancel(c);
				kill_at = now_ms() + TOOL_KILL_GRACE_MS;
				continue;
			}
			wait = left > INT_MAX ? INT_MAX : (int)left;
		} else if (kill_at > 0) {
			/* a child that does not end on SIGTERM (stopped, or
			 * in a call a signal does not cut short) is killed */
			long left = kill_at - now_ms();
			if (left <= 0) {
				kill(c->pid, SIGKILL);
				kill_at = -1;
				continue;
			}
			wait = (int)left;
		}
		int r = poll(pfd, (nfds_t)n, wait);
		if (r < 0 && errno != EINTR)
			break;
		for (int j = 0; r > 0 && j < n; j++)
			if (pfd[j].revents)
				tool_call_read(c, who[j]);
	}
	int status = 0;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	c->pid = -1;
	return status;
}

void tool_call_cancel(struct tool_call *c)
{
	if (c->pid > 0)
		kill(c->pid, SIGTERM);
}

/* warnings a call gives at most: an index of a tree of skipped files
 * says a line each */
#define WARNINGS_MAX 100

/* The lines of what the call said on standard error, at most
 * WARNINGS_MAX and one that counts the rest: as JSON strings with commas
 * between them (json), or as text, a line each. */
static void said_lines(const struct tool_call *c, struct strbuf *out, int json)
{
	const struct strbuf *err = &c->buf[1];
	size_t nlines = 0, more = 0;
	for (const char *p = err->buf, *end = err->buf + err->len; p && p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n && nlines++ < WARNINGS_MAX) {
			if (json && out->len)
				strbuf_addch(out, ',');
			if (json)
				strbuf_add_json_str(out, p, n);
			else
				strbuf_add(out, p, n + 1 <= (size_t)(end - p) ? n + 1 : n);
		} else if (n) {
			more++;
		}
		p += n + 1;
	}
	if (more && json)
		strbuf_addf(out, ",\"(%zu more lines)\"", more);
	else if (more)
		strbuf_addf(out, "(%zu more lines)\n", more);
}

void tool_call_warnings(const struct tool_call *c, struct strbuf *items)
{
	said_lines(c, items, 1);
}

void tool_call_warning_text(const struct tool_call *c, struct strbuf *text)
{
	said_lines(c, text, 0);
}

void add_warnings(struct strbuf *out, const struct strbuf *items)
{
	if (!items->len)
		return;
	strbuf_addstr(out, ",\"warnings\":[");
	strbuf_add(out, items->buf, items->len);
	strbuf_addch(out, ']');
}

int tool_call_records(struct tool_call *c, int status, struct strbuf *records, int *rc,
		      struct strbuf *msg)
{
	struct strbuf *out = &c->buf[0], *err = &c->buf[1];
	*rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	while (err->len && err->buf[err->len - 1] == '\n')
		strbuf_setlen(err, err->len - 1);
	if (c->too_big) {
		*rc = -1;
		strbuf_addf(msg, "error: kbx %s wrote more than %u MB; ask for fewer results",
			    c->tool->name, TOOL_MAX_OUTPUT >> 20);
		return -1;
	}
	if (c->timed_out) {
		*rc = -1;
		strbuf_addf(msg, "error: kbx %s took too long and was stopped", c->tool->name);
		return -1;
	}
	if (WIFSIGNALED(status)) {
		strbuf_addf(msg, "fatal: kbx %s was killed by signal %d", c->tool->name, WTERMSIG(status));
		if (err->len)
			strbuf_addf(msg, "\n%s", err->buf);
		return -1;
	}
	/* 0 found, 1 nothing found, 11 indexed with registry input skipped:
	 * answers; the other codes are errors (kbx(1), EXIT STATUS) */
	if (*rc != KBX_EXIT_OK && *rc != KBX_EXIT_NOT_FOUND && *rc != KBX_EXIT_SKIPPED) {
		if (err->len)
			strbuf_add(msg, err->buf, err->len);
		else
			strbuf_addf(msg, "error: kbx %s failed with exit status %d", c->tool->name, *rc);
		return -1;
	}
	strbuf_addch(records, '[');
	/* each line one record, checked and written again: what reaches
	 * the client is JSON whatever the child wrote */
	size_t nrec = 0;
	for (size_t pos = 0; pos < out->len;) {
		const char *line = out->buf + pos, *nl = memchr(line, '\n', out->len - pos);
		size_t len = nl ? (size_t)(nl - line) : out->len - pos;
		pos += len + 1;
		if (!len)
			continue;
		struct kbx_json *v;
		struct kbx_error jerr = KBX_ERROR_INIT;
		if (kbx_json_parse(line, len, &v, &jerr) || v->type != KBX_JSON_OBJECT) {
			if (!jerr.status)
				kbx_json_free(v);
			*rc = KBX_EXIT_INTERNAL;
			strbuf_addf(msg, "fatal: kbx %s printed a line that is not a JSON object (%s)",
				    c->tool->name, jerr.status ? jerr.msg : "another value");
			return -1;
		}
		if (nrec++)
			strbuf_addch(records, ',');
		kbx_json_write(records, v);
		kbx_json_free(v);
	}
	strbuf_addch(records, ']');
	if (records->failed) {
		*rc = KBX_EXIT_INTERNAL;
		strbuf_addstr(msg, "fatal: out of memory");
		return -1;
	}
	return 0;
}

void tool_call_release(struct tool_call *c)
{
	for (int i = 0; i < 3; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		c->fd[i] = -1;
		strbuf_release(&c->buf[i]);
	}
}

const char *tool_exit_meaning(int rc)
{
	static const char *const meanings[] = {
		[KBX_EXIT_OK] = "found",
		[KBX_EXIT_NOT_FOUND] = "nothing found",
		[KBX_EXIT_USAGE] = "bad arguments or an unparsable symbol",
		[KBX_EXIT_NO_INDEX] = "no index: run 'kbx index'",
		[KBX_EXIT_SCHEMA] = "an index from another version: run 'kbx index --rebuild'",
		[KBX_EXIT_BUSY] = "another kbx is indexing: retry",
		[KBX_EXIT_IO] = "a file or the store could not be read or written",
		[KBX_EXIT_FULL] = "disk or map full",
		[KBX_EXIT_CORRUPT] = "the index does not decode: run 'kbx index --rebuild'",
		[KBX_EXIT_INTERNAL] = "a bug or out of memory",
		[KBX_EXIT_CHECK_FAILED] = "a rule does not hold",
		[KBX_EXIT_SKIPPED] = "indexed, but registry input was skipped",
	};
	if (rc >= 0 && (size_t)rc < sizeof(meanings) / sizeof(meanings[0]) && meanings[rc])
		return meanings[rc];
	return "stopped: killed, too long or too much output";
}
