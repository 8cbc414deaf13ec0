/*
 * kbx's PostgreSQL module (cmd/pg-module.h): libpq behind a table of
 * operations, so that kbx itself links no libpq.  Nothing of libkbx is
 * in here, and nothing is printed: every failure is a status and a
 * message for the caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "pg-module.h"

/* Copy libpq's message, without its last newline, into err. */
static void set_err(char *err, size_t errsz, const char *msg)
{
	if (!errsz)
		return;
	snprintf(err, errsz, "%s", msg && *msg ? msg : "unknown error");
	size_t n = strlen(err);
	while (n && (err[n - 1] == '\n' || err[n - 1] == ' '))
		err[--n] = '\0';
}

static void drop_notice(void *data, const char *message)
{
	(void)data;
	(void)message;
}

static int pg_connect(const char *conninfo, struct kbx_pg **out, char *err, size_t errsz)
{
	/* The user's string may set connect_timeout (it comes after ours);
	 * it may not change the encoding the rows are sent in. */
	const char *const keys[] = { "connect_timeout", "fallback_application_name", "dbname",
				     "client_encoding", NULL };
	const char *const values[] = { "10", "kbx", conninfo, "UTF8", NULL };
	PGconn *c = PQconnectdbParams(keys, values, 1);
	*out = NULL;
	if (!c) {
		set_err(err, errsz, "out of memory");
		return KBX_PG_ERROR;
	}
	if (PQstatus(c) != CONNECTION_OK) {
		const char *msg = PQerrorMessage(c);
		int st;
		set_err(err, errsz, msg);
		if (PQconnectionNeedsPassword(c) || PQconnectionUsedPassword(c) ||
		    strstr(msg, "authentication"))
			st = KBX_PG_AUTH;
		else if (strstr(msg, "FATAL"))
			st = KBX_PG_ERROR;  /* the server answered: no such database, ... */
		else
			st = KBX_PG_UNREACHABLE;
		PQfinish(c);
		return st;
	}
	PQsetNoticeProcessor(c, drop_notice, NULL);
	*out = (struct kbx_pg *)c;
	return KBX_PG_OK;
}

static void pg_finish(struct kbx_pg *c)
{
	if (c)
		PQfinish((PGconn *)c);
}

/* The status for a failed call on c, with its message in err. */
static int failure(PGconn *c, const PGresult *r, char *err, size_t errsz)
{
	const char *msg = r ? PQresultErrorMessage(r) : "";
	set_err(err, errsz, *msg ? msg : PQerrorMessage(c));
	if (PQstatus(c) != CONNECTION_OK)
		return KBX_PG_UNREACHABLE;
	const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	if (state && !strncmp(state, "28", 2))
		return KBX_PG_AUTH;
	return KBX_PG_ERROR;
}

static int exec_as(struct kbx_pg *conn, const char *sql, int nparams, const char *const *params,
		   int format, struct kbx_pg_result **res, char *err, size_t errsz)
{
	PGconn *c = (PGconn *)conn;
	PGresult *r = PQexecParams(c, sql, nparams, NULL, params, NULL, NULL, format);
	ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		int rc = failure(c, r, err, errsz);
		PQclear(r);
		return rc;
	}
	if (res)
		*res = (struct kbx_pg_result *)r;
	else
		PQclear(r);
	return KBX_PG_OK;
}

static int pg_exec(struct kbx_pg *conn, const char *sql, int nparams, const char *const *params,
		   struct kbx_pg_result **res, char *err, size_t errsz)
{
	return exec_as(conn, sql, nparams, params, 0, res, err, errsz);
}

static int pg_exec_binary(struct kbx_pg *conn, const char *sql, int nparams,
			  const char *const *params, struct kbx_pg_result **res, char *err,
			  size_t errsz)
{
	return exec_as(conn, sql, nparams, params, 1, res, err, errsz);
}

static size_t pg_length(const struct kbx_pg_result *r, size_t row, int col)
{
	int n = PQgetlength((const PGresult *)r, (int)row, col);
	return n > 0 ? (size_t)n : 0;
}

static size_t pg_nrows(const struct kbx_pg_result *r)
{
	int n = PQntuples((const PGresult *)r);
	return n > 0 ? (size_t)n : 0;
}

static const char *pg_value(const struct kbx_pg_result *res, size_t row, int col)
{
	const PGresult *r = (const PGresult *)res;
	if (PQgetisnull(r, (int)row, col))
		return NULL;
	return PQgetvalue(r, (int)row, col);
}

static void pg_clear(struct kbx_pg_result *r)
{
	PQclear((PGresult *)r);
}

static int pg_copy_begin(struct kbx_pg *conn, const char *sql, char *err, size_t errsz)
{
	PGconn *c = (PGconn *)conn;
	PGresult *r = PQexec(c, sql);
	if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
		int rc = failure(c, r, err, errsz);
		PQclear(r);
		return rc;
	}
	PQclear(r);
	return KBX_PG_OK;
}

static int pg_copy_put(struct kbx_pg *conn, const char *buf, size_t len, char *err, size_t errsz)
{
	PGconn *c = (PGconn *)conn;
	/* PQputCopyData takes an int: feed it pieces of at most 1 MiB */
	while (len) {
		int n = len > (1u << 20) ? 1 << 20 : (int)len;
		if (PQputCopyData(c, buf, n) != 1)
			return failure(c, NULL, err, errsz);
		buf += n;
		len -= (size_t)n;
	}
	return KBX_PG_OK;
}

static int pg_copy_end(struct kbx_pg *conn, char *err, size_t errsz)
{
	PGconn *c = (PGconn *)conn;
	if (PQputCopyEnd(c, NULL) != 1)
		return failure(c, NULL, err, errsz);
	int rc = KBX_PG_OK;
	PGresult *r;
	while ((r = PQgetResult(c))) {
		if (rc == KBX_PG_OK && PQresultStatus(r) != PGRES_COMMAND_OK)
			rc = failure(c, r, err, errsz);
		PQclear(r);
	}
	return rc;
}

static const struct kbx_pg_ops ops = {
	KBX_PG_ABI, sizeof(struct kbx_pg_ops),
	pg_connect, pg_finish, pg_exec, pg_nrows, pg_value, pg_clear,
	pg_copy_begin, pg_copy_put, pg_copy_end, pg_exec_binary, pg_length
};

const struct kbx_pg_ops *kbx_pg_module(uint32_t abi);
const struct kbx_pg_ops *kbx_pg_module(uint32_t abi)
{
	return abi == KBX_PG_ABI ? &ops : NULL;
}
