/*
 * kbx --db search: the search of lib/search/ (kbx_search_source) over
 * the rows kbx push wrote, so that the hits come in the order the
 * index gives them (db-graph.h).
 *
 * What the ranking reads, and the statement that reads it:
 *
 *   the collection     kbx.repos: chunks and chunk_tokens (avgdl)
 *   BM25's postings    one statement for every term of the query: its
 *                      rows of kbx.postings (chunk, count, the chunk's
 *                      length; an index-only scan of the primary
 *                      key); df is counted from them
 *   error patterns     the error entries' patterns, compiled here
 *   chunks             a batch of ids at a time (the candidates the
 *                      filters look at, the fused list)
 *
 * The scores are then summed here, in the order the index sums them,
 * over the chunks that hold a term of the query: the same bounded set
 * the index's BM25 reads.  No vector signal: kbx push does not push
 * vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db-graph.h"
#include "lang/lang.h"
#include "output.h"
#include "pg-client.h"
#include "repos-util.h"
#include "search/kbx-search.h"
#include "util/strbuf.h"
#include "util/util.h"

struct db_source {
	struct db_graph *g;
	const char *repo;        /* its id */
	int rc;                  /* the exit code of a statement that failed */
};

static kbx_status_t db_failed(struct db_source *ds, int rc, struct kbx_error *err)
{
	ds->rc = rc;
	return _kbx_fail(err, KBX_ERR_IO, "the database refused a statement");
}

static uint32_t num(const char *s)
{
	return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

static kbx_status_t db_postings(void *data, const char *const *terms, const size_t *lens,
				size_t n, uint64_t *df, kbx_posting_fn fn, void *fdata,
				struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct strbuf arr = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		pg_array_add(&arr, terms[i], lens[i]);
	pg_array_end(&arr);
	if (arr.failed) {
		strbuf_release(&arr);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	const char *params[] = { ds->repo, arr.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g,
				"SELECT q.i, p.chunk, p.tf, p.len "
				"FROM unnest($2::text[]) WITH ORDINALITY AS q(term, i) "
				"JOIN kbx.postings p ON p.repo = $1 AND p.term = q.term "
				"ORDER BY q.i, p.chunk",
				2, params, &r, "cannot read the postings of the query's terms");
	strbuf_release(&arr);
	if (rc)
		return db_failed(ds, rc, err);
	size_t rows = ops->nrows(r);
	memset(df, 0, n * sizeof(*df));
	for (size_t i = 0; i < rows; i++) {
		uint32_t t = num(ops->value(r, i, 0));
		if (t >= 1 && t <= n)
			df[t - 1]++;
	}
	for (size_t i = 0; i < rows; i++) {
		uint32_t t = num(ops->value(r, i, 0));
		if (t >= 1 && t <= n)
			fn(fdata, t - 1, num(ops->value(r, i, 1)), num(ops->value(r, i, 2)),
			   num(ops->value(r, i, 3)));
	}
	return KBX_OK;
}

static kbx_status_t db_patterns(void *data, void (*fn)(void *fdata, uint32_t id, const char *pattern),
				void *fdata, struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	const char *params[] = { ds->repo };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g,
				"SELECT id, pattern FROM kbx.chunks WHERE repo = $1 AND pattern IS NOT NULL "
				"AND type = 'error' ORDER BY id",
				1, params, &r, "cannot read the error patterns");
	if (rc)
		return db_failed(ds, rc, err);
	for (size_t i = 0; i < ops->nrows(r); i++)
		fn(fdata, num(ops->value(r, i, 0)), ops->value(r, i, 1));
	return KBX_OK;
}

/* The columns of a chunk, in the order chunk_of_row reads them. */
#define CHUNK_COLS "id, type, kind, node, doc_id, path, line, end_line, title, heading, lang, " \
		   "seq, tags, category, severity, pattern, pattern_line, cause, fix, related, text"

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static void chunk_of_row(const struct kbx_pg_ops *ops, const struct kbx_pg_result *r, size_t row,
			 struct kbx_chunk *c)
{
	memset(c, 0, sizeof(*c));
	const char *type = ops->value(r, row, 1), *kind = ops->value(r, row, 2);
	c->type = type ? kbx_chunk_type_parse(type) : 0;
	c->kind = kind ? _kbx_kind_from_name(kind) : 0;
	c->node = num(ops->value(r, row, 3));
	c->doc_id = str_or_empty(ops->value(r, row, 4));
	c->path = str_or_empty(ops->value(r, row, 5));
	c->line = num(ops->value(r, row, 6));
	c->end_line = num(ops->value(r, row, 7));
	c->title = str_or_empty(ops->value(r, row, 8));
	c->heading = str_or_empty(ops->value(r, row, 9));
	c->lang = str_or_empty(ops->value(r, row, 10));
	c->seq = num(ops->value(r, row, 11));
	c->tags = str_or_empty(ops->value(r, row, 12));
	c->category = str_or_empty(ops->value(r, row, 13));
	c->severity = str_or_empty(ops->value(r, row, 14));
	c->pattern = str_or_empty(ops->value(r, row, 15));
	c->pattern_line = num(ops->value(r, row, 16));
	c->cause = str_or_empty(ops->value(r, row, 17));
	c->fix = str_or_empty(ops->value(r, row, 18));
	c->related = str_or_empty(ops->value(r, row, 19));
	c->text = str_or_empty(ops->value(r, row, 20));
	c->text_len = strlen(c->text);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

static kbx_status_t db_chunks(void *data, const uint32_t *ids, size_t n, struct kbx_chunk *out,
			      struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct strbuf arr = STRBUF_INIT;
	uint32_t *sorted = malloc((n + 1) * sizeof(*sorted));
	if (!sorted)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	memcpy(sorted, ids, n * sizeof(*ids));
	qsort(sorted, n, sizeof(*sorted), cmp_u32);
	strbuf_addch(&arr, '{');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&arr, "%s%u", i ? "," : "", ids[i]);
	strbuf_addch(&arr, '}');
	if (arr.failed) {
		free(sorted);
		strbuf_release(&arr);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	const char *params[] = { ds->repo, arr.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g,
				"SELECT " CHUNK_COLS " FROM kbx.chunks WHERE repo = $1 AND id = ANY($2::bigint[])",
				2, params, &r, "cannot read the chunks");
	strbuf_release(&arr);
	if (rc) {
		free(sorted);
		return db_failed(ds, rc, err);
	}
	/* each row to the places of its id (none: type 0) */
	memset(out, 0, n * sizeof(*out));
	for (size_t row = 0; row < ops->nrows(r); row++) {
		uint32_t id = num(ops->value(r, row, 0));
		if (!bsearch(&id, sorted, n, sizeof(*sorted), cmp_u32))
			continue;
		for (size_t i = 0; i < n; i++)
			if (ids[i] == id)
				chunk_of_row(ops, r, row, &out[i]);
	}
	free(sorted);
	return KBX_OK;
}

int db_search(struct db_graph *g, size_t i, const struct kbx_search_query *q,
	      struct kbx_search_results *res, kbx_status_t *st, struct kbx_error *err)
{
	struct db_source ds = { g, db_graph_repo_id(g, i), 0 };
	const struct kbx_pg_ops *ops = db_graph_ops(g);
	const char *params[] = { ds.repo };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(g, "SELECT chunks, chunk_tokens FROM kbx.repos WHERE id = $1", 1,
				params, &r, "cannot read the repository's counts");
	if (rc)
		return rc;
	struct kbx_search_source src = {
		.data = &ds,
		.nchunks = ops->nrows(r) ? strtoull(str_or_empty(ops->value(r, 0, 0)), NULL, 10) : 0,
		.chunk_tokens = ops->nrows(r) ? strtoull(str_or_empty(ops->value(r, 0, 1)), NULL, 10) : 0,
		.postings = db_postings,
		.patterns = db_patterns,
		.chunks = db_chunks,
		.why_no_vectors = "no vector search with --db: kbx push does not publish the vectors "
				  "(lexical and pattern signals only)",
	};
	*st = kbx_search_source(&src, q, res, err);
	return ds.rc;
}

int db_search_all(struct kbx_ctx *ctx, const struct kbx_search_query *q,
		  const struct output_opts *oo, int explain)
{
	struct db_graph *g = ctx->db;
	size_t n = db_graph_nrepos(g), searched = 0;
	struct kbx_search_results *res = calloc(n + 1, sizeof(*res));
	const char **names = calloc(n + 1, sizeof(*names));
	int rc = 0;
	if (!res || !names) {
		fprintf(stderr, "fatal: out of memory\n");
		rc = KBX_EXIT_INTERNAL;
	}
	for (size_t i = 0; !rc && i < n; i++) {
		struct kbx_error err = KBX_ERROR_INIT;
		kbx_status_t st = KBX_OK;
		names[i] = db_graph_repo_name(g, i);
		rc = db_search(g, i, q, &res[i], &st, &err);
		if (!rc)
			searched += search_repo_done(names[i], st, &err, &res[i]);
	}
	if (!rc)
		rc = search_fuse_print(names, NULL, n, res, searched, q, oo, explain);
	for (size_t i = 0; res && i < n; i++)
		kbx_search_results_release(&res[i]);
	free(res);
	free(names);
	return rc;
}
