/* Private to the vector module (lib/vector/): never included by libkbx. */
#ifndef KBX_VECTOR_INTERNAL_H
#define KBX_VECTOR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <faiss/c_api/AutoTune_c.h>
#include <faiss/c_api/Index_c.h>

#include "vector.h"

#ifdef __cplusplus
extern "C" {
#endif

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
#define _KBX_VEC_DEFAULT_RERANK    200
/* FAISS's k-means wants this many training points per centroid and prints
 * a warning on stderr below it; the module must stay quiet, so it asks
 * for them instead. */
#define _KBX_VEC_MIN_TRAIN_PER_LIST 39
/* IVF trains on at most this many vectors per list (index.c). */
#define _KBX_VEC_TRAIN_PER_LIST 64

/* kbx's own exact index (flat.c). */
struct _kbx_vec_flat;

struct kbx_vector_index {
	FaissIndex *faiss;              /* NULL for kbx's flat index */
	FaissParameterSpace *space;
	struct _kbx_vec_flat *flat;     /* kbx's flat index, else NULL */
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

/* flat.c: kbx's exact index; ix->flat is set, ix->faiss is NULL.  The
 * callers in index.c and file.c check arguments and state first. */
_KBX_VEC_PRIVATE
int _kbx_vec_flat_create(const struct kbx_vector_spec *spec, kbx_vector_index_t **out,
			 char *err, size_t errsz);
_KBX_VEC_PRIVATE
uint64_t _kbx_vec_flat_ntotal(const kbx_vector_index_t *ix);
_KBX_VEC_PRIVATE
int _kbx_vec_flat_add(kbx_vector_index_t *ix, size_t n, const float *x, const int64_t *ids,
		      char *err, size_t errsz);
_KBX_VEC_PRIVATE
int _kbx_vec_flat_search(kbx_vector_index_t *ix, size_t n, const float *q, size_t k,
			 uint32_t rerank, int64_t *ids, float *dist, char *err, size_t errsz);
/* Write the flat layout to fp (making the codes first if need be);
 * KBX_VEC_ERR_IO comes without a message, errno set. */
_KBX_VEC_PRIVATE
int _kbx_vec_flat_write(kbx_vector_index_t *ix, FILE *fp, char *err, size_t errsz);
/* Read or (map != 0) map the flat layout of the first payload bytes of
 * fd, checking it against the trailer's dim and ntotal. */
_KBX_VEC_PRIVATE
int _kbx_vec_flat_open(int fd, const char *path, uint64_t payload, uint32_t dim,
		       uint64_t ntotal, int metric, int map, kbx_vector_index_t **out,
		       char *err, size_t errsz);
_KBX_VEC_PRIVATE
void _kbx_vec_flat_free(struct _kbx_vec_flat *fl);

/* faiss_extra.cpp: after a mapped open of an IVF index, stop FAISS from
 * starting reader threads for every search (they cost more than the
 * page faults they save when the file is in the page cache). */
_KBX_VEC_PRIVATE
void _kbx_vec_ivf_no_prefetch(FaissIndex *f);

/* index.c */
_KBX_VEC_PRIVATE
int _kbx_vec_choose(uint64_t n, uint32_t dim, struct kbx_vector_spec *spec);

#ifdef __cplusplus
}
#endif

#endif
