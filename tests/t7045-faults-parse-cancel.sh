#!/bin/sh
test_description='faults: a parse cancelled at any moment does not crash kbx

kbx ends a parse that runs past index.parseTimeout by cancelling it
(its CPU watchdog sets tree-sitter'"'"'s cancellation flag).  Debian 12'"'"'s
libtree-sitter 0.20.7 crashed (SIGSEGV) when the cancellation came while
the parser held no lookahead token, at the end of a grammar'"'"'s non-terminal
extra; kbx builds that library from its source with a fix
(grammars/patches/tree-sitter-0.20.7.patch).  The Dart file here is the
input fuzzing found (tests/fuzz/regressions/extract/dart-cancelled-parse,
less its first byte, which picks the language): its parse takes minutes,
and with the unfixed library about one run in five crashed, the moment
of the cancellation varying from run to run.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'setup: a Dart file whose parse is cancelled' '
	git init -q repo &&
	tail -c +2 "$KBX_SRC/tests/fuzz/regressions/extract/dart-cancelled-parse" \
		>repo/slow.dart &&
	echo "int small() => 1;" >repo/small.dart
'

test_expect_success 'forty cancelled parses, at 1 to 40 ms: no crash, the rest indexed' '
	n=1 &&
	while test $n -le 40
	do
		kbx -C repo -c index.parseTimeout=$n index --rebuild --only=code 2>err ||
		{ echo "kbx index with parseTimeout=$n exited $?" && cat err && return 1; }
		test_grep "skipped .slow.dart." err &&
		n=$((n + 1)) || return 1
	done &&
	kbx -C repo defs small >out &&
	test_grep small.dart out
'

test_done
