/*
 * kbx --db hybrid: the plan of lib/hybrid/ (kbx_hybrid_over) over the
 * rows kbx push wrote, one repository at a time (db-graph.h): the
 * lookups, node reads and walks are db-graph.c's, the search
 * db-search.c's, so that the plan and its answer are the index's.
 *
 * A search within a part of the graph (a scope: "within", "called
 * by", the similarity of a traversal's results to the words) runs as
 * the index runs it (kbx_search_source with the scope's chunks).  What
 * the database does not give: "did you mean" for a name that names
 * nothing (kbx_suggest's edit distances over every name).
 *
 * The plan asks the node of each hit of a search by its cid, one at a
 * time: the hits' cids are remembered with the search, and their nodes
 * read in one statement at the first of them asked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-graph.h"
#include "db-hybrid.h"
#include "lang/lang.h"
#include "pg-client.h"
#include "util/strbuf.h"
#include "util/util.h"

static kbx_status_t failed(struct db_hgraph *h, int rc, struct kbx_error *err)
{
	h->rc = rc;
	return _kbx_fail(err, KBX_ERR_IO, "the database refused a statement");
}

/* sql with $1 the repository and $2 param (none when NULL). */
static int ask(struct db_hgraph *h, const char *sql, const char *param, struct kbx_pg_result **r,
	       const char *what)
{
	const char *params[] = { db_graph_repo_id(h->g, 0), param };
	return db_graph_query(h->g, sql, param ? 2 : 1, params, r, what);
}

static kbx_status_t in_lookup(void *data, const char *symbol, struct kbx_nodelist *out,
			      struct kbx_error *err)
{
	struct db_hgraph *h = data;
	size_t before = out->n;
	int rc = db_graph_find(h->g, symbol, out);
	if (rc)
		return failed(h, rc, err);
	return out->n > before ? KBX_OK : _kbx_fail(err, KBX_NOT_FOUND, "no symbol '%s'", symbol);
}

/* The one node where holds of, NOT_FOUND if none. */
static kbx_status_t one_node(struct db_hgraph *h, const char *where, const char *param,
			     struct kbx_node *out, struct kbx_error *err)
{
	struct kbx_nodelist l = KBX_NODELIST_INIT;
	int rc = db_graph_nodes(h->g, where, 1, &param, &l);
	kbx_status_t st = rc ? failed(h, rc, err) : l.n ? KBX_OK
				: _kbx_fail(err, KBX_NOT_FOUND, "no node %s", param);
	if (!st)
		*out = l.items[0];
	free(l.items);
	return st;
}

static kbx_status_t in_node(void *data, uint32_t id, struct kbx_node *out, struct kbx_error *err)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", id);
	return one_node(data, "n.id = $2::bigint", buf, out, err);
}

void db_hgraph_release(struct db_hgraph *h)
{
	for (size_t k = 0; k < h->nhits; k++)
		free(h->hits[k]);
	free(h->hits);
	free(h->node);
	free(h->nodes.items);
	h->hits = NULL;
	h->node = NULL;
	h->nhits = 0;
	h->nodes = (struct kbx_nodelist)KBX_NODELIST_INIT;
}

/* Remember the doc_ids of res's hits: the plan asks their nodes next
 * (read_hit_nodes). */
static kbx_status_t remember_hits(struct db_hgraph *h, const struct kbx_search_results *res,
				  struct kbx_error *err)
{
	db_hgraph_release(h);
	h->hits = calloc(res->n + 1, sizeof(*h->hits));
	for (size_t k = 0; h->hits && k < res->n; k++) {
		const char *cid = res->hits[k].chunk.doc_id;
		if (cid && *cid && !(h->hits[h->nhits++] = strdup(cid))) {
			db_hgraph_release(h);
			break;
		}
	}
	return h->hits ? KBX_OK : _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
}

/* The nodes of the hits remembered, in one statement; a cid that
 * names several is left to one_node, which reads it as before. */
static kbx_status_t read_hit_nodes(struct db_hgraph *h, struct kbx_error *err)
{
	struct strbuf arr = STRBUF_INIT;
	h->node = malloc((h->nhits + 1) * sizeof(*h->node));
	if (!h->node)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t k = 0; k < h->nhits; k++) {
		h->node[k] = -1;
		pg_array_add(&arr, h->hits[k], strlen(h->hits[k]));
	}
	pg_array_end(&arr);
	if (arr.failed) {
		strbuf_release(&arr);
		free(h->node);
		h->node = NULL;
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	const char *param = arr.buf;
	int rc = db_graph_nodes(h->g, "n.cid = ANY($2::text[])", 1, &param, &h->nodes);
	strbuf_release(&arr);
	if (rc) {
		free(h->node);
		h->node = NULL;
		return failed(h, rc, err);
	}
	for (size_t j = 0; j < h->nodes.n; j++)
		for (size_t k = 0; k < h->nhits; k++)
			if (!strcmp(h->hits[k], h->nodes.items[j].cid))
				h->node[k] = h->node[k] == -1 ? (int)j : -2;
	return KBX_OK;
}

static kbx_status_t in_node_by_cid(void *data, const char *cid, struct kbx_node *out,
				   struct kbx_error *err)
{
	struct db_hgraph *h = data;
	for (size_t k = 0; k < h->nhits; k++) {
		if (strcmp(h->hits[k], cid))
			continue;
		kbx_status_t st = h->node ? KBX_OK : read_hit_nodes(h, err);
		if (st)
			return st;
		if (h->node[k] == -2)
			break;
		if (h->node[k] < 0)
			return _kbx_fail(err, KBX_NOT_FOUND, "no node %s", cid);
		*out = h->nodes.items[h->node[k]];
		return KBX_OK;
	}
	return one_node(data, "n.cid = $2", cid, out, err);
}

static kbx_status_t in_prefixed(void *data, const char *prefix, kbx_hybrid_node_fn fn,
				void *fdata, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	struct kbx_nodelist l = KBX_NODELIST_INIT;
	int rc = db_graph_nodes(h->g, "starts_with(n.cid, $2) ORDER BY n.cid COLLATE \"C\"", 1,
				&prefix, &l);
	for (size_t i = 0; !rc && i < l.n; i++)
		if (fn(fdata, &l.items[i]))
			break;
	free(l.items);
	return rc ? failed(h, rc, err) : KBX_OK;
}

static kbx_status_t in_files_named(void *data, const char *t, struct kbx_nodelist *out,
				   struct kbx_error *err)
{
	struct db_hgraph *h = data;
	int rc = db_graph_nodes(h->g, "n.kind = 'file' AND (n.path = $2 OR "
				"right(n.path, length($2) + 1) = '/' || $2) ORDER BY n.path COLLATE \"C\"",
				1, &t, out);
	return rc ? failed(h, rc, err) : KBX_OK;
}

static kbx_status_t in_walk(void *data, const struct kbx_node *n, int kind, int dir,
			    uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *fdata,
			    struct kbx_error *err)
{
	struct db_hgraph *h = data;
	int rc = db_graph_walk_node(h->g, 0, n, kind, dir, max_depth, flags, fn, fdata, NULL);
	return rc ? failed(h, rc, err) : KBX_OK;
}

static kbx_status_t in_name_candidates(void *data, const struct kbx_node *ref, int lang,
				       struct kbx_nodelist *out, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	int rc = db_graph_name_candidates(h->g, 0, ref, lang, out);
	return rc ? failed(h, rc, err) : KBX_OK;
}

static kbx_status_t in_code_text(void *data, const struct kbx_node *n, const char **text,
				 size_t *len, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	struct kbx_pg_result *r;
	int rc = ask(h, "SELECT text FROM kbx.chunks WHERE repo = $1::int AND type = 'code' AND "
		     "doc_id = $2 ORDER BY id LIMIT 1", n->cid, &r, "cannot read a definition's code");
	if (rc)
		return failed(h, rc, err);
	const struct kbx_pg_ops *ops = db_graph_ops(h->g);
	if (!ops->nrows(r) || !ops->value(r, 0, 0))
		return _kbx_fail(err, KBX_NOT_FOUND, "no code chunk");
	*text = ops->value(r, 0, 0);
	*len = strlen(*text);
	return KBX_OK;
}

static kbx_status_t in_search(void *data, const struct kbx_search_query *q,
			      struct kbx_search_results *out, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	kbx_status_t st = KBX_OK;
	int rc = db_search(h->g, 0, q, out, &st, err);
	if (rc)
		return failed(h, rc, err);
	if (!st && (st = remember_hits(h, out, err)))
		kbx_search_results_release(out);
	return st;
}

static kbx_status_t in_documents(void *data, uint64_t *n, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	struct kbx_pg_result *r;
	int rc = ask(h, "SELECT count(*) FROM kbx.chunks WHERE repo = $1::int AND type <> 'code'",
		     NULL, &r, "cannot count the documents");
	if (rc)
		return failed(h, rc, err);
	const struct kbx_pg_ops *ops = db_graph_ops(h->g);
	*n = ops->nrows(r) && ops->value(r, 0, 0) ? strtoull(ops->value(r, 0, 0), NULL, 10) : 0;
	return KBX_OK;
}

/* Each result's callers (the calls of it, and of its name: when it is
 * a function or a method) and its file's time, in one statement. */
/* The code chunks of a file, for kbx context's bodies. */
static kbx_status_t in_file_chunks(void *data, const char *path, kbx_chunk_fn fn, void *fdata,
				   struct kbx_error *err)
{
	struct db_hgraph *h = data;
	struct kbx_pg_result *r;
	int rc = ask(h, "SELECT id, kind, line, end_line, text FROM kbx.chunks WHERE repo = $1::int "
		     "AND path = $2 AND type = 'code' ORDER BY id", path, &r,
		     "cannot read a file's definitions");
	if (rc)
		return failed(h, rc, err);
	const struct kbx_pg_ops *ops = db_graph_ops(h->g);
	for (size_t j = 0; j < ops->nrows(r); j++) {
		struct kbx_chunk c = { 0 };
		const char *kind = ops->value(r, j, 1), *text = ops->value(r, j, 4);
		c.type = KBX_CHUNK_CODE;
		c.kind = kind ? _kbx_kind_from_name(kind) : 0;
		c.path = path;
		c.line = (uint32_t)strtoul(ops->value(r, j, 2) ? ops->value(r, j, 2) : "0", NULL, 10);
		c.end_line = (uint32_t)strtoul(ops->value(r, j, 3) ? ops->value(r, j, 3) : "0", NULL, 10);
		c.text = text ? text : "";
		c.text_len = strlen(c.text);
		if (fn(fdata, (uint32_t)strtoul(ops->value(r, j, 0), NULL, 10), &c))
			break;
	}
	return KBX_OK;
}

static kbx_status_t in_facts(void *data, struct kbx_hybrid_result *res, size_t n,
			     struct kbx_error *err)
{
	struct db_hgraph *h = data;
	struct strbuf ids = STRBUF_INIT, names = STRBUF_INIT, paths = STRBUF_INIT, tmp = STRBUF_INIT;
	for (size_t i = 0; i < n; i++) {
		const struct kbx_node *nd = &res[i].node;
		strbuf_addf(&ids, "%s%u", i ? "," : "{", nd->id);
		strbuf_reset(&tmp);
		if (KBX_KIND_IS_CALLABLE(nd->kind))
			strbuf_addf(&tmp, "name:%s", nd->name);
		pg_array_add(&names, strbuf_str(&tmp), tmp.len);
		pg_array_add(&paths, nd->path ? nd->path : "", nd->path ? nd->path_len : 0);
	}
	strbuf_addch(&ids, '}');
	pg_array_end(&names);
	pg_array_end(&paths);
	int rc = 0;
	struct kbx_pg_result *r = NULL;
	if (ids.failed || names.failed || paths.failed || tmp.failed) {
		fprintf(stderr, "fatal: out of memory\n");
		rc = KBX_EXIT_INTERNAL;
	} else {
		const char *params[] = { db_graph_repo_id(h->g, 0), ids.buf, names.buf, paths.buf };
		rc = db_graph_query(h->g,
				    "SELECT t.i, (SELECT count(*) FROM kbx.edges e WHERE e.repo = $1::int "
				    "AND e.kind = 'calls' AND (e.dst = t.id OR e.dst = (SELECT m.id FROM "
				    "kbx.nodes m WHERE m.repo = $1::int AND m.cid = t.name))), "
				    "(SELECT f.mtime FROM kbx.files f WHERE f.repo = $1::int AND f.path = t.path) "
				    "FROM unnest($2::bigint[], $3::text[], $4::text[]) WITH ORDINALITY "
				    "AS t(id, name, path, i)",
				    4, params, &r, "cannot count the results' callers");
	}
	strbuf_release(&ids);
	strbuf_release(&names);
	strbuf_release(&paths);
	strbuf_release(&tmp);
	if (rc)
		return failed(h, rc, err);
	const struct kbx_pg_ops *ops = db_graph_ops(h->g);
	for (size_t j = 0; j < ops->nrows(r); j++) {
		size_t i = strtoul(ops->value(r, j, 0), NULL, 10);
		const char *mt = ops->value(r, j, 2);
		if (i < 1 || i > n)
			continue;
		res[i - 1].callers = (uint32_t)strtoul(ops->value(r, j, 1), NULL, 10);
		res[i - 1].mtime = mt ? strtoll(mt, NULL, 10) : 0;
	}
	return KBX_OK;
}

/* Each callback runs focused on its repository (db_graph_focus): the
 * lib calls them in any order, for several repositories (kbx context). */
static struct db_hgraph *enter(void *data)
{
	struct db_hgraph *h = data;
	db_graph_focus(h->g, h->i);
	return h;
}

static kbx_status_t leave(struct db_hgraph *h, kbx_status_t st)
{
	db_graph_unfocus(h->g);
	return st;
}

static kbx_status_t dh_lookup(void *data, const char *symbol, struct kbx_nodelist *out,
			      struct kbx_error *err)
{
	return leave(data, in_lookup(enter(data), symbol, out, err));
}

static kbx_status_t dh_node(void *data, uint32_t id, struct kbx_node *out, struct kbx_error *err)
{
	return leave(data, in_node(enter(data), id, out, err));
}

static kbx_status_t dh_node_by_cid(void *data, const char *cid, struct kbx_node *out,
				   struct kbx_error *err)
{
	return leave(data, in_node_by_cid(enter(data), cid, out, err));
}

static kbx_status_t dh_prefixed(void *data, const char *prefix, kbx_hybrid_node_fn fn,
				void *fdata, struct kbx_error *err)
{
	return leave(data, in_prefixed(enter(data), prefix, fn, fdata, err));
}

static kbx_status_t dh_files_named(void *data, const char *t, struct kbx_nodelist *out,
				   struct kbx_error *err)
{
	return leave(data, in_files_named(enter(data), t, out, err));
}

static kbx_status_t dh_walk(void *data, const struct kbx_node *n, int kind, int dir,
			    uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *fdata,
			    struct kbx_error *err)
{
	return leave(data, in_walk(enter(data), n, kind, dir, max_depth, flags, fn, fdata, err));
}

static kbx_status_t dh_name_candidates(void *data, const struct kbx_node *ref, int lang,
				       struct kbx_nodelist *out, struct kbx_error *err)
{
	return leave(data, in_name_candidates(enter(data), ref, lang, out, err));
}

static kbx_status_t dh_code_text(void *data, const struct kbx_node *n, const char **text,
				 size_t *len, struct kbx_error *err)
{
	return leave(data, in_code_text(enter(data), n, text, len, err));
}

static kbx_status_t dh_search(void *data, const struct kbx_search_query *q,
			      struct kbx_search_results *out, struct kbx_error *err)
{
	return leave(data, in_search(enter(data), q, out, err));
}

static kbx_status_t dh_documents(void *data, uint64_t *n, struct kbx_error *err)
{
	return leave(data, in_documents(enter(data), n, err));
}

static kbx_status_t dh_facts(void *data, struct kbx_hybrid_result *res, size_t n,
			     struct kbx_error *err)
{
	return leave(data, in_facts(enter(data), res, n, err));
}

static kbx_status_t dh_file_chunks(void *data, const char *path, kbx_chunk_fn fn, void *fdata,
				   struct kbx_error *err)
{
	return leave(data, in_file_chunks(enter(data), path, fn, fdata, err));
}

void db_hybrid_graph(struct db_hgraph *h, struct kbx_hybrid_graph *out)
{
	*out = (struct kbx_hybrid_graph){
		.data = h,
		.lookup = dh_lookup,
		.node = dh_node,
		.node_by_cid = dh_node_by_cid,
		.prefixed = dh_prefixed,
		.files_named = dh_files_named,
		.walk = dh_walk,
		.name_candidates = dh_name_candidates,
		.code_text = dh_code_text,
		.search = dh_search,
		.documents = dh_documents,
		.facts = dh_facts,
		.file_chunks = dh_file_chunks,
	};
}

int db_hybrid(struct db_graph *g, size_t i, const struct kbx_hybrid_opts *ho,
	      struct kbx_hybrid_results *res, kbx_status_t *st, struct kbx_error *err)
{
	struct db_hgraph h = { g, i, 0, NULL, NULL, 0, KBX_NODELIST_INIT };
	struct kbx_hybrid_graph graph;
	db_hybrid_graph(&h, &graph);
	*st = kbx_hybrid_over(&graph, ho, res, err);
	db_hgraph_release(&h);
	return h.rc;
}
