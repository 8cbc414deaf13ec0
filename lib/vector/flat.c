/*
 * kbx's own flat index (KBX_VEC_FLAT): every vector kept whole, a file
 * layout that open() maps instead of reads, and a search that scores
 * exactly either every vector or, in large collections, the candidates
 * that a scan of 4-bit codes picks.
 *
 * Why not FAISS's IndexFlat: FAISS 1.7.3 reads a flat index by copying
 * every vector into memory, 100 MB at 100k vectors of dimension 256, some
 * 80 ms for each kbx process.  Mapping the file costs a few page-table
 * entries, and the page cache holds the vectors once for all processes.
 *
 * Why the codes: scoring every vector reads all of them; at 100k x 256
 * that is 100 MB and 18 ms on a 2-core machine (bench/vector.sh), too
 * slow for a search per process.  Each vector also has a code of four
 * bits per dimension, the vector scaled so that its largest coordinate
 * is +-7 and rounded, and the scale.  A search rounds the query to a
 * signed byte a dimension, scores every code by an integer dot product
 * (an eighth of the bytes of the vectors, a loop of SIMD instructions),
 * keeps the `rerank` best and scores those exactly (lib/util/vflat.c).
 * The true neighbours are nearly always among the few hundred best
 * codes: on the builtin embedder's vectors of the Python standard
 * library, the 200 best 4-bit codes held the true ten every time, as
 * 8-bit codes (layout 2, a byte a dimension, read still) did; 3 bits
 * held 99.93% of them, 2 bits 75%.  (One bit per dimension, the sign against
 * the mean, read an eighth of the bytes but found only 63-78% of the
 * true ten on the builtin embedder's sparse hashed vectors at rerank
 * 1000.)  Recall@10 against exhaustive search is in the comment above
 * _kbx_vec_choose() (index.c).  Up to 4 x rerank vectors everything is
 * scored: exact.
 *
 * The layout is the payload of an index file (file.c puts the trailer
 * after it); lib/util/vflat.c describes it, reads it and searches it:
 * kbx search maps and searches a flat file there without loading this
 * module, and this file's search calls the same functions, so that both
 * give the same answer.  What stays here is building: adding vectors,
 * making their codes, writing the file, and reading it back to add to.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "util/vflat.h"

/* lib/util/vflat.c speaks the module's status codes and file values. */
_Static_assert((int)KBX_VF_NOMEM == KBX_VEC_ERR_NOMEM && (int)KBX_VF_IO == KBX_VEC_ERR_IO &&
	       (int)KBX_VF_FORMAT == KBX_VEC_ERR_FORMAT &&
	       (int)KBX_VF_STALE == KBX_VEC_ERR_STALE && (int)KBX_VF_DIM == KBX_VEC_ERR_DIM &&
	       KBX_VF_KIND_FLAT == KBX_VEC_FLAT && KBX_VF_KIND_LAST == KBX_VEC_FACTORY &&
	       KBX_VF_METRIC_L2 == KBX_VEC_L2 &&
	       KBX_VFLAT_DEFAULT_RERANK == _KBX_VEC_DEFAULT_RERANK,
	       "lib/util/vflat.h and lib/vector/vector.h disagree");

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 1
#else
#define HOST_LITTLE_ENDIAN 0
#endif
#define FLAT_PAGE 4096

struct _kbx_vec_flat {
	struct kbx_vflat v;     /* what a search reads (v.map when mapped) */
	uint64_t cap;           /* room in the arrays (not mapped) */
	int64_t *own_ids;       /* the arrays when in memory, else NULL */
	float *own_x;
	float *own_factors;
	int8_t *own_codes;
};

int _kbx_vec_flat_create(const struct kbx_vector_spec *spec, kbx_vector_index_t **out,
			 char *err, size_t errsz)
{
	kbx_vector_index_t *ix = calloc(1, sizeof(*ix));

	if (!ix || !(ix->flat = calloc(1, sizeof(*ix->flat)))) {
		free(ix);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	}
	ix->kind = KBX_VEC_FLAT;
	ix->metric = spec->metric;
	ix->dim = spec->dim;
	ix->flat->v.metric = spec->metric;
	ix->flat->v.dim = spec->dim;
	ix->flat->v.bits = KBX_VFLAT_BITS;
	ix->flat->v.stride = _kbx_vflat_code_stride(spec->dim, KBX_VFLAT_BITS);
	*out = ix;
	return KBX_VEC_OK;
}

uint64_t _kbx_vec_flat_ntotal(const kbx_vector_index_t *ix)
{
	return ix->flat->v.n;
}

int _kbx_vec_flat_add(kbx_vector_index_t *ix, size_t n, const float *x, const int64_t *ids,
		      char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	size_t dim = ix->dim;

	if (fl->v.map)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STATE,
				     "cannot add to a vector index opened read-only");
	if (n > SIZE_MAX / sizeof(float) / dim - fl->v.n)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	if (fl->v.n + n > fl->cap) {
		uint64_t cap = fl->cap ? fl->cap : 1024;
		int64_t *nids;
		float *nx;

		while (cap < fl->v.n + n)
			cap = cap > SIZE_MAX / sizeof(float) / dim / 2 ? fl->v.n + n : cap * 2;
		nids = realloc(fl->own_ids, cap * sizeof(*nids));
		if (!nids)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		fl->own_ids = nids;
		fl->v.ids = nids;
		nx = realloc(fl->own_x, cap * dim * sizeof(*nx));
		if (!nx)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		fl->own_x = nx;
		fl->v.x = nx;
		fl->cap = cap;
	}
	memcpy(fl->own_ids + fl->v.n, ids, n * sizeof(*ids));
	memcpy(fl->own_x + fl->v.n * dim, x, n * dim * sizeof(*x));
	fl->v.n += n;
	fl->v.codes_ok = 0;
	return KBX_VEC_OK;
}

/* (Re)compute the codes and factors of an index in memory. */
static int make_codes(kbx_vector_index_t *ix, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	uint32_t dim = ix->dim, stride = fl->v.stride;
	uint64_t n = fl->v.n;
	float *factors = NULL;
	int8_t *codes = NULL;

	if (n <= SIZE_MAX / stride / 2) {
		factors = malloc(n ? (size_t)n * 2 * sizeof(*factors) : 1);
		codes = malloc(n ? (size_t)n * stride : 1);
	}
	if (!factors || !codes) {
		free(factors);
		free(codes);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	}
	_kbx_vflat_codes(fl->v.x, n, dim, fl->v.bits, stride, factors, codes);
	free(fl->own_factors);
	free(fl->own_codes);
	fl->v.factors = fl->own_factors = factors;
	fl->v.codes = fl->own_codes = codes;
	fl->v.codes_ok = 1;
	return KBX_VEC_OK;
}

int _kbx_vec_flat_search(kbx_vector_index_t *ix, size_t n, const float *q, size_t k,
			 uint32_t rerank, int64_t *ids, float *dist, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	size_t r = rerank ? rerank : _KBX_VEC_DEFAULT_RERANK;
	int rc;

	/* The codes are made only when a search would use them. */
	if (!fl->v.codes_ok && (r < k ? k : r) <= fl->v.n / 4 &&
	    (rc = make_codes(ix, err, errsz)))
		return rc;
	return _kbx_vflat_search(&fl->v, n, q, k, r, ids, dist, err, errsz);
}

/* fwrite() of count items, none being no call (ptr may then be NULL). */
static int write_items(FILE *fp, const void *ptr, size_t size, uint64_t count)
{
	return !count || fwrite(ptr, size, (size_t)count, fp) == count ? 0 : -1;
}

/* Zeros up to offset `to`, *at being where the stream is. */
static int pad_to(FILE *fp, uint64_t *at, uint64_t to)
{
	static const unsigned char zeros[FLAT_PAGE];

	while (*at < to) {
		size_t len = to - *at < sizeof(zeros) ? (size_t)(to - *at) : sizeof(zeros);

		if (fwrite(zeros, 1, len, fp) != len)
			return -1;
		*at += len;
	}
	return 0;
}

int _kbx_vec_flat_write(kbx_vector_index_t *ix, FILE *fp, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	unsigned char head[KBX_VFLAT_HEADER_SIZE];
	struct kbx_vflat_layout l;
	uint64_t at, n = fl->v.n;
	int rc;

	if (!HOST_LITTLE_ENDIAN)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "kbx's flat vector index is written on little-endian machines only");
	if (!_kbx_vflat_layout(ix->dim, n, fl->v.bits, &l))
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE, "the vector index is too large");
	if (!fl->v.codes_ok && (rc = make_codes(ix, err, errsz)))
		return rc;
	_kbx_vflat_header(head, ix->dim, n, &l);
	errno = 0;
	at = sizeof(head);
	if (fwrite(head, 1, sizeof(head), fp) != sizeof(head) ||
	    write_items(fp, fl->v.factors, 2 * sizeof(float), n) ||
	    (at += 8 * n, pad_to(fp, &at, l.ids)) ||
	    write_items(fp, fl->v.ids, sizeof(*fl->v.ids), n) ||
	    (at += 8 * n, pad_to(fp, &at, l.codes)) ||
	    write_items(fp, fl->v.codes, l.stride, n) ||
	    (at += (uint64_t)l.stride * n, pad_to(fp, &at, l.vectors)) ||
	    write_items(fp, fl->v.x, sizeof(float) * ix->dim, n))
	{
		/* The caller names the file. */
		if (!errno)
			errno = EIO;
		return KBX_VEC_ERR_IO;
	}
	return KBX_VEC_OK;
}

int _kbx_vec_flat_open(int fd, const char *path, uint64_t payload, uint32_t dim,
		       uint64_t ntotal, int metric, int map, kbx_vector_index_t **out,
		       char *err, size_t errsz)
{
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = metric, .dim = dim };
	struct _kbx_vec_flat *fl;
	struct kbx_vflat_layout l;
	kbx_vector_index_t *ix;
	int rc;

	rc = _kbx_vflat_check(fd, path, payload, dim, ntotal, &l, err, errsz);
	if (rc)
		return rc;
	rc = _kbx_vec_flat_create(&spec, &ix, err, errsz);
	if (rc)
		return rc;
	fl = ix->flat;
	if (map) {
		rc = _kbx_vflat_map(fd, path, payload, &l, dim, ntotal, metric, &fl->v, err, errsz);
		if (rc) {
			_kbx_vec_free(ix);
			return rc;
		}
		ix->read_only = 1;
	} else if (ntotal) {
		/* Read to be added to: the codes are made again when needed. */
		fl->own_ids = malloc((size_t)ntotal * sizeof(int64_t));
		fl->own_x = malloc((size_t)(payload - l.vectors));
		if (!fl->own_ids || !fl->own_x) {
			_kbx_vec_free(ix);
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		}
		fl->v.ids = fl->own_ids;
		fl->v.x = fl->own_x;
		fl->cap = fl->v.n = ntotal;
		if (_kbx_vf_read_at(fd, fl->own_ids, (size_t)ntotal * sizeof(int64_t), l.ids) < 0 ||
		    _kbx_vf_read_at(fd, fl->own_x, (size_t)(payload - l.vectors), l.vectors) < 0) {
			rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot read '%s': %s", path,
					   strerror(errno));
			_kbx_vec_free(ix);
			return rc;
		}
	}
	*out = ix;
	return KBX_VEC_OK;
}

void _kbx_vec_flat_free(struct _kbx_vec_flat *fl)
{
	if (!fl)
		return;
	_kbx_vflat_unmap(&fl->v);
	free(fl->own_ids);
	free(fl->own_x);
	free(fl->own_factors);
	free(fl->own_codes);
	free(fl);
}
