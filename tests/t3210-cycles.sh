#!/bin/sh
test_description='kbx cycles: import and call cycles, smallest first

A Python and C tree with an import cycle of three files, a call cycle of
two functions in each language, a self-recursive function, and a cycle
that closes only through an ambiguous method call.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a Python and C repository' '
	git init -q repo &&
	mkdir -p repo/pkg repo/src repo/lib &&
	: >repo/pkg/__init__.py &&
	printf "from pkg import b\n" >repo/pkg/a.py &&
	printf "from pkg import c\n" >repo/pkg/b.py &&
	printf "import json\nfrom pkg import a\n" >repo/pkg/c.py &&
	cat >repo/app.py <<-\EOF &&
	def fact(n):
	    return 1 if n < 2 else n * fact(n - 1)


	def ping(n):
	    return pong(n - 1)


	def pong(n):
	    return ping(n - 1) if n else 0
	EOF
	cat >repo/store.py <<-\EOF &&
	def persist(target):
	    target.save()


	class Disk:
	    def save(self):
	        return persist(self)


	class Cloud:
	    def save(self):
	        return 0
	EOF
	cat >repo/src/parity.c <<-\EOF &&
	static int even(int n);

	static int odd(int n)
	{
		return n ? even(n - 1) : 0;
	}

	static int even(int n)
	{
		return n ? odd(n - 1) : 1;
	}

	int parity(int n)
	{
		return even(n);
	}
	EOF
	cat >repo/lib/plain.c <<-\EOF &&
	int twice(int n)
	{
		return 2 * n;
	}

	int four(int n)
	{
		return twice(twice(n));
	}
	EOF
	(cd repo && git add . && git commit -qm base && kbx index -q)
'

test_expect_success 'every cycle, smallest first, each step at its site (text)' '
	(cd repo && kbx cycles >../out) &&
	cat >expect <<-\EOF &&
	call cycle 1: app.py#fact calls itself
	  app.py:2  app.py#fact calls app.py#fact

	call cycle 2: 2 functions
	  app.py:6  app.py#ping calls app.py#pong
	  app.py:10  app.py#pong calls app.py#ping

	call cycle 3: 2 functions
	  src/parity.c:10  src/parity.c#even calls src/parity.c#odd
	  src/parity.c:5  src/parity.c#odd calls src/parity.c#even

	possible call cycle 4: 2 functions
	  store.py:2  store.py#persist may call store.py#Disk.save  (ambiguous)
	  store.py:7  store.py#Disk.save calls store.py#persist

	import cycle 5: 3 files
	  pkg/a.py:1  pkg/a.py imports pkg/b.py
	  pkg/b.py:1  pkg/b.py imports pkg/c.py
	  pkg/c.py:2  pkg/c.py imports pkg/a.py
	EOF
	test_cmp expect out
'

test_expect_success 'JSON: one cycle record each, with its steps' '
	(cd repo && kbx cycles --format=json --kind=imports >../out.json) &&
	test_line_count = 1 out.json &&
	test_grep "^{\"type\":\"cycle\",\"kind\":\"imports\",\"length\":3,\"confidence\":\"certain\",\"component\":3,\"steps\":\[{\"id\":\"pkg/a.py\",\"name\":\"a.py\",\"kind\":\"file\",\"path\":\"pkg/a.py\",\"line\":1,\"to\":\"pkg/b.py\",\"site_line\":1,\"site_col\":1,\"confidence\":\"certain\"}" out.json &&
	test_grep "{\"id\":\"pkg/c.py\",.*\"to\":\"pkg/a.py\",\"site_line\":2," out.json &&
	(cd repo && kbx cycles --format=json --kind=calls >../out.json) &&
	test_line_count = 4 out.json &&
	test_grep "\"length\":2,\"confidence\":\"ambiguous\".*\"id\":\"store.py#persist\".*\"to\":\"store.py#Disk.save\",\"site_line\":2,\"site_col\":5,\"confidence\":\"ambiguous\"" out.json
'

test_expect_success '--certain leaves out the cycle through an ambiguous call' '
	(cd repo && kbx cycles --certain --format=nul --kind=calls >../out) &&
	printf "app.py#fact\0\0app.py#ping\0app.py#pong\0\0src/parity.c#even\0src/parity.c#odd\0" >expect &&
	test_cmp expect out
'

test_expect_success 'grep format: one line per step at its site' '
	(cd repo && kbx cycles --format=grep src >../out) &&
	cat >expect <<-\EOF &&
	src/parity.c:10:12: call cycle 1, step 1 of 2: src/parity.c#even calls src/parity.c#odd
	src/parity.c:5:12: call cycle 1, step 2 of 2: src/parity.c#odd calls src/parity.c#even
	EOF
	test_cmp expect out
'

test_expect_success 'paths and globs limit the cycles to the files they match' '
	(cd repo && kbx cycles -z ./pkg/ >../out) &&
	printf "pkg/a.py\0pkg/b.py\0pkg/c.py\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx cycles -z --path="*.c" >../out) &&
	printf "src/parity.c#even\0src/parity.c#odd\0" >expect &&
	test_cmp expect out &&
	(cd repo && test_expect_code 1 kbx cycles -z pkg/a.py pkg/b.py >../out) &&
	test_must_be_empty out
'

test_expect_success '--no-self-loops and --limit' '
	(cd repo && kbx cycles --no-self-loops --kind=calls --limit=1 -z >../out) &&
	printf "app.py#ping\0app.py#pong\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx cycles --limit=2 >../out) &&
	test_grep "^(3 more; --limit=0 shows them all)" out
'

test_expect_success 'no cycle: exit 1 and no output' '
	(cd repo && test_expect_code 1 kbx cycles lib >../out) &&
	test_must_be_empty out &&
	(cd repo && test_expect_code 1 kbx cycles --format=json --path="lib/*" >../out) &&
	test_must_be_empty out
'

test_expect_success 'usage errors exit 2' '
	(cd repo && test_expect_code 2 kbx cycles --kind=inherits 2>../err) &&
	(cd repo && test_expect_code 2 kbx cycles --limit=-1 2>../err) &&
	test_grep "limit" err
'

test_expect_success 'a cycle that appears with a change, and goes with it' '
	(cd repo && printf "from pkg import a\n" >>pkg/b.py && kbx index -q &&
	 kbx cycles --kind=imports >../out) &&
	test_grep "^import cycle 1: 2 files (one cycle among 3 that reach each other)" out &&
	(cd repo && kbx cycles --kind=imports -z >../out) &&
	printf "pkg/a.py\0pkg/b.py\0" >expect &&
	test_cmp expect out &&
	(cd repo && git checkout -q pkg/b.py && printf "import json\n" >pkg/c.py && kbx index -q &&
	 test_expect_code 1 kbx cycles --kind=imports)
'

test_done
