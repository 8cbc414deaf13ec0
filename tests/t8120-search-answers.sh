#!/bin/sh
test_description='kbx search: answers a person can read, and the language a query is about

A registry written for the test: the same mistake described for Python
and for JavaScript in the same words, and a document whose sections
start with their title and heading.  A query that names its language,
or whose error message has a language'"'"'s shape, gets that language'"'"'s
entry first unless --lang says otherwise; hits show the body of a
section rather than its heading again; JSON hits carry the text.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a registry with twin entries' '
	git init -q repo &&
	mkdir -p reg/errors/python reg/errors/javascript reg/docs &&
	cat >reg/errors/python/names.yml <<-\EOF &&
	- id: "py-undefined-001"
	  error_type: "NameError"
	  severity: "error"
	  pattern: "name '\''(.+)'\'' is not defined"
	  cause: >
	    A variable is used before anything was assigned to it, or its
	    name is misspelt.
	  fix_template: |
	    Assign the variable first, or correct the spelling.
	  tags: [names]
	EOF
	cat >reg/errors/javascript/names.yml <<-\EOF &&
	- id: "js-undefined-001"
	  error_type: "ReferenceError"
	  severity: "error"
	  pattern: "(.+) is not defined"
	  cause: >
	    A variable is used before anything was assigned to it, or its
	    name is misspelt.
	  fix_template: |
	    Declare the variable with let or const first, or correct the spelling.
	  tags: [names]
	EOF
	cat >reg/docs/deploy.md <<-\EOF &&
	---
	id: doc-deploy
	title: Deploying the service
	category: doc
	language: all
	---
	# Deploying the service

	## Rolling back

	Keep the previous release on the hosts so that a rollback is one
	symlink change away.
	EOF
	(cd repo && kbx registry add ../reg 2>/dev/null && kbx index -q)
'

test_expect_success 'a query that names its language gets that entry first' '
	(cd repo && kbx search --format=nul -n 1 "python: a variable is used before it was assigned") >out &&
	printf "py-undefined-001\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx search --format=nul -n 1 "javascript: a variable is used before it was assigned") >out &&
	printf "js-undefined-001\0" >expect &&
	test_cmp expect out
'

test_expect_success 'the shape of a message says its language' '
	cat >tb.txt <<-\EOF &&
	Traceback (most recent call last):
	  File "app.py", line 3, in <module>
	    print(totl)
	NameError: name '\''totl'\'' is not defined
	EOF
	(cd repo && kbx search --format=nul -n 1 - <../tb.txt) >out &&
	printf "py-undefined-001\0" >expect &&
	test_cmp expect out &&
	cat >node.txt <<-\EOF &&
	/srv/app/index.js:3
	    console.log(totl);
	ReferenceError: totl is not defined
	    at Object.<anonymous> (/srv/app/index.js:3:17)
	    at node:internal/main/run_main_module:23:47
	EOF
	(cd repo && kbx search --format=nul -n 1 - <../node.txt) >out &&
	printf "js-undefined-001\0" >expect &&
	test_cmp expect out
'

test_expect_success '--explain says which language and why; --lang overrides it' '
	(cd repo && kbx search --explain "python: a variable is used before it was assigned") >out &&
	test_grep "^language python (from the word .python.)" out &&
	(cd repo && kbx search --explain --format=json "python: variable used before assigned") >out.json &&
	test_grep "\"language\":{\"name\":\"python\",\"from\":\"the word '\''python'\''\"}" out.json &&
	(cd repo && kbx search --format=nul --lang=javascript -n 1 "python: a variable is used before it was assigned") >out &&
	printf "js-undefined-001\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx search --explain "a variable is used before it was assigned") >out &&
	test_grep ! "^language" out
'

test_expect_success 'naming two languages says nothing about either' '
	(cd repo && kbx search --explain "python or javascript: variable used before assigned") >out &&
	test_grep ! "^language" out
'

test_expect_success 'a section shows its body, not its title and heading again' '
	(cd repo && kbx search -n 1 "rollback of a release") >out &&
	test_grep "doc-deploy  Deploying the service > Rolling back" out &&
	test_grep "^   | Keep the previous release" out &&
	test_grep ! "^   | Deploying the service" out &&
	test_grep ! "^   | ## Rolling back" out
'

test_expect_success 'JSON hits carry the text' '
	(cd repo && kbx search --format=json -n 1 "rollback of a release") >out.json &&
	test_grep "\"text\":\"[^\"]*Keep the previous release on the hosts" out.json
'

test_expect_success 'the builtin embedding has learned vectors; search.model=hash leaves them out' '
	(cd repo && kbx status --format=json) >status.json &&
	test_grep "\"embedder\":\"builtin/words-[0-9a-f]*/356\"" status.json &&
	(cd repo && kbx -c search.model=hash index -q && kbx -c search.model=hash status --format=json) >status.json &&
	test_grep "\"embedder\":\"builtin/v1/256\"" status.json &&
	(cd repo && kbx -c search.model=hash search --mode=vector --format=nul -n 1 "rollback of a release") >out &&
	printf "doc-deploy\0" >expect &&
	test_cmp expect out
'

test_done
