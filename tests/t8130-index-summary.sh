#!/bin/sh
test_description='kbx index: every number of the summary is of what was done, in text and in JSON

The first index of a tree with two functions of the same text embeds
that text once and says so (not "cached": no cache existed); a run that
adds chunks to the vectors searched beside the vector file says so (it
used to print no vector part at all, and "vectors": 0 in JSON); a run
with only a warning does not speak of "0 files and 0 entries" skipped;
a Markdown file too large to index is counted where its note is; and a
run stopped by a full disk says what was written and what was not.'

. "$(dirname "$0")"/test-lib.sh

# search_fields FIELD...: the fields of the search object of the index
# record on stdin, one line, "-" for null.
search_fields () {
	python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())["search"]
print(" ".join("-" if r[k] is None else str(r[k]).lower() for k in sys.argv[1:]))
' "$@"
}

test_expect_success 'setup: a repository with two functions of the same text' '
	git init -q repo &&
	cat >repo/a.py <<-\EOF &&
	def fetch_orders(user):
	    return user.orders


	def same_body():
	    pass
	EOF
	cat >repo/b.py <<-\EOF &&
	def same_body():
	    pass
	EOF
	printf "# Orders\n\nHow orders are fetched.\n" >repo/README.md
'

test_expect_success 'a first index: the repeated text is embedded once, and called repeated' '
	(cd repo && kbx index 2>../err) &&
	cat err >&3 &&
	test_grep "^search: 4 chunks (1 doc, 3 code): 4 added, 0 removed; vectors: 3 embedded, 1 repeated text; flat index of 4 written in " err &&
	test_grep ! "cache" err
'

test_expect_success PYTHON3 'and in JSON: embedded + cached (repeated among them) is what was added, vectors what the file holds' '
	rm -rf repo/.kbx &&
	(cd repo && kbx index --format=json >../index.json 2>/dev/null) &&
	search_fields embedded embed_repeated embed_cached chunks_added vectors vectors_rebuilt vector_index vector_delta <index.json >actual &&
	echo "3 1 1 4 4 true flat 0" >expect &&
	test_cmp expect actual
'

test_expect_success 'a run that changes nothing has no vector part' '
	(cd repo && kbx index 2>../err) &&
	test_grep "^search: 4 chunks (1 doc, 3 code): 0 added, 0 removed$" err &&
	test_line_count = 2 err
'

test_expect_success 'setup: a registry, one entry of which has a pattern that does not compile' '
	mkdir -p kb/errors/python &&
	cat >kb/errors/python/orders.yml <<-\EOF &&
	- id: "ord-001"
	  error_type: "OrderError"
	  severity: "medium"
	  pattern: "OrderError: no order"
	  cause: "the order was cancelled before it was fetched"
	  fix_template: "fetch the order again"

	- id: "ord-002"
	  error_type: "OrderTimeout"
	  severity: "low"
	  pattern: "OrderTimeout: ("
	  cause: "the order service did not answer in time"
	  fix_template: "retry with a longer timeout"
	EOF
	(cd repo && kbx registry add ../kb)
'

test_expect_success 'after registry add: the vectors added beside the vector file are told' '
	(cd repo && kbx index 2>../err) &&
	cat err >&3 &&
	test_grep "^search: 6 chunks (2 error, 1 doc, 3 code): 2 added, 0 removed; vectors: 2 embedded; 2 searched beside the flat index of 4 until it is built again$" err
'

test_expect_success 'a warning alone: no "skipped 0 files and 0 entries"' '
	test_grep "orders.yml:[0-9]*:[0-9]*: warning: entry .ord-002.: the pattern does not compile" err &&
	test_grep "^search: 1 warning (bad-pattern 1)$" err &&
	test_grep ! "skipped 0" err
'

test_expect_success PYTHON3 'and in JSON: the vector file is counted, not 0, and the delta beside it' '
	(cd repo && kbx index --format=json >../index.json 2>/dev/null) &&
	search_fields embedded vectors vector_index vectors_rebuilt vector_delta warnings files_skipped entries_skipped <index.json >actual &&
	echo "0 4 flat false 2 1 0 0" >expect &&
	test_cmp expect actual &&
	(cd repo && kbx status --format=json) >status.json &&
	test_grep "\"vectors\":4," status.json
'

test_expect_success 'a Markdown file left out is counted next to its note' '
	awk "BEGIN { print \"# Big\"; for (i = 0; i < 40000; i++) print \"a line of words that makes the file large\" }" \
		>repo/big.md &&
	(cd repo && kbx index 2>../err) &&
	test_grep "^note: skipped .big.md.: larger than the size limit" err &&
	test_grep "^search: 1 Markdown file left out, 1 warning (bad-pattern 1)$" err
'

test_expect_success PYTHON3 'and in JSON, without changing the exit status' '
	(cd repo && kbx index --format=json >../index.json 2>/dev/null) &&
	search_fields docs_skipped files_skipped <index.json >actual &&
	echo "1 0" >expect &&
	test_cmp expect actual &&
	rm repo/big.md
'

test_lazy_prereq TMPFS '
	test "$(id -u)" = 0 &&
	mkdir m &&
	mount -t tmpfs -o size=1m tmpfs m &&
	umount m
'

# A tree whose search index (about 16 MB with its vector cache) and
# vector file (about 2.7 MB) are much larger than its code graph.
test_expect_success TMPFS 'setup: Markdown that makes a search index of some size' '
	git init -q big &&
	echo "def f(): pass" >big/a.py &&
	mkdir big/docs &&
	awk "BEGIN {
		for (d = 0; d < 300; d++) {
			f = sprintf(\"big/docs/d%03d.md\", d);
			printf \"# Doc %d\n\n\", d >f;
			for (p = 0; p < 5; p++) {
				printf \"## Part %d\n\n\", p >f;
				for (w = 0; w < 200; w++)
					printf \"w%d \", (d * 7919 + p * 104729 + w * 31) % 50000 >f;
				printf \"\n\n\" >f
			}
			close(f)
		}
	}" &&
	cp -R big roomy &&
	(cd roomy && kbx index -q) &&
	vec=$(du -k roomy/.kbx/vectors.kbxv | cut -f1) &&
	all=$(du -sk roomy | cut -f1) &&
	echo $((all - vec / 2)) >disk-kb &&
	rm -rf roomy
'

test_expect_success TMPFS 'a disk that fills during the search index: the summary says what was written' '
	mkdir disk &&
	mount -t tmpfs -o size=$(cat disk-kb)k tmpfs disk &&
	test_when_finished "umount disk" &&
	cp -R big disk/ &&
	code=0 &&
	{ (cd disk/big && kbx index 2>../../err) || code=$?; } &&
	cat err >&3 &&
	test $code = 7 &&
	if test_grep -q "cannot build the vector index" err
	then
		: the chunks committed, the vector file did not fit &&
		test_grep "^search: 1501 chunks (1500 doc, 1 code): 1501 added, 0 removed; vectors: 1501 embedded; the vector index is not written (see the error above)$" err &&
		test_expect_code 7 kbx -C disk/big index --format=json >index.json 2>/dev/null &&
		search_fields vectors vector_index vectors_rebuilt chunks_added <index.json >actual &&
		echo "0 - false 0" >expect &&
		test_cmp expect actual
	else
		: nothing of the search index committed &&
		test_grep "^search: not updated (see the error above); 1 chunk (1 code) as before$" err
	fi
'

test_done
