#!/bin/bash
#
# bench/search/throughput.sh: how fast kbx index builds the search index.
#
# Three sources: the third-party registry SEARCH_REGISTRY (default
# /work/shared/fixtures/kb-registry, added by path to an empty scratch
# index; skipped when absent), and the code chunks of two real trees of
# bench/work/corpora (bench/fetch-corpora.sh fills it): the Python
# standard library and git's C sources.  Each is indexed with `kbx index
# --format=json` SEARCH_TP_RUNS times (default 3), each time from an
# empty .kbx so that every chunk is embedded (kbx index --rebuild keeps
# the cache of vectors); recorded: the median of kbx's own
# search.milliseconds (the whole search-index phase: chunking, BM25,
# embedding, vector index),
# ms_embed and ms_vectors, the chunk count, chunks/s of the search phase,
# and the whole command's wall time.

. "$(dirname "$0")/lib.sh"
sforget throughput.
RUNS=${SEARCH_TP_RUNS:-3}
REG=${SEARCH_REGISTRY:-/work/shared/fixtures/kb-registry}

# measure NAME DIR [REGISTRY]: RUNS builds of the index in DIR, each from
# an empty .kbx (not --rebuild, which keeps the cache of vectors), with
# REGISTRY added first
measure () {
	local name=$1 dir=$2 reg=${3:-} i t0 t1 rc
	srecord_cmd "throughput.$name" "cd $dir && rm -rf .kbx && mkdir .kbx${reg:+ && kbx registry add $reg} && kbx index --format=json"
	: >"$SRES/throughput-$name.jsonl"
	for ((i = 1; i <= RUNS; i++)); do
		rm -rf "$dir/.kbx" && mkdir "$dir/.kbx"
		[ -n "$reg" ] && { (cd "$dir" && "$KBX" registry add "$reg") >/dev/null 2>&1 || sdie "kbx registry add $reg failed"; }
		t0=$(now_ms)
		(cd "$dir" && "$KBX" index --format=json) >"$WORK/search/tp.json" 2>"$WORK/search/tp.err"
		rc=$?
		t1=$(now_ms)
		[ $rc -eq 0 ] || [ $rc -eq 11 ] || sdie "kbx index in $dir failed ($rc): $(tail -3 "$WORK/search/tp.err")"
		$PY -c 'import json,sys; r=json.load(open(sys.argv[1])); r["wall_ms"]=int(sys.argv[2]); r["load"]=sys.argv[3]; print(json.dumps(r))' \
			"$WORK/search/tp.json" $((t1 - t0)) "$(cut -d' ' -f1 /proc/loadavg)" >>"$SRES/throughput-$name.jsonl"
	done
	$PY - "$SRES/throughput-$name.jsonl" <<'PYEOF' | while IFS=$'\t' read -r k v; do srecord "throughput.$name.$k" "$v"; sinfo "$name $k $v"; done
import json, statistics, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
med = lambda f: statistics.median(f(r) for r in rs)
s = lambda r: r["search"]
chunks = s(rs[0])["chunks"]
print(f"chunks\t{chunks}")
print(f"search_ms\t{med(lambda r: s(r)['milliseconds'])}")
print(f"embed_ms\t{med(lambda r: s(r).get('ms_embed', 0))}")
print(f"vectors_ms\t{med(lambda r: s(r).get('ms_vectors', 0))}")
print(f"graph_ms\t{med(lambda r: r['milliseconds'])}")
print(f"wall_ms\t{med(lambda r: r['wall_ms'])}")
print(f"chunks_per_s\t{chunks / max(med(lambda r: s(r)['milliseconds']), 1) * 1000:.0f}")
print(f"vector_index\t{s(rs[0]).get('vector_index')}")
print(f"embedded\t{s(rs[0]).get('embedded')} embedded, {s(rs[0]).get('embed_cached')} cached")
print(f"load\t{' '.join(r['load'] for r in rs)}")
PYEOF
}

if [ -d "$REG/errors" ]; then
	ssay "throughput: the registry $REG"
	D=$WORK/search/tp-registry
	rm -rf "$D" && mkdir -p "$D"
	measure registry "$D" "$REG"
else
	srecord throughput.registry.skipped "no registry at $REG"
fi
for t in pystdlib git-c; do
	[ -d "$WORK/corpora/$t" ] || { sinfo "no $WORK/corpora/$t (run bench/fetch-corpora.sh): skipped"; continue; }
	ssay "throughput: code chunks of $t"
	D=$WORK/search/tp-$t
	rm -rf "$D" && cp -a "$WORK/corpora/$t" "$D" && mkdir -p "$D/.kbx"
	measure "$t" "$D"
done
