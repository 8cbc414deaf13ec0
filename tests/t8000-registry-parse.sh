#!/bin/sh
test_description='registry parsers: error YAML and Markdown documents into chunks

build/tests/unit/registry-dump prints the chunks and notes the parsers of
lib/registry/ make of files.  tests/registry/basic/ is a small valid
registry, whose dump is tests/registry/basic.expect; tests/registry/bad/
holds one file per kind of bad input, each asserted here with the line,
column and reason of its note.'

. "$(dirname "$0")"/test-lib.sh

REG=$TEST_DIRECTORY/registry
dump=$KBX_TEST_UNIT/registry-dump

test -x "$dump" || test_skip 'registry-dump is not built (make unit-tests)'

basic_files='errors/python/builtin.yml errors/go/runtime.yml errors/javascript/node.yml
patterns/python/retry-with-timeout.md adrs/adr-001-embedded-store.md docs/tools/pytest.md
behavioral/general/code-review.md'

test_expect_success 'paths are classified by their place in the registry' '
	test_expect_code 0 "$dump" --classify errors/python/builtin.yml \
		errors/python/frameworks/django.yaml errors/x.yml errors/go/README.md \
		patterns/a.md adrs/x/y.md docs/a.MD behavioral/b.md README.md \
		notes/x.markdown manifest.json LICENSE .github/x.md docs/.hidden.md \
		./errors/rust/a.yml errors/js/a.json code/x.md errors/python/x.YML >actual &&
	cat >expect <<-\EOT &&
	errors/python/builtin.yml: errors python
	errors/python/frameworks/django.yaml: errors python
	errors/x.yml: errors 
	errors/go/README.md: markdown doc
	patterns/a.md: markdown pattern
	adrs/x/y.md: markdown adr
	docs/a.MD: markdown doc
	behavioral/b.md: markdown behavioral
	README.md: markdown doc
	notes/x.markdown: markdown doc
	manifest.json: none
	LICENSE: none
	.github/x.md: none
	docs/.hidden.md: none
	./errors/rust/a.yml: errors rust
	errors/js/a.json: none
	code/x.md: markdown doc
	errors/python/x.YML: errors python
	EOT
	test_cmp expect actual
'

test_expect_success 'the basic registry gives the expected chunks' '
	files= &&
	for f in $basic_files
	do
		files="$files $REG/basic/$f" || return 1
	done &&
	test_expect_code 0 "$dump" --text --root "$REG/basic" $files >actual &&
	test_cmp "$REG/basic.expect" actual
'

test_expect_success 'the basic registry: chunk counts and no notes' '
	grep -c "^chunk errors/" actual >n-errors &&
	echo 12 >expect && test_cmp expect n-errors &&
	sed -n "s/^  type: //p" actual | sort | uniq -c | sed "s/^ *//" >types &&
	test_write_lines "3 adr" "2 behavioral" "2 doc" "12 error" "5 pattern" >expect &&
	test_cmp expect types &&
	test_grep ! "^note" actual
'

test_expect_success 'a sink that stops the parse: its status comes back' '
	(cd "$REG/basic" &&
	 test_expect_code 0 "$dump" --stop-after 2 errors/python/builtin.yml \
		patterns/python/retry-with-timeout.md) >out &&
	grep "^chunk\|^status" out >actual &&
	cat >expect <<-\EOT &&
	chunk errors/python/builtin.yml #0
	chunk errors/python/builtin.yml #0
	status errors/python/builtin.yml input/output error: stopped by the sink
	chunk patterns/python/retry-with-timeout.md #0
	chunk patterns/python/retry-with-timeout.md #1
	status patterns/python/retry-with-timeout.md input/output error: stopped by the sink
	EOT
	test_cmp expect actual
'

test_expect_success 'Windows line ends give the same chunks, lines and headings' '
	mkdir crlf &&
	for f in $basic_files
	do
		mkdir -p "crlf/$(dirname "$f")" &&
		sed "s/\$/$(printf "\\r")/" "$REG/basic/$f" >"crlf/$f" || return 1
	done &&
	(cd crlf && test_expect_code 0 "$dump" $basic_files) >crlf.out &&
	(cd "$REG/basic" && test_expect_code 0 "$dump" $basic_files) >lf.out &&
	grep -v "^  \\(text_len\\|cause\\|fix\\): " lf.out >expect &&
	grep -v "^  \\(text_len\\|cause\\|fix\\): " crlf.out >actual &&
	test_cmp expect actual
'

# notes and statuses of one file of tests/registry/bad/
bad () {
	(cd "$REG/bad" && test_expect_code 0 "$dump" "$@") >out &&
	grep "^note\\|^status" out >actual
}

test_expect_success 'a YAML syntax error skips the whole file, with line and column' '
	bad errors/python/yaml-syntax.yml &&
	cat >expect <<-\EOT &&
	note skipped errors/python/yaml-syntax.yml:12:3 yaml-syntax file: not valid YAML: could not find expected '"':'"' while scanning a simple key: fix the syntax (the whole file is skipped)
	status errors/python/yaml-syntax.yml cannot parse: cannot parse '"'errors/python/yaml-syntax.yml'"' at line 12, column 3: could not find expected '"':'"'
	EOT
	test_cmp expect actual &&
	test_grep ! "^chunk" out
'

test_expect_success 'a mapping where the list of entries belongs skips the file' '
	bad errors/python/not-a-list.yml &&
	cat >expect <<-\EOT &&
	note skipped errors/python/not-a-list.yml:2:1 not-a-list file: the file holds a mapping, not a list of error entries ('"'- id: ...'"'): make it a list (the whole file is skipped)
	status errors/python/not-a-list.yml cannot parse: '"'errors/python/not-a-list.yml'"' at line 2 is not a list of error entries
	EOT
	test_cmp expect actual &&
	test_grep ! "^chunk" out
'

test_expect_success 'items that are not entries are skipped, the others kept' '
	bad errors/python/not-a-mapping.yml &&
	cut -d" " -f1-5 actual >short &&
	cat >expect <<-\EOT &&
	note skipped errors/python/not-a-mapping.yml:1:3 not-a-mapping entry:
	note skipped errors/python/not-a-mapping.yml:8:2 not-a-mapping entry:
	status errors/python/not-a-mapping.yml success
	EOT
	test_cmp expect short &&
	grep "^  doc_id" out >ids &&
	test_write_lines "  doc_id: py-fine-001" >expect &&
	test_cmp expect ids
'

test_expect_success 'entries missing a field are skipped, named by id or place' '
	bad errors/python/missing-field.yml &&
	cat >expect <<-\EOT &&
	note skipped errors/python/missing-field.yml:1:3 missing-field entry: entry '"'py-nocause-001'"' has no '"'cause'"': add it (the entry is skipped)
	note skipped errors/python/missing-field.yml:7:3 missing-field entry: entry 2 (line 7) has no '"'id'"': add it (the entry is skipped)
	note skipped errors/python/missing-field.yml:13:3 missing-field entry: entry '"'py-ok-001'"' has an empty '"'cause'"': fill it in (the entry is skipped)
	status errors/python/missing-field.yml success
	EOT
	test_cmp expect actual &&
	grep "^  doc_id" out >ids &&
	test_write_lines "  doc_id: py-ok-002" >expect &&
	test_cmp expect ids
'

test_expect_success 'fields of the wrong type skip their entry' '
	bad errors/python/bad-field.yml &&
	cat >expect <<-\EOT &&
	note skipped errors/python/bad-field.yml:6:5 bad-field entry: entry '"'py-mapcause-001'"': '"'cause'"' must be a single value, not a mapping: fix the entry (it is skipped)
	note skipped errors/python/bad-field.yml:15:9 bad-field entry: entry '"'py-maptags-001'"': '"'tags'"' must be a list, not a mapping: fix the entry (it is skipped)
	note skipped errors/python/bad-field.yml:18:15 bad-field entry: entry '"'py-listtype-001'"': '"'error_type'"' must be a single value, not a list: fix the entry (it is skipped)
	note skipped errors/python/bad-field.yml:32:7 bad-field entry: entry '"'py-nestedtag-001'"': an item of '"'tags'"' is a list: items must be single values (the entry is skipped)
	status errors/python/bad-field.yml success
	EOT
	test_cmp expect actual &&
	test_grep ! "^chunk" out
'

test_expect_success 'a pattern that does not compile: a warning, the entry kept without it' '
	bad errors/python/bad-pattern.yml &&
	cat >expect <<-\EOT &&
	note warning errors/python/bad-pattern.yml:4:12 bad-pattern entry: entry '"'py-badre-001'"': the pattern does not compile (missing closing parenthesis, at offset 26): fix the regular expression (the entry is kept, without its pattern)
	status errors/python/bad-pattern.yml success
	EOT
	test_cmp expect actual &&
	grep "^  \\(doc_id\\|pattern\\)" out >fields &&
	cat >expect <<-\EOT &&
	  doc_id: py-badre-001
	  pattern: 
	  pattern_line: 4
	  doc_id: py-goodre-001
	  pattern: (?P<what>unexpected|expected an) indent(?:ed block)?
	  pattern_line: 12
	EOT
	test_cmp expect fields
'

test_expect_success 'a repeated id: the second entry is skipped, both lines named' '
	bad errors/python/duplicate-id.yml &&
	cat >expect <<-\EOT &&
	note skipped errors/python/duplicate-id.yml:15:7 duplicate-id entry: id '"'py-dup-001'"' at line 15 is already used at line 1: give one of them another id (the entry at line 15 is skipped)
	status errors/python/duplicate-id.yml success
	EOT
	test_cmp expect actual &&
	grep "^  \\(doc_id\\|lines\\)" out >fields &&
	test_write_lines "  doc_id: py-dup-001" "  lines: 1-6" \
		"  doc_id: py-other-001" "  lines: 8-13" >expect &&
	test_cmp expect fields
'

test_expect_success 'an empty file: no chunks, no notes' '
	bad errors/python/empty.yml docs/empty.md &&
	test_write_lines "status errors/python/empty.yml success" \
		"status docs/empty.md success" >expect &&
	test_cmp expect actual &&
	test_grep ! "^chunk" out
'

test_expect_success 'unknown keys are ignored, unknown severities kept, a tag alone is a list' '
	bad errors/python/unknown-keys.yml &&
	test_write_lines "status errors/python/unknown-keys.yml success" >expect &&
	test_cmp expect actual &&
	grep "^  \\(severity\\|tags\\|lines\\)" out >fields &&
	test_write_lines "  lines: 2-11" "  tags: memory" "  severity: fatal" >expect &&
	test_cmp expect fields
'

test_expect_success 'invalid front matter skips the document, lines counted in the file' '
	bad docs/bad-front-matter.md &&
	cat >expect <<-\EOT &&
	note skipped docs/bad-front-matter.md:4:12 yaml-syntax file: the front matter is not valid YAML: did not find expected key while parsing a block mapping: fix the syntax (the whole file is skipped)
	status docs/bad-front-matter.md cannot parse: cannot parse the front matter of '"'docs/bad-front-matter.md'"' at line 4, column 12: did not find expected key
	EOT
	test_cmp expect actual &&
	test_grep ! "^chunk" out
'

test_expect_success 'front matter that is never closed skips the document' '
	bad docs/unclosed-front-matter.md &&
	cut -d" " -f1-5 actual >short &&
	test_write_lines "note skipped docs/unclosed-front-matter.md:1:1 yaml-syntax file:" \
		"status docs/unclosed-front-matter.md cannot parse: the" >expect &&
	test_cmp expect short &&
	test_grep ! "^chunk" out
'

test_expect_success 'front matter that is not a mapping skips the document' '
	bad docs/list-front-matter.md &&
	cut -d" " -f1-5 actual >short &&
	test_write_lines "note skipped docs/list-front-matter.md:2:1 not-a-mapping file:" \
		"status docs/list-front-matter.md cannot parse: the" >expect &&
	test_cmp expect short &&
	test_grep ! "^chunk" out
'

test_expect_success 'no front matter: the path is the id, the first heading the title' '
	bad docs/no-front-matter.md &&
	grep "^  \\(type\\|doc_id\\|title\\|heading\\|lines\\)" out >fields &&
	test_write_lines "  type: doc" "  doc_id: docs/no-front-matter.md" "  title: Usage" \
		"  heading: Usage" "  lines: 1-5" >expect &&
	test_cmp expect fields
'

test_expect_success 'front matter without an id: the path is the id, category sets the type' '
	bad docs/no-id.md &&
	test_write_lines "status docs/no-id.md success" >expect &&
	test_cmp expect actual &&
	grep "^  \\(type\\|doc_id\\|title\\|heading\\|lines\\|tags\\)" out >fields &&
	test_write_lines "  type: pattern" "  doc_id: docs/no-id.md" \
		"  title: A document without an id" "  heading: " "  lines: 7-9" \
		"  tags: single-tag" >expect &&
	test_cmp expect fields
'

test_expect_success 'an unknown category and bad tags are warnings; the document is kept' '
	bad docs/unknown-category.md &&
	cat >expect <<-\EOT &&
	note warning docs/unknown-category.md:8:5 bad-field file: '"'tags'"' in the front matter must be a list of single values: fix it (the tags are ignored)
	note warning docs/unknown-category.md:4:11 unknown-category file: unknown category '"'recipe'"': write pattern, adr, doc, behavioral or error (the document is taken as a doc)
	status docs/unknown-category.md success
	EOT
	test_cmp expect actual &&
	grep "^  \\(type\\|category\\|lang\\|tags\\)" out >fields &&
	test_write_lines "  type: doc" "  lang: go" "  tags: " "  category: recipe" >expect &&
	test_cmp expect fields
'

test_expect_success 'a long section is cut at blocks, a huge code block at lines' '
	{
		printf "# Big\n\n## Part\n\n" &&
		i=0 &&
		while test $i -lt 60
		do
			printf "Paragraph %d with some words to fill the line up to length.\n\n" $i &&
			i=$((i + 1)) || return 1
		done &&
		printf "\`\`\`\n" &&
		i=0 &&
		while test $i -lt 500
		do
			printf "code line %d of a long block\n" $i &&
			i=$((i + 1)) || return 1
		done &&
		printf "\`\`\`\n\n## Tail\n\nEnd.\n"
	} >big.md &&
	test_expect_code 0 "$dump" big.md >out &&
	grep "^  \\(heading\\|lines\\)" out >fields &&
	cat >expect <<-\EOT &&
	  heading: Part
	  lines: 1-101
	  heading: Part
	  lines: 103-123
	  heading: Part
	  lines: 125-228
	  heading: Part
	  lines: 229-328
	  heading: Part
	  lines: 329-428
	  heading: Part
	  lines: 429-528
	  heading: Part; Tail
	  lines: 529-630
	EOT
	test_cmp expect fields &&
	sed -n "s/^  text_len: //p" out >sizes &&
	while read n
	do
		test "$n" -le 3020 || return 1
	done <sizes
'

# The repository's own Markdown is written for readers: a first "---" is
# as often a thematic break as a front matter (markdown-it's sample.md).
test_expect_success 'set up documents that open with a thematic break' '
	mkdir -p own/docs &&
	cat >own/docs/sample.md <<-\EOF &&
	---
	__Advertisement :)__

	---

	# Heading

	Some text about widgets.
	EOF
	cat >own/docs/emphasis.md <<-\EOF &&
	---
	**Note**: *read* this first
	---

	Text after two rules.
	EOF
	cat >own/docs/rule.md <<-\EOF &&
	---

	Text after a rule that nothing closes.
	EOF
	cp "$REG/bad/docs/list-front-matter.md" own/docs/
'

test_expect_success 'a registry document that opens so is skipped, as before' '
	(cd own && test_expect_code 0 "$dump" docs/sample.md docs/emphasis.md docs/rule.md) >out &&
	grep "^note\\|^status" out | cut -d" " -f1-5 >actual &&
	cat >expect <<-\EOT &&
	note skipped docs/sample.md:2:1 not-a-mapping file:
	status docs/sample.md cannot parse: the
	note skipped docs/emphasis.md:2:2 yaml-syntax file:
	status docs/emphasis.md cannot parse: cannot
	note skipped docs/rule.md:1:1 yaml-syntax file:
	status docs/rule.md cannot parse: the
	EOT
	test_cmp expect actual &&
	test_grep ! "^chunk" out
'

test_expect_success 'a repository document: a leading block that is not fields is text, unnoted' '
	(cd own && test_expect_code 0 "$dump" --repository docs/sample.md docs/emphasis.md \
		docs/rule.md docs/list-front-matter.md) >out &&
	grep "^note\\|^status" out >actual &&
	test_write_lines "status docs/sample.md success" "status docs/emphasis.md success" \
		"status docs/rule.md success" "status docs/list-front-matter.md success" >expect &&
	test_cmp expect actual &&
	grep "^chunk\\|^  \\(doc_id\\|title\\|lines\\)" out >fields &&
	cat >expect <<-\EOT &&
	chunk docs/sample.md #0
	  doc_id: docs/sample.md
	  title: Heading
	  lines: 1-8
	chunk docs/emphasis.md #0
	  doc_id: docs/emphasis.md
	  title: Note: read this first
	  lines: 1-5
	chunk docs/rule.md #0
	  doc_id: docs/rule.md
	  title: rule
	  lines: 1-3
	chunk docs/list-front-matter.md #0
	  doc_id: docs/list-front-matter.md
	  title: A list as front matter
	  lines: 1-6
	EOT
	test_cmp expect fields
'

test_expect_success 'a repository document: fields that are not YAML are a warning, the rest is kept' '
	(cd "$REG/bad" && test_expect_code 0 "$dump" --repository docs/bad-front-matter.md) >out &&
	grep "^note\\|^status" out >actual &&
	cat >expect <<-\EOT &&
	note warning docs/bad-front-matter.md:4:12 yaml-syntax file: the front matter is not valid YAML: did not find expected key while parsing a block mapping: fix the syntax (it is ignored; the rest of the file is indexed)
	status docs/bad-front-matter.md success
	EOT
	test_cmp expect actual &&
	grep "^  \\(doc_id\\|title\\|lines\\)" out >fields &&
	test_write_lines "  doc_id: docs/bad-front-matter.md" "  title: Broken" "  lines: 7-9" >expect &&
	test_cmp expect fields
'

test_done
