#!/bin/sh

test_description='the test library and the test runner

Checks that the helpers of test-lib.sh pass what they should and, more
to the point, fail what they should: failing tests, crashes by signal,
commands that cannot run, sanitizer reports, broken && chains.  Most
checks run a small nested test script in a directory of its own and
look at its TAP, its stderr and its exit code.  Nothing here needs the
kbx binary.'

. "$(dirname "$0")"/test-lib.sh

# run_sub_test NAME [OPTION...] <SCRIPT-BODY
#
# Write NAME/tests/NAME.sh (a test_description, ". ./test-lib.sh", then
# the body read from stdin) next to a copy of test-lib.sh, run it from
# NAME/tests with OPTIONs, and leave its stdout in NAME/out, stderr in
# NAME/err and exit code in NAME/code.  NAME must look like t9xxx-what.
run_sub_test () {
	sub_name=$1 &&
	shift &&
	mkdir -p "$sub_name/tests" &&
	cp "$TEST_DIRECTORY/test-lib.sh" "$sub_name/tests/" &&
	{
		echo "test_description='nested test $sub_name'" &&
		echo ". ./test-lib.sh" &&
		cat
	} >"$sub_name/tests/$sub_name.sh" &&
	(
		cd "$sub_name/tests" &&
		{
			"$TEST_SHELL_PATH" "./$sub_name.sh" "$@" \
				>../out 2>../err </dev/null
			echo $? >../code
		}
	)
}

# check_sub_code NAME N: the nested script NAME exited with N.
check_sub_code () {
	echo "$2" >"$1/code.expect" &&
	test_cmp "$1/code.expect" "$1/code"
}

# sub_trash NAME: the trash directory of nested script NAME.
sub_trash () {
	echo "$1/tests/trash directory.$1"
}

test_expect_success 'a passing test passes' '
	true
'

test_expect_success 'tests run in the trash directory, which is also HOME' '
	test "$(pwd)" = "$TRASH_DIRECTORY" &&
	test "$HOME" = "$TRASH_DIRECTORY" &&
	test "$TRASH_DIRECTORY" = "$TEST_DIRECTORY/trash directory.t0000-test-lib" &&
	test "$KBX_SRC/tests" = "$TEST_DIRECTORY" &&
	test_path_is_file "$KBX_SRC/tests/test-lib.sh"
'

test_expect_success 'a test that changes directory does not move the next one' '
	mkdir elsewhere &&
	cd elsewhere
'

test_expect_success 'the next test starts in the trash directory again' '
	test "$(pwd)" = "$TRASH_DIRECTORY"
'

test_expect_success 'stdin of a test body is empty' '
	cat >stdin-contents &&
	test_must_be_empty stdin-contents
'

test_expect_success 'the environment is fixed' '
	test "$LC_ALL" = C &&
	test "$TZ" = UTC &&
	test "$GIT_CONFIG_NOSYSTEM" = 1 &&
	test -z "${NO_COLOR+set}" &&
	test -z "${KBX_DIR+set}" &&
	test -z "${XDG_CONFIG_HOME+set}" &&
	test "$KBX_MODULE_PATH" = "$KBX_SRC/build/kbx-vector.so" &&
	test "$KBX_GRAMMARS_PATH" = "$KBX_SRC/build/kbx-grammars.so" &&
	test "$KBX_TEST_UNIT" = "$KBX_SRC/build/tests/unit" &&
	test "$CORPORA" = "$KBX_SRC/tests/corpora" &&
	case "$PATH" in
	"$KBX_SRC:"*) ;;
	*) false ;;
	esac &&
	test -n "$GIT_AUTHOR_NAME" && test -n "$GIT_AUTHOR_EMAIL" &&
	test -n "$GIT_AUTHOR_DATE" && test -n "$GIT_COMMITTER_NAME" &&
	test -n "$GIT_COMMITTER_EMAIL" && test -n "$GIT_COMMITTER_DATE"
'

test_expect_success 'settings from the outer environment do not leak in' - <<\EOT
	(
		KBX_DIR=/nowhere NO_COLOR=1 XDG_CONFIG_HOME=/nowhere &&
		LC_ALL=fr_FR.UTF-8 KBX_WHATEVER=1 TZ=Asia/Tokyo GIT_DIR=/nowhere &&
		export KBX_DIR NO_COLOR XDG_CONFIG_HOME LC_ALL KBX_WHATEVER TZ GIT_DIR &&
		run_sub_test t9001-env
	) <<-\EOF &&
	test_expect_success "clean" "
		test -z \"\${KBX_DIR+set}\" &&
		test -z \"\${KBX_WHATEVER+set}\" &&
		test -z \"\${NO_COLOR+set}\" &&
		test -z \"\${XDG_CONFIG_HOME+set}\" &&
		test -z \"\${GIT_DIR+set}\" &&
		test \"\$LC_ALL\" = C &&
		test \"\$TZ\" = UTC
	"
	test_done
	EOF
	check_sub_code t9001-env 0 &&
	test_grep "^ok 1 - clean" t9001-env/out
EOT

test_expect_success GIT 'git commits are deterministic and stay in the trash' '
	test_must_fail git rev-parse --git-dir &&
	for repo in one two
	do
		git init -q $repo &&
		(
			cd $repo &&
			test_commit first &&
			test_commit second file.c "int main(void) { return 0; }"
		) &&
		git -C $repo rev-parse HEAD >$repo.head || return 1
	done &&
	test_cmp one.head two.head &&
	git -C one log --format="%an <%ae> %ad" --date=raw >log &&
	test_line_count = 2 log &&
	test_grep "1700000060 +0000" log &&
	git -C one symbolic-ref HEAD >branch &&
	echo refs/heads/main >expect &&
	test_cmp expect branch
'

test_expect_success 'a failing test is reported, and fails the script' - <<\EOT
	run_sub_test t9002-fail <<-\EOF &&
	test_expect_success "passes" "true"
	test_expect_success "fails" "false"
	test_expect_success "passes again" "true"
	test_done
	EOF
	check_sub_code t9002-fail 1 &&
	sed "s/^# trash directory kept: .*/# trash directory kept: TRASH/" \
		t9002-fail/out >actual &&
	cat >expect <<-\EOF &&
	ok 1 - passes
	not ok 2 - fails
	#	false
	ok 3 - passes again
	# failed 1 among 3 test(s)
	# trash directory kept: TRASH
	1..3
	EOF
	test_cmp expect actual &&
	test_path_is_dir "$(sub_trash t9002-fail)"
EOT

test_expect_success 'a passing script exits 0 and removes its trash directory' - <<\EOT
	run_sub_test t9003-pass <<-\EOF &&
	test_expect_success "passes" "echo hidden output && : >file"
	test_done
	EOF
	check_sub_code t9003-pass 0 &&
	cat >expect <<-\EOF &&
	ok 1 - passes
	# passed all 1 test(s)
	1..1
	EOF
	test_cmp expect t9003-pass/out &&
	test_must_be_empty t9003-pass/err &&
	test_path_is_missing "$(sub_trash t9003-pass)"
EOT

test_expect_success '--debug keeps the trash directory of a passing script' '
	run_sub_test t9004-debug --debug <<-\EOF &&
	test_expect_success "makes a file" ": >file"
	test_done
	EOF
	check_sub_code t9004-debug 0 &&
	test_path_is_file "$(sub_trash t9004-debug)/file"
'

test_expect_success '--verbose shows what the test bodies print' '
	run_sub_test t9005-verbose -v <<-\EOF &&
	test_expect_success "talks" "echo to-stdout && echo to-stderr >&2"
	test_done
	EOF
	check_sub_code t9005-verbose 0 &&
	test_grep "^to-stdout" t9005-verbose/out &&
	test_grep "^to-stderr" t9005-verbose/err &&
	run_sub_test t9006-quiet <<-\EOF &&
	test_expect_success "talks" "echo to-stdout && echo to-stderr >&2"
	test_done
	EOF
	test_grep ! "to-std" t9006-quiet/out &&
	test_must_be_empty t9006-quiet/err
'

test_expect_success 'the output of a failing test is shown as TAP comments' '
	run_sub_test t9007-output <<-\EOF &&
	test_expect_success "talks and fails" "echo said-this && false"
	test_done
	EOF
	check_sub_code t9007-output 1 &&
	test_grep "^#	said-this" t9007-output/out
'

test_expect_success 'a test killed by a signal fails' - <<\EOT
	run_sub_test t9008-signal <<-\EOF &&
	test_expect_success "segfaults" "sh -c \"kill -SEGV \\\$\\\$\""
	test_done
	EOF
	check_sub_code t9008-signal 1 &&
	test_grep "^not ok 1 - segfaults" t9008-signal/out
EOT

test_expect_success 'test_expect_failure is TODO, and says when fixed' - <<\EOT
	run_sub_test t9009-todo <<-\EOF &&
	test_expect_failure "still broken" "false"
	test_expect_failure "fixed meanwhile" "true"
	test_done
	EOF
	check_sub_code t9009-todo 0 &&
	test_grep "^not ok 1 - still broken # TODO known breakage$" t9009-todo/out &&
	test_grep "^ok 2 - fixed meanwhile # TODO known breakage vanished$" t9009-todo/out &&
	test_grep "^1\.\.2$" t9009-todo/out
EOT

test_expect_success 'a broken && chain is a failure' - <<\EOT
	run_sub_test t9010-chain <<-\EOF &&
	test_expect_success "broken" "
		false
		echo ran-after-the-break >../../ran &&
		true
	"
	test_expect_success "unbroken" "
		: &&
		for i in 1 2
		do
			test \$i -gt 0 || return 1
		done &&
		if true
		then
			:
		fi
	"
	test_done
	EOF
	check_sub_code t9010-chain 1 &&
	test_grep "^not ok 1 - broken" t9010-chain/out &&
	test_grep "broken &&-chain" t9010-chain/out &&
	test_grep "^ok 2 - unbroken" t9010-chain/out &&
	run_sub_test t9011-nolint --no-chain-lint <<-\EOF &&
	test_expect_success "broken but not linted" "
		false
		true
	"
	test_done
	EOF
	check_sub_code t9011-nolint 0
EOT

test_expect_success 'test_must_fail accepts an ordinary failure' '
	test_must_fail false &&
	test_must_fail sh -c "exit 2" &&
	test_must_fail sh -c "exit 125" &&
	test_must_fail sh -c "exit 128"
'

test_expect_success 'test_must_fail rejects success' '
	! test_must_fail true 4>msg &&
	test_grep "command succeeded" msg
'

test_expect_success 'test_must_fail rejects a command killed by a signal' '
	! test_must_fail sh -c "kill -SEGV \$\$" 4>msg &&
	test_grep "died of signal 11" msg &&
	! test_must_fail sh -c "kill -ABRT \$\$" 4>msg &&
	test_grep "died of signal 6" msg
'

test_expect_success 'test_must_fail rejects a command that cannot run' '
	! test_must_fail no-such-command-anywhere 4>msg &&
	test_grep "exit code 127" msg &&
	echo "echo hi" >not-executable &&
	chmod -x not-executable &&
	! test_must_fail ./not-executable 4>msg &&
	test_grep "exit code 126" msg
'

test_expect_success 'test_must_fail rejects a sanitizer report' '
	! test_must_fail sh -c "echo \"==42==ERROR: AddressSanitizer: heap-use-after-free\" >&2; exit 1" 4>msg &&
	test_grep "sanitizer report" msg &&
	! test_must_fail sh -c "echo \"lib/x.c:3:9: runtime error: signed integer overflow\" >&2; exit 1" 4>msg &&
	test_grep "sanitizer report" msg
'

test_expect_success 'test_must_fail passes the command output through' '
	test_must_fail sh -c "echo out; echo error: bad >&2; exit 2" >out 2>err &&
	echo out >expect &&
	test_cmp expect out &&
	echo "error: bad" >expect &&
	test_cmp expect err
'

test_expect_success 'a failing test_must_fail fails the test' - <<\EOT
	run_sub_test t9012-must-fail <<-\EOF &&
	test_expect_success "crash is not an expected failure" "
		test_must_fail sh -c \"kill -SEGV \\\$\\\$\"
	"
	test_expect_success "127 is not an expected failure" "
		test_must_fail no-such-command-anywhere
	"
	test_done
	EOF
	check_sub_code t9012-must-fail 1 &&
	test_grep "^not ok 1 - crash is not an expected failure" t9012-must-fail/out &&
	test_grep "died of signal 11" t9012-must-fail/out &&
	test_grep "^not ok 2 - 127 is not an expected failure" t9012-must-fail/out
EOT

test_expect_success 'test_might_fail accepts success and failure, not crashes' '
	test_might_fail true &&
	test_might_fail false &&
	! test_might_fail sh -c "kill -SEGV \$\$" 4>msg &&
	test_grep "died of signal 11" msg
'

test_expect_success 'test_expect_code wants exactly that code' '
	test_expect_code 3 sh -c "exit 3" &&
	test_expect_code 0 true &&
	! test_expect_code 3 true 4>msg &&
	test_grep "exited with 0, expected 3" msg &&
	! test_expect_code 1 sh -c "exit 2" &&
	! test_expect_code 1 sh -c "echo \"ERROR: AddressSanitizer: x\" >&2; exit 1" 4>msg &&
	test_grep "sanitizer report" msg
'

test_expect_success 'test_cmp passes equal files and shows the diff of others' '
	test_write_lines a b c >abc1 &&
	test_write_lines a b c >abc2 &&
	test_cmp abc1 abc2 &&
	test_write_lines old same >expect &&
	test_write_lines new same >actual &&
	! test_cmp expect actual >diff &&
	test_grep "^-old$" diff &&
	test_grep "^+new$" diff &&
	! test_cmp expect no-such-file 4>msg &&
	test_grep "no such file" msg &&
	test_write_lines a b c | test_cmp - abc1 &&
	! echo x | test_cmp - abc1 >/dev/null
'

test_expect_success 'a failing test_cmp shows its diff in the TAP' - <<\EOT
	run_sub_test t9013-cmp <<-\EOF &&
	test_expect_success "differs" "
		echo expected-line >expect &&
		echo actual-line >actual &&
		test_cmp expect actual
	"
	test_done
	EOF
	check_sub_code t9013-cmp 1 &&
	test_grep "^#	-expected-line" t9013-cmp/out &&
	test_grep "^#	+actual-line" t9013-cmp/out
EOT

test_expect_success 'test_line_count' '
	test_write_lines 1 2 3 >three &&
	: >empty &&
	test_line_count = 3 three &&
	test_line_count -gt 2 three &&
	test_line_count -lt 4 three &&
	test_line_count != 2 three &&
	test_line_count = 0 empty &&
	! test_line_count = 2 three 4>msg &&
	test_grep "has 3 line(s), expected = 2" msg &&
	! test_line_count = 0 no-such-file 4>/dev/null
'

test_expect_success 'test_grep and test_grep !' '
	test_write_lines "one apple" "two pears" >fruit &&
	test_grep apple fruit &&
	test_grep -F "two pears" fruit &&
	test_grep -i APPLE fruit &&
	test_grep ! banana fruit &&
	! test_grep banana fruit 4>msg &&
	test_grep "no match" msg &&
	test_grep "two pears" msg &&
	! test_grep ! pears fruit 4>msg &&
	test_grep "unexpected match" msg &&
	! test_grep apple no-such-file 4>/dev/null &&
	! test_grep ! apple no-such-file 4>/dev/null
'

test_expect_success 'path helpers' '
	: >file &&
	mkdir dir &&
	test_path_is_file file &&
	test_path_is_dir dir &&
	test_path_exists file &&
	test_path_exists dir &&
	test_path_is_missing nothing &&
	! test_path_is_file dir 4>/dev/null &&
	! test_path_is_dir file 4>/dev/null &&
	! test_path_is_missing file 4>/dev/null &&
	! test_path_exists nothing 4>/dev/null &&
	test_must_be_empty file &&
	echo x >full &&
	test_file_not_empty full &&
	! test_must_be_empty full 4>/dev/null &&
	! test_file_not_empty file 4>/dev/null &&
	! test_must_be_empty nothing 4>/dev/null
'

test_expect_success SYMLINKS 'test_path_is_missing sees a dangling symlink' '
	ln -s nowhere dangling &&
	! test_path_is_missing dangling 4>/dev/null
'

test_set_prereq HAVE_IT
test_lazy_prereq LAZY_YES '
	echo evaluated >>"$TRASH_DIRECTORY/lazy-log"
'
test_lazy_prereq LAZY_NO 'false'

test_expect_success 'prerequisites' '
	test_have_prereq HAVE_IT &&
	! test_have_prereq NEVER_SET &&
	test_have_prereq !NEVER_SET &&
	! test_have_prereq !HAVE_IT &&
	test_have_prereq HAVE_IT,!NEVER_SET &&
	! test_have_prereq HAVE_IT,NEVER_SET &&
	test_have_prereq LAZY_YES &&
	test_have_prereq LAZY_YES &&
	! test_have_prereq LAZY_NO &&
	test_line_count = 1 lazy-log
'

test_expect_success NEVER_SET 'a test with a missing prerequisite is not run' '
	false
'

test_expect_success HAVE_IT,!NEVER_SET 'a test with its prerequisites is run' '
	true
'

test_expect_success 'skipped tests are TAP skips' - <<\EOT
	run_sub_test t9014-prereq <<-\EOF &&
	test_set_prereq YES
	test_expect_success NO "needs NO" "false"
	test_expect_success YES,!NO "needs YES" "true"
	test_expect_success !YES "needs no YES" "false"
	test_done
	EOF
	check_sub_code t9014-prereq 0 &&
	cat >expect <<-\EOF &&
	ok 1 # skip needs NO (missing NO)
	ok 2 - needs YES
	ok 3 # skip needs no YES (missing !YES)
	# passed all 3 test(s)
	1..3
	EOF
	test_cmp expect t9014-prereq/out
EOT

test_expect_success 'test_when_finished runs after success and failure' - <<\EOT
	run_sub_test t9015-cleanup <<-\EOF &&
	test_expect_success "passing" "
		test_when_finished \"echo first >>../../order\" &&
		test_when_finished \"echo second >>../../order\" &&
		true
	"
	test_expect_success "failing" "
		test_when_finished \"echo after-failure >>../../order\" &&
		false
	"
	test_expect_success "failing cleanup" "
		test_when_finished false &&
		true
	"
	test_done
	EOF
	check_sub_code t9015-cleanup 1 &&
	test_write_lines second first after-failure >expect &&
	test_cmp expect t9015-cleanup/order &&
	test_grep "^ok 1 - passing" t9015-cleanup/out &&
	test_grep "^not ok 2 - failing" t9015-cleanup/out &&
	test_grep "^not ok 3 - failing cleanup" t9015-cleanup/out &&
	test_grep "cleanup failed" t9015-cleanup/out
EOT

test_expect_success 'test_when_finished in this script' '
	test_when_finished "rm -f will-be-removed" &&
	: >will-be-removed
'

test_expect_success 'test_when_finished removed the file' '
	test_path_is_missing will-be-removed
'

test_expect_success 'skip_all skips the whole script' - <<\EOT
	run_sub_test t9016-skip-all <<-\EOF &&
	skip_all="no frobnicator here"
	test_done
	EOF
	check_sub_code t9016-skip-all 0 &&
	echo "1..0 # SKIP no frobnicator here" >expect &&
	test_cmp expect t9016-skip-all/out &&
	test_path_is_missing "$(sub_trash t9016-skip-all)" &&
	run_sub_test t9017-test-skip <<-\EOF &&
	test_have_prereq NOPE || test_skip "needs NOPE"
	test_expect_success "never run" "false"
	test_done
	EOF
	check_sub_code t9017-test-skip 0 &&
	echo "1..0 # SKIP needs NOPE" >expect &&
	test_cmp expect t9017-test-skip/out
EOT

test_expect_success 'KBX_SKIP_TESTS skips scripts and single tests' - <<\EOT
	(
		KBX_SKIP_TESTS="t9018.2 t9019" && export KBX_SKIP_TESTS &&
		run_sub_test t9018-skip-one
	) <<-\EOF &&
	test_expect_success "one" "true"
	test_expect_success "two" "false"
	test_done
	EOF
	check_sub_code t9018-skip-one 0 &&
	test_grep "^ok 2 # skip two (KBX_SKIP_TESTS)" t9018-skip-one/out &&
	(
		KBX_SKIP_TESTS="t9018.2 t9019" && export KBX_SKIP_TESTS &&
		run_sub_test t9019-skip-all
	) <<-\EOF &&
	test_expect_success "one" "false"
	test_done
	EOF
	check_sub_code t9019-skip-all 0 &&
	test_grep "^1\.\.0 # SKIP KBX_SKIP_TESTS" t9019-skip-all/out
EOT

test_expect_success 'an exit from a test body is a fatal error' '
	run_sub_test t9020-exit <<-\EOF &&
	test_expect_success "exits" "exit 0"
	test_done
	EOF
	test "$(cat t9020-exit/code)" != 0 &&
	test_grep "FATAL: unexpected exit" t9020-exit/err &&
	test_grep ! "^1\.\." t9020-exit/out
'

test_expect_success '--immediate stops at the first failure' - <<\EOT
	run_sub_test t9021-immediate -i <<-\EOF &&
	test_expect_success "fails" "false"
	test_expect_success "not reached" "true"
	test_done
	EOF
	check_sub_code t9021-immediate 1 &&
	test_grep "^not ok 1 - fails" t9021-immediate/out &&
	test_grep ! "not reached" t9021-immediate/out &&
	test_grep "^1\.\.1$" t9021-immediate/out &&
	test_path_is_dir "$(sub_trash t9021-immediate)"
EOT

test_expect_success '--trace traces the test bodies' '
	run_sub_test t9022-trace -x <<-\EOF &&
	test_expect_success "traced" "test_write_lines traced-word >/dev/null"
	test_done
	EOF
	check_sub_code t9022-trace 0 &&
	test_grep "test_write_lines traced-word" t9022-trace/err
'

test_expect_success 'test bodies may come from stdin' - <<\EOT
	run_sub_test t9023-stdin <<-\EOF &&
	test_expect_success "from stdin" - <<-\EOB
		echo 'single quotes' >file &&
		test_grep "single quotes" file
	EOB
	test_done
	EOF
	check_sub_code t9023-stdin 0 &&
	test_grep "^ok 1 - from stdin" t9023-stdin/out
EOT

test_expect_success 'a script run from another directory uses its own' '
	mkdir -p t9024-where/tests &&
	cp "$TEST_DIRECTORY/test-lib.sh" t9024-where/tests/ &&
	cat >t9024-where/tests/t9024-where.sh <<-\EOF &&
	test_description="where"
	. "$(dirname "$0")"/test-lib.sh
	test_expect_success "in place" "
		test \"\$KBX_SRC\" = \"\$(cd ../.. && pwd)\" &&
		: >marker
	"
	test_done
	EOF
	mkdir -p somewhere/else &&
	(
		cd somewhere/else &&
		"$TEST_SHELL_PATH" ../../t9024-where/tests/t9024-where.sh --debug >out
	) &&
	test_grep "^ok 1 - in place" somewhere/else/out &&
	test_path_is_file "$(sub_trash t9024-where)/marker" &&
	test_path_is_missing "somewhere/else/trash directory.t9024-where"
'

# write_fake_unit DIR NAME <SCRIPT: a stand-in for the C unit test
# program NAME of the nested test tree DIR.
write_fake_unit () {
	mkdir -p "$1/build/tests/unit" &&
	cat >"$1/build/tests/unit/$2" &&
	chmod +x "$1/build/tests/unit/$2"
}

test_expect_success 'test_unit reports each result of a unit program' - <<\EOT
	write_fake_unit t9025-unit good <<-\EOF &&
	#!/bin/sh
	echo "1..4"
	echo "ok 1 - adds"
	echo "ok 2 - handles C# code"
	echo "ok 3 - needs a disk # SKIP no disk"
	echo "not ok 4 - overflows # TODO later"
	EOF
	run_sub_test t9025-unit <<-\EOF &&
	test_unit good
	test_done
	EOF
	check_sub_code t9025-unit 0 &&
	cat >expect <<-\EOF &&
	ok 1 - good: adds
	ok 2 - good: handles C# code
	ok 3 # skip good: needs a disk (no disk)
	not ok 4 - good: overflows # TODO known breakage
	# still have 1 known breakage(s)
	# passed all 4 test(s)
	1..4
	EOF
	test_cmp expect t9025-unit/out
EOT

test_expect_success 'test_unit catches failures, crashes, bad plans' - <<\EOT
	write_fake_unit t9026-unit-bad failing <<-\EOF &&
	#!/bin/sh
	echo "1..2"
	echo "ok 1 - fine"
	echo "not ok 2 - wrong sum"
	echo "# expected 4, got 5"
	exit 1
	EOF
	write_fake_unit t9026-unit-bad crashing <<-\EOF &&
	#!/bin/sh
	echo "1..3"
	echo "ok 1 - fine"
	kill -SEGV $$
	EOF
	write_fake_unit t9026-unit-bad lying <<-\EOF &&
	#!/bin/sh
	echo "ok 1 - fine"
	exit 3
	EOF
	run_sub_test t9026-unit-bad <<-\EOF &&
	test_unit failing
	test_unit crashing
	test_unit lying
	test_unit missing
	test_done
	EOF
	check_sub_code t9026-unit-bad 1 &&
	grep "^ok\|^not ok" t9026-unit-bad/out >actual.raw &&
	sed "s/program .* is missing/program PATH is missing/" actual.raw >actual &&
	cat >expect <<-\EOF &&
	ok 1 - failing: fine
	not ok 2 - failing: wrong sum
	ok 3 - crashing: fine
	not ok 4 - crashing: planned 3 test(s) but ran 1
	not ok 5 - crashing: died of signal 11 (exit code 139)
	ok 6 - lying: fine
	not ok 7 - lying: printed no TAP plan
	not ok 8 - lying: exited with code 3
	not ok 9 - missing: program PATH is missing (not built?)
	EOF
	test_cmp expect actual &&
	test_grep "^#	# expected 4, got 5" t9026-unit-bad/out
EOT

test_expect_success DASH 'the library works under dash too' - <<\EOT
	(
		TEST_SHELL_PATH=dash &&
		run_sub_test t9027-dash
	) <<-\EOF &&
	test_set_prereq YES
	test_expect_success YES "passes" "
		test_when_finished \": cleanup\" &&
		test_must_fail false &&
		test_write_lines a >a && test_cmp a a
	"
	test_expect_success "fails" "false"
	test_expect_success "crashes" "test_must_fail sh -c \"kill -SEGV \\\$\\\$\""
	test_expect_success "broken chain" "
		false
		true
	"
	test_done
	EOF
	check_sub_code t9027-dash 1 &&
	grep "^ok\|^not ok\|^1\.\." t9027-dash/out >actual &&
	cat >expect <<-\EOF &&
	ok 1 - passes
	not ok 2 - fails
	not ok 3 - crashes
	not ok 4 - broken chain
	1..4
	EOF
	test_cmp expect actual
EOT

# make_fake_tree DIR: a copy of the test machinery with four scripts,
# for the runner to run: 3 passed, 2 failed (one of them a script that
# dies), 2 skipped (one skip, one known breakage) and 1 skipped script.
make_fake_tree () {
	mkdir -p "$1/tests" &&
	cp "$TEST_DIRECTORY/test-lib.sh" "$TEST_DIRECTORY/run-tests.sh" "$1/tests/" &&
	cat >"$1/tests/t9101-good.sh" <<-\EOF &&
	test_description="good"
	. ./test-lib.sh
	test_expect_success "one" "true"
	test_expect_success "two" "true"
	test_expect_success NOPE "three" "false"
	test_expect_failure "four" "false"
	test_done
	EOF
	cat >"$1/tests/t9102-bad.sh" <<-\EOF &&
	test_description="bad"
	. ./test-lib.sh
	test_expect_success "passes" "true"
	test_expect_success "fails" "echo the-reason && false"
	test_done
	EOF
	cat >"$1/tests/t9103-dies.sh" <<-\EOF &&
	test_description="dies"
	. ./test-lib.sh
	echo "something went wrong" >&2
	exit 3
	EOF
	cat >"$1/tests/t9104-skipped.sh" <<-\EOF
	test_description="skipped"
	. ./test-lib.sh
	test_skip "not today"
	EOF
}

test_expect_success 'the runner sums up all scripts' '
	make_fake_tree fake &&
	test_expect_code 1 "$TEST_SHELL_PATH" fake/tests/run-tests.sh --no-prove >out 2>err &&
	tail -n 1 out >summary &&
	echo "3 passed, 2 failed, 3 skipped" >expect &&
	test_cmp expect summary &&
	test_grep "^t9101-good \.* ok (2 passed, 1 skipped, 1 known breakage(s))" out &&
	test_grep "^t9102-bad \.* FAILED 1 of 2" out &&
	test_grep "not ok 2 - fails" out &&
	test_grep "the-reason" out &&
	test_grep "^t9103-dies \.* FAILED" out &&
	test_grep "no TAP plan" out &&
	test_grep "something went wrong" out &&
	test_grep "^t9104-skipped \.* skipped: not today" out &&
	test_path_is_file fake/build/test-results/t9101-good.tap &&
	test_path_is_file fake/build/test-results/t9102-bad.tap &&
	test_grep "^not ok 2 - fails" fake/build/test-results/t9102-bad.tap &&
	test_path_is_missing "fake/tests/trash directory.t9101-good" &&
	test_path_is_dir "fake/tests/trash directory.t9102-bad"
'

test_expect_success 'the runner runs the scripts it is given' '
	test_expect_code 0 "$TEST_SHELL_PATH" fake/tests/run-tests.sh --no-prove -j1 t9101 >out &&
	test_grep ! t9102 out &&
	tail -n 1 out >summary &&
	echo "2 passed, 0 failed, 2 skipped" >expect &&
	test_cmp expect summary &&
	test_expect_code 2 "$TEST_SHELL_PATH" fake/tests/run-tests.sh no-such-test 2>err &&
	test_grep "no test script matches" err
'

test_expect_success 'a "#" inside a description is no TODO or SKIP directive' '
	mkdir -p hash/tests &&
	cp "$TEST_DIRECTORY/test-lib.sh" "$TEST_DIRECTORY/run-tests.sh" hash/tests/ &&
	cat >hash/tests/t9105-hash.sh <<-\EOF &&
	test_description="hash"
	. ./test-lib.sh
	test_expect_success "defines a.tsx#TodoList" "false"
	test_expect_success "defines b.tsx#SkipButton" "false"
	test_expect_success "defines c.tsx#Todo" "true"
	test_done
	EOF
	test_expect_code 1 "$TEST_SHELL_PATH" hash/tests/run-tests.sh --no-prove >out 2>err &&
	tail -n 1 out >summary &&
	echo "1 passed, 2 failed" >expect &&
	test_cmp expect summary &&
	test_grep "^t9105-hash \.* FAILED 2 of 3 (1 passed)" out
'

test_lazy_prereq PROVE '
	prove --version
'

test_expect_success PROVE 'the runner gives the same summary under prove' '
	test_expect_code 1 "$TEST_SHELL_PATH" fake/tests/run-tests.sh --prove >out 2>err &&
	test_grep "t9102-bad" out &&
	tail -n 1 out >summary &&
	echo "3 passed, 2 failed, 3 skipped" >expect &&
	test_cmp expect summary
'

test_expect_success 'the runner passes when everything passes' '
	rm fake/tests/t9102-bad.sh fake/tests/t9103-dies.sh &&
	test_expect_code 0 "$TEST_SHELL_PATH" fake/tests/run-tests.sh >out &&
	tail -n 1 out >summary &&
	echo "2 passed, 0 failed, 3 skipped" >expect &&
	test_cmp expect summary
'

test_done
