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
 *   the vectors        the 8-bit codes of every row of kbx.vectors of
 *                      the repository, in one statement, by chunk id;
 *                      then the vectors of the candidates they pick
 *                      (every vector, where the index's search would
 *                      score them all); the query's terms' document
 *                      frequencies (the builtin embedding's weights)
 *
 * The scores are then summed here, in the order the index sums them,
 * over the chunks that hold a term of the query: the same bounded set
 * the index's BM25 reads.  The vectors are searched here as the index
 * searches its flat file (lib/util/vflat.c), the query embedded here:
 * PostgreSQL 15 of Debian 12 has no pgvector, and this reads all of a
 * repository's codes for each search (README: the cost, and the
 * limit).
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
	int64_t *ids;            /* the vectors' codes, once read */
	float *scales;
	int8_t *codes;
	size_t nvec;
	uint32_t dim;
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

/* Run sql with $1 the repository, $2 terms[0..n) as a text array and,
 * with more, $3 the ids more[0..nmore) as a bigint array. */
static int ids_array(struct strbuf *arr, const uint32_t *ids, size_t n);
static kbx_status_t terms_query_in(struct db_source *ds, const char *const *terms,
				   const size_t *lens, size_t n, const uint32_t *more, size_t nmore,
				   const char *sql, const char *what, struct kbx_pg_result **r,
				   struct kbx_error *err)
{
	struct strbuf arr = STRBUF_INIT, ids = STRBUF_INIT;
	for (size_t i = 0; i < n; i++)
		pg_array_add(&arr, terms[i], lens[i]);
	pg_array_end(&arr);
	if (arr.failed || (more && ids_array(&ids, more, nmore))) {
		strbuf_release(&arr);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	const char *params[] = { ds->repo, arr.buf, ids.buf };
	int rc = db_graph_query(ds->g, sql, more ? 3 : 2, params, r, what);
	strbuf_release(&arr);
	strbuf_release(&ids);
	return rc ? db_failed(ds, rc, err) : KBX_OK;
}

static kbx_status_t terms_query(struct db_source *ds, const char *const *terms, const size_t *lens,
				size_t n, const char *sql, const char *what,
				struct kbx_pg_result **r, struct kbx_error *err)
{
	return terms_query_in(ds, terms, lens, n, NULL, 0, sql, what, r, err);
}

static kbx_status_t db_df(void *data, const char *const *terms, const size_t *lens, size_t n,
			  uint64_t *df, struct kbx_error *err);

/* A graph scope's postings: the counts of every chunk for df, the rows
 * of the scope's chunks only. */
static kbx_status_t db_postings_in(struct db_source *ds, const char *const *terms,
				   const size_t *lens, size_t n, const uint32_t *subset,
				   size_t nsubset, uint64_t *df, kbx_posting_fn fn, void *fdata,
				   struct kbx_error *err)
{
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct kbx_pg_result *r = NULL;
	kbx_status_t st = db_df(ds, terms, lens, n, df, err);
	if (!st)
		st = terms_query_in(ds, terms, lens, n, subset, nsubset,
				    "SELECT q.i, p.chunk, p.tf, p.len "
				    "FROM unnest($2::text[]) WITH ORDINALITY AS q(term, i) "
				    "JOIN kbx.postings p ON p.repo = $1 AND p.term = q.term "
				    "AND p.chunk = ANY($3::bigint[]) ORDER BY q.i, p.chunk",
				    "cannot read the postings of the query's terms", &r, err);
	if (st)
		return st;
	for (size_t i = 0; i < ops->nrows(r); i++) {
		uint32_t t = num(ops->value(r, i, 0));
		if (t >= 1 && t <= n)
			fn(fdata, t - 1, num(ops->value(r, i, 1)), num(ops->value(r, i, 2)),
			   num(ops->value(r, i, 3)));
	}
	return KBX_OK;
}

static kbx_status_t db_postings(void *data, const char *const *terms, const size_t *lens,
				size_t n, const uint32_t *subset, size_t nsubset, uint64_t *df,
				kbx_posting_fn fn, void *fdata, struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct kbx_pg_result *r = NULL;
	if (subset)
		return db_postings_in(ds, terms, lens, n, subset, nsubset, df, fn, fdata, err);
	kbx_status_t st = terms_query(ds, terms, lens, n,
				      "SELECT q.i, p.chunk, p.tf, p.len "
				      "FROM unnest($2::text[]) WITH ORDINALITY AS q(term, i) "
				      "JOIN kbx.postings p ON p.repo = $1 AND p.term = q.term "
				      "ORDER BY q.i, p.chunk",
				      "cannot read the postings of the query's terms", &r, err);
	if (st)
		return st;
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

static kbx_status_t db_df(void *data, const char *const *terms, const size_t *lens, size_t n,
			  uint64_t *df, struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct kbx_pg_result *r = NULL;
	kbx_status_t st = terms_query(ds, terms, lens, n,
				      "SELECT q.i, (SELECT count(*) FROM kbx.postings p "
				      "WHERE p.repo = $1 AND p.term = q.term) "
				      "FROM unnest($2::text[]) WITH ORDINALITY AS q(term, i)",
				      "cannot count the chunks that hold the query's terms", &r, err);
	if (st)
		return st;
	memset(df, 0, n * sizeof(*df));
	for (size_t i = 0; i < ops->nrows(r); i++) {
		uint32_t t = num(ops->value(r, i, 0));
		if (t >= 1 && t <= n)
			df[t - 1] = strtoull(ops->value(r, i, 1), NULL, 10);
	}
	return KBX_OK;
}

static int hex_digit(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
		: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* bytea's hex output (\x...) of len bytes into out; -1 if it is not
 * that. */
static int decode_bytea(const char *s, size_t len, unsigned char *out)
{
	if (!s || s[0] != '\\' || s[1] != 'x' || strlen(s + 2) != 2 * len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int hi = hex_digit(s[2 + 2 * i]), lo = hex_digit(s[3 + 2 * i]);
		if (hi < 0 || lo < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

static float float_le(const unsigned char *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Every vector's code, by chunk id: kbx.vectors.code is its scale
 * (float4, little-endian) and its dim signed bytes. */
static kbx_status_t db_codes(void *data, uint64_t *n, uint32_t *dim, const int64_t **ids,
			     const float **scales, const int8_t **codes, struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	const char *params[] = { ds->repo };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g,
				"SELECT chunk, code FROM kbx.vectors WHERE repo = $1 ORDER BY chunk",
				1, params, &r, "cannot read the vectors' codes");
	if (rc)
		return db_failed(ds, rc, err);
	size_t rows = ops->nrows(r);
	const char *first = rows ? ops->value(r, 0, 1) : NULL;
	size_t len = first && strlen(first) > 10 ? (strlen(first) - 2) / 2 : 4;
	uint32_t d = (uint32_t)(len - 4);
	unsigned char *row = malloc(len);
	ds->ids = malloc((rows + 1) * sizeof(*ds->ids));
	ds->scales = malloc((rows + 1) * sizeof(*ds->scales));
	ds->codes = malloc(rows * d + 1);
	if (!row || !ds->ids || !ds->scales || !ds->codes) {
		free(row);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory for %zu vectors", rows);
	}
	for (size_t i = 0; i < rows; i++) {
		ds->ids[i] = num(ops->value(r, i, 0));
		if (decode_bytea(ops->value(r, i, 1), len, row)) {
			free(row);
			return _kbx_fail(err, KBX_ERR_CORRUPT,
					 "the code of chunk %lld in kbx.vectors is not of %u dimensions: push the repository again",
					 (long long)ds->ids[i], d);
		}
		ds->scales[i] = float_le(row);
		memcpy(ds->codes + i * d, row + 4, d);
	}
	free(row);
	ds->nvec = rows;
	ds->dim = d;
	*n = rows;
	*dim = d;
	*ids = ds->ids;
	*scales = ds->scales;
	*codes = ds->codes;
	return KBX_OK;
}

/* The vectors of ids[0..n) (ascending) into x: every one in a
 * statement of its own, or those chunks' by an array of ids. */
static kbx_status_t db_vectors(void *data, const int64_t *ids, size_t n, uint32_t dim, float *x,
			       struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	int every = n == ds->nvec;
	struct strbuf arr = STRBUF_INIT;
	strbuf_addch(&arr, '{');
	for (size_t i = 0; !every && i < n; i++)
		strbuf_addf(&arr, "%s%lld", i ? "," : "", (long long)ids[i]);
	strbuf_addch(&arr, '}');
	if (arr.failed) {
		strbuf_release(&arr);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	const char *params[] = { ds->repo, arr.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g, every ?
				"SELECT chunk, vec FROM kbx.vectors WHERE repo = $1 ORDER BY chunk" :
				"SELECT chunk, vec FROM kbx.vectors WHERE repo = $1 "
				"AND chunk = ANY($2::bigint[]) ORDER BY chunk",
				every ? 1 : 2, params, &r, "cannot read the vectors");
	strbuf_release(&arr);
	if (rc)
		return db_failed(ds, rc, err);
	unsigned char *row = malloc((size_t)dim * 4 + 1);
	if (!row)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	size_t rows = ops->nrows(r);
	for (size_t i = 0; i < n; i++) {
		if (i >= rows || (int64_t)num(ops->value(r, i, 0)) != ids[i] ||
		    decode_bytea(ops->value(r, i, 1), (size_t)dim * 4, row)) {
			free(row);
			return _kbx_fail(err, KBX_ERR_CORRUPT,
					 "the vector of chunk %lld in kbx.vectors is not there or not of %u float4: push the repository again",
					 (long long)ids[i], dim);
		}
		for (uint32_t j = 0; j < dim; j++)
			x[(size_t)i * dim + j] = float_le(row + 4 * j);
	}
	free(row);
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

/* ids[0..n) as a bigint[] literal into arr; -1 (arr released) when
 * memory runs out. */
static int ids_array(struct strbuf *arr, const uint32_t *ids, size_t n)
{
	strbuf_addch(arr, '{');
	for (size_t i = 0; i < n; i++)
		strbuf_addf(arr, "%s%u", i ? "," : "", ids[i]);
	strbuf_addch(arr, '}');
	if (!arr->failed)
		return 0;
	strbuf_release(arr);
	return -1;
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
	if (ids_array(&arr, ids, n)) {
		free(sorted);
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

static kbx_status_t db_code_chunks(void *data, uint64_t *n, struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	const char *params[] = { ds->repo };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g, "SELECT count(*) FROM kbx.chunks WHERE repo = $1 AND type = 'code'",
				1, params, &r, "cannot count the code chunks");
	if (rc)
		return db_failed(ds, rc, err);
	*n = ops->nrows(r) ? strtoull(str_or_empty(ops->value(r, 0, 0)), NULL, 10) : 0;
	return KBX_OK;
}

/* The code chunks of a graph scope's nodes. */
static kbx_status_t db_node_chunks(void *data, const uint32_t *nodes, size_t n,
				   void (*fn)(void *fdata, uint32_t id), void *fdata,
				   struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct strbuf arr = STRBUF_INIT;
	if (ids_array(&arr, nodes, n))
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	const char *params[] = { ds->repo, arr.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g, "SELECT id FROM kbx.chunks WHERE repo = $1 AND type = 'code' "
				"AND node = ANY($2::bigint[]) ORDER BY id",
				2, params, &r, "cannot read the chunks of the scope");
	strbuf_release(&arr);
	if (rc)
		return db_failed(ds, rc, err);
	for (size_t i = 0; i < ops->nrows(r); i++)
		fn(fdata, num(ops->value(r, i, 0)));
	return KBX_OK;
}

int db_search(struct db_graph *g, size_t i, const struct kbx_search_query *q,
	      struct kbx_search_results *res, kbx_status_t *st, struct kbx_error *err)
{
	struct db_source ds = { g, db_graph_repo_id(g, i), 0, NULL, NULL, NULL, 0, 0 };
	const struct kbx_pg_ops *ops = db_graph_ops(g);
	const char *params[] = { ds.repo };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(g, "SELECT chunks, chunk_tokens, embedding FROM kbx.repos WHERE id = $1",
				1, params, &r, "cannot read the repository's counts");
	if (rc)
		return rc;
	struct kbx_search_source src = {
		.data = &ds,
		.nchunks = ops->nrows(r) ? strtoull(str_or_empty(ops->value(r, 0, 0)), NULL, 10) : 0,
		.chunk_tokens = ops->nrows(r) ? strtoull(str_or_empty(ops->value(r, 0, 1)), NULL, 10) : 0,
		.postings = db_postings,
		.patterns = db_patterns,
		.chunks = db_chunks,
		.codes = db_codes,
		.vectors = db_vectors,
		.embedding = ops->nrows(r) ? ops->value(r, 0, 2) : NULL,
		.df = db_df,
		.why_no_vectors = "no vector search with --db: the repository was pushed without "
				  "vectors (its index had none current): 'kbx index' and push it again",
		.code_chunks = db_code_chunks,
		.node_chunks = db_node_chunks,
	};
	*st = kbx_search_source(&src, q, res, err);
	free(ds.ids);
	free(ds.scales);
	free(ds.codes);
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
