#!/bin/sh
test_description='the pager: text output on a terminal only, as git does

Run on a real pseudo-terminal with script(1) from util-linux; the pager
is a sed that marks every line it passes on.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq SCRIPT 'script -qec true /dev/null </dev/null >/dev/null'

if ! test_have_prereq SCRIPT
then
	skip_all='script(1) from util-linux is needed for a pseudo-terminal'
	test_done
fi

# on_tty CMD: run the shell command CMD on a pseudo-terminal, its output
# (a terminal's, with CR LF line ends) in tty.out without the CRs.
on_tty () {
	script -qec "$1" /dev/null </dev/null >tty.raw &&
	tr -d "\r" <tty.raw >tty.out
}

test_expect_success 'setup: an indexed tree, and no pager from the environment' '
	mkdir repo &&
	printf "def target():\n    pass\n" >repo/a.py &&
	i=0 &&
	while test $i -lt 300
	do
		printf "def caller_%d():\n    target()\n" $i || return 1
		i=$((i + 1))
	done >repo/b.py &&
	(cd repo && kbx index -q) &&
	unset PAGER LESS &&
	KBX_PAGER="sed s/^/PAGED:/" &&
	export KBX_PAGER
'

test_expect_success 'on a terminal, the text output goes through the pager' '
	(cd repo && on_tty "kbx defs target") &&
	mv repo/tty.out . &&
	test_grep "^PAGED:  a.py:1  target (function)\$" tty.out &&
	test_grep ! "^  a.py" tty.out
'

test_expect_success 'in a pipe or a file there is no pager' '
	(cd repo && kbx defs target >../out) &&
	test_grep "^  a.py:1  target" out &&
	test_grep ! PAGED out &&
	(cd repo && on_tty "kbx defs target | cat") &&
	test_grep "^  a.py:1  target" repo/tty.out &&
	test_grep ! PAGED repo/tty.out
'

test_expect_success 'the machine formats are never paged' '
	for f in json grep nul
	do
		(cd repo && on_tty "kbx defs --format=$f target") &&
		test_grep "a.py" repo/tty.out &&
		test_grep ! PAGED repo/tty.out || return 1
	done &&
	(cd repo && on_tty "kbx defs -z target") &&
	test_grep ! PAGED repo/tty.out
'

test_expect_success '--no-pager and pager.enabled=false turn it off' '
	(cd repo && on_tty "kbx --no-pager callers target") &&
	test_grep "caller_1 " repo/tty.out &&
	test_grep ! PAGED repo/tty.out &&
	(cd repo && kbx config pager.enabled false && on_tty "kbx callers target") &&
	test_grep "caller_1 " repo/tty.out &&
	test_grep ! PAGED repo/tty.out &&
	(cd repo && kbx config pager.enabled true && on_tty "kbx callers target") &&
	test_grep "^PAGED:  b.py:4  caller_1 " repo/tty.out &&
	(cd repo && kbx config --unset pager.enabled)
'

test_expect_success 'which pager: KBX_PAGER, core.pager, PAGER, then less -FRX' '
	(cd repo && kbx config --user core.pager "sed s/^/CORE:/" &&
	 on_tty "kbx defs target") &&
	test_grep "^PAGED:" repo/tty.out &&
	(cd repo && on_tty "env -u KBX_PAGER PAGER=\"sed s/^/ENV:/\" kbx defs target") &&
	test_grep "^CORE:  a.py" repo/tty.out &&
	(cd repo && kbx config --user --unset core.pager &&
	 on_tty "env -u KBX_PAGER PAGER=\"sed s/^/ENV:/\" kbx defs target") &&
	test_grep "^ENV:  a.py" repo/tty.out &&
	mkdir bin &&
	printf "#!/bin/sh\necho \"less was run with: \$* LESS=\$LESS\"\nsed s/^/LESS:/\n" >bin/less &&
	chmod +x bin/less &&
	(cd repo && on_tty "env -u KBX_PAGER PATH=\"$TRASH_DIRECTORY/bin:\$PATH\" kbx defs target") &&
	test_grep "^less was run with: -FRX LESS=FRX\$" repo/tty.out &&
	test_grep "^LESS:  a.py" repo/tty.out &&
	(cd repo && on_tty "env -u KBX_PAGER LESS=S PATH=\"$TRASH_DIRECTORY/bin:\$PATH\" kbx defs target") &&
	test_grep "^less was run with: -FRX LESS=S\$" repo/tty.out
'

test_expect_success 'an empty pager, or cat, is no pager' '
	(cd repo && on_tty "KBX_PAGER= kbx defs target") &&
	test_grep "^  a.py:1  target" repo/tty.out &&
	(cd repo && kbx config --user core.pager "" &&
	 on_tty "env -u KBX_PAGER PAGER=\"sed s/^/ENV:/\" kbx defs target") &&
	test_grep "^  a.py:1  target" repo/tty.out &&
	(cd repo && kbx config --user core.pager cat && on_tty "env -u KBX_PAGER kbx defs target") &&
	test_grep "^  a.py:1  target" repo/tty.out &&
	(cd repo && kbx config --user --unset core.pager)
'

test_expect_success 'index, config and complete-symbols are never paged' '
	(cd repo && on_tty "kbx index; kbx config --list --defaults; kbx complete-symbols --prefix=targ") &&
	test_grep "indexed 2 files" repo/tty.out &&
	test_grep "^core.pager=" repo/tty.out &&
	test_grep "^target" repo/tty.out &&
	test_grep ! PAGED repo/tty.out
'

test_expect_success 'errors go through the pager too when stderr is the terminal' '
	(cd repo && on_tty "kbx defs targt; echo status \$?") &&
	test_grep "^PAGED:error: " repo/tty.out &&
	test_grep "^status 1\$" repo/tty.out
'

test_expect_success 'quitting the pager early ends kbx quietly with status 0' '
	(cd repo && on_tty "KBX_PAGER=\"head -n 2\" kbx callers target; echo status \$?") &&
	test_grep "^status 0\$" repo/tty.out &&
	test_line_count = 3 repo/tty.out
'

test_expect_success 'kbx waits for the pager before it exits' '
	(cd repo && on_tty "KBX_PAGER=\"sleep 1; sed s/^/LATE:/\" kbx defs target; echo done") &&
	tail -n 1 repo/tty.out >last &&
	echo done >expect &&
	test_cmp expect last &&
	test_grep "^LATE:  a.py" repo/tty.out
'

test_expect_success 'a pager that cannot run: a warning, and the output on the terminal' '
	(cd repo && on_tty "KBX_PAGER=no-such-pager-anywhere kbx defs target; echo status \$?") &&
	test_grep "warning: cannot run the pager .no-such-pager-anywhere." repo/tty.out &&
	test_grep "^  a.py:1  target" repo/tty.out &&
	test_grep "^status 0\$" repo/tty.out
'

test_expect_success 'colour on a terminal passes through the pager' '
	(cd repo && on_tty "TERM=xterm kbx defs target") &&
	test_grep "^PAGED:.*$(printf "\033")" repo/tty.out
'

test_done
