/*
 * The graph and the search a hybrid plan reads (struct kbx_hybrid_graph),
 * over a store: kbx_hybrid() asks its own index through these.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "hybrid/hybrid.h"
#include "graph/graph.h"
#include "search/search.h"

static kbx_status_t sg_lookup(void *data, const char *symbol, struct kbx_nodelist *out,
			      struct kbx_error *err)
{
	return kbx_lookup(data, symbol, out, err);
}

static kbx_status_t sg_node(void *data, uint32_t id, struct kbx_node *out, struct kbx_error *err)
{
	struct kbx_store *s = data;
	if (!id || _kbx_node_read(s, _kbx_txn(s), id, out))
		return _kbx_fail(err, KBX_NOT_FOUND, "no node %u", id);
	return KBX_OK;
}

static kbx_status_t sg_node_by_cid(void *data, const char *cid, struct kbx_node *out,
				   struct kbx_error *err)
{
	return sg_node(data, _kbx_id_of(data, cid), out, err);
}

struct prefixed {
	struct kbx_store *s;
	kbx_hybrid_node_fn fn;
	void *fdata;
};

static int on_prefixed(void *data, const char *id, size_t len, int kind)
{
	struct prefixed *p = data;
	(void)kind;
	char *cid = strndup(id, len);
	uint32_t nid = cid ? _kbx_id_of(p->s, cid) : 0;
	free(cid);
	struct kbx_node n;
	if (nid && _kbx_node_read(p->s, _kbx_txn(p->s), nid, &n) == KBX_OK)
		return p->fn(p->fdata, &n);
	return 0;
}

static kbx_status_t sg_prefixed(void *data, const char *prefix, kbx_hybrid_node_fn fn,
				void *fdata, struct kbx_error *err)
{
	struct prefixed p = { data, fn, fdata };
	return kbx_ids_with_prefix(data, prefix, 0, on_prefixed, &p, err);
}

/* Files whose path is t or ends in "/t". */
static kbx_status_t sg_files_named(void *data, const char *t, struct kbx_nodelist *out,
				   struct kbx_error *err)
{
	struct kbx_store *s = data;
	MDB_cursor *c;
	MDB_val k, d;
	size_t tl = strlen(t);
	if (mdb_cursor_open(_kbx_txn(s), s->files, &c))
		return _kbx_fail(err, KBX_ERR_STORE, "cannot read the files");
	for (int rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		const char *p = k.mv_data;
		if (k.mv_size < tl || memcmp(p + k.mv_size - tl, t, tl) ||
		    (k.mv_size > tl && p[k.mv_size - tl - 1] != '/'))
			continue;
		struct _kbx_file_rec r;
		struct kbx_node n;
		if (_kbx_file_rec_decode(d.mv_data, d.mv_size, &r) == KBX_OK &&
		    _kbx_node_read(s, _kbx_txn(s), r.id, &n) == KBX_OK)
			_kbx_nodelist_add(out, &n);
	}
	mdb_cursor_close(c);
	return KBX_OK;
}

static kbx_status_t sg_walk(void *data, const struct kbx_node *n, int kind, int dir,
			    uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *fdata,
			    struct kbx_error *err)
{
	return kbx_walk_edges_flags(data, n->id, kind, dir, max_depth, flags, fn, fdata, err);
}

static kbx_status_t sg_name_candidates(void *data, const struct kbx_node *ref, int lang,
				       struct kbx_nodelist *out, struct kbx_error *err)
{
	return kbx_name_candidates(data, ref, lang, out, err);
}

static kbx_status_t sg_suggest(void *data, const char *symbol, size_t max,
			       struct kbx_nodelist *out, struct kbx_error *err)
{
	return kbx_suggest(data, symbol, max, out, err);
}

/* fn with each code chunk of file path (its source record), until fn
 * returns non-zero. */
static kbx_status_t each_code_chunk(struct kbx_store *s, const char *path, size_t path_len,
				    kbx_chunk_fn fn, void *data, struct kbx_error *err)
{
	char key[1100];
	if (snprintf(key, sizeof(key), "c:%.*s", (int)path_len, path) >= (int)sizeof(key))
		return _kbx_fail(err, KBX_NOT_FOUND, "path too long");
	struct _kbx_source_rec r;
	struct _kbx_chunk_view v;
	kbx_status_t st = _kbx_source_get(s, _kbx_txn(s), key, &r, err);
	if (st)
		return st;
	for (uint32_t j = 0; j < r.nchunks; j++) {
		uint32_t id = _kbx_get_u32(r.ids + 4 * j);
		if (_kbx_chunk_get(s, _kbx_txn(s), id, &v) == KBX_OK && v.c.type == KBX_CHUNK_CODE &&
		    fn(data, id, &v.c))
			break;
	}
	return KBX_OK;
}

struct code_of {
	const char *cid;
	const char *text;
	size_t len;
};

static int take_code_of(void *data, uint32_t id, const struct kbx_chunk *c)
{
	struct code_of *co = data;
	(void)id;
	if (strcmp(c->doc_id, co->cid))
		return 0;
	co->text = c->text;
	co->len = c->text_len;
	return 1;
}

/* The code chunk of a node (its text), via its file's source record. */
static kbx_status_t sg_code_text(void *data, const struct kbx_node *n, const char **text,
				 size_t *len, struct kbx_error *err)
{
	struct kbx_store *s = data;
	struct kbx_node f;
	struct code_of co = { n->cid, NULL, 0 };
	if (!n->file || _kbx_node_read(s, _kbx_txn(s), n->file, &f) || !f.path)
		return _kbx_fail(err, KBX_NOT_FOUND, "no file");
	kbx_status_t st = each_code_chunk(s, f.path, f.path_len, take_code_of, &co, err);
	if (st)
		return st;
	if (!co.text)
		return _kbx_fail(err, KBX_NOT_FOUND, "no code chunk");
	*text = co.text;
	*len = co.len;
	return KBX_OK;
}

static kbx_status_t sg_file_chunks(void *data, const char *path, kbx_chunk_fn fn, void *fdata,
				   struct kbx_error *err)
{
	kbx_status_t st = each_code_chunk(data, path, strlen(path), fn, fdata, err);
	return st == KBX_NOT_FOUND ? KBX_OK : st;
}

static kbx_status_t sg_search(void *data, const struct kbx_search_query *q,
			      struct kbx_search_results *out, struct kbx_error *err)
{
	return kbx_search(data, q, out, err);
}

static kbx_status_t sg_documents(void *data, uint64_t *n, struct kbx_error *err)
{
	struct kbx_search_info info;
	kbx_status_t st = kbx_search_info(data, &info, err);
	*n = 0;
	for (int t = 0; !st && t < KBX_CHUNK__COUNT; t++)
		if (t != KBX_CHUNK_CODE)
			*n += info.by_type[t];
	return st;
}

/* Direct callers, certain or through the name kbx could not pin down. */
static uint32_t count_in_calls(struct kbx_store *s, const struct kbx_node *n)
{
	uint32_t count = 0;
	MDB_cursor *c;
	if (mdb_cursor_open(_kbx_txn(s), s->redges, &c))
		return 0;
	uint32_t targets[2] = { n->id, 0 };
	char cid[600];
	if (KBX_KIND_IS_CALLABLE(n->kind) && snprintf(cid, sizeof(cid), "name:%s", n->name) < (int)sizeof(cid))
		targets[1] = _kbx_id_of(s, cid);
	for (int t = 0; t < 2; t++) {
		if (!targets[t])
			continue;
		unsigned char key[KBX_EDGE_KEY_LEN];
		_kbx_edge_key(key, targets[t], KBX_EDGE_CALLS, 0);
		MDB_val k = { KBX_EDGE_KEY_LEN, key }, d;
		for (int rc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE); !rc;
		     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
			if (k.mv_size != KBX_EDGE_KEY_LEN || memcmp(k.mv_data, key, 5))
				break;
			count++;
		}
	}
	mdb_cursor_close(c);
	return count;
}

static int64_t file_mtime(struct kbx_store *s, const struct kbx_node *n)
{
	if (!n->path)
		return 0;
	MDB_val k = { n->path_len, (void *)n->path }, d;
	struct _kbx_file_rec r;
	if (mdb_get(_kbx_txn(s), s->files, &k, &d) || _kbx_file_rec_decode(d.mv_data, d.mv_size, &r))
		return 0;
	return r.mtime_ns / 1000000000;
}

static kbx_status_t sg_facts(void *data, struct kbx_hybrid_result *res, size_t n,
			     struct kbx_error *err)
{
	(void)err;
	for (size_t i = 0; i < n; i++) {
		res[i].callers = count_in_calls(data, &res[i].node);
		res[i].mtime = file_mtime(data, &res[i].node);
	}
	return KBX_OK;
}

void _kbx_hybrid_store_graph(kbx_store_t *store, struct kbx_hybrid_graph *g)
{
	*g = (struct kbx_hybrid_graph){
		.data = store,
		.lookup = sg_lookup,
		.node = sg_node,
		.node_by_cid = sg_node_by_cid,
		.prefixed = sg_prefixed,
		.files_named = sg_files_named,
		.walk = sg_walk,
		.name_candidates = sg_name_candidates,
		.suggest = sg_suggest,
		.code_text = sg_code_text,
		.search = sg_search,
		.documents = sg_documents,
		.facts = sg_facts,
		.file_chunks = sg_file_chunks,
	};
}
