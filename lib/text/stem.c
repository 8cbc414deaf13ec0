/*
 * Snowball's English stemmer.  See stem.h.
 *
 * libstemmer's sb_stemmer_new() takes a language's name, so it links
 * every language the library has: some 340 KB of tables made of
 * pointers, which the dynamic loader relocates, page by page, at the
 * start of every kbx process, a graph query's too (about 90 page faults,
 * a tenth of `kbx callers`).  The English module alone has 3.5 KB of
 * them.  Its entry points are in the static archive (Debian's
 * libstemmer-dev ships one) but not exported by the shared library, so
 * when ./configure links them it defines KBX_STEM_ENGLISH_MODULE and
 * links the archive; otherwise the library's own interface is used.
 * The answers are the same: sb_stemmer_stem() does exactly what
 * _kbx_stem() does below, through the same module.
 *
 * The module's state, struct SN_env, is Snowball's internal structure;
 * its first three members (the current string, the cursor and the length)
 * have kept their places since Snowball began, and ./configure checks the
 * stems this code reads through them before it chooses this way.
 */
#include <stdlib.h>

#include "text/stem.h"

#ifdef KBX_STEM_ENGLISH_MODULE

struct SN_env {
	unsigned char *p;       /* the current string */
	int c;                  /* the cursor */
	int l;                  /* the string's length */
	/* more members follow, which only the module reads */
};

struct SN_env *english_UTF_8_create_env(void);
void english_UTF_8_close_env(struct SN_env *z);
int english_UTF_8_stem(struct SN_env *z);
int SN_set_current(struct SN_env *z, int size, const unsigned char *s);

struct kbx_stemmer *_kbx_stemmer_new(void)
{
	return (struct kbx_stemmer *)english_UTF_8_create_env();
}

void _kbx_stemmer_free(struct kbx_stemmer *st)
{
	if (st)
		english_UTF_8_close_env((struct SN_env *)st);
}

const char *_kbx_stem(struct kbx_stemmer *st, const char *w, size_t len, size_t *stem_len)
{
	struct SN_env *z = (struct SN_env *)st;

	if (SN_set_current(z, (int)len, (const unsigned char *)w) ||
	    english_UTF_8_stem(z) < 0 || z->l < 0)
		return NULL;
	*stem_len = (size_t)z->l;
	return (const char *)z->p;
}

#else   /* the library's interface */

#include <libstemmer.h>

struct kbx_stemmer *_kbx_stemmer_new(void)
{
	return (struct kbx_stemmer *)sb_stemmer_new("english", NULL);
}

void _kbx_stemmer_free(struct kbx_stemmer *st)
{
	sb_stemmer_delete((struct sb_stemmer *)st);
}

const char *_kbx_stem(struct kbx_stemmer *st, const char *w, size_t len, size_t *stem_len)
{
	struct sb_stemmer *sb = (struct sb_stemmer *)st;
	const sb_symbol *s = sb_stemmer_stem(sb, (const sb_symbol *)w, (int)len);
	int n;

	if (!s || (n = sb_stemmer_length(sb)) < 0)
		return NULL;
	*stem_len = (size_t)n;
	return (const char *)s;
}

#endif
