#!/bin/sh
test_description='kbx index: scripts without an extension, by their #! line or a modeline

A file whose name has no extension is read as the language its first line
names ("#!/bin/sh", "#!/usr/bin/env lua") or a vim or Emacs modeline in
its first or last five lines says; only the first and last KiB are read,
and a symbolic link is never followed.'

. "$(dirname "$0")"/test-lib.sh

# lang_of PATH: the language kbx gives the definitions of PATH.
lang_of () {
	kbx defines --format=json "$1" >defs.json &&
	sed -n 's/.*"lang":"\([a-z]*\)".*/\1/p' defs.json | sort -u
}

test_expect_success 'set up scripts of several languages without extensions' '
	git init -q repo &&
	mkdir -p repo/bin &&
	printf "#!/bin/sh\nhello() { echo hi; }\nhello\n" >repo/bin/tool &&
	printf "#!/usr/bin/env -S lua -W\nfunction run() end\n" >repo/bin/run &&
	printf "#! /usr/bin/python3.11 -u\ndef build():\n    pass\n" >repo/bin/build &&
	printf "#!/usr/bin/env node\nfunction serve() {}\n" >repo/bin/serve &&
	printf "#!/usr/bin/php\n<?php\nfunction page() {}\n" >repo/bin/page &&
	printf "#!/usr/bin/env kotlin\nfun greet() = println(1)\ngreet()\n" >repo/bin/greet &&
	printf "#!/usr/bin/env -S scala-cli shebang\ndef hello() = println(1)\nhello()\n" >repo/bin/hello &&
	printf "#!/usr/bin/env dart\nvoid main() => print(1);\n" >repo/bin/dartish &&
	printf "#!/usr/bin/env elixir\ndefmodule Task do\n  def go, do: 1\nend\n" >repo/bin/task &&
	printf "#!/usr/bin/env ocaml\nlet greet () = print_endline \"hi\"\nlet () = greet ()\n" >repo/bin/camel &&
	printf "pub fn main() void {}\n// vim: set ft=zig:\n" >repo/bin/ziggy &&
	printf "(* -*- mode: tuareg -*- *)\nlet f x = x\n" >repo/bin/tuareg &&
	printf "#!/usr/bin/env runghc\nmain = putStrLn greeting\ngreeting = \"hi\"\n" >repo/bin/hello-hs &&
	printf "def gen\nend\n\n# vim: set ft=ruby:\n" >repo/bin/gen &&
	printf -- "-- -*- mode: lua -*-\nfunction conf() end\n" >repo/bin/conf &&
	printf "@interface Shape\n@end\n@implementation Shape\n- (void)draw {}\n@end\n// vim: ft=objc\n" >repo/bin/shape &&
	printf "#!/usr/bin/perl\nsub main { }\n" >repo/bin/perl-tool &&
	printf "def far():\n    pass\n\n\n\n\n\n# vim: ft=python\n\n\n\n\n\n\n" >repo/bin/far &&
	printf "#!/bin/sh\nnotes() { :; }\n" >repo/bin/notes.txt &&
	ln -s tool repo/bin/link &&
	(cd repo && kbx index -q)
'

test_expect_success 'a #! line names the interpreter, past env and its options' '
	(cd repo && lang_of bin/tool) >actual && echo bash >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/run) >actual && echo lua >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/build) >actual && echo python >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/serve) >actual && echo javascript >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/page) >actual && echo php >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/greet) >actual && echo kotlin >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/hello) >actual && echo scala >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/dartish) >actual && echo dart >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/task) >actual && echo elixir >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/camel) >actual && echo ocaml >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/hello-hs) >actual && echo haskell >expect && test_cmp expect actual
'

test_expect_success 'a modeline at the end (vim) or the start (Emacs)' '
	(cd repo && lang_of bin/gen) >actual && echo ruby >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/conf) >actual && echo lua >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/shape) >actual && echo objc >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/ziggy) >actual && echo zig >expect && test_cmp expect actual &&
	(cd repo && lang_of bin/tuareg) >actual && echo ocaml >expect && test_cmp expect actual
'

test_expect_success 'an unknown interpreter, a modeline out of reach, an extension, a link: not indexed' '
	(cd repo &&
	 test_must_fail kbx defines bin/perl-tool &&
	 test_must_fail kbx defines bin/far &&
	 test_must_fail kbx defines bin/notes.txt &&
	 test_must_fail kbx defines bin/link)
'

test_expect_success 'a script is found again when it changes, and calls resolve in it' '
	(cd repo &&
	 printf "#!/bin/sh\nhello() { echo hi; }\nbye() { hello; }\nbye\n" >bin/tool &&
	 kbx index -q &&
	 kbx callees --format=json bin/tool#bye >out.json) &&
	test_grep "\"id\":\"bin/tool#hello\"" repo/out.json
'

test_expect_success 'a script sources another without an extension' '
	(cd repo &&
	 mkdir -p lib &&
	 printf "greet() { :; }\n# vim: ft=sh\n" >lib/common &&
	 printf "#!/bin/bash\n. lib/common\nmain() { greet; }\n" >bin/greeter &&
	 kbx index -q &&
	 kbx imports --format=json bin/greeter >imports.json &&
	 kbx callees --format=json bin/greeter#main >callees.json) &&
	test_grep "\"id\":\"lib/common\"" repo/imports.json &&
	test_grep "\"id\":\"lib/common#greet\".*\"confidence\":\"certain\"" repo/callees.json
'

test_done
