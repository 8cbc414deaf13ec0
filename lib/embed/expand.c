/*
 * Query expansion from the builtin embedding's learned word vectors: the
 * words nearest a query's words ("timeout" -> timed, expire; "hang" ->
 * deadlock), for BM25 to look up as well, at a weight under the query's
 * own words (lib/search/bm25.c).  A question worded away from its answer
 * then still meets the answer's words.
 *
 * Only a word the model knows and holds a meaning for is expanded: not a
 * word every text has (its SIF weight is low), and at most
 * KBX_EXPAND_WORDS of a query's words (a pasted log is not expanded).
 */
#include <stdlib.h>
#include <string.h>

#include "text/tokenize.h"
#include "embed/embed.h"
#include "embed/words.h"

#define KBX_EXPAND_WORDS 12      /* a longer query is not expanded */
#define KBX_EXPAND_NEAR 3        /* neighbours per word */
#define KBX_EXPAND_MIN_COS 0.55f
#define KBX_EXPAND_MIN_WEIGHT 0.3f  /* SIF weight: rarer words only */

struct qwords {
	char tok[KBX_EXPAND_WORDS][KBX_TOKEN_MAX + 1];
	size_t len[KBX_EXPAND_WORDS];
	size_t n;
	int too_many;
};

static int add_word(void *data, const char *tok, size_t len, int kind)
{
	struct qwords *q = data;
	if (kind != KBX_TOK_WORD || len > KBX_TOKEN_MAX)
		return 0;
	for (size_t i = 0; i < q->n; i++)
		if (q->len[i] == len && !memcmp(q->tok[i], tok, len))
			return 0;
	if (q->n == KBX_EXPAND_WORDS) {
		q->too_many = 1;
		return 1;
	}
	memcpy(q->tok[q->n], tok, len);
	q->len[q->n++] = len;
	return 0;
}

int _kbx_expand_query(const char *text, size_t len, _kbx_expand_fn fn, void *data)
{
	char msg[512];
	struct _kbx_words *w = NULL;
	if (_kbx_words_load(&w, msg, sizeof(msg)))
		return -1;
	kbx_tokenizer_t *t = _kbx_tokenizer_new();
	struct qwords *q = calloc(1, sizeof(*q));
	if (!t || !q) {
		_kbx_tokenizer_free(t);
		free(q);
		_kbx_words_close(w);
		return -1;
	}
	_kbx_tokenize(t, text, len, add_word, q);
	size_t added = 0;
	for (size_t i = 0; i < q->n && !q->too_many; i++) {
		long wi = _kbx_words_find(w, q->tok[i], q->len[i]);
		if (wi < 0 || _kbx_words_weight(w, wi) < KBX_EXPAND_MIN_WEIGHT)
			continue;
		long idx[KBX_EXPAND_NEAR];
		float cos[KBX_EXPAND_NEAR];
		size_t n = _kbx_words_near(w, wi, KBX_EXPAND_NEAR, KBX_EXPAND_MIN_COS, idx, cos);
		for (size_t j = 0; j < n; j++) {
			size_t l;
			const char *s = _kbx_words_word(w, idx[j], &l);
			if (!l)
				continue;
			fn(data, s, l, cos[j]);
			added++;
		}
	}
	_kbx_tokenizer_free(t);
	free(q);
	_kbx_words_close(w);
	return (int)added;
}
