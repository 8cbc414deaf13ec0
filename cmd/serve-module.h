/*
 * The interface between kbx serve (cmd/serve.c, in kbx) and its HTTP
 * module (cmd/serve-module/, build/kbx-serve.so), which holds the server
 * on libmicrohttpd: Debian builds that with GnuTLS, whose libraries no
 * other command should load at start-up.
 *
 * The module does HTTP only: it listens, reads each request's headers
 * and body within the limits given, and hands the request to the
 * handler, which answers it; it serves no file and knows no route.  The
 * module exports one function, kbx_serve_module(abi), which returns its
 * table of operations when it speaks that ABI and NULL otherwise.  Any
 * change to the structures below or to their meaning raises
 * KBX_SERVE_ABI.
 */
#ifndef KBX_SERVE_MODULE_H
#define KBX_SERVE_MODULE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define KBX_SERVE_ABI 2
#define KBX_SERVE_MODULE_SYMBOL "kbx_serve_module"
#define KBX_SERVE_MODULE_FILE "kbx-serve.so"

struct kbx_serve_request {
	const char *method;          /* "GET", "POST", ... */
	const char *path;            /* the URL's path, %-decoded */
	const char *host;            /* the Host header, or NULL */
	const char *authorization;   /* the Authorization header, or NULL */
	const char *content_type;    /* the Content-Type header, or NULL */
	/* the query string's arguments, %-decoded: name, value, name,
	 * value, ..., NULL (a value may be NULL: "?a") */
	const char *const *query;
	const char *body;            /* the body, NUL-terminated, or NULL */
	size_t body_len;
	int too_large;               /* the body was over max_body: dropped */
};

struct kbx_serve_response {
	unsigned status;             /* 200, 404, ... */
	const char *content_type;
	char *body;                  /* malloc()ed, freed by the module */
	size_t len;
	const char *allow;           /* an Allow header (405), or NULL */
	const char *authenticate;    /* a WWW-Authenticate header (401), or NULL */
	const char *cache_control;   /* or NULL: "no-store" */
};

/* Called on one of the module's threads for each request, at once by
 * several threads; it fills res (status 0: 500). */
typedef void (*kbx_serve_handler_fn)(void *data, const struct kbx_serve_request *req,
				     struct kbx_serve_response *res);

struct kbx_serve_config {
	const struct sockaddr *addr; /* where to listen (IPv4 or IPv6) */
	socklen_t addrlen;
	unsigned threads;            /* the pool of threads serving requests */
	size_t max_body;             /* a longer body is refused: too_large */
	unsigned timeout_s;          /* a connection silent this long is closed */
	/* a request not read whole this long after its connection opened
	 * or its previous answer was sent is closed, however it trickles */
	unsigned request_timeout_s;
	unsigned max_connections;    /* at once; more wait in the backlog */
	kbx_serve_handler_fn handler;
	void *data;
};

struct kbx_server;

struct kbx_serve_ops {
	uint32_t abi;           /* KBX_SERVE_ABI */
	uint32_t size;          /* sizeof(struct kbx_serve_ops) of the module */
	/* Listen and serve on the module's threads: 0 with *out and the
	 * port listened on (the one the system chose for port 0) in *port,
	 * or -1 with a message in err. */
	int (*start)(const struct kbx_serve_config *cfg, struct kbx_server **out,
		     unsigned *port, char *err, size_t errsz);
	/* Stop listening, finish the requests running, free s. */
	void (*stop)(struct kbx_server *s);
};

typedef const struct kbx_serve_ops *(*kbx_serve_module_fn)(uint32_t abi);

#endif
