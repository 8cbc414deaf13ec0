/*
 * The builtin embedding provider, private to lib/embed/ (and to the tests
 * and measurements that compare its variants).  See builtin.c.
 */
#ifndef KBX_EMBED_BUILTIN_H
#define KBX_EMBED_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

#define KBX_BUILTIN_DIM 256
#define KBX_BUILTIN_DIM_MIN 16
#define KBX_BUILTIN_DIM_MAX 4096

/* What goes into a vector, and how much each kind of feature weighs.  A
 * weight of 0 leaves that kind out.  Vectors of different parameters are
 * not interchangeable: the identity names the version and the dimension,
 * so any change of the defaults must change KBX_BUILTIN_VERSION. */
struct _kbx_builtin_params {
	uint32_t dim;
	float word;             /* words and identifier parts (stemmed) */
	float compound;         /* whole identifiers of several parts */
	float ngram;            /* character 3- and 4-grams of words */
	float bigram;           /* pairs of consecutive words */
	/* learned word vectors (embed/words.h), or NULL: then the vector
	 * is the hashed features alone */
	const struct _kbx_words *words;
	float learned;          /* the share of the cosine the learned part
				 * gives, in (0, 1) */
};

#define KBX_BUILTIN_VERSION "v1"

/* The defaults, for a dimension (0: KBX_BUILTIN_DIM) of the hashed
 * part.  With words, the vector is the learned part (its dimension)
 * followed by the hashed part, each of unit length times the square
 * root of its share, so that the cosine of two texts is the shares'
 * mix of the two parts' cosines. */
void _kbx_builtin_defaults(struct _kbx_builtin_params *p, uint32_t dim);

struct _kbx_builtin;

/* The whole vector's dimension. */
uint32_t _kbx_builtin_dim(const struct _kbx_builtin_params *p);

/* NULL when out of memory.  The dimension must lie in
 * [KBX_BUILTIN_DIM_MIN, KBX_BUILTIN_DIM_MAX] (the caller checks). */
struct _kbx_builtin *_kbx_builtin_new(const struct _kbx_builtin_params *p);
void _kbx_builtin_free(struct _kbx_builtin *b);
/* Another embedding with b's parameters (and its word vectors, which
 * must outlive it), for another thread; NULL when out of memory. */
struct _kbx_builtin *_kbx_builtin_clone(const struct _kbx_builtin *b);

/* One text into out[0..dim): unit length, or all zero when the text has
 * no tokens.  Returns -1 when out of memory, else 0. */
int _kbx_builtin_embed(struct _kbx_builtin *b, const char *text, size_t len, float *out);
/* The same, each token's features (the word, its n-grams, a compound)
 * multiplied by term_weight(data, token) (>= 0): for queries. */
int _kbx_builtin_embed_weighted(struct _kbx_builtin *b, const char *text, size_t len,
				double (*term_weight)(void *data, const char *tok, size_t len),
				void *data, float *out);

#endif
