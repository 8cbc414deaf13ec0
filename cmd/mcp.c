/*
 * kbx mcp: a Model Context Protocol server on standard input and output.
 *
 * JSON-RPC 2.0, one message a line.  Each tools/call runs one of kbx's
 * commands with --format=json in a forked child (no exec: the same
 * image, already loaded and linked), whose standard output and error
 * are pipes read here: the JSON Lines become the result's
 * structuredContent and its text, the error message and exit status a
 * result with isError.  The child keeps every crash, every global and
 * every open store to itself, and cancelling a call is killing it.  This
 * process opens no store and reads no settings of its own, so nothing
 * it holds goes stale between calls; only protocol messages reach its
 * standard output, its own diagnostics go to standard error.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"
#include "util/json.h"
#include "util/strbuf.h"

#ifndef KBX_VERSION
#define KBX_VERSION "0.1.0"
#endif

static const char *const mcp_usage[] = {
	"kbx mcp [--max-message-size=<size>] [--max-calls=<n>]",
	NULL
};

/* The protocol revisions served, newest first: the first is answered to
 * a client asking for one not in the list. */
static const char *const protocol_versions[] = {
	"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

/* JSON-RPC error codes */
#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602

/* What a tool's call output may grow to before the call is stopped. */
#define MAX_TOOL_OUTPUT (256u << 20)

/* ---- the tools ---- */

enum arg_kind {
	ARG_OPERAND,    /* a string after "--" */
	ARG_STRING,     /* --opt=VALUE */
	ARG_INT,        /* --opt=N */
	ARG_BOOL        /* --opt when true */
};

struct tool_arg {
	const char *name;
	enum arg_kind kind;
	const char *opt;          /* the option, "--limit" (not for operands) */
	int required;
	const char *description;
	const char *const *values; /* for a string: the only values, or NULL */
};

struct tool {
	const char *name;         /* the tool, and the command it runs */
	const char *description;
	struct tool_arg args[10];
};

static const char *const search_modes[] = { "hybrid", "vector", "lexical", NULL };
static const char *const path_kinds[] = { "calls", "imports", NULL };

#define ARG_DEPTH(what) { "depth", ARG_INT, "--depth", 0, what, NULL }
#define ARG_CERTAIN { "certain", ARG_BOOL, "--certain", 0, \
	"only certain edges: leave out the calls and imports kbx could not pin down", NULL }
#define ARG_LIMIT { "limit", ARG_INT, "--limit", 0, "at most this many results", NULL }

static const struct tool tools[] = {
	{ "context", "Answer a question with the text a model needs, within a token budget: "
	  "function bodies, the signatures around them, documents and error entries, each "
	  "with its path, lines and why it is there (kbx context).",
	  { { "question", ARG_OPERAND, NULL, 1, "the question, in words", NULL },
	    { "budget", ARG_INT, "--budget", 0, "the most tokens the answer may take", NULL } } },
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
	    ARG_LIMIT, ARG_DEPTH("hops of the traversal, 0 for all"), ARG_CERTAIN } },
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
#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

static const struct tool *find_tool(const char *name)
{
	for (size_t i = 0; i < NTOOLS; i++)
		if (!strcmp(tools[i].name, name))
			return &tools[i];
	return NULL;
}

static void add_schema_arg(struct strbuf *sb, const struct tool_arg *a)
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

/* The tools/list entry of t. */
static void add_tool_json(struct strbuf *sb, const struct tool *t)
{
	strbuf_addf(sb, "{\"name\":\"%s\",\"title\":\"kbx %s\",\"description\":", t->name, t->name);
	strbuf_add_json_str(sb, t->description, strlen(t->description));
	strbuf_addstr(sb, ",\"inputSchema\":{\"type\":\"object\",\"properties\":{");
	for (const struct tool_arg *a = t->args; a->name; a++) {
		add_schema_arg(sb, a);
		strbuf_addch(sb, ',');
	}
	strbuf_addstr(sb, "\"repo\":{\"type\":\"string\",\"description\":"
		      "\"a repository by its name in the list of the repos tool "
		      "(default: the one kbx mcp was started in)\"}},\"required\":[");
	int n = 0;
	for (const struct tool_arg *a = t->args; a->name; a++)
		if (a->required)
			strbuf_addf(sb, "%s\"%s\"", n++ ? "," : "", a->name);
	strbuf_addstr(sb, "],\"additionalProperties\":false},");
	strbuf_addstr(sb, "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
		      "\"records\":{\"type\":\"array\",\"items\":{\"type\":\"object\"},"
		      "\"description\":\"the records of the command's JSON Lines, in order (kbx-json(7))\"},"
		      "\"exit_status\":{\"type\":\"integer\",\"description\":"
		      "\"the command's exit status: 0 found, 1 nothing found (kbx(1))\"}},"
		      "\"required\":[\"records\",\"exit_status\"]}");
	if (strcmp(t->name, "index"))
		strbuf_addstr(sb, ",\"annotations\":{\"readOnlyHint\":true,\"openWorldHint\":false}");
	else
		strbuf_addstr(sb, ",\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,"
			      "\"idempotentHint\":true,\"openWorldHint\":false}");
	strbuf_addch(sb, '}');
}

/* ---- the server's state ---- */

struct call {
	pid_t pid;
	const struct tool *tool;
	struct kbx_json *id;            /* the request's id */
	struct kbx_json *progress_token;
	int fd[3];                      /* stdout, stderr, progress; -1 when done */
	struct strbuf buf[3];
	long progress;                  /* progress steps reported */
	int cancelled, too_big;
};

struct server {
	size_t max_message;
	long max_calls;
	struct call *calls;
	size_t ncalls;
	struct kbx_ctx *ctx;
	int initialized;
	int out_broken;
};

/* Write one message and a newline to stdout.  A reader gone away ends
 * the server (out_broken). */
static void send_line(struct server *s, const struct strbuf *msg)
{
	if (msg->failed) {
		fprintf(stderr, "fatal: kbx mcp: out of memory writing a message\n");
		s->out_broken = 1;
		return;
	}
	const char *p = strbuf_str(msg);
	size_t left = msg->len + 1;
	struct strbuf line = STRBUF_INIT;
	strbuf_add(&line, p, msg->len);
	strbuf_addch(&line, '\n');
	p = strbuf_str(&line);
	while (left && !s->out_broken) {
		ssize_t w = write(1, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (errno != EPIPE)
				fprintf(stderr, "error: kbx mcp: cannot write to standard output: %s\n",
					strerror(errno));
			s->out_broken = 1;
			break;
		}
		p += w;
		left -= (size_t)w;
	}
	strbuf_release(&line);
}

/* Write the message sb opened with response(), and free it. */
static void send_response(struct server *s, struct strbuf *sb)
{
	strbuf_addch(sb, '}');
	send_line(s, sb);
	strbuf_release(sb);
}

/* Open the response to the request id (NULL: null) with its member
 * key, "result" or "error". */
static void response(struct strbuf *sb, const struct kbx_json *id, const char *key)
{
	strbuf_addstr(sb, "{\"jsonrpc\":\"2.0\",\"id\":");
	if (id)
		kbx_json_write(sb, id);
	else
		strbuf_addstr(sb, "null");
	strbuf_addf(sb, ",\"%s\":", key);
}

static void send_error(struct server *s, const struct kbx_json *id, int code, const char *msg)
{
	struct strbuf sb = STRBUF_INIT;
	response(&sb, id, "error");
	strbuf_addf(&sb, "{\"code\":%d,\"message\":", code);
	strbuf_add_json_str(&sb, msg, strlen(msg));
	strbuf_addch(&sb, '}');
	send_response(s, &sb);
}

/* Send {"jsonrpc":"2.0","id":ID,"result":RESULT} with result's text. */
static void send_result(struct server *s, const struct kbx_json *id, const char *result, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	response(&sb, id, "result");
	strbuf_add(&sb, result, len);
	send_response(s, &sb);
}

/* A tool result with isError and the message msg. */
static void send_tool_error(struct server *s, const struct kbx_json *id, const char *msg, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "{\"content\":[{\"type\":\"text\",\"text\":");
	strbuf_add_json_str(&sb, msg, len);
	strbuf_addstr(&sb, "}],\"isError\":true}");
	send_result(s, id, sb.buf, sb.len);
	strbuf_release(&sb);
}

static int same_id(const struct kbx_json *a, const struct kbx_json *b)
{
	if (!a || !b || a->type != b->type)
		return 0;
	if (a->type == KBX_JSON_NUMBER)
		return a->num == b->num;
	return a->type == KBX_JSON_STRING && a->len == b->len && !memcmp(a->str, b->str, a->len);
}

static struct kbx_json *copy_json(const struct kbx_json *v)
{
	struct strbuf sb = STRBUF_INIT;
	struct kbx_json *out = NULL;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_json_write(&sb, v);
	if (!sb.failed && kbx_json_parse(sb.buf, sb.len, &out, &err))
		out = NULL;
	strbuf_release(&sb);
	return out;
}

/* ---- running a tool ---- */

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

/* In the child: become the command. */
static void run_child(const struct server *s, const struct tool *t, const char **argv,
		      int argc, const char *repo, int out, int err, int prog,
		      const sigset_t *mask)
{
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	int null = open("/dev/null", O_RDONLY);
	if (null < 0 || dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0 ||
	    (prog >= 0 && dup2(prog, 3) < 0))
		_exit(KBX_EXIT_INTERNAL);
	if (null > 3)
		close(null);
	/* the other calls' pipes, and ours under their old numbers */
	int first = prog >= 0 ? 4 : 3;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)first, ~0u, 0u) == 0)
		first = 1024;
#endif
	for (int fd = first; fd < 1024; fd++)
		close(fd);
	struct kbx_ctx ctx = { 0 };
	ctx.kbx_dir_opt = s->ctx->kbx_dir_opt;
	ctx.repo_opt = repo ? repo : s->ctx->repo_opt;
	ctx.config_params = s->ctx->config_params;
	ctx.nconfig_params = s->ctx->nconfig_params;
	ctx.no_pager = 1;
	int rc = run_command(find_command(t->name), argc, argv, &ctx);
	/* no exit handlers: the libraries' destructors would only fault in
	 * copies of the server's pages (the pager's handler has nothing to
	 * wait for here) */
	if (fflush(stdout) || fflush(stderr))
		_exit(rc ? rc : KBX_EXIT_IO);
	_exit(rc);
}

static void start_call(struct server *s, const struct kbx_json *id, const struct tool *t,
		       const struct kbx_json *args, const struct kbx_json *token)
{
	struct strbuf scratch = STRBUF_INIT, msg = STRBUF_INIT;
	const char **argv = NULL;
	const char *repo;
	int p[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int want_progress = token && !strcmp(t->name, "index");
	if (build_argv(t, args, want_progress ? 3 : -1, &argv, &repo, &scratch, &msg)) {
		send_tool_error(s, id, strbuf_str(&msg), msg.len);
		goto out;
	}
	int argc = 0;
	while (argv[argc])
		argc++;
	struct call *c = realloc(s->calls, (s->ncalls + 1) * sizeof(*c));
	if (!c) {
		send_tool_error(s, id, "fatal: out of memory", 20);
		goto out;
	}
	s->calls = c;
	c = &s->calls[s->ncalls];
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < 3; i++) {
		if (i == 2 && !want_progress)
			break;
		if (pipe(p[i]) < 0) {
			strbuf_addf(&msg, "error: cannot make a pipe: %s", strerror(errno));
			send_tool_error(s, id, msg.buf, msg.len);
			goto close_pipes;
		}
	}
	fflush(stdout);
	fflush(stderr);
	/* a cancel that comes at once must find the child with the default
	 * SIGTERM, not our handler: blocked until the child has reset it */
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigprocmask(SIG_BLOCK, &term, &old);
	pid_t pid = fork();
	if (pid)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		strbuf_addf(&msg, "error: cannot start a process: %s", strerror(errno));
		send_tool_error(s, id, msg.buf, msg.len);
		goto close_pipes;
	}
	if (!pid)
		run_child(s, t, argv, argc, repo, p[0][1], p[1][1], p[2][1], &old);
	c->pid = pid;
	c->tool = t;
	c->id = copy_json(id);
	c->progress_token = token ? copy_json(token) : NULL;
	for (int i = 0; i < 3; i++) {
		c->fd[i] = p[i][0];
		if (p[i][1] >= 0)
			close(p[i][1]);
		strbuf_init(&c->buf[i]);
	}
	s->ncalls++;
	goto out;
close_pipes:
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			if (p[i][j] >= 0)
				close(p[i][j]);
out:
	free(argv);
	strbuf_release(&scratch);
	strbuf_release(&msg);
}

/* Progress lines "PHASE DONE TOTAL" of an index child: one notification
 * each, its progress a count of steps so that it only ever grows (the
 * phases count their files from 0 again). */
static void send_progress(struct server *s, struct call *c)
{
	struct strbuf *b = &c->buf[2];
	char *nl;
	while ((nl = memchr(b->buf ? b->buf : "", '\n', b->len))) {
		size_t len = (size_t)(nl - b->buf);
		char phase[64];
		unsigned long long done, total;
		*nl = '\0';
		if (c->progress_token && sscanf(b->buf, "%63s %llu %llu", phase, &done, &total) == 3) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_addstr(&sb, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
				      "\"params\":{\"progressToken\":");
			kbx_json_write(&sb, c->progress_token);
			strbuf_addf(&sb, ",\"progress\":%ld,\"message\":", ++c->progress);
			struct strbuf m = STRBUF_INIT;
			if (total > 1)
				strbuf_addf(&m, "%s %llu/%llu files", phase, done, total);
			else
				strbuf_addstr(&m, phase);
			strbuf_add_json_str(&sb, strbuf_str(&m), m.len);
			strbuf_addstr(&sb, "}}");
			send_line(s, &sb);
			strbuf_release(&m);
			strbuf_release(&sb);
		}
		memmove(b->buf, nl + 1, b->len - len - 1);
		strbuf_setlen(b, b->len - len - 1);
	}
}

/* The result of a call whose child has ended with status. */
static void finish_call(struct server *s, struct call *c, int status)
{
	struct strbuf res = STRBUF_INIT, msg = STRBUF_INIT;
	struct strbuf *out = &c->buf[0], *err = &c->buf[1];
	int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	while (err->len && err->buf[err->len - 1] == '\n')
		strbuf_setlen(err, err->len - 1);
	if (c->cancelled || s->out_broken)
		goto done;
	if (c->too_big) {
		strbuf_addf(&msg, "error: kbx %s wrote more than %u MB; ask for fewer results",
			    c->tool->name, MAX_TOOL_OUTPUT >> 20);
		send_tool_error(s, c->id, msg.buf, msg.len);
		goto done;
	}
	if (WIFSIGNALED(status)) {
		strbuf_addf(&msg, "fatal: kbx %s was killed by signal %d", c->tool->name, WTERMSIG(status));
		if (err->len)
			strbuf_addf(&msg, "\n%s", err->buf);
		send_tool_error(s, c->id, msg.buf, msg.len);
		goto done;
	}
	/* 0 found, 1 nothing found, 11 indexed with registry input skipped:
	 * answers; the other codes are errors (kbx(1), EXIT STATUS) */
	if (rc != KBX_EXIT_OK && rc != KBX_EXIT_NOT_FOUND && rc != KBX_EXIT_SKIPPED) {
		if (err->len)
			strbuf_add(&msg, err->buf, err->len);
		else
			strbuf_addf(&msg, "error: kbx %s failed with exit status %d", c->tool->name, rc);
		send_tool_error(s, c->id, msg.buf, msg.len);
		goto done;
	}
	strbuf_addstr(&res, "{\"content\":[{\"type\":\"text\",\"text\":");
	if (out->len)
		strbuf_add_json_str(&res, out->buf, out->len);
	else if (err->len)
		strbuf_add_json_str(&res, err->buf, err->len);
	else
		strbuf_addstr(&res, "\"nothing found\"");
	strbuf_addstr(&res, "}],\"structuredContent\":{\"records\":[");
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
			strbuf_reset(&msg);
			strbuf_addf(&msg, "fatal: kbx %s printed a line that is not a JSON object (%s)",
				    c->tool->name, jerr.status ? jerr.msg : "another value");
			send_tool_error(s, c->id, msg.buf, msg.len);
			goto done;
		}
		if (nrec++)
			strbuf_addch(&res, ',');
		kbx_json_write(&res, v);
		kbx_json_free(v);
	}
	strbuf_addf(&res, "],\"exit_status\":%d},\"isError\":false}", rc);
	if (err->len)
		fprintf(stderr, "kbx mcp: %s: %s\n", c->tool->name, out_esc(err->buf));
	if (res.failed)
		send_tool_error(s, c->id, "fatal: out of memory", 20);
	else
		send_result(s, c->id, res.buf, res.len);
done:
	strbuf_release(&res);
	strbuf_release(&msg);
}

/* Read what a call's pipe i has; reap the child once all are closed.
 * Returns 1 when the call is over (and removed). */
static int read_call(struct server *s, size_t k, int i)
{
	struct call *c = &s->calls[k];
	char buf[65536];
	ssize_t r = read(c->fd[i], buf, sizeof(buf));
	if (r < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (r > 0) {
		if (c->buf[0].len + c->buf[1].len + (size_t)r > MAX_TOOL_OUTPUT) {
			if (!c->too_big)
				kill(c->pid, SIGTERM);
			c->too_big = 1;
		} else {
			strbuf_add(&c->buf[i], buf, (size_t)r);
		}
		if (i == 2)
			send_progress(s, c);
		return 0;
	}
	close(c->fd[i]);
	c->fd[i] = -1;
	if (c->fd[0] >= 0 || c->fd[1] >= 0 || c->fd[2] >= 0)
		return 0;
	int status = 0;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	finish_call(s, c, status);
	kbx_json_free(c->id);
	kbx_json_free(c->progress_token);
	for (int j = 0; j < 3; j++)
		strbuf_release(&c->buf[j]);
	s->calls[k] = s->calls[--s->ncalls];
	return 1;
}

/* ---- the messages ---- */

static void do_initialize(struct server *s, const struct kbx_json *id, const struct kbx_json *params)
{
	const char *want = kbx_json_get_str(params, "protocolVersion");
	const char *version = protocol_versions[0];
	if (!want) {
		send_error(s, id, RPC_INVALID_PARAMS, "initialize takes params.protocolVersion, a string");
		return;
	}
	for (size_t i = 0; protocol_versions[i]; i++)
		if (!strcmp(protocol_versions[i], want))
			version = protocol_versions[i];
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":{\"listChanged\":false}},"
		    "\"serverInfo\":{\"name\":\"kbx\",\"title\":\"kbx code graph and search\","
		    "\"version\":", version);
	strbuf_add_json_str(&sb, KBX_VERSION, strlen(KBX_VERSION));
	strbuf_addstr(&sb, "},\"instructions\":\"kbx answers questions about the code of a "
		      "repository from its index: search and hybrid find code and documents by "
		      "meaning, callers, callees, defs, impact and path follow the code graph, "
		      "changed lists what changed, index brings the index up to date.  Every tool "
		      "takes 'repo', a name from the repos tool.\"}");
	s->initialized = 1;
	send_result(s, id, sb.buf, sb.len);
	strbuf_release(&sb);
}

static void do_tools_list(struct server *s, const struct kbx_json *id)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "{\"tools\":[");
	int n = 0;
	for (size_t i = 0; i < NTOOLS; i++) {
		if (!find_command(tools[i].name))
			continue;   /* a tool of a command this kbx lacks */
		if (n++)
			strbuf_addch(&sb, ',');
		add_tool_json(&sb, &tools[i]);
	}
	strbuf_addstr(&sb, "]}");
	send_result(s, id, sb.buf, sb.len);
	strbuf_release(&sb);
}

static void do_tools_call(struct server *s, const struct kbx_json *id, const struct kbx_json *params)
{
	const char *name = kbx_json_get_str(params, "name");
	if (!name) {
		send_error(s, id, RPC_INVALID_PARAMS, "tools/call takes params.name, a string");
		return;
	}
	const struct tool *t = find_tool(name);
	if (!t || !find_command(t->name)) {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addstr(&msg, "unknown tool '");
		strbuf_addstr(&msg, name);
		strbuf_addstr(&msg, "': tools/list lists them");
		send_error(s, id, RPC_INVALID_PARAMS, msg.buf);
		strbuf_release(&msg);
		return;
	}
	const struct kbx_json *meta = kbx_json_get(params, "_meta");
	const struct kbx_json *token = kbx_json_get(meta, "progressToken");
	if (token && token->type != KBX_JSON_STRING && token->type != KBX_JSON_NUMBER)
		token = NULL;
	const struct kbx_json *args = kbx_json_get(params, "arguments");
	if (args && args->type == KBX_JSON_NULL)
		args = NULL;   /* no arguments, as when it is left out */
	start_call(s, id, t, args, token);
}

static void do_cancelled(struct server *s, const struct kbx_json *params)
{
	const struct kbx_json *rid = kbx_json_get(params, "requestId");
	for (size_t i = 0; i < s->ncalls; i++)
		if (same_id(s->calls[i].id, rid) && !s->calls[i].cancelled) {
			s->calls[i].cancelled = 1;
			kill(s->calls[i].pid, SIGTERM);
		}
}

static void handle_message(struct server *s, const char *line, size_t len)
{
	struct kbx_json *m = NULL;
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_json_parse(line, len, &m, &err)) {
		send_error(s, NULL, RPC_PARSE_ERROR, err.msg);
		return;
	}
	const struct kbx_json *id = kbx_json_get(m, "id");
	const struct kbx_json *method = kbx_json_get(m, "method");
	const struct kbx_json *params = kbx_json_get(m, "params");
	const char *version = kbx_json_get_str(m, "jsonrpc");
	if (m->type == KBX_JSON_ARRAY) {
		send_error(s, NULL, RPC_INVALID_REQUEST, "batches are not part of this protocol revision: send one message a line");
		goto out;
	}
	if (m->type != KBX_JSON_OBJECT || !version || strcmp(version, "2.0")) {
		send_error(s, NULL, RPC_INVALID_REQUEST, "not a JSON-RPC 2.0 message: an object with \"jsonrpc\":\"2.0\"");
		goto out;
	}
	if (id && id->type != KBX_JSON_STRING && id->type != KBX_JSON_NUMBER) {
		send_error(s, NULL, RPC_INVALID_REQUEST, "a request's id must be a string or a number");
		goto out;
	}
	if (!method) {
		/* a response to a request of ours: we send none */
		if (kbx_json_get(m, "result") || kbx_json_get(m, "error"))
			goto out;
		send_error(s, id, RPC_INVALID_REQUEST, "a request needs a \"method\"");
		goto out;
	}
	if (method->type != KBX_JSON_STRING) {
		send_error(s, id, RPC_INVALID_REQUEST, "\"method\" must be a string");
		goto out;
	}
	if (params && params->type != KBX_JSON_OBJECT) {
		if (id)
			send_error(s, id, RPC_INVALID_PARAMS, "\"params\" must be an object");
		goto out;
	}
	const char *name = method->str;
	if (!id) {
		/* notifications: never answered */
		if (!strcmp(name, "notifications/cancelled"))
			do_cancelled(s, params);
		goto out;
	}
	for (size_t i = 0; i < s->ncalls; i++)
		if (same_id(s->calls[i].id, id)) {
			send_error(s, id, RPC_INVALID_REQUEST, "a request with this id is still running");
			goto out;
		}
	if (!strcmp(name, "initialize"))
		do_initialize(s, id, params);
	else if (!strcmp(name, "ping"))
		send_result(s, id, "{}", 2);
	else if (!strcmp(name, "tools/list"))
		do_tools_list(s, id);
	else if (!strcmp(name, "tools/call"))
		do_tools_call(s, id, params);
	else {
		struct strbuf msg = STRBUF_INIT;
		strbuf_addstr(&msg, "method not found: ");
		strbuf_addstr(&msg, name);
		send_error(s, id, RPC_METHOD_NOT_FOUND, msg.buf);
		strbuf_release(&msg);
	}
out:
	kbx_json_free(m);
}

/* ---- the loop ---- */

static volatile sig_atomic_t terminated;

static void on_terminate(int sig)
{
	terminated = sig;
}

static void refuse_long(struct server *s)
{
	char msg[128];
	snprintf(msg, sizeof(msg), "a message longer than %zu bytes (kbx mcp --max-message-size)",
		 s->max_message);
	send_error(s, NULL, RPC_PARSE_ERROR, msg);
}

static int serve(struct server *s)
{
	struct strbuf in = STRBUF_INIT;
	int eof = 0, skipping = 0;
	struct pollfd *pfd = NULL;
	size_t *who = NULL;
	while (!s->out_broken && !terminated && (!eof || s->ncalls)) {
		size_t n = 0, max = 1 + 3 * s->ncalls;
		struct pollfd *np = realloc(pfd, max * sizeof(*np));
		size_t *nw = realloc(who, max * sizeof(*nw));
		if (np)
			pfd = np;
		if (nw)
			who = nw;
		if (!np || !nw) {
			fprintf(stderr, "fatal: kbx mcp: out of memory\n");
			break;
		}
		if (!eof && (long)s->ncalls < s->max_calls) {
			pfd[n].fd = 0;
			pfd[n].events = POLLIN;
			who[n++] = SIZE_MAX;
		}
		for (size_t k = 0; k < s->ncalls; k++)
			for (int i = 0; i < 3; i++)
				if (s->calls[k].fd[i] >= 0) {
					pfd[n].fd = s->calls[k].fd[i];
					pfd[n].events = POLLIN;
					who[n++] = k * 3 + (size_t)i;
				}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "fatal: kbx mcp: poll: %s\n", strerror(errno));
			break;
		}
		/* the calls first, from the last: read_call may move the last
		 * call into the place of one that ended */
		for (size_t j = n; j-- > 0;) {
			if (!pfd[j].revents || who[j] == SIZE_MAX)
				continue;
			read_call(s, who[j] / 3, (int)(who[j] % 3));
			break;   /* indexes may have moved: poll again */
		}
		if (n && who[0] == SIZE_MAX && pfd[0].revents) {
			char buf[65536];
			ssize_t r = read(0, buf, sizeof(buf));
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				eof = 1;
				/* a last message without its newline; then
				 * the calls running are answered before the
				 * end, for a client that reads on (one that
				 * does not ends us with SIGTERM) */
				if (in.len && !skipping)
					handle_message(s, in.buf, in.len);
				continue;
			}
			strbuf_add(&in, buf, (size_t)r);
			size_t start = 0;
			for (size_t i = in.len - (size_t)r; i < in.len; i++) {
				if (in.buf[i] != '\n')
					continue;
				size_t len = i - start;
				if (len && in.buf[start + len - 1] == '\r')
					len--;
				if (!skipping && len > s->max_message)
					refuse_long(s);
				else if (!skipping && len)
					handle_message(s, in.buf + start, len);
				skipping = 0;
				start = i + 1;
			}
			memmove(in.buf, in.buf + start, in.len - start);
			strbuf_setlen(&in, in.len - start);
			if (in.len > s->max_message) {
				if (!skipping)
					refuse_long(s);
				skipping = 1;
				strbuf_reset(&in);
			}
			if (in.failed) {
				fprintf(stderr, "fatal: kbx mcp: out of memory\n");
				break;
			}
		}
	}
	for (size_t k = 0; k < s->ncalls; k++) {
		kill(s->calls[k].pid, SIGTERM);
		waitpid(s->calls[k].pid, NULL, 0);
	}
	free(pfd);
	free(who);
	strbuf_release(&in);
	if (terminated) {
		signal(terminated, SIG_DFL);
		raise(terminated);
	}
	return s->out_broken ? KBX_EXIT_IO : KBX_EXIT_OK;
}

int cmd_mcp(int argc, const char **argv, struct kbx_ctx *ctx)
{
	uint64_t max_message = 4u << 20;
	long max_calls = 4;
	struct option opts[] = {
		OPT_SIZE_F(0, "max-message-size", &max_message, "SIZE",
			   "the longest message read (default 4m)"),
		OPT_INT_F(0, "max-calls", &max_calls, "N",
			  "tool calls run at once, at most 64 (default 4)"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, mcp_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs) {
		fprintf(stderr, "error: 'mcp' takes no operand: clients talk to it on standard input\n");
		return KBX_EXIT_USAGE;
	}
	if (max_calls < 1 || max_calls > 64) {
		fprintf(stderr, "error: --max-calls must be between 1 and 64\n");
		return KBX_EXIT_USAGE;
	}
	if (max_message < 1024 || max_message > (1u << 30)) {
		fprintf(stderr, "error: --max-message-size must be between 1k and 1g\n");
		return KBX_EXIT_USAGE;
	}
	/* a client that goes away is an end, not a signal; SIGTERM and
	 * SIGINT end the calls running too (poll returns EINTR) */
	signal(SIGPIPE, SIG_IGN);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_terminate;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	struct server s = { 0 };
	s.max_message = (size_t)max_message;
	s.max_calls = max_calls;
	s.ctx = ctx;
	int rc = serve(&s);
	free(s.calls);
	return rc;
}
