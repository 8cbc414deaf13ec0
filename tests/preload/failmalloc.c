/*
 * LD_PRELOAD library for tests/t7065: the process's malloc, calloc and
 * realloc (glibc's, through __libc_*) with the Nth call refused.
 *
 *   FAILMALLOC_AFTER=N   N calls succeed, then the next one fails
 *   FAILMALLOC_ONCE=1    only that one fails; without it, every later one
 *   FAILMALLOC_REPORT=1  print "allocations K" on stderr at exit
 *
 * Unlike tests/unit/index-nomem, which refuses only kbx's own calls,
 * this refuses the C library's too (opendir, stdio), and works on the
 * kbx binary as a user runs it.  Not for a sanitizer build, whose
 * runtime must come first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static long left = -1;
static int once, ready;
static unsigned long made;

static void setup(void)
{
	const char *e = getenv("FAILMALLOC_AFTER");
	ready = 1;
	if (e && *e)
		left = atol(e);
	once = getenv("FAILMALLOC_ONCE") != NULL;
}

static int allowed(void)
{
	if (!ready)
		setup();
	made++;
	if (left < 0)
		return 1;
	if (left > 0) {
		left--;
		return 1;
	}
	if (once)
		left = -1;
	errno = ENOMEM;
	return 0;
}

void *malloc(size_t n)
{
	return allowed() ? __libc_malloc(n) : NULL;
}

void *calloc(size_t n, size_t size)
{
	return allowed() ? __libc_calloc(n, size) : NULL;
}

void *realloc(void *p, size_t n)
{
	return allowed() ? __libc_realloc(p, n) : NULL;
}

__attribute__((destructor)) static void report(void)
{
	if (getenv("FAILMALLOC_REPORT")) {
		char b[64];
		int n = snprintf(b, sizeof(b), "allocations %lu\n", made);
		if (n > 0 && write(2, b, (size_t)n) < 0) {
			/* nothing to do */
		}
	}
}
