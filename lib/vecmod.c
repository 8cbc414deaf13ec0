/*
 * Finding and loading the vector module.  See vecmod.h.
 *
 * This file holds the library's one piece of process-wide state: the
 * loaded module.  dlopen() is process-wide by nature, and a module
 * running OpenMP threads cannot be unloaded safely, so it is loaded once
 * and kept; a mutex makes the first load safe from several threads.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vecmod.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct kbx_vector_ops *loaded_ops;
static char loaded_path[PATH_MAX];

static int fail(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	if (err && errsz) {
		va_start(ap, fmt);
		vsnprintf(err, errsz, fmt, ap);
		va_end(ap);
	}
	return KBX_VEC_ERR_MODULE;
}

static int load_file(const char *path, const struct kbx_vector_ops **ops, char *err,
		     size_t errsz)
{
	const struct kbx_vector_ops *o;
	kbx_vector_module_fn entry;
	const char *msg;
	void *handle, *sym;

	/* OpenBLAS starts a thread per processor when it is loaded, which
	 * costs start-up time and gains nothing: FAISS runs its own loops
	 * in parallel with OpenMP, and a search asks one query.  The user's
	 * own setting wins. */
	setenv("OPENBLAS_NUM_THREADS", "1", 0);
	dlerror();
	handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		msg = dlerror();
		return fail(err, errsz, "cannot load vector module '%s': %s", path,
			    msg ? msg : "unknown dynamic loader error");
	}
	sym = dlsym(handle, KBX_VECTOR_MODULE_SYMBOL);
	if (!sym) {
		msg = dlerror();
		fail(err, errsz, "'%s' is not a kbx vector module: %s", path,
		     msg ? msg : "no " KBX_VECTOR_MODULE_SYMBOL " symbol");
		dlclose(handle);
		return KBX_VEC_ERR_MODULE;
	}
	/* POSIX guarantees a function's address survives this round trip. */
	memcpy(&entry, &sym, sizeof(entry));
	o = entry(KBX_VECTOR_ABI);
	/* From here on the module has run code: it stays loaded even when
	 * refused, as unloading it is not known to be safe. */
	if (!o || o->abi != KBX_VECTOR_ABI)
		return fail(err, errsz,
			    "vector module '%s' does not speak ABI %d of this kbx; install the module built with this kbx",
			    path, KBX_VECTOR_ABI);
	if (o->size < sizeof(struct kbx_vector_ops))
		return fail(err, errsz,
			    "vector module '%s' is older than this kbx (table of %u bytes, %zu expected); install the module built with this kbx",
			    path, o->size, sizeof(struct kbx_vector_ops));
	*ops = o;
	return KBX_VEC_OK;
}

/* "<directory of the running executable>/build/kbx-vector.so" into buf;
 * 0 when /proc/self/exe cannot be read. */
static int exe_relative(char *buf, size_t bufsz)
{
	static const char tail[] = "/build/" KBX_VECTOR_MODULE_FILE;
	char *slash;
	ssize_t n;

	n = readlink("/proc/self/exe", buf, bufsz - 1);
	if (n <= 0 || (size_t)n >= bufsz - 1)
		return 0;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return 0;
	if ((size_t)(slash - buf) + sizeof(tail) > bufsz)
		return 0;
	memcpy(slash, tail, sizeof(tail));
	return 1;
}

static int find_and_load(const struct kbx_vector_ops **ops, char *err, size_t errsz)
{
	const char *env = getenv("KBX_MODULE_PATH");
	char candidates[2][PATH_MAX];
	int n = 0, i, rc;

	if (env && *env) {
		if (access(env, F_OK) != 0)
			return fail(err, errsz,
				    "vector module not found: KBX_MODULE_PATH names '%s': %s",
				    env, strerror(errno));
		rc = load_file(env, ops, err, errsz);
		if (!rc)
			snprintf(loaded_path, sizeof(loaded_path), "%s", env);
		return rc;
	}

	if (exe_relative(candidates[n], sizeof(candidates[n])))
		n++;
	snprintf(candidates[n], sizeof(candidates[n]), "%s/%s", KBX_MODULE_DIR,
		 KBX_VECTOR_MODULE_FILE);
	n++;

	for (i = 0; i < n; i++) {
		if (access(candidates[i], F_OK) != 0)
			continue;
		/* The first module found is the one used: a broken build
		 * next to the binary is reported, not skipped. */
		rc = load_file(candidates[i], ops, err, errsz);
		if (!rc)
			memcpy(loaded_path, candidates[i], sizeof(loaded_path));
		return rc;
	}
	if (n == 2)
		return fail(err, errsz,
			    "vector module not found: tried '%s' and '%s'; build it with 'make' or set KBX_MODULE_PATH",
			    candidates[0], candidates[1]);
	return fail(err, errsz,
		    "vector module not found: tried '%s'; build it with 'make' or set KBX_MODULE_PATH",
		    candidates[0]);
}

int _kbx_vector_load(const struct kbx_vector_ops **ops, char *err, size_t errsz)
{
	int rc = KBX_VEC_OK;

	pthread_mutex_lock(&load_lock);
	if (!loaded_ops)
		rc = find_and_load(&loaded_ops, err, errsz);
	*ops = loaded_ops;
	pthread_mutex_unlock(&load_lock);
	return rc;
}

const char *_kbx_vector_module_path(void)
{
	const char *path;

	pthread_mutex_lock(&load_lock);
	path = loaded_ops ? loaded_path : NULL;
	pthread_mutex_unlock(&load_lock);
	return path;
}
