/* The connection to PostgreSQL that kbx push and kbx --db share
 * (pg-client.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "pg-client.h"
#include "util/config.h"
#include "util/modload.h"
#include "util/repos.h"

/* Exit codes of the database's failures (builtin.h). */
static int exit_for_pg(int st)
{
	switch (st) {
	case KBX_PG_UNREACHABLE: return KBX_EXIT_DB_UNREACHABLE;
	case KBX_PG_AUTH: return KBX_EXIT_DB_AUTH;
	default: return KBX_EXIT_DB_ERROR;
	}
}
/* ---- the URL, with its password masked ---- */

/* url with the password of a postgresql:// URL's user info, and the
 * value of every password= (a key of the key=value form or of the
 * URL's query), replaced by "***". */
static void mask_url(const char *url, struct strbuf *out)
{
	const char *p = url;
	const char *scheme = strstr(url, "://");
	if (scheme && (!strncmp(url, "postgresql://", 13) || !strncmp(url, "postgres://", 11))) {
		const char *auth = scheme + 3;
		size_t alen = strcspn(auth, "/?");
		const char *at = memchr(auth, '@', alen);
		if (at) {
			/* the last '@' of the authority ends the user info */
			for (const char *q = at; q < auth + alen; q++)
				if (*q == '@')
					at = q;
			const char *colon = memchr(auth, ':', (size_t)(at - auth));
			if (colon) {
				strbuf_add(out, url, (size_t)(colon + 1 - url));
				strbuf_addstr(out, "***");
				p = at;
			}
		}
	}
	while (*p) {
		const char *k = strstr(p, "password=");
		if (!k || (k > url && !strchr(" ?&\t", k[-1]))) {
			if (!k) {
				strbuf_addstr(out, p);
				break;
			}
			strbuf_add(out, p, (size_t)(k + 9 - p));
			p = k + 9;
			continue;
		}
		strbuf_add(out, p, (size_t)(k + 9 - p));
		strbuf_addstr(out, "***");
		p = k + 9;
		if (*p == '\'') {
			for (p++; *p && *p != '\''; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
		} else {
			p += strcspn(p, " &\t");
		}
	}
}


/* Print what failed and return the exit code for st. */
int pg_db_fail(struct pg_db *db, int st, const char *what)
{
	/* the server's message has lines of its own (DETAIL:, HINT:) */
	const char *p = db->err;
	size_t n = strcspn(p, "\n");
	fprintf(stderr, "error: %s: %s\n", out_esc(what), out_escn(p, n));
	for (p += n; *p; p += n) {
		p++;
		n = strcspn(p, "\n");
		fprintf(stderr, "  %s\n", out_escn(p, n));
	}
	if (st == KBX_PG_UNREACHABLE)
		fprintf(stderr, "hint: is the server at '%s' running?\n", out_esc(db->masked));
	else if (st == KBX_PG_AUTH)
		fprintf(stderr, "hint: check the user and password of '%s' (or ~/.pgpass, PGPASSWORD)\n",
			out_esc(db->masked));
	return exit_for_pg(st);
}

int pg_db_exec(struct pg_db *db, const char *sql, int n, const char *const *params,
		   struct kbx_pg_result **res, const char *what)
{
	int st = db->ops->exec(db->conn, sql, n, params, res, db->err, sizeof(db->err));
	return st ? pg_db_fail(db, st, what) : 0;
}

int pg_db_copy(struct pg_db *db, const char *sql, const struct strbuf *rows, const char *what)
{
	int st = db->ops->copy_begin(db->conn, sql, db->err, sizeof(db->err));
	if (!st && rows->len)
		st = db->ops->copy_put(db->conn, rows->buf, rows->len, db->err, sizeof(db->err));
	if (!st)
		st = db->ops->copy_end(db->conn, db->err, sizeof(db->err));
	return st ? pg_db_fail(db, st, what) : 0;
}
/* The database URL: --db, KBX_DATABASE_URL, the push.database setting
 * (the user's or kbx -c: a repository's is refused). */
const char *pg_database_url(struct kbx_ctx *ctx, const char *opt)
{
	if (opt && *opt)
		return opt;
	const char *env = getenv("KBX_DATABASE_URL");
	if (env && *env)
		return env;
	struct kbx_config_value v;
	if (ctx->config && kbx_config_get(ctx->config, "push.database", &v, NULL) == KBX_OK &&
	    *v.text)
		return v.text;
	return NULL;
}

int pg_db_open(struct pg_db *db, const char *url)
{
	void *sym;
	char path[PATH_MAX], err[512];
	memset(db, 0, sizeof(*db));
	strbuf_init(&db->masked_buf);
	db->masked = "";
	if (_kbx_module_open("PostgreSQL module", "KBX_PG_MODULE_PATH", KBX_PG_MODULE_FILE,
			     KBX_PG_MODULE_SYMBOL, &sym, path, sizeof(path), err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		return KBX_EXIT_IO;
	}
	kbx_pg_module_fn entry;
	memcpy(&entry, &sym, sizeof(entry));
	db->ops = entry(KBX_PG_ABI);
	if (!db->ops || db->ops->abi != KBX_PG_ABI || db->ops->size < sizeof(*db->ops)) {
		fprintf(stderr, "error: the PostgreSQL module '%s' does not speak ABI %d of this kbx; "
			"install the module built with this kbx\n", out_esc(path), KBX_PG_ABI);
		db->ops = NULL;
		return KBX_EXIT_IO;
	}
	mask_url(url, &db->masked_buf);
	db->masked = db->masked_buf.buf ? db->masked_buf.buf : "";
	int st = db->ops->connect(url, &db->conn, db->err, sizeof(db->err));
	if (st) {
		char what[600];
		snprintf(what, sizeof(what), "cannot connect to '%s'", db->masked);
		return pg_db_fail(db, st, what);
	}
	return 0;
}

void pg_db_close(struct pg_db *db)
{
	if (db->ops && db->conn)
		db->ops->finish(db->conn);
	db->conn = NULL;
	strbuf_release(&db->masked_buf);
	db->masked = "";
}

/* The repository's name: --name, its name in 'kbx repos', else the last
 * component of its root. */
char *push_repository_name(struct kbx_ctx *ctx, const char *opt)
{
	if (opt)
		return strdup(opt);
	struct kbx_repo_list l = { 0 };
	struct kbx_error err = KBX_ERROR_INIT;
	char *name = NULL;
	if (kbx_repos_read(&l, &err) == KBX_OK) {
		const struct kbx_repo *r = kbx_repo_list_find_dir(&l, ctx->kbx_dir);
		if (r)
			name = strdup(r->name);
	}
	kbx_repo_list_release(&l);
	if (!name) {
		const char *root = kbx_store_root(ctx->store);
		const char *slash = strrchr(root, '/');
		name = strdup(slash && slash[1] ? slash + 1 : root);
	}
	return name;
}

/* The length of the UTF-8 sequence at p (avail bytes there), or 0 for
 * a byte that starts none, or a NUL. */
static size_t utf8_len(const unsigned char *p, size_t avail)
{
	unsigned c = *p;
	size_t n = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3
		: (c & 0xf8) == 0xf0 ? 4 : 0;
	int ok = n && avail >= n && c;
	for (size_t i = 1; ok && i < n; i++)
		ok = (p[i] & 0xc0) == 0x80;
	if (ok && n == 2 && c < 0xc2)
		ok = 0;   /* overlong */
	if (ok && n == 3) {
		unsigned cp = (c & 0x0f) << 12 | (p[1] & 0x3f) << 6 | (p[2] & 0x3f);
		ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
	}
	if (ok && n == 4) {
		unsigned cp = (c & 0x07) << 18 | (p[1] & 0x3f) << 12 | (p[2] & 0x3f) << 6 |
			      (p[3] & 0x3f);
		ok = cp >= 0x10000 && cp <= 0x10ffff;
	}
	return ok ? n : 0;
}

void pg_text_add(struct strbuf *sb, const char *s, size_t len, int copy)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		size_t n = utf8_len(p, (size_t)(end - p));
		if (!n) {
			strbuf_addstr(sb, "\xef\xbf\xbd");
			p++;
			continue;
		}
		if (n == 1 && copy) {
			switch (*p) {
			case '\\': strbuf_addstr(sb, "\\\\"); break;
			case '\t': strbuf_addstr(sb, "\\t"); break;
			case '\n': strbuf_addstr(sb, "\\n"); break;
			case '\r': strbuf_addstr(sb, "\\r"); break;
			default: strbuf_addch(sb, (int)*p);
			}
		} else {
			if (n == 1 && (*p == '"' || *p == '\\'))
				strbuf_addch(sb, '\\');
			strbuf_add(sb, p, n);
		}
		p += n;
	}
}

void pg_array_add(struct strbuf *sb, const char *s, size_t len)
{
	strbuf_addstr(sb, sb->len ? ",\"" : "{\"");
	pg_text_add(sb, s, len, 0);
	strbuf_addch(sb, '"');
}

void pg_array_end(struct strbuf *sb)
{
	strbuf_addstr(sb, sb->len ? "}" : "{}");
}
