#!/bin/sh
#
# bench/vector.sh: the vector index kinds against each other, as a kbx
# search uses them: a new process loads the module, opens the index and
# searches once.  For each collection and kind it prints file size, build
# time, module load, open and search time in a fresh process (best of
# VECTOR_RUNS), the mean search time in a long-lived process, and
# recall@10 against exhaustive search (bench/vector-bench.c says how).
#
#   sh bench/vector.sh [quick|full]     (default quick)
#
#   quick  1k and 100k vectors of dimension 256: clustered data (every
#          kind, with a sweep of efSearch / nprobe / rerank), random data,
#          and real code (the C corpora of bench/fetch-corpora.sh, when
#          bench/work/corpora/ has them) embedded by hashed identifiers;
#          some 5 minutes on 2 cores, most of it HNSW's build
#   full   also 1M clustered vectors (about 25 minutes: data, k-means)
#
# Run from anywhere after 'make'.  Environment:
#   CC              compiler for the benchmark program (default cc)
#   KBX_BUILD_DIR   where libkbx.a and kbx-vector.so are (default build/)
#   BENCH_WORK      work directory (default bench/work); the table also
#                   goes to $BENCH_WORK/results/vector.txt
#   VECTOR_RUNS     fresh processes per measurement (default 21)
#
# The figures are only as quiet as the machine: other processes on the
# CPUs show up as slower searches, which is why the best run is kept.

set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 2
root=$(cd "$here/.." && pwd) || exit 2
mode=${1:-quick}
CC=${CC:-cc}
BUILD=${KBX_BUILD_DIR:-$root/build}
WORK=${BENCH_WORK:-$here/work}
RUNS=${VECTOR_RUNS:-21}

die () {
	echo "bench/vector.sh: fatal: $*" >&2
	exit 2
}

case $mode in
quick|full) ;;
*) die "unknown mode '$mode' (quick or full)" ;;
esac
test -f "$BUILD/libkbx.a" && test -f "$BUILD/kbx-vector.so" ||
	die "no $BUILD/libkbx.a or $BUILD/kbx-vector.so: run make first"

mkdir -p "$WORK/results" "$WORK/bin" || exit 2
prog=$WORK/bin/vector-bench
# Linked like kbx: libkbx.a for the module loader, no FAISS.
$CC -O2 -I"$root/lib" -o "$prog" "$here/vector-bench.c" "$BUILD/libkbx.a" \
	-l:libxxhash.a -ldl -lpthread -lm || die "cannot build $prog"

KBX_MODULE_PATH=$BUILD/kbx-vector.so
export KBX_MODULE_PATH
out=$WORK/results/vector.txt
: >"$out"

run () {
	echo "==> vector-bench $*" | tee -a "$out"
	"$prog" -r "$RUNS" "$@" 2>&1 | tee -a "$out"
	echo | tee -a "$out"
}

run -n 1000 auto flat ivf16 hnsw32
run -n 100000 -s auto flat@rerank=all flat ivf1024 hnsw32
run -n 100000 -D random auto flat@rerank=all ivf1024
corpora=$WORK/corpora
if test -d "$corpora/git-c" && test -d "$corpora/postgresql-c"; then
	run -n 100000 -s -D "code:$corpora/git-c,$corpora/postgresql-c" auto ivf1024
else
	echo "(no C corpora under $corpora: run bench/fetch-corpora.sh for the code data)" |
		tee -a "$out"
fi
if test "$mode" = full; then
	run -n 1000000 -r 5 -s auto flat ivf2048
fi
echo "table: $out"
