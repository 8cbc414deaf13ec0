#!/bin/bash
#
# bench/accuracy/dead.sh: how often a function `kbx dead` reports is dead,
# on the projects of the accuracy bench.
#
#   dead.sh LANG TREE ORACLE.tsv OUT
#
# TREE is indexed by kbx already (run.sh's measure does it), ORACLE.tsv
# is the compiler oracle's call sites in it.  kbx dead runs twice, as a
# library's user runs it (the default: exported functions left out) and
# as an application's (--include-exported); dead.py checks each function
# reported against the oracle's calls, then by a search of the tree, and
# prints accuracy.LANG.dead.MODE.* records on standard output.  The
# verdicts, one line a function, go to OUT.dead.tsv.
#
# Environment: KBX (default ./kbx), PY (default /usr/bin/python3).

set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
KBX=${KBX:-$root/kbx}
PY=${PY:-/usr/bin/python3}

[ $# = 4 ] || { echo "usage: dead.sh LANG TREE ORACLE.tsv OUT" >&2; exit 2; }
lang=$1 tree=$2 oracle=$3 out=$4

# kbx dead exits 1 when it reports nothing
run_dead () {
	local rc=0
	(cd "$tree" && "$KBX" dead -q --format=json "$@") || rc=$?
	[ $rc -le 1 ] || { echo "dead.sh: kbx dead $* exited $rc in $tree" >&2; return 2; }
}
run_dead >"$out.dead-default.json" &&
run_dead --include-exported >"$out.dead-exported.json" &&
run_dead --include-exported --explain >"$out.dead-all.json" || exit 2
exec "$PY" "$here/dead.py" --lang "accuracy.$lang" --tree "$tree" --oracle "$oracle" \
	--all "$out.dead-all.json" --out "$out.dead.tsv" \
	default="$out.dead-default.json" exported="$out.dead-exported.json"
