# bash completion for kbx                                  -*- shell-script -*-
#
# Everything offered here comes from the kbx program itself, so the
# completion cannot drift from the code:
#
#   kbx --list-cmds            the command names
#   kbx --list-opts            the options that go before the command, if
#                              this kbx answers it (nothing is offered
#                              otherwise)
#   kbx CMD --list-opts        a command's options, one per line: "--flag",
#                              "-x", or "--name=" followed by a tab and
#                              either the values it accepts, separated by
#                              spaces, or "@symbol", "@path", "@command",
#                              "@repo"
#   kbx CMD -h                 the usage line, whose operand placeholder
#                              says how operands complete: <symbol> and
#                              <class> (names in the index), <file> (names
#                              in the index and paths), <path> (paths),
#                              <command> and <topic> (commands)
#   kbx complete-symbols --prefix=P
#                              the names in the index that start with P
#   kbx repos --names          the names of the repositories kbx knows
#
# Any of these may fail (no index, an older kbx): the completion then
# offers nothing for that word, silently.
#
# Load it from ~/.bashrc with ". /path/to/kbx.bash", or install it as
# $(datadir)/bash-completion/completions/kbx.  It needs bash 4 or later
# and uses plain "complete -F": the bash-completion package is not
# needed, and it works alongside it.

# Run kbx with the options that came before the command (-C, --kbx-dir,
# --repo) and a command's --repo, so that names come from the index the
# command line will use.
_kbx_run ()
{
	command kbx "${_kbx_global[@]}" "$@" 2>/dev/null
}

# The words of the command line as the user typed them.  bash splits
# words at the characters of COMP_WORDBREAKS, so "--format=js" arrives
# as "--format" "=" "js" and "Foo::bar" as "Foo" "::" "bar": glue such
# pieces back together.  Sets _kbx_words, _kbx_cword and _kbx_seps.
_kbx_join_words ()
{
	local w i n glue=0
	_kbx_seps=
	case ${COMP_WORDBREAKS-=:} in *=*) _kbx_seps+="=" ;; esac
	case ${COMP_WORDBREAKS-=:} in *:*) _kbx_seps+=":" ;; esac
	_kbx_words=()
	_kbx_cword=0
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		w=${COMP_WORDS[i]}
		n=${#_kbx_words[@]}
		if ((n > 0)) && [[ -n $_kbx_seps && -n $w && -z ${w//[$_kbx_seps]/} ]]; then
			_kbx_words[n - 1]+=$w
			glue=1
		elif ((glue)); then
			_kbx_words[n - 1]+=$w
			glue=0
		else
			_kbx_words+=("$w")
		fi
		((i == COMP_CWORD)) && _kbx_cword=$((${#_kbx_words[@]} - 1))
	done
	if ((COMP_CWORD >= ${#COMP_WORDS[@]})); then
		_kbx_words+=("")
		_kbx_cword=$((${#_kbx_words[@]} - 1))
	fi
}

# _kbx_add WORD...: offer the words that start with the current word.
# bash replaces only the text after the last word-break character of the
# word, so that part of the current word is cut off each candidate.
_kbx_add ()
{
	local c
	for c in "$@"; do
		[[ -n $c && $c == "$_kbx_cur"* ]] || continue
		COMPREPLY+=("${c#"$_kbx_lead"}")
	done
}

# _kbx_add_output PREFIX KBX-ARGS...: offer each line kbx prints,
# after PREFIX.
_kbx_add_output ()
{
	local prefix=$1 line
	local -a lines
	shift
	mapfile -t lines < <(_kbx_run "$@")
	for line in "${lines[@]}"; do
		_kbx_add "$prefix$line"
	done
}

# _kbx_add_files PREFIX VALUE [-d]: the files (or, with -d, the
# directories) whose names start with VALUE, after PREFIX.
_kbx_add_files ()
{
	local prefix=$1 value=$2 kind=${3:--f} p
	local -a found
	if [[ $value == "~"* ]]; then
		# as the shell would expand it
		[[ $value == "~" || $value == "~/"* ]] && value=$HOME${value#\~}
	fi
	mapfile -t found < <(compgen "$kind" -- "$value")
	if [[ -z $prefix ]]; then
		# plain file names: let bash quote them and mark directories
		_kbx_add "${found[@]}"
		compopt -o filenames 2>/dev/null
		return
	fi
	for p in "${found[@]}"; do
		[[ -d $p ]] && p+=/
		_kbx_add "$prefix$p"
	done
}

# _kbx_add_values SOURCE PREFIX VALUE: complete VALUE, the text after
# PREFIX ("--name=", or nothing for a separate word), from SOURCE, the
# second field of a --list-opts line.
_kbx_add_values ()
{
	local source=$1 prefix=$2 value=$3 v
	case $source in
	@symbol) _kbx_add_output "$prefix" complete-symbols --prefix="$value" ;;
	@path) _kbx_add_files "$prefix" "$value" ;;
	@command) _kbx_add_output "$prefix" --list-cmds ;;
	@repo)
		# the list is the user's, whatever index the line names
		local _kbx_global=()
		_kbx_add_output "$prefix" repos --names
		;;
	@*) ;;
	*)
		for v in $source; do
			_kbx_add "$prefix$v"
		done
		;;
	esac
}

# How the operands of a command complete, from its usage line.
_kbx_operand_kind ()
{
	local usage
	usage=$(_kbx_run "$1" -h) || return
	case $usage in
	*"<symbol>"* | *"<class>"*) echo symbol ;;
	*"<file>"*) echo file ;;
	*"<path>"*) echo path ;;
	*"<command>"* | *"<topic>"*) echo command ;;
	*"<key>"*) echo key ;;
	esac
}

_kbx ()
{
	local _kbx_cur _kbx_lead _kbx_seps _kbx_cword cmd="" cmd_index i w
	local -a _kbx_words _kbx_global
	COMPREPLY=()
	_kbx_join_words
	_kbx_cur=${_kbx_words[_kbx_cword]}
	_kbx_lead=
	if [[ -n $_kbx_seps && $_kbx_cur == *[$_kbx_seps]* ]]; then
		_kbx_lead=${_kbx_cur%"${_kbx_cur##*[$_kbx_seps]}"}
	fi

	# The options before the command, and the command.  -C, --kbx-dir
	# and --repo take a value; they are kept to pass on to kbx.
	for ((i = 1; i < _kbx_cword; i++)); do
		w=${_kbx_words[i]}
		case $w in
		-C | --kbx-dir | --repo)
			((i + 1 < _kbx_cword)) && _kbx_global+=("$w" "${_kbx_words[i + 1]}")
			((i++))
			;;
		--kbx-dir=* | --repo=*) _kbx_global+=("$w") ;;
		-*) ;;
		*)
			cmd=$w
			break
			;;
		esac
	done
	cmd_index=$i
	local prev=${_kbx_words[_kbx_cword - 1]}

	if [[ -z $cmd ]]; then
		if ((_kbx_cword > 1)) && [[ $prev == -C || $prev == --kbx-dir ]]; then
			_kbx_add_files "" "$_kbx_cur" -d
		elif [[ $_kbx_cur == --kbx-dir=* ]]; then
			_kbx_add_files --kbx-dir= "${_kbx_cur#--kbx-dir=}" -d
		elif ((_kbx_cword > 1)) && [[ $prev == --repo ]]; then
			_kbx_add_values @repo "" "$_kbx_cur"
		elif [[ $_kbx_cur == --repo=* ]]; then
			_kbx_add_values @repo --repo= "${_kbx_cur#--repo=}"
		elif [[ $_kbx_cur == -* ]]; then
			_kbx_add_output "" --list-opts
			COMPREPLY=("${COMPREPLY[@]%%$'\t'*}")
		else
			_kbx_add_output "" --list-cmds
		fi
		_kbx_finish
		return 0
	fi

	# Ask only commands kbx lists: an unknown name may be a kbx-NAME
	# program, which must not be run just because Tab was pressed.
	local known=0 c
	while IFS= read -r c; do
		[[ $c == "$cmd" ]] && known=1
	done < <(_kbx_run --list-cmds)
	((known)) || return 0

	# After "--" every word is an operand.  A command's --repo names
	# the index its operands complete from.
	local operands_only=0
	for ((i = cmd_index + 1; i < _kbx_cword; i++)); do
		w=${_kbx_words[i]}
		[[ $w == -- ]] && operands_only=1
		((operands_only)) && continue
		case $w in
		--repo=*) _kbx_global+=("$w") ;;
		--repo) ((i + 1 < _kbx_cword)) && _kbx_global+=("$w" "${_kbx_words[i + 1]}") ;;
		esac
	done

	local -a optlines
	local line source
	mapfile -t optlines < <(_kbx_run "$cmd" --list-opts)

	if ((!operands_only)) && [[ $_kbx_cur == --*=* ]]; then
		# "--name=VALUE"
		for line in "${optlines[@]}"; do
			[[ ${line%%$'\t'*} == "${_kbx_cur%%=*}=" ]] || continue
			source=
			[[ $line == *$'\t'* ]] && source=${line#*$'\t'}
			_kbx_add_values "$source" "${_kbx_cur%%=*}=" "${_kbx_cur#*=}"
		done
		_kbx_finish
		return 0
	fi
	if ((!operands_only && _kbx_cword - 1 > cmd_index)) && [[ $prev == --* ]]; then
		# "--name VALUE": the value as a word of its own
		for line in "${optlines[@]}"; do
			[[ ${line%%$'\t'*} == "$prev=" ]] || continue
			source=
			[[ $line == *$'\t'* ]] && source=${line#*$'\t'}
			_kbx_add_values "$source" "" "$_kbx_cur"
			_kbx_finish
			return 0
		done
	fi
	if ((!operands_only)) && [[ $_kbx_cur == -* ]]; then
		for line in "${optlines[@]}"; do
			_kbx_add "${line%%$'\t'*}"
		done
		_kbx_finish
		return 0
	fi

	case $(_kbx_operand_kind "$cmd") in
	symbol) _kbx_add_output "" complete-symbols --prefix="$_kbx_cur" ;;
	file)
		_kbx_add_output "" complete-symbols --kind=file,module --prefix="$_kbx_cur"
		_kbx_add_files "" "$_kbx_cur"
		;;
	path) _kbx_add_files "" "$_kbx_cur" ;;
	command)
		_kbx_add_output "" --list-cmds
		[[ $cmd == help ]] && _kbx_add_output "" --list-topics
		;;
	key)
		# setting names, from the "key=value" lines of the defaults
		local line
		while IFS= read -r line; do
			_kbx_add "${line%%=*}"
		done < <(_kbx_run config --list --defaults)
		;;
	esac
	_kbx_finish
	return 0
}

# Each candidate once: a file operand is offered from the index and from
# the disk, which name the same files.  No space after "--name=" or a
# directory, so that the value or the rest of the path can follow.
_kbx_finish ()
{
	local c
	local -A seen=()
	local -a once=()
	for c in "${COMPREPLY[@]}"; do
		[[ -n ${seen["x$c"]+set} ]] && continue
		seen["x$c"]=1
		once+=("$c")
	done
	COMPREPLY=("${once[@]}")
	for c in "${COMPREPLY[@]}"; do
		if [[ $c == *= || $c == */ ]]; then
			compopt -o nospace 2>/dev/null
			return
		fi
	done
}

complete -F _kbx kbx
