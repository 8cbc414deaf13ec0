#ifndef UTIL_H
#define UTIL_H

#include <stddef.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline size_t clamp_size(size_t n, size_t max)
{
	return n > max ? max : n;
}

void *xmalloc(size_t n);
char *xstrdup(const char *s);

#endif
