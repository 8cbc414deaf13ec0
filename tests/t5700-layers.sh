#!/bin/sh
test_description='kbx'"'"'s own lib/ is arranged by layer, and kbx check says so

The layers and their order are in .kbx-rules.yml at the top of the tree
(the README'"'"'s "The tree" describes them): a folder of lib/ includes
only from the folders below it, and lib/ never includes cmd/.  kbx
indexes a copy of its own lib/ and cmd/ and checks those rules; then a
lower layer that includes a higher one, lib/ including cmd/, and an
include cycle must each fail the check.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'setup: a copy of kbx'"'"'s lib/ and cmd/, indexed' '
	mkdir src &&
	cp -R "$KBX_SRC/lib" "$KBX_SRC/cmd" "$KBX_SRC/.kbx-rules.yml" src/ &&
	git init -q src &&
	(cd src && kbx index -q)
'

test_expect_success 'the layers hold: kbx check passes' '
	(cd src && kbx check --strict) >out &&
	test_grep "0 failed" out &&
	test_grep "^ok   util-is-the-bottom" out &&
	test_grep "^ok   no-include-cycles" out
'

test_expect_success 'every folder of lib/ is a layer of the rules and of the Makefile' '
	(cd "$KBX_SRC/lib" && ls -d */ | tr -d / | sort) >folders &&
	sed -n "s/^  - id: util-is-the-bottom//p" "$KBX_SRC/.kbx-rules.yml" >/dev/null &&
	sed -n "/id: util-is-the-bottom/,/via:/p" "$KBX_SRC/.kbx-rules.yml" |
		grep -o "lib/[a-z]*/" | sed "s|lib/||; s|/||" >ruled &&
	echo util >>ruled &&
	sort -u ruled >ruled.sorted &&
	test_cmp folders ruled.sorted &&
	sed -n "s/^LIB_LAYERS := //p" "$KBX_SRC/Makefile" | tr " " "\n" | sort >made &&
	grep -v "^vector\$" folders >built &&
	test_cmp built made
'

# break FILE FROM-LINE NEW-LINE: a copy of kbx's FILE in src/ with
# NEW-LINE added after FROM-LINE, indexed (put back by unbreak FILE)
break_copy () {
	sed "s|^$2\$|&\n$3|" "$KBX_SRC/$1" >"src/$1" &&
	! cmp -s "$KBX_SRC/$1" "src/$1" &&
	(cd src && kbx index -q)
}
unbreak () {
	cp "$KBX_SRC/$1" "src/$1" && (cd src && kbx index -q)
}

test_expect_success 'a lower layer that includes a higher one fails the check' '
	test_when_finished "unbreak lib/util/util.c" &&
	break_copy lib/util/util.c "#include \"util/util.h\"" "#include \"graph/graph.h\"" &&
	(cd src && test_expect_code 10 kbx check --strict) >out &&
	test_grep "^FAIL util-is-the-bottom" out &&
	test_grep "lib/util/util.c:[0-9]*: error: lib/util/util.c imports lib/graph/graph.h" out
'

test_expect_success 'lib/ that includes cmd/ fails the check' '
	test_when_finished "unbreak lib/store/store.c" &&
	break_copy lib/store/store.c "#include \"store/store.h\"" "#include \"builtin.h\"" &&
	(cd src && test_expect_code 10 kbx check --strict) >out &&
	test_grep "^FAIL lib-never-includes-cmd" out &&
	test_grep "lib/store/store.c:[0-9]*: error: lib/store/store.c may import cmd/builtin.h" out
'

test_expect_success 'an include cycle fails the check' '
	test_when_finished "unbreak lib/util/strbuf.h" &&
	break_copy lib/util/strbuf.h "#define KBX_STRBUF_H" "#include \"util/quote.h\"" &&
	(cd src && test_expect_code 10 kbx check --strict) >out &&
	test_grep "^FAIL no-include-cycles" out
'

test_done
