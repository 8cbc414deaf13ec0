/* Finding and opening kbx's run-time modules.  See modload.h. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/modload.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* "<directory of the running executable>/build/<file>" into buf; 0 when
 * /proc/self/exe cannot be read. */
static int exe_relative(const char *file, char *buf, size_t bufsz)
{
	ssize_t n = readlink("/proc/self/exe", buf, bufsz - 1);
	if (n <= 0 || (size_t)n >= bufsz - 1)
		return 0;
	buf[n] = '\0';
	char *slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash - buf) + strlen("/build/") + strlen(file) + 1 > bufsz)
		return 0;
	snprintf(slash, bufsz - (size_t)(slash - buf), "/build/%s", file);
	return 1;
}

static int open_file(const char *what, const char *file, const char *symbol, void **sym,
		     char *err, size_t errsz)
{
	dlerror();
	void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		const char *msg = dlerror();
		snprintf(err, errsz, "cannot load %s '%s': %s", what, file,
			 msg ? msg : "unknown dynamic loader error");
		return -1;
	}
	*sym = dlsym(handle, symbol);
	if (!*sym) {
		const char *msg = dlerror();
		snprintf(err, errsz, "'%s' is not a kbx %s: %s", file, what,
			 msg ? msg : "the module's symbol is missing");
		dlclose(handle);
		return -1;
	}
	return 0;
}

int _kbx_file_find(const char *what, const char *env_var, const char *dir, const char *file,
		   char *path, size_t pathsz, char *err, size_t errsz)
{
	const char *env = getenv(env_var);
	char cand[2][PATH_MAX];
	int n = 0;

	if (env && *env) {
		if (access(env, F_OK) != 0) {
			snprintf(err, errsz, "%s not found: %s names '%s': %s", what, env_var, env,
				 strerror(errno));
			return -1;
		}
		snprintf(path, pathsz, "%s", env);
		return 0;
	}
	if (exe_relative(file, cand[n], sizeof(cand[n])))
		n++;
	snprintf(cand[n], sizeof(cand[n]), "%s/%s", dir, file);
	n++;
	for (int i = 0; i < n; i++) {
		if (access(cand[i], F_OK) != 0)
			continue;
		snprintf(path, pathsz, "%s", cand[i]);
		return 0;
	}
	if (n == 2)
		snprintf(err, errsz, "%s not found: tried '%s' and '%s'; build it with 'make' or set %s",
			 what, cand[0], cand[1], env_var);
	else
		snprintf(err, errsz, "%s not found: tried '%s'; build it with 'make' or set %s", what,
			 cand[0], env_var);
	return -1;
}

int _kbx_module_open(const char *what, const char *env_var, const char *file,
		     const char *symbol, void **sym, char *path, size_t pathsz, char *err,
		     size_t errsz)
{
	if (_kbx_file_find(what, env_var, KBX_MODULE_DIR, file, path, pathsz, err, errsz))
		return -1;
	return open_file(what, path, symbol, sym, err, errsz);
}
