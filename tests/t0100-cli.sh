#!/bin/sh
test_description='the kbx command line: the command table, -h, versions, unknown commands'

. "$(dirname "$0")"/test-lib.sh

test_expect_success '--version and version print the version' '
	kbx --version >out &&
	test_grep "^kbx version " out &&
	kbx version >out2 &&
	test_cmp out out2
'

test_expect_success 'kbx without a command prints usage and exits 2' '
	test_expect_code 2 kbx 2>err &&
	test_grep "^usage: kbx" err
'

test_expect_success 'kbx -h lists every command of the table' '
	kbx -h >out &&
	kbx --list-cmds >cmds &&
	test_file_not_empty cmds &&
	while read cmd
	do
		test_grep "^   $cmd " out || return 1
	done <cmds
'

test_expect_success 'the command list is sorted' '
	kbx --list-cmds >cmds &&
	LC_ALL=C sort cmds >sorted &&
	test_cmp sorted cmds
'

test_expect_success 'every command answers -h on stdout with exit 0, outside any index' '
	mkdir nowhere &&
	kbx --list-cmds >cmds &&
	while read cmd
	do
		(cd nowhere && kbx $cmd -h >../h.out 2>../h.err) || return 1
		test_grep "^usage: kbx $cmd" h.out || return 1
		test_must_be_empty h.err || return 1
	done <cmds
'

test_expect_success 'every command lists its options for completion' '
	kbx --list-cmds >cmds &&
	kbx callers --list-opts >opts &&
	test_grep "^--format=	text json grep nul" opts &&
	test_grep "^--depth=" opts &&
	test_grep "^--transitive" opts
'

test_expect_success 'an unknown command suggests the nearest one and exits 2' '
	test_expect_code 2 kbx caller add 2>err &&
	test_grep "is not a kbx command" err &&
	test_grep "callers" err
'

test_expect_success 'kbx-<name> on PATH extends kbx' '
	mkdir bin &&
	printf "#!/bin/sh\necho extension \"\$@\"\n" >bin/kbx-hello &&
	chmod +x bin/kbx-hello &&
	PATH="$PWD/bin:$PATH" kbx hello a b >out &&
	echo "extension a b" >expect &&
	test_cmp expect out
'

test_expect_success 'unknown global options are usage errors' '
	test_expect_code 2 kbx --frobnicate status 2>err &&
	test_grep "unknown option" err
'

test_expect_success '-C changes directory first' '
	mkdir -p proj &&
	echo "def f(): pass" >proj/a.py &&
	kbx -C proj index -q &&
	kbx -C proj defs --format=nul f >out &&
	printf "a.py#f\0" >expect &&
	test_cmp expect out
'

test_done
