#!/bin/sh

test_description='shell completions: commands, options, keyword values and symbols

completions/kbx.bash is sourced into bash and its function called with
COMP_WORDS and COMP_CWORD set as bash sets them; the answers must be
what the binary lists (--list-cmds, --list-opts, complete-symbols), so
the completions cannot drift from the code.  The zsh and fish
completions are checked when those shells are installed.'

. ./test-lib.sh

COMPLETIONS=$KBX_SRC/completions

test_lazy_prereq BASH '
	bash -c "test \${BASH_VERSINFO[0]} -ge 4"
'
test_lazy_prereq BASH_COMPLETION '
	test -f /usr/share/bash-completion/bash_completion &&
	bash -c ". /usr/share/bash-completion/bash_completion && type _init_completion"
'
test_lazy_prereq ZSH '
	zsh -f -c "zmodload zsh/parameter"
'
test_lazy_prereq FISH '
	fish -N -c "complete -C\"true \""
'

# complete_bash WORD...: the completions of the last WORD, one per line
# in complete.out, words given as bash splits them ("--format" "=" "j").
complete_bash () {
	bash "$TRASH_DIRECTORY/complete.bash" "$@" >complete.out 2>complete.err &&
	test_must_be_empty complete.err
}

# sorted FILE: FILE sorted, into FILE.sorted.
sorted () {
	sort "$1" >"$1.sorted"
}

test_expect_success BASH 'setup: a repository, its index, the bash driver' '
	mkdir repo &&
	(
		cd repo &&
		git init -q &&
		mkdir src &&
		test_write_lines "class Dog:" "    def speak(self):" "        return bark()" \
			"def bark():" "    return 1" "def main():" "    Dog().speak()" >src/pets.py &&
		test_write_lines "from src.pets import main" "main()" >run.py &&
		kbx index -q
	) &&
	mkdir plain &&
	cat >complete.bash <<-\EOF &&
	# Call the bash completion as bash would: the words of the line,
	# the last one being completed; extra settings come from the
	# environment (COMP_WORDBREAKS, PRELOAD).
	if test -n "$PRELOAD"
	then
		. "$PRELOAD" || exit 1
	fi
	if test -n "$WORDBREAKS"
	then
		COMP_WORDBREAKS=$WORDBREAKS
	fi
	. "$KBX_SRC/completions/kbx.bash" || exit 1
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	_kbx kbx "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}" || exit 1
	if test ${#COMPREPLY[@]} -gt 0
	then
		printf "%s\n" "${COMPREPLY[@]}"
	fi
	EOF
	kbx --list-cmds >cmds
'

test_expect_success BASH 'bash: the command names are those of kbx --list-cmds' '
	complete_bash kbx "" &&
	sorted complete.out &&
	sort cmds >expect &&
	test_cmp expect complete.out.sorted
'

test_expect_success BASH 'bash: a command name by its prefix' '
	complete_bash kbx call &&
	test_write_lines callees callers | sort >expect &&
	sorted complete.out &&
	test_cmp expect complete.out.sorted
'

test_expect_success BASH 'bash: the options of every command are those of --list-opts' '
	while read -r cmd
	do
		kbx "$cmd" --list-opts | cut -f1 | sort >expect &&
		complete_bash kbx "$cmd" - &&
		sorted complete.out &&
		test_cmp expect complete.out.sorted || return 1
	done <cmds
'

test_expect_success BASH 'bash: options by prefix' '
	complete_bash kbx callers --f &&
	test_write_lines --format= --format-version= | sort >expect &&
	sorted complete.out &&
	test_cmp expect complete.out.sorted
'

test_expect_success BASH 'bash: the values of --format= as bash splits the word' '
	kbx callers --list-opts >opts &&
	sed -n "s/^--format=	//p" opts | tr " " "\n" | sort >expect &&
	test_line_count -ge 2 expect &&
	complete_bash kbx callers --format = "" &&
	sorted complete.out &&
	test_cmp expect complete.out.sorted &&
	complete_bash kbx callers --format = j &&
	echo json >expect &&
	test_cmp expect complete.out
'

test_expect_success BASH 'bash: the values of --format= when = does not break words' '
	WORDBREAKS=" \"'\''><;|&(:" &&
	export WORDBREAKS &&
	test_when_finished "unset WORDBREAKS" &&
	complete_bash kbx callers --format=j &&
	echo --format=json >expect &&
	test_cmp expect complete.out
'

test_expect_success BASH 'bash: the value of a keyword option as a separate word' '
	complete_bash kbx defs --color a &&
	test_write_lines always auto | sort >expect &&
	sorted complete.out &&
	test_cmp expect complete.out.sorted
'

test_expect_success BASH 'bash: the values of every keyword option of every command' '
	while read -r cmd
	do
		kbx "$cmd" --list-opts >opts &&
		{ grep "=	" opts | grep -v "	@" || :; } >keyword-opts &&
		while IFS="	" read -r opt values
		do
			echo $values | tr " " "\n" | sort >expect &&
			complete_bash kbx "$cmd" "${opt%=}" = "" &&
			sorted complete.out &&
			test_cmp expect complete.out.sorted || return 1
		done <keyword-opts || return 1
	done <cmds
'

test_expect_success BASH 'bash: symbol operands come from the index' '
	(cd repo && complete_bash kbx callers ba) &&
	echo bark >expect &&
	test_cmp expect repo/complete.out &&
	(cd repo/src && complete_bash kbx defs D) &&
	echo Dog >expect &&
	test_cmp expect repo/src/complete.out
'

test_expect_success BASH 'bash: -C before the command picks the index' '
	complete_bash kbx -C repo callees ma &&
	echo main >expect &&
	test_cmp expect complete.out
'

test_expect_success BASH 'bash: without an index, symbols complete to nothing, quietly' '
	KBX_DIR="$TRASH_DIRECTORY/no-index" &&
	export KBX_DIR &&
	test_when_finished "unset KBX_DIR" &&
	(cd plain && complete_bash kbx callers ma) &&
	test_must_be_empty plain/complete.out
'

test_expect_success BASH 'bash: after -- no options are offered' '
	(cd repo && complete_bash kbx defs -- --f) &&
	test_must_be_empty repo/complete.out
'

test_expect_success BASH 'bash: kbx index completes paths' '
	(cd repo && complete_bash kbx index sr) &&
	echo src >expect &&
	test_cmp expect repo/complete.out
'

test_expect_success BASH 'bash: a name that is not a command is never run' '
	mkdir bin &&
	cat >bin/kbx-frob <<-EOF &&
	#!/bin/sh
	touch "$TRASH_DIRECTORY/frob-ran"
	EOF
	chmod +x bin/kbx-frob &&
	(PATH=$TRASH_DIRECTORY/bin:$PATH && complete_bash kbx frob -) &&
	test_must_be_empty complete.out &&
	test_path_is_missing frob-ran
'

test_expect_success BASH,BASH_COMPLETION 'bash: works with the bash-completion package loaded' '
	PRELOAD=/usr/share/bash-completion/bash_completion &&
	export PRELOAD &&
	test_when_finished "unset PRELOAD" &&
	complete_bash kbx callers --format = j &&
	echo json >expect &&
	test_cmp expect complete.out &&
	(cd repo && complete_bash kbx callers ba) &&
	echo bark >expect &&
	test_cmp expect repo/complete.out
'

test_expect_success ZSH 'zsh: the completion registers itself through compinit' '
	mkdir -p zsh-home &&
	ZDOTDIR=$TRASH_DIRECTORY/zsh-home zsh -f -c "
		fpath=(\"$COMPLETIONS\" \$fpath)
		autoload -Uz compinit && compinit -u -D
		print -r -- \$_comps[kbx]
	" >actual &&
	echo _kbx >expect &&
	test_cmp expect actual
'

# The zsh completion, with the builtins that work only inside a
# completion widget replaced by functions that print what they are
# given: words and CURRENT are set as zsh sets them.
test_expect_success ZSH 'setup: the zsh driver' '
	cat >complete.zsh <<-\EOF
	compadd () {
		while (( $# )); do
			case $1 in
			(-S) shift 2 ;;
			(--) shift; break ;;
			(*) shift ;;
			esac
		done
		local w
		for w in "$@"; do
			[[ $w == ${PREFIX}* ]] && print -r -- "$IPREFIX$w"
		done
		return 0
	}
	compset () {
		[[ $1 == -P ]] || return 1
		local m=${(M)PREFIX##${~2}}
		[[ -n $m ]] || return 1
		IPREFIX+=$m
		PREFIX=${PREFIX#$m}
	}
	_files () { print -r -- "<files>" }
	compdef () { : }
	source "$KBX_SRC/completions/_kbx"
	words=("$@")
	CURRENT=$#
	PREFIX=$words[CURRENT]
	IPREFIX=
	_kbx
	EOF
'

test_expect_success ZSH 'zsh: commands, options and keyword values' '
	zsh -f complete.zsh kbx "" >actual &&
	sort actual >actual.sorted &&
	sort cmds >expect &&
	test_cmp expect actual.sorted &&
	zsh -f complete.zsh kbx callers --f >actual &&
	sort actual >actual.sorted &&
	test_write_lines --format= --format-version= | sort >expect &&
	test_cmp expect actual.sorted &&
	zsh -f complete.zsh kbx callers --format=j >actual &&
	echo --format=json >expect &&
	test_cmp expect actual &&
	zsh -f complete.zsh kbx status --color a >actual &&
	sort actual >actual.sorted &&
	test_write_lines always auto | sort >expect &&
	test_cmp expect actual.sorted
'

test_expect_success ZSH 'zsh: symbols come from the index' '
	(cd repo && zsh -f ../complete.zsh kbx callers ba) >actual &&
	echo bark >expect &&
	test_cmp expect actual
'

test_expect_success FISH 'fish: commands, options and keyword values' '
	fish -N -c "source \"$COMPLETIONS/kbx.fish\"; complete -C\"kbx \"" >actual &&
	cut -f1 actual | sort >actual.sorted &&
	sort cmds >expect &&
	test_cmp expect actual.sorted &&
	fish -N -c "source \"$COMPLETIONS/kbx.fish\"; complete -C\"kbx callers --f\"" >actual &&
	cut -f1 actual | sort >actual.sorted &&
	test_write_lines --format= --format-version= | sort >expect &&
	test_cmp expect actual.sorted &&
	fish -N -c "source \"$COMPLETIONS/kbx.fish\"; complete -C\"kbx callers --format=j\"" >actual &&
	cut -f1 actual >actual.first &&
	echo --format=json >expect &&
	test_cmp expect actual.first
'

test_expect_success FISH 'fish: symbols come from the index' '
	(cd repo && fish -N -c "source \"$COMPLETIONS/kbx.fish\"; complete -C\"kbx callers ba\"") >actual &&
	cut -f1 actual >actual.first &&
	echo bark >expect &&
	test_cmp expect actual.first
'

test_expect_success BASH 'bash: config keys, help topics, files by kind' '
	complete_bash kbx config index. &&
	sorted complete.out &&
	test_write_lines index.cHeaders index.codeChunks index.compact index.cppHeaders index.markdown index.maxFileSize index.parseTimeout index.threads >expect &&
	test_cmp expect complete.out.sorted &&
	complete_bash kbx help se &&
	test_grep "^settings$" complete.out &&
	(cd repo && complete_bash kbx imports src/) &&
	test_grep "^src/pets.py$" repo/complete.out &&
	test_grep ! "pets.py#" repo/complete.out
'

test_expect_success BASH 'bash: a file the index and the disk both offer is offered once' '
	(cd repo && complete_bash kbx imports src/) &&
	sort repo/complete.out >all &&
	sort -u repo/complete.out >once &&
	test_cmp once all &&
	(cd repo && complete_bash kbx importers r) &&
	grep -c "^run.py$" repo/complete.out >count &&
	echo 1 >expect &&
	test_cmp expect count
'

test_expect_success FISH 'fish: config keys and help topics' '
	(cd repo && fish -N -c "source \"$COMPLETIONS/kbx.fish\"; complete -C\"kbx config color\"") >actual &&
	test_grep "^color.ui" actual &&
	fish -N -c "source \"$COMPLETIONS/kbx.fish\"; complete -C\"kbx help sy\"" >actual &&
	test_grep "^symbols" actual
'

test_done
