#include <stdlib.h>
#include <string.h>

#include "kv/store.h"
#include "util.h"

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		fatal("out of memory allocating %zu bytes", n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t len = strlen(s);
	char *copy = xmalloc(len + 1);
	memcpy(copy, s, len + 1);
	return copy;
}
