#!/bin/sh

test_description='kbx --db impact and path --all-repos: across repositories

A throwaway cluster as in t9000.  The repositories of
tests/corpora/cross-repo that call each other in C (textkit, logger,
reporter) and Python (pyparse, pyreport) are pushed, and two written
here (ping, pong) whose functions call each other across the two.
impact --all-repos of a library function reaches its callers in the
other repositories, each named with its repository (text, JSON,
grep), once, with the distance and the confidence of the way (a call
that two repositories export is ambiguous), -d and --certain as over
one repository; path --all-repos crosses from one repository into
another (--all, --certain, the other way round none; --from-repo and
--to-repo choose an end that several define); a cycle across
repositories ends; a symbol in no repository is 1 as over the index,
and --all-repos without --db is 2.'

. ./test-lib.sh

TEST_NAME=t9050
. "$TEST_DIRECTORY/lib/pg-cluster.sh"

jfields () {
	python3 "$TEST_DIRECTORY/lib/jfields.py" "$@"
}

test_expect_success 'a cluster of its own, and the repositories pushed one by one' '
	pg_cluster_start &&
	for r in textkit logger reporter pyparse pyreport
	do
		cp -R "$CORPORA/cross-repo/$r" $r &&
		(cd $r && kbx index -q && kbx push -q --db="$DB") || return 1
	done
'

test_expect_success 'impact: the callers of a library function in every repository' '
	kbx --db="$DB" impact --all-repos --format=json text_length >out.json &&
	jfields type repo id distance from_repo from confidence <out.json >actual &&
	cat >expect <<-\EOF &&
	changed textkit src/text.c#text_length 0 textkit src/text.c#text_length certain
	affected reporter src/report.c#title_width 1 textkit src/text.c#text_length certain
	affected textkit src/text.c#text_copy 1 textkit src/text.c#text_length certain
	affected textkit src/text.c#text_hash 1 textkit src/text.c#text_length certain
	affected reporter src/report.c#set_title 2 textkit src/text.c#text_length certain
	affected reporter src/report.c#title_key 2 textkit src/text.c#text_length ambiguous
	affected reporter src/report.c#main 3 textkit src/text.c#text_length certain
	EOF
	test_cmp expect actual &&
	test_grep "\"line\":5,\"repo\":\"reporter\",\"distance\":1,\"from\":\"src/text.c#text_length\",\"from_repo\":\"textkit\"," out.json
'

test_expect_success 'impact: without --all-repos, the repository'"'"'s own callers only' '
	kbx --db="$DB" --repo=textkit impact --format=json text_length >out.json &&
	jfields repo id distance <out.json >actual &&
	cat >expect <<-\EOF &&
	- src/text.c#text_length 0
	- src/text.c#text_copy 1
	- src/text.c#text_hash 1
	EOF
	test_cmp expect actual
'

test_expect_success 'impact: the text and grep formats name each repository' '
	kbx --db="$DB" impact --all-repos text_length >out &&
	cat >expect <<-\EOF &&
	changed
	  [textkit] src/text.c:8  text_length (function)

	distance 1: direct callers
	  [reporter] src/report.c:5  title_width (function)
	  [textkit] src/text.c:16  text_copy (function)
	  [textkit] src/text.c:23  text_hash (function)

	distance 2: their callers
	  [reporter] src/report.c:10  set_title (function)
	  [reporter] src/report.c:16  title_key (function)  (through an ambiguous call)

	distance 3: their callers
	  [reporter] src/report.c:21  main (function)
	EOF
	test_cmp expect out &&
	kbx --db="$DB" impact --all-repos --format=grep text_length >out &&
	test_grep "^reporter/src/report.c:5:1: affected title_width (distance 1)\$" out &&
	test_grep "^textkit/src/text.c:8:1: changed text_length (distance 0)\$" out
'

test_expect_success 'impact: -d 1 and --certain as over one repository' '
	kbx --db="$DB" impact --all-repos -d 1 --format=json text_length >out.json &&
	jfields repo id distance <out.json >actual &&
	cat >expect <<-\EOF &&
	textkit src/text.c#text_length 0
	reporter src/report.c#title_width 1
	textkit src/text.c#text_copy 1
	textkit src/text.c#text_hash 1
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" impact --all-repos --certain --format=json text_length >out.json &&
	jfields repo id confidence <out.json >actual &&
	! grep title_key actual &&
	! grep ambiguous actual &&
	test_grep "^reporter src/report.c#main certain\$" actual
'

test_expect_success 'impact: a name two repositories define, each a start, each node once' '
	kbx --db="$DB" impact --all-repos --format=json text_hash >out.json &&
	jfields type repo id distance from_repo confidence <out.json >actual &&
	cat >expect <<-\EOF &&
	changed logger log.c#text_hash 0 logger certain
	changed textkit src/text.c#text_hash 0 textkit certain
	affected logger log.c#log_line 1 logger certain
	affected reporter src/report.c#title_key 1 logger ambiguous
	affected reporter src/report.c#main 2 logger ambiguous
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" impact --all-repos text_hash >out &&
	test_grep "^  \[logger\] log.c:13  log_line (function)  depends on \[logger\] log.c#text_hash\$" out
'

test_expect_success 'impact: Python, through the package'"'"'s module name' '
	kbx --db="$DB" impact --all-repos --format=json pyparse.tokens.split_words >out.json &&
	jfields repo id distance <out.json >actual &&
	cat >expect <<-\EOF &&
	pyparse src/pyparse/tokens.py#split_words 0
	pyparse src/pyparse/tokens.py#count_words 1
	pyreport summary.py#first_word 1
	pyreport summary.py#word_total 2
	pyreport summary.py#headline 2
	EOF
	test_cmp expect actual &&
	sort actual | uniq -d >dups &&
	test_must_be_empty dups
'

test_expect_success 'path: from one repository into another' '
	kbx --db="$DB" path --all-repos src/report.c#main text_length >out &&
	cat >expect <<-\EOF &&
	path 1: [reporter] src/report.c#main to [textkit] src/text.c#text_length, 3 steps
	  [reporter] src/report.c:23  src/report.c#main calls [reporter] src/report.c#set_title
	  [reporter] src/report.c:12  src/report.c#set_title calls [reporter] src/report.c#title_width
	  [reporter] src/report.c:7  src/report.c#title_width calls [textkit] src/text.c#text_length
	EOF
	test_cmp expect out &&
	kbx --db="$DB" path --all-repos --all --format=json src/report.c#main text_length >out.json &&
	jfields index from_repo to_repo confidence steps.1.to_repo steps.1.to steps.1.confidence \
		<out.json >actual &&
	cat >expect <<-\EOF &&
	1 reporter textkit certain reporter src/report.c#title_width certain
	2 reporter textkit certain textkit src/text.c#text_copy certain
	3 reporter textkit ambiguous textkit src/text.c#text_hash ambiguous
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" path --all-repos --all --certain --format=json src/report.c#main \
		text_length >out.json &&
	jfields index confidence <out.json >actual &&
	printf "%s\n" "1 certain" "2 certain" >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" path --all-repos --format=grep set_title text_length >out &&
	test_grep "^reporter/src/report.c:7:9: path 1, step 2 of 2: src/report.c#title_width calls \[textkit\] src/text.c#text_length\$" out
'

test_expect_success 'path: the other way round there is none (1); --max-depth holds; one repository stops at its external' '
	test_expect_code 1 kbx --db="$DB" path --all-repos text_length src/report.c#main 2>err &&
	test_grep "no call path from \[textkit\] src/text.c#text_length to \[reporter\] src/report.c#main" err &&
	test_expect_code 1 kbx --db="$DB" path --all-repos --max-depth=2 src/report.c#main \
		text_length 2>err &&
	test_grep "of at most 2 step" err &&
	kbx --db="$DB" --repo=reporter path --format=json src/report.c#main text_length >out.json &&
	jfields from_repo to <out.json >actual &&
	echo "- extern:text_length" >expect &&
	test_cmp expect actual
'

test_expect_success 'a name several repositories define: path asks for one, naming them' '
	test_expect_code 2 kbx --db="$DB" path --all-repos title_key text_hash 2>err &&
	test_grep "names 2 definitions" err &&
	test_grep -e "--to-repo" err &&
	test_grep "\[textkit\]" err &&
	test_grep "\[logger\]" err
'

test_expect_success '--to-repo and --from-repo choose the repository of an end' '
	kbx --db="$DB" path --all-repos --to-repo=textkit --format=json title_key text_hash \
		>out.json &&
	jfields from_repo to_repo to confidence <out.json >actual &&
	echo "reporter textkit src/text.c#text_hash ambiguous" >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" path --all-repos --from-repo=reporter --to-repo=logger --format=json \
		title_key text_hash >out.json &&
	jfields to_repo to <out.json >actual &&
	echo "logger log.c#text_hash" >expect &&
	test_cmp expect actual &&
	test_expect_code 1 kbx --db="$DB" path --all-repos --from-repo=pyparse title_key \
		text_hash 2>err &&
	test_grep "no symbol '"'title_key'"' in repository '"'pyparse'"' of the database" err &&
	test_expect_code 2 kbx --db="$DB" --repo=reporter path --to-repo=textkit title_key \
		text_hash 2>err &&
	test_grep "choose among the repositories" err
'

test_expect_success 'two repositories calling each other: a cycle across them ends' '
	mkdir ping pong &&
	cat >ping/ping.c <<-\EOF &&
	void pong(int n);

	void ping(int n)
	{
		if (n > 0)
			pong(n - 1);
	}

	void serve(void)
	{
		ping(3);
	}
	EOF
	cat >pong/pong.c <<-\EOF &&
	void ping(int n);

	void pong(int n)
	{
		if (n > 0)
			ping(n - 1);
	}
	EOF
	for r in ping pong
	do
		(cd $r && kbx index -q && kbx push -q --db="$DB") || return 1
	done &&
	kbx --db="$DB" impact --all-repos --format=json pong >out.json &&
	jfields repo id distance confidence <out.json >actual &&
	cat >expect <<-\EOF &&
	pong pong.c#pong 0 certain
	ping ping.c#ping 1 certain
	ping ping.c#serve 2 certain
	EOF
	test_cmp expect actual
'

test_expect_success 'a cycle: the path there and back' '
	kbx --db="$DB" path --all-repos --format=json serve pong >out.json &&
	jfields from_repo from to_repo to length <out.json >actual &&
	echo "ping ping.c#serve pong pong.c#pong 2" >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" path --all-repos --format=json pong ping.c#ping >out.json &&
	jfields from_repo to_repo length <out.json >actual &&
	echo "pong ping 1" >expect &&
	test_cmp expect actual
'

test_expect_success 'pictures: a node of each repository, its file named with it' '
	kbx --db="$DB" impact --all-repos --format=json text_length >out.json &&
	n=$(grep -c "\"type\":\"\(changed\|affected\)\"" out.json) &&
	kbx --db="$DB" impact --all-repos --format=dot text_length >out.dot &&
	test $(grep -c "^[[:space:]]*n[0-9]* \[label=" out.dot) = $n &&
	test_grep "label=\"reporter/src/report.c\"" out.dot &&
	test_grep "label=\"textkit/src/text.c\"" out.dot &&
	kbx --db="$DB" path --all-repos --format=mermaid src/report.c#main text_length >out.mmd &&
	test_grep "subgraph f[0-9]*\[\"reporter/src/report.c\"\]" out.mmd &&
	test_grep "subgraph f[0-9]*\[\"textkit/src/text.c\"\]" out.mmd &&
	test $(grep -c "^    n[0-9]*\[" out.mmd) = 4
'

test_expect_success 'a symbol in no repository: 1, as over the index' '
	(cd textkit && test_expect_code 1 kbx impact no_such_fn 2>/dev/null) &&
	test_expect_code 1 kbx --db="$DB" impact --all-repos no_such_fn 2>err &&
	test_grep "no symbol '"'no_such_fn'"' in any repository of the database" err &&
	test_expect_code 1 kbx --db="$DB" path --all-repos no_such_fn text_length 2>err &&
	test_grep "no symbol '"'no_such_fn'"' in any repository of the database" err
'

test_expect_success '--all-repos without --db: 2' '
	(cd textkit && test_expect_code 2 kbx impact --all-repos text_length 2>../err) &&
	test_grep "asks the database" err &&
	(cd textkit && test_expect_code 2 kbx path --all-repos text_copy text_length 2>../err) &&
	test_grep "asks the database" err
'

test_done
