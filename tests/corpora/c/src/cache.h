/* Macros as a C library writes them: calls through them reach the
 * functions their values call. */
#ifndef CACHE_H
#define CACHE_H

#include <stddef.h>

#include "util.h"

/* allocates with xmalloc (util.c) */
#define CACHE_NEW(T) ((T *)xmalloc(sizeof(T)))
/* one macro through another */
#define CACHE_NEW_ZERO(T) cache_zero(CACHE_NEW(T), sizeof(T))
/* a value that is not C until it is expanded (`if c` takes the
 * parentheses of its argument) */
#define CACHE_CHECK(c, msg) { if c cache_fail(msg); }
/* calls what the file that includes it defines for itself */
#define CACHE_LOG(msg) cache_note(msg)
/* a constant, which no call names */
#define CACHE_SLOTS 64

void *cache_zero(void *p, size_t n);

#endif
