# bench/accuracy/oracle-bash-hook.bash: the recording half of the Bash
# oracle.  oracle-bash.py runs a project's tests with BASH_ENV naming this
# file (every non-interactive bash of the run loads it first) and with
# PROMPT_COMMAND sourcing it before an interactive shell's first prompt
# (a test suite driving an interactive `bash --norc`).
#
# A DEBUG trap, inherited by functions, command substitutions and
# subshells (set -T), sees each simple command before it runs: its text
# unexpanded (BASH_COMMAND), the file it is written in (BASH_SOURCE[0])
# and its line (LINENO).  When the command's first word is a plain name
# (no expansion, quote or path), the hook writes, once for the whole run
# for each (name, file, line), a record to a file of its own in
# $ORACLE_BASH_OUT/calls:
#
#   @ <TAB> cwd <TAB> file <TAB> line <TAB> name <TAB> command
#   D <TAB> declaration
#   C <TAB> the calling function's declaration (when line is "?")
#
# the declaration being `declare -F NAME` under extdebug ("NAME LINE
# FILE": the function that runs) when NAME is a function at that moment,
# else "-" (a builtin, keyword or program).  A command whose first word
# is an expansion ($cmd, "$@") is not recorded: the function it runs, if
# any, is not known here.  What was seen is kept as empty files under
# $ORACLE_BASH_OUT/seen (a test that compares the shell's variables
# before and after would see a variable change), so the hook's only
# variables are set once.  An interactive shell numbers the lines of a
# function from 1 (LINENO, BASH_LINENO, clamped): there the line is "?",
# and the command's text (BASH_COMMAND, as Bash prints it back) and the
# calling function's declaration are written instead (and "command" is
# "-" otherwise).  extdebug is on only while `declare -F` runs (and
# functrace and errtrace put back as they were).  A site is written the
# first time it runs: a name defined again and run there later is not
# seen (so no site is virt for a redefinition).
[[ -n ${ORACLE_BASH_OUT-} && -z ${__kbx_oracle-} ]] || return 0
__kbx_oracle=1
__kbx_rec() {
	local w=$1 f=$2 l=$3 c=- k out=$ORACLE_BASH_OUT/calls/$BASHPID
	if [[ $- == *i* && ${FUNCNAME[1]-main} != @(main|source) ]]; then
		# an interactive shell numbers a function's lines from 1 (and
		# clamps them): the command's text and its function's place
		# stand for the line
		c=${BASH_COMMAND//[$'\t\n']/ }
		l=?
		k=${FUNCNAME[1]}@${c:0:120}
	else
		k=$l
	fi
	# a file name of at most 202 bytes: 40 of the name, 80 of the line
	# or command, the last 80 of the file
	k=${k//\//%} f=${f//\//%}
	((${#f} <= 80)) || f=${f: -80}
	k=$ORACLE_BASH_OUT/seen/${w:0:40}@${k:0:80}@$f
	f=$2
	[[ -e $k ]] && return 0
	# true, not `:`: a failed redirection of a special builtin ends a
	# shell in POSIX mode (bash-completion's tests run in it)
	true 2>/dev/null >"$k"
	# extdebug only here, once a site: left on, or turned on and off at
	# every call, it changes what the tests see (BASH_ARGV's frames)
	local on=1 ft=+ et=+
	[[ -o functrace ]] && ft=-
	[[ -o errtrace ]] && et=-
	shopt -q extdebug || { on=0; shopt -s extdebug; }
	{
		printf '@\t%s\t%s\t%s\t%s\t%s\nD\t' "$PWD" "$f" "$l" "$w" "$c"
		declare -F -- "$w" || echo -
		if [[ $l == "?" ]]; then
			printf 'C\t'
			declare -F -- "${FUNCNAME[1]}" || echo -
		fi
	} >>"$out" 2>/dev/null
	((on)) || { shopt -u extdebug; set ${ft}o functrace ${et}o errtrace; }
	return 0
}
set -T
trap '__kbx_c=${BASH_COMMAND%%[[:space:]]*}; [[ $__kbx_c == +([[:alnum:]_.:+@%,-]) ]] && __kbx_rec "$__kbx_c" "${BASH_SOURCE[0]-}" "$LINENO"; true' DEBUG
