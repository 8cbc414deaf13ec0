/*
 * What the module needs of FAISS that no C API offers.  Built whether or
 * not lib/vector/faiss_shim.cpp is.
 */
#pragma GCC visibility push(hidden)

#include <faiss/IndexIVF.h>
#include <faiss/invlists/OnDiskInvertedLists.h>

#include "internal.h"

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
