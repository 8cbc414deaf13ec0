/*
 * kbx serve's HTTP module: the server on libmicrohttpd (serve-module.h).
 *
 * A pool of threads each polls its share of the connections; a request's
 * headers are bounded by the connection's memory (32 KiB), its body by
 * max_body, a connection silent for timeout_s is closed.  Each request is
 * handed whole to the handler on the thread that read it, and what the
 * handler answers is sent with the headers every answer carries: nothing
 * here names a route, a file or the data.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>

#include <microhttpd.h>

#include "serve-module.h"

#define MAX_QUERY_ARGS 32

struct kbx_server {
	struct MHD_Daemon *daemon;
	struct kbx_serve_config cfg;
};

/* One request's state, from its first call to its end. */
struct request_state {
	char *body;
	size_t len, alloc;
	int too_large;
};

struct query_args {
	const char *v[2 * MAX_QUERY_ARGS + 1];
	size_t n;
};

static enum MHD_Result add_query_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	struct query_args *q = cls;
	(void)kind;
	if (q->n >= 2 * MAX_QUERY_ARGS)
		return MHD_NO;
	q->v[q->n++] = key;
	q->v[q->n++] = value;
	return MHD_YES;
}

static int append_body(struct request_state *st, const char *data, size_t len, size_t max)
{
	if (st->too_large)
		return 0;
	if (len > max || st->len > max - len) {
		st->too_large = 1;
		free(st->body);
		st->body = NULL;
		st->len = st->alloc = 0;
		return 0;
	}
	if (st->len + len + 1 > st->alloc) {
		size_t want = st->alloc ? st->alloc : 4096;
		while (want < st->len + len + 1)
			want *= 2;
		char *p = realloc(st->body, want);
		if (!p) {
			st->too_large = 1;
			return -1;
		}
		st->body = p;
		st->alloc = want;
	}
	memcpy(st->body + st->len, data, len);
	st->len += len;
	st->body[st->len] = '\0';
	return 0;
}

static enum MHD_Result answer(struct kbx_server *s, struct MHD_Connection *conn, const char *url,
			      const char *method, struct request_state *st)
{
	struct query_args q = { { NULL }, 0 };
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_query_arg, &q);
	q.v[q.n] = NULL;
	struct kbx_serve_request req = {
		.method = method,
		.path = url,
		.host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
		.authorization = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_AUTHORIZATION),
		.content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							    MHD_HTTP_HEADER_CONTENT_TYPE),
		.query = q.v,
		.body = st->body,
		.body_len = st->len,
		.too_large = st->too_large,
	};
	struct kbx_serve_response res = { 0 };
	s->cfg.handler(s->cfg.data, &req, &res);
	if (!res.status)
		res.status = MHD_HTTP_INTERNAL_SERVER_ERROR;
	struct MHD_Response *r = MHD_create_response_from_buffer(res.len, res.body ? res.body : "",
								 res.body ? MHD_RESPMEM_MUST_FREE
									  : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		free(res.body);
		return MHD_NO;
	}
	if (res.content_type)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res.content_type);
	if (res.allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res.allow);
	if (res.authenticate)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, res.authenticate);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
				res.cache_control ? res.cache_control : "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Content-Security-Policy",
				"default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
				"base-uri 'none'; form-action 'none'");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	if (st->too_large)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	enum MHD_Result ok = MHD_queue_response(conn, res.status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload_data,
				  size_t *upload_data_size, void **con_cls)
{
	struct kbx_server *s = cls;
	struct request_state *st = *con_cls;
	(void)version;
	if (!st) {
		st = calloc(1, sizeof(*st));
		if (!st)
			return MHD_NO;
		*con_cls = st;
		/* a body announced too long is refused before it is read */
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl) {
			char *end;
			unsigned long long n = strtoull(cl, &end, 10);
			if (end == cl || *end || n > s->cfg.max_body) {
				st->too_large = 1;
				return answer(s, conn, url, method, st);
			}
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (append_body(st, upload_data, *upload_data_size, s->cfg.max_body) < 0)
			return MHD_NO;
		*upload_data_size = 0;
		return MHD_YES;
	}
	return answer(s, conn, url, method, st);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct request_state *st = *con_cls;
	(void)cls;
	(void)conn;
	(void)toe;
	if (st) {
		free(st->body);
		free(st);
	}
	*con_cls = NULL;
}

static int start(const struct kbx_serve_config *cfg, struct kbx_server **out, unsigned *port,
		 char *err, size_t errsz)
{
	struct kbx_server *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	s->cfg = *cfg;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD;
	if (cfg->addr->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	uint16_t want = 0;
	if (cfg->addr->sa_family == AF_INET6)
		want = ntohs(((const struct sockaddr_in6 *)cfg->addr)->sin6_port);
	else
		want = ntohs(((const struct sockaddr_in *)cfg->addr)->sin_port);
	s->daemon = MHD_start_daemon(flags, want, NULL, NULL, on_request, s,
				     MHD_OPTION_SOCK_ADDR, cfg->addr,
				     MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)cfg->threads,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_s,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)cfg->max_connections,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				     MHD_OPTION_END);
	if (!s->daemon) {
		snprintf(err, errsz, "cannot listen there (the port is taken, or the address "
			 "is not one of this machine's)");
		free(s);
		return -1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	*port = info ? info->port : want;
	*out = s;
	return 0;
}

static void stop(struct kbx_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	free(s);
}

static const struct kbx_serve_ops ops = {
	.abi = KBX_SERVE_ABI,
	.size = sizeof(struct kbx_serve_ops),
	.start = start,
	.stop = stop,
};

const struct kbx_serve_ops *kbx_serve_module(uint32_t abi);

const struct kbx_serve_ops *kbx_serve_module(uint32_t abi)
{
	return abi == KBX_SERVE_ABI ? &ops : NULL;
}
