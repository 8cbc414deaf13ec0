#!/bin/sh
test_description='C macros: nodes of kind macro, and the queries that go through them

A #define with a value or parameters is a macro node; a call of its
name is an edge to it, and the calls in its value are its own.  kbx
callers and callees, defines, dead, the output formats and the symbol
completion handle the kind (kbx-graph(7) NODES, LANGUAGES).'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a C repository that calls through macros' '
	git init -q repo &&
	mkdir -p repo/src &&
	cat >repo/src/table.h <<-\EOF &&
	#ifndef TABLE_H
	#define TABLE_H

	int table_lookup(int t, int k);

	#define GET(t, k) table_lookup((t), (k))
	#define GET_TWICE(t, k) (GET(t, k) + GET(t, k))
	#define TOUCH(x) do { note(x); } while (0)
	#define TABLE_SLOTS 16

	#endif
	EOF
	cat >repo/src/table.c <<-\EOF &&
	#include "table.h"

	static void note(int x)
	{
		(void)x;
	}

	int table_lookup(int t, int k)
	{
		return (t + k) % TABLE_SLOTS;
	}

	int table_use(int t)
	{
		TOUCH(t);
		return GET_TWICE(t, 1);
	}
	EOF
	(cd repo && kbx index -q)
'

test_expect_success 'a macro is defined in its header, an include guard is not' '
	(cd repo && kbx defines --format=json src/table.h) >out &&
	test_grep "\"id\":\"src/table.h#GET\",.*\"kind\":\"macro\"" out &&
	test_grep "\"id\":\"src/table.h#TABLE_SLOTS\",.*\"kind\":\"macro\"" out &&
	! grep -F "TABLE_H" out
'

test_expect_success 'kbx callers goes through the macros that call a function' '
	(cd repo && kbx callers --depth=3 table_lookup) >out &&
	test_grep "GET (macro)" out &&
	test_grep "GET_TWICE (macro)" out &&
	test_grep "table_use (function)" out
'

test_expect_success 'kbx callees of a macro: the calls in its value' '
	(cd repo && kbx callees --format=json GET_TWICE) >out &&
	test_grep "\"id\":\"src/table.h#GET\",.*\"confidence\":\"certain\"" out &&
	(cd repo && kbx callees --format=json TOUCH) >out &&
	test_grep "\"id\":\"src/table.c#note\",.*\"confidence\":\"certain\"" out
'

test_expect_success 'a static function only a macro calls is called, not merely named' '
	(cd repo && test_expect_code 1 kbx dead --explain) >out 2>err &&
	test_grep "table_use" out &&
	! grep -F "note" out &&
	(cd repo && kbx dead --include-exported) >out 2>err &&
	test_grep "table_use" out &&
	! grep -F "TABLE_SLOTS" out &&
	! grep -F "GET" out
'

test_expect_success 'the grep format places the macro' '
	(cd repo && kbx callers --format=grep table_lookup) >out &&
	test_grep "^src/table.h:6:" out
'

test_expect_success 'complete-symbols lists macros by kind' '
	(cd repo && kbx complete-symbols --kind=macro) >out &&
	test_grep "GET_TWICE" out &&
	! grep -F "table_use" out
'

test_done
