#!/bin/sh
# run-tests.sh: run kbx's shell test scripts and add up their results.
#
# usage: tests/run-tests.sh [-j N] [--prove | --no-prove] [SCRIPT...]
#
# SCRIPT is a test script (t1234-foo-bar.sh, with or without tests/) or
# the start of some names (t1, t2001); the default is every
# tests/t[0-9]*.sh.  The C unit test programs are not run here: the
# shell scripts run them with test_unit.
#
# Scripts run two at a time (-j), under prove when it is installed (for
# its progress and timer output) or under xargs -P otherwise.  Either
# way each script's TAP is kept in build/test-results/<script>.tap, its
# stderr in .err and its exit code in .exit, and this script reads
# those files to print one line per script and, last, a summary:
#
#	N passed, N failed[, N skipped]
#
# counting test cases over all scripts.  Known breakages
# (test_expect_failure) are counted as skipped.  A script that exits
# non-zero without a failed test, prints no plan, or runs a different
# number of tests than it planned counts as one more failure.  The exit
# code is 0 when nothing failed, 1 when something did, 2 on usage
# errors.

TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd) || exit 2
KBX_SRC=$(cd "$TEST_DIRECTORY/.." && pwd) || exit 2
results="$KBX_SRC/build/test-results"

if test -z "$TEST_SHELL_PATH"
then
	TEST_SHELL_PATH=$(command -v bash) || TEST_SHELL_PATH=/bin/sh
fi
export TEST_SHELL_PATH

# --run-one [--tee] SCRIPT: run one script, keeping its results (an
# internal mode, used through xargs or prove).  With --tee the TAP is
# also copied to stdout, for prove to read.
run_one () {
	tee=
	if test "$1" = --tee
	then
		tee=t
		shift
	fi
	script=${1##*/}
	name=${script%.sh}
	cd "$TEST_DIRECTORY" || exit 2
	start=$(date +%s)
	if test -n "$tee"
	then
		{
			"$TEST_SHELL_PATH" "./$script" </dev/null \
				2>"$results/$name.err"
			echo $? >"$results/$name.exit"
		} | tee "$results/$name.tap"
	else
		"$TEST_SHELL_PATH" "./$script" </dev/null \
			>"$results/$name.tap" 2>"$results/$name.err"
		echo $? >"$results/$name.exit"
	fi
	echo $(($(date +%s) - start)) >"$results/$name.time"
	exit "$(cat "$results/$name.exit")"
}

if test "$1" = --run-one
then
	shift
	run_one "$@"
fi

usage () {
	echo "usage: tests/run-tests.sh [-j N] [--prove | --no-prove] [SCRIPT...]"
}

jobs=2
use_prove=auto
while test $# -gt 0
do
	case "$1" in
	-j) test $# -ge 2 || { usage >&2; exit 2; }; jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	--jobs=*) jobs=${1#--jobs=} ;;
	--prove) use_prove=yes ;;
	--no-prove) use_prove=no ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) echo "error: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
case "$jobs" in
''|*[!0-9]*|0) echo "error: -j needs a positive number, not '$jobs'" >&2; exit 2 ;;
esac

cd "$TEST_DIRECTORY" || exit 2

# Which scripts to run, by their names in tests/.
scripts=
if test $# = 0
then
	for f in t[0-9]*.sh
	do
		test -f "$f" && scripts="$scripts $f"
	done
else
	for arg
	do
		base=${arg##*/}
		found=
		for f in "$base" "$base"*.sh
		do
			case "$f" in
			t[0-9]*.sh)
				if test -f "$f"
				then
					case " $scripts " in
					*" $f "*) ;;
					*) scripts="$scripts $f" ;;
					esac
					found=t
				fi
				;;
			esac
		done
		if test -z "$found"
		then
			echo "error: no test script matches '$arg' in '$TEST_DIRECTORY'" >&2
			exit 2
		fi
	done
fi
if test -z "$scripts"
then
	echo "error: no test scripts found in '$TEST_DIRECTORY'" >&2
	exit 2
fi

if test "$use_prove" = auto
then
	if command -v prove >/dev/null 2>&1
	then
		use_prove=yes
	else
		use_prove=no
	fi
elif test "$use_prove" = yes && ! command -v prove >/dev/null 2>&1
then
	echo "error: --prove given but prove is not installed" >&2
	exit 2
fi

if ! test -x "$KBX_SRC/kbx"
then
	echo "warning: '$KBX_SRC/kbx' is not built; tests that run kbx will fail (run 'make' first)" >&2
fi

mkdir -p "$results" || exit 2
for f in $scripts
do
	name=${f%.sh}
	rm -f "$results/$name.tap" "$results/$name.err" "$results/$name.exit" \
		"$results/$name.time" "$results/$name.summary"
done

if test "$use_prove" = yes
then
	prove -j"$jobs" --timer \
		--exec "/bin/sh ./run-tests.sh --run-one --tee" $scripts
	echo
elif test "$jobs" = 1
then
	for f in $scripts
	do
		(run_one "$f")
	done
else
	printf '%s\n' $scripts |
	xargs -n 1 -P "$jobs" /bin/sh ./run-tests.sh --run-one
fi

# Read one script's TAP; print "PASS FAIL SKIP TODO" on the first line,
# then the lines to show for it.
summarise () {
	awk -v name="$1" -v code="$2" -v secs="$3" -v results="$results" '
	function lower_has(re) { return tolower($0) ~ re }
	# a TAP directive: " # TODO" or " # SKIP" after the description, not
	# a "#" inside it ("...TodoList.tsx#TodoList" is no TODO)
	function directive(word) { return lower_has("[ \t]#[ \t]*" word "([ \t:]|$)") }
	/^not ok([ \t]|$)/ {
		ran++
		if (directive("todo")) {
			todo++
			showing = 0
		} else {
			fail++
			showing = 1
			if (shown < 100) { detail[++shown] = "    " $0 }
		}
		next
	}
	/^ok([ \t]|$)/ {
		ran++
		showing = 0
		if (directive("skip")) skip++
		else {
			pass++
			if (directive("todo")) fixed++
		}
		next
	}
	/^1\.\.[0-9]+/ {
		showing = 0
		planned = $0
		sub(/^1\.\./, "", planned)
		sub(/[^0-9].*$/, "", planned)
		planned += 0
		haveplan++
		if (directive("skip")) {
			skipall = $0
			sub(/^1\.\.[0-9]+[ \t]*#[ \t]*[Ss][Kk][Ii][Pp][ \t]*/, "", skipall)
			if (skipall == "") skipall = "no reason given"
		}
		next
	}
	/^Bail out!/ { bail = $0; showing = 0; next }
	/^#/ {
		if (showing && shown < 100) detail[++shown] = "    " $0
		next
	}
	END {
		problem = ""
		if (bail != "") problem = bail
		else if (!haveplan) problem = "no TAP plan (did the script die?)"
		else if (haveplan > 1) problem = "more than one TAP plan"
		else if (planned != ran) problem = "planned " planned " test(s) but ran " ran
		else if (code == "") problem = "no exit code recorded"
		else if (code != 0 && fail == 0) problem = "exited with code " code " without a failed test"
		if (problem != "") fail++
		if (skipall != "" && ran == 0 && problem == "") skip++
		print pass + 0, fail + 0, skip + 0, todo + 0

		status = ""
		if (fail) status = "FAILED " fail " of " (ran + (problem != "" ? 1 : 0))
		else if (skipall != "" && ran == 0) status = "skipped: " skipall
		else status = "ok"
		extra = ""
		if (pass) extra = extra ", " pass " passed"
		if (skip && !(skipall != "" && ran == 0)) extra = extra ", " skip " skipped"
		if (todo) extra = extra ", " todo " known breakage(s)"
		if (fixed) extra = extra ", " fixed " fixed breakage(s)"
		sub(/^, /, "", extra)
		line = name " "
		while (length(line) < 40) line = line "."
		line = line " " status
		if (extra != "") line = line " (" extra ")"
		if (secs != "") line = line " " secs "s"
		print line
		if (problem != "") print "    " problem
		for (i = 1; i <= shown; i++) print detail[i]
		if (fail) print "    see " results "/" name ".tap and .err"
	}' "$results/$1.tap"
}

total_pass=0
total_fail=0
total_skip=0
total_todo=0
for f in $scripts
do
	name=${f%.sh}
	touch "$results/$name.tap"
	code=$(cat "$results/$name.exit" 2>/dev/null)
	secs=$(cat "$results/$name.time" 2>/dev/null)
	summarise "$name" "$code" "$secs" >"$results/$name.summary"
	read -r p f s t <"$results/$name.summary"
	sed 1d "$results/$name.summary"
	if test "$f" != 0 && test -s "$results/$name.err"
	then
		echo "    stderr (last lines):"
		tail -n 10 "$results/$name.err" | sed 's/^/    | /'
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s + t))
	total_todo=$((total_todo + t))
done

test "$total_todo" = 0 ||
	echo "($total_todo known breakage(s) from test_expect_failure counted as skipped)"
summary="$total_pass passed, $total_fail failed"
test "$total_skip" = 0 || summary="$summary, $total_skip skipped"
echo "$summary"
test "$total_fail" = 0
