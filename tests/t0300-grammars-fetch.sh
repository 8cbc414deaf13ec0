#!/bin/sh
test_description='grammars/fetch.sh: pinned tarballs, checked, unpacked, and patched

A grammar package whose tarball is already in the destination is used as
it is (no npm), its SHA-256 checked against the lock file; a patch of
kbx'"'"'s own beside the lock file (patches/NAME-VERSION.patch) is applied
after unpacking, a changed patch unpacks the package again, and one that
does not apply stops the fetch.  tree-sitter'"'"'s runtime, named by the lock
file'"'"'s "# runtime:" line (a Debian source package'"'"'s upstream tarball),
is checked, unpacked and patched the same way, and must load the
grammars'"'"' ABI 13 and 14.'

. "$(dirname "$0")"/test-lib.sh

FETCH="$KBX_SRC/grammars/fetch.sh"

# a package tree-sitter-toy 1.0.0: one grammar, ABI 14, and a scanner
test_expect_success 'setup: a toy grammar package and its lock file' '
	mkdir -p pkg/package/src/tree_sitter lock/patches dest &&
	cat >pkg/package/src/parser.c <<-\EOF &&
	#define LANGUAGE_VERSION 14
	const TSLanguage *tree_sitter_toy(void) { return 0; }
	EOF
	: >pkg/package/src/tree_sitter/parser.h &&
	cat >pkg/package/src/scanner.c <<-\EOF &&
	void *tree_sitter_toy_external_scanner_create() {
	    return calloc(0, sizeof(int));
	}
	EOF
	(cd pkg && tar -cf - package) | gzip -n >dest/tree-sitter-toy-1.0.0.tgz &&
	sum=$(sha256sum dest/tree-sitter-toy-1.0.0.tgz | cut -d" " -f1) &&
	mkdir -p rt/toyrt-0.1/lib/src rt/toyrt-0.1/lib/include/tree_sitter &&
	echo "int ts_toy_runtime(void) { return 0; }" >rt/toyrt-0.1/lib/src/lib.c &&
	cat >rt/toyrt-0.1/lib/include/tree_sitter/api.h <<-\EOF &&
	#define TREE_SITTER_LANGUAGE_VERSION 14
	#define TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION 13
	EOF
	(cd rt && tar -cf - toyrt-0.1) | xz >dest/toyrt_0.1.orig.tar.xz &&
	rtsum=$(sha256sum dest/toyrt_0.1.orig.tar.xz | cut -d" " -f1) &&
	printf "# runtime: toyrt 0.1-1 toyrt_0.1.orig.tar.xz %s\n" "$rtsum" >lock/grammars.lock &&
	printf "# exports: tree-sitter-toy tree_sitter_toy\ntree-sitter-toy 1.0.0 %s\n" \
		"$sum" >>lock/grammars.lock
'

test_expect_success 'the runtime is unpacked from the tarball already there (no apt-get)' '
	mkdir bin &&
	printf "#!/bin/sh\necho apt-get was run >&2\nexit 1\n" >bin/apt-get &&
	chmod +x bin/apt-get &&
	PATH="$PWD/bin:$PATH" NPM=false sh "$FETCH" dest lock/grammars.lock >out 2>err &&
	test_grep ! "apt-get was run" err &&
	test_grep "runtime: toyrt 0.1-1" out &&
	test_grep "lib: ABI 13 to 14" out &&
	test_grep "ts_toy_runtime" dest/tree-sitter/lib/src/lib.c
'

test_expect_success 'a patch of the runtime (NAME-UPSTREAM.patch) is applied' '
	cat >lock/patches/toyrt-0.1.patch <<-\EOF &&
	Return one.

	--- a/lib/src/lib.c
	+++ b/lib/src/lib.c
	@@ -1 +1 @@
	-int ts_toy_runtime(void) { return 0; }
	+int ts_toy_runtime(void) { return 1; }
	EOF
	NPM=false sh "$FETCH" dest lock/grammars.lock >out &&
	test_grep "return 1;" dest/tree-sitter/lib/src/lib.c &&
	rm lock/patches/toyrt-0.1.patch &&
	NPM=false sh "$FETCH" dest lock/grammars.lock >out &&
	test_grep "return 0;" dest/tree-sitter/lib/src/lib.c
'

test_expect_success 'a runtime that does not load ABI 13 and 14, or is not the pinned tarball, is refused' '
	cp dest/toyrt_0.1.orig.tar.xz good.tar.xz &&
	cp lock/grammars.lock good.lock &&
	sed -i "s/MIN_COMPATIBLE_LANGUAGE_VERSION 13/MIN_COMPATIBLE_LANGUAGE_VERSION 14/" \
		rt/toyrt-0.1/lib/include/tree_sitter/api.h &&
	(cd rt && tar -cf - toyrt-0.1) | xz >dest/toyrt_0.1.orig.tar.xz &&
	rtsum=$(sha256sum dest/toyrt_0.1.orig.tar.xz | cut -d" " -f1) &&
	sed "s/^# runtime: .*/# runtime: toyrt 0.1-1 toyrt_0.1.orig.tar.xz $rtsum/" good.lock \
		>lock/grammars.lock &&
	test_must_fail env NPM=false sh "$FETCH" dest lock/grammars.lock 2>err &&
	test_grep "loads ABI 14 to 14; the grammars are 13 and 14" err &&
	cp good.lock lock/grammars.lock &&
	test_must_fail env NPM=false sh "$FETCH" dest lock/grammars.lock 2>err &&
	test_grep "toyrt_0.1.orig.tar.xz: checksum mismatch" err &&
	cp good.tar.xz dest/toyrt_0.1.orig.tar.xz &&
	NPM=false sh "$FETCH" dest lock/grammars.lock >out
'

test_expect_success 'without a patch the package is unpacked as it is' '
	NPM=false sh "$FETCH" dest lock/grammars.lock >out &&
	test_grep "ABI 14, scanner: scanner.c, exports: tree_sitter_toy" out &&
	test_grep "calloc(0, sizeof(int))" dest/tree-sitter-toy/package/src/scanner.c
'

test_expect_success 'a patch beside the lock file is applied, and unpacks the package again' '
	cat >lock/patches/tree-sitter-toy-1.0.0.patch <<-\EOF &&
	One element, not none.

	--- a/src/scanner.c
	+++ b/src/scanner.c
	@@ -1,3 +1,3 @@
	 void *tree_sitter_toy_external_scanner_create() {
	-    return calloc(0, sizeof(int));
	+    return calloc(1, sizeof(int));
	 }
	EOF
	NPM=false sh "$FETCH" dest lock/grammars.lock >out &&
	test_grep "calloc(1, sizeof(int))" dest/tree-sitter-toy/package/src/scanner.c &&
	NPM=false sh "$FETCH" dest lock/grammars.lock >out &&
	test_grep "calloc(1, sizeof(int))" dest/tree-sitter-toy/package/src/scanner.c
'

test_expect_success 'a patch that does not apply stops the fetch, naming it' '
	sed "s/calloc(0, sizeof(int))/calloc(0, sizeof(long))/" \
		lock/patches/tree-sitter-toy-1.0.0.patch >bad &&
	mv bad lock/patches/tree-sitter-toy-1.0.0.patch &&
	test_must_fail env NPM=false sh "$FETCH" dest lock/grammars.lock 2>err &&
	test_grep "tree-sitter-toy-1.0.0.patch. does not apply" err
'

test_expect_success 'a tarball that is not the one the lock file pins is refused' '
	rm lock/patches/tree-sitter-toy-1.0.0.patch &&
	printf "x" >>dest/tree-sitter-toy-1.0.0.tgz &&
	test_must_fail env NPM=false sh "$FETCH" dest lock/grammars.lock 2>err &&
	test_grep "checksum mismatch" err
'

test_done
