#!/bin/sh
test_description='terminal-safe output: hostile names and text from the repository

A repository is untrusted input.  Its file names, Markdown headings,
docstrings and code may hold terminal control sequences (an OSC title,
ESC[2J, an OSC 8 link, an OSC 52 clipboard write), newlines, colons,
tabs and bytes that are not UTF-8.  The text and grep formats must print
none of them raw, on stdout or stderr, on a terminal too; a grep result
must stay one line that editors parse; ordinary paths must print as
before; JSON must stay valid and decode to the original names.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq SCRIPT '
	script -qec true /dev/null </dev/null >/dev/null
'

# put NAME CONTENT: write repo/NAME; both are printf formats, so that
# \033, \007, \n, \377 and the like make the bytes they stand for
put () {
	put_name=$(printf "$1") &&
	printf "$2" >"repo/$put_name"
}

# no_controls FILE: FILE holds no C0 control but tab and newline, and no
# DEL (checked with od, which needs no python)
no_controls () {
	od -An -v -tx1 "$1" | tr -s " " "\n" >bytes &&
	{ grep -E "^(0[0-8b-f]|1[0-9a-f]|7f)$" bytes >bad || :; } &&
	test_must_be_empty bad
}

# clean FILE: no_controls, and with python3 also valid UTF-8 without a
# C1 control (U+0080-U+009F) or a raw byte 0x80-0x9f outside UTF-8
clean () {
	no_controls "$1" &&
	if test_have_prereq PYTHON3
	then
		python3 - "$1" <<-\EOF
		import sys
		text = open(sys.argv[1], "rb").read().decode("utf-8")
		bad = [c for c in text if (ord(c) < 0x20 and c not in "\t\n") or 0x7f <= ord(c) < 0xa0]
		if bad:
		    sys.exit("%s: %r" % (sys.argv[1], bad))
		EOF
	fi
}

# json_paths FILE: the strings of every "path" field in the JSON of
# FILE (JSON Lines, or one document), as Python's ascii() of the
# decoded string, sorted and unique; fails on invalid UTF-8 or JSON
json_paths () {
	python3 - "$1" <<-\EOF
	import json, sys
	paths = set()
	def walk(v):
	    if isinstance(v, dict):
	        for k, x in v.items():
	            if k == "path" and isinstance(x, str):
	                paths.add(x)
	            walk(x)
	    elif isinstance(v, list):
	        for x in v:
	            walk(x)
	text = open(sys.argv[1], "rb").read().decode("utf-8")
	for line in text.split("\n"):
	    if line:
	        walk(json.loads(line))
	for p in sorted(paths):
	    print(ascii(p))
	EOF
}

# names_with TEXT: the files of repo/ that hold TEXT, as json_paths
# prints them (a byte that is not UTF-8 becomes U+FFFD, as in kbx's JSON)
names_with () {
	python3 - "$1" <<-\EOF
	import os, sys
	want = sys.argv[1].encode()
	names = set()
	for n in os.listdir(b"repo"):
	    p = b"repo/" + n
	    if os.path.isfile(p) and want in open(p, "rb").read():
	        names.add(n.decode("utf-8", "replace"))
	for n in sorted(names):
	    print(ascii(n))
	EOF
}

# one_line_each FILE: every line of a grep-format FILE starts with a
# path (plain, or in double quotes with C escapes), a line and a column
one_line_each () {
	test_grep ! -v -E '^("([^"\\]|\\.)*"|[^":]+):[0-9]+:[0-9]+: ' "$1"
}

test_expect_success 'setup: a repository with hostile names and text' - <<\EOT
	git init -q repo &&
	put 'lib.py' 'def helper():\n    return 1\n' &&
	put 'title\033]0;pwned\007.py' 'from lib import helper\n\n\ndef osc_title():\n    """Set the title: \033]0;docstring title\007 and clear: \033[2J"""\n    return helper()\n' &&
	put 'clear\033[2J.py' 'from lib import helper\n\n\ndef clear_screen():\n    s = "\033[2J\033[H\033]8;;https://evil.example/\007click\033]8;;\007"\n    return helper()\n' &&
	put 'new\nline.py' 'from lib import helper\n\n\ndef newline_file():\n    return helper()\n' &&
	put 'co:lon.py' 'from lib import helper\n\n\ndef colon_file():\n    return helper()\n' &&
	put 'tab\there.py' 'from lib import helper\n\n\ndef tab_file():\n\treturn helper()\n' &&
	put 'link\033]8;;evil\033\\x\033]8;;\033\\.py' 'from lib import helper\n\n\ndef osc8_file():\n    return helper()\n' &&
	put 'clip\033]52;c;cm0gLXJmIH4=\007.py' 'from lib import helper\n\n\ndef osc52_file():\n    """\033]52;c;cm0gLXJmIH4=\007"""\n    return helper()\n' &&
	put 'bad\377\376.py' 'from lib import helper\n\n\ndef latin_file():\n    return helper()\n' &&
	put 'csi\233.py' 'from lib import helper\n\n\ndef csi_file():\n    return helper()\n' &&
	put 'nel\302\205.py' 'from lib import helper\n\n\ndef nel_file():\n    return helper()\n' &&
	put 'sur\355\240\200.py' 'from lib import helper\n\n\ndef surrogate_file():\n    return helper()\n' &&
	put 'f8\370\210\200.py' 'from lib import helper\n\n\ndef f8_file():\n    return helper()\n' &&
	put 'web\033[31m.js' 'function webHandler() {\n  return "\033[31mred\033[0m \033]0;js title\007";\n}\n' &&
	put 'notes\033]0;md\007.md' '# Install \033]0;heading title\007\n\nRun the installer\033[2J now.\n\n## Deploy \033]52;c;eA==\007\n\nDeploy with \033]8;;https://evil.example/\033\\care\033]8;;\033\\.\n' &&
	put 'blob\033]0;bin\007.py' '\000\001\002\003' &&
	(cd repo && git add . && git commit -q -m hostile) &&
	ls -b repo >files &&
	test_line_count = 16 files
EOT

test_expect_success 'kbx index: its messages name hostile files escaped' '
	kbx -C repo index >index.out 2>index.err &&
	clean index.out &&
	clean index.err &&
	test_grep -F "note: skipped '\''blob\\033]0;bin\\007.py'\'': binary file" index.err &&
	kbx -C repo index --rebuild --format=json >index.json 2>index.json.err &&
	clean index.json.err
'

test_expect_success 'kbx defs: text, grep and JSON' '
	defs="osc_title clear_screen newline_file colon_file tab_file osc8_file osc52_file latin_file csi_file nel_file surrogate_file f8_file webHandler helper" &&
	kbx -C repo defs $defs >defs.text 2>defs.err &&
	clean defs.text && clean defs.err &&
	kbx -C repo defs --format=grep $defs >defs.grep &&
	clean defs.grep &&
	test_line_count = 14 defs.grep &&
	one_line_each defs.grep &&
	test_grep "^lib.py:1:1: function helper$" defs.grep &&
	test_grep -F "\"new\\nline.py\":4:1: function newline_file" defs.grep &&
	test_grep -F "\"co\\072lon.py\":4:1: function colon_file" defs.grep &&
	test_grep -F "\"tab\\there.py\":4:1: function tab_file" defs.grep &&
	test_grep -F "\"title\\033]0;pwned\\007.py\":4:1:" defs.grep &&
	test_grep -F "\"bad\\377\\376.py\":4:1:" defs.grep &&
	test_grep -F "\"csi\\233.py\":4:1:" defs.grep &&
	test_grep -F "\"nel\\302\\205.py\":4:1:" defs.grep &&
	test_grep -F "\"sur\\355\\240\\200.py\":4:1:" defs.grep &&
	test_grep -F "title\\033]0;pwned\\007.py:4  osc_title (function)" defs.text &&
	test_grep -F "new\\nline.py:4  newline_file (function)" defs.text
'

test_expect_success PYTHON3 'kbx defs --format=json: valid JSON with the original names' '
	kbx -C repo defs --format=json $defs >defs.json &&
	test_line_count = 14 defs.json &&
	json_paths defs.json >actual &&
	names_with "def " >expect &&
	names_with "function " >>expect &&
	sort expect >expect.sorted &&
	test_cmp expect.sorted actual
'

test_expect_success 'kbx callers: every caller in a hostile file, escaped' '
	kbx -C repo callers helper >callers.text 2>callers.err &&
	clean callers.text && clean callers.err &&
	kbx -C repo callers --format=grep helper >callers.grep &&
	clean callers.grep &&
	one_line_each callers.grep &&
	test_line_count = 12 callers.grep &&
	test_grep -F "\"new\\nline.py\":5:12: newline_file calls helper" callers.grep &&
	test_grep -F "new\\nline.py:5  newline_file (function)" callers.text
'

test_expect_success PYTHON3 'kbx callers --format=json: valid, and the paths decode to the file names' '
	kbx -C repo callers --format=json helper >callers.json &&
	test_line_count = 12 callers.json &&
	json_paths callers.json >actual &&
	names_with "return helper()" >expect &&
	test_cmp expect actual
'

test_expect_success 'kbx callers of an unknown name: the nearest names on stderr, escaped' '
	test_expect_code 1 kbx -C repo callers osc_titel >out 2>err &&
	clean err &&
	test_grep "did you mean one of these?" err &&
	test_grep -F "osc_title	(function, title\\033]0;pwned\\007.py:4)" err
'

# the Python functions are exported, so left out: --explain lists them
test_expect_success 'kbx dead --explain: text, grep and JSON' '
	kbx -C repo dead --explain >dead.text 2>dead.err &&
	clean dead.text && clean dead.err &&
	test_grep -F "title\\033]0;pwned\\007.py:4  osc_title (function)  (left out: exported" dead.text &&
	test_grep -F "web\\033[31m.js:1  webHandler (function)" dead.text &&
	kbx -C repo dead --explain --format=grep >dead.grep 2>dead.err &&
	clean dead.grep && clean dead.err &&
	one_line_each dead.grep &&
	test_line_count = 13 dead.grep &&
	test_grep -F "\"web\\033[31m.js\":1:1: dead function webHandler" dead.grep &&
	kbx -C repo dead --explain --format=json >dead.json 2>dead.err &&
	test_line_count = 14 dead.json &&
	tail -n 1 dead.json | grep "^{\"type\":\"summary\","
'

test_expect_success PYTHON3 'kbx dead --format=json is valid JSON' '
	json_paths dead.json >actual &&
	test_grep "co:lon.py" actual
'

test_expect_success 'kbx search: hostile headings, docstrings and code are escaped' '
	kbx -C repo search installer title clear >search.text 2>search.err &&
	clean search.text && clean search.err &&
	test_grep -F "Install \\033]0;heading title\\007" search.text &&
	kbx -C repo search --explain installer title clear >search.explain 2>search.err &&
	clean search.explain && clean search.err &&
	kbx -C repo search --format=grep installer title clear >search.grep 2>search.err &&
	clean search.grep && clean search.err &&
	one_line_each search.grep &&
	test_grep -F "\"notes\\033]0;md\\007.md\":1:1: doc" search.grep &&
	kbx -C repo search --format=json installer title clear >search.json 2>search.err &&
	test_line_count = $(wc -l <search.grep) search.json
'

test_expect_success PYTHON3 'kbx search --format=json: the title and heading decode to the original text' '
	python3 - <<-\EOF
	import json
	text = open("search.json", "rb").read().decode("utf-8")
	hits = [json.loads(l) for l in text.split("\n") if l]
	doc = [h for h in hits if h["chunk_type"] == "doc"][0]
	assert doc["path"] == "notes\x1b]0;md\x07.md", doc
	assert doc["title"] == "Install \x1b]0;heading title\x07", doc
	assert doc["heading"] == "Deploy \x1b]52;c;eA==\x07", doc
	EOF
'

test_expect_success 'kbx hybrid: results and the plan escaped' '
	kbx -C repo hybrid what calls helper >hybrid.text 2>hybrid.err &&
	clean hybrid.text && clean hybrid.err &&
	kbx -C repo hybrid --explain what calls helper >hybrid.explain 2>hybrid.err &&
	clean hybrid.explain && clean hybrid.err &&
	kbx -C repo hybrid --format=grep what calls helper >hybrid.grep 2>hybrid.err &&
	clean hybrid.grep && clean hybrid.err &&
	one_line_each hybrid.grep &&
	kbx -C repo hybrid --format=json what calls helper >hybrid.json 2>hybrid.err &&
	test_grep -F "\"co\\072lon.py\":" hybrid.grep
'

test_expect_success PYTHON3 'kbx hybrid --format=json is valid JSON' '
	json_paths hybrid.json >actual &&
	test_grep "co:lon.py" actual
'

test_expect_success 'kbx check: text, grep and GitHub escaping' - <<\EOT
	cat >repo/.kbx-rules.yml <<-\EOF &&
	version: 1
	rules:
	  - id: lib-is-private
	    description: "nothing calls lib.py \e]0;rule\a"
	    forbid:
	      from: "*"
	      to: "lib.py"
	      via: [calls]
	EOF
	test_expect_code 10 kbx -C repo check >check.text 2>check.err &&
	clean check.text && clean check.err &&
	test_grep -F "nothing calls lib.py \033]0;rule\007" check.text &&
	test_expect_code 10 kbx -C repo check --format=grep >check.grep 2>check.err &&
	clean check.grep && clean check.err &&
	one_line_each check.grep &&
	test_line_count = 12 check.grep &&
	test_expect_code 10 kbx -C repo check --format=github >check.github 2>check.err &&
	clean check.github &&
	test_line_count = 13 check.github &&
	test_grep -F "::error file=co%3Alon.py,line=5,col=12," check.github &&
	test_grep -F "::error file=new%0Aline.py,line=5,col=12," check.github &&
	test_grep -F "::error file=title\033]0;pwned\007.py,line=6,col=12," check.github &&
	test_grep -F "::co:lon.py#colon_file calls lib.py#helper" check.github
EOT

test_expect_success PYTHON3 'kbx check --format=json and sarif: valid JSON' '
	test_expect_code 10 kbx -C repo check --format=json >check.json &&
	json_paths check.json >actual &&
	names_with "return helper()" >expect &&
	test_cmp expect actual &&
	test_expect_code 10 kbx -C repo check --format=sarif >check.sarif &&
	python3 -c "import json; json.loads(open(\"check.sarif\", \"rb\").read().decode(\"utf-8\"))"
'

test_expect_success 'a repository under a hostile directory: kbx status and kbx repos' '
	dir=$(printf "evil\033]0;root\007dir") &&
	git init -q "$dir" &&
	git -C "$dir" remote add origin https://example.org/evil.git &&
	cp repo/lib.py "$dir/" &&
	kbx -C "$dir" index >out 2>err &&
	clean out && clean err &&
	kbx -C "$dir" status >status.text 2>err &&
	clean status.text && clean err &&
	test_grep -F "evil\\033]0;root\\007dir" status.text &&
	kbx repos >repos.text 2>err &&
	clean repos.text && clean err &&
	test_grep -F "evil\\033]0;root\\007dir" repos.text &&
	kbx repos --format=json >repos.json 2>err &&
	clean err
'

test_expect_success PYTHON3 'kbx status and kbx repos --format=json: the root decodes to the directory' '
	kbx -C "$dir" status --format=json >status.json &&
	python3 - <<-\EOF
	import json, os
	want = [os.path.join(os.getcwd(), n.decode()) for n in os.listdir(b".") if n.startswith(b"evil")]
	status = json.loads(open("status.json", "rb").read().decode("utf-8"))
	assert status["root"] in want, (status["root"], want)
	repos = [json.loads(l) for l in open("repos.json", "rb").read().decode("utf-8").split("\n") if l]
	assert any(r["root"] in want for r in repos), repos
	EOF
'

test_expect_success 'messages of the library are escaped whole' '
	test_expect_code 3 kbx --kbx-dir="$(printf "no\033]0;x\007dir")" status >out 2>err &&
	clean err &&
	test_grep -F "error: no kbx index at '\''no\\033]0;x\\007dir'\''" err &&
	test_expect_code 2 kbx -C repo callers "$(printf "x\033]0;arg\007")" >out 2>err &&
	clean err &&
	test_grep "^error: " err
'

test_expect_success SCRIPT 'on a terminal, --color=always: kbx colours, the repository does not' '
	script -qec "kbx --no-pager -C repo callers --color=always helper" /dev/null \
		</dev/null >tty.raw &&
	esc=$(printf "\033") &&
	sed "s/$esc\[[0-9;]*m//g" tty.raw | tr -d "\r" >tty.out &&
	clean tty.out &&
	test_grep -F "title\\033]0;pwned\\007.py" tty.out &&
	test_grep "$esc\[35m" tty.raw &&
	script -qec "kbx --no-pager -C repo search --color=always installer title clear" /dev/null \
		</dev/null >tty.raw &&
	sed "s/$esc\[[0-9;]*m//g" tty.raw | tr -d "\r" >tty.out &&
	clean tty.out &&
	test_grep -F "Install \\033]0;heading title\\007" tty.out
'

test_expect_success 'ordinary output is unchanged: a plain path and a tab in a snippet' '
	git init -q plain &&
	printf "def add(a, b):\n\treturn a + b\n\n\ndef twice(a):\n\treturn add(a, a)\n" >plain/calc.py &&
	kbx -C plain index 2>/dev/null &&
	kbx -C plain callers --format=grep add >out &&
	echo "calc.py:6:9: twice calls add" >expect &&
	test_cmp expect out &&
	kbx -C plain search twice add >out &&
	tab=$(printf "\t") &&
	test_grep "^   | ${tab}return add(a, a)$" out
'

test_done
