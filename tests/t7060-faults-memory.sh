#!/bin/sh
test_description='faults: memory refused at every moment of an index run

An address space limit (t8160) stops a run at one moment or another,
as it happens.  Here the unit program index-nomem refuses kbx'"'"'s
allocations at a moment it is told: the Nth one after a point, once
(a large block cannot be had, small ones still can) or from then on.
Its N is swept over the whole run: the scan of the tree, reading and
extracting the files, writing them, resolving the calls, the commit.

Every run must end in one of two ways: it finishes, and the index
answers as a run with memory to spare makes it; or it fails with out of
memory (exit 9), having committed nothing, and the index answers as
before.  Never a crash, never an index with less in it than the files
say.  (A helper that ran out of memory used to answer "nothing": the
resolver then took a file for one that defines nothing and committed
its calls resolved by name alone, or as externals; a scan that lost a
name dropped a file from the index, and one that lost an ignore rule
indexed what .gitignore leaves out.)'

. "$(dirname "$0")"/test-lib.sh

# answers DIR OUT: what the code graph in DIR answers, and its counts
# (index-nomem runs the graph's part of kbx index, not the search's)
answers () {
	{
		kbx -C "$1" callees --transitive --format=json pkg/m0000.py#f0000_00 &&
		kbx -C "$1" callers --format=json f0005_01 &&
		kbx -C "$1" callers --format=json f0007_00 &&
		kbx -C "$1" status --format=json | grep -o "\"files\":.*\"edges_unresolved\":[0-9]*"
	} >"$2.raw" &&
	sed -e "s|/$1\([/\"]\)|/DIR\1|g" "$2.raw" >"$2"
}

# search_answers DIR OUT: what its search index answers: lexical hits
# and counts (OUT), and vector hits (OUT.vec, or the error that says the
# vector file is stale)
search_answers () {
	{
		kbx -C "$1" search --mode=lexical --limit=20 --format=json "f0005_00 calls" &&
		kbx -C "$1" search --mode=lexical --limit=10 --format=json "retry pause timeout" &&
		kbx -C "$1" status --format=json | grep -o "\"chunks\":.*\"postings\":[0-9]*"
	} >"$2.raw" &&
	sed -e "s|/$1\([/\"]\)|/DIR\1|g" "$2.raw" >"$2" &&
	{ kbx -C "$1" search --mode=vector --limit=5 --format=json "class base inherit" 2>&1 || :; } |
	sed -e "s|/$1\([/\"]\)|/DIR\1|g" >"$2.vec"
}

# fresh: try/, the edited tree with the index of before the edit
fresh () {
	rm -rf try &&
	cp -R new try &&
	rm -rf try/.kbx &&
	cp -R old/.kbx try/.kbx
}

# judge CODE SEARCH: a run of index-nomem that ended with CODE has left
# try/ as the description says; with SEARCH (1: the run had --search)
# its search index too: a run that fails may have committed the graph
# (then the search index is old or new, and the vector file new, old
# or said to be stale), never the search index without the graph
judge () {
	answers try now &&
	if test "$2" = 1
	then
		search_answers try snow
	fi &&
	case $1 in
	0)
		finished=$((finished + 1)) &&
		test_cmp after now &&
		if test "$2" = 1
		then
			test_cmp safter snow &&
			test_cmp safter.vec snow.vec
		fi ;;
	9)
		failed=$((failed + 1)) &&
		if test_cmp before now >/dev/null
		then
			test "$2" = 0 || {
				test_cmp sbefore snow &&
				test_cmp sbefore.vec snow.vec
			}
		else
			graph_only=$((graph_only + 1)) &&
			test "$2" = 1 &&
			test_cmp after now &&
			{ test_cmp sbefore snow >/dev/null || test_cmp safter snow; } &&
			{ test_cmp sbefore.vec snow.vec >/dev/null ||
			  test_cmp safter.vec snow.vec >/dev/null ||
			  test_grep "vector index is stale" snow.vec; }
		fi ;;
	*)
		false ;;
	esac
}

# sweep FIRST STEP LAST [OPTIONS]: index-nomem OPTIONS try N for N from
# FIRST to LAST by STEP; each run must end as judge says, and at least
# one fail (with --search, at least one after the graph's commit)
sweep () {
	first=$1 step=$2 last=$3 &&
	shift 3 &&
	search=0 &&
	case " $* " in *" --search "*) search=1 ;; esac &&
	finished=0 failed=0 graph_only=0 &&
	n=$first &&
	while test $n -le $last
	do
		fresh &&
		code=0 &&
		"$KBX_TEST_UNIT"/index-nomem "$@" "$PWD/try" $n >out 2>err || code=$? &&
		judge $code $search || {
			echo "N=$n: exit $code: $(cat out) $(cat err)" >&4
			return 1
		}
		n=$((n + step))
	done &&
	printf "# N from %s to %s by %s %s: %s runs finished, %s failed (%s with the graph new)\n" \
		$first $last $step "$*" $finished $failed $graph_only >&5 &&
	test $failed -ge 1 &&
	{ test $search = 0 || test $graph_only -ge 1; }
}

test_expect_success 'setup: a tree, its index, the tree edited, its index' '
	"$TEST_DIRECTORY"/hostile/make-tree.sh old 40 20 &&
	# what is ignored must stay out, whatever memory the rules need
	printf "csrc/c0005.c\n/pkg/m0030.py\n" >old/.gitignore &&
	# documents and a registry for the search index
	mkdir old/docs &&
	printf "# Guide\n\nHow the modules call each other.\n\n## Timeouts\n\nA call that waits too long gives up.\n" >old/docs/guide.md &&
	cp -R "$TEST_DIRECTORY"/registry/basic reg &&
	(cd old && kbx registry add ../reg) &&
	kbx -C old index -q &&
	cp -R old new &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch new 2 \
		pkg/m0000.py pkg/m0005.py pkg/m0010.py &&
	printf "\n## Retries\n\nTry again after a pause when the call fails.\n" >>new/docs/guide.md &&
	printf "# Notes\n\nThe chain of calls runs through every module.\n" >new/docs/notes.md &&
	fresh &&
	answers try before &&
	kbx -C new index -q &&
	answers new after &&
	! test_cmp before after >/dev/null &&
	test_grep ! "c0005\|m0030" after &&
	fresh &&
	"$KBX_TEST_UNIT"/index-nomem "$PWD/try" 999999999 >out &&
	answers try now &&
	test_cmp after now &&
	read word total rest <out &&
	total=${total%,} &&
	echo "allocations after the parse: $total" >&3 &&
	test "$total" -gt 100 &&
	echo "$total" >after-parse &&
	fresh &&
	"$KBX_TEST_UNIT"/index-nomem --from-start "$PWD/try" 999999999 >out &&
	read word total rest <out &&
	total=${total%,} &&
	echo "allocations in the run: $total" >&3 &&
	test "$total" -gt "$(cat after-parse)" &&
	echo "$total" >whole-run &&

	fresh &&
	search_answers try sbefore &&
	search_answers new safter &&
	! test_cmp sbefore safter >/dev/null &&
	"$KBX_TEST_UNIT"/index-nomem --search "$PWD/try" 999999999 >out &&
	answers try now &&
	test_cmp after now &&
	search_answers try snow &&
	test_cmp safter snow &&
	test_cmp safter.vec snow.vec &&
	read word total rest <out &&
	total=${total%,} &&
	echo "allocations after the parse, with the search index: $total" >&3 &&
	test "$total" -gt "$(cat after-parse)" &&
	echo "$total" >with-search
'

test_expect_success 'one allocation refused after the parse: the new index or the old' '
	sweep 0 5 $(cat after-parse) --once
'

test_expect_success 'every allocation refused from a point after the parse on' '
	sweep 0 23 $(cat after-parse)
'

test_expect_success 'one allocation refused in the scan, the reading or the extraction' '
	sweep 1 13 $(cat whole-run) --once --from-start
'

test_expect_success 'every allocation refused from a point of the whole run on' '
	sweep 2 41 $(cat whole-run) --from-start
'

test_expect_success 'one allocation refused while the search index is made after the graph' '
	sweep $(cat after-parse) 11 $(cat with-search) --search --once
'

test_expect_success 'every allocation refused from a point of the search index on' '
	sweep $(cat after-parse) 53 $(cat with-search) --search
'

test_done
