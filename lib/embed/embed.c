/* TEMPORARY placeholder (lead) until the embed helper's front end lands. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include "internal.h"
#include "embed/embed.h"
#include "search/tokenize.h"

struct kbx_embedder { kbx_tokenizer_t *tok; float *v; };

kbx_status_t _kbx_embedder_open(const struct kbx_embed_config *cfg, kbx_embedder_t **out, struct kbx_error *err)
{
	(void)cfg;
	*out = calloc(1, sizeof(**out));
	if (!*out || !((*out)->tok = _kbx_tokenizer_new()))
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	return KBX_OK;
}
void _kbx_embedder_close(kbx_embedder_t *e) { if (e) { _kbx_tokenizer_free(e->tok); free(e); } }
uint32_t _kbx_embedder_dim(const kbx_embedder_t *e) { (void)e; return 256; }
const char *_kbx_embedder_identity(const kbx_embedder_t *e) { (void)e; return "builtin/v0/256"; }
static int add(void *d, const char *tok, size_t len, int kind)
{
	float *v = d; (void)kind;
	uint64_t h = XXH3_64bits(tok, len);
	v[h % 256] += (h >> 63) ? 1.0f : -1.0f;
	return 0;
}
kbx_status_t _kbx_embed(kbx_embedder_t *e, size_t n, const char *const *texts, const size_t *lens, int is_query, float *out, struct kbx_error *err)
{
	(void)is_query; (void)err;
	for (size_t i = 0; i < n; i++) {
		float *v = out + i * 256;
		memset(v, 0, 256 * sizeof(float));
		_kbx_tokenize(e->tok, texts[i], lens[i], add, v);
		double s = 0;
		for (int j = 0; j < 256; j++) s += v[j] * v[j];
		if (s > 0) { s = sqrt(s); for (int j = 0; j < 256; j++) v[j] /= (float)s; }
	}
	return KBX_OK;
}
