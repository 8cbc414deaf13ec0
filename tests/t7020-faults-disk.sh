#!/bin/sh
test_description='faults: full disk, file size limit, a map that cannot grow

kbx index must fail with exit code 7 and say why, and the previous
index must stay as it was: same generation, same answers, and a later
run with room to spare must work.

 - A full disk: the store lives on a small tmpfs (needs root and
   mount; skipped otherwise).  LMDB reports a write cut short as EIO;
   kbx must still say "no space left", not "input/output error".
 - The first index of a store on a full disk: readers must not answer
   from the empty store ("not built yet", exit 3).
 - A file size limit (ulimit -f, with SIGXFSZ ignored): the same, without
   root.
 - A map that cannot grow: an address space limit (ulimit -v) stops the
   map from doubling.  Where the limit falls decides whether the map or
   malloc runs out first, so a range of limits is tried: every run must
   end with 0, 7 (map full) or 9 (out of memory), never a crash, never 8
   (a damaged store) and leave the index intact, and at least one must
   be the map.  The unit program refs-nomem checks the decoder that used
   to report memory running out as damage.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq TMPFS '
	test "$(id -u)" = 0 &&
	mkdir m &&
	mount -t tmpfs -o size=1m tmpfs m &&
	umount m
'
# not under a sanitizer build, whose shadow memory needs terabytes of address space
test_lazy_prereq ULIMIT_V '(ulimit -v 1000000 && kbx --version)'

make_tree () {
	"$TEST_DIRECTORY"/hostile/make-tree.sh repo "$1" "$2"
}

# state NAME: the generation and an answer of the store in $KBX_DIR (or
# repo/.kbx)
state () {
	kbx -C repo status --format=json >"$1.status" &&
	sed -n 's/.*"generation":\([0-9]*\).*/\1/p' "$1.status" >"$1.gen" &&
	kbx -C repo callees --transitive --format=json pkg/m0000.py#f0000_00 >"$1.ans" &&
	kbx -C repo defs --format=json f0020_03 >>"$1.ans"
}

# These faults are about the code graph's transaction; code chunks for
# search would multiply the store's size by about five and make the disk
# sizes below meaningless, so they are left out (the search index is
# written in a transaction of its own the same way).
test_expect_success 'setup: a small tree, and a bigger one waiting' '
	kbx config --user index.codeChunks false &&
	git init -q repo &&
	make_tree 60 30 &&
	mkdir small &&
	cp -R repo/pkg repo/csrc small/ &&
	mkdir big &&
	"$TEST_DIRECTORY"/hostile/make-tree.sh big 400 200
'

test_expect_success TMPFS 'a store on a 4 MB disk' '
	mkdir disk &&
	mount -t tmpfs -o size=4m tmpfs disk &&
	KBX_DIR="$PWD/disk/store" kbx -C repo index -q &&
	(KBX_DIR="$PWD/disk/store" && export KBX_DIR && state before) &&
	test_grep "\"generation\":1," before.status
'

test_expect_success TMPFS 'a run that fills the disk exits 7, says so, and changes nothing' '
	test_when_finished "rm -rf repo/pkg repo/csrc && cp -R small/pkg small/csrc repo/" &&
	cp -R big/pkg big/csrc repo/ &&
	test_expect_code 7 env KBX_DIR="$PWD/disk/store" kbx -C repo index 2>err &&
	cat err >&3 &&
	test_grep "No space left on device" err &&
	test_grep "free some disk space" err &&
	test_grep "previous index is unchanged" err &&
	test_grep ! "Input/output error" err &&
	df disk >&3 &&
	(KBX_DIR="$PWD/disk/store" && export KBX_DIR && state after) &&
	test_cmp before.gen after.gen &&
	test_cmp before.ans after.ans &&
	test_expect_code 7 env KBX_DIR="$PWD/disk/store" kbx -C repo index --rebuild 2>err &&
	test_grep "No space left on device" err &&
	(KBX_DIR="$PWD/disk/store" && export KBX_DIR && state after) &&
	test_cmp before.ans after.ans
'

test_expect_success TMPFS 'with room again, the next run works' '
	cp -R big/pkg big/csrc repo/ &&
	mount -o remount,size=64m disk &&
	KBX_DIR="$PWD/disk/store" kbx -C repo index -q &&
	(KBX_DIR="$PWD/disk/store" && export KBX_DIR && state room) &&
	echo $(($(cat before.gen) + 1)) >expect &&
	test_cmp expect room.gen &&
	KBX_DIR="$PWD/fresh" kbx -C repo index -q &&
	(KBX_DIR="$PWD/fresh" && export KBX_DIR && state fresh) &&
	test_cmp fresh.ans room.ans
'

test_expect_success TMPFS 'the first index of a store on a full disk: exit 7, readers get exit 3' '
	test_when_finished "umount disk" &&
	rm -rf disk/store &&
	mount -o remount,size=1m disk &&
	test_expect_code 7 env KBX_DIR="$PWD/disk/store" kbx -C repo index 2>err &&
	cat err >&3 &&
	test_grep "No space left on device" err &&
	test_expect_code 3 env KBX_DIR="$PWD/disk/store" kbx -C repo callees f0000_00 2>err &&
	test_grep "has not been built yet" err &&
	test_expect_code 3 env KBX_DIR="$PWD/disk/store" kbx -C repo status 2>err
'

test_expect_success 'setup: a store at the small tree again' '
	rm -rf repo/pkg repo/csrc repo/.kbx &&
	make_tree 60 30 &&
	kbx -C repo index -q &&
	state before
'

# ulimit -f counts 1024-byte blocks in bash and 512-byte blocks in dash:
# 2048 is 1 or 2 MB, both above lock.mdb and below what the big tree needs.
test_expect_success 'a run stopped by the file size limit exits 7 and changes nothing' '
	test_when_finished "rm -rf repo/pkg repo/csrc && cp -R small/pkg small/csrc repo/" &&
	cp -R big/pkg big/csrc repo/ &&
	code=0 &&
	{ (trap "" XFSZ && ulimit -f 2048 && kbx -C repo index 2>err) || code=$?; } &&
	test $code = 7 &&
	cat err >&3 &&
	test_grep "File too large" err &&
	test_grep "file size limit" err &&
	state after &&
	test_cmp before.gen after.gen &&
	test_cmp before.ans after.ans
'

test_expect_success 'without the limit the same run works' '
	cp -R big/pkg big/csrc repo/ &&
	kbx -C repo index -q &&
	state now &&
	echo $(($(cat before.gen) + 1)) >expect &&
	test_cmp expect now.gen
'

test_unit refs-nomem

test_expect_success ULIMIT_V 'a map that cannot grow: exit 7 or 9, never a crash, never damage' '
	rm -rf repo/pkg repo/csrc repo/.kbx &&
	make_tree 60 30 &&
	kbx -C repo index -q &&
	state before &&
	cp -R big/pkg big/csrc repo/ &&
	echo "def f(): pass" >tiny.py &&
	git init -q tiny && mv tiny.py tiny/ &&
	base= &&
	for mb in 24 28 32 36 40 44 48 52 56 60 70 80 90 100 120 140 160
	do
		if (MALLOC_ARENA_MAX=1 && export MALLOC_ARENA_MAX &&
		    ulimit -v $((mb * 1024)) &&
		    KBX_MAP_SIZE=1m kbx -C tiny index -q --threads=1 2>/dev/null)
		then
			base=$mb && break
		fi
	done &&
	test -n "$base" &&
	echo "a tiny index runs in $base MB of address space" >&3 &&
	map_full=0 oom=0 ok=0 &&
	for extra in 2 4 6 8 10 12 14 16 20 24
	do
		code=0 &&
		{ (MALLOC_ARENA_MAX=1 && export MALLOC_ARENA_MAX &&
		   ulimit -v $(((base + extra) * 1024)) &&
		   KBX_MAP_SIZE=1m kbx -C repo index -q --threads=1 2>err) || code=$?; } &&
		echo "limit $((base + extra)) MB: exit $code: $(cat err)" >&3 &&
		# the graph committed and the search index (a transaction of its
		# own) failed: that is a finished graph, and it says so
		if test $code != 0 && grep -q "the code graph is up to date" err
		then
			ok=$((ok + 1)) && break
		fi &&
		case $code in
		0)
			ok=$((ok + 1)) && break ;;
		7)
			test_grep "map is full at .* and cannot grow" err &&
			map_full=$((map_full + 1)) ;;
		9)
			test_grep "out of memory\|Cannot allocate memory" err &&
			oom=$((oom + 1)) ;;
		*)
			echo "exit $code" >&4 && return 1 ;;
		esac &&
		state after &&
		test_cmp before.gen after.gen &&
		test_cmp before.ans after.ans || return 1
	done &&
	printf "# address space limits: %s runs stopped by the map, %s by malloc, %s finished\n" \
		$map_full $oom $ok >&5 &&
	test $map_full -ge 1
'

test_expect_success TMPFS 'a new store with 0 to 64 KiB free: exit 0 or 7, never a signal, nothing half-written' '
	mkdir newdisk &&
	mount -t tmpfs -o size=2m tmpfs newdisk &&
	test_when_finished "umount newdisk" &&
	mkdir one &&
	printf "def lone():\n    pass\n" >one/a.py &&
	git init -q one &&
	full=0 built=0 &&
	for free in 0 4 8 12 16 20 24 28 32 40 48 56 64
	do
		rm -rf newdisk/store newdisk/big &&
		{ dd if=/dev/zero of=newdisk/big bs=4k 2>/dev/null || :; } &&
		truncate -s -${free}K newdisk/big &&
		code=0 &&
		{ env KBX_DIR="$PWD/newdisk/store" kbx -C one index -q 2>err || code=$?; } &&
		echo "$free KiB free: exit $code: $(cat err)" >&3 &&
		case $code in
		0)
			built=$((built + 1)) &&
			env KBX_DIR="$PWD/newdisk/store" kbx -C one defs --format=nul lone >/dev/null ;;
		7)
			full=$((full + 1)) &&
			test_grep "No space left on device\|disk or map full" err &&
			test_expect_code 3 env KBX_DIR="$PWD/newdisk/store" kbx -C one defs lone 2>/dev/null ;;
		*)
			echo "exit $code with $free KiB free" >&4 && return 1 ;;
		esac &&
		if test -e newdisk/store/.gitignore
		then
			test_grep "^\*\$" newdisk/store/.gitignore || return 1
		fi || return 1
	done &&
	printf "# a new store: %s runs stopped by the full disk, %s built\n" $full $built >&5 &&
	test $full -ge 1
'

test_done
