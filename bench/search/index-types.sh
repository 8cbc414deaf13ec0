#!/bin/bash
#
# bench/search/index-types.sh: the vector index types side by side at one
# size (SEARCH_TYPES_SIZE, default 100000 chunks: the collection that
# latency.sh made in bench/work/search/docs-SIZE; run it first).
#
# For each of SEARCH_TYPES (default "flat hnsw ivf"): `kbx config
# search.index TYPE` then `kbx index --rebuild --format=json` (which
# keeps the cached vectors, so only the vector index is built again: its
# time is search.ms_vectors), the vector file's size, and hyperfine -N
# (warmup 3, SEARCH_RUNS runs, default 20) of --mode=vector and hybrid.
# The setting is put back to auto (and the index rebuilt) at the end.

. "$(dirname "$0")/lib.sh"
N=${SEARCH_TYPES_SIZE:-100000}
TYPES=${SEARCH_TYPES:-flat hnsw ivf}
RUNS=${SEARCH_RUNS:-20}
Q=${SEARCH_QUERY:-"close the socket and remove the temporary file when the connection times out"}
D=$WORK/search/docs-$N
[ -f "$(sdata_file "$D")" ] || sdie "no index in $D: run SEARCH_SIZES=$N bash bench/search/latency.sh first"
sforget "types.$N."
for t in $TYPES; do
	ssay "vector index $t at $N chunks"
	(cd "$D" && "$KBX" config search.index "$t") || sdie "kbx config search.index $t failed"
	t0=$(now_ms)
	(cd "$D" && "$KBX" index --rebuild --format=json) >"$SRES/types-$N-$t-index.json" 2>"$D/types.err" ||
		sdie "kbx index --rebuild failed: $(tail -3 "$D/types.err")"
	t1=$(now_ms)
	srecord "types.$N.$t.index_ms" $((t1 - t0))
	srecord "types.$N.$t.index_json" "$(cat "$SRES/types-$N-$t-index.json")"
	srecord "types.$N.$t.vectors_bytes" "$(stat -c %s "$D/.kbx/vectors.kbxv")"
	srecord "types.$N.$t.status_index" "$(cd "$D" && "$KBX" status | sed -n 's/^vector_index: //p')"
	srecord "types.$N.$t.load" "$(cut -d' ' -f1-3 /proc/loadavg)"
	sinfo "$(grep -o '"vector_index".*' "$SRES/types-$N-$t-index.json")"
	srecord_cmd "types.$N.$t" "cd bench/work/search/docs-$N && kbx config search.index $t && kbx index --rebuild && hyperfine -N --warmup 3 --runs $RUNS 'kbx search --mode=M \"$Q\"'"
	(cd "$D" && hyperfine -N -i --warmup 3 --runs "$RUNS" --style basic --time-unit millisecond \
		--export-json "$SRES/hf-types-$N-$t.json" \
		-n hybrid "$KBX search --mode=hybrid '$Q'" \
		-n vector "$KBX search --mode=vector '$Q'") >"$D/hf.log" 2>&1 || sdie "hyperfine failed: $(tail "$D/hf.log")"
	awk '/^Benchmark/ { b = $0 } /Time \(/ { print "    " b " " $0 }' "$D/hf.log"
	# recall of the approximate index against flat's exact answer
	(cd "$D" && "$KBX" search --mode=vector --format=nul -n 10 "$Q" | tr '\0' '\n') >"$SRES/types-$N-$t-top10.txt"
done
if [ -f "$SRES/types-$N-flat-top10.txt" ]; then
	for t in $TYPES; do
		srecord "types.$N.$t.overlap_flat" "$(sort "$SRES/types-$N-$t-top10.txt" | comm -12 - <(sort "$SRES/types-$N-flat-top10.txt") | wc -l)"
	done
fi
(cd "$D" && "$KBX" config search.index auto && "$KBX" index --rebuild -q) || sdie "cannot put search.index back"
