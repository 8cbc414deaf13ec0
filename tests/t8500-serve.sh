#!/bin/sh

test_description='kbx serve: the HTTP API and the page, with curl

Every endpoint under /v1/ on a small indexed C repository, /v1/rag and
its plan, /v1/openapi.json, the page and its script; bad JSON, bad
arguments, a 10 MB body, a slow client, a client that trickles its
request a byte at a time, a query over --query-timeout
(and one that does not end on SIGTERM), a wrong or missing token, paths
outside /v1/, methods not taken, a Host header of another name; refusing
to listen beyond loopback without a token and token files that are links
or readable by others; a kbx index in another process seen without a
restart; SIGTERM ends the server.  python3 reads the JSON.'

. ./test-lib.sh
. "$TEST_DIRECTORY/mcp/fixture.sh"

test_lazy_prereq CURL 'command -v curl'
test_lazy_prereq PYTHON 'python3 -c "import json"'
test_lazy_prereq BASH 'command -v bash'
test_lazy_prereq PS 'ps -o pid= -p $$'

# serve_start [OPTIONS]: kbx serve on a free port of 127.0.0.1 in repo,
# its pid in SERVE_PID and its port in PORT, once it listens.
serve_start () {
	rm -f serve.out
	(cd repo && exec kbx serve --listen=127.0.0.1:0 "$@" >../serve.out 2>../serve.err) &
	SERVE_PID=$!
	i=0
	while ! grep -q "^kbx serve: listening on " serve.out 2>/dev/null
	do
		i=$((i + 1))
		test $i -lt 100 || { cat serve.err; return 1; }
		kill -0 $SERVE_PID 2>/dev/null || { cat serve.err; return 1; }
		sleep 0.1
	done
	PORT=$(sed -n "s|^kbx serve: listening on http://127.0.0.1:\([0-9]*\)/\$|\1|p" serve.out) &&
	test -n "$PORT"
}

# serve_stop: SIGTERM, and the server must end with 0.
serve_stop () {
	kill -TERM $SERVE_PID &&
	wait $SERVE_PID
}

# api METHOD PATH [BODY [CONTENT-TYPE]]: the answer's body into out, its
# status into code, its headers into headers.
api () {
	api_method_=$1 api_path_=$2
	shift 2
	if test $# -ge 1
	then
		curl -sS -o out -D headers -w "%{http_code}\n" -X "$api_method_" \
			-H "Content-Type: ${2:-application/json}" --data-binary "$1" \
			"http://127.0.0.1:$PORT$api_path_" >code
	else
		curl -sS -o out -D headers -w "%{http_code}\n" -X "$api_method_" \
			"http://127.0.0.1:$PORT$api_path_" >code
	fi
}

# expect_code N: the last answer's status was N
expect_code () {
	echo "$1" >expect.code &&
	test_cmp expect.code code
}

# jget EXPR: print the Python expression EXPR of d, the JSON of out
jget () {
	python3 -c '
import json, sys
d = json.load(open("out", encoding="utf-8"))
v = eval(sys.argv[1])
print(v if isinstance(v, str) else json.dumps(v))
' "$1"
}

test_expect_success 'setup: a small C repository, indexed and listed' '
	mcp_fixture_repo repo &&
	(cd repo && kbx index -q) &&
	kbx repos add --name=calc repo
'

test_expect_success 'listening beyond loopback without a token is refused' '
	test_expect_code 2 kbx serve --listen=0.0.0.0:0 2>err &&
	test_grep "token-file" err &&
	test_expect_code 2 kbx serve --listen=[::]:0 2>err &&
	test_grep "beyond this machine" err
'

test_expect_success 'a listen address that is not numeric is refused' '
	test_expect_code 2 kbx serve --listen=example.org:80 2>err &&
	test_grep "numeric address" err &&
	test_expect_code 2 kbx serve --listen=127.0.0.1 2>err
'

test_expect_success 'token files: a link, one others may read, a short token are refused' '
	printf "0123456789abcdef0123\n" >token &&
	chmod 644 token &&
	test_expect_code 2 kbx serve --token-file=token 2>err &&
	test_grep "chmod 600" err &&
	chmod 600 token &&
	ln -s token token-link &&
	test_expect_code 2 kbx serve --token-file=token-link 2>err &&
	test_grep "symbolic link" err &&
	printf "short\n" >short &&
	chmod 600 short &&
	test_expect_code 2 kbx serve --token-file=short 2>err &&
	test_grep "16 to 4096" err &&
	test_expect_code 2 kbx serve --token-file=. 2>err &&
	test_grep "not a regular file" err
'

test_lazy_prereq LDD 'ldd --version'

test_expect_success LDD 'kbx does not link libmicrohttpd or TLS; only its server module does' '
	ldd "$KBX_SRC/kbx" >libs &&
	test_grep ! -E "microhttpd|gnutls|nettle|p11-kit" libs &&
	ldd "$KBX_SRC/build/kbx-serve.so" >libs &&
	test_grep "libmicrohttpd" libs
'

test_expect_success 'a server module that cannot be found: exit 6 naming it' '
	test_expect_code 6 env KBX_SERVE_MODULE_PATH="$TRASH_DIRECTORY/none.so" \
		kbx serve --listen=127.0.0.1:0 2>err &&
	test_grep "server module" err &&
	test_grep "none.so" err
'

test_expect_success CURL,PYTHON 'start kbx serve on loopback' '
	serve_start
'

test_expect_success CURL,PYTHON 'GET /v1/repos lists the repositories: name, state, files' '
	api GET /v1/repos &&
	expect_code 200 &&
	jget "[(r[\"name\"], r[\"status\"], r[\"files\"]) for r in d[\"records\"]]" >actual &&
	echo "[[\"calc\", \"ok\", 2]]" >expect &&
	test_cmp expect actual &&
	jget "d[\"exit_status\"]" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'status by GET and POST, of the repository named or the current one' '
	api GET "/v1/status?repo=calc" &&
	expect_code 200 &&
	jget "d[\"records\"][0][\"files\"]" >actual &&
	echo 2 >expect &&
	test_cmp expect actual &&
	api POST /v1/status "{}" &&
	expect_code 200 &&
	jget "d[\"records\"][0][\"symbols\"]" >actual &&
	echo 4 >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'callers and callees two hops out, with depth and edges' '
	api POST /v1/callers "{\"symbol\":\"add_numbers\",\"depth\":2}" &&
	expect_code 200 &&
	jget "[(r[\"name\"], r[\"depth\"], r[\"confidence\"]) for r in d[\"records\"]]" >actual &&
	echo "[[\"scale\", 1, \"certain\"], [\"compute_total\", 2, \"certain\"]]" >expect &&
	test_cmp expect actual &&
	api POST /v1/callees "{\"symbol\":\"main\",\"depth\":2,\"repo\":\"calc\"}" &&
	expect_code 200 &&
	jget "[r[\"name\"] for r in d[\"records\"]]" >actual &&
	echo "[\"compute_total\", \"scale\"]" >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'defs, impact and path' '
	api POST /v1/defs "{\"symbol\":\"scale\"}" &&
	expect_code 200 &&
	jget "(d[\"records\"][0][\"path\"], d[\"records\"][0][\"line\"])" >actual &&
	echo "[\"calc.c\", 2]" >expect &&
	test_cmp expect actual &&
	api POST /v1/impact "{\"symbol\":\"add_numbers\"}" &&
	expect_code 200 &&
	jget "sorted(r[\"name\"] for r in d[\"records\"] if r[\"type\"] == \"affected\")" >actual &&
	echo "[\"compute_total\", \"main\", \"scale\"]" >expect &&
	test_cmp expect actual &&
	api POST /v1/path "{\"from\":\"main\",\"to\":\"add_numbers\"}" &&
	expect_code 200 &&
	jget "d[\"records\"][0][\"length\"]" >actual &&
	echo 3 >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'nothing found is an answer: 200 with exit status 1' '
	api POST /v1/defs "{\"symbol\":\"no_such_function\"}" &&
	expect_code 200 &&
	jget "(d[\"records\"], d[\"exit_status\"])" >actual &&
	echo "[[], 1]" >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'what a command says besides its answer comes as warnings' '
	for call in "/v1/hybrid {\"question\":\"what calls compute totals\"}" \
		"/v1/rag {\"query\":\"what calls compute totals\"}" \
		"/v1/callers {\"symbol\":\"add_numbers\"}"
	do
		api POST ${call%% *} "${call#* }" &&
		expect_code 200 &&
		jget "d.get(\"warnings\", [\"none\"])[0].split(\":\")[0]" >>said || return 1
	done &&
	test_write_lines note note none >expect &&
	test_cmp expect said
'

test_expect_success CURL,PYTHON 'search, hybrid and context' '
	api POST /v1/search "{\"query\":\"totals\",\"limit\":2}" &&
	expect_code 200 &&
	jget "d[\"records\"][0][\"path\"]" >actual &&
	echo README.md >expect &&
	test_cmp expect actual &&
	api POST /v1/hybrid "{\"question\":\"who calls add_numbers\"}" &&
	expect_code 200 &&
	jget "[r[\"type\"] for r in d[\"records\"]]" >actual &&
	echo "[\"plan\", \"result\"]" >expect &&
	test_cmp expect actual &&
	api POST /v1/context "{\"question\":\"who calls add_numbers\",\"budget\":500}" &&
	expect_code 200 &&
	jget "d[\"records\"][-1][\"type\"]" >actual &&
	echo pack >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'rag: the plan (seeds, traversal), the nodes with their paths from the seed, the chunks' '
	api POST /v1/rag "{\"query\":\"who calls add_numbers\",\"repo_id\":\"calc\",\"top_k\":3}" &&
	expect_code 200 &&
	jget "(d[\"query\"], d[\"repo_id\"], d[\"plan\"][\"traversal\"], [s[\"name\"] for s in d[\"plan\"][\"seeds\"]])" >actual &&
	echo "[\"who calls add_numbers\", \"calc\", \"callers\", [\"add_numbers\"]]" >expect &&
	test_cmp expect actual &&
	jget "[(n[\"name\"], [v[\"name\"] for v in n[\"via\"]]) for n in d[\"nodes\"]]" >actual &&
	echo "[[\"scale\", [\"add_numbers\", \"scale\"]]]" >expect &&
	test_cmp expect actual &&
	jget "[(c[\"path\"], c[\"line\"]) for c in d[\"chunks\"]][0]" >actual &&
	echo "[\"calc.c\", 2]" >expect &&
	test_cmp expect actual &&
	jget "d[\"chunks\"][0][\"text\"]" >actual &&
	test_grep "return add_numbers(x, x)" actual
'

test_expect_success CURL,PYTHON 'rag refuses members it does not take and a bad top_k' '
	api POST /v1/rag "{\"query\":\"x\",\"k\":3}" &&
	expect_code 400 &&
	jget "d[\"error\"][\"message\"]" >actual &&
	test_grep "repo_id" actual &&
	api POST /v1/rag "{\"query\":\"x\",\"top_k\":0}" &&
	expect_code 400 &&
	api POST /v1/rag "{\"top_k\":3}" &&
	expect_code 400
'

test_expect_success CURL,PYTHON 'a repository kbx does not know: 404 with the exit status and its meaning' '
	api POST /v1/callers "{\"symbol\":\"scale\",\"repo\":\"nosuch\"}" &&
	expect_code 404 &&
	jget "(d[\"error\"][\"status\"], d[\"error\"][\"exit_status\"])" >actual &&
	echo "[404, 3]" >expect &&
	test_cmp expect actual &&
	jget "d[\"error\"][\"message\"]" >actual &&
	test_grep "no repository is called" actual &&
	api POST /v1/callers "{\"symbol\":\"scale\",\"repo\":\"../etc\"}" &&
	expect_code 400
'

test_expect_success CURL,PYTHON 'bad JSON, a body not an object, bad arguments: 400' '
	api POST /v1/search "{\"query\":" &&
	expect_code 400 &&
	jget "d[\"error\"][\"message\"]" >actual &&
	test_grep "not JSON" actual &&
	api POST /v1/search "[1,2]" &&
	expect_code 400 &&
	api POST /v1/search "{\"query\":\"x\",\"bogus\":1}" &&
	expect_code 400 &&
	jget "(d[\"error\"][\"exit_status\"], d[\"error\"][\"meaning\"])" >actual &&
	echo "[2, \"bad arguments or an unparsable symbol\"]" >expect &&
	test_cmp expect actual &&
	api POST /v1/callers "{\"symbol\":\"scale\",\"depth\":\"two\"}" &&
	expect_code 400 &&
	api POST /v1/callers "{}" &&
	expect_code 400 &&
	api POST /v1/search "{\"query\":\"a\\u0000b\"}" &&
	expect_code 400
'

test_expect_success CURL,PYTHON 'a body that is not JSON by its type is refused (415)' '
	api POST /v1/search "{\"query\":\"x\"}" text/plain &&
	expect_code 415 &&
	api POST /v1/search "query=x" application/x-www-form-urlencoded &&
	expect_code 415
'

test_expect_success CURL,PYTHON 'a 10 MB body: 413, and the server answers on' '
	printf "{\"query\":\"%s\"}" "$(head -c 10485760 /dev/zero | tr "\\0" a)" >big.json &&
	curl -sS -o out -w "%{http_code}\n" -X POST -H "Content-Type: application/json" \
		--data-binary @big.json "http://127.0.0.1:$PORT/v1/search" >code &&
	expect_code 413 &&
	jget "d[\"error\"][\"status\"]" >actual &&
	echo 413 >expect &&
	test_cmp expect actual &&
	curl -sS -o out -w "%{http_code}\n" -X POST -H "Content-Type: application/json" \
		-H "Transfer-Encoding: chunked" --data-binary @big.json \
		"http://127.0.0.1:$PORT/v1/search" >code &&
	expect_code 413 &&
	api GET /v1/status &&
	expect_code 200
'

test_expect_success CURL,PYTHON 'a method an endpoint does not take: 405 with Allow' '
	api GET /v1/search &&
	expect_code 405 &&
	test_grep "^Allow: POST" headers &&
	api DELETE /v1/repos &&
	expect_code 405 &&
	test_grep "^Allow: GET, HEAD, POST" headers &&
	api POST / "{}" &&
	expect_code 405 &&
	api GET /v1/rag &&
	expect_code 405
'

test_expect_success CURL,PYTHON 'paths outside /v1/ and endpoints not served: 404, and no file is read' '
	for p in /etc/passwd /v2/repos /index.html /v1/ /v1/index /v1/changed /v1/mcp \
		/v1/repos/x /kbx.js/x "/v1/%2e%2e/etc/passwd"
	do
		api GET "$p" &&
		expect_code 404 &&
		jget "d[\"error\"][\"status\"]" >actual &&
		echo 404 >expect &&
		test_cmp expect actual || return 1
	done &&
	curl -sS --path-as-is -o out -w "%{http_code}\n" \
		"http://127.0.0.1:$PORT/../../../../etc/passwd" >code &&
	! grep "root:" out
'

test_expect_success CURL,PYTHON 'a Host header of another name is refused without a token (403)' '
	curl -sS -o out -w "%{http_code}\n" -H "Host: attacker.example:$PORT" \
		"http://127.0.0.1:$PORT/v1/repos" >code &&
	expect_code 403 &&
	curl -sS -o out -w "%{http_code}\n" -H "Host: localhost:$PORT" \
		"http://127.0.0.1:$PORT/v1/repos" >code &&
	expect_code 200
'

test_expect_success CURL,PYTHON '/v1/openapi.json describes every endpoint' '
	api GET /v1/openapi.json &&
	expect_code 200 &&
	jget "sorted(d[\"paths\"])" >actual &&
	echo "[\"/v1/callees\", \"/v1/callers\", \"/v1/context\", \"/v1/defs\", \"/v1/hybrid\", \"/v1/impact\", \"/v1/openapi.json\", \"/v1/path\", \"/v1/rag\", \"/v1/repos\", \"/v1/search\", \"/v1/status\"]" >expect &&
	test_cmp expect actual &&
	jget "d[\"paths\"][\"/v1/callers\"][\"post\"][\"requestBody\"][\"content\"][\"application/json\"][\"schema\"][\"required\"]" >actual &&
	echo "[\"symbol\"]" >expect &&
	test_cmp expect actual
'

test_expect_success CURL 'the page, its script and styles come from the binary' '
	api GET / &&
	expect_code 200 &&
	test_grep "^Content-Type: text/html" headers &&
	test_grep "<select id=\"repo\">" out &&
	test_grep "^Content-Security-Policy: default-src .self." headers &&
	api GET /kbx.js &&
	expect_code 200 &&
	test_grep "^Content-Type: text/javascript" headers &&
	test_cmp "$KBX_SRC/cmd/serve-page/kbx.js" out &&
	api GET /kbx.css &&
	expect_code 200 &&
	test_cmp "$KBX_SRC/cmd/serve-page/kbx.css" out
'

test_expect_success 'the page puts no data into markup: no innerHTML, outerHTML or document.write' '
	! grep -n "innerHTML\|outerHTML\|insertAdjacentHTML\|document\.write" \
		"$KBX_SRC/cmd/serve-page/kbx.js"
'

test_expect_success CURL,PYTHON,BASH 'a slow client is closed after --timeout; others are answered meanwhile' '
	serve_stop &&
	serve_start --timeout=2 &&
	{
		bash -c "exec 3<>/dev/tcp/127.0.0.1/\$1 || exit 1
			printf \"POST /v1/search HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Length: 100\\r\\n\\r\\n{\\\"qu\" >&3
			start=\$SECONDS
			cat <&3 >/dev/null
			echo \$((SECONDS - start))" _ $PORT >slow &
	} &&
	slow_pid=$! &&
	sleep 0.3 &&
	api GET /v1/status &&
	expect_code 200 &&
	wait $slow_pid &&
	secs=$(cat slow) &&
	test "$secs" -ge 1 &&
	test "$secs" -le 6
'

# slow_query: POST /v1/path for every shortest path from a23 to a0 of
# the ladder repository (2^23 of them, more output than a second can
# write) in the background; its status and time into slow.code, its
# answer into slow.out, the pid of curl in slow_pid
slow_query () {
	{
		curl -sS -o slow.out -w "%{http_code} %{time_total}\n" --max-time 20 -X POST \
			-H "Content-Type: application/json" \
			--data-binary "{\"from\":\"a23\",\"to\":\"a0\",\"all\":true,\"limit\":100000000,\"repo\":\"ladder\"}" \
			"http://127.0.0.1:$PORT/v1/path" >slow.code &
	}
	slow_pid=$!
}

# query_child: the pid of kbx serve's child running a query, once there
# is one
query_child () {
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
	do
		child=$(ps -o pid= --ppid $SERVE_PID) && test -n "$child" && echo $child && return 0
		sleep 0.1
	done
	return 1
}

# slow_answered: the slow query was answered 504 within SECONDS, with
# the JSON error of a query stopped
slow_answered () {
	wait $slow_pid &&
	read code secs <slow.code &&
	test "$code" = 504 &&
	python3 -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$secs" "$1" &&
	mv slow.out out &&
	jget "(d[\"error\"][\"status\"], d[\"error\"][\"exit_status\"], d[\"error\"][\"meaning\"])" >actual &&
	echo "[504, null, \"stopped: killed, too long or too much output\"]" >expect &&
	test_cmp expect actual &&
	jget "d[\"error\"][\"message\"]" >actual &&
	test_grep "kbx path took too long and was stopped" actual
}

test_expect_success CURL,PYTHON,PS 'a query over --query-timeout: 504 with the JSON error, its child reaped, others answered' '
	mkdir ladder &&
	python3 -c "
print(\"int a0(void) { return 0; }\")
print(\"int b0(void) { return 0; }\")
for i in range(1, 24):
    for n in \"ab\":
        print(\"int %s%d(void) { return a%d() + b%d(); }\" % (n, i, i - 1, i - 1))
" >ladder/ladder.c &&
	(cd ladder && kbx index -q) &&
	kbx repos add --name=ladder ladder &&
	serve_stop &&
	serve_start --query-timeout=1 &&
	slow_query &&
	sleep 0.3 &&
	api POST /v1/callers "{\"symbol\":\"add_numbers\",\"repo\":\"calc\"}" &&
	expect_code 200 &&
	slow_answered 5 &&
	test_might_fail ps -o pid=,stat=,args= --ppid $SERVE_PID >children &&
	test_must_be_empty children &&
	api GET "/v1/status?repo=calc" &&
	expect_code 200
'

test_expect_success CURL,PYTHON,PS 'a query that does not end on SIGTERM is killed' '
	slow_query &&
	child=$(query_child) &&
	test_when_finished "kill -KILL $child 2>/dev/null; :" &&
	kill -STOP $child &&
	api GET "/v1/status?repo=calc" &&
	expect_code 200 &&
	slow_answered 10 &&
	test_might_fail ps -o pid=,stat=,args= --ppid $SERVE_PID >children &&
	test_must_be_empty children &&
	! kill -0 $child 2>/dev/null &&
	api POST /v1/callers "{\"symbol\":\"add_numbers\",\"repo\":\"calc\"}" &&
	expect_code 200
'

# drip MODE: a client that sends a request a byte every half second and
# never ends it (MODE headers: in its headers; body: in its body);
# prints "closed SECONDS" when the server closes it, "open" after 20 s
drip () {
	python3 - "$PORT" "$1" <<-\PY
	import socket, sys, time
	port, mode = int(sys.argv[1]), sys.argv[2]
	s = socket.create_connection(("127.0.0.1", port))
	if mode == "body":
	    s.sendall(b"POST /v1/search HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	              b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	    byte = b" "
	else:
	    s.sendall(b"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Drip: ")
	    byte = b"a"
	s.settimeout(0.5)
	start = time.monotonic()
	while time.monotonic() - start < 20:
	    try:
	        s.sendall(byte)
	        if not s.recv(4096):
	            break
	    except socket.timeout:
	        continue
	    except OSError:
	        break
	else:
	    print("open")
	    sys.exit(0)
	print("closed %.1f" % (time.monotonic() - start))
	PY
}

test_expect_success CURL,PYTHON 'a client that trickles its request is closed after --request-timeout; others are answered' '
	serve_stop &&
	serve_start --timeout=5 --request-timeout=2 --query-timeout=3 &&
	{ drip headers >drip.headers & } &&
	headers_pid=$! &&
	{ drip body >drip.body & } &&
	body_pid=$! &&
	sleep 0.5 &&
	api GET /v1/status &&
	expect_code 200 &&
	api POST /v1/callers "{\"symbol\":\"add_numbers\",\"repo\":\"calc\"}" &&
	expect_code 200 &&
	wait $headers_pid &&
	wait $body_pid &&
	for f in drip.headers drip.body
	do
		read state secs <$f &&
		test "$state" = closed &&
		python3 -c "import sys; sys.exit(not 1 <= float(sys.argv[1]) < 5)" "$secs" || return 1
	done
'

# The query is stopped by --query-timeout (504) or, on a machine fast
# enough to write 256 MB in the 3 s, by the limit on a query's output
# (500): either way it is answered, with the JSON error of a stopped
# query, after --request-timeout (2 s) has passed.  Its process is
# stopped for the first 2.5 s, so that however fast the machine, the
# query is still running when --request-timeout has passed.
test_expect_success CURL,PYTHON,PS 'a query that runs past --request-timeout is answered, not cut off' '
	slow_query &&
	child=$(query_child) &&
	test_when_finished "kill -CONT $child 2>/dev/null; :" &&
	kill -STOP $child &&
	sleep 2.5 &&
	kill -CONT $child &&
	wait $slow_pid &&
	read code secs <slow.code &&
	case $code in
	504|500) ;;
	*) echo "answered $code" && false ;;
	esac &&
	python3 -c "import sys; sys.exit(not 2 <= float(sys.argv[1]) < 8)" "$secs" &&
	mv slow.out out &&
	jget "(d[\"error\"][\"status\"], d[\"error\"][\"meaning\"])" >actual &&
	echo "[$code, \"stopped: killed, too long or too much output\"]" >expect &&
	test_cmp expect actual &&
	api GET /v1/status &&
	expect_code 200
'

test_expect_success CURL,PYTHON 'restart kbx serve with the default limits' '
	serve_stop &&
	serve_start
'

test_expect_success CURL,PYTHON 'rag with "repo_id": "all" asks every repository of the list' '
	api POST /v1/rag "{\"query\":\"who calls add_numbers\",\"repo_id\":\"all\",\"top_k\":3}" &&
	expect_code 200 &&
	jget "(d[\"repo_id\"], sorted(p[\"repo\"] for p in d[\"plans\"]), d[\"plan\"] in d[\"plans\"])" >actual &&
	echo "[\"all\", [\"calc\", \"ladder\"], true]" >expect &&
	test_cmp expect actual &&
	jget "[(n[\"repo\"], n[\"name\"]) for n in d[\"nodes\"]]" >actual &&
	echo "[[\"calc\", \"scale\"]]" >expect &&
	test_cmp expect actual &&
	jget "[(c[\"repo\"], c[\"path\"], c[\"line\"]) for c in d[\"chunks\"]][0]" >actual &&
	echo "[\"calc\", \"calc.c\", 2]" >expect &&
	test_cmp expect actual &&
	api POST /v1/rag "{\"query\":\"who calls a0\",\"repo_id\":\"all\"}" &&
	expect_code 200 &&
	jget "sorted({n[\"repo\"] for n in d[\"nodes\"]})" >actual &&
	echo "[\"ladder\"]" >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'an index in another process is seen by the next request, without a restart' '
	cat >repo/more.c <<-\EOF &&
	int add_numbers(int a, int b);
	int twice(int v) { return add_numbers(v, v); }
	EOF
	(cd repo && kbx index -q) &&
	api POST /v1/callers "{\"symbol\":\"add_numbers\"}" &&
	expect_code 200 &&
	jget "sorted(r[\"name\"] for r in d[\"records\"])" >actual &&
	echo "[\"scale\", \"twice\"]" >expect &&
	test_cmp expect actual
'

test_expect_success CURL,PYTHON 'requests while kbx index rewrites the index in a loop all succeed' '
	{
		(cd repo && for i in 1 2 3 4 5 6
			do
				echo "int f$i(void) { return add_numbers($i, 1); }" >>more.c &&
				kbx index -q || exit 1
			done) &
	} &&
	index_pid=$! &&
	n=0 &&
	while kill -0 $index_pid 2>/dev/null && test $n -lt 400
	do
		api POST /v1/callers "{\"symbol\":\"add_numbers\"}" &&
		expect_code 200 &&
		jget "d[\"exit_status\"]" >actual &&
		echo 0 >expect &&
		test_cmp expect actual &&
		n=$((n + 1)) || return 1
	done &&
	wait $index_pid &&
	test $n -gt 0 &&
	api POST /v1/callers "{\"symbol\":\"add_numbers\"}" &&
	jget "len(d[\"records\"])" >actual &&
	echo 8 >expect &&
	test_cmp expect actual
'

test_expect_success CURL 'SIGTERM ends the server with 0' '
	serve_stop
'

test_expect_success CURL,PYTHON 'with --token-file: no token or a wrong one is 401, the right one answers' '
	printf "s3cret-token-of-the-test-0123\n" >token &&
	chmod 600 token &&
	serve_start --token-file=../token &&
	api GET /v1/repos &&
	expect_code 401 &&
	test_grep "^WWW-Authenticate: Bearer" headers &&
	jget "d[\"error\"][\"status\"]" >actual &&
	echo 401 >expect &&
	test_cmp expect actual &&
	curl -sS -o out -w "%{http_code}\n" -H "Authorization: Bearer s3cret-token-of-the-test-0124" \
		"http://127.0.0.1:$PORT/v1/repos" >code &&
	expect_code 401 &&
	curl -sS -o out -w "%{http_code}\n" -H "Authorization: Bearer s3cret-token-of-the-test-012" \
		"http://127.0.0.1:$PORT/v1/repos" >code &&
	expect_code 401 &&
	curl -sS -o out -w "%{http_code}\n" -H "Authorization: Bearer s3cret-token-of-the-test-0123" \
		"http://127.0.0.1:$PORT/v1/repos" >code &&
	expect_code 200 &&
	curl -sS -o out -w "%{http_code}\n" -H "Authorization: Bearer s3cret-token-of-the-test-0123" \
		-H "Host: kbx.example.org" "http://127.0.0.1:$PORT/v1/status" >code &&
	expect_code 200 &&
	api GET / &&
	expect_code 200 &&
	serve_stop
'

test_done
