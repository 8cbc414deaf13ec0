/*
 * Scans of the whole graph: every node, every edge of some kinds, and the
 * definitions a name reference stands for.  One cursor pass over a table
 * each; node views point into the memory map.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "graph/graph.h"

kbx_status_t kbx_scan_edges(kbx_store_t *s, unsigned kinds, kbx_edge_fn fn, void *data,
			    struct kbx_error *err)
{
	MDB_txn *txn = _kbx_txn(s);
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, s->edges, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the edges of the index");
	if (!kinds)
		kinds = ~0u;
	struct kbx_node from = { 0 }, to;
	int have_from = 0;
	kbx_status_t st = KBX_OK;
	MDB_val k, d;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		const unsigned char *key = k.mv_data;
		if (k.mv_size != KBX_EDGE_KEY_LEN) {
			st = KBX_ERR_CORRUPT;
			break;
		}
		int kind = key[4];
		if (kind >= 32 || !(kinds & KBX_EDGE_MASK(kind)))
			continue;
		uint32_t src = _kbx_get_u32(key), dst = _kbx_get_u32(key + 5);
		/* the edges of one source are adjacent: read it once */
		if (!have_from || from.id != src) {
			if (_kbx_node_read(s, txn, src, &from)) {
				st = KBX_ERR_CORRUPT;
				break;
			}
			have_from = 1;
		}
		struct _kbx_edge_val v;
		if (_kbx_edge_val_decode(d.mv_data, d.mv_size, &v) || _kbx_node_read(s, txn, dst, &to)) {
			st = KBX_ERR_CORRUPT;
			break;
		}
		struct kbx_edge e = { 0 };
		e.kind = kind;
		e.confidence = v.confidence;
		e.via = v.via;
		e.ncandidates = v.ncandidates;
		e.from = from;
		e.to = to;
		e.depth = 1;
		e.sites = v.sites;
		e.nsites = v.nsites;
		if (fn(data, &e))
			break;
	}
	mdb_cursor_close(c);
	if (st)
		return _kbx_fail(err, st, "an edge of the index does not decode: run 'kbx index --rebuild'");
	if (rc && rc != MDB_NOTFOUND)
		return _kbx_fail_mdb(err, rc, "cannot read the edges of the index");
	return KBX_OK;
}

kbx_status_t kbx_scan_nodes(kbx_store_t *s, unsigned kinds, kbx_node_fn fn, void *data,
			    struct kbx_error *err)
{
	MDB_cursor *c;
	int rc = mdb_cursor_open(_kbx_txn(s), s->nodes, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the nodes of the index");
	if (!kinds)
		kinds = ~0u;
	kbx_status_t st = KBX_OK;
	MDB_val k, d;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct kbx_node n;
		if (k.mv_size != 4 || _kbx_node_decode(d.mv_data, d.mv_size, _kbx_get_u32(k.mv_data), &n)) {
			st = KBX_ERR_CORRUPT;
			break;
		}
		if (n.kind >= 32 || !(kinds & KBX_KIND_MASK(n.kind)))
			continue;
		if (fn(data, &n))
			break;
	}
	mdb_cursor_close(c);
	if (st)
		return _kbx_fail(err, st, "a node of the index does not decode: run 'kbx index --rebuild'");
	if (rc && rc != MDB_NOTFOUND)
		return _kbx_fail_mdb(err, rc, "cannot read the nodes of the index");
	return KBX_OK;
}

kbx_status_t kbx_name_candidates(kbx_store_t *s, const struct kbx_node *ref, int lang,
				 struct kbx_nodelist *out, struct kbx_error *err)
{
	if (ref->kind != KBX_KIND_NAMEREF)
		return _kbx_fail(err, KBX_ERR_USAGE, "'%s' is not a name reference", ref->cid);
	size_t len = strlen(ref->name), start = out->n;
	if (!len)
		return KBX_NOT_FOUND;
	MDB_txn *txn = _kbx_txn(s);
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, s->names, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the name index");
	MDB_val k = { len, (void *)ref->name }, d;
	kbx_status_t st = KBX_OK;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_SET_KEY); !rc && !st;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT_DUP)) {
		struct kbx_node n;
		if (d.mv_size != 4 || _kbx_node_read(s, txn, _kbx_get_u32(d.mv_data), &n)) {
			st = KBX_ERR_CORRUPT;
			break;
		}
		if (KBX_KIND_IS_CALLABLE(n.kind) && _kbx_lang_family(lang) == _kbx_lang_family(n.lang))
			st = _kbx_nodelist_add(out, &n);
	}
	mdb_cursor_close(c);
	if (st == KBX_ERR_NOMEM)
		return _kbx_fail(err, st, "out of memory");
	if (st)
		return _kbx_fail(err, st, "the name index does not decode: run 'kbx index --rebuild'");
	if (rc && rc != MDB_NOTFOUND)
		return _kbx_fail_mdb(err, rc, "cannot read the name index");
	return out->n > start ? KBX_OK : KBX_NOT_FOUND;
}

struct kbx_cand_entry {
	uint32_t ref;
	int family;
	struct kbx_nodelist list;
};

kbx_status_t kbx_cand_cache_get(kbx_store_t *s, struct kbx_cand_cache *cache,
				const struct kbx_node *ref, int lang,
				const struct kbx_nodelist **out, struct kbx_error *err)
{
	int family = _kbx_lang_family(lang);
	for (size_t i = 0; i < cache->n; i++)
		if (cache->items[i].ref == ref->id && cache->items[i].family == family) {
			*out = &cache->items[i].list;
			return KBX_OK;
		}
	if (cache->n == cache->alloc) {
		size_t na = cache->alloc ? cache->alloc * 2 : 32;
		struct kbx_cand_entry *p = realloc(cache->items, na * sizeof(*p));
		if (!p)
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		cache->items = p;
		cache->alloc = na;
	}
	struct kbx_cand_entry *e = &cache->items[cache->n];
	memset(e, 0, sizeof(*e));
	e->ref = ref->id;
	e->family = family;
	kbx_status_t st = kbx_name_candidates(s, ref, lang, &e->list, err);
	if (st && st != KBX_NOT_FOUND) {
		kbx_nodelist_release(&e->list);
		return st;
	}
	cache->n++;
	*out = &e->list;
	return KBX_OK;
}

void kbx_cand_cache_release(struct kbx_cand_cache *cache)
{
	for (size_t i = 0; i < cache->n; i++)
		kbx_nodelist_release(&cache->items[i].list);
	free(cache->items);
	memset(cache, 0, sizeof(*cache));
}
