/* What callers, callees and the other one-edge-kind queries share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "builtin.h"
#include "db-graph.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "util/strbuf.h"

/* Where a node is, for a message: "method, src/a.py:12", "file" or
 * "external". */
static void node_place(const struct kbx_node *n, struct strbuf *sb)
{
	strbuf_addstr(sb, kbx_kind_str(n->kind));
	if (n->path && n->kind != KBX_KIND_FILE)
		strbuf_addf(sb, ", %s:%u", out_escn(n->path, n->path_len), n->line);
}

int lookup_symbol(struct kbx_ctx *ctx, const char *sym, struct kbx_nodelist *out)
{
	if (ctx->db)
		return db_graph_lookup(ctx->db, sym, out);
	struct kbx_error err = KBX_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	kbx_status_t st = kbx_lookup(ctx->store, sym, out, &err);
	if (st == KBX_OK)
		return 0;
	if (st != KBX_NOT_FOUND)
		return die_status(&err);
	/* Session.send, where send is Base's: answer for Base.send */
	struct kbx_error e2 = KBX_ERROR_INIT;
	size_t start = out->n;
	st = kbx_lookup_inherited(ctx->store, sym, out, &e2);
	if (st == KBX_OK) {
		for (size_t i = start; i < out->n; i++) {
			strbuf_reset(&sb);
			node_place(&out->items[i], &sb);
			fprintf(stderr, "note: '%s' is inherited: answering for %s (%s)\n",
				out_esc(sym), out_esc(out->items[i].cid), strbuf_str(&sb));
		}
		strbuf_release(&sb);
		return 0;
	}
	if (st != KBX_NOT_FOUND) {
		strbuf_release(&sb);
		return die_status(&e2);
	}
	fprintf(stderr, "error: %s\n", out_esc(err.msg));
	struct kbx_nodelist near = KBX_NODELIST_INIT;
	if (kbx_suggest(ctx->store, sym, 5, &near, &e2) == KBX_OK && near.n) {
		fprintf(stderr, "\ndid you mean one of these?\n");
		for (size_t i = 0; i < near.n; i++) {
			const struct kbx_node *n = &near.items[i];
			strbuf_reset(&sb);
			node_place(n, &sb);
			fprintf(stderr, "\t%s\t(%s)\n",
				out_esc(n->kind == KBX_KIND_FILE || !n->path ? n->cid : n->qual),
				strbuf_str(&sb));
		}
	}
	kbx_nodelist_release(&near);
	strbuf_release(&sb);
	return KBX_EXIT_NOT_FOUND;
}

/* One edge of a calls query held back for the text format, which
 * prints each ambiguous call once: its nodes point into the map, its
 * sites are a copy (the walk's are valid only during the callback). */
struct held_edge {
	struct kbx_edge e;
	const char *repo;       /* kbx --db --all-repos: the result's repository */
	size_t pos;             /* its place in the walk's order */
	unsigned folded;        /* the later candidates of its call it stands for */
	int done;               /* folded into an earlier one */
};

struct print_ctx {
	struct out *o;
	const struct edge_query *q;
	const struct kbx_node *query;
	const char *repo;       /* kbx --db --all-repos: the next edge's repository */
	size_t count;
	int hold;               /* text of a calls query: collect, then print */
	struct held_edge *held;
	size_t nheld, aheld;
	int nomem;
};

static int hold_edge(struct print_ctx *p, const struct kbx_edge *e)
{
	struct kbx_site *sites = NULL;
	if (e->nsites) {
		sites = malloc(e->nsites * sizeof(*sites));
		if (!sites)
			return -1;
		memcpy(sites, e->sites, e->nsites * sizeof(*sites));
	}
	if (_kbx_grow((void **)&p->held, &p->aheld, p->nheld, sizeof(*p->held), 1024)) {
		free(sites);
		return -1;
	}
	struct held_edge *h = &p->held[p->nheld++];
	h->e = *e;
	h->e.sites = sites;
	h->repo = p->repo;
	h->pos = p->nheld - 1;
	h->folded = 0;
	h->done = 0;
	return 0;
}

/* Free what the held edges own, and forget them. */
static void held_clear(struct print_ctx *p)
{
	for (size_t i = 0; i < p->nheld; i++)
		free((void *)p->held[i].e.sites);
	p->nheld = 0;
}

static int print_edge(void *data, const struct kbx_edge *e)
{
	struct print_ctx *p = data;
	p->count++;
	if (!p->hold) {
		out_set_repo(p->o, p->repo, NULL, 0);
		out_edge(p->o, p->q->record, p->query, e, p->q->dir, 0);
		return 0;
	}
	if (hold_edge(p, e)) {
		p->nomem = 1;
		return 1;
	}
	return 0;
}

/* The definitions an ambiguous call could mean, gathered for -v. */
struct candidates {
	const struct kbx_site *site;    /* the call */
	uint32_t skip;                  /* the one its line names already */
	kbx_store_t *store;
	struct kbx_cand_cache *cache;
	struct kbx_node *items;         /* views: the map's, or the cache's */
	size_t n, alloc;
	kbx_status_t st;
	struct kbx_error *err;
};

static int add_candidate(struct candidates *c, const struct kbx_node *n)
{
	if (n->id == c->skip)
		return 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].id == n->id)
			return 0;
	if (_kbx_grow((void **)&c->items, &c->alloc, c->n, sizeof(*c->items), 16))
		return -1;
	c->items[c->n++] = *n;
	return 0;
}

static int has_site(const struct kbx_edge *e, const struct kbx_site *site)
{
	for (uint32_t i = 0; i < e->nsites; i++)
		if (e->sites[i].line == site->line && e->sites[i].col == site->col)
			return 1;
	return 0;
}

static int on_call_of_site(void *data, const struct kbx_edge *e)
{
	struct candidates *c = data;
	if (e->confidence != KBX_CONF_AMBIGUOUS || !has_site(e, c->site))
		return 0;
	if (e->to.kind != KBX_KIND_NAMEREF) {
		if (add_candidate(c, &e->to))
			c->st = KBX_ERR_NOMEM;
		return c->st != KBX_OK;
	}
	/* recorded against the name: every definition it stands for */
	const struct kbx_nodelist *l = NULL;
	c->st = kbx_cand_cache_get(c->store, c->cache, &e->to, e->from.lang, &l, c->err);
	for (size_t i = 0; !c->st && l && i < l->n; i++)
		if (add_candidate(c, &l->items[i]))
			c->st = KBX_ERR_NOMEM;
	return c->st != KBX_OK;
}

static int by_cid(const void *a, const void *b)
{
	return strcmp(((const struct kbx_node *)a)->cid, ((const struct kbx_node *)b)->cid);
}

/* -v: under the line of an ambiguous call, the other definitions that
 * call could mean (the calls of e->from that share its first site), in
 * the order of their canonical ids. */
static kbx_status_t print_other_candidates(struct print_ctx *p, kbx_store_t *store,
					   struct kbx_cand_cache *cache, const struct kbx_edge *e,
					   struct kbx_error *err)
{
	if (e->confidence != KBX_CONF_AMBIGUOUS || !e->nsites)
		return KBX_OK;
	struct candidates c = { &e->sites[0], e->to.id, store, cache, NULL, 0, 0, KBX_OK, err };
	kbx_status_t st = kbx_walk_edges(store, e->from.id, KBX_EDGE_CALLS, KBX_DIR_OUT, 1,
					 on_call_of_site, &c, err);
	if (!st)
		st = err->status = c.st;
	if (!st && c.n > 1)
		qsort(c.items, c.n, sizeof(*c.items), by_cid);
	for (size_t i = 0; !st && i < c.n; i++)
		out_candidate(p->o, e, &c.items[i]);
	free(c.items);
	return st;
}

/* The ambiguous edges of one call together (the same node, the same
 * first site), each call's in the walk's order. */
static int by_call(const void *a, const void *b)
{
	const struct held_edge *x = *(const struct held_edge *const *)a;
	const struct held_edge *y = *(const struct held_edge *const *)b;
	if (x->e.from.id != y->e.from.id)
		return x->e.from.id < y->e.from.id ? -1 : 1;
	if (x->e.sites[0].line != y->e.sites[0].line)
		return x->e.sites[0].line < y->e.sites[0].line ? -1 : 1;
	if (x->e.sites[0].col != y->e.sites[0].col)
		return x->e.sites[0].col < y->e.sites[0].col ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int same_call(const struct held_edge *x, const struct held_edge *y)
{
	return x->e.from.id == y->e.from.id && x->e.sites[0].line == y->e.sites[0].line &&
	       x->e.sites[0].col == y->e.sites[0].col;
}

/* Mark the ambiguous edges that the first candidate of their call (in
 * the walk's order) stands for.  -1 when memory runs out. */
static int fold_calls(struct print_ctx *p)
{
	struct held_edge **amb = malloc((p->nheld + 1) * sizeof(*amb));
	size_t n = 0;
	if (!amb)
		return -1;
	for (size_t i = 0; i < p->nheld; i++)
		if (p->held[i].e.confidence == KBX_CONF_AMBIGUOUS && p->held[i].e.nsites)
			amb[n++] = &p->held[i];
	if (n > 1)
		qsort(amb, n, sizeof(*amb), by_call);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i && same_call(amb[first], amb[i])) {
			amb[i]->done = 1;
			amb[first]->folded++;
		} else {
			first = i;
		}
	}
	free(amb);
	return 0;
}

/*
 * Print the held edges of one query, each call once: the first
 * candidate of an ambiguous call stands for the later ones from the
 * same node with the same first site (the other candidates of that
 * call, which kbx callees lists side by side), saying how many it
 * folds; -v lists every other candidate under it instead.
 */
static kbx_status_t print_held(struct print_ctx *p, kbx_store_t *store, int verbose,
			       struct kbx_cand_cache *cache, struct kbx_error *err)
{
	kbx_status_t st = KBX_OK;
	if (fold_calls(p))
		st = err->status = KBX_ERR_NOMEM;
	for (size_t i = 0; i < p->nheld && !st; i++) {
		const struct held_edge *h = &p->held[i];
		if (h->done)
			continue;
		out_set_repo(p->o, h->repo, NULL, 0);
		out_edge(p->o, p->q->record, p->query, &h->e, p->q->dir, verbose ? 0 : h->folded);
		if (verbose)
			st = print_other_candidates(p, store, cache, &h->e, err);
	}
	held_clear(p);
	return st;
}

/* Take the option whose value is v out of the table. */
static void omit_option(struct option *opts, const void *v)
{
	size_t i = 0;
	while (opts[i].type != OPT_END && opts[i].value != v)
		i++;
	for (; opts[i].type != OPT_END; i++)
		opts[i] = opts[i + 1];
}

int run_edge_query(int argc, const char **argv, struct kbx_ctx *ctx, const struct edge_query *q)
{
	long depth = 1;
	int transitive = 0, certain = 0, verbose = 0, all_repos = 0;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	oo.pictures = 1;
	struct option opts[] = {
		OPT_INT_F('d', "depth", &depth, "N", "follow edges N hops (default 1)"),
		OPT_BOOL_F('t', "transitive", &transitive, "follow edges as far as they go"),
		OPT_CERTAIN_F(&certain),
		OPT_BOOL_F('v', "verbose", &verbose,
			   "under an ambiguous call, list every other definition it could mean"),
		OPT_OUTPUT_COMMON(&oo),
		OPT_ALL_REPOS_DB_F(&all_repos),
		OPT_END_F(),
	};
	/* only calls fold their candidates and take --certain */
	if (q->kind != KBX_EDGE_CALLS) {
		omit_option(opts, &certain);
		omit_option(opts, &verbose);
	}
	int nargs = parse_options(argc, argv, opts, q->usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs != 1) {
		fprintf(stderr, "error: '%s' takes one symbol\n", q->name);
		usage_with_options(q->usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	if (depth < 1) {
		fprintf(stderr, "error: --depth must be 1 or more\n");
		return KBX_EXIT_USAGE;
	}
	if (ctx->db && verbose) {
		fprintf(stderr, "error: -v is not available with --db: the database keeps no candidates of a call\n");
		return KBX_EXIT_USAGE;
	}
	if (all_repos && !ctx->db) {
		fprintf(stderr, "error: '%s --all-repos' asks the database: give kbx --db=URL\n", q->name);
		return KBX_EXIT_USAGE;
	}
	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;

	struct kbx_nodelist matches = KBX_NODELIST_INIT;
	int rc = lookup_symbol(ctx, argv[0], &matches);
	if (rc) {
		out_finish(o);
		return rc;
	}
	struct print_ctx p = { 0 };
	p.o = o;
	p.q = q;
	/*
	 * Only calls fold, and only where one node calls several candidates
	 * from one site: callees.  A walk towards the callers reaches each
	 * node once, so no two of its edges leave the same node and nothing
	 * folds; printed as they come, they cost no copy (-v still holds
	 * them, to list the candidates after the walk).
	 */
	p.hold = q->kind == KBX_EDGE_CALLS && out_format(o) == FMT_TEXT &&
		 (q->dir == KBX_DIR_OUT || verbose);
	struct kbx_cand_cache cache = KBX_CAND_CACHE_INIT;
	struct kbx_error err = KBX_ERROR_INIT;
	if (matches.n > 1)
		out_note(o, "'%s' names %zu definitions; the results are grouped by definition (name one by its id to choose)\n",
			 out_esc(argv[0]), matches.n);
	for (size_t i = 0; i < matches.n && !rc; i++) {
		const struct kbx_node *m = &matches.items[i];
		const char *mrepo = ctx->db && db_graph_all(ctx->db) ? db_graph_match_repo(ctx->db, i)
								     : NULL;
		p.query = m;
		if (m->path)
			out_heading(o, "%s %s%s%s%s (%s, %s:%u)", q->heading, mrepo ? "[" : "",
				    mrepo ? out_esc(mrepo) : "", mrepo ? "] " : "", out_esc(m->cid),
				    kbx_kind_str(m->kind), out_escn(m->path, m->path_len), m->line);
		else
			out_heading(o, "%s %s%s%s%s (%s)", q->heading, mrepo ? "[" : "",
				    mrepo ? out_esc(mrepo) : "", mrepo ? "] " : "", out_esc(m->cid),
				    kbx_kind_str(m->kind));
		out_set_repo(o, mrepo, NULL, 0);
		if (matches.n > 1 && out_format(o) == FMT_JSON)
			out_def(o, "symbol", m);
		size_t before = p.count;
		kbx_status_t st = KBX_OK;
		if (ctx->db) {
			int drc = db_graph_walk(ctx->db, i, q->kind, q->dir,
						transitive ? 0 : (uint32_t)depth,
						certain ? KBX_WALK_CERTAIN : 0, print_edge, &p, &p.repo);
			if (drc) {
				rc = drc;
				break;
			}
			if (p.nomem)
				st = err.status = KBX_ERR_NOMEM;
		} else {
			st = kbx_walk_edges_flags(ctx->store, m->id, q->kind, q->dir,
						  transitive ? 0 : (uint32_t)depth,
						  certain ? KBX_WALK_CERTAIN : 0, print_edge, &p, &err);
		}
		if (!st && p.nomem)
			st = err.status = KBX_ERR_NOMEM;
		if (!st)
			st = print_held(&p, ctx->store, verbose, &cache, &err);
		if (st == KBX_ERR_NOMEM && !err.msg[0])
			snprintf(err.msg, sizeof(err.msg), "out of memory");
		if (st)
			rc = die_status(&err);
		else if (p.count == before)
			out_note(o, "  (none)");
	}
	kbx_cand_cache_release(&cache);
	held_clear(&p);
	free(p.held);
	kbx_nodelist_release(&matches);
	if (out_finish(o))
		return KBX_EXIT_IO;
	if (rc)
		return rc;
	return p.count ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
