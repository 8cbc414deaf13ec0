/*
 * kbx serve's HTTP module: the server on libmicrohttpd (serve-module.h).
 *
 * A few threads of libmicrohttpd poll the connections; a request's
 * headers are bounded by the connection's memory (32 KiB), its body by
 * max_body, a connection silent for timeout_s is closed.  That timeout
 * starts again with every byte, so a client sending a byte a second
 * would hold its connection for ever: a thread of ours (the reaper)
 * also closes a connection whose request is not read whole within
 * request_timeout_s of the connection's start or of its previous
 * answer, by shutting its socket down, which libmicrohttpd's polling
 * thread then sees as the client gone.  A request read
 * whole is suspended and put in one queue, first come first served,
 * that cfg->threads workers take from: the handler may take long (it
 * runs a query), and a connection must not wait behind the others that
 * its polling thread happens to hold.  What the handler answers is sent
 * with the headers every answer carries: nothing here names a route, a
 * file or the data.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "serve-module.h"

#define MAX_QUERY_ARGS 32

struct query_args {
	const char *v[2 * MAX_QUERY_ARGS + 1];
	size_t n;
};

/* One request's state, from its first call to its end. */
struct request_state {
	char *body;
	size_t len, alloc;
	int too_large;
	/* once read whole: queued for a worker, then answered */
	struct MHD_Connection *conn;
	struct kbx_serve_request req;
	struct query_args q;
	struct kbx_serve_response res;
	int queued, done;
	struct request_state *next;
};

/* A connection open, for the reaper (under kbx_server.conn_lock). */
struct conn_entry {
	int fd;
	long since_ms;     /* when its request started to arrive */
	int answering;     /* its request is read whole: no limit now */
	struct conn_entry *prev, *next;
};

struct kbx_server {
	struct MHD_Daemon *daemon;
	struct kbx_serve_config cfg;
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct request_state *head, *tail;  /* the queue */
	int quit;
	pthread_t *workers;
	unsigned nworkers;
	/* the connections, and the reaper that closes the slow ones */
	pthread_mutex_t conn_lock;
	pthread_cond_t conn_quit;
	struct conn_entry *conns;
	int reaper_quit, has_reaper;
	pthread_t reaper;
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static struct conn_entry *conn_entry_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return info ? info->socket_context : NULL;
}

/* The request of conn is read whole (answering) or answered, and the
 * next one starts to arrive now (!answering). */
static void conn_answering(struct kbx_server *s, struct MHD_Connection *conn, int answering)
{
	struct conn_entry *e = conn_entry_of(conn);
	if (!e)
		return;
	pthread_mutex_lock(&s->conn_lock);
	e->answering = answering;
	if (!answering)
		e->since_ms = now_ms();
	pthread_mutex_unlock(&s->conn_lock);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct kbx_server *s = cls;
	struct conn_entry *e = *socket_context;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *info =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!info || !(e = calloc(1, sizeof(*e))))
			return;       /* not watched: only the idle timeout */
		e->fd = info->connect_fd;
		e->since_ms = now_ms();
		pthread_mutex_lock(&s->conn_lock);
		e->next = s->conns;
		if (s->conns)
			s->conns->prev = e;
		s->conns = e;
		pthread_mutex_unlock(&s->conn_lock);
		*socket_context = e;
		return;
	}
	if (toe != MHD_CONNECTION_NOTIFY_CLOSED || !e)
		return;
	/* called before libmicrohttpd closes the socket: once out of the
	 * list, the reaper never touches its descriptor again */
	pthread_mutex_lock(&s->conn_lock);
	if (e->prev)
		e->prev->next = e->next;
	else
		s->conns = e->next;
	if (e->next)
		e->next->prev = e->prev;
	pthread_mutex_unlock(&s->conn_lock);
	free(e);
	*socket_context = NULL;
}

/* The reaper: four times a second, shut down the socket of each
 * connection whose request has taken over request_timeout_s to arrive. */
static void *reaper(void *arg)
{
	struct kbx_server *s = arg;
	long limit = (long)s->cfg.request_timeout_s * 1000;
	pthread_mutex_lock(&s->conn_lock);
	while (!s->reaper_quit) {
		long now = now_ms();
		for (struct conn_entry *e = s->conns; e; e = e->next)
			if (!e->answering && e->since_ms >= 0 && now - e->since_ms >= limit) {
				shutdown(e->fd, SHUT_RDWR);
				e->since_ms = -1;     /* once */
			}
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&s->conn_quit, &s->conn_lock, &ts);
	}
	pthread_mutex_unlock(&s->conn_lock);
	return NULL;
}

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

/* The request of st, read whole from conn, for the handler. */
static void fill_request(struct request_state *st, struct MHD_Connection *conn, const char *url,
			 const char *method)
{
	st->q.n = 0;
	MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, add_query_arg, &st->q);
	st->q.v[st->q.n] = NULL;
	struct kbx_serve_request req = {
		.method = method,
		.path = url,
		.host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST),
		.authorization = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							     MHD_HTTP_HEADER_AUTHORIZATION),
		.content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							    MHD_HTTP_HEADER_CONTENT_TYPE),
		.query = st->q.v,
		.body = st->body,
		.body_len = st->len,
		.too_large = st->too_large,
	};
	st->req = req;
}

/* Send what the handler answered into st->res. */
static enum MHD_Result send_response(struct MHD_Connection *conn, struct request_state *st)
{
	struct kbx_serve_response res = st->res;
	memset(&st->res, 0, sizeof(st->res));
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

/* A worker: answer the queued requests in turn, and wake their
 * connections, until the server stops and the queue is empty. */
static void *worker(void *arg)
{
	struct kbx_server *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->head && !s->quit)
			pthread_cond_wait(&s->more, &s->lock);
		struct request_state *st = s->head;
		if (!st)
			break;
		s->head = st->next;
		if (!s->head)
			s->tail = NULL;
		pthread_mutex_unlock(&s->lock);
		s->cfg.handler(s->cfg.data, &st->req, &st->res);
		st->done = 1;
		MHD_resume_connection(st->conn);
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
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
				/* answered at once: nothing to wait for */
				st->too_large = 1;
				conn_answering(s, conn, 1);
				fill_request(st, conn, url, method);
				s->cfg.handler(s->cfg.data, &st->req, &st->res);
				return send_response(conn, st);
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
	if (st->done)
		return send_response(conn, st);
	if (st->queued)
		return MHD_YES;
	conn_answering(s, conn, 1);
	fill_request(st, conn, url, method);
	st->conn = conn;
	st->queued = 1;
	pthread_mutex_lock(&s->lock);
	if (s->quit) {
		pthread_mutex_unlock(&s->lock);
		return MHD_NO;
	}
	MHD_suspend_connection(conn);
	if (s->tail)
		s->tail->next = st;
	else
		s->head = st;
	s->tail = st;
	pthread_cond_signal(&s->more);
	pthread_mutex_unlock(&s->lock);
	return MHD_YES;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct request_state *st = *con_cls;
	(void)toe;
	conn_answering(cls, conn, 0);
	if (st) {
		free(st->res.body);
		free(st->body);
		free(st);
	}
	*con_cls = NULL;
}

static void stop(struct kbx_server *s)
{
	if (!s)
		return;
	/* no new connections; the workers answer what is queued, then end */
	if (s->daemon)
		MHD_quiesce_daemon(s->daemon);
	if (s->has_reaper) {
		pthread_mutex_lock(&s->conn_lock);
		s->reaper_quit = 1;
		pthread_cond_broadcast(&s->conn_quit);
		pthread_mutex_unlock(&s->conn_lock);
		pthread_join(s->reaper, NULL);
	}
	pthread_mutex_lock(&s->lock);
	s->quit = 1;
	pthread_cond_broadcast(&s->more);
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < s->nworkers; i++)
		pthread_join(s->workers[i], NULL);
	if (s->daemon)
		MHD_stop_daemon(s->daemon);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->more);
	pthread_mutex_destroy(&s->conn_lock);
	pthread_cond_destroy(&s->conn_quit);
	free(s->workers);
	free(s);
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
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->more, NULL);
	pthread_mutex_init(&s->conn_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->conn_quit, &ca);
	pthread_condattr_destroy(&ca);
	s->workers = calloc(cfg->threads, sizeof(*s->workers));
	if (!s->workers) {
		snprintf(err, errsz, "out of memory");
		free(s);
		return -1;
	}
	for (; s->nworkers < cfg->threads; s->nworkers++)
		if (pthread_create(&s->workers[s->nworkers], NULL, worker, s)) {
			snprintf(err, errsz, "cannot start a thread");
			stop(s);
			return -1;
		}
	/* the polling threads only read and write; the workers wait */
	unsigned pollers = cfg->threads < 2 ? 1 : 2;
	unsigned flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC;
	if (cfg->addr->sa_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	uint16_t want = 0;
	if (cfg->addr->sa_family == AF_INET6)
		want = ntohs(((const struct sockaddr_in6 *)cfg->addr)->sin6_port);
	else
		want = ntohs(((const struct sockaddr_in *)cfg->addr)->sin_port);
	s->daemon = MHD_start_daemon(flags, want, NULL, NULL, on_request, s,
				     MHD_OPTION_SOCK_ADDR, cfg->addr,
				     MHD_OPTION_THREAD_POOL_SIZE, pollers,
				     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)cfg->timeout_s,
				     MHD_OPTION_CONNECTION_LIMIT, (unsigned int)cfg->max_connections,
				     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
				     MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
				     MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
				     MHD_OPTION_END);
	if (!s->daemon) {
		snprintf(err, errsz, "cannot listen there (the port is taken, or the address "
			 "is not one of this machine's)");
		stop(s);
		return -1;
	}
	if (cfg->request_timeout_s) {
		if (pthread_create(&s->reaper, NULL, reaper, s)) {
			snprintf(err, errsz, "cannot start a thread");
			stop(s);
			return -1;
		}
		s->has_reaper = 1;
	}
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
	*port = info ? info->port : want;
	*out = s;
	return 0;
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
