/*
 * What the commands that talk to PostgreSQL share (kbx push, and the
 * queries run with kbx --db): the URL and where it comes from, loading
 * the module of pg-module.h and connecting, and running statements
 * with their failures printed and turned into exit codes.
 */
#ifndef KBX_PG_CLIENT_H
#define KBX_PG_CLIENT_H

#include "builtin.h"
#include "pg-module.h"
#include "util/strbuf.h"

/* The version of the tables kbx push writes (kbx.meta's schema), raised
 * when they change in a way an older kbx cannot write or a query of
 * this one cannot read. */
#define KBX_PG_SCHEMA "5"

struct pg_db {
	const struct kbx_pg_ops *ops;
	struct kbx_pg *conn;
	const char *masked;      /* the URL to name in messages */
	struct strbuf masked_buf;
	char err[1024];
};

/* The database URL: opt when not empty, else KBX_DATABASE_URL, else
 * the push.database setting (the user's or kbx -c: a repository's is
 * refused), else NULL. */
const char *pg_database_url(struct kbx_ctx *ctx, const char *opt);

/* The repository's name in the database: opt, else its name in 'kbx
 * repos', else the last component of its root (ctx->store open).
 * malloc()ed; NULL when out of memory. */
char *push_repository_name(struct kbx_ctx *ctx, const char *opt);

/* Load the module and connect to url.  Returns 0, or an exit code after
 * printing the error (6 for a module that is missing or of another ABI,
 * 12-14 for the server's answers).  Close with pg_db_close whatever it
 * returned. */
int pg_db_open(struct pg_db *db, const char *url);
void pg_db_close(struct pg_db *db);

/* Print "error: WHAT: the server's message" and a hint for st, and
 * return the exit code for st. */
int pg_db_fail(struct pg_db *db, int st, const char *what);
/* Run sql with n text parameters (never interpolated); *res as the
 * module's exec.  Returns 0 or the exit code after printing the error. */
int pg_db_exec(struct pg_db *db, const char *sql, int n, const char *const *params,
	       struct kbx_pg_result **res, const char *what);
/* s[0..len) as text for the server, UTF-8 (a byte that is not, or a
 * NUL, which text cannot hold, becomes U+FFFD): escaped for COPY's text
 * format (\\, tab, newline, CR) when copy, else for an element of an
 * array literal between its quotes (" and \\). */
void pg_text_add(struct strbuf *sb, const char *s, size_t len, int copy);

/* A text[] literal, {"a","b"}, built an element at a time: s[0..len)
 * quoted and added as pg_text_add has it (the first opens the brace),
 * then the end (an empty one is {}). */
void pg_array_add(struct strbuf *sb, const char *s, size_t len);
void pg_array_end(struct strbuf *sb);

/* COPY ... FROM STDIN of rows (COPY's text format). */
int pg_db_copy(struct pg_db *db, const char *sql, const struct strbuf *rows, const char *what);

#endif
