/*
 * kbx serve: kbx's queries as an HTTP API, with a page to ask from.
 *
 * The HTTP is the module's (serve-module.h: libmicrohttpd, a pool of
 * threads, limits on a request's size and a connection's silence); the
 * routes and the answers are here.  /v1/<tool> runs the tool of
 * tool-run.h, as kbx mcp does, in a forked child with --format=json, and
 * answers its records; every request opens the index afresh in its
 * child, so a kbx index running in another process is seen by the next
 * request, and this process holds no store that could go stale.  The
 * page at / is built into the binary (cmd/serve-page/); nothing is read
 * from disk to answer a request.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"
#include "serve-module.h"
#include "serve-page.h"
#include "tool-run.h"
#include "util/json.h"
#include "util/modload.h"
#include "util/strbuf.h"

#ifndef KBX_VERSION
#define KBX_VERSION "0.1.0"
#endif

static const char *const serve_usage[] = {
	"kbx serve [--listen=<addr>:<port>] [--token-file=<file>] [--threads=<n>] [<options>]",
	NULL
};

#define DEFAULT_LISTEN "127.0.0.1:7710"
#define MAX_TOKEN 4096
#define MIN_TOKEN 16

/* The tools served under /v1/, the ones GET may ask too (their arguments
 * then from the query string), and kbx mcp's others (index, changed)
 * left out: nothing over HTTP writes or runs git. */
static const char *const served[] = {
	"repos", "search", "hybrid", "context", "callers", "callees", "defs", "impact",
	"path", "status", NULL
};
static const char *const served_by_get[] = { "repos", "status", NULL };

struct serve {
	const struct kbx_ctx *ctx;
	char *token;               /* NULL: none asked */
	size_t token_len;
	char hosts[4][80];         /* the Host headers taken without a token */
	long query_timeout_ms;
};

static int in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* ---- answers ---- */

static void reply(struct kbx_serve_response *res, unsigned status, const char *type,
		  struct strbuf *body)
{
	if (body->failed) {
		strbuf_release(body);
		res->status = 500;
		return;
	}
	res->status = status;
	res->content_type = type;
	res->body = strbuf_detach(body, &res->len);
}

static void reply_static(struct kbx_serve_response *res, const char *type, const char *text,
			 size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add(&sb, text, len);
	reply(res, 200, type, &sb);
	res->cache_control = "no-cache";
}

/*
 * An error: {"error":{"status":HTTP,"message":MSG,"exit_status":RC,
 * "meaning":...}}, exit_status and meaning null when no command ran
 * (rc < -1) or it was stopped (rc == -1: meaning says so).
 */
static void reply_error(struct kbx_serve_response *res, unsigned status, int rc, const char *msg,
			size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "{\"error\":{\"status\":%u,\"message\":", status);
	strbuf_add_json_str(&sb, msg, len);
	if (rc >= 0)
		strbuf_addf(&sb, ",\"exit_status\":%d,\"meaning\":", rc);
	else
		strbuf_addstr(&sb, ",\"exit_status\":null,\"meaning\":");
	if (rc >= -1) {
		const char *m = tool_exit_meaning(rc);
		strbuf_add_json_str(&sb, m, strlen(m));
	} else {
		strbuf_addstr(&sb, "null");
	}
	strbuf_addstr(&sb, "}}\n");
	reply(res, status, "application/json", &sb);
}

static void reply_errorf(struct kbx_serve_response *res, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reply_errorf(struct kbx_serve_response *res, unsigned status, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	reply_error(res, status, -2, strbuf_str(&sb), sb.len);
	strbuf_release(&sb);
}

/* The HTTP status of kbx's exit status rc (kbx(1), EXIT STATUS). */
static unsigned http_status(int rc, int timed_out)
{
	switch (rc) {
	case KBX_EXIT_USAGE: return 400;
	case KBX_EXIT_NO_INDEX: return 404;     /* no such repository, or no index */
	case KBX_EXIT_SCHEMA: return 409;
	case KBX_EXIT_BUSY: return 503;
	case KBX_EXIT_FULL: return 507;
	default: return timed_out ? 504 : 500;
	}
}

/*
 * Run tool t with args: 0 with the records (a JSON array) and the exit
 * status in *rc, or the HTTP status of the failure with msg.
 */
static unsigned run_tool(struct serve *sv, const struct tool *t, const struct kbx_json *args,
			 struct strbuf *records, int *rc, struct strbuf *msg, struct strbuf *warnings)
{
	struct tool_call c;
	int st = tool_call_start(&c, t, args, -1, sv->ctx, msg);
	if (st) {
		*rc = st;
		tool_call_release(&c);
		return http_status(st, 0);
	}
	int status = tool_call_wait(&c, sv->query_timeout_ms);
	unsigned http = 0;
	if (tool_call_records(&c, status, records, rc, msg))
		http = http_status(*rc, c.timed_out);
	else if (warnings)
		tool_call_warnings(&c, warnings);
	tool_call_release(&c);
	return http;
}

static void answer_tool(struct serve *sv, const struct tool *t, const struct kbx_json *args,
			struct kbx_serve_response *res)
{
	struct strbuf body = STRBUF_INIT, msg = STRBUF_INIT;
	int rc;
	struct strbuf warnings = STRBUF_INIT;
	strbuf_addstr(&body, "{\"records\":");
	unsigned http = run_tool(sv, t, args, &body, &rc, &msg, &warnings);
	if (http) {
		reply_error(res, http, rc, msg.buf ? msg.buf : "", msg.len);
		strbuf_release(&body);
	} else {
		strbuf_addf(&body, ",\"exit_status\":%d", rc);
		add_warnings(&body, &warnings);
		strbuf_addstr(&body, "}\n");
		reply(res, 200, "application/json", &body);
	}
	strbuf_release(&warnings);
	strbuf_release(&msg);
}

/* The records of array (a JSON array's text) whose "type" is type, as
 * a JSON array appended to out; first: only the first, as an object
 * (null when there is none). */
static void add_records_of(struct strbuf *out, const struct kbx_json *array, const char *type,
			   int first)
{
	size_t n = 0;
	if (!first)
		strbuf_addch(out, '[');
	for (size_t i = 0; array && i < array->n; i++) {
		const char *ty = kbx_json_get_str(array->items[i], "type");
		if (!ty || strcmp(ty, type))
			continue;
		if (n++)
			strbuf_addch(out, ',');
		kbx_json_write(out, array->items[i]);
		if (first)
			return;
	}
	if (first)
		strbuf_addstr(out, "null");
	else
		strbuf_addch(out, ']');
}

/*
 * POST /v1/rag {"query", "repo_id", "top_k"}: the hybrid pipeline's plan
 * (the seeds, the traversal chosen) and the nodes it reached, each with
 * its path from its seed (via), then the chunks of text that answer,
 * from kbx context: two calls of the same index, or of every repository
 * for "repo_id": "all" (then one plan for each in "plans").
 */
static void answer_rag(struct serve *sv, const struct kbx_json *req, struct kbx_serve_response *res)
{
	const struct kbx_json *query = kbx_json_get(req, "query");
	const struct kbx_json *repo = kbx_json_get(req, "repo_id");
	const struct kbx_json *top_k = kbx_json_get(req, "top_k");
	for (size_t i = 0; i < req->n; i++)
		if (strcmp(req->keys[i], "query") && strcmp(req->keys[i], "repo_id") &&
		    strcmp(req->keys[i], "top_k")) {
			reply_errorf(res, 400, "error: rag takes no member '%s'; it takes 'query', "
				     "'repo_id' and 'top_k'", req->keys[i]);
			return;
		}
	if (!query || query->type != KBX_JSON_STRING) {
		reply_errorf(res, 400, "error: rag takes 'query', a string");
		return;
	}
	if (repo && repo->type != KBX_JSON_STRING && repo->type != KBX_JSON_NULL) {
		reply_errorf(res, 400, "error: 'repo_id' must be a string: a name from /v1/repos");
		return;
	}
	if (top_k && (top_k->type != KBX_JSON_NUMBER || !top_k->is_int || top_k->ival < 1 ||
		      top_k->ival > 1000)) {
		reply_errorf(res, 400, "error: 'top_k' must be an integer from 1 to 1000");
		return;
	}
	struct kbx_json *hargs = kbx_json_new(KBX_JSON_OBJECT);
	struct kbx_json *cargs = kbx_json_new(KBX_JSON_OBJECT);
	struct strbuf hrec = STRBUF_INIT, crec = STRBUF_INIT, msg = STRBUF_INIT, out = STRBUF_INIT;
	struct strbuf warnings = STRBUF_INIT;
	struct kbx_json *hv = NULL, *cv = NULL;
	int hrc = 0, crc = 0;
	unsigned http = 0;
	/* "all": every repository of the list, as kbx hybrid and kbx
	 * context --all-repos ask them */
	int all = repo && repo->type == KBX_JSON_STRING && repo->len == 3 &&
		  !memcmp(repo->str, "all", 3);
	int one = repo && repo->type == KBX_JSON_STRING && !all;
	if (!hargs || !cargs ||
	    kbx_json_add(hargs, "question", kbx_json_new_str(query->str, query->len)) ||
	    kbx_json_add(cargs, "question", kbx_json_new_str(query->str, query->len)) ||
	    (top_k && kbx_json_add(hargs, "limit", kbx_json_new_int(top_k->ival))) ||
	    (all && (kbx_json_add(hargs, "all_repos", kbx_json_new(KBX_JSON_TRUE)) ||
		     kbx_json_add(cargs, "all_repos", kbx_json_new(KBX_JSON_TRUE)))) ||
	    (one && (kbx_json_add(hargs, "repo", kbx_json_new_str(repo->str, repo->len)) ||
		     kbx_json_add(cargs, "repo", kbx_json_new_str(repo->str, repo->len))))) {
		reply_errorf(res, 500, "fatal: out of memory");
		goto out;
	}
	http = run_tool(sv, tool_find("hybrid"), hargs, &hrec, &hrc, &msg, &warnings);
	if (!http)
		http = run_tool(sv, tool_find("context"), cargs, &crec, &crc, &msg, &warnings);
	if (http) {
		reply_error(res, http, hrc ? hrc : crc, msg.buf ? msg.buf : "", msg.len);
		goto out;
	}
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_json_parse(hrec.buf, hrec.len, &hv, &err) ||
	    kbx_json_parse(crec.buf, crec.len, &cv, &err)) {
		reply_errorf(res, 500, "fatal: the records do not read again: %s", err.msg);
		goto out;
	}
	strbuf_addstr(&out, "{\"query\":");
	strbuf_add_json_str(&out, query->str, query->len);
	strbuf_addstr(&out, ",\"repo_id\":");
	if (repo && repo->type == KBX_JSON_STRING)
		strbuf_add_json_str(&out, repo->str, repo->len);
	else
		strbuf_addstr(&out, "null");
	strbuf_addstr(&out, ",\"plan\":");
	add_records_of(&out, hv, "plan", 1);
	strbuf_addstr(&out, ",\"plans\":");
	add_records_of(&out, hv, "plan", 0);
	strbuf_addstr(&out, ",\"nodes\":");
	add_records_of(&out, hv, "result", 0);
	strbuf_addstr(&out, ",\"chunks\":");
	add_records_of(&out, cv, "piece", 0);
	strbuf_addstr(&out, ",\"pack\":");
	add_records_of(&out, cv, "pack", 1);
	/* found when either found */
	strbuf_addf(&out, ",\"exit_status\":%d", hrc && crc ? KBX_EXIT_NOT_FOUND : KBX_EXIT_OK);
	add_warnings(&out, &warnings);
	strbuf_addstr(&out, "}\n");
	reply(res, 200, "application/json", &out);
out:
	kbx_json_free(hargs);
	kbx_json_free(cargs);
	kbx_json_free(hv);
	kbx_json_free(cv);
	strbuf_release(&hrec);
	strbuf_release(&crec);
	strbuf_release(&msg);
	strbuf_release(&out);
	strbuf_release(&warnings);
}

/* ---- the OpenAPI description ---- */

static void add_error_responses(struct strbuf *sb)
{
	static const unsigned codes[] = { 400, 401, 404, 405, 409, 413, 415, 500, 503, 504 };
	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		strbuf_addf(sb, ",\"%u\":{\"$ref\":\"#/components/responses/Error\"}", codes[i]);
}

static void answer_openapi(struct kbx_serve_response *res)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, "{\"openapi\":\"3.1.0\",\"info\":{\"title\":\"kbx serve\",\"version\":");
	strbuf_add_json_str(&sb, KBX_VERSION, strlen(KBX_VERSION));
	strbuf_addstr(&sb, ",\"description\":\"kbx's queries over HTTP: each endpoint runs the kbx "
		      "command of its name with --format=json and answers its records "
		      "(kbx-json(7)); see kbx-serve(1).\"},\"paths\":{");
	int n = 0;
	for (size_t i = 0; served[i]; i++) {
		const struct tool *t = tool_find(served[i]);
		if (!t || !find_command(t->name))
			continue;
		if (n++)
			strbuf_addch(&sb, ',');
		strbuf_addf(&sb, "\"/v1/%s\":{", t->name);
		if (in_list(served_by_get, t->name))
			strbuf_addf(&sb, "\"get\":{\"operationId\":\"get_%s\",\"parameters\":[{\"name\":"
				    "\"repo\",\"in\":\"query\",\"schema\":{\"type\":\"string\"}}],"
				    "\"responses\":{\"200\":{\"$ref\":\"#/components/responses/Records\"}}},",
				    t->name);
		strbuf_addf(&sb, "\"post\":{\"operationId\":\"%s\",\"summary\":", t->name);
		strbuf_add_json_str(&sb, t->description, strlen(t->description));
		strbuf_addstr(&sb, ",\"requestBody\":{\"content\":{\"application/json\":{\"schema\":"
			      "{\"type\":\"object\",\"properties\":{");
		for (const struct tool_arg *a = t->args; a->name; a++) {
			tool_arg_schema(&sb, a);
			strbuf_addch(&sb, ',');
		}
		strbuf_addstr(&sb, "\"repo\":{\"type\":\"string\",\"description\":\"a repository's "
			      "name from /v1/repos (default: the one kbx serve was started in)\"}},"
			      "\"required\":[");
		int r = 0;
		for (const struct tool_arg *a = t->args; a->name; a++)
			if (a->required)
				strbuf_addf(&sb, "%s\"%s\"", r++ ? "," : "", a->name);
		strbuf_addstr(&sb, "],\"additionalProperties\":false}}}},\"responses\":{\"200\":"
			      "{\"$ref\":\"#/components/responses/Records\"}");
		add_error_responses(&sb);
		strbuf_addstr(&sb, "}}}");
	}
	strbuf_addstr(&sb, ",\"/v1/rag\":{\"post\":{\"operationId\":\"rag\",\"summary\":\"The hybrid "
		      "pipeline's plan, the nodes it reached with their paths from their seeds, and "
		      "the chunks of text that answer the query\",\"requestBody\":{\"content\":{"
		      "\"application/json\":{\"schema\":{\"type\":\"object\",\"properties\":{"
		      "\"query\":{\"type\":\"string\"},\"repo_id\":{\"type\":[\"string\",\"null\"],"
		      "\"description\":\"a repository's name from /v1/repos, \\\"all\\\" for every one, or "
		      "null for the one kbx serve was started in\"},"
		      "\"top_k\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000}},"
		      "\"required\":[\"query\"],\"additionalProperties\":false}}}},"
		      "\"responses\":{\"200\":{\"description\":\"the plan, nodes and chunks\","
		      "\"content\":{\"application/json\":{\"schema\":{\"type\":\"object\","
		      "\"properties\":{\"query\":{\"type\":\"string\"},\"repo_id\":{\"type\":"
		      "[\"string\",\"null\"]},\"plan\":{\"type\":[\"object\",\"null\"]},\"plans\":"
		      "{\"type\":\"array\",\"items\":{\"type\":\"object\"}},\"nodes\":"
		      "{\"type\":\"array\",\"items\":{\"type\":\"object\"}},\"chunks\":{\"type\":"
		      "\"array\",\"items\":{\"type\":\"object\"}},\"pack\":{\"type\":[\"object\","
		      "\"null\"]},\"exit_status\":{\"type\":\"integer\"},\"warnings\":{\"type\":"
		      "\"array\",\"items\":{\"type\":\"string\"}}}}}}}");
	add_error_responses(&sb);
	strbuf_addstr(&sb, "}}},\"/v1/openapi.json\":{\"get\":{\"operationId\":\"openapi\","
		      "\"responses\":{\"200\":{\"description\":\"this description\"}}}}},"
		      "\"components\":{\"securitySchemes\":{\"token\":{\"type\":\"http\","
		      "\"scheme\":\"bearer\"}},\"responses\":{\"Records\":{\"description\":"
		      "\"the command's JSON Lines as an array, and its exit status (0 found, "
		      "1 nothing found)\",\"content\":{\"application/json\":{\"schema\":{\"type\":"
		      "\"object\",\"properties\":{\"records\":{\"type\":\"array\",\"items\":{\"type\":"
		      "\"object\"}},\"exit_status\":{\"type\":\"integer\"},\"warnings\":{\"type\":"
		      "\"array\",\"items\":{\"type\":\"string\"},\"description\":\"what the "
		      "command said besides its answer, a line each\"}},\"required\":[\"records\","
		      "\"exit_status\"]}}}},\"Error\":{\"description\":\"an error, with the exit "
		      "status of the command and its meaning when one ran\",\"content\":{"
		      "\"application/json\":{\"schema\":{\"type\":\"object\",\"properties\":{\"error\":"
		      "{\"type\":\"object\",\"properties\":{\"status\":{\"type\":\"integer\"},"
		      "\"message\":{\"type\":\"string\"},\"exit_status\":{\"type\":[\"integer\","
		      "\"null\"]},\"meaning\":{\"type\":[\"string\",\"null\"]}},\"required\":["
		      "\"status\",\"message\"]}}}}}}}},\"security\":[{},{\"token\":[]}]}\n");
	reply(res, 200, "application/json", &sb);
}

/* ---- routes ---- */

/* Is auth "Bearer <the token>"?  Compared in time that does not depend
 * on where the first difference is. */
static int token_ok(const struct serve *sv, const char *auth)
{
	static const char bearer[] = "Bearer ";
	if (!auth || strncasecmp(auth, bearer, sizeof(bearer) - 1))
		return 0;
	auth += sizeof(bearer) - 1;
	size_t len = strlen(auth);
	unsigned char diff = len != sv->token_len;
	for (size_t i = 0; i < sv->token_len; i++)
		diff |= (unsigned char)sv->token[i] ^ (unsigned char)(i < len ? auth[i] : 0);
	return !diff;
}

/* The arguments of a GET from its query string: only "repo". */
static struct kbx_json *query_args(const char *const *q, struct strbuf *msg)
{
	struct kbx_json *args = kbx_json_new(KBX_JSON_OBJECT);
	for (size_t i = 0; args && q && q[i]; i += 2) {
		if (strcmp(q[i], "repo") || !q[i + 1]) {
			strbuf_addf(msg, "error: a GET takes only '?repo=NAME'; send the other "
				    "arguments as a JSON object with POST");
			kbx_json_free(args);
			return NULL;
		}
		if (kbx_json_add(args, "repo", kbx_json_new_str(q[i + 1], strlen(q[i + 1])))) {
			strbuf_addstr(msg, "fatal: out of memory");
			kbx_json_free(args);
			return NULL;
		}
	}
	if (!args && !msg->len)
		strbuf_addstr(msg, "fatal: out of memory");
	return args;
}

static void handle(void *data, const struct kbx_serve_request *req, struct kbx_serve_response *res)
{
	struct serve *sv = data;
	const char *path = req->path;
	int get = !strcmp(req->method, "GET") || !strcmp(req->method, "HEAD");
	int post = !strcmp(req->method, "POST");
	if (req->too_large) {
		reply_errorf(res, 413, "error: the request's body is over the limit (kbx serve "
			     "--max-body)");
		return;
	}
	/* without a token, only names of this machine: a page elsewhere
	 * cannot reach the API through a name it points here (DNS
	 * rebinding) */
	if (!sv->token) {
		int ok = 0;
		for (size_t i = 0; i < 4 && req->host; i++)
			ok |= !strcmp(req->host, sv->hosts[i]);
		if (!ok) {
			reply_errorf(res, 403, "error: the Host header is not this server's "
				     "address (give kbx serve --token-file to be reached by other names)");
			return;
		}
	}
	if (!strcmp(path, "/") || !strcmp(path, "/kbx.js") || !strcmp(path, "/kbx.css")) {
		if (!get) {
			reply_errorf(res, 405, "error: %s takes GET", path);
			res->allow = "GET, HEAD";
			return;
		}
		if (!strcmp(path, "/"))
			reply_static(res, "text/html; charset=utf-8", serve_page_index_html,
				     sizeof(serve_page_index_html) - 1);
		else if (!strcmp(path, "/kbx.js"))
			reply_static(res, "text/javascript; charset=utf-8", serve_page_kbx_js,
				     sizeof(serve_page_kbx_js) - 1);
		else
			reply_static(res, "text/css; charset=utf-8", serve_page_kbx_css,
				     sizeof(serve_page_kbx_css) - 1);
		return;
	}
	if (strncmp(path, "/v1/", 4)) {
		reply_errorf(res, 404, "error: nothing here: the API is under /v1/ "
			     "(/v1/openapi.json describes it), the page at /");
		return;
	}
	if (sv->token && !token_ok(sv, req->authorization)) {
		reply_errorf(res, 401, "error: this server takes an 'Authorization: Bearer <token>' "
			     "header with the token of its --token-file");
		res->authenticate = "Bearer realm=\"kbx\"";
		return;
	}
	const char *name = path + 4;
	const struct tool *t = NULL;
	int rag = !strcmp(name, "rag");
	if (!strcmp(name, "openapi.json")) {
		if (!get) {
			reply_errorf(res, 405, "error: /v1/openapi.json takes GET");
			res->allow = "GET, HEAD";
			return;
		}
		answer_openapi(res);
		return;
	}
	if (!rag && (!in_list(served, name) || !(t = tool_find(name)) || !find_command(t->name))) {
		reply_errorf(res, 404, "error: no endpoint /v1/%s: /v1/openapi.json lists them", name);
		return;
	}
	int may_get = !rag && in_list(served_by_get, name);
	if (!post && !(get && may_get)) {
		reply_errorf(res, 405, "error: /v1/%s takes %s", name, may_get ? "GET or POST" : "POST");
		res->allow = may_get ? "GET, HEAD, POST" : "POST";
		return;
	}
	struct strbuf msg = STRBUF_INIT;
	struct kbx_json *args = NULL;
	if (get) {
		args = query_args(req->query, &msg);
		if (!args) {
			reply_error(res, 400, -2, msg.buf, msg.len);
			goto out;
		}
	} else if (req->body_len) {
		/* JSON only: a page elsewhere cannot send it without asking
		 * first (CORS), which this server never allows */
		const char *ct = req->content_type;
		size_t n = strlen("application/json");
		if (!ct || strncasecmp(ct, "application/json", n) || (ct[n] && ct[n] != ';' && ct[n] != ' ')) {
			reply_errorf(res, 415, "error: send the arguments as a JSON object with "
				     "'Content-Type: application/json'");
			goto out;
		}
		struct kbx_error err = KBX_ERROR_INIT;
		if (kbx_json_parse(req->body, req->body_len, &args, &err)) {
			reply_errorf(res, 400, "error: the body is not JSON: %s", err.msg);
			goto out;
		}
		if (args->type != KBX_JSON_OBJECT) {
			reply_errorf(res, 400, "error: the body must be a JSON object of the arguments");
			goto out;
		}
	} else if (!(args = kbx_json_new(KBX_JSON_OBJECT))) {
		reply_errorf(res, 500, "fatal: out of memory");
		goto out;
	}
	if (rag)
		answer_rag(sv, args, res);
	else
		answer_tool(sv, t, args, res);
out:
	kbx_json_free(args);
	strbuf_release(&msg);
}

/* ---- starting ---- */

/* Read the token of path into sv: a regular file (not a symbolic link)
 * of ours that only we may read; 0, or an exit code after the error. */
static int read_token(struct serve *sv, const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd < 0) {
		if (errno == ELOOP)
			fprintf(stderr, "error: the token file '%s' is a symbolic link: give the "
				"file itself\n", out_esc(path));
		else
			fprintf(stderr, "error: cannot open the token file '%s': %s\n", out_esc(path),
				strerror(errno));
		return KBX_EXIT_USAGE;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "error: the token file '%s' is not a regular file\n", out_esc(path));
		close(fd);
		return KBX_EXIT_USAGE;
	}
	if (st.st_mode & 077) {
		fprintf(stderr, "error: the token file '%s' may be read or written by others "
			"(mode %03o): run 'chmod 600 %s'\n", out_esc(path),
			(unsigned)(st.st_mode & 0777), out_esc(path));
		close(fd);
		return KBX_EXIT_USAGE;
	}
	if (st.st_uid != geteuid()) {
		fprintf(stderr, "error: the token file '%s' belongs to another user\n", out_esc(path));
		close(fd);
		return KBX_EXIT_USAGE;
	}
	char buf[MAX_TOKEN + 2];
	size_t len = 0;
	ssize_t r;
	while (len < sizeof(buf) && (r = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "error: cannot read the token file '%s': %s\n", out_esc(path),
				strerror(errno));
			close(fd);
			return KBX_EXIT_IO;
		}
		len += (size_t)r;
	}
	close(fd);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
		len--;
	if (len > MAX_TOKEN || len < MIN_TOKEN) {
		fprintf(stderr, "error: the token in '%s' must be %d to %d characters on one line "
			"(e.g. 'head -c 32 /dev/urandom | base64 >%s')\n", out_esc(path),
			MIN_TOKEN, MAX_TOKEN, out_esc(path));
		return KBX_EXIT_USAGE;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)buf[i] <= ' ' || (unsigned char)buf[i] >= 0x7f) {
			fprintf(stderr, "error: the token in '%s' holds a space, a control character "
				"or a byte outside ASCII on line 1, column %zu\n", out_esc(path), i + 1);
			return KBX_EXIT_USAGE;
		}
	sv->token = malloc(len + 1);
	if (!sv->token) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	memcpy(sv->token, buf, len);
	sv->token[len] = '\0';
	sv->token_len = len;
	return 0;
}

/* Parse HOST:PORT (HOST an IPv4 address, [IPv6] or localhost) into ss. */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *len,
			int *loopback)
{
	char host[128];
	const char *colon = strrchr(spec, ':');
	const char *h = spec;
	size_t hlen = colon ? (size_t)(colon - spec) : 0;
	if (!colon || !hlen || !colon[1])
		goto bad;
	if (h[0] == '[' && h[hlen - 1] == ']') {
		h++;
		hlen -= 2;
	}
	if (hlen >= sizeof(host))
		goto bad;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	if (!strcmp(host, "localhost"))
		strcpy(host, "127.0.0.1");
	char *end;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (*end || port > 65535)
		goto bad;
	memset(ss, 0, sizeof(*ss));
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)port);
		*len = sizeof(*v4);
		*loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*v6);
		*loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
		return 0;
	}
bad:
	fprintf(stderr, "error: --listen takes ADDRESS:PORT with a numeric address, as "
		"127.0.0.1:7710 or [::1]:7710, not '%s'\n", out_esc(spec));
	return -1;
}

int cmd_serve(int argc, const char **argv, struct kbx_ctx *ctx)
{
	const char *listen_at = DEFAULT_LISTEN, *token_file = NULL;
	long threads = 8, timeout = 10, request_timeout = 30, query_timeout = 60;
	long max_connections = 256;
	uint64_t max_body = 1u << 20;
	struct option opts[] = {
		OPT_STRING_F(0, "listen", &listen_at, "ADDR:PORT",
			     "where to listen (default " DEFAULT_LISTEN "; port 0: any free one)"),
		OPT_STRING_F(0, "token-file", &token_file, "FILE",
			     "take requests with this bearer token only (needed beyond loopback)"),
		OPT_INT_F(0, "threads", &threads, "N", "threads serving requests (default 8)"),
		OPT_SIZE_F(0, "max-body", &max_body, "SIZE", "the largest request body (default 1m)"),
		OPT_INT_F(0, "timeout", &timeout, "SECONDS",
			  "close a connection silent this long (default 10)"),
		OPT_INT_F(0, "request-timeout", &request_timeout, "SECONDS",
			  "close a connection whose request takes this long to arrive (default 30)"),
		OPT_INT_F(0, "query-timeout", &query_timeout, "SECONDS",
			  "stop a query running this long (default 60)"),
		OPT_INT_F(0, "max-connections", &max_connections, "N",
			  "connections at once (default 256)"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, serve_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs) {
		fprintf(stderr, "error: 'serve' takes no operand\n");
		return KBX_EXIT_USAGE;
	}
	if (threads < 1 || threads > 256 || timeout < 1 || timeout > 3600 || request_timeout < 1 ||
	    request_timeout > 3600 || query_timeout < 1 || query_timeout > 86400 ||
	    max_connections < 1 || max_connections > 65536 || max_body < 1024 ||
	    max_body > (1u << 30)) {
		fprintf(stderr, "error: out of range: --threads 1 to 256, --timeout 1 to 3600, "
			"--request-timeout 1 to 3600, --query-timeout 1 to 86400, "
			"--max-connections 1 to 65536, --max-body 1k to 1g\n");
		return KBX_EXIT_USAGE;
	}
	struct sockaddr_storage ss;
	socklen_t sslen;
	int loopback;
	if (parse_listen(listen_at, &ss, &sslen, &loopback))
		return KBX_EXIT_USAGE;
	struct serve sv = { 0 };
	sv.ctx = ctx;
	sv.query_timeout_ms = query_timeout * 1000;
	if (!loopback && !token_file) {
		fprintf(stderr, "error: --listen=%s reaches beyond this machine: give "
			"--token-file=FILE so that only those with the token are answered\n",
			out_esc(listen_at));
		return KBX_EXIT_USAGE;
	}
	int rc;
	if (token_file && (rc = read_token(&sv, token_file)))
		return rc;

	void *sym;
	char path[PATH_MAX], err[512];
	if (_kbx_module_open("server module", "KBX_SERVE_MODULE_PATH", KBX_SERVE_MODULE_FILE,
			     KBX_SERVE_MODULE_SYMBOL, &sym, path, sizeof(path), err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		free(sv.token);
		return KBX_EXIT_IO;
	}
	kbx_serve_module_fn entry;
	memcpy(&entry, &sym, sizeof(entry));
	const struct kbx_serve_ops *ops = entry(KBX_SERVE_ABI);
	if (!ops || ops->abi != KBX_SERVE_ABI || ops->size < sizeof(*ops)) {
		fprintf(stderr, "error: the server module '%s' does not speak ABI %d of this kbx; "
			"install the module built with this kbx\n", out_esc(path), KBX_SERVE_ABI);
		free(sv.token);
		return KBX_EXIT_IO;
	}

	/* SIGTERM and SIGINT are waited for below, blocked in every thread
	 * the module starts (a call's child unblocks them); a client gone
	 * away is no signal */
	signal(SIGPIPE, SIG_IGN);
	sigset_t stop_set;
	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGTERM);
	sigaddset(&stop_set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop_set, NULL);

	struct kbx_serve_config cfg = {
		.addr = (const struct sockaddr *)&ss,
		.addrlen = sslen,
		.threads = (unsigned)threads,
		.max_body = (size_t)max_body,
		.timeout_s = (unsigned)timeout,
		.request_timeout_s = (unsigned)request_timeout,
		.max_connections = (unsigned)max_connections,
		.handler = handle,
		.data = &sv,
	};
	struct kbx_server *server;
	unsigned port;
	if (ops->start(&cfg, &server, &port, err, sizeof(err))) {
		fprintf(stderr, "error: cannot serve on %s: %s\n", out_esc(listen_at), err);
		free(sv.token);
		return KBX_EXIT_IO;
	}
	char addr[INET6_ADDRSTRLEN + 2] = "";
	if (ss.ss_family == AF_INET6) {
		char a[INET6_ADDRSTRLEN];
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a));
		snprintf(addr, sizeof(addr), "[%s]", a);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	}
	snprintf(sv.hosts[0], sizeof(sv.hosts[0]), "%s:%u", addr, port);
	snprintf(sv.hosts[1], sizeof(sv.hosts[1]), "localhost:%u", port);
	snprintf(sv.hosts[2], sizeof(sv.hosts[2]), "127.0.0.1:%u", port);
	snprintf(sv.hosts[3], sizeof(sv.hosts[3]), "[::1]:%u", port);
	printf("kbx serve: listening on http://%s:%u/\n", addr, port);
	fflush(stdout);

	int sig = 0;
	while (sigwait(&stop_set, &sig))
		;
	ops->stop(server);
	free(sv.token);
	return KBX_EXIT_OK;
}
