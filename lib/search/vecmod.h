/*
 * Loading the vector module (kbx-vector.so) at run time.
 *
 * The module carries FAISS and its run-time libraries, which the kbx
 * binary must not link (they add about 1.7 ms to every process start);
 * commands that need vectors call _kbx_vector_load() and use the table
 * it returns (lib/vector/vector.h).
 */
#ifndef KBX_VECMOD_H
#define KBX_VECMOD_H

#include <stddef.h>

#include "util/vflat.h"
#include "vector/vector.h"

#ifndef KBX_MODULE_DIR
#define KBX_MODULE_DIR "/usr/local/lib/kbx"
#endif

/*
 * Load the module once per process and return its table in *ops.  The
 * module is looked for, in order:
 *
 *   1. $KBX_MODULE_PATH, a file path, when set and not empty; it is then
 *      the only place looked at, so that a wrong override is reported
 *      rather than another module loaded;
 *   2. build/kbx-vector.so in the directory of the running executable
 *      (running from the source tree: ./kbx and ./build/kbx-vector.so);
 *   3. KBX_MODULE_DIR "/kbx-vector.so" (KBX_MODULE_DIR comes from the
 *      Makefile: the installation's module directory).
 *
 * Returns KBX_VEC_OK, or KBX_VEC_ERR_MODULE with a message in err naming
 * the paths tried, or the dynamic loader's own message, or the ABI
 * mismatch.  A failure is not remembered: a later call tries again.  The
 * module stays loaded until the process ends (FAISS's OpenMP threads
 * make unloading unsafe).  Safe to call from several threads.
 */
int _kbx_vector_load(const struct kbx_vector_ops **ops, char *err, size_t errsz);

/* The path the module was loaded from, or NULL before a successful
 * _kbx_vector_load(); for "kbx version" style output. */
const char *_kbx_vector_module_path(void);

/*
 * A vector index file opened for search.  A file of kbx's flat layout
 * is mapped and searched by libkbx itself (lib/util/vflat.c): no module
 * is loaded, which would cost the dynamic loader more than the search.
 * Any other kind goes through the module, loaded on first use.
 * KBX_VECTOR_FLAT=module in the environment sends flat files through
 * the module too (to compare the two; the answers are the same).
 */
struct _kbx_vsearch {
	const struct kbx_vector_ops *ops;       /* the module's, or NULL */
	kbx_vector_index_t *ix;                 /* opened by the module */
	struct kbx_vflat flat;                  /* mapped here (ops NULL) */
	struct kbx_vector_info info;
	double load_ms;         /* spent loading the module by this open */
};

/*
 * Open path for search as the module's open() with flags
 * KBX_VEC_OPEN_MMAP | KBX_VEC_OPEN_GENERATION would: KBX_VEC_ERR_STALE
 * when its stamp (in *generation, also then) is not expect_generation;
 * KBX_VEC_ERR_MODULE when the file needs the module and it cannot be
 * loaded.  The message goes to err.  h->load_ms is set in every case.
 * Release with _kbx_vsearch_close(), also after a failure.
 */
int _kbx_vsearch_open(const char *path, uint64_t expect_generation, struct _kbx_vsearch *h,
		      uint64_t *generation, char *err, size_t errsz);
/* One query qv[dim] (dim: h->info.dim); as the module's search(). */
int _kbx_vsearch_search(struct _kbx_vsearch *h, const float *qv, size_t k,
			const struct kbx_vector_search_params *params, int64_t *ids, float *dist,
			char *err, size_t errsz);
void _kbx_vsearch_close(struct _kbx_vsearch *h);

#endif
