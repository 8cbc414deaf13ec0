#define _GNU_SOURCE /* memrchr */
/* kbx --db: the graph queries over the database (db-graph.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-graph.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "pg-client.h"
#include "repos-util.h"
#include "util/strbuf.h"

struct db_repo {
	char id[16];
	char *name;
};

struct db_graph {
	struct pg_db db;
	struct db_repo *repos;     /* the repositories asked, by name */
	size_t nrepos, arepos;
	int all;
	struct strbuf repo_ids;    /* {1,2,...}: $n::int[] */
	/* the rows the nodes handed out point into, cleared at the end */
	struct kbx_pg_result **results;
	size_t nresults, aresults;
	struct kbx_site **sites;   /* the sites handed out */
	size_t nsites, asites;
	/* the last lookup's matches, with their repositories and links */
	struct row_node *matches;
	size_t nmatch, amatch;
	struct db_search_cache *search;  /* db-search.c's, freed at the end */
	/* what db_graph_focus set aside */
	struct {
		struct db_repo *repos;
		size_t nrepos;
		int all;
		struct strbuf repo_ids;
		int depth;       /* focused within a focus: on the same one */
	} saved;
};

int db_graph_all(const struct db_graph *g)
{
	return g->all;
}

size_t db_graph_nrepos(const struct db_graph *g)
{
	return g->nrepos;
}

const char *db_graph_repo_name(const struct db_graph *g, size_t i)
{
	return g->repos[i].name;
}

const char *db_graph_repo_id(const struct db_graph *g, size_t i)
{
	return g->repos[i].id;
}

const struct kbx_pg_ops *db_graph_ops(const struct db_graph *g)
{
	return g->db.ops;
}

static int nomem(void)
{
	fprintf(stderr, "fatal: out of memory\n");
	return KBX_EXIT_INTERNAL;
}

/* Run sql and keep its rows until the end. */
static int query(struct db_graph *g, const char *sql, int n, const char *const *params,
		 struct kbx_pg_result **res, const char *what)
{
	int rc = pg_db_exec(&g->db, sql, n, params, res, what);
	if (rc)
		return rc;
	if (_kbx_grow((void **)&g->results, &g->aresults, g->nresults, sizeof(*g->results), 16)) {
		g->db.ops->clear(*res);
		return nomem();
	}
	g->results[g->nresults++] = *res;
	return 0;
}

int db_graph_query(struct db_graph *g, const char *sql, int n, const char *const *params,
		   struct kbx_pg_result **res, const char *what)
{
	return query(g, sql, n, params, res, what);
}

int db_graph_query_once(struct db_graph *g, const char *sql, int n, const char *const *params,
			int binary, struct kbx_pg_result **res, const char *what)
{
	int st = (binary ? g->db.ops->exec_binary : g->db.ops->exec)(g->db.conn, sql, n, params, res,
								     g->db.err, sizeof(g->db.err));
	return st ? pg_db_fail(&g->db, st, what) : 0;
}

size_t db_graph_base_index(const struct db_graph *g, size_t i)
{
	return g->saved.depth ? (size_t)(g->repos - g->saved.repos) : i;
}

size_t db_graph_base_nrepos(const struct db_graph *g)
{
	return g->saved.depth ? g->saved.nrepos : g->nrepos;
}

const char *db_graph_base_repo_id(const struct db_graph *g, size_t i)
{
	return (g->saved.depth ? g->saved.repos : g->repos)[i].id;
}

struct db_search_cache **db_graph_search_cache(struct db_graph *g)
{
	return &g->search;
}

int db_graph_schema(struct db_graph *g, const char *cmd)
{
	struct kbx_pg_result *r = NULL;
	int rc = query(g, "SELECT value FROM kbx.meta WHERE key = 'schema'", 0, NULL, &r,
		       "cannot read the schema's version");
	if (rc)
		return rc;
	const char *v = g->db.ops->nrows(r) ? g->db.ops->value(r, 0, 0) : NULL;
	if (v && !strcmp(v, KBX_PG_SCHEMA))
		return 0;
	fprintf(stderr, "error: the database '%s' holds kbx tables of schema %s; kbx --db %s needs schema %s\n"
		"hint: have them dropped (DROP SCHEMA kbx CASCADE) and 'kbx push' every repository again with this kbx\n",
		out_esc(g->db.masked), v ? out_esc(v) : "(none)", cmd, KBX_PG_SCHEMA);
	return KBX_EXIT_DB_ERROR;
}

static const struct db_repo *repo_by_id(const struct db_graph *g, const char *id)
{
	for (size_t i = 0; id && i < g->nrepos; i++)
		if (!strcmp(g->repos[i].id, id))
			return &g->repos[i];
	return NULL;
}

/* ---- a node from a row ---- */

/* The columns of a node, in the order node_of_row reads them. */
#define NODE_COLS "n.id, n.kind, n.lang, n.cid, n.name, n.qual, n.path, n.line, n.col, " \
		  "n.end_line, n.parent, n.flags, n.repo, n.link"
#define NODE_NCOLS 14

static int kind_of(const char *s)
{
	return s ? _kbx_kind_from_name(s) : KBX_KIND_NONE;
}

static int lang_of(const char *s)
{
	return s ? _kbx_lang_id(_kbx_lang_by_name(s)) : 0;
}

static int confidence_of(const char *s)
{
	for (int c = KBX_CONF_CERTAIN; s && c <= KBX_CONF_UNRESOLVED; c++)
		if (!strcmp(kbx_confidence_str(c), s))
			return c;
	return 0;
}

static int via_of(const char *s)
{
	for (int v = 1; s && v <= KBX_VIA_PACKAGE; v++)
		if (!strcmp(kbx_via_str(v), s))
			return v;
	return KBX_VIA_NONE;
}

static uint32_t num(const char *s)
{
	return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

struct row_node {
	struct kbx_node n;
	const struct db_repo *repo;
	const char *link;
};

static void node_of_row(const struct db_graph *g, const struct kbx_pg_result *r, size_t row,
			int col, struct row_node *out)
{
	const struct kbx_pg_ops *ops = g->db.ops;
	struct kbx_node *n = &out->n;
	memset(n, 0, sizeof(*n));
	n->id = num(ops->value(r, row, col));
	n->kind = kind_of(ops->value(r, row, col + 1));
	n->lang = lang_of(ops->value(r, row, col + 2));
	n->cid = ops->value(r, row, col + 3);
	n->name = ops->value(r, row, col + 4);
	n->qual = ops->value(r, row, col + 5);
	if (!n->qual)
		n->qual = n->kind == KBX_KIND_FILE ? n->cid : "";
	n->path = ops->value(r, row, col + 6);
	n->path_len = n->path ? strlen(n->path) : 0;
	n->line = num(ops->value(r, row, col + 7));
	n->col = num(ops->value(r, row, col + 8));
	n->end_line = num(ops->value(r, row, col + 9));
	n->parent = num(ops->value(r, row, col + 10));
	n->flags = num(ops->value(r, row, col + 11));
	out->repo = repo_by_id(g, ops->value(r, row, col + 12));
	out->link = ops->value(r, row, col + 13);
}

/* ---- opening ---- */

/* The name kbx push gives the repository here, or NULL. */
static char *local_repo_name(struct kbx_ctx *ctx)
{
	if (setup_store(ctx, RUN_NEEDS_INDEX, 0))
		return NULL;
	return push_repository_name(ctx, NULL);
}

static int add_repo(struct db_graph *g, const char *id, const char *name)
{
	if (_kbx_grow((void **)&g->repos, &g->arepos, g->nrepos, sizeof(*g->repos), 1))
		return nomem();
	struct db_repo *r = &g->repos[g->nrepos];
	snprintf(r->id, sizeof(r->id), "%s", id);
	if (!(r->name = strdup(name)))
		return nomem();
	strbuf_addstr(&g->repo_ids, g->nrepos ? "," : "{");
	strbuf_addstr(&g->repo_ids, id);
	g->nrepos++;
	return 0;
}

int db_graph_open(struct kbx_ctx *ctx, int argc, const char **argv)
{
	struct db_graph *g = calloc(1, sizeof(*g));
	if (!g)
		return nomem();
	ctx->db = g;
	strbuf_init(&g->repo_ids);
	const char *repo = NULL;
	int rc = repo_scan_args(argc, argv, ctx->repo_opt, &repo, &g->all);
	if (rc)
		return rc;
	char *here = NULL;
	if (!repo && !g->all) {
		here = local_repo_name(ctx);
		if (!here) {
			fprintf(stderr, "hint: with --db, name the repository with --repo=NAME, or ask every one with --all-repos\n");
			return KBX_EXIT_USAGE;
		}
		repo = here;
	}
	rc = pg_db_open(&g->db, ctx->db_url);
	struct kbx_pg_result *r = NULL;
	const char *params[] = { repo };
	if (!rc)
		rc = query(g, g->all ? "SELECT id, name FROM kbx.repos ORDER BY name COLLATE \"C\""
				     : "SELECT id, name FROM kbx.repos WHERE name = $1",
			   g->all ? 0 : 1, params, &r, "cannot read the repositories");
	for (size_t i = 0; !rc && i < g->db.ops->nrows(r); i++)
		rc = add_repo(g, g->db.ops->value(r, i, 0), g->db.ops->value(r, i, 1));
	if (!rc)
		strbuf_addstr(&g->repo_ids, g->nrepos ? "}" : "{}");
	if (!rc && !g->nrepos) {
		if (g->all)
			fprintf(stderr, "error: the database '%s' holds no repository\n"
				"hint: 'kbx push --db=URL' in a repository publishes it\n",
				out_esc(g->db.masked));
		else
			fprintf(stderr, "error: the database '%s' holds no repository '%s'\n"
				"hint: 'kbx --db=URL repos' lists those it holds; 'kbx push' publishes this one\n",
				out_esc(g->db.masked), out_esc(repo));
		rc = KBX_EXIT_NO_INDEX;
	}
	if (!rc && g->repo_ids.failed)
		rc = nomem();
	free(here);
	return rc;
}

void db_graph_close(struct kbx_ctx *ctx)
{
	struct db_graph *g = ctx->db;
	if (!g)
		return;
	db_search_cache_free(g->search);
	for (size_t i = 0; i < g->nresults; i++)
		g->db.ops->clear(g->results[i]);
	free(g->results);
	for (size_t i = 0; i < g->nsites; i++)
		free(g->sites[i]);
	free(g->sites);
	for (size_t i = 0; i < g->nrepos; i++)
		free(g->repos[i].name);
	free(g->repos);
	free(g->matches);
	strbuf_release(&g->repo_ids);
	pg_db_close(&g->db);
	free(g);
	ctx->db = NULL;
}

/* ---- looking a symbol up ---- */

struct found {
	struct row_node *items;
	size_t n, alloc;
};

static int found_rows(struct db_graph *g, struct kbx_pg_result *r, struct found *f)
{
	size_t n = g->db.ops->nrows(r);
	for (size_t i = 0; i < n; i++) {
		if (_kbx_grow((void **)&f->items, &f->alloc, f->n, sizeof(*f->items), 16))
			return nomem();
		node_of_row(g, r, i, 0, &f->items[f->n++]);
	}
	return 0;
}

static int repo_found(const struct found *f, const struct db_repo *repo)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->items[i].repo == repo)
			return 1;
	return 0;
}

/* "pkg.core" of "pkg.core.load" as a path: n's path, without its
 * extension (and /__init__), ends in it at a '/' (kbx_lookup's rule). */
static int module_qualified(const struct kbx_node *n, const char *qs, size_t ml)
{
	size_t pl = n->path_len;
	const char *dot = memrchr(n->path, '.', pl);
	const char *slash = memrchr(n->path, '/', pl);
	if (dot && (!slash || dot > slash))
		pl = (size_t)(dot - n->path);
	if (pl >= 9 && !memcmp(n->path + pl - 9, "/__init__", 9))
		pl -= 9;
	if (pl < ml || (pl > ml && n->path[pl - ml - 1] != '/'))
		return 0;
	for (size_t i = 0; i < ml; i++)
		if (n->path[pl - ml + i] != (qs[i] == '.' ? '/' : qs[i]))
			return 0;
	return 1;
}

static int by_repo_cid(const void *a, const void *b)
{
	const struct row_node *x = a, *y = b;
	int c = strcmp(x->repo ? x->repo->name : "", y->repo ? y->repo->name : "");
	return c ? c : strcmp(x->n.cid, y->n.cid);
}

/* The steps of kbx_lookup, each asked of every repository at once. */
static int lookup_rows(struct db_graph *g, const char *symbol, struct found *f)
{
	struct kbx_pg_result *r;
	const char *ids = g->repo_ids.buf;
	while (symbol[0] == '.' && symbol[1] == '/')
		symbol += 2;
	const char *p1[] = { ids, symbol };
	int rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = ANY($1::int[]) "
		       "AND n.cid = $2 AND n.kind <> 'name'", 2, p1, &r, "cannot look the symbol up");
	if (!rc)
		rc = found_rows(g, r, f);
	if (rc || f->n)
		return rc;
	if (!strncmp(symbol, "extern:", 7) && !strchr(symbol, '#')) {
		/* extern:a.b is extern:a::b, and the other way round */
		struct strbuf alt = STRBUF_INIT;
		int colons = strstr(symbol + 7, "::") != NULL;
		strbuf_addstr(&alt, "extern:");
		for (const char *p = symbol + 7; *p; p++) {
			if (colons && p[0] == ':' && p[1] == ':')
				strbuf_addch(&alt, '.'), p++;
			else if (!colons && *p == '.')
				strbuf_addstr(&alt, "::");
			else
				strbuf_addch(&alt, *p);
		}
		const char *p2[] = { ids, strbuf_str(&alt) };
		rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = ANY($1::int[]) "
			   "AND n.cid = $2", 2, p2, &r, "cannot look the symbol up");
		strbuf_release(&alt);
		if (!rc)
			rc = found_rows(g, r, f);
		if (rc || f->n)
			return rc;
	}
	if (strchr(symbol, '#'))
		return 0;
	struct strbuf q = STRBUF_INIT;
	for (const char *p = symbol; *p; p++) {
		if ((p[0] == ':' && p[1] == ':') || (p[0] == '-' && p[1] == '>'))
			strbuf_addch(&q, '.'), p++;
		else
			strbuf_addch(&q, *p);
	}
	const char *qs = strbuf_str(&q);
	if (!q.len || qs[0] == '.' || qs[q.len - 1] == '.' || strstr(qs, "..")) {
		fprintf(stderr, "error: cannot parse symbol '%s': an empty name between separators\n",
			out_esc(symbol));
		strbuf_release(&q);
		return KBX_EXIT_USAGE;
	}
	const char *p3[] = { ids, qs };
	rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = ANY($1::int[]) "
		   "AND n.name = $2 AND n.kind <> 'name'", 2, p3, &r, "cannot look the symbol up");
	if (!rc)
		rc = found_rows(g, r, f);
	const char *last = strrchr(qs, '.');
	if (!rc && last) {
		last++;
		size_t before = f->n;
		const char *p4[] = { ids, last, qs };
		rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = ANY($1::int[]) "
			   "AND n.name = $2 AND n.kind <> 'name' AND (replace(n.qual, '::', '.') = $3 "
			   "OR right(replace(n.qual, '::', '.'), length($3) + 1) = '.' || $3)",
			   3, p4, &r, "cannot look the symbol up");
		if (!rc)
			rc = found_rows(g, r, f);
		/* a top-level definition of a file whose path ends in the
		 * qualifier, in the repositories that gave nothing yet */
		struct found mq = { 0 };
		if (!rc)
			rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = ANY($1::int[]) "
				   "AND n.name = $2 AND n.qual = $2 AND n.path IS NOT NULL",
				   2, p4, &r, "cannot look the symbol up");
		if (!rc)
			rc = found_rows(g, r, &mq);
		size_t upto = f->n;
		for (size_t i = 0; !rc && i < mq.n; i++) {
			struct found prev = { f->items, before, 0 };
			(void)upto;
			if (repo_found(&prev, mq.items[i].repo) ||
			    !module_qualified(&mq.items[i].n, qs, (size_t)(last - 1 - qs)))
				continue;
			if (_kbx_grow((void **)&f->items, &f->alloc, f->n, sizeof(*f->items), 16))
				rc = nomem();
			else
				f->items[f->n++] = mq.items[i];
		}
		free(mq.items);
		/* os.path.join: the external as it was called */
		struct strbuf e = STRBUF_INIT;
		strbuf_addf(&e, "extern:%s", qs);
		const char *p5[] = { ids, strbuf_str(&e) };
		if (!rc)
			rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = ANY($1::int[]) "
				   "AND n.cid = $2", 2, p5, &r, "cannot look the symbol up");
		if (!rc)
			rc = found_rows(g, r, f);
		strbuf_release(&e);
	}
	strbuf_release(&q);
	return rc;
}

/* --all-repos: an external that another repository defines is left
 * out, its callers being those of the definition. */
static int drop_linked_externs(struct db_graph *g, struct found *f)
{
	struct strbuf links = STRBUF_INIT;
	for (size_t i = 0; i < f->n; i++)
		if (!f->items[i].n.path && f->items[i].link) {
			strbuf_addstr(&links, links.len ? "," : "{");
			strbuf_addch(&links, '"');
			for (const char *p = f->items[i].link; *p; p++) {
				if (*p == '"' || *p == '\\')
					strbuf_addch(&links, '\\');
				strbuf_addch(&links, *p);
			}
			strbuf_addch(&links, '"');
		}
	if (!links.len)
		return 0;
	strbuf_addch(&links, '}');
	struct kbx_pg_result *r;
	const char *params[] = { strbuf_str(&links) };
	int rc = query(g, "SELECT DISTINCT link FROM kbx.nodes WHERE link = ANY($1::text[]) "
		       "AND path IS NOT NULL", 1, params, &r, "cannot look the symbol up");
	strbuf_release(&links);
	if (rc)
		return rc;
	size_t w = 0, n = g->db.ops->nrows(r);
	for (size_t i = 0; i < f->n; i++) {
		int linked = 0;
		for (size_t j = 0; !f->items[i].n.path && f->items[i].link && j < n && !linked; j++)
			linked = !strcmp(f->items[i].link, g->db.ops->value(r, j, 0));
		if (!linked)
			f->items[w++] = f->items[i];
	}
	f->n = w;
	return 0;
}

/* A symbol kbx_lookup would refuse to parse: its message, else NULL. */
static const char *bad_symbol(const char *sym, char *buf, size_t size)
{
	for (const unsigned char *p = (const unsigned char *)sym; *p; p++)
		if (*p < 0x20 || *p == 0x7f) {
			snprintf(buf, size, "symbol contains a control character (byte 0x%02x at offset %zu)",
				 *p, (size_t)((const char *)p - sym));
			return buf;
		}
	if (!*sym || strlen(sym) > 480)
		return "give a name ('add'), a qualified name ('Dog.speak') or an id ('src/a.py#add') of at most 480 bytes";
	return NULL;
}

int db_graph_find(struct db_graph *g, const char *sym, struct kbx_nodelist *out)
{
	struct found f = { 0 };
	char buf[128];
	if (bad_symbol(sym, buf, sizeof(buf)))
		return 0;
	int rc = lookup_rows(g, sym, &f);
	if (!rc && g->all)
		rc = drop_linked_externs(g, &f);
	if (!rc && f.n > 1)
		qsort(f.items, f.n, sizeof(*f.items), by_repo_cid);
	for (size_t i = 0; !rc && i < f.n; i++) {
		if (_kbx_grow((void **)&out->items, &out->alloc, out->n, sizeof(*out->items), 16))
			rc = nomem();
		else
			out->items[out->n++] = f.items[i].n;
	}
	free(f.items);
	return rc;
}

int db_graph_lookup(struct db_graph *g, const char *sym, struct kbx_nodelist *out)
{
	struct found f = { 0 };
	char buf[128];
	const char *bad = bad_symbol(sym, buf, sizeof(buf));
	if (bad) {
		fprintf(stderr, "error: %s\n", bad);
		return KBX_EXIT_USAGE;
	}
	int rc = lookup_rows(g, sym, &f);
	if (!rc && g->all)
		rc = drop_linked_externs(g, &f);
	if (!rc && !f.n) {
		if (g->all)
			fprintf(stderr, "error: no symbol '%s' in any repository of the database\n",
				out_esc(sym));
		else
			fprintf(stderr, "error: no symbol '%s' in repository '%s' of the database\n",
				out_esc(sym), out_esc(g->repos[0].name));
		rc = KBX_EXIT_NOT_FOUND;
	}
	if (!rc && f.n > 1)
		qsort(f.items, f.n, sizeof(*f.items), by_repo_cid);
	free(g->matches);
	g->matches = NULL;
	g->nmatch = g->amatch = 0;
	if (!rc) {
		g->matches = f.items;
		g->nmatch = f.n;
		g->amatch = f.alloc;
		f.items = NULL;
	}
	for (size_t i = 0; !rc && i < g->nmatch; i++) {
		if (_kbx_grow((void **)&out->items, &out->alloc, out->n, sizeof(*out->items), 16))
			rc = nomem();
		else
			out->items[out->n++] = g->matches[i].n;
	}
	free(f.items);
	return rc;
}

const char *db_graph_match_repo(const struct db_graph *g, size_t i)
{
	return i < g->nmatch && g->matches[i].repo ? g->matches[i].repo->name : NULL;
}

size_t db_graph_match_repo_index(const struct db_graph *g, size_t i)
{
	return i < g->nmatch && g->matches[i].repo ? (size_t)(g->matches[i].repo - g->repos) : 0;
}

/* ---- walking the edges ---- */

/* The nodes a walk has reached, by repository and id. */
struct seen_set {
	uint64_t *keys;          /* (repo index + 1) << 32 | id; 0 free */
	size_t n, cap;
};

static uint64_t seen_key(const struct db_graph *g, const struct row_node *r)
{
	return (uint64_t)(r->repo ? r->repo - g->repos + 1 : 0) << 32 | r->n.id;
}

static int seen_has(const struct seen_set *s, uint64_t k)
{
	if (!s->cap)
		return 0;
	for (size_t i = (size_t)(k * 0x9e3779b97f4a7c15ull) & (s->cap - 1); s->keys[i];
	     i = (i + 1) & (s->cap - 1))
		if (s->keys[i] == k)
			return 1;
	return 0;
}

static int seen_add(struct seen_set *s, uint64_t k)
{
	if (seen_has(s, k))
		return 0;
	if (2 * (s->n + 1) > s->cap) {
		struct seen_set t = { NULL, 0, s->cap ? 2 * s->cap : 256 };
		if (!(t.keys = calloc(t.cap, sizeof(*t.keys))))
			return -1;
		for (size_t i = 0; i < s->cap; i++)
			if (s->keys[i])
				seen_add(&t, s->keys[i]);
		free(s->keys);
		*s = t;
	}
	size_t i = (size_t)(k * 0x9e3779b97f4a7c15ull) & (s->cap - 1);
	while (s->keys[i])
		i = (i + 1) & (s->cap - 1);
	s->keys[i] = k;
	s->n++;
	return 0;
}

/* Where one level's edges are looked for: a node of the frontier, the
 * calls of its name (name:), or an external of another repository that
 * names it (link). */
struct target {
	const char *repo_id;
	uint32_t id;
	size_t near;             /* index into the frontier */
	int via_name, via_link, self;
	uint32_t link_candidates;
};

struct pending {
	struct row_node near, other;
	size_t near_i;           /* near's index in the frontier */
	int confidence, via;
	uint32_t ncandidates, nsites;
	struct kbx_site *sites;
};

struct walk {
	struct db_graph *g;
	struct row_node *frontier;
	size_t nfrontier, afrontier;
	struct target *targets;
	size_t ntargets, atargets;
	struct pending *level;
	size_t nlevel, alevel;
	struct seen_set seen;
};

static int add_target(struct walk *w, const char *repo_id, uint32_t id, size_t near, int via_name,
		      int via_link, int self, uint32_t cands)
{
	if (_kbx_grow((void **)&w->targets, &w->atargets, w->ntargets, sizeof(*w->targets), 64))
		return nomem();
	w->targets[w->ntargets++] = (struct target){ repo_id, id, near, via_name, via_link, self, cands };
	return 0;
}

/* A PostgreSQL array literal of the strings, quoted. */
static void array_of(struct strbuf *sb, const char *s)
{
	pg_array_add(sb, s, strlen(s));
}

/* The name: nodes of the frontier's callables: the calls that could be
 * them among others of their name (always ambiguous). */
static int name_targets(struct walk *w)
{
	struct strbuf repos = STRBUF_INIT, cids = STRBUF_INIT, tmp = STRBUF_INIT;
	for (size_t i = 0; i < w->nfrontier; i++) {
		const struct row_node *f = &w->frontier[i];
		if (!KBX_KIND_IS_CALLABLE(f->n.kind) || !f->repo)
			continue;
		strbuf_reset(&tmp);
		strbuf_addf(&tmp, "name:%s", f->n.name);
		strbuf_addstr(&repos, repos.len ? "," : "{");
		strbuf_addstr(&repos, f->repo->id);
		array_of(&cids, strbuf_str(&tmp));
	}
	strbuf_release(&tmp);
	int rc = 0;
	if (repos.len) {
		pg_array_end(&repos);
		pg_array_end(&cids);
		struct kbx_pg_result *r;
		const char *params[] = { repos.buf, cids.buf };
		rc = query(w->g, "SELECT t.repo, n.id, t.cid FROM unnest($1::int[], $2::text[]) "
			   "AS t(repo, cid) JOIN kbx.nodes n ON n.repo = t.repo AND n.cid = t.cid",
			   2, params, &r, "cannot read the calls by name");
		const struct kbx_pg_ops *ops = w->g->db.ops;
		size_t nf = w->nfrontier;
		for (size_t j = 0; !rc && j < ops->nrows(r); j++)
			for (size_t i = 0; !rc && i < nf; i++) {
				const struct row_node *f = &w->frontier[i];
				if (KBX_KIND_IS_CALLABLE(f->n.kind) && f->repo &&
				    !strcmp(f->repo->id, ops->value(r, j, 0)) &&
				    !strcmp(f->n.name, ops->value(r, j, 2) + 5))
					rc = add_target(w, f->repo->id, num(ops->value(r, j, 1)), i, 1, 0,
							0, 0);
			}
	}
	strbuf_release(&repos);
	strbuf_release(&cids);
	return rc;
}

/* --all-repos: the externals of the other repositories that name a
 * definition of the frontier (its link), with how many repositories
 * export that name to each. */
static int link_targets(struct walk *w)
{
	struct strbuf links = STRBUF_INIT;
	for (size_t i = 0; i < w->nfrontier; i++)
		if (w->frontier[i].link && w->frontier[i].n.path)
			array_of(&links, w->frontier[i].link);
	if (!links.len)
		return 0;
	pg_array_end(&links);
	struct kbx_pg_result *r;
	const char *params[] = { links.buf, w->g->repo_ids.buf };
	int rc = query(w->g,
		       "SELECT x.repo, x.id, x.link, (SELECT count(*) FROM kbx.nodes d WHERE "
		       "d.link = x.link AND d.path IS NOT NULL AND d.repo <> x.repo) "
		       "FROM kbx.nodes x WHERE x.link = ANY($1::text[]) AND x.path IS NULL "
		       "AND x.repo = ANY($2::int[])",
		       2, params, &r, "cannot read the externals that name the definitions");
	strbuf_release(&links);
	const struct kbx_pg_ops *ops = w->g->db.ops;
	size_t nf = w->nfrontier;
	for (size_t j = 0; !rc && j < ops->nrows(r); j++) {
		const char *repo = ops->value(r, j, 0), *link = ops->value(r, j, 2);
		for (size_t i = 0; !rc && i < nf; i++) {
			const struct row_node *f = &w->frontier[i];
			if (f->link && f->n.path && f->repo && strcmp(f->repo->id, repo) &&
			    !strcmp(f->link, link))
				rc = add_target(w, repo_by_id(w->g, repo)->id, num(ops->value(r, j, 1)),
						i, 0, 1, 0,
						num(ops->value(r, j, 3)));
		}
	}
	return rc;
}

/* "{1,2,3}" */
static uint32_t parse_ints(const char *s, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;
	if (!s)
		return 0;
	for (const char *p = s; *p && n < max;) {
		while (*p == '{' || *p == ',' || *p == '}')
			p++;
		if (!*p)
			break;
		char *end;
		out[n++] = (uint32_t)strtoul(p, &end, 10);
		p = end;
	}
	return n;
}

static int read_sites(struct db_graph *g, const char *lines, const char *cols, const char *confs,
		      struct pending *pe)
{
	uint32_t cap = 1;
	for (const char *p = lines; p && *p; p++)
		cap += *p == ',';
	pe->sites = NULL;
	pe->nsites = 0;
	if (!lines || !strcmp(lines, "{}"))
		return 0;
	uint32_t *l = calloc(cap, sizeof(*l)), *c = calloc(cap, sizeof(*c));
	struct kbx_site *s = calloc(cap, sizeof(*s));
	if (!l || !c || !s ||
	    _kbx_grow((void **)&g->sites, &g->asites, g->nsites, sizeof(*g->sites), 64)) {
		free(l), free(c), free(s);
		return nomem();
	}
	g->sites[g->nsites++] = s;
	uint32_t n = parse_ints(lines, l, cap);
	parse_ints(cols, c, cap);
	const char *cp = confs ? confs + 1 : NULL;
	for (uint32_t i = 0; i < n; i++) {
		s[i].line = l[i];
		s[i].col = c[i];
		if (cp && *cp) {
			size_t len = strcspn(cp, ",}");
			char word[16];
			snprintf(word, sizeof(word), "%.*s", (int)(len < 15 ? len : 15), cp);
			s[i].confidence = confidence_of(word);
			cp += len + (cp[len] == ',');
		}
	}
	free(l);
	free(c);
	pe->sites = s;
	pe->nsites = n;
	return 0;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

static int place_cmp(const struct row_node *a, const struct row_node *b)
{
	int c = kbx_node_place_cmp(&a->n, &b->n);
	if (c)
		return c;
	return strcmp(a->repo ? a->repo->name : "", b->repo ? b->repo->name : "");
}

/* The order of kbx_walk_edges: the node reached, then the edge from the
 * first neighbour, the surest, by its sites. */
static int pending_cmp(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;
	int c = place_cmp(&a->other, &b->other);
	if (!c)
		c = place_cmp(&a->near, &b->near);
	if (!c)
		c = CMP(a->confidence, b->confidence);
	if (!c)
		c = CMP(a->via, b->via);
	if (!c)
		c = CMP(a->ncandidates, b->ncandidates);
	if (!c)
		c = CMP(a->nsites, b->nsites);
	for (uint32_t i = 0; !c && i < a->nsites; i++) {
		c = CMP(a->sites[i].line, b->sites[i].line);
		if (!c)
			c = CMP(a->sites[i].col, b->sites[i].col);
	}
	return c;
}

static int read_level(struct walk *w, int kind, int dir, unsigned flags)
{
	struct db_graph *g = w->g;
	struct strbuf repos = STRBUF_INIT, ids = STRBUF_INIT;
	for (size_t i = 0; i < w->ntargets; i++) {
		strbuf_addstr(&repos, i ? "," : "{");
		strbuf_addstr(&repos, w->targets[i].repo_id ? w->targets[i].repo_id
							    : w->frontier[w->targets[i].near].repo->id);
		strbuf_addf(&ids, "%s%u", i ? "," : "{", w->targets[i].id);
	}
	pg_array_end(&repos);
	pg_array_end(&ids);
	char kindbuf[16];
	snprintf(kindbuf, sizeof(kindbuf), "%s", kbx_edge_kind_str(kind));
	const char *params[] = { repos.buf, ids.buf, kindbuf };
	struct kbx_pg_result *r;
	int rc = repos.failed || ids.failed ? nomem() : query(g, dir == KBX_DIR_IN
		? "SELECT t.i, e.confidence, e.via, e.candidates, e.site_lines, e.site_cols, "
		  "e.site_confs, " NODE_COLS " FROM unnest($1::int[], $2::bigint[]) WITH ORDINALITY "
		  "AS t(repo, id, i) JOIN kbx.edges e ON e.repo = t.repo AND e.dst = t.id AND e.kind = $3 "
		  "JOIN kbx.nodes n ON n.repo = e.repo AND n.id = e.src"
		: "SELECT t.i, e.confidence, e.via, e.candidates, e.site_lines, e.site_cols, "
		  "e.site_confs, " NODE_COLS " FROM unnest($1::int[], $2::bigint[]) WITH ORDINALITY "
		  "AS t(repo, id, i) JOIN kbx.edges e ON e.repo = t.repo AND e.src = t.id AND e.kind = $3 "
		  "JOIN kbx.nodes n ON n.repo = e.repo AND n.id = e.dst",
		3, params, &r, "cannot read the edges");
	strbuf_release(&repos);
	strbuf_release(&ids);
	const struct kbx_pg_ops *ops = g->db.ops;
	for (size_t j = 0; !rc && j < ops->nrows(r); j++) {
		const struct target *t = &w->targets[num(ops->value(r, j, 0)) - 1];
		struct pending pe;
		memset(&pe, 0, sizeof(pe));
		pe.near = w->frontier[t->near];
		pe.near_i = t->near;
		node_of_row(g, r, j, 7, &pe.other);
		pe.confidence = confidence_of(ops->value(r, j, 1));
		pe.via = via_of(ops->value(r, j, 2));
		pe.ncandidates = num(ops->value(r, j, 3));
		if (t->via_link) {
			pe.confidence = t->link_candidates > 1 ? KBX_CONF_AMBIGUOUS : KBX_CONF_CERTAIN;
			pe.via = KBX_VIA_PACKAGE;
			pe.ncandidates = t->link_candidates > 1 ? t->link_candidates : 0;
		}
		if ((flags & KBX_WALK_CERTAIN) && pe.confidence == KBX_CONF_AMBIGUOUS)
			continue;
		if (t->via_name && _kbx_lang_family(pe.other.n.lang) != _kbx_lang_family(pe.near.n.lang))
			continue;
		if (seen_has(&w->seen, seen_key(g, &pe.other)) &&
		    !(t->self && pe.other.repo == pe.near.repo && pe.other.n.id == pe.near.n.id))
			continue;
		rc = read_sites(g, ops->value(r, j, 4), ops->value(r, j, 5), ops->value(r, j, 6), &pe);
		/* a call to an external is unresolved in its repository: the
		 * link is what the edge now says */
		for (uint32_t k = 0; !rc && t->via_link && k < pe.nsites; k++)
			pe.sites[k].confidence = 0;
		if (!rc && _kbx_grow((void **)&w->level, &w->alevel, w->nlevel, sizeof(*w->level), 64))
			rc = nomem();
		if (!rc)
			w->level[w->nlevel++] = pe;
	}
	return rc;
}

/* --all-repos, callees: a call of an external that other repositories
 * define leads to their definitions, certain when one repository
 * exports the name, ambiguous among them when several do. */
static int link_callees(struct walk *w, unsigned flags)
{
	struct db_graph *g = w->g;
	struct strbuf links = STRBUF_INIT;
	for (size_t i = 0; i < w->nlevel; i++)
		if (!w->level[i].other.n.path && w->level[i].other.link)
			array_of(&links, w->level[i].other.link);
	if (!links.len)
		return 0;
	pg_array_end(&links);
	struct kbx_pg_result *r;
	const char *params[] = { links.buf, g->repo_ids.buf };
	int rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.link = ANY($1::text[]) "
		       "AND n.path IS NOT NULL AND n.repo = ANY($2::int[])",
		       2, params, &r, "cannot read the definitions externals name");
	strbuf_release(&links);
	if (rc)
		return rc;
	size_t ndefs = g->db.ops->nrows(r), nlevel = w->nlevel;
	struct row_node *defs = calloc(ndefs ? ndefs : 1, sizeof(*defs));
	if (!defs)
		return nomem();
	for (size_t j = 0; j < ndefs; j++)
		node_of_row(g, r, j, 0, &defs[j]);
	for (size_t i = 0; !rc && i < nlevel; i++) {
		struct pending *pe = &w->level[i];
		if (pe->other.n.path || !pe->other.link)
			continue;
		uint32_t count = 0;
		for (size_t j = 0; j < ndefs; j++)
			count += defs[j].repo != pe->other.repo && !strcmp(defs[j].link, pe->other.link);
		/* --certain keeps the call to the external, as it was */
		if (!count || (count > 1 && (flags & KBX_WALK_CERTAIN)))
			continue;
		struct pending base = *pe;
		int first = 1;
		for (size_t j = 0; !rc && j < ndefs; j++) {
			if (defs[j].repo == base.other.repo || strcmp(defs[j].link, base.other.link))
				continue;
			struct pending linked = base;
			linked.other = defs[j];
			linked.confidence = count > 1 ? KBX_CONF_AMBIGUOUS : KBX_CONF_CERTAIN;
			linked.via = KBX_VIA_PACKAGE;
			linked.ncandidates = count > 1 ? count : 0;
			for (uint32_t k = 0; k < linked.nsites; k++)
				linked.sites[k].confidence = 0;
			if (seen_has(&w->seen, seen_key(g, &linked.other)))
				continue;
			if (first) {
				w->level[i] = linked;
				first = 0;
			} else if (_kbx_grow((void **)&w->level, &w->alevel, w->nlevel,
					     sizeof(*w->level), 64)) {
				rc = nomem();
			} else {
				w->level[w->nlevel++] = linked;
			}
		}
		if (first)   /* every definition was reached already */
			w->level[i].other.link = NULL;
	}
	free(defs);
	return rc;
}

/* The index of a node's repository among those asked (0 for none). */
static size_t repo_index(const struct db_graph *g, const struct row_node *r)
{
	return r->repo ? (size_t)(r->repo - g->repos) : 0;
}

/* The edges of one depth from the frontier into w->level, unsorted
 * (first: the walk's first depth, where an edge back to its start
 * counts). */
static int read_depth(struct walk *w, int kind, int dir, unsigned flags, int first)
{
	struct db_graph *g = w->g;
	int rc = 0;
	w->ntargets = 0;
	w->nlevel = 0;
	for (size_t i = 0; !rc && i < w->nfrontier; i++)
		rc = add_target(w, NULL, w->frontier[i].n.id, i, 0, 0, first, 0);
	if (!rc && kind == KBX_EDGE_CALLS && dir == KBX_DIR_IN && !(flags & KBX_WALK_CERTAIN))
		rc = name_targets(w);
	if (!rc && g->all && kind == KBX_EDGE_CALLS && dir == KBX_DIR_IN)
		rc = link_targets(w);
	if (!rc)
		rc = read_level(w, kind, dir, flags);
	if (!rc && g->all && kind == KBX_EDGE_CALLS && dir == KBX_DIR_OUT)
		rc = link_callees(w, flags);
	return rc;
}

/* The edge a pending one hands over, and where its nodes are. */
static struct kbx_edge edge_of(const struct db_graph *g, const struct pending *p, int kind,
			       int dir, uint32_t depth, struct db_edge_repos *at)
{
	struct kbx_edge e = {
		.kind = kind, .confidence = p->confidence, .via = p->via,
		.ncandidates = p->ncandidates, .depth = depth,
		.sites = p->sites, .nsites = p->nsites,
		.from = dir == KBX_DIR_OUT ? p->near.n : p->other.n,
		.to = dir == KBX_DIR_OUT ? p->other.n : p->near.n,
	};
	if (at) {
		at->from = repo_index(g, dir == KBX_DIR_OUT ? &p->near : &p->other);
		at->to = repo_index(g, dir == KBX_DIR_OUT ? &p->other : &p->near);
		at->near = p->near_i;
	}
	return e;
}

static int walk_from(struct db_graph *g, const struct row_node *from, int kind, int dir,
		     uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *data,
		     const char **repo, struct db_edge_repos *at)
{
	struct walk w = { 0 };
	w.g = g;
	int rc = 0, stop = 0;
	if (_kbx_grow((void **)&w.frontier, &w.afrontier, 0, sizeof(*w.frontier), 16))
		return nomem();
	struct row_node *start = &w.frontier[w.nfrontier++];
	*start = *from;
	if (seen_add(&w.seen, seen_key(g, start)))
		rc = nomem();
	struct row_node *next = NULL;
	size_t nnext = 0, anext = 0;
	for (uint32_t depth = 1; !rc && !stop && w.nfrontier && (!max_depth || depth <= max_depth);
	     depth++) {
		rc = read_depth(&w, kind, dir, flags, depth == 1);
		if (!rc && w.nlevel > 1)
			qsort(w.level, w.nlevel, sizeof(*w.level), pending_cmp);
		nnext = 0;
		for (size_t i = 0; !rc && !stop && i < w.nlevel; i++) {
			const struct pending *p = &w.level[i];
			if (i && w.level[i - 1].other.repo == p->other.repo &&
			    w.level[i - 1].other.n.id == p->other.n.id)
				continue;
			if (seen_add(&w.seen, seen_key(g, &p->other)) ||
			    _kbx_grow((void **)&next, &anext, nnext, sizeof(*next), 64)) {
				rc = nomem();
				break;
			}
			next[nnext++] = p->other;
			struct kbx_edge e = edge_of(g, p, kind, dir, depth, at);
			*repo = g->all && p->other.repo ? p->other.repo->name : NULL;
			if (fn(data, &e))
				stop = 1;
		}
		struct row_node *t = w.frontier;
		size_t ta = w.afrontier;
		w.frontier = next;
		w.nfrontier = nnext;
		w.afrontier = anext;
		next = t;
		anext = ta;
	}
	*repo = NULL;
	free(w.frontier);
	free(next);
	free(w.targets);
	free(w.level);
	free(w.seen.keys);
	return rc;
}

int db_graph_walk(struct db_graph *g, size_t match, int kind, int dir, uint32_t max_depth,
		  unsigned flags, kbx_edge_fn fn, void *data, const char **repo)
{
	return walk_from(g, &g->matches[match], kind, dir, max_depth, flags, fn, data, repo, NULL);
}

/* The row of node id of the repo'th repository asked. */
static int node_row(struct db_graph *g, size_t repo, uint32_t id, struct row_node *out)
{
	char idbuf[16];
	snprintf(idbuf, sizeof(idbuf), "%u", id);
	const char *params[] = { g->repos[repo].id, idbuf };
	struct kbx_pg_result *r;
	int rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = $1::int "
		       "AND n.id = $2::bigint", 2, params, &r, "cannot read a node");
	if (rc)
		return rc;
	if (g->db.ops->nrows(r) != 1) {
		fprintf(stderr, "error: the database has no node %u in repository '%s': "
			"was it pushed again meanwhile?\n", id, out_esc(g->repos[repo].name));
		return KBX_EXIT_DB_ERROR;
	}
	node_of_row(g, r, 0, 0, out);
	return 0;
}

int db_graph_walk_node(struct db_graph *g, size_t repo, const struct kbx_node *n, int kind,
		       int dir, uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *data,
		       struct db_edge_repos *at)
{
	const char *name;
	struct row_node start = { *n, &g->repos[repo], NULL };
	/* --all-repos: the link the walk crosses repositories by */
	if (g->all) {
		struct row_node rn;
		int rc = node_row(g, repo, n->id, &rn);
		if (rc)
			return rc;
		start.link = rn.link;
	}
	return walk_from(g, &start, kind, dir, max_depth, flags, fn, data, &name, at);
}

/* The order of a step: by the node it leaves, then as a walk's depth. */
static int step_cmp(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;
	if (a->near_i != b->near_i)
		return a->near_i < b->near_i ? -1 : 1;
	return pending_cmp(pa, pb);
}

int db_graph_step(struct db_graph *g, const struct db_node_ref *from, size_t n, int kind,
		  int dir, unsigned flags, kbx_edge_fn fn, void *data, struct db_edge_repos *at)
{
	struct walk w = { 0 };
	w.g = g;
	struct strbuf repos = STRBUF_INIT, ids = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(&repos, i ? "," : "{");
		strbuf_addstr(&repos, g->repos[from[i].repo].id);
		strbuf_addf(&ids, "%s%u", i ? "," : "{", from[i].id);
	}
	pg_array_end(&repos);
	pg_array_end(&ids);
	const char *params[] = { repos.buf, ids.buf };
	struct kbx_pg_result *r = NULL;
	int rc = !n ? 0 : repos.failed || ids.failed ? nomem()
		: query(g, "SELECT t.i, " NODE_COLS " FROM unnest($1::int[], $2::bigint[]) "
			"WITH ORDINALITY AS t(repo, id, i) JOIN kbx.nodes n "
			"ON n.repo = t.repo AND n.id = t.id", 2, params, &r, "cannot read the nodes");
	strbuf_release(&repos);
	strbuf_release(&ids);
	if (rc || !n)
		return rc;
	if (g->db.ops->nrows(r) != n) {
		fprintf(stderr, "error: the database lacks nodes the search reached: "
			"was a repository pushed again meanwhile?\n");
		return KBX_EXIT_DB_ERROR;
	}
	if (!(w.frontier = calloc(n, sizeof(*w.frontier))))
		return nomem();
	w.nfrontier = w.afrontier = n;
	for (size_t j = 0; j < n; j++)
		node_of_row(g, r, j, 1, &w.frontier[num(g->db.ops->value(r, j, 0)) - 1]);
	/* nothing seen: each node's edges are all those a walk from it
	 * alone would hand over */
	rc = read_depth(&w, kind, dir, flags, 1);
	if (!rc && w.nlevel > 1)
		qsort(w.level, w.nlevel, sizeof(*w.level), step_cmp);
	for (size_t i = 0; !rc && i < w.nlevel; i++) {
		const struct pending *p = &w.level[i], *q = i ? &w.level[i - 1] : NULL;
		if (q && q->near_i == p->near_i && q->other.repo == p->other.repo &&
		    q->other.n.id == p->other.n.id)
			continue;
		struct kbx_edge e = edge_of(g, p, kind, dir, 1, at);
		if (fn(data, &e))
			break;
	}
	free(w.frontier);
	free(w.targets);
	free(w.level);
	free(w.seen.keys);
	return rc;
}

int db_graph_node(struct db_graph *g, size_t repo, uint32_t id, struct kbx_node *out)
{
	struct row_node rn;
	int rc = node_row(g, repo, id, &rn);
	if (!rc)
		*out = rn.n;
	return rc;
}

int db_graph_name_candidates(struct db_graph *g, size_t repo, const struct kbx_node *ref,
			     int lang, struct kbx_nodelist *out)
{
	const char *params[] = { g->repos[repo].id, ref->name };
	struct kbx_pg_result *r;
	int rc = query(g, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = $1::int "
		       "AND n.name = $2 ORDER BY n.id", 2, params, &r,
		       "cannot read the definitions of a name");
	for (size_t i = 0; !rc && i < g->db.ops->nrows(r); i++) {
		struct row_node rn;
		node_of_row(g, r, i, 0, &rn);
		if (!KBX_KIND_IS_CALLABLE(rn.n.kind) ||
		    _kbx_lang_family(lang) != _kbx_lang_family(rn.n.lang))
			continue;
		if (_kbx_grow((void **)&out->items, &out->alloc, out->n, sizeof(*out->items), 16))
			rc = nomem();
		else
			out->items[out->n++] = rn.n;
	}
	return rc;
}

void db_graph_focus(struct db_graph *g, size_t i)
{
	if (g->saved.depth++)
		return;
	g->saved.repos = g->repos;
	g->saved.nrepos = g->nrepos;
	g->saved.all = g->all;
	g->saved.repo_ids = g->repo_ids;
	strbuf_init(&g->repo_ids);
	strbuf_addf(&g->repo_ids, "{%s}", g->saved.repos[i].id);
	g->repos = &g->saved.repos[i];
	g->nrepos = 1;
	g->all = 0;
}

void db_graph_unfocus(struct db_graph *g)
{
	if (--g->saved.depth)
		return;
	strbuf_release(&g->repo_ids);
	g->repos = g->saved.repos;
	g->nrepos = g->saved.nrepos;
	g->all = g->saved.all;
	g->repo_ids = g->saved.repo_ids;
}

int db_graph_nodes(struct db_graph *g, const char *where, int n, const char *const *params,
		   struct kbx_nodelist *out)
{
	struct strbuf sql = STRBUF_INIT;
	const char *p[8] = { g->repos[0].id };
	for (int i = 0; i < n && i < 7; i++)
		p[i + 1] = params[i];
	strbuf_addf(&sql, "SELECT " NODE_COLS " FROM kbx.nodes n WHERE n.repo = $1::int AND %s", where);
	struct kbx_pg_result *r;
	int rc = sql.failed ? nomem() : query(g, sql.buf, n + 1, p, &r, "cannot read the nodes");
	strbuf_release(&sql);
	for (size_t i = 0; !rc && i < g->db.ops->nrows(r); i++) {
		struct row_node rn;
		node_of_row(g, r, i, 0, &rn);
		if (_kbx_grow((void **)&out->items, &out->alloc, out->n, sizeof(*out->items), 16))
			rc = nomem();
		else
			out->items[out->n++] = rn.n;
	}
	return rc;
}

/* ---- the repositories ---- */

int db_graph_repos(struct kbx_ctx *ctx, const struct output_opts *oo, int names_only)
{
	struct pg_db db;
	struct kbx_pg_result *r = NULL;
	int rc = pg_db_open(&db, ctx->db_url);
	if (!rc)
		rc = pg_db_exec(&db,
				"SELECT name, generation, to_char(pushed_at AT TIME ZONE 'UTC', "
				"'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), files, nodes, edges, chunks "
				"FROM kbx.repos ORDER BY name COLLATE \"C\"",
				0, NULL, &r, "cannot read the repositories");
	struct out *o = rc ? NULL : out_new(oo);
	if (!rc && !o)
		rc = KBX_EXIT_USAGE;
	size_t n = rc ? 0 : db.ops->nrows(r);
	for (size_t i = 0; i < n; i++) {
		const char *v[7];
		for (int c = 0; c < 7; c++)
			v[c] = db.ops->value(r, i, c);
		if (names_only) {
			out_line(o, "%s", out_esc(v[0]));
		} else if (out_format(o) == FMT_JSON) {
			out_record_begin(o, "repo");
			out_field_str(o, "name", v[0]);
			out_field_int(o, "generation", strtoll(v[1], NULL, 10));
			out_field_str(o, "pushed", v[2]);
			out_field_int(o, "files", strtoll(v[3], NULL, 10));
			out_field_int(o, "symbols", strtoll(v[4], NULL, 10));
			out_field_int(o, "edges", strtoll(v[5], NULL, 10));
			out_field_int(o, "chunks", strtoll(v[6], NULL, 10));
			out_record_end(o);
		} else {
			out_line(o, "%s  generation %s, pushed %s: %s files, %s symbols, %s edges, %s chunks",
				 out_esc(v[0]), v[1], v[2] ? v[2] : "never", v[3], v[4], v[5], v[6]);
		}
	}
	if (r)
		db.ops->clear(r);
	pg_db_close(&db);
	if (o && out_finish(o))
		return KBX_EXIT_IO;
	if (!rc && !n) {
		fprintf(stderr, "note: the database holds no repository; 'kbx push' publishes one\n");
		return KBX_EXIT_NOT_FOUND;
	}
	return rc;
}
