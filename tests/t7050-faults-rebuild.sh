#!/bin/sh
test_description='faults: the search index across kbx index --rebuild

"kbx index" commits the code graph, then the search index in a
transaction of its own, then writes the vector file.  A reader must see
the old index or the new one, for search as for the graph, also while a
rebuild runs, when it is killed, and when the disk fills up between the
two commits.

A generated tree of 401 files (200 Python modules, 100 C files and their
headers) where every version V of the tree gives each module a function
vV_NNNN that the module'"'"'s first function calls.  A lexical search for
the names of every version names 200 such functions, all of one version
in a complete search index; a search scoped to pkg/m0000.py names one,
and f0000_00.

 - Readers during repeated "kbx index --rebuild" (and a plain "kbx
   index" every third time): searches (lexical, hybrid, scoped to a
   file) and a graph query run in loops.  Every answer must be exit 0,
   with no warning, and name the functions of exactly one version; the
   scoped search, which joins the graph and the search index, may name
   none between their commits (the new graph no longer has the old
   version'"'"'s function, and the old chunks not yet the new one), but
   still f0000_00, which both have.
 - SIGKILL after the graph has committed: a poller watches the graph'"'"'s
   generation, and kills the rebuild at a random moment of its search
   phase.  Search then answers with the old version or the new one,
   without a warning, and the next "kbx index" finishes the rebuild of
   the search index.
 - A full disk after the graph has committed: the store lives on a
   small tmpfs with room for the graph but not for the new chunks (needs
   root and mount; skipped otherwise).  Exit 7, the summary claims no
   chunk, search still answers from the old chunks, and the next run,
   with room, finishes the job.

The delays come from a seeded generator: the seed is printed, and
KBX_TEST_SEED=N repeats a run.'

# read before test-lib.sh clears every KBX_* variable
kill_seed=$KBX_TEST_SEED

. "$(dirname "$0")"/test-lib.sh

versions=6
kills=12
test_have_prereq EXPENSIVE && versions=24 kills=60
# (the versions of the big tree stay below 100, see query below)
if test -z "$kill_seed"
then
	kill_seed=$(( ($$ * 7919 + $(date +%s)) % 1000000 ))
fi
printf '# kill seed %s (KBX_TEST_SEED=%s repeats it)\n' "$kill_seed" "$kill_seed" >&5

test_lazy_prereq TMPFS '
	test "$(id -u)" = 0 &&
	mkdir m &&
	mount -t tmpfs -o size=1m tmpfs m &&
	umount m
'

. "$TEST_DIRECTORY"/hostile/versions.sh
MODULES=200

# a query that names the version functions of every version used: the
# big tree'"'"'s below 100, the small one'"'"'s from 100 to 103 (a query keeps
# 256 terms)
query=$(awk 'BEGIN { for (v = 0; v <= 103; v++) printf "v%d ", v }')

# The readers, for reader_loop (tests/hostile/versions.sh), besides its
# graph query
read_lexical () {
	kbx -C repo search --mode=lexical --limit=2000 --format=nul $query >"$1.out" 2>"$1.err"
}
check_lexical () {
	one_version "$1.out" $MODULES
}
read_scoped () {
	kbx -C repo search --mode=lexical --within=pkg/m0000.py --format=nul $query \
		>"$1.out" 2>"$1.err"
}
# The scope comes from the graph, the chunks from the search index: in
# between their commits, the old chunks of the definitions that the new
# graph still has, f0000_00 but not the old version'"'"'s function.
check_scoped () {
	tr '\0' '\n' <"$1.out" >"$1.ids" &&
	test_grep "^pkg/m0000.py#f0000_00$" "$1.ids" &&
	versions_in "$1.out" >"$1.v" &&
	test $(wc -l <"$1.v") -le 1 &&
	cat "$1.v"
}
read_hybrid () {
	kbx -C repo search --format=nul "f0000_00 calls v0_0000" >"$1.out" 2>"$1.err"
}
check_hybrid () {
	tr '\0' '\n' <"$1.out" >"$1.ids" &&
	test_grep "^pkg/m0000.py#f0000_00$" "$1.ids" &&
	echo any
}
index_version () {
	case $(($1 % 3)) in
	0) kbx -C repo index -q ;;
	*) kbx -C repo index -q --rebuild ;;
	esac
}

test_expect_success 'setup: a generated tree of 401 files, indexed' '
	git init -q repo &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh repo $MODULES 100 &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo 0 $(tree_modules $MODULES) &&
	kbx -C repo index --format=json >first.json &&
	test_grep "\"scanned\":401" first.json &&
	for kind in lexical scoped hybrid graph
	do
		read_$kind first &&
		test_must_be_empty first.err &&
		check_$kind first >actual || return 1
	done &&
	echo 0 >expect &&
	check_lexical first >actual &&
	test_cmp expect actual
'

# A run killed between putting its vector file in place and recording it
# (lib/search/sync.c, mark_vectors_built), made by hand: the store records
# generation 1, the file is of generation 2 and its stamp is only the
# next one, and chunks have changed since (the search generation is 5).
# A search uses the file and the delta; the next run builds the file again
# and records it.
test_expect_success 'a vector file put in place but not recorded: searches use it, the next run records one' '
	git init -q mark &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh mark 20 5 &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch mark 0 $(tree_modules 20) &&
	kbx -C mark index -q &&
	kbx -C mark status --format=json >mark.status &&
	test_grep "\"search_generation\":2," mark.status &&
	stamp=$(stat -c "%s:%.9Y:%i:%d" mark/.kbx/vectors.kbxv) &&
	"$KBX_TEST_UNIT"/store-set-meta mark/.kbx vectors 1 &&
	"$KBX_TEST_UNIT"/store-set-meta mark/.kbx vector_file 0:0.000000000:0:0 &&
	"$KBX_TEST_UNIT"/store-set-meta mark/.kbx vector_file_next "$stamp" &&
	"$KBX_TEST_UNIT"/store-set-meta mark/.kbx search_generation 5 &&
	kbx -C mark search --mode=vector --format=nul --limit=5 "function calls" >mark.out 2>mark.err &&
	test_must_be_empty mark.err &&
	test -s mark.out &&
	kbx -C mark index --format=json >mark.json &&
	test_grep "\"vectors_rebuilt\":true" mark.json &&
	kbx -C mark status --format=json >mark.status &&
	test_grep "\"search_generation\":5," mark.status &&
	test_grep "\"vectors_state\":\"current\"" mark.status &&
	kbx -C mark search --mode=vector --format=nul --limit=5 "function calls" >mark.out 2>mark.err &&
	test_must_be_empty mark.err &&
	test -s mark.out
'

# A vector file that cannot be put in place (a directory where it goes):
# the rebuild fails with the chunks committed and every one of them in
# the delta, which searches compare one by one.  The next run, though
# nothing changed, writes the file.
test_expect_success 'a vector file that could not be written is written by the next run' '
	git init -q novec &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh novec $MODULES 100 &&
	kbx -C novec index -q &&
	mkdir -p novec/.kbx/vectors.kbxv.new/in-the-way &&
	test_expect_code 6 kbx -C novec index --rebuild 2>novec.err &&
	test_grep "cannot build the vector index" novec.err &&
	kbx -C novec status --format=json >novec.status &&
	test_grep ! "\"vector_delta\":0," novec.status &&
	kbx -C novec search --mode=vector --format=nul --limit=5 "function calls" >novec.out 2>novec.err &&
	test_must_be_empty novec.err &&
	test -s novec.out &&
	rm -r novec/.kbx/vectors.kbxv.new &&
	kbx -C novec index --format=json >novec.json &&
	test_grep "\"chunks_added\":0," novec.json &&
	test_grep "\"vectors_rebuilt\":true" novec.json &&
	kbx -C novec status --format=json >novec.status &&
	test_grep "\"vectors_state\":\"current\"" novec.status &&
	test_grep "\"vector_delta\":0," novec.status
'

test_expect_success 'readers during repeated rebuilds see one complete version' '
	rm -f writer.done writer.bad writer.committed r-* &&
	echo 0 >writer.committed &&
	{ reader_loop lexical r-lexical & } &&
	{ reader_loop scoped r-scoped & } &&
	{ reader_loop hybrid r-hybrid & } &&
	{ reader_loop graph r-graph & } &&
	writer_loop $versions &&
	wait &&
	readers_ok r-lexical r-scoped r-hybrid r-graph &&
	sort -u r-lexical.seen r-graph.seen >seen &&
	comm -23 seen committed >never-committed &&
	test_must_be_empty never-committed &&
	printf "# %s lexical, %s scoped, %s hybrid searches and %s graph queries during %s runs; versions seen: %s\n" \
		$(cat r-lexical.count r-scoped.count r-hybrid.count r-graph.count) \
		"$versions" "$(echo $(sort -n seen))" >&5 &&
	test $(wc -l <seen) -ge 2
'

# graph_at V: the graph has committed version V (a cheap query, polled)
graph_at () {
	kbx -C repo defines --format=nul pkg/m0000.py >poll.out 2>/dev/null
	tr '\0' '\n' <poll.out >poll.ids &&
	grep "^pkg/m0000.py#v$1_0000$" poll.ids >/dev/null
}

# ms NAME: the milliseconds that rebuild.json gives the search phase
# (milliseconds) or a part of it
ms () {
	sed -n "s/.*\"search\":{.*\"$1\":\([0-9]*\)[,}].*/\1/p" rebuild.json
}

test_expect_success 'setup: how long the search phase of a rebuild takes' '
	kbx -C repo index --rebuild --format=json >rebuild.json &&
	search_ms=$(ms milliseconds) &&
	window_ms=$(($(ms ms_chunk) + $(ms ms_postings) + $(ms ms_embed))) &&
	printf "# the search phase of a rebuild takes %s ms, %s ms before its commit\n" \
		"$search_ms" "$window_ms" >&5 &&
	version=$versions old_search=0 new_search=0 finished=0
'

# kill_delay I: how long to wait after the graph committed, in seconds:
# uniform over the time before the search index commits for odd I, over
# the search phase and a fifth more for even I
kill_delay () {
	awk -v seed="$kill_seed" -v i="$1" -v w="$window_ms" -v ms="$search_ms" 'BEGIN {
		srand(seed * 1000 + i)
		printf "%.3f", (i % 2 ? w : ms * 1.2) * rand() / 1000
	}'
}

i=1
while test $i -le $kills
do
	test_expect_success "kill $i after the graph committed: search answers the old or the new version" '
		old=$version &&
		version=$((version + 1)) &&
		"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo $version $(tree_modules $MODULES) &&
		{ kbx -C repo index -q --rebuild & } &&
		pid=$! &&
		while ! graph_at $version && kill -0 $pid 2>/dev/null
		do
			:
		done &&
		delay=$(kill_delay $i) &&
		sleep $delay &&
		{ kill -9 $pid 2>/dev/null || :; } &&
		code=0 &&
		{ wait $pid || code=$?; } &&
		echo "kill $i: killed $delay s after the graph committed, exit $code" >&3 &&
		{ test $code = 0 || test $code = 137 || {
			echo "kbx index exited with $code" >&4; return 1; }; } &&
		read_graph killed &&
		echo $version >expect &&
		check_graph killed >actual &&
		test_cmp expect actual &&
		for kind in lexical scoped hybrid
		do
			read_$kind killed-$kind &&
			test_must_be_empty killed-$kind.err &&
			check_$kind killed-$kind >>killed.seen || return 1
		done &&
		v=$(one_version killed-lexical.out $MODULES) &&
		versions_in killed-scoped.out >scoped.v &&
		if test "$v" = $version
		then
			echo $version >expect.scoped
		else
			: >expect.scoped
		fi &&
		test_cmp expect.scoped scoped.v &&
		kbx -C repo index --format=json >catch.json &&
		kbx -C repo status --format=json >catch.status &&
		test_grep "\"vectors_state\":\"current\"" catch.status &&
		read_lexical now &&
		test_must_be_empty now.err &&
		check_lexical now >actual &&
		test_cmp expect actual &&
		if test "$v" = $old
		then
			# the search index of the killed run did not commit: the
			# next run makes every chunk again, as the rebuild would have
			test $code = 137 &&
			chunks=$(sed -n "s/.*\"search\":{.*\"chunks\":\([0-9]*\),.*/\1/p" catch.json) &&
			test_grep "\"chunks_added\":$chunks," catch.json &&
			old_search=$((old_search + 1))
		elif test "$v" = $version
		then
			test_grep "\"parsed\":0," catch.json &&
			if test $code = 0
			then
				finished=$((finished + 1))
			else
				new_search=$((new_search + 1))
			fi
		else
			echo "search answers version $v; the old one is $old" >&4 &&
			return 1
		fi
	'
	i=$((i + 1))
done

test_expect_success 'the kills landed before and after the search index committed' '
	printf "# %s killed with the old search index, %s with the new one, %s had finished\n" \
		"$old_search" "$new_search" "$finished" >&5 &&
	test $old_search -gt 0
'

# The disk fills in the search phase: on a fresh store of a small tree,
# an index and a run that rewrites every module with room leave the pages
# of the old graph and chunks free in data.mdb, room for a new graph but
# not for new chunks; the disk is then filled, and a rebuild of the next
# version has to commit its graph in those pages and fail on its chunks.
# (Not a first --rebuild: it compacts the store, and leaves nothing free;
# nor does the rebuild on the full disk get to compact, having failed.)
full_rebuild () {
	rm -rf disk/store disk/filler &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch small $(($1 + 500)) $(tree_modules 100) &&
	KBX_DIR="$PWD/disk/store" kbx -C small index -q &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch small $1 $(tree_modules 100) &&
	KBX_DIR="$PWD/disk/store" kbx -C small index -q &&
	KBX_DIR="$PWD/disk/store" kbx -C small status --format=json >before.status &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch small $(($1 + 1)) $(tree_modules 100) &&
	{ dd if=/dev/zero of=disk/filler bs=64k 2>/dev/null || :; } &&
	code=0 &&
	{ KBX_DIR="$PWD/disk/store" kbx -C small index --rebuild $2 >out 2>err || code=$?; } &&
	cat err >&3 &&
	test $code = 7 &&
	test_grep "No space left on device" err &&
	test_grep "the code graph is rebuilt; the search index is as it was" err
}

# small_search NAME, small_graph NAME: the store on the disk answers,
# without a warning, with the 100 version functions of one version:
# prints it
small_search () {
	KBX_DIR="$PWD/disk/store" kbx -C small search --mode=lexical --limit=2000 --format=nul \
		$query >"$1.out" 2>"$1.err" &&
	test_must_be_empty "$1.err" &&
	one_version "$1.out" 100
}
small_graph () {
	KBX_DIR="$PWD/disk/store" kbx -C small callees --transitive --format=nul \
		pkg/m0000.py#f0000_00 >"$1.out" &&
	one_version "$1.out" 100
}

# catch_up V: with room again, the next run makes every chunk again
catch_up () {
	rm disk/filler &&
	KBX_DIR="$PWD/disk/store" kbx -C small index --format=json >catch.json &&
	chunks=$(sed -n "s/.*\"search\":{.*\"chunks\":\([0-9]*\),.*/\1/p" catch.json) &&
	test_grep "\"chunks_added\":$chunks," catch.json &&
	test_grep "\"chunks_removed\":$chunks," catch.json &&
	echo $1 >expect &&
	small_search now >actual &&
	test_cmp expect actual &&
	KBX_DIR="$PWD/disk/store" kbx -C small status --format=json >now.status &&
	test_grep "\"vectors_state\":\"current\"" now.status
}

test_expect_success TMPFS 'setup: a small tree, and a store on a 64 MB disk' '
	git init -q small &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh small 100 50 &&
	mkdir disk &&
	mount -t tmpfs -o size=64m tmpfs disk
'

test_expect_success TMPFS 'the disk fills after the graph committed: exit 7, no chunk claimed (JSON)' '
	full_rebuild 100 --format=json &&
	g0=$(sed -n "s/.*\"generation\":\([0-9]*\),.*/\1/p" before.status) &&
	test_grep "^{\"type\":\"index\",\"generation\":$((g0 + 1))," out &&
	test_grep "\"chunks_added\":0,\"chunks_removed\":0," out &&
	test_grep "\"sources_changed\":0,\"sources_removed\":0," out &&
	test_grep "\"vectors_rebuilt\":false" out &&
	echo 101 >expect &&
	small_graph graph >actual &&
	test_cmp expect actual &&
	echo 100 >expect &&
	small_search old >actual &&
	test_cmp expect actual
'

test_expect_success TMPFS 'with room, the next run finishes the rebuild of the search index' '
	catch_up 101
'

test_expect_success TMPFS 'the disk fills after the graph committed: exit 7, no chunk claimed (text)' '
	full_rebuild 102 &&
	test_must_be_empty out &&
	test_grep "^indexed 201 files" err &&
	test_grep "^search: not updated (see the error above); [0-9]* chunks ([0-9]* code) as before$" err &&
	test_grep ! "vectors" err &&
	echo 102 >expect &&
	small_search old >actual &&
	test_cmp expect actual &&
	catch_up 103
'

test_expect_success TMPFS 'cleanup: the disk goes' '
	umount disk
'

test_done
