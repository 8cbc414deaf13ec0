/*
 * Finding and loading the vector module.  See vecmod.h.
 *
 * This file holds the library's one piece of process-wide state: the
 * loaded module.  dlopen() is process-wide by nature, and a module
 * running OpenMP threads cannot be unloaded safely, so it is loaded once
 * and kept; a mutex makes the first load safe from several threads.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/modload.h"
#include "search/vecmod.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct kbx_vector_ops *loaded_ops;
static char loaded_path[PATH_MAX];

static int fail(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (err && errsz) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return KBX_VEC_ERR_MODULE;
}

static int find_and_load(const struct kbx_vector_ops **ops, char *err, size_t errsz)
{
	const struct kbx_vector_ops *o;
	kbx_vector_module_fn entry;
	void *sym;
	char path[PATH_MAX];
	int rc;

	/* OpenBLAS starts a thread per processor when it is loaded, which
	 * costs start-up time and gains nothing: FAISS runs its own loops
	 * in parallel with OpenMP, and a search asks one query.  The user's
	 * own setting wins. */
	setenv("OPENBLAS_NUM_THREADS", "1", 0);
	rc = _kbx_module_open("vector module", "KBX_MODULE_PATH", KBX_VECTOR_MODULE_FILE,
			      KBX_VECTOR_MODULE_SYMBOL, &sym, path, sizeof(path), err, errsz);
	if (rc)
		return rc == -2 ? KBX_VEC_ERR_NOMEM : KBX_VEC_ERR_MODULE;
	/* POSIX guarantees a function's address survives this round trip. */
	memcpy(&entry, &sym, sizeof(entry));
	o = entry(KBX_VECTOR_ABI);
	/* From here on the module has run code: it stays loaded even when
	 * refused, as unloading it is not known to be safe. */
	if (!o || o->abi != KBX_VECTOR_ABI)
		return fail(err, errsz,
			    "vector module '%s' does not speak ABI %d of this kbx; install the module built with this kbx",
			    path, KBX_VECTOR_ABI);
	if (o->size < sizeof(struct kbx_vector_ops))
		return fail(err, errsz,
			    "vector module '%s' is older than this kbx (table of %u bytes, %zu expected); install the module built with this kbx",
			    path, o->size, sizeof(struct kbx_vector_ops));
	memcpy(loaded_path, path, sizeof(loaded_path));
	*ops = o;
	return KBX_VEC_OK;
}

int _kbx_vector_load(const struct kbx_vector_ops **ops, char *err, size_t errsz)
{
	int rc = KBX_VEC_OK;

	pthread_mutex_lock(&load_lock);
	if (!loaded_ops)
		rc = find_and_load(&loaded_ops, err, errsz);
	*ops = loaded_ops;
	pthread_mutex_unlock(&load_lock);
	return rc;
}

const char *_kbx_vector_module_path(void)
{
	const char *path;

	pthread_mutex_lock(&load_lock);
	path = loaded_ops ? loaded_path : NULL;
	pthread_mutex_unlock(&load_lock);
	return path;
}

/* Does the environment send flat files through the module? */
static int flat_via_module(void)
{
	const char *v = getenv("KBX_VECTOR_FLAT");

	return v && !strcmp(v, "module");
}

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

int _kbx_vsearch_open(const char *path, uint64_t expect_generation, struct _kbx_vsearch *h,
		      uint64_t *generation, char *err, size_t errsz)
{
	struct timespec t0, t1;
	int rc;

	memset(h, 0, sizeof(*h));
	if (!flat_via_module()) {
		rc = _kbx_vflat_open(path, 1, expect_generation, &h->flat, generation, err, errsz);
		if (rc != KBX_VF_NOT_FLAT) {
			if (rc)
				return rc;
			h->info.kind = KBX_VEC_FLAT;
			h->info.metric = h->flat.metric;
			h->info.dim = h->flat.dim;
			h->info.ntotal = h->flat.n;
			h->info.generation = h->flat.generation;
			h->info.is_trained = 1;
			h->info.read_only = 1;
			return KBX_VEC_OK;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = _kbx_vector_load(&h->ops, err, errsz);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	h->load_ms = ms_between(&t0, &t1);
	if (rc) {
		h->ops = NULL;
		return rc;
	}
	rc = h->ops->open(path, KBX_VEC_OPEN_MMAP | KBX_VEC_OPEN_GENERATION, expect_generation, 0,
			  &h->ix, generation, err, errsz);
	if (!rc)
		h->ops->info(h->ix, &h->info);
	return rc;
}

int _kbx_vsearch_search(struct _kbx_vsearch *h, const float *qv, size_t k,
			const struct kbx_vector_search_params *params, int64_t *ids, float *dist,
			char *err, size_t errsz)
{
	if (h->ops)
		return h->ops->search(h->ix, 1, h->info.dim, qv, k, params, ids, dist, err, errsz);
	return _kbx_vflat_search(&h->flat, 1, qv, k, params ? params->rerank : 0, ids, dist, err,
				 errsz);
}

void _kbx_vsearch_close(struct _kbx_vsearch *h)
{
	if (h->ops && h->ix)
		h->ops->free_index(h->ix);
	h->ix = NULL;
	_kbx_vflat_unmap(&h->flat);
}
