#!/bin/sh
test_description='--format=grep in real editors: vim quickfix, Emacs grep mode, a VS Code problem matcher

The README recipes, run for real where the editor is installed.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq VIM 'command -v vim'
test_lazy_prereq EMACS 'command -v emacs'
test_lazy_prereq PYTHON3 'command -v python3'

test_expect_success 'set up an indexed C tree' '
	mkdir -p repo/src &&
	printf "int add(int a, int b)\n{\n\treturn a + b;\n}\n" >repo/src/add.c &&
	printf "int add(int, int);\nint twice(int a)\n{\n\treturn add(a, a);\n}\nint main(void)\n{\n\treturn add(1, twice(2));\n}\n" >repo/src/main.c &&
	(cd repo && kbx index -q && kbx callers --format=grep add >../grep.out) &&
	test_line_count = 2 grep.out
'

test_expect_success VIM 'vim reads callers into the quickfix list' '
	(cd repo &&
	 vim -Es -u NONE -i NONE \
		-c "cexpr system(\"kbx callers --format=grep add\")" \
		-c "redir! > ../qf.txt" -c "silent clist" -c "redir END" -c "qa!") &&
	test_grep "src/main.c:4 col 9: twice calls add" qf.txt &&
	test_grep "src/main.c:8 col 9: main calls add" qf.txt
'

test_expect_success VIM 'vim jumps to the first call site' '
	(cd repo &&
	 vim -Es -u NONE -i NONE \
		-c "cexpr system(\"kbx callers --format=grep add\")" -c "cfirst" \
		-c "redir! > ../pos.txt" -c "echo expand(\"%\") . \":\" . line(\".\") . \":\" . col(\".\")" \
		-c "redir END" -c "qa!") &&
	test_grep "src/main.c:4:9" pos.txt
'

test_expect_success EMACS 'Emacs grep mode finds file and line of each result' '
	(cd repo &&
	 emacs --batch -Q --eval "
	   (progn
	     (require (quote grep))
	     (with-current-buffer (get-buffer-create \"*kbx*\")
	       (insert (shell-command-to-string \"kbx callers --format=grep add\"))
	       (grep-mode)
	       (compilation--ensure-parse (point-max))
	       (goto-char (point-min))
	       (while (not (eobp))
	         (let ((m (get-text-property (point) (quote compilation-message))))
	           (when m
	             (let ((loc (compilation--message->loc m)))
	               (princ (format \"%s:%s\\n\"
	                              (caar (compilation--loc->file-struct loc))
	                              (compilation--loc->line loc))))))
	         (forward-line 1))))" >../emacs.txt 2>/dev/null) &&
	test_write_lines src/main.c:4 src/main.c:8 >expect &&
	test_cmp expect emacs.txt
'

test_expect_success PYTHON3 'the VS Code problem matcher of the README matches every line' '
	sed -n "/^<!-- vscode-tasks -->/,/^<!-- \\/vscode-tasks -->/p" "$KBX_SRC/README.md" |
		sed "1,/^\`\`\`json/d; /^\`\`\`/,\$d" >tasks.json &&
	test_file_not_empty tasks.json &&
	python3 - tasks.json grep.out <<-\PY
	import json, re, sys
	tasks = json.load(open(sys.argv[1]))
	pm = tasks["tasks"][0]["problemMatcher"]
	pat = pm["pattern"]
	rx = re.compile(pat["regexp"])
	lines = [l.rstrip("\n") for l in open(sys.argv[2])]
	assert lines, "no output"
	for l in lines:
	    m = rx.match(l)
	    assert m, "no match: " + l
	    assert m.group(pat["file"]).startswith("src/"), l
	    assert int(m.group(pat["line"])) > 0, l
	    assert int(m.group(pat["column"])) > 0, l
	    assert m.group(pat["message"]), l
	print("ok")
	PY
'

test_done
