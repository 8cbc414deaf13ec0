#!/bin/bash
#
# bench/search/recall.sh: recall@10 of the vector index kbx chooses,
# against exact search, on REAL vectors of the builtin embedder.
#
# Collection: every function, method and class of the Python standard
# library and of the C corpora (git, postgresql-15) cut as kbx cuts code
# chunks (python's ast for .py; for C, 40-line pieces), embedded by
# build/tests/unit/embed-tool (the same builtin provider kbx indexes
# with), up to 100,000 texts.  Queries: 1,000 docstring first sentences
# (quality-code.sh's queries when present, else comment lines), embedded
# as queries.  bench/vector-bench.c then builds each kind from these
# vectors, searches in fresh processes and compares with exhaustive
# search.  Needs `make unit-tests` (embed-tool) and build/libkbx.a.

. "$(dirname "$0")/lib.sh"
sforget recall.
BUILD=${KBX_BUILD_DIR:-$sroot/build}
TOOL=$BUILD/tests/unit/embed-tool
[ -x "$TOOL" ] || { (cd "$sroot" && make -s unit-tests >/dev/null) || sdie "cannot build embed-tool"; }
D=$WORK/search/recall
mkdir -p "$D" "$WORK/bin"
VB=$WORK/bin/vector-bench
cc -O2 -I"$sroot/lib" -o "$VB" "$sroot/bench/vector-bench.c" "$BUILD/libkbx.a" -ldl -lpthread -lm ||
	sdie "cannot build vector-bench"
CORP=$WORK/corpora
N=${RECALL_N:-100000}
NQ=1000

ssay "recall: texts of up to $N chunks from $CORP"
$PY - "$CORP" "$N" >"$D/texts.txt" <<'PYEOF' || sdie "cannot cut the corpora"
import ast, os, sys
root, want = sys.argv[1], int(sys.argv[2])
out = []
def emit(t):
    t = " ".join(t.split())
    if len(t) >= 40:
        out.append(t[:16384])
for sub in ("pystdlib", "git-c", "postgresql-c"):
    base = os.path.join(root, sub)
    for dp, dn, fn in sorted(os.walk(base)):
        dn.sort()
        for f in sorted(fn):
            p = os.path.join(dp, f)
            try:
                src = open(p, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            lines = src.split("\n")
            if f.endswith(".py"):
                try:
                    tree = ast.parse(src)
                except (SyntaxError, ValueError):
                    continue
                for n in ast.walk(tree):
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        emit("\n".join(lines[n.lineno - 1:n.end_lineno]))
            elif f.endswith((".c", ".h")):
                for i in range(0, len(lines), 40):
                    emit("\n".join(lines[i:i + 40]))
            if len(out) >= want:
                break
        if len(out) >= want:
            break
    if len(out) >= want:
        break
sys.stdout.write("\n".join(out[:want]) + "\n")
PYEOF
n=$(wc -l <"$D/texts.txt")
if [ -f "$SRES/code-queries.tsv" ]; then
	cut -f2 "$SRES/code-queries.tsv" | head -n $NQ >"$D/queries.txt"
else
	grep -h '^ *# [A-Za-z].\{30,\}' -r "$CORP/pystdlib" --include='*.py' | sed 's/^ *# //' |
		sort -u | head -n $NQ >"$D/queries.txt"
fi
nq=$(wc -l <"$D/queries.txt")
sinfo "$n texts, $nq queries"
t0=$(now_ms)
"$TOOL" --stdin --print=f32 <"$D/texts.txt" >"$D/coll.f32" || sdie "embed-tool failed"
t1=$(now_ms)
"$TOOL" --stdin --query --print=f32 <"$D/queries.txt" >"$D/q.f32" || sdie "embed-tool failed"
cat "$D/coll.f32" "$D/q.f32" >"$D/data.f32"
srecord recall.texts "$n"
srecord recall.queries "$nq"
srecord recall.embed_ms "$((t1 - t0))"
for size in 1000 "$n"; do
	ssay "recall: $size vectors"
	mkdir -p "$D/vb-$size"
	out=$(KBX_MODULE_PATH="$BUILD/kbx-vector.so" "$VB" -n "$size" -q "$nq" -r 11 \
		-o "$D/vb-$size" -D "f32:$D/data.f32" auto flat@rerank=all 2>&1) ||
		{ printf '%s\n' "$out" >&2; sdie "vector-bench failed"; }
	printf '%s\n' "$out" | sed 's/^/    /'
	printf '%s\n' "$out" >"$SRES/recall-$size.txt"
	srecord_cmd "recall.$size" "KBX_MODULE_PATH=build/kbx-vector.so vector-bench -n $size -q $nq -r 11 -D f32:DATA auto flat@rerank=all"
done

# the section of search.md (bench/search/run.sh appends it)
{
	echo "## Recall of the vector index on real vectors"
	echo
	echo "$n code chunks of the Python standard library and the C corpora (functions, methods and classes by Python's ast; C in 40-line pieces), embedded by the builtin provider with build/tests/unit/embed-tool; $nq docstring sentences embedded as queries.  \`bench/vector-bench\` builds each index from the vectors and searches in fresh processes (best of 11); recall@10 is against exhaustive search.  \`auto\` is what \`kbx index\` builds; \`flat@rerank=all\` scores every vector exactly."
	echo
	echo "| vectors | kind | file MB | module load ms | open ms | search ms | recall@10 |"
	echo "|---|---|---|---|---|---|---|"
	for size in 1000 "$n"; do
		awk -v n="$size" '$1 ~ /^(auto|flat)/ && NF >= 9 { printf "| %s | %s | %s | %s | %s | %s | %s |\n", n, $1, $2, $4, $5, $6, $9 }' \
			"$SRES/recall-$size.txt"
	done
	echo
} >"$SRES/recall.md"
