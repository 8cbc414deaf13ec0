#!/bin/bash
#
# bench/search/run.sh: every search benchmark, then the report.
#
#   quality-code.sh    MRR@10 / recall on the docstring-stripped stdlib
#   quality-sets.sh    top-1 / top-3 on questions of meaning (bench/search/sets/)
#   quality-errors.sh  MRR@10 / recall on real error messages against the
#                      third-party kb-registry (skipped when absent)
#   recall.sh          recall@10 of the chosen vector index against exact
#                      search, on real builtin vectors
#   throughput.sh      chunks/s of kbx index: registry, stdlib, git
#   latency.sh         kbx search latency at 1k, 100k, 1M chunks
#   index-types.sh     flat / hnsw / ivf at 100k chunks (only with
#                      SEARCH_TYPES="flat hnsw ivf": an HNSW build takes minutes)
#   report.py          bench/work/results/search.md, which bench/report.py
#                      appends to bench/results.md
#
# Runs alone (bash bench/search/run.sh) or from bench/run.sh with
# BENCH_SECTIONS=search.  Environment: see bench/search/lib.sh and each
# script's header.  Takes about 35 minutes on 2 cores: most of it the 1M
# collection (8 minutes to index) and the HNSW build at 100k (over 10
# minutes while FAISS runs its scalar inner product).

SEARCH_RESET=1		# lib.sh starts the records afresh
. "$(dirname "$0")/lib.sh"
t0=$(date +%s)
rc=0
for s in quality-code quality-errors quality-sets recall throughput latency; do
	bash "$shere/$s.sh" || { printf 'bench/search: %s.sh failed\n' "$s" >&2; rc=1; }
done
if [ -n "${SEARCH_TYPES-}" ]; then
	bash "$shere/index-types.sh" || { printf 'bench/search: index-types.sh failed\n' >&2; rc=1; }
fi
srecord meta.runtime_s $(($(date +%s) - t0))
$PY "$shere/report.py" "$SRES" "$SRES/../search.md" || rc=1
for extra in code-linear recall; do
	[ -f "$SRES/$extra.md" ] && cat "$SRES/$extra.md" >>"$SRES/../search.md"
done
exit $rc
