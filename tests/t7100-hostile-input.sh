#!/bin/sh
test_description='hostile input: source files and query arguments built to hurt

The corpus comes from tests/hostile/make-corpus.sh, written at test time:
10,000-deep nesting of every kind in every language, invalid UTF-8, NUL
bytes, a 5 MB single line, a generated parser of several MB, every
extension holding every other language, and odd small files (see the
script).  KBX_TEST_LONG=1 makes the lines 100 MB and the nesting
100,000 deep.

kbx index must finish, index every file or skip it with a note (binary,
too big, parse time limit), index the ordinary files among them, and
never crash; the figures it prints are its time and the biggest files.
Then every query command gets arguments that are empty, huge (the
largest one argument the kernel passes, 128 KB, and eight of them for
defs), binary, or not a symbol at all: each must be a clear error with
exit code 2, or a plain "not found" (1) for a well-formed name that is
not there, and never a crash.'

. "$(dirname "$0")"/test-lib.sh

long=
test_have_prereq EXPENSIVE && long=--long

test_expect_success 'setup: the hostile corpus' '
	git init -q repo &&
	"$TEST_DIRECTORY"/hostile/make-corpus.sh $long repo &&
	(cd repo && find . -path ./.git -prune -o -type f -print | sed "s|^\./||" | sort) >all-files &&
	test_line_count -gt 300 all-files
'

test_expect_success 'kbx index goes through the whole corpus' '
	start=$(date +%s) &&
	timeout 600 kbx -C repo index --max-file-size=200m 2>err &&
	end=$(date +%s) &&
	cat err >&3 &&
	printf "# the hostile corpus (%s files, %s KB) indexed in %s s\n" \
		$(wc -l <all-files) $(du -sk repo | cut -f1) $((end - start)) >&5 &&
	test_grep "^indexed " err
'

test_expect_success 'every file is indexed or skipped with a note' '
	for top in canary deep/ utf8/ nul/ longline/ generated/ mixed/ odd/
	do
		code=0 &&
		{ kbx -C repo complete-symbols --kind=file --max=0 --prefix=$top ||
			code=$?; } &&
		test $code -le 1 || return 1
	done >out &&
	sort out >indexed &&
	sed -n "s/^note: skipped .\(.*\).: .*/\1/p" err | sort >skipped &&
	sort -u indexed skipped >accounted &&
	comm -23 all-files accounted >unaccounted &&
	test_must_be_empty unaccounted &&
	sed -n "s/^note: skipped/# skipped/p" err >&5
'

test_expect_success 'the ordinary parts are indexed' '
	kbx -C repo defs --format=nul canary helper >/dev/null &&
	kbx -C repo callees --format=nul canary >callees &&
	printf "canary.py#helper\0" >expect &&
	test_cmp expect callees &&
	kbx -C repo defs --format=nul after_nul after_long_name after_long_string \
		late0 late399 cr_only crlf unterminated lone >/dev/null &&
	test_grep "skipped .nul/early.py.: binary file" err
'

test_expect_success 'definitions nested 10,000 deep are kept to a sane depth' '
	kbx -C repo defines --format=nul deep/namespaces.cpp >top &&
	test_file_not_empty top &&
	kbx -C repo status --format=json >status.json &&
	cat status.json >&3
'

test_expect_success 'queries over the hostile index answer and stay valid JSON' '
	for q in "callers f" "callees f" "defs f" "defines deep/classes.java" \
		"subclasses A" "superclasses K" "imports mixed/py-as.rs" \
		"importers os"
	do
		code=0 &&
		{ kbx -C repo $q --format=json >out 2>qerr || code=$?; } &&
		case $code in
		0|1) : ;;
		*) echo "kbx $q: exit $code" >&4 && return 1 ;;
		esac || return 1
	done
'

# A file skipped at the parse time limit (wall-clock time: it happens to
# the 5 MB line on a busy machine) is not recorded, so it is tried again.
test_expect_success 'a second run over the unchanged corpus parses nothing new' '
	kbx -C repo index --max-file-size=200m --format=json >again.json 2>/dev/null &&
	slow=$(($(sed -n "/parsing took longer/p" err | wc -l))) &&
	test_grep "\"parsed\":$slow," again.json
'

test_expect_success 'the same corpus under the default size limit' '
	KBX_DIR="$PWD/limited" kbx -C repo index 2>err2 &&
	test_grep "skipped .longline/minified.js.: larger than the size limit" err2 &&
	test_grep "skipped .generated/parser.c.: larger than the size limit" err2
'

# query_must_refuse CODE CMD SYMBOL...: kbx CMD -- SYMBOL... exits CODE
# with an error line
query_must_refuse () {
	want=$1 cmd=$2
	shift 2
	test_expect_code "$want" kbx -C repo "$cmd" -- "$@" >qout 2>qerr &&
	test_must_be_empty qout &&
	test_grep "^error: " qerr
}

test_expect_success 'empty, unparsable and binary symbols: exit 2 and a clear error' '
	for cmd in callers callees defs defines imports importers subclasses superclasses
	do
		query_must_refuse 2 $cmd "" &&
		test_grep "empty symbol" qerr &&
		query_must_refuse 2 $cmd "$(printf "a\001b")" &&
		test_grep "control character" qerr &&
		query_must_refuse 2 $cmd "$(printf "\033[31mred")" &&
		query_must_refuse 2 $cmd "$(printf "tab\there")" &&
		for bad in "." ".." "a..b" "::a" "a::" "a->" "->b" "../x" "#" "#f" \
			"canary.py#" "a.#"
		do
			query_must_refuse 2 $cmd "$bad" &&
			test_grep "cannot parse symbol" qerr || return 1
		done || return 1
	done
'

test_expect_success 'huge symbols: exit 2, never a crash' '
	big=$(awk "BEGIN { for (i = 0; i < 131000; i++) printf \"a\" }") &&
	dots=$(awk "BEGIN { for (i = 0; i < 65000; i++) printf \"a.\" }") &&
	for cmd in callers callees defs defines imports importers subclasses superclasses
	do
		query_must_refuse 2 $cmd "$big" &&
		test_grep "longer than" qerr &&
		query_must_refuse 2 $cmd "${dots}x" || return 1
	done &&
	query_must_refuse 2 defs "$big" "$big" "$big" "$big" "$big" "$big" "$big" "$big" &&
	test_expect_code 1 kbx -C repo complete-symbols --prefix="$big" >out &&
	test_must_be_empty out
'

test_expect_success 'well-formed names that are not there: exit 1' '
	for sym in "$(printf "\377\376")" "no_such_name" "a b" "foo(" "*" "x#y" \
		"extern:" "/etc/passwd" "pkg//m.py"
	do
		test_expect_code 1 kbx -C repo callers "$sym" >out 2>qerr &&
		test_must_be_empty out &&
		test_grep "^error: no symbol" qerr || return 1
	done
'

test_expect_success 'options with hostile values' '
	test_expect_code 2 kbx -C repo callers --depth=-1 canary 2>qerr &&
	test_expect_code 2 kbx -C repo callers --depth=99999999999999999999999 canary 2>qerr &&
	test_expect_code 2 kbx -C repo callers --format="$(printf "\377")" canary 2>qerr &&
	test_expect_code 2 kbx -C repo callers --format-version=-7 canary 2>qerr &&
	test_expect_code 2 kbx -C repo index --max-file-size=-1 2>qerr &&
	test_expect_code 2 kbx -C repo index --threads=99999 2>qerr &&
	kbx -C repo callers --depth=2147483647 helper >out
'

test_done
