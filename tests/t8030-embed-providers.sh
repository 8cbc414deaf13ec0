#!/bin/sh

test_description='the http and command embedding providers

The module build/kbx-embed.so, through tests/unit/embed-tool: the http
provider against tests/lib/fake-embeddings-server.py (success, URL forms,
batching, the API key, errors, retries, time-out, bad answers) and the
command provider with small shell programs.'

. "$(dirname "$0")"/test-lib.sh

tool="$KBX_TEST_UNIT/embed-tool"
KBX_EMBED_MODULE_PATH=$(cd "$KBX_TEST_UNIT/../.." && pwd)/kbx-embed.so
export KBX_EMBED_MODULE_PATH

test -f "$KBX_EMBED_MODULE_PATH" ||
	test_skip "no embedding module at '$KBX_EMBED_MODULE_PATH' (run make)"

test_lazy_prereq PYTHON3 '
	python3 -c "import http.server, json, hashlib"
'

# start_server [switches of fake-embeddings-server.py]: sets URL.
start_server () {
	rm -f port server.log || return 1
	python3 "$TEST_DIRECTORY/lib/fake-embeddings-server.py" --port-file port \
		--log server.log "$@" >server.out 2>&1 &
	echo $! >server.pid &&
	n=0 &&
	while ! test -s port
	do
		n=$((n + 1)) &&
		if test $n -gt 100
		then
			echo "the fake server did not start:" && cat server.out && return 1
		fi &&
		sleep 0.1 || return 1
	done &&
	URL=http://127.0.0.1:$(cat port)
}

stop_server () {
	kill "$(cat server.pid)" 2>/dev/null
	rm -f server.pid
	return 0
}

# The number of inputs of each request the server saw, one a line.
request_sizes () {
	sed -e 's/.*"n": \([0-9]*\).*/\1/' server.log
}

http () {
	"$tool" --provider=http --url="$URL" --model=test-model "$@"
}

test_expect_success PYTHON3 'http: vectors of unit length, the dimension from the answer' '
	start_server && test_when_finished stop_server &&
	http --identity --print=norms hello world >out &&
	test_write_lines "identity http/test-model/8" "dim 8" 1.0000 1.0000 >expect &&
	test_cmp expect out
'

test_expect_success PYTHON3 'http: a vector does not depend on its batch or the order of the answer' '
	start_server --reverse && test_when_finished stop_server &&
	http --batch=3 alpha beta gamma delta >all &&
	http gamma >one &&
	sed -n 3p all >third &&
	test_cmp one third
'

test_expect_success PYTHON3 'http: the base URL, .../v1 and .../v1/embeddings all work' '
	start_server && test_when_finished stop_server &&
	"$tool" --provider=http --url="$URL/" --model=m --dim=8 a >/dev/null &&
	"$tool" --provider=http --url="$URL/v1" --model=m --dim=8 a >/dev/null &&
	"$tool" --provider=http --url="$URL/v1/embeddings" --model=m --dim=8 a >/dev/null &&
	sed -e "s/.*\"path\": \"\([^\"]*\)\".*/\1/" server.log >paths &&
	test_write_lines /v1/embeddings /v1/embeddings /v1/embeddings >expect &&
	test_cmp expect paths
'

test_expect_success PYTHON3 'http: texts go in batches; blank ones are not sent' '
	start_server && test_when_finished stop_server &&
	http --dim=8 --batch=2 --print=norms one two "  " three four five >norms &&
	test_write_lines 1.0000 1.0000 0.0000 1.0000 1.0000 1.0000 >expect &&
	test_cmp expect norms &&
	request_sizes >sizes &&
	test_write_lines 2 2 1 >expect &&
	test_cmp expect sizes
'

test_expect_success PYTHON3 'http: without a dimension, one probe asks for it' '
	start_server && test_when_finished stop_server &&
	http --batch=10 a b c >/dev/null &&
	request_sizes >sizes &&
	test_write_lines 1 3 >expect &&
	test_cmp expect sizes
'

test_expect_success PYTHON3 'http: prefixes for documents and queries' '
	start_server && test_when_finished stop_server &&
	http --dim=8 --doc-prefix="passage: " --query-prefix="query: " --identity \
		--print=none >id &&
	http --dim=8 --doc-prefix="passage: " --query-prefix="query: " doc >/dev/null &&
	http --dim=8 --doc-prefix="passage: " --query-prefix="query: " --query ask >/dev/null &&
	test_grep "\"input\": \[\"passage: doc\"\]" server.log &&
	test_grep "\"input\": \[\"query: ask\"\]" server.log &&
	test_grep "identity http/test-model/8;doc_prefix=passage: " id
'

test_expect_success PYTHON3 'http: the key goes in an Authorization header' '
	start_server && test_when_finished stop_server &&
	TEST_KEY=sk-test-123 http --dim=8 --key-env=TEST_KEY a >/dev/null &&
	http --dim=8 b >/dev/null &&
	sed -e "s/.*\"authorization\": \([^,]*\),.*/\1/" server.log >auth &&
	test_write_lines "\"Bearer sk-test-123\"" null >expect &&
	test_cmp expect auth
'

test_expect_success 'http: a key variable that is not set is named' '
	URL=http://127.0.0.1:9 &&
	test_expect_code 2 http --dim=8 --key-env=KBX_TEST_NO_SUCH_KEY a 2>err &&
	test_grep "environment variable KBX_TEST_NO_SUCH_KEY" err &&
	test_grep "is not set" err &&
	KBX_TEST_EMPTY_KEY= test_expect_code 2 http --dim=8 --key-env=KBX_TEST_EMPTY_KEY a \
		2>err &&
	test_grep "KBX_TEST_EMPTY_KEY.* is empty" err
'

test_expect_success PYTHON3 'http: 401 quotes the server and is not tried again' '
	start_server --status 401 --message "Incorrect API key provided: sk-bad" &&
	test_when_finished stop_server &&
	test_expect_code 2 http --dim=8 --retries=3 a 2>err &&
	test_grep "POST $URL/v1/embeddings: HTTP 401: Incorrect API key provided: sk-bad" err &&
	test_grep "check the API key" err &&
	test_line_count = 1 server.log
'

test_expect_success PYTHON3 'http: another 4xx is not tried again either' '
	start_server --status 400 --message "input is too long" &&
	test_when_finished stop_server &&
	test_expect_code 2 http --dim=8 --retries=3 a 2>err &&
	test_grep "HTTP 400: input is too long" err &&
	test_line_count = 1 server.log
'

test_expect_success PYTHON3 'http: 500 is tried again, then succeeds' '
	start_server --fail 2 && test_when_finished stop_server &&
	http --dim=8 --retries=3 --print=norms a >norms &&
	echo 1.0000 >expect &&
	test_cmp expect norms &&
	test_line_count = 3 server.log
'

test_expect_success PYTHON3 'http: 429 with Retry-After is tried again' '
	start_server --fail 1 --fail-status 429 --retry-after 1 &&
	test_when_finished stop_server &&
	http --dim=8 --retries=1 --print=norms a >norms &&
	echo 1.0000 >expect &&
	test_cmp expect norms &&
	test_line_count = 2 server.log
'

test_expect_success PYTHON3 'http: when the retries run out, the last error is told' '
	start_server --fail 100 --fail-status 503 && test_when_finished stop_server &&
	test_expect_code 2 http --dim=8 --retries=2 a 2>err &&
	test_grep "HTTP 503: failure 3 of 100 (after 3 attempts)" err &&
	test_line_count = 3 server.log
'

test_expect_success PYTHON3 'http: a slow server times out' '
	start_server --slow 5 && test_when_finished stop_server &&
	test_expect_code 2 http --dim=8 --timeout=300 a 2>err &&
	test_grep "POST $URL/v1/embeddings: .*[Tt]imed out" err
'

test_expect_success PYTHON3 'http: a server that is not there, tried again' '
	start_server && port=$(cat port) && stop_server &&
	sleep 0.2 &&
	URL=http://127.0.0.1:$port &&
	test_expect_code 2 http --dim=8 --retries=1 a 2>err &&
	test_grep "POST $URL/v1/embeddings: .*(after 2 attempts); check that the server runs" err
'

test_expect_success PYTHON3 'http: an answer that is not JSON' '
	start_server --bad-json && test_when_finished stop_server &&
	test_expect_code 2 http --dim=8 a 2>err &&
	test_grep "the answer is not JSON: .* at line 1" err
'

test_expect_success PYTHON3 'http: vectors of different dimensions are refused' '
	start_server --wrong-dim && test_when_finished stop_server &&
	test_expect_code 2 http a b 2>err &&
	test_grep "vector 2 has 9 numbers, earlier vectors 8" err &&
	test_expect_code 2 http --dim=16 a 2>err &&
	test_grep "vector 1 has 8 numbers, but the dimension is set to 16" err
'

test_expect_success PYTHON3 'http: a number a float cannot hold is refused' '
	start_server --huge && test_when_finished stop_server &&
	test_expect_code 2 http a 2>err &&
	test_grep "holds a number out of a vector.s range at 0 (1e+39)" err
'

test_expect_success 'http: no URL, no model' '
	test_expect_code 2 "$tool" --provider=http --model=m a 2>err &&
	test_grep "http embedding: no URL" err &&
	test_expect_code 2 "$tool" --provider=http --url=http://127.0.0.1:9 a 2>err &&
	test_grep "http embedding: no model" err
'

# ---- command ----

test_expect_success 'command: a line per text in, a vector per line out' '
	cat >embed.sh <<-\EOF &&
	cat >input.txt
	while IFS= read -r line
	do
		echo "[1, 2, ${#line}]"
	done <input.txt
	EOF
	"$tool" --provider=command --command="sh embed.sh" --identity --print=norms \
		"ab" "$(printf "two\nlines")" "" "naïve" >out &&
	test_write_lines "identity command/sh embed.sh/3" "dim 3" \
		1.0000 1.0000 0.0000 1.0000 >expect &&
	test_cmp expect out &&
	printf "%s\n" "\"ab\"" "\"two\\nlines\"" "\"naïve\"" >expect &&
	test_cmp expect input.txt
'

test_expect_success 'command: invalid UTF-8 becomes U+FFFD' '
	"$tool" --provider=command --command="cat >input.txt; echo [1]" --dim=1 \
		"$(printf "a\377b")" >/dev/null &&
	printf "\"a\357\277\275b\"\n" >expect &&
	test_cmp expect input.txt
'

test_expect_success 'command: the vectors are scaled to unit length' '
	"$tool" --provider=command --command="cat >/dev/null; echo \"[3, 4]\"" x >out &&
	echo "0.600000 0.800000" >expect &&
	test_cmp expect out
'

test_expect_success 'command: numbers a float cannot hold are refused' '
	test_expect_code 2 "$tool" --provider=command --command="cat >/dev/null; echo \"[3, 1e39]\"" x 2>err &&
	test_grep "line 1 of its output: item 2 (1e+39) is out of a vector.s range" err &&
	test_expect_code 2 "$tool" --provider=command --command="cat >/dev/null; echo \"[-3.5e38, 1]\"" x 2>err &&
	test_grep "line 1 of its output: item 1 (-3.5e+38) is out of a vector.s range" err
'

test_expect_success 'command: a failing program: its status and last line of stderr' '
	test_expect_code 2 "$tool" --provider=command --dim=4 \
		--command="echo loading >&2; echo \"model not found: foo\" >&2; exit 3" a 2>err &&
	test_grep "exited with status 3: model not found: foo" err
'

test_expect_success 'command: a program that does not read its input' '
	test_expect_code 2 "$tool" --provider=command --dim=4 --command="exit 5" \
		"$(printf "%070000d" 0)" 2>err &&
	test_grep "exited with status 5" err
'

test_expect_success 'command: too few and too many lines' '
	test_expect_code 2 "$tool" --provider=command --dim=2 \
		--command="cat >/dev/null; echo [1,2]" a b c 2>err &&
	test_grep "wrote 1 lines for 3 texts" err &&
	test_expect_code 2 "$tool" --provider=command --dim=2 \
		--command="cat >/dev/null; echo [1,2]; echo [1,2]" a 2>err &&
	test_grep "wrote more than 1 lines for 1 texts" err
'

test_expect_success 'command: bad JSON is told with its line number' '
	test_expect_code 2 "$tool" --provider=command --dim=2 \
		--command="cat >/dev/null; echo [1,2]; echo \"[1, oops]\"" a b 2>err &&
	test_grep "line 2 of its output is not a JSON array of numbers" err &&
	test_expect_code 2 "$tool" --provider=command --dim=2 \
		--command="cat >/dev/null; echo \"[1, \\\"x\\\"]\"" a 2>err &&
	test_grep "line 1 of its output is not a JSON array of numbers: item 2" err
'

test_expect_success 'command: the dimension must not change' '
	# the probe gets [1,2], the second text of the call [1,2,3]
	test_expect_code 2 "$tool" --provider=command \
		--command="awk '\''{ print (NR == 2 ? \"[1,2,3]\" : \"[1,2]\") }'\''" a b 2>err &&
	test_grep "line 2 of its output has 3 numbers, earlier vectors 2" err
'

test_expect_success 'command: a program that hangs is killed' '
	test_expect_code 2 "$tool" --provider=command --dim=2 --timeout=300 \
		--command="exec sleep 30" a 2>err &&
	test_grep "neither read nor wrote for 300 ms and was killed" err
'

test_expect_success 'the module is looked for where KBX_EMBED_MODULE_PATH says' '
	KBX_EMBED_MODULE_PATH=$PWD/nowhere.so &&
	export KBX_EMBED_MODULE_PATH &&
	test_expect_code 2 "$tool" --provider=command --command=true a 2>err &&
	test_grep "embedding module not found: KBX_EMBED_MODULE_PATH names" err
'

test_done
