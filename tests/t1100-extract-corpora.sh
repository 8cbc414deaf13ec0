#!/bin/sh
test_description='what each language extractor finds in its fixture

For every tests/corpora/<lang>/ with an expected-extract.txt, the
extract-dump unit program run over the fixture'"'"'s source files (in byte
order of their paths) must print exactly that file: definitions with
their enclosing definition, calls with their caller and receiver,
imports and inheritance.'

. "$(dirname "$0")"/test-lib.sh

for dir in "$CORPORA"/*/
do
	lang=$(basename "$dir")
	test -f "$dir/expected-extract.txt" || continue
	test_expect_success "$lang: extracted facts match expected-extract.txt" "
		(cd '$dir' &&
		 find . -type f ! -name 'expected-*' ! -name README ! -name '*.txt' \
			! -name go.mod ! -name Cargo.toml ! -name '*.csproj' ! -name '*.json' \
			! -name pubspec.yaml |
		 sed 's|^\./||' | LC_ALL=C sort >'$PWD/$lang.files' &&
		 \"\$KBX_TEST_UNIT/extract-dump\" \$(cat '$PWD/$lang.files') >'$PWD/$lang.actual') &&
		test_cmp '$dir/expected-extract.txt' '$lang.actual'
	"
done

test_expect_success 'typescript: callback types too long to keep are cut between entries' '
	{
		printf "export function many(f: (" &&
		i=0 &&
		while test $i -lt 60
		do
			printf "p%d: AVeryLongClassNameForTheTest%d, " $i $i &&
			i=$((i + 1))
		done &&
		printf "last: Z) => void): void {}\n"
	} >many.ts &&
	"$KBX_TEST_UNIT/extract-dump" many.ts >many.out &&
	test_grep "callbacks=@0.0:AVeryLongClassNameForTheTest0;" many.out &&
	sed -n "s/.*callbacks=@//p" many.out | tr ";" "\n" >entries &&
	test -s entries &&
	! grep -v "^0\.[0-9]*:AVeryLongClassNameForTheTest[0-9]*\$" entries &&
	n=$(wc -l <entries) &&
	last=$(tail -n 1 entries) &&
	test "$last" = "0.$((n - 1)):AVeryLongClassNameForTheTest$((n - 1))"
'

test_done
