#!/bin/sh

test_description='the vector module and how kbx reaches it

Runs the C self-test of the vector module (tests/unit/vector-selftest.c),
which loads build/kbx-vector.so through _kbx_vector_load() and builds,
searches, saves and reopens flat, HNSW and IVF indexes; then checks the
structure start-up time depends on: the module exports one symbol, and
neither kbx nor a program linked like it links FAISS, OpenBLAS, OpenMP
or the C++ run-time library; and how the loader finds the module.'

. "$(dirname "$0")"/test-lib.sh

test_have_prereq VECTOR ||
	test_skip "no vector module at '$KBX_MODULE_PATH' (run make)"

# Start-up costs about 1.7 ms more when a binary links these.
heavy_libs='libfaiss|libopenblas|libblas|liblapack|libgomp|libstdc\+\+|libgfortran'

test_lazy_prereq NM '
	nm --version
'
test_lazy_prereq LDD '
	ldd --version
'
# Sanitizer run-times bring libstdc++ along: in a SANITIZE build the
# link checks mean nothing.
test_lazy_prereq PLAIN_SELFTEST '
	ldd "$KBX_TEST_UNIT/vector-selftest" >libs &&
	! grep -E "libasan|libubsan|libtsan" libs
'
test_lazy_prereq PLAIN_KBX '
	ldd "$KBX_SRC/kbx" >libs &&
	! grep -E "libasan|libubsan|libtsan" libs
'
# No installed module that the loader would fall back to.
test_lazy_prereq NO_INSTALLED_MODULE '
	dir=$("$KBX_TEST_UNIT/vector-selftest" --module-dir) &&
	! test -e "$dir/kbx-vector.so"
'

test_unit vector-selftest .

# kbx's own flat layout, from the outside: what a truncated or overwritten
# file does to a process that opens it (an error, never a signal).
test_expect_success 'a flat index file has its own header and opens mapped' '
	"$KBX_TEST_UNIT/vector-selftest" --save-flat flat.kbxv 500 &&
	printf kbx-flat >expect &&
	head -c 8 flat.kbxv >actual &&
	test_cmp expect actual &&
	"$KBX_TEST_UNIT/vector-selftest" --open flat.kbxv >actual &&
	echo "flat 500 1000" >expect &&
	test_cmp expect actual
'

test_expect_success 'a truncated flat index is an error' '
	cp flat.kbxv cut.kbxv &&
	truncate -s -100 cut.kbxv &&
	test_must_fail "$KBX_TEST_UNIT/vector-selftest" --open cut.kbxv 2>err &&
	test_grep "cut.kbxv.* is not a kbx vector index, or is truncated" err
'

test_expect_success 'garbage over a flat index header is an error' '
	cp flat.kbxv junk.kbxv &&
	printf "garbage!garbage!" | dd of=junk.kbxv conv=notrunc 2>/dev/null &&
	test_must_fail "$KBX_TEST_UNIT/vector-selftest" --open junk.kbxv 2>err &&
	test_grep "junk.kbxv.* is damaged: no flat index header" err
'

test_expect_success 'a flat index of the older 1-bit layout is an error asking for a rebuild' '
	cp flat.kbxv old.kbxv &&
	printf "\001" | dd of=old.kbxv bs=1 seek=8 conv=notrunc 2>/dev/null &&
	test_must_fail "$KBX_TEST_UNIT/vector-selftest" --open old.kbxv 2>err &&
	test_grep "old.kbxv.* has the flat layout 1 of an older kbx: rebuild it" err
'

test_expect_success 'a flat index cut to its header and trailer is an error' '
	head -c 64 flat.kbxv >short.kbxv &&
	tail -c 64 flat.kbxv >>short.kbxv &&
	test_must_fail "$KBX_TEST_UNIT/vector-selftest" --open short.kbxv 2>err &&
	test_grep "short.kbxv.* is damaged" err
'

test_expect_success NM 'the module exports only kbx_vector_module' '
	nm -D --defined-only "$KBX_MODULE_PATH" >symbols &&
	awk "{ print \$NF }" symbols >actual &&
	echo kbx_vector_module >expect &&
	test_cmp expect actual
'

test_expect_success LDD,PLAIN_SELFTEST 'a program linked like kbx does not link FAISS and its run-time' '
	ldd "$KBX_TEST_UNIT/vector-selftest" >libs &&
	test_grep ! -E "$heavy_libs" libs
'

test_expect_success KBX,LDD,PLAIN_KBX 'kbx does not link FAISS, OpenBLAS, OpenMP or libstdc++' '
	ldd "$KBX_SRC/kbx" >libs &&
	test_grep ! -E "$heavy_libs" libs
'

# ./configure links kbx's small libraries from their static archives
# when they link (-l:libNAME.a in config.mk) and libstemmer's English
# module alone: a process then maps and relocates none of them.
test_expect_success KBX,LDD,PLAIN_KBX 'the libraries configure took as archives are not loaded' '
	sed -n "s/^[A-Z0-9]*_LIBS = //p" "$KBX_SRC/config.mk" | tr " " "\n" |
		sed -n "s/^-l:\(lib[^.]*\)\.a$/\1/p" >archives &&
	ldd "$KBX_SRC/kbx" >libs &&
	while read -r lib; do
		test_grep ! "$lib\.so" libs || return 1
	done <archives
'

test_lazy_prereq READELF '
	readelf --version
'

# ./configure packs kbx's relative relocations when the linker and the C
# library can (RELR_LDFLAGS in config.mk); an empty RELR_LDFLAGS says
# they cannot, or that the builder asked for none.
test_expect_success KBX,READELF,PLAIN_KBX 'kbx packs its relative relocations unless configure says it cannot' '
	readelf -d "$KBX_SRC/kbx" >dynamic &&
	if grep -q "^RELR_LDFLAGS = *$" "$KBX_SRC/config.mk"; then
		test_grep ! "(RELR)" dynamic
	else
		test_grep "(RELR)" dynamic &&
		test_grep ! "(RELACOUNT)" dynamic
	fi
'

test_expect_success LDD 'the module links them' '
	ldd "$KBX_MODULE_PATH" >libs &&
	test_grep ! "not found" libs &&
	test_grep -E "libopenblas|libblas" libs &&
	test_grep libgomp libs &&
	test_grep libstdc libs
'

test_expect_success 'without KBX_MODULE_PATH the module is found in build/ next to the executable' '
	mkdir -p tree/build &&
	cp "$KBX_TEST_UNIT/vector-selftest" tree/ &&
	cp "$KBX_MODULE_PATH" tree/build/kbx-vector.so &&
	(unset KBX_MODULE_PATH && tree/vector-selftest --module-path >actual) &&
	echo "$TRASH_DIRECTORY/tree/build/kbx-vector.so" >expect &&
	test_cmp expect actual
'

test_expect_success NO_INSTALLED_MODULE 'a missing module is an error naming the paths tried' '
	mkdir bare &&
	cp "$KBX_TEST_UNIT/vector-selftest" bare/ &&
	(unset KBX_MODULE_PATH && test_must_fail bare/vector-selftest --module-path 2>err) &&
	test_grep "tried .*/bare/build/kbx-vector.so" err &&
	test_grep "$(bare/vector-selftest --module-dir)/kbx-vector.so" err
'

test_expect_success 'a KBX_MODULE_PATH naming no file is an error, not a fallback' '
	(
		KBX_MODULE_PATH="$TRASH_DIRECTORY/nowhere.so" &&
		test_must_fail tree/vector-selftest --module-path 2>err
	) &&
	test_grep "KBX_MODULE_PATH names .*/nowhere.so" err
'

test_expect_success 'a KBX_MODULE_PATH naming a broken module reports the loader error' '
	echo "not a shared object" >broken.so &&
	(
		KBX_MODULE_PATH="$TRASH_DIRECTORY/broken.so" &&
		test_must_fail tree/vector-selftest --module-path 2>err
	) &&
	test_grep "cannot load vector module .*broken.so" err
'

test_done
