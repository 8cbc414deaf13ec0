/*
 * The search tokenizer.  See tokenize.h.
 *
 * Text is cut into identifier runs: maximal runs of ASCII letters,
 * digits, '_' and bytes >= 0x80 (UTF-8 sequences, taken as letters that
 * have no case).  Everything else separates runs, so "os.path.join",
 * "a/b/c.py" and "Foo::bar" give one run per name.  A run is then cut
 * into parts:
 *
 *   at '_'                                  create_user  -> create user
 *   lower to upper                          userService  -> user service
 *   the last of several capitals before     HTTPServer   -> http server
 *     a lower-case letter (but "URLs",
 *     "IDs" stay whole)
 *   digit to letter, once the part has     md5sum       -> md5 sum
 *     a letter (digits stay with the       getHTTP2Client -> get http2 client
 *     letters before them; a part that     404s         -> 404s
 *     starts with digits keeps its
 *     letters)
 *
 * Each part is lower-cased (ASCII only), dropped when it is one byte, an
 * English stop word, or an id-like run of hex digits (seven or more hex
 * digits with at least one decimal digit, after an optional "0x":
 * addresses, hashes, long numbers; "404", "8080" and "e0382" stay), and
 * else stemmed with Snowball's English stemmer when it is made of ASCII
 * letters only.  A run of two parts or more also gives the whole run,
 * lower-cased with its underscores, outer ones trimmed, as a compound:
 * "create_user", "userservice".
 *
 * Stemming is the costly step, so each tokenizer keeps a direct-mapped
 * cache of the words it has seen: code repeats its words.  Paths in stack
 * traces need no special case: their directories and file names are runs
 * like any other.
 */
#include <stdlib.h>
#include <string.h>

#include "text/stem.h"
#include "text/tokenize.h"
#include "util/util.h"

#define CACHE_SLOTS 8192        /* a power of two */
/* The cache is made once this many words were stemmed without it: a
 * query's few words would touch as many of its pages as they have words,
 * each a page fault of a process that runs for milliseconds. */
#define CACHE_AFTER 512
#define CACHE_WORD 23           /* longer words are stemmed every time */
#define STEM_MIN 3              /* shorter words are not stemmed */

struct cache_slot {
	unsigned char len;      /* of word; 0: empty */
	unsigned char stem_len; /* 0: a stop word */
	char word[CACHE_WORD];
	char stem[CACHE_WORD];
};

struct kbx_tokenizer {
	struct kbx_stemmer *stemmer;
	struct cache_slot *cache;       /* NULL until CACHE_AFTER words */
	size_t uncached;                /* words stemmed without it */
	char part[KBX_TOKEN_MAX + 1];   /* one more: where to cut */
	char compound[KBX_TOKEN_MAX];
};

/* Byte classes. */
enum { C_SEP = 0, C_LOWER, C_UPPER, C_DIGIT, C_UNDER, C_HIGH };

static unsigned char byte_class[256];
static int classes_ready;

static void init_classes(void)
{
	int c;

	if (classes_ready)
		return;
	for (c = 0; c < 256; c++) {
		unsigned char k = C_SEP;

		if (c >= 'a' && c <= 'z')
			k = C_LOWER;
		else if (c >= 'A' && c <= 'Z')
			k = C_UPPER;
		else if (c >= '0' && c <= '9')
			k = C_DIGIT;
		else if (c == '_')
			k = C_UNDER;
		else if (c >= 0x80)
			k = C_HIGH;
		byte_class[c] = k;
	}
	/* The table is the same whoever fills it: a race is harmless. */
	classes_ready = 1;
}

/*
 * English stop words: function words that carry no topic, as written
 * before stemming, with the stumps apostrophes leave ("don't" -> "don").
 * Sorted for bsearch().
 */
static const char *const stop_words[] = {
	"about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
	"any", "are", "aren", "as", "at", "be", "because", "been", "before", "being",
	"below", "between", "both", "but", "by", "can", "could", "couldn", "did", "didn",
	"do", "does", "doesn", "doing", "don", "down", "during", "each", "few", "for",
	"from", "further", "had", "hadn", "has", "hasn", "have", "haven", "having", "he",
	"her", "here", "hers", "him", "his", "how", "if", "in", "into", "is", "isn", "it",
	"its", "just", "me", "more", "most", "my", "no", "nor", "not", "of", "off", "on",
	"once", "only", "or", "other", "our", "ours", "out", "over", "own", "same", "she",
	"should", "shouldn", "so", "some", "such", "than", "that", "the", "their",
	"theirs", "them", "then", "there", "these", "they", "this", "those", "through",
	"to", "too", "under", "until", "up", "very", "was", "wasn", "we", "were", "weren",
	"what", "when", "where", "which", "while", "who", "whom", "why", "will", "with",
	"won", "would", "wouldn", "you", "your", "yours",
};

static int cmp_stop(const void *key, const void *elem)
{
	return strcmp(key, *(const char *const *)elem);
}

static int is_stop_word(const char *w, size_t len)
{
	char buf[16];

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, w, len);
	buf[len] = '\0';
	return bsearch(buf, stop_words, sizeof(stop_words) / sizeof(*stop_words),
		       sizeof(*stop_words), cmp_stop) != NULL;
}

kbx_tokenizer_t *_kbx_tokenizer_new(void)
{
	kbx_tokenizer_t *t;

	init_classes();
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->stemmer = _kbx_stemmer_new();
	if (!t->stemmer) {
		_kbx_tokenizer_free(t);
		return NULL;
	}
	return t;
}

void _kbx_tokenizer_free(kbx_tokenizer_t *t)
{
	if (!t)
		return;
	_kbx_stemmer_free(t->stemmer);
	_kbx_zfree(t->cache, CACHE_SLOTS * sizeof(*t->cache));
	free(t);
}

/* An address, a hash, a long number: seven hex digits or more, one of
 * them decimal, after an optional 0x. */
static int is_id_like(const char *s, size_t len)
{
	size_t i;
	int digit = 0;

	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		len -= 2;
	}
	if (len < 7)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= '0' && c <= '9')
			digit = 1;
		else if (!((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return 0;
	}
	return digit;
}

/* Cut a token of len bytes to KBX_TOKEN_MAX, not inside a UTF-8 sequence. */
static size_t cut_len(const char *s, size_t len)
{
	if (len <= KBX_TOKEN_MAX)
		return len;
	len = KBX_TOKEN_MAX;
	/* back off over continuation bytes to the sequence's start */
	while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
		len--;
	return len ? len : KBX_TOKEN_MAX;
}

struct emit {
	kbx_token_fn fn;
	void *data;
	size_t count;
	int stop;
};

static int emit(struct emit *e, const char *tok, size_t len, int kind)
{
	e->count++;
	if (e->fn(e->data, tok, len, kind)) {
		e->stop = 1;
		return 1;
	}
	return 0;
}

/*
 * What the word w[0..len) gives: 0 nothing (a stop word), 1 the term
 * *stem (the word itself when it is short), -1 nothing stemmed for want
 * of memory.
 */
static int stem_word(kbx_tokenizer_t *t, const char *w, size_t len, const char **stem,
		     size_t *stem_len)
{
	if (is_stop_word(w, len))
		return 0;
	if (len < STEM_MIN) {
		*stem = w;
		*stem_len = len;
		return 1;
	}
	*stem = _kbx_stem(t->stemmer, w, len, stem_len);
	return *stem ? 1 : -1;
}

/*
 * One part, lower-cased in w[0..len) (len <= KBX_TOKEN_MAX), letters
 * only when alpha: drop it, or give it stemmed.
 */
static int emit_part(kbx_tokenizer_t *t, struct emit *e, const char *w, size_t len, int alpha,
		     uint32_t hash)
{
	struct cache_slot *slot;
	const char *stem;
	size_t stem_len;

	if (len < 2)
		return 0;
	if (!alpha) {
		if (is_id_like(w, len))
			return 0;
		return emit(e, w, len, KBX_TOK_WORD);
	}
	if (len > CACHE_WORD) {
		stem = _kbx_stem(t->stemmer, w, len, &stem_len);
		if (!stem)      /* out of memory: the word as it is */
			return emit(e, w, len, KBX_TOK_WORD);
		return emit(e, stem, stem_len, KBX_TOK_WORD);
	}
	if (!t->cache && ++t->uncached >= CACHE_AFTER)
		t->cache = _kbx_zalloc(CACHE_SLOTS * sizeof(*t->cache));
	slot = NULL;
	if (t->cache) {         /* NULL: not yet, or out of memory */
		slot = &t->cache[hash & (CACHE_SLOTS - 1)];
		if (slot->len == len && !memcmp(slot->word, w, len))
			return slot->stem_len ? emit(e, slot->stem, slot->stem_len, KBX_TOK_WORD) : 0;
		slot->len = 0;
	}
	int kept = stem_word(t, w, len, &stem, &stem_len);
	if (kept < 0)           /* out of memory: the word as it is */
		return emit(e, w, len, KBX_TOK_WORD);
	/* a stop word is remembered too; a stem too long for a slot is not */
	if (slot && (!kept || (stem_len && stem_len <= CACHE_WORD))) {
		slot->stem_len = 0;
		if (kept) {
			memcpy(slot->stem, stem, stem_len);
			slot->stem_len = (unsigned char)stem_len;
		}
		memcpy(slot->word, w, len);
		slot->len = (unsigned char)len;
	}
	return kept ? emit(e, stem, stem_len, KBX_TOK_WORD) : 0;
}

/* An identifier run s[0..len): its parts, then its compound. */
static int do_run(kbx_tokenizer_t *t, struct emit *e, const unsigned char *s, size_t len)
{
	size_t i = 0, nparts = 0, first, last;

	/* One id-like run is dropped whole: "deadbeef12" is not two words. */
	if (is_id_like((const char *)s, len))
		return 0;

	while (i < len) {
		size_t plen = 0;
		int alpha = 1, split_digits, k;
		uint32_t hash = 2166136261u;

		while (i < len && byte_class[s[i]] == C_UNDER)
			i++;
		if (i == len)
			break;
		/* one part: from s[i] to the next boundary; a part that
		 * starts with a letter ends where letters follow digits */
		split_digits = byte_class[s[i]] != C_DIGIT;
		do {
			unsigned char c = s[i];

			k = byte_class[c];
			if (k == C_UPPER)
				c = (unsigned char)(c + ('a' - 'A'));
			if (k == C_DIGIT || k == C_HIGH)
				alpha = 0;
			if (plen <= KBX_TOKEN_MAX)
				t->part[plen++] = (char)c;
			hash = (hash ^ c) * 16777619u;
			i++;
			if (i == len)
				break;
			{
				int nk = byte_class[s[i]];

				if (nk == C_UNDER)
					break;
				if (nk == C_UPPER && (k == C_LOWER || k == C_HIGH))
					break;
				if (nk == C_UPPER && k == C_DIGIT && split_digits)
					break;
				if (nk == C_LOWER && k == C_DIGIT && split_digits)
					break;
				if (nk == C_HIGH && k == C_DIGIT && split_digits)
					break;
				/* "HTTPServer": the 'S' starts a part, unless
				 * it is the plural 's' of "URLs" */
				if (k == C_UPPER && nk == C_UPPER && i + 1 < len &&
				    byte_class[s[i + 1]] == C_LOWER) {
					if (s[i + 1] != 's' ||
					    (i + 2 < len && byte_class[s[i + 2]] == C_LOWER))
						break;
				}
			}
		} while (1);
		nparts++;
		if (plen > KBX_TOKEN_MAX)
			plen = cut_len(t->part, plen);
		if (emit_part(t, e, t->part, plen, alpha, hash))
			return 1;
	}
	if (nparts < 2)
		return 0;

	first = 0;
	while (first < len && s[first] == '_')
		first++;
	last = len;
	while (last > first && s[last - 1] == '_')
		last--;
	{
		size_t n = last - first, j;

		if (n > KBX_TOKEN_MAX)
			n = cut_len((const char *)s + first, n);
		for (j = 0; j < n; j++) {
			unsigned char c = s[first + j];

			if (byte_class[c] == C_UPPER)
				c = (unsigned char)(c + ('a' - 'A'));
			t->compound[j] = (char)c;
		}
		return emit(e, t->compound, n, KBX_TOK_COMPOUND);
	}
}

size_t _kbx_tokenize(kbx_tokenizer_t *t, const char *text, size_t len, kbx_token_fn fn,
		     void *data)
{
	const unsigned char *s = (const unsigned char *)text;
	struct emit e = { fn, data, 0, 0 };
	size_t i = 0;

	while (i < len) {
		size_t start;

		while (i < len && byte_class[s[i]] == C_SEP)
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && byte_class[s[i]] != C_SEP)
			i++;
		if (do_run(t, &e, s + start, i - start))
			break;
	}
	return e.count;
}
