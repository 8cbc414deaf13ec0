/*
 * BM25 over the postings table (k1 = 1.2, b = 0.75).
 *
 * Each query term is one key of the DUPFIXED postings table: its postings
 * are read a page at a time (MDB_GET_MULTIPLE), without decoding any
 * chunk.  Scores gather in an array indexed by chunk id.
 *
 *   idf(t)   = ln(1 + (N - df + 0.5) / (df + 0.5))
 *   score(d) = sum over t of  qtf(t) * idf(t) * tf (k1 + 1) / (tf + k1 (1 - b + b dl / avgdl))
 *
 * Two words of the query written apart ("log out", "set up", "time
 * out") are also looked up written together ("logout", "setup",
 * "timeout"), as one more term; a pair that no chunk holds costs one
 * lookup.  The bound, sum over the query's terms of qtf(t) * idf(t) *
 * (k1 + 1) (a word no chunk holds with df 0; a joined pair only when some
 * chunk holds it; expansions left out), is what a chunk would score that
 * held every one of them often: a score divided by it says how much of
 * the query a chunk answers (the hit's confidence, lib/search/search.c).
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

#define K1 1.2
#define B 0.75
#define MAX_QUERY_TERMS 256
#define MAX_JOINED_PAIRS 64   /* "log out" -> logout: the first pairs */
#define MAX_JOINED_WORD 16    /* longer words are not halves of one */

struct qterm {
	char term[KBX_TOKEN_MAX + 1];
	size_t len;
	double qtf;     /* times in the query; an expansion's weight */
	int joined;     /* two words of the query written together */
	int expansion;  /* a word near the query's, not of it */
};

struct qterms {
	struct qterm t[MAX_QUERY_TERMS];
	size_t n;
};

/* The query term equal to tok[0..len), or NULL. */
static struct qterm *find_qterm(struct qterms *q, const char *tok, size_t len)
{
	for (size_t i = 0; i < q->n; i++)
		if (q->t[i].len == len && !memcmp(q->t[i].term, tok, len))
			return &q->t[i];
	return NULL;
}

/* A new term of weight qtf, or NULL when the query has all it can hold
 * (a pasted log: the first 256 distinct terms decide). */
static struct qterm *append_qterm(struct qterms *q, const char *tok, size_t len, double qtf)
{
	if (q->n == MAX_QUERY_TERMS)
		return NULL;
	struct qterm *t = &q->t[q->n++];
	memcpy(t->term, tok, len);
	t->term[len] = '\0';
	t->len = len;
	t->qtf = qtf;
	return t;
}

static int add_qterm(void *data, const char *tok, size_t len, int kind)
{
	struct qterms *q = data;
	(void)kind;
	if (len > KBX_TOKEN_MAX)
		len = KBX_TOKEN_MAX;
	struct qterm *t = find_qterm(q, tok, len);
	if (t)
		t->qtf++;
	else
		append_qterm(q, tok, len, 1);
	return 0;
}

static double idf_of(uint64_t nchunks, size_t df)
{
	return log(1.0 + ((double)nchunks - (double)df + 0.5) / ((double)df + 0.5));
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The query's adjacent words (letters only, one space or hyphen apart)
 * written together, each cut by the tokenizer as the index cuts text, as
 * more terms.  A joined pair equal to a term already there adds nothing. */
static void add_joined_pairs(kbx_tokenizer_t *tok, const char *text, size_t len,
			     struct qterms *q)
{
	size_t i = 0, pairs = 0;
	size_t prev_off = 0, prev_len = 0;
	while (i < len && pairs < MAX_JOINED_PAIRS) {
		if (!is_alpha((unsigned char)text[i])) {
			i++;
			continue;
		}
		size_t start = i;
		while (i < len && is_alpha((unsigned char)text[i]))
			i++;
		size_t wl = i - start;
		/* a word right after a letter or digit is part of a token */
		int whole = (!start || (!isalnum((unsigned char)text[start - 1]) &&
					text[start - 1] != '_')) &&
			    (i == len || (!isalnum((unsigned char)text[i]) && text[i] != '_'));
		if (!whole || wl > MAX_JOINED_WORD) {
			prev_len = 0;
			continue;
		}
		if (prev_len && start == prev_off + prev_len + 1 &&
		    (text[start - 1] == ' ' || text[start - 1] == '-')) {
			char buf[2 * MAX_JOINED_WORD + 1];
			memcpy(buf, text + prev_off, prev_len);
			memcpy(buf + prev_len, text + start, wl);
			struct qterms one = { .n = 0 };
			_kbx_tokenize(tok, buf, prev_len + wl, add_qterm, &one);
			/* only a pair the tokenizer keeps whole is a word */
			struct qterm *t = NULL;
			if (one.n == 1 && !find_qterm(q, one.t[0].term, one.t[0].len))
				t = append_qterm(q, one.t[0].term, one.t[0].len, 1);
			if (t)
				t->joined = 1;
			pairs++;
		}
		prev_off = start;
		prev_len = wl;
	}
}

static int cmp_scored(const void *a, const void *b)
{
	const struct _kbx_scored *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Keep a heap of the k best, worst on top; the rest of a[] is left in
 * no order after them. */
static void sift_down(struct _kbx_scored *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		/* the worst (greatest under cmp_scored) on top */
		if (l < n && cmp_scored(&h[l], &h[m]) > 0)
			m = l;
		if (r < n && cmp_scored(&h[r], &h[m]) > 0)
			m = r;
		if (m == i)
			return;
		struct _kbx_scored t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

void _kbx_scored_top(struct _kbx_scored *a, size_t n, size_t k)
{
	if (k > n)
		k = n;
	if (!k)
		return;
	for (size_t i = k / 2; i-- > 0;)
		sift_down(a, k, i);
	for (size_t i = k; i < n; i++)
		if (cmp_scored(&a[i], &a[0]) < 0) {
			struct _kbx_scored t = a[0];
			a[0] = a[i];
			a[i] = t;
			sift_down(a, k, 0);
		}
	qsort(a, k, sizeof(*a), cmp_scored);
}

/* Note a chunk scored for the first time; -1 when memory runs out. */
static int touch(uint32_t **touched, size_t *n, size_t *alloc, uint32_t id)
{
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 1024;
		uint32_t *nt = realloc(*touched, na * sizeof(*nt));
		if (!nt)
			return -1;
		*touched = nt;
		*alloc = na;
	}
	(*touched)[(*n)++] = id;
	return 0;
}

/* One posting of the current term for chunk id, or 0 when it has none:
 * a seek inside the term's sorted range. */
static int posting_of(MDB_cursor *c, MDB_val *k, uint32_t id, unsigned char p[KBX_POSTING_LEN])
{
	unsigned char want[KBX_POSTING_LEN] = { 0 };
	_kbx_put_u32(want, id);
	MDB_val d = { KBX_POSTING_LEN, want };
	if (mdb_cursor_get(c, k, &d, MDB_GET_BOTH_RANGE) || d.mv_size != KBX_POSTING_LEN ||
	    _kbx_get_u32(d.mv_data) != id)
		return 0;
	memcpy(p, d.mv_data, KBX_POSTING_LEN);
	return 1;
}

/* The query's terms: its tokens, its joined pairs, the extra ones;
 * NULL when out of memory. */
static struct qterms *query_terms(kbx_tokenizer_t *tok, const char *text, size_t len,
				  const struct _kbx_bm25_term *extra, size_t nextra)
{
	struct qterms *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	_kbx_tokenize(tok, text, len, add_qterm, q);
	add_joined_pairs(tok, text, len, q);
	for (size_t i = 0; i < nextra; i++) {
		size_t l = extra[i].len > KBX_TOKEN_MAX ? KBX_TOKEN_MAX : extra[i].len;
		struct qterm *t = NULL;
		if (!find_qterm(q, extra[i].term, l))
			t = append_qterm(q, extra[i].term, l, extra[i].weight);
		if (t)
			t->expansion = 1;
	}
	return q;
}

/* One posting's share of a chunk's score: w is the term's idf times its
 * weight in the query. */
static double posting_score(double w, uint32_t tf, uint32_t dl, double avgdl)
{
	return w * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl));
}

/* The term's idf times its weight, and its part of the bound. */
static double term_weight(const struct qterm *t, uint64_t nchunks, size_t df, double *bound)
{
	double w = idf_of(nchunks, df) * t->qtf;
	/* a word of the query no chunk holds: a chunk answers that much
	 * less of it (a joined pair is no word of the query) */
	if (bound && !t->expansion && (df || !t->joined))
		*bound += w * (K1 + 1);
	return w;
}

kbx_status_t _kbx_bm25(struct kbx_store *s, MDB_txn *txn, kbx_tokenizer_t *tok,
		       const char *text, size_t len, const uint32_t *subset, size_t nsubset,
		       const struct _kbx_bm25_term *extra, size_t nextra,
		       struct _kbx_scored **out, size_t *n, double *bound, struct kbx_error *err)
{
	*out = NULL;
	*n = 0;
	if (bound)
		*bound = 0;
	struct qterms *q = query_terms(tok, text, len, extra, nextra);
	if (!q)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!q->n) {
		free(q);
		return KBX_OK;
	}
	uint64_t nchunks = 0, ntokens = 0, next = 1;
	_kbx_meta_get_u64(s, txn, "chunks", &nchunks);
	_kbx_meta_get_u64(s, txn, "chunk_tokens", &ntokens);
	_kbx_meta_get_u64(s, txn, "next_chunk", &next);
	if (!nchunks || next < 2) {
		free(q);
		return KBX_OK;
	}
	double avgdl = ntokens ? (double)ntokens / (double)nchunks : 1.0;
	float *acc = calloc(next, sizeof(*acc));
	uint32_t *touched = NULL;
	size_t ntouched = 0, atouched = 0;
	if (!acc) {
		free(q);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, s->postings, &c);
	if (rc) {
		free(acc);
		free(q);
		return _kbx_fail_mdb(err, rc, "cannot read the postings");
	}
	kbx_status_t st = KBX_OK;
	for (size_t i = 0; i < q->n && !st; i++) {
		MDB_val k = { q->t[i].len, q->t[i].term }, d;
		rc = mdb_cursor_get(c, &k, &d, MDB_SET_KEY);
		if (rc == MDB_NOTFOUND) {
			term_weight(&q->t[i], nchunks, 0, bound);
			continue;
		}
		if (rc) {
			st = _kbx_fail_mdb(err, rc, "cannot read the postings");
			break;
		}
		size_t df = 0;
		mdb_cursor_count(c, &df);
		double w = term_weight(&q->t[i], nchunks, df, bound);
		if (subset) {
			/* graph-first: a seek per chunk of the subset, not the
			 * whole range */
			for (size_t j = 0; j < nsubset && !st; j++) {
				unsigned char p[KBX_POSTING_LEN];
				MDB_val kk = { q->t[i].len, q->t[i].term };
				uint32_t id = subset[j];
				if (id >= next || !posting_of(c, &kk, id, p))
					continue;
				double sc = posting_score(w, (uint32_t)(p[4] << 8 | p[5]),
							  (uint32_t)(p[6] << 8 | p[7]), avgdl);
				if (acc[id] == 0 && touch(&touched, &ntouched, &atouched, id))
					st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				acc[id] += (float)sc;
			}
			continue;
		}
		for (rc = mdb_cursor_get(c, &k, &d, MDB_GET_MULTIPLE); !rc;
		     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT_MULTIPLE)) {
			const unsigned char *p = d.mv_data;
			size_t m = d.mv_size / KBX_POSTING_LEN;
			for (size_t j = 0; j < m; j++, p += KBX_POSTING_LEN) {
				uint32_t id = _kbx_get_u32(p);
				if (id >= next)
					continue;
				double sc = posting_score(w, (uint32_t)(p[4] << 8 | p[5]),
							  (uint32_t)(p[6] << 8 | p[7]), avgdl);
				if (acc[id] == 0 && touch(&touched, &ntouched, &atouched, id)) {
					st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
					break;
				}
				acc[id] += (float)sc;
			}
			if (st)
				break;
		}
		if (!st && rc && rc != MDB_NOTFOUND)
			st = _kbx_fail_mdb(err, rc, "cannot read the postings");
	}
	mdb_cursor_close(c);
	free(q);
	struct _kbx_scored *res = NULL;
	if (!st && ntouched) {
		res = malloc(ntouched * sizeof(*res));
		if (!res)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		else {
			for (size_t i = 0; i < ntouched; i++) {
				res[i].id = touched[i];
				res[i].score = acc[touched[i]];
			}
		}
	}
	free(acc);
	free(touched);
	if (st) {
		free(res);
		return st;
	}
	*out = res;
	*n = res ? ntouched : 0;
	return KBX_OK;
}

/* ---- the same over another's postings (kbx_search_source) ---- */

struct src_postings {
	struct qterms *q;
	double *w;              /* each term's weight */
	double avgdl;
	float *acc;             /* by chunk id, grown as ids come */
	size_t aacc;
	uint32_t *touched;
	size_t ntouched, atouched;
	int failed;
	const uint32_t *subset; /* graph-first: only these chunks (sorted) */
	size_t nsubset;
	const uint64_t *df;     /* filled by the source before the first posting */
	uint64_t nchunks;
	double *bound;
	int weighted;
};

/* The terms' weights and the bound, once df is known. */
static void set_weights(struct src_postings *sp)
{
	if (sp->weighted)
		return;
	sp->weighted = 1;
	for (size_t i = 0; i < sp->q->n; i++)
		sp->w[i] = term_weight(&sp->q->t[i], sp->nchunks, (size_t)sp->df[i], sp->bound);
}

static void src_posting(void *data, size_t term, uint32_t id, uint32_t tf, uint32_t len)
{
	struct src_postings *sp = data;
	if (sp->failed || term >= sp->q->n)
		return;
	set_weights(sp);
	if (sp->subset && !bsearch(&id, sp->subset, sp->nsubset, sizeof(id), _kbx_cmp_u32))
		return;
	if (id >= sp->aacc) {
		size_t na = sp->aacc ? sp->aacc : 1024;
		while (na <= id)
			na *= 2;
		float *nacc = realloc(sp->acc, na * sizeof(*nacc));
		if (!nacc) {
			sp->failed = 1;
			return;
		}
		memset(nacc + sp->aacc, 0, (na - sp->aacc) * sizeof(*nacc));
		sp->acc = nacc;
		sp->aacc = na;
	}
	/* as the index's postings hold them */
	if (tf > 0xffff)
		tf = 0xffff;
	if (len > 0xffff)
		len = 0xffff;
	double sc = posting_score(sp->w[term], tf, len, sp->avgdl);
	if (sp->acc[id] == 0 && touch(&sp->touched, &sp->ntouched, &sp->atouched, id)) {
		sp->failed = 1;
		return;
	}
	sp->acc[id] += (float)sc;
}

kbx_status_t _kbx_bm25_source(const struct kbx_search_source *src, kbx_tokenizer_t *tok,
			      const uint32_t *subset, size_t nsubset, const char *text, size_t len, const struct _kbx_bm25_term *extra,
			      size_t nextra, struct _kbx_scored **out, size_t *n, double *bound,
			      struct kbx_error *err)
{
	*out = NULL;
	*n = 0;
	if (bound)
		*bound = 0;
	struct qterms *q = query_terms(tok, text, len, extra, nextra);
	if (!q)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!q->n || !src->nchunks) {
		free(q);
		return KBX_OK;
	}
	struct src_postings sp = { .q = q, .subset = subset, .nsubset = nsubset };
	const char **terms = calloc(q->n, sizeof(*terms));
	size_t *lens = calloc(q->n, sizeof(*lens));
	uint64_t *df = calloc(q->n, sizeof(*df));
	sp.w = calloc(q->n, sizeof(*sp.w));
	kbx_status_t st = KBX_OK;
	if (!terms || !lens || !df || !sp.w) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < q->n; i++) {
		terms[i] = q->t[i].term;
		lens[i] = q->t[i].len;
	}
	sp.avgdl = src->chunk_tokens ? (double)src->chunk_tokens / (double)src->nchunks : 1.0;
	sp.df = df;
	sp.nchunks = src->nchunks;
	sp.bound = bound;
	st = src->postings(src->data, terms, lens, q->n, subset, nsubset, df, src_posting, &sp, err);
	if (!st)
		set_weights(&sp);
	if (!st && sp.failed)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st && sp.ntouched) {
		struct _kbx_scored *res = malloc(sp.ntouched * sizeof(*res));
		if (!res) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto done;
		}
		for (size_t i = 0; i < sp.ntouched; i++) {
			res[i].id = sp.touched[i];
			res[i].score = sp.acc[sp.touched[i]];
		}
		*out = res;
		*n = sp.ntouched;
	}
done:
	free(terms);
	free(lens);
	free(df);
	free(sp.w);
	free(sp.acc);
	free(sp.touched);
	free(q);
	return st;
}
