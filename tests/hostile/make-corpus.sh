#!/bin/sh
# make-corpus.sh [--long] DIR: write the hostile source corpus that
# t7100-hostile-input.sh feeds to 'kbx index'.  Everything is generated
# here, at test time, so no big or binary file is committed; the same
# arguments always give the same bytes.  Needs only sh, awk and printf.
#
#   deep/      10,000-deep nesting in every language: parentheses, brackets
#              or braces, nested calls, method chains, long operator
#              chains, and nested definitions (namespaces, classes,
#              modules, functions) where the language has them
#   utf8/      invalid UTF-8 in names, strings and comments, and a
#              multi-byte sequence cut off at the end of the file
#   nul/       NUL bytes: at the start (a binary file, skipped) and past
#              the first 8,000 bytes (parsed: kbx must cope with them)
#   longline/  a single line of 5 MB of minified JavaScript; with --long,
#              100 MB lines of JavaScript, Python and C
#   generated/ a C parser of several MB as parser generators write them:
#              parse tables and a switch of thousands of cases
#   mixed/     every extension kbx knows holding every other language
#   odd/       empty, BOM-only, CR-only and CRLF files, unterminated
#              strings and comments, a 100,000-byte name, a lone
#              surrogate escape
#   canary.py  an ordinary file: it must be indexed whatever else happens
#
# With --long, longline/ holds three 100 MB lines and deep/ nests
# 100,000 levels.
set -e
long=
if test "$1" = --long
then
	long=t
	shift
fi
test $# = 1 || { echo "usage: make-corpus.sh [--long] DIR" >&2; exit 2; }
out=$1
mkdir -p "$out/deep" "$out/utf8" "$out/nul" "$out/longline" "$out/generated" \
	"$out/mixed" "$out/odd"
if test -n "$long"
then
	depth=100000 line=100000000
else
	depth=10000 line=5000000
fi

printf 'def canary(x):\n    return helper(x)\n\ndef helper(x):\n    return x\n' \
	>"$out/canary.py"

# --- deep nesting -------------------------------------------------------
# rep(s, n): print s n times.  Each file is head, n openers, body, n
# closers, tail.
awk -v d="$out/deep" -v n="$depth" '
function rep(f, s, k,    i) { for (i = 0; i < k; i++) printf "%s", s >f }
function nest(name, head, op, body, cl, tail,    f) {
	f = d "/" name
	printf "%s", head >f
	rep(f, op, n)
	printf "%s", body >f
	rep(f, cl, n)
	printf "%s", tail >f
	close(f)
}
BEGIN {
	# parentheses in an expression, every language
	nest("parens.py", "x = ", "(", "1", ")", "\n")
	nest("parens.c", "int f(void) { return ", "(", "1", ")", "; }\n")
	nest("parens.cpp", "int f() { return ", "(", "1", ")", "; }\n")
	nest("parens.js", "const x = ", "(", "1", ")", ";\n")
	nest("parens.ts", "const x: number = ", "(", "1", ")", ";\n")
	nest("parens.tsx", "const x = ", "(", "1", ")", ";\n")
	nest("parens.go", "package p\nvar x = ", "(", "1", ")", "\n")
	nest("parens.rs", "fn f() -> i32 { ", "(", "1", ")", " }\n")
	nest("parens.java", "class P { int x = ", "(", "1", ")", "; }\n")
	nest("parens.cs", "class P { int x = ", "(", "1", ")", "; }\n")
	nest("parens.rb", "x = ", "(", "1", ")", "\n")
	# brackets: nested lists and arrays
	nest("brackets.py", "x = ", "[", "1", "]", "\n")
	nest("brackets.js", "const x = ", "[", "1", "]", ";\n")
	nest("brackets.ts", "const x = ", "[", "1", "]", ";\n")
	nest("brackets.rb", "x = ", "[", "1", "]", "\n")
	nest("brackets.rs", "fn f() { let x = ", "[", "1", "]", "; }\n")
	nest("brackets.go", "package p\nvar x = ", "[]any{", "1", "}", "\n")
	# braces: nested blocks and initialisers
	nest("braces.c", "void f(void) ", "{", "g();", "}", "\n")
	nest("braces-init.c", "int x[] = ", "{", "1", "}", ";\n")
	nest("braces.cpp", "void f() ", "{", "g();", "}", "\n")
	nest("braces.java", "class B { void f() ", "{", "g();", "}", " }\n")
	nest("braces.cs", "class B { void F() ", "{", "G();", "}", " }\n")
	nest("braces.go", "package p\nfunc f() ", "{", "g()", "}", "\n")
	nest("braces.rs", "fn f() ", "{", "g();", "}", "\n")
	nest("braces.js", "function f() ", "{", "g();", "}", "\n")
	nest("braces.py", "x = ", "{1: ", "1", "}", "\n")
	nest("braces.rb", "x = ", "{a: ", "1", "}", "\n")
	# nested calls
	nest("calls.py", "x = ", "f(", "1", ")", "\n")
	nest("calls.c", "int g(void) { return ", "f(", "1", ")", "; }\n")
	nest("calls.cpp", "int g() { return ", "f(", "1", ")", "; }\n")
	nest("calls.js", "g(", "f(", "1", ")", ");\n")
	nest("calls.ts", "g(", "f(", "1", ")", ");\n")
	nest("calls.go", "package p\nfunc g() { h(", "f(", "1", ")", ") }\n")
	nest("calls.rs", "fn g() { h(", "f(", "1", ")", "); }\n")
	nest("calls.java", "class C { void g() { h(", "f(", "1", ")", "); } }\n")
	nest("calls.cs", "class C { void G() { H(", "F(", "1", ")", "); } }\n")
	nest("calls.rb", "g(", "f(", "1", ")", ")\n")
	# method chains and operator chains: deep on one side
	nest("chain.py", "x = y", "", "", ".f()", "\n")
	nest("chain.js", "y", "", "", ".f()", ";\n")
	nest("chain.java", "class D { void g() { y", "", "", ".f()", "; } }\n")
	nest("chain.cs", "class D { void G() { y", "", "", ".F()", "; } }\n")
	nest("chain.rb", "y", "", "", ".f", "\n")
	nest("chain.rs", "fn g() { y", "", "", ".f()", "; }\n")
	nest("chain.go", "package p\nfunc g() { y", "", "", ".F()", " }\n")
	nest("chain.cpp", "void g() { y", "", "", "->f()", "; }\n")
	nest("sum.c", "int s(void) { return 1", "", "", " + 1", "; }\n")
	nest("sum.py", "x = 1", "", "", " + 1", "\n")
	# nested definitions: every level is a definition inside the last
	nest("namespaces.cpp", "", "namespace a { ", "void f() { g(); }", "} ", "\n")
	nest("classes.cpp", "", "struct A { ", "void f() { g(); }", "}; ", "\n")
	nest("namespaces.cs", "", "namespace A { ", "class C { void F() { G(); } }", "} ", "\n")
	nest("classes.java", "", "class A { ", "void f() { g(); }", "} ", "\n")
	nest("classes.cs", "", "class A { ", "void F() { G(); }", "} ", "\n")
	nest("mods.rs", "", "mod a { ", "fn f() { g(); }", "} ", "\n")
	nest("modules.rb", "", "module A\n", "def f\n  g\nend\n", "end\n", "")
	nest("classes.rb", "", "class A\n", "def f\n  g\nend\n", "end\n", "")
	nest("namespaces.ts", "", "namespace a { ", "function f() { g(); }", "} ", "\n")
	nest("functions.js", "", "function a() { ", "g();", "} ", "\n")
	nest("classes.js", "", "class A { m() { return ", "g()", "; } } ", "\n")
	nest("closures.go", "package p\nfunc f() { ", "func() { ", "g()", "}() ", "}\n")
	nest("uses.rs", "use ", "a::{", "b", "}", ";\n")
	nest("arrows.ts", "const f = ", "() => ", "g()", "", ";\n")
}'
# Python nests by indentation: 10,000 levels would be 200 MB of spaces,
# so the definitions nest 1,000 deep with one-space indentation.
awk -v f="$out/deep/defs.py" 'BEGIN {
	for (i = 0; i < 1000; i++) {
		printf "%*sdef f%d():\n", i, "", i >f
	}
	printf "%*sg()\n", 1000, "" >f
	for (i = 0; i < 1000; i++) {
		printf "%*sclass C%d:\n", i, "", i >f
	}
	printf "%*spass\n", 1000, "" >f
}'

# --- invalid UTF-8 ------------------------------------------------------
# \377 and \376 never occur in UTF-8, \300\200 is an overlong NUL,
# \355\240\200 a UTF-16 surrogate; the last byte of each file starts a
# sequence that never ends.
bad='\377\376\300\200\355\240\200'
for e in c cpp py js ts tsx go rs java cs rb
do
	case $e in
	py) body="def f${bad}x():\n    return g${bad}y(\"${bad}\")  # ${bad}\n" ;;
	rb) body="def f${bad}x\n  g${bad}y(\"${bad}\") # ${bad}\nend\n" ;;
	go) body="package p\n// ${bad}\nfunc F${bad}x() { g${bad}y(\"${bad}\") }\n" ;;
	rs) body="// ${bad}\nfn f${bad}x() { g${bad}y(\"${bad}\"); }\n" ;;
	java) body="// ${bad}\nclass U${bad}x { void f${bad}() { g${bad}y(\"${bad}\"); } }\n" ;;
	cs) body="// ${bad}\nclass U${bad}x { void F${bad}() { G${bad}y(\"${bad}\"); } }\n" ;;
	js|ts|tsx) body="// ${bad}\nfunction f${bad}x() { g${bad}y(\"${bad}\"); }\n" ;;
	*) body="/* ${bad} */\nint f${bad}x(void) { return g${bad}y(\"${bad}\"); }\n" ;;
	esac
	printf "$body\342\202" >"$out/utf8/bad.$e"
done

# --- NUL bytes ----------------------------------------------------------
printf 'def early():\n\0\0\0    pass\n' >"$out/nul/early.py"
awk -v f="$out/nul/late.py" -v g="$out/nul/late.c" 'BEGIN {
	for (i = 0; i < 400; i++) {
		printf "def late%d():\n    return %d\n\n", i, i >f
		printf "int late%d(void) { return %d; }\n", i, i >g
	}
}'
# awk strings end at a NUL: the shell's printf writes them
printf 'def after\0nul():\n    return "\0"\n\ndef after_nul():\n    return 1\n' >>"$out/nul/late.py"
printf 'int after\0nul(void) { return "\0"[0]; }\nint after_nul(void) { return 1; }\n' >>"$out/nul/late.c"

# --- one very long line ---------------------------------------------------
awk -v d="$out/longline" -v n="$line" -v all="$long" 'BEGIN {
	f = d "/minified.js"
	for (i = 0; 45 * i < n; i++)
		printf "function f%d(a){return g%d(a)+h(a,[1,2,3])};", i, i + 1 >f
	printf "\n" >f
	if (all == "")
		exit
	f = d "/list.py"
	printf "x = [" >f
	for (i = 0; 10 * i < n; i++)
		printf "f(%5d), ", i % 100000 >f
	printf "]\n" >f
	f = d "/table.c"
	printf "static const int t[] = {" >f
	for (i = 0; 8 * i < n; i++)
		printf "%6d, ", i % 1000000 >f
	printf "};\n" >f
}'

# --- a generated parser ---------------------------------------------------
# The shape of what yacc or tree-sitter write: big tables, then one
# function with a switch of thousands of cases calling macros.
awk -v f="$out/generated/parser.c" 'BEGIN {
	printf "#include <stdint.h>\n#define ADVANCE(s) do { state = s; goto next; } while (0)\n" >f
	printf "#define ACCEPT(t) return t\n\n" >f
	printf "static const uint16_t parse_table[4000][64] = {\n" >f
	for (i = 0; i < 4000; i++) {
		printf "  [%d] = {", i >f
		for (j = 0; j < 64; j += 3)
			printf "[%d] = %d, ", j, (i * 31 + j * 7) % 4000 >f
		printf "},\n" >f
	}
	printf "};\n\nstatic int lex(int state, int c)\n{\nnext:\n  switch (state) {\n" >f
	for (i = 0; i < 20000; i++) {
		printf "    case %d:\n      if (c == %d) ADVANCE(%d);\n", i, i % 128, (i * 17) % 20000 >f
		printf "      if (c == %d) ACCEPT(%d);\n      return lex_fallback_%d(c);\n", (i + 1) % 128, i % 300, i % 50 >f
	}
	printf "    default:\n      return -1;\n  }\n}\n" >f
}'

# --- every extension holding another language ------------------------------
awk -v d="$out/mixed" 'BEGIN {
	src["c"] = "#include <stdio.h>\nint main(void) { printf(\"hi\\n\"); return helper(1); }\n"
	src["cpp"] = "namespace n { class K : public B { void m() override { this->x(); } }; }\ntemplate <typename T> T id(T t) { return t; }\n"
	src["py"] = "import os\nclass K(B):\n    def m(self):\n        return self.x()\n"
	src["js"] = "import { a } from \"./a.js\";\nexport default class K extends B { m() { return this.x(); } }\n"
	src["ts"] = "interface I { m(): number }\nexport class K extends B implements I { m(): number { return this.x(); } }\n"
	src["tsx"] = "export const K = (p: { x: number }) => <div onClick={() => go(p.x)}>{p.x}</div>;\n"
	src["go"] = "package p\nimport \"fmt\"\ntype K struct{ B }\nfunc (k *K) M() { fmt.Println(k.x()) }\n"
	src["rs"] = "use std::fmt;\nimpl fmt::Display for K { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { self.x() } }\n"
	src["java"] = "package p;\nimport java.util.List;\npublic class K extends B implements I { void m() { this.x(); } }\n"
	src["cs"] = "using System;\nnamespace N { public class K : B, I { void M() { this.X(); } } }\n"
	src["rb"] = "require \"set\"\nclass K < B\n  include M\n  def m\n    x\n  end\nend\n"
	src["bin"] = "\177ELF\002\001\001" 
	n = split("c h cc cpp cxx hpp hh hxx C py pyi js mjs cjs jsx ts mts cts tsx go rs java cs rb rake gemspec", exts, " ")
	for (i = 1; i <= n; i++)
		for (l in src) {
			f = d "/" l "-as." exts[i]
			printf "%s", src[l] >f
			close(f)
		}
}'

# --- odd files --------------------------------------------------------------
: >"$out/odd/empty.py"
printf '\357\273\277' >"$out/odd/bom-only.py"
printf 'def cr_only():\r    return 1\r\rdef cr_two():\r    return cr_only()\r' >"$out/odd/cr.py"
printf 'def crlf():\r\n    return 1\r\n' >"$out/odd/crlf.py"
printf 'def unterminated():\n    return """never closed\n' >"$out/odd/string.py"
printf 'int f(void) { return 1; }\n/* never closed\n' >"$out/odd/comment.c"
printf 'class Open {\n  void f() {\n' >"$out/odd/open.java"
printf 'const s = "\\ud800";\nfunction lone() { return s; }\n' >"$out/odd/surrogate.js"
awk -v f="$out/odd/longname.py" 'BEGIN {
	printf "def " >f
	for (i = 0; i < 100000; i++) printf "n" >f
	printf "():\n    return 1\n\ndef after_long_name():\n    return 2\n" >f
}'
awk -v f="$out/odd/longstring.c" 'BEGIN {
	printf "const char *s = \"" >f
	for (i = 0; i < 100000; i++) printf "0123456789" >f
	printf "\";\nint after_long_string(void) { return 1; }\n" >f
}'
