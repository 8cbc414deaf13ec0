#!/bin/sh
test_description='kbx index --threads: worker threads make the same index as one

The code graph is parsed on worker threads and written by one; the code
chunks of the search index too: workers read the files and the
definitions the committed graph has for them, cut the chunks'"'"' texts,
count their terms and embed them (builtin embedding), and one thread
writes what they made, in order.  So the index must not depend on the
number of threads: on a generated tree of 120 Python modules and 60 C
files (tests/hostile/make-tree.sh), runs with 1, 2 and 4 threads give
the same summary counts and byte for byte the same answers (callers,
callees, lexical, hybrid and vector search), from scratch and after an
edit.  (Not the size of the store file: where LMDB puts pages, which
the order of its writes decides, may take a page more or less; and not
the generation, which counts runs.)

A run that fails on a worker leaves the old index: with the address
space limited (ulimit -v), runs stop with "out of memory" at one point
or another, or cannot start their threads (the writer then makes the
chunks itself); whatever happens, the answers are those of the old index
or of the new one, never a mix, and never a crash.

The summary says where the CPU time went (cpu_ms, kbx-json(7)), the
workers'"'"' share included.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq ULIMIT_V '(ulimit -v 1000000 && kbx --version)'

# answers DIR OUT: what the index in DIR answers, and its counts
answers () {
	{
		kbx -C "$1" callers --format=json f0003_01 &&
		kbx -C "$1" callees --transitive --format=json pkg/m0000.py#f0000_00 &&
		kbx -C "$1" search --mode=lexical --limit=50 --format=json "f0004_00 calls" &&
		kbx -C "$1" search --limit=50 --format=json "function that calls the next module" &&
		kbx -C "$1" search --mode=vector --limit=50 --format=json "class base inherit" &&
		kbx -C "$1" status --format=json
	} >"$2.raw" &&
	sed -e "s|/$1\([/\"]\)|/DIR\1|g" -e "s/\"\(created\|updated\|store_bytes\|generation\)\":[^,}]*//g" "$2.raw" >"$2"
}

# counts FILE: the counts of an index summary, without the times
counts () {
	python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
s = r["search"]
print(r["parsed"], r["nodes"], r["edges"], s["chunks"], s["chunks_added"],
      s["embedded"], s["embed_repeated"], s["embed_cached"], s["vectors"])
' "$1"
}

test_expect_success PYTHON3 'setup: a generated tree, indexed with 1, 2 and 4 threads' '
	"$TEST_DIRECTORY"/hostile/make-tree.sh tree 120 60 &&
	for n in 1 2 4
	do
		cp -R tree repo$n &&
		kbx -C repo$n index --threads=$n --format=json >sum$n.json 2>err$n &&
		test_must_be_empty err$n || return 1
	done
'

test_expect_success PYTHON3 'the same counts and the same answers with 1, 2 and 4 threads' '
	counts sum1.json >counts1 &&
	read parsed rest <counts1 &&
	test "$parsed" -gt 150 &&
	for n in 1 2 4
	do
		answers repo$n ans$n &&
		counts sum$n.json >counts$n || return 1
	done &&
	test_cmp counts1 counts2 &&
	test_cmp counts1 counts4 &&
	test_cmp ans1 ans2 &&
	test_cmp ans1 ans4
'

test_expect_success PYTHON3 'after an edit, and after --rebuild, still the same' '
	for n in 1 2
	do
		"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo$n 1 \
			$(awk "BEGIN { for (i = 0; i < 120; i += 7) printf \"pkg/m%04d.py \", i }") &&
		kbx -C repo$n index --threads=$n --format=json >edit$n.json &&
		answers repo$n edit-ans$n &&
		kbx -C repo$n index --rebuild --threads=$n --format=json >rebuild$n.json &&
		answers repo$n rebuild-ans$n &&
		counts edit$n.json >edit-counts$n &&
		counts rebuild$n.json >rebuild-counts$n || return 1
	done &&
	test_cmp edit-counts1 edit-counts2 &&
	test_cmp edit-ans1 edit-ans2 &&
	test_cmp rebuild-counts1 rebuild-counts2 &&
	test_cmp rebuild-ans1 rebuild-ans2 &&
	! test_cmp ans1 edit-ans1 >/dev/null
'

test_expect_success PYTHON3 'the summary says where the CPU time went, the workers'"'"' share included' '
	python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
g, s = r[\"cpu_ms\"], r[\"search\"][\"cpu_ms\"]
assert sorted(g) == [\"commit\", \"extract\", \"parse\", \"resolve\", \"scan\", \"write\"], g
assert sorted(s) == [\"chunk\", \"embed\", \"other\", \"postings\", \"tokenize\", \"vectors\"], s
assert all(v >= 0 for v in list(g.values()) + list(s.values())), (g, s)
# 180 files parsed and 300 chunks embedded take some CPU time
assert g[\"parse\"] + g[\"extract\"] > 0 and s[\"embed\"] + s[\"tokenize\"] > 0, (g, s)
" sum2.json
'

# loads_in: the smallest address space, in MB by 4, in which kbx starts
# (the binary grows with its grammars: the limits below count from it)
loads_in () {
	mb=16
	while ! (ulimit -v $((mb * 1024)) && kbx --version) >/dev/null 2>&1
	do
		test $mb -lt 1024 || return 1
		mb=$((mb + 4))
	done
	echo $mb
}

# touch DIR VERSION: rewrite every fifth module as of VERSION
touch_tree () {
	"$TEST_DIRECTORY"/hostile/make-tree.sh --touch "$1" "$2" \
		$(awk "BEGIN { for (i = 0; i < 120; i += 5) printf \"pkg/m%04d.py \", i }")
}

test_expect_success ULIMIT_V 'out of address space: the old index or the new one, never a mix, never a crash' '
	rm -rf new &&
	cp -R tree new &&
	kbx -C new index -q --threads=2 &&
	touch_tree new 2 &&
	kbx -C new index -q --threads=2 &&
	answers new after &&
	failed=0 finished=0 &&
	base=$(loads_in) &&
	echo "kbx starts in $base MB" >&3 &&
	for extra in 0 44 48 52 56 60 64 68 72 76 80 120 280
	do
		mb=$((base + extra)) &&
		rm -rf try &&
		cp -R tree try &&
		kbx -C try index -q --threads=2 &&
		answers try before &&
		! test_cmp before after >/dev/null &&
		touch_tree try 2 &&
		code=0 &&
		{ (MALLOC_ARENA_MAX=1 && export MALLOC_ARENA_MAX &&
		   ulimit -v $((mb * 1024)) &&
		   kbx -C try index -q --threads=2 2>err) || code=$?; } &&
		echo "limit $mb MB: exit $code: $(head -n 2 err)" >&3 &&
		answers try now &&
		case $code in
		0)
			finished=$((finished + 1)) &&
			test_cmp after now ;;
		[2-9]|1[0-9])
			failed=$((failed + 1)) &&
			# the graph may have committed before the search index
			# failed: then the graph is new and the search old
			if ! test_cmp before now >/dev/null
			then
				test_grep "the code graph is up to date" err &&
				kbx -C try index -q --threads=2 &&
				answers try now &&
				test_cmp after now
			fi ;;
		*)
			echo "exit $code" >&4 && return 1 ;;
		esac || return 1
	done &&
	printf "# address space limits: %s runs failed, %s finished\n" $failed $finished >&5 &&
	test $failed -ge 1 &&
	test $finished -ge 1
'

test_done
