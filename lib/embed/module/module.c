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

/* Length of the well-formed UTF-8 sequence at s, or 0. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
	size_t n, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void _kbx_emb_add_utf8(struct strbuf *sb, const char *prefix, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, start = 0;

	if (prefix)
		strbuf_addstr(sb, prefix);
	while (i < len) {
		size_t n = utf8_seq(u + i, len - i);

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
