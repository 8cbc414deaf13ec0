#!/bin/sh
test_description='kbx index: the store compacted into .kbx/db.N and switched to by .kbx/current

A run that writes the whole graph (the first, and index --rebuild)
writes the store again, compacted, into a new directory and renames .kbx/current to name it (lib/store/compact.c).
A reader that had the old store open goes on answering from it, learns
that it is outdated and opens the new one; a run killed at any moment
leaves a store that answers as before, and the next writer removes what
it left.'

. "$(dirname "$0")"/test-lib.sh

# the size of the data file in use
data_size () {
	if test -f repo/.kbx/current
	then
		wc -c <"repo/.kbx/$(cat repo/.kbx/current)/data.mdb"
	else
		wc -c <repo/.kbx/data.mdb
	fi
}

# wait_lines FILE N: until FILE has N lines (10 s at most)
wait_lines () {
	i=0
	while test $(wc -l <"$1") -lt "$2"
	do
		test $i -lt 200 || return 1
		i=$((i + 1))
		sleep 0.05
	done
}

test_expect_success 'setup: every store compacted, small ones too' '
	kbx config --user index.compact eager
'

test_expect_success 'the first run compacts into db.1; incremental runs fragment it' '
	git init -q repo &&
	mkdir repo/pkg &&
	i=0 &&
	while test $i -lt 60
	do
		printf "from pkg.m0 import f0_0\n\ndef f%d_0(x):\n    return f%d_1(x) + f0_0(x)\n\ndef f%d_1(x):\n    return x\n" \
			$i $i $i >repo/pkg/m$i.py &&
		i=$((i + 1))
	done &&
	: >repo/pkg/__init__.py &&
	(cd repo && kbx index --format=json >../first.json) &&
	test_grep "\"compacted\":{" first.json &&
	printf "db.1\n" >expect &&
	test_cmp expect repo/.kbx/current &&
	test_path_is_missing repo/.kbx/data.mdb &&
	for round in 1 2 3 4 5
	do
		i=$round &&
		while test $i -lt 60
		do
			printf "\ndef g%d_%d(y):\n    return f%d_0(y)\n" $i $round $i >>repo/pkg/m$i.py &&
			i=$((i + 7))
		done &&
		(cd repo && kbx index -q) || return 1
	done &&
	test_cmp expect repo/.kbx/current &&
	(cd repo && kbx callers --format=nul pkg/m0.py#f0_0 >../callers.before)
'

test_expect_success 'index --rebuild compacts the store into db.2 and says so' '
	before=$(data_size) &&
	(cd repo && kbx index --rebuild --format=json >../rebuild.json) &&
	test_grep "\"compacted\":{\"bytes_before\":[0-9]*,\"bytes_after\":[0-9]*" rebuild.json &&
	printf "db.2\n" >expect &&
	test_cmp expect repo/.kbx/current &&
	test_path_is_missing repo/.kbx/db.1 &&
	after=$(data_size) &&
	printf "# data file: %s bytes before, %s after\n" "$before" "$after" >&5 &&
	test "$after" -lt "$before" &&
	b=$(sed -n "s/.*\"bytes_before\":\([0-9]*\).*/\1/p" rebuild.json) &&
	a=$(sed -n "s/.*\"bytes_after\":\([0-9]*\).*/\1/p" rebuild.json) &&
	test "$a" -lt "$b" &&
	(cd repo && kbx callers --format=nul pkg/m0.py#f0_0 >../callers.after) &&
	test_cmp callers.before callers.after &&
	(cd repo && kbx status >../status.out) &&
	test_grep "generation" status.out
'

test_expect_success 'the text summary names the compaction; a second one moves to db.3' '
	(cd repo && kbx index --rebuild 2>../rebuild.err) &&
	test_grep "compacted the index from .* MiB to .* MiB in" rebuild.err &&
	printf "db.3\n" >expect &&
	test_cmp expect repo/.kbx/current &&
	test_path_is_missing repo/.kbx/db.2 &&
	(cd repo && kbx callers --format=nul pkg/m0.py#f0_0 >../callers.after) &&
	test_cmp callers.before callers.after
'

test_expect_success 'the vector file of a rebuild is recorded in the compacted store' '
	(cd repo && kbx index --rebuild --format=json >../vecs.json) &&
	test_grep "\"compacted\":{" vecs.json &&
	test_grep "\"vectors_rebuilt\":true" vecs.json &&
	printf "db.4\n" >expect &&
	test_cmp expect repo/.kbx/current &&
	(cd repo && kbx status --format=json >../vecs.status) &&
	test_grep "\"vectors_state\":\"current\"" vecs.status &&
	test_grep "\"vector_delta\":0," vecs.status &&
	(cd repo && kbx search --mode=vector --format=nul --limit=3 "return x" >../vecs.out 2>../vecs.err) &&
	test_must_be_empty vecs.err &&
	test -s vecs.out
'

test_expect_success 'an incremental run with little free space does not compact' '
	echo "# a comment" >>repo/pkg/m3.py &&
	(cd repo && kbx index --format=json >../inc.json) &&
	test_grep ! compacted inc.json &&
	printf "db.4\n" >expect &&
	test_cmp expect repo/.kbx/current
'

test_expect_success 'a reader open across the switch answers from the old store, then sees the new one' '
	mkfifo cmds &&
	: >reader.out &&
	{ "$KBX_TEST_UNIT/store-reader" repo/.kbx <cmds >reader.out 2>reader.err & } &&
	exec 8>cmds &&
	echo info >&8 &&
	wait_lines reader.out 1 &&
	old=$(sed -n "1s/generation=\([0-9]*\).*/\1/p" reader.out) &&
	(cd repo && kbx index --rebuild -q) &&
	printf "db.5\n" >expect &&
	test_cmp expect repo/.kbx/current &&
	test_path_is_missing repo/.kbx/db.4 &&
	echo info >&8 &&
	echo outdated >&8 &&
	echo refresh >&8 &&
	echo info >&8 &&
	echo outdated >&8 &&
	exec 8>&- &&
	wait_lines reader.out 6 &&
	wait &&
	cat reader.out >&5 &&
	sed -n "1p" reader.out >first &&
	sed -n "2p" reader.out >second &&
	test_cmp first second &&
	printf "outdated=1\nrefreshed\n" >expect &&
	sed -n "3,4p" reader.out >actual &&
	test_cmp expect actual &&
	test_grep "^generation=$((old + 1)) " reader.out &&
	printf "outdated=0\n" >expect &&
	sed -n "6p" reader.out >actual &&
	test_cmp expect actual &&
	test_must_be_empty reader.err
'

test_expect_success 'a reader opening while a compaction runs gets an answer every time' '
	(
		i=0 &&
		while test $i -lt 4
		do
			kbx -C repo index --rebuild -q || exit 1
			i=$((i + 1))
		done
	) &
	writer=$! &&
	n=0 &&
	while kill -0 $writer 2>/dev/null
	do
		kbx -C repo callers --format=nul pkg/m0.py#f0_0 >callers.during || return 1
		test_cmp callers.before callers.during || return 1
		n=$((n + 1))
	done &&
	wait $writer &&
	printf "# %s queries during 4 compactions\n" $n >&5
'

test_expect_success 'what a killed compaction leaves is ignored by readers and removed by the next writer' '
	cur=$(cat repo/.kbx/current) &&
	mkdir repo/.kbx/db.99 &&
	echo half-written >repo/.kbx/db.99/data.mdb &&
	: >repo/.kbx/db.99/lock.mdb &&
	echo db.99 >repo/.kbx/current.tmp &&
	echo stale >repo/.kbx/data.mdb &&
	(cd repo && kbx callers --format=nul pkg/m0.py#f0_0 >../callers.after) &&
	test_cmp callers.before callers.after &&
	(cd repo && kbx index -q) &&
	test_path_is_missing repo/.kbx/db.99 &&
	test_path_is_missing repo/.kbx/current.tmp &&
	test_path_is_missing repo/.kbx/data.mdb &&
	echo "$cur" >expect &&
	test_cmp expect repo/.kbx/current &&
	ls repo/.kbx | grep "^db\." >dirs &&
	echo "$cur" >expect &&
	test_cmp expect dirs
'

test_expect_success 'a current that names nothing, or garbage, is an error with advice; --rebuild recovers' '
	cp repo/.kbx/current current.saved &&
	echo db.77 >repo/.kbx/current &&
	(cd repo && test_expect_code 3 kbx callers pkg/m0.py#f0_0 2>../err) &&
	test_grep "db.77. that .*current. names is missing: run .kbx index --rebuild." err &&
	printf "../../etc\n" >repo/.kbx/current &&
	(cd repo && test_must_fail kbx callers pkg/m0.py#f0_0 2>../err) &&
	test_grep "current. does not name a store directory" err &&
	(cd repo && test_must_fail kbx index 2>../err) &&
	test_grep "current. does not name a store directory" err &&
	(cd repo && kbx index --rebuild -q) &&
	(cd repo && kbx callers --format=nul pkg/m0.py#f0_0 >../callers.after) &&
	test_cmp callers.before callers.after
'

test_expect_success SYMLINKS 'a current that is a link is refused' '
	mv repo/.kbx/current current.real &&
	ln -s "$TRASH_DIRECTORY/current.real" repo/.kbx/current &&
	(cd repo && test_must_fail kbx callers pkg/m0.py#f0_0 2>../err) &&
	test_grep "current. is a symbolic link" err &&
	rm repo/.kbx/current &&
	mv current.real repo/.kbx/current
'

# Kill a --rebuild at moments spread over its whole run, compaction
# included: the store answers as before every time, and the next run
# leaves one store directory.
test_expect_success 'kill -9 at any moment of index --rebuild leaves a working store' '
	start=$(date +%s%N) &&
	(cd repo && kbx index --rebuild -q) &&
	ms=$(( ($(date +%s%N) - start) / 1000000 )) &&
	printf "# a rebuild takes %s ms\n" $ms >&5 &&
	k=1 &&
	while test $k -le 16
	do
		# on a line of its own: "A && (B) &" would put all of A && (B)
		# in the background, and kill that shell instead of kbx
		delay=$(( ms * k / 12 ))
		(cd repo && exec kbx index --rebuild -q) &
		pid=$! &&
		sleep $(printf "%d.%03d" $((delay / 1000)) $((delay % 1000))) &&
		{ kill -9 $pid 2>/dev/null || :; } &&
		{ wait $pid; :; } &&
		(cd repo && kbx status >/dev/null) &&
		(cd repo && kbx callers --format=nul pkg/m0.py#f0_0 >../callers.after) &&
		test_cmp callers.before callers.after || return 1
		k=$((k + 1))
	done &&
	(cd repo && kbx index -q) &&
	ls repo/.kbx | grep "^db\." >dirs &&
	test_line_count = 1 dirs &&
	test_path_is_missing repo/.kbx/current.tmp
'

test_expect_success 'index.compact=auto leaves a store under 32 MiB as it was written; never, any store' '
	git init -q small &&
	printf "def f():\n    return g()\n\ndef g():\n    return 1\n" >small/a.py &&
	(cd small && kbx -c index.compact=auto index --format=json >../auto.json) &&
	test_grep ! compacted auto.json &&
	test_path_is_file small/.kbx/data.mdb &&
	test_path_is_missing small/.kbx/current &&
	(cd small && kbx -c index.compact=auto index --rebuild --format=json >../auto.json) &&
	test_grep ! compacted auto.json &&
	(cd small && kbx -c index.compact=never index --rebuild --format=json >../never.json) &&
	test_grep ! compacted never.json &&
	test_path_is_missing small/.kbx/current &&
	(cd small && kbx index --rebuild --format=json >../eager.json) &&
	test_grep "\"compacted\":{" eager.json &&
	test_path_is_file small/.kbx/db.1/data.mdb &&
	test_path_is_missing small/.kbx/data.mdb &&
	(cd small && kbx defs g) >out &&
	test_grep "a.py:4" out
'

command -v fincore >/dev/null 2>&1 && test_set_prereq FINCORE

test_expect_success FINCORE 'the compacted store starts in the page cache, not only on the disk' '
	(cd repo && kbx index --rebuild --format=json >../cached.json) &&
	test_grep "\"compacted\":{" cached.json &&
	data="repo/.kbx/$(cat repo/.kbx/current)/data.mdb" &&
	fincore --bytes --noheadings --output RES,SIZE "$data" >fc &&
	read res size <fc &&
	echo "resident $res of $size" &&
	test "$size" -gt 0 &&
	test $((res * 2)) -ge "$size"
'

test_done
