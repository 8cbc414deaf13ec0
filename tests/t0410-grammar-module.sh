#!/bin/sh

test_description='the grammar module and how kbx reaches it

kbx does not link the tree-sitter grammars: their tables of names hold
some 10,000 pointers that the dynamic loader would relocate at the start
of every command.  build/kbx-grammars.so holds them and exports one
symbol, its table.  A command that parses (index, changed) loads it and
says what is wrong when it cannot; a query never looks for it.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq NM '
	nm "$KBX_SRC/kbx" >syms &&
	grep " main$" syms
'
test_lazy_prereq CC '
	cc --version
'

test_expect_success 'setup: a small C repository, indexed' '
	mkdir repo &&
	printf "int f(void) { return 1; }\nint g(void) { return f(); }\n" >repo/a.c &&
	(cd repo && kbx index -q)
'

test_expect_success NM 'kbx holds no grammar, the module its table alone' '
	nm "$KBX_SRC/kbx" >syms &&
	! grep -E " tree_sitter_(c|python|rust)$" syms &&
	grep " ts_parser_new$" syms &&
	nm -D --defined-only "$KBX_GRAMMARS_PATH" | awk "{ print \$3 }" >actual &&
	echo _kbx_grammar_table >expect &&
	test_cmp expect actual
'

test_expect_success 'a query does not look for the module' '
	(cd repo && KBX_GRAMMARS_PATH=$TRASH_DIRECTORY/none kbx callers f >../out) &&
	test_grep "a.c:2 *g (function)" out &&
	(cd repo && KBX_GRAMMARS_PATH=$TRASH_DIRECTORY/none kbx search "return one" >../out) &&
	test_grep "a.c" out
'

test_expect_success 'kbx index without the module says so, and leaves the index' '
	echo "int h(void) { return g(); }" >>repo/a.c &&
	(cd repo && test_must_fail env KBX_GRAMMARS_PATH="$TRASH_DIRECTORY/none" \
		kbx index 2>../err) &&
	test_grep "grammar module not found: KBX_GRAMMARS_PATH names .*/none" err &&
	test_grep "previous index is unchanged" err &&
	test_grep ! "parsing took" err &&
	(cd repo && kbx callers g >../out 2>&1 || :) &&
	test_grep ! "h (function)" out
'

test_expect_success 'kbx changed without the module says so' '
	(cd repo && test_must_fail env KBX_GRAMMARS_PATH="$TRASH_DIRECTORY/none" \
		kbx changed 2>../err) &&
	test_grep "grammar module not found" err
'

test_expect_success 'a file that is not the module is named' '
	echo junk >junk.so &&
	(cd repo && test_must_fail env KBX_GRAMMARS_PATH="$TRASH_DIRECTORY/junk.so" \
		kbx index 2>../err) &&
	test_grep "junk.so" err &&
	(cd repo && test_must_fail env KBX_GRAMMARS_PATH="$KBX_MODULE_PATH" kbx index 2>../err) &&
	test_grep "is not a kbx grammar module: .*_kbx_grammar_table" err
'

test_expect_success 'beside the program, found without KBX_GRAMMARS_PATH' '
	(cd repo && unset KBX_GRAMMARS_PATH && kbx index -q && kbx callers g >../out) &&
	test_grep "a.c:3 *h (function)" out
'

# A table as another kbx would lay it out: grammars.h's struct.
write_table () {
	cat >other.c <<-EOF
	#include <stddef.h>
	#include <stdint.h>
	static void use(void *a, void *b, void *c, void *d)
	{
		(void)a; (void)b; (void)c; (void)d;
	}
	const struct {
		uint32_t abi, n;
		const char *lock;
		void (*use)(void *, void *, void *, void *);
		const void *grammars;
	} _kbx_grammar_table = { $1, 0, "$2", use, NULL };
	EOF
	cc -shared -fPIC -o other.so other.c
}

test_expect_success CC 'a module built from other grammars is refused' '
	write_table 1 0000000000000000 &&
	(cd repo && test_must_fail env KBX_GRAMMARS_PATH="$TRASH_DIRECTORY/other.so" \
		kbx index 2>../err) &&
	test_grep "other.so. was built from other grammars (0000000000000000)" err
'

test_expect_success CC 'a module of another table layout is refused' '
	write_table 2 0000000000000000 &&
	(cd repo && test_must_fail env KBX_GRAMMARS_PATH="$TRASH_DIRECTORY/other.so" \
		kbx index 2>../err) &&
	test_grep "has table layout 2, this kbx reads 1" err
'

test_done
