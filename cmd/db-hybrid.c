/*
 * kbx --db hybrid: the plan of lib/hybrid/ (kbx_hybrid_over) over the
 * rows kbx push wrote, one repository at a time (db-graph.h): the
 * lookups, node reads and walks are db-graph.c's, the search
 * db-search.c's, so that the plan and its answer are the index's.
 *
 * What the database cannot give: a search within a part of the graph
 * (a scope), which the plan asks for "within", "called by" and "that
 * calls", and to rank a traversal's results against the question's
 * words: such a plan is refused, naming the step (kbx_hybrid returns
 * KBX_ERR_USAGE, exit status 2).  "Did you mean" names nothing.
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

struct db_hgraph {
	struct db_graph *g;
	int rc;                  /* the exit code of a statement that failed */
};

static kbx_status_t failed(struct db_hgraph *h, int rc, struct kbx_error *err)
{
	h->rc = rc;
	return _kbx_fail(err, KBX_ERR_IO, "the database refused a statement");
}

static kbx_status_t dh_lookup(void *data, const char *symbol, struct kbx_nodelist *out,
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

static kbx_status_t dh_node(void *data, uint32_t id, struct kbx_node *out, struct kbx_error *err)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", id);
	return one_node(data, "n.id = $2::bigint", buf, out, err);
}

static kbx_status_t dh_node_by_cid(void *data, const char *cid, struct kbx_node *out,
				   struct kbx_error *err)
{
	return one_node(data, "n.cid = $2", cid, out, err);
}

static kbx_status_t dh_prefixed(void *data, const char *prefix, kbx_hybrid_node_fn fn,
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

static kbx_status_t dh_files_named(void *data, const char *t, struct kbx_nodelist *out,
				   struct kbx_error *err)
{
	struct db_hgraph *h = data;
	int rc = db_graph_nodes(h->g, "n.kind = 'file' AND (n.path = $2 OR "
				"right(n.path, length($2) + 1) = '/' || $2) ORDER BY n.path COLLATE \"C\"",
				1, &t, out);
	return rc ? failed(h, rc, err) : KBX_OK;
}

static kbx_status_t dh_walk(void *data, const struct kbx_node *n, int kind, int dir,
			    uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *fdata,
			    struct kbx_error *err)
{
	struct db_hgraph *h = data;
	int rc = db_graph_walk_node(h->g, n, kind, dir, max_depth, flags, fn, fdata);
	return rc ? failed(h, rc, err) : KBX_OK;
}

static kbx_status_t dh_name_candidates(void *data, const struct kbx_node *ref, int lang,
				       struct kbx_nodelist *out, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	int rc = db_graph_name_candidates(h->g, ref, lang, out);
	return rc ? failed(h, rc, err) : KBX_OK;
}

static kbx_status_t dh_code_text(void *data, const struct kbx_node *n, const char **text,
				 size_t *len, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	struct kbx_pg_result *r;
	const char *params[] = { db_graph_repo_id(h->g, 0), n->cid };
	int rc = db_graph_query(h->g, "SELECT text FROM kbx.chunks WHERE repo = $1::int AND "
				"type = 'code' AND doc_id = $2 ORDER BY id LIMIT 1",
				2, params, &r, "cannot read a definition's code");
	if (rc)
		return failed(h, rc, err);
	const struct kbx_pg_ops *ops = db_graph_ops(h->g);
	if (!ops->nrows(r) || !ops->value(r, 0, 0))
		return _kbx_fail(err, KBX_NOT_FOUND, "no code chunk");
	*text = ops->value(r, 0, 0);
	*len = strlen(*text);
	return KBX_OK;
}

static kbx_status_t dh_search(void *data, const struct kbx_search_query *q,
			      struct kbx_search_results *out, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	kbx_status_t st = KBX_OK;
	int rc = db_search(h->g, 0, q, out, &st, err);
	return rc ? failed(h, rc, err) : st;
}

static kbx_status_t dh_documents(void *data, uint64_t *n, struct kbx_error *err)
{
	struct db_hgraph *h = data;
	struct kbx_pg_result *r;
	const char *params[] = { db_graph_repo_id(h->g, 0) };
	int rc = db_graph_query(h->g, "SELECT count(*) FROM kbx.chunks WHERE repo = $1::int AND "
				"type <> 'code'", 1, params, &r, "cannot count the documents");
	if (rc)
		return failed(h, rc, err);
	const struct kbx_pg_ops *ops = db_graph_ops(h->g);
	*n = ops->nrows(r) && ops->value(r, 0, 0) ? strtoull(ops->value(r, 0, 0), NULL, 10) : 0;
	return KBX_OK;
}

/* Each result's callers (the calls of it, and of its name: when it is
 * a function or a method) and its file's time, in one statement. */
static kbx_status_t dh_facts(void *data, struct kbx_hybrid_result *res, size_t n,
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

int db_hybrid(struct db_graph *g, size_t i, const struct kbx_hybrid_opts *ho,
	      struct kbx_hybrid_results *res, kbx_status_t *st, struct kbx_error *err)
{
	struct db_hgraph h = { g, 0 };
	struct kbx_hybrid_graph graph = {
		.data = &h,
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
	};
	db_graph_focus(g, i);
	*st = kbx_hybrid_over(&graph, ho, res, err);
	db_graph_unfocus(g);
	return h.rc;
}
