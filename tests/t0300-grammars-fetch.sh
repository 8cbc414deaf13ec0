#!/bin/sh
test_description='grammars/fetch.sh: pinned tarballs, checked, unpacked, and patched

A grammar package whose tarball is already in the destination is used as
it is (no npm), its SHA-256 checked against the lock file; a patch of
kbx'"'"'s own beside the lock file (patches/NAME-VERSION.patch) is applied
after unpacking, a changed patch unpacks the package again, and one that
does not apply stops the fetch.'

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
	printf "# exports: tree-sitter-toy tree_sitter_toy\ntree-sitter-toy 1.0.0 %s\n" \
		"$sum" >lock/grammars.lock
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
