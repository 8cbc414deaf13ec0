#!/bin/sh
test_description='kbx hybrid: questions over the graph and the search, plans, ranking; kbx search scopes'

. "$(dirname "$0")"/test-lib.sh

# Fields of JSON Lines records on stdin (see lib/jfields.py).
jfields () {
	python3 "$TEST_DIRECTORY/lib/jfields.py" "$@"
}

# The ids kbx hybrid answers, sorted.
ids () {
	kbx hybrid --format=nul "$@" >ids.raw &&
	tr "\0" "\n" <ids.raw | sort
}

test_expect_success 'index the fixture tree' '
	cp -R "$KBX_SRC/tests/corpora/hybrid" repo &&
	(cd repo && git init -q && kbx index -q)
'

test_expect_success 'what calls X: the callers, ranked, each with its path to X, read as calls' '
	(cd repo && ids what calls add) >actual &&
	cat >expect <<-\EOF &&
	math_utils.py#Calculator.total
	orders.py#OrderService.process
	EOF
	test_cmp expect actual &&
	(cd repo && kbx hybrid what calls add) >out &&
	test_grep "orders.py:15  OrderService.process (method)" out &&
	test_grep "OrderService.process -> add$" out
'

test_expect_success 'methods in FILE: what the file defines, at two levels, functions and methods only' '
	(cd repo && ids methods in math_utils.py) >actual &&
	cat >expect <<-\EOF &&
	math_utils.py#Calculator.__init__
	math_utils.py#Calculator.total
	math_utils.py#add
	math_utils.py#subtract
	EOF
	test_cmp expect actual
'

test_expect_success 'what does X call' '
	(cd repo && ids what does OrderService.process call) >actual &&
	cat >expect <<-\EOF &&
	math_utils.py#add
	orders.py#OrderService.save
	orders.py#validate
	EOF
	test_cmp expect actual
'

test_expect_success 'subclasses of X: direct by default, all levels when asked' '
	(cd repo && ids subclasses of BaseAgent) >actual &&
	printf "%s\n" agents/base.py#ChatAgent agents/base.py#ToolAgent >expect &&
	test_cmp expect actual &&
	(cd repo && ids subclasses of BaseAgent transitively) >actual &&
	printf "%s\n" agents/base.py#ChatAgent agents/base.py#StreamingChatAgent \
		agents/base.py#ToolAgent >expect &&
	test_cmp expect actual &&
	(cd repo && ids superclasses of StreamingChatAgent recursively) >actual &&
	printf "%s\n" agents/base.py#BaseAgent agents/base.py#ChatAgent >expect &&
	test_cmp expect actual
'

test_expect_success 'what imports FILE and what FILE imports' '
	(cd repo && ids what imports orders.py) >actual &&
	echo app.py >expect &&
	test_cmp expect actual &&
	(cd repo && ids what does app.py import) >actual &&
	printf "%s\n" http/client.py orders.py src/auth/config.py >expect &&
	test_cmp expect actual
'

test_expect_success 'depth: the wording, then --depth' '
	(cd repo && ids what calls validate) >actual &&
	echo orders.py#OrderService.process >expect &&
	test_cmp expect actual &&
	(cd repo && ids what calls validate transitively) >actual &&
	printf "%s\n" app.py#main orders.py#OrderService.process >expect &&
	test_cmp expect actual &&
	(cd repo && ids --depth=2 what calls validate) >actual2 &&
	test_cmp expect actual2 &&
	(cd repo && ids impact of add) >actual &&
	printf "%s\n" app.py#main math_utils.py#Calculator.total orders.py#OrderService.process >expect &&
	test_cmp expect actual
'

test_expect_success 'a graph constraint on a search: called by a class named in words' '
	(cd repo && kbx hybrid --format=json --limit=20 \
		code similar to retry with backoff that is called by the HTTP client) >out &&
	TYPE=result jfields id <out >ids &&
	test_grep "^http/retry.py#retry_with_backoff$" ids &&
	test_grep ! "run_job_with_retries" ids &&
	test_grep ! "OrderService" ids &&
	TYPE=plan jfields resolved.0.role resolved.0.how resolved.0.spelling search_text <out >plan &&
	echo "called-by spelling HttpClient retry with backoff" >expect &&
	test_cmp expect plan
'

test_expect_success 'similar to SYMBOL within DIR: its code is the query, the scope a directory' '
	(cd repo && kbx hybrid --format=json functions similar to parse_config within src/auth) >out &&
	TYPE=result jfields id <out >ids &&
	test_grep "^src/auth/config.py#parse_config_file$" ids &&
	test_grep ! "parse_billing_config" ids &&
	test_grep ! "^src/auth/config.py#parse_config$" ids &&
	TYPE=plan jfields similar_to kinds resolved.0.how <out >plan &&
	echo "src/auth/config.py#parse_config functions directory" >expect &&
	test_cmp expect plan &&
	(cd repo && kbx hybrid --format=nul functions similar to parse_config within .) >all &&
	tr "\0" "\n" <all >all.ids &&
	test_grep "parse_billing_config" all.ids
'

test_expect_success 'the planner: graph-first for a small scope, vector-first for a large one, or as asked' '
	mkdir repo/gen &&
	i=0 && while test $i -lt 300
	do
		printf "def handler_%d(request):\n    return request.reply(%d)\n\n" $i $i || return 1
		i=$((i + 1))
	done >repo/gen/handlers.py &&
	(cd repo && kbx index -q) &&
	(cd repo && kbx hybrid --format=json reply to the request within gen) >big &&
	TYPE=plan jfields scope.plan scope.nodes <big >plan &&
	echo "vector-first 300" >expect &&
	test_cmp expect plan &&
	(cd repo && kbx hybrid --format=json parse settings within src/auth) >small &&
	TYPE=plan jfields scope.plan <small >plan &&
	echo graph-first >expect &&
	test_cmp expect plan &&
	(cd repo && kbx hybrid --plan=graph-first --format=json reply to the request within gen) >forced &&
	TYPE=plan jfields scope.plan scope.why <forced >plan &&
	test_grep "^graph-first .*asked for" plan &&
	TYPE=result jfields id <big >a &&
	TYPE=result jfields id <forced >b &&
	test_cmp a b
'

test_expect_success 'kbx search --within, --callers-of, --callees-of' '
	(cd repo && kbx search --format=json --within=src/auth parse settings) >out &&
	TYPE=hit jfields id <out >ids &&
	test_grep "src/auth/config.py#parse_config" ids &&
	test_grep ! "billing" ids &&
	(cd repo && kbx search --format=json --callees-of=HttpClient retry backoff) >out &&
	TYPE=hit jfields id <out >ids &&
	test_grep "^http/retry.py#retry_with_backoff$" ids &&
	test_grep ! "jobs/worker.py" ids &&
	(cd repo && kbx search --format=json --callers-of=validate order) >out &&
	TYPE=hit jfields id <out >ids &&
	echo orders.py#OrderService.process >expect &&
	test_cmp expect ids &&
	(cd repo && kbx search --format=json --explain --callers-of=validate --depth=2 order) >out &&
	TYPE=hit jfields id <out | sort >ids &&
	printf "%s\n" app.py#main orders.py#OrderService.process >expect &&
	test_cmp expect ids &&
	TYPE=plan jfields scope.plan scope.nodes <out >plan &&
	echo "graph-first 2" >expect &&
	test_cmp expect plan
'

test_expect_success 'kbx search scopes: bad use is an error' '
	(cd repo && test_expect_code 2 kbx search --depth=2 order 2>../err) &&
	test_grep "applies to --callers-of" err &&
	(cd repo && test_expect_code 2 kbx search --plan=graph-first order 2>../err) &&
	test_grep "applies to a scope" err &&
	(cd repo && test_expect_code 1 kbx search --within=nowhere order 2>../err) &&
	test_grep "names no symbol" err
'

test_expect_success '--explain: the plan, the paths and the factors' '
	(cd repo && kbx hybrid --explain what calls add) >out &&
	test_grep "^traversal  callers (from .what calls.), 1 hop (the default)" out &&
	test_grep "^resolved   target .add. by symbol: 1 node" out &&
	test_grep "math_utils.py#add  (symbol, score 1.000)" out &&
	test_grep "^ranking    0.50 similarity + 0.30 graph + 0.10 importance + 0.10 recency" out &&
	test_grep "OrderService.process \[line 18\] -> add$" out &&
	test_grep "graph 0.500 (1 hop)  importance 1.000 (1 caller)" out
'

test_expect_success 'JSON: a plan record, then results that trace to path:line and add up' '
	(cd repo && kbx hybrid --format=json what calls add) >out &&
	head -n 1 out | jfields type traversal depth seeds.0.id weights.graph >first &&
	echo "plan callers 1 math_utils.py#add 0.3" >expect &&
	test_cmp expect first &&
	python3 -c "
import json, sys
recs = [json.loads(l) for l in open(\"out\")]
plan = recs[0]
w = plan[\"weights\"]
for r in recs[1:]:
    assert r[\"type\"] == \"result\", r
    assert r[\"path\"] and r[\"line\"] > 0, r
    f = r[\"factors\"]
    s = sum(w[k] * f[k] for k in (\"similarity\", \"graph\", \"importance\", \"recency\"))
    assert abs(s - r[\"score\"]) < 1e-9, (s, r)
    assert r[\"via\"][0][\"id\"] == \"math_utils.py#add\", r
    assert r[\"via\"][-1][\"id\"] == r[\"id\"], r
    assert r[\"via\"][-1][\"site_line\"] > 0, r
print(len(recs) - 1)
" >n &&
	echo 2 >expect &&
	test_cmp expect n
'

test_expect_success 'weights change the order; bad weights are refused' '
	(cd repo && kbx hybrid --format=nul --weight=similarity=0 --weight=graph=0 \
		--weight=recency=0 --weight=importance=1 what calls add) >raw &&
	tr "\0" "\n" <raw | head -n 1 >first &&
	echo orders.py#OrderService.process >expect &&
	test_cmp expect first &&
	(cd repo && test_expect_code 2 kbx hybrid --weight=speed=1 what calls add 2>../err) &&
	test_grep "NAME one of similarity, graph, importance, recency" err &&
	(cd repo && test_expect_code 2 kbx hybrid --weight=graph=-1 what calls add 2>/dev/null) &&
	(cd repo && test_expect_code 2 kbx hybrid --depth=-1 what calls add 2>../err) &&
	test_grep "depth must be from 0 (all) to 1000" err
'

test_expect_success 'recency: an old file ranks lower, all else equal' '
	touch -d "2020-01-01 00:00:00" repo/math_utils.py &&
	(cd repo && kbx index -q && kbx hybrid --format=json what calls add) >out &&
	TYPE=result jfields id factors.recency <out >rec &&
	python3 -c "
import sys
r = dict(l.split() for l in open(\"rec\"))
assert float(r[\"math_utils.py#Calculator.total\"]) < 1e-6, r
assert float(r[\"orders.py#OrderService.process\"]) == 1.0, r
" 
'

test_expect_success 'an ambiguous name is said, and every definition is a starting point' '
	(cd repo && kbx hybrid --format=nul what calls step 2>../err) >raw &&
	test_grep "note: .step. is ambiguous: 4 definitions" err &&
	tr "\0" "\n" <raw >ids &&
	test_grep "^agents/base.py#BaseAgent.run$" ids
'

test_expect_success 'words that name no symbol: searched, and said so; a mistyped name is an error' '
	(cd repo && kbx hybrid --format=nul what calls the order processing code 2>../err) >raw &&
	test_grep "names no symbol: the .* code chunks the search finds for it are the starting points" err &&
	(cd repo && test_expect_code 1 kbx hybrid what calls proces 2>../err) &&
	test_grep "error: .proces. names no symbol, file or directory in the index: did you mean process" err
'

test_expect_success 'questions kbx cannot use are usage errors' '
	(cd repo && test_expect_code 2 kbx hybrid 2>../err) &&
	test_grep "ask a question" err &&
	(cd repo && test_expect_code 2 kbx hybrid what calls 2>../err) &&
	test_grep "needs a name after it" err &&
	(cd repo && test_expect_code 2 kbx hybrid the 2>../err) &&
	test_grep "has no words to search or follow" err
'

test_expect_success 'grep and nul formats' '
	(cd repo && kbx hybrid --format=grep what calls add) >out &&
	test_grep "^orders.py:15:5: OrderService.process (method, score" out &&
	(cd repo && kbx hybrid -z what calls add) >raw &&
	tr "\0" "\n" <raw | sort >ids &&
	printf "%s\n" math_utils.py#Calculator.total orders.py#OrderService.process >expect &&
	test_cmp expect ids
'

test_expect_success 'hostile questions: huge, binary, endless words; an answer or a clear error' '
	python3 -c "import sys; sys.stdout.write(\"what calls \" + \"x\" * 120000)" >huge &&
	(cd repo && test_expect_code 1 kbx hybrid "$(cat ../huge)" 2>../err) &&
	test_grep "names no symbol" err &&
	printf "what calls \001\002\377\376 add" >binary &&
	(cd repo && kbx hybrid "$(cat ../binary)" >../out 2>../err; test $? -le 2) &&
	python3 -c "import sys; sys.stdout.write(\" \".join([\"similar to retry\"] * 7000))" >many &&
	(cd repo && kbx hybrid --format=json "$(cat ../many)" >../out 2>../err; test $? -le 1) &&
	(cd repo && test_expect_code 2 kbx hybrid "?! ... ,,," 2>../err) &&
	test_grep "has no words to search or follow" err
'

test_expect_success '--all-repos: every listed repository asked, the answers fused and named' '
	mkdir other &&
	cat >other/util.py <<-\EOF &&
	def add(x, y):
	    return x + y


	def double(x):
	    return add(x, x)
	EOF
	: a repository without a remote is listed when the user says so &&
	kbx config --user repos.register always &&
	(cd other && git init -q && kbx index -q) &&
	(cd repo && kbx index -q) &&
	kbx repos --names | sort >names &&
	printf "%s\n" other repo >expect &&
	test_cmp expect names &&
	kbx hybrid --all-repos --format=json what calls add >out &&
	TYPE=result jfields repo id <out | sort >actual &&
	cat >expect <<-\EOF &&
	other util.py#double
	repo math_utils.py#Calculator.total
	repo orders.py#OrderService.process
	EOF
	test_cmp expect actual &&
	TYPE=plan jfields repo traversal <out | sort >plans &&
	printf "%s\n" "other callers" "repo callers" >expect &&
	test_cmp expect plans &&
	kbx hybrid --all-repos what calls add >text &&
	test_grep "\[other\] util.py:5  double (function)" text &&
	kbx hybrid --all-repos --format=grep what calls add >grep &&
	test_grep "/other/util.py:5:" grep &&
	test_expect_code 2 kbx hybrid --all-repos --repo=other what calls add 2>err
'

# In the Python fixture, main() calls format_row(), which legacy.py and
# report.py both define (ambiguous), and app.py calls main() (certain).
test_expect_success 'set up the Python fixture, where a call kbx cannot pin down leads on' '
	cp -R "$CORPORA/python" amb &&
	(cd amb && rm -f expected-*.txt README && git init -q && kbx index -q)
'

test_expect_success 'a way through an ambiguous call is ambiguous at every hop after it' '
	(cd amb && kbx hybrid --format=json what calls legacy.py#format_row transitively) >out &&
	TYPE=result jfields id hops confidence factors.graph <out >actual &&
	cat >expect <<-\EOF &&
	app.py#main 1 ambiguous 0.25
	app.py 2 ambiguous 0.16666666666666666
	EOF
	test_cmp expect actual
'

test_expect_success '--certain: the graph part follows only certain calls' '
	(cd amb && kbx hybrid --format=json what calls report.py#format_row transitively) >all &&
	TYPE=result jfields id hops confidence <all | sort >actual &&
	cat >expect <<-\EOF &&
	app.py 2 ambiguous
	app.py#main 1 ambiguous
	report.py#LowStockReport.rows 1 certain
	report.py#Report.render 2 certain
	report.py#Report.rows 1 certain
	EOF
	test_cmp expect actual &&
	(cd amb && kbx hybrid --certain --format=json what calls report.py#format_row transitively) >out &&
	TYPE=result jfields id hops confidence <out | sort >actual &&
	cat >expect <<-\EOF &&
	app.py 4 certain
	app.py#main 3 certain
	report.py#LowStockReport.rows 1 certain
	report.py#Report.render 2 certain
	report.py#Report.rows 1 certain
	EOF
	test_cmp expect actual &&
	TYPE=plan jfields certain <out >plan &&
	echo True >expect &&
	test_cmp expect plan &&
	TYPE=plan jfields certain <all >plan &&
	echo False >expect &&
	test_cmp expect plan
'

test_expect_success '--certain: nothing but a guess reaches it, so nothing is found' '
	(cd amb && test_expect_code 1 kbx hybrid --certain what calls legacy.py#format_row 2>../err) &&
	test_grep "nothing found" err &&
	(cd amb && kbx hybrid --certain --explain what calls report.py#format_row) >out &&
	test_grep "^edges      certain only (--certain): no ambiguous call is followed" out &&
	(cd amb && kbx hybrid --explain what calls report.py#format_row) >out &&
	test_grep ! "^edges " out
'

test_expect_success '--certain: a "called by" scope follows only certain calls too' '
	(cd amb && kbx hybrid --format=nul functions that is called by main) >raw &&
	tr "\0" "\n" <raw | sort >all &&
	test_grep "^legacy.py#format_row$" all &&
	(cd amb && kbx hybrid --certain --format=nul functions that is called by main) >raw &&
	tr "\0" "\n" <raw | sort >certain &&
	test_grep ! "format_row" certain &&
	test_grep "^app.py#build$" certain
'

test_done
