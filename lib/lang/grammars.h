/*
 * The tree-sitter grammars, which only the commands that parse need
 * (kbx index, watch, changed, and what indexes for them): linked into
 * kbx-grammars.so, which kbx loads on the first parse, and not into the
 * kbx binary.  Their tables of names hold some 10,000 pointers, which the
 * dynamic loader would otherwise relocate at every start of every
 * command, a query's included (kbx callers: 29 page faults of 190, 5% of
 * its time).
 *
 * A program that links the grammars itself (the unit tests, the
 * fuzzers, and the module) links build/ts/grammar-table.o, which
 * defines _kbx_grammar_table, and the module is never looked for.
 */
#ifndef KBX_LANG_GRAMMARS_H
#define KBX_LANG_GRAMMARS_H

#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#include "kbx.h"

#define KBX_GRAMMARS_MODULE_FILE "kbx-grammars.so"
#define KBX_GRAMMARS_MODULE_SYMBOL "_kbx_grammar_table"
/* The table's layout; a module of another layout is refused. */
#define KBX_GRAMMARS_ABI 1

struct kbx_grammar {
	const char *name;                       /* "tree_sitter_c" */
	const TSLanguage *(*language)(void);
};

struct kbx_grammar_table {
	uint32_t abi;                           /* KBX_GRAMMARS_ABI */
	uint32_t n;
	/* the grammars.lock they were built from (kbx-grammars.h's
	 * KBX_GRAMMARS_LOCK): lib/lang/ is written against those versions */
	const char *lock;
	/* the allocator the hand-written scanners are to use: the one kbx
	 * gave tree-sitter (grammars/scanner-alloc.c) */
	void (*use_allocator)(void *(*malloc_fn)(size_t), void *(*calloc_fn)(size_t, size_t),
			      void *(*realloc_fn)(void *, size_t), void (*free_fn)(void *));
	const struct kbx_grammar *grammars;
};

/* Load the grammars once (the table linked in, else the module:
 * KBX_GRAMMARS_PATH, build/ beside the program, the module directory).
 * 0, or -1 with a message that says what to do, or -2 when memory ran
 * out while loading.  Thread-safe. */
int _kbx_grammars_load(char *err, size_t errsz);

/* The same for a command about to parse: KBX_OK, or the message with
 * KBX_ERR_NOMEM when memory ran out while loading, else KBX_ERR_IO. */
kbx_status_t _kbx_grammars_need(struct kbx_error *err);

/* The grammar whose entry point is name, NULL when it is not there or
 * the grammars could not be loaded (_kbx_grammars_load says why). */
const TSLanguage *_kbx_grammar(const char *name);

/* A language's entry point for struct kbx_lang's grammar: defines
 * kbx_<fn>(), which finds fn among the loaded grammars. */
#define KBX_GRAMMAR(fn)                                   \
	static const TSLanguage *kbx_##fn(void)           \
	{                                                 \
		return _kbx_grammar(#fn);                 \
	}

#endif
