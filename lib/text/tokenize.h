/*
 * lib/text/: what the retrieval layer's parts share about text, on
 * lib/util/ alone: the tokenizer (tokenize.c), which BM25 (lib/search/)
 * and the builtin embedding (lib/embed/) both use, and the chunk, the
 * unit of text that registries give, search indexes and embeddings embed
 * (chunk.h).
 *
 * Tokens for search: what BM25 indexes and what the builtin embedding
 * hashes.  The same function cuts documents and queries, so that both
 * sides agree.
 *
 * Code-aware: "UserService.create_user" gives user, service, create, user
 * and the compounds userservice and create_user; "HTTPServer" gives http
 * and server (and httpserver); "getHTTP2Client" gives get, http2, client.
 * Words are lower-cased, English stop words are dropped, and word parts
 * are stemmed (Snowball English: "connections" -> "connect").  Bytes of
 * UTF-8 sequences count as letters.
 */
#ifndef KBX_SEARCH_TOKENIZE_H
#define KBX_SEARCH_TOKENIZE_H

#include <stddef.h>
#include <stdint.h>

#define KBX_TOKEN_MAX 64    /* longer tokens are cut to this many bytes */

/* What a token is, for callers that weigh them differently. */
enum kbx_token_kind {
	KBX_TOK_WORD = 1,       /* a word or a part of an identifier, stemmed */
	KBX_TOK_COMPOUND = 2    /* a whole identifier of several parts */
};

/* Called for each token in order; tok is not NUL-terminated and is valid
 * only during the call.  Return non-zero to stop. */
typedef int (*kbx_token_fn)(void *data, const char *tok, size_t len, int kind);

typedef struct kbx_tokenizer kbx_tokenizer_t;

/* A tokenizer holds the stemmer's state: one per thread.  NULL when out
 * of memory. */
kbx_tokenizer_t *_kbx_tokenizer_new(void);
void _kbx_tokenizer_free(kbx_tokenizer_t *t);

/* Cut text[0..len) into tokens.  Returns the number of tokens given to
 * fn (up to the one that stopped it). */
size_t _kbx_tokenize(kbx_tokenizer_t *t, const char *text, size_t len, kbx_token_fn fn,
		     void *data);

#endif
