/*
 * The embedding module's entry point and what its providers share.
 *
 * The module holds the providers that need libcurl and Jansson (http.c,
 * command.c), so that kbx itself links neither; lib/embed/embed.c loads
 * it on first use and calls it through struct kbx_embed_ops.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <curl/curl.h>

#include "internal.h"
#include "util/quote.h"

kbx_status_t _kbx_emb_fail(struct kbx_error *err, kbx_status_t status, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->status = status;
	}
	return status;
}

int _kbx_emb_blank(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!strchr(" \t\n\r\f\v", s[i]) || !s[i])
			return 0;
	return 1;
}

void _kbx_emb_add_utf8(struct strbuf *sb, const char *prefix, const char *s, size_t len)
{
	size_t i = 0, start = 0;

	if (prefix)
		strbuf_addstr(sb, prefix);
	while (i < len) {
		size_t n = utf8_char_len(s + i, len - i);

		if (n) {
			i += n;
			continue;
		}
		strbuf_add(sb, s + start, i - start);
		strbuf_add(sb, "\xef\xbf\xbd", 3);
		start = ++i;
	}
	strbuf_add(sb, s + start, i - start);
}

void _kbx_emb_normalize(float *v, uint32_t dim)
{
	double sum = 0.0, r;
	uint32_t i;
	int k;

	for (i = 0; i < dim; i++)
		sum += (double)v[i] * v[i];
	if (sum <= 0.0)
		return;
	/* sqrt by Newton's method: the module does not link libm */
	r = sum > 1.0 ? sum : 1.0;
	for (k = 0; k < 200; k++) {
		double next = 0.5 * (r + sum / r);

		if (next == r)
			break;
		r = next;
	}
	for (i = 0; i < dim; i++)
		v[i] = (float)(v[i] / r);
}

kbx_status_t _kbx_emb_check_dim(const char *provider, const char *what, size_t n,
				uint32_t *dim, uint32_t cfg_dim, struct kbx_error *err)
{
	if (!n)
		return _kbx_emb_fail(err, KBX_ERR_PARSE, "%s embedding: %s: an empty vector",
				     provider, what);
	if (!*dim) {
		if (n > 65536)
			return _kbx_emb_fail(err, KBX_ERR_PARSE,
					     "%s embedding: %s: a vector of %zu numbers; more than 65536 is not a plausible embedding",
					     provider, what, n);
		*dim = (uint32_t)n;
		return KBX_OK;
	}
	if (n == *dim)
		return KBX_OK;
	if (cfg_dim)
		return _kbx_emb_fail(err, KBX_ERR_PARSE,
				     "%s embedding: %s has %zu numbers, but the dimension is set to %u; set it to %zu, or to 0 to take the model's",
				     provider, what, n, cfg_dim, n);
	return _kbx_emb_fail(err, KBX_ERR_PARSE,
			     "%s embedding: %s has %zu numbers, earlier vectors %u; the model's vectors must all have one dimension",
			     provider, what, n, *dim);
}

static kbx_status_t open_provider(const struct kbx_embed_config *cfg,
				  struct kbx_embed_provider **out, struct kbx_error *err)
{
	if (cfg->provider && !strcmp(cfg->provider, "command"))
		return _kbx_command_open(cfg, out, err);
	return _kbx_http_open(cfg, out, err);
}

static void close_provider(struct kbx_embed_provider *p)
{
	if (!p)
		return;
	if (p->is_http)
		_kbx_http_close(p);
	else
		_kbx_command_close(p);
}

static kbx_status_t embed(struct kbx_embed_provider *p, size_t n, const char *const *texts,
			  const size_t *lens, int is_query, uint32_t *dim, float *out,
			  struct kbx_error *err)
{
	if (p->is_http)
		return _kbx_http_embed(p, n, texts, lens, is_query, dim, out, err);
	return _kbx_command_embed(p, n, texts, lens, is_query, dim, out, err);
}

static const struct kbx_embed_ops ops = {
	KBX_EMBED_ABI,
	sizeof(struct kbx_embed_ops),
	open_provider,
	close_provider,
	embed,
};

const struct kbx_embed_ops *kbx_embed_module(uint32_t abi);

const struct kbx_embed_ops *kbx_embed_module(uint32_t abi)
{
	if (abi != KBX_EMBED_ABI)
		return NULL;
	/* The front end calls this once, under its lock, before any thread
	 * can use curl: the one safe moment for the global set-up. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return NULL;
	return &ops;
}
