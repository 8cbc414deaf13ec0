/*
 * kbx mcp: a Model Context Protocol server on standard input and output.
 *
 * JSON-RPC 2.0, one message a line.  Each tools/call runs one of kbx's
 * commands with --format=json in a forked child (tool-run.h, shared with
 * kbx serve), whose standard output and error are pipes read here: the
 * JSON Lines become the result's structuredContent and its text, the
 * error message and exit status a result with isError.  The child keeps
 * every crash, every global and every open store to itself, and
 * cancelling a call is killing it.  This
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
#include "tool-run.h"
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

/* ---- the tools ---- */

/* The tools/list entry of t. */
static void add_tool_json(struct strbuf *sb, const struct tool *t)
{
	strbuf_addf(sb, "{\"name\":\"%s\",\"title\":\"kbx %s\",\"description\":", t->name, t->name);
	strbuf_add_json_str(sb, t->description, strlen(t->description));
	strbuf_addstr(sb, ",\"inputSchema\":{\"type\":\"object\",\"properties\":{");
	for (const struct tool_arg *a = t->args; a->name; a++) {
		tool_arg_schema(sb, a);
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
		      "\"the command's exit status: 0 found, 1 nothing found (kbx(1))\"},"
		      "\"warnings\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
		      "\"description\":\"what the command said besides its answer, a line each "
		      "(warnings and notes: what the answer leaves out, and why)\"}},"
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
	struct tool_call run;
	struct kbx_json *id;            /* the request's id */
	struct kbx_json *progress_token;
	long progress;                  /* progress steps reported */
	int cancelled;
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

static void start_call(struct server *s, const struct kbx_json *id, const struct tool *t,
		       const struct kbx_json *args, const struct kbx_json *token)
{
	struct strbuf msg = STRBUF_INIT;
	int want_progress = token && !strcmp(t->name, "index");
	struct call *c = realloc(s->calls, (s->ncalls + 1) * sizeof(*c));
	if (!c) {
		send_tool_error(s, id, "fatal: out of memory", 20);
		return;
	}
	s->calls = c;
	c = &s->calls[s->ncalls];
	memset(c, 0, sizeof(*c));
	if (tool_call_start(&c->run, t, args, want_progress ? 3 : -1, s->ctx, &msg)) {
		send_tool_error(s, id, strbuf_str(&msg), msg.len);
		tool_call_release(&c->run);
		strbuf_release(&msg);
		return;
	}
	c->id = copy_json(id);
	c->progress_token = token ? copy_json(token) : NULL;
	s->ncalls++;
	strbuf_release(&msg);
}

/* Progress lines "PHASE DONE TOTAL" of an index child: one notification
 * each, its progress a count of steps so that it only ever grows (the
 * phases count their files from 0 again). */
static void send_progress(struct server *s, struct call *c)
{
	struct strbuf *b = &c->run.buf[2];
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
	struct strbuf res = STRBUF_INIT, recs = STRBUF_INIT, msg = STRBUF_INIT;
	struct strbuf *out = &c->run.buf[0], *err = &c->run.buf[1];
	int rc;
	if (c->cancelled || s->out_broken)
		goto done;
	if (tool_call_records(&c->run, status, &recs, &rc, &msg)) {
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
	/* what the command said besides its answer (a search that leaves
	 * chunks out, a name taken for words) is the agent's to read too */
	if (out->len && err->len) {
		struct strbuf said = STRBUF_INIT;
		tool_call_warning_text(&c->run, &said);
		strbuf_addstr(&res, "},{\"type\":\"text\",\"text\":");
		strbuf_add_json_str(&res, said.buf ? said.buf : "", said.len);
		strbuf_release(&said);
	}
	strbuf_addstr(&res, "}],\"structuredContent\":{\"records\":");
	strbuf_add(&res, recs.buf, recs.len);
	strbuf_addf(&res, ",\"exit_status\":%d", rc);
	struct strbuf warnings = STRBUF_INIT;
	tool_call_warnings(&c->run, &warnings);
	add_warnings(&res, &warnings);
	strbuf_release(&warnings);
	strbuf_addstr(&res, "},\"isError\":false}");
	if (err->len)
		fprintf(stderr, "kbx mcp: %s: %s\n", c->run.tool->name, out_esc(err->buf));
	if (res.failed)
		send_tool_error(s, c->id, "fatal: out of memory", 20);
	else
		send_result(s, c->id, res.buf, res.len);
done:
	strbuf_release(&res);
	strbuf_release(&recs);
	strbuf_release(&msg);
}

/* Read what a call's pipe i has; reap the child once all are closed.
 * Returns 1 when the call is over (and removed). */
static int read_call(struct server *s, size_t k, int i)
{
	struct call *c = &s->calls[k];
	int over = tool_call_read(&c->run, i);
	if (i == 2 && c->run.fd[2] >= 0)
		send_progress(s, c);
	if (!over)
		return 0;
	int status = 0;
	while (waitpid(c->run.pid, &status, 0) < 0 && errno == EINTR)
		;
	finish_call(s, c, status);
	kbx_json_free(c->id);
	kbx_json_free(c->progress_token);
	tool_call_release(&c->run);
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
	for (size_t i = 0; i < kbx_ntools; i++) {
		if (!find_command(kbx_tools[i].name))
			continue;   /* a tool of a command this kbx lacks */
		if (n++)
			strbuf_addch(&sb, ',');
		add_tool_json(&sb, &kbx_tools[i]);
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
	const struct tool *t = tool_find(name);
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
			tool_call_cancel(&s->calls[i].run);
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
				if (s->calls[k].run.fd[i] >= 0) {
					pfd[n].fd = s->calls[k].run.fd[i];
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
		tool_call_cancel(&s->calls[k].run);
		waitpid(s->calls[k].run.pid, NULL, 0);
		kbx_json_free(s->calls[k].id);
		kbx_json_free(s->calls[k].progress_token);
		tool_call_release(&s->calls[k].run);
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
