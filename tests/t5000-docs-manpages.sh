#!/bin/sh

test_description='the manual pages: one per command, rendered, and in step with the binary

Every command of "kbx --list-cmds" has man/kbx-CMD.1.md and a rendered
build/man/kbx-CMD.1; the SYNOPSIS of each page is the usage that
"kbx CMD -h" prints; every option "kbx CMD --list-opts" lists is
documented under OPTIONS, and nothing else is; kbx(1) documents every
exit code of cmd/builtin.h; the rendered pages pass "man --warnings";
"kbx help CMD" and "kbx CMD --help" show the page; "kbx CMD -h" works
without an index.'

. ./test-lib.sh

MAN_SRC=$KBX_SRC/man
MAN_OUT=$KBX_SRC/build/man
BUILTIN_H=$KBX_SRC/cmd/builtin.h

# md_section FILE NAME: the lines under the level-one heading "# NAME"
# of a Markdown page, up to the next level-one heading (headings inside
# fenced code blocks do not count).
md_section () {
	awk -v want="# $2" '
		/^```/ { fence = !fence }
		!fence && /^# / { in_section = ($0 == want); next }
		in_section { print }
	' "$1"
}

# md_synopsis FILE: the non-empty lines of the code blocks of SYNOPSIS.
md_synopsis () {
	md_section "$1" SYNOPSIS | awk '/^```/ { fence = !fence; next } fence && NF'
}

# md_option_names FILE: every option named on the lines of OPTIONS that
# introduce an option ("**-d** *n*, **--depth**=*n*"), one per line.
md_option_names () {
	md_section "$1" OPTIONS | grep '^\*\*-' |
	grep -oE -- '(^|[^A-Za-z0-9-])--?[A-Za-z0-9][A-Za-z0-9-]*' |
	sed 's/^[^-]*//' | sort -u
}

# md_exit_codes FILE: the numbers in bold that start a line of EXIT
# STATUS ("**0**", "**6**, **8**, **9**").
md_exit_codes () {
	md_section "$1" "EXIT STATUS" | grep '^\*\*[0-9]' |
	grep -oE '\*\*[0-9]+\*\*' | tr -d '*' | sort -n -u
}

# front_matter FILE KEY: the value of KEY in the page's front matter.
front_matter () {
	awk -v key="$2" '
		NR == 1 { if ($0 != "---") exit; next }
		/^---$/ { exit }
		index($0, key ":") == 1 { sub(/^[^:]*:[ \t]*/, ""); print; exit }
	' "$1"
}

# usage_lines FILE: the usage lines of "-h" output, without their
# "usage: " or "   or: " lead.
usage_lines () {
	sed -n -e 's/^usage: //p' -e 's/^   or: //p' "$1"
}

test_lazy_prereq MAN '
	printf ".TH PROBE 1\n.SH NAME\nprobe \\- a test page\n" >probe.1 &&
	MANPAGER=cat man -l probe.1 >out 2>&1 &&
	grep "probe - a test page" out
'

test_expect_success 'setup: the commands, the exit codes, an empty tree' '
	kbx --list-cmds >cmds &&
	test_line_count -ge 5 cmds &&
	sed -n "s/^[[:space:]]*KBX_EXIT_[A-Z_]*[[:space:]]*=[[:space:]]*\([0-9][0-9]*\).*/\1/p" \
		"$BUILTIN_H" | sort -n >codes &&
	test_line_count -ge 3 codes &&
	test_grep -x 0 codes &&
	test_grep -x 1 codes &&
	test_grep -x 2 codes &&
	kbx -h >kbx-h &&
	sed -n "s/^   \([a-z][a-z0-9-]*\)  *\(.*\)$/\1	\2/p" kbx-h >summaries &&
	test_line_count = $(wc -l <cmds) summaries &&
	mkdir empty
'

test_expect_success 'every page source has front matter naming its file' '
	ls "$MAN_SRC"/*.[1-9].md >pages &&
	test_file_not_empty pages &&
	while read -r src
	do
		base=${src##*/} &&
		title=$(front_matter "$src" title) &&
		section=$(front_matter "$src" section) &&
		description=$(front_matter "$src" description) &&
		{
			test "$base" = "$title.$section.md" ||
			{ echo "$src: title $title, section $section" >&2; return 1; }
		} &&
		test -n "$description" || return 1
	done <pages
'

test_expect_success 'every command has a page, rendered by make' '
	while read -r cmd
	do
		test_path_is_file "$MAN_SRC/kbx-$cmd.1.md" || return 1
	done <cmds &&
	while read -r src
	do
		page=${src##*/} &&
		page=$MAN_OUT/${page%.md} &&
		test_path_is_file "$page" &&
		{
			! test "$src" -nt "$page" ||
			{ echo "$page is older than $src: run make" >&2; return 1; }
		} || return 1
	done <pages
'

test_expect_success 'the description of each command page is its summary in kbx -h' '
	while IFS="	" read -r cmd summary
	do
		description=$(front_matter "$MAN_SRC/kbx-$cmd.1.md" description) &&
		{
			test "$description" = "$summary" ||
			{ echo "kbx-$cmd.1.md: description \"$description\", kbx -h: \"$summary\"" >&2; return 1; }
		} || return 1
	done <summaries
'

test_expect_success 'kbx(1) synopsis is the usage of kbx -h' '
	usage_lines kbx-h >expect &&
	test_file_not_empty expect &&
	md_synopsis "$MAN_SRC/kbx.1.md" >actual &&
	test_cmp expect actual
'

test_expect_success 'the synopsis of each command page is the usage of kbx CMD -h' '
	while read -r cmd
	do
		kbx "$cmd" -h >help-$cmd &&
		usage_lines help-$cmd >expect &&
		test_file_not_empty expect &&
		md_synopsis "$MAN_SRC/kbx-$cmd.1.md" >actual &&
		test_cmp expect actual || return 1
	done <cmds
'

test_expect_success 'every option of kbx CMD --list-opts is documented under OPTIONS' '
	while read -r cmd
	do
		kbx "$cmd" --list-opts >opts &&
		cut -f1 opts | sed "s/=$//" | sort -u >expect &&
		md_option_names "$MAN_SRC/kbx-$cmd.1.md" >documented &&
		comm -23 expect documented >missing &&
		{
			test_must_be_empty missing ||
			{ echo "kbx-$cmd.1.md does not document the options above" >&2; return 1; }
		} || return 1
	done <cmds
'

test_expect_success 'the OPTIONS of each command page document no option it lacks' '
	while read -r cmd
	do
		kbx "$cmd" --list-opts >opts &&
		{ cut -f1 opts | sed "s/=$//" && test_write_lines -h --help --list-opts; } |
			sort -u >known &&
		md_option_names "$MAN_SRC/kbx-$cmd.1.md" | sed "s/^--no-/--/" >documented &&
		comm -13 known documented >extra &&
		{
			test_must_be_empty extra ||
			{ echo "kbx-$cmd.1.md documents options kbx $cmd does not have" >&2; return 1; }
		} || return 1
	done <cmds
'

test_expect_success 'kbx(1) lists every command, and only commands, under COMMANDS' '
	md_section "$MAN_SRC/kbx.1.md" COMMANDS |
		sed -n "s/^\*\*kbx-\([a-z0-9-]*\)\*\*(1)$/\1/p" | sort >actual &&
	sort cmds >expect &&
	test_cmp expect actual
'

test_expect_success 'kbx(1) lists every topic page under TOPICS' '
	for src in "$MAN_SRC"/kbx-*.7.md
	do
		page=${src##*/} &&
		echo "${page%.7.md}" || return 1
	done | sort >expect &&
	md_section "$MAN_SRC/kbx.1.md" TOPICS |
		sed -n "s/^\*\*\(kbx-[a-z0-9-]*\)\*\*(7)$/\1/p" | sort >actual &&
	test_cmp expect actual
'

test_expect_success 'kbx(1) documents every exit code of cmd/builtin.h, and no other' '
	md_exit_codes "$MAN_SRC/kbx.1.md" >documented &&
	test_cmp codes documented
'

test_expect_success 'the exit codes on the command pages exist' '
	while read -r src
	do
		md_exit_codes "$src" | sort >documented &&
		sort codes >codes-lex &&
		comm -13 codes-lex documented >extra &&
		{
			test_must_be_empty extra ||
			{ echo "$src: exit codes not in cmd/builtin.h" >&2; return 1; }
		} || return 1
	done <pages
'

test_expect_success 'every kbx page a page refers to exists' '
	while read -r src
	do
		cat "$src" || return 1
	done <pages |
		grep -oE "\*\*kbx(-[a-z0-9-]+)?\*\*\([1-9]\)" | sort -u |
		sed -e "s/\*\*//g" -e "s/(\([1-9]\))/.\1/" >refs &&
	test_file_not_empty refs &&
	while read -r ref
	do
		test_path_is_file "$MAN_SRC/$ref.md" || return 1
	done <refs
'

test_expect_success MAN 'the rendered pages pass man --warnings' '
	while read -r src
	do
		page=${src##*/} &&
		page=$MAN_OUT/${page%.md} &&
		MANPAGER=cat man -l --warnings -E UTF-8 "$page" >/dev/null 2>warnings &&
		{
			test_must_be_empty warnings ||
			{ echo "$page: man printed warnings" >&2; return 1; }
		} || return 1
	done <pages
'

test_expect_success MAN 'kbx help CMD and kbx CMD --help show the page' '
	while read -r cmd
	do
		MANPAGER=cat kbx help "$cmd" >help-out 2>err &&
		test_must_be_empty err &&
		test_grep "^ *kbx-$cmd  *- " help-out &&
		test_grep "^SYNOPSIS" help-out &&
		(cd empty && MANPAGER=cat kbx "$cmd" --help) >dash-help-out &&
		test_cmp help-out dash-help-out || return 1
	done <cmds
'

test_expect_success MAN 'kbx help shows kbx(1), and kbx help TOPIC the topic page' '
	MANPAGER=cat kbx help >help-out &&
	test_grep "^ *kbx  *- " help-out &&
	for src in "$MAN_SRC"/kbx-*.7.md
	do
		topic=${src##*/kbx-} &&
		topic=${topic%.7.md} &&
		MANPAGER=cat kbx help "$topic" >help-out &&
		test_grep "^ *kbx-$topic  *- " help-out || return 1
	done
'

test_expect_success 'kbx CMD -h prints its usage on stdout and exits 0 without an index' '
	KBX_DIR="$TRASH_DIRECTORY/no-index" &&
	export KBX_DIR &&
	test_when_finished "unset KBX_DIR" &&
	(cd empty && test_expect_code 3 kbx status) &&
	while read -r cmd
	do
		(cd empty && kbx "$cmd" -h) >out 2>err &&
		test_must_be_empty err &&
		head -n 1 out >first &&
		test_grep "^usage: kbx $cmd" first || return 1
	done <cmds &&
	test_path_is_missing no-index &&
	test_path_is_missing empty/.kbx
'

test_expect_success 'kbx --list-topics names exactly the topic pages' '
	(cd "$MAN_SRC" && ls kbx-*.7.md) | sed "s/^kbx-//; s/\.7\.md\$//" | LC_ALL=C sort >expect &&
	kbx --list-topics | LC_ALL=C sort >actual &&
	test_cmp expect actual
'

test_done
