#!/bin/sh
test_description='valgrind: one whole session without memory errors or leaks

Indexes a fixture tree, edits a file and indexes again, asks the queries,
and meets a store of another schema version, each kbx run under
valgrind --leak-check=full: an invalid read or write, a use of an
uninitialised value, or a definite or possible leak makes valgrind exit
99 instead of the exit code kbx meant.  Skipped without valgrind and for
sanitizer builds (ASan and valgrind do not mix).'

. "$(dirname "$0")"/test-lib.sh

if ! command -v valgrind >/dev/null 2>&1
then
	skip_all='valgrind is not installed'
	test_done
fi
if grep -q -e '-fsanitize=' "${KBX_TEST_UNIT%/tests/unit}/KBX-CFLAGS" 2>/dev/null
then
	skip_all='kbx is built with sanitizers'
	test_done
fi

# vg ARGS...: kbx ARGS under valgrind, its report kept in vg.log (and shown
# in the test's output when the test fails)
vg () {
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite,possible \
		--error-exitcode=99 --log-file="$TRASH_DIRECTORY/vg.log" \
		"$KBX_SRC/kbx" "$@"
	vg_rc_=$?
	test ! -s "$TRASH_DIRECTORY/vg.log" || cat "$TRASH_DIRECTORY/vg.log" >&2
	return $vg_rc_
}

test_expect_success 'setup: a copy of the Python fixture tree' '
	git init -q repo &&
	cp -R "$CORPORA/python/." repo/ &&
	test_path_is_file repo/models.py
'

test_expect_success 'index from scratch' '
	(cd repo && vg index -q)
'

test_expect_success 'an edit, then an incremental index' '
	cat >>repo/app.py <<-\EOF &&

	def extra():
	    return merge()
	EOF
	rm repo/legacy.py &&
	(cd repo && vg index -q)
'

test_expect_success 'queries: callers, callees, defs, status, inheritance, imports' '
	(
		cd repo &&
		vg callers merge >callers.out &&
		test_grep "extra" callers.out &&
		vg callees --format=json -t main >/dev/null &&
		vg defs Item >/dev/null &&
		vg status --format=json >/dev/null &&
		vg subclasses Item >/dev/null &&
		vg importers pkg/b.py >/dev/null &&
		vg complete-symbols --prefix=models.py# >/dev/null
	)
'

test_expect_success 'search: a registry, its index, and every signal' '
	cp -R "$KBX_SRC/tests/registry/basic" reg &&
	(
		cd repo &&
		vg registry add ../reg 2>/dev/null &&
		vg index -q &&
		vg registry list >/dev/null &&
		vg search --explain "division by zero" >/dev/null &&
		echo "KeyError: user_id" | vg search --format=json --explain - >/dev/null &&
		vg search --mode=lexical --fusion=linear --type=doc,pattern retry >/dev/null &&
		test_expect_code 1 vg search --mode=lexical zzzqqq
	)
'

test_expect_success 'errors: unknown and unparsable symbols, bad options' '
	(
		cd repo &&
		test_expect_code 1 vg callers no_such_name 2>err &&
		test_grep "nearest\|no symbol" err &&
		test_expect_code 2 vg defs "Foo..bar" &&
		test_expect_code 2 vg callers --depth=x load
	)
'

test_expect_success '--all-repos where no listed index can be read: an error, nothing leaked' '
	mkdir lone &&
	echo "def f(): pass" >lone/a.py &&
	(
		cd lone &&
		HOME="$TRASH_DIRECTORY/home-lone" &&
		XDG_CONFIG_HOME="$HOME/.config" &&
		export HOME XDG_CONFIG_HOME &&
		kbx index -q &&
		kbx repos add . &&
		mv .kbx .kbx-moved &&
		mkdir .kbx &&
		test_expect_code 3 vg search --all-repos f 2>err &&
		test_grep "none of the 1 repositories" err &&
		test_expect_code 3 vg hybrid --all-repos "callers of f" 2>err &&
		test_grep "none of the 1 repositories" err
	)
'

test_expect_success 'a store of another schema version: refused, then rebuilt' '
	"$KBX_TEST_UNIT/store-set-meta" repo/.kbx schema 999 &&
	(
		cd repo &&
		test_expect_code 4 vg status 2>err &&
		test_grep "schema version 999" err &&
		vg index -q --rebuild &&
		vg defs extra >/dev/null
	)
'

test_done
