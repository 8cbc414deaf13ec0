/*
 * Building and searching an index in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faiss/c_api/index_factory_c.h>

#include "internal.h"

/* The factory string of a spec into buf. */
static int describe(const struct kbx_vector_spec *spec, char *buf, size_t bufsz,
		    uint32_t *param, char *err, size_t errsz)
{
	int n;

	*param = 0;
	switch (spec->kind) {
	case KBX_VEC_FLAT:
		n = snprintf(buf, bufsz, "IDMap,Flat");
		break;
	case KBX_VEC_HNSW:
		*param = spec->hnsw_m ? spec->hnsw_m : _KBX_VEC_DEFAULT_HNSW_M;
		if (*param < 2 || *param > 4096)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
					     "HNSW neighbour count %u is out of range 2..4096",
					     *param);
		/* Plain "HNSW<m>" refuses add_with_ids; the IDMap layer maps
		 * FAISS's sequence numbers to ours. */
		n = snprintf(buf, bufsz, "IDMap,HNSW%u,Flat", *param);
		break;
	case KBX_VEC_IVF:
		*param = spec->ivf_nlist;
		if (*param < 1 || *param > (1u << 24))
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
					     "IVF list count %u is out of range 1..16777216",
					     *param);
		n = snprintf(buf, bufsz, "IVF%u,Flat", *param);
		break;
	case KBX_VEC_FACTORY:
		if (!spec->factory || !*spec->factory)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
					     "no FAISS factory string given");
		n = snprintf(buf, bufsz, "%s", spec->factory);
		break;
	default:
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "unknown vector index kind %d", spec->kind);
	}
	if (n < 0 || (size_t)n >= bufsz)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "FAISS factory string is too long");
	return KBX_VEC_OK;
}

int _kbx_vec_create(const struct kbx_vector_spec *spec, kbx_vector_index_t **out,
		    char *err, size_t errsz)
{
	char desc[256];
	FaissIndex *f = NULL;
	FaissMetricType metric;
	uint32_t param;
	int rc;

	*out = NULL;
	if (spec->dim < 1 || spec->dim > KBX_VECTOR_MAX_DIM)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "vector dimension %u is out of range 1..%u", spec->dim,
				     KBX_VECTOR_MAX_DIM);
	switch (spec->metric) {
	case KBX_VEC_IP: metric = METRIC_INNER_PRODUCT; break;
	case KBX_VEC_L2: metric = METRIC_L2; break;
	default:
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE, "unknown vector metric %d",
				     spec->metric);
	}
	if (spec->kind == KBX_VEC_FLAT)
		return _kbx_vec_flat_create(spec, out, err, errsz);
	rc = describe(spec, desc, sizeof(desc), &param, err, errsz);
	if (rc)
		return rc;
	rc = faiss_index_factory(&f, (int)spec->dim, desc, metric);
	if (rc) {
		char what[300];

		snprintf(what, sizeof(what), "cannot create vector index '%s'", desc);
		return _kbx_vec_fail_faiss(err, errsz, rc, what);
	}
	return _kbx_vec_wrap(f, spec->kind, spec->metric, param, out, err, errsz);
}

/* n vectors of dim floats: does the count fit FAISS's idx_t and memory? */
static int check_batch(const kbx_vector_index_t *ix, size_t n, uint32_t dim,
		       const void *x, const char *what, char *err, size_t errsz)
{
	if (dim != ix->dim)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_DIM,
				     "cannot %s vectors of dimension %u: the index has dimension %u",
				     what, dim, ix->dim);
	if (n > (size_t)INT64_MAX / dim / sizeof(float))
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE, "too many vectors to %s",
				     what);
	if (n && !x)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE, "no vectors to %s", what);
	return KBX_VEC_OK;
}

int _kbx_vec_train(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *x,
		   char *err, size_t errsz)
{
	int rc = check_batch(ix, n, dim, x, "train on", err, errsz);

	if (rc)
		return rc;
	if (ix->flat || faiss_Index_is_trained(ix->faiss))
		return KBX_VEC_OK;
	if (ix->read_only)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STATE,
				     "cannot train a vector index opened read-only");
	if (ix->kind == KBX_VEC_IVF &&
	    n < (size_t)ix->param * _KBX_VEC_MIN_TRAIN_PER_LIST)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "an IVF index of %u lists needs at least %zu training vectors, got %zu",
				     ix->param, (size_t)ix->param * _KBX_VEC_MIN_TRAIN_PER_LIST, n);
	/* k-means over every vector of a large collection takes minutes;
	 * an even sample of _KBX_VEC_TRAIN_PER_LIST per list finds lists as
	 * good for search (bench/vector.sh). */
	if (ix->kind == KBX_VEC_IVF && n > (size_t)ix->param * _KBX_VEC_TRAIN_PER_LIST) {
		size_t m = (size_t)ix->param * _KBX_VEC_TRAIN_PER_LIST, i;
		float *sample = malloc(m * dim * sizeof(float));

		if (!sample)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		for (i = 0; i < m; i++)
			memcpy(sample + i * dim, x + (i * (n / m)) * dim, dim * sizeof(float));
		rc = faiss_Index_train(ix->faiss, (idx_t)m, sample);
		free(sample);
	} else {
		rc = faiss_Index_train(ix->faiss, (idx_t)n, x);
	}
	if (rc)
		return _kbx_vec_fail_faiss(err, errsz, rc, "cannot train vector index");
	return KBX_VEC_OK;
}

int _kbx_vec_add(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *x,
		 const int64_t *ids, char *err, size_t errsz)
{
	int rc = check_batch(ix, n, dim, x, "add", err, errsz);
	size_t i;

	if (rc)
		return rc;
	if (ix->read_only)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STATE,
				     "cannot add to a vector index opened read-only");
	if (!ix->flat && !faiss_Index_is_trained(ix->faiss))
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STATE,
				     "the vector index must be trained before vectors are added");
	if (!n)
		return KBX_VEC_OK;
	if (!ids)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE, "no ids for the vectors");
	for (i = 0; i < n; i++)
		if (ids[i] < 0)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
					     "vector id %lld is negative",
					     (long long)ids[i]);
	if (ix->flat)
		return _kbx_vec_flat_add(ix, n, x, ids, err, errsz);
	rc = faiss_Index_add_with_ids(ix->faiss, (idx_t)n, x, (const idx_t *)ids);
	if (rc)
		return _kbx_vec_fail_faiss(err, errsz, rc, "cannot add to vector index");
	return KBX_VEC_OK;
}

static int set_knob(kbx_vector_index_t *ix, const char *name, uint32_t value,
		    char *err, size_t errsz)
{
	int rc = faiss_ParameterSpace_set_index_parameter(ix->space, ix->faiss, name,
							  (double)value);
	if (rc) {
		char what[64];

		snprintf(what, sizeof(what), "cannot set %s to %u", name, value);
		return _kbx_vec_fail_faiss(err, errsz, rc, what);
	}
	return KBX_VEC_OK;
}

int _kbx_vec_search(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *q,
		    size_t k, const struct kbx_vector_search_params *params,
		    int64_t *ids, float *dist, char *err, size_t errsz)
{
	int rc = check_batch(ix, n, dim, q, "search for", err, errsz);
	float *scratch = NULL;

	if (rc)
		return rc;
	if (k < 1 || k > 1u << 20)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "number of neighbours %zu is out of range 1..1048576", k);
	if (!n)
		return KBX_VEC_OK;
	if (!ids)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE, "no buffer for the results");
	if (n > (size_t)INT64_MAX / k / sizeof(int64_t))
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "too many results: %zu queries of %zu neighbours", n, k);

	if (ix->flat) {
		/* The kernel always writes distances too. */
		if (!dist) {
			scratch = malloc(n * k * sizeof(float));
			if (!scratch)
				return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		}
		rc = _kbx_vec_flat_search(ix, n, q, k, params ? params->rerank : 0, ids,
					  dist ? dist : scratch, err, errsz);
		free(scratch);
		return rc;
	}
	if (ix->knobs & _KBX_VEC_HAS_EF_SEARCH) {
		uint32_t ef = params && params->ef_search ? params->ef_search
							 : _KBX_VEC_DEFAULT_EF_SEARCH;
		if (ef < k)
			ef = (uint32_t)k;
		rc = set_knob(ix, "efSearch", ef, err, errsz);
		if (rc)
			return rc;
	}
	if (ix->knobs & _KBX_VEC_HAS_NPROBE) {
		uint32_t nprobe = params ? params->nprobe : 0;

		if (!nprobe)
			nprobe = ix->param / 8 > _KBX_VEC_DEFAULT_NPROBE ? ix->param / 8
									 : _KBX_VEC_DEFAULT_NPROBE;
		if (ix->param && nprobe > ix->param)
			nprobe = ix->param;
		rc = set_knob(ix, "nprobe", nprobe, err, errsz);
		if (rc)
			return rc;
	}

	/* FAISS always writes distances. */
	if (!dist) {
		scratch = malloc(n * k * sizeof(float));
		if (!scratch)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		dist = scratch;
	}
	rc = faiss_Index_search(ix->faiss, (idx_t)n, q, (idx_t)k, dist, (idx_t *)ids);
	free(scratch);
	if (rc)
		return _kbx_vec_fail_faiss(err, errsz, rc, "cannot search vector index");
	return KBX_VEC_OK;
}

int _kbx_vec_info(const kbx_vector_index_t *ix, struct kbx_vector_info *info)
{
	memset(info, 0, sizeof(*info));
	info->kind = ix->kind;
	info->metric = ix->metric;
	info->dim = ix->dim;
	info->param = ix->param;
	info->ntotal = _kbx_vec_ntotal(ix);
	info->generation = ix->generation;
	info->is_trained = ix->flat || faiss_Index_is_trained(ix->faiss) != 0;
	info->read_only = ix->read_only;
	return KBX_VEC_OK;
}

uint64_t _kbx_vec_ntotal(const kbx_vector_index_t *ix)
{
	if (ix->flat)
		return _kbx_vec_flat_ntotal(ix);
	return (uint64_t)faiss_Index_ntotal(ix->faiss);
}

void _kbx_vec_free(kbx_vector_index_t *ix)
{
	if (!ix)
		return;
	if (ix->space)
		faiss_ParameterSpace_free(ix->space);
	if (ix->faiss)
		faiss_Index_free(ix->faiss);
	_kbx_vec_flat_free(ix->flat);
	free(ix);
}

/*
 * Which index a collection gets.  Measured with bench/vector.sh (FAISS
 * 1.7.3, 2 cores, dimension 256, k = 10), each search in a new process
 * with the page cache warm, on clustered data (sums of 1-3 of n/50 topic
 * vectors plus noise); "open" leaves out the module load (3.5-5 ms,
 * mostly OpenBLAS's and libstdc++'s start-up); recall@10 against
 * exhaustive search:
 *
 *   N     kind             file     build  open     search  recall@10
 *   100k  FAISS IDMap,Flat 103 MB   0.1 s  78 ms    20 ms   1.000
 *   100k  HNSW32           130 MB   44 s   94 ms    2.8 ms  0.78 (ef 64)
 *                                                           0.93 (ef 128)
 *   100k  IVF1024 mapped   104 MB   6-11 s 0.7 ms   0.7 ms  0.87 (nprobe 16)
 *                                          (3.3 ms warm at nprobe 128: 0.95)
 *   100k  FLAT (kbx)       130 MB   0.1 s  0.03 ms  3-4 ms  1.000
 *   1M    IVF2048 mapped   1.0 GB   74 s   1.5 ms   2.5 ms  0.76 (nprobe 16)
 *                                                           0.94 (nprobe 256)
 *   1M    FLAT (kbx)       1.1 GB   1.3 s  0.02 ms  15-26ms 1.000
 *
 * HNSW is out: FAISS reads its graph and vectors whole, 100 ms a process.
 * FLAT scanned 8-bit codes (dim bytes a vector; 4-bit codes since
 * 2026-11-28, the same answers, lib/vector/flat.c) and re-scores the best 200
 * exactly.  On the builtin embedder's vectors of real code (189k chunks
 * of the Python standard library, its dist-packages, git and PostgreSQL;
 * queries: comment and docstring lines, or function signatures) at 100k:
 * recall@10 1.000 at every rerank from 64 up (1-bit codes, layout 1, had
 * 0.63-0.78 at rerank 1000), search 3-4 ms in a new process on a loaded
 * 2-core machine.  FLAT_MAX_FLOATS = 2^29 (2M vectors at 256, 1.5M at
 * the builtin embedding's 356, 349k at 1536; 256 MB of 4-bit codes):
 * measured on 2026-11-28 at 1,000,180 Markdown sections of the builtin
 * embedding (bench/search/latency.sh), flat against IVF2048 (the kind
 * 2^28 chose there): a whole `kbx search` 25.1 ms against 47.7 ms,
 * --mode=vector 11.9 against 29.4 ms (IVF loads the module, 6.8 ms),
 * index 95 s against 119 s, peak memory 7.07 against 7.28 GB, vector
 * file 1.63 GB; flat's answers exact, IVF's recall@10 0.76-0.94 (table
 * above).  Above it, IVF; nlist is a power
 * of two near 4 sqrt(n), no more than n / 39 (FAISS's k-means wants 39
 * points a list); the search's default nprobe is nlist / 8.  On data
 * without clusters (random, or sparse hashed words) every kind needs a
 * larger rerank or nprobe: see the benchmark's other tables.
 */
#define FLAT_MAX_FLOATS (1ull << 29)
#define MAX_NLIST 65536u

int _kbx_vec_choose(uint64_t n, uint32_t dim, struct kbx_vector_spec *spec)
{
	uint64_t nlist;

	if (!spec || dim < 1 || dim > KBX_VECTOR_MAX_DIM)
		return KBX_VEC_ERR_USAGE;
	spec->dim = dim;
	spec->hnsw_m = 0;
	spec->ivf_nlist = 0;
	spec->factory = NULL;
	if (n <= FLAT_MAX_FLOATS / dim) {
		spec->kind = KBX_VEC_FLAT;
		return KBX_VEC_OK;
	}
	/* the largest power of two <= 4 sqrt(n), i.e. nlist^2 <= 16 n */
	for (nlist = 1; nlist * 2 <= MAX_NLIST && (nlist * 2) * (nlist * 2) <= 16 * n; nlist *= 2)
		;
	while (nlist > 1 && nlist * _KBX_VEC_MIN_TRAIN_PER_LIST > n)
		nlist /= 2;
	spec->kind = KBX_VEC_IVF;
	spec->ivf_nlist = (uint32_t)nlist;
	return KBX_VEC_OK;
}
