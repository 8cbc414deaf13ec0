/*
 * The module's entry point, its table of operations, and the error
 * helpers the other files share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <faiss/c_api/error_c.h>

#include "internal.h"
#include "util/vflat.h"

static const char *status_str(int status)
{
	switch (status) {
	case KBX_VEC_OK: return "success";
	case KBX_VEC_ERR_USAGE: return "invalid argument";
	case KBX_VEC_ERR_NOMEM: return "out of memory";
	case KBX_VEC_ERR_IO: return "input/output error";
	case KBX_VEC_ERR_FORMAT: return "not a kbx vector index";
	case KBX_VEC_ERR_STALE: return "vector index is stale";
	case KBX_VEC_ERR_DIM: return "dimension mismatch";
	case KBX_VEC_ERR_STATE: return "operation not allowed on this index now";
	case KBX_VEC_ERR_FAISS: return "FAISS error";
	case KBX_VEC_ERR_MODULE: return "vector module unavailable";
	}
	return "unknown status";
}

int _kbx_vec_fail(char *err, size_t errsz, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	status = _kbx_vf_vfail(err, errsz, status, fmt, ap);
	va_end(ap);
	return status;
}

/*
 * FAISS's messages read "Error in <C++ signature> at <source file>:<line>:
 * <text>"; users want only the text.  Anything else is kept whole.
 */
static const char *faiss_text(const char *msg)
{
	const char *at, *p;

	if (strncmp(msg, "Error in ", 9) != 0)
		return msg;
	at = strstr(msg, " at ");
	while (at) {
		/* find ":<digits>: " after the file name */
		for (p = at + 4; *p && *p != ' '; p++) {
			const char *q = p + 1;

			if (*p != ':' || *q < '0' || *q > '9')
				continue;
			while (*q >= '0' && *q <= '9')
				q++;
			if (q[0] == ':' && q[1] == ' ')
				return q + 2;
		}
		at = strstr(at + 4, " at ");
	}
	return msg;
}

int _kbx_vec_fail_faiss(char *err, size_t errsz, int rc, const char *what)
{
	const char *msg = faiss_get_last_error();

	if (!msg || !*msg)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FAISS,
				     "%s: FAISS failed with code %d", what, rc);
	return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FAISS, "%s: %s", what, faiss_text(msg));
}

/* Does the index take this knob?  FAISS throws for one it does not know;
 * setting it to the module's default makes later searches independent of
 * the value stored in a file. */
static int has_knob(FaissParameterSpace *space, FaissIndex *f, const char *name, double dflt)
{
	return faiss_ParameterSpace_set_index_parameter(space, f, name, dflt) == 0;
}

int _kbx_vec_wrap(FaissIndex *f, int kind, int metric, uint32_t param,
		  kbx_vector_index_t **out, char *err, size_t errsz)
{
	kbx_vector_index_t *ix = calloc(1, sizeof(*ix));
	int rc;

	if (!ix) {
		faiss_Index_free(f);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	}
	rc = faiss_ParameterSpace_new(&ix->space);
	if (rc) {
		faiss_Index_free(f);
		free(ix);
		return _kbx_vec_fail_faiss(err, errsz, rc, "cannot set up search parameters");
	}
	ix->faiss = f;
	ix->kind = kind;
	ix->metric = metric;
	ix->param = param;
	ix->dim = (uint32_t)faiss_Index_d(f);
	if (has_knob(ix->space, f, "efSearch", _KBX_VEC_DEFAULT_EF_SEARCH))
		ix->knobs |= _KBX_VEC_HAS_EF_SEARCH;
	if (has_knob(ix->space, f, "nprobe", _KBX_VEC_DEFAULT_NPROBE))
		ix->knobs |= _KBX_VEC_HAS_NPROBE;
	*out = ix;
	return KBX_VEC_OK;
}

static const struct kbx_vector_ops ops = {
	.abi = KBX_VECTOR_ABI,
	.size = sizeof(struct kbx_vector_ops),
	.backend = "faiss",
	.status_str = status_str,
	.create = _kbx_vec_create,
	.train = _kbx_vec_train,
	.add = _kbx_vec_add,
	.search = _kbx_vec_search,
	.save = _kbx_vec_save,
	.open = _kbx_vec_open,
	.peek = _kbx_vec_peek,
	.info = _kbx_vec_info,
	.ntotal = _kbx_vec_ntotal,
	.free_index = _kbx_vec_free,
	.choose = _kbx_vec_choose,
};

__attribute__((visibility("default")))
const struct kbx_vector_ops *kbx_vector_module(int abi)
{
	return abi == KBX_VECTOR_ABI ? &ops : NULL;
}
