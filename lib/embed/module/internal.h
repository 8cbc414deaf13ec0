/* Private to the embedding module (lib/embed/module/). */
#ifndef KBX_EMBED_MODULE_INTERNAL_H
#define KBX_EMBED_MODULE_INTERNAL_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>

#include "embed/module.h"
#include "util/strbuf.h"

/* Set err and return status (the module does not link lib/util/util.c). */
kbx_status_t _kbx_emb_fail(struct kbx_error *err, kbx_status_t status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Nothing but white space: not sent, a zero row. */
int _kbx_emb_blank(const char *s, size_t len);

/* prefix then text into sb as valid UTF-8: each byte that does not start
 * a well-formed sequence becomes U+FFFD (JSON must be UTF-8). */
void _kbx_emb_add_utf8(struct strbuf *sb, const char *prefix, const char *s, size_t len);

/* Scale v to unit length (a zero vector stays zero). */
void _kbx_emb_normalize(float *v, uint32_t dim);

/* Can a vector hold v: a finite number a float can carry?  (A NaN, an
 * infinity or 1e39 would make every score of a search NaN.) */
static inline int _kbx_emb_float_ok(double v)
{
	return v >= -FLT_MAX && v <= FLT_MAX;
}

/* Check a vector of n numbers against *dim (0: take n).  what names it
 * in the message ("POST http://...: vector 3"). */
kbx_status_t _kbx_emb_check_dim(const char *provider, const char *what, size_t n,
				uint32_t *dim, uint32_t cfg_dim, struct kbx_error *err);

kbx_status_t _kbx_http_open(const struct kbx_embed_config *cfg,
			    struct kbx_embed_provider **out, struct kbx_error *err);
void _kbx_http_close(struct kbx_embed_provider *p);
kbx_status_t _kbx_http_embed(struct kbx_embed_provider *p, size_t n, const char *const *texts,
			     const size_t *lens, int is_query, uint32_t *dim, float *out,
			     struct kbx_error *err);

kbx_status_t _kbx_command_open(const struct kbx_embed_config *cfg,
			       struct kbx_embed_provider **out, struct kbx_error *err);
void _kbx_command_close(struct kbx_embed_provider *p);
kbx_status_t _kbx_command_embed(struct kbx_embed_provider *p, size_t n,
				const char *const *texts, const size_t *lens, int is_query,
				uint32_t *dim, float *out, struct kbx_error *err);

/* The first member of both providers' structs. */
struct kbx_embed_provider {
	int is_http;
};

#endif
