#!/bin/sh

test_description='kbx --db: the graph queries asked of PostgreSQL

A throwaway cluster as in t9000.  The fixtures of tests/corpora/c and
tests/corpora/python are pushed and the queries are asked of the index
and of the database, which must print the same bytes: callers and
callees of every symbol in JSON, at depth 2 and 3 for every third,
and for every sixth in text and grep, with --certain, defs, importers
and subclasses; impact from every second symbol, and path from it to
the last of its callees within three calls (and back), --all and
--kind=imports from every file to the last file it imports within
three.  Then --repo and the repository pushed from here, an
unknown repository (3), a server that is not there (12), impact and
path with several symbols, --max-depth and what impact refuses with
--db (--diff; impact and path --all-repos are t9050), a command that
does not ask the database, and no query sent to a database by an
environment variable alone.  Last, the seven repositories of
tests/corpora/cross-repo, which call each other: kbx --db callers and
callees --all-repos cross them, certain when one repository exports
the name (C, Python and Go), ambiguous when two do.'

. ./test-lib.sh

TEST_NAME=t9010
. "$TEST_DIRECTORY/lib/pg-cluster.sh"

test_expect_success 'a cluster of its own, on a socket, with a password' '
	pg_cluster_start
'

jfields () {
	python3 "$TEST_DIRECTORY/lib/jfields.py" "$@"
}

for lang in c python
do
	test_expect_success "$lang: index and push the fixture" "
		cp -R '$CORPORA/$lang' $lang &&
		(cd $lang && rm -f expected-*.txt README && kbx index -q &&
		 kbx push -q --db=\"\$DB\" --name=fixture-$lang)
	"

	test_expect_success "$lang: every query gives what the index gives" '
		NAME=fixture-'$lang' &&
		(
			cd '$lang' &&
			kbx complete-symbols --max=0 | cut -f1 | sort -u >symbols &&
			test $(wc -l <symbols) -gt 10 &&
			i=0 &&
			while read s
			do
				i=$((i + 1)) &&
				same callers --format=json "$s" &&
				same callees --format=json "$s" || return 1
				test $((i % 3)) = 0 || continue
				same callers -d 2 --format=json "$s" &&
				same callees -d 3 --format=json "$s" || return 1
				test $((i % 6)) = 0 || continue
				for f in text grep
				do
					same callers --format=$f "$s" &&
					same callees --format=$f "$s" || return 1
				done &&
				same callers --certain "$s" &&
				same defs --format=json "$s" &&
				same importers --format=json "$s" &&
				same subclasses "$s" || return 1
			done <symbols
		)
	'

	test_expect_success "$lang: impact and path give what the index gives" '
		NAME=fixture-'$lang' &&
		(
			cd '$lang' &&
			: >call-paths && : >import-paths &&
			i=0 &&
			while read s
			do
				i=$((i + 1)) &&
				test $((i % 2)) = 0 || continue
				same impact --format=json "$s" || return 1
				kbx callees -d 3 --format=json "$s" 2>/dev/null |
					TYPE=callee jfields id | tail -n 1 >callee &&
				if test -s callee
				then
					same path "$s" "$(cat callee)" &&
					same path --all --format=json "$s" "$(cat callee)" &&
					{ test ! -s db.out || echo "$s" >>call-paths; } &&
					same path "$(cat callee)" "$s" || return 1
				fi
				test $((i % 6)) = 0 || continue
				for f in text grep
				do
					same impact --format=$f "$s" || return 1
				done &&
				same impact -d 1 --certain --format=json "$s" &&
				same path --certain --format=grep "$s" "$(cat callee)" || return 1
			done <symbols &&
			files=$(kbx complete-symbols --max=0 | cut -f1 | grep "\.\(c\|h\|py\)\$" | sort -u) &&
			test -n "$files" &&
			for a in $files
			do
				same impact --format=json "$a" || return 1
				kbx imports -d 3 --format=json "$a" 2>/dev/null |
					TYPE=import jfields id | tail -n 1 >imported &&
				test -s imported || continue
				same path --kind=imports --all "$a" "$(cat imported)" &&
				{ test ! -s db.out || echo "$a" >>import-paths; } &&
				same path --kind=imports "$(cat imported)" "$a" || return 1
			done &&
			test $(wc -l <call-paths) -gt 3 &&
			test $(wc -l <import-paths) -gt 3
		)
	'
done

test_expect_success 'a symbol that is not there: 1, and it says where it looked' '
	(cd c && test_expect_code 1 kbx --db="$DB" --repo=fixture-c callers no_such_fn 2>../err) &&
	test_grep "no symbol '"'no_such_fn'"' in repository '"'fixture-c'"'" err
'

test_expect_success 'without --repo: the repository kbx push names from here' '
	(cd c && kbx push -q --db="$DB" &&
	 kbx --db="$DB" callers --format=json store_get >../here.json &&
	 kbx callers --format=json store_get >../local.json) &&
	test_cmp local.json here.json
'

test_expect_success 'an unknown repository: 3, naming it' '
	(cd c && test_expect_code 3 kbx --db="$DB" --repo=nowhere callers store_get 2>../err) &&
	test_grep "holds no repository '"'nowhere'"'" err
'

test_expect_success 'a server that is not there: 12' '
	(cd c && test_expect_code 12 kbx --db="postgresql://kbx@/postgres?host=$PGDIR/none" \
		--repo=fixture-c callers store_get 2>../err) &&
	test_grep "is the server at" err
'

test_expect_success 'a command that does not ask the database: 2' '
	(cd c && test_expect_code 2 kbx --db="$DB" status 2>../err) &&
	test_grep "does not ask the database" err
'

test_expect_success 'impact and path over the database: several symbols, --max-depth, the clear errors' '
	(
		cd c && NAME=fixture-c &&
		same impact --format=json store_get store_put &&
		same path --max-depth=1 src/main.c#main store_get &&
		same path --max-depth=2 --all src/main.c#main store_get &&
		same path no_such_fn store_get &&
		echo | test_expect_code 2 kbx --db="$DB" impact --diff 2>../err &&
		test_grep "'"'impact --diff'"' is not available with --db" ../err
	)
'

test_expect_success '--all-repos without --db: 2' '
	(cd c && test_expect_code 2 kbx callers --all-repos store_get 2>../err) &&
	test_grep "asks the database" err
'

test_expect_success 'KBX_DATABASE_URL alone sends no query to the database' '
	(cd c && KBX_DATABASE_URL="postgresql://kbx@/postgres?host=$PGDIR/none" \
		kbx callers --format=json store_get >../env.json) &&
	test_cmp local.json env.json
'

test_expect_success '--db without a value takes KBX_DATABASE_URL' '
	(cd c && KBX_DATABASE_URL="$DB" kbx --db --repo=fixture-c callers --format=json store_get \
		>../env.json) &&
	test_cmp local.json env.json
'

test_expect_success 'kbx --db repos: the repositories pushed' '
	kbx --db="$DB" repos --names >actual &&
	printf "%s\n" c fixture-c fixture-python >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" repos --format=json >repos.json &&
	test_grep "\"name\":\"fixture-c\",\"generation\":" repos.json
'

test_expect_success 'seven repositories that call each other, pushed one by one' '
	for r in textkit logger reporter pyparse pyreport gowords goreport
	do
		cp -R "$CORPORA/cross-repo/$r" $r &&
		(cd $r && kbx index -q && kbx push -q --db="$DB") || return 1
	done
'

test_expect_success 'C: callers in every repository of a function textkit exports' '
	kbx --db="$DB" callers --all-repos --format=json text_length >out.json &&
	jfields repo id to confidence via <out.json >actual &&
	cat >expect <<-\EOF &&
	reporter src/report.c#title_width src/text.c#text_length certain package
	textkit src/text.c#text_copy src/text.c#text_length certain same-file
	textkit src/text.c#text_hash src/text.c#text_length certain same-file
	EOF
	test_cmp expect actual
'

test_expect_success 'C: without --all-repos, the repository'"'"'s own callers only' '
	kbx --db="$DB" --repo=textkit callers --format=json text_length >out.json &&
	jfields id <out.json >actual &&
	printf "%s\n" src/text.c#text_copy src/text.c#text_hash >expect &&
	test_cmp expect actual &&
	(cd reporter && kbx --db="$DB" callers --format=json text_length) >out.json &&
	jfields id to confidence <out.json >actual &&
	echo "src/report.c#title_width extern:text_length unresolved" >expect &&
	test_cmp expect actual
'

test_expect_success 'C: two repositories export text_hash: ambiguous under each' '
	kbx --db="$DB" callers --all-repos --format=json text_hash >out.json &&
	jfields type repo id to confidence candidates <out.json >actual &&
	cat >expect <<-\EOF &&
	symbol logger log.c#text_hash - - -
	caller logger log.c#log_line log.c#text_hash certain 1
	caller reporter src/report.c#title_key log.c#text_hash ambiguous 2
	symbol textkit src/text.c#text_hash - - -
	caller reporter src/report.c#title_key src/text.c#text_hash ambiguous 2
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" callers --all-repos --certain --format=json text_hash >out.json &&
	jfields repo id <out.json >actual &&
	printf "%s\n" "logger log.c#text_hash" "logger log.c#log_line" \
		"textkit src/text.c#text_hash" >expect &&
	test_cmp expect actual
'

test_expect_success 'C: depth 2 goes on in the calling repository' '
	kbx --db="$DB" callers --all-repos -d 2 --format=json text_copy >out.json &&
	jfields repo id depth via <out.json >actual &&
	cat >expect <<-\EOF &&
	reporter src/report.c#set_title 1 package
	reporter src/report.c#main 2 same-file
	EOF
	test_cmp expect actual
'

test_expect_success 'C: callees cross to the repository that defines the function' '
	kbx --db="$DB" callees --all-repos --format=json set_title >out.json &&
	jfields repo id confidence via <out.json >actual &&
	cat >expect <<-\EOF &&
	reporter src/report.c#title_width certain same-file
	textkit src/text.c#text_copy certain package
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" callees --all-repos --format=json title_key >out.json &&
	jfields repo id confidence candidates <out.json >actual &&
	cat >expect <<-\EOF &&
	logger log.c#text_hash ambiguous 2
	textkit src/text.c#text_hash ambiguous 2
	EOF
	test_cmp expect actual
'

test_expect_success 'Python: from pkg.mod import f and pkg.mod.f() reach pkg/mod.py#f' '
	kbx --db="$DB" callers --all-repos --format=json split_words >out.json &&
	jfields repo id via <out.json >actual &&
	cat >expect <<-\EOF &&
	pyparse src/pyparse/tokens.py#count_words same-file
	pyreport summary.py#first_word package
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" callers --all-repos -d 2 --format=json pyparse.tokens.count_words >out.json &&
	jfields repo id depth via <out.json >actual &&
	echo "pyreport summary.py#word_total 1 package" >expect &&
	test_cmp expect actual
'

test_expect_success 'Go: a call through the import path reaches the module'"'"'s package' '
	kbx --db="$DB" callers --all-repos --format=json Count >out.json &&
	jfields repo id to confidence via <out.json >actual &&
	echo "goreport main.go#summary words/words.go#Count certain package" >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" callers --all-repos --format=json fields >out.json &&
	jfields repo id <out.json >actual &&
	echo "gowords words/words.go#Count" >expect &&
	test_cmp expect actual
'

test_expect_success 'the text names each caller'"'"'s repository' '
	kbx --db="$DB" callers --all-repos split_words >out &&
	test_grep "^callers of \[pyparse\] src/pyparse/tokens.py#split_words" out &&
	test_grep "^  \[pyreport\] summary.py:6  first_word (function)" out
'

test_expect_success 'defs --all-repos: every repository'"'"'s definitions' '
	kbx --db="$DB" defs --all-repos --format=json text_hash >out.json &&
	jfields repo id <out.json >actual &&
	printf "%s\n" "logger log.c#text_hash" "textkit src/text.c#text_hash" >expect &&
	test_cmp expect actual
'

test_done
