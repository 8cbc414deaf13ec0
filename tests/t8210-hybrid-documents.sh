#!/bin/sh
test_description='kbx hybrid: the registry'"'"'s documents, the multi-hop form, name globs, honest factors and counts

A registry and a small Python tree written for the test: handlers that
extend a base class and call a retry helper and a token issuer, and
patterns about retrying and about tokens.  Questions that ask for
documents get them, typed and in their own section; "patterns used by
classes extending X" goes from the graph to what the classes use to the
documents about it; "matching '"'"'auth*'"'"'" is a glob over names.'

. "$(dirname "$0")"/test-lib.sh

# Fields of JSON Lines records on stdin (see lib/jfields.py).
jfields () {
	python3 "$TEST_DIRECTORY/lib/jfields.py" "$@"
}

test_expect_success 'set up a registry and a tree of handlers' '
	mkdir -p reg/patterns/python reg/docs reg/errors/python &&
	cat >reg/patterns/python/retry.md <<-\EOF &&
	---
	id: pat-retry
	title: Retrying a flaky call with backoff
	category: pattern
	language: python
	---
	# Retrying a flaky call with backoff

	Wrap the call in a retry helper that waits twice as long after each
	failure (exponential backoff) and gives up after a few attempts.
	Retry only what is safe to run twice: a read, or a write that
	carries an idempotency key.  Log each attempt with its delay, so
	that a flaky call shows in the logs before it becomes an outage,
	and let the last failure reach the caller unchanged.

	## Jitter

	Add a random jitter to each backoff delay so that the clients that
	retry a flaky call do not all come back at once.  Without it, every
	client that failed at the same moment waits the same delay and
	retries at the same moment again, and the service that was slow
	gets the whole load back in one burst; with it, the retries spread.
	EOF
	cat >reg/patterns/python/tokens.md <<-\EOF &&
	---
	id: pat-jwt
	title: Issuing signed tokens
	category: pattern
	language: python
	---
	# Issuing signed tokens

	Issue a JWT by signing the claims with a key kept out of the code;
	give every token an expiry.
	EOF
	cat >reg/patterns/python/orm.md <<-\EOF &&
	---
	id: pat-orm
	title: Database queries in loops
	category: pattern
	language: python
	---
	# Database queries in loops

	Fetch related rows in one query instead of one query per row.
	EOF
	cat >reg/docs/login.md <<-\EOF &&
	---
	id: doc-login
	title: When sign-in fails
	category: doc
	language: all
	---
	# When sign-in fails

	Most authentication bugs come from a clock skew between the hosts
	that issue and check the tokens, or from a session cookie that the
	browser drops.
	EOF
	cat >reg/errors/python/async.yml <<-\EOF &&
	- id: "py-timeout-001"
	  error_type: "TimeoutError"
	  severity: "error"
	  pattern: "TimeoutError"
	  cause: >
	    An awaited async call took longer than the timeout given to
	    asyncio.wait_for.
	  fix_template: |
	    Pass a timeout to asyncio.wait_for and handle TimeoutError.
	  tags: [async]
	EOF
	mkdir -p repo/handlers repo/net repo/auth &&
	cat >repo/net/retry.py <<-\EOF &&
	import time


	def retry_with_backoff(call, attempts=3):
	    for i in range(attempts):
	        try:
	            return call()
	        except OSError:
	            time.sleep(2 ** i)
	EOF
	cat >repo/auth/tokens.py <<-\EOF &&
	def issue_jwt(claims):
	    return sign_claims(claims)


	def sign_claims(claims):
	    return repr(claims)
	EOF
	cat >repo/handlers/base.py <<-\EOF &&
	from net.retry import retry_with_backoff
	from auth.tokens import issue_jwt


	class Handler:
	    def handle(self, request):
	        return request


	class TokenHandler(Handler):
	    def handle(self, request):
	        return issue_jwt(request)


	class FetchHandler(Handler):
	    def handle(self, request):
	        return retry_with_backoff(request)
	EOF
	(cd repo && git init -q && kbx registry add ../reg >/dev/null 2>&1 && kbx index -q)
'

test_expect_success 'a how-to question: documents and code, the documents typed' '
	(cd repo && kbx hybrid --format=json how do I add a timeout to an async call) >out &&
	TYPE=plan jfields documents.why documents.words documents.types <out >plan &&
	echo "how-to how do I error,pattern,doc,adr,behavioral" >expect &&
	test_cmp expect plan &&
	TYPE=hit jfields id chunk_type <out | head -n 1 >first &&
	echo "py-timeout-001 error" >expect &&
	test_cmp expect first &&
	(cd repo && kbx hybrid how do I add a timeout to an async call) >text &&
	test_grep "^documents$" text &&
	test_grep "^1\. error py-timeout-001  TimeoutError" text
'

test_expect_success 'documents asked for at the head: the documents are the answer' '
	(cd repo && kbx hybrid --format=json documentation relevant to this authentication bug) >out &&
	TYPE=hit jfields id <out | head -n 1 >first &&
	echo doc-login >expect &&
	test_cmp expect first &&
	TYPE=hit jfields chunk_type <out | sort -u >types &&
	test_grep ! "^error$" types &&
	test_grep ! "^code$" types &&
	TYPE=result jfields id <out >results &&
	test_must_be_empty results &&
	TYPE=plan jfields documents.why documents.search_text <out >plan &&
	echo "asked authentication bug" >expect &&
	test_cmp expect plan
'

test_expect_success 'patterns used by classes extending X: the graph, what the classes use, the patterns' '
	(cd repo && kbx hybrid --format=json patterns used by classes extending Handler) >out &&
	TYPE=result jfields id <out | sort >results &&
	printf "%s\n" handlers/base.py#FetchHandler handlers/base.py#TokenHandler >expect &&
	test_cmp expect results &&
	TYPE=plan jfields documents.hop documents.hop_words documents.hop_from <out >plan &&
	echo "uses used by 2" >expect &&
	test_cmp expect plan &&
	TYPE=plan jfields documents.names <out | tr , "\n" >names &&
	test_grep "^issue_jwt$" names &&
	test_grep "^retry_with_backoff$" names &&
	test_grep ! "handle" names &&
	TYPE=hit jfields id chunk_type <out | head -n 2 | sort >top &&
	printf "%s\n" "pat-jwt pattern" "pat-retry pattern" >expect &&
	test_cmp expect top &&
	(cd repo && kbx hybrid --explain patterns used by classes extending Handler) >text &&
	test_grep "^documents  pattern (from .patterns.): the question asks for them" text &&
	test_grep "^step 1     .classes extending Handler.: 2 results" text &&
	test_grep "^step 2     what the first 2 use (from .used by.)" text &&
	test_grep "^step 3     the registry.s pattern searched for them" text &&
	test_grep "^code$" text
'

test_expect_success 'docs about what calls X: the documents are about the callers themselves' '
	(cd repo && kbx hybrid --format=json docs about what calls issue_jwt) >out &&
	TYPE=plan jfields traversal documents.hop documents.names <out >plan &&
	echo "callers about TokenHandler.handle" >expect &&
	test_cmp expect plan
'

test_expect_success 'the graph finds nothing: the documents are about what the question named' '
	(cd repo && kbx hybrid --format=json patterns used by classes extending FetchHandler 2>../err) >out &&
	test_grep "the graph found nothing" err &&
	TYPE=plan jfields documents.names <out >names &&
	test_grep "retry_with_backoff" names &&
	TYPE=hit jfields id <out | head -n 1 >first &&
	echo pat-retry >expect &&
	test_cmp expect first
'

test_expect_success 'one hit per document: its best section' '
	(cd repo && kbx search --format=nul --every-section --type=pattern retry a flaky call with backoff jitter) >raw &&
	tr "\0" "\n" <raw | grep -c "^pat-retry$" >sections &&
	echo 2 >expect &&
	test_cmp expect sections &&
	(cd repo && kbx hybrid --format=json patterns about retrying a flaky call with backoff jitter) >out &&
	TYPE=hit jfields id <out | sort | uniq -d >twice &&
	test_must_be_empty twice &&
	TYPE=hit jfields id <out | head -n 1 >first &&
	echo pat-retry >expect &&
	test_cmp expect first
'

test_expect_success 'a question about code is not a question for documents' '
	(cd repo && kbx hybrid --format=json error handling code) >out &&
	TYPE=plan jfields documents <out >plan &&
	echo - >expect &&
	test_cmp expect plan &&
	(cd repo && kbx hybrid --format=json rules that call issue_jwt >../rules 2>/dev/null;
	 test $? -le 1) &&
	TYPE=plan jfields documents <rules >plan &&
	test_cmp expect plan &&
	TYPE=hit jfields id <out >hits &&
	test_must_be_empty hits
'

test_expect_success 'no code matches the words: the registry answers instead of nothing' '
	mkdir nocode &&
	(cd nocode && git init -q && echo "# Notes" >README.md &&
	 kbx registry add ../reg >/dev/null 2>&1 && kbx index -q) &&
	(cd nocode && kbx hybrid --format=json retry a flaky call with backoff 2>../err) >out &&
	test_grep "no code matches .retry flaky call with backoff.: the registry.s documents for it are shown" err &&
	TYPE=plan jfields documents.why <out >plan &&
	echo fallback >expect &&
	test_cmp expect plan &&
	TYPE=hit jfields id <out | head -n 1 >first &&
	echo pat-retry >expect &&
	test_cmp expect first &&
	(cd nocode && kbx hybrid how do I add a timeout to an async call) >text &&
	test_grep "py-timeout-001" text
'

test_expect_success 'globs in names: components matching, a glob as the target, no match' '
	(cd repo && kbx hybrid --format=nul "components matching '"'"'auth*'"'"'") >raw &&
	tr "\0" "\n" <raw | sort >ids &&
	printf "%s\n" auth/tokens.py >expect &&
	test_cmp expect ids &&
	(cd repo && kbx hybrid --format=nul "functions matching '"'"'*_claims'"'"'") >raw &&
	tr "\0" "\n" <raw >ids &&
	echo auth/tokens.py#sign_claims >expect &&
	test_cmp expect ids &&
	(cd repo && kbx hybrid --format=nul "what calls retry_*") >raw &&
	tr "\0" "\n" <raw >ids &&
	echo handlers/base.py#FetchHandler.handle >expect &&
	test_cmp expect ids &&
	(cd repo && kbx hybrid --format=nul "Handler.*") >raw &&
	tr "\0" "\n" <raw >ids &&
	echo handlers/base.py#Handler.handle >expect &&
	test_cmp expect ids &&
	(cd repo && kbx hybrid --format=json "components matching '"'"'auth*'"'"'") >out &&
	TYPE=plan jfields resolved.0.role resolved.0.how seeds.0.from <out >plan &&
	echo "matching glob glob" >expect &&
	test_cmp expect plan &&
	(cd repo && test_expect_code 1 kbx hybrid "components matching '"'"'zz*'"'"'" 2>../err) &&
	test_grep "error: .zz\*. matches no name of a symbol or file in the index" err
'

test_expect_success 'a similarity with no signal behind it is not printed as a perfect one' '
	(cd repo && kbx hybrid --explain what calls issue_jwt) >out &&
	test_grep ! "similarity 1.000" out &&
	test_grep "similarity none (no text to compare: its seed was named in the question)" out &&
	(cd repo && kbx hybrid --format=json what calls issue_jwt) >out &&
	TYPE=result jfields similarity_from factors.similarity <out >sim &&
	echo "none 0" >expect &&
	test_cmp expect sim &&
	(cd repo && kbx hybrid --explain retry a call) >out &&
	test_grep "similarity [0-9.]* (vector [0-9.]*, lexical [0-9.]*)" out
'

test_expect_success 'format version 1 keeps the old similarity of a named seed, and its score' '
	(cd repo && kbx hybrid --format=json what calls issue_jwt) >v2 &&
	(cd repo && kbx hybrid --format=json --format-version=1 what calls issue_jwt) >v1 &&
	TYPE=result jfields factors.similarity <v1 >sim &&
	echo 1 >expect &&
	test_cmp expect sim &&
	python3 -c "
import json
v1 = [json.loads(l) for l in open(\"v1\")]
v2 = [json.loads(l) for l in open(\"v2\")]
w = v2[0][\"weights\"][\"similarity\"]
assert abs(v1[1][\"score\"] - (v2[1][\"score\"] + w)) < 1e-9, (v1, v2)
"
'

test_expect_success 'results the limit leaves out are counted' '
	(cd repo && kbx hybrid -n 1 subclasses of Handler) >out &&
	test_grep "^1 more; --limit to see them$" out &&
	(cd repo && kbx hybrid subclasses of Handler) >out &&
	test_grep ! "more; --limit" out &&
	(cd repo && kbx hybrid --format=json -n 1 subclasses of Handler) >out &&
	TYPE=plan jfields results_total <out >total &&
	echo 2 >expect &&
	test_cmp expect total &&
	(cd repo && kbx hybrid -n 1 patterns used by classes extending Handler) >out &&
	test_grep "more documents*; --limit to see them$" out
'

test_expect_success '--all-repos: the documents of every repository, a shared registry entry once' '
	(cd repo && kbx repos add .) &&
	(cd nocode && kbx index -q && kbx repos add .) &&
	kbx hybrid --all-repos --format=json -n 20 retry a flaky call with backoff >out &&
	TYPE=hit jfields id seq <out | sort | uniq -d >twice &&
	test_must_be_empty twice &&
	TYPE=hit jfields id <out >hits &&
	test_grep "^pat-retry$" hits &&
	kbx hybrid --all-repos -n 1 how do I add a timeout to an async call >text &&
	test_grep "^1\. \[[a-z]*\] error py-timeout-001" text &&
	test_grep "more documents*; --limit to see them$" text
'

test_done
