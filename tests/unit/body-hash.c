/*
 * body-hash: the body hashes the extractor gives definitions (kbx
 * changed compares them): white space between tokens and comments do
 * not count, any token does, Python's indentation does, and a nested
 * definition counts for itself only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

static int tests, failures;
static TSParser *parser;

static void ok(int cond, const char *desc)
{
	tests++;
	if (!cond)
		failures++;
	printf("%sok %d - %s\n", cond ? "" : "not ", tests, desc);
}

/* The body hash of the definition qual in src, a file at path; 0 when
 * there is none. */
static uint64_t hash_of(const char *path, const char *src, const char *qual)
{
	struct kbx_extract x = KBX_EXTRACT_INIT;
	uint64_t h = 0;
	const struct kbx_lang *lang = _kbx_lang_for_path(path);
	if (lang && _kbx_extract(lang, parser, path, src, strlen(src), 0, &x) == 0)
		for (size_t i = 0; i < x.nsyms; i++)
			if (!strcmp(x.syms[i].qual, qual)) {
				h = x.syms[i].body_hash;
				break;
			}
	_kbx_extract_release(&x);
	return h;
}

static void test_python(void)
{
	const char *base = "def f(a, b):\n    if a:\n        g(a)\n    return b + 1\n";
	uint64_t h = hash_of("m.py", base, "f");
	ok(h != 0, "a Python function has a body hash");
	ok(h == hash_of("m.py", "def f(a,b):\n  if a:\n      g( a )\n  return b+1\n", "f"),
	   "re-indenting and spacing keep it");
	ok(h == hash_of("m.py", "def f(a, b):  # entry\n    if a:\n        # call\n        g(a)\n    return b + 1\n", "f"),
	   "comments do not count");
	ok(h == hash_of("m.py", "\n\n\nclass K:\n    pass\n\n" "def f(a, b):\n    if a:\n        g(a)\n    return b + 1\n", "f"),
	   "moving it down the file keeps it");
	ok(h != hash_of("m.py", "def f(a, b):\n    if a:\n        g(a)\n    return b + 2\n", "f"),
	   "a changed literal changes it");
	ok(h != hash_of("m.py", "def f(a, b):\n    if a:\n        g(a)\n        return b + 1\n", "f"),
	   "moving a line into the block changes it");
	ok(h != hash_of("m.py", "def f(a, c):\n    if a:\n        g(a)\n    return b + 1\n", "f"),
	   "a renamed parameter changes it");
	ok(hash_of("m.py", "def f():\n    return 'a  b'\n", "f") !=
	   hash_of("m.py", "def f():\n    return 'a b'\n", "f"),
	   "white space inside a string counts");
}

static void test_nesting(void)
{
	const char *a = "class C:\n    x = 1\n\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n";
	const char *b = "class C:\n    x = 1\n\n    def m(self):\n        return 10\n\n    def n(self):\n        return 2\n";
	const char *c = "class C:\n    x = 2\n\n    def m(self):\n        return 1\n\n    def n(self):\n        return 2\n";
	ok(hash_of("m.py", a, "C.m") != hash_of("m.py", b, "C.m"), "a method's edit changes the method");
	ok(hash_of("m.py", a, "C") == hash_of("m.py", b, "C"), "but not its class");
	ok(hash_of("m.py", a, "C.n") == hash_of("m.py", b, "C.n"), "nor the other methods");
	ok(hash_of("m.py", a, "C") != hash_of("m.py", c, "C"), "the class's own code changes the class");
	ok(hash_of("m.py", a, "C.m") == hash_of("m.py", c, "C.m"), "and not its methods");
}

static void test_c(void)
{
	const char *a = "static int twice(int x)\n{\n\treturn 2 * x; /* double */\n}\n";
	const char *b = "static int twice(int x) { return 2*x; }\n";
	const char *c = "static int twice(int x) { return 2*x + 0; }\n";
	uint64_t h = hash_of("u.c", a, "twice");
	ok(h && h == hash_of("u.c", b, "twice"), "C: reformatted and uncommented, the same");
	ok(h != hash_of("u.c", c, "twice"), "C: another token, another hash");
	ok(hash_of("u.c", "int f(void) { return x-1; }\n", "f") !=
	   hash_of("u.c", "int f(void) { return x - -1; }\n", "f"),
	   "C: tokens are not glued together");
}

static void test_deep_nesting(void)
{
	/* one walk, however deeply definitions nest: 3000 namespaces */
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 3000; i++)
		strbuf_addf(&sb, "namespace n%d {\n", i);
	strbuf_addstr(&sb, "int f() { return 1; }\n");
	for (int i = 0; i < 3000; i++)
		strbuf_addstr(&sb, "}\n");
	uint64_t h = hash_of("deep.cpp", sb.buf, "n0");
	ok(h != 0, "3000 nested namespaces are hashed");
	ok(h == hash_of("deep.cpp", sb.buf, "n0"), "the same text, the same hash");
	strbuf_release(&sb);
}

int main(void)
{
	parser = ts_parser_new();
	test_python();
	test_nesting();
	test_c();
	test_deep_nesting();
	ts_parser_delete(parser);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
