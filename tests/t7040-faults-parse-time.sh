#!/bin/sh
test_description='faults: the parse time limit counts CPU time, not the time the machine took

index.parseTimeout limits the CPU time of the thread that parses a file,
so a file is not skipped because the machine was busy or kbx was not
running; a wall-clock ceiling of ten times the limit still ends a parse
that never gets the CPU.  The unit program checks the mechanism with a
thread that sleeps (its CPU clock does not move) and one that spins.
Here kbx is stopped with SIGSTOP in the middle of a parse for longer
than the limit: the file must still be indexed.  Nothing here depends
on how fast the machine is, only on a parse needing far less CPU time
than its limit, or far more.'

. "$(dirname "$0")"/test-lib.sh

test_unit cpu-limit

# big_module N: N small functions, about 64 bytes each
big_module () {
	awk -v n="$1" 'BEGIN {
		for (i = 0; i < n; i++)
			printf "def f%d(a, b):\n    return g(a, [b, {\"k\": (a, b)}]) + h%d(b)\n", i, i
	}'
}

test_expect_success 'setup: a module that takes a good part of a second to parse' '
	git init -q repo &&
	big_module 8000 >repo/big.py &&
	echo "def small(): return 1" >repo/small.py
'

test_expect_success 'a parse past its CPU limit is skipped, and the note says CPU time' '
	kbx -C repo config index.parseTimeout 1 &&
	kbx -C repo index --only=code 2>err &&
	test_grep "skipped .big.py.: parsing took longer than 1 ms of CPU time" err &&
	kbx -C repo defs small >out &&
	test_grep small.py out &&
	test_must_fail kbx -C repo defs f7999
'

test_expect_success 'kbx stopped mid-parse for longer than the limit still indexes the file' '
	kbx -C repo config index.parseTimeout 3s &&
	{ kbx -C repo index --only=code --rebuild --format=json >run.json 2>err & } &&
	pid=$! &&
	sleep 0.2 &&
	kill -STOP $pid &&
	sleep 4 &&
	kill -CONT $pid &&
	wait $pid &&
	test_grep ! "skipped .big.py." err &&
	waited=$(sed -n "s/.*\"ms_wait_parse\":\([0-9]*\).*/\1/p" run.json) &&
	if test "$waited" -ge 3000
	then
		echo "# stopped while parsing: waited $waited ms for the parse" >&5
	else
		echo "# the stop missed the parse (waited $waited ms for it)" >&5
	fi &&
	kbx -C repo defs --format=grep f7999 >out &&
	test_grep "^big.py:15999:" out
'

test_done
