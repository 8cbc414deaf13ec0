#!/bin/sh

test_description='kbx --db search: the search asked of PostgreSQL

A throwaway cluster as in t9000.  The fixtures of tests/corpora/python,
tests/corpora/c and tests/corpora/hybrid (with the registry of
tests/registry/basic) are indexed and pushed, and a set of queries
(words of the code, error messages a pattern matches, phrases of the
documents, filters, --every-section, --limit) is asked of the index
with --mode=lexical and of the database: the same hits in the same
order, byte for byte in text and JSON, and the same counts in
--explain.  Without --mode the database searches lexically too and
says why (no vectors pushed).  --all-repos over the database fuses
the repositories as --all-repos over their stores.  Then what
--db search refuses (a graph scope, --mode=vector) and a database of
an older schema.'

. ./test-lib.sh

TEST_NAME=t9020
. "$TEST_DIRECTORY/lib/pg-cluster.sh"

test_expect_success 'a cluster of its own, on a socket, with a password' '
	pg_cluster_start
'

# same_search Q...: as same, for kbx search --mode=lexical Q...
same_search () {
	same search --mode=lexical "$@"
}

# the queries: words of the fixtures' code and documents, error
# messages their patterns match, words no chunk holds
cat >queries <<\EOF
retry with backoff
order service cancel
KeyError: 'user_id'
ModuleNotFoundError: No module named 'requests'
connection refused
how do I deploy
parse the configuration file
hash table lookup
timeout
log out
no chunk holds zyzzyvaquux
EOF

for lang in python c hybrid
do
	test_expect_success "$lang: index and push the fixture" "
		cp -R '$CORPORA/$lang' $lang &&
		(cd $lang && rm -f expected-*.txt README &&
		 if test $lang = hybrid
		 then
			cp -R '$KBX_SRC/tests/registry/basic' ../reg &&
			kbx registry add ../reg 2>/dev/null
		 fi &&
		 kbx index -q &&
		 kbx push -q --db=\"\$DB\" --name=fixture-$lang)
	"

	test_expect_success "$lang: every query gives the hits of the index, in its order" '
		NAME=fixture-'$lang' &&
		(
			cd '$lang' &&
			while read q
			do
				same_search "$q" &&
				same_search --format=json "$q" &&
				same_search --format=grep "$q" &&
				same_search -n 3 --format=json "$q" &&
				same_search --every-section "$q" || return 1
			done <../queries
		)
	'
done

test_expect_success 'a file edited and one deleted, pushed again: the same hits still' '
	NAME=fixture-python &&
	(
		cd python &&
		f=$(git ls-files "*.py" 2>/dev/null | head -n 1) &&
		if test -z "$f"
		then
			f=$(find . -name "*.py" | sort | head -n 1)
		fi &&
		printf "\n\ndef retry_with_backoff_again(order):\n    return order\n" >>"$f" &&
		g=$(find . -name "*.py" ! -path "./$f" ! -path "$f" | sort | tail -n 1) &&
		rm "$g" &&
		kbx index -q &&
		kbx push -q --db="$DB" --name=fixture-python &&
		while read q
		do
			same_search --format=json "$q" || return 1
		done <../queries &&
		same_search "retry with backoff again"
	) &&
	sql "SELECT count(*) FROM kbx.postings p WHERE NOT EXISTS (SELECT 1 FROM kbx.chunks c
	     WHERE c.repo = p.repo AND c.id = p.chunk)" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect_success 'the database answers: a pattern matched, BM25 ranked' '
	(
		cd hybrid &&
		kbx --db="$DB" --repo=fixture-hybrid search --mode=lexical --explain --format=json \
			"KeyError: user_id" >out &&
		grep "\"chunk_type\":\"error\".*\"pattern\":{\"rank\":1," out &&
		kbx --db="$DB" --repo=fixture-hybrid search --mode=lexical --explain --format=json \
			"division by zero" >out &&
		grep "\"lexical\":{\"rank\":1," out
	)
'

test_expect_success 'filters, fusion and --explain (its counts) as in the index' '
	NAME=fixture-hybrid &&
	(
		cd hybrid &&
		same_search --type=error "KeyError" &&
		same_search --type=doc,adr --format=json "deploy" &&
		same_search --lang=python "error" &&
		same_search --path=jobs "job" &&
		same_search --path="*.py" --format=json "order" &&
		same_search --fusion=linear "retry order" &&
		same_search --rrf-k=5 "order" &&
		same_search --min-score=0.3 "KeyError" &&
		kbx search --mode=lexical --explain --format=json "order retry" |
			grep -v "\"plan\"" >local.json &&
		kbx --db="$DB" --repo=fixture-hybrid search --mode=lexical --explain --format=json "order retry" |
			grep -v "\"plan\"" >db.json &&
		test_cmp local.json db.json &&
		kbx search --mode=lexical --explain --format=json "order retry" | grep "\"plan\"" |
			sed "s/\"ms\":[0-9.e+-]*//g" >local.plan &&
		kbx --db="$DB" --repo=fixture-hybrid search --mode=lexical --explain --format=json "order retry" |
			grep "\"plan\"" | sed "s/\"ms\":[0-9.e+-]*//g" >db.plan &&
		test_cmp local.plan db.plan
	)
'

test_expect_success 'without --mode: lexical and patterns, and a warning that says why' '
	(
		cd hybrid &&
		kbx search --mode=lexical "KeyError order" >local.out &&
		kbx --db="$DB" --repo=fixture-hybrid search "KeyError order" >db.out 2>db.err &&
		test_cmp local.out db.out &&
		test_grep "kbx push does not publish the vectors" db.err
	)
'

test_expect_success 'a query that is not UTF-8: its terms sent as kbx push sends text' '
	NAME=fixture-hybrid &&
	(
		cd hybrid &&
		same_search "$(printf "order\377\376 service caf\303\251")" &&
		same_search --format=json "$(printf "retry\300\257 backoff")"
	)
'

test_expect_success 'nothing found: exit 1, as in the index' '
	(
		cd python &&
		test_expect_code 1 kbx --db="$DB" --repo=fixture-python search --mode=lexical zyzzyvaquux
	)
'

test_expect_success '--all-repos: the repositories fused as over their stores' '
	for lang in c hybrid python
	do
		kbx repos add --name=fixture-$lang $lang || return 1
	done &&
	for q in "order" "KeyError: user_id" "hash table" "retry with backoff"
	do
		kbx search --all-repos --mode=lexical --format=json "$q" |
			sed "s/\"repo_root\":\"[^\"]*\",//" >local.json &&
		kbx --db="$DB" search --all-repos --mode=lexical --format=json "$q" |
			sed "s/\"repo_root\":null,//" >db.json &&
		test_cmp local.json db.json &&
		kbx search --all-repos --mode=lexical "$q" >local.out &&
		kbx --db="$DB" search --all-repos --mode=lexical "$q" >db.out &&
		test_cmp local.out db.out || return 1
	done &&
	grep "\"repo\":\"fixture-" db.json
'

test_expect_success 'what --db search refuses' '
	(
		cd python &&
		test_expect_code 2 kbx --db="$DB" --repo=fixture-python search --within=app.py order 2>err &&
		test_grep "search the index, not --db" err &&
		test_expect_code 3 kbx --db="$DB" --repo=fixture-python search --mode=vector order 2>err &&
		test_grep "does not publish the vectors" err
	)
'

test_expect_success 'a database of an older schema: a clear error' '
	sql "UPDATE kbx.meta SET value = '\''2'\'' WHERE key = '\''schema'\''" &&
	(
		cd python &&
		test_expect_code 14 kbx --db="$DB" --repo=fixture-python search order 2>err &&
		test_grep "schema 2; kbx --db search needs schema 3" err &&
		test_expect_code 14 kbx push -q --db="$DB" 2>err &&
		test_grep "schema 2" err
	) &&
	sql "UPDATE kbx.meta SET value = '\''3'\'' WHERE key = '\''schema'\''"
'

test_done
