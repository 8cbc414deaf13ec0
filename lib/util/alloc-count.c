/*
 * kbx's own calls of malloc, calloc, realloc, strdup and strndup are
 * linked through these (-Wl,--wrap, ALLOC_WRAP in the Makefile): a
 * refusal is counted (_kbx_nomem, util.h) wherever it happens, also
 * where the code that asked goes on without the memory (a path printed
 * as null, a cache left empty).  kbx's main() then ends with out of
 * memory (exit 9), never with exit 0 and an answer that may be short;
 * an index run that counted one does not commit.
 *
 * In an object of its own: a program that refuses allocations on
 * purpose (tests/unit/index-nomem) defines these itself.
 */
#include <stddef.h>

#include "util/alloc-wrap.h"
#include "util/util.h"

void *__wrap_malloc(size_t n)
{
	void *p = __real_malloc(n);
	if (!p && n)
		_kbx_nomem();
	return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p = __real_calloc(n, size);
	if (!p && n && size)
		_kbx_nomem();
	return p;
}

void *__wrap_realloc(void *old, size_t n)
{
	void *p = __real_realloc(old, n);
	if (!p && n)
		_kbx_nomem();
	return p;
}

char *__wrap_strdup(const char *s)
{
	char *p = __real_strdup(s);
	if (!p)
		_kbx_nomem();
	return p;
}

char *__wrap_strndup(const char *s, size_t n)
{
	char *p = __real_strndup(s, n);
	if (!p)
		_kbx_nomem();
	return p;
}
