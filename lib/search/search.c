/*
 * kbx_search: three ranked lists, fused.
 *
 *   vector   the query's embedding against the FAISS index (cosine)
 *   lexical  BM25 over the postings
 *   pattern  error entries whose pattern matches the query text, most
 *            specific first
 *
 * Filters apply inside each signal, so that a rank is a rank among the
 * chunks the user asked for.  Each list is cut at the depth (candidates
 * per signal) and the lists are fused: reciprocal rank fusion by default,
 * sum of w / (k + rank) with k = 60 and w 1 for BM25 and patterns,
 * KBX_RRF_VECTOR_WEIGHT for vectors, or a linear mix of min-max normalised
 * scores.  A pasted error message is searched for its exception lines
 * (query-focus.c); the patterns see it as pasted.
 *
 * The fused list is then cut to one hit per document (a registry
 * document's best section, with up to KBX_HIT_SECTIONS more of its
 * sections that also ranked), unless the query asks for every section,
 * and each hit gets a confidence in [0, 1] (hit_confidence()).
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <xxhash.h>

#include "search/search.h"
#include "embed/embed.h"
#include "search/vecmod.h"

#define DEFAULT_LIMIT 10
#define DEFAULT_RRF_K 60.0
#define DEFAULT_VECTOR_WEIGHT 0.7
/* the fused score of an entry of another language than the query's */
#define OTHER_LANG_WEIGHT 0.5
/* how far a filtered BM25 list is checked to count what passes */
#define COUNT_FILTERED_MAX 4096
/* hit_confidence(): bias, BM25 share, cosine, pattern, first; fitted by
 * bench/search/calibrate.py on the dev halves (the README's "Search
 * quality" gives the held-out calibration) */
#define CALIB_ALL -4.77, 5.68, 1.38, 4.10, 3.06
#define CALIB_LEXICAL -4.53, 6.13, 0.00, 4.26, 3.11
#define CALIB_VECTOR -4.15, 0.00, 3.71, 3.85, 3.43

const char *kbx_signal_str(int sig)
{
	static const char *const names[] = { "vector", "lexical", "pattern" };
	return sig >= 0 && sig < KBX_SIG__COUNT ? names[sig] : NULL;
}

double kbx_rrf_weighted(const int *ranks, const double *weights, size_t n, double k)
{
	double s = 0;
	if (k <= 0)
		k = DEFAULT_RRF_K;
	for (size_t i = 0; i < n; i++)
		if (ranks[i] > 0)
			s += (weights ? weights[i] : 1.0) / (k + ranks[i]);
	return s;
}

double kbx_rrf(const int *ranks, size_t n, double k)
{
	return kbx_rrf_weighted(ranks, NULL, n, k);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Is word in the ','-separated list? (case-insensitive) */
static int in_list(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		while (l && (*p == ' ')) {
			p++;
			l--;
		}
		while (l && p[l - 1] == ' ')
			l--;
		if (l == wl && !strncasecmp(p, word, wl))
			return 1;
		if (!e)
			break;
		p = e + 1;
	}
	return 0;
}

static int has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Is graph node id in the query's scope (sorted ids)? */
static int in_scope(const struct kbx_search_query *q, uint32_t id)
{
	size_t lo = 0, hi = q->nscope;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (q->scope[mid] == id)
			return 1;
		if (q->scope[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int passes(const struct kbx_search_query *q, const struct kbx_chunk *c)
{
	if (q->scope && (c->type != KBX_CHUNK_CODE || !in_scope(q, c->node)))
		return 0;
	if (q->types && !(q->types & (1u << c->type)))
		return 0;
	if (q->lang && *q->lang && strcasecmp(c->lang, q->lang) && strcasecmp(c->lang, "all"))
		return 0;
	for (size_t i = 0; i < q->ntags; i++)
		if (!in_list(c->tags, q->tags[i]))
			return 0;
	if (q->severity && *q->severity && strcasecmp(c->severity, q->severity))
		return 0;
	if (q->path && *q->path) {
		if (has_glob(q->path)) {
			if (fnmatch(q->path, c->path, 0))
				return 0;
		} else {
			size_t l = strlen(q->path);
			if (strncmp(c->path, q->path, l))
				return 0;
			/* "src" matches "src/a.py", not "srcs/a.py" */
			if (c->path[l] && c->path[l] != '/' && q->path[l - 1] != '/')
				return 0;
		}
	}
	return 1;
}

int kbx_search_passes(const struct kbx_search_query *q, const struct kbx_chunk *c)
{
	struct kbx_search_query f = *q;
	f.scope = NULL;
	return passes(&f, c);
}

static int has_filters(const struct kbx_search_query *q)
{
	return q->types || (q->lang && *q->lang) || q->ntags || (q->severity && *q->severity) ||
	       (q->path && *q->path) || q->scope;
}

/* The scope's code chunks: each scoped node's file lists the chunks it
 * gave (its "c:PATH" source record); a chunk is kept when it is a scoped
 * node's. */
static kbx_status_t scope_chunks(struct kbx_store *s, MDB_txn *txn,
				 const struct kbx_search_query *q, struct _kbx_u32s *out,
				 struct kbx_error *err)
{
	uint32_t *files = malloc((q->nscope + 1) * sizeof(*files));
	size_t nfiles = 0;
	kbx_status_t st = KBX_OK;
	struct strbuf key = STRBUF_INIT;
	if (!files)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < q->nscope; i++) {
		struct kbx_node n;
		if (_kbx_node_read(s, txn, q->scope[i], &n) == KBX_OK && n.file)
			files[nfiles++] = n.file;
	}
	if (nfiles)
		qsort(files, nfiles, sizeof(*files), _kbx_cmp_u32);
	for (size_t i = 0; i < nfiles && !st; i++) {
		if (i && files[i] == files[i - 1])
			continue;
		struct kbx_node f;
		if (_kbx_node_read(s, txn, files[i], &f) != KBX_OK || !f.path)
			continue;
		strbuf_reset(&key);
		strbuf_addf(&key, "c:%.*s", (int)f.path_len, f.path);
		if (key.failed) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		struct _kbx_source_rec r;
		kbx_status_t rs = _kbx_source_get(s, txn, strbuf_str(&key), &r, err);
		if (rs == KBX_NOT_FOUND)
			continue;
		if (rs) {
			st = rs;
			break;
		}
		for (uint32_t j = 0; j < r.nchunks; j++) {
			uint32_t id = _kbx_get_u32(r.ids + 4 * j);
			struct _kbx_chunk_view v;
			if (_kbx_chunk_get(s, txn, id, &v) || v.c.type != KBX_CHUNK_CODE ||
			    !in_scope(q, v.c.node))
				continue;
			if (_kbx_u32s_add(out, id)) {
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				break;
			}
		}
	}
	free(files);
	strbuf_release(&key);
	if (!st)
		_kbx_u32s_settle(out);
	return st;
}

const char *kbx_scope_plan_str(int plan)
{
	switch (plan) {
	case KBX_SCOPE_GRAPH_FIRST: return "graph-first";
	case KBX_SCOPE_VECTOR_FIRST: return "vector-first";
	default: return "auto";
	}
}

/* One signal's list after filtering. */
struct slist {
	uint32_t *ids;
	double *scores;
	size_t *match_off, *match_len;
	size_t n;
};

static void slist_release(struct slist *l)
{
	free(l->ids);
	free(l->scores);
	free(l->match_off);
	free(l->match_len);
	memset(l, 0, sizeof(*l));
}

static int slist_alloc(struct slist *l, size_t n)
{
	l->ids = malloc((n + 1) * sizeof(*l->ids));
	l->scores = malloc((n + 1) * sizeof(*l->scores));
	return l->ids && l->scores ? 0 : -1;
}

/*
 * Where a search reads its chunks, postings and patterns: the store (s
 * and txn), or a source (kbx_search_source: another's copy of an index,
 * asked a batch of chunks at a time and kept here by id).
 */
struct cached_chunk {
	uint32_t id;
	struct kbx_chunk c;
};

struct src {
	struct kbx_store *s;
	MDB_txn *txn;
	const struct kbx_search_source *ext;
	struct cached_chunk *cache;     /* sorted by id */
	size_t ncache, acache;
};

static int cmp_cached(const void *a, const void *b)
{
	const struct cached_chunk *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static const struct cached_chunk *cache_find(const struct src *src, uint32_t id)
{
	struct cached_chunk key = { .id = id };
	return src->ncache ? bsearch(&key, src->cache, src->ncache, sizeof(key), cmp_cached) : NULL;
}

/* Fetch the chunks of ids[0..n) the source has not given yet, in one
 * batch.  A failure leaves them out (they are then asked one by one). */
static kbx_status_t src_prefetch(struct src *src, const uint32_t *ids, size_t n,
				 struct kbx_error *err)
{
	if (!src->ext || !n)
		return KBX_OK;
	uint32_t *want = malloc(n * sizeof(*want));
	struct kbx_chunk *got = NULL;
	size_t nw = 0;
	if (!want)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!cache_find(src, ids[i]))
			want[nw++] = ids[i];
	kbx_status_t st = KBX_OK;
	if (nw) {
		got = calloc(nw, sizeof(*got));
		if (got && src->ncache + nw > src->acache) {
			size_t na = 2 * (src->ncache + nw);
			struct cached_chunk *nc = realloc(src->cache, na * sizeof(*nc));
			if (nc) {
				src->cache = nc;
				src->acache = na;
			}
		}
		if (!got || src->ncache + nw > src->acache)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		if (!st)
			st = src->ext->chunks(src->ext->data, want, nw, got, err);
		for (size_t i = 0; !st && i < nw; i++) {
			src->cache[src->ncache].id = want[i];
			src->cache[src->ncache].c = got[i];
			src->ncache++;
		}
		if (!st) {
			qsort(src->cache, src->ncache, sizeof(*src->cache), cmp_cached);
			/* an id asked twice in the batch is one entry */
			size_t w = 0;
			for (size_t i = 0; i < src->ncache; i++)
				if (!w || src->cache[w - 1].id != src->cache[i].id)
					src->cache[w++] = src->cache[i];
			src->ncache = w;
		}
	}
	free(want);
	free(got);
	return st;
}

/* Chunk id into *c: 0, or -1 when there is none (or it cannot be read). */
static int src_chunk(struct src *src, uint32_t id, struct kbx_chunk *c)
{
	if (!src->ext) {
		struct _kbx_chunk_view v;
		if (_kbx_chunk_get(src->s, src->txn, id, &v))
			return -1;
		*c = v.c;
		return 0;
	}
	const struct cached_chunk *cc = cache_find(src, id);
	if (!cc) {
		struct kbx_error e = KBX_ERROR_INIT;
		if (src_prefetch(src, &id, 1, &e) || !(cc = cache_find(src, id)))
			return -1;
	}
	if (!cc->c.type)
		return -1;
	*c = cc->c;
	return 0;
}

/* Keep candidate id when it passes the filters. */
static int keep_in(struct src *src, const struct kbx_search_query *q, int filtered, uint32_t id)
{
	if (!filtered)
		return 1;
	struct kbx_chunk c;
	if (src_chunk(src, id, &c))
		return 0;
	return passes(q, &c);
}

static int keep(struct kbx_store *s, MDB_txn *txn, const struct kbx_search_query *q,
		int filtered, uint32_t id)
{
	struct src one = { .s = s, .txn = txn };
	return keep_in(&one, q, filtered, id);
}

/* The ids of a[from..to), for src_prefetch. */
static kbx_status_t prefetch_scored(struct src *src, const struct _kbx_scored *a, size_t from,
				    size_t to, struct kbx_error *err)
{
	if (!src->ext || to <= from)
		return KBX_OK;
	uint32_t *ids = malloc((to - from) * sizeof(*ids));
	if (!ids)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t i = from; i < to; i++)
		ids[i - from] = a[i].id;
	kbx_status_t st = src_prefetch(src, ids, to - from, err);
	free(ids);
	return st;
}

/* Words near the query's (lib/embed/expand.c), for BM25 at a weight
 * under the query's own words. */
#define EXPAND_MAX 48
#define EXPAND_WEIGHT 0.3
struct expansion {
	struct _kbx_bm25_term t[EXPAND_MAX];
	char word[EXPAND_MAX][KBX_TOKEN_MAX + 1];
	size_t n;
};

static void add_expansion(void *data, const char *word, size_t len, float cos)
{
	struct expansion *x = data;
	if (x->n == EXPAND_MAX || len > KBX_TOKEN_MAX)
		return;
	memcpy(x->word[x->n], word, len);
	x->word[x->n][len] = '\0';
	x->t[x->n].term = x->word[x->n];
	x->t[x->n].len = len;
	x->t[x->n].weight = EXPAND_WEIGHT * cos;
	x->n++;
}

static int first_token(void *data, const char *tok, size_t len, int kind)
{
	(void)data;
	(void)tok;
	(void)len;
	(void)kind;
	return 1;       /* one is enough */
}

static kbx_status_t run_lexical(struct src *src, const struct kbx_search_query *q, const struct _kbx_u32s *subset,
				size_t depth, int expand, struct slist *out,
				struct kbx_signal_report *rep, double *bound, struct kbx_error *err)
{
	kbx_tokenizer_t *tok = _kbx_tokenizer_new();
	struct expansion *x = expand ? calloc(1, sizeof(*x)) : NULL;
	if (!tok || (expand && !x)) {
		_kbx_tokenizer_free(tok);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	if (x && _kbx_expand_query(q->text, q->len, add_expansion, x) > 0) {
		rep->expanded = x->n;
		size_t o = 0;
		for (size_t i = 0; i < x->n; i++) {
			size_t l = x->t[i].len;
			if (o + l + 2 > sizeof(rep->expanded_words))
				break;
			if (o)
				rep->expanded_words[o++] = ' ';
			memcpy(rep->expanded_words + o, x->word[i], l);
			o += l;
		}
		rep->expanded_words[o] = '\0';
	}
	struct _kbx_scored *sc = NULL;
	size_t n = 0;
	kbx_status_t st =
		src->ext ? _kbx_bm25_source(src->ext, tok, subset ? subset->v : NULL,
					    subset ? subset->n : 0, q->text, q->len, x ? x->t : NULL,
					    x ? x->n : 0, &sc, &n, bound, err)
			 : _kbx_bm25(src->s, src->txn, tok, q->text, q->len,
				     subset ? subset->v : NULL, subset ? subset->n : 0,
				     x ? x->t : NULL, x ? x->n : 0, &sc, &n, bound, err);
	/* nothing found: a question of nothing but words BM25 leaves out
	 * says so, rather than find nothing without a word */
	if (!st && !n && !(x && x->n) && !_kbx_tokenize(tok, q->text, q->len, first_token, NULL))
		snprintf(rep->note, sizeof(rep->note),
			 "the question has no word to search by: short words, numbers and common words (the, of, and...) are left out");
	_kbx_tokenizer_free(tok);
	free(x);
	if (st)
		return st;
	rep->used = 1;
	rep->candidates = n;
	int filtered = has_filters(q);
	if (slist_alloc(out, depth)) {
		free(sc);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	/* sort the best first, more of them when the filters reject many */
	size_t sorted = 0, next = 0;
	size_t want = filtered ? depth * 4 : depth;
	while (out->n < depth && next < n) {
		if (next == sorted) {
			if (sorted)
				want *= 4;
			/* sorting the remaining part: its best go first */
			_kbx_scored_top(sc + sorted, n - sorted, want);
			size_t from = sorted;
			sorted = sorted + want < n ? sorted + want : n;
			if (filtered && (st = prefetch_scored(src, sc, from, sorted, err))) {
				free(sc);
				return st;
			}
		}
		if (keep_in(src, q, filtered, sc[next].id)) {
			out->ids[out->n] = sc[next].id;
			out->scores[out->n] = sc[next].score;
			out->n++;
		}
		next++;
	}
	/* the count after the filters: the rest checked too, up to a bound */
	rep->passed = out->n;
	rep->passed_exact = 1;
	for (; filtered && next < n; next++) {
		if (next >= COUNT_FILTERED_MAX) {
			rep->passed_exact = 0;
			break;
		}
		if (next == sorted) {
			/* the rest, a batch at a time, up to the bound */
			size_t to = n < COUNT_FILTERED_MAX ? n : COUNT_FILTERED_MAX;
			if (!src->ext)
				to = n;
			else if ((st = prefetch_scored(src, sc, next, to, err))) {
				free(sc);
				return st;
			}
			sorted = to;
		}
		rep->passed += keep_in(src, q, filtered, sc[next].id);
	}
	if (!filtered)
		rep->passed = n;
	free(sc);
	return KBX_OK;
}

static kbx_status_t run_pattern(struct src *src, const struct kbx_search_query *q, size_t depth,
				struct slist *out, struct kbx_signal_report *rep,
				struct kbx_error *err)
{
	struct _kbx_pattern_hit *h = NULL;
	size_t n = 0;
	kbx_status_t st = src->ext ? _kbx_patterns_match_source(src->ext, q->text, q->len, &h, &n, err)
				   : _kbx_patterns_match(src->s, src->txn, q->text, q->len, &h, &n, err);
	if (st)
		return st;
	rep->used = 1;
	rep->candidates = n;
	int filtered = has_filters(q);
	if (slist_alloc(out, depth) ||
	    !(out->match_off = malloc((depth + 1) * sizeof(size_t))) ||
	    !(out->match_len = malloc((depth + 1) * sizeof(size_t)))) {
		free(h);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n && out->n < depth; i++) {
		if (!keep_in(src, q, filtered, h[i].id))
			continue;
		out->ids[out->n] = h[i].id;
		out->scores[out->n] = h[i].specificity;
		out->match_off[out->n] = h[i].off;
		out->match_len[out->n] = h[i].len;
		out->n++;
	}
	rep->passed = out->n;
	rep->passed_exact = out->n < depth;
	free(h);
	return KBX_OK;
}

/* A query term's weight for the builtin embedding: from its inverse
 * document frequency, as BM25 has it, so that rare words of a question
 * weigh more than the words every chunk has.  A term no chunk holds gets the
 * largest weight: its n-grams may still meet a near spelling. */
struct idf_ctx {
	struct kbx_store *s;
	MDB_txn *txn;
	MDB_cursor *cur;
	uint64_t nchunks;
};

/* the square root: on the standard library's docstrings, vector
 * MRR@10 0.207 unweighted, 0.214 by idf, 0.222 by its root, 0.185 by
 * its square */
static double idf_weight(double n, double df)
{
	return sqrt(log(1.0 + (n - df + 0.5) / (df + 0.5)));
}

static double query_idf(void *data, const char *tok, size_t len)
{
	struct idf_ctx *c = data;
	double n = (double)c->nchunks;
	size_t df = 0;
	MDB_val k = { len, (void *)tok }, d;
	if (mdb_cursor_get(c->cur, &k, &d, MDB_SET_KEY) == 0)
		mdb_cursor_count(c->cur, &df);
	return idf_weight(n, (double)df);
}

static int cmp_cand(const void *a, const void *b)
{
	const struct _kbx_scored *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Sort candidates best first and keep the depth best in out (which has
 * room for depth). */
static void keep_best(struct _kbx_scored *c, size_t n, size_t depth, struct slist *out)
{
	if (n)
		qsort(c, n, sizeof(*c), cmp_cand);
	out->n = 0;
	for (size_t i = 0; i < n && out->n < depth; i++) {
		out->ids[out->n] = c[i].id;
		out->scores[out->n] = c[i].score;
		out->n++;
	}
}

/* Embed the query text into qv (the embedder's dimension), with
 * BM25's inverse document frequencies as the terms' weights. */
static kbx_status_t embed_query(struct kbx_store *s, MDB_txn *txn, kbx_embedder_t *e,
				const struct kbx_search_query *q, float *qv,
				struct kbx_error *err)
{
	struct idf_ctx ic = { s, txn, NULL, 0 };
	_kbx_meta_get_u64(s, txn, "chunks", &ic.nchunks);
	if (mdb_cursor_open(txn, s->postings, &ic.cur))
		ic.cur = NULL;
	kbx_status_t st = _kbx_embed_query(e, q->text, q->len, ic.cur ? query_idf : NULL, &ic, qv,
					   err);
	if (ic.cur)
		mdb_cursor_close(ic.cur);
	return st;
}

/* The chunks added since the vector file was built (vdelta): each one's
 * vector from the cache, compared with the query, merged into out by
 * score and cut at depth. */
static kbx_status_t scan_delta(struct kbx_store *s, MDB_txn *txn,
			       const struct kbx_search_query *q, const float *qv, uint32_t dim,
			       size_t depth, struct slist *out,
			       struct kbx_signal_report *rep, struct kbx_error *err)
{
	MDB_stat ms;
	if (mdb_stat(txn, s->vdelta, &ms) || !ms.ms_entries)
		return KBX_OK;
	struct _kbx_scored *c = malloc((out->n + ms.ms_entries + 1) * sizeof(*c));
	if (!c)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	size_t n = 0;
	for (size_t i = 0; i < out->n; i++) {
		c[n].id = out->ids[i];
		c[n].score = (float)out->scores[i];
		n++;
	}
	MDB_cursor *cur;
	MDB_val k, d;
	int rc = mdb_cursor_open(txn, s->vdelta, &cur);
	if (rc) {
		free(c);
		return _kbx_fail_mdb(err, rc, "cannot read the vector delta");
	}
	/* the file's hits, by id: a file built after the delta began holds
	 * some of its chunks (run_vector) */
	uint32_t *given = malloc((out->n + 1) * sizeof(*given));
	if (!given) {
		free(c);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < out->n; i++)
		given[i] = out->ids[i];
	qsort(given, out->n, sizeof(*given), _kbx_cmp_u32);
	size_t scanned = 0;
	for (rc = mdb_cursor_get(cur, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(cur, &k, &d, MDB_NEXT)) {
		if (k.mv_size != 4 || d.mv_size != 24)
			continue;
		uint32_t id = _kbx_get_u32(k.mv_data);
		if (out->n && bsearch(&id, given, out->n, sizeof(*given), _kbx_cmp_u32))
			continue;
		MDB_val vk = { 24, d.mv_data }, vv;
		if (mdb_get(txn, s->vcache, &vk, &vv) || vv.mv_size != dim * sizeof(float))
			continue;
		/* summed as the file's exact pass sums it */
		float dot = _kbx_vflat_ip(qv, vv.mv_data, dim);
		scanned++;
		if (dot <= 1e-6f || !keep(s, txn, q, 1, id))
			continue;
		c[n].id = id;
		c[n].score = dot;
		n++;
	}
	mdb_cursor_close(cur);
	free(given);
	keep_best(c, n, depth, out);
	rep->candidates += scanned;
	free(c);
	return KBX_OK;
}

/* Graph-first: each chunk of the subset compared with the query, its
 * vector read from the cache (ident: the hash of the identity the
 * vectors were made under). */
static kbx_status_t scan_subset(struct kbx_store *s, MDB_txn *txn,
				const struct kbx_search_query *q, const struct _kbx_u32s *subset,
				uint64_t ident, const float *qv, uint32_t dim, size_t depth,
				struct slist *out, struct kbx_signal_report *rep,
				struct kbx_error *err)
{
	struct _kbx_scored *c = malloc((subset->n + 1) * sizeof(*c));
	size_t n = 0, missing = 0;
	if (!c)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < subset->n; i++) {
		struct _kbx_chunk_view v;
		if (_kbx_chunk_get(s, txn, subset->v[i], &v) || !passes(q, &v.c))
			continue;
		unsigned char key[KBX_VCACHE_KEY_LEN];
		_kbx_vcache_key(key, ident, v.c.type, v.c.text, v.c.text_len, v.c.title);
		MDB_val vk = { sizeof(key), key }, vv;
		if (mdb_get(txn, s->vcache, &vk, &vv) || vv.mv_size != dim * sizeof(float)) {
			missing++;
			continue;
		}
		float dot = _kbx_vflat_ip(qv, vv.mv_data, dim);
		rep->candidates++;
		if (dot <= 1e-6f)
			continue;
		c[n].id = subset->v[i];
		c[n].score = dot;
		n++;
	}
	keep_best(c, n, depth, out);
	free(c);
	if (missing)
		snprintf(rep->note, sizeof(rep->note),
			 "%zu chunk%s of the scope %s no vector: run 'kbx index'", missing,
			 missing == 1 ? "" : "s", missing == 1 ? "has" : "have");
	return KBX_OK;
}

/* Were the vectors made under identity stored (as the index or the
 * database records it) by e's embedding?  An http or command embedder
 * knows its dimension only once it has answered: then the provider and
 * model part are compared. */
static int same_embedding(kbx_embedder_t *e, const char *stored)
{
	const char *ident = _kbx_embedder_identity(e);
	int same = !strcmp(ident, stored);
	if (!same && !_kbx_embedder_dim(e)) {
		const char *slash = strrchr(stored, '/');
		size_t pl = slash ? (size_t)(slash - stored) : strlen(stored);
		const char *islash = strrchr(ident, '/');
		size_t il = islash ? (size_t)(islash - ident) : strlen(ident);
		same = pl == il && !strncmp(stored, ident, pl);
	}
	return same;
}

/* The chunks of the candidates ids[0..k) (up to the first -1 or the
 * first of cosine 0) in one batch, for a source that is not the store. */
static kbx_status_t prefetch_ids(struct src *src, const int64_t *ids, const float *dist, size_t k,
				 struct kbx_error *err)
{
	if (!src->ext || !k)
		return KBX_OK;
	uint32_t *want = malloc(k * sizeof(*want));
	size_t n = 0;
	if (!want)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < k && ids[i] >= 0 && dist[i] > 1e-6f; i++)
		want[n++] = (uint32_t)ids[i];
	kbx_status_t st = src_prefetch(src, want, n, err);
	free(want);
	return st;
}

/* The depth nearest chunks of a vector index (search(sdata, ...), of
 * ntotal vectors) to the query qv that
 * pass q's filters into out (with room for depth), each candidate looked
 * up in src (a chunk removed since the index was built is not there);
 * too few pass: the search looks further, up to every vector. */
typedef int (*vsearch_fn)(void *data, const float *qv, size_t k, int64_t *ids, float *dist,
			  char *msg, size_t msgsz);

static kbx_status_t vector_hits(struct src *src, vsearch_fn search, void *sdata,
				uint64_t ntotal, int exact, const struct kbx_search_query *q,
				const float *qv, size_t depth, struct slist *out,
				struct kbx_signal_report *rep, struct kbx_error *err)
{
	kbx_status_t st = KBX_OK;
	int64_t *ids = NULL;
	float *dist = NULL;
	char msg[512];
	int vr;

	int filtered = has_filters(q);
	size_t k = filtered ? depth * 4 : depth;
	if (k > ntotal)
		k = (size_t)ntotal;
	for (;;) {
		free(ids);
		free(dist);
		ids = malloc((k + 1) * sizeof(*ids));
		dist = malloc((k + 1) * sizeof(*dist));
		if (!ids || !dist) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		vr = k ? search(sdata, qv, k, ids, dist, msg, sizeof(msg)) : 0;
		if (vr) {
			st = _kbx_fail(err, KBX_ERR_INTERNAL, "vector search failed: %s", msg);
			goto out;
		}
		st = prefetch_ids(src, ids, dist, k, err);
		if (st)
			goto out;
		out->n = 0;
		size_t found = 0;
		for (size_t i = 0; i < k && out->n < depth; i++) {
			if (ids[i] < 0)
				break;
			/* cosine 0: nothing in common; not a candidate */
			if (dist[i] <= 1e-6f)
				break;
			found++;
			/* a chunk removed since the file was built is not there:
			 * unless the file holds exactly the snapshot's chunks,
			 * every candidate is looked up (the lookups are a third
			 * of a search's page faults) */
			if ((filtered || !exact) && !keep_in(src, q, 1, (uint32_t)ids[i]))
				continue;
			out->ids[out->n] = (uint32_t)ids[i];
			out->scores[out->n] = dist[i];
			out->n++;
		}
		rep->candidates = found;
		/* the filters left too few: look further, up to everything */
		if (out->n >= depth || k >= ntotal || found < k)
			break;
		k = k * 8 < ntotal ? k * 8 : (size_t)ntotal;
	}
out:
	free(ids);
	free(dist);
	return st;
}

/* A search of the index's own file, for vector_hits. */
struct file_search {
	struct _kbx_vsearch *vs;
	struct kbx_vector_search_params params;
};

static int file_search(void *data, const float *qv, size_t k, int64_t *ids, float *dist,
		       char *msg, size_t msgsz)
{
	struct file_search *f = data;
	return _kbx_vsearch_search(f->vs, qv, k, &f->params, ids, dist, msg, msgsz);
}

/* The vector signal.  A reason it cannot run goes to rep->note and the
 * return is KBX_OK with rep->used 0, unless mode is vector (then it is an
 * error). */
static kbx_status_t run_vector(struct kbx_store *s, MDB_txn *txn,
			       const struct kbx_search_query *q, const struct _kbx_u32s *subset,
			       size_t depth, struct slist *out, struct kbx_signal_report *rep,
			       char *kind_out, size_t kind_sz, struct kbx_error *err)
{
	struct _kbx_vsearch vs = { 0 };
	char msg[512];
	kbx_status_t st = KBX_OK;
	kbx_embedder_t *e = NULL;
	float *qv = NULL;
	char *path = NULL;
	char stored[256];

	uint64_t nchunks = 0;
	_kbx_meta_get_u64(s, txn, "chunks", &nchunks);
	if (!nchunks) {
		/* nothing indexed: nothing to say about vectors either */
		if (q->mode == KBX_MODE_VECTOR)
			snprintf(rep->note, sizeof(rep->note),
				 "the search index is empty: add a registry or index some code");
		goto out;
	}
	/* the generation the vector file was built at; chunks added since
	 * are in the delta, scanned below */
	uint64_t gen = 0;
	_kbx_meta_get_u64(s, txn, "vectors", &gen);
	_kbx_meta_get_str(s, txn, "vector_identity", stored, sizeof(stored));
	struct kbx_embed_config builtin = { 0 };
	st = _kbx_embedder_open(q->embed ? q->embed : &builtin, &e, err);
	if (st) {
		/* the other signals still answer; out of memory was
		 * counted, and the exit status says the answer is short
		 * (util.h) */
		snprintf(rep->note, sizeof(rep->note), "no vector search: %s", err->msg);
		st = KBX_OK;
		goto out;
	}
	const char *ident = _kbx_embedder_identity(e);
	int same = same_embedding(e, stored);
	if (!*stored) {
		snprintf(rep->note, sizeof(rep->note), "no vector index: run 'kbx index'");
		goto out;
	}
	if (!same) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vectors were made by %s, but the settings ask for %s: run 'kbx index' to embed again",
			 stored, ident);
		goto out;
	}
	if (subset) {
		/* graph-first: the scope's vectors from the cache, compared
		 * exactly; no index file is opened */
		uint32_t edim = 0;
		st = _kbx_embedder_probe(e, &edim, err);
		if (!st && !(qv = malloc((edim + 1) * sizeof(float))))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		if (!st)
			st = embed_query(s, txn, e, q, qv, err);
		if (st)
			goto embed_failed;
		snprintf(kind_out, kind_sz, "exact");
		if (slist_alloc(out, depth)) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		st = scan_subset(s, txn, q, subset, XXH3_64bits(stored, strlen(stored)), qv,
				 _kbx_embedder_dim(e), depth, out, rep, err);
		if (!st) {
			rep->used = 1;
			rep->passed = out->n;
			rep->passed_exact = out->n < depth;
		}
		goto out;
	}
	path = kbx_search_vector_path(s);
	if (path && _kbx_vector_file_recorded(s, txn, path) == 0) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vector index is stale (its file is not the one the index records): run 'kbx index'");
		goto out;
	}
	uint64_t fgen = 0, sgen = 0;
	/* a flat file is searched here, anything else by the module
	 * (vecmod.c), which then has to be loaded */
	int vr = _kbx_vsearch_open(path, gen, &vs, &fgen, msg, sizeof(msg));
	/* A file stamped with a later generation than the one recorded, but
	 * not later than this snapshot's, was put in place by a kbx index
	 * that has not yet recorded it as the current one ("vectors";
	 * mark_vectors_built in lib/search/sync.c), or was killed in
	 * between.  It holds the chunks of its generation: those removed
	 * since are looked up and left out, those added since are in the
	 * delta, which holds every chunk added since the recorded
	 * generation (scan_delta leaves out the ones the file gave).  A
	 * file of this snapshot's generation holds its chunks, every one,
	 * and the delta is not needed.  Every change of the chunks, or of
	 * the embedder, moves the generation on (lib/search/sync.c). */
	int whole = 0;
	if (vr == KBX_VEC_ERR_STALE && fgen > gen &&
	    _kbx_meta_get_u64(s, txn, "search_generation", &sgen) == KBX_OK && fgen <= sgen) {
		uint64_t want = fgen;
		double loaded = vs.load_ms;
		_kbx_vsearch_close(&vs);
		vr = _kbx_vsearch_open(path, want, &vs, &fgen, msg, sizeof(msg));
		vs.load_ms += loaded;
		whole = !vr && want == sgen;
	}
	if (vr == KBX_VEC_ERR_STALE) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vector index is stale (generation %llu, the index expects %llu): run 'kbx index'",
			 (unsigned long long)fgen, (unsigned long long)gen);
		goto out;
	}
	if (vr == KBX_VEC_ERR_NOMEM) {
		/* the module's own allocations are not counted as kbx's
		 * are: say it here, or the search goes on without vectors */
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory opening the vector index: %s", msg);
		goto out;
	}
	if (vr == KBX_VEC_ERR_MODULE) {
		snprintf(rep->note, sizeof(rep->note), "no vector search: %s", msg);
		goto out;
	}
	if (vr) {
		snprintf(rep->note, sizeof(rep->note), "cannot open the vector index: %s", msg);
		goto out;
	}
	struct kbx_vector_info info = vs.info;
	_kbx_vector_kind_name(info.kind, info.param, kind_out, kind_sz);
	uint32_t dim = info.dim;
	qv = malloc(dim * sizeof(float));
	if (!qv) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	if (_kbx_embedder_dim(e) && _kbx_embedder_dim(e) != dim) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vector index has dimension %u but the embedder gives %u: run 'kbx index'",
			 dim, _kbx_embedder_dim(e));
		goto out;
	}
	uint32_t edim = 0;
	st = _kbx_embedder_probe(e, &edim, err);
	if (!st && edim != dim) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vector index has dimension %u but the embedder gives %u: run 'kbx index'",
			 dim, edim);
		goto out;
	}
	if (!st)
		st = embed_query(s, txn, e, q, qv, err);
	if (st) {
embed_failed:
		snprintf(rep->note, sizeof(rep->note), "cannot embed the query: %s", err->msg);
		st = KBX_OK;
		goto out;
	}
	if (_kbx_embedder_dim(e) != dim) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vector index has dimension %u but the embedder gives %u: run 'kbx index'",
			 dim, _kbx_embedder_dim(e));
		goto out;
	}
	if (slist_alloc(out, depth)) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	struct src one = { .s = s, .txn = txn };
	struct file_search fs = { &vs, { .ef_search = q->ef_search, .nprobe = q->nprobe } };
	/* the file holds this snapshot's chunks, every one and no other,
	 * when it was built at the snapshot's generation */
	if (!whole && fgen == gen && _kbx_meta_get_u64(s, txn, "search_generation", &sgen) == KBX_OK)
		whole = fgen == sgen;
	st = vector_hits(&one, file_search, &fs, info.ntotal, whole, q, qv, depth, out, rep, err);
	if (st)
		goto out;
	if (!whole)
		st = scan_delta(s, txn, q, qv, dim, depth, out, rep, err);
	if (st)
		goto out;
	rep->used = 1;
	/* a full list may have left more behind than it holds */
	rep->passed = out->n;
	rep->passed_exact = out->n < depth;
out:
	/* an answer without some chunks says so: an embedding that failed
	 * left them without a vector (lib/search/sync.c) */
	if (rep->used && !rep->note[0]) {
		uint64_t missing = 0;
		if (_kbx_meta_get_u64(s, txn, KBX_META_VECTORS_MISSING, &missing) == KBX_OK && missing)
			snprintf(rep->note, sizeof(rep->note),
				 "%llu chunk%s no vector (the embedding failed when %s indexed): vector search leaves %s out until a 'kbx index' makes %s",
				 (unsigned long long)missing, missing == 1 ? " has" : "s have",
				 missing == 1 ? "it was" : "they were", missing == 1 ? "it" : "them",
				 missing == 1 ? "it" : "them");
	}
	rep->module = vs.ops != NULL;
	rep->load_ms = vs.load_ms;
	_kbx_vsearch_close(&vs);
	_kbx_embedder_close(e);
	free(qv);
	free(path);
	if (!st && !rep->used && q->mode == KBX_MODE_VECTOR && rep->note[0])
		st = _kbx_fail(err, KBX_ERR_NO_STORE, "%s", rep->note);
	return st;
}

/* The query's terms as the builtin embedding weighs them, for a source:
 * a first pass collects them, their document frequencies are asked in
 * one batch, and a second pass weighs them as query_idf does. */
struct src_idf {
	char **toks;
	size_t *lens;
	uint64_t *df;
	size_t n, alloc;
	double nchunks;
	int failed;
};

static double collect_term(void *data, const char *tok, size_t len)
{
	struct src_idf *c = data;
	if (c->n == c->alloc) {
		size_t na = c->alloc ? 2 * c->alloc : 16;
		char **nt = realloc(c->toks, na * sizeof(*nt));
		if (nt)
			c->toks = nt;
		size_t *nl = nt ? realloc(c->lens, na * sizeof(*nl)) : NULL;
		if (nl)
			c->lens = nl;
		if (!nt || !nl) {
			c->failed = 1;
			return 1;
		}
		c->alloc = na;
	}
	char *t = malloc(len + 1);
	if (!t) {
		c->failed = 1;
		return 1;
	}
	memcpy(t, tok, len);
	t[len] = '\0';
	c->toks[c->n] = t;
	c->lens[c->n++] = len;
	return 1;
}

static double source_idf(void *data, const char *tok, size_t len)
{
	struct src_idf *c = data;
	uint64_t df = 0;
	for (size_t i = 0; i < c->n; i++)
		if (c->lens[i] == len && !memcmp(c->toks[i], tok, len)) {
			df = c->df[i];
			break;
		}
	return idf_weight(c->nchunks, (double)df);
}

static kbx_status_t embed_query_source(const struct kbx_search_source *x, kbx_embedder_t *e,
				       const struct kbx_search_query *q, float *qv,
				       struct kbx_error *err)
{
	struct src_idf c = { .nchunks = (double)x->nchunks };
	kbx_status_t st = _kbx_embed_query(e, q->text, q->len, collect_term, &c, qv, err);
	if (!st && c.failed)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st && !(c.df = calloc(c.n + 1, sizeof(*c.df))))
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st && c.n)
		st = x->df(x->data, (const char *const *)c.toks, c.lens, c.n, c.df, err);
	if (!st)
		st = _kbx_embed_query(e, q->text, q->len, source_idf, &c, qv, err);
	for (size_t i = 0; i < c.n; i++)
		free(c.toks[i]);
	free(c.toks);
	free(c.lens);
	free(c.df);
	return st;
}

/* Graph-first over a source, as scan_subset over the index: each chunk
 * of the subset that passes the filters compared exactly with the query,
 * its vector the source's.  A query that cannot be embedded is a note,
 * as in run_vector. */
static kbx_status_t scan_subset_source(struct src *src, kbx_embedder_t *e,
				       const struct kbx_search_query *q,
				       const struct _kbx_u32s *subset, size_t depth,
				       struct slist *out, struct kbx_signal_report *rep,
				       struct kbx_error *err)
{
	const struct kbx_search_source *x = src->ext;
	uint32_t dim = 0;
	float *qv = NULL, *vecs = NULL;
	int64_t *ids = NULL;
	struct _kbx_scored *c = NULL;
	size_t n = 0, k = 0;
	kbx_status_t st = _kbx_embedder_probe(e, &dim, err);
	if (!st && !(qv = malloc((dim + 1) * sizeof(float))))
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st)
		st = x->df ? embed_query_source(x, e, q, qv, err)
			   : _kbx_embed_query(e, q->text, q->len, NULL, NULL, qv, err);
	if (st) {
		snprintf(rep->note, sizeof(rep->note), "cannot embed the query: %s", err->msg);
		free(qv);
		return st == KBX_ERR_NOMEM ? st : KBX_OK;
	}
	dim = _kbx_embedder_dim(e);
	if (slist_alloc(out, depth) || !(ids = malloc((subset->n + 1) * sizeof(*ids))) ||
	    !(c = malloc((subset->n + 1) * sizeof(*c))))
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st)
		st = src_prefetch(src, subset->v, subset->n, err);
	for (size_t i = 0; !st && i < subset->n; i++) {
		struct kbx_chunk ch;
		if (!src_chunk(src, subset->v[i], &ch) && passes(q, &ch))
			ids[k++] = subset->v[i];
	}
	if (!st && k && !(vecs = malloc(k * dim * sizeof(float) + 1)))
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st && k)
		st = x->vectors(x->data, ids, k, dim, vecs, err);
	for (size_t i = 0; !st && i < k; i++) {
		float dot = _kbx_vflat_ip(qv, vecs + i * dim, dim);
		rep->candidates++;
		if (dot <= 1e-6f)
			continue;
		c[n].id = (uint32_t)ids[i];
		c[n].score = dot;
		n++;
	}
	if (!st) {
		keep_best(c, n, depth, out);
		rep->used = 1;
		rep->passed = out->n;
		rep->passed_exact = out->n < depth;
	}
	free(qv);
	free(vecs);
	free(ids);
	free(c);
	return st;
}

/*
 * A source's vectors searched as the index searches its flat file
 * (lib/util/vflat.c), for vector_hits: the codes, read once, pick the
 * candidates, whose vectors are then read and scored exactly, in the
 * order of their ids (the file's order), so that the ids, the scores
 * and the order of equal scores are the file's.  Where the file's
 * search would score every vector (a small collection, or more
 * candidates wanted than a quarter of it) every vector is read, once.
 */
struct source_search {
	const struct kbx_search_source *x;
	struct kbx_vflat v;             /* ids, codes and factors; no x */
	float *all;                     /* every vector, once read */
	struct kbx_error *err;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

static int source_search(void *data, const float *qv, size_t k, int64_t *ids, float *dist,
			 char *msg, size_t msgsz)
{
	struct source_search *ss = data;
	struct kbx_vflat e = ss->v;
	size_t r = k > KBX_VFLAT_DEFAULT_RERANK ? k : KBX_VFLAT_DEFAULT_RERANK;
	int64_t *pos = NULL, *cids = NULL;
	float *cx = NULL;
	int rc = KBX_VF_NOMEM;
	e.codes_ok = 0;
	if (!ss->v.codes_ok || r > ss->v.n / 4) {
		if (!ss->all) {
			ss->all = malloc((size_t)ss->v.n * ss->v.dim * sizeof(float) + 1);
			if (!ss->all)
				goto nomem;
			if (ss->x->vectors(ss->x->data, ss->v.ids, (size_t)ss->v.n, ss->v.dim,
					   ss->all, ss->err))
				goto failed;
		}
		e.x = ss->all;
		return _kbx_vflat_search(&e, 1, qv, k, 0, ids, dist, msg, msgsz);
	}
	pos = malloc(r * sizeof(*pos));
	cids = malloc(r * sizeof(*cids));
	cx = malloc(r * ss->v.dim * sizeof(*cx) + 1);
	if (!pos || !cids || !cx)
		goto nomem;
	rc = _kbx_vflat_pick(&ss->v, qv, r, pos, msg, msgsz);
	if (rc)
		goto out;
	qsort(pos, r, sizeof(*pos), cmp_i64);
	for (size_t i = 0; i < r; i++)
		cids[i] = ss->v.ids[pos[i]];
	if (ss->x->vectors(ss->x->data, cids, r, ss->v.dim, cx, ss->err))
		goto failed;
	e.n = r;
	e.ids = cids;
	e.x = cx;
	rc = _kbx_vflat_search(&e, 1, qv, k, 0, ids, dist, msg, msgsz);
	goto out;
failed:
	snprintf(msg, msgsz, "%s", ss->err->msg);
	rc = KBX_VF_IO;
	goto out;
nomem:
	snprintf(msg, msgsz, "out of memory");
	rc = KBX_VF_NOMEM;
out:
	free(pos);
	free(cids);
	free(cx);
	return rc;
}

/* The vector signal of a source (source_search), the query embedded
 * here by the embedding the vectors were made by.  Why it cannot run
 * goes to rep->note, as for run_vector. */
static kbx_status_t run_vector_source(struct src *src, const struct kbx_search_query *q,
				      const struct _kbx_u32s *subset, size_t depth, struct slist *out,
				      struct kbx_signal_report *rep, char *kind_out,
				      size_t kind_sz, struct kbx_error *err)
{
	const struct kbx_search_source *x = src->ext;
	struct source_search ss = { .x = x, .err = err };
	struct kbx_embed_config builtin = { 0 };
	kbx_embedder_t *e = NULL;
	kbx_status_t st = KBX_OK;
	float *qv = NULL, *factors = NULL;
	int8_t *codes = NULL;
	uint32_t edim = 0;
	if (!x->nchunks) {
		if (q->mode == KBX_MODE_VECTOR)
			snprintf(rep->note, sizeof(rep->note),
				 "the search index is empty: add a registry or index some code");
		goto out;
	}
	if (!x->codes || !x->vectors || !x->embedding || !*x->embedding) {
		snprintf(rep->note, sizeof(rep->note), "%s",
			 x->why_no_vectors ? x->why_no_vectors : "no vector search here");
		goto out;
	}
	st = _kbx_embedder_open(q->embed ? q->embed : &builtin, &e, err);
	if (st) {
		/* the other signals still answer; out of memory was
		 * counted, and the exit status says the answer is short
		 * (util.h) */
		snprintf(rep->note, sizeof(rep->note), "no vector search: %s", err->msg);
		st = KBX_OK;
		goto out;
	}
	if (!same_embedding(e, x->embedding)) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vectors were pushed from an index embedded by %s, but the settings ask for %s: search with the embedding the repository was indexed with, or index and push it again",
			 x->embedding, _kbx_embedder_identity(e));
		goto out;
	}
	if (subset) {
		st = scan_subset_source(src, e, q, subset, depth, out, rep, err);
		snprintf(kind_out, kind_sz, "exact");
		goto out;
	}
	uint64_t n = 0;
	uint32_t dim = 0;
	const int64_t *ids = NULL;
	const float *scales = NULL;
	const int8_t *dcodes = NULL;
	st = x->codes(x->data, &n, &dim, &ids, &scales, &dcodes, err);
	if (st)
		goto out;
	snprintf(kind_out, kind_sz, "flat");
	st = _kbx_embedder_probe(e, &edim, err);
	if (st) {
		snprintf(rep->note, sizeof(rep->note), "cannot embed the query: %s", err->msg);
		st = KBX_OK;
		goto out;
	}
	if (n && edim != dim) {
		snprintf(rep->note, sizeof(rep->note),
			 "the vectors pushed have dimension %u but the embedder gives %u: index and push the repository again",
			 dim, edim);
		goto out;
	}
	/* the codes as the file holds them: a stride of bytes each, the
	 * rest of the stride zero; a scale and a squared length each (the
	 * latter for L2 only, which kbx's vectors do not use) */
	ss.v.metric = KBX_VEC_IP;
	ss.v.dim = dim;
	ss.v.stride = dim ? _kbx_vflat_stride(dim) : 0;
	ss.v.n = n;
	ss.v.ids = ids;
	factors = calloc(2 * n + 1, sizeof(*factors));
	codes = calloc((size_t)n * ss.v.stride + 1, 1);
	if (!factors || !codes) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (uint64_t i = 0; i < n; i++) {
		factors[2 * i] = scales[i];
		memcpy(codes + i * ss.v.stride, dcodes + i * dim, dim);
	}
	ss.v.factors = factors;
	ss.v.codes = codes;
	ss.v.codes_ok = 1;
	if (!(qv = malloc((edim + 1) * sizeof(float)))) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = x->df ? embed_query_source(x, e, q, qv, err)
		   : _kbx_embed_query(e, q->text, q->len, NULL, NULL, qv, err);
	if (st) {
		snprintf(rep->note, sizeof(rep->note), "cannot embed the query: %s", err->msg);
		st = KBX_OK;
		goto out;
	}
	if (slist_alloc(out, depth)) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = vector_hits(src, source_search, &ss, n, 0, q, qv, depth, out, rep, err);
	if (!st) {
		rep->used = 1;
		rep->passed = out->n;
		rep->passed_exact = out->n < depth;
	}
out:
	_kbx_embedder_close(e);
	free(qv);
	free(factors);
	free(codes);
	free(ss.all);
	if (!st && !rep->used && q->mode == KBX_MODE_VECTOR && rep->note[0])
		st = _kbx_fail(err, KBX_ERR_NO_STORE, "%s", rep->note);
	return st;
}

struct fused {
	uint32_t id;
	double score;
	int rank[KBX_SIG__COUNT];
	double sig[KBX_SIG__COUNT];
	size_t match_off, match_len;
};

static int cmp_fused(const void *a, const void *b)
{
	const struct fused *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	/* ties: the more specific pattern that matched, the better best
	 * rank, then the id */
	double px = x->rank[KBX_SIG_PATTERN] ? x->sig[KBX_SIG_PATTERN] : -1;
	double py = y->rank[KBX_SIG_PATTERN] ? y->sig[KBX_SIG_PATTERN] : -1;
	if (px != py)
		return px > py ? -1 : 1;
	int bx = 0, by = 0;
	for (int i = 0; i < KBX_SIG__COUNT; i++) {
		if (x->rank[i] && (!bx || x->rank[i] < bx))
			bx = x->rank[i];
		if (y->rank[i] && (!by || y->rank[i] < by))
			by = y->rank[i];
	}
	if (bx != by)
		return bx < by ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * A hit's confidence: a logistic function of what the signals say of the
 * hit itself: the share of the query's BM25 bound it scores, its cosine
 * with the query, whether an error pattern matched, and whether it is the
 * first hit (the one the fusion put first is right more often than a
 * later one of the same scores).  The coefficients are fitted by
 * bench/search/calibrate.py on the dev halves of the question sets (the
 * first five hits of each question, right or not); a model per set of
 * signals that ran.  Read as a probability: of the held-out hits given
 * 0.8 or more, 97% were right; 0.6 to 0.8, 56%; under 0.2, 2%.
 */
struct calib {
	double bias, lexical, vector, pattern, first;
};

static const struct calib calib_all = { CALIB_ALL };
static const struct calib calib_lexical = { CALIB_LEXICAL };
static const struct calib calib_vector = { CALIB_VECTOR };

static double hit_confidence(const struct fused *f, double share, int lex_used, int vec_used,
			     double vec_floor, int first)
{
	const struct calib *c = lex_used && vec_used ? &calib_all : lex_used ? &calib_lexical :
				&calib_vector;
	/* below the vector list's cut: no better than its last */
	double cosv = f->rank[KBX_SIG_VECTOR] ? f->sig[KBX_SIG_VECTOR] : vec_floor;
	double z = c->bias + c->lexical * share + c->vector * cosv +
		   c->pattern * (f->rank[KBX_SIG_PATTERN] ? 1 : 0) + c->first * (first ? 1 : 0);
	return 1.0 / (1.0 + exp(-z));
}

/* Choose how a scoped search runs (see enum kbx_scope_plan), and find
 * the scope's chunks when it runs graph-first. */
static void add_scoped(void *data, uint32_t id)
{
	struct _kbx_u32s *scoped = data;
	if (_kbx_u32s_add(scoped, id))
		scoped->n = SIZE_MAX;
}

static kbx_status_t plan_scope(struct src *src, const struct kbx_search_query *q,
			       struct kbx_search_results *out, struct _kbx_u32s *scoped,
			       struct kbx_error *err)
{
	kbx_status_t st;
	const struct kbx_search_source *x = src->ext;
	if (!x)
		_kbx_meta_get_u64(src->s, src->txn, "chunks.code", &out->code_chunks);
	else if ((st = x->code_chunks(x->data, &out->code_chunks, err)))
		return st;
	out->scope_nodes = q->nscope;
	/* a node has at most one code chunk: the node count bounds the
	 * scope's chunks before any is looked up */
	double share = out->code_chunks ? (double)q->nscope / (double)out->code_chunks : 0;
	int plan = q->scope_plan;
	const char *why;
	if (plan == KBX_SCOPE_GRAPH_FIRST || plan == KBX_SCOPE_VECTOR_FIRST) {
		why = "asked for";
	} else if (q->nscope <= KBX_SCOPE_GRAPH_FIRST_MAX) {
		plan = KBX_SCOPE_GRAPH_FIRST;
		why = "at most 256 nodes are scored directly";
	} else if (share <= KBX_SCOPE_GRAPH_FIRST_RATIO) {
		plan = KBX_SCOPE_GRAPH_FIRST;
		why = "at most a tenth of the code chunks are scored directly";
	} else {
		plan = KBX_SCOPE_VECTOR_FIRST;
		why = "more than 256 nodes and more than a tenth of the code chunks: "
		      "the whole index is searched and what is outside the scope dropped";
	}
	out->scope_plan = plan;
	snprintf(out->scope_why, sizeof(out->scope_why), "%llu node%s in scope, %.1f%% of %llu code chunks: %s",
		 (unsigned long long)q->nscope, q->nscope == 1 ? "" : "s", 100.0 * share,
		 (unsigned long long)out->code_chunks, why);
	if (plan != KBX_SCOPE_GRAPH_FIRST)
		return KBX_OK;
	if (!x) {
		st = scope_chunks(src->s, src->txn, q, scoped, err);
	} else {
		st = x->node_chunks(x->data, q->scope, q->nscope, add_scoped, scoped, err);
		if (!st && scoped->n == SIZE_MAX)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		if (!st)
			_kbx_u32s_settle(scoped);
	}
	out->scope_chunks = scoped->n;
	return st;
}

static kbx_status_t search_in(struct src *src, const struct kbx_search_query *qin,
			      struct kbx_search_results *out, struct kbx_error *err)
{
	struct kbx_store *s = src->s;
	struct kbx_error local = KBX_ERROR_INIT;
	if (!err)
		err = &local;
	memset(out, 0, sizeof(*out));
	struct kbx_search_query q = *qin;
	if (!q.text)
		return _kbx_fail(err, KBX_ERR_USAGE, "no query");
	if (!q.len)
		q.len = strlen(q.text);
	if (!q.limit)
		q.limit = DEFAULT_LIMIT;
	if (q.rrf_k <= 0)
		q.rrf_k = DEFAULT_RRF_K;
	if (q.vector_weight < 0)
		q.vector_weight = DEFAULT_VECTOR_WEIGHT;
	size_t depth = q.depth ? q.depth : (q.limit * 5 > 100 ? q.limit * 5 : 100);
	MDB_txn *txn = src->txn;
	struct slist L[KBX_SIG__COUNT] = { { 0 } };
	kbx_status_t st = KBX_OK;
	struct timespec t0;

	struct _kbx_u32s scoped = { 0 }, *subset = NULL;
	/* what BM25 and the embedding see: a pasted error's exception
	 * lines weighed more; the patterns see the text as it is */
	struct kbx_search_query qs = q;
	char *focus = NULL;
	size_t focus_len = 0;
	double bound = 0;
	int fr = _kbx_query_focus(q.text, q.len, &focus, &focus_len);
	if (fr < 0)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (fr) {
		qs.text = focus;
		qs.len = focus_len;
		out->focused = 1;
	}

	if (src->ext)
		out->chunks = src->ext->nchunks;
	else
		_kbx_meta_get_u64(s, txn, "chunks", &out->chunks);
	if (q.scope && src->ext && (!src->ext->code_chunks || !src->ext->node_chunks)) {
		st = _kbx_fail(err, KBX_ERR_USAGE, "a graph scope is searched in the index only");
		goto done;
	}
	if (q.scope) {
		st = plan_scope(src, &q, out, &scoped, err);
		if (st)
			goto done;
		if (out->scope_plan == KBX_SCOPE_GRAPH_FIRST)
			subset = &scoped;
	}
	if (q.mode != KBX_MODE_VECTOR) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		st = run_lexical(src, &qs, subset, depth, !out->focused && q.expand,
				 &L[KBX_SIG_LEXICAL], &out->sig[KBX_SIG_LEXICAL], &bound, err);
		out->sig[KBX_SIG_LEXICAL].ms = ms_since(&t0);
		/* patterns are error entries', never in a graph scope */
		if (!st && !q.scope) {
			clock_gettime(CLOCK_MONOTONIC, &t0);
			st = run_pattern(src, &q, depth, &L[KBX_SIG_PATTERN],
					 &out->sig[KBX_SIG_PATTERN], err);
			out->sig[KBX_SIG_PATTERN].ms = ms_since(&t0);
		}
	}
	if (!st && q.mode != KBX_MODE_LEXICAL && src->ext) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		st = run_vector_source(src, &qs, subset, depth, &L[KBX_SIG_VECTOR],
				       &out->sig[KBX_SIG_VECTOR], out->vector_kind,
				       sizeof(out->vector_kind), err);
		out->sig[KBX_SIG_VECTOR].ms = ms_since(&t0);
	} else if (!st && q.mode != KBX_MODE_LEXICAL) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		st = run_vector(s, txn, &qs, subset, depth, &L[KBX_SIG_VECTOR],
				&out->sig[KBX_SIG_VECTOR], out->vector_kind, sizeof(out->vector_kind),
				err);
		out->sig[KBX_SIG_VECTOR].ms = ms_since(&t0);
	}
	if (st)
		goto done;

	/* fuse: the union of the lists */
	size_t total = 0;
	for (int i = 0; i < KBX_SIG__COUNT; i++)
		total += L[i].n;
	struct fused *f = calloc(total + 1, sizeof(*f));
	if (!f) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto done;
	}
	size_t nf = 0;
	double lo[KBX_SIG__COUNT], hi[KBX_SIG__COUNT];
	for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
		lo[sg] = hi[sg] = 0;
		for (size_t i = 0; i < L[sg].n; i++) {
			double v = L[sg].scores[i];
			if (!i || v < lo[sg])
				lo[sg] = v;
			if (!i || v > hi[sg])
				hi[sg] = v;
			size_t j;
			for (j = 0; j < nf; j++)
				if (f[j].id == L[sg].ids[i])
					break;
			if (j == nf) {
				f[nf].id = L[sg].ids[i];
				nf++;
			}
			f[j].rank[sg] = (int)i + 1;
			f[j].sig[sg] = v;
			if (sg == KBX_SIG_PATTERN && L[sg].match_off) {
				f[j].match_off = L[sg].match_off[i];
				f[j].match_len = L[sg].match_len[i];
			}
		}
	}
	for (size_t j = 0; j < nf; j++) {
		if (q.fusion == KBX_FUSION_LINEAR) {
			/* min-max normalised; a list of one scores 1; a pattern
			 * match adds its normalised specificity on top */
			double norm[KBX_SIG__COUNT] = { 0 };
			for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
				if (!f[j].rank[sg])
					continue;
				norm[sg] = hi[sg] > lo[sg] ? (f[j].sig[sg] - lo[sg]) / (hi[sg] - lo[sg]) : 1.0;
			}
			double w = q.vector_weight;
			if (!out->sig[KBX_SIG_VECTOR].used)
				w = 0;
			if (!out->sig[KBX_SIG_LEXICAL].used)
				w = 1;
			f[j].score = w * norm[KBX_SIG_VECTOR] + (1 - w) * norm[KBX_SIG_LEXICAL] +
				     norm[KBX_SIG_PATTERN];
		} else {
			static const double weights[KBX_SIG__COUNT] = {
				[KBX_SIG_VECTOR] = KBX_RRF_VECTOR_WEIGHT,
				[KBX_SIG_LEXICAL] = 1.0,
				[KBX_SIG_PATTERN] = 1.0,
			};
			f[j].score = kbx_rrf_weighted(f[j].rank, weights, KBX_SIG__COUNT, q.rrf_k);
		}
	}
	/* a query about one language: the entries of another weigh less
	 * (JavaScript's count for TypeScript: its runtime errors are
	 * JavaScript's) */
	const char *ql = NULL;
	if (!q.lang && !q.scope)
		ql = _kbx_query_lang(q.text, q.len, out->lang_why, sizeof(out->lang_why));
	if (ql) {
		snprintf(out->lang, sizeof(out->lang), "%s", ql);
		uint32_t *ids = src->ext ? malloc((nf + 1) * sizeof(*ids)) : NULL;
		for (size_t j = 0; ids && j < nf; j++)
			ids[j] = f[j].id;
		st = src->ext && !ids ? _kbx_fail(err, KBX_ERR_NOMEM, "out of memory")
				      : src_prefetch(src, ids, nf, err);
		free(ids);
		if (st) {
			free(f);
			goto done;
		}
		for (size_t j = 0; j < nf; j++) {
			struct _kbx_chunk_view v;
			if (src_chunk(src, f[j].id, &v.c))
				continue;
			const char *cl = v.c.lang;
			/* a Vue or Svelte component's is its scripts' */
			if (_kbx_lang_script_name(cl))
				cl = _kbx_lang_script_name(cl);
			if (!*cl || !strcmp(cl, "all") || !strcmp(cl, ql) ||
			    (!strcmp(ql, "typescript") && !strcmp(cl, "javascript")))
				continue;
			f[j].score *= OTHER_LANG_WEIGHT;
		}
	}
	if (nf)
		qsort(f, nf, sizeof(*f), cmp_fused);
	if (!ql && src->ext) {
		/* the hits' chunks in one batch (the language's weighing read
		 * them all already) */
		uint32_t *ids = malloc((nf + 1) * sizeof(*ids));
		if (!ids)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		for (size_t j = 0; ids && j < nf; j++)
			ids[j] = f[j].id;
		if (!st)
			st = src_prefetch(src, ids, nf, err);
		free(ids);
		if (st) {
			free(f);
			goto done;
		}
	}

	out->hits = calloc(q.limit + 1, sizeof(*out->hits));
	if (!out->hits) {
		free(f);
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto done;
	}
	int lex_used = out->sig[KBX_SIG_LEXICAL].used, vec_used = out->sig[KBX_SIG_VECTOR].used;
	double vec_floor = L[KBX_SIG_VECTOR].n ? L[KBX_SIG_VECTOR].scores[L[KBX_SIG_VECTOR].n - 1] : 0;
	size_t ndocs = 0;
	for (size_t j = 0; j < nf && out->n < q.limit; j++) {
		struct _kbx_chunk_view v;
		if (src_chunk(src, f[j].id, &v.c))
			continue;
		/* one hit per registry document: its best section, and the
		 * others that ranked listed under it */
		struct kbx_search_hit *doc = NULL;
		if (!q.every_section && v.c.type != KBX_CHUNK_CODE && v.c.type != KBX_CHUNK_ERROR)
			for (size_t k = 0; k < out->n && !doc; k++) {
				const struct kbx_chunk *o = &out->hits[k].chunk;
				if (o->type == v.c.type && !strcmp(o->doc_id, v.c.doc_id) &&
				    !strcmp(o->path, v.c.path))
					doc = &out->hits[k];
			}
		if (doc) {
			out->folded++;
			if (doc->nsections < KBX_HIT_SECTIONS) {
				struct kbx_hit_section *hs = &doc->sections[doc->nsections++];
				hs->id = f[j].id;
				hs->heading = v.c.heading;
				hs->line = v.c.line;
				hs->end_line = v.c.end_line;
			} else {
				doc->more_sections++;
			}
			continue;
		}
		/* the share of the query's BM25 bound the hit scores */
		double share = bound > 0 && f[j].rank[KBX_SIG_LEXICAL] ?
				       f[j].sig[KBX_SIG_LEXICAL] / bound : 0;
		double conf = hit_confidence(&f[j], share, lex_used, vec_used, vec_floor, !ndocs++);
		if (conf < q.min_score)
			continue;
		struct kbx_search_hit *h = &out->hits[out->n++];
		h->id = f[j].id;
		h->chunk = v.c;
		h->score = f[j].score;
		h->confidence = conf;
		h->lexical_share = share;
		for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
			h->sig[sg].rank = f[j].rank[sg];
			h->sig[sg].score = f[j].sig[sg];
		}
		h->match_off = f[j].match_off;
		h->match_len = f[j].match_len;
	}
	free(f);
	if (!out->n)
		st = KBX_NOT_FOUND;
done:
	for (int i = 0; i < KBX_SIG__COUNT; i++)
		slist_release(&L[i]);
	free(scoped.v);
	free(focus);
	return st;
}

static kbx_status_t search_once(kbx_store_t *s, const struct kbx_search_query *q,
				struct kbx_search_results *out, struct kbx_error *err)
{
	struct src src = { .s = s, .txn = _kbx_txn(s) };
	return search_in(&src, q, out, err);
}

kbx_status_t kbx_search_source(const struct kbx_search_source *ext,
			       const struct kbx_search_query *q, struct kbx_search_results *out,
			       struct kbx_error *err)
{
	struct src src = { .ext = ext };
	kbx_status_t st = search_in(&src, q, out, err);
	free(src.cache);
	return st;
}

/*
 * An index run can replace the vector index between this reader's
 * snapshot and its look at the file (mark_vectors_built in
 * lib/search/sync.c): the file is then one the snapshot does not know,
 * or of a later generation.  A caller that holds nothing read through
 * the store (q->refresh) gets the search again on the latest snapshot,
 * rather than an answer without its vector signal and a warning.
 */
kbx_status_t kbx_search(kbx_store_t *s, const struct kbx_search_query *q,
			struct kbx_search_results *out, struct kbx_error *err)
{
	kbx_status_t st = search_once(s, q, out, err);
	for (int tries = 0; tries < 3 && q->refresh; tries++) {
		const struct kbx_signal_report *v = &out->sig[KBX_SIG_VECTOR];
		if (q->mode == KBX_MODE_LEXICAL || v->used || !v->note[0] ||
		    !kbx_store_outdated(s))
			break;
		struct kbx_error e2 = KBX_ERROR_INIT;
		if (kbx_store_refresh(s, &e2))
			break;
		kbx_search_results_release(out);
		if (err)
			*err = (struct kbx_error)KBX_ERROR_INIT;
		st = search_once(s, q, out, err);
	}
	return st;
}

void kbx_search_results_release(struct kbx_search_results *r)
{
	free(r->hits);
	free(r->strings);
	memset(r, 0, sizeof(*r));
}
