#!/bin/sh
test_description='faults: queries with memory refused at every moment

Each query runs with its Nth allocation refused (tests/preload/
failmalloc.so, the C library'"'"'s malloc included), for N over all the
allocations the query makes.  Each run must print what a run with
memory to spare prints, with its exit status, or end with out of memory
(exit 9, and a line on stderr that says so); never a crash, never exit
0 with a shorter answer, never "nothing found".

What it found: a store that could not be located for want of memory
was used anyway (a crash after "error: success"); a graph walk whose
LMDB cursor could not be had answered "the index does not decode";
`callers` printed a path as "?" and `impact` as null; `cycles` left out
a cycle; search and hybrid dropped their vector signal or their words
and exited 0; `changed` took an unreadable directory for an empty one; glibc'"'"'s loader,
refused memory while loading the vector module, said "cannot create
shared object descriptor", and search took the module for missing;
`search` and `hybrid` refused the memory for the question exited 9
saying nothing.
Now every allocation kbx'"'"'s own code is refused is counted (lib/util/
alloc-count.c), and kbx ends with exit 9 when the count moved.'

. "$(dirname "$0")"/test-lib.sh

FAILMALLOC="$KBX_TEST_UNIT/../preload/failmalloc.so"

# not under a sanitizer build, whose runtime must come first
test_lazy_prereq FAILMALLOC '
	test -f "$FAILMALLOC" &&
	LD_PRELOAD="$FAILMALLOC" FAILMALLOC_REPORT=1 kbx --version 2>err &&
	grep "^allocations [0-9]" err
'

# sweep STEPS CMD...: run kbx -C repo CMD with its Nth allocation refused,
# for STEPS values of N spread over all it makes
sweep () {
	steps=$1 &&
	shift &&
	code=0 &&
	kbx -C repo "$@" >good 2>/dev/null || code=$? &&
	good_code=$code &&
	LD_PRELOAD="$FAILMALLOC" FAILMALLOC_REPORT=1 kbx -C repo "$@" >/dev/null 2>err || : &&
	total=$(sed -n "s/^allocations //p" err) &&
	test "$total" -gt 0 &&
	step=$((total / steps + 1)) &&
	same=0 short=0 &&
	n=0 &&
	while test $n -lt $total
	do
		code=0 &&
		LD_PRELOAD="$FAILMALLOC" FAILMALLOC_AFTER=$n FAILMALLOC_ONCE=1 \
			kbx -C repo "$@" >out 2>err || code=$? &&
		if test $code = 9 || {
			# glibc'"'"'s loader ends the process itself (_exit(127))
			# when memory runs out where dlopen cannot unwind
			test -n "$LOADER_EXIT" && test $code = 127 &&
			test_grep -i "out of memory\|cannot allocate memory" err
		}
		then
			short=$((short + 1)) &&
			test_grep -i "out of memory\|cannot allocate memory\|memory ran out" err
		else
			same=$((same + 1)) &&
			test $code = $good_code &&
			test_cmp good out
		fi || {
			echo "N=$n: exit $code (without the refusal $good_code): $(cat err)" >&4
			return 1
		}
		n=$((n + step))
	done &&
	printf "# %s: %s allocations, every %sth refused: %s runs as without, %s out of memory\n" \
		"$*" $total $step $same $short >&5 &&
	test $short -ge 1
}

test_expect_success FAILMALLOC 'setup: a tree with documents, its index' '
	"$TEST_DIRECTORY"/hostile/make-tree.sh repo 20 10 &&
	mkdir repo/docs &&
	printf "# Guide\\n\\n## Retries\\n\\nTry again after a pause when the call fails.\\n" >repo/docs/guide.md &&
	kbx -C repo index -q
'

test_expect_success FAILMALLOC 'graph queries' '
	sweep 60 callers --transitive f0005_01 &&
	sweep 60 callees --format=json pkg/m0000.py#f0000_00 &&
	sweep 60 impact --format=json f0005_01 &&
	sweep 40 path f0000_00 f0005_01 &&
	sweep 40 cycles &&
	sweep 30 dead &&
	sweep 30 defs --format=json f0005_01 &&
	sweep 30 status --format=json
'

test_expect_success FAILMALLOC 'search, hybrid and context' '
	sweep 60 search --limit=5 retry pause &&
	sweep 60 search --mode=vector --limit=5 class base &&
	sweep 60 hybrid --limit=5 what calls f0005_01 &&
	sweep 60 context --budget=2000 retry pause
'

# The vector module loaded (KBX_VECTOR_FLAT=module sends a flat file
# through it): memory refused inside dlopen is memory running out, never
# a search that goes on as if the module were missing.
test_expect_success FAILMALLOC,VECTOR 'search through the vector module' '
	(
		KBX_VECTOR_FLAT=module LOADER_EXIT=127 &&
		export KBX_VECTOR_FLAT &&
		sweep 180 search --mode=vector --limit=5 class base
	)
'

test_expect_success FAILMALLOC 'changed, check' '
	sweep 40 changed &&
	sweep 30 check
'

test_done
