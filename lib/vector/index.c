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
	if (faiss_Index_is_trained(ix->faiss))
		return KBX_VEC_OK;
	if (ix->read_only)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STATE,
				     "cannot train a vector index opened read-only");
	if (ix->kind == KBX_VEC_IVF &&
	    n < (size_t)ix->param * _KBX_VEC_MIN_TRAIN_PER_LIST)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "an IVF index of %u lists needs at least %zu training vectors, got %zu",
				     ix->param, (size_t)ix->param * _KBX_VEC_MIN_TRAIN_PER_LIST, n);
	rc = faiss_Index_train(ix->faiss, (idx_t)n, x);
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
	if (!faiss_Index_is_trained(ix->faiss))
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
		uint32_t nprobe = params && params->nprobe ? params->nprobe
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
	info->ntotal = (uint64_t)faiss_Index_ntotal(ix->faiss);
	info->generation = ix->generation;
	info->is_trained = faiss_Index_is_trained(ix->faiss) != 0;
	info->read_only = ix->read_only;
	return KBX_VEC_OK;
}

uint64_t _kbx_vec_ntotal(const kbx_vector_index_t *ix)
{
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
	free(ix);
}
