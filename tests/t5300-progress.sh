#!/bin/sh
test_description='kbx index progress: on a terminal only, a summary either way, nothing with -q; lines for programs with --progress-fd'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq SCRIPT 'script -qc true /dev/null </dev/null >/dev/null'

test_expect_success 'set up a tree' '
	mkdir repo &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12
	do
		printf "def f$i():\n    return g$i()\n\ndef g$i():\n    return $i\n" >repo/m$i.py || return 1
	done
'

test_expect_success SCRIPT 'on a pseudo-terminal, progress shows phases and files done of total' '
	(cd repo && script -qec "kbx index" /dev/null >../tty.out </dev/null) &&
	tr "\r" "\n" <tty.out >tty.lines &&
	test_grep "^scan" tty.lines &&
	test_grep "^parse  *12/12 files (100%)" tty.lines &&
	test_grep "^resolve  *[0-9]*/12 files" tty.lines &&
	test_grep "^write" tty.lines &&
	test_grep "indexed 12 files in" tty.lines
'

test_expect_success 'in a pipe, no progress, but the summary' '
	(cd repo && kbx index --rebuild 2>../pipe.err) &&
	test_grep ! "$(printf "\r")" pipe.err &&
	test_grep ! "^parse" pipe.err &&
	test_grep "indexed 12 files in" pipe.err &&
	test_grep "^search: [0-9]* chunks" pipe.err &&
	test_line_count = 2 pipe.err
'

test_expect_success SCRIPT '-q is quiet even on a terminal' '
	(cd repo && script -qec "kbx index -q --rebuild" /dev/null >../q.out </dev/null) &&
	test_must_be_empty q.out
'

test_expect_success '--progress-fd: a line a step, "phase done total", even with -q and in a pipe' '
	(cd repo && kbx index -q --rebuild --progress-fd=3 3>../prog 2>../prog.err) &&
	test_must_be_empty prog.err &&
	test_grep "^parse 12 12$" prog &&
	test_grep "^resolve [0-9]* 12$" prog &&
	test_grep ! -v -E "^[a-z]+ [0-9]+ [0-9]+$" prog
'

test_expect_success '--progress-fd: a descriptor that is not open is an error' '
	(cd repo && test_expect_code 2 kbx index -q --progress-fd=9 2>../err) &&
	test_grep "progress-fd=9 is not an open file descriptor" err &&
	(cd repo && test_expect_code 2 kbx index -q --progress-fd=-3 2>../err) &&
	test_grep "progress-fd=-3 is not an open file descriptor" err
'

test_done
