/*
 * The part of the FAISS C API that lib/vector/ calls, for systems whose
 * FAISS package ships the C API headers but no libfaiss_c (Debian 12's
 * libfaiss-dev 1.7.3 is one).  This is the only C++ file of kbx.
 *
 * Each function has exactly the signature declared in <faiss/c_api/...>
 * (the headers are included, so the compiler checks it) and behaves as
 * the real libfaiss_c does: every C++ exception is caught at the
 * boundary, the call returns one of the FaissErrorCode values, and
 * faiss_get_last_error() gives the message of the last failure on this
 * thread.  Like the real library, a success does not clear that message.
 *
 * Only what kbx calls is here.  A caller that needs another C API
 * function must add it here as well, or configure must find a real
 * libfaiss_c (FAISS_C_SHIM=no), in which case this file is not built.
 *
 * io_flags are passed to faiss::read_index() untouched, as the real
 * libfaiss_c does.  Note that FAISS_IO_FLAG_MMAP in the 1.7.3 C header is
 * 1, which the C++ reader ignores; the C++ value is faiss::IO_FLAG_MMAP
 * (lib/vector/file.c passes that one).
 */
#include <cstdio>
#include <exception>
#include <string>

/* Nothing of this file or of FAISS is exported from the module: the
 * module's one public symbol is kbx_vector_module (lib/vector/module.c).
 * This holds even when the build passes no -fvisibility=hidden or
 * version script.  (The standard library's headers keep their own.) */
#pragma GCC visibility push(hidden)

#include <faiss/AutoTune.h>
#include <faiss/Index.h>
#include <faiss/impl/FaissException.h>
#include <faiss/index_factory.h>
#include <faiss/index_io.h>

#include <faiss/c_api/AutoTune_c.h>
#include <faiss/c_api/Index_c.h>
#include <faiss/c_api/error_c.h>
#include <faiss/c_api/index_factory_c.h>
#include <faiss/c_api/index_io_c.h>

namespace {

/* The message of the last failure on this thread.  Before any failure
 * faiss_get_last_error() returns NULL, as libfaiss_c does. */
thread_local std::string last_error;
thread_local bool has_error = false;
thread_local bool message_lost = false;

int record(int code, const char *what)
{
	has_error = true;
	message_lost = false;
	try {
		last_error = what ? what : "unknown error";
	} catch (...) {
		/* No memory to keep the message: say so rather than show an
		 * older one. */
		message_lost = true;
	}
	return code;
}

/* Run fn, turning any exception into a FaissErrorCode. */
template <typename Fn> int guarded(Fn fn)
{
	try {
		fn();
		return OK;
	} catch (const faiss::FaissException &e) {
		return record(FAISS_EXCEPT, e.what());
	} catch (const std::exception &e) {
		return record(STD_EXCEPT, e.what());
	} catch (...) {
		return record(UNKNOWN_EXCEPT, "unknown exception");
	}
}

inline faiss::Index *cxx(FaissIndex *p)
{
	return reinterpret_cast<faiss::Index *>(p);
}

inline const faiss::Index *cxx(const FaissIndex *p)
{
	return reinterpret_cast<const faiss::Index *>(p);
}

inline FaissIndex *c_handle(faiss::Index *p)
{
	return reinterpret_cast<FaissIndex *>(p);
}

} // namespace

extern "C" {

const char *faiss_get_last_error()
{
	if (!has_error)
		return nullptr;
	if (message_lost)
		return "out of memory while recording a FAISS error";
	return last_error.c_str();
}

int faiss_index_factory(FaissIndex **p_index, int d, const char *description,
			FaissMetricType metric)
{
	return guarded([&] {
		faiss::Index *ix = faiss::index_factory(
			d, description, static_cast<faiss::MetricType>(metric));
		*p_index = c_handle(ix);
	});
}

void faiss_Index_free(FaissIndex *obj)
{
	delete cxx(obj);
}

int faiss_Index_d(const FaissIndex *index)
{
	return static_cast<int>(cxx(index)->d);
}

int faiss_Index_is_trained(const FaissIndex *index)
{
	return cxx(index)->is_trained ? 1 : 0;
}

idx_t faiss_Index_ntotal(const FaissIndex *index)
{
	return static_cast<idx_t>(cxx(index)->ntotal);
}

int faiss_Index_train(FaissIndex *index, idx_t n, const float *x)
{
	return guarded([&] { cxx(index)->train(n, x); });
}

int faiss_Index_add_with_ids(FaissIndex *index, idx_t n, const float *x,
			     const idx_t *xids)
{
	return guarded([&] { cxx(index)->add_with_ids(n, x, xids); });
}

int faiss_Index_search(const FaissIndex *index, idx_t n, const float *x, idx_t k,
		       float *distances, idx_t *labels)
{
	return guarded([&] { cxx(index)->search(n, x, k, distances, labels); });
}

/* kbx uses the FILE * forms: it writes its trailer into the same stream
 * and checks fflush()/fsync() itself, and it reads the trailer and the
 * index through one descriptor. */
int faiss_write_index(const FaissIndex *idx, FILE *f)
{
	return guarded([&] { faiss::write_index(cxx(idx), f); });
}

int faiss_read_index(FILE *f, int io_flags, FaissIndex **p_out)
{
	return guarded([&] { *p_out = c_handle(faiss::read_index(f, io_flags)); });
}

int faiss_ParameterSpace_new(FaissParameterSpace **space)
{
	return guarded([&] {
		*space = reinterpret_cast<FaissParameterSpace *>(new faiss::ParameterSpace());
	});
}

void faiss_ParameterSpace_free(FaissParameterSpace *obj)
{
	delete reinterpret_cast<faiss::ParameterSpace *>(obj);
}

int faiss_ParameterSpace_set_index_parameter(const FaissParameterSpace *space,
					     FaissIndex *index, const char *name,
					     double value)
{
	return guarded([&] {
		reinterpret_cast<const faiss::ParameterSpace *>(space)
			->set_index_parameter(cxx(index), name, value);
	});
}

} // extern "C"

#pragma GCC visibility pop
