/* Finding and opening kbx's run-time modules.  See modload.h. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/modload.h"
#include "util/util.h"

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

/*
 * A library a module brings may exit() the process from its initializer
 * when memory runs out: libgfortran's, loaded with OpenBLAS, says
 * "Allocating cleared memory failed" and exits with status 1, which
 * reads as "nothing found".  While a module loads, an exit ends kbx as
 * memory running out does (_kbx_nomem_fatal, util.h: status 9).
 */
static volatile int loading;
static char loading_what[128];
static pthread_once_t exit_hook_once = PTHREAD_ONCE_INIT;

static void exit_while_loading(void)
{
	if (loading)
		_kbx_nomem_fatal(loading_what);
}

static void exit_hook(void)
{
	atexit(exit_while_loading);
}

/* A C++ static initializer of the module whose allocation throws ends
 * in std::terminate, that is abort(): the same, while loading. */
static void abort_while_loading(int sig)
{
	(void)sig;
	if (loading)
		_kbx_nomem_fatal(loading_what);
	signal(SIGABRT, SIG_DFL);
	raise(SIGABRT);
}

/*
 * What glibc's loader says when an allocation of its own was refused:
 * most of its messages for ENOMEM carry no strerror() of it, and a
 * module that is there is then as good as missing to a caller that
 * cannot tell them apart.
 */
static const char *const loader_nomem[] = {
	"cannot create shared object descriptor",
	"cannot allocate dependency",
	"cannot allocate symbol search list",
	"cannot allocate version reference table",
	"cannot create cache for search path",
	"cannot create RUNPATH/RPATH copy",
	"cannot create searchlist",
	"cannot create scope list",
	"cannot extend global scope",
	"cannot create TLS data structures",
	"out of memory",
};

static int loader_out_of_memory(const char *msg)
{
	if (!msg)
		return 0;
	if (strstr(msg, strerror(ENOMEM)))
		return 1;
	for (size_t i = 0; i < sizeof(loader_nomem) / sizeof(*loader_nomem); i++)
		if (strstr(msg, loader_nomem[i]))
			return 1;
	return 0;
}

static int open_file(const char *what, const char *file, const char *symbol, void **sym,
		     char *err, size_t errsz)
{
	pthread_once(&exit_hook_once, exit_hook);
	dlerror();
	snprintf(loading_what, sizeof(loading_what), "loading the %s", what);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = abort_while_loading;
	sigemptyset(&sa.sa_mask);
	int hooked = sigaction(SIGABRT, &sa, &old) == 0;
	loading = 1;
	void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	loading = 0;
	if (hooked)
		sigaction(SIGABRT, &old, NULL);
	if (!handle) {
		const char *msg = dlerror();
		int nomem = loader_out_of_memory(msg);
		struct stat st;
		/* glibc says a file it could not open for want of memory (a
		 * copy of its name refused) is not there: one that is there
		 * after all is memory running out too */
		int gone = msg && strstr(msg, strerror(ENOENT));
		if (!nomem && gone && stat(file, &st) == 0)
			nomem = 1;
		snprintf(err, errsz, "cannot load %s '%s': %s%s", what, file,
			 msg ? msg : "unknown dynamic loader error",
			 nomem && gone ? " (though it is there: out of memory)" : "");
		/* the loader ran out of memory: counted as kbx's own refusals
		 * are, so that no command goes on as if the module were
		 * missing (exit 9), and the caller's to say as such */
		if (nomem)
			_kbx_nomem();
		return nomem ? -2 : -1;
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
