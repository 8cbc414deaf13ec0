#!/bin/sh
test_description='kbx impact: transitive callers and importers, and a diff mapped to functions'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a repository with a call chain' '
	git init -q repo &&
	mkdir -p repo/pkg &&
	cat >repo/pkg/core.py <<-\EOF &&
	def parse(text):
	    return text.split()


	def load(path):
	    return parse(open(path).read())
	EOF
	: >repo/pkg/__init__.py &&
	cat >repo/app.py <<-\EOF &&
	from pkg.core import load


	def run(path):
	    return load(path)


	def main():
	    return run("x")


	def unrelated():
	    return 1
	EOF
	(cd repo && git add . && git commit -qm base && kbx index -q)
'

test_expect_success 'impact of a function: every transitive caller with its distance' '
	(cd repo && kbx impact --format=json parse >../out.json) &&
	test_grep "\"type\":\"changed\",\"id\":\"pkg/core.py#parse\"" out.json &&
	test_grep "\"id\":\"pkg/core.py#load\".*\"distance\":1" out.json &&
	test_grep "\"id\":\"app.py#run\".*\"distance\":2" out.json &&
	test_grep "\"id\":\"app.py#main\".*\"distance\":3" out.json &&
	test_grep ! "unrelated" out.json
'

test_expect_success '--depth limits the distance' '
	(cd repo && kbx impact --format=nul --depth=1 parse >../out) &&
	printf "pkg/core.py#parse\0pkg/core.py#load\0" >expect &&
	test_cmp expect out
'

test_expect_success 'impact of a file includes its importers' '
	(cd repo && kbx impact --format=json pkg/core.py >../out.json) &&
	test_grep "\"id\":\"app.py\".*\"distance\":1" out.json
'

test_expect_success 'a diff is mapped to the functions whose lines it touches' '
	(cd repo &&
	 sed "s/text.split()/text.split(\",\")/" pkg/core.py >tmp && mv tmp pkg/core.py &&
	 kbx index -q &&
	 git diff >../change.diff &&
	 kbx impact --diff --format=json <../change.diff >../out.json) &&
	test_grep "\"type\":\"changed\",\"id\":\"pkg/core.py#parse\"" out.json &&
	test_grep ! "\"type\":\"changed\",\"id\":\"pkg/core.py#load\"" out.json &&
	test_grep "\"id\":\"app.py#main\".*\"distance\":3" out.json
'

test_expect_success 'lines outside every definition change the file itself' '
	(cd repo && git checkout -q . &&
	 printf "import os\n" >>app.py && kbx index -q &&
	 git diff >../change2.diff &&
	 kbx impact --diff-file=../change2.diff --format=nul >../out) &&
	printf "app.py\0" >expect &&
	test_cmp expect out
'

test_expect_success 'a diff that touches nothing indexed finds nothing (exit 1)' '
	printf "diff --git a/README b/README\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-a\n+b\n" >other.diff &&
	(cd repo && test_expect_code 1 kbx impact --diff <../other.diff 2>../err) &&
	test_grep "not in the index" err
'

test_expect_success 'symbols and --diff together are a usage error' '
	(cd repo && test_expect_code 2 kbx impact --diff parse 2>/dev/null) &&
	(cd repo && test_expect_code 2 kbx impact 2>/dev/null)
'

test_expect_success 'a malformed hunk header is an error naming the line' '
	printf "+++ b/app.py\n@@ nonsense @@\n" >bad.diff &&
	(cd repo && test_expect_code 2 kbx impact --diff <../bad.diff 2>../err) &&
	test_grep "cannot parse the hunk header at line 2" err
'

# The Python fixture: main() calls format_row(), which legacy.py and
# report.py both define and app.py does not import (ambiguous); the file
# calls main() at its top level (certain).
test_expect_success 'set up the Python fixture, where a call kbx cannot pin down leads on' '
	cp -R "$CORPORA/python" amb &&
	(cd amb && rm -f expected-*.txt README && kbx index -q) &&
	(cd amb && kbx callers --format=json legacy.py#format_row >../callers.json) &&
	test_grep "\"id\":\"app.py#main\".*\"confidence\":\"ambiguous\"" callers.json
'

test_expect_success 'a way through an ambiguous call is ambiguous at every distance after it' '
	(cd amb && kbx impact --format=json legacy.py#format_row >../out.json) &&
	test_grep "\"id\":\"app.py#main\".*\"distance\":1,.*\"confidence\":\"ambiguous\"" out.json &&
	test_grep "\"id\":\"app.py\".*\"distance\":2,.*\"confidence\":\"ambiguous\"" out.json &&
	(cd amb && kbx impact legacy.py#format_row >../out) &&
	test_grep "^  app.py:1  app.py (file)  (through an ambiguous call)$" out
'

test_expect_success 'a call to a name defined nowhere in the repository is not a guess' '
	(cd amb && kbx impact --format=json print >../out.json) &&
	test_grep "\"id\":\"app.py#main\".*\"distance\":1,.*\"confidence\":\"certain\"" out.json &&
	test_grep "\"id\":\"app.py\".*\"distance\":2,.*\"confidence\":\"certain\"" out.json
'

test_expect_success '--certain follows no ambiguous call, nor anything beyond one' '
	(cd amb && kbx impact --format=nul --certain legacy.py#format_row >../out) &&
	printf "legacy.py#format_row\0" >expect &&
	test_cmp expect out &&
	(cd amb && kbx impact --certain --color=never report.py#format_row >../out) &&
	cat >expect <<-\EOF &&
	changed
	  report.py:36  format_row (function)

	distance 1: direct callers
	  report.py:10  Report.rows (method)
	  report.py:24  LowStockReport.rows (method)

	distance 2: their callers
	  report.py:13  Report.render (method)

	distance 3: their callers
	  app.py:25  main (function)

	distance 4: their callers
	  app.py:1  app.py (file)
	EOF
	test_cmp expect out &&
	(cd amb && kbx impact --format=json report.py#format_row >../all.json) &&
	test_grep "\"id\":\"app.py#main\".*\"distance\":1,.*\"confidence\":\"ambiguous\"" all.json &&
	(cd amb && kbx impact --format=json --certain report.py#format_row >../certain.json) &&
	test_grep "\"id\":\"app.py#main\".*\"distance\":3,.*\"confidence\":\"certain\"" certain.json &&
	test_grep ! "\"confidence\":\"ambiguous\"" certain.json
'

test_expect_success '--certain with a diff' '
	(cd amb && git init -q && git add . && git commit -qm base &&
	 sed "s/return /return  /" legacy.py >tmp && mv tmp legacy.py && kbx index -q &&
	 git diff >../amb.diff) &&
	(cd amb && kbx impact --diff-file=../amb.diff --format=nul >../out) &&
	tr "\0" "\n" <out >ids &&
	test_grep "^app.py#main$" ids &&
	(cd amb && kbx impact --diff-file=../amb.diff --certain --format=nul >../out) &&
	tr "\0" "\n" <out >ids &&
	test_grep ! "^app.py" ids
'

test_expect_success 'text: headings say what a distance is; one start is not repeated on each line' '
	(cd repo && kbx impact --color=never load >../out) &&
	cat >expect <<-\EOF &&
	changed
	  pkg/core.py:5  load (function)

	distance 1: direct callers
	  app.py:4  run (function)

	distance 2: their callers
	  app.py:8  main (function)
	EOF
	test_cmp expect out
'

test_expect_success 'text: with several starts each line says which one it depends on' '
	(cd repo && kbx impact --color=never --depth=1 parse run >../out) &&
	cat >expect <<-\EOF &&
	changed
	  app.py:4  run (function)
	  pkg/core.py:1  parse (function)

	distance 1: direct callers
	  app.py:8  main (function)  depends on run
	  pkg/core.py:5  load (function)  depends on parse
	EOF
	test_cmp expect out
'

test_expect_success 'text: a way through an include kbx could not pin down says import, not call' '
	mkdir -p inc/a inc/b &&
	echo "int h(void);" >inc/a/x.h &&
	cp inc/a/x.h inc/b/x.h &&
	printf "#include \"x.h\"\nint main(void) { return h(); }\n" >inc/m.c &&
	(cd inc && kbx index -q && kbx impact --color=never a/x.h >../out) &&
	cat >expect <<-\EOF &&
	changed
	  a/x.h:1  a/x.h (file)

	distance 1: direct importers
	  m.c:1  m.c (file)  (through an ambiguous import)
	EOF
	test_cmp expect out
'

test_done
