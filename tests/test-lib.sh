# test-lib.sh: setup and helpers shared by kbx's shell tests.
#
# A test script looks like this:
#
#	#!/bin/sh
#	test_description='what this script checks'
#	. ./test-lib.sh
#	test_expect_success 'it works' '
#		kbx index &&
#		kbx defs main >actual &&
#		test_cmp expect actual
#	'
#	test_done
#
# The script is run from tests/ (tests/run-tests.sh does that), but all
# paths below are computed from the script's own location, so it also
# works from elsewhere when sourced as '. "$(dirname "$0")/test-lib.sh"'.
# Output is TAP.  tests/README describes every helper.
#
# This file is POSIX sh: it must work under dash as well as bash.  Its
# private names end in an underscore; test bodies should not use such
# names for their own variables.

# --- Where things are -------------------------------------------------

TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd) || {
	echo "error: cannot find the directory of test script '$0'" >&2
	exit 1
}
this_test=$(basename "$0" .sh)
this_test_num_=${this_test%%-*}
TRASH_DIRECTORY="$TEST_DIRECTORY/trash directory.$this_test"

# Keep the original stdout and stderr: TAP goes to fd 5, diagnostics
# meant for the person running the script to fd 6.  Inside a test body,
# fd 3 and fd 4 are where the body's own stdout and stderr go (the
# terminal with -v, a log file otherwise); helpers write their
# complaints to fd 4 so that a caller's "2>err" cannot swallow them.
exec 5>&1 6>&2

# --- Options ----------------------------------------------------------

test_verbose_=
test_debug_=
test_trace_=
test_immediate_=
test_chain_lint_=${KBX_TEST_CHAIN_LINT-1}

test_usage_ () {
	printf '%s\n' "usage: $0 [options]" "" "$test_description" "" \
		"  -v, --verbose     show the commands' output" \
		"  -d, --debug       keep the trash directory even on success" \
		"  -x, --trace       trace the test bodies with 'set -x' (implies -v)" \
		"  -i, --immediate   stop at the first failing test" \
		"      --no-chain-lint  do not check that test bodies chain with &&"
}

while test $# -gt 0
do
	case "$1" in
	-v|--verbose) test_verbose_=t ;;
	-d|--debug) test_debug_=t ;;
	-x|--trace) test_trace_=t; test_verbose_=t ;;
	-i|--immediate) test_immediate_=t ;;
	--chain-lint) test_chain_lint_=1 ;;
	--no-chain-lint) test_chain_lint_=0 ;;
	-h|--help) test_usage_; exit 0 ;;
	-[vdxi][vdxi]*)
		# bundled short options: -vx is -v -x
		test_opt_rest_=${1#-}
		shift
		while test -n "$test_opt_rest_"
		do
			test_opt_char_=${test_opt_rest_%"${test_opt_rest_#?}"}
			test_opt_rest_=${test_opt_rest_#?}
			set -- "-$test_opt_char_" "$@"
		done
		continue
		;;
	*)
		echo "error: unknown test option '$1' (try --help)" >&2
		exit 1
		;;
	esac
	shift
done

if test -n "$test_verbose_"
then
	exec 3>&5 4>&6
else
	exec 3>/dev/null 4>/dev/null
fi

# --- Environment ------------------------------------------------------
#
# Nothing from the user's environment may change what kbx does: no
# config, no colour, no locale, no index directory picked up from
# outside.  Knobs of the test suite itself are read first, then every
# KBX_* variable is dropped.

test_skip_patterns_=$KBX_SKIP_TESTS
test_long_=$KBX_TEST_LONG
test_build_dir_=$KBX_BUILD_DIR

for test_var_ in $(env | sed -n -e 's/^\(KBX_[A-Za-z0-9_]*\)=.*/\1/p' \
	-e 's/^\(GIT_[A-Za-z0-9_]*\)=.*/\1/p' \
	-e 's/^\(XDG_[A-Za-z0-9_]*\)=.*/\1/p' \
	-e 's/^\(LC_[A-Za-z0-9_]*\)=.*/\1/p')
do
	unset "$test_var_"
done
unset LANG LANGUAGE NO_COLOR CLICOLOR CLICOLOR_FORCE FORCE_COLOR \
	COLUMNS LINES CDPATH ENV BASH_ENV GREP_OPTIONS VISUAL

LC_ALL=C
TZ=UTC
TERM=dumb
PAGER=cat
EDITOR=:
export LC_ALL TZ TERM PAGER EDITOR

# The program under test and its companions.
KBX_SRC=$(cd "$TEST_DIRECTORY/.." && pwd) || exit 1
PATH="$KBX_SRC:$PATH"
test_build_dir_=${test_build_dir_:-$KBX_SRC/build}
KBX_MODULE_PATH="$test_build_dir_/kbx-vector.so"
KBX_WORDS_PATH="$test_build_dir_/kbx-words.bin"
KBX_GRAMMARS_PATH="$test_build_dir_/kbx-grammars.so"
KBX_TEST_UNIT="$test_build_dir_/tests/unit"
CORPORA="$KBX_SRC/tests/corpora"
# kbx looks upward for .kbx and .git as git does; never past tests/ into
# the kbx checkout itself.
KBX_CEILING_DIRECTORIES=$TEST_DIRECTORY
export PATH KBX_SRC KBX_MODULE_PATH KBX_WORDS_PATH KBX_GRAMMARS_PATH KBX_TEST_UNIT CORPORA \
	KBX_CEILING_DIRECTORIES

# git, for tests that build a repository: no system or user config, a
# fixed branch name, fixed identities and dates (see test_tick), and no
# walking up from the trash directory into the kbx checkout itself.
GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_COUNT=1
GIT_CONFIG_KEY_0=init.defaultBranch
GIT_CONFIG_VALUE_0=main
GIT_CEILING_DIRECTORIES=$TEST_DIRECTORY
GIT_AUTHOR_NAME='Ada Author'
GIT_AUTHOR_EMAIL='ada@example.com'
GIT_COMMITTER_NAME='Carl Committer'
GIT_COMMITTER_EMAIL='carl@example.com'
GIT_AUTHOR_DATE='1700000000 +0000'
GIT_COMMITTER_DATE='1700000000 +0000'
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 \
	GIT_CONFIG_VALUE_0 GIT_CEILING_DIRECTORIES \
	GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE \
	GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE

# Sanitizer builds (make SANITIZE=address,undefined): turn every report
# into an abort, so that a memory error is a death by SIGABRT which no
# && chain can miss.  Leak checking is off unless asked for with
# ASAN_OPTIONS=detect_leaks=1 (the caller's settings come last and win).
ASAN_OPTIONS="abort_on_error=1:detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS

# The shell used to run nested test scripts (t0000 does that).
if test -z "$TEST_SHELL_PATH"
then
	if test -n "$BASH_VERSION"
	then
		TEST_SHELL_PATH=$BASH
	else
		TEST_SHELL_PATH=/bin/sh
	fi
fi
export TEST_SHELL_PATH

umask 022

# --- State ------------------------------------------------------------

test_count=0
test_success_=0
test_failure_count_=0
test_fixed_=0
test_broken_=0
test_skipped_=0
test_prereqs_=' '
test_prereqs_done_=' '
test_done_called_=
test_capture_n_=0

say_ () {
	printf '%s\n' "$*" >&5
}

# Print text as TAP diagnostics, one "#<TAB>" line per input line.
test_diag_ () {
	sed -e 's/^/#	/' >&5
}

BUG () {
	echo "error: bug in the test script: $*" >&6
	exit 1
}

test_exit_handler_ () {
	test_exit_code_=$?
	test -n "$TEST_LIB_TMP" && rm -rf "$TEST_LIB_TMP"
	if test -z "$test_done_called_"
	then
		echo "FATAL: unexpected exit with code $test_exit_code_" \
			"(did a test body call 'exit'?)" >&6
		test "$test_exit_code_" = 0 && exit 1
		exit "$test_exit_code_"
	fi
}

trap 'test_exit_handler_' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# --- Scratch space ----------------------------------------------------

test_remove_trash_ () {
	cd "$TEST_DIRECTORY" || return 1
	rm -rf "$TRASH_DIRECTORY" 2>/dev/null && return 0
	chmod -R u+rwx "$TRASH_DIRECTORY" 2>/dev/null
	rm -rf "$TRASH_DIRECTORY"
}

test_remove_trash_ || {
	echo "error: cannot remove '$TRASH_DIRECTORY'" >&6
	exit 1
}
mkdir -p "$TRASH_DIRECTORY" && cd "$TRASH_DIRECTORY" || {
	echo "error: cannot create '$TRASH_DIRECTORY'" >&6
	exit 1
}
HOME=$TRASH_DIRECTORY
export HOME TRASH_DIRECTORY TEST_DIRECTORY

# Files of the library itself live outside the trash directory, so a
# test that lists or indexes its cwd never sees them.
TEST_LIB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/kbx-test-lib.XXXXXX") || {
	echo "error: cannot create a temporary directory" >&6
	exit 1
}

# --- Prerequisites ----------------------------------------------------

test_check_prereq_name_ () {
	case "$1" in
	''|*[!A-Z0-9_]*) BUG "bad prerequisite name '$1' (use A-Z, 0-9, _)" ;;
	esac
}

# test_set_prereq NAME: declare that NAME is satisfied.
test_set_prereq () {
	test $# = 1 || BUG "test_set_prereq takes one name"
	test_check_prereq_name_ "$1"
	test_prereqs_="$test_prereqs_$1 "
	test_prereqs_done_="$test_prereqs_done_$1 "
}

# test_lazy_prereq NAME 'script': NAME holds when the script succeeds.
# It runs once, on first use, in a subshell inside an empty directory.
test_lazy_prereq () {
	test $# = 2 || BUG "test_lazy_prereq takes a name and a script"
	test_check_prereq_name_ "$1"
	eval "test_lazy_script_$1=\$2"
}

test_eval_lazy_prereq_ () {
	case "$test_prereqs_done_" in
	*" $1 "*) return 0 ;;
	esac
	test_prereqs_done_="$test_prereqs_done_$1 "
	eval "test_lazy_script_=\${test_lazy_script_$1}"
	test -n "$test_lazy_script_" || return 0
	rm -rf "$TEST_LIB_TMP/prereq" && mkdir "$TEST_LIB_TMP/prereq" &&
	if (cd "$TEST_LIB_TMP/prereq" && eval "$test_lazy_script_") \
		</dev/null >&3 2>&4
	then
		test_prereqs_="$test_prereqs_$1 "
	fi
	rm -rf "$TEST_LIB_TMP/prereq"
	return 0
}

# test_have_prereq LIST: LIST is comma separated; !NAME means NAME must
# not hold.  Sets test_missing_prereq_ to the ones that let us down.
test_have_prereq () {
	test $# = 1 || BUG "test_have_prereq takes one comma separated list"
	test_missing_prereq_=
	test_save_ifs_=$IFS
	IFS=,
	set -- $1
	IFS=$test_save_ifs_
	for test_p_
	do
		case "$test_p_" in
		!*) test_neg_=t; test_p_=${test_p_#!} ;;
		*) test_neg_= ;;
		esac
		test_check_prereq_name_ "$test_p_"
		test_eval_lazy_prereq_ "$test_p_"
		case "$test_prereqs_" in
		*" $test_p_ "*) test_has_=t ;;
		*) test_has_= ;;
		esac
		if test -n "$test_neg_"
		then
			test -z "$test_has_" ||
			test_missing_prereq_="${test_missing_prereq_:+$test_missing_prereq_,}!$test_p_"
		else
			test -n "$test_has_" ||
			test_missing_prereq_="${test_missing_prereq_:+$test_missing_prereq_,}$test_p_"
		fi
	done
	test -z "$test_missing_prereq_"
}

test_lazy_prereq KBX '
	test -x "$KBX_SRC/kbx"
'
test_lazy_prereq VECTOR '
	test -f "$KBX_MODULE_PATH"
'
test_lazy_prereq GIT '
	git --version
'
test_lazy_prereq PERL '
	perl -e 1
'
test_lazy_prereq PYTHON3 '
	python3 -c "import json"
'
test_lazy_prereq SYMLINKS '
	ln -s target link && test -h link
'
test_lazy_prereq NOT_ROOT '
	test "$(id -u)" != 0
'
test_lazy_prereq DASH '
	command -v dash
'
test -n "$test_long_" && test_set_prereq EXPENSIVE

# --- Running tests ----------------------------------------------------

# The body runs in the test script's own shell (so variables set by one
# test are seen by the next), with stdin from /dev/null and stdout and
# stderr on fds 3 and 4.
test_eval_ () {
	if test -n "$test_trace_"
	then
		set -x
	fi
	eval "$1"
	test_eval_ret_=$?
	if test -n "$test_trace_"
	then
		{ set +x; } 2>/dev/null
	fi
	return $test_eval_ret_
}

# Run a test body and its cleanups; return non-zero if either failed.
test_run_body_ () {
	test_cleanup_=:
	test_cleanup_failed_=
	if test "$test_chain_lint_" != 0
	then
		# With an unbroken && chain, the leading false short-cuts
		# every command; anything that runs means a broken link.
		# The subshell keeps whatever ran away from the real run.
		(eval "(exit 117) && $1") </dev/null >/dev/null 2>&1
		if test $? != 117
		then
			echo "error: bug in the test script: broken &&-chain" \
				"(or a top-level '||') in the test body" >&4
			return 1
		fi
	fi
	test_eval_ "$1" </dev/null >&3 2>&4
	test_body_ret_=$?
	test_eval_ "$test_cleanup_" </dev/null >&3 2>&4
	if test -n "$test_cleanup_failed_"
	then
		echo "error: a test_when_finished cleanup failed" >&4
		test "$test_body_ret_" = 0 && test_body_ret_=1
	fi
	cd "$TRASH_DIRECTORY" || BUG "cannot go back to '$TRASH_DIRECTORY'"
	return $test_body_ret_
}

test_run_ () {
	test_log_="$TEST_LIB_TMP/output"
	if test -n "$test_verbose_"
	then
		test_run_body_ "$1"
	else
		test_run_body_ "$1" 3>"$test_log_" 4>&3
	fi
}

# Print what a failing test ran and said, as TAP diagnostics.
test_show_failure_ () {
	if test -n "$1"
	then
		printf '%s\n' "$1" | test_diag_
	fi
	if test -z "$test_verbose_" && test -s "$test_log_"
	then
		say_ "# output:"
		tail -n 200 "$test_log_" | test_diag_
	fi
}

test_start_ () {
	test_count=$((test_count + 1))
	: >"$TEST_LIB_TMP/output"
	if test -n "$test_verbose_"
	then
		printf '%s\n' "" "expecting $2 of $this_test_num_.$test_count '$1':" \
			"$3" >&3
	fi
}

# Decide whether the current test is skipped; say so if it is.
test_skip_ () {
	test_skip_reason_=
	for test_pat_ in $test_skip_patterns_
	do
		case "$this_test_num_.$test_count" in
		$test_pat_) test_skip_reason_="KBX_SKIP_TESTS" ;;
		esac
	done
	if test -z "$test_skip_reason_" && test -n "$2" &&
		! test_have_prereq "$2"
	then
		test_skip_reason_="missing $test_missing_prereq_"
	fi
	test -n "$test_skip_reason_" || return 1
	test_skipped_=$((test_skipped_ + 1))
	say_ "ok $test_count # skip $1 ($test_skip_reason_)"
	return 0
}

test_ok_ () {
	test_success_=$((test_success_ + 1))
	say_ "ok $test_count - $1"
}

test_failure_ () {
	test_failure_count_=$((test_failure_count_ + 1))
	say_ "not ok $test_count - $1"
	test_show_failure_ "$2"
	if test -n "$test_immediate_"
	then
		say_ "# stopping at the first failure (-i);" \
			"trash directory kept: $TRASH_DIRECTORY"
		say_ "1..$test_count"
		test_done_called_=t
		exit 1
	fi
}

test_known_broken_ok_ () {
	test_fixed_=$((test_fixed_ + 1))
	say_ "ok $test_count - $1 # TODO known breakage vanished"
}

test_known_broken_failure_ () {
	test_broken_=$((test_broken_ + 1))
	say_ "not ok $test_count - $1 # TODO known breakage"
}

# Common argument handling of test_expect_success/failure.
test_parse_expect_ () {
	test_what_=$1
	shift
	test_prereq_=
	if test $# = 3
	then
		test_prereq_=$1
		shift
	fi
	test $# = 2 || BUG "$test_what_ takes [PREREQ] 'description' 'body'"
	test_desc_=$1
	test_body_=$2
	if test "$test_body_" = -
	then
		test_body_=$(cat) || BUG "cannot read the body of '$1'"
	fi
}

# test_expect_success [PREREQ] 'description' 'body'
test_expect_success () {
	test_parse_expect_ test_expect_success "$@"
	test_start_ "$test_desc_" success "$test_body_"
	test_skip_ "$test_desc_" "$test_prereq_" && return 0
	if test_run_ "$test_body_"
	then
		test_ok_ "$test_desc_"
	else
		test_failure_ "$test_desc_" "$test_body_"
	fi
}

# test_expect_failure [PREREQ] 'description' 'body': a known breakage.
# Reported as TAP TODO, which does not fail the script.
test_expect_failure () {
	test_parse_expect_ test_expect_failure "$@"
	test_start_ "$test_desc_" failure "$test_body_"
	test_skip_ "$test_desc_" "$test_prereq_" && return 0
	if test_run_ "$test_body_"
	then
		test_known_broken_ok_ "$test_desc_"
	else
		test_known_broken_failure_ "$test_desc_"
	fi
}

# test_when_finished 'commands': run after the current test, pass or
# fail, last registered first.  A failing cleanup fails the test.
test_when_finished () {
	test "${BASH_SUBSHELL-0}" = 0 ||
		BUG "test_when_finished does nothing inside a subshell"
	test_cleanup_="{ $*
} || test_cleanup_failed_=t
$test_cleanup_"
}

# test_skip 'reason' (or: skip_all='reason'; test_done): skip the whole
# script, e.g. when a dependency is missing.
test_skip () {
	skip_all=${1:-skipped}
	test_done
}

test_done () {
	test_done_called_=t
	if test "$test_count" = 0 && test -n "$skip_all"
	then
		say_ "1..0 # SKIP $skip_all"
		test_remove_trash_
		exit 0
	fi
	test -n "$skip_all" && say_ "# skipped the rest: $skip_all"
	test "$test_fixed_" = 0 ||
		say_ "# $test_fixed_ known breakage(s) vanished; please update the test(s)"
	test "$test_broken_" = 0 ||
		say_ "# still have $test_broken_ known breakage(s)"
	if test "$test_failure_count_" = 0
	then
		say_ "# passed all $test_count test(s)"
		say_ "1..$test_count"
		if test -n "$test_debug_"
		then
			say_ "# debug: trash directory kept: $TRASH_DIRECTORY"
		else
			test_remove_trash_
		fi
		exit 0
	fi
	say_ "# failed $test_failure_count_ among $test_count test(s)"
	say_ "# trash directory kept: $TRASH_DIRECTORY"
	say_ "1..$test_count"
	exit 1
}

# --- Checking commands ------------------------------------------------

# Did the command whose stderr is in $1 report a sanitizer error?
test_sanitizer_report_ () {
	grep -E 'AddressSanitizer|LeakSanitizer|ThreadSanitizer|MemorySanitizer|UndefinedBehaviorSanitizer|: runtime error: ' \
		"$1" >/dev/null 2>&1
}

# Run "$@" with its stderr passed through a file, so we can look at it;
# sets test_run_code_ and test_run_err_.  The stderr is copied to our
# own stderr afterwards (after the command's stdout, if both go to the
# same place).
test_run_capturing_ () {
	test_capture_n_=$((test_capture_n_ + 1))
	test_run_err_="$TEST_LIB_TMP/stderr.$test_capture_n_"
	"$@" 2>"$test_run_err_"
	test_run_code_=$?
	cat "$test_run_err_" >&2
}

# A command that failed "in a bad way": killed, not runnable, or caught
# by a sanitizer.  Says why on fd 4 and in test_bad_why_.
test_bad_exit_ () {
	test_who_=$1
	shift
	if test "$test_run_code_" -gt 128
	then
		test_bad_why_="died of signal $((test_run_code_ - 128)) (exit code $test_run_code_)"
	elif test "$test_run_code_" = 126 || test "$test_run_code_" = 127
	then
		test_bad_why_="command not found or not executable (exit code $test_run_code_)"
	elif test_sanitizer_report_ "$test_run_err_"
	then
		test_bad_why_="sanitizer report on stderr (exit code $test_run_code_)"
	else
		test_bad_why_=
		return 1
	fi
	echo "error: $test_who_: $test_bad_why_: $*" >&4
	return 0
}

# test_must_fail CMD...: CMD must exit with a failure of its own making:
# non-zero, not 126/127, not killed by a signal, no sanitizer report.
test_must_fail () {
	test $# -gt 0 || BUG "test_must_fail needs a command"
	test_run_capturing_ "$@"
	if test "$test_run_code_" = 0
	then
		echo "error: test_must_fail: command succeeded: $*" >&4
		rm -f "$test_run_err_"
		return 1
	fi
	if test_bad_exit_ test_must_fail "$@"
	then
		rm -f "$test_run_err_"
		return 1
	fi
	rm -f "$test_run_err_"
	return 0
}

# test_might_fail CMD...: like test_must_fail, but success is fine too.
test_might_fail () {
	test $# -gt 0 || BUG "test_might_fail needs a command"
	test_run_capturing_ "$@"
	if test "$test_run_code_" != 0 && test_bad_exit_ test_might_fail "$@"
	then
		rm -f "$test_run_err_"
		return 1
	fi
	rm -f "$test_run_err_"
	return 0
}

# test_expect_code N CMD...: CMD must exit with exactly N (and leave no
# sanitizer report).
test_expect_code () {
	test $# -gt 1 || BUG "test_expect_code needs a code and a command"
	test_want_code_=$1
	shift
	test_run_capturing_ "$@"
	if test "$test_run_code_" != "$test_want_code_"
	then
		rm -f "$test_run_err_"
		echo "error: test_expect_code: command exited with $test_run_code_, expected $test_want_code_: $*" >&4
		return 1
	fi
	if test_sanitizer_report_ "$test_run_err_"
	then
		rm -f "$test_run_err_"
		echo "error: test_expect_code: sanitizer report on stderr: $*" >&4
		return 1
	fi
	rm -f "$test_run_err_"
	return 0
}

# --- Checking files ---------------------------------------------------

# test_cmp EXPECTED ACTUAL: the files must be equal; the diff is shown
# otherwise.  EXPECTED may be - for stdin.
test_cmp () {
	test $# = 2 || BUG "test_cmp takes two files"
	for test_f_
	do
		test "$test_f_" = - || test -f "$test_f_" || {
			echo "error: test_cmp: no such file '$test_f_'" >&4
			return 1
		}
	done
	diff -u "$1" "$2"
}

# test_line_count OP N FILE, e.g. test_line_count = 3 out
test_line_count () {
	test $# = 3 || BUG "test_line_count takes an operator, a number and a file"
	case "$1" in
	=|-eq) test_op_=-eq ;;
	!=|-ne) test_op_=-ne ;;
	-lt|-le|-gt|-ge) test_op_=$1 ;;
	*) BUG "test_line_count: unknown operator '$1'" ;;
	esac
	test -f "$3" || {
		echo "error: test_line_count: no such file '$3'" >&4
		return 1
	}
	test_lines_=$(wc -l <"$3")
	test_lines_=$((test_lines_))
	if ! test "$test_lines_" "$test_op_" "$2"
	then
		echo "error: test_line_count: '$3' has $test_lines_ line(s), expected $1 $2; it contains:" >&4
		cat "$3" >&4
		return 1
	fi
}

# test_grep [!] [GREP-OPTIONS] PATTERN FILE: like grep, but quiet on
# success and showing the file (or, with !, the unwanted lines) on
# failure.
test_grep () {
	test_grep_neg_=
	if test "$1" = !
	then
		test_grep_neg_=t
		shift
	fi
	test $# -ge 2 || BUG "test_grep takes [!] [options] pattern file"
	eval "test_grep_file_=\${$#}"
	test -f "$test_grep_file_" || {
		echo "error: test_grep: no such file '$test_grep_file_'" >&4
		return 1
	}
	grep "$@" >/dev/null 2>&4
	test_grep_ret_=$?
	if test "$test_grep_ret_" -gt 1
	then
		echo "error: test_grep: grep failed: grep $*" >&4
		return 1
	fi
	if test -z "$test_grep_neg_"
	then
		test "$test_grep_ret_" = 0 && return 0
		echo "error: test_grep: no match for 'grep $*'; the file contains:" >&4
		cat "$test_grep_file_" >&4
	else
		test "$test_grep_ret_" = 1 && return 0
		echo "error: test_grep: unexpected match for 'grep $*':" >&4
		grep "$@" >&4
	fi
	return 1
}

test_path_is_file () {
	test $# = 1 || BUG "test_path_is_file takes one path"
	test -f "$1" && return 0
	echo "error: test_path_is_file: '$1' is not a file" >&4
	ls -ld "$1" >&4 2>&1
	return 1
}

test_path_is_dir () {
	test $# = 1 || BUG "test_path_is_dir takes one path"
	test -d "$1" && return 0
	echo "error: test_path_is_dir: '$1' is not a directory" >&4
	ls -ld "$1" >&4 2>&1
	return 1
}

test_path_exists () {
	test $# = 1 || BUG "test_path_exists takes one path"
	test -e "$1" && return 0
	echo "error: test_path_exists: '$1' does not exist" >&4
	return 1
}

test_path_is_missing () {
	test $# = 1 || BUG "test_path_is_missing takes one path"
	test -e "$1" || test -h "$1" || return 0
	echo "error: test_path_is_missing: '$1' exists:" >&4
	ls -ld "$1" >&4 2>&1
	return 1
}

test_must_be_empty () {
	test $# = 1 || BUG "test_must_be_empty takes one file"
	test_path_is_file "$1" || return 1
	test -s "$1" || return 0
	echo "error: test_must_be_empty: '$1' is not empty; it contains:" >&4
	cat "$1" >&4
	return 1
}

test_file_not_empty () {
	test $# = 1 || BUG "test_file_not_empty takes one file"
	test_path_is_file "$1" || return 1
	test -s "$1" && return 0
	echo "error: test_file_not_empty: '$1' is empty" >&4
	return 1
}

# --- Making things ----------------------------------------------------

# test_write_lines LINE...: print each argument on a line of its own.
test_write_lines () {
	printf '%s\n' "$@"
}

# test_tick: move the git author and committer clocks a minute forward.
test_tick () {
	if test -z "$test_tick"
	then
		test_tick=1700000000
	else
		test_tick=$((test_tick + 60))
	fi
	GIT_AUTHOR_DATE="$test_tick +0000"
	GIT_COMMITTER_DATE="$test_tick +0000"
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

# test_commit MESSAGE [FILE [CONTENTS]]: write FILE (default
# MESSAGE.t) containing CONTENTS (default MESSAGE), add and commit it.
test_commit () {
	test $# -ge 1 && test $# -le 3 ||
		BUG "test_commit takes a message and optionally a file and contents"
	test_commit_file_=${2:-$1.t}
	printf '%s\n' "${3-$1}" >"$test_commit_file_" &&
	git add -- "$test_commit_file_" &&
	test_tick &&
	git commit -q -m "$1"
}

# --- Unit test programs -----------------------------------------------

# test_unit NAME [ARGS...]: run the C unit test program
# $KBX_TEST_UNIT/NAME (a TAP producer) and report each of its results
# as a test of this script, named "NAME: description".  A missing
# program, a non-zero exit, a death by signal, a sanitizer report, a
# missing or wrong plan are each reported as one more failed test.
# Call it at the top level of a script, not inside a test body.
test_unit () {
	test $# -ge 1 || BUG "test_unit needs the name of a unit test program"
	test_unit_name_=$1
	shift
	test_unit_prog_="$KBX_TEST_UNIT/$test_unit_name_"
	test_unit_out_="$TEST_LIB_TMP/unit.out"
	test_unit_err_="$TEST_LIB_TMP/unit.err"
	test_unit_failed_=0
	test_unit_not_ok_=0
	if ! test -x "$test_unit_prog_"
	then
		: >"$test_unit_err_"
		test_unit_extra_failure_ "program '$test_unit_prog_' is missing (not built?)"
		return 1
	fi
	(cd "$TRASH_DIRECTORY" && "$test_unit_prog_" "$@") \
		</dev/null >"$test_unit_out_" 2>"$test_unit_err_"
	test_run_code_=$?
	test_run_err_=$test_unit_err_
	if test -n "$test_verbose_"
	then
		cat "$test_unit_out_" "$test_unit_err_" >&3
	fi

	test_unit_plan_=
	test_unit_skip_all_=
	test_unit_ran_=0
	test_unit_pend_=
	test_unit_diag_=
	while IFS= read -r test_line_ || test -n "$test_line_"
	do
		case "$test_line_" in
		"#"*)
			test_unit_diag_="$test_unit_diag_$test_line_
"
			continue
			;;
		"not ok"|"not ok "*|"ok"|"ok "*|"Bail out!"*|"1.."*)
			test_unit_flush_
			;;
		*)
			continue
			;;
		esac
		case "$test_line_" in
		"1.."*)
			test_unit_plan_=${test_line_#1..}
			case "$test_unit_plan_" in
			*"#"*)
				test_unit_skip_all_=${test_unit_plan_#*#}
				test_unit_skip_all_=${test_unit_skip_all_# }
				test_unit_skip_all_=${test_unit_skip_all_#[Ss][Kk][Ii][Pp]}
				test_unit_skip_all_=${test_unit_skip_all_# }
				test_unit_skip_all_=${test_unit_skip_all_:-skipped}
				;;
			esac
			test_unit_plan_=${test_unit_plan_%%[!0-9]*}
			;;
		"Bail out!"*)
			test_unit_extra_failure_ "bailed out:${test_line_#Bail out!}"
			;;
		*)
			test_unit_ran_=$((test_unit_ran_ + 1))
			test_unit_pend_=$test_line_
			;;
		esac
	done <"$test_unit_out_"
	test_unit_flush_

	if test "$test_unit_plan_" = 0 && test -n "$test_unit_skip_all_" &&
		test "$test_unit_ran_" = 0
	then
		test_start_ "$test_unit_name_" success ""
		test_skipped_=$((test_skipped_ + 1))
		say_ "ok $test_count # skip $test_unit_name_ ($test_unit_skip_all_)"
	elif test -z "$test_unit_plan_"
	then
		test_unit_extra_failure_ "printed no TAP plan"
	elif test "$test_unit_plan_" != "$test_unit_ran_"
	then
		test_unit_extra_failure_ "planned $test_unit_plan_ test(s) but ran $test_unit_ran_"
	fi
	if test_bad_exit_ test_unit "$test_unit_prog_" "$@" 4>/dev/null
	then
		test_unit_extra_failure_ "$test_bad_why_"
	elif test "$test_run_code_" != 0 && test "$test_unit_not_ok_" = 0
	then
		test_unit_extra_failure_ "exited with code $test_run_code_"
	fi
	test "$test_unit_failed_" = 0
}

# One more failed test for a unit program as a whole; shows its stderr.
test_unit_extra_failure_ () {
	test_unit_failed_=$((test_unit_failed_ + 1))
	test_start_ "$test_unit_name_: $1" success ""
	test_log_=$test_unit_err_
	test_failure_ "$test_unit_name_: $1" ""
}

# Report the pending unit result, with the diagnostics that followed it.
test_unit_flush_ () {
	test_unit_line_=$test_unit_pend_
	test_unit_pend_=
	test_unit_case_diag_=$test_unit_diag_
	test_unit_diag_=
	test -n "$test_unit_line_" || return 0
	case "$test_unit_line_" in
	"not ok"*) test_unit_ok_= ; test_unit_line_=${test_unit_line_#not ok} ;;
	*) test_unit_ok_=t ; test_unit_line_=${test_unit_line_#ok} ;;
	esac
	test_unit_line_=${test_unit_line_# }
	test_unit_num_=${test_unit_line_%%[!0-9]*}
	test_unit_line_=${test_unit_line_#"$test_unit_num_"}
	test_unit_line_=${test_unit_line_# }
	test_unit_line_=${test_unit_line_#- }
	test_unit_directive_=
	case "$test_unit_line_" in
	*"#"*)
		test_unit_directive_=${test_unit_line_##*#}
		test_unit_directive_=${test_unit_directive_# }
		case "$test_unit_directive_" in
		[Ss][Kk][Ii][Pp]*|[Tt][Oo][Dd][Oo]*)
			test_unit_line_=${test_unit_line_%#*}
			test_unit_line_=${test_unit_line_% }
			;;
		*)
			test_unit_directive_=
			;;
		esac
		;;
	esac
	test_desc_="$test_unit_name_: ${test_unit_line_:-test $test_unit_num_}"
	test_start_ "$test_desc_" success ""
	case "$test_unit_directive_" in
	[Ss][Kk][Ii][Pp]*)
		test_unit_directive_=${test_unit_directive_#????}
		test_unit_directive_=${test_unit_directive_# }
		test_skipped_=$((test_skipped_ + 1))
		say_ "ok $test_count # skip $test_desc_ (${test_unit_directive_:-skipped})"
		;;
	[Tt][Oo][Dd][Oo]*)
		if test -n "$test_unit_ok_"
		then
			test_known_broken_ok_ "$test_desc_"
		else
			test_known_broken_failure_ "$test_desc_"
		fi
		;;
	*)
		if test -n "$test_unit_ok_"
		then
			test_ok_ "$test_desc_"
		else
			test_unit_failed_=$((test_unit_failed_ + 1))
			test_unit_not_ok_=$((test_unit_not_ok_ + 1))
			test_log_="$TEST_LIB_TMP/unit.case"
			printf '%s' "$test_unit_case_diag_" >"$test_log_"
			test_failure_ "$test_desc_" ""
		fi
		;;
	esac
}

# --- Go ---------------------------------------------------------------

for test_pat_ in $test_skip_patterns_
do
	case "$this_test_num_" in
	$test_pat_)
		skip_all="KBX_SKIP_TESTS"
		test_done
		;;
	esac
done
