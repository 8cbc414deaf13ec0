#!/bin/sh

test_description='kbx check: structure rules for CI

Every kind of rule (forbid, no-cycles, limit, must-be-called) passing and
failing on tests/corpora/check/app, ambiguous edges as warnings and
--strict, validation of the rules file with every problem at its line
and column, each output format (text, json, grep, sarif checked against
the fields SARIF 2.1.0 requires, github workflow commands), the exit
codes, and the unit tests of globs and cycle detection.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq PYTHON3 '
	python3 -c "import json"
'

test_unit check-analysis

# rules FILE: write the rules from stdin, with the version line first.
rules () {
	{ echo "version: 1" && echo "rules:" && cat; } >"$1"
}

test_expect_success 'setup: index the fixture application' '
	cp -R "$CORPORA/check/app" app &&
	rm app/README &&
	(cd app && git init -q && kbx index -q) &&
	mkdir empty
'

test_expect_success 'without a rules file: exit 2, saying where it was looked for' '
	(cd app && test_expect_code 2 kbx check) >out 2>err &&
	test_must_be_empty out &&
	test_grep "no rules file .\.kbx-rules\.yml. at the repository root" err &&
	test_grep "kbx help rules" err
'

test_expect_success 'without an index: exit 3' '
	(cd empty && git init -q && test_expect_code 3 kbx check) 2>err &&
	test_grep "run .kbx index." err
'

test_expect_success 'extra operands are a usage error' '
	(cd app && test_expect_code 2 kbx check some.yml) 2>err &&
	test_grep "takes no arguments" err
'

# ---- forbid ----

test_expect_success 'forbid: certain edges fail, ambiguous ones warn' - <<\EOT
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: core-not-web
	    forbid:
	      from: "core/**"
	      to: "web/**"
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	cat >expect <<-\EOF &&
	core/engine.py:3:1: core-not-web: core/engine.py imports web/views.py
	core/engine.py:8:12: core-not-web: core/engine.py#start calls web/views.py#render
	core/engine.py:12:5: core-not-web: warning: core/engine.py#persist may call web/store.py#SessionStore.save (ambiguous: one of 2 candidates)
	core/engine.py:16:5: core-not-web: warning: core/engine.py#shutdown may call web/conn.py#Conn.close (the call names one of 18 definitions of 'close')
	EOF
	test_cmp expect out
EOT

test_expect_success 'forbid: via limits the edge kinds' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: core-imports
	    forbid: {from: "core/**", to: "web/**", via: imports}
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	echo "core/engine.py:3:1: core-imports: core/engine.py imports web/views.py" >expect &&
	test_cmp expect out
'

test_expect_success 'forbid: a rule that holds exits 0' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: util-is-a-leaf
	    forbid: {from: "util/**", to: ["core/**", "web/**"]}
	EOF
	(cd app && kbx check) >out &&
	test_grep "^ok   util-is-a-leaf: nothing in util/\*\* calls or imports anything in core/\*\*, web/\*\*$" out
'

test_expect_success 'forbid: only ambiguous edges: warnings and exit 0; --strict fails' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: core-not-stores
	    forbid: {from: "core/**", to: ["web/store.py", "web/conn.py"], via: calls}
	EOF
	(cd app && kbx check --format=grep) >out &&
	test_line_count = 2 out &&
	test_grep ": core-not-stores: warning: .*persist may call web/store.py#SessionStore.save" out &&
	test_grep ": core-not-stores: warning: .*shutdown may call web/conn.py#Conn.close" out &&
	(cd app && test_expect_code 10 kbx check --strict --format=grep) >out &&
	test_line_count = 2 out &&
	test_grep ! "warning:" out
'

test_expect_success 'forbid: extern: patterns match names defined nowhere, "**" does not' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: no-len
	    forbid: {from: "util/**", to: "extern:len", via: calls}
	  - id: nothing-outside
	    forbid: {from: "util/text.py", to: ["**", "!util/**"], via: calls}
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	echo "util/text.py:36:17: no-len: util/text.py#busy calls extern:len" >expect &&
	test_cmp expect out
'

test_expect_success 'forbid: ! patterns exclude' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: web-views-only
	    forbid: {from: ["core/**", "!core/engine.py"], to: "web/**"}
	EOF
	(cd app && kbx check --format=grep) >out &&
	test_must_be_empty out
'

# ---- no-cycles ----

test_expect_success 'no-cycles: an import cycle fails, shown edge by edge' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: no-import-cycles
	    description: files never import themselves back
	    no-cycles: {}
	EOF
	(cd app && test_expect_code 10 kbx check --color=never) >out &&
	cat >expect <<-\EOF &&
	FAIL no-import-cycles: files never import themselves back
	  (no import cycles)
	  core/engine.py:2: error: cycle of 2 files: core/engine.py -> core/model.py -> core/engine.py (one of the cycles among 3 files that reach each other)
	      core/engine.py:2  imports core/model.py
	      core/model.py:2  imports core/engine.py

	1 rule: 1 failed, 0 passed with warnings, 0 passed (1 error, 0 warnings)
	EOF
	test_cmp expect out
'

test_expect_success 'no-cycles: imports within util/ hold' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: util-import-cycles
	    no-cycles: {in: "util/**", via: [imports]}
	EOF
	(cd app && kbx check) >out &&
	test_grep "^ok   util-import-cycles" out
'

test_expect_success 'no-cycles: call cycles, certain and through an ambiguous edge' - <<\EOT
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: no-call-cycles
	    no-cycles: {in: "util/**", via: calls}
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	cat >expect <<-\EOF &&
	util/cache.py:5:12: no-call-cycles: warning: possible cycle of 2 functions: util/cache.py#refresh ~> util/sink.py#Sink.write -> util/cache.py#refresh ('~>' marks an ambiguous edge)
	util/text.py:13:12: no-call-cycles: cycle of 2 functions: util/text.py#ping -> util/text.py#pong -> util/text.py#ping
	EOF
	test_cmp expect out
EOT

test_expect_success 'no-cycles: recursion counts only with self-loops' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: recursion
	    no-cycles: {in: "util/text.py", via: calls, self-loops: true}
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	test_grep "util/text.py:21:16: recursion: util/text.py#fact calls itself" out &&
	test_line_count = 2 out
'

test_expect_success 'no-cycles: a cycle only through ambiguous edges fails with --strict' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: cache-cycles
	    no-cycles: {in: ["util/cache.py", "util/sink.py", "util/log.py"], via: calls}
	EOF
	(cd app && kbx check --format=grep) >out &&
	test_grep "warning: possible cycle" out &&
	(cd app && test_expect_code 10 kbx check --format=grep --strict) >out &&
	test_grep ! "warning:" out
'

test_expect_success 'no-cycles: a cycle thousands of calls long' '
	mkdir deep &&
	i=0 &&
	while test $i -lt 3000
	do
		echo "void f$i(void) { f$(( (i + 1) % 3000 ))(); }" || return 1
		i=$((i + 1))
	done >deep/chain.c &&
	(cd deep && git init -q && kbx index -q --max-file-size=10m) &&
	rules deep/.kbx-rules.yml <<-\EOF &&
	  - id: chain
	    no-cycles: {via: calls}
	EOF
	(cd deep && test_expect_code 10 kbx check) >out &&
	test_grep "cycle of 3000 functions: chain.c#f0 -> chain.c#f1 .* -> \.\.\. (2988 more) -> .* -> chain.c#f2999 -> chain.c#f0$" out &&
	test_grep "and 2980 more edges" out &&
	(cd deep && test_expect_code 10 kbx check --format=json) >out.json &&
	test_grep "\"component\":3000" out.json
'

# ---- limit ----

test_expect_success 'limit: fan-in and fan-out over the limit fail' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: fan
	    limit: {in: "util/**", max-callers: 3, max-callees: 4}
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	cat >expect <<-\EOF &&
	util/text.py:4:1: fan: util/text.py#shout has 4 callers, more than the 3 allowed
	util/text.py:32:1: fan: util/text.py#busy has 5 callees, more than the 4 allowed
	EOF
	test_cmp expect out
'

test_expect_success 'limit: at the limit holds' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: fan
	    limit: {in: "util/**", max-callers: 4, max-callees: 5}
	EOF
	(cd app && kbx check --format=grep) >out &&
	test_must_be_empty out
'

test_expect_success 'limit: over the limit only with ambiguous callers warns; --strict fails' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: save-fan-in
	    limit: {name: save, max-callers: 1}
	EOF
	(cd app && kbx check --format=grep) >out &&
	echo "util/disk.py:2:5: save-fan-in: warning: util/disk.py#Disk.save may have 2 callers, more than the 1 allowed (1 certain, 1 more through ambiguous calls)" >expect &&
	test_cmp expect out &&
	(cd app && test_expect_code 10 kbx check --strict --format=json) >out &&
	test_grep "\"type\":\"violation\".*\"level\":\"error\",\"confidence\":\"ambiguous\"" out &&
	test_grep "\"measure\":\"callers\",\"count\":1,\"possible\":2,\"max\":1" out
'

# ---- must-be-called ----

test_expect_success 'must-be-called: functions nothing calls fail' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: used
	    must-be-called: {in: "util/**"}
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	cat >expect <<-\EOF &&
	util/disk.py:5:5: used: util/disk.py#Disk.sync is never called
	util/text.py:8:1: used: util/text.py#orphan is never called
	util/text.py:32:1: used: util/text.py#busy is never called
	EOF
	test_cmp expect out
'

test_expect_success 'must-be-called: ambiguous callers and calls by name count' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: used
	    must-be-called:
	      in: ["util/**", "web/**"]
	      name: ["!busy", "!orphan", "!sync", "!index"]
	EOF
	(cd app && kbx check) >out &&
	test_grep "^ok   used: every function in util/\*\*, web/\*\* not named busy, orphan, sync, index has a caller" out
'

test_expect_success 'must-be-called: a name pattern with a dot matches qualified names' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: disk-used
	    must-be-called: {name: "Disk.*"}
	EOF
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	echo "util/disk.py:5:5: disk-used: util/disk.py#Disk.sync is never called" >expect &&
	test_cmp expect out
'

# ---- severity, scope, several rules ----

test_expect_success 'severity: warning reports but passes' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: used
	    severity: warning
	    must-be-called: {in: "util/text.py"}
	EOF
	(cd app && kbx check) >out &&
	test_grep "^warn used:" out &&
	test_grep "util/text.py:8: warning: util/text.py#orphan is never called" out &&
	(cd app && kbx check --strict) >out &&
	test_grep "^warn used:" out
'

test_expect_success 'a rule that matches nothing says so' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: typo
	    forbid: {from: "lbi/**", to: "cmd/**"}
	EOF
	(cd app && kbx check) >out &&
	test_grep "^ok   typo" out &&
	test_grep "check the globs" out &&
	(cd app && kbx check --format=json) >out 2>err &&
	test_grep "warning: rule .typo. found nothing to check" err &&
	test_grep "\"examined\":0" out
'

test_expect_success 'the default rules file is found from a subdirectory; --rules is relative to the cwd' '
	rules app/.kbx-rules.yml <<-\EOF &&
	  - id: fan
	    limit: {in: "util/**", max-callers: 3}
	EOF
	(cd app/util && test_expect_code 10 kbx check --format=grep) >out &&
	test_grep "^util/text.py:4:1: fan:" out &&
	rules app/util/other.yml <<-\EOF &&
	  - id: other
	    limit: {in: "util/**", max-callers: 4}
	EOF
	(cd app/util && kbx check --rules=other.yml --format=grep) >out &&
	test_must_be_empty out
'

# ---- validation ----

test_expect_success 'a rules file that does not validate: every problem, at its line and column' - <<\EOT
	cat >app/bad.yml <<-\EOF &&
	rules:
	  - id: one
	    forbid:
	      form: "lib/**"
	      to: "cmd/[a"
	      via: [calls, call]
	  - id: one
	    severity: fatal
	    no-cycles: {in: "a**b", via: defines, self-loops: maybe}
	  - description: no id
	    limit: {max-callers: "20", max-callees: -1}
	  - id: two
	    must-be-called: {in: "/lib/**"}
	    limit: {max-callers: 3}
	  - id: nothing
	  - just a string
	extra: 1
	EOF
	(cd app && test_expect_code 2 kbx check --rules=bad.yml) >out 2>err &&
	test_must_be_empty out &&
	cat >expect <<-\EOF &&
	error: 'bad.yml' at line 1, column 1: no 'version': start the file with 'version: 1'
	error: 'bad.yml' at line 3, column 5: the forbid check of rule 'one' has no 'from': give the paths the forbidden edges start from, as in 'from: "lib/**"'
	error: 'bad.yml' at line 4, column 7: unknown key 'form' in the forbid check of rule 'one': did you mean 'from'? (the keys are from, to and via)
	error: 'bad.yml' at line 5, column 11: bad glob 'cmd/[a' in 'to' of the forbid check of rule 'one': a '[' without its ']' (write '\[' for a literal '[')
	error: 'bad.yml' at line 6, column 20: unknown edge kind 'call' in 'via' of the forbid check of rule 'one': did you mean 'calls'? the kinds are calls, imports and inherits
	error: 'bad.yml' at line 7, column 9: rule id 'one' is already used by the rule at line 2: ids must be unique
	error: 'bad.yml' at line 8, column 15: 'severity' in rule 'one' must be error or warning, not 'fatal'
	error: 'bad.yml' at line 9, column 21: bad glob 'a**b' in 'in' of the no-cycles check of rule 'one': '**' must be a whole path component, as in 'lib/**', '**/test' or 'a/**/b'
	error: 'bad.yml' at line 9, column 34: unknown edge kind 'defines' in 'via' of the no-cycles check of rule 'one': the kinds are calls, imports and inherits
	error: 'bad.yml' at line 9, column 55: 'self-loops' in the no-cycles check of rule 'one' must be true or false, not 'maybe'
	error: 'bad.yml' at line 10, column 5: rule 3 has no 'id': give it a name such as 'id: lib-does-not-call-cmd'
	error: 'bad.yml' at line 11, column 26: 'max-callers' in the limit check of rule 3 must be a number, not the string "20": drop the quotes
	error: 'bad.yml' at line 11, column 45: 'max-callees' in the limit check of rule 3 must be a whole number, 0 or more, not '-1'
	error: 'bad.yml' at line 13, column 26: bad glob '/lib/**' in 'in' of the must-be-called check of rule 'two': patterns are relative to the repository root: drop the leading '/'
	error: 'bad.yml' at line 14, column 5: rule 'two' has two checks, 'must-be-called' and 'limit': write one rule for each
	error: 'bad.yml' at line 15, column 5: rule 'nothing' has no check: give one of forbid, no-cycles, limit and must-be-called
	error: 'bad.yml' at line 16, column 5: rule 6 is a single value: each rule is a mapping with an 'id' and one check (forbid, no-cycles, limit or must-be-called)
	error: 'bad.yml' at line 17, column 1: unknown key 'extra' in the top level: the keys are version and rules
	error: 'bad.yml' has 18 problems: nothing was checked (see 'kbx help rules')
	EOF
	test_cmp expect err
EOT

test_expect_success 'a file that is not YAML: exit 2 with the place of the syntax error' '
	printf "version: 1\nrules:\n  - id: x\n    forbid: {from: a\n" >app/broken.yml &&
	(cd app && test_expect_code 2 kbx check --rules=broken.yml) 2>err &&
	test_grep "^error: .broken.yml. at line 5, column 1: not valid YAML: " err &&
	test_grep "has 1 problem: nothing was checked" err
'

test_expect_success 'version: missing, quoted, unsupported; an empty file' '
	printf "version: \"1\"\nrules: []\n" >app/v.yml &&
	(cd app && test_expect_code 2 kbx check --rules=v.yml) 2>err &&
	test_grep "line 1, column 10: .version. must be the number 1, not \"1\"" err &&
	printf "version: 2\nrules: []\n" >app/v.yml &&
	(cd app && test_expect_code 2 kbx check --rules=v.yml) 2>err &&
	test_grep "line 1, column 10: version .2. is not supported: this kbx reads rules files of version 1" err &&
	: >app/v.yml &&
	(cd app && test_expect_code 2 kbx check --rules=v.yml) 2>err &&
	test_grep "line 1, column 1: the file is empty" err &&
	printf "version: 1\nrules: []\n" >app/v.yml &&
	(cd app && kbx check --rules=v.yml) >out &&
	test_grep "^0 rules: 0 failed" out
'

test_expect_success 'a rules file that cannot be read is exit 6' '
	(cd app && test_expect_code 2 kbx check --rules=no-such.yml) 2>err &&
	test_grep "no rules file .no-such.yml." err &&
	mkdir app/dir.yml &&
	(cd app && test_expect_code 6 kbx check --rules=dir.yml) 2>err &&
	test_grep "cannot read the rules file .dir.yml." err
'

test_expect_success 'github: problems of the rules file are annotations too' '
	(cd app && test_expect_code 2 kbx check --rules=bad.yml --format=github) >out 2>err &&
	test_line_count = 18 out &&
	test_grep "^::error file=bad.yml,line=4,col=7,title=kbx check%3A bad rules file::unknown key .form." out &&
	test_line_count = 19 err
'

# ---- output formats ----

test_expect_success 'setup: rules of every kind, for the formats' '
	rules app/.kbx-rules.yml <<-\EOF
	  - id: core-not-web
	    description: the core never reaches into the web layer
	    forbid: {from: "core/**", to: "web/**"}
	  - id: no-import-cycles
	    no-cycles: {via: imports}
	  - id: fan
	    limit: {in: "util/**", max-callers: 3, max-callees: 4}
	  - id: used
	    must-be-called: {in: "util/text.py", name: "!busy"}
	  - id: fine
	    forbid: {from: "util/**", to: "web/**"}
	EOF
'

test_expect_success 'text: grouped by rule, each violation at its place' - <<\EOT
	(cd app && test_expect_code 10 kbx check) >out &&
	cat >expect <<-\EOF &&
	FAIL core-not-web: the core never reaches into the web layer
	  (nothing in core/** calls or imports anything in web/**)
	  core/engine.py:3: error: core/engine.py imports web/views.py
	  core/engine.py:8: error: core/engine.py#start calls web/views.py#render
	  core/engine.py:12: warning: core/engine.py#persist may call web/store.py#SessionStore.save (ambiguous: one of 2 candidates)
	  core/engine.py:16: warning: core/engine.py#shutdown may call web/conn.py#Conn.close (the call names one of 18 definitions of 'close')

	FAIL no-import-cycles: no import cycles
	  core/engine.py:2: error: cycle of 2 files: core/engine.py -> core/model.py -> core/engine.py (one of the cycles among 3 files that reach each other)
	      core/engine.py:2  imports core/model.py
	      core/model.py:2  imports core/engine.py

	FAIL fan: functions in util/** have at most 3 callers and 4 callees
	  util/text.py:4: error: util/text.py#shout has 4 callers, more than the 3 allowed
	  util/text.py:32: error: util/text.py#busy has 5 callees, more than the 4 allowed

	FAIL used: every function in util/text.py not named busy has a caller
	  util/text.py:8: error: util/text.py#orphan is never called

	ok   fine: nothing in util/** calls or imports anything in web/**

	5 rules: 4 failed, 0 passed with warnings, 1 passed (6 errors, 2 warnings)
	EOF
	test_cmp expect out
EOT

test_expect_success 'grep: path:line:col: rule: message' '
	(cd app && test_expect_code 10 kbx check --format=grep) >out &&
	test_line_count = 8 out &&
	test_grep "^core/engine.py:2:1: no-import-cycles: cycle of 2 files: " out &&
	test_grep "^util/text.py:8:1: used: util/text.py#orphan is never called$" out &&
	test_grep ! -v "^[^:]*:[0-9]*:[0-9]*: [a-z-]*: " out
'

test_expect_success PYTHON3 'json: a rule record per rule, a violation per violation, a summary' '
	(cd app && test_expect_code 10 kbx check --format=json) >out &&
	cat >check-json.py <<-\EOF &&
	import json, sys
	recs = [json.loads(line) for line in open(sys.argv[1])]
	types = [r["type"] for r in recs]
	assert types[-1] == "summary", types
	assert types.count("rule") == 5 and types.count("violation") == 8, types
	s = recs[-1]
	assert s == {"type": "summary", "status": "failed", "rules": 5, "failed": 4, "warned": 0,
	             "passed": 1, "errors": 6, "warnings": 2, "strict": False,
	             "rules_file": ".kbx-rules.yml"}, s
	fields = ["type", "rule", "check", "level", "confidence", "message", "path", "line", "col",
	          "edge", "from", "to", "candidates", "symbol", "measure", "count", "possible",
	          "max", "cycle", "component"]
	rule = None
	for r in recs:
	    if r["type"] == "rule":
	        rule = r
	        assert list(r) == ["type", "id", "check", "severity", "status", "errors",
	                           "warnings", "examined", "summary", "description", "line"], list(r)
	        assert r["status"] == ("failed" if r["errors"] else "passed")
	    elif r["type"] == "violation":
	        assert list(r) == fields, list(r)
	        assert r["rule"] == rule["id"] and r["check"] == rule["check"]
	        assert r["level"] in ("error", "warning") and r["confidence"] in ("certain", "ambiguous")
	        assert (r["level"] == "warning") == (r["confidence"] == "ambiguous")
	        assert isinstance(r["path"], str) and r["line"] >= 1 and r["col"] >= 1
	        if r["check"] == "forbid":
	            assert r["from"] and r["to"] and r["candidates"] >= 1 and r["cycle"] is None
	        if r["check"] == "no-cycles":
	            assert [c["id"] for c in r["cycle"]] == ["core/engine.py", "core/model.py"]
	            assert r["cycle"][1] == {"id": "core/model.py", "path": "core/model.py",
	                                     "line": 2, "col": 1, "confidence": "certain"}
	            assert r["component"] == 3
	        if r["check"] == "limit":
	            assert r["measure"] in ("callers", "callees") and r["count"] > r["max"]
	            assert r["symbol"] in ("util/text.py#shout", "util/text.py#busy")
	        if r["check"] == "must-be-called":
	            assert r["symbol"] == "util/text.py#orphan" and r["measure"] is None
	print("ok")
	EOF
	python3 check-json.py out >result &&
	echo ok >expect &&
	test_cmp expect result
'

test_expect_success 'json: --format-version that does not exist is exit 2' '
	(cd app && test_expect_code 2 kbx check --format=json --format-version=99) 2>err &&
	test_grep "format-version=99 is not supported" err &&
	(cd app && test_expect_code 2 kbx check --format=yaml) 2>err
'

test_expect_success PYTHON3 'sarif: a SARIF 2.1.0 log with the required fields' '
	(cd app && test_expect_code 10 kbx check --format=sarif) >out.sarif &&
	test_line_count = 1 out.sarif &&
	cat >check-sarif.py <<-\EOF &&
	import json, sys
	log = json.load(open(sys.argv[1]))
	levels = ("none", "note", "warning", "error")

	def obj(o, where, required, allowed):
	    assert isinstance(o, dict), where + " is not an object"
	    for k in required:
	        assert k in o, "%s lacks %s" % (where, k)
	    for k in o:
	        assert k in allowed, "%s has a property %s that SARIF does not define" % (where, k)

	def text(m, where):
	    obj(m, where, ["text"], ["text", "markdown", "id", "arguments", "properties"])
	    assert isinstance(m["text"], str) and m["text"], where

	def location(l, where):
	    obj(l, where, [], ["id", "physicalLocation", "logicalLocations", "message",
	                       "annotations", "relationships", "properties"])
	    p = l["physicalLocation"]
	    obj(p, where + ".physicalLocation", ["artifactLocation"],
	        ["address", "artifactLocation", "region", "contextRegion", "properties"])
	    a = p["artifactLocation"]
	    obj(a, where + ".artifactLocation", ["uri"], ["uri", "uriBaseId", "index",
	                                                   "description", "properties"])
	    assert isinstance(a["uri"], str) and not a["uri"].startswith("/"), a
	    assert " " not in a["uri"] and ":" not in a["uri"], a
	    r = p["region"]
	    obj(r, where + ".region", ["startLine"], ["startLine", "startColumn", "endLine",
	                                               "endColumn", "charOffset", "charLength",
	                                               "byteOffset", "byteLength", "snippet",
	                                               "message", "sourceLanguage", "properties"])
	    assert isinstance(r["startLine"], int) and r["startLine"] >= 1, r
	    assert isinstance(r.get("startColumn", 1), int) and r.get("startColumn", 1) >= 1, r
	    if "message" in l:
	        text(l["message"], where + ".message")
	    return a

	obj(log, "log", ["version", "runs"], ["$schema", "version", "runs", "inlineExternalProperties", "properties"])
	assert log["version"] == "2.1.0"
	assert log["$schema"].startswith("https://") and log["$schema"].endswith("sarif-schema-2.1.0.json")
	assert isinstance(log["runs"], list) and len(log["runs"]) == 1
	run = log["runs"][0]
	obj(run, "run", ["tool"], ["tool", "invocations", "originalUriBaseIds", "results", "properties",
	                           "artifacts", "columnKind", "language"])
	obj(run["tool"], "tool", ["driver"], ["driver", "extensions", "properties"])
	d = run["tool"]["driver"]
	obj(d, "driver", ["name"], ["name", "version", "semanticVersion", "informationUri", "rules",
	                            "fullName", "organization", "properties"])
	assert d["name"] == "kbx" and isinstance(d["version"], str) and d["version"]
	ids = []
	for i, r in enumerate(d["rules"]):
	    obj(r, "rules[%d]" % i, ["id"], ["id", "name", "shortDescription", "fullDescription",
	                                     "defaultConfiguration", "help", "helpUri", "properties"])
	    text(r["shortDescription"], "shortDescription")
	    text(r["fullDescription"], "fullDescription")
	    obj(r["defaultConfiguration"], "defaultConfiguration", [], ["level", "enabled", "rank",
	                                                                "parameters", "properties"])
	    assert r["defaultConfiguration"]["level"] in levels
	    ids.append(r["id"])
	assert ids == ["core-not-web", "no-import-cycles", "fan", "used", "fine"], ids
	assert d["rules"][0]["shortDescription"]["text"] == "the core never reaches into the web layer"
	bases = run["originalUriBaseIds"]
	assert bases["%SRCROOT%"]["uri"].startswith("file:///") and bases["%SRCROOT%"]["uri"].endswith("/")
	for inv in run["invocations"]:
	    obj(inv, "invocation", ["executionSuccessful"], ["executionSuccessful", "properties",
	                                                     "exitCode", "commandLine"])
	    assert inv["executionSuccessful"] is True
	results = run["results"]
	assert isinstance(results, list) and len(results) == 8, len(results)
	seen = []
	for i, res in enumerate(results):
	    where = "results[%d]" % i
	    obj(res, where, ["message"], ["ruleId", "ruleIndex", "level", "message", "locations",
	                                  "relatedLocations", "properties", "kind", "rule"])
	    text(res["message"], where + ".message")
	    assert res["ruleId"] in ids and ids[res["ruleIndex"]] == res["ruleId"], res
	    assert res["level"] in levels
	    assert len(res["locations"]) == 1
	    a = location(res["locations"][0], where + ".locations[0]")
	    assert a["uriBaseId"] in bases
	    for j, rl in enumerate(res.get("relatedLocations", [])):
	        location(rl, where + ".relatedLocations[%d]" % j)
	        assert isinstance(rl["id"], int) and rl["id"] >= 0
	    loc = res["locations"][0]["physicalLocation"]
	    seen.append("%s:%d:%s:%s" % (loc["artifactLocation"]["uri"], loc["region"]["startLine"],
	                                 res["ruleId"], res["level"]))
	for s in seen:
	    print(s)
	EOF
	python3 check-sarif.py out.sarif >actual &&
	cat >expect <<-\EOF &&
	core/engine.py:3:core-not-web:error
	core/engine.py:8:core-not-web:error
	core/engine.py:12:core-not-web:warning
	core/engine.py:16:core-not-web:warning
	core/engine.py:2:no-import-cycles:error
	util/text.py:4:fan:error
	util/text.py:32:fan:error
	util/text.py:8:used:error
	EOF
	test_cmp expect actual
'

test_expect_success 'github: workflow commands, ::error and ::warning, escaped' - <<\EOT
	(cd app && test_expect_code 10 kbx check --format=github) >out &&
	cat >expect <<-\EOF &&
	::error file=core/engine.py,line=3,col=1,title=kbx check%3A core-not-web::core/engine.py imports web/views.py
	::error file=core/engine.py,line=8,col=12,title=kbx check%3A core-not-web::core/engine.py#start calls web/views.py#render
	::warning file=core/engine.py,line=12,col=5,title=kbx check%3A core-not-web::core/engine.py#persist may call web/store.py#SessionStore.save (ambiguous: one of 2 candidates)
	::warning file=core/engine.py,line=16,col=5,title=kbx check%3A core-not-web::core/engine.py#shutdown may call web/conn.py#Conn.close (the call names one of 18 definitions of 'close')
	::error file=core/engine.py,line=2,col=1,title=kbx check%3A no-import-cycles::cycle of 2 files: core/engine.py -> core/model.py -> core/engine.py (one of the cycles among 3 files that reach each other)
	::error file=util/text.py,line=4,col=1,title=kbx check%3A fan::util/text.py#shout has 4 callers, more than the 3 allowed
	::error file=util/text.py,line=32,col=1,title=kbx check%3A fan::util/text.py#busy has 5 callees, more than the 4 allowed
	::error file=util/text.py,line=8,col=1,title=kbx check%3A used::util/text.py#orphan is never called
	kbx check: 5 rules, 4 failed (6 errors, 2 warnings)
	EOF
	test_cmp expect out
EOT

test_expect_success PYTHON3 'paths with special characters: escaped for GitHub, percent-encoded in SARIF' '
	mkdir odd &&
	mkdir "odd/my lib" odd/web &&
	printf "def render():\n    return 1\n" >odd/web/views.py &&
	printf "from web.views import render\n\n\ndef go():\n    return render()\n" >"odd/my lib/a,b%c.py" &&
	(cd odd && git init -q && kbx index -q) &&
	rules odd/.kbx-rules.yml <<-\EOF &&
	  - id: x
	    forbid: {from: "my lib/**", to: "web/**", via: calls}
	EOF
	(cd odd && test_expect_code 10 kbx check --format=github) >out &&
	test_grep "^::error file=my lib/a%2Cb%25c.py,line=5,col=12,title=kbx check%3A x::my lib/a,b%25c.py#go calls web/views.py#render$" out &&
	(cd odd && test_expect_code 10 kbx check --format=sarif) >out.sarif &&
	python3 -c "import json,sys; r = json.load(open(sys.argv[1]))[\"runs\"][0][\"results\"][0]; print(r[\"locations\"][0][\"physicalLocation\"][\"artifactLocation\"][\"uri\"])" out.sarif >actual &&
	echo "my%20lib/a,b%25c.py" >expect &&
	test_cmp expect actual
'

test_expect_success 'a rules file with no rules passes, in every format' '
	printf "version: 1\nrules: []\n" >app/none.yml &&
	for f in text json grep sarif github
	do
		(cd app && kbx check --rules=none.yml --format=$f) >out.$f || return 1
	done &&
	test_must_be_empty out.grep &&
	test_grep "\"type\":\"summary\",\"status\":\"passed\",\"rules\":0" out.json &&
	test_grep "\"results\":\[\]" out.sarif &&
	test_grep "^kbx check: 0 rules, 0 failed" out.github
'

test_expect_success 'a closed stdout is an error (exit 6), not a pass' '
	(cd app && test_expect_code 6 kbx check --rules=none.yml >/dev/full) 2>err &&
	test_grep "cannot write the output" err
'

test_done
