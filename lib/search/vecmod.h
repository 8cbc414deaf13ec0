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

#endif
