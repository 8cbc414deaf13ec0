#!/bin/sh

test_description='kbx --db hybrid and kbx --db context: the plan asked of PostgreSQL

A throwaway cluster as in t9000.  The fixture of tests/corpora/hybrid
(with the registry of tests/registry/basic) and a second small
repository are indexed and pushed; the same questions are asked of the
index and of the database (kbx --db --repo): the same plan and the
same answer, byte for byte in text, JSON (--explain times aside) and
grep.  --all-repos over the database fuses the repositories as
--all-repos over their stores.  A plan that searches within a part of
the graph is refused, naming its step; kbx --db context packs the
definitions from the chunks pushed.'

. ./test-lib.sh

TEST_NAME=t9040
. "$TEST_DIRECTORY/lib/pg-cluster.sh"

# without the times, which differ from run to run
no_ms () {
	sed -e "s/\"ms\":{[^}]*}//g" -e "s/\"ms\(_pack\)*\":[0-9.e+-][0-9.e+-]*//g" \
	    -e "s/[0-9][0-9.]* ms/N ms/g" "$@"
}

# same_ms CMD ARGS...: as same (the answer and the exit code), and the
# same warnings and notes, the times aside
same_ms () {
	kbx "$@" >local.raw 2>local.err
	lrc=$?
	kbx --db="$DB" --repo="$NAME" "$@" >db.raw 2>db.err
	drc=$?
	no_ms local.raw >local.out &&
	no_ms db.raw >db.out &&
	if test $lrc != $drc || ! cmp -s local.out db.out || ! cmp -s local.err db.err
	then
		echo "kbx $* differs: exit $lrc locally, $drc from the database"
		diff local.out db.out | head -20
		diff local.err db.err | head -5
		return 1
	fi
}

test_expect_success 'a cluster of its own, on a socket, with a password' '
	pg_cluster_start
'

test_expect_success 'index and push the fixture, with a registry' '
	cp -R "$CORPORA/hybrid" hybrid &&
	cp -R "$KBX_SRC/tests/registry/basic" reg &&
	(cd hybrid && git init -q && kbx registry add ../reg 2>/dev/null &&
	 kbx index -q && kbx push -q --db="$DB" --name=fixture-hybrid)
'

cat >questions <<\EOF
what calls add
what does process call
what calls add transitively
what breaks if add changes
subclasses of Handler
what imports orders.py
what does orders.py import
functions in orders.py
retry with backoff
the order processing code
what calls the order processing code
code similar to retry with backoff
how do I deploy
docs about what calls add
patterns used by classes extending Handler
functions matching 'proc*'
no chunk holds zyzzyvaquux
EOF

test_expect_success 'every question: the answer of the index, in its order' '
	NAME=fixture-hybrid &&
	(
		cd hybrid &&
		while read q
		do
			same hybrid $q &&
			same_ms hybrid --format=json --limit=3 $q &&
			same hybrid --format=grep $q &&
			same hybrid --mode=lexical $q &&
			same_ms hybrid --explain $q &&
			same_ms hybrid --explain --format=json $q || return 1
		done <../questions
	)
'

test_expect_success 'the answers are there: callers, a scoped search, documents' '
	(
		cd hybrid &&
		kbx --db="$DB" --repo=fixture-hybrid hybrid what calls add >out &&
		test_grep "orders.py:15  OrderService.process (method)" out &&
		kbx --db="$DB" --repo=fixture-hybrid hybrid --explain \
			code similar to retry with backoff >out &&
		test_grep "^scope " out &&
		test_grep "retry_with_backoff" out &&
		kbx --db="$DB" --repo=fixture-hybrid hybrid how do I deploy >out &&
		test_grep "^documents" out
	)
'

test_expect_success 'a file touched: its time pushed again, nothing copied, recency as the index' '
	(
		cd hybrid &&
		touch -d "2020-01-02 03:04:05" orders.py &&
		kbx index -q &&
		kbx push --db="$DB" --name=fixture-hybrid >out &&
		test_grep "0 copied" out &&
		stat -c %Y orders.py >expect &&
		sql "SELECT f.mtime FROM kbx.files f JOIN kbx.repos r ON r.id = f.repo
		     WHERE r.name = '"'fixture-hybrid'"' AND f.path = '"'orders.py'"'" >actual &&
		test_cmp expect actual &&
		NAME=fixture-hybrid &&
		same hybrid what calls add &&
		same_ms hybrid --format=json what calls add &&
		same_ms hybrid --format=json retry with backoff
	)
'

test_expect_success 'a name that names nothing: exit 1 as the index, without "did you mean"' '
	(
		cd hybrid &&
		test_expect_code 1 kbx hybrid what calls proces 2>local.err &&
		test_expect_code 1 kbx --db="$DB" --repo=fixture-hybrid hybrid what calls proces 2>db.err &&
		test_grep "did you mean process" local.err &&
		test_grep "'"'proces'"' names no symbol" db.err &&
		test_grep ! "did you mean" db.err
	)
'

test_expect_success 'kbx --db context: the pack of the index, its bodies from the chunks pushed' '
	NAME=fixture-hybrid &&
	(
		cd hybrid &&
		while read q
		do
			same context $q &&
			same context --budget=300 $q &&
			same_ms context --format=json --budget=800 $q &&
			same_ms context --explain --budget=2000 $q || return 1
		done <../questions
	)
'

test_expect_success 'kbx --db context away from the files: the bodies come from the database' '
	(cd hybrid && kbx context what calls add) >expect &&
	test_grep "def process" expect &&
	mkdir elsewhere &&
	(cd elsewhere && kbx --db="$DB" --repo=fixture-hybrid context what calls add) >actual &&
	test_cmp expect actual &&
	: the files changed since they were pushed: the database still answers as pushed &&
	cp -R hybrid moved &&
	(cd moved && rm orders.py &&
	 kbx context what calls add >../local.out 2>../local.err &&
	 kbx --db="$DB" --repo=fixture-hybrid context what calls add >../db.out 2>../db.err) &&
	test_grep "cannot read .orders.py." local.err &&
	test_must_be_empty db.err &&
	test_cmp expect db.out
'

# same_all_repos: each question of questions, hybrid and context
# --all-repos over the stores and over the database: the same answer
# and exit code
same_all_repos () {
	while read q
	do
		for cmd in hybrid context
		do
			kbx $cmd --all-repos $q >local.out 2>local.err
			lrc=$?
			kbx --db="$DB" $cmd --all-repos $q >db.out 2>db.err
			drc=$?
			test $lrc = $drc && test_cmp local.out db.out || return 1
		done
	done <questions
}

test_expect_success '--all-repos: the repositories fused as the stores are' '
	mkdir other &&
	cat >other/util.py <<-\EOF &&
	from math_utils import add


	def double(x):
	    return add(x, x)


	def retry_forever(call):
	    """Retry a call with backoff until it works."""
	    while True:
	        call()
	EOF
	: results of equal fused scores go to the repository listed first: in the &&
	: order of kbx repos locally, of the names in the database: the same here &&
	kbx config --user repos.register always &&
	(cd hybrid && kbx index -q && kbx push -q --db="$DB" --name=hybrid) &&
	(cd other && git init -q && kbx index -q && kbx push -q --db="$DB" --name=other) &&
	sql "DELETE FROM kbx.repos WHERE name = '"'fixture-hybrid'"'" &&
	kbx repos --names | sort >names &&
	printf "%s\n" hybrid other >expect &&
	test_cmp expect names &&
	same_all_repos &&
	kbx --db="$DB" hybrid --all-repos --format=json what calls add >out &&
	test_grep "\"repo\":\"other\".*util.py#double" out &&
	test_grep "\"repo\":\"hybrid\".*OrderService.process" out
'

test_expect_success '--all-repos with a repository pushed without vectors and one without chunks' '
	cp -R other xbare &&
	mkdir yempty &&
	printf "no code here\n" >yempty/notes.bin &&
	(cd xbare && rm -rf .kbx &&
	 test_must_fail kbx -c search.provider=command -c search.command="exit 5" \
		-c search.dimensions=4 index -q 2>/dev/null &&
	 kbx push -q --db="$DB" --name=xbare 2>/dev/null) &&
	(cd yempty && git init -q && kbx index -q && kbx push -q --db="$DB" --name=yempty) &&
	: ties go to the repository listed first: registered, and named, last &&
	kbx repos --names >names &&
	printf "%s\n" hybrid other xbare yempty >expect &&
	test_cmp expect names &&
	same_all_repos
'

test_expect_success 'refused: a repository the database does not hold, an older schema' '
	(
		cd hybrid &&
		test_expect_code 3 kbx --db="$DB" --repo=nowhere hybrid what calls add 2>err &&
		test_grep "holds no repository .nowhere." err &&
		sql "UPDATE kbx.meta SET value = '"'4'"' WHERE key = '"'schema'"'" &&
		test_expect_code 14 kbx --db="$DB" --repo=hybrid hybrid what calls add 2>err &&
		test_grep "schema 4; kbx --db hybrid needs schema 5" err &&
		sql "UPDATE kbx.meta SET value = '"'5'"' WHERE key = '"'schema'"'"
	)
'

test_done
