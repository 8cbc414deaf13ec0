/*
 * Snowball's English stemmer, the one the search tokenizer uses.
 *
 * A stemmer is not thread-safe: one per tokenizer.
 */
#ifndef KBX_TEXT_STEM_H
#define KBX_TEXT_STEM_H

#include <stddef.h>

struct kbx_stemmer;

/* NULL when out of memory. */
struct kbx_stemmer *_kbx_stemmer_new(void);
void _kbx_stemmer_free(struct kbx_stemmer *st);

/*
 * The stem of the len bytes at w (lower-case letters), its length in
 * *stem_len.  The stem lives in st until the next call.  NULL when out of
 * memory.
 */
const char *_kbx_stem(struct kbx_stemmer *st, const char *w, size_t len, size_t *stem_len);

#endif
