#!/bin/sh
test_description='hostile registry input: alias bombs, deep nesting, random bytes, NULs, huge lines

Every file is either indexed or skipped with a message naming it; kbx
index ends (exit 11), in bounded time and memory, and what is good is
still searchable.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq ULIMIT_V '(ulimit -v 1000000 && kbx --version)'

test_expect_success 'set up a registry of hostile files next to a good one' '
	git init -q repo &&
	mkdir -p reg/errors/python reg/docs &&
	cat >reg/errors/python/good.yml <<-\EOF &&
	- id: "good-001"
	  error_type: "FileNotFoundError"
	  severity: "medium"
	  pattern: "No such file or directory: (.+)"
	  cause: "The path does not exist."
	  fix_template: "Check the path first."
	  tags: [files]
	EOF
	# an alias bomb: each level refers nine times to the one before
	cat >reg/errors/python/laughs.yml <<-\EOF &&
	- id: &a "lol"
	  error_type: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
	  severity: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
	  pattern: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
	  cause: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
	  fix_template: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
	  tags: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
	  related_errors: [*g, *g, *g, *g, *g, *g, *g, *g, *g]
	EOF
	awk "BEGIN { printf \"- id: deep\\n  error_type: \"; for (i = 0; i < 20000; i++) printf \"[\"; for (i = 0; i < 20000; i++) printf \"]\"; print \"\" }" \
		>reg/errors/python/deep.yml &&
	head -c 400000 /dev/urandom >reg/errors/python/noise.yml &&
	printf -- "---\\nid: \\"x\\001\\"\\ntitle: t\\n---\\n# H\\n\\0\\0\\377 text\\n" >reg/docs/nul.md &&
	awk "BEGIN { printf \"# One line\\n\\n\"; for (i = 0; i < 90000; i++) printf \"word%d \", i % 977; print \"\" }" \
		>reg/docs/long-line.md &&
	awk "BEGIN { for (i = 0; i < 3000; i++) printf \"%s Heading %d\\n\\ntext %d\\n\\n\", substr(\"######\", 1, i % 6 + 1), i, i }" \
		>reg/docs/headings.md &&
	printf "\\357\\273\\277---\\nid: bom\\n---\\n# Title \\351\\n\\nLatin-1 bytes \\351\\350\\n" >reg/docs/latin1.md &&
	(cd repo && kbx registry add ../reg 2>/dev/null)
'

test_expect_success ULIMIT_V 'kbx index survives them in 1 GB of address space, and says what it skipped' '
	(cd repo && ulimit -v 1000000 && test_expect_code 11 kbx index 2>../err) &&
	test_grep "laughs.yml:[0-9]*:[0-9]*: skipped entry" err &&
	test_grep "deep.yml:[0-9]*:[0-9]*: skipped" err &&
	test_grep "noise.yml:[0-9]*:[0-9]*: skipped file" err &&
	test_grep "nul.md:[0-9]*:[0-9]*: skipped file" err &&
	test_grep "^search: [0-9]* registry files\{0,1\} and [0-9]* entr[a-z]* skipped" err
'

test_expect_success 'the good entry and the big documents are searchable' '
	# (again, for the builds whose address space cannot be limited)
	(cd repo && test_expect_code 11 kbx index -q 2>/dev/null) &&
	(cd repo && kbx search --type=error --format=nul "FileNotFoundError: [Errno 2] No such file or directory: x.txt" >../out) &&
	tr "\0" "\n" <out | head -n 1 >first &&
	echo good-001 >expect &&
	test_cmp expect first &&
	(cd repo && kbx search --mode=lexical --format=json word976 >../out.json) &&
	test_grep "long-line.md" out.json &&
	(cd repo && kbx search --mode=lexical --format=json "Heading 2999" >../out.json) &&
	test_grep "headings.md" out.json
'

test_expect_success 'a second run reports the same problems and changes nothing else' '
	(cd repo && test_expect_code 11 kbx index --format=json >../index.json 2>../err2) &&
	test_grep "\"chunks_added\":0" index.json &&
	test_grep "\"chunks_removed\":0" index.json &&
	test_grep "laughs.yml" err2
'

test_expect_success 'a pattern that backtracks without end does not hang a search' '
	cat >reg/errors/python/slow.yml <<-\EOF &&
	- id: "slow-001"
	  error_type: "Slow"
	  severity: "low"
	  pattern: "(a+)+$"
	  cause: "c"
	  fix_template: "f"
	EOF
	(cd repo && test_expect_code 11 kbx index -q 2>/dev/null) &&
	(cd repo && kbx search --format=nul "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab FileNotFoundError" >../out) &&
	tr "\0" "\n" <out >ids &&
	test_grep good-001 ids
'

test_expect_success 'the functions of a minified line each get their own text' '
	git init -q min &&
	awk "BEGIN { for (i = 0; i < 3000; i++) printf \"function f%d(a){return a+%d}\", i, i; print \"\" }" \
		>min/min.js &&
	(cd min && kbx index --format=json >../index.json) &&
	test_grep "\"chunks_added\":3000" index.json &&
	# each chunk starts where its function does, not at the start of
	# the line that all 3000 share (the same text 3000 times)
	sed -n "s/.*\"embed_repeated\":\([0-9]*\).*/\1/p" index.json >repeated &&
	test $(cat repeated) -lt 100
'

test_expect_success 'nested functions whose texts have no word are indexed' '
	git init -q arrows &&
	# far along its line, so that its text starts at the first arrow
	awk "BEGIN { for (i = 0; i < 9000; i++) printf \" \"; printf \"const f = \"; for (i = 0; i < 4000; i++) printf \"() => \"; print \"0;\" }" \
		>arrows/arrows.ts &&
	(cd arrows && kbx index 2>../err) &&
	test_grep "search: 1 chunk" err
'

test_done
