#!/bin/sh
test_description='kbx config: the user and repository files, precedence, validation, and each key at work

The user file is $XDG_CONFIG_HOME/kbx/config or ~/.config/kbx/config, the
repository file .kbx/config; repository beats user beats default.  Every
line is checked on reading, with errors that name the file and the line.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq SCRIPT 'script -qec true /dev/null </dev/null >/dev/null'
test_lazy_prereq STRACE 'strace -f -o /dev/null true'

USER_FILE="$HOME/.config/kbx/config"

test_expect_success 'setup: a tree without an index' '
	mkdir repo &&
	printf "def f():\n    g()\n\ndef g():\n    return 1\n" >repo/a.py &&
	printf "from a import f\n\ndef h():\n    f()\n" >repo/b.py &&
	mkdir elsewhere
'

test_expect_success 'with no file anywhere, a key reads as its default' '
	(cd elsewhere && kbx config index.maxFileSize) >out &&
	echo 1m >expect &&
	test_cmp expect out &&
	(cd elsewhere && kbx config core.pager) >out &&
	echo "less -FRX" >expect &&
	test_cmp expect out &&
	(cd elsewhere && kbx config --show-origin pager.enabled) >out &&
	printf "default\ttrue\n" >expect &&
	test_cmp expect out
'

test_expect_success '--user writes the user file before any index, and no .kbx' '
	(cd repo && kbx config --user index.threads 2) &&
	test_path_is_file "$USER_FILE" &&
	echo "index.threads = 2" >expect &&
	test_cmp expect "$USER_FILE" &&
	test_path_is_missing repo/.kbx &&
	(cd elsewhere && kbx config index.threads) >out &&
	echo 2 >expect &&
	test_cmp expect out
'

test_expect_success 'a negative value goes after --; without it, a hint says so' '
	(cd repo && test_expect_code 2 kbx config --user search.efSearch -3 2>../err) &&
	test_grep "hint: a value that starts with .-. goes after .--.: kbx config KEY -- -3" err &&
	(cd repo && test_expect_code 2 kbx config --user search.efSearch -- -3 2>../err) &&
	test_grep "search.efSearch: -3 is out of range: use 0 to 65536" err &&
	(cd repo && test_expect_code 2 kbx config --user --bogus 2>../err) &&
	test_grep ! "hint: a value" err
'

test_expect_success 'XDG_CONFIG_HOME moves the user file' '
	mkdir xdg &&
	(
		XDG_CONFIG_HOME="$TRASH_DIRECTORY/xdg" &&
		export XDG_CONFIG_HOME &&
		cd elsewhere &&
		kbx config --user color.ui never &&
		kbx config index.threads >../out
	) &&
	echo "color.ui = never" >expect &&
	test_cmp expect xdg/kbx/config &&
	echo 0 >expect &&
	test_cmp expect out &&
	test_grep ! color "$USER_FILE"
'

test_expect_success 'a repository write makes .kbx with the file but no store' '
	(cd repo && kbx config index.threads 1) &&
	test_path_is_dir repo/.kbx &&
	echo "index.threads = 1" >expect &&
	test_cmp expect repo/.kbx/config &&
	test_path_is_file repo/.kbx/.gitignore &&
	test_path_is_missing repo/.kbx/data.mdb &&
	(cd repo && test_expect_code 3 kbx status 2>../err) &&
	test_grep "run .kbx index." err &&
	(cd repo && test_expect_code 3 kbx defs f 2>../err) &&
	test_grep "run .kbx index." err &&
	test_path_is_missing repo/.kbx/data.mdb
'

test_expect_success 'kbx index then uses that directory, and the file stays' '
	(cd repo && kbx index -q && kbx defs f >../out) &&
	test_grep "a.py:1" out &&
	test_path_is_file repo/.kbx/data.mdb &&
	echo "index.threads = 1" >expect &&
	test_cmp expect repo/.kbx/config
'

test_expect_success 'precedence: repository, then user, then default' '
	(cd repo && kbx config --show-origin index.threads) >out &&
	printf "%s\t1\n" "$TRASH_DIRECTORY/repo/.kbx/config:1" >expect &&
	test_cmp expect out &&
	(cd repo && kbx config --user index.threads) >out &&
	echo 2 >expect &&
	test_cmp expect out &&
	(cd repo && kbx config --repo index.threads) >out &&
	echo 1 >expect &&
	test_cmp expect out &&
	(cd repo/ && kbx config --unset index.threads) &&
	(cd repo && kbx config --show-origin index.threads) >out &&
	printf "%s\t2\n" "$USER_FILE:1" >expect &&
	test_cmp expect out &&
	kbx config --user --unset index.threads &&
	(cd repo && kbx config --show-origin index.threads) >out &&
	printf "default\t0\n" >expect &&
	test_cmp expect out
'

test_expect_success 'a key no file sets: --user and --repo find nothing (exit 1)' '
	(cd repo && test_expect_code 1 kbx config --repo index.threads >../out) &&
	test_must_be_empty out &&
	(cd repo && test_expect_code 1 kbx config --user index.threads >../out) &&
	test_must_be_empty out
'

test_expect_success '--unset of a key the file does not set exits 1, with a hint' '
	kbx config --user color.ui always &&
	(cd repo && test_expect_code 1 kbx config --unset color.ui 2>../err) &&
	test_grep "does not set color.ui" err &&
	test_grep "kbx config --user --unset color.ui" err &&
	kbx config --user --unset color.ui &&
	test_must_be_empty "$USER_FILE"
'

test_expect_success '--list: the keys set, with the value in effect, in key order' '
	kbx config --user index.threads 3 &&
	kbx config --user core.pager "more" &&
	(cd repo && kbx config index.threads 4 && kbx config color.ui never) &&
	(cd repo && kbx config --list) >out &&
	cat >expect <<-\EOF &&
	color.ui=never
	core.pager=more
	index.threads=4
	EOF
	test_cmp expect out &&
	(cd repo && kbx config --user --list) >out &&
	cat >expect <<-\EOF &&
	core.pager=more
	index.threads=3
	EOF
	test_cmp expect out &&
	(cd repo && kbx config -l --show-origin) >out &&
	test_grep "^$TRASH_DIRECTORY/repo/.kbx/config:2	color.ui=never\$" out &&
	test_grep "^$USER_FILE:2	core.pager=more\$" out
'

test_expect_success '--list --defaults lists every key' '
	(cd elsewhere && kbx config --list --defaults) >out &&
	cut -d= -f1 out >key-names &&
	cat >expect <<-\EOF &&
	color.ui
	core.pager
	dead.ignore
	index.cHeaders
	index.codeChunks
	index.compact
	index.cppHeaders
	index.markdown
	index.maxFileSize
	index.parseTimeout
	index.threads
	pager.enabled
	push.database
	repos.register
	safe.directory
	search.apiKeyEnv
	search.batchSize
	search.command
	search.dimensions
	search.documentPrefix
	search.efSearch
	search.fusion
	search.index
	search.limit
	search.mode
	search.model
	search.nprobe
	search.provider
	search.queryPrefix
	search.retries
	search.timeout
	search.url
	EOF
	test_cmp expect key-names
'

test_expect_success 'every key is documented in kbx-settings(7)' '
	while read -r key
	do
		test_grep "^\*\*$key\*\*" "$KBX_SRC/man/kbx-settings.7.md" || return 1
	done <key-names
'

test_expect_success 'keys are matched without regard to case; the file keeps comments' '
	(cd repo && kbx config INDEX.THREADS 5) &&
	test_grep "^index.threads = 5\$" repo/.kbx/config &&
	test_line_count = 2 repo/.kbx/config &&
	printf "# my comment\n\nindex.threads=6\n" >>repo/.kbx/config &&
	(cd repo && kbx config index.Threads) >out &&
	echo 6 >expect &&
	test_cmp expect out &&
	(cd repo && kbx config index.threads 7) &&
	cat >expect <<-\EOF &&
	index.threads = 7
	color.ui = never
	# my comment

	EOF
	test_cmp expect repo/.kbx/config
'

test_expect_success 'values with blanks are quoted, and read back' '
	(cd repo && kbx config search.queryPrefix "  query:  " && kbx config search.queryPrefix) >out &&
	echo "  query:  " >expect &&
	test_cmp expect out &&
	test_grep "^search.queryPrefix = \"  query:  \"\$" repo/.kbx/config &&
	(cd repo && kbx config --unset search.queryPrefix)
'

test_expect_success 'a bad value is refused, and the file is left as it was' '
	cp repo/.kbx/config before &&
	(cd repo && test_expect_code 2 kbx config index.threads 17 2>../err) &&
	test_grep "index.threads: 17 is out of range: use 0 to 16" err &&
	(cd repo && test_expect_code 2 kbx config index.maxFileSize 2x 2>../err) &&
	test_grep "not a size" err &&
	(cd repo && test_expect_code 2 kbx config pager.enabled maybe 2>../err) &&
	test_grep "not a boolean" err &&
	(cd repo && test_expect_code 2 kbx config color.ui sometimes 2>../err) &&
	test_grep "not one of auto, always, never" err &&
	(cd repo && test_expect_code 2 kbx config index.parseTimeout 1h 2>../err) &&
	test_grep "not a duration" err &&
	test_cmp before repo/.kbx/config &&
	test_path_is_missing repo/.kbx/config.lock
'

test_expect_success 'a bad value or key creates no .kbx' '
	mkdir fresh &&
	(cd fresh && test_expect_code 2 kbx config index.threads 99 2>/dev/null) &&
	(cd fresh && test_expect_code 2 kbx config index.thread 1 2>/dev/null) &&
	test_path_is_missing fresh/.kbx
'

test_expect_success 'an unknown key: exit 2 and the nearest key' '
	(cd repo && test_expect_code 2 kbx config index.maxFileSise 1k 2>../err) &&
	test_grep "unknown key .index.maxFileSise." err &&
	test_grep "index.maxFileSize" err &&
	(cd repo && test_expect_code 2 kbx config core.threads 2>../err) &&
	test_grep "index.threads" err &&
	(cd repo && test_expect_code 2 kbx config frobnicate.widget 2>../err) &&
	test_grep "unknown key" err
'

test_expect_success 'a bad line stops every command, naming the file and the line' '
	cp repo/.kbx/config good &&
	printf "index.maxFileSise = 1k\n" >>repo/.kbx/config &&
	n=$(wc -l <repo/.kbx/config) &&
	(cd repo && test_expect_code 2 kbx defs f 2>../err) &&
	test_grep "^error: bad setting in .$TRASH_DIRECTORY/repo/.kbx/config. at line $n: unknown key .index.maxFileSise.; did you mean .index.maxFileSize.?" err &&
	(cd repo && test_expect_code 2 kbx index 2>../err) &&
	test_grep "at line $n" err &&
	(cd repo && test_expect_code 2 kbx config --list 2>../err) &&
	test_grep "at line $n" err
'

test_expect_success 'with a bad file, version, help and -h still work, and --unset mends it' '
	(cd repo && kbx version && kbx defs -h && kbx config -h) >/dev/null &&
	(cd repo && kbx config --unset index.maxFileSise) &&
	test_cmp good repo/.kbx/config &&
	(cd repo && kbx defs f >/dev/null)
'

test_expect_success 'bad lines of every kind, in the user file too' '
	mkdir -p "$HOME/.config/kbx" &&
	for line in "[index]" "threads = 2" "index.threads" "index.threads = two" \
		"index.threads = 1 # comment" "core.pager = \"less" "core.pager = \"a\" b" \
		"a.b.c = 1" "pager.enabled = yes please"
	do
		printf "# settings\n%s\n" "$line" >"$USER_FILE" &&
		(cd repo && test_expect_code 2 kbx defs f 2>../err) &&
		test_grep "bad setting in .$USER_FILE. at line 2: " err || return 1
	done &&
	printf "index.threads = 1\n" >"$USER_FILE"
'

test_expect_success 'a writer that finds the lock file gives up with exit 5' '
	: >repo/.kbx/config.lock &&
	test_when_finished "rm -f repo/.kbx/config.lock" &&
	(cd repo && test_expect_code 5 kbx config index.threads 2 2>../err) &&
	test_grep "another kbx is changing" err &&
	test_cmp good repo/.kbx/config
'

test_expect_success 'the file is replaced by a rename, keeping its permissions' '
	chmod 600 repo/.kbx/config &&
	ls -i repo/.kbx/config >inode.before &&
	(cd repo && kbx config index.threads 2) &&
	ls -i repo/.kbx/config >inode.after &&
	! test_cmp inode.before inode.after &&
	ls -l repo/.kbx/config >mode &&
	test_grep "^-rw-------" mode &&
	test_path_is_missing repo/.kbx/config.lock
'

test_expect_success SYMLINKS 'a linked user file stays a link' '
	mkdir dotfiles &&
	printf "index.threads = 1\n" >dotfiles/kbx-config &&
	rm "$USER_FILE" &&
	ln -s "$TRASH_DIRECTORY/dotfiles/kbx-config" "$USER_FILE" &&
	kbx config --user color.ui never &&
	test -h "$USER_FILE" &&
	test_grep "color.ui = never" dotfiles/kbx-config &&
	rm "$USER_FILE" &&
	printf "" >"$USER_FILE"
'

test_expect_success '--kbx-dir and KBX_DIR choose the repository file' '
	mkdir store &&
	(cd repo && kbx --kbx-dir="$TRASH_DIRECTORY/store" config index.threads 3) &&
	echo "index.threads = 3" >expect &&
	test_cmp expect store/config &&
	(cd repo && KBX_DIR="$TRASH_DIRECTORY/store" kbx config index.threads) >out &&
	echo 3 >expect &&
	test_cmp expect out
'

test_expect_success 'command line: --user with --repo, extra operands, --defaults alone' '
	test_expect_code 2 kbx config --user --repo index.threads 2>err &&
	test_grep "cannot be used together" err &&
	test_expect_code 2 kbx config index.threads 1 2 2>err &&
	test_grep "^usage: kbx config" err &&
	test_expect_code 2 kbx config 2>err &&
	test_expect_code 2 kbx config --defaults 2>err &&
	test_expect_code 2 kbx config --unset 2>err
'

# ---- each key at work ----

test_expect_success 'setup: a tree with a large file' '
	mkdir keys &&
	printf "def small():\n    return 1\n" >keys/small.py &&
	i=0 &&
	while test $i -lt 2000
	do
		printf "def big_%d(a, b):\n    return [x * a + b for x in range(a) if x %% 3 == %d]\n" $i $((i % 3)) || return 1
		i=$((i + 1))
	done >keys/big.py &&
	(cd keys && kbx config index.threads 1)
'

test_expect_success 'index.maxFileSize skips larger files; --max-file-size wins' '
	(cd keys && kbx config index.maxFileSize 1k && kbx index 2>../err) &&
	test_grep "skipped .big.py.: larger than the size limit (1024 bytes" err &&
	(cd keys && test_expect_code 1 kbx defs big_1 2>/dev/null) &&
	(cd keys && kbx index --max-file-size=1m 2>../err) &&
	test_grep ! "note: skipped" err &&
	(cd keys && kbx defs big_1 >/dev/null) &&
	(cd keys && kbx config --unset index.maxFileSize)
'

test_expect_success 'index.parseTimeout gives up on slow parses' '
	(cd keys && kbx config index.parseTimeout 0 2>../err; test $? = 2) &&
	test_grep "out of range" err &&
	(cd keys && kbx config index.parseTimeout 1 && kbx index --rebuild 2>../err) &&
	test_grep "skipped .big.py.: parsing took longer than" err &&
	(cd keys && kbx config index.parseTimeout 10s && kbx index --rebuild 2>../err) &&
	test_grep ! "note: skipped" err &&
	(cd keys && kbx config --unset index.parseTimeout)
'

test_expect_success STRACE 'index.threads sets the worker threads; --threads wins' '
	for i in 1 2 3 4 5 6
	do
		printf "def f$i():\n    return $i\n" >keys/m$i.py || return 1
	done &&
	# the parser threads and the watchdog of their CPU time limit, then
	# the threads that make the code chunks (a store this small is not
	# compacted: index.compact)
	(cd keys && kbx config index.threads 3 &&
	 strace -f -e trace=clone,clone3 -o ../trace kbx index --rebuild -q) &&
	# a call another thread interrupts is two lines, the second
	# "<... clone3 resumed>"
	grep -v "resumed>" trace | grep -c "clone" >count &&
	echo 7 >expect &&
	test_cmp expect count &&
	(cd keys && strace -f -e trace=clone,clone3 -o ../trace kbx index --rebuild -q --threads=2) &&
	grep -v "resumed>" trace | grep -c "clone" >count &&
	echo 5 >expect &&
	test_cmp expect count
'

test_expect_success 'color.ui colours the text output even in a pipe; --color wins' '
	(cd keys && kbx config color.ui always && kbx defs small >../out) &&
	test_grep "$(printf "\033")" out &&
	(cd keys && kbx defs --color=never small >../out) &&
	test_grep ! "$(printf "\033")" out &&
	(cd keys && kbx defs --format=json small >../out) &&
	test_grep ! "$(printf "\033")" out &&
	(cd keys && kbx config color.ui never)
'

test_expect_success SCRIPT 'color.ui=auto colours a terminal, unless NO_COLOR; never wins over it' '
	(cd keys && kbx config color.ui auto) &&
	(cd keys && TERM=xterm script -qec "kbx --no-pager defs small" /dev/null >../tty.out </dev/null) &&
	test_grep "$(printf "\033")" tty.out &&
	(cd keys && TERM=xterm NO_COLOR=1 script -qec "kbx --no-pager defs small" /dev/null >../tty.out </dev/null) &&
	test_grep ! "$(printf "\033")" tty.out &&
	(cd keys && kbx config color.ui never) &&
	(cd keys && TERM=xterm script -qec "kbx --no-pager defs small" /dev/null >../tty.out </dev/null) &&
	test_grep "small.py" tty.out &&
	test_grep ! "$(printf "\033")" tty.out &&
	(cd keys && TERM=xterm script -qec "kbx --no-pager defs --color=always small" /dev/null >../tty.out </dev/null) &&
	test_grep "$(printf "\033")" tty.out
'

test_expect_success 'setup: a C++ header whose text C could read' '
	mkdir -p hdr/lib hdr/c &&
	printf "struct Counter {\n\tint n;\n\tint next() { return ++n; }\n};\n" >hdr/lib/counter.h &&
	printf "#include \"../lib/counter.h\"\nint main() { Counter c = {0}; return c.next(); }\n" >hdr/main.cpp &&
	printf "struct Node {\n\tint value;\n};\nint size(struct Node *n);\n" >hdr/c/node.h &&
	(cd hdr && kbx index -q)
'

test_expect_success 'without a setting a header is C++ only by its text' '
	(cd hdr && kbx defs --format=json Counter) >out &&
	test_grep "\"lang\":\"c\"" out &&
	(cd hdr && kbx defs --format=json Counter.next) >out &&
	test_grep ! "\"kind\":\"method\"" out
'

test_expect_success 'index.cppHeaders makes the headers it names C++ on the next run' '
	(cd hdr && kbx config index.cppHeaders "lib/" && kbx index --format=json) >out &&
	test_grep "\"parsed\":1" out &&
	(cd hdr && kbx defs --format=json Counter.next) >out &&
	test_grep "\"lang\":\"cpp\"" out &&
	test_grep "\"path\":\"lib/counter.h\"" out &&
	(cd hdr && kbx defs --format=json Node) >out &&
	test_grep "\"lang\":\"c\"" out &&
	(cd hdr && kbx index --format=json) >out &&
	test_grep "\"parsed\":0" out
'

test_expect_success 'a glob without a slash matches a header in any directory' '
	(cd hdr && kbx config index.cppHeaders "*.h" && kbx index -q) &&
	(cd hdr && kbx defs --format=json Node) >out &&
	test_grep "\"lang\":\"cpp\"" out
'

test_expect_success 'index.cHeaders: a header both name is C++; the others named are C' '
	(cd hdr && kbx config index.cHeaders "*.h" && kbx index -q) &&
	(cd hdr && kbx defs --format=json Node) >out &&
	test_grep "\"lang\":\"cpp\"" out &&
	(cd hdr && kbx config index.cppHeaders "lib/counter.h" && kbx index -q) &&
	(cd hdr && kbx defs --format=json Node) >out &&
	test_grep "\"lang\":\"c\"" out &&
	(cd hdr && kbx defs --format=json Counter.next) >out &&
	test_grep "\"kind\":\"method\"" out
'

test_expect_success 'a run over part of the tree leaves the others to the next whole run' '
	(cd hdr && kbx config --unset index.cppHeaders && kbx config --unset index.cHeaders) &&
	(cd hdr && kbx index --format=json c) >out &&
	test_grep "\"parsed\":0" out &&
	(cd hdr && kbx defs --format=json Counter.next) >out &&
	test_grep "\"kind\":\"method\"" out &&
	(cd hdr && kbx index --format=json) >out &&
	test_grep "\"parsed\":1" out &&
	(cd hdr && kbx defs --format=json Counter.next) >out &&
	test_grep ! "\"kind\":\"method\"" out
'

test_expect_success 'kbx changed reads a header as kbx index would' '
	printf "struct Gauge {\n\tint level() { return 0; }\n};\n" >>hdr/lib/counter.h &&
	(cd hdr && kbx changed) >out &&
	test_grep "Gauge" out &&
	test_grep ! "Gauge.level" out &&
	(cd hdr && kbx -c index.cppHeaders=lib/ changed) >out &&
	test_grep "Gauge.level" out
'

test_expect_success 'a repository may set the header keys' '
	(cd hdr && kbx config --repo index.cppHeaders "lib/") &&
	(cd hdr && kbx config --show-origin index.cppHeaders) >out &&
	test_grep "lib/" out &&
	(cd hdr && kbx config --unset index.cppHeaders)
'

test_done
