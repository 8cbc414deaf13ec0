#!/bin/sh
test_description='kbx path: the shortest call or import path between two symbols

A small Python and C tree: a call chain through an ambiguous method call
(two classes define save), two shortest ways to one function, a call
through a name seventeen definitions share (a name reference), a
self-recursive function, an import chain, and two functions called
main.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a Python and C repository' '
	git init -q repo &&
	mkdir -p repo/pkg repo/src &&
	: >repo/pkg/__init__.py &&
	cat >repo/pkg/a.py <<-\EOF &&
	from pkg import b
	EOF
	cat >repo/pkg/b.py <<-\EOF &&
	from pkg import c
	EOF
	cat >repo/pkg/c.py <<-\EOF &&
	import json
	EOF
	cat >repo/store.py <<-\EOF &&
	def write_file(data):
	    return data


	class Disk:
	    def save(self, data):
	        return write_file(data)


	class Cloud:
	    def save(self, data):
	        return upload(data)


	def upload(data):
	    return data
	EOF
	cat >repo/app.py <<-\EOF &&
	from store import Disk, write_file


	def fact(n):
	    return 1 if n < 2 else n * fact(n - 1)


	def persist(target, data):
	    target.save(data)


	def quick(data):
	    return write_file(data)


	def run(data):
	    persist(Disk(), data)
	    quick(data)


	def left():
	    return leaf()


	def right():
	    return leaf()


	def leaf():
	    return 0


	def fork():
	    return left() + right()


	def main():
	    run("x")
	    return fact(3)
	EOF
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17
	do
		printf "class H%d:\n    def handle(self):\n        return finish()\n\n\n" $i || return 1
	done >repo/handlers.py &&
	printf "def finish():\n    return 0\n" >>repo/handlers.py &&
	cat >repo/disp.py <<-\EOF &&
	def dispatch(h):
	    return h.handle()


	def prepare():
	    return 1


	def check():
	    return 2


	def top(h):
	    prepare()
	    check()
	    return dispatch(h)
	EOF
	cat >repo/src/util.c <<-\EOF &&
	int parse_num(const char *s)
	{
		return s[0] - 48;
	}

	int walk(int n)
	{
		return n ? walk(n - 1) : parse_num("0");
	}
	EOF
	cat >repo/src/main.c <<-\EOF &&
	int walk(int n);

	int main(void)
	{
		return walk(3);
	}
	EOF
	(cd repo && git add . && git commit -qm base && kbx index -q)
'

test_expect_success 'the shortest path, each step at its call site (text)' '
	(cd repo && kbx path src/main.c#main parse_num >../out) &&
	cat >expect <<-\EOF &&
	path 1: src/main.c#main to src/util.c#parse_num, 2 steps
	  src/main.c:5  src/main.c#main calls src/util.c#walk
	  src/util.c:8  src/util.c#walk calls src/util.c#parse_num
	EOF
	test_cmp expect out
'

test_expect_success 'a certain step is preferred to an ambiguous one of the same length' '
	(cd repo && kbx path --format=json app.py#main write_file >../out.json) &&
	test_line_count = 1 out.json &&
	test_grep "\"length\":3,\"confidence\":\"certain\",\"ambiguous_steps\":0" out.json &&
	test_grep "\"to\":\"app.py#quick\"" out.json &&
	test_grep ! "save" out.json
'

test_expect_success 'an ambiguous step is used but says so' '
	(cd repo && kbx path app.py#main upload >../out) &&
	test_grep "^possible path 1: app.py#main to store.py#upload, 4 steps (1 ambiguous)" out &&
	test_grep "app.py:9  app.py#persist may call store.py#Cloud.save  (ambiguous: one of 2 definitions of .save.)" out &&
	test_grep "store.py:12  store.py#Cloud.save calls store.py#upload" out &&
	(cd repo && kbx path --format=json app.py#main upload >../out.json) &&
	test_grep "\"confidence\":\"ambiguous\",\"ambiguous_steps\":1" out.json &&
	test_grep "{\"from\":\"app.py#persist\",\"to\":\"store.py#Cloud.save\",\"path\":\"app.py\",\"line\":9,\"col\":5,\"confidence\":\"ambiguous\",\"candidates\":2}" out.json
'

test_expect_success '--certain leaves ambiguous edges out (exit 1 when nothing is left)' '
	(cd repo && test_expect_code 1 kbx path --certain app.py#main upload >../out 2>../err) &&
	test_must_be_empty out &&
	test_grep "no call path from app.py#main to store.py#upload of certain edges" err &&
	(cd repo && kbx path --certain app.py#main write_file >../out) &&
	test_grep "^path 1:" out
'

test_expect_success 'a call through a name many definitions share, forward and backward' '
	(cd repo && kbx path --format=grep dispatch finish >../out) &&
	cat >expect <<-\EOF &&
	disp.py:2:12: path 1, step 1 of 2: disp.py#dispatch may call handlers.py#H1.handle (ambiguous)
	handlers.py:3:16: path 1, step 2 of 2: handlers.py#H1.handle calls handlers.py#finish
	EOF
	test_cmp expect out &&
	(cd repo && kbx path --format=json top handlers.py#H5.handle >../out.json) &&
	test_grep "\"length\":2,\"confidence\":\"ambiguous\"" out.json &&
	test_grep "\"from\":\"disp.py#dispatch\",\"to\":\"handlers.py#H5.handle\",\"path\":\"disp.py\",\"line\":2,\"col\":12,\"confidence\":\"ambiguous\",\"candidates\":17" out.json
'

test_expect_success '--all lists every shortest path; --limit caps them' '
	(cd repo && kbx path --all -z fork leaf >../out) &&
	printf "app.py#fork\0app.py#left\0app.py#leaf\0\0app.py#fork\0app.py#right\0app.py#leaf\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx path -z fork leaf >../out) &&
	printf "app.py#fork\0app.py#left\0app.py#leaf\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx path --all --limit=1 --format=json fork leaf >../out.json) &&
	test_line_count = 1 out.json &&
	(cd repo && kbx path --all --format=json dispatch finish >../out.json) &&
	test_line_count = 17 out.json
'

test_expect_success '--max-depth bounds the length' '
	(cd repo && test_expect_code 1 kbx path --max-depth=1 src/main.c#main parse_num 2>../err) &&
	test_grep "of at most 1 step" err &&
	(cd repo && kbx path --max-depth=2 src/main.c#main parse_num >../out) &&
	test_grep "2 steps" out
'

test_expect_success 'no path: exit 1, and the message names both ends' '
	(cd repo && test_expect_code 1 kbx path parse_num src/main.c#main >../out 2>../err) &&
	test_must_be_empty out &&
	test_grep "no call path from src/util.c#parse_num to src/main.c#main" err &&
	test_grep "^note: the first is the caller, the second the callee; .kbx path src/main.c#main .*parse_num. asks the other way round$" err
'

test_expect_success 'a self-recursive function is a path of 0 steps to itself' '
	(cd repo && kbx path --format=nul fact fact >../out) &&
	printf "app.py#fact\0" >expect &&
	test_cmp expect out
'

test_expect_success 'an end that names several definitions: exit 2 with the candidates' '
	(cd repo && test_expect_code 2 kbx path main parse_num >../out 2>../err) &&
	test_must_be_empty out &&
	test_grep "error: .main. names 2 definitions: give one of them by its id" err &&
	test_grep "app.py#main	(function, app.py:37)" err &&
	test_grep "src/main.c#main	(function, src/main.c:3)" err
'

test_expect_success 'an unknown symbol: exit 1 with the nearest names' '
	(cd repo && test_expect_code 1 kbx path src/main.c#main parse_nu 2>../err) &&
	test_grep "no symbol .parse_nu." err &&
	test_grep "parse_num" err
'

test_expect_success '--kind=imports: the import chain between two files' '
	(cd repo && kbx path --kind=imports --format=grep pkg/a.py pkg/c.py >../out) &&
	cat >expect <<-\EOF &&
	pkg/a.py:1:1: path 1, step 1 of 2: pkg/a.py imports pkg/b.py
	pkg/b.py:1:1: path 1, step 2 of 2: pkg/b.py imports pkg/c.py
	EOF
	test_cmp expect out &&
	(cd repo && kbx path --kind=imports -z pkg/a.py module:json >../out) &&
	printf "pkg/a.py\0pkg/b.py\0pkg/c.py\0module:json\0" >expect &&
	test_cmp expect out &&
	(cd repo && test_expect_code 1 kbx path --kind=imports pkg/c.py pkg/a.py 2>../err) &&
	test_grep "no import path" err
'

test_expect_success 'usage errors exit 2' '
	(cd repo && test_expect_code 2 kbx path leaf 2>../err) &&
	test_grep "takes two symbols" err &&
	(cd repo && test_expect_code 2 kbx path --limit=0 fork leaf 2>../err) &&
	(cd repo && test_expect_code 2 kbx path --limit=-1 fork leaf 2>../err) &&
	test_grep "limit 1 or more" err &&
	(cd repo && test_expect_code 2 kbx path --kind=inherits fork leaf 2>../err)
'

test_done
