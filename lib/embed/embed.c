/*
 * The embedding front end.  See embed.h.
 *
 * builtin runs here; http and command run in the module kbx-embed.so,
 * loaded on first use and kept until the process ends (libcurl sets up
 * process-wide state that is not safe to tear down while other threads
 * may use it).  Where the module is looked for, in order:
 *
 *   1. $KBX_EMBED_MODULE_PATH, a file path, when set and not empty; it is
 *      then the only place looked at, so that a wrong override is
 *      reported rather than another module loaded;
 *   2. build/kbx-embed.so in the directory of the running executable;
 *   3. KBX_MODULE_DIR "/kbx-embed.so".
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/util.h"
#include "embed/builtin.h"
#include "embed/embed.h"
#include "embed/module.h"
#include "embed/words.h"
#include "util/modload.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

#define DEFAULT_BATCH 64
#define DEFAULT_TIMEOUT_MS 30000

enum provider { P_BUILTIN, P_HTTP, P_COMMAND };

struct kbx_embedder {
	enum provider provider;
	uint32_t dim;
	struct strbuf identity;
	struct strbuf model;    /* or the command, for the identity */
	struct strbuf doc_prefix;
	struct _kbx_builtin *builtin;
	struct _kbx_words *words;       /* builtin's learned part, or NULL */
	const struct kbx_embed_ops *ops;
	struct kbx_embed_provider *mod;
};

/* ---- the module ---- */

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct kbx_embed_ops *loaded_ops;

/*
 * Memory that ran out where kbx's allocation wrapper does not see it (a
 * mapping, the module's own allocations), counted as the wrapper counts
 * a refused malloc (util.h): a command that goes on without the vector
 * signal then still ends with out of memory, and an index run does not
 * commit.
 */
static kbx_status_t counted(kbx_status_t st)
{
	if (st == KBX_ERR_NOMEM)
		_kbx_nomem();
	return st;
}

static kbx_status_t find_and_load(const struct kbx_embed_ops **ops, struct kbx_error *err)
{
	const struct kbx_embed_ops *o;
	kbx_embed_module_fn entry;
	void *sym;
	char path[PATH_MAX], msg[sizeof(err->msg)];

	int rc = _kbx_module_open("embedding module", "KBX_EMBED_MODULE_PATH",
				  KBX_EMBED_MODULE_FILE, KBX_EMBED_MODULE_SYMBOL, &sym, path,
				  sizeof(path), msg, sizeof(msg));
	if (rc)
		return _kbx_fail(err, rc == -2 ? KBX_ERR_NOMEM : KBX_ERR_IO, "%s", msg);
	memcpy(&entry, &sym, sizeof(entry));
	o = entry(KBX_EMBED_ABI);
	if (!o || o->abi != KBX_EMBED_ABI || o->size < sizeof(struct kbx_embed_ops))
		return _kbx_fail(err, KBX_ERR_IO,
				 "embedding module '%s' does not speak ABI %d of this kbx; install the module built with this kbx",
				 path, KBX_EMBED_ABI);
	*ops = o;
	return KBX_OK;
}

static kbx_status_t load_module(const struct kbx_embed_ops **ops, struct kbx_error *err)
{
	kbx_status_t st = KBX_OK;

	pthread_mutex_lock(&load_lock);
	if (!loaded_ops)
		st = find_and_load(&loaded_ops, err);
	*ops = loaded_ops;
	pthread_mutex_unlock(&load_lock);
	return st;
}

/* ---- embedders ---- */

/* The identity the vectors are kept under; -1 when memory ran out (an
 * identity cut short would name other vectors). */
static int set_identity(kbx_embedder_t *e)
{
	static const char *const names[] = { "builtin", "http", "command" };

	strbuf_reset(&e->identity);
	if (e->provider == P_BUILTIN && e->words)
		strbuf_addf(&e->identity, "builtin/words-%s/%u", _kbx_words_name(e->words), e->dim);
	else if (e->provider == P_BUILTIN)
		strbuf_addf(&e->identity, "builtin/%s/%u", KBX_BUILTIN_VERSION, e->dim);
	else
		strbuf_addf(&e->identity, "%s/%s/%u", names[e->provider], strbuf_str(&e->model), e->dim);
	/* documents embedded with another prefix are other vectors */
	if (e->doc_prefix.len)
		strbuf_addf(&e->identity, ";doc_prefix=%s", strbuf_str(&e->doc_prefix));
	return e->identity.failed ? -1 : 0;
}

kbx_status_t _kbx_embedder_open(const struct kbx_embed_config *cfg, kbx_embedder_t **out,
				struct kbx_error *err)
{
	const char *name = cfg && cfg->provider && *cfg->provider ? cfg->provider : "builtin";
	struct kbx_embed_config c;
	kbx_embedder_t *e;
	kbx_status_t st;

	*out = NULL;
	if (cfg)
		c = *cfg;
	else
		memset(&c, 0, sizeof(c));
	if (!c.batch)
		c.batch = DEFAULT_BATCH;
	if (!c.timeout_ms)
		c.timeout_ms = DEFAULT_TIMEOUT_MS;

	e = calloc(1, sizeof(*e));
	if (!e)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	strbuf_init(&e->identity);
	strbuf_init(&e->model);
	strbuf_init(&e->doc_prefix);

	if (!strcmp(name, "builtin")) {
		struct _kbx_builtin_params p;

		e->provider = P_BUILTIN;
		if (c.dim && (c.dim < KBX_BUILTIN_DIM_MIN || c.dim > KBX_BUILTIN_DIM_MAX)) {
			st = _kbx_fail(err, KBX_ERR_USAGE,
				       "builtin embedding: dimension %u is out of range; use %d to %d (default %d)",
				       c.dim, KBX_BUILTIN_DIM_MIN, KBX_BUILTIN_DIM_MAX,
				       KBX_BUILTIN_DIM);
			goto fail;
		}
		_kbx_builtin_defaults(&p, c.dim);
		const char *model = c.model && *c.model ? c.model : "words";
		if (!strcmp(model, "words")) {
			char msg[sizeof(err->msg)];

			if (_kbx_words_load(&e->words, msg, sizeof(msg))) {
				/* ENOMEM: the words file is fine, memory (its
				 * mapping) ran out */
				st = counted(_kbx_fail(err, errno == ENOMEM ? KBX_ERR_NOMEM : KBX_ERR_IO,
					       "builtin embedding: %s (or set search.model=hash for the embedding without learned vectors)",
					       msg));
				goto fail;
			}
			p.words = e->words;
		} else if (strcmp(model, "hash")) {
			st = _kbx_fail(err, KBX_ERR_USAGE,
				       "builtin embedding: unknown model '%s'; use words (learned word vectors, the default) or hash",
				       model);
			goto fail;
		}
		e->dim = _kbx_builtin_dim(&p);
		e->builtin = _kbx_builtin_new(&p);
		if (!e->builtin) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto fail;
		}
	} else if (!strcmp(name, "http") || !strcmp(name, "command")) {
		e->provider = !strcmp(name, "http") ? P_HTTP : P_COMMAND;
		if (e->provider == P_HTTP && (!c.url || !*c.url)) {
			st = _kbx_fail(err, KBX_ERR_USAGE,
				       "http embedding: no URL; set the endpoint's URL (such as http://localhost:11434/v1)");
			goto fail;
		}
		/* http and https alone: libcurl would also speak file://,
		 * gopher://, dict:// and more, and send the code there (the
		 * module limits libcurl to them as well, redirects included) */
		if (e->provider == P_HTTP && strncasecmp(c.url, "http://", 7) &&
		    strncasecmp(c.url, "https://", 8)) {
			st = _kbx_fail(err, KBX_ERR_USAGE,
				       "http embedding: search.url '%.200s' is not an http:// or https:// address",
				       c.url);
			goto fail;
		}
		if (e->provider == P_HTTP && (!c.model || !*c.model)) {
			st = _kbx_fail(err, KBX_ERR_USAGE,
				       "http embedding: no model; set the name of the model that '%s' serves",
				       c.url);
			goto fail;
		}
		if (e->provider == P_COMMAND && (!c.command || !*c.command)) {
			st = _kbx_fail(err, KBX_ERR_USAGE,
				       "command embedding: no command; set the command that prints the vectors");
			goto fail;
		}
		strbuf_addstr(&e->model, e->provider == P_HTTP ? c.model : c.command);
		if (c.doc_prefix)
			strbuf_addstr(&e->doc_prefix, c.doc_prefix);
		e->dim = c.dim;
		st = load_module(&e->ops, err);
		if (st)
			goto fail;
		st = counted(e->ops->open(&c, &e->mod, err));
		if (st)
			goto fail;
	} else {
		st = _kbx_fail(err, KBX_ERR_USAGE,
			       "unknown embedding provider '%s'; use builtin, http or command", name);
		goto fail;
	}
	if (set_identity(e)) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto fail;
	}
	*out = e;
	return KBX_OK;
fail:
	_kbx_embedder_close(e);
	return st;
}

kbx_embedder_t *_kbx_embedder_clone(const kbx_embedder_t *e)
{
	if (e->provider != P_BUILTIN || !e->builtin)
		return NULL;
	kbx_embedder_t *c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->provider = P_BUILTIN;
	c->dim = e->dim;
	strbuf_init(&c->identity);
	strbuf_init(&c->model);
	strbuf_init(&c->doc_prefix);
	strbuf_addstr(&c->identity, strbuf_str(&e->identity));
	/* the word vectors stay e's: c->words is NULL, and close leaves them */
	c->builtin = _kbx_builtin_clone(e->builtin);
	if (!c->builtin || c->identity.failed) {
		_kbx_embedder_close(c);
		return NULL;
	}
	return c;
}

void _kbx_embedder_close(kbx_embedder_t *e)
{
	if (!e)
		return;
	_kbx_builtin_free(e->builtin);
	_kbx_words_close(e->words);
	if (e->mod)
		e->ops->close(e->mod);
	strbuf_release(&e->identity);
	strbuf_release(&e->model);
	strbuf_release(&e->doc_prefix);
	free(e);
}

uint32_t _kbx_embedder_dim(const kbx_embedder_t *e)
{
	return e->dim;
}

const char *_kbx_embedder_identity(const kbx_embedder_t *e)
{
	return strbuf_str(&e->identity);
}

kbx_status_t _kbx_embedder_probe(kbx_embedder_t *e, uint32_t *dim, struct kbx_error *err)
{
	static const char probe[] = "dimension probe";
	const char *texts[1] = { probe };
	size_t lens[1] = { sizeof(probe) - 1 };
	kbx_status_t st;

	if (!e->dim) {
		uint32_t d = 0;

		st = counted(e->ops->embed(e->mod, 1, texts, lens, 0, &d, NULL, err));
		if (st)
			return st;
		e->dim = d;
		if (set_identity(e))
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	*dim = e->dim;
	return KBX_OK;
}

kbx_status_t _kbx_embed_query(kbx_embedder_t *e, const char *text, size_t len,
			      double (*term_weight)(void *data, const char *tok, size_t len),
			      void *data, float *out, struct kbx_error *err)
{
	if (e->provider != P_BUILTIN || !term_weight)
		return _kbx_embed(e, 1, &text, &len, 1, out, err);
	if (_kbx_builtin_embed_weighted(e->builtin, text, len, term_weight, data, out))
		return _kbx_fail(err, KBX_ERR_NOMEM, "builtin embedding: out of memory");
	return KBX_OK;
}

kbx_status_t _kbx_embed(kbx_embedder_t *e, size_t n, const char *const *texts,
			const size_t *lens, int is_query, float *out, struct kbx_error *err)
{
	size_t i;

	if (!e->dim)
		return _kbx_fail(err, KBX_ERR_USAGE,
				 "%s embedding: the dimension is not known yet; call _kbx_embedder_probe() first",
				 e->provider == P_HTTP ? "http" : "command");
	if (!n)
		return KBX_OK;
	if (e->provider != P_BUILTIN) {
		uint32_t d = e->dim;

		return counted(e->ops->embed(e->mod, n, texts, lens, is_query, &d, out, err));
	}
	for (i = 0; i < n; i++)
		if (_kbx_builtin_embed(e->builtin, texts[i], lens[i], out + i * (size_t)e->dim))
			return _kbx_fail(err, KBX_ERR_NOMEM, "builtin embedding: out of memory");
	return KBX_OK;
}
