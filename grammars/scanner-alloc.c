/*
 * The grammars' hand-written scanners allocate with malloc, calloc and
 * realloc, and some use what those return without a look: where memory
 * runs out, kbx would crash inside a scanner.  Their objects are built
 * with those names, and free, renamed to these (objcopy --redefine-sym,
 * in the Makefile), which go to the functions kbx gives when it loads
 * the grammars (lib/lang/grammars.c): tree-sitter's allocator, which
 * says "out of memory" and exits with status 9, the run having
 * committed nothing (cmd/kbx.c).  The grammars may be in a module of
 * their own (kbx-grammars.so), which cannot see kbx's symbols: hence
 * functions given, not names looked up.
 */
#include <stddef.h>
#include <stdlib.h>

void *_kbx_scanner_malloc(size_t n);
void *_kbx_scanner_calloc(size_t n, size_t size);
void *_kbx_scanner_realloc(void *p, size_t n);
void _kbx_scanner_free(void *p);
void _kbx_scanner_use(void *(*malloc_fn)(size_t), void *(*calloc_fn)(size_t, size_t),
		      void *(*realloc_fn)(void *, size_t), void (*free_fn)(void *));

/* Until kbx says otherwise, the C library's (a scanner runs only after
 * the grammars are loaded, which says). */
static void *(*use_malloc)(size_t) = malloc;
static void *(*use_calloc)(size_t, size_t) = calloc;
static void *(*use_realloc)(void *, size_t) = realloc;
static void (*use_free)(void *) = free;

void _kbx_scanner_use(void *(*malloc_fn)(size_t), void *(*calloc_fn)(size_t, size_t),
		      void *(*realloc_fn)(void *, size_t), void (*free_fn)(void *))
{
	use_malloc = malloc_fn;
	use_calloc = calloc_fn;
	use_realloc = realloc_fn;
	use_free = free_fn;
}

void *_kbx_scanner_malloc(size_t n)
{
	return use_malloc(n);
}

void *_kbx_scanner_calloc(size_t n, size_t size)
{
	return use_calloc(n, size);
}

void *_kbx_scanner_realloc(void *p, size_t n)
{
	return use_realloc(p, n);
}

void _kbx_scanner_free(void *p)
{
	use_free(p);
}
