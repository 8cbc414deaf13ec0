#!/bin/bash
#
# bench/org.sh: a synthetic organisation of ORG_N repositories (default
# 1,000), each indexed on its own and pushed to one PostgreSQL database,
# then asked across all of them: through the database, and through the
# local repository list (--all-repos over ORG_N stores).
#
#   bash bench/org.sh [PYSTDLIB]
#
# The repositories are copies of real Python packages of the standard
# library (PYSTDLIB, default bench/work/corpora/pystdlib: json, http,
# urllib, logging, concurrent, html, xmlrpc, wsgiref), the package renamed
# in each copy (json -> json_0042: its folder, and the package's name in
# its own files), and a module app.py that imports a function of the
# previous repository's package and calls it, so that every repository
# but the first calls into another one.  A throwaway PostgreSQL cluster
# (initdb in a scratch folder, Unix socket only, fsync off; run as the
# postgres user when this runs as root) holds the database; nothing of
# the user's own settings or repository list is touched (HOME is the
# scratch folder).
#
# Prints, and writes as KEY<TAB>VALUE lines to $RES/org.tsv: repositories,
# files and lines; kbx index per repository (median ms); kbx push per
# repository (median and 90th percentile ms, the first push of each);
# the database's size against the sum of the local stores; and whole-
# process latency (hyperfine, median ms) of callers, search, hybrid and
# context --all-repos through the local list (callers: a loop over the
# list, as kbx callers has no --all-repos on one machine), and callers,
# search, hybrid, context, impact and path --all-repos through the
# database (kbx --db=URL ...; impact and path have no local
# counterpart: their walk stays in one index).
#
# Environment: KBX (default ./kbx), ORG_N, RES (default bench/work/org),
# HYPERFINE_RUNS (default 10), ORG_KEEP=1 (keep the repositories and the
# cluster running, for a look afterwards).  Takes about 15 minutes at 1,000 on 2 cores.
set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
KBX=${KBX:-$root/kbx}
case $KBX in /*) ;; *) KBX=$PWD/$KBX ;; esac
N=${ORG_N:-1000}
RES=${RES:-$root/bench/work/org}
RUNS=${HYPERFINE_RUNS:-10}
SRC=${1:-$root/bench/work/corpora/pystdlib}
[ -d "$SRC" ] || SRC=/usr/lib/python3.11
TEMPLATES="json http urllib logging concurrent html xmlrpc wsgiref"

say () { printf '==> %s\n' "$*"; }
die () { printf 'bench/org: %s\n' "$*" >&2; exit 2; }
rec () { printf '%s\t%s\n' "$1" "$2" >>"$RES/org.tsv"; printf '    %s = %s\n' "$1" "$2"; }

PGBIN=
for d in /usr/lib/postgresql/*/bin; do
	[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && PGBIN=$d
done
[ -n "$PGBIN" ] || die "PostgreSQL is not installed (apt-get install postgresql)"
[ -f "$root/build/kbx-pg.so" ] || die "build/kbx-pg.so is missing (configure found no libpq?)"
command -v hyperfine >/dev/null || die "hyperfine is not installed"

as_pg () { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

mkdir -p "$RES"
: >"$RES/org.tsv"
tmp=$(mktemp -d /tmp/kbx-org.XXXXXX) || exit 2
DB= org=$tmp/org
chmod 755 "$tmp"   # the postgres user goes through it to its cluster
pgdir=$tmp/pg
cleanup () {
	if [ -n "${ORG_KEEP:-}" ]; then
		printf 'bench/org: kept %s; the database: %s; stop it with\n  %s\n' "$org" "$DB" \
			"runuser -u postgres -- $PGBIN/pg_ctl -D $pgdir/data stop" >&2
		return
	fi
	[ -f "$pgdir/data/postmaster.pid" ] &&
		as_pg "$PGBIN/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM
export HOME=$tmp/home XDG_CONFIG_HOME=$tmp/home/.config
mkdir -p "$HOME" "$pgdir"
unset KBX_DATABASE_URL

say "a cluster of its own"
[ "$(id -u)" = 0 ] && chown postgres "$pgdir"
as_pg "$PGBIN/initdb" -D "$pgdir/data" -U kbx -A trust --no-sync >"$tmp/initdb.log" 2>&1 ||
	die "initdb failed: $(tail -n 3 "$tmp/initdb.log")"
as_pg "$PGBIN/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
	-o "-k $pgdir -c listen_addresses='' -c fsync=off -c synchronous_commit=off" start >/dev/null ||
	die "the server did not start: $(tail -n 3 "$pgdir/log")"
DB="postgresql://kbx@/postgres?host=$pgdir"

say "$N repositories from $SRC"
set -- $TEMPLATES
nt=$#
org=$tmp/org
mkdir -p "$org"
i=0
prev_pkg= prev_fn=
# the function each template's app.py calls in the previous repository
entry () {
	case $1 in
	json) echo "decoder py_scanstring" ;;
	http) echo "cookies _quote" ;;
	urllib) echo "parse quote" ;;
	logging) echo "config valid_ident" ;;
	concurrent) echo "futures.thread _python_exit" ;;
	html) echo "__init__ escape" ;;
	xmlrpc) echo "client escape" ;;
	wsgiref) echo "util guess_scheme" ;;
	esac
}
while [ $i -lt "$N" ]; do
	set -- $TEMPLATES
	shift $((i % nt))
	t=$1
	[ -d "$SRC/$t" ] || die "$SRC/$t is missing"
	name=$(printf 'r%04d' $i)
	pkg=$(printf '%s_%04d' "$t" $i)
	r=$org/$name
	mkdir -p "$r"
	cp -R "$SRC/$t" "$r/$pkg"
	find "$r/$pkg" -name __pycache__ -prune -exec rm -rf {} + 2>/dev/null
	find "$r/$pkg" -name '*.py' -exec sed -i "s/\\b$t\\b/$pkg/g" {} +
	if [ -n "$prev_pkg" ]; then
		printf 'from %s import %s\n\n\ndef main():\n    return %s("x")\n' \
			"$prev_pkg" "$prev_fn" "$prev_fn" >"$r/app.py"
	fi
	set -- $(entry "$t")
	mod=$1 fn=$2
	[ "$mod" = __init__ ] && prev_pkg=$pkg || prev_pkg=$pkg.$mod
	prev_fn=$fn
	i=$((i + 1))
done
files=$(find "$org" -name '*.py' | wc -l)
lines=$(find "$org" -name '*.py' -exec cat {} + | wc -l)
rec org.repos "$N"
rec org.files "$files"
rec org.lines "$lines"

# ms CMD...: wall milliseconds of one run
ms () {
	local a b
	a=$(date +%s%N)
	"$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; return 1; }
	b=$(date +%s%N)
	echo $(((b - a) / 1000000))
}
# pct P FILE: the P-th percentile of a column of numbers
pct () { sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END { i = int((NR - 1) * p / 100) + 1; print v[i] }'; }

say "kbx index, kbx repos add, kbx push, one repository at a time"
: >"$tmp/index.ms"; : >"$tmp/push.ms"
t0=$(date +%s)
for r in "$org"/r*; do
	(cd "$r" && ms "$KBX" index -q) >>"$tmp/index.ms" || die "kbx index failed in $r"
	"$KBX" repos add "$r" >/dev/null 2>&1 || die "kbx repos add $r failed"
	(cd "$r" && ms "$KBX" push -q --db="$DB") >>"$tmp/push.ms" || die "kbx push failed in $r"
done
rec org.index.median_ms "$(pct 50 "$tmp/index.ms")"
rec org.push.median_ms "$(pct 50 "$tmp/push.ms")"
rec org.push.p90_ms "$(pct 90 "$tmp/push.ms")"
rec org.push.total_s "$(awk '{ s += $1 } END { printf "%.1f", s / 1000 }' "$tmp/push.ms")"
rec org.build.wall_s "$(($(date +%s) - t0))"

say "an edit in one repository, pushed again"
r=$org/r0001
printf '\n\ndef extra():\n    return main()\n' >>"$r/app.py"
(cd "$r" && "$KBX" index -q) || die "kbx index failed"
rec org.push.one_file_ms "$(cd "$r" && ms "$KBX" push -q --db="$DB")"

db_bytes=$(psql "$DB" -XAtq -c "SELECT pg_database_size(current_database())")
local_bytes=$(du -sb "$org"/r*/.kbx | awk '{ s += $1 } END { print s }')
rec org.db.bytes "$db_bytes"
rec org.local.bytes "$local_bytes"
for t in nodes edges chunks files vectors; do
	rec "org.db.rows.$t" "$(psql "$DB" -XAtq -c "SELECT count(*) FROM kbx.$t")"
done

say "questions across the organisation"
q_callers=py_scanstring
q_search="quote a string for a cookie header"
hf () {
	local key=$1
	shift
	local sh=-N
	case $1 in --shell=*) sh=$1; shift ;; esac
	hyperfine "$sh" -w 2 -r "$RUNS" --export-json "$tmp/hf.json" "$@" >/dev/null 2>&1 &&
		rec "$key" "$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["results"][0]["median"] * 1000, 1))' "$tmp/hf.json")" ||
		rec "$key" "failed"
}
cd "$org/r0000" || exit 2
# kbx callers has no --all-repos of its own on one machine: a loop over
# the list is what a user would run
loop="for r in \$(\"$KBX\" repos list --names); do \"$KBX\" --repo=\$r callers $q_callers 2>/dev/null || :; done"
rec org.local.callers.lines "$(sh -c "$loop" | wc -l)"
hf org.local.callers_loop_ms --shell=sh "$loop"
hf org.local.search_ms "$KBX search --all-repos '$q_search'"
hf org.local.search_lexical_ms "$KBX search --all-repos --mode=lexical '$q_search'"
hf org.local.hybrid_ms "$KBX hybrid --all-repos 'what calls $q_callers'"
hf org.local.context_ms "$KBX context --all-repos --budget=2000 '$q_search'"
# kbx impact has no --all-repos on one machine (its walk stays in one
# index): through the database only
rec org.local.impact_ms "n/a"
if "$KBX" --db="$DB" callers --all-repos "$q_callers" >"$tmp/db-callers" 2>"$tmp/db-err"; then
	rec org.db.callers.lines "$(wc -l <"$tmp/db-callers")"
	hf org.db.callers_ms "$KBX --db=$DB callers --all-repos $q_callers"
else
	rec org.db.callers_ms "n/a: $(head -n 1 "$tmp/db-err" | sed "s|$DB|URL|g")"
fi
# dbq KEY ARGS...: through the database, where this kbx can ask it
dbq () {
	local key=$1
	shift
	if "$KBX" --db="$DB" "$@" >"$tmp/db-out" 2>"$tmp/db-err"; then
		rec "$key.lines" "$(wc -l <"$tmp/db-out")"
		hf "${key}_ms" "$KBX --db=$DB $(printf "'%s' " "$@")"
	else
		rec "${key}_ms" "n/a: $(head -n 1 "$tmp/db-err" | sed "s|$DB|URL|g")"
	fi
}
dbq org.db.search search --all-repos "$q_search"
dbq org.db.hybrid hybrid --all-repos "what calls $q_callers"
dbq org.db.context context --all-repos --budget=2000 "$q_search"
dbq org.db.impact impact --all-repos "$q_callers"
# from the repository that calls into the first one (json_0000) to a
# function its entry calls: two steps, one across
dbq org.db.path path --all-repos --from-repo=r0001 app.py#main json_0000/decoder.py#_decode_uXXXX
# the search without its vector signal, which reads every repository's codes
hf org.db.search_lexical_ms "$KBX --db=$DB search --all-repos --mode=lexical '$q_search'"
# the table bench/report.py puts in bench/results.md
v () { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$RES/org.tsv"; }
vm () { v "$1" | sed 's/^[0-9.]*$/& ms/'; }
{
	echo "# A synthetic organisation in PostgreSQL (bench/org.sh)"
	echo
	echo "$(v org.repos) repositories (copies of $TEMPLATES from Python's standard library, renamed;"
	echo "$(v org.files) files, $(v org.lines) lines), each indexed and pushed on its own, on $(date -u +%F)."
	echo
	echo "| | measured |"
	echo "|---|---|"
	echo "| kbx index, per repository (median) | $(vm org.index.median_ms) |"
	echo "| first kbx push, per repository (median / 90th percentile) | $(v org.push.median_ms) / $(v org.push.p90_ms) ms |"
	echo "| kbx push after a one-file edit | $(vm org.push.one_file_ms) |"
	echo "| database size / the local stores together | $(v org.db.bytes) / $(v org.local.bytes) bytes |"
	echo "| rows: nodes, edges, chunks, vectors | $(v org.db.rows.nodes), $(v org.db.rows.edges), $(v org.db.rows.chunks), $(v org.db.rows.vectors) |"
	echo
	echo "| question, whole process | through the database | through the local list |"
	echo "|---|---|---|"
	echo "| callers --all-repos $q_callers | $(vm org.db.callers_ms) | $(vm org.local.callers_loop_ms) (a loop over the list) |"
	echo "| search --all-repos | $(vm org.db.search_ms) | $(vm org.local.search_ms) |"
	echo "| search --all-repos --mode=lexical | $(vm org.db.search_lexical_ms) | $(vm org.local.search_lexical_ms) |"
	echo "| hybrid --all-repos | $(vm org.db.hybrid_ms) | $(vm org.local.hybrid_ms) |"
	echo "| context --all-repos --budget=2000 | $(vm org.db.context_ms) | $(vm org.local.context_ms) |"
	echo "| impact --all-repos $q_callers ($(v org.db.impact.lines) lines) | $(vm org.db.impact_ms) | no local counterpart |"
	echo "| path --all-repos, two steps from r0001 into r0000 | $(vm org.db.path_ms) | no local counterpart |"
} >"$RES/org.md"
say "done: $RES/org.tsv, $RES/org.md"
