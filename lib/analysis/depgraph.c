/*
 * A dependency graph gathered from the store's edges, and its cycles:
 * the graph kbx check's no-cycles rule and kbx cycles look at.  Edges to
 * name references (calls on a receiver whose name too many definitions
 * share) become ambiguous edges to every candidate; the cycles the
 * certain edges alone close are told apart from those that need an
 * ambiguous one.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "graph/graph.h"

void kbx_depgraph_release(struct kbx_depgraph *g)
{
	free(g->edges);
	free(g->ids);
	free(g->off_all);
	free(g->off_cert);
	free(g->tg_all);
	free(g->tg_cert);
	free(g->e_all);
	kbx_cand_cache_release(&g->cands);
	memset(g, 0, sizeof(*g));
}

kbx_status_t kbx_depgraph_add(struct kbx_depgraph *g, uint32_t from, uint32_t to, uint32_t line,
			      uint32_t col, int certain, struct kbx_error *err)
{
	if (g->nedges == g->aedges) {
		size_t na = g->aedges ? g->aedges * 2 : 256;
		struct kbx_dep_edge *p = realloc(g->edges, na * sizeof(*p));
		if (!p)
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		g->edges = p;
		g->aedges = na;
	}
	struct kbx_dep_edge *x = &g->edges[g->nedges++];
	x->from = from;
	x->to = to;
	x->line = line;
	x->col = col;
	x->certain = certain;
	return KBX_OK;
}

kbx_status_t kbx_depgraph_add_edge(kbx_store_t *s, struct kbx_depgraph *g,
				   const struct kbx_edge *e, int self_loops,
				   kbx_depgraph_keep_fn keep, void *data, struct kbx_error *err)
{
	if (!e->from.path || (keep && !keep(data, &e->from)))
		return KBX_OK;
	uint32_t line = e->nsites ? e->sites[0].line : 0, col = e->nsites ? e->sites[0].col : 0;
	if (e->to.kind == KBX_KIND_NAMEREF) {
		const struct kbx_nodelist *l = NULL;
		kbx_status_t st = kbx_cand_cache_get(s, &g->cands, &e->to, e->from.lang, &l, err);
		for (size_t i = 0; !st && l && i < l->n; i++) {
			const struct kbx_node *t = &l->items[i];
			if ((t->id != e->from.id || self_loops) && (!keep || keep(data, t)))
				st = kbx_depgraph_add(g, e->from.id, t->id, line, col, 0, err);
		}
		return st;
	}
	if (!e->to.path || (keep && !keep(data, &e->to)))
		return KBX_OK;
	if (e->to.id == e->from.id && !self_loops)
		return KBX_OK;
	return kbx_depgraph_add(g, e->from.id, e->to.id, line, col,
				kbx_edge_wanted(e, KBX_WALK_CERTAIN), err);
}

static int by_edge(const void *a, const void *b)
{
	const struct kbx_dep_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	/* certain first, so that merging keeps it */
	return y->certain - x->certain;
}

static size_t vertex_of(const uint32_t *ids, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct kbx_dep_edge *kbx_depgraph_edge(const struct kbx_depgraph *g, uint32_t u, uint32_t w)
{
	for (size_t i = g->off_all[u]; i < g->off_all[u + 1]; i++)
		if (g->tg_all[i] == w)
			return &g->edges[g->e_all[i]];
	return NULL;
}

/* Merge the edges and lay them out as adjacency arrays. */
static kbx_status_t layout(struct kbx_depgraph *g, struct kbx_error *err)
{
	/* (no qsort of a null base, even of no items: UBSan) */
	if (g->nedges > 1)
		qsort(g->edges, g->nedges, sizeof(*g->edges), by_edge);
	size_t m = 0;
	for (size_t i = 0; i < g->nedges; i++)
		if (!m || g->edges[m - 1].from != g->edges[i].from ||
		    g->edges[m - 1].to != g->edges[i].to)
			g->edges[m++] = g->edges[i];
	g->nedges = m;
	g->ids = malloc((2 * m + 1) * sizeof(*g->ids));
	if (!g->ids)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < m; i++) {
		g->ids[g->n++] = g->edges[i].from;
		g->ids[g->n++] = g->edges[i].to;
	}
	if (g->n > 1)
		qsort(g->ids, g->n, sizeof(*g->ids), _kbx_cmp_u32);
	size_t nv = 0;
	for (size_t i = 0; i < g->n; i++)
		if (!nv || g->ids[nv - 1] != g->ids[i])
			g->ids[nv++] = g->ids[i];
	g->n = nv;
	g->off_all = calloc(nv + 1, sizeof(size_t));
	g->off_cert = calloc(nv + 1, sizeof(size_t));
	g->tg_all = malloc((m + 1) * sizeof(uint32_t));
	g->tg_cert = malloc((m + 1) * sizeof(uint32_t));
	g->e_all = malloc((m + 1) * sizeof(uint32_t));
	if (!g->off_all || !g->off_cert || !g->tg_all || !g->tg_cert || !g->e_all)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	/* edges are sorted by source id, so by source vertex too */
	for (size_t i = 0; i < m; i++) {
		size_t u = vertex_of(g->ids, nv, g->edges[i].from);
		g->off_all[u + 1]++;
		if (g->edges[i].certain)
			g->off_cert[u + 1]++;
	}
	for (size_t v = 0; v < nv; v++) {
		g->off_all[v + 1] += g->off_all[v];
		g->off_cert[v + 1] += g->off_cert[v];
	}
	size_t ia = 0, ic = 0;
	for (size_t i = 0; i < m; i++) {
		uint32_t w = (uint32_t)vertex_of(g->ids, nv, g->edges[i].to);
		g->e_all[ia] = (uint32_t)i;
		g->tg_all[ia++] = w;
		if (g->edges[i].certain)
			g->tg_cert[ic++] = w;
	}
	return KBX_OK;
}

static int cid_less(kbx_store_t *s, uint32_t a, uint32_t b)
{
	struct kbx_node x, y;
	if (kbx_node_get(s, a, &x, NULL) || kbx_node_get(s, b, &y, NULL))
		return a < b;
	return strcmp(x.cid, y.cid) < 0;
}

/* The components of one set of adjacency arrays: each one's size,
 * whether a vertex in it has an edge to itself, and its vertex with the
 * smallest canonical id. */
struct comps {
	uint32_t *comp;
	size_t n;
	size_t *size;
	int *self;
	uint32_t *first;
};

static void comps_release(struct comps *c)
{
	free(c->comp);
	free(c->size);
	free(c->self);
	free(c->first);
}

static kbx_status_t components(kbx_store_t *s, const struct kbx_depgraph *g, const size_t *off,
			       const uint32_t *tg, struct comps *c, struct kbx_error *err)
{
	size_t nv = g->n;
	c->comp = malloc((nv + 1) * sizeof(*c->comp));
	if (!c->comp)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	kbx_status_t st = kbx_scc(nv, off, tg, c->comp, &c->n, err);
	if (st)
		return st;
	c->size = calloc(c->n + 1, sizeof(*c->size));
	c->self = calloc(c->n + 1, sizeof(*c->self));
	c->first = malloc((c->n + 1) * sizeof(*c->first));
	if (!c->size || !c->self || !c->first)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t v = 0; v < nv; v++) {
		uint32_t k = c->comp[v];
		if (!c->size[k]++ || cid_less(s, g->ids[v], g->ids[c->first[k]]))
			c->first[k] = (uint32_t)v;
		for (size_t i = off[v]; i < off[v + 1]; i++)
			if (tg[i] == v)
				c->self[k] = 1;
	}
	return KBX_OK;
}

kbx_status_t kbx_depgraph_cycles(kbx_store_t *s, struct kbx_depgraph *g, int certain_only,
				 kbx_cycle_fn fn, void *data, struct kbx_error *err)
{
	struct comps all = { 0 }, cert = { 0 };
	uint32_t *path = NULL;
	kbx_status_t st = layout(g, err);
	size_t nv = g->n;
	if (st || !nv)
		goto out;
	if ((st = components(s, g, g->off_cert, g->tg_cert, &cert, err)) ||
	    (!certain_only && (st = components(s, g, g->off_all, g->tg_all, &all, err))))
		goto out;
	path = malloc(nv * sizeof(*path));
	if (!path) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* cycles the index proves */
	for (size_t k = 0; k < cert.n; k++) {
		if (cert.size[k] < 2 && !cert.self[k])
			continue;
		size_t len;
		struct kbx_error cerr = KBX_ERROR_INIT;
		if (kbx_scc_cycle(nv, g->off_cert, g->tg_cert, cert.comp, cert.first[k],
				  KBX_ANY_VERTEX, path, &len, &cerr)) {
			if (cerr.status == KBX_ERR_NOMEM) {
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				goto out;
			}
			continue;
		}
		if (fn(data, g, path, len, cert.size[k], 1))
			goto out;
	}
	/* cycles that close only through ambiguous edges: a component of
	 * the whole graph that is not one of the certain graph */
	for (size_t k = 0; !certain_only && k < all.n; k++) {
		if (all.size[k] < 2 && !all.self[k])
			continue;
		uint32_t f = all.first[k];
		uint32_t cc = cert.comp[f];
		if (cert.size[cc] == all.size[k] && (all.size[k] > 1 || cert.self[cc]))
			continue;
		/* show a cycle through an ambiguous edge: start at the source of
		 * one that joins two certain components (or closes a loop) */
		uint32_t start = f, first = KBX_ANY_VERTEX;
		for (size_t v = 0; v < nv && first == KBX_ANY_VERTEX; v++) {
			if (all.comp[v] != k)
				continue;
			for (size_t i = g->off_all[v]; i < g->off_all[v + 1]; i++) {
				uint32_t w = g->tg_all[i];
				if (all.comp[w] == k && !g->edges[g->e_all[i]].certain &&
				    (cert.comp[w] != cert.comp[v] || w == v)) {
					start = (uint32_t)v;
					first = w;
					break;
				}
			}
		}
		size_t len;
		struct kbx_error cerr = KBX_ERROR_INIT;
		if (kbx_scc_cycle(nv, g->off_all, g->tg_all, all.comp, start, first, path, &len,
				  &cerr)) {
			if (cerr.status == KBX_ERR_NOMEM) {
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				goto out;
			}
			continue;
		}
		if (fn(data, g, path, len, all.size[k], 0))
			goto out;
	}
out:
	free(path);
	comps_release(&all);
	comps_release(&cert);
	return st;
}
