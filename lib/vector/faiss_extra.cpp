/*
 * FAISS's exact search kernels, for kbx's own flat index (flat.c), whose
 * vectors live in a memory-mapped file rather than in a FAISS index.
 *
 * Built whether or not lib/vector/faiss_shim.cpp is: these are C++
 * functions of FAISS that no C API offers.  Like the shim, every C++
 * exception stops here.
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <thread>
#include <vector>

#pragma GCC visibility push(hidden)

#include <faiss/IndexIVF.h>
#include <faiss/impl/FaissException.h>
#include <faiss/invlists/OnDiskInvertedLists.h>
#include <faiss/utils/distances.h>

#include "internal.h"

namespace {

/*
 * One query against many vectors reads every vector once, and one
 * thread cannot read memory as fast as two: above this many floats the
 * scan is split between two threads (the cost of starting one is about
 * 50 us; below this size the scan itself takes less than a millisecond).
 */
const size_t split_floats = size_t(1) << 21;

void knn(int metric, const float *x, size_t nx, const float *y, size_t ny, size_t d,
	 size_t k, float *dist, int64_t *labels)
{
	if (metric == KBX_VEC_L2)
		faiss::knn_L2sqr(x, y, d, nx, ny, k, dist, labels);
	else
		faiss::knn_inner_product(x, y, d, nx, ny, k, dist, labels);
}

/* Is a better than b? */
inline bool better(int metric, float a, float b)
{
	return metric == KBX_VEC_L2 ? a < b : a > b;
}

/* The k best of one query over y, the scan split in two halves. */
void knn_split(int metric, const float *x, const float *y, size_t ny, size_t d, size_t k,
	       float *dist, int64_t *labels)
{
	size_t half = ny / 2;
	std::vector<float> d2(2 * k);
	std::vector<int64_t> l2(2 * k);
	std::exception_ptr failed;
	std::thread other([&] {
		try {
			knn(metric, x, 1, y + half * d, ny - half, d, k, &d2[k], &l2[k]);
		} catch (...) {
			failed = std::current_exception();
		}
	});

	try {
		knn(metric, x, 1, y, half, d, k, &d2[0], &l2[0]);
	} catch (...) {
		other.join();
		throw;
	}
	other.join();
	if (failed)
		std::rethrow_exception(failed);

	/* Merge the two sorted lists; -1 ends a list. */
	size_t a = 0, b = k, i;
	for (i = 0; i < k; i++) {
		bool a_ok = a < k && l2[a] >= 0, b_ok = b < 2 * k && l2[b] >= 0;

		if (a_ok && (!b_ok || !better(metric, d2[b], d2[a]))) {
			dist[i] = d2[a];
			labels[i] = l2[a++];
		} else if (b_ok) {
			dist[i] = d2[b];
			labels[i] = l2[b++] + (int64_t)half;
		} else {
			dist[i] = metric == KBX_VEC_L2 ? 3.4e38f : -3.4e38f;
			labels[i] = -1;
		}
	}
}

} // namespace

/* Run a search, turning what FAISS throws into a status and a message. */
template <typename F> static int guarded_search(F search, char *err, size_t errsz)
{
	try {
		search();
		return KBX_VEC_OK;
	} catch (const std::bad_alloc &) {
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	} catch (const std::exception &e) {
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FAISS, "cannot search vector index: %s",
				     e.what());
	} catch (...) {
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FAISS,
				     "cannot search vector index: unknown exception");
	}
}

extern "C" int _kbx_vec_knn(int metric, const float *x, size_t nx, const float *y,
			    size_t ny, size_t d, size_t k, float *dist, int64_t *labels,
			    char *err, size_t errsz)
{
	return guarded_search([&] {
		if (nx == 1 && ny >= 2 * k && ny * d >= split_floats &&
		    std::thread::hardware_concurrency() > 1)
			knn_split(metric, x, y, ny, d, k, dist, labels);
		else
			knn(metric, x, nx, y, ny, d, k, dist, labels);
	}, err, errsz);
}

extern "C" int _kbx_vec_knn_subset(int metric, const float *x, const float *y,
				   const int64_t *subset, size_t nsubset, size_t d, size_t k,
				   float *dist, int64_t *labels, char *err, size_t errsz)
{
	return guarded_search([&] {
		if (metric == KBX_VEC_L2)
			faiss::knn_L2sqr_by_idx(x, y, subset, d, 1, nsubset, k, dist, labels);
		else
			faiss::knn_inner_products_by_idx(x, y, subset, d, 1, nsubset, k, dist,
							 labels);
	}, err, errsz);
}

extern "C" void _kbx_vec_ivf_no_prefetch(FaissIndex *f)
{
	faiss::IndexIVF *ivf = dynamic_cast<faiss::IndexIVF *>(reinterpret_cast<faiss::Index *>(f));
	faiss::OnDiskInvertedLists *od;

	if (!ivf)
		return;
	od = dynamic_cast<faiss::OnDiskInvertedLists *>(ivf->invlists);
	if (od)
		od->prefetch_nthread = 0;
}

#pragma GCC visibility pop
