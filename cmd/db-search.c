/*
 * kbx --db search: the search of lib/search/ (kbx_search_source) over
 * the rows kbx push wrote, so that the hits come in the order the
 * index gives them (db-graph.h).
 *
 * What the ranking reads, and the statement that reads it.  With
 * several repositories asked (--all-repos), those that do not depend
 * on the repository's own answers are read for a batch of
 * DB_BATCH repositories at once, the rows grouped by repository, and
 * each repository's search served from them (struct db_search_cache):
 *
 *   the collection     kbx.repos: chunks and chunk_tokens (avgdl)
 *   BM25's postings    the rows of kbx.postings of the query's terms
 *                      (chunk, count, the chunk's length; an index-only
 *                      scan of the primary key); df is counted from
 *                      them, and a term asked later (the builtin
 *                      embedding's weights) is read then
 *   error patterns     the error entries' patterns, compiled here
 *   the vectors        the 8-bit codes of every row of kbx.vectors, by
 *                      chunk id, as bytes (the binary format)
 *   every vector       where a search scores them all (a repository of
 *                      few vectors): those of the repositories with no
 *                      more vectors, kept for its next searches
 *   a graph scope's    the number of code chunks
 *
 * and for one repository at a time, as its search asks:
 *
 *   chunks             a batch of ids at a time (the candidates the
 *                      filters look at, the fused list)
 *   vectors            the vectors of the candidates the codes pick,
 *                      as bytes
 *   a graph scope's    postings of its chunks only, its nodes' chunks
 *
 * The scores are then summed here, in the order the index sums them,
 * over the chunks that hold a term of the query: the same bounded set
 * the index's BM25 reads.  The vectors are searched here as the index
 * searches its flat file (lib/util/vflat.c), the query embedded here:
 * PostgreSQL 15 of Debian 12 has no pgvector, and this reads all of a
 * repository's codes (README: the cost, and the limit).  The rows of
 * codes and vectors are dropped once copied, and a batch's copies when
 * the next batch is read; the rows of chunks stay (the hits point into
 * them).
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

/* Repositories read at once: their codes are held together. */
#define DB_BATCH 64

/* One term's postings in each repository of the batch. */
struct db_prow {
	uint32_t chunk, tf, len;
};
struct db_term {
	char *term;
	size_t len;
	struct db_prow *rows;
	size_t *start;           /* repository j's rows: [start[j], start[j + 1]) */
};

/* What the batch holds of one repository. */
struct db_repo_cache {
	uint64_t nchunks, chunk_tokens;
	const char *embedding;
	const char **patterns;   /* by id, pids[k]'s pattern */
	uint32_t *pids;
	size_t npatterns;
	int64_t *ids;            /* the vectors' codes */
	float *scales;
	int8_t *codes;
	size_t nvec;
	uint32_t dim;
	int64_t bad_code;        /* a chunk whose code is not of dim bytes, or -1 */
	float *every;            /* every vector (nvec of dim), once read */
	uint64_t code_chunks;
};

struct db_search_cache {
	size_t lo, n;            /* the base indices [lo, lo + n) (db_graph_base_index) */
	struct strbuf ids;       /* their ids: {1,2,...} */
	long long *rid;          /* and as numbers */
	struct db_repo_cache *r;
	int have_counts, have_patterns, have_codes, have_code_chunks;
	struct db_term *terms;
	size_t nterms, aterms;
};

struct db_source {
	struct db_graph *g;
	const char *repo;        /* its id */
	int rc;                  /* the exit code of a statement that failed */
	struct db_search_cache *c;
	size_t j;                /* its place in c */
	size_t nvec;             /* of its codes */
};

static kbx_status_t db_failed(struct db_source *ds, int rc, struct kbx_error *err)
{
	ds->rc = rc;
	return _kbx_fail(err, KBX_ERR_IO, "the database refused a statement");
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

static uint32_t num(const char *s)
{
	return s ? (uint32_t)strtoul(s, NULL, 10) : 0;
}

static int nomem(void)
{
	fprintf(stderr, "fatal: out of memory\n");
	return KBX_EXIT_INTERNAL;
}

/* ---- what is read for a batch of repositories at once ---- */

static void repo_cache_release(struct db_repo_cache *r)
{
	free(r->patterns);
	free(r->pids);
	free(r->ids);
	free(r->scales);
	free(r->codes);
	free(r->every);
}

void db_search_cache_free(struct db_search_cache *c)
{
	if (!c)
		return;
	for (size_t j = 0; c->r && j < c->n; j++)
		repo_cache_release(&c->r[j]);
	free(c->r);
	free(c->rid);
	for (size_t t = 0; t < c->nterms; t++) {
		free(c->terms[t].term);
		free(c->terms[t].rows);
		free(c->terms[t].start);
	}
	free(c->terms);
	strbuf_release(&c->ids);
	free(c);
}

/* The batch that holds the i'th repository asked (its place there in
 * *j): the one kept, or a new one in its place.  NULL: out of memory. */
static struct db_search_cache *batch_of(struct db_graph *g, size_t i, size_t *j)
{
	struct db_search_cache **slot = db_graph_search_cache(g);
	size_t b = db_graph_base_index(g, i), all = db_graph_base_nrepos(g);
	struct db_search_cache *c = *slot;
	if (c && b >= c->lo && b < c->lo + c->n) {
		*j = b - c->lo;
		return c;
	}
	db_search_cache_free(c);
	*slot = c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	strbuf_init(&c->ids);
	c->lo = b / DB_BATCH * DB_BATCH;
	c->n = all - c->lo < DB_BATCH ? all - c->lo : DB_BATCH;
	c->r = calloc(c->n, sizeof(*c->r));
	c->rid = calloc(c->n, sizeof(*c->rid));
	for (size_t k = 0; c->r && c->rid && k < c->n; k++) {
		const char *id = db_graph_base_repo_id(g, c->lo + k);
		strbuf_addf(&c->ids, "%s%s", k ? "," : "{", id);
		c->rid[k] = strtoll(id, NULL, 10);
		c->r[k].bad_code = -1;
	}
	strbuf_addch(&c->ids, '}');
	if (!c->r || !c->rid || c->ids.failed) {
		db_search_cache_free(c);
		*slot = NULL;
		return NULL;
	}
	*j = b - c->lo;
	return c;
}

/* The place in c of the repository of id, c->n if none; rows come
 * grouped by repository, so the last place found is tried first. */
static size_t place_of(const struct db_search_cache *c, long long id, size_t *last)
{
	if (*last < c->n && c->rid[*last] == id)
		return *last;
	for (size_t k = 0; k < c->n; k++)
		if (c->rid[k] == id)
			return *last = k;
	return c->n;
}

static int read_counts(struct db_source *ds)
{
	struct db_search_cache *c = ds->c;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	const char *params[] = { c->ids.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g, "SELECT id, chunks, chunk_tokens, embedding FROM kbx.repos "
				"WHERE id = ANY($1::int[])",
				1, params, &r, "cannot read the repository's counts");
	if (rc)
		return rc;
	size_t last = 0;
	for (size_t row = 0; row < ops->nrows(r); row++) {
		size_t k = place_of(c, strtoll(str_or_empty(ops->value(r, row, 0)), NULL, 10), &last);
		if (k == c->n)
			continue;
		c->r[k].nchunks = strtoull(str_or_empty(ops->value(r, row, 1)), NULL, 10);
		c->r[k].chunk_tokens = strtoull(str_or_empty(ops->value(r, row, 2)), NULL, 10);
		c->r[k].embedding = ops->value(r, row, 3);
	}
	c->have_counts = 1;
	return 0;
}

static struct db_term *find_term(const struct db_search_cache *c, const char *term, size_t len)
{
	for (size_t t = 0; t < c->nterms; t++)
		if (c->terms[t].len == len && !memcmp(c->terms[t].term, term, len))
			return &c->terms[t];
	return NULL;
}

/* Read the postings of those of terms[0..n) not read yet for every
 * repository of the batch. */
static kbx_status_t read_terms(struct db_source *ds, const char *const *terms, const size_t *lens,
			       size_t n, struct kbx_error *err)
{
	struct db_search_cache *c = ds->c;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct strbuf arr = STRBUF_INIT;
	size_t first = c->nterms;
	for (size_t i = 0; i < n; i++) {
		if (find_term(c, terms[i], lens[i]))
			continue;
		if (_kbx_grow((void **)&c->terms, &c->aterms, c->nterms, sizeof(*c->terms), 8))
			goto nomem;
		struct db_term *t = &c->terms[c->nterms];
		memset(t, 0, sizeof(*t));
		t->term = malloc(lens[i] + 1);
		t->start = calloc(c->n + 1, sizeof(*t->start));
		if (!t->term || !t->start) {
			free(t->term);
			free(t->start);
			goto nomem;
		}
		memcpy(t->term, terms[i], lens[i]);
		t->term[lens[i]] = '\0';
		t->len = lens[i];
		c->nterms++;
		pg_array_add(&arr, terms[i], lens[i]);
	}
	if (first == c->nterms)
		return KBX_OK;
	pg_array_end(&arr);
	if (arr.failed)
		goto nomem;
	const char *params[] = { c->ids.buf, arr.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query_once(ds->g, "SELECT q.i, p.repo, p.chunk, p.tf, p.len "
				     "FROM unnest($2::text[]) WITH ORDINALITY AS q(term, i) "
				     "JOIN kbx.postings p ON p.repo = ANY($1::int[]) AND p.term = q.term "
				     "ORDER BY q.i, p.repo, p.chunk",
				     2, params, 0, &r, "cannot read the postings of the query's terms");
	strbuf_release(&arr);
	if (rc) {
		/* read again when asked again */
		for (size_t t = first; t < c->nterms; t++) {
			free(c->terms[t].term);
			free(c->terms[t].start);
		}
		c->nterms = first;
		return db_failed(ds, rc, err);
	}
	size_t rows = ops->nrows(r), last = 0, nnew = c->nterms - first;
	size_t *place = malloc((rows + 1) * sizeof(*place)), *term = malloc((rows + 1) * sizeof(*term));
	kbx_status_t st = KBX_OK;
	if (!place || !term) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* the rows of each term in each repository: counted, then placed */
	for (size_t row = 0; row < rows; row++) {
		size_t i = num(ops->value(r, row, 0));
		term[row] = i >= 1 && i <= nnew ? first + i - 1 : c->nterms;
		place[row] = place_of(c, strtoll(str_or_empty(ops->value(r, row, 1)), NULL, 10), &last);
		if (term[row] < c->nterms && place[row] < c->n)
			c->terms[term[row]].start[place[row] + 1]++;
	}
	for (size_t t = first; t < c->nterms; t++) {
		struct db_term *e = &c->terms[t];
		for (size_t k = 0; k < c->n; k++)
			e->start[k + 1] += e->start[k];
		e->rows = malloc((e->start[c->n] + 1) * sizeof(*e->rows));
		if (!e->rows) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
	}
	for (size_t row = 0; row < rows; row++) {
		if (term[row] >= c->nterms || place[row] >= c->n)
			continue;
		struct db_term *e = &c->terms[term[row]];
		/* start[k] runs ahead as the rows of k are placed, and is put back below */
		struct db_prow *p = &e->rows[e->start[place[row]]++];
		p->chunk = num(ops->value(r, row, 2));
		p->tf = num(ops->value(r, row, 3));
		p->len = num(ops->value(r, row, 4));
	}
	for (size_t t = first; t < c->nterms; t++) {
		struct db_term *e = &c->terms[t];
		for (size_t k = c->n; k > 0; k--)
			e->start[k] = e->start[k - 1];
		e->start[0] = 0;
	}
out:
	free(place);
	free(term);
	ops->clear(r);
	if (st) {
		for (size_t t = first; t < c->nterms; t++) {
			free(c->terms[t].term);
			free(c->terms[t].rows);
			free(c->terms[t].start);
		}
		c->nterms = first;
	}
	return st;
nomem:
	strbuf_release(&arr);
	return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
}

/* Run sql with $1 the repository, $2 terms[0..n) as a text array and
 * $3 the ids more[0..nmore) as a bigint array. */
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
	if (arr.failed || ids_array(&ids, more, nmore)) {
		strbuf_release(&arr);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	const char *params[] = { ds->repo, arr.buf, ids.buf };
	int rc = db_graph_query(ds->g, sql, 3, params, r, what);
	strbuf_release(&arr);
	strbuf_release(&ids);
	return rc ? db_failed(ds, rc, err) : KBX_OK;
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
	if (subset)
		return db_postings_in(ds, terms, lens, n, subset, nsubset, df, fn, fdata, err);
	kbx_status_t st = db_df(ds, terms, lens, n, df, err);
	if (st)
		return st;
	for (size_t i = 0; i < n; i++) {
		const struct db_term *e = find_term(ds->c, terms[i], lens[i]);
		for (size_t k = e->start[ds->j]; k < e->start[ds->j + 1]; k++)
			fn(fdata, i, e->rows[k].chunk, e->rows[k].tf, e->rows[k].len);
	}
	return KBX_OK;
}

static kbx_status_t db_df(void *data, const char *const *terms, const size_t *lens, size_t n,
			  uint64_t *df, struct kbx_error *err)
{
	struct db_source *ds = data;
	kbx_status_t st = read_terms(ds, terms, lens, n, err);
	if (st)
		return st;
	for (size_t i = 0; i < n; i++) {
		const struct db_term *e = find_term(ds->c, terms[i], lens[i]);
		df[i] = e->start[ds->j + 1] - e->start[ds->j];
	}
	return KBX_OK;
}

static int read_patterns(struct db_source *ds)
{
	struct db_search_cache *c = ds->c;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	const char *params[] = { c->ids.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query(ds->g, "SELECT repo, id, pattern FROM kbx.chunks "
				"WHERE repo = ANY($1::int[]) AND pattern IS NOT NULL "
				"AND type = 'error' ORDER BY repo, id",
				1, params, &r, "cannot read the error patterns");
	if (rc)
		return rc;
	size_t rows = ops->nrows(r), last = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t row = 0; row < rows; row++) {
			size_t k = place_of(c, strtoll(str_or_empty(ops->value(r, row, 0)), NULL, 10),
					    &last);
			if (k == c->n)
				continue;
			struct db_repo_cache *rc_ = &c->r[k];
			if (!pass) {
				rc_->npatterns++;
				continue;
			}
			rc_->pids[rc_->npatterns] = num(ops->value(r, row, 1));
			rc_->patterns[rc_->npatterns++] = ops->value(r, row, 2);
		}
		for (size_t k = 0; !pass && k < c->n; k++) {
			c->r[k].pids = malloc((c->r[k].npatterns + 1) * sizeof(*c->r[k].pids));
			c->r[k].patterns = malloc((c->r[k].npatterns + 1) * sizeof(*c->r[k].patterns));
			c->r[k].npatterns = 0;
			if (!c->r[k].pids || !c->r[k].patterns)
				return nomem();
		}
	}
	c->have_patterns = 1;
	return 0;
}

static kbx_status_t db_patterns(void *data, void (*fn)(void *fdata, uint32_t id, const char *pattern),
				void *fdata, struct kbx_error *err)
{
	struct db_source *ds = data;
	int rc = ds->c->have_patterns ? 0 : read_patterns(ds);
	if (rc)
		return db_failed(ds, rc, err);
	const struct db_repo_cache *rc_ = &ds->c->r[ds->j];
	for (size_t k = 0; k < rc_->npatterns; k++)
		fn(fdata, rc_->pids[k], rc_->patterns[k]);
	return KBX_OK;
}

static float float_le(const unsigned char *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* An integer of the binary format (big-endian, len bytes: 4 or 8), -1
 * if it is not one. */
static int64_t int_be(const unsigned char *p, size_t len)
{
	if (!p || (len != 4 && len != 8))
		return -1;
	uint64_t u = 0;
	for (size_t i = 0; i < len; i++)
		u = u << 8 | p[i];
	return len == 4 ? (int64_t)(int32_t)(uint32_t)u : (int64_t)u;
}

static const unsigned char *bytes_at(const struct kbx_pg_ops *ops, const struct kbx_pg_result *r,
				     size_t row, int col, size_t *len)
{
	*len = ops->length(r, row, col);
	return (const unsigned char *)ops->value(r, row, col);
}

/* Every vector's code of every repository of the batch, by chunk id:
 * kbx.vectors.code is its scale (float4, little-endian) and its dim
 * signed bytes. */
static int read_codes(struct db_source *ds)
{
	struct db_search_cache *c = ds->c;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	const char *params[] = { c->ids.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query_once(ds->g, "SELECT repo, chunk, code FROM kbx.vectors "
				     "WHERE repo = ANY($1::int[]) ORDER BY repo, chunk",
				     1, params, 1, &r, "cannot read the vectors' codes");
	if (rc)
		return rc;
	size_t rows = ops->nrows(r), last = 0, len;
	size_t *place = malloc((rows + 1) * sizeof(*place)), *len0 = calloc(c->n, sizeof(*len0));
	if (!place || !len0) {
		rc = nomem();
		goto out;
	}
	for (size_t row = 0; row < rows; row++) {
		const unsigned char *p = bytes_at(ops, r, row, 0, &len);
		size_t k = place[row] = place_of(c, int_be(p, len), &last);
		if (k == c->n)
			continue;
		if (!c->r[k].nvec++) {
			bytes_at(ops, r, row, 2, &len);
			len0[k] = len > 4 ? len : 4;
		}
	}
	for (size_t k = 0; k < c->n; k++) {
		struct db_repo_cache *e = &c->r[k];
		e->dim = (uint32_t)(len0[k] - 4 * !!len0[k]);
		e->ids = malloc((e->nvec + 1) * sizeof(*e->ids));
		e->scales = malloc((e->nvec + 1) * sizeof(*e->scales));
		e->codes = malloc(e->nvec * e->dim + 1);
		if (!e->ids || !e->scales || !e->codes) {
			rc = nomem();
			goto out;
		}
		e->nvec = 0;
	}
	for (size_t row = 0; row < rows; row++) {
		struct db_repo_cache *e = place[row] < c->n ? &c->r[place[row]] : NULL;
		if (!e || e->bad_code >= 0)
			continue;
		const unsigned char *p = bytes_at(ops, r, row, 1, &len);
		int64_t id = int_be(p, len);
		p = bytes_at(ops, r, row, 2, &len);
		if (!p || len != len0[place[row]]) {
			e->bad_code = id;
			continue;
		}
		e->ids[e->nvec] = id;
		e->scales[e->nvec] = float_le(p);
		memcpy(e->codes + e->nvec * e->dim, p + 4, e->dim);
		e->nvec++;
	}
	c->have_codes = 1;
out:
	free(place);
	free(len0);
	ops->clear(r);
	return rc;
}

static kbx_status_t db_codes(void *data, uint64_t *n, uint32_t *dim, const int64_t **ids,
			     const float **scales, const int8_t **codes, struct kbx_error *err)
{
	struct db_source *ds = data;
	int rc = ds->c->have_codes ? 0 : read_codes(ds);
	if (rc)
		return db_failed(ds, rc, err);
	const struct db_repo_cache *e = &ds->c->r[ds->j];
	if (e->bad_code >= 0)
		return _kbx_fail(err, KBX_ERR_CORRUPT,
				 "the code of chunk %lld in kbx.vectors is not of %u dimensions: push the repository again",
				 (long long)e->bad_code, e->dim);
	ds->nvec = e->nvec;
	*n = e->nvec;
	*dim = e->dim;
	*ids = e->ids;
	*scales = e->scales;
	*codes = e->codes;
	return KBX_OK;
}

/* Every vector of the repositories of the batch with codes read and at
 * most most vectors (those whose search scores every vector when one
 * of most does), in one statement, into their every.  A repository
 * whose rows are not its codes' is left out: its own statement says
 * what is wrong. */
static int read_every(struct db_source *ds, size_t most)
{
	struct db_search_cache *c = ds->c;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct strbuf ids = STRBUF_INIT;
	for (size_t k = 0; k < c->n; k++) {
		const struct db_repo_cache *e = &c->r[k];
		if (!e->every && e->nvec && e->nvec <= most && e->bad_code < 0)
			strbuf_addf(&ids, "%s%lld", ids.len ? "," : "{", c->rid[k]);
	}
	strbuf_addch(&ids, '}');
	if (ids.failed) {
		strbuf_release(&ids);
		return nomem();
	}
	const char *params[] = { ids.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query_once(ds->g, "SELECT repo, chunk, vec FROM kbx.vectors "
				     "WHERE repo = ANY($1::int[]) ORDER BY repo, chunk",
				     1, params, 1, &r, "cannot read the vectors");
	strbuf_release(&ids);
	if (rc)
		return rc;
	size_t rows = ops->nrows(r), last = 0, len;
	for (size_t row = 0; row < rows;) {
		const unsigned char *p = bytes_at(ops, r, row, 0, &len);
		int64_t repo = int_be(p, len);
		size_t k = place_of(c, repo, &last), end = row;
		while (end < rows && (p = bytes_at(ops, r, end, 0, &len)) && int_be(p, len) == repo)
			end++;
		struct db_repo_cache *e = k < c->n ? &c->r[k] : NULL;
		float *x = e && end - row == e->nvec ?
			malloc(e->nvec * e->dim * sizeof(*x) + 1) : NULL;
		for (size_t i = 0; x && i < e->nvec; i++) {
			p = bytes_at(ops, r, row + i, 1, &len);
			if (int_be(p, len) != e->ids[i] || !(p = bytes_at(ops, r, row + i, 2, &len)) ||
			    len != (size_t)e->dim * 4) {
				free(x);
				x = NULL;
				break;
			}
			for (uint32_t j = 0; j < e->dim; j++)
				x[i * e->dim + j] = float_le(p + 4 * j);
		}
		if (x)
			e->every = x;
		row = end > row ? end : row + 1;
	}
	ops->clear(r);
	return 0;
}

/* The vectors of ids[0..n) (ascending) into x: every one in a
 * statement of its own, or those chunks' by an array of ids. */
static kbx_status_t db_vectors(void *data, const int64_t *ids, size_t n, uint32_t dim, float *x,
			       struct kbx_error *err)
{
	struct db_source *ds = data;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	struct db_repo_cache *e = &ds->c->r[ds->j];
	int every = n == ds->nvec;
	/* every vector: read once for all the searches of the repository,
	 * with those of the batch that have no more */
	if (every && !e->every && dim == e->dim) {
		int rc = read_every(ds, n);
		if (rc)
			return db_failed(ds, rc, err);
	}
	if (every && e->every && dim == e->dim) {
		memcpy(x, e->every, n * dim * sizeof(*x));
		return KBX_OK;
	}
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
	int rc = db_graph_query_once(ds->g, every ?
				     "SELECT chunk, vec FROM kbx.vectors WHERE repo = $1 ORDER BY chunk" :
				     "SELECT chunk, vec FROM kbx.vectors WHERE repo = $1 "
				     "AND chunk = ANY($2::bigint[]) ORDER BY chunk",
				     every ? 1 : 2, params, 1, &r, "cannot read the vectors");
	strbuf_release(&arr);
	if (rc)
		return db_failed(ds, rc, err);
	size_t rows = ops->nrows(r);
	kbx_status_t st = KBX_OK;
	for (size_t i = 0; i < n && !st; i++) {
		size_t len = 0;
		const unsigned char *p = i < rows ? bytes_at(ops, r, i, 0, &len) : NULL;
		if (!p || int_be(p, len) != ids[i] || !(p = bytes_at(ops, r, i, 1, &len)) ||
		    len != (size_t)dim * 4) {
			st = _kbx_fail(err, KBX_ERR_CORRUPT,
				       "the vector of chunk %lld in kbx.vectors is not there or not of %u float4: push the repository again",
				       (long long)ids[i], dim);
			break;
		}
		for (uint32_t j = 0; j < dim; j++)
			x[(size_t)i * dim + j] = float_le(p + 4 * j);
	}
	ops->clear(r);
	if (!st && every && dim == e->dim && !e->every &&
	    (e->every = malloc(n * dim * sizeof(*x) + 1)))
		memcpy(e->every, x, n * dim * sizeof(*x));
	return st;
}

/* The columns of a chunk, in the order chunk_of_row reads them. */
#define CHUNK_COLS "id, type, kind, node, doc_id, path, line, end_line, title, heading, lang, " \
		   "seq, tags, category, severity, pattern, pattern_line, cause, fix, related, text"

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

static int read_code_chunks(struct db_source *ds)
{
	struct db_search_cache *c = ds->c;
	const struct kbx_pg_ops *ops = db_graph_ops(ds->g);
	const char *params[] = { c->ids.buf };
	struct kbx_pg_result *r = NULL;
	int rc = db_graph_query_once(ds->g, "SELECT repo, count(*) FROM kbx.chunks "
				     "WHERE repo = ANY($1::int[]) AND type = 'code' GROUP BY repo",
				     1, params, 0, &r, "cannot count the code chunks");
	if (rc)
		return rc;
	size_t last = 0;
	for (size_t row = 0; row < ops->nrows(r); row++) {
		size_t k = place_of(c, strtoll(str_or_empty(ops->value(r, row, 0)), NULL, 10), &last);
		if (k < c->n)
			c->r[k].code_chunks = strtoull(str_or_empty(ops->value(r, row, 1)), NULL, 10);
	}
	ops->clear(r);
	c->have_code_chunks = 1;
	return 0;
}

static kbx_status_t db_code_chunks(void *data, uint64_t *n, struct kbx_error *err)
{
	struct db_source *ds = data;
	int rc = ds->c->have_code_chunks ? 0 : read_code_chunks(ds);
	if (rc)
		return db_failed(ds, rc, err);
	*n = ds->c->r[ds->j].code_chunks;
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
	struct db_source ds = { g, db_graph_repo_id(g, i), 0, NULL, 0, 0 };
	ds.c = batch_of(g, i, &ds.j);
	if (!ds.c)
		return nomem();
	int rc = ds.c->have_counts ? 0 : read_counts(&ds);
	if (rc)
		return rc;
	const struct db_repo_cache *e = &ds.c->r[ds.j];
	struct kbx_search_source src = {
		.data = &ds,
		.nchunks = e->nchunks,
		.chunk_tokens = e->chunk_tokens,
		.postings = db_postings,
		.patterns = db_patterns,
		.chunks = db_chunks,
		.codes = db_codes,
		.vectors = db_vectors,
		.embedding = e->embedding,
		.df = db_df,
		.why_no_vectors = "no vector search with --db: the repository was pushed without "
				  "vectors (its index had none current): 'kbx index' and push it again",
		.code_chunks = db_code_chunks,
		.node_chunks = db_node_chunks,
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
