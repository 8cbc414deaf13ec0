#!/bin/sh
test_description='kbx search: a C function takes the comment of its declaration

C and C++ document a function where it is declared, often in a header,
and its definition has no comment of its own.  The code chunk of such a
definition takes the comment above its declaration: in its own file, in
a header it includes, or in one those include, up to four levels down.
A definition with its own comment keeps it alone.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a C repository whose comments are in headers' '
	git init -q repo &&
	mkdir -p repo/include repo/src &&
	cat >repo/include/api.h <<-\EOF &&
	#ifndef API_H
	#define API_H
	/* Turn a quantity like 10k or 3m into bytes, with a
	 * kilo mega or giga multiplier. */
	int measure_amount(const char *text, long *out);

	/* Hand back the pebble count of the quarry. */
	int own_comment(void);
	#endif
	EOF
	cat >repo/include/wrap.h <<-\EOF &&
	#include "api.h"
	#include "level2.h"
	/* Weave the tapestry of lanterns together. */
	void stitch(int n);
	EOF
	# a library header reached through three others: level2.h,
	# level3.h, base.h (four includes away from impl.c)
	echo "#include \"level3.h\"" >repo/include/level2.h &&
	echo "#include \"base.h\"" >repo/include/level3.h &&
	cat >repo/include/base.h <<-\EOF &&
	/* Count the lighthouses along the fjord. */
	int beacons(void);
	EOF
	cat >repo/src/impl.c <<-\EOF &&
	#include "../include/wrap.h"

	/* Polish the marble before sunset. */
	static int hidden(int x);

	int measure_amount(const char *text, long *out)
	{
		*out = text[0];
		return 0;
	}

	void stitch(int n)
	{
		(void)n;
	}

	/* Count every gravel grain twice. */
	int own_comment(void)
	{
		return 1;
	}

	static int hidden(int x)
	{
		return x + 1;
	}

	int beacons(void)
	{
		return 2;
	}
	EOF
	(cd repo && kbx index -q)
'

# the id of the first code hit for a query
first_code () {
	(cd repo && kbx search --type=code --mode=lexical --format=json --limit=1 "$1") |
		sed -n "s/.*\"id\":\"\\([^\"]*\\)\".*/\\1/p"
}

test_expect_success 'a definition takes the comment of its declaration in a header two includes away' '
	echo "src/impl.c#measure_amount" >expect &&
	first_code "kilo mega giga multiplier" >actual &&
	test_cmp expect actual
'

test_expect_success 'and of one in the header it includes' '
	echo "src/impl.c#stitch" >expect &&
	first_code "tapestry of lanterns" >actual &&
	test_cmp expect actual
'

test_expect_success 'and of one four includes away' '
	echo "src/impl.c#beacons" >expect &&
	first_code "lighthouses fjord" >actual &&
	test_cmp expect actual
'

test_expect_success 'and of a forward declaration in its own file' '
	echo "src/impl.c#hidden" >expect &&
	first_code "polish marble sunset" >actual &&
	test_cmp expect actual
'

test_expect_success 'a definition with a comment of its own keeps it alone' '
	echo "src/impl.c#own_comment" >expect &&
	first_code "gravel grain" >actual &&
	test_cmp expect actual &&
	(cd repo && test_expect_code 1 kbx search --type=code --mode=lexical --format=json "pebble quarry")
'

test_expect_success 'the hit shows the definition, the comment is after its lines' '
	(cd repo && kbx search --type=code --mode=lexical --format=json --limit=1 "kilo mega giga") >hit &&
	test_grep "\"line\":6," hit &&
	test_grep "\"text\":\"int measure_amount" hit
'

test_done
