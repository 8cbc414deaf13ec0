#!/bin/sh

test_description='kbx mcp: the Model Context Protocol server on stdin and stdout

Raw JSON-RPC lines from the shell: initialize and the protocol versions,
tools/list, a call of each tool with good and bad arguments, malformed
messages, unknown methods, progress and cancellation of an index, the
message size limit, a closed standard input; and nothing on stdout but
JSON-RPC messages.  python3 reads the answers.'

. ./test-lib.sh
. "$TEST_DIRECTORY/mcp/fixture.sh"

test_lazy_prereq PYTHON 'python3 -c "import json"'

# answers: every line of out must be a JSON-RPC 2.0 message (else the
# script fails); print one line per message:
#   ID result ok EXIT NRECORDS     a tool result
#   ID result error: TEXT          a tool result with isError
#   ID error CODE                  a JSON-RPC error
#   ID result                      any other result
#   - progress TOKEN N             a progress notification
answers () {
	python3 -c '
import json, sys
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    m = json.loads(line)
    assert isinstance(m, dict) and m.get("jsonrpc") == "2.0", "line %d: %r" % (n, line)
    i = json.dumps(m.get("id")) if "id" in m else "-"
    if "error" in m:
        print(i, "error", m["error"]["code"])
    elif "method" in m:
        p = m["params"]
        print(i, "progress", json.dumps(p["progressToken"]), p["progress"])
    else:
        r = m["result"]
        if "content" in r:
            text = r["content"][0]["text"]
            assert r["content"][0]["type"] == "text"
            if r.get("isError"):
                assert "structuredContent" not in r
                print(i, "result", "error:", text.replace("\n", " | "))
            else:
                sc = r["structuredContent"]
                print(i, "result ok", sc["exit_status"], len(sc["records"]))
        else:
            print(i, "result")
' "$1"
}

# mcp: run kbx mcp on the lines given (one an argument), into out, err
# and answers of the trash directory, whatever the directory it runs
# in; it must exit 0.
mcp () {
	printf "%s\n" "$@" >"$TRASH_DIRECTORY/in" &&
	kbx mcp <"$TRASH_DIRECTORY/in" >"$TRASH_DIRECTORY/out" 2>"$TRASH_DIRECTORY/err" &&
	answers "$TRASH_DIRECTORY/out" >"$TRASH_DIRECTORY/answers"
}

INIT='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t8400","version":"1"}}}'
INITED='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# call ID TOOL ARGS: a tools/call line
call () {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"
}

test_expect_success PYTHON 'setup: a small C repository with a document, indexed' '
	mcp_fixture_repo repo &&
	(cd repo && kbx index -q)
'

test_expect_success PYTHON 'initialize answers the version asked for when it serves it' '
	(cd repo && mcp "$INIT") &&
	grep "\"protocolVersion\":\"2025-06-18\"" out &&
	grep "\"tools\":{" out &&
	grep "\"serverInfo\":{\"name\":\"kbx\"" out &&
	for v in 2025-11-25 2025-03-26 2024-11-05; do
		(cd repo && mcp "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"$v\"}}") &&
		grep "\"protocolVersion\":\"$v\"" out || return 1
	done
'

test_expect_success PYTHON 'initialize answers its newest version to one it does not serve' '
	(cd repo && mcp "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"1999-01-01\"}}") &&
	grep "\"protocolVersion\":\"2025-11-25\"" out &&
	(cd repo && mcp "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}") &&
	echo "1 error -32602" >expect &&
	test_cmp expect answers
'

test_expect_success PYTHON 'ping and notifications: ping answers {}, notifications nothing' '
	(cd repo && mcp "$INIT" "$INITED" "{\"jsonrpc\":\"2.0\",\"id\":\"p\",\"method\":\"ping\"}" \
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}") &&
	printf "0 result\n\"p\" result\n" >expect &&
	test_cmp expect answers &&
	grep "\"id\":\"p\",\"result\":{}" out
'

test_expect_success PYTHON 'tools/list: every tool with an input and an output schema' '
	(cd repo && mcp "$INIT" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}") &&
	python3 -c "
import json, sys
m = [json.loads(l) for l in open(\"out\")][1]
for t in m[\"result\"][\"tools\"]:
    s = t[\"inputSchema\"]
    assert s[\"type\"] == \"object\" and \"repo\" in s[\"properties\"], t
    for r in s.get(\"required\", []):
        assert r in s[\"properties\"], (t[\"name\"], r)
    assert t[\"outputSchema\"][\"type\"] == \"object\", t
    assert t[\"description\"], t
    print(t[\"name\"])
" >tools &&
	sort tools >actual &&
	{
		test_write_lines callees callers changed defs hybrid impact index path repos search status &&
		if kbx --list-cmds | grep -qx context; then echo context; fi
	} | sort >expect &&
	test_cmp expect actual
'

test_expect_success PYTHON 'a call of each graph and search tool, with good arguments' '
	(cd repo && mcp "$INIT" \
		"$(call 1 search "{\"query\":\"doubles a number\"}")" \
		"$(call 2 hybrid "{\"question\":\"who calls scale\"}")" \
		"$(call 3 callers "{\"symbol\":\"add_numbers\"}")" \
		"$(call 4 callees "{\"symbol\":\"scale\",\"depth\":2}")" \
		"$(call 5 defs "{\"symbol\":\"compute_total\"}")" \
		"$(call 6 impact "{\"symbol\":\"add_numbers\",\"certain\":true}")" \
		"$(call 7 path "{\"from\":\"main\",\"to\":\"add_numbers\"}")" \
		"$(call 8 status "null")") &&
	sort answers >actual &&
	cat >expect <<-\EOF &&
	0 result
	3 result ok 0 1
	4 result ok 0 1
	5 result ok 0 1
	6 result ok 0 4
	7 result ok 0 1
	8 result ok 0 1
	EOF
	grep -v "^[12] " actual >actual.graph &&
	test_cmp expect actual.graph &&
	grep "^1 result ok 0 [1-9]" actual &&
	grep "^2 result ok 0 [1-9]" actual &&
	grep "\"to\":\"calc.c#add_numbers\"" out &&
	test_must_be_empty err
'

test_expect_success PYTHON 'the records are the command'"'"'s JSON Lines, and the text too' '
	(cd repo && kbx callers --format=json add_numbers >../expect) &&
	(cd repo && mcp "$(call 3 callers "{\"symbol\":\"add_numbers\"}")") &&
	python3 -c "
import json
r = json.loads(open(\"out\").read())[\"result\"]
lines = [json.loads(l) for l in open(\"expect\")]
assert r[\"structuredContent\"][\"records\"] == lines, r
assert r[\"content\"][0][\"text\"] == open(\"expect\").read()
"
'

# Calls run side by side (a child each): an index in the same session
# as changed could commit first and leave changed nothing to report, so
# the index comes in a session of its own.
test_expect_success PYTHON 'changed, repos and index' '
	echo "int extra(void) { return 0; }" >>repo/calc.c &&
	(cd repo && mcp "$INIT" \
		"$(call 1 changed "{}")" \
		"$(call 2 repos "{}")") &&
	sort answers >actual &&
	grep "^1 result ok 0 [1-9]" actual &&
	grep "^2 result ok [01] [0-9]" actual &&
	(cd repo && mcp "$INIT" "$(call 3 index "{}")") &&
	grep "^3 result ok 0 1$" answers &&
	grep "\"type\":\"index\"" out
'

test_expect_success PYTHON 'what a tool says besides its answer reaches the client' '
	(cd repo && mcp "$(call 1 hybrid "{\"question\":\"what calls compute totals\"}")") &&
	python3 -c "
import json
r = json.loads(open(\"out\").read())[\"result\"]
sc = r[\"structuredContent\"]
assert sc[\"exit_status\"] == 0 and len(sc[\"records\"]) > 0, r
assert len(r[\"content\"]) == 2 and r[\"content\"][1][\"type\"] == \"text\", r
assert \"names no symbol\" in r[\"content\"][1][\"text\"], r
w = sc[\"warnings\"]
assert len(w) == 1 and w[0].startswith(\"note: \") and \"names no symbol\" in w[0], w
" &&
	(cd repo && mcp "$(call 2 callers "{\"symbol\":\"add_numbers\"}")") &&
	python3 -c "
import json
r = json.loads(open(\"out\").read())[\"result\"]
assert len(r[\"content\"]) == 1 and \"warnings\" not in r[\"structuredContent\"], r
"
'

test_expect_success PYTHON 'at most 100 warnings, then how many more' '
	git init -q skips &&
	i=0 &&
	while test $i -lt 130
	do
		printf "x\\0y" >skips/f$i.c &&
		i=$((i + 1)) || return 1
	done &&
	echo "int main(void) { return 0; }" >skips/main.c &&
	(cd skips && mcp "$(call 1 index "{}")") &&
	python3 -c "
import json
r = json.loads(open(\"out\").read())[\"result\"]
w = r[\"structuredContent\"][\"warnings\"]
assert len(w) == 101 and \"binary file\" in w[0] and w[100] == \"(30 more lines)\", w[-3:]
t = r[\"content\"][1][\"text\"].splitlines()
assert t == w, t[-3:]
"
'

test_expect_success PYTHON 'a symbol that is not there: found nothing, not an error' '
	(cd repo && mcp "$(call 1 callers "{\"symbol\":\"no_such_function\"}")") &&
	echo "1 result ok 1 0" >expect &&
	test_cmp expect answers &&
	grep "no symbol .no_such_function." out
'

test_expect_success PYTHON 'bad arguments are tool errors with the message kbx prints' '
	(cd repo && mcp \
		"$(call 1 search "{}")" \
		"$(call 2 search "{\"query\":\"x\",\"limit\":\"ten\"}")" \
		"$(call 3 callers "{\"symbol\":\"scale\",\"colour\":1}")" \
		"$(call 4 defs "{\"symbol\":42}")" \
		"$(call 5 search "{\"query\":\"x\",\"mode\":\"fast\"}")" \
		"$(call 6 callers "{\"symbol\":\"scale\",\"certain\":\"yes\"}")" \
		"$(call 7 search "{\"query\":\"x\",\"limit\":0}")" \
		"$(call 8 status "[1]")" \
		"$(call 9 path "{\"from\":\"main\"}")" \
		"$(call 10 callers "{\"symbol\":\"scale\",\"depth\":1.5}")") &&
	sort -n answers >actual &&
	cat >expect <<-\EOF &&
	1 result error: error: '"'"'search'"'"' takes the argument '"'"'query'"'"'
	2 result error: error: '"'"'limit'"'"' must be an integer
	3 result error: error: '"'"'callers'"'"' takes no argument '"'"'colour'"'"'; it takes '"'"'symbol'"'"', '"'"'depth'"'"', '"'"'transitive'"'"', '"'"'certain'"'"', '"'"'repo'"'"'
	4 result error: error: '"'"'symbol'"'"' must be a string
	5 result error: error: '"'"'mode'"'"' must be one of hybrid, vector, lexical
	6 result error: error: '"'"'certain'"'"' must be true or false
	8 result error: error: the arguments of '"'"'status'"'"' must be an object
	9 result error: error: '"'"'path'"'"' takes the argument '"'"'to'"'"'
	10 result error: error: '"'"'depth'"'"' must be an integer
	EOF
	grep -v "^7 " actual >actual.7 &&
	test_cmp expect actual.7 &&
	(cd repo && test_expect_code 2 kbx search --limit=0 x 2>../msg.cli) &&
	printf "7 result error: %s\n" "$(cat msg.cli)" >expect.7 &&
	grep "^7 " actual >actual.7 &&
	test_cmp expect.7 actual.7
'

test_expect_success PYTHON 'an option-like operand stays an operand' '
	(cd repo && mcp "$(call 1 defs "{\"symbol\":\"--kbx-dir=/\"}")") &&
	echo "1 result ok 1 0" >expect &&
	test_cmp expect answers
'

test_expect_success PYTHON 'repo: a name from the list, never a path' '
	(cd repo && kbx repos add --name=calc . 2>/dev/null) &&
	mkdir elsewhere &&
	(cd elsewhere && mcp \
		"$(call 1 defs "{\"symbol\":\"scale\",\"repo\":\"calc\"}")" \
		"$(call 2 defs "{\"symbol\":\"scale\",\"repo\":\"no-such-repo\"}")" \
		"$(call 3 defs "{\"symbol\":\"scale\",\"repo\":\"../repo\"}")" \
		"$(call 4 defs "{\"symbol\":\"scale\"}")") &&
	sort -n answers >actual &&
	grep "^1 result ok 0 1$" actual &&
	grep "^2 result error: .*no-such-repo" actual &&
	grep "^3 result error: error: .repo. takes a repository.s name" actual &&
	grep "^4 result error: .*kbx index" actual
'

test_expect_success PYTHON 'malformed messages are JSON-RPC errors, and the server goes on' '
	(cd repo && mcp "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":" \
		"[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]" \
		"{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}" \
		"\"just a string\"" \
		"{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}" \
		"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":7}" \
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/list\"}" \
		"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"rm\"}}" \
		"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":[]}" \
		"{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}") &&
	cat >expect <<-\EOF &&
	null error -32700
	null error -32600
	null error -32600
	null error -32600
	null error -32600
	6 error -32600
	7 error -32601
	8 error -32602
	9 error -32602
	10 result
	EOF
	test_cmp expect answers
'

test_expect_success PYTHON 'hostile messages: deep nesting, NUL bytes, bytes outside UTF-8' '
	cat >gen.py <<-\EOF &&
	import sys
	w = sys.stdout.buffer.write
	call = b"{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"defs\",\"arguments\":{\"symbol\":\"%s\"}}}\n"
	w(b"[" * 100000 + b"]" * 100000 + b"\n")
	w(b"{\"jsonrpc\":\"2.0\",\x00\"id\":2}\n")
	w(call % (3, b"bad\xff\xfe\\u001b[2J"))
	w(call % (6, b"bad\xff\xfe"))
	w(call % (4, b"a\\u0000b"))
	w(call % (5, b"raw\x1b"))
	EOF
	python3 gen.py >in &&
	(cd repo && kbx mcp <../in >../out) &&
	answers out >answers &&
	sort answers >actual &&
	sort >expect <<-\EOF &&
	null error -32700
	null error -32700
	null error -32700
	3 result error: error: symbol contains a control character (byte 0x1b at offset 5)
	4 result error: error: '"'"'symbol'"'"' holds a NUL character
	6 result ok 1 0
	EOF
	test_cmp expect actual &&
	test_grep ! "$(printf "\033")" out &&
	grep "no symbol .bad.*377.*376. in the index" out
'

test_expect_success PYTHON 'a message over the size limit is refused; the next one is read' '
	python3 -c "print(\"{\\\"jsonrpc\\\":\\\"2.0\\\",\\\"id\\\":1,\\\"method\\\":\\\"ping\\\",\\\"params\\\":{\\\"x\\\":\\\"\" + \"a\" * 5000 + \"\\\"}}\")" >in &&
	echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}" >>in &&
	(cd repo && kbx mcp --max-message-size=4k <../in >../out) &&
	answers out >actual &&
	printf "null error -32700\n2 result\n" >expect &&
	test_cmp expect actual
'

test_expect_success PYTHON 'a question of 1 MB is answered' '
	python3 -c "
import json
q = (\"which function doubles a number and adds one \" * 30000)[:1000000]
print(json.dumps({\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\",
                  \"params\": {\"name\": \"search\", \"arguments\": {\"query\": q}}}))
" >in &&
	test $(wc -c <in) -gt 1000000 &&
	(cd repo && kbx mcp <../in >../out) &&
	answers out >actual &&
	grep "^1 result ok 0 [1-9]" actual
'

test_expect_success PYTHON 'closed stdin: exit 0 at once, or after answering a last line without newline' '
	(cd repo && kbx mcp </dev/null >../out) &&
	test_must_be_empty out &&
	printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}" >in &&
	(cd repo && kbx mcp <../in >../out) &&
	answers out >actual &&
	echo "1 result" >expect &&
	test_cmp expect actual
'

test_expect_success PYTHON 'index: progress notifications for a progressToken' '
	i=0 && while test $i -lt 40; do
		echo "int gen_$i(void) { return $i; }" >repo/gen_$i.c && i=$((i + 1)) || return 1
	done &&
	(cd repo && mcp "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"index\",\"arguments\":{},\"_meta\":{\"progressToken\":\"tok\"}}}") &&
	grep "^- progress \"tok\" 1$" answers &&
	grep "^- progress \"tok\" 2$" answers &&
	tail -n 1 answers >actual &&
	echo "1 result ok 0 1" >expect &&
	test_cmp expect actual &&
	grep "\"message\":\"parse [0-9]*/[0-9]* files\"" out
'

test_expect_success PYTHON 'cancelling an index kills it: no answer, the index as it was' '
	(cd repo && kbx status --format=json >../before) &&
	i=0 && while test $i -lt 300; do
		echo "int more_$i(void) { return $i; }" >repo/more_$i.c && i=$((i + 1)) || return 1
	done &&
	(cd repo && mcp "$(call 1 index "{\"rebuild\":true}")" \
		"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":\"test\"}}" \
		"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}") &&
	echo "2 result" >expect &&
	test_cmp expect answers &&
	(cd repo && kbx status --format=json >../after) &&
	grep "\"files\":4[0-9]," after &&
	(cd repo && kbx defs more_1 >/dev/null 2>&1; test $? = 1)
'

test_expect_success PYTHON 'SIGTERM ends the server and the call it runs' '
	# a module that takes a good part of a second to parse, so that the
	# index still runs when the signal comes (without it, on an idle
	# machine, the index could answer between two polls of out.term)
	awk "BEGIN { for (i = 0; i < 8000; i++) printf \"def f%d(a, b):\\n    return g(a, [b, {1: (a, b)}]) + h%d(b)\\n\", i, i }" \
		>repo/big.py &&
	mkfifo ctl &&
	{ (cd repo && exec kbx mcp <../ctl >../out.term 2>../err.term) & } &&
	server=$! &&
	exec 9>ctl &&
	echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"index\",\"arguments\":{\"rebuild\":true},\"_meta\":{\"progressToken\":1}}}" >&9 &&
	# the index runs once it reports progress
	i=0 && while ! grep -q progress out.term && test $i -lt 200; do
		sleep 0.05; i=$((i + 1))
	done &&
	kill -TERM $server &&
	{ wait $server; rc=$?; } &&
	exec 9>&- &&
	test $rc = 143 &&
	! grep "\"result\"" out.term &&
	# its child is gone too: the index is not busy
	(cd repo && kbx index -q) &&
	rm repo/big.py &&
	(cd repo && kbx index -q)
'

test_expect_success PYTHON 'nothing but JSON-RPC on stdout when a command fails loudly' '
	mkdir noindex &&
	(cd noindex && mcp "$INIT" "$(call 1 status "{}")" "$(call 2 search "{\"query\":\"x\"}")") &&
	grep "^1 result error: error: " answers &&
	grep "^2 result error: error: " answers
'

test_expect_success PYTHON 'the README'"'"'s client settings are JSON that start kbx mcp' '
	python3 -c "
import json, re, sys
text = open(sys.argv[1], encoding=\"utf-8\").read()
blocks = re.findall(r\"<!-- mcp-json -->\\s*\\x60\\x60\\x60json\\n(.*?)\\x60\\x60\\x60\\s*<!-- /mcp-json -->\", text, re.S)
assert len(blocks) == 2, blocks
for b in blocks:
    cfg = json.loads(b)
    servers = cfg.get(\"servers\") or cfg[\"mcpServers\"]
    s = servers[\"kbx\"]
    assert [s[\"command\"]] + s[\"args\"] == [\"kbx\", \"mcp\"], s
print(len(blocks))
" "$KBX_SRC/README.md" >count &&
	echo 2 >expect &&
	test_cmp expect count
'

# kbx context comes from another branch: until it is merged, this kbx
# has no such command, lists no such tool, and the test is skipped.
test_lazy_prereq CONTEXT 'kbx --list-cmds | grep -qx context && kbx help context >/dev/null 2>&1'

test_expect_success PYTHON,CONTEXT 'context: the tool runs kbx context' '
	(cd repo && mcp "$(call 1 context "{\"question\":\"what doubles a number\",\"budget\":500}")" \
		"$(call 2 context "{}")") &&
	grep "^1 result ok 0 [1-9]" answers &&
	grep "^2 result error: error: .context. takes the argument .question." answers
'

test_done
