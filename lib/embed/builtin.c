/*
 * The builtin embedding: feature hashing of search tokens.
 *
 * A text is cut by the search tokenizer (lib/text/tokenize.c), so that
 * identifiers are split and words stemmed exactly as BM25 sees them.  Its
 * features are
 *
 *   every distinct token (words and identifier parts; compounds, the
 *     whole identifiers, with their own weight),
 *   the character 3- and 4-grams of each distinct word, with '<' and '>'
 *     marking its ends ("<conn", "onn", ...), which let "connection"
 *     meet "connector" and a misspelt name meet the right one,
 *   optionally pairs of consecutive words,
 *
 * each counted, weighed by its kind and by 1 + ln(count) (a word said ten
 * times is not ten times the topic), and added with a sign to one of dim
 * coordinates chosen by a 64-bit hash (signed feature hashing: collisions
 * cancel out on average instead of piling up).  The vector is then scaled
 * to unit length.  No model, no state between texts: the same text gives
 * the same vector on every machine.
 *
 * A query may be weighed term by term (_kbx_builtin_embed_weighted):
 * kbx search passes each term's inverse document frequency, so that a
 * rare word of the question counts for more than "return" or "value",
 * as it does in BM25.  Only the query's side changes; documents' vectors,
 * and their identity, stay as they are.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "embed/builtin.h"
#include "embed/words.h"
#include "text/tokenize.h"
#include "util/util.h"

enum feature_kind { F_WORD, F_COMPOUND, F_NGRAM, F_BIGRAM, F__COUNT };

struct slot {
	uint64_t hash;
	uint32_t gen;           /* the slot is used when gen is the table's */
	uint32_t idx;           /* into the dense arrays */
};

struct feature {
	uint64_t hash;
	float count;
	uint32_t kind;
	float w;                /* the largest term weight that gave it */
};

/* A token's place among the learned words, remembered: code says the
 * same identifiers again and again, and a binary search over the words
 * is most of the embedding's time.  Direct-mapped by the token's hash,
 * and checked against the token's bytes. */
#define WORD_MEMO 4096
struct word_memo {
	uint64_t hash;
	int32_t idx;            /* -1: not a learned word */
	uint8_t len;            /* 0: an empty slot */
	char tok[KBX_TOKEN_MAX];
};

struct _kbx_builtin {
	struct _kbx_builtin_params p;
	struct word_memo *memo; /* WORD_MEMO slots, or NULL */
	float weight[F__COUNT];
	kbx_tokenizer_t *tok;
	struct slot *table;     /* open addressing, cap slots */
	struct feature *feat;   /* this text's features, cap / 2 of room */
	size_t cap, used;       /* cap: a power of two */
	uint32_t gen;
	uint64_t prev_word;     /* for bigrams; 0: none yet */
	int nomem;
	/* query-side term weights, or NULL */
	double (*term_weight)(void *data, const char *tok, size_t len);
	void *term_data;
	float cur_w;            /* the weight of the token being added */
	float *learned;         /* the learned part, words' dim */
};

void _kbx_builtin_defaults(struct _kbx_builtin_params *p, uint32_t dim)
{
	p->dim = dim ? dim : KBX_BUILTIN_DIM;
	p->word = 1.0f;
	p->compound = 0.5f;
	p->ngram = 0.5f;
	p->bigram = 0.0f;
	p->words = NULL;
	/* chosen on the dev questions of bench/search/sets/ */
	p->learned = 0.4f;
}

uint32_t _kbx_builtin_dim(const struct _kbx_builtin_params *p)
{
	return p->dim + (p->words ? _kbx_words_dim(p->words) : 0);
}

struct _kbx_builtin *_kbx_builtin_new(const struct _kbx_builtin_params *p)
{
	struct _kbx_builtin *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->p = *p;
	b->weight[F_WORD] = p->word;
	b->weight[F_COMPOUND] = p->compound;
	b->weight[F_NGRAM] = p->ngram;
	b->weight[F_BIGRAM] = p->bigram;
	b->tok = _kbx_tokenizer_new();
	b->cap = 2048;
	b->table = calloc(b->cap, sizeof(*b->table));
	b->feat = malloc(b->cap / 2 * sizeof(*b->feat));
	if (p->words) {
		b->learned = malloc(_kbx_words_dim(p->words) * sizeof(float));
		/* without it, the words are searched each time; mapped, so
		 * that a query touches only the pages of its words */
		b->memo = _kbx_zalloc(WORD_MEMO * sizeof(*b->memo));
	}
	if (!b->tok || !b->table || !b->feat || (p->words && !b->learned)) {
		_kbx_builtin_free(b);
		return NULL;
	}
	return b;
}

struct _kbx_builtin *_kbx_builtin_clone(const struct _kbx_builtin *b)
{
	return _kbx_builtin_new(&b->p);
}

void _kbx_builtin_free(struct _kbx_builtin *b)
{
	if (!b)
		return;
	_kbx_tokenizer_free(b->tok);
	_kbx_zfree(b->memo, WORD_MEMO * sizeof(*b->memo));
	free(b->table);
	free(b->feat);
	free(b->learned);
	free(b);
}

/*
 * ln(x) and 1/sqrt(x) for x >= 1, here rather than from libm, which kbx
 * does not otherwise link (each library costs start-up time).  Exact to
 * about 1e-12: far below what float vectors keep.
 */
static double ln_ge1(double x)
{
	union { double d; uint64_t u; } v = { x };
	int e = (int)((v.u >> 52) & 0x7ff) - 1023;
	double m, s, s2, sum = 0.0, term;
	int k;

	v.u = (v.u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;   /* m in [1, 2) */
	m = v.d;
	s = (m - 1.0) / (m + 1.0);     /* ln m = 2 atanh s, s <= 1/3 */
	s2 = s * s;
	term = s;
	for (k = 1; k <= 25; k += 2) {
		sum += term / k;
		term *= s2;
	}
	return e * 0.69314718055994530942 + 2.0 * sum;
}

static double inv_sqrt(double x)
{
	union { double d; uint64_t u; } v = { x };
	double y;
	int i;

	v.u = 0x5fe6eb50c7b537a9ULL - (v.u >> 1);
	y = v.d;
	for (i = 0; i < 5; i++)
		y = y * (1.5 - 0.5 * x * y * y);
	return y;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static int grow(struct _kbx_builtin *b)
{
	size_t cap = b->cap * 2, i;
	struct slot *t = calloc(cap, sizeof(*t));
	struct feature *f = realloc(b->feat, cap / 2 * sizeof(*f));

	if (f)
		b->feat = f;
	if (!t || !f) {
		free(t);
		return -1;
	}
	b->gen = 1;
	for (i = 0; i < b->used; i++) {
		size_t j = (size_t)b->feat[i].hash & (cap - 1);

		while (t[j].gen)
			j = (j + 1) & (cap - 1);
		t[j].hash = b->feat[i].hash;
		t[j].gen = 1;
		t[j].idx = (uint32_t)i;
	}
	free(b->table);
	b->table = t;
	b->cap = cap;
	return 0;
}

/* Count a feature; returns 1 when it is new in this text. */
static int add_feature(struct _kbx_builtin *b, uint64_t hash, int kind)
{
	size_t j;

	hash = hash * 4 + (uint64_t)kind;   /* kinds never collide */
	if (b->used * 2 >= b->cap && grow(b)) {
		b->nomem = 1;
		return 0;
	}
	j = (size_t)hash & (b->cap - 1);
	while (b->table[j].gen == b->gen) {
		if (b->table[j].hash == hash) {
			struct feature *f = &b->feat[b->table[j].idx];
			f->count += 1.0f;
			if (b->cur_w > f->w)
				f->w = b->cur_w;
			return 0;
		}
		j = (j + 1) & (b->cap - 1);
	}
	b->table[j].hash = hash;
	b->table[j].gen = b->gen;
	b->table[j].idx = (uint32_t)b->used;
	b->feat[b->used].hash = hash;
	b->feat[b->used].count = 1.0f;
	b->feat[b->used].kind = (uint32_t)kind;
	b->feat[b->used].w = b->cur_w;
	b->used++;
	return 1;
}

/* The 3- and 4-grams of "<tok>". */
static void add_ngrams(struct _kbx_builtin *b, const char *tok, size_t len)
{
	unsigned char buf[KBX_TOKEN_MAX + 2];
	size_t n = len + 2, i;

	buf[0] = '<';
	memcpy(buf + 1, tok, len);
	buf[len + 1] = '>';
	for (i = 0; i + 3 <= n; i++) {
		uint64_t g = (uint64_t)buf[i] | (uint64_t)buf[i + 1] << 8 |
			     (uint64_t)buf[i + 2] << 16;

		add_feature(b, mix64(g | 3ULL << 40), F_NGRAM);
		if (i + 4 <= n)
			add_feature(b, mix64(g | (uint64_t)buf[i + 3] << 24 | 4ULL << 40),
				    F_NGRAM);
	}
}

static long find_word(struct _kbx_builtin *b, uint64_t h, const char *tok, size_t len)
{
	if (!b->memo || !len || len > KBX_TOKEN_MAX)
		return _kbx_words_find(b->p.words, tok, len);
	struct word_memo *m = &b->memo[h & (WORD_MEMO - 1)];
	if (m->len == len && m->hash == h && !memcmp(m->tok, tok, len))
		return m->idx;
	long i = _kbx_words_find(b->p.words, tok, len);
	m->hash = h;
	m->len = (uint8_t)len;
	memcpy(m->tok, tok, len);
	m->idx = (int32_t)i;
	return i;
}

static int on_token(void *data, const char *tok, size_t len, int kind)
{
	struct _kbx_builtin *b = data;
	uint64_t h = XXH3_64bits(tok, len);

	b->cur_w = b->term_weight ? (float)b->term_weight(b->term_data, tok, len) : 1.0f;
	if (b->p.words) {
		long i = find_word(b, h, tok, len);

		if (i >= 0)
			_kbx_words_add(b->p.words, i, _kbx_words_weight(b->p.words, i), b->learned);
	}
	if (kind == KBX_TOK_COMPOUND) {
		if (b->weight[F_COMPOUND] != 0.0f)
			add_feature(b, h, F_COMPOUND);
		return b->nomem;
	}
	if (add_feature(b, h, F_WORD) && b->weight[F_NGRAM] != 0.0f)
		add_ngrams(b, tok, len);
	if (b->weight[F_BIGRAM] != 0.0f) {
		if (b->prev_word)
			add_feature(b, mix64(b->prev_word * 31 + h), F_BIGRAM);
		b->prev_word = h | 1;
	}
	return b->nomem;
}

int _kbx_builtin_embed(struct _kbx_builtin *b, const char *text, size_t len, float *out)
{
	return _kbx_builtin_embed_weighted(b, text, len, NULL, NULL, out);
}

int _kbx_builtin_embed_weighted(struct _kbx_builtin *b, const char *text, size_t len,
				double (*term_weight)(void *data, const char *tok, size_t len),
				void *data, float *out)
{
	uint32_t dim = b->p.dim, ldim = b->p.words ? _kbx_words_dim(b->p.words) : 0, i;
	size_t j;
	double norm = 0.0, lnorm = 0.0;
	float *hashed = out + ldim;

	memset(out, 0, (ldim + dim) * sizeof(*out));
	if (ldim)
		memset(b->learned, 0, ldim * sizeof(float));
	if (++b->gen == 0) {    /* wrapped: forget every slot */
		memset(b->table, 0, b->cap * sizeof(*b->table));
		b->gen = 1;
	}
	b->used = 0;
	b->prev_word = 0;
	b->nomem = 0;
	b->term_weight = term_weight;
	b->term_data = data;
	b->cur_w = 1.0f;
	_kbx_tokenize(b->tok, text, len, on_token, b);
	b->term_weight = NULL;
	if (b->nomem)
		return -1;

	for (j = 0; j < b->used; j++) {
		const struct feature *f = &b->feat[j];
		uint64_t h;
		float w;

		w = b->weight[f->kind] * (float)(1.0 + ln_ge1(f->count)) * f->w;
		h = mix64(f->hash);
		/* the high half picks the coordinate, the lowest bit the sign */
		i = (uint32_t)(((h >> 32) * (uint64_t)dim) >> 32);
		hashed[i] += (h & 1) ? w : -w;
	}
	for (i = 0; i < dim; i++)
		norm += (double)hashed[i] * hashed[i];
	if (ldim) {
		_kbx_words_finish(b->p.words, b->learned);
		for (i = 0; i < ldim; i++)
			lnorm += (double)b->learned[i] * b->learned[i];
	}
	/* each part of unit length times the root of its share, and the
	 * whole of unit length again when one part is empty */
	double hs = ldim ? 1.0 - b->p.learned : 1.0, ls = ldim ? b->p.learned : 0.0;
	if (norm <= 0.0 || lnorm <= 0.0) {
		hs = norm > 0.0;
		ls = lnorm > 0.0;
	}
	if (norm > 0.0) {
		float scale = (float)(inv_sqrt(norm) * inv_sqrt(1.0 / hs));

		for (i = 0; i < dim; i++)
			hashed[i] *= scale;
	}
	if (lnorm > 0.0) {
		float scale = (float)(inv_sqrt(lnorm) * inv_sqrt(1.0 / ls));

		for (i = 0; i < ldim; i++)
			out[i] = b->learned[i] * scale;
	}
	return 0;
}
