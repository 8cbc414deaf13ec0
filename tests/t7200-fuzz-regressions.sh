#!/bin/sh
test_description='fuzz harnesses: replay the inputs that once crashed, and the seeds

Each tests/fuzz/<harness>.c is also linked with a plain main() that reads
files (tests/fuzz/replay.c) into build/tests/fuzz/<harness>, so the inputs
libFuzzer found (tests/fuzz/regressions/<harness>/) are replayed by every
make check, with no fuzzer runtime.  The seed corpora are replayed too:
the harnesses check more than the absence of a crash.'

. "$(dirname "$0")"/test-lib.sh

fuzz_bin=${KBX_TEST_UNIT%/unit}/fuzz
fuzz_src=$TEST_DIRECTORY/fuzz

# one line per input; a crash or failed check is a death by signal
replay () {
	harness=$1 dir=$2
	test -d "$dir" || return 0
	find "$dir" -type f ! -name '.*' >inputs &&
	test_expect_code 0 "$fuzz_bin/$harness" "$dir" >out &&
	grep -c '^ok ' out >count &&
	wc -l <inputs | tr -d ' ' >expect &&
	test_cmp expect count
}

harnesses=$(cd "$fuzz_src" && ls *.c | sed -n 's/\.c$//p' | grep -v '^replay$')

if ! test -d "$fuzz_bin"
then
	skip_all='the replay programs are not built (a Makefile without them)'
	test_done
fi

test_expect_success 'every harness has a replay program' '
	for h in $harnesses
	do
		test -x "$fuzz_bin/$h" || {
			echo "missing $fuzz_bin/$h: run make" >&2
			return 1
		}
	done
'

for h in $harnesses
do
	test_expect_success "$h: regression inputs" "
		replay $h \"\$fuzz_src/regressions/$h\"
	"
	test_expect_success "$h: seed corpus" "
		replay $h \"\$fuzz_src/corpus/$h\"
	"
done

test_expect_success 'an unreadable input is an error, not a pass' '
	test_expect_code 2 "$fuzz_bin/records" no-such-file
'

test_done
