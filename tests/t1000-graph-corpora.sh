#!/bin/sh
test_description='the graph of each language fixture matches its expected-graph.txt

Each tests/corpora/<lang>/expected-graph.txt lists facts a correct index
must hold (written by hand beside the fixture): resolved calls,
ambiguous calls with all their candidates, unresolved calls, calls to an
external Type.method (external), calls that must not exist (nocall: a
wrong target a name alone would give), imports that resolve to files,
inheritance, and what files and classes define.  Each
fact is one test here, checked through the JSON output of the query
commands.'

. "$(dirname "$0")"/test-lib.sh

# has_record FILE ID CONFIDENCE: FILE (JSON Lines) has a record for ID
# with that confidence.
has_record () {
	grep -F "\"id\":\"$2\"," "$1" >rec.tmp || {
		echo "no record for '$2' in:" && cat "$1" && return 1
	}
	test -z "$3" || grep -F "\"confidence\":\"$3\"" rec.tmp >/dev/null || {
		echo "'$2' is not '$3':" && cat rec.tmp && return 1
	}
}

# check_fact LINE: run the query a fact needs and check its answer.
check_fact () {
	set -- $1
	fact=$1
	shift
	case "$fact" in
	calls)
		kbx callees --format=json "$1" >out.json &&
		has_record out.json "$2" certain ;;
	ambiguous)
		src=$1
		shift
		kbx callees --format=json "$src" >out.json &&
		for cand in "$@"
		do
			has_record out.json "$cand" ambiguous || return 1
		done ;;
	unresolved)
		kbx callees --format=json "$1" >out.json &&
		grep -F "\"name\":\"$2\"," out.json >rec.tmp &&
		grep -F '"confidence":"unresolved"' rec.tmp >/dev/null ;;
	nocall)
		# no call edge at all, of any confidence
		kbx callees --format=json "$1" >out.json &&
		! grep -F "\"id\":\"$2\"," out.json ;;
	external)
		# an unresolved call to extern:QUAL (a method of a type outside
		# the repository: String.trim, java.util.Map.get)
		kbx callees --format=json "$1" >out.json &&
		grep -F "\"id\":\"extern:$2\"," out.json >rec.tmp &&
		grep -F '"confidence":"unresolved"' rec.tmp >/dev/null ;;
	imports)
		kbx imports --format=json "$1" >out.json &&
		has_record out.json "$2" certain ;;
	inherits)
		kbx superclasses --format=json "$1" >out.json &&
		has_record out.json "$2" certain ;;
	defines)
		kbx defines --format=json "$1" >out.json &&
		has_record out.json "$2" certain ;;
	*)
		echo "unknown fact '$fact'" && return 1 ;;
	esac
}

for dir in "$CORPORA"/*/
do
	lang=$(basename "$dir")
	test -f "$dir/expected-graph.txt" || continue

	test_expect_success "$lang: index the fixture" "
		rm -rf '$lang' &&
		cp -R '$dir' '$lang' &&
		(cd '$lang' && rm -f expected-*.txt README &&
		 kbx index -q && kbx status --format=json >status.json) &&
		test_grep '\"files\":' '$lang/status.json'
	"

	while IFS= read -r line
	do
		case "$line" in ''|'#'*) continue ;; esac
		test_expect_success "$lang: $line" "
			cd '$lang' &&
			check_fact '$line'
		"
	done <"$dir/expected-graph.txt"
done

test_done
