#!/bin/sh

test_description='kbx --db search: the search asked of PostgreSQL

A throwaway cluster as in t9000.  The fixtures of tests/corpora/python,
tests/corpora/c and tests/corpora/hybrid (with the registry of
tests/registry/basic) are indexed and pushed, and a set of queries
(words of the code, error messages a pattern matches, phrases of the
documents, filters, --every-section, --limit) is asked of the index
of the index and of the database, in the default mode (hybrid: the
vectors pushed, searched as the index searches its own), --mode=hybrid,
--mode=vector and --mode=lexical: the same hits in the same order,
byte for byte in text and JSON, and the same counts in --explain;
again after a file is edited and one deleted and the repository pushed
again, and over 1,200 generated functions, where the codes pick the
candidates.  --all-repos over the database fuses the repositories as
--all-repos over their stores, in every mode.  A repository indexed
with another embedding than the one asked for, or pushed without
vectors: the lexical answer and a warning, or exit 3 with
--mode=vector.  Then what --db search
refuses (a graph scope) and a database of an older schema.'

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

# same_modes Q...: as same, for kbx search Q... in the default mode and
# in each of hybrid, vector and lexical
same_modes () {
	same search "$@" &&
	same search --mode=hybrid "$@" &&
	same search --mode=vector "$@" &&
	same_search "$@"
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
				same_modes "$q" &&
				same_modes --format=json "$q" &&
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
			same_modes --format=json "$q" || return 1
		done <../queries &&
		same_modes "retry with backoff again"
	) &&
	sql "SELECT count(*) FROM kbx.postings p WHERE NOT EXISTS (SELECT 1 FROM kbx.chunks c
	     WHERE c.repo = p.repo AND c.id = p.chunk)" >actual &&
	echo 0 >expect &&
	test_cmp expect actual &&
	sql "SELECT count(*) FROM kbx.vectors v WHERE NOT EXISTS (SELECT 1 FROM kbx.chunks c
	     WHERE c.repo = v.repo AND c.id = v.chunk)" >actual &&
	test_cmp expect actual &&
	sql "SELECT count(*) FROM kbx.chunks c WHERE NOT EXISTS (SELECT 1 FROM kbx.vectors v
	     WHERE c.repo = v.repo AND c.id = v.chunk)" >actual &&
	test_cmp expect actual
'

test_expect_success 'the vectors pushed are the index'"'"'s, with its embedding' '
	sql "SELECT DISTINCT embedding FROM kbx.repos WHERE name LIKE '"'fixture-%'"'" >actual &&
	(cd python && kbx status --format=json) >status.json &&
	sed -n "s/.*\"embedder\":\"\([^\"]*\)\".*/\1/p" status.json >expect &&
	test -s expect &&
	test_cmp expect actual &&
	sql "SELECT DISTINCT octet_length(vec) FROM kbx.vectors" >actual &&
	dim=$(sed "s|.*/||" expect) &&
	echo $((4 * dim)) >expect &&
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
		same search --type=error "KeyError" &&
		same search --mode=vector --type=doc,adr --format=json "deploy" &&
		same search --lang=python "error" &&
		same search --mode=vector --path="*.py" "order" &&
		same search --fusion=linear "retry order" &&
		same search --min-score=0.3 --format=json "KeyError" &&
		kbx search --mode=lexical --explain --format=json "order retry" |
			grep -v "\"plan\"" >local.json &&
		kbx --db="$DB" --repo=fixture-hybrid search --mode=lexical --explain --format=json "order retry" |
			grep -v "\"plan\"" >db.json &&
		test_cmp local.json db.json &&
		kbx search --mode=lexical --explain --format=json "order retry" | grep "\"plan\"" |
			sed "s/\"ms\":[0-9.e+-]*//g" >local.plan &&
		kbx --db="$DB" --repo=fixture-hybrid search --mode=lexical --explain --format=json "order retry" |
			grep "\"plan\"" | sed "s/\"ms\":[0-9.e+-]*//g" >db.plan &&
		test_cmp local.plan db.plan &&
		kbx search --explain --format=json "order retry" |
			grep -v "\"plan\"" >local.json &&
		kbx --db="$DB" --repo=fixture-hybrid search --explain --format=json "order retry" |
			grep -v "\"plan\"" >db.json &&
		test_cmp local.json db.json
	)
'

test_expect_success 'without --mode: the three signals, and no warning' '
	(
		cd hybrid &&
		kbx search "KeyError order" >local.out &&
		kbx --db="$DB" --repo=fixture-hybrid search "KeyError order" >db.out 2>db.err &&
		test_cmp local.out db.out &&
		test_must_be_empty db.err &&
		kbx --db="$DB" --repo=fixture-hybrid search --explain "KeyError order" >db.out &&
		grep "^vector .*flat" db.out
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
		test_cmp local.out db.out &&
		for mode in "" --mode=hybrid --mode=vector
		do
			kbx search --all-repos $mode "$q" >local.out &&
			kbx --db="$DB" search --all-repos $mode "$q" >db.out &&
			test_cmp local.out db.out &&
			kbx search --all-repos $mode --format=json "$q" |
				sed "s/\"repo_root\":\"[^\"]*\",//" >local.json &&
			kbx --db="$DB" search --all-repos $mode --format=json "$q" |
				sed "s/\"repo_root\":null,//" >db.json &&
			test_cmp local.json db.json || return 1
		done || return 1
	done &&
	grep "\"repo\":\"fixture-" db.json
'

# gen_functions DIR N SEED: N small Python functions in DIR/mod*.py,
# 50 a file, each a name and a docstring of words drawn from a list
gen_functions () {
	mkdir -p "$1" &&
	awk -v n="$2" -v seed="$3" -v dir="$1" 'BEGIN {
		split("parse render queue retry socket cache token buffer order invoice " \
		      "ledger refund shipment carrier schedule lease lock journal index " \
		      "merge branch commit hash digest cipher stream frame packet route " \
		      "tenant quota budget metric alert sample window batch cursor page", w, " ")
		nw = 0; for (i in w) nw++
		x = seed
		for (i = 0; i < n; i++) {
			f = sprintf("%s/mod%02d.py", dir, int(i / 50))
			line = ""
			for (j = 0; j < 6; j++) {
				x = (x * 1103515245 + 12345) % 2147483648
				line = line " " w[1 + int(x / 65536) % nw]
			}
			printf "def fn_%d(arg):\n    \"\"\"%s.\"\"\"\n    return arg\n\n", i, line >f
		}
	}'
}

test_expect_success 'more vectors than the codes'"'"' threshold: the codes pick, as in the index' '
	gen_functions many 1200 7 &&
	(
		cd many &&
		kbx index -q &&
		kbx status --format=json >status.json &&
		test_grep "\"vector_index\":\"flat\"" status.json &&
		kbx push -q --db="$DB" --name=fixture-many &&
		NAME=fixture-many &&
		for q in "retry the queue" "ledger refund invoice" "hash digest of a commit" \
			"tenant quota alert" "socket"
		do
			same_modes "$q" &&
			same_modes -n 30 --format=json "$q" &&
			same search --type=code --path="mod0*" "$q" || return 1
		done &&
		printf "def fn_extra(arg):\n    \"\"\"retry the queue of a tenant.\"\"\"\n    return arg\n" >>mod03.py &&
		rm mod05.py &&
		kbx index -q &&
		kbx push -q --db="$DB" --name=fixture-many &&
		for q in "retry the queue" "ledger refund invoice" "tenant quota alert"
		do
			same_modes "$q" &&
			same_modes -n 30 --format=json "$q" || return 1
		done
	) &&
	sql "SELECT count(*) FROM kbx.vectors v JOIN kbx.repos r ON r.id = v.repo
	     WHERE r.name = '"'fixture-many'"'" >actual &&
	test "$(cat actual)" -gt 800
'

# no_vectors NAME Q WHY: the database's search of NAME for Q runs
# without its vector signal: the lexical answer and a warning saying
# WHY; exit 3 with --mode=vector, WHY on stderr (in err)
no_vectors () {
	kbx --db="$DB" --repo="$1" search --mode=lexical "$2" >expect &&
	kbx --db="$DB" --repo="$1" search "$2" >actual 2>err &&
	test_cmp expect actual &&
	test_grep "$3" err &&
	test_expect_code 3 kbx --db="$DB" --repo="$1" search --mode=vector "$2" 2>err &&
	test_grep "$3" err
}

test_expect_success 'pushed with another embedding: lexical and a warning, or exit 3' '
	cp -R "$CORPORA/python" hashed &&
	(
		cd hashed &&
		kbx config --repo search.model hash &&
		kbx index -q &&
		kbx push -q --db="$DB" --name=fixture-hashed &&
		NAME=fixture-hashed &&
		same_modes "normalize the keys of a record"
	) &&
	sql "SELECT embedding FROM kbx.repos WHERE name = '"'fixture-hashed'"'" >actual &&
	grep "^builtin/" actual &&
	! grep words actual &&
	(
		cd python &&
		no_vectors fixture-hashed "normalize the keys of a record" \
			"pushed from an index embedded by builtin/" &&
		test_grep "but the settings ask for builtin/words" err
	)
'

test_expect_success 'an index without vectors: pushed without, said so; then with them' '
	cp -R "$CORPORA/python" novec &&
	(
		cd novec &&
		test_must_fail kbx -c search.provider=command -c search.command="exit 5" \
			-c search.dimensions=4 index -q 2>/dev/null &&
		kbx push -q --db="$DB" --name=fixture-novec 2>err &&
		test_grep "warning: no vectors pushed: the index has none" err &&
		no_vectors fixture-novec "normalize the keys" "pushed without vectors" &&
		kbx index -q &&
		kbx push -q --db="$DB" --name=fixture-novec 2>err &&
		test_must_be_empty err &&
		NAME=fixture-novec &&
		same_modes "normalize the keys"
	) &&
	sql "SELECT embedding IS NOT NULL, (SELECT count(*) > 0 FROM kbx.vectors v WHERE v.repo = r.id)
	     FROM kbx.repos r WHERE name = '"'fixture-novec'"'" >actual &&
	echo "t|t" >expect &&
	test_cmp expect actual
'

# in_repo NAME: the hits of NAME's repository among the JSON hits on
# stdin, in their order, without what the fusion adds (rank, repo)
in_repo () {
	jq -c --arg r "$1" 'select(.repo == null or .repo == $r)
		| del(.rank, .repo, .repo_root, .repo_rank)'
}

test_expect_success '--all-repos read a batch at a time: each repository as asked alone' '
	cp -R "$CORPORA/python" bare &&
	mkdir empty &&
	printf "no code here\n" >empty/notes.bin &&
	(
		cd bare &&
		test_must_fail kbx -c search.provider=command -c search.command="exit 5" \
			-c search.dimensions=4 index -q 2>/dev/null &&
		kbx push -q --db="$DB" --name=fixture-bare 2>/dev/null
	) &&
	(
		cd empty &&
		kbx index -q &&
		kbx push -q --db="$DB" --name=fixture-empty
	) &&
	sql "SELECT r.name, r.embedding IS NOT NULL,
	     (SELECT count(*) FROM kbx.vectors v WHERE v.repo = r.id) > 0,
	     (SELECT count(*) FROM kbx.chunks c WHERE c.repo = r.id) > 0
	     FROM kbx.repos r
	     WHERE r.name IN ('"'fixture-bare'"', '"'fixture-empty'"', '"'fixture-hashed'"')
	     ORDER BY r.name" >actual &&
	cat >expect <<-\EOF &&
	fixture-bare|f|f|t
	fixture-empty|f|f|f
	fixture-hashed|t|t|t
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" repos list --names >names &&
	test $(wc -l <names) -ge 8 &&
	(
		cd python &&
		for q in "normalize the keys of a record" "retry the queue" "KeyError: user_id"
		do
			for mode in --mode=lexical --mode=hybrid ""
			do
				kbx --db="$DB" search --all-repos $mode -n 5000 --format=json "$q" \
					>all.json 2>all.err || return 1
				while read name
				do
					in_repo "$name" <all.json >from-all &&
					kbx --db="$DB" --repo="$name" search $mode -n 5000 --format=json "$q" \
						2>/dev/null | in_repo "$name" >alone &&
					test_cmp alone from-all || return 1
				done <../names || return 1
			done &&
			test_grep "fixture-bare: .*pushed without vectors" all.err &&
			test_grep "fixture-hashed: .*pushed from an index embedded by builtin/" all.err &&
			! grep -v "fixture-bare\|fixture-hashed" all.err || return 1
		done
	)
'

test_expect_success 'what --db search refuses' '
	(
		cd python &&
		test_expect_code 2 kbx --db="$DB" --repo=fixture-python search --within=app.py order 2>err &&
		test_grep "search the index, not --db" err
	)
'

test_expect_success 'a database of an older schema: a clear error' '
	sql "UPDATE kbx.meta SET value = '\''4'\'' WHERE key = '\''schema'\''" &&
	(
		cd python &&
		test_expect_code 14 kbx --db="$DB" --repo=fixture-python search order 2>err &&
		test_grep "schema 4; kbx --db search needs schema 5" err &&
		test_expect_code 14 kbx push -q --db="$DB" 2>err &&
		test_grep "schema 4; this kbx writes schema 5" err &&
		test_grep "DROP SCHEMA kbx CASCADE" err
	) &&
	sql "UPDATE kbx.meta SET value = '\''5'\'' WHERE key = '\''schema'\''"
'

test_done
