#!/bin/sh

test_description='several repositories: the list kbx index keeps, kbx repos, --repo, search --all-repos

kbx index lists the stores it builds in $XDG_CONFIG_HOME/kbx/repos (else
~/.config/kbx/repos), by default those of repositories with a remote
elsewhere (repos.register); kbx repos lists, adds, removes, renames and
prunes them, and drops those whose directory is gone; --repo=NAME, before a command or among its options, runs a query
against another store; kbx search --all-repos searches every store and
fuses the lists, naming the repository of each hit.  HOME is the trash
directory (test-lib.sh), so the real home is never written.'

. ./test-lib.sh

LIST=$HOME/.config/kbx/repos

# make_repo DIR FILE TEXT: a git repository with one source file and a
# remote on another machine, as a clone of a project has (kbx index
# lists those by default: repos.register=auto).
make_repo () {
	mkdir -p "$1" &&
	git init -q "$1" &&
	git -C "$1" remote add origin "https://example.org/$1.git" &&
	printf "%s\n" "$3" >"$1/$2"
}

# names: the names of the list, one a line, into names.
names () {
	kbx repos --names >names
}

test_expect_success 'setup: three repositories, two of them called api' '
	make_repo src/api orders.py "def retry_with_backoff(attempts):
    \"\"\"Retry a request with exponential backoff.\"\"\"
    return attempts" &&
	make_repo work/api parse.c "int parse_config_file(const char *path) { return 0; }
/* read and parse the configuration file */" &&
	make_repo tools/web app.js "function renderPage(req) { return req; }" &&
	case "$HOME" in
	"$TRASH_DIRECTORY") : ;;
	*) echo "HOME is not the trash directory" >&2; false ;;
	esac
'

test_expect_success 'kbx index lists the repository, named after its directory' '
	(cd src/api && kbx index -q) &&
	test_path_is_file "$LIST" &&
	names &&
	echo api >expect &&
	test_cmp expect names &&
	printf "api\t%s\t%s\n" "$TRASH_DIRECTORY/src/api/.kbx" "$TRASH_DIRECTORY/src/api" >expect &&
	grep -v "^#" "$LIST" >actual &&
	test_cmp expect actual
'

test_expect_success 'a second index run leaves the list as it was' '
	cp "$LIST" before &&
	(cd src/api && kbx index -q) &&
	test_cmp before "$LIST"
'

test_expect_success 'a name that is taken gets the parent directory in front, then a number' '
	(cd work/api && kbx index -q) &&
	names &&
	test_write_lines api work-api >expect &&
	test_cmp expect names &&
	make_repo other/work/api x.py "x = 1" &&
	(cd other/work/api && kbx index -q) &&
	names &&
	test_write_lines api work-api api-2 >expect &&
	test_cmp expect names
'

test_expect_success 'kbx repos shows each repository: state, root, files per language, symbols, time' '
	kbx repos >out &&
	test_grep "^api  *ok  *$TRASH_DIRECTORY/src/api\$" out &&
	test_grep "^work-api  *ok  *$TRASH_DIRECTORY/work/api\$" out &&
	test_grep "1 file (python 1), 1 symbol, indexed just now" out &&
	test_grep "1 file (c 1), 1 symbol, indexed" out
'

test_expect_success PYTHON3 'kbx repos --format=json: one repo record a repository' '
	kbx repos --format=json >out &&
	test_line_count = 3 out &&
	python3 -c "
import json, sys, time
rs = [json.loads(l) for l in open(\"out\")]
assert [r[\"type\"] for r in rs] == [\"repo\"] * 3, rs
api = rs[0]
assert api[\"name\"] == \"api\" and api[\"status\"] == \"ok\" and api[\"error\"] is None, api
assert api[\"root\"] == sys.argv[1] + \"/src/api\", api
assert api[\"store\"] == sys.argv[1] + \"/src/api/.kbx\", api
assert api[\"languages\"] == {\"python\": 1} and api[\"files\"] == 1 and api[\"symbols\"] == 1, api
assert abs(api[\"indexed_epoch\"] - time.time()) < 86400, api
assert api[\"indexed\"].endswith(\"Z\"), api
assert rs[1][\"languages\"] == {\"c\": 1}, rs[1]
" "$TRASH_DIRECTORY"
'

test_expect_success '--repo=NAME before the command runs it against that store' '
	kbx --repo=work-api defs parse_config_file >out &&
	test_grep "parse.c:1" out &&
	kbx --repo work-api defs parse_config_file >out2 &&
	test_cmp out out2 &&
	(cd tools/web && kbx --repo=api defs retry_with_backoff >../../out) &&
	test_grep "orders.py:1" out
'

test_expect_success '--repo=NAME among the options of a command, and a directory instead of a name' '
	kbx defs parse_config_file --repo=work-api >out &&
	test_grep "parse.c:1" out &&
	kbx defs --repo work-api --format=json parse_config_file >out &&
	test_grep "\"path\":\"parse.c\"" out &&
	kbx status --repo=api --format=json >out &&
	test_grep "\"root\":\"$TRASH_DIRECTORY/src/api\"" out &&
	kbx --repo=./work/api status --format=json >out &&
	test_grep "\"root\":\"$TRASH_DIRECTORY/work/api\"" out &&
	test_expect_code 1 kbx --repo=api defs parse_config_file 2>err &&
	test_grep "no symbol" err
'

test_expect_success '--repo reads that repository'"'"'s settings' '
	(cd work/api && kbx config --repo search.limit 1) &&
	kbx --repo=work-api config search.limit >out &&
	echo 1 >expect &&
	test_cmp expect out
'

test_expect_success 'kbx CMD -h and --list-opts show --repo; kbx config --repo keeps its meaning' '
	kbx callers -h >out &&
	test_grep "^    --repo=<NAME> " out &&
	kbx status --list-opts >out &&
	test_grep "^--repo=	@repo\$" out &&
	kbx --list-opts >out &&
	test_grep "^--repo=	@repo\$" out &&
	kbx config --list-opts >out &&
	test_grep "^--repo\$" out &&
	(cd src/api && kbx config --repo index.threads 2) &&
	test_grep "index.threads = 2" src/api/.kbx/config
'

test_expect_success 'an unknown name: exit 3, the closest names suggested' '
	test_expect_code 3 kbx --repo=apj callers foo 2>err &&
	test_grep "no repository is called .apj." err &&
	test_grep "^	api\$" err &&
	test_expect_code 3 kbx callers foo --repo=nothing-like-it 2>err &&
	test_grep "the repositories kbx knows: api, work-api, api-2" err &&
	test_expect_code 3 kbx --repo=./nowhere status 2>err &&
	test_grep "no directory .\./nowhere." err &&
	mkdir not-indexed &&
	test_expect_code 3 kbx --repo=./not-indexed status 2>err &&
	test_grep "no kbx index in .$TRASH_DIRECTORY/not-indexed." err
'

test_expect_success 'search --all-repos fuses the stores and names the repository of each hit' '
	cd "$TRASH_DIRECTORY" &&
	kbx search --all-repos -n 5 "retry with exponential backoff parse the configuration file" >out &&
	test_grep "^[0-9]*\. \[api\] code orders.py#retry_with_backoff" out &&
	test_grep "^[0-9]*\. \[work-api\] code parse.c#parse_config_file" out &&
	kbx search --all-repos --format=grep "parse configuration file" >out &&
	test_grep "^$TRASH_DIRECTORY/work/api/parse.c:1:1: code parse.c#parse_config_file" out
'

test_expect_success PYTHON3 'search --all-repos --format=json: repo, repo_root and repo_rank in each hit' '
	kbx search --all-repos --format=json --explain -n 10 "retry with exponential backoff parse the configuration file" >out &&
	python3 -c "
import json, sys
rs = [json.loads(l) for l in open(\"out\")]
hits = [r for r in rs if r[\"type\"] == \"hit\"]
plan = [r for r in rs if r[\"type\"] == \"plan\"]
assert [h[\"rank\"] for h in hits] == list(range(1, len(hits) + 1)), hits
repos = {h[\"id\"]: h[\"repo\"] for h in hits}
assert repos[\"orders.py#retry_with_backoff\"] == \"api\", repos
assert repos[\"parse.c#parse_config_file\"] == \"work-api\", repos
for h in hits:
    assert h[\"repo_root\"].startswith(sys.argv[1]) and h[\"repo_rank\"] >= 1, h
# fused by rank: no hit of rank 2 in its repository before one of rank 1
ranks = [h[\"repo_rank\"] for h in hits]
assert ranks == sorted(ranks), ranks
assert len(plan) == 1 and {r[\"name\"] for r in plan[0][\"repos\"]} == {\"api\", \"work-api\", \"api-2\"}, plan
" "$TRASH_DIRECTORY"
'

test_expect_success 'search --all-repos works outside any repository; --repo with it is an error' '
	mkdir -p plain &&
	(cd plain && kbx search --all-repos "configuration file" >../out) &&
	test_grep "\[work-api\]" out &&
	test_expect_code 2 kbx search --all-repos --repo=api x 2>err &&
	test_grep "give one of the two" err
'

test_expect_success 'kbx repos rename, and the name then works with --repo' '
	kbx repos rename api-2 scratch &&
	names &&
	test_write_lines api work-api scratch >expect &&
	test_cmp expect names &&
	kbx --repo=scratch status >/dev/null &&
	test_expect_code 2 kbx repos rename scratch api 2>err &&
	test_grep "is taken by" err &&
	test_expect_code 2 kbx repos rename scratch -- -bad 2>err &&
	test_grep "starts with" err &&
	test_expect_code 1 kbx repos rename nosuch other 2>err &&
	test_grep "no repository is called .nosuch." err
'

test_expect_success 'a renamed store keeps its name when it is indexed again' '
	(cd other/work/api && kbx index -q) &&
	names &&
	test_cmp expect names
'

test_expect_success 'kbx repos remove, and kbx repos add with and without --name' '
	kbx repos remove scratch &&
	names &&
	test_write_lines api work-api >expect &&
	test_cmp expect names &&
	kbx repos add other/work/api/ 2>err &&
	test_grep "added .api-2." err &&
	kbx repos remove api-2 &&
	kbx repos add --name=mine other/work/api 2>err &&
	test_grep "added .mine." err &&
	test_expect_code 3 kbx repos add --name=api tools 2>err &&
	test_grep "no kbx index in" err &&
	mkdir -p taken/.kbx &&
	test_expect_code 2 kbx repos add --name=api taken 2>err &&
	test_grep "the name .api. is taken by .$TRASH_DIRECTORY/src/api." err &&
	test_expect_code 2 kbx repos add --name=other other/work/api 2>err &&
	test_grep "listed as .mine. already" err &&
	test_expect_code 1 kbx repos remove nosuch
'

test_expect_success 'states: missing, no-index and schema; search --all-repos skips them' '
	mkdir -p empty/.kbx &&
	kbx repos add --name=blank empty &&
	(cd tools/web && kbx index -q) &&
	"$KBX_TEST_UNIT/store-set-meta" tools/web/.kbx schema 999 &&
	rm -rf other/work/api/.kbx &&
	kbx repos >out &&
	test_grep "^mine  *missing " out &&
	test_grep "is gone: .kbx repos prune. drops it" out &&
	test_grep "^blank  *no-index " out &&
	test_grep "^web  *schema " out &&
	kbx search --all-repos "configuration file" >out 2>err &&
	test_grep "\[work-api\]" out &&
	test_grep "warning: skipping .mine." err &&
	test_grep "warning: skipping .blank." err &&
	test_grep "warning: skipping .web." err &&
	test_expect_code 3 kbx --repo=mine status 2>err &&
	test_grep "is gone" err
'

test_expect_success 'kbx repos prune drops what is gone, and --dry-run drops nothing' '
	kbx repos prune --dry-run 2>err &&
	test_grep "would drop .mine." err &&
	kbx repos --names >names &&
	test_grep "^mine\$" names &&
	kbx repos prune 2>err &&
	test_grep "dropped .mine." err &&
	names &&
	test_write_lines api work-api blank web >expect &&
	test_cmp expect names
'

test_expect_success 'a repository that is gone is dropped when the list is shown, with a note' '
	make_repo gone/soon s.py "def soon(): pass" &&
	(cd gone/soon && kbx index -q) &&
	test_grep "^soon	" "$LIST" &&
	rm -rf gone &&
	kbx repos >out 2>err &&
	test_grep "note: dropped .soon. from the list of repositories: .$TRASH_DIRECTORY/gone/soon. is gone" err &&
	test_grep ! "^soon" out &&
	test_grep ! "^soon	" "$LIST" &&
	kbx repos >out 2>err &&
	test_must_be_empty err
'

test_expect_success 'and when search --all-repos reads it' '
	make_repo gone/later l.py "def later(): pass" &&
	(cd gone/later && kbx index -q) &&
	rm -rf gone &&
	kbx search --all-repos "configuration file" >out 2>err &&
	test_grep "note: dropped .later. from the list" err &&
	test_grep ! "skipping .later." err &&
	test_grep ! "^later	" "$LIST"
'

test_expect_success 'repos.register=auto: a repository without a remote elsewhere is not listed' '
	cp "$LIST" before &&
	mkdir scratch &&
	(cd scratch && git init -q && echo "def s(): pass" >s.py && kbx index -q) &&
	test_cmp before "$LIST" &&
	(cd scratch && kbx repos >../out 2>../err) &&
	test_grep "note: the repository here, .$TRASH_DIRECTORY/scratch., is not listed: .kbx repos add .. lists it" err &&
	(cd src/api && kbx repos >../../out 2>../../err) &&
	test_must_be_empty err &&
	git clone -q src/api local-clone &&
	(cd local-clone && kbx index -q) &&
	test_cmp before "$LIST" &&
	mkdir plain-dir &&
	echo "def p(): pass" >plain-dir/p.py &&
	(cd plain-dir && kbx index -q) &&
	test_cmp before "$LIST"
'

test_expect_success 'a repository kbx repos add listed stays listed under auto' '
	kbx repos add scratch 2>err &&
	test_grep "added .scratch." err &&
	cp "$LIST" before &&
	(cd scratch && kbx index -q) &&
	test_cmp before "$LIST"
'

test_expect_success 'repos.register=always lists every index, never none' '
	kbx config --user repos.register always &&
	(cd local-clone && kbx index -q) &&
	test_grep "^local-clone	" "$LIST" &&
	kbx config --user repos.register never &&
	make_repo with/remote r.py "def r(): pass" &&
	cp "$LIST" before &&
	(cd with/remote && kbx index -q) &&
	test_cmp before "$LIST" &&
	kbx config --user --unset repos.register &&
	kbx repos remove local-clone
'

test_expect_success 'a repository'"'"'s own settings may keep it out of the list, not put it in' '
	cp "$LIST" before &&
	(cd plain-dir && kbx config --repo repos.register never) &&
	test_expect_code 2 kbx -C plain-dir config --repo repos.register always 2>err &&
	test_grep "can keep it out of the user.s list of repositories (never), not put it in" err &&
	printf "repos.register = always\n" >plain-dir/.kbx/config &&
	(cd plain-dir && kbx index -q 2>../err) &&
	test_grep "warning: ignoring repos.register in .*plain-dir/.kbx/config" err &&
	test_cmp before "$LIST" &&
	printf "repos.register = never\n" >with/remote/.kbx/config &&
	kbx config --user repos.register always &&
	(cd with/remote && kbx index -q 2>../../err) &&
	test_must_be_empty err &&
	test_cmp before "$LIST" &&
	kbx config --user --unset repos.register
'

test_expect_success 'repos.register=false: kbx index leaves the list alone' '
	make_repo quiet/one a.py "def one(): pass" &&
	kbx config --user repos.register false &&
	cp "$LIST" before &&
	(cd quiet/one && kbx index -q) &&
	test_cmp before "$LIST" &&
	kbx config --user --unset repos.register &&
	(cd quiet/one && kbx index -q) &&
	test_grep "^one	" "$LIST"
'

test_expect_success 'XDG_CONFIG_HOME, when absolute, holds the list instead of ~/.config' '
	make_repo xdg/two b.py "def two(): pass" &&
	cp "$LIST" before &&
	(cd xdg/two && XDG_CONFIG_HOME="$TRASH_DIRECTORY/xdg-config" kbx index -q) &&
	test_cmp before "$LIST" &&
	printf "two\t%s\t%s\n" "$TRASH_DIRECTORY/xdg/two/.kbx" "$TRASH_DIRECTORY/xdg/two" >expect &&
	grep -v "^#" xdg-config/kbx/repos >actual &&
	test_cmp expect actual
'

test_expect_success 'a list that cannot be written is a warning, not a failed index' '
	make_repo ro/three c.py "def three(): pass" &&
	mkdir -p ro-config &&
	echo "not a directory" >ro-config/kbx &&
	(cd ro/three && XDG_CONFIG_HOME="$TRASH_DIRECTORY/ro-config" kbx index -q 2>../../err) &&
	test_grep "warning: the index is not in the list of repositories" err &&
	(cd ro/three && kbx status >/dev/null)
'

test_expect_success 'a line that does not parse is an error naming the file and the line' '
	mkdir -p bad/kbx &&
	printf "# comment\nok\t/a/.kbx\t/a\nbroken line\n" >bad/kbx/repos &&
	test_expect_code 2 env XDG_CONFIG_HOME="$TRASH_DIRECTORY/bad" kbx repos 2>err &&
	test_grep "bad/kbx/repos., line 3: it is not three tab-separated fields" err
'

test_expect_success 'index runs at once do not lose each other'"'"'s entry' '
	mkdir -p conc &&
	for i in 1 2 3 4 5 6 7 8
	do
		make_repo conc/r$i m.py "def f$i(): pass" || return 1
	done &&
	XDG_CONFIG_HOME="$TRASH_DIRECTORY/conc-config" &&
	export XDG_CONFIG_HOME &&
	for i in 1 2 3 4 5 6 7 8
	do
		(cd conc/r$i && kbx index -q >../out$i 2>&1; echo $? >../rc$i) &
	done &&
	wait &&
	unset XDG_CONFIG_HOME &&
	for i in 1 2 3 4 5 6 7 8
	do
		echo 0 >expect &&
		test_cmp expect conc/rc$i &&
		test_must_be_empty conc/out$i || return 1
	done &&
	grep -v "^#" conc-config/kbx/repos | cut -f1 | sort >actual &&
	test_write_lines r1 r2 r3 r4 r5 r6 r7 r8 >expect &&
	test_cmp expect actual
'

test_expect_success 'kbx repos with an empty list exits 1' '
	test_expect_code 1 env XDG_CONFIG_HOME="$TRASH_DIRECTORY/none" kbx repos >out &&
	test_must_be_empty out &&
	test_path_is_missing none
'

test_expect_success PYTHON3 'a registry entry that two repositories index is one hit, counted once' '
	XDG_CONFIG_HOME="$TRASH_DIRECTORY/shared-config" &&
	export XDG_CONFIG_HOME &&
	mkdir -p shared-kb/errors/python &&
	cat >shared-kb/errors/python/walrus.yml <<-\EOF &&
	- id: "walrus-001"
	  error_type: "WalrusError"
	  severity: "low"
	  pattern: "WalrusError: tusks"
	  cause: "a walrus was found"
	  fix_template: "move the walrus"
	EOF
	make_repo sh/one one.py "def walrus_walrus_walrus_one():
    \"\"\"walrus walrus walrus walrus\"\"\"
    return 1" &&
	make_repo sh/two two.py "def walrus_walrus_walrus_two():
    \"\"\"walrus walrus walrus walrus\"\"\"
    return 2" &&
	for r in one two
	do
		(cd sh/$r && kbx registry add ../../shared-kb && kbx index -q) || return 1
	done &&
	kbx search --all-repos --mode=lexical --format=json walrus >out &&
	unset XDG_CONFIG_HOME &&
	python3 -c "
import json
hits = [json.loads(l) for l in open(\"out\")]
ids = [h[\"id\"] for h in hits if h[\"type\"] == \"hit\"]
assert ids.count(\"walrus-001\") == 1, ids
# each repository ranks its own function first and the shared entry
# second: counted once, the entry is third, not first by the sum
assert ids.index(\"walrus-001\") == 2, ids
"
'

test_lazy_prereq BASH '
	bash -c "test \${BASH_VERSINFO[0]} -ge 4"
'

test_expect_success BASH 'bash completes the names of repositories after --repo' '
	cat >complete.bash <<-\EOF &&
	. "$KBX_SRC/completions/kbx.bash" || exit 1
	COMP_WORDBREAKS=" "
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	_kbx
	printf "%s\n" "${COMPREPLY[@]}"
	EOF
	bash complete.bash kbx --repo=wo >out &&
	echo --repo=work-api >expect &&
	test_cmp expect out &&
	bash complete.bash kbx --repo "" >out &&
	kbx repos --names >expect &&
	test_cmp expect out &&
	bash complete.bash kbx callers --repo=a >out &&
	echo --repo=api >expect &&
	test_cmp expect out &&
	bash complete.bash kbx callers --repo=api retry_w >out &&
	echo retry_with_backoff >expect &&
	test_cmp expect out &&
	bash complete.bash kbx --repo=work-api callers parse_c >out &&
	echo parse_config_file >expect &&
	test_cmp expect out
'

# the library's part: names, the file, fusion (tests/unit/repos-lib.c)
mkdir -p "$TRASH_DIRECTORY/unit"
test_unit repos-lib "$TRASH_DIRECTORY/unit"

test_done
