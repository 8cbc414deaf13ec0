#!/bin/bash
#
# bench/search/latency.sh: kbx search latency against the size of the
# collection, and what building the search index costs.
#
# Collections of 1k, 100k and 1M chunks (SEARCH_SIZES, default
# "1000 100000 1000000") of Markdown written by gen_docs.py from real
# text of this machine (standard-library docstrings and Debian
# changelogs, recombined; see its header for why), indexed by a plain
# `kbx index` (the directory holds no code, so every chunk is a doc
# section).  Measured for each size: the index run (wall time, peak RSS,
# kbx's own search.milliseconds / ms_embed / ms_vectors, hence chunks/s),
# the store and vector file sizes, the vector index kbx chose (kbx
# status), and whole-process latency with hyperfine -N (warmup 3,
# SEARCH_RUNS runs, default 30, SEARCH_RUNS_1M from 1M chunks, default
# 10; page cache warm) of one query in
# --mode=hybrid, lexical and vector, with -n 10.
#
# Writes $SRES/hf-latency-SIZE.json, $SRES/latency-SIZE-index.json and
# records latency.SIZE.*.

. "$(dirname "$0")/lib.sh"
SIZES=${SEARCH_SIZES:-1000 100000 1000000}
RUNS=${SEARCH_RUNS:-30}
RUNS_1M=${SEARCH_RUNS_1M:-10}
Q=${SEARCH_QUERY:-"close the socket and remove the temporary file when the connection times out"}
command -v hyperfine >/dev/null || sdie "hyperfine is missing: apt-get install hyperfine"

for n in $SIZES; do
	sforget "latency.$n."
	D=$WORK/search/docs-$n
	ssay "latency: $n chunks ($D)"
	rm -rf "$D" && mkdir -p "$D/.kbx"
	sinfo "$($PY "$shere/gen_docs.py" "$D" "$n")"
	srecord "latency.$n.bytes" "$(du -sb "$D/docs" | cut -f1)"
	srecord "latency.$n.load_before_index" "$(cut -d' ' -f1-3 /proc/loadavg)"
	t0=$(now_ms)
	(cd "$D" && /usr/bin/time -f '%M %U %S' -o "$D/time" "$KBX" index --format=json) \
		>"$SRES/latency-$n-index.json" 2>"$D/index.err" || sdie "kbx index failed: $(tail -3 "$D/index.err")"
	t1=$(now_ms)
	read -r rss u s <"$D/time"
	srecord "latency.$n.index_ms" $((t1 - t0))
	srecord "latency.$n.index_rss_kb" "$rss"
	srecord "latency.$n.index_cpu_ms" "$(echo "($u + $s) * 1000" | bc)"
	srecord "latency.$n.index_json" "$(cat "$SRES/latency-$n-index.json")"
	srecord "latency.$n.store_bytes" "$(stat -c %s "$(sdata_file "$D")")"
	srecord "latency.$n.vectors_bytes" "$(stat -c %s "$D/.kbx/vectors.kbxv" 2>/dev/null || echo 0)"
	(cd "$D" && "$KBX" status --format=json) >"$SRES/latency-$n-status.json" 2>&1
	srecord "latency.$n.status" "$(tr '\n' ' ' <"$SRES/latency-$n-status.json")"
	sinfo "index: $((t1 - t0)) ms, peak RSS $((rss / 1024)) MB; $(grep -o '"search":.*' "$SRES/latency-$n-index.json" | cut -c1-300)"
	(cd "$D" && "$KBX" search --explain "$Q") >"$SRES/latency-$n-explain.txt" 2>&1
	sinfo "$(sed -n '1,5p' "$SRES/latency-$n-explain.txt" | tr '\n' ';')"
	r=$RUNS
	[ "$n" -ge 1000000 ] && r=$RUNS_1M
	srecord "latency.$n.load_before_query" "$(cut -d' ' -f1-3 /proc/loadavg)"
	srecord_cmd "latency.$n" "cd bench/work/search/docs-$n && hyperfine -N --warmup 3 --runs $r 'kbx search --mode=M \"$Q\"'"
	(cd "$D" && hyperfine -N -i --warmup 3 --runs "$r" --style basic --time-unit millisecond \
		--export-json "$SRES/hf-latency-$n.json" \
		-n hybrid "$KBX search --mode=hybrid '$Q'" \
		-n lexical "$KBX search --mode=lexical '$Q'" \
		-n vector "$KBX search --mode=vector '$Q'") >"$D/hf.log" 2>&1 || sdie "hyperfine failed: $(tail "$D/hf.log")"
	srecord "latency.$n.load_after_query" "$(cut -d' ' -f1-3 /proc/loadavg)"
	awk '/^Benchmark/ { b = $0 } /Time \(/ { print "    " b " " $0 }' "$D/hf.log"
done
