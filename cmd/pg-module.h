/*
 * The interface between the commands that talk to PostgreSQL (kbx push,
 * in kbx) and the module that holds libpq (cmd/pg-module/,
 * build/kbx-pg.so): libpq and the TLS, Kerberos and LDAP libraries
 * Debian builds it with are loaded only by the commands that need them.
 *
 * The module speaks the protocol only: it connects, runs one statement
 * with text parameters and hands back the rows as text, and streams
 * COPY data; it knows no table of kbx.  It exports one function,
 * kbx_pg_module(abi), which returns its table of operations when it
 * speaks that ABI and NULL otherwise.  Any change to the structures
 * below or to their meaning raises KBX_PG_ABI.
 */
#ifndef KBX_PG_MODULE_H
#define KBX_PG_MODULE_H

#include <stddef.h>
#include <stdint.h>

#define KBX_PG_ABI 2
#define KBX_PG_MODULE_SYMBOL "kbx_pg_module"
#define KBX_PG_MODULE_FILE "kbx-pg.so"

/* What a call of the module came to. */
enum kbx_pg_status {
	KBX_PG_OK = 0,
	KBX_PG_UNREACHABLE,  /* no server answers there, or the connection broke */
	KBX_PG_AUTH,         /* the server refused the credentials */
	KBX_PG_ERROR         /* the server refused the statement (err says why) */
};

struct kbx_pg;           /* a connection */
struct kbx_pg_result;    /* the rows of a statement */

struct kbx_pg_ops {
	uint32_t abi;           /* KBX_PG_ABI */
	uint32_t size;          /* sizeof(struct kbx_pg_ops) of the module */
	/* Connect with a libpq connection string or URL, in UTF-8, with
	 * the server's notices dropped: KBX_PG_OK with *out, or a status
	 * with the server's or libpq's message in err. */
	int (*connect)(const char *conninfo, struct kbx_pg **out, char *err, size_t errsz);
	void (*finish)(struct kbx_pg *c);
	/* Run one statement with nparams text parameters ($1...; NULL is
	 * SQL NULL).  With res, the rows are returned there (free with
	 * clear); without, they are dropped. */
	int (*exec)(struct kbx_pg *c, const char *sql, int nparams, const char *const *params,
		    struct kbx_pg_result **res, char *err, size_t errsz);
	size_t (*nrows)(const struct kbx_pg_result *r);
	/* The value of row, column col as text, or NULL for SQL NULL. */
	const char *(*value)(const struct kbx_pg_result *r, size_t row, int col);
	void (*clear)(struct kbx_pg_result *r);
	/* COPY ... FROM STDIN: begin with the statement, put the data (text
	 * format) in pieces of any size, end; end reports the server's
	 * verdict on the whole of it. */
	int (*copy_begin)(struct kbx_pg *c, const char *sql, char *err, size_t errsz);
	int (*copy_put)(struct kbx_pg *c, const char *buf, size_t len, char *err, size_t errsz);
	int (*copy_end)(struct kbx_pg *c, char *err, size_t errsz);
	/* As exec, the rows in PostgreSQL's binary format (bytea as its
	 * bytes, integers big-endian): value points at length bytes. */
	int (*exec_binary)(struct kbx_pg *c, const char *sql, int nparams,
			   const char *const *params, struct kbx_pg_result **res, char *err,
			   size_t errsz);
	/* The length in bytes of the value of row, column col. */
	size_t (*length)(const struct kbx_pg_result *r, size_t row, int col);
};

typedef const struct kbx_pg_ops *(*kbx_pg_module_fn)(uint32_t abi);

#endif
