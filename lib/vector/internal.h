/* Private to the vector module (lib/vector/): never included by libkbx. */
#ifndef KBX_VECTOR_INTERNAL_H
#define KBX_VECTOR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <faiss/c_api/AutoTune_c.h>
#include <faiss/c_api/Index_c.h>

#include "vector.h"

/*
 * The module exports kbx_vector_module and nothing else: its other
 * functions are hidden even when the build does not pass
 * -fvisibility=hidden or a version script.
 */
#define _KBX_VEC_PRIVATE __attribute__((visibility("hidden")))

/* Search knobs the index understands, found by asking FAISS once. */
#define _KBX_VEC_HAS_EF_SEARCH 1u
#define _KBX_VEC_HAS_NPROBE    2u

#define _KBX_VEC_DEFAULT_HNSW_M    32
#define _KBX_VEC_DEFAULT_EF_SEARCH 64
#define _KBX_VEC_DEFAULT_NPROBE    16
/* FAISS's k-means wants this many training points per centroid and prints
 * a warning on stderr below it; the module must stay quiet, so it asks
 * for them instead. */
#define _KBX_VEC_MIN_TRAIN_PER_LIST 39

struct kbx_vector_index {
	FaissIndex *faiss;
	FaissParameterSpace *space;
	int kind, metric;
	uint32_t dim;
	uint32_t param;         /* HNSW m, IVF nlist */
	uint64_t generation;
	unsigned knobs;         /* _KBX_VEC_HAS_* */
	int read_only;
};

/* Write the message into err and return status. */
_KBX_VEC_PRIVATE
int _kbx_vec_fail(char *err, size_t errsz, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* After a FAISS call returned rc != 0: KBX_VEC_ERR_FAISS with
 * "<what>: <FAISS's message>" (the message without its source location). */
_KBX_VEC_PRIVATE
int _kbx_vec_fail_faiss(char *err, size_t errsz, int rc, const char *what);

/* Wrap a FAISS index in a module index (takes ownership of f, also on
 * failure), asking FAISS which search knobs it has. */
_KBX_VEC_PRIVATE
int _kbx_vec_wrap(FaissIndex *f, int kind, int metric, uint32_t param,
		  kbx_vector_index_t **out, char *err, size_t errsz);

/* index.c: the operations of struct kbx_vector_ops (see vector.h) */
_KBX_VEC_PRIVATE
int _kbx_vec_create(const struct kbx_vector_spec *spec, kbx_vector_index_t **out,
		    char *err, size_t errsz);
_KBX_VEC_PRIVATE
int _kbx_vec_train(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *x,
		   char *err, size_t errsz);
_KBX_VEC_PRIVATE
int _kbx_vec_add(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *x,
		 const int64_t *ids, char *err, size_t errsz);
_KBX_VEC_PRIVATE
int _kbx_vec_search(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *q,
		    size_t k, const struct kbx_vector_search_params *params,
		    int64_t *ids, float *dist, char *err, size_t errsz);
_KBX_VEC_PRIVATE
int _kbx_vec_info(const kbx_vector_index_t *ix, struct kbx_vector_info *info);
_KBX_VEC_PRIVATE
uint64_t _kbx_vec_ntotal(const kbx_vector_index_t *ix);
_KBX_VEC_PRIVATE
void _kbx_vec_free(kbx_vector_index_t *ix);

/* file.c: the same, for files */
_KBX_VEC_PRIVATE
int _kbx_vec_save(kbx_vector_index_t *ix, const char *path, uint64_t generation,
		  char *err, size_t errsz);
_KBX_VEC_PRIVATE
int _kbx_vec_open(const char *path, unsigned flags, uint64_t expect_generation,
		  uint32_t expect_dim, kbx_vector_index_t **out, uint64_t *generation,
		  char *err, size_t errsz);
_KBX_VEC_PRIVATE
int _kbx_vec_peek(const char *path, struct kbx_vector_info *info, char *err,
		  size_t errsz);

#endif
