#!/bin/sh
test_description='faults: files that are special, unreadable, or change during a run

 - FIFOs, sockets and symbolic links in the tree, and a .gitignore that
   is a FIFO or a link to /dev/zero: the run ends, reads none of them,
   and indexes the rest.
 - Symbolic link loops (a link to .., a link to itself, two links to
   each other, a link to /): the walk ends; links are never followed.
 - Unreadable files and directories: skipped with a note; the run goes
   on.  As root, permissions do not stop reading, so that part runs as
   "nobody" through setpriv.
 - A file that is deleted, replaced by a FIFO, a directory or a link to
   a file outside the repository, or grows past the size limit between
   the scan and the read: strace delays kbx'"'"'s open of that one file
   for two seconds, and the test changes it meanwhile.  The run must
   skip it with a note, never hang on the FIFO, never read the file
   outside.
 - Nothing outside the repository is read, and nothing outside .kbx/
   is written: strace lists every file kbx opens, creates, renames or
   removes.  The one exception is the list of repositories in the
   user config directory (~/.config/kbx/repos, see kbx-repos(1)),
   which an index run reads to see that the repository is listed.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq STRACE 'strace -f -qq -o /dev/null -e trace=openat,openat2 -e inject=openat,openat2:delay_enter=1 true'

test_expect_success 'setup' '
	git init -q repo &&
	cat >repo/canary.py <<-\EOF &&
	def canary():
	    return helper()

	def helper():
	    return 1
	EOF
	mkdir outside &&
	echo "def secret_fn(): pass" >outside/secret.py &&
	mkdir repo/sub &&
	echo "def in_sub(): pass" >repo/sub/mod.py
'

test_expect_success 'FIFOs and sockets in the tree are not read' '
	mkfifo repo/pipe.py &&
	mkfifo repo/sub/pipe.c &&
	if command -v python3 >/dev/null
	then
		python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"repo/sock.py\")"
	fi &&
	timeout 60 kbx -C repo index 2>err &&
	kbx -C repo defs --format=nul canary >/dev/null &&
	kbx -C repo status --format=json >st.json &&
	test_grep "\"files\":2," st.json
'

test_expect_success 'a .gitignore that is a FIFO or a link to /dev/zero does not stop the walk' '
	mkfifo repo/.gitignore &&
	ln -s /dev/zero repo/sub/.kbxignore &&
	ln -s /dev/zero repo/.kbxignore.py &&
	timeout 60 kbx -C repo index -q &&
	kbx -C repo defs --format=nul in_sub >/dev/null &&
	rm repo/.gitignore repo/sub/.kbxignore repo/.kbxignore.py
'

test_expect_success 'symbolic link loops end the walk; links are never followed' '
	ln -s .. repo/up &&
	ln -s self repo/self &&
	ln -s loop-b repo/loop-a &&
	ln -s loop-a repo/loop-b &&
	ln -s / repo/sub/root &&
	ln -s ../../outside repo/sub/out &&
	ln -s ../outside/secret.py repo/secret.py &&
	ln -s /etc/passwd repo/passwd.py &&
	timeout 60 kbx -C repo index -q &&
	test_expect_code 1 kbx -C repo defs secret_fn 2>/dev/null &&
	kbx -C repo status --format=json >st.json &&
	test_grep "\"files\":2," st.json
'

# as_reader CMD...: run CMD as a user that permissions apply to
# the reader keeps its own store key, in a home of its own
as_reader () {
	if test "$(id -u)" = 0
	then
		mkdir -p reader-home && chown nobody reader-home &&
		HOME=$TRASH_DIRECTORY/reader-home \
		setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
	else
		"$@"
	fi
}

test_lazy_prereq PERMS '
	test "$(id -u)" != 0 || {
		setpriv --reuid=nobody --regid=nogroup --clear-groups true &&
		setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$TRASH_DIRECTORY"
	}
'

test_expect_success PERMS 'unreadable files and directories are skipped with a note' '
	mkdir perm &&
	git init -q perm &&
	echo "def readable(): pass" >perm/ok.py &&
	echo "def hidden(): pass" >perm/locked.py &&
	mkdir perm/closed &&
	echo "def inside_closed(): pass" >perm/closed/in.py &&
	if test "$(id -u)" = 0
	then
		chown -R nobody perm
	fi &&
	chmod 000 perm/locked.py perm/closed &&
	as_reader kbx -C perm index 2>err &&
	cat err >&3 &&
	test_grep "skipped .locked.py.: cannot read: Permission denied" err &&
	test_grep "skipped .closed.: Permission denied" err &&
	as_reader kbx -C perm defs --format=nul readable >/dev/null &&
	test_expect_code 1 as_reader kbx -C perm defs hidden 2>/dev/null &&
	chmod 644 perm/locked.py &&
	chmod 755 perm/closed &&
	as_reader kbx -C perm index -q &&
	as_reader kbx -C perm defs --format=nul hidden inside_closed >/dev/null &&
	chmod 000 perm/locked.py &&
	touch perm/locked.py &&
	as_reader kbx -C perm index 2>err &&
	test_grep "skipped .locked.py.: cannot read" err &&
	test_expect_code 1 as_reader kbx -C perm defs hidden 2>/dev/null
'

# race WHAT: index repo while kbx'"'"'s open of repo/victim.py waits four
# seconds, doing WHAT to the file after two (room for a loaded machine).
race () {
	rm -rf repo/victim.py &&
	echo "def victim_fn(): pass" >repo/victim.py &&
	kbx -C repo index -q &&
	kbx -C repo defs --format=nul victim_fn >/dev/null &&
	echo "def victim_fn(): return 2" >repo/victim.py &&
	victim="$(cd repo && pwd -P)/victim.py" &&
	{ timeout 60 strace -f -qq -o /dev/null -e trace=openat,openat2 \
		-e inject=openat,openat2:delay_enter=4000000 -P "$victim" \
		kbx -C repo index >out 2>err & } &&
	pid=$! &&
	sleep 2 &&
	eval "$1" &&
	wait $pid &&
	cat err >&3 &&
	kbx -C repo defs --format=nul canary >/dev/null
}

test_expect_success STRACE 'a file deleted between the scan and the read' '
	race "rm repo/victim.py" &&
	test_grep "skipped .victim.py.: cannot read: No such file" err &&
	test_expect_code 1 kbx -C repo defs victim_fn 2>/dev/null
'

test_expect_success STRACE 'a file replaced by a FIFO between the scan and the read' '
	race "rm repo/victim.py && mkfifo repo/victim.py" &&
	test_grep "skipped .victim.py.: not a regular file" err &&
	test_expect_code 1 kbx -C repo defs victim_fn 2>/dev/null
'

test_expect_success STRACE 'a file replaced by a link to a file outside the repository' '
	race "rm repo/victim.py && ln -s ../outside/secret.py repo/victim.py" &&
	test_grep "skipped .victim.py.: it became a symbolic link" err &&
	test_expect_code 1 kbx -C repo defs secret_fn 2>/dev/null &&
	test_expect_code 1 kbx -C repo defs victim_fn 2>/dev/null
'

test_expect_success STRACE 'a file replaced by a directory' '
	race "rm repo/victim.py && mkdir repo/victim.py" &&
	test_grep "skipped .victim.py.: it became a directory" err &&
	rmdir repo/victim.py
'

test_expect_success STRACE 'a file that grows past the size limit' '
	awk "BEGIN { for (i = 0; i < 80000; i++) printf \"def g%d(): pass\\n\", i }" >big.tmp &&
	race "cat big.tmp >repo/victim.py" &&
	test_grep "skipped .victim.py.: larger than the size limit" err &&
	test_expect_code 1 kbx -C repo defs victim_fn 2>/dev/null
'

test_expect_success STRACE 'a file that changes between the scan and the read is indexed as read' '
	race "echo \"def changed_fn(): pass\" >repo/victim.py.new && mv repo/victim.py.new repo/victim.py" &&
	kbx -C repo defs --format=nul changed_fn >/dev/null &&
	kbx -C repo index --format=json >run.json &&
	test_grep "\"parsed\":0" run.json
'

test_expect_success STRACE 'nothing outside the repository is read, nothing outside .kbx/ written' '
	rm -rf repo/victim.py &&
	echo "def more(): pass" >repo/sub/more.py &&
	root=$(cd repo && pwd -P) &&
	: >stamp &&
	strace -f -qq -o trace -e trace=%file kbx -C repo index -q &&
	kbx -C repo defs --format=nul more >/dev/null &&
	sed -n "s/^[0-9]* *\([a-z0-9_]*\)(\(.*\)/\1 \2/p" trace >calls &&
	grep -v "= -1 E" calls >succeeded &&
	grep -E "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^(creat|mkdir|mkdirat|rename|renameat|renameat2|unlink|unlinkat|rmdir|link|linkat|symlink|symlinkat|truncate|chmod|fchmodat|chown|fchownat|utimensat) " succeeded >writes &&
	cat writes >&3 &&
	test_file_not_empty writes &&
	{ grep -v "\"$root/.kbx/" writes >bad-writes || :; } &&
	test_must_be_empty bad-writes &&
	sed -n "s/^[a-z0-9_]* [^\"]*\"\([^\"]*\)\".*/\1/p" succeeded | sort -u >paths &&
	{ grep -v -e "^$root\$" -e "^$root/" -e "^repo\$" -e "^\$" \
		-e "^/etc/ld\.so\.cache\$" -e "^/etc/ld\.so\.preload\$" \
		-e "^/lib/" -e "^/lib64/" -e "^/usr/lib/" \
		-e "^/sys/devices/system/cpu/" -e "^/proc/self/" -e "^/dev/null\$" \
		-e "^$KBX_SRC/kbx\$" -e "^$KBX_MODULE_PATH\$" -e "^$KBX_WORDS_PATH\$" \
		-e "^$KBX_GRAMMARS_PATH\$" \
		-e "^$HOME/\.config/kbx/repos\$" -e "^$HOME/\.local/state/kbx/store-key\$" \
		paths >read-outside || :; } &&
	cat paths >&3 &&
	test_must_be_empty read-outside &&
	find . -newer stamp -type f ! -name trace ! -name calls ! -name succeeded \
		! -name writes ! -name bad-writes ! -name paths ! -name read-outside ! -name written >written &&
	{ grep -v "^\./repo/\.kbx/" written >bad-written || :; } &&
	test_must_be_empty bad-written
'

test_done
