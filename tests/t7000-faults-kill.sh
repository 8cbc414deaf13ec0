#!/bin/sh
test_description='faults: kbx index killed with SIGKILL at random moments

A generated tree of 1,601 files (800 Python modules, 400 C files and
their headers; a full index takes a few seconds) is indexed once.  Then,
25 times (200 with KBX_TEST_LONG=1), some modules are rewritten, a
"kbx index" (every other time "kbx index --rebuild") is started and
killed with SIGKILL after a random delay, and the store is checked:

 - it opens: "kbx status" exits 0;
 - it answers from a complete generation: with G and A the generation
   and the answers of the last complete run before the kill, the store
   after the kill is either at generation G with exactly the answers A
   (the run died before its commit) or at G+1 with exactly the answers
   that a complete run of the new tree gives (it died after); never
   anything else;
 - the next "kbx index" completes, finds nothing left to do when the
   killed run had committed, and gives the new tree'"'"'s answers.

At the end, the graph built by all those interrupted and incremental
runs equals a fresh index of the same tree in another store: status
counts, every name, and the transitive callees, callers and subclasses
of the chain that reaches every function.  The outputs are compared
byte for byte: query results come in an order that does not depend on
the internal node ids, which do depend on the history of the store.

The search index is written after the graph, in a transaction of its
own, and then the vector file.  After each kill, kbx search must work,
without a warning: until the new vector file is written it searches the
old one with the chunks added since beside it, and a file written but
not yet recorded is stamped with the generation of the chunks it holds.
After the next run the vector index is current again.  At the end the
search index (chunk and posting counts) equals a fresh one too.

The delays come from a seeded generator: the seed is printed, and
KBX_TEST_SEED=N repeats a run.'

# read before test-lib.sh clears every KBX_* variable
kill_seed=$KBX_TEST_SEED

. "$(dirname "$0")"/test-lib.sh

iterations=25
test_have_prereq EXPENSIVE && iterations=200
if test -z "$kill_seed"
then
	kill_seed=$(( ($$ * 7919 + $(date +%s)) % 1000000 ))
fi
printf '# kill seed %s, %s iterations (KBX_TEST_SEED=%s repeats them)\n' \
	"$kill_seed" "$iterations" "$kill_seed" >&5

# The probes: two functions at both ends of the chain, which every
# rewrite of their module changes, and the generation.
probe () {
	kbx -C repo status --format=json >"$1.status" &&
	sed -n 's/.*"generation":\([0-9]*\).*/\1/p' "$1.status" >"$1.gen" &&
	kbx -C repo callees --format=json pkg/m0000.py#f0000_00 >"$1.ans" &&
	kbx -C repo callees --format=json pkg/m0799.py#f0799_00 >>"$1.ans" &&
	kbx -C repo defines --format=nul pkg/m0400.py >>"$1.ans"
}

# kill_plan I: the mode of run I, the delay before its kill in seconds,
# and the modules to rewrite first.  The delay is uniform over the
# run's expected length and half as much again, so that some kills come
# after the commit.
kill_plan () {
	awk -v seed="$kill_seed" -v i="$1" -v full="$full_ms" -v incr="$incr_ms" 'BEGIN {
		srand(seed * 1000 + i)
		rebuild = i % 2
		ms = (rebuild ? full : incr) * 1.5 * rand()
		printf "%s %.3f", rebuild ? "--rebuild" : "--quiet", ms / 1000
		printf " pkg/m0000.py pkg/m0799.py pkg/m0400.py"
		for (k = 0; k < 60; k++)
			printf " pkg/m%04d.py", int(rand() * 800)
	}'
}

# what the store holds, for comparing two stores of the same tree
# The store as queries see it.  Left out, besides times and sizes: the
# generations, and how the vectors are split between the vector file and
# the delta searched beside it, which depends on where earlier runs
# stopped (the file is rebuilt once the delta reaches a tenth of the
# chunks); vectors_state, still compared, says every chunk is searchable.
dump () {
	kbx "$@" status --format=json >dump.status &&
	sed -e 's/"root":"[^"]*",//' -e 's/"store":"[^"]*",//' \
		-e 's/"generation":[0-9]*,//' -e 's/"created":"[^"]*",//' \
		-e 's/"search_generation":[0-9]*,//' \
		-e 's/"updated":"[^"]*",//' -e 's/,"store_bytes":[0-9]*//' \
		-e 's/,"map_bytes":[0-9]*//' \
		-e 's/"vectors":[0-9]*,"vector_delta":[0-9]*,//' dump.status &&
	kbx "$@" complete-symbols --max=0 &&
	kbx "$@" callees --transitive --format=json pkg/m0000.py#f0000_00 &&
	kbx "$@" callers --transitive --format=json csrc/c0399.c#c0399_entry &&
	kbx "$@" subclasses --transitive --format=json pkg/m0000.py#Base0000 &&
	kbx "$@" imports --format=json pkg/m0123.py
}

test_expect_success 'setup: a generated tree of 1,601 files, indexed' '
	git init -q repo &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh repo 800 400 &&
	t0=$(date +%s%N) &&
	kbx -C repo index --format=json >first.json &&
	full_ms=$((($(date +%s%N) - t0) / 1000000)) &&
	test_grep "\"scanned\":1601" first.json &&
	set -- $(kill_plan 0) &&
	shift 2 &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo 0 "$@" &&
	t0=$(date +%s%N) &&
	kbx -C repo index --format=json >incr.json &&
	incr_ms=$((($(date +%s%N) - t0) / 1000000)) &&
	probe prev &&
	test_grep "v0_0000" prev.ans &&
	test_grep "v0_0799" prev.ans &&
	printf "# a full index takes %s ms, an incremental one of 63 files %s ms\n" \
		"$full_ms" "$incr_ms" >&5 &&
	sed -e "s/.*\"ms_scan\"/# phases of the full index (ms): \"ms_scan\"/" first.json >&5 &&
	before_commit=0 after_commit=0 finished=0
'

i=1
while test $i -le $iterations
do
	test_expect_success "kill $i: the store opens and answers from a complete generation" '
		plan=$(kill_plan $i) &&
		set -- $plan &&
		mode=$1 delay=$2 &&
		shift 2 &&
		"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo "$i" "$@" &&
		{ kbx -C repo index -q $mode & } &&
		pid=$! &&
		sleep "$delay" &&
		{ kill -9 $pid 2>/dev/null || :; } &&
		code=0 &&
		{ wait $pid || code=$?; } &&
		echo "iteration $i: $mode, killed after $delay s, exit $code" >&3 &&
		{ test $code = 0 || test $code = 137 || {
			echo "kbx index exited with $code" >&4; return 1; }; } &&
		probe killed &&
		{ kbx -C repo search --format=nul "f0000_00 chain" >/dev/null 2>search.err ||
		  test $? = 1; } &&
		test_must_be_empty search.err &&
		kbx -C repo index --format=json >catch.json &&
		probe now &&
		test_grep "\"vectors_state\":\"current\"" now.status &&
		test_grep "\"v${i}_0000\"" now.ans &&
		test_grep "\"v${i}_0799\"" now.ans &&
		g=$(cat prev.gen) gk=$(cat killed.gen) gc=$(cat now.gen) &&
		test $gc = $((gk + 1)) &&
		if test $gk = $g
		then
			test $code = 137 &&
			test_cmp prev.ans killed.ans &&
			before_commit=$((before_commit + 1))
		elif test $gk = $((g + 1))
		then
			test_cmp now.ans killed.ans &&
			test_grep "\"parsed\":0" catch.json &&
			test_grep "\"removed\":0" catch.json &&
			if test $code = 0
			then
				finished=$((finished + 1))
			else
				after_commit=$((after_commit + 1))
			fi
		else
			echo "generation $gk after the kill; $g before it" >&4 &&
			return 1
		fi &&
		mv now.ans prev.ans &&
		mv now.gen prev.gen
	'
	i=$((i + 1))
done

test_expect_success 'the kills landed both before and after the commit' '
	printf "# %s killed before the commit, %s killed after it, %s had finished\n" \
		"$before_commit" "$after_commit" "$finished" >&5 &&
	test $before_commit -gt 0 &&
	test $((after_commit + finished)) -gt 0
'

test_expect_success 'no process is left holding the store, and it did not balloon' '
	kbx -C repo index -q &&
	env=repo/.kbx &&
	if test -f $env/current; then env=$env/$(cat $env/current); fi &&
	size=$(wc -c <$env/data.mdb) &&
	printf "# data.mdb: %s bytes after %s interrupted runs\n" "$size" "$iterations" >&5 &&
	test "$size" -lt 400000000
'

test_expect_success 'the graph after all the interrupted runs equals a fresh index' '
	dump -C repo >after-kills.dump &&
	KBX_DIR="$PWD/fresh" kbx -C repo index -q &&
	(KBX_DIR="$PWD/fresh" && export KBX_DIR && dump -C repo) >fresh.dump &&
	test_line_count -gt 20000 fresh.dump &&
	test_cmp fresh.dump after-kills.dump
'

test_done
