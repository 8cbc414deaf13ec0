/*
 * The grammars' hand-written scanners allocate with malloc, calloc and
 * realloc, and some use what those return without a look: where memory
 * runs out, kbx would crash inside a scanner.  Their objects are built
 * with those names, and free, renamed to these (objcopy --redefine-sym,
 * in the Makefile), which go to tree-sitter's allocator.  kbx gives
 * tree-sitter one that says "out of memory" and exits with status 9,
 * the run having committed nothing (cmd/kbx.c).
 */
#include <stddef.h>

extern void *(*ts_current_malloc)(size_t);
extern void *(*ts_current_calloc)(size_t, size_t);
extern void *(*ts_current_realloc)(void *, size_t);
extern void (*ts_current_free)(void *);

void *_kbx_scanner_malloc(size_t n);
void *_kbx_scanner_calloc(size_t n, size_t size);
void *_kbx_scanner_realloc(void *p, size_t n);
void _kbx_scanner_free(void *p);

void *_kbx_scanner_malloc(size_t n)
{
	return ts_current_malloc(n);
}

void *_kbx_scanner_calloc(size_t n, size_t size)
{
	return ts_current_calloc(n, size);
}

void *_kbx_scanner_realloc(void *p, size_t n)
{
	return ts_current_realloc(p, n);
}

void _kbx_scanner_free(void *p)
{
	ts_current_free(p);
}
