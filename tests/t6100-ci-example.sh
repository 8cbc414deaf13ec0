#!/bin/sh
test_description='the README'"'"'s CI shell step, run as it is on a repository with a change'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'extract the CI step from the README' '
	sed -n "/^<!-- ci-shell -->/,/^<!-- \\/ci-shell -->/p" "$KBX_SRC/README.md" |
		sed "1,/^\`\`\`sh/d; /^\`\`\`/,\$d" >ci-step.sh &&
	test_grep "kbx check" ci-step.sh &&
	test_grep "kbx impact --diff" ci-step.sh
'

test_expect_success 'set up a repository with rules and a change under review' '
	git init -q repo &&
	mkdir -p repo/lib repo/cmd &&
	printf "def helper():\n    return 1\n" >repo/lib/util.py &&
	printf "from lib.util import helper\n\ndef main():\n    return helper()\n" >repo/cmd/main.py &&
	: >repo/lib/__init__.py && : >repo/cmd/__init__.py &&
	cat >repo/.kbx-rules.yml <<-\EOF &&
	version: 1
	rules:
	  - id: lib-is-quiet
	    forbid: {from: "lib/**", to: "cmd/**", via: [calls, imports]}
	EOF
	(cd repo && git add . && git commit -qm base) &&
	printf "def helper():\n    return 2\n" >repo/lib/util.py &&
	(cd repo && git commit -qam change)
'

test_expect_success 'the step passes, lists what the change affects, and keeps a SARIF log' '
	(cd repo && BASE=HEAD~1 sh ../ci-step.sh >../out 2>&1) &&
	test_grep "what this change affects" out &&
	test_grep "lib/util.py:1:1: changed helper" out &&
	test_grep "cmd/main.py:3:1: affected main (distance 1)" out &&
	test_path_is_file repo/kbx.sarif
'

test_expect_success 'the step fails with 10 when a rule breaks, and still reports' '
	printf "from cmd.main import main\n\ndef helper():\n    return main()\n" >repo/lib/util.py &&
	(cd repo && git commit -qam "a forbidden call") &&
	(cd repo && BASE=HEAD~1 test_expect_code 10 sh ../ci-step.sh >../out 2>&1) &&
	test_grep "lib-is-quiet" out &&
	test_grep "what this change affects" out
'

test_done
