/*
 * What depends on a set of nodes, for kbx impact and kbx changed
 * --callers: a breadth-first walk of incoming calls (and imports) from
 * each, keeping for every node the smallest distance and the start it
 * is reached from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-graph.h"
#include "dependents.h"
#include "graph/graph.h"
#include "lang/lang.h"

/* One affected node: the smallest distance found, and from which start. */
struct hit {
	uint32_t repo;          /* kbx --db: its repository's index (db_graph_repo_name) */
	uint32_t id;
	uint32_t distance;
	uint32_t seed_repo;
	uint32_t seed;          /* the changed node it is reached from */
	int confidence;         /* the weakest edge on the way (ambiguous counts) */
	int kind;               /* the edge that reached it: KBX_EDGE_CALLS or _IMPORTS */
	int weak_kind;          /* when ambiguous: the kind of the first guessed edge */
	struct kbx_node node;   /* valid while the store is open */
};

struct dependents {
	kbx_store_t *store;
	struct db_graph *db;    /* kbx --db: the database walked */
	struct db_edge_repos at; /* where the edge being handed over lies */
	struct hit *hits;
	size_t n, alloc;
	uint32_t max_depth;
	unsigned walk_flags;
	uint32_t seed_repo;
	uint32_t seed;          /* the seed being walked */
	uint32_t base;          /* its own distance (0) */
	/* node id -> its hit, a table per repository (one but with kbx
	 * --db --all-repos) */
	struct _kbx_idmap *maps;
	size_t nmaps;
};

static struct hit *find_hit(struct dependents *im, uint32_t repo, uint32_t id)
{
	long i = repo < im->nmaps ? _kbx_idmap_get(&im->maps[repo], id) : -1;
	return i < 0 ? NULL : &im->hits[i];
}

static int map_put(struct dependents *im, uint32_t repo, uint32_t id, uint32_t index)
{
	if (repo >= im->nmaps) {
		struct _kbx_idmap *p = realloc(im->maps, (repo + 1) * sizeof(*p));
		if (!p)
			return -1;
		memset(p + im->nmaps, 0, (repo + 1 - im->nmaps) * sizeof(*p));
		im->maps = p;
		im->nmaps = repo + 1;
	}
	return _kbx_idmap_put(&im->maps[repo], id, index);
}

static void maps_release(struct dependents *im)
{
	for (size_t i = 0; i < im->nmaps; i++)
		_kbx_idmap_release(&im->maps[i]);
	free(im->maps);
	im->maps = NULL;
	im->nmaps = 0;
}

/* Index the hits by id again (after sorting them); -1 when memory runs
 * out. */
static int index_hits(struct dependents *im)
{
	for (size_t i = 0; i < im->nmaps; i++)
		_kbx_idmap_clear(&im->maps[i]);
	for (size_t k = 0; k < im->n; k++)
		if (map_put(im, im->hits[k].repo, im->hits[k].id, (uint32_t)k))
			return -1;
	return 0;
}

/* How it was reached: the edge's kind, and which kind of edge was the
 * guess when the way is ambiguous. */
struct reached {
	uint32_t distance, seed_repo, seed;
	int confidence, kind, weak_kind;
};

static void set_reached(struct hit *h, const struct reached *r)
{
	h->distance = r->distance;
	h->seed_repo = r->seed_repo;
	h->seed = r->seed;
	h->confidence = r->confidence;
	h->kind = r->kind;
	h->weak_kind = r->weak_kind;
}

static int add_hit(struct dependents *im, uint32_t repo, const struct kbx_node *n,
		   const struct reached *r)
{
	struct hit *h = find_hit(im, repo, n->id);
	if (h) {
		if (r->distance < h->distance ||
		    (r->distance == h->distance && r->confidence < h->confidence))
			set_reached(h, r);
		return 0;
	}
	if (im->n == im->alloc) {
		size_t na = im->alloc ? im->alloc * 2 : 64;
		struct hit *p = realloc(im->hits, na * sizeof(*p));
		if (!p)
			return -1;
		im->hits = p;
		im->alloc = na;
	}
	if (map_put(im, repo, n->id, (uint32_t)im->n))
		return -1;
	h = &im->hits[im->n++];
	h->repo = repo;
	h->id = n->id;
	set_reached(h, r);
	h->node = *n;
	return 0;
}

static int on_edge(void *data, const struct kbx_edge *e)
{
	struct dependents *im = data;
	/* the caller or importer is the edge's source, one hop further than
	 * its target: the way is as weak as its weakest edge */
	uint32_t from_repo = im->db ? (uint32_t)im->at.from : 0;
	const struct hit *near = find_hit(im, im->db ? (uint32_t)im->at.to : 0, e->to.id);
	struct reached r = { im->base + e->depth, im->seed_repo, im->seed, KBX_CONF_CERTAIN,
			     e->kind, 0 };
	if (near && near->confidence != KBX_CONF_CERTAIN) {
		r.confidence = KBX_CONF_AMBIGUOUS;
		r.weak_kind = near->weak_kind;
	} else if (!kbx_edge_wanted(e, KBX_WALK_CERTAIN)) {
		r.confidence = KBX_CONF_AMBIGUOUS;
		r.weak_kind = e->kind;
	}
	return add_hit(im, from_repo, &e->from, &r);
}

static int add_start(struct dependents *im, uint32_t repo, const struct kbx_node *n)
{
	struct reached start = { 0, repo, n->id, KBX_CONF_CERTAIN, 0, 0 };
	im->seed_repo = repo;
	im->seed = n->id;
	im->base = 0;
	return add_hit(im, repo, n, &start);
}

/* The kinds of edge walked into n: calls, and imports for a file or a
 * module. */
static int walks_imports(const struct kbx_node *n)
{
	return n->kind == KBX_KIND_FILE || n->kind == KBX_KIND_MODULE;
}

kbx_status_t dependents_walk(struct dependents *im, const struct kbx_node *n,
			     struct kbx_error *err)
{
	kbx_status_t st = KBX_OK;
	if (add_start(im, 0, n))
		return KBX_ERR_NOMEM;

	st = kbx_walk_edges_flags(im->store, n->id, KBX_EDGE_CALLS, KBX_DIR_IN, im->max_depth,
				  im->walk_flags, on_edge, im, err);
	if (!st && walks_imports(n))
		st = kbx_walk_edges_flags(im->store, n->id, KBX_EDGE_IMPORTS, KBX_DIR_IN,
					  im->max_depth, im->walk_flags, on_edge, im, err);
	return st;
}

int dependents_walk_db(struct dependents *im, struct db_graph *db, size_t repo,
		       const struct kbx_node *n)
{
	im->db = db;
	if (add_start(im, (uint32_t)repo, n)) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	int rc = db_graph_walk_node(db, repo, n, KBX_EDGE_CALLS, KBX_DIR_IN, im->max_depth,
				    im->walk_flags, on_edge, im, &im->at);
	if (!rc && walks_imports(n))
		rc = db_graph_walk_node(db, repo, n, KBX_EDGE_IMPORTS, KBX_DIR_IN, im->max_depth,
					im->walk_flags, on_edge, im, &im->at);
	return rc;
}

struct dependents *dependents_new(kbx_store_t *store, uint32_t max_depth, unsigned walk_flags)
{
	struct dependents *d = calloc(1, sizeof(*d));
	if (d) {
		d->store = store;
		d->max_depth = max_depth;
		d->walk_flags = walk_flags;
	}
	return d;
}

void dependents_free(struct dependents *d)
{
	if (d) {
		free(d->hits);
		maps_release(d);
	}
	free(d);
}

size_t dependents_count(const struct dependents *d)
{
	return d->n;
}

/* nearest first, then by place (path, line, id), as kbx callers lists
 * them; nodes of no file (modules, externals) after those of files;
 * then by repository (in the order of their names) */
static int by_distance(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	int c = kbx_node_place_cmp(&x->node, &y->node);
	if (c)
		return c;
	return x->repo < y->repo ? -1 : x->repo > y->repo;
}

/* How a node reads in text: a file by its path, the rest by qualified
 * name. */
static const char *shown_name(const struct kbx_node *n)
{
	return n->kind == KBX_KIND_FILE ? n->cid : n->qual;
}

/* The heading over the nodes at one distance, saying what the number
 * means: "distance 1: direct callers", "distance 2: their callers and
 * importers".  kinds: bit 0 a call reached some, bit 1 an import. */
static void distance_heading(struct out *o, uint32_t distance, unsigned kinds)
{
	static const char *const what[] = { "callers", "callers", "importers",
					     "callers and importers" };
	if (!distance)
		out_heading(o, "changed");
	else
		out_heading(o, "distance %u: %s %s", distance, distance == 1 ? "direct" : "their",
			    what[kinds & 3]);
}

/* The kinds of edge that reached the nodes at hits[i]'s distance. */
static unsigned kinds_at(const struct hit *hits, size_t n, size_t i)
{
	unsigned kinds = 0;
	for (size_t k = i; k < n && hits[k].distance == hits[i].distance; k++)
		kinds |= hits[k].kind == KBX_EDGE_IMPORTS ? 2 : 1;
	return kinds;
}

/* How a starting node is named after "depends on": by its qualified
 * name, or its id when another start has the same one. */
static const char *seed_name(const struct dependents *im, const struct hit *s)
{
	for (size_t i = 0; i < im->n && !im->hits[i].distance; i++)
		if ((im->hits[i].id != s->id || im->hits[i].repo != s->repo) &&
		    !strcmp(shown_name(&im->hits[i].node), shown_name(&s->node)))
			return s->node.cid;
	return shown_name(&s->node);
}

/* kbx --db --all-repos: the name of a hit's repository, else NULL. */
static const char *repo_name(const struct dependents *im, const struct hit *h)
{
	return h && im->db && db_graph_all(im->db) ? db_graph_repo_name(im->db, h->repo) : NULL;
}

void dependents_print(struct out *o, struct dependents *im, int skip_start)
{
	if (im->n)
		qsort(im->hits, im->n, sizeof(*im->hits), by_distance);
	/* the table points into the old order: the seeds are looked up
	 * below; without a table (out of memory) each shows itself */
	if (index_hits(im))
		maps_release(im);
	/* the starts come first, at distance 0: with one, "depends on"
	 * would say the same thing on every line */
	size_t nseeds = 0;
	while (nseeds < im->n && !im->hits[nseeds].distance)
		nseeds++;
	uint32_t last = (uint32_t)-1;
	for (size_t i = 0; i < im->n; i++) {
		const struct hit *h = &im->hits[i];
		const struct kbx_node *n = &h->node;
		const struct hit *seed = find_hit(im, h->seed_repo, h->seed);
		const char *repo = repo_name(im, h), *seed_repo = repo_name(im, seed);
		if (out_is_picture(o)) {
			/* what is affected points at what it depends on */
			char label[32];
			if (!i)
				out_picture_title(o, nseeds == 1 ? "impact of %s" : "impact of %s and more",
						  n->cid);
			if (!h->distance || !seed) {
				out_picture_node_in(o, h->repo, repo, n, !h->distance);
				continue;
			}
			snprintf(label, sizeof(label), "distance %u", h->distance);
			out_picture_edge_in(o, h->repo, repo, n, seed->repo, seed_repo, &seed->node,
					    h->confidence, label);
			continue;
		}
		if (skip_start && !h->distance)
			continue;
		switch (out_format(o)) {
		case FMT_NUL:
			fputs(n->cid, stdout);
			putchar('\0');
			break;
		case FMT_GREP:
			if (n->path)
				printf("%s:%u:%u: %s %s (distance %u)\n",
				       out_grep_path(repo, n->path, n->path_len),
				       n->line ? n->line : 1, n->col ? n->col : 1,
				       h->distance ? "affected" : "changed", out_esc(shown_name(n)),
				       h->distance);
			break;
		case FMT_JSON:
			out_record_begin(o, h->distance ? "affected" : "changed");
			out_field_str(o, "id", n->cid);
			out_field_str(o, "name", n->name);
			out_field_str(o, "kind", kbx_kind_str(n->kind));
			if (n->path) {
				char *p = strndup(n->path, n->path_len);
				out_field_str(o, "path", p);
				free(p);
				out_field_int(o, "line", n->line);
			} else {
				out_field_str(o, "path", NULL);
				out_field_str(o, "line", NULL);
			}
			if (repo)
				out_field_str(o, "repo", repo);
			out_field_int(o, "distance", h->distance);
			out_field_str(o, "from", seed ? seed->node.cid : n->cid);
			if (repo)
				out_field_str(o, "from_repo", seed ? seed_repo : repo);
			out_field_str(o, "confidence", kbx_confidence_str(h->confidence));
			out_record_end(o);
			break;
		default:
			if (h->distance != last) {
				distance_heading(o, h->distance, kinds_at(im->hits, im->n, i));
				last = h->distance;
			}
			fputs("  ", stdout);
			if (repo)
				printf("[%s] ", out_esc(repo));
			if (n->path)
				printf("%s:%u  %s (%s)", out_escn(n->path, n->path_len), n->line,
				       out_esc(shown_name(n)), kbx_kind_str(n->kind));
			else
				printf("%s (%s)", out_esc(shown_name(n)), kbx_kind_str(n->kind));
			if (h->distance && seed && nseeds > 1)
				printf("  depends on %s%s%s%s", seed_repo ? "[" : "",
				       seed_repo ? out_esc(seed_repo) : "", seed_repo ? "] " : "",
				       out_esc(seed_name(im, seed)));
			if (h->confidence == KBX_CONF_AMBIGUOUS)
				printf("  (through an ambiguous %s)",
				       h->weak_kind == KBX_EDGE_IMPORTS ? "import" : "call");
			putchar('\n');
		}
	}
}
