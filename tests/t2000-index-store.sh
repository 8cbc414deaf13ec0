#!/bin/sh
test_description='kbx index: where the store lives, what it holds, and incremental runs'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a small Python repository' '
	git init -q repo &&
	mkdir -p repo/pkg repo/sub/deeper &&
	cat >repo/pkg/b.py <<-\EOF &&
	def load(path):
	    return helper(path)

	def helper(path):
	    return path
	EOF
	: >repo/pkg/__init__.py &&
	cat >repo/app.py <<-\EOF &&
	from pkg.b import load

	def main():
	    return load("x")

	main()
	EOF
	cat >repo/other.py <<-\EOF
	def unrelated():
	    return 1
	EOF
'

test_expect_success 'index creates .kbx at the repository root, found from a subdirectory' '
	(cd repo/sub/deeper && kbx index -q) &&
	test_path_is_dir repo/.kbx &&
	test_path_is_missing repo/sub/deeper/.kbx &&
	(cd repo/sub && kbx callers --format=nul load >../../callers.out) &&
	printf "app.py#main\0" >expect &&
	test_cmp expect callers.out
'

test_expect_success 'a query outside any index fails with exit 3 and says what to do' '
	mkdir empty &&
	(cd empty && test_expect_code 3 kbx callers load 2>../err) &&
	test_grep "run .kbx index." err
'

test_expect_success 'KBX_DIR and --kbx-dir choose the store' '
	(cd repo && KBX_DIR="$PWD/../alt-store" kbx index -q) &&
	test_path_is_dir alt-store &&
	(cd repo && kbx --kbx-dir="$PWD/../alt-store" defs --format=grep load >../defs.out) &&
	echo "pkg/b.py:1:1: function load" >expect &&
	test_cmp expect defs.out
'

test_expect_success 'status reports files, symbols, edges and the generation' '
	(cd repo && kbx status --format=json >../status.json) &&
	test_grep "\"files\":4" status.json &&
	test_grep "\"files_python\":4" status.json &&
	test_grep "\"generation\":1" status.json
'

test_expect_success 'an unchanged tree parses nothing again' '
	(cd repo && kbx index --format=json >../run.json) &&
	test_grep "\"parsed\":0" run.json &&
	test_grep "\"unchanged\":4" run.json
'

test_expect_success 'editing the callee file keeps the callers that point into it' '
	cat >repo/pkg/b.py <<-\EOF &&
	# a comment that moves everything down

	def load(path):
	    return helper(path)

	def helper(path):
	    return path.strip()
	EOF
	(cd repo && kbx index --format=json >../run.json) &&
	test_grep "\"parsed\":1" run.json &&
	(cd repo && kbx callers --format=json load >../callers.json) &&
	test_grep "\"id\":\"app.py#main\"" callers.json &&
	(cd repo && kbx defs --format=grep load >../defs.out) &&
	echo "pkg/b.py:3:1: function load" >expect &&
	test_cmp expect defs.out
'

test_expect_success 'renaming the callee re-points the unchanged caller to an external' '
	sed "s/def load/def load_all/" repo/pkg/b.py >tmp && mv tmp repo/pkg/b.py &&
	(cd repo && kbx index --format=json >../run.json) &&
	test_grep "\"reresolved\":1" run.json &&
	(cd repo && kbx callees --format=json app.py#main >../callees.json) &&
	test_grep "\"id\":\"extern:load\".*\"confidence\":\"unresolved\"" callees.json &&
	(cd repo && test_expect_code 1 kbx callers pkg/b.py#load 2>../err) &&
	test_grep "no symbol" err
'

test_expect_success 'defining the name again re-points the caller to it' '
	sed "s/def load_all/def load/" repo/pkg/b.py >tmp && mv tmp repo/pkg/b.py &&
	(cd repo && kbx index -q && kbx callees --format=json app.py#main >../callees.json) &&
	test_grep "\"id\":\"pkg/b.py#load\"" callees.json &&
	test_grep "\"confidence\":\"certain\"" callees.json
'

test_expect_success 'a deleted file leaves no symbols or edges behind' '
	rm repo/other.py &&
	(cd repo && kbx index --format=json >../run.json) &&
	test_grep "\"removed\":1" run.json &&
	(cd repo && test_expect_code 1 kbx defs unrelated 2>../err) &&
	(cd repo && kbx status --format=json >../status.json) &&
	test_grep "\"files\":3" status.json
'

test_expect_success 'a new file with a second definition makes an unimported call ambiguous' '
	cat >repo/helpers_a.py <<-\EOF &&
	def shared():
	    return 1
	EOF
	cat >repo/caller.py <<-\EOF &&
	def use():
	    return shared()
	EOF
	(cd repo && kbx index -q && kbx callees --format=json use >../c1.json) &&
	test_grep "\"confidence\":\"certain\"" c1.json &&
	cat >repo/helpers_b.py <<-\EOF &&
	def shared():
	    return 2
	EOF
	(cd repo && kbx index -q && kbx callees --format=json use >../c2.json) &&
	test_grep "\"id\":\"helpers_a.py#shared\".*\"confidence\":\"ambiguous\"" c2.json &&
	test_grep "\"id\":\"helpers_b.py#shared\".*\"confidence\":\"ambiguous\"" c2.json
'

test_expect_success 'index PATH updates only that part of the tree' '
	cat >repo/sub/mod.py <<-\EOF &&
	def in_sub():
	    return 1
	EOF
	echo "def later(): pass" >repo/later.py &&
	(cd repo && kbx index -q sub) &&
	(cd repo && kbx defs --format=nul in_sub >../d.out) &&
	(cd repo && test_expect_code 1 kbx defs later 2>/dev/null) &&
	(cd repo && kbx index -q) &&
	(cd repo && kbx defs --format=nul later >../d.out)
'

test_expect_success 'index PATH of a file under a deleted directory removes it' '
	mkdir -p gone/d/e gone/src/old gone/keep &&
	echo "class C { void h() {} }" >gone/d/e/C.java &&
	echo "def old_fn(): pass" >gone/src/old/o.py &&
	echo "def kept_fn(): pass" >gone/keep/k.py &&
	ln -s src gone/lnk &&
	(cd gone && kbx index -q && kbx defs --format=nul C old_fn >/dev/null) &&
	rm -rf gone/d gone/src/old &&
	(cd gone/keep && kbx index --format=json ../d/e/C.java >../../run.json) &&
	test_grep "\"removed\":1" run.json &&
	(cd gone && test_expect_code 1 kbx defs C 2>/dev/null) &&
	(cd gone && kbx index --format=json lnk/old/./o.py/ >../run.json) &&
	test_grep "\"removed\":1" run.json &&
	(cd gone && test_expect_code 1 kbx defs old_fn 2>/dev/null &&
	 kbx defs --format=nul kept_fn >/dev/null)
'

test_expect_success 'a deleted PATH is never resolved through a link out of the repository' '
	mkdir -p outside/real &&
	ln -s "$(pwd)/outside" gone/out &&
	ln -s "$(pwd)/outside/missing" gone/dangling &&
	(cd gone &&
	 test_expect_code 2 kbx index out/gone/x.py 2>../err1 &&
	 test_expect_code 2 kbx index out/real/gone/x.py 2>../err2 &&
	 test_expect_code 2 kbx index dangling/a/b.py 2>../err3 &&
	 test_expect_code 2 kbx index d/../out/real/x.py 2>../err4) &&
	test_grep "error: .out/gone/x.py. is outside the repository" err1 &&
	test_grep "error: .out/real/gone/x.py. is outside the repository" err2 &&
	test_grep "error: .dangling/a/b.py. is outside the repository" err3 &&
	test_grep "error: .d/\.\./out/real/x.py. has .\.\.. below a directory that does not exist" err4
'

test_expect_success '.gitignore and .kbxignore are honoured' '
	mkdir -p repo/build repo/vendor &&
	echo "def built(): pass" >repo/build/gen.py &&
	echo "def vendored(): pass" >repo/vendor/lib.py &&
	echo "def kept(): pass" >repo/vendor/keep.py &&
	echo "build/" >repo/.gitignore &&
	printf "vendor/*\n!vendor/keep.py\n" >repo/.kbxignore &&
	(cd repo && kbx index -q) &&
	(cd repo && test_expect_code 1 kbx defs built 2>/dev/null) &&
	(cd repo && test_expect_code 1 kbx defs vendored 2>/dev/null) &&
	(cd repo && kbx defs --format=nul kept >/dev/null)
'

test_expect_success 'binary and oversized files are skipped with a note, the run goes on' '
	printf "def x():\0\0\0 pass\n" >repo/blob.py &&
	awk "BEGIN { for (i = 0; i < 3000; i++) printf \"def f%d(): pass\\n\", i }" >repo/big.py &&
	(cd repo && kbx index --max-file-size=20k 2>../err) &&
	test_grep "skipped .blob.py.: binary file" err &&
	test_grep "skipped .big.py.: larger than the size limit" err &&
	test_grep "indexed" err &&
	(cd repo && test_expect_code 1 kbx defs f10 2>/dev/null)
'

test_expect_success 'a symbolic link is not followed' '
	ln -s .. repo/loop &&
	ln -s /etc repo/etc-link &&
	(cd repo && kbx index -q && kbx status --format=json >../status.json) &&
	test_grep ! "loop/" status.json
'

test_expect_success 'a store written by another schema version is refused with advice' '
	"$KBX_TEST_UNIT/store-set-meta" repo/.kbx schema 999 &&
	(cd repo && test_expect_code 4 kbx callers load 2>../err) &&
	test_grep "schema version 999" err &&
	test_grep "kbx index --rebuild" err &&
	(cd repo && test_expect_code 4 kbx index 2>../err) &&
	(cd repo && kbx index --rebuild -q && kbx callers --format=nul load >../c.out) &&
	printf "app.py#main\0" >expect &&
	test_cmp expect c.out
'

test_expect_success 'an index made by older rules is made again whole by the next run' '
	(cd repo && kbx index -q) &&
	"$KBX_TEST_UNIT/store-set-meta" repo/.kbx graph_rules 1 &&
	(cd repo && kbx index --format=json >../rules.json) &&
	test_grep "\"rules_changed\":true" rules.json &&
	test_grep "\"unchanged\":0," rules.json &&
	(cd repo && kbx index --format=json >../rules.json) &&
	test_grep ! rules_changed rules.json &&
	test_grep ! "\"parsed\":[1-9]" rules.json &&
	"$KBX_TEST_UNIT/store-set-meta" repo/.kbx graph_rules 1 &&
	(cd repo && kbx index 2>../err) &&
	test_grep "made by an older kbx" err &&
	(cd repo && kbx callers --format=nul load >../c.out) &&
	test_cmp expect c.out
'

test_expect_success 'made again by older rules, an index is made whole even when paths are given' '
	(cd repo && kbx status --format=json >../before.json) &&
	"$KBX_TEST_UNIT/store-set-meta" repo/.kbx graph_rules 1 &&
	(cd repo && kbx index --format=json app.py >../rules.json) &&
	test_grep "\"rules_changed\":true" rules.json &&
	(cd repo && kbx status --format=json >../after.json) &&
	grep -o "\"files\":[0-9]*" before.json >files.before &&
	grep -o "\"files\":[0-9]*" after.json >files.after &&
	test_cmp files.before files.after &&
	(cd repo && test_expect_code 2 kbx index --rebuild app.py 2>../err) &&
	test_grep "rebuild takes no path" err
'

test_expect_success 'a second writer is told the index is busy (exit 5)' '
	(cd repo && flock .kbx/index.lock -c "kbx index 2>../err; echo \$? >../rc") &&
	echo 5 >expect &&
	test_cmp expect rc &&
	test_grep "another kbx process is indexing" err &&
	(cd repo && kbx callers --format=nul load >/dev/null)
'

test_expect_success 'the busy message names no process when the pid in index.lock is gone' '
	sh -c "echo \$\$" >repo/.kbx/index.lock &&
	(cd repo && flock .kbx/index.lock -c "kbx index 2>../err; echo \$? >../rc") &&
	echo 5 >expect &&
	test_cmp expect rc &&
	test_grep "another kbx process is indexing" err &&
	(cd repo && kbx index -q) &&
	test_must_be_empty repo/.kbx/index.lock
'

test_expect_success 'readers are not blocked by a writer holding the lock' '
	(cd repo && flock .kbx/index.lock -c "kbx callers --format=nul load" >c.out) &&
	printf "app.py#main\0" >expect &&
	test_cmp expect repo/c.out
'

test_expect_success 'a repository moved with its .kbx indexes its new place' '
	mkdir -p mv1 &&
	echo "def moved_fn(): pass" >mv1/a.py &&
	(cd mv1 && kbx index -q) &&
	mv mv1 mv2 &&
	echo "def added_after_move(): pass" >mv2/b.py &&
	(cd mv2 && kbx index -q && kbx status --format=json >../st.json) &&
	test_grep "\"root\":\"$PWD/mv2\"" st.json &&
	(cd mv2 && kbx defs --format=nul added_after_move >/dev/null)
'

test_expect_success 'a repository nested in an indexed tree gets an index of its own' '
	git init -q repo/nested &&
	echo "def inner_fn(): pass" >repo/nested/inner.py &&
	(cd repo/nested && kbx index -q) &&
	test_path_is_dir repo/nested/.kbx &&
	(cd repo && kbx index -q && test_expect_code 1 kbx defs inner_fn 2>/dev/null) &&
	(cd repo/nested && kbx defs --format=nul inner_fn >/dev/null)
'

test_expect_success 'the store keeps itself out of git' '
	test_path_is_file repo/.kbx/.gitignore &&
	(cd repo && git status --porcelain --ignored >../st.txt) &&
	test_grep "^!! .kbx/$" st.txt &&
	test_grep ! "^?? .kbx/" st.txt
'

test_expect_success 'with a PATH argument, deeper ignore rules still win' '
	mkdir -p ign/src &&
	echo "*.gen.py" >ign/.kbxignore &&
	echo "!keep.gen.py" >ign/src/.kbxignore &&
	echo "def kept_gen(): pass" >ign/src/keep.gen.py &&
	echo "def dropped_gen(): pass" >ign/src/drop.gen.py &&
	(cd ign && kbx index -q src/keep.gen.py src/drop.gen.py) &&
	(cd ign && kbx defs --format=nul kept_gen >/dev/null) &&
	(cd ign && test_expect_code 1 kbx defs dropped_gen 2>/dev/null)
'

test_expect_success 'hidden directories are left out unless named' '
	mkdir -p hid/.venv/lib hid/src &&
	echo "def in_venv(): pass" >hid/.venv/lib/site.py &&
	echo "def in_src(): pass" >hid/src/a.py &&
	(cd hid && kbx index -q) &&
	(cd hid && test_expect_code 1 kbx defs in_venv 2>/dev/null) &&
	(cd hid && kbx defs --format=nul in_src >/dev/null) &&
	(cd hid && kbx index -q .venv && kbx defs --format=nul in_venv >/dev/null)
'

test_expect_success 'the map grows by itself when a run fills it' '
	mkdir grow &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
	do
		awk -v i=$i "BEGIN { for (j = 0; j < 60; j++) printf \"def f%d_%d(x):\\n    return g%d(x)\\n\\n\", i, j, j }" >grow/m$i.py || return 1
	done &&
	(cd grow && KBX_MAP_SIZE=65536 kbx index -q && kbx status --format=json >../st.json) &&
	test_grep "\"symbols\":1200" st.json &&
	map=$(sed -n "s/.*\"map_bytes\":\([0-9]*\).*/\1/p" st.json) &&
	test "$map" -gt 65536
'

test_expect_success 'index --rebuild from scratch gives the same graph' '
	(cd repo && kbx callees --format=json --transitive main >../before.json &&
	 kbx index --rebuild -q &&
	 kbx callees --format=json --transitive main >../after.json) &&
	test_cmp before.json after.json
'

test_expect_success 'a path with "#" in it keeps its definitions apart from it' '
	mkdir -p hashes/C#/a#b &&
	printf "def write_file(d):\n    return d\n" >hashes/store.py &&
	printf "from store import write_file\n\n\ndef odd(d):\n    return write_file(d)\n" \
		>"hashes/C#/a#b/odd.py" &&
	(cd hashes && kbx index -q &&
	 kbx defs --format=json odd >../defs.json &&
	 kbx callers --format=grep write_file >../callers.grep) &&
	test_grep "\"name\":\"odd\"" defs.json &&
	test_grep "\"path\":\"C#/a#b/odd.py\"" defs.json &&
	echo "C#/a#b/odd.py:5:12: odd calls write_file" >expect &&
	test_cmp expect callers.grep
'

test_done
