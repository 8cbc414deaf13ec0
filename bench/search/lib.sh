# bench/search/lib.sh: what the search benchmarks share (sourced; bash).
#
# Every script of bench/search/ runs alone (bash bench/search/NAME.sh) or
# from bench/run.sh (BENCH_SECTIONS=search).  They write under
# $SRES (bench/work/results/search/):
#   records.tsv   KEY <tab> VALUE   figures and facts, appended
#   cmds.tsv      KEY <tab> COMMAND the commands behind them
#   *.json(l)     raw runs, scored results, hyperfine exports
# bench/search/report.py turns them into bench/work/results/search.md.
#
# Environment: KBX (default ./kbx of this tree, copied to
# $WORK/bin/kbx-search so that a rebuild during a run changes nothing),
# BENCH_WORK (default bench/work), SEARCH_PAR (processes at a time for the
# quality runs, default 2), SEARCH_SAMPLE (docstring queries, default 2000).

set -u
set -o pipefail

shere=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sroot=$(cd "$shere/../.." && pwd)
WORK=${BENCH_WORK:-$sroot/bench/work}
SRES=$WORK/results/search
PY=/usr/bin/python3
SPAR=${SEARCH_PAR:-2}
mkdir -p "$SRES" "$WORK/search"
if [ -n "${SEARCH_RESET:-}" ]; then
	rm -f "$SRES/records.tsv" "$SRES/cmds.tsv"
	unset SEARCH_RESET
fi

ssay () { printf '\n==> %s\n' "$*"; }
sinfo () { printf '    %s\n' "$*"; }
sdie () { printf 'bench/search: fatal: %s\n' "$*" >&2; exit 2; }
# sdata_file DIR: the data file of DIR's kbx store (.kbx/db.N/ once
# compacted, named by .kbx/current; .kbx/ before)
sdata_file () {
	local env=$1/.kbx
	[ -f "$env/current" ] && env=$env/$(cat "$env/current")
	echo "$env/data.mdb"
}
srecord () { printf '%s\t%s\n' "$1" "$2" >>"$SRES/records.tsv"; }
srecord_cmd () { printf '%s\t%s\n' "$1" "$2" >>"$SRES/cmds.tsv"; }
# forget the records of one script (KEY prefix) before it records again
sforget () {
	local f
	for f in "$SRES/records.tsv" "$SRES/cmds.tsv"; do
		[ -f "$f" ] && awk -F'\t' -v p="$1" 'index($1, p) != 1' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
	done
	return 0
}
now_ms () { local t; t=$(date +%s%N); echo $((t / 1000000)); }

# The binary is copied with its modules, which kbx loads from
# build/ next to the executable (lib/search/vecmod.c), so that a rebuild of ./kbx
# during a run changes nothing.
SBIN=$WORK/search-bin
if [ -z "${KBX_SEARCH_COPIED:-}" ]; then
	src=${KBX:-$sroot/kbx}
	[ -x "$src" ] || sdie "no kbx binary at $src: run make first"
	rm -rf "$SBIN.tmp" && mkdir -p "$SBIN.tmp/build" && cp "$src" "$SBIN.tmp/kbx" ||
		sdie "cannot copy $src"
	for m in kbx-embed.so kbx-vector.so kbx-grammars.so kbx-words.bin; do
		[ -f "$(dirname "$src")/build/$m" ] && cp "$(dirname "$src")/build/$m" "$SBIN.tmp/build/"
	done
	rm -rf "$SBIN" && mv "$SBIN.tmp" "$SBIN"
	export KBX_SEARCH_COPIED=1
	sforget meta.
	srecord meta.kbx_source "$src (sha256 $(sha256sum "$src" | cut -c1-12))"
	srecord meta.placeholders "$(cd "$sroot" && grep -l TEMPORARY lib/text/tokenize.c lib/embed/embed.c 2>/dev/null | tr '\n' ' ')"
fi
KBX=$SBIN/kbx
