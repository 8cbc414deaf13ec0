#ifndef KBX_UTIL_ALLOC_WRAP_H
#define KBX_UTIL_ALLOC_WRAP_H
/*
 * The allocation functions as a program linked with ALLOC_WRAP (the
 * Makefile's -Wl,--wrap) sees them: its calls of malloc go to
 * __wrap_malloc, which lib/util/alloc-count.c defines (or a test that
 * refuses allocations on purpose), and __real_malloc is the C
 * library's.
 */
#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

#endif
