/*
 * lib/embed/: embedding providers, on lib/util/ and lib/text/ alone
 * (lib/search/ calls them); module/ is the kbx-embed.so they load.
 *
 * Embedding providers: text in, unit-length float vectors out.
 *
 *   builtin  in-process (lib/embed/builtin.c): offline, deterministic,
 *            no model file
 *   http     an OpenAI-compatible POST /v1/embeddings endpoint
 *   command  a program that reads texts and writes vectors
 *
 * http and command live in the module kbx-embed.so (lib/embed/module/),
 * which links libcurl and Jansson; kbx itself does not, so commands that
 * never embed pay nothing for them.  This front end loads the module on
 * first use, like lib/search/vecmod.c does for the vector module.
 *
 * Part of the quiet library: no printing; errors go to struct kbx_error
 * with a message that names the provider, the URL or command, and what to
 * do.
 */
#ifndef KBX_EMBED_H
#define KBX_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"

struct kbx_embed_config {
	const char *provider;      /* "builtin" (also for NULL), "http", "command" */
	const char *model;         /* http: the model name sent; builtin: "words"
				    * (also for NULL: learned word vectors and
				    * hashed features) or "hash" (hashed alone) */
	const char *url;           /* http: base URL or full .../v1/embeddings URL */
	const char *key_env;       /* http: name of the environment variable that
				    * holds the API key; NULL or "": no key */
	const char *command;       /* command: run with /bin/sh -c */
	uint32_t dim;              /* 0: the provider's own (builtin: 256; http and
				    * command: what the first answer has) */
	uint32_t batch;            /* texts per request; 0: 64 */
	uint32_t timeout_ms;       /* per request; 0: 30000 */
	uint32_t retries;          /* after the first attempt; back-off doubles from
				    * 250 ms; honours Retry-After */
	const char *query_prefix;  /* prepended to queries (e5/nomic-style models:
				    * "query: "); NULL: none */
	const char *doc_prefix;    /* prepended to documents; NULL: none */
};

typedef struct kbx_embedder kbx_embedder_t;

kbx_status_t _kbx_embedder_open(const struct kbx_embed_config *cfg, kbx_embedder_t **out,
				struct kbx_error *err);
void _kbx_embedder_close(kbx_embedder_t *e);

/* An embedder that gives the same vectors as e, for another thread (an
 * embedder embeds on one thread at a time); close it before e.  NULL
 * when e's provider is not builtin (http and command embed in batches
 * on the caller's thread) or when out of memory. */
kbx_embedder_t *_kbx_embedder_clone(const kbx_embedder_t *e);

/* The vectors' dimension; for http/command 0 until the first successful
 * _kbx_embedder_probe() unless cfg->dim was given. */
uint32_t _kbx_embedder_dim(const kbx_embedder_t *e);

/* The vectors' dimension, asking the provider when it is not known yet
 * (http and command without cfg->dim: one short text is embedded), so
 * that the caller can size the out buffer of _kbx_embed(). */
kbx_status_t _kbx_embedder_probe(kbx_embedder_t *e, uint32_t *dim, struct kbx_error *err);

/* A string naming provider, model and dimension ("builtin/v1/256",
 * "http/nomic-embed-text/768"): vectors from two embedders with the same
 * identity are interchangeable; the cache is keyed by it. */
const char *_kbx_embedder_identity(const kbx_embedder_t *e);

/* Embed n texts (texts[i], lens[i] bytes, not NUL-terminated) into out
 * (n * dim floats, each row of unit length; a text with nothing to embed
 * gives a zero row).  is_query selects the query prefix and, for builtin,
 * the query-side weighting.  For http the texts go in batches of
 * cfg->batch; command runs its program once per call, with all n texts.  On failure nothing in out is meaningful.  The dimension
 * must be known (see _kbx_embedder_probe()): KBX_ERR_USAGE otherwise. */
kbx_status_t _kbx_embed(kbx_embedder_t *e, size_t n, const char *const *texts,
			const size_t *lens, int is_query, float *out, struct kbx_error *err);

/* Embed one query, each of its search tokens weighed by term_weight(data,
 * token) where the provider can (builtin: kbx search passes the terms'
 * inverse document frequencies); other providers embed it as
 * _kbx_embed() does with is_query set. */
kbx_status_t _kbx_embed_query(kbx_embedder_t *e, const char *text, size_t len,
			      double (*term_weight)(void *data, const char *tok, size_t len),
			      void *data, float *out, struct kbx_error *err);

/* Words near the query's words in the builtin embedding's learned
 * vectors (expand.c): fn(data, word, len, cosine) for each.  Returns how
 * many, 0 for a query too long to expand, -1 when the vectors cannot be
 * read. */
typedef void (*_kbx_expand_fn)(void *data, const char *word, size_t len, float cos);
int _kbx_expand_query(const char *text, size_t len, _kbx_expand_fn fn, void *data);

#endif
