/*
 * Finding and opening kbx's run-time modules (kbx-vector.so,
 * kbx-embed.so) and finding its data files (kbx-words.bin): the libraries that only some commands need and that the
 * kbx binary must not link (see vecmod.h and embed/embed.h).
 */
#ifndef KBX_MODLOAD_H
#define KBX_MODLOAD_H

#include <stddef.h>

#ifndef KBX_MODULE_DIR
#define KBX_MODULE_DIR "/usr/local/lib/kbx"
#endif

/*
 * Find the module file and dlopen() it, then look up symbol.  Looked
 * for, in order:
 *
 *   1. $env_var, a file path, when set and not empty; it is then the only
 *      place looked at, so that a wrong override is reported rather than
 *      another module loaded;
 *   2. build/<file> in the directory of the running executable (running
 *      from the source tree);
 *   3. KBX_MODULE_DIR "/" <file> (the installation's module directory).
 *
 * The first file found is the one used: a broken build next to the
 * binary is reported, not skipped.  On success *sym is the symbol and
 * path (pathsz bytes) the file's path, and 0 is returned; otherwise -1
 * with a message in err that names what (a "vector module"), the paths
 * tried and what to do, or -2 when the dynamic loader ran out of memory.
 * A module that was opened stays loaded.
 */
int _kbx_module_open(const char *what, const char *env_var, const char *file,
		     const char *symbol, void **sym, char *path, size_t pathsz, char *err,
		     size_t errsz);

#ifndef KBX_DATA_DIR
#define KBX_DATA_DIR "/usr/local/share/kbx"
#endif

/* The same search for a file that is only read (the builtin embedding's
 * word vectors), with dir in place of KBX_MODULE_DIR: 0 with its path,
 * or -1 with a message. */
int _kbx_file_find(const char *what, const char *env_var, const char *dir, const char *file,
		   char *path, size_t pathsz, char *err, size_t errsz);

#endif
