#!/bin/sh
test_description='callers, callees and defs: symbols, depth, output formats, exit codes'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up and index a small C repository' '
	mkdir -p repo/src repo/include &&
	cat >repo/include/util.h <<-\EOF &&
	int add(int a, int b);
	int twice(int a);
	EOF
	cat >repo/src/util.c <<-\EOF &&
	#include "util.h"

	int add(int a, int b)
	{
		return a + b;
	}

	int twice(int a)
	{
		return add(a, a);
	}
	EOF
	cat >repo/src/main.c <<-\EOF &&
	#include <stdio.h>
	#include "../include/util.h"

	static int report(int v)
	{
		return printf("%d\n", v);
	}

	int main(void)
	{
		report(twice(2));
		report(add(1, 2));
		return 0;
	}
	EOF
	(cd repo && kbx index -q)
'

test_expect_success 'callers of a bare name, with call sites' '
	(cd repo && kbx callers --format=grep add >../out) &&
	cat >expect <<-\EOF &&
	src/main.c:12:8: main calls add
	src/util.c:10:8: twice calls add
	EOF
	test_cmp expect out
'

test_expect_success 'callees in text form name each target with its location' '
	(cd repo && kbx callees --color=never main >../out) &&
	test_grep "^callees of src/main.c#main (function, src/main.c:9)" out &&
	test_grep "report  src/main.c:4" out &&
	test_grep "twice  src/util.c:8" out &&
	(cd repo && kbx callees --color=never report >../out) &&
	test_grep "printf  (external)" out
'

test_expect_success 'calls to functions defined nowhere still answer callers' '
	(cd repo && kbx callers --format=json printf >../out) &&
	test_grep "\"id\":\"src/main.c#report\"" out &&
	test_grep "\"query\":\"extern:printf\"" out &&
	test_grep "\"confidence\":\"unresolved\"" out
'

test_expect_success 'JSON records carry id, name, kind, path, line and confidence' '
	(cd repo && kbx callees --format=json twice >../out) &&
	test_line_count = 1 out &&
	for field in "\"type\":\"callee\"" "\"id\":\"src/util.c#add\"" "\"name\":\"add\"" \
		"\"kind\":\"function\"" "\"path\":\"src/util.c\"" "\"line\":3" \
		"\"confidence\":\"certain\"" "\"sites\":\[{\"path\":\"src/util.c\",\"line\":10,\"col\":8}\]"
	do
		test_grep "$field" out || return 1
	done
'

test_expect_success '--transitive and --depth follow calls further' '
	(cd repo && kbx callees --format=json --depth=1 twice >../d1) &&
	(cd repo && kbx callees --format=json --transitive main >../dall) &&
	test_grep "\"id\":\"src/util.c#add\".*\"depth\":1" dall &&
	test_grep "src/util.c#twice" dall &&
	(cd repo && kbx callers --format=json --transitive add >../t.json) &&
	test_grep "\"id\":\"src/main.c#main\".*\"depth\":1" t.json
'

test_expect_success 'depth is reported for indirect results' '
	(cd repo && kbx callers --format=json --depth=2 src/util.c#add >../t.json) &&
	test_grep "\"id\":\"src/util.c#twice\".*\"depth\":1" t.json
'

test_expect_success 'text: an indirect result says what it is linked to, the right way round' '
	(cd repo && kbx callers --color=never --depth=2 printf >../out) &&
	test_grep "^    src/main.c:[0-9]*  main (function)  \[depth 2, calls report\]  (2 sites)$" out &&
	(cd repo && kbx callees --color=never --depth=2 main >../out) &&
	test_grep "^    printf  (external)  at line 6  \[depth 2, called by report\]$" out
'

test_expect_success '-z prints NUL-separated ids' '
	(cd repo && kbx callers -z twice >../out) &&
	printf "src/main.c#main\0" >expect &&
	test_cmp expect out
'

test_expect_success 'canonical ids, qualified names and paths are all symbols' '
	(cd repo && kbx defs --format=grep src/util.c#twice src/main.c >../out) &&
	cat >expect <<-\EOF &&
	src/util.c:8:1: function twice
	src/main.c:1:1: file src/main.c
	EOF
	test_cmp expect out
'

test_expect_success 'nothing found exits 1, and an unknown name suggests near ones' '
	(cd repo && test_expect_code 1 kbx callers twise 2>../err >../out) &&
	test_must_be_empty out &&
	test_grep "no symbol .twise." err &&
	test_grep "twice" err &&
	(cd repo && test_expect_code 1 kbx callers main >../out 2>/dev/null)
'

test_expect_success 'set up classes whose methods come from their bases' '
	mkdir -p inh &&
	cat >inh/sessions.py <<-\EOF &&
	class RedirectMixin:
	    def resolve_redirects(self, resp):
	        return resp

	    def send(self, req):
	        return req


	class BaseSession(RedirectMixin):
	    def send(self, req):
	        return self.resolve_redirects(req)

	    def sender(self):
	        return 1


	class Session(BaseSession):
	    def request(self, req):
	        return self.send(req)


	def handle(s: Session):
	    return s.resolve_redirects(None)
	EOF
	(cd inh && kbx index -q)
'

test_expect_success 'a method asked for through a subclass is its base'"'"'s, and kbx says so' '
	(cd inh && kbx callers --format=grep Session.resolve_redirects >../out 2>../err) &&
	test_grep "^note: .Session.resolve_redirects. is inherited: answering for sessions.py#RedirectMixin.resolve_redirects (method, sessions.py:2)$" err &&
	test_grep "^sessions.py:[0-9]*:[0-9]*: BaseSession.send calls RedirectMixin.resolve_redirects" out &&
	(cd inh && kbx defs Session::send >../out 2>../err) &&
	test_grep "sessions.py#BaseSession.send" err &&
	test_grep "BaseSession.send (method)" out &&
	test_grep ! "RedirectMixin.send" out
'

test_expect_success 'suggestions: each part of a qualified name by edit distance, best first' '
	(cd inh && test_expect_code 1 kbx callers Sesion.send 2>../err) &&
	test_grep "no symbol .Sesion.send." err &&
	sed -n "/did you mean/{n;p;}" err >first &&
	printf "\tBaseSession.send\t(method, sessions.py:10)\n" >expect &&
	test_cmp expect first &&
	(cd inh && test_expect_code 1 kbx callers Session.sned 2>../err) &&
	sed -n "/did you mean/{n;p;}" err >first &&
	test_cmp expect first &&
	(cd inh && test_expect_code 1 kbx callers Session.resolve_redirect 2>../err) &&
	test_grep "RedirectMixin.resolve_redirects	(method, sessions.py:2)" err
'

test_expect_success 'a symbol that does not parse is a usage error (exit 2)' '
	(cd repo && test_expect_code 2 kbx callers "Foo..bar" 2>../err) &&
	test_grep "cannot parse symbol" err &&
	(cd repo && test_expect_code 2 kbx callers "" 2>../err) &&
	test_grep "empty symbol" err
'

test_expect_success 'bad options are usage errors with the usage on stderr' '
	(cd repo && test_expect_code 2 kbx callers --format=xml add 2>../err) &&
	test_grep "does not take .xml." err &&
	(cd repo && test_expect_code 2 kbx callers --depth=0 add 2>/dev/null) &&
	(cd repo && test_expect_code 2 kbx callers --nope add 2>../err) &&
	test_grep "usage: kbx callers" err &&
	(cd repo && test_expect_code 2 kbx callers 2>/dev/null) &&
	(cd repo && test_expect_code 2 kbx callers --format-version=99 add 2>../err) &&
	test_grep "format-version" err
'

test_expect_success 'set up two classes with methods of the same name (Python)' '
	mkdir py &&
	cat >py/shapes.py <<-\EOF &&
	def area_of_square(s):
	    return s * s

	def area_of_circle(r):
	    return 3 * r * r

	class Square:
	    def area(self):
	        return area_of_square(self.side)

	class Circle:
	    def area(self):
	        return area_of_circle(self.r)

	print(Square().area())
	EOF
	(cd py && kbx index -q)
'

test_expect_success 'two methods with one name get distinct ids and distinct callees' '
	(cd py && kbx callees --format=nul Square.area >../sq && kbx callees --format=nul Circle.area >../ci) &&
	printf "shapes.py#area_of_square\0" >expect &&
	test_cmp expect sq &&
	printf "shapes.py#area_of_circle\0" >expect &&
	test_cmp expect ci
'

test_expect_success 'a bare name that matches several definitions answers for each, grouped' '
	(cd py && kbx callees --color=never area >../out) &&
	test_grep "names 2 definitions" out &&
	test_grep "^callees of shapes.py#Circle.area" out &&
	test_grep "^callees of shapes.py#Square.area" out &&
	(cd py && kbx callees --format=json area >../out.json) &&
	test_grep "\"type\":\"symbol\",\"id\":\"shapes.py#Circle.area\"" out.json &&
	test_grep "\"type\":\"symbol\",\"id\":\"shapes.py#Square.area\"" out.json
'

test_expect_success 'module-level calls belong to the file, not to a function' '
	(cd py && kbx callers --format=nul Square >../out) &&
	printf "shapes.py\0" >expect &&
	test_cmp expect out
'

test_expect_success 'import a.b binds the dotted path in Python' '
	mkdir -p py/src &&
	printf "def main():\n    return 1\n" >py/src/a.py &&
	: >py/src/__init__.py &&
	printf "import src.a\nimport os\n\ndef run():\n    src.a.main()\n    os.path.join(\"a\")\n" >py/b.py &&
	(cd py && kbx index -q && kbx callees --format=json run >../out) &&
	test_grep "\"id\":\"src/a.py#main\".*\"confidence\":\"certain\",\"via\":\"import\"" out &&
	test_grep "\"id\":\"extern:os.path.join\"" out
'

test_expect_success '--no- forms of options that take a value are refused, not a crash' '
	(cd repo && test_expect_code 2 kbx defs --no-color add 2>../err) &&
	test_grep "unknown option" err &&
	(cd repo && test_expect_code 2 kbx callers --no-depth add 2>/dev/null) &&
	(cd repo && test_expect_code 2 kbx callers --no-format add 2>/dev/null)
'

test_expect_success 'status has text and JSON only; --format-version 0 is refused' '
	(cd repo && test_expect_code 2 kbx status --format=grep 2>/dev/null) &&
	(cd repo && test_expect_code 2 kbx status -z 2>/dev/null) &&
	(cd repo && test_expect_code 2 kbx callers --format-version=0 add 2>/dev/null) &&
	(cd repo && kbx callers --format=json --format-version=1 add >/dev/null)
'

test_expect_success 'complete-symbols completes names, qualified names and ids' '
	(cd py && kbx complete-symbols --prefix=area_of >../out) &&
	test_write_lines area_of_circle area_of_square >expect &&
	test_cmp expect out &&
	(cd py && kbx complete-symbols --prefix=Square.ar >../out) &&
	echo Square.area >expect &&
	test_cmp expect out &&
	(cd py && kbx complete-symbols --prefix=Circle::a >../out) &&
	echo Circle::area >expect &&
	test_cmp expect out &&
	(cd py && kbx complete-symbols --prefix=shapes.py#S >../out) &&
	test_write_lines shapes.py#Square shapes.py#Square.area >expect &&
	test_cmp expect out &&
	(cd py && kbx complete-symbols --prefix=sh --kind=file >../out) &&
	echo shapes.py >expect &&
	test_cmp expect out &&
	(cd py && test_expect_code 1 kbx complete-symbols --prefix=zzz) &&
	(cd py && test_expect_code 2 kbx complete-symbols --kind=gadget 2>/dev/null)
'

test_expect_success 'complete-symbols --max holds with --kind and a qualifier' '
	mkdir -p many/pkg &&
	printf "import os\nimport sys\n\n\ndef fa(): pass\n\n\ndef fb(): pass\n\n\ndef fc(): pass\n" >many/pkg/a.py &&
	printf "def fd(): pass\n\n\ndef fe(): pass\n" >many/pkg/b.py &&
	printf "class K:\n    def m1(self): pass\n\n    def m2(self): pass\n\n    def m3(self): pass\n" >many/pkg/c.py &&
	(cd many && kbx index -q &&
	 kbx complete-symbols --prefix=f --max=2 >../plain &&
	 kbx complete-symbols --kind=function --max=3 >../kind &&
	 kbx complete-symbols --kind=function --max=0 >../all &&
	 kbx complete-symbols --prefix=K.m --max=2 >../qual &&
	 kbx complete-symbols --kind=method --prefix=K.m --max=1 >../both &&
	 kbx complete-symbols --kind=file --prefix=pkg/ --max=2 >../files &&
	 kbx complete-symbols --kind=file,module --prefix=pkg/ --max=3 >../fm) &&
	test_write_lines fa fb >expect && test_cmp expect plain &&
	test_write_lines fa fb fc >expect && test_cmp expect kind &&
	test_write_lines fa fb fc fd fe >expect && test_cmp expect all &&
	test_write_lines K.m1 K.m2 >expect && test_cmp expect qual &&
	echo K.m1 >expect && test_cmp expect both &&
	test_write_lines pkg/a.py pkg/b.py >expect && test_cmp expect files &&
	test_write_lines pkg/a.py pkg/b.py pkg/c.py >expect && test_cmp expect fm
'

test_expect_success 'a C static function is never a candidate for another file' '
	mkdir -p st &&
	printf "static int die(void) { return 1; }\nint use_a(void) { return die(); }\n" >st/a.c &&
	printf "static int die(void) { return 2; }\nint use_b(void) { return die(); }\n" >st/b.c &&
	printf "int die(void) { return 3; }\n" >st/die.c &&
	printf "int die(void);\nint use_c(void) { return die(); }\n" >st/c.c &&
	(cd st && kbx index -q) &&
	(cd st && kbx callees --format=json use_a >../a.json && kbx callees --format=json use_c >../c.json) &&
	test_grep "\"id\":\"a.c#die\".*\"confidence\":\"certain\"" a.json &&
	test_line_count = 1 a.json &&
	test_grep "\"id\":\"die.c#die\".*\"confidence\":\"certain\",\"via\":\"unique-name\"" c.json &&
	test_line_count = 1 c.json
'

test_expect_success 'a literal receiver is a built-in value, not a repository method' '
	mkdir -p lit &&
	printf "class Pool:\n    def join(self):\n        return 1\n\ndef glue(xs):\n    return \", \".join(xs)\n" >lit/a.py &&
	(cd lit && kbx index -q && kbx callees --format=json glue >../out.json) &&
	test_grep "\"id\":\"extern:join\".*\"confidence\":\"unresolved\"" out.json &&
	test_grep ! "Pool.join" out.json
'

test_expect_success 'each call site keeps its own confidence: a typed call and an untyped one' '
	mkdir -p sites &&
	cat >sites/a.py <<-\EOF &&
	class Disk:
	    def flush(self):
	        return 1

	class Cache:
	    def flush(self):
	        return 2

	def sync(d: Disk, other):
	    d.flush()
	    other.flush()
	EOF
	(cd sites && kbx index -q && kbx callees --format=json sync >../out.json) &&
	test_grep "\"confidence\":\"certain\",\"via\":\"type\".*\"to\":\"a.py#Disk.flush\"" out.json &&
	grep "\"to\":\"a.py#Disk.flush\"" out.json >disk.json &&
	test_grep "\"sites\":\[{\"path\":\"a.py\",\"line\":10,\"col\":5},{\"path\":\"a.py\",\"line\":11,\"col\":5,\"confidence\":\"ambiguous\"}\]" disk.json &&
	grep "\"to\":\"a.py#Cache.flush\"" out.json >cache.json &&
	test_grep "\"confidence\":\"ambiguous\"" cache.json &&
	test_grep ! "line\":10" cache.json
'

test_expect_success 'a module-qualified name names a top-level definition' '
	(cd py && kbx defs --format=nul src.a.main >../out) &&
	printf "src/a.py#main\0" >expect &&
	test_cmp expect out
'

test_expect_success 'Foo::bar and Foo->bar are qualified names too' '
	(cd py && kbx defs --format=nul "Square::area" >../a && kbx defs --format=nul "Square->area" >../b) &&
	printf "shapes.py#Square.area\0" >expect &&
	test_cmp expect a &&
	test_cmp expect b
'

test_expect_success 'colour only when asked or on a terminal; NO_COLOR wins on auto' '
	(cd repo && kbx callers --color=always add >../c.out) &&
	test_grep "$(printf "\033")" c.out &&
	(cd repo && kbx callers add >../n.out) &&
	test_grep ! "$(printf "\033")" n.out &&
	(cd repo && kbx callers --format=json --color=always add >../j.out) &&
	test_grep ! "$(printf "\033")" j.out
'

# The Python fixture: main() calls format_row(), which legacy.py and
# report.py both define and app.py does not import (ambiguous, two
# candidates); Report.rows and LowStockReport.rows call report.py's
# (certain, same file).
test_expect_success 'set up the Python fixture, with a call of two candidates' '
	cp -R "$CORPORA/python" fx &&
	(cd fx && rm -f expected-*.txt README && kbx index -q)
'

test_expect_success 'callees: an ambiguous call is one line, its other candidates folded' '
	(cd fx && kbx callees --color=never app.py#main >../out) &&
	cat >expect <<-\EOF &&
	callees of app.py#main (function, app.py:25)
	  build  app.py:10  at line 32
	  merge  app.py:20  at line 31
	  format_row  legacy.py:19  at line 35  ambiguous: one of 2 candidates (+1 more; -v lists them)
	  load  pkg/b.py:8  at line 29
	  Report.render  report.py:13  at line 37
	  LowStockReport  report.py:17  at line 36
	  len  (external)  at line 26  (2 sites)
	  print  (external)  at line 27  (3 sites)
	EOF
	test_cmp expect out
'

test_expect_success 'callees -v: every candidate under the call, with its place' '
	(cd fx && kbx callees --color=never -v app.py#main >../out) &&
	sed -n 4,5p out >lines &&
	cat >expect <<-\EOF &&
	  format_row  legacy.py:19  at line 35  ambiguous: one of 2 candidates
	    or format_row  report.py:36
	EOF
	test_cmp expect lines &&
	test_line_count = 10 out &&
	(cd fx && kbx callees --color=never --verbose app.py#main >../out2) &&
	test_cmp out out2
'

test_expect_success 'callers: a call line says it is one of N candidates; -v names the others' '
	(cd fx && kbx callers --color=never -v format_row >../out) &&
	cat >expect <<-\EOF &&
	'"'"'format_row'"'"' names 2 definitions; the results are grouped by definition (name one by its id to choose)

	callers of legacy.py#format_row (function, legacy.py:19)
	  app.py:35  main (function)  ambiguous: one of 2 candidates
	    or format_row  report.py:36

	callers of report.py#format_row (function, report.py:36)
	  app.py:35  main (function)  ambiguous: one of 2 candidates
	    or format_row  legacy.py:19
	  report.py:11  Report.rows (method)
	  report.py:29  LowStockReport.rows (method)
	EOF
	test_cmp expect out &&
	(cd fx && kbx callers --color=never format_row >../out) &&
	grep -v "^    or " expect >expect.folded &&
	test_cmp expect.folded out
'

test_expect_success 'JSON and grep are not folded: a record and a line for every candidate' '
	(cd fx && kbx callees --format=json app.py#main >../out.json) &&
	test_grep "\"id\":\"legacy.py#format_row\".*\"confidence\":\"ambiguous\",\"via\":\"name\",\"candidates\":2,.*\"sites\":\[{\"path\":\"app.py\",\"line\":35,\"col\":19}\]" out.json &&
	test_grep "\"id\":\"report.py#format_row\".*\"confidence\":\"ambiguous\",\"via\":\"name\",\"candidates\":2,.*\"sites\":\[{\"path\":\"app.py\",\"line\":35,\"col\":19}\]" out.json &&
	test_line_count = 9 out.json &&
	(cd fx && kbx callees --format=json -v app.py#main >../out-v.json) &&
	test_cmp out.json out-v.json &&
	(cd fx && kbx callees --format=grep app.py#main >../out.grep) &&
	test_grep "^legacy.py:19:1: main calls format_row (ambiguous, 2 candidates)$" out.grep &&
	test_grep "^report.py:36:1: main calls format_row (ambiguous, 2 candidates)$" out.grep
'

test_expect_success 'callees --certain: the ambiguous call is left out, the rest as it was' '
	(cd fx && kbx callees --color=never --certain app.py#main >../out) &&
	(cd fx && kbx callees --color=never app.py#main >../all) &&
	grep -v format_row all >expect &&
	test_cmp expect out &&
	(cd fx && kbx callees --format=json --certain app.py#main >../out.json) &&
	test_line_count = 7 out.json &&
	test_grep ! "\"confidence\":\"ambiguous\"" out.json
'

test_expect_success 'callers --certain: only the calls kbx proved; none left is exit 1' '
	(cd fx && kbx callers --format=nul --certain report.py#format_row >../out) &&
	printf "report.py#Report.rows\0report.py#LowStockReport.rows\0" >expect &&
	test_cmp expect out &&
	(cd fx && test_expect_code 1 kbx callers --color=never --certain legacy.py#format_row >../out) &&
	printf "callers of legacy.py#format_row (function, legacy.py:19)\n  (none)\n" >expect &&
	test_cmp expect out
'

test_expect_success '--certain is not followed through: nothing beyond an ambiguous call' '
	(cd fx && kbx callers --format=nul --transitive legacy.py#format_row >../out) &&
	printf "app.py#main\0app.py\0" >expect &&
	test_cmp expect out &&
	(cd fx && test_expect_code 1 kbx callers --format=nul --transitive --certain legacy.py#format_row >../out) &&
	test_must_be_empty out
'

test_expect_success '--certain and -v belong to the calls queries only' '
	(cd fx && test_expect_code 2 kbx imports --certain app.py 2>../err) &&
	test_grep "unknown option" err &&
	(cd fx && test_expect_code 2 kbx defines -v app.py 2>/dev/null)
'

test_expect_success 'a closed pipe is not an error' '
	(cd repo && kbx callers --transitive add | head -c 1 >/dev/null)
'

test_expect_success 'a full disk is an error, not a success' '
	test_have_prereq KBX &&
	if test -w /dev/full
	then
		(cd repo && test_expect_code 6 kbx callers add >/dev/full 2>../err) &&
		test_grep "cannot write the output" err
	fi
'

test_done
