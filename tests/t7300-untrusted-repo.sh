#!/bin/sh
test_description='a stranger'"'"'s checkout: nothing it commits runs a program, reaches the network or writes outside the store

Each attack is built in a repository of its own, committed (git add -f
where git would ignore it) and cloned, as a user gets a pull request or
a new project; kbx then runs in the clone: index, status, search,
hybrid, check, and search --all-repos from another repository, some on
a pseudo-terminal.  Every attack program would leave a file in pwned/;
a listener on the loopback logs every connection; a canary text sits
outside every repository.  After each attack:

 - pwned/ is empty: no program ran;
 - the listener saw no connection;
 - no file outside the clone'"'"'s store changed (but for the user'"'"'s
   repository list, which kbx index adds the clone to);
 - the canary text is nowhere in the clone'"'"'s index, nor in anything
   kbx printed;
 - each refusal was explained on stderr.

kbx-security(7) describes the trust model these attacks test.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq SCRIPT 'script -qec true /dev/null </dev/null >/dev/null'

if ! test_have_prereq GIT || ! test_have_prereq PYTHON3
then
	skip_all='git and python3 are needed'
	test_done
fi

CANARY=kbx-canary-5e1f0c9a

# evil NAME: a small repository of code and Markdown in evil-NAME, ready
# for an attack to be added and committed.
# A 2 GB address-space limit, so that a read without end fails fast;
# not under a sanitizer build, whose shadow memory needs terabytes of
# address space (there the refusal is checked without the limit).
test_lazy_prereq ULIMIT_V '(ulimit -v 1000000 && kbx --version)'
ulimit_v_2g () {
	if test_have_prereq ULIMIT_V
	then
		ulimit -v 2000000
	fi
}

evil () {
	mkdir "evil-$1" &&
	(
		cd "evil-$1" &&
		git init -q &&
		printf "def parse_config(path):\n    return read_sections(path)\n\ndef read_sections(path):\n    return open(path).read()\n" >app.py &&
		printf "# Configuration\n\nThe parser reads sections of a config file.\n" >README.md &&
		git add . &&
		git commit -q -m base
	)
}

# commit_all NAME: commit everything in evil-NAME, ignored files too,
# and clone it to clone-NAME.
commit_all () {
	(cd "evil-$1" && git add -f -A . && git commit -q --allow-empty -m attack) &&
	git clone -q "evil-$1" "clone-$1"
}

# kbx_in NAME ARGS...: run kbx in clone-NAME, stdout and stderr appended
# to out/NAME.out and out/NAME.err; its exit code is returned.
kbx_in () {
	kbx_in_name_=$1 &&
	shift &&
	(cd "clone-$kbx_in_name_" && kbx "$@") \
		>>"out/$kbx_in_name_.out" 2>>"out/$kbx_in_name_.err"
}

# on_tty NAME CMD: CMD in clone-NAME on a pseudo-terminal, its output
# appended to out/NAME.tty.
on_tty () {
	(cd "clone-$1" && script -qec "$2" /dev/null) </dev/null >>"out/$1.tty" 2>&1
}

# unharmed NAME: what every attack must leave behind.
unharmed () {
	if test -n "$(ls pwned)"
	then
		echo "a program ran: $(ls pwned)" && return 1
	fi &&
	if test -s conn.log
	then
		echo "a connection was made:" && cat conn.log && return 1
	fi &&
	: a reader takes a slot in the lock file of every store it opens &&
	find . -path "./clone-$1/.kbx" -prune -o -path "./clone-$1/.git" -prune \
		-o -path ./out -prune -o -name lock.mdb \
		-o -path ./.config/kbx -prune -o -path ./conn.log -prune \
		-o -path ./port -prune -o -path ./listener.out -prune \
		-o -newer stamp -type f -print >out/changed &&
	if test -s out/changed
	then
		echo "files outside the clone's store changed:" && cat out/changed && return 1
	fi &&
	if grep -rl "$CANARY" out "clone-$1/.kbx" 2>/dev/null
	then
		echo "the canary text leaked" && return 1
	fi
}

# attack_begins: the time after which nothing outside the clone may
# change.
attack_begins () {
	sleep 1 && >stamp
}

# The listener, for the whole script: every connection it gets is a
# failure of the test that made it, and of the last one.
>conn.log
python3 "$TEST_DIRECTORY/lib/tcp-canary.py" --port-file port --log conn.log >listener.out 2>&1 &
listener_pid=$!
tries=0
while ! test -s port && test $tries -lt 100
do
	sleep 0.1
	tries=$((tries + 1))
done
PORT=$(cat port 2>/dev/null)

test_expect_success 'setup: the user, a canary, a listener' '
	mkdir pwned out outside outside/notes attacker &&
	echo "$CANARY secret line" >outside/secret.txt &&
	printf "def leaked_%s():\n    return \"%s\"\n" canary "$CANARY" >outside/secret.py &&
	printf -- "---\nid: canary\ntitle: Canary\n---\n# Canary\n\n%s notes\n" "$CANARY" \
		>outside/notes/canary.md &&
	echo "# .bashrc" >outside/bashrc &&
	cp outside/bashrc bashrc.before &&
	test -n "$PORT" &&
	: the user lists every repository they index, the clones below too, so that --all-repos reaches them &&
	kbx config --user repos.register always &&
	: both compact every store, small ones too: the stores are .kbx/db.N, named by .kbx/current &&
	kbx config --user index.compact eager &&
	HOME=$TRASH_DIRECTORY/attacker kbx config --user index.compact eager &&
	: the user has indexed a repository of their own before &&
	mkdir mine &&
	(cd mine && git init -q && printf "def helper():\n    pass\n" >m.py && kbx index -q)
'

test_expect_success 'a checkout cannot put itself in the user'"'"'s list of repositories' '
	test_when_finished "kbx config --user repos.register always" &&
	kbx config --user repos.register auto &&
	evil list &&
	mkdir evil-list/.kbx &&
	printf "repos.register = always\n" >evil-list/.kbx/config &&
	commit_all list &&
	cp .config/kbx/repos repos.before &&
	kbx_in list index &&
	test_grep "ignoring repos.register in .*clone-list/\.kbx/config" out/list.err &&
	test_cmp repos.before .config/kbx/repos &&
	kbx_in list repos &&
	test_grep ! "clone-list" out/list.out
'

test_expect_success 'the user'"'"'s store key is private' '
	test -f .local/state/kbx/store-key &&
	ls -l .local/state/kbx/store-key >out/key.ls &&
	test_grep "^-rw------- " out/key.ls
'

test_expect_success 'settings that run a program are ignored: search.command, core.pager' '
	evil cmd &&
	mkdir evil-cmd/.kbx &&
	cat >evil-cmd/.kbx/config <<-EOF &&
	search.provider = command
	search.command = "touch '\''$TRASH_DIRECTORY/pwned/search-command'\''"
	core.pager = "touch '\''$TRASH_DIRECTORY/pwned/pager'\''"
	index.threads = 1
	EOF
	commit_all cmd &&
	attack_begins &&
	kbx_in cmd index &&
	kbx_in cmd status &&
	kbx_in cmd search "read the sections of a config file" &&
	kbx_in cmd hybrid "functions similar to parse_config" &&
	kbx_in cmd callers read_sections &&
	if test_have_prereq SCRIPT
	then
		on_tty cmd "kbx status; kbx callers read_sections; kbx search config" &&
		test_grep "read_sections" out/cmd.tty
	fi &&
	test_grep "ignoring search.provider in .*\.kbx/config. at line 1: a repository.s settings cannot choose a program to run" out/cmd.err &&
	test_grep "ignoring search.command in .*\.kbx/config. at line 2" out/cmd.err &&
	test_grep "ignoring core.pager in .*\.kbx/config. at line 3" out/cmd.err &&
	test_grep "kbx config --user KEY VALUE" out/cmd.err &&
	: the rest of the file still applies &&
	(cd clone-cmd && kbx config --show-origin index.threads) >out/cmd.threads &&
	test_grep "config:4" out/cmd.threads &&
	unharmed cmd &&
	: the same settings from the user do run: the attack is real &&
	sed -n "s/^search.command = //p" clone-cmd/.kbx/config | tr -d \" >out/cmd.value &&
	test_might_fail kbx -c search.provider=command -c search.command="$(cat out/cmd.value)" \
		-C clone-cmd index >/dev/null 2>&1 &&
	test -f pwned/search-command &&
	rm pwned/search-command
'

test_expect_success 'and cannot be written into a repository either' '
	test_expect_code 2 kbx_in cmd config --repo search.command "touch x" &&
	test_grep "search.command cannot be set in a repository.s settings" out/cmd.err &&
	test_expect_code 2 kbx_in cmd config core.pager cat &&
	test_expect_code 2 kbx_in cmd config search.provider http &&
	kbx_in cmd config search.provider builtin &&
	unharmed cmd
'

test_expect_success 'settings that name an address or a credential are ignored: no connection, no secret' '
	evil http &&
	mkdir evil-http/.kbx &&
	cat >evil-http/.kbx/config <<-EOF &&
	search.provider = http
	search.url = http://127.0.0.1:$PORT/v1
	search.apiKeyEnv = AWS_SECRET_ACCESS_KEY
	search.model = steal
	EOF
	commit_all http &&
	attack_begins &&
	AWS_SECRET_ACCESS_KEY=$CANARY &&
	export AWS_SECRET_ACCESS_KEY &&
	kbx_in http index &&
	kbx_in http search "config sections" &&
	kbx_in http hybrid "code similar to read sections" &&
	unset AWS_SECRET_ACCESS_KEY &&
	test_grep "ignoring search.provider in .* cannot choose an address to send its code to" out/http.err &&
	test_grep "ignoring search.url in .* cannot choose an address to contact" out/http.err &&
	test_grep "ignoring search.apiKeyEnv in .* cannot choose a credential to send" out/http.err &&
	unharmed http
'

test_expect_success 'search --all-repos from another repository honours no repository'"'"'s programs either' '
	>stamp &&
	(cd mine && kbx search --all-repos "config sections") >>out/cmd.out 2>>out/cmd.err &&
	(cd mine && kbx hybrid --all-repos "functions similar to parse_config") >>out/cmd.out 2>>out/cmd.err &&
	test_grep "ignoring search.command in .*clone-cmd/\.kbx/config" out/cmd.err &&
	test_grep "ignoring search.url in .*clone-http/\.kbx/config" out/cmd.err &&
	unharmed cmd
'

test_expect_success 'what the user chooses (kbx -c) is still http or https alone' '
	test_expect_code 2 kbx -c search.provider=http -c search.url=file:///etc/passwd \
		-C mine index >out/user.out 2>out/user.err &&
	test_grep "not an http:// or https:// address" out/user.err &&
	test_expect_code 2 kbx -c search.provider=http -c search.url=gopher://127.0.0.1:$PORT/ \
		-C mine index >>out/user.out 2>>out/user.err &&
	test_grep "search.url .gopher://" out/user.err &&
	test_must_be_empty conn.log
'

test_expect_success 'a committed store is never opened: its registry list is not read' '
	evil store &&
	(
		cd evil-store &&
		HOME=$TRASH_DIRECTORY/attacker &&
		export HOME &&
		kbx registry add "$TRASH_DIRECTORY/outside/notes" &&
		kbx index -q &&
		kbx search --type=doc canary >../out/attacker.out &&
		test_grep "$CANARY" ../out/attacker.out
	) &&
	rm out/attacker.out &&
	commit_all store &&
	test -f clone-store/.kbx/db.1/data.mdb &&
	attack_begins &&
	test_expect_code 6 kbx_in store status &&
	test_expect_code 6 kbx_in store search canary &&
	test_expect_code 6 kbx_in store index &&
	test_expect_code 6 kbx_in store registry list &&
	test_grep "the index in .*clone-store/\.kbx. was not built by kbx for you" out/store.err &&
	test_grep "run .kbx index --rebuild. to replace it" out/store.err &&
	: the rebuild replaces it without reading it &&
	kbx_in store index --rebuild &&
	test_expect_code 1 kbx_in store registry list &&
	test_must_be_empty out/store.out &&
	test_expect_code 1 kbx_in store search --mode=lexical canary &&
	kbx_in store callers read_sections &&
	test_grep "parse_config" out/store.out &&
	unharmed store
'

test_expect_success 'a checkout that writes over the ignored store files is caught' '
	evil over &&
	commit_all over &&
	(cd clone-over && kbx index -q) &&
	: two branches: one commits a vector file, the other a store of its own &&
	(
		cd evil-over &&
		git checkout -q -b bad-vectors &&
		mkdir .kbx &&
		head -c 100000 /dev/urandom >.kbx/vectors.kbxv &&
		git add -f .kbx/vectors.kbxv &&
		git commit -q -m vectors &&
		rm -rf .kbx &&
		git checkout -q -f main &&
		git checkout -q -b bad-store &&
		HOME=$TRASH_DIRECTORY/attacker kbx index -q &&
		git add -f .kbx/current .kbx/db.1/data.mdb &&
		git commit -q -m store &&
		rm -rf .kbx &&
		git checkout -q -f main
	) &&
	(cd clone-over && git fetch -q origin) &&
	attack_begins &&
	: git overwrites ignored files when it checks a branch out &&
	(cd clone-over && git checkout -q origin/bad-vectors) &&
	! cmp -s clone-over/.kbx/vectors.kbxv /dev/null &&
	kbx_in over search "read sections of a config file" &&
	test_grep "read_sections" out/over.out &&
	test_grep "the vector index is stale (its file is not the one the index records)" out/over.err &&
	(cd clone-over && git checkout -q main && git checkout -q origin/bad-store) &&
	test_expect_code 6 kbx_in over status &&
	test_grep "was not built by kbx for you" out/over.err &&
	unharmed over
'

test_expect_success SYMLINKS 'a store directory that is a link is refused: nothing is created where it points' '
	evil linkdir &&
	mkdir elsewhere &&
	ln -s "$TRASH_DIRECTORY/elsewhere" evil-linkdir/.kbx &&
	commit_all linkdir &&
	test -h clone-linkdir/.kbx &&
	attack_begins &&
	test_expect_code 6 kbx_in linkdir index &&
	test_expect_code 6 kbx_in linkdir status &&
	test_expect_code 6 kbx_in linkdir config --repo index.threads 2 &&
	test_grep ".*clone-linkdir/\.kbx. is a symbolic link: kbx never follows a link for its store" out/linkdir.err &&
	test -z "$(ls -A elsewhere)" &&
	unharmed linkdir
'

test_expect_success SYMLINKS 'links in the store are refused: lock.mdb to ~/.bashrc, config to a secret, index.lock' '
	evil links &&
	commit_all links &&
	(cd clone-links && kbx index -q) &&
	attack_begins &&
	env=clone-links/.kbx/$(cat clone-links/.kbx/current) &&
	mv $env/lock.mdb lock.mdb.saved &&
	ln -s "$TRASH_DIRECTORY/outside/bashrc" $env/lock.mdb &&
	test_expect_code 6 kbx_in links status &&
	test_expect_code 6 kbx_in links index &&
	test_grep "lock.mdb. is a symbolic link" out/links.err &&
	test_cmp bashrc.before outside/bashrc &&
	rm $env/lock.mdb &&
	mv lock.mdb.saved $env/lock.mdb &&
	mv $env env.saved &&
	ln -s "$TRASH_DIRECTORY/env.saved" $env &&
	test_expect_code 6 kbx_in links status &&
	test_grep "db.1. is a symbolic link" out/links.err &&
	rm $env &&
	mv env.saved $env &&
	ln -s "$TRASH_DIRECTORY/outside/secret.txt" clone-links/.kbx/config &&
	test_expect_code 6 kbx_in links status &&
	test_expect_code 6 kbx_in links config index.threads 3 &&
	test_grep "settings file .*config. is a symbolic link" out/links.err &&
	test_cmp bashrc.before outside/bashrc &&
	rm clone-links/.kbx/config &&
	rm clone-links/.kbx/index.lock &&
	ln -s "$TRASH_DIRECTORY/outside/bashrc" clone-links/.kbx/index.lock &&
	test_expect_code 6 kbx_in links index &&
	test_grep "index.lock. is a symbolic link" out/links.err &&
	test_cmp bashrc.before outside/bashrc &&
	rm clone-links/.kbx/index.lock &&
	kbx_in links status &&
	unharmed links
'

test_expect_success SYMLINKS 'committed links in the tree are never followed: nothing outside is indexed' '
	evil tree &&
	ln -s "$TRASH_DIRECTORY/outside/secret.py" evil-tree/leak.py &&
	ln -s "$TRASH_DIRECTORY/outside/notes" evil-tree/docs &&
	ln -s "$TRASH_DIRECTORY/outside/secret.txt" evil-tree/NOTES.md &&
	ln -s "$TRASH_DIRECTORY/outside/secret.txt" evil-tree/.gitignore &&
	ln -s /dev/zero evil-tree/.kbxignore &&
	commit_all tree &&
	attack_begins &&
	kbx_in tree index &&
	test_must_fail kbx_in tree defs leaked_canary &&
	test_must_fail kbx_in tree search "$CANARY" &&
	kbx_in tree status --format=json &&
	test_grep "\"files\":1[,}]" out/tree.out &&
	unharmed tree
'

test_expect_success SYMLINKS 'a rules file that is a link, to /dev/zero or a secret, is refused at once' '
	evil rules &&
	ln -s /dev/zero evil-rules/.kbx-rules.yml &&
	commit_all rules &&
	(cd clone-rules && kbx index -q) &&
	attack_begins &&
	(ulimit_v_2g && test_expect_code 6 kbx_in rules check) &&
	test_grep "rules file .\.kbx-rules\.yml. is a symbolic link" out/rules.err &&
	rm clone-rules/.kbx-rules.yml &&
	ln -s "$TRASH_DIRECTORY/outside/secret.txt" clone-rules/.kbx-rules.yml &&
	test_expect_code 6 kbx_in rules check &&
	unharmed rules
'

test_expect_success 'a rules file too big to be one is refused, not read' '
	evil bigrules &&
	commit_all bigrules &&
	(cd clone-bigrules && kbx index -q) &&
	attack_begins &&
	dd if=/dev/zero of=clone-bigrules/.kbx-rules.yml bs=1M count=0 seek=64 2>/dev/null &&
	test_expect_code 6 kbx_in bigrules check &&
	test_grep "larger than 4 MiB" out/bigrules.err &&
	rm clone-bigrules/.kbx-rules.yml &&
	unharmed bigrules
'

test_expect_success 'git runs without the repository choosing a program (core.fsmonitor)' '
	evil fsmon &&
	commit_all fsmon &&
	printf "\ndef added_later():\n    return parse_config(1)\n" >>clone-fsmon/app.py &&
	(cd clone-fsmon && kbx index -q) &&
	: an archive of a repository carries its .git/config &&
	git -C clone-fsmon config core.fsmonitor "touch '\''$TRASH_DIRECTORY/pwned/fsmonitor'\''" &&
	attack_begins &&
	kbx_in fsmon changed HEAD &&
	test_grep "added_later" out/fsmon.out &&
	unharmed fsmon &&
	: git itself would have run it &&
	git -C clone-fsmon diff --name-status HEAD >/dev/null &&
	test -f pwned/fsmonitor &&
	rm pwned/fsmonitor
'

test_expect_success 'a store built under another key is refused unless safe.directory names it' '
	evil owner &&
	commit_all owner &&
	(cd clone-owner && kbx index -q) &&
	attack_begins &&
	(
		HOME=$TRASH_DIRECTORY/attacker &&
		export HOME &&
		test_expect_code 6 kbx -C clone-owner status 2>>out/owner.err &&
		kbx -c safe.directory="$TRASH_DIRECTORY/clone-owner" -C clone-owner status >>out/owner.out &&
		kbx -c "safe.directory=*" -C clone-owner callers read_sections >>out/owner.out &&
		: a repository cannot vouch for itself &&
		echo "safe.directory = *" >clone-owner/.kbx/config &&
		test_expect_code 6 kbx -C clone-owner status 2>>out/owner.err
	) &&
	test_grep "was not built by kbx for you" out/owner.err &&
	test_grep "parse_config" out/owner.out &&
	test_grep "ignoring safe.directory in .* cannot say what kbx trusts" out/owner.err &&
	rm clone-owner/.kbx/config &&
	unharmed owner
'

test_lazy_prereq ROOT 'test "$(id -u)" = 0'

test_expect_success ROOT 'a store another user owns is refused unless safe.directory names it' '
	evil uid &&
	commit_all uid &&
	(cd clone-uid && kbx index -q) &&
	chown -R 65534 clone-uid/.kbx &&
	attack_begins &&
	test_expect_code 6 kbx_in uid status &&
	test_grep "belongs to another user (uid 65534)" out/uid.err &&
	test_grep "safe.directory" out/uid.err &&
	kbx -c safe.directory="$TRASH_DIRECTORY/clone-uid" -C clone-uid callers read_sections \
		>>out/uid.out &&
	test_grep "parse_config" out/uid.out &&
	unharmed uid
'

test_expect_success 'kbx repos shows a refused store as such, and goes on' '
	kbx repos >out/repos.out 2>out/repos.err &&
	test_grep "clone-over.*refused" out/repos.out &&
	test_grep "clone-cmd.*ok" out/repos.out
'

test_expect_success 'the listener was never called' '
	kill "$listener_pid" &&
	test_must_be_empty conn.log
'

test_done
