#!/bin/sh
test_description='faults: readers during writes, readers killed mid-query, two writers

A generated tree of 801 files (400 Python modules, 200 C files and their
headers) where every version of the tree gives each module a function
vV_NNNN that the module'"'"'s first function calls, so one query, the
transitive callees of pkg/m0000.py#f0000_00, names 400 such functions,
all of the same version V in a complete index.

 - Readers during writes: two loops of that query run while "kbx index"
   runs again and again over new versions (some of them with a tiny
   first map, so that the writer also grows the map under the readers).
   Every query must exit 0 and name exactly 400 functions of one version
   that was or is being committed: never a mix, never an empty answer.
 - Readers killed mid-query: while another reader keeps the store open
   (so LMDB never resets its reader table), 300 readers are killed with
   SIGKILL in the middle of their query.  Their stale slots must not
   fill the table (254 slots): the next kbx clears them
   (mdb_reader_check), and 300 more readers must all succeed.
 - Two writers: a second "kbx index" while the first holds the lock
   exits 5 ("busy, retry") at once and leaves the first run to finish
   and commit exactly its own result.'

. "$(dirname "$0")"/test-lib.sh

versions=6
test_have_prereq EXPENSIVE && versions=30

test_lazy_prereq MDB_STAT 'mdb_stat -V'
test_lazy_prereq FLOCK 'flock -V'
test_lazy_prereq PROC 'test -d /proc/self/task && test -r /proc/self/wchan'

# the reader table, as mdb_stat prints it (it exits 1 after printing it)
read_readers () {
	mdb_stat -r repo/.kbx >readers
	test_grep "Reader Table Status" readers
}

. "$TEST_DIRECTORY"/hostile/versions.sh

# check_answer FILE: the transitive callees in FILE (NUL-separated ids)
# name 400 version functions, all of one version; prints that version.
check_answer () {
	one_version "$1" 400
}

index_version () {
	case $(($1 % 3)) in
	0) kbx -C repo index -q --rebuild ;;
	1) kbx -C repo index -q ;;
	2) KBX_MAP_SIZE=64k kbx -C repo index -q --rebuild ;;
	esac
}

test_expect_success 'setup: a generated tree of 801 files, indexed' '
	git init -q repo &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh repo 400 200 &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo 0 $(tree_modules 400) &&
	kbx -C repo index --format=json >first.json &&
	test_grep "\"scanned\":801" first.json &&
	kbx -C repo callees --transitive --format=nul pkg/m0000.py#f0000_00 >first.out &&
	echo 0 >expect &&
	check_answer first.out >actual &&
	test_cmp expect actual
'

test_expect_success 'readers during repeated index runs see one complete version' '
	rm -f writer.done writer.bad writer.committed r1.* r2.* &&
	echo 0 >writer.committed &&
	{ reader_loop graph r1 & } &&
	{ reader_loop graph r2 & } &&
	writer_loop $versions &&
	wait &&
	readers_ok r1 r2 &&
	sort -u r1.seen r2.seen >seen &&
	comm -23 seen committed >never-committed &&
	test_must_be_empty never-committed &&
	queries=$(($(cat r1.count) + $(cat r2.count))) &&
	printf "# %s queries during %s index runs, all complete; versions seen: %s\n" \
		"$queries" "$versions" "$(echo $(cat seen))" >&5 &&
	test $(wc -l <seen) -ge 2
'

test_expect_success 'the last version is what the store answers now' '
	kbx -C repo callees --transitive --format=nul pkg/m0000.py#f0000_00 >last.out &&
	echo $versions >expect &&
	check_answer last.out >actual &&
	test_cmp expect actual
'

# A reader that cannot write its answer (its pipe is full and nobody
# reads it) holds its read transaction and keeps the environment open:
# LMDB resets its reader table only when the first process opens it, so
# from now on a killed reader's slot stays taken until someone clears
# it.
test_expect_success 'a reader blocked on its output holds the store open' '
	{ { kbx -C repo callees --transitive --format=nul pkg/m0000.py#f0000_00
	    echo $? >held.rc; } | {
		while ! test -f held.go
		do
			sleep 0.05
		done
		cat >held.out
	} & } &&
	held=$! &&
	sleep 0.5 &&
	test_path_is_missing held.rc
'

# Each reader writes its answer into a FIFO that nobody reads, so it
# blocks in the middle of its query, read transaction open, until the
# kill.  (The test shell holds the FIFO open, so opening it never waits.)
test_expect_success PROC '300 readers killed mid-query' '
	mkfifo full.fifo &&
	exec 7<>full.fifo &&
	batch=1 &&
	while test $batch -le 10
	do
		pids= &&
		for r in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 \
			21 22 23 24 25 26 27 28 29 30
		do
			{ kbx -C repo callees --transitive --format=nul \
				pkg/m0000.py#f0000_00 >full.fifo 2>>killed.err & } &&
			pids="$pids $!" || return 1
		done &&
		tries=0 &&
		for p in $pids
		do
			until grep pipe_write /proc/$p/wchan >/dev/null 2>&1
			do
				tries=$((tries + 1)) &&
				test $tries -lt 250 &&
				sleep 0.02 || break
			done
		done &&
		{ kill -9 $pids 2>/dev/null || :; } &&
		for p in $pids
		do
			code=0 &&
			{ wait $p || code=$?; } &&
			if test $code != 137
			then
				echo "batch $batch: a reader exited with $code" >&4 &&
				return 1
			fi || return 1
		done &&
		batch=$((batch + 1)) || return 1
	done &&
	exec 7<&- &&
	test_must_be_empty killed.err
'

test_expect_success PROC,MDB_STAT 'the killed readers left stale slots behind' '
	read_readers &&
	sed -n "s/^ *\([0-9][0-9]*\) .*/\1/p" readers >pids &&
	stale=0 &&
	for p in $(cat pids)
	do
		if ! kill -0 $p 2>/dev/null
		then
			stale=$((stale + 1))
		fi
	done &&
	printf "# %s stale reader slots in the table\n" "$stale" >&5 &&
	test $stale -ge 1
'

test_expect_success PROC,MDB_STAT 'the next kbx clears them' '
	kbx -C repo status >/dev/null &&
	read_readers &&
	sed -n "s/^ *\([0-9][0-9]*\) .*/\1/p" readers >pids &&
	test_line_count = 1 pids &&
	kill -0 $(cat pids)
'

test_expect_success '300 more readers, 30 at a time, all succeed' '
	batch=1 &&
	while test $batch -le 10
	do
		pids= &&
		for r in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 \
			21 22 23 24 25 26 27 28 29 30
		do
			{ kbx -C repo callees --format=nul pkg/m0000.py#f0000_00 \
				>/dev/null 2>>readers.err & } &&
			pids="$pids $!" || return 1
		done &&
		for p in $pids
		do
			wait $p || { echo "a reader failed: $?" >&4; return 1; }
		done &&
		batch=$((batch + 1)) || return 1
	done &&
	test_must_be_empty readers.err
'

test_expect_success 'the blocked reader goes on with its snapshot' '
	: >held.go &&
	wait $held &&
	echo 0 >expect &&
	test_cmp expect held.rc &&
	echo $versions >expect &&
	check_answer held.out >actual &&
	test_cmp expect actual
'

# The first writer is stopped while its parser threads run (it holds
# the lock and its write transaction then), so that the second one
# certainly comes while the first runs.  Not earlier: stopped inside
# mdb_env_open, a process that opens the environment first holds LMDB's
# exclusive lock on lock.mdb, and every other process waits for it.
test_expect_success FLOCK,PROC 'a second writer exits 5 at once, the first finishes unharmed' '
	n=1 &&
	while test $n -le 3
	do
		v=$((versions + n)) &&
		"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo $v $(tree_modules 400) &&
		kbx -C repo status --format=json >before.json &&
		{ kbx -C repo index -q --rebuild --threads=2 & } &&
		first=$! &&
		tries=0 &&
		while test $(ls /proc/$first/task | wc -l) -lt 3
		do
			tries=$((tries + 1)) &&
			test $tries -lt 1000 &&
			sleep 0.005 || return 1
		done &&
		kill -STOP $first &&
		test_must_fail flock -n repo/.kbx/index.lock true &&
		test_expect_code 5 kbx -C repo index 2>err &&
		test_grep "another kbx process (pid $first) is indexing" err &&
		test_expect_code 5 kbx -C repo index --rebuild 2>err &&
		kbx -C repo callees --transitive --format=nul pkg/m0000.py#f0000_00 >during.out &&
		echo $((v - 1)) >expect &&
		check_answer during.out >actual &&
		test_cmp expect actual &&
		kill -CONT $first &&
		wait $first &&
		kbx -C repo callees --transitive --format=nul pkg/m0000.py#f0000_00 >after.out &&
		echo $v >expect &&
		check_answer after.out >actual &&
		test_cmp expect actual &&
		g0=$(sed -n "s/.*\"generation\":\([0-9]*\).*/\1/p" before.json) &&
		kbx -C repo status --format=json >after.json &&
		test_grep "\"generation\":$((g0 + 1))," after.json &&
		n=$((n + 1)) || return 1
	done
'

test_expect_success FLOCK 'two writers started together: one indexes, the other exits 5' '
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo 99 $(tree_modules 400) &&
	{ kbx -C repo index -q --rebuild 2>w1.err & } && p1=$! &&
	{ kbx -C repo index -q --rebuild 2>w2.err & } && p2=$! &&
	c1=0 c2=0 &&
	{ wait $p1 || c1=$?; } &&
	{ wait $p2 || c2=$?; } &&
	echo "exit codes $c1 $c2" >&3 &&
	case "$c1 $c2" in
	"0 5"|"5 0"|"0 0") : ;;
	*) echo "unexpected exit codes $c1 $c2" >&4; return 1 ;;
	esac &&
	kbx -C repo callees --transitive --format=nul pkg/m0000.py#f0000_00 >both.out &&
	echo 99 >expect &&
	check_answer both.out >actual &&
	test_cmp expect actual
'

test_done
