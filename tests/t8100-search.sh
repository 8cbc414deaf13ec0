#!/bin/sh
test_description='kbx search and the search index: registries, code chunks, signals, filters, fusion, staleness'

. "$(dirname "$0")"/test-lib.sh

# Fields of JSON Lines on stdin, with python3: "field field ..." per record.
jfields () {
	python3 -c '
import json, sys
keys = sys.argv[1:]
for line in sys.stdin:
    r = json.loads(line)
    out = []
    for k in keys:
        v = r
        for part in k.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        out.append("-" if v is None else str(v))
    print(" ".join(out))
' "$@"
}

# use_command NAME: the embeddings from the program NAME of the trash
# directory, whose text is read from standard input
use_command () {
	cat >"$1" &&
	chmod +x "$1" &&
	(cd repo && kbx config --user search.provider command &&
	 kbx config --user search.command "\"\$TRASH_DIRECTORY/$1\"")
}

test_expect_success 'set up a repository and a registry' '
	git init -q repo &&
	mkdir -p repo/src &&
	cat >repo/src/orders.py <<-\EOF &&
	import time


	class OrderService:
	    """Create and cancel orders."""

	    def create(self, user, items):
	        return self.store.insert(user, items)

	    def cancel(self, order_id):
	        return self.store.delete(order_id)


	def retry_with_backoff(fn, attempts=3):
	    for attempt in range(attempts):
	        try:
	            return fn()
	        except TimeoutError:
	            time.sleep(2 ** attempt)


	def checkout(service, user):
	    return retry_with_backoff(lambda: service.create(user, []))
	EOF
	cat >repo/NOTES.md <<-\EOF &&
	# Release notes

	## Deployment

	Deploy the orders service with the blue-green procedure described here.
	EOF
	cp -R "$KBX_SRC/tests/registry/basic" reg &&
	(cd repo && kbx registry add ../reg 2>../err) &&
	test_grep "run .kbx index." err &&
	(cd repo && kbx registry add ../reg 2>../err) &&
	test_grep "a registry already" err
'

test_expect_success PYTHON3 'kbx index indexes code chunks, registries and Markdown' '
	(cd repo && kbx index --format=json >../index.json) &&
	errors=$(cat reg/errors/*/*.yml | grep -c "^- id:") &&
	jfields search.chunks_by_type.error search.chunks_by_type.code \
		search.files_skipped search.entries_skipped <index.json >out &&
	echo "$errors 5 0 0" >expect &&
	test_cmp expect out &&
	jfields search.chunks_by_type.pattern search.chunks_by_type.adr \
		search.chunks_by_type.behavioral search.vector_index <index.json >counts &&
	read patterns adrs behavioral vindex <counts &&
	test "$patterns" -ge 2 && test "$adrs" -ge 1 && test "$behavioral" -ge 1 &&
	test "$vindex" = flat
'

test_expect_success 'kbx registry list prints the absolute path' '
	(cd repo && kbx registry list >../out) &&
	echo "$(cd reg && pwd -P)" >expect &&
	test_cmp expect out
'

test_expect_success 'the text summary counts chunks by type' '
	(cd repo && kbx index 2>../err) &&
	test_grep "^search: [0-9]* chunks (.*error.*code): 0 added, 0 removed$" err
'

test_expect_success PYTHON3 'an unchanged run embeds nothing and keeps the chunks' '
	(cd repo && kbx index --format=json >../index.json) &&
	jfields search.chunks_added search.chunks_removed search.embedded search.vectors_rebuilt <index.json >out &&
	echo "0 0 0 False" >expect &&
	test_cmp expect out
'

test_expect_success PYTHON3 'a real error message finds its entry, first by its pattern' '
	(cd repo && kbx search --format=json "ZeroDivisionError: division by zero" >../out.json) &&
	head -n 1 out.json | jfields id chunk_type signals.pattern.rank signals.pattern.match >out &&
	echo "py-zerodiv-001 error 1 division by zero" >expect &&
	test_cmp expect out
'

test_expect_success PYTHON3 'a stack trace on standard input' '
	cat >trace <<-\EOF &&
	Traceback (most recent call last):
	  File "/srv/app/handlers.py", line 12, in handle
	    user = payload["user_id"]
	KeyError: '"'"'user_id'"'"'
	EOF
	(cd repo && kbx search --format=json - <../trace >../out.json) &&
	head -n 1 out.json | jfields id signals.pattern.rank >out &&
	echo "py-key-001 1" >expect &&
	test_cmp expect out
'

test_expect_success 'text output shows an error entry with its cause and fix' '
	(cd repo && kbx search -n 1 "ZeroDivisionError: division by zero" >../out) &&
	test_grep "^1\. error py-zerodiv-001" out &&
	test_grep "^   cause:" out &&
	test_grep "^   fix:" out &&
	test_grep "/errors/python/builtin.yml:[0-9]" out
'

test_expect_success PYTHON3 'RRF: every fused score is the sum of w/(60 + rank), w 0.5 for vectors' '
	(cd repo && kbx search --format=json "retry with a timeout" >../out.json) &&
	python3 -c "
import json, sys
n = 0
for line in open(\"out.json\"):
    h = json.loads(line)
    want = sum((0.5 if k == \"vector\" else 1.0) / (60 + s[\"rank\"]) for k, s in h[\"signals\"].items() if s.get(\"rank\"))
    assert abs(h[\"score\"] - want) < 1e-9, (h[\"id\"], h[\"score\"], want)
    n += 1
assert n > 1
"
'

test_expect_success PYTHON3 '--rrf-k changes the constant' '
	(cd repo && kbx search --rrf-k=1 --format=json "retry with a timeout" >../out.json) &&
	python3 -c "
import json
for line in open(\"out.json\"):
    h = json.loads(line)
    want = sum((0.5 if k == \"vector\" else 1.0) / (1 + s[\"rank\"]) for k, s in h[\"signals\"].items() if s.get(\"rank\"))
    assert abs(h[\"score\"] - want) < 1e-9
"
'

test_expect_success PYTHON3 'results are in order of fused score' '
	(cd repo && kbx search --fusion=linear --vector-weight=0.3 --format=json "retry with a timeout" >../out.json) &&
	python3 -c "
import json
s = [json.loads(l)[\"score\"] for l in open(\"out.json\")]
assert s == sorted(s, reverse=True), s
assert len(s) > 1
"
'

test_expect_success '--vector-weight without --fusion=linear is an error' '
	(cd repo && test_expect_code 2 kbx search --vector-weight=0.5 retry 2>../err) &&
	test_grep "linear" err
'

test_expect_success 'a negative --limit, --ef-search or --nprobe is an error, -1 too' '
	(cd repo && test_expect_code 2 kbx search --limit=-1 retry 2>../err) &&
	test_grep "limit must be from 1 to 10000" err &&
	(cd repo && test_expect_code 2 kbx search -n -1 retry 2>../err) &&
	test_grep "limit must be from 1 to 10000" err &&
	(cd repo && test_expect_code 2 kbx search --ef-search=-1 retry 2>../err) &&
	(cd repo && test_expect_code 2 kbx search --nprobe=-1 retry 2>../err) &&
	test_grep "must be from 0 (the default) to 65536" err
'

test_expect_success PYTHON3 '--mode=lexical runs no vector signal' '
	(cd repo && kbx search --mode=lexical --explain --format=json "retry timeout" >../out.json) &&
	tail -n 1 out.json | jfields type signals.vector.used signals.lexical.used >out &&
	echo "plan False True" >expect &&
	test_cmp expect out &&
	head -n 1 out.json | jfields signals.vector >out &&
	echo "-" >expect &&
	test_cmp expect out
'

test_expect_success PYTHON3 '--type, --lang, --severity, --tag and --path filter every signal' '
	(cd repo &&
	 kbx search --type=code --format=json "retry" >../code.json &&
	 kbx search --type=error --lang=go --format=json "runtime error index out of range" >../go.json &&
	 kbx search --type=error --severity=critical --format=json "error" >../crit.json &&
	 kbx search --path="src/*.py" --format=json "order" >../path.json) &&
	jfields chunk_type <code.json | sort -u >out && echo code >expect && test_cmp expect out &&
	jfields lang <go.json | sort -u >out && { grep -v -x -e go -e all out >bad || :; } &&
	test_must_be_empty bad &&
	head -n 1 go.json | jfields id >out && grep "^go-" out &&
	jfields severity <crit.json | sort -u >out && echo critical >expect && test_cmp expect out &&
	jfields path <path.json | sort -u >out && echo src/orders.py >expect && test_cmp expect out
'

test_expect_success PYTHON3 'an entry for all languages matches every --lang' '
	all=$(grep -l "language: \"all\"" reg/errors/*/*.yml | head -n 1) &&
	test -n "$all" &&
	(cd repo && kbx search --lang=rust --type=error --format=json \
		"Error: connect ECONNREFUSED 127.0.0.1:5432" >../out.json) &&
	head -n 1 out.json | jfields id >out &&
	echo net-connrefused-001 >expect &&
	test_cmp expect out &&
	jfields lang <out.json | sort -u >out &&
	echo all >expect &&
	test_cmp expect out
'

test_expect_success 'an unknown --type is a usage error' '
	(cd repo && test_expect_code 2 kbx search --type=recipe x 2>../err) &&
	test_grep "unknown --type" err
'

test_expect_success 'nothing found exits 1' '
	(cd repo && test_expect_code 1 kbx search --mode=lexical --type=adr zzzqqqxxx) &&
	(cd repo && test_expect_code 1 kbx search --type=error --lang=go --severity=none zzz)
'

test_expect_success PYTHON3 'a code hit leads into the graph' '
	(cd repo && kbx search --type=code -n 1 --format=nul "exponential backoff retry sleep" >../id &&
	 tr "\0" "\n" <../id >../id.txt &&
	 kbx callers "$(cat ../id.txt)" --format=nul >../callers) &&
	echo src/orders.py#retry_with_backoff >expect && test_cmp expect id.txt &&
	tr "\0" "\n" <callers >out &&
	test_grep "src/orders.py#checkout" out
'

test_expect_success 'grep format: path:line:1: type id' '
	(cd repo && kbx search --type=code --format=grep retry >../out) &&
	test_grep "^src/orders.py:[0-9]*:1: code src/orders.py#retry_with_backoff" out
'

test_expect_success PYTHON3 'a changed registry file is read again; only its chunks change' '
	cat >>reg/errors/go/runtime.yml <<-\EOF &&
	- id: "go-extra-001"
	  error_type: "panic"
	  severity: "high"
	  pattern: "panic: assignment to entry in nil map"
	  cause: "A map that was never made was written to."
	  fix_template: "m := make(map[string]int)"
	  tags: ["map"]
	EOF
	(cd repo && kbx index --format=json >../index.json) &&
	jfields search.sources_changed search.embedded search.chunks_removed <index.json >out &&
	n=$(grep -c "^- id:" reg/errors/go/runtime.yml) &&
	echo "1 1 $((n - 1))" >expect &&
	test_cmp expect out &&
	(cd repo && kbx search --format=nul "panic: assignment to entry in nil map" >../out) &&
	tr "\0" "\n" <out | head -n 1 >first &&
	echo go-extra-001 >expect && test_cmp expect first
'

test_expect_success PYTHON3 'a stale vector index is detected, reported and not used' '
	cp repo/.kbx/vectors.kbxv old.kbxv &&
	echo "More deployment notes." >>repo/NOTES.md &&
	(cd repo && kbx index -q --rebuild) &&
	cp old.kbxv repo/.kbx/vectors.kbxv &&
	(cd repo && kbx search --explain --format=json deployment >../out.json 2>../err) &&
	test_grep "warning: the vector index is stale" err &&
	tail -n 1 out.json | jfields signals.vector.used >out &&
	echo False >expect && test_cmp expect out &&
	(cd repo && test_expect_code 3 kbx search --mode=vector deployment 2>../err) &&
	test_grep "stale" err &&
	(cd repo && kbx index -q && kbx search deployment >/dev/null 2>../err) &&
	test_must_be_empty err
'

test_expect_success PYTHON3 'chunks added since the vector file was built are searched beside it' '
	(cd repo && kbx index --rebuild -q) &&
	cat >>repo/NOTES.md <<-\EOF &&

	## Observability

	Export traces with OpenTelemetry and sample one request in a hundred.
	EOF
	(cd repo && kbx index --format=json >../index.json) &&
	jfields search.vectors_rebuilt search.vector_delta <index.json >out &&
	echo "False 1" >expect && test_cmp expect out &&
	(cd repo && kbx status --format=json >../status.json) &&
	jfields vectors_state vector_delta <status.json >out &&
	echo "current 1" >expect && test_cmp expect out &&
	(cd repo && kbx search --mode=vector --format=json "traces OpenTelemetry sample" >../out.json) &&
	head -n 1 out.json | jfields path >out &&
	echo "NOTES.md" >expect && test_cmp expect out &&
	test_grep "OpenTelemetry" repo/NOTES.md
'

test_expect_success PYTHON3 '--only=registry parses no code; --only=code reads no registry' '
	echo "def refund(order_id): return order_id" >>repo/src/orders.py &&
	echo "Rollback: see the runbook." >>repo/NOTES.md &&
	(cd repo && kbx index --only=registry --format=json >../index.json) &&
	jfields parsed search.sources_changed <index.json >out &&
	echo "0 1" >expect && test_cmp expect out &&
	(cd repo && test_expect_code 1 kbx search --mode=lexical --type=code --format=nul refund) &&
	(cd repo && kbx index --only=code --format=json >../index.json) &&
	jfields parsed search.sources_changed <index.json >out &&
	echo "1 1" >expect && test_cmp expect out &&
	(cd repo && kbx search --type=code --format=nul refund >../out) &&
	tr "\0" "\n" <out | head -n 1 >first &&
	echo "src/orders.py#refund" >expect && test_cmp expect first
'

test_expect_success PYTHON3 'another embedder embeds every chunk again and parses nothing' '
	use_command embed.sh <<-\EOF &&
	#!/bin/sh
	# one vector per line of input: four numbers from the line length
	awk "{ n = length(\$0); printf \"[%d,%d,%d,1]\\n\", n % 7 + 1, n % 5, n % 3 }"
	EOF
	(cd repo && kbx index --format=json >../index.json) &&
	jfields parsed search.sources_changed search.chunks_added search.embed_cached <index.json >out &&
	echo "0 0 0 0" >expect && test_cmp expect out &&
	jfields search.embedded search.chunks <index.json >counts &&
	read embedded chunks <counts &&
	test "$embedded" -gt 0 && test "$embedded" -le "$chunks" &&
	(cd repo && kbx status --format=json) >status.json &&
	jfields embedder vectors_state <status.json >out &&
	echo "command/\"\$TRASH_DIRECTORY/embed.sh\"/4 current" >expect && test_cmp expect out
'

test_expect_success PYTHON3 'back to the builtin embedder: its vectors come from the cache' '
	(cd repo && kbx config --user --unset search.provider &&
	 kbx search --explain --format=json deployment >../out.json 2>../err) &&
	test_grep "the vectors were made by command/.*but the settings ask for builtin" err &&
	(cd repo && kbx index --format=json >../index.json) &&
	jfields search.embedded search.vectors_rebuilt <index.json >out &&
	echo "0 True" >expect && test_cmp expect out &&
	(cd repo && kbx search deployment >/dev/null 2>../err) &&
	test_must_be_empty err
'

test_expect_success 'an embedder that fails: the chunks are indexed, search goes on without vectors' '
	test_when_finished "cd repo && kbx config --user --unset search.provider && kbx config --user --unset search.command && kbx index -q" &&
	(cd repo && kbx config --user search.provider command &&
	 kbx config --user search.command "echo model not found >&2; exit 3") &&
	echo "Canary deployments: shift traffic slowly." >>repo/NOTES.md &&
	(cd repo && test_must_fail kbx index 2>../err) &&
	test_grep "model not found" err &&
	test_grep "vector search catches up" err &&
	(cd repo && kbx search --mode=lexical --format=nul canary >../out) &&
	test_grep NOTES.md out
'

test_expect_success PYTHON3 'chunks indexed while the embedder was down: searches say so, the next run embeds them' '
	test_when_finished "rm -f down && cd repo && kbx config --user --unset search.provider && kbx config --user --unset search.command && kbx index -q" &&
	use_command flaky.sh <<-\EOF &&
	#!/bin/sh
	# embed.sh, unless the file "down" is there
	test -f "$(dirname "$0")/down" && { echo provider down >&2; exit 3; }
	awk "{ n = length(\$0); printf \"[%d,%d,%d,1]\\n\", n % 7 + 1, n % 5, n % 3 }"
	EOF
	(cd repo && kbx index -q) &&
	: >down &&
	echo "def quarantine_batch(b): return b" >repo/src/quarantine.py &&
	(cd repo && test_expect_code 6 kbx index 2>../err) &&
	test_grep "provider down" err &&
	test_grep "vector search catches up" err &&
	(cd repo && kbx status --format=json) >status.json &&
	jfields vectors_missing <status.json >out &&
	echo 1 >expect && test_cmp expect out &&
	rm down &&
	(cd repo && kbx search --mode=vector --format=nul quarantine >../out 2>../err) &&
	test_grep "1 chunk has no vector (the embedding failed when it was indexed)" err &&
	(cd repo && kbx index --format=json >../index.json) &&
	jfields parsed search.chunks_added search.embedded search.vectors_rebuilt <index.json >out &&
	echo "0 0 1 True" >expect && test_cmp expect out &&
	(cd repo && kbx status --format=json) >status.json &&
	jfields vectors_missing vector_delta <status.json >out &&
	echo "0 0" >expect && test_cmp expect out &&
	(cd repo && kbx search --mode=vector --format=nul --limit=100 quarantine >../out 2>../err) &&
	test_must_be_empty err &&
	tr "\0" "\n" <out >ids &&
	test_grep "src/quarantine.py#quarantine_batch" ids
'

test_expect_success 'a provider whose numbers a float cannot hold gives an error, not vectors' '
	test_when_finished "cd repo && kbx config --user --unset search.provider && kbx config --user --unset search.command && kbx index -q" &&
	use_command huge.sh <<-\EOF &&
	#!/bin/sh
	# 1e39 is past the largest float (3.4e38)
	awk "{ print \"[1e39,1,2,3]\" }"
	EOF
	(cd repo && test_must_fail kbx index 2>../err) &&
	test_grep "item 1 (1e+39) is out of a vector.s range" err &&
	(cd repo && kbx search --mode=lexical --format=nul quarantine >../out) &&
	test -s out
'

test_expect_success 'a question of nothing but common words finds nothing and says why' '
	(cd repo && test_expect_code 1 kbx search --mode=lexical "the of and" >../out 2>../err) &&
	test_must_be_empty out &&
	test_grep "the question has no word to search by" err &&
	(cd repo && kbx search --mode=lexical --format=nul quarantine >../out 2>../err) &&
	test_must_be_empty err
'

test_expect_success '--only=registry with a path is a usage error' '
	(cd repo && test_expect_code 2 kbx index --only=registry src 2>../err) &&
	test_grep "no path" err
'

test_expect_success 'kbx index --rebuild keeps the registries' '
	(cd repo && kbx index --rebuild -q && kbx registry list >../out) &&
	echo "$(cd reg && pwd -P)" >expect &&
	test_cmp expect out &&
	(cd repo && kbx search --type=error --format=nul "division by zero" >/dev/null)
'

test_expect_success PYTHON3 'a duplicate id in another file is skipped, naming both places' '
	mkdir -p reg/errors/python/more &&
	cat >reg/errors/python/more/dup.yml <<-\EOF &&
	- id: "py-zerodiv-001"
	  error_type: "ZeroDivisionError"
	  severity: "low"
	  pattern: "divide by nothing"
	  cause: "A copy."
	  fix_template: "none"
	  tags: []
	EOF
	(cd repo && test_expect_code 11 kbx index --format=json >../index.json 2>../err) &&
	test_grep "dup.yml:1: skipped entry: duplicate id .py-zerodiv-001.: already defined at .*builtin.yml:[0-9]" err &&
	jfields search.entries_skipped search.reasons.duplicate-id <index.json >out &&
	echo "1 1" >expect && test_cmp expect out &&
	(cd repo && test_expect_code 11 kbx index -q 2>../err) &&
	test_grep "duplicate id" err &&
	rm reg/errors/python/more/dup.yml &&
	(cd repo && kbx index -q)
'

test_expect_success 'a registry that went away is reported and its entries kept' '
	mv reg reg.away &&
	(cd repo && test_expect_code 11 kbx index 2>../err) &&
	test_grep "not a directory any more" err &&
	(cd repo && kbx search --type=error --format=nul "division by zero" >/dev/null) &&
	mv reg.away reg &&
	(cd repo && kbx index -q)
'

test_expect_success 'kbx registry remove drops the entries at the next index' '
	(cd repo && kbx registry remove ../reg 2>../err && kbx index -q) &&
	(cd repo && test_expect_code 1 kbx search --type=error "division by zero") &&
	(cd repo && test_expect_code 1 kbx registry list) &&
	(cd repo && test_expect_code 1 kbx registry remove ../reg 2>../err) &&
	test_grep "not a registry of this index" err
'

test_expect_success 'kbx registry add refuses what is not a directory' '
	(cd repo && test_expect_code 2 kbx registry add NOTES.md 2>../err) &&
	test_grep "not a directory" err &&
	(cd repo && test_expect_code 2 kbx registry add ../nowhere 2>../err) &&
	test_grep "does not exist" err
'

test_expect_success 'kbx registry add refuses a directory that holds no registry content' '
	mkdir -p empty/notes kb/errors/python &&
	echo "just text" >empty/notes/readme.txt &&
	echo "# hidden" >empty/.hidden.md &&
	printf -- "- id: e1\n" >kb/errors/python/base.yml &&
	(cd repo && test_expect_code 2 kbx registry add ../empty 2>../err) &&
	test_grep "^error: .\.\./empty. holds nothing a registry indexes: a registry is a directory of error entries (errors/<language>/\*\.yml) and Markdown documents" err &&
	(cd repo && test_expect_code 2 kbx registry add ../kb/errors/python 2>../err) &&
	test_grep "give the directory that holds errors/" err &&
	(cd repo && test_expect_code 1 kbx registry list >../out) &&
	test_must_be_empty out &&
	(cd repo && kbx registry add ../kb 2>../err) &&
	test_grep "^added" err &&
	(cd repo && kbx registry remove ../kb 2>/dev/null)
'

test_expect_success 'a Markdown file of the repository that opens with a rule is indexed whole' '
	git init -q rules &&
	mkdir -p rules/docs rules-reg/docs &&
	cat >rules/docs/sample.md <<-\EOF &&
	---
	__Advertisement :)__

	---

	# Heading

	Some text about widgets.
	EOF
	cat >rules/docs/broken.md <<-\EOF &&
	---
	title: [unclosed
	---

	# Gadgets

	Some text about gizmos.
	EOF
	(cd rules && kbx index >../out 2>../err) &&
	test_grep ! "skipped file" err &&
	test_grep "^docs/broken.md:3:1: warning: the front matter is not valid YAML: .*(it is ignored; the rest of the file is indexed)" err &&
	(cd rules && kbx search --format=grep widgets >../out) &&
	test_grep "^docs/sample.md:1:1: doc docs/sample.md" out &&
	# the body after the front matter, which is left out
	(cd rules && kbx search --format=grep gizmos >../out) &&
	test_grep "^docs/broken.md:5:1: doc docs/broken.md" out
'

test_expect_success 'the same file in a registry is still skipped, naming file and line' '
	cp rules/docs/sample.md rules-reg/docs/ &&
	(cd rules && kbx registry add ../rules-reg 2>/dev/null &&
	 test_expect_code 11 kbx index 2>../err) &&
	test_grep "/rules-reg/docs/sample.md:2:1: skipped file: the front matter is a single value, not a mapping" err
'

test_done
