/*
 * What depends on a set of nodes, for kbx impact and kbx changed
 * --callers: a breadth-first walk of incoming calls (and imports) from
 * each, keeping for every node the smallest distance and the start it
 * is reached from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dependents.h"
#include "graph/graph.h"
#include "lang/lang.h"

/* One affected node: the smallest distance found, and from which start. */
struct hit {
	uint32_t id;
	uint32_t distance;
	uint32_t seed;          /* the changed node it is reached from */
	int confidence;         /* the weakest edge on the way (ambiguous counts) */
	struct kbx_node node;   /* valid while the store is open */
};

struct dependents {
	kbx_store_t *store;
	struct hit *hits;
	size_t n, alloc;
	uint32_t max_depth;
	unsigned walk_flags;
	uint32_t seed;          /* the seed being walked */
	uint32_t base;          /* its own distance (0) */
	struct _kbx_idmap map;  /* node id -> its hit */
};

static struct hit *find_hit(struct dependents *im, uint32_t id)
{
	long i = _kbx_idmap_get(&im->map, id);
	return i < 0 ? NULL : &im->hits[i];
}

/* Index the hits by id again (after sorting them); -1 when memory runs
 * out. */
static int index_hits(struct dependents *im)
{
	_kbx_idmap_clear(&im->map);
	for (size_t k = 0; k < im->n; k++)
		if (_kbx_idmap_put(&im->map, im->hits[k].id, (uint32_t)k))
			return -1;
	return 0;
}

static int add_hit(struct dependents *im, const struct kbx_node *n, uint32_t distance,
		   uint32_t seed, int confidence)
{
	struct hit *h = find_hit(im, n->id);
	if (h) {
		if (distance < h->distance) {
			h->distance = distance;
			h->seed = seed;
			h->confidence = confidence;
		} else if (distance == h->distance && confidence < h->confidence) {
			h->confidence = confidence;
		}
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
	if (_kbx_idmap_put(&im->map, n->id, (uint32_t)im->n))
		return -1;
	h = &im->hits[im->n++];
	h->id = n->id;
	h->distance = distance;
	h->seed = seed;
	h->confidence = confidence;
	h->node = *n;
	return 0;
}

static int on_edge(void *data, const struct kbx_edge *e)
{
	struct dependents *im = data;
	/* the caller or importer is the edge's source, one hop further than
	 * its target: the way is as weak as its weakest edge */
	const struct hit *near = find_hit(im, e->to.id);
	int conf = kbx_edge_wanted(e, KBX_WALK_CERTAIN) &&
		(!near || near->confidence == KBX_CONF_CERTAIN) ? KBX_CONF_CERTAIN
								: KBX_CONF_AMBIGUOUS;
	return add_hit(im, &e->from, im->base + e->depth, im->seed, conf);
}

kbx_status_t dependents_walk(struct dependents *im, const struct kbx_node *n,
			     struct kbx_error *err)
{
	kbx_status_t st = KBX_OK;
	im->seed = n->id;
	im->base = 0;
	if (add_hit(im, n, 0, n->id, KBX_CONF_CERTAIN))
		return KBX_ERR_NOMEM;
	st = kbx_walk_edges_flags(im->store, n->id, KBX_EDGE_CALLS, KBX_DIR_IN, im->max_depth,
				  im->walk_flags, on_edge, im, err);
	if (!st && (n->kind == KBX_KIND_FILE || n->kind == KBX_KIND_MODULE))
		st = kbx_walk_edges_flags(im->store, n->id, KBX_EDGE_IMPORTS, KBX_DIR_IN,
					  im->max_depth, im->walk_flags, on_edge, im, err);
	return st;
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
		_kbx_idmap_release(&d->map);
	}
	free(d);
}

size_t dependents_count(const struct dependents *d)
{
	return d->n;
}

/* nearest first, then by id, for a stable order */
static int by_distance(const void *a, const void *b)
{
	const struct hit *x = a, *y = b;
	if (x->distance != y->distance)
		return x->distance < y->distance ? -1 : 1;
	return strcmp(x->node.cid, y->node.cid);
}

void dependents_print(struct out *o, struct dependents *im, int skip_start)
{
	if (im->n)
		qsort(im->hits, im->n, sizeof(*im->hits), by_distance);
	/* the table points into the old order: the seeds are looked up
	 * below; without a table (out of memory) each shows itself */
	if (index_hits(im))
		_kbx_idmap_release(&im->map);
	uint32_t last = (uint32_t)-1;
	for (size_t i = 0; i < im->n; i++) {
		const struct hit *h = &im->hits[i];
		const struct kbx_node *n = &h->node;
		const struct hit *seed = find_hit(im, h->seed);
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
				       out_grep_path(NULL, n->path, n->path_len),
				       n->line ? n->line : 1, n->col ? n->col : 1,
				       h->distance ? "affected" : "changed",
				       out_esc(n->kind == KBX_KIND_FILE ? n->cid : n->qual), h->distance);
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
			out_field_int(o, "distance", h->distance);
			out_field_str(o, "from", seed ? seed->node.cid : n->cid);
			out_field_str(o, "confidence", kbx_confidence_str(h->confidence));
			out_record_end(o);
			break;
		default:
			if (h->distance != last) {
				out_heading(o, h->distance ? "distance %u" : "changed", h->distance);
				last = h->distance;
			}
			if (n->path)
				printf("  %s:%u  %s (%s)", out_escn(n->path, n->path_len), n->line,
				       out_esc(n->kind == KBX_KIND_FILE ? n->cid : n->qual),
				       kbx_kind_str(n->kind));
			else
				printf("  %s (%s)", out_esc(n->qual), kbx_kind_str(n->kind));
			if (h->distance && seed)
				printf("  <- %s", out_esc(seed->node.kind == KBX_KIND_FILE
							  ? seed->node.cid : seed->node.qual));
			if (h->confidence == KBX_CONF_AMBIGUOUS)
				printf("  (through an ambiguous call)");
			putchar('\n');
		}
	}
}

