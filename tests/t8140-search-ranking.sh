#!/bin/sh
test_description='kbx search: one hit per document, pasted errors, confidence

A registry written for the test.  A document whose sections all speak
of sessions comes back as one hit with its other sections under it; two
words written apart meet the word written together ("log out" and
logout); a traceback whose frames are full of another entry'"'"'s words
finds the entry of its last line; every hit carries a confidence in
[0, 1] that --min-score cuts on; a query nothing answers says so; a tie
goes to the more specific pattern; --explain counts after the filters.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a registry' '
	git init -q repo &&
	mkdir -p reg/errors/python reg/docs &&
	cat >reg/errors/python/net.yml <<-\EOF &&
	- id: "py-conn-001"
	  error_type: "ConnectionRefusedError"
	  severity: "error"
	  pattern: "ConnectionRefusedError"
	  cause: >
	    The client connection to the server socket was refused: the pool
	    connect call found nothing listening on that port.
	  fix_template: |
	    Start the server first; retry the connection with backoff.
	  tags: [network]
	- id: "py-timeout-001"
	  error_type: "TimeoutError"
	  severity: "error"
	  pattern: "TimeoutError"
	  cause: >
	    An operation did not finish in the time it was given.
	  fix_template: |
	    Raise the deadline, or make the operation faster.
	  tags: [timeout]
	EOF
	cat >reg/errors/python/tie.yml <<-\EOF &&
	- id: "py-tie-a"
	  error_type: "FrobError"
	  severity: "error"
	  pattern: "frob(.*)"
	  cause: >
	    Frob the widget twice in a row, and frob the widget twice in a
	    row again: frob, frob, widget, widget, twice, row.
	  fix_template: |
	    Frob again.
	- id: "py-tie-b"
	  error_type: "FrobError"
	  severity: "error"
	  pattern: "frob the widget twice in a row"
	  cause: >
	    It gave up.
	  fix_template: |
	    Wait.
	EOF
	cat >reg/docs/sessions.md <<-\EOF &&
	---
	id: doc-sessions
	title: Sessions
	category: doc
	language: all
	---
	# Sessions

	## Creating a session

	A session starts when the user signs in; the session cookie holds
	its id.  The id is random, 128 bits long, and never reused; the
	server keeps what it knows of the user under that id, and the
	browser sends the cookie back with every request.  A session that
	was not used for a day is forgotten.  Nothing else about the user
	is written into the cookie itself.

	## Ending a session

	The logout handler ends the session and clears the session cookie.
	It also forgets what the server kept under the id, so that a copy
	of the cookie taken before is of no use to anyone afterwards.  The
	handler answers with a redirect to the front page, where the user
	can sign in again when they want to.

	## Session storage

	Sessions are kept in the session table, one row per session, with
	the time it was last used.  A job run every hour deletes the rows
	of sessions not used for a day.  The table is small: a row holds
	the id, the user, two times and a few flags, and nothing more than
	that; it is never read in bulk.
	EOF
	cat >reg/docs/cookies.md <<-\EOF &&
	---
	id: doc-cookies
	title: Cookies
	category: doc
	language: all
	---
	# Cookies

	## Flags

	Cookies are sent with the Secure and HttpOnly flags.
	EOF
	cat >reg/docs/no-id.md <<-\EOF &&
	# Runbook

	Page the person on call when the queue backs up.
	EOF
	(cd repo && kbx registry add ../reg 2>/dev/null && kbx index -q)
'

test_expect_success 'a document without an id is known by its path in the registry' '
	(cd repo && kbx search --format=nul "page the person on call") >out &&
	tr "\0" "\n" <out >ids &&
	grep -x "docs/no-id.md" ids &&
	! grep "^/" ids
'

test_expect_success 'a document comes back once, its other sections under it' '
	(cd repo && kbx search --mode=lexical --format=json "session") >out.json &&
	python3 -c "
import json
hits = [json.loads(l) for l in open(\"out.json\")]
ids = [h[\"id\"] for h in hits if h[\"type\"] == \"hit\"]
assert ids.count(\"doc-sessions\") == 1, ids
h = [h for h in hits if h[\"id\"] == \"doc-sessions\"][0]
assert len(h[\"sections\"]) >= 2, h.get(\"sections\")
assert all(\"heading\" in s and s[\"line\"] > 0 for s in h[\"sections\"])
" &&
	(cd repo && kbx search --mode=lexical "session") >out &&
	grep "^   also " out
'

test_expect_success '--every-section lists each section apart' '
	(cd repo && kbx search --mode=lexical --every-section --format=nul "session") >out &&
	test "$(tr "\0" "\n" <out | grep -c "^doc-sessions$")" -ge 3
'

test_expect_success 'two words written apart meet the word written together' '
	(cd repo && kbx search --mode=lexical --every-section --format=json "log out") >out.json &&
	python3 -c "
import json
hits = [json.loads(l) for l in open(\"out.json\")]
assert hits and hits[0][\"heading\"].endswith(\"Ending a session\"), [h.get(\"heading\") for h in hits]
"
'

test_expect_success 'a traceback is searched for its last line, not its frames' '
	cat >tb.txt <<-\EOF &&
	Traceback (most recent call last):
	  File "client.py", line 9, in <module>
	    connect_pool_server_socket(retry_connection=True)
	  File "pool.py", line 40, in connect_pool_server_socket
	    server_socket_connection = pool.connect(port, retry=True)
	  File "pool.py", line 71, in connect
	    client_connection.connect_server_socket(port)
	  File "socket_pool.py", line 12, in connect_server_socket
	    wait_for_connection(server_socket)
	TimeoutError: operation did not finish
	EOF
	(cd repo && kbx search --mode=lexical --format=nul -n 1 --type=error - <../tb.txt) >out &&
	printf "py-timeout-001\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx search --mode=lexical --explain -n 1 - <../tb.txt) >out &&
	grep "^focus" out
'

test_expect_success 'every hit has a confidence in [0, 1]; --min-score cuts on it' '
	(cd repo && kbx search --format=json "the logout handler ends the session") >out.json &&
	python3 -c "
import json
hits = [json.loads(l) for l in open(\"out.json\")]
assert hits
c = [h[\"confidence\"] for h in hits]
assert all(0 <= x <= 1 for x in c), c
assert c[0] >= 0.5, c
" &&
	(cd repo && kbx search --format=json --min-score=0.5 "the logout handler ends the session") >out.json &&
	python3 -c "
import json
hits = [json.loads(l) for l in open(\"out.json\")]
assert hits and all(h[\"confidence\"] >= 0.5 for h in hits), hits
" &&
	test_expect_code 2 sh -c "cd repo && kbx search --min-score=3 session"
'

test_expect_success 'a query nothing answers well says so' '
	(cd repo && kbx search "kubernetes helm chart rollout of a widget" >../out 2>../err) &&
	grep "no entry matches well" err &&
	(cd repo && kbx search "the logout handler ends the session" >../out 2>../err) &&
	! grep "no entry matches well" err
'

test_expect_success 'a tie goes to the more specific pattern' '
	(cd repo && kbx search --mode=lexical --format=json --explain "frob the widget twice in a row frob") >out.json &&
	python3 -c "
import json
hits = [json.loads(l) for l in open(\"out.json\")]
hits = [h for h in hits if h[\"type\"] == \"hit\"]
assert hits[0][\"score\"] == hits[1][\"score\"], [(h[\"id\"], h[\"score\"]) for h in hits]
assert hits[0][\"id\"] == \"py-tie-b\", [h[\"id\"] for h in hits]
"
'

test_expect_success '--explain counts the candidates after the filters' '
	(cd repo && kbx search --mode=lexical --explain --type=doc "session widget") >out &&
	grep "^lexical .* after the filters" out &&
	(cd repo && kbx search --mode=lexical --format=json --explain --type=doc "session widget") >out.json &&
	python3 -c "
import json
plan = [json.loads(l) for l in open(\"out.json\")][-1]
lx = plan[\"signals\"][\"lexical\"]
assert lx[\"passed\"] < lx[\"candidates\"], lx
"
'

test_expect_success '--expand looks up the words near the query'"'"'s, and says which' '
	(cd repo && kbx search --mode=lexical --expand --explain "the request times out") >out &&
	grep "^expand   BM25 looked up [1-9][0-9]* words\{0,1\} near" out &&
	(cd repo && kbx search --mode=lexical --explain "the request times out") >out &&
	! grep "^expand" out
'

test_done
