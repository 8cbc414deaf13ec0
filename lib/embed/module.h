/*
 * The interface between the embedding front end (lib/embed/embed.c, in
 * kbx) and the embedding module (lib/embed/module/, build/kbx-embed.so),
 * which holds the providers that need libcurl and Jansson.
 *
 * The module exports one function, kbx_embed_module(abi), which returns
 * its table of operations when it speaks that ABI and NULL otherwise.
 * Any change to the table or to the meaning of its members raises
 * KBX_EMBED_ABI.
 */
#ifndef KBX_EMBED_MODULE_H
#define KBX_EMBED_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "embed/embed.h"

#define KBX_EMBED_ABI 1
#define KBX_EMBED_MODULE_SYMBOL "kbx_embed_module"
#define KBX_EMBED_MODULE_FILE "kbx-embed.so"

struct kbx_embed_provider;

struct kbx_embed_ops {
	uint32_t abi;           /* KBX_EMBED_ABI */
	uint32_t size;          /* sizeof(struct kbx_embed_ops) of the module */

	/* A provider for cfg ("http" or "command"; the front end has filled
	 * the defaults: batch, timeout_ms).  The provider copies what it
	 * keeps of cfg. */
	kbx_status_t (*open)(const struct kbx_embed_config *cfg,
			     struct kbx_embed_provider **out, struct kbx_error *err);
	void (*close)(struct kbx_embed_provider *p);

	/*
	 * Embed n texts.  *dim is the dimension expected, 0 when not known
	 * yet: the provider then takes the first answer's and sets *dim.
	 * out holds n * *dim floats, or is NULL when *dim was 0 (a probe:
	 * the vectors are checked and dropped).  Rows are of unit length;
	 * texts of nothing but white space are not sent and give zero rows.
	 */
	kbx_status_t (*embed)(struct kbx_embed_provider *p, size_t n, const char *const *texts,
			      const size_t *lens, int is_query, uint32_t *dim, float *out,
			      struct kbx_error *err);
};

typedef const struct kbx_embed_ops *(*kbx_embed_module_fn)(uint32_t abi);

#endif
