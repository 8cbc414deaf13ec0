#!/bin/bash
#
# bench/hybrid.sh: whole-process latency of kbx hybrid on the large trees
# (the git source, C, and the Python standard library), one question of
# each shape: a traversal from a widely called function, impact (every
# transitive caller), a semantic search inside a directory, a search
# inside the callees of a function, a description resolved by search
# and then traversed, and "methods in FILE".  Beside them, for scale, the
# one-step commands the same answer would otherwise take: kbx callers
# (the structural part alone) and kbx search (the semantic part alone),
# and for the Python tree the seeds' design, a pickled NetworkX graph
# loaded by a python3 process per query (bench/nx_query.py).
#
# hyperfine -N, warmup 3, BENCH_RUNS runs (default 30), page cache warm.
# Target (issue 4): under 50 ms for kbx hybrid.  Writes
# $RES/hybrid.md (included in bench/results.md by report.py) and
# records hybrid.* in $RES/records.tsv.
#
# Run by bench/run.sh (section "hybrid"), or alone after it has made
# the trees: BENCH_WORK=bench/work bash bench/hybrid.sh

set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
WORK=${BENCH_WORK:-$here/work}
KBX=${KBX:-$root/kbx}
RES=${RES:-$WORK/results}
RUNS=${BENCH_RUNS:-30}
PY=/usr/bin/python3
TREES=$WORK/trees
CORPORA=$WORK/corpora
export RES
mkdir -p "$RES/hf" "$RES/out"
. "$here/lib.sh"

command -v hyperfine >/dev/null || die "hyperfine is missing: apt-get install hyperfine"

# index TREE: bring its index (graph and search) up to date; a store of
# another schema is rebuilt
index_tree () {
	local t=$1 rc=0
	(cd "$t" && "$KBX" index -q) >"$RES/out/hybrid-index.log" 2>&1 || rc=$?
	if [ $rc = 4 ]; then
		rc=0
		(cd "$t" && "$KBX" index -q --rebuild) >"$RES/out/hybrid-index.log" 2>&1 || rc=$?
	fi
	[ $rc = 0 ] || [ $rc = 11 ] || die "kbx index failed in $t: $(tail -3 "$RES/out/hybrid-index.log")"
}

# bench_q NAME TREE QUESTION: time kbx hybrid QUESTION; keep its plan
bench_q () {
	local name=$1 tree=$2 q=$3
	(cd "$tree" && "$KBX" hybrid --format=json $q) >"$RES/out/hybrid-$name.json" 2>"$RES/out/hybrid-$name.err" ||
		warn "hybrid $name: '$q' exited $? ($(head -c 300 "$RES/out/hybrid-$name.err"))"
	record "hybrid.$name.question" "$q"
	record "hybrid.$name.results" "$(grep -c '"type":"result"' "$RES/out/hybrid-$name.json")"
	hf "hybrid-$name" "$tree" --warmup 3 --runs "$RUNS" -n "hybrid" "$KBX hybrid $q"
}

# bench_peer NAME TREE COMMAND...: time a peer command
bench_peer () {
	local name=$1 tree=$2
	shift 2
	hf "hybrid-$name" "$tree" --warmup 3 --runs "$RUNS" -n "$name" "$*"
}

GIT=$TREES/git-c
PYT=$TREES/pystdlib
[ -d "$GIT" ] || { [ -d "$CORPORA/git-c" ] && fresh_tree "$CORPORA/git-c" "$GIT"; } ||
	die "no $GIT: run bench/run.sh first (section c)"
[ -d "$PYT" ] || { [ -d "$CORPORA/pystdlib" ] && fresh_tree "$CORPORA/pystdlib" "$PYT"; } ||
	die "no $PYT: run bench/run.sh first (section py)"

say "hybrid: indexing the git and Python trees (graph and search)"
index_tree "$GIT"
index_tree "$PYT"
record hybrid.git.status "$(cd "$GIT" && "$KBX" status --format=json | tr '\n' ' ')"
wait_quiet "hybrid"

say "hybrid: git (C)"
bench_q git-callers "$GIT" "what calls strbuf_addf"
bench_q git-impact "$GIT" "impact of xstrdup"
bench_q git-within "$GIT" "functions similar to git_config_bool within builtin"
bench_q git-calledby "$GIT" "code similar to wait for the child process that is called by run_command"
bench_q git-describe "$GIT" "what calls the function that reads the index file"
bench_q git-defines "$GIT" "methods in refs.c"
bench_peer git-peer-callers "$GIT" "$KBX" callers strbuf_addf
bench_peer git-peer-search "$GIT" "$KBX" search --type=code functions similar to git_config_bool

say "hybrid: Python standard library"
bench_q py-callees "$PYT" "what does json.dumps call"
bench_q py-subclasses "$PYT" "subclasses of HTTPException transitively"
bench_q py-within "$PYT" "functions similar to urlsplit within urllib"
bench_q py-calledby "$PYT" "code similar to retry the request that is called by urlopen"
bench_peer py-peer-callers "$PYT" "$KBX" callers HTTPException
if [ -f "$WORK/pystdlib-graph.pickle" ]; then
	bench_peer py-peer-nx "$PYT" "$PY" "$here/nx_query.py" "$WORK/pystdlib-graph.pickle" callees json.dumps
fi

say "hybrid: report"
$PY - "$RES" >"$RES/hybrid.md" <<'EOF' || die "cannot write hybrid.md"
import json, os, sys
res = sys.argv[1]
def hf(name):
    p = os.path.join(res, "hf", f"hybrid-{name}.json")
    if not os.path.exists(p):
        return None
    r = json.load(open(p))["results"][0]
    return r["mean"] * 1e3, r["stddev"] * 1e3, r["median"] * 1e3
def plan(name):
    p = os.path.join(res, "out", f"hybrid-{name}.json")
    recs = [json.loads(l) for l in open(p) if l.startswith("{")] if os.path.exists(p) else []
    pl = next((r for r in recs if r.get("type") == "plan"), {})
    return pl, sum(1 for r in recs if r.get("type") == "result")
rows = [
    ("git-callers", "traversal from a widely called function", "git-peer-callers", "kbx callers strbuf_addf"),
    ("git-impact", "impact: every transitive caller", None, None),
    ("git-within", "similar code inside a directory", "git-peer-search", "kbx search (no scope)"),
    ("git-calledby", "search inside the callees of a function", None, None),
    ("git-describe", "a description found by search, then traversed", None, None),
    ("git-defines", "what a file defines", None, None),
    ("py-callees", "callees of a qualified name", "py-peer-nx", "NetworkX pickle, python3 per query"),
    ("py-subclasses", "subclasses, all levels", "py-peer-callers", "kbx callers HTTPException"),
    ("py-within", "similar code inside a package", None, None),
    ("py-calledby", "search inside the callees of a function", None, None),
]
print("## kbx hybrid, whole process")
print()
print("hyperfine -N, warm page cache; target: under 50 ms.  The plan column is what")
print("`--explain` reports: the traversal, or the scope's search plan.")
print()
print("| question | shape | mean ms (sd) | median | results | plan | vs 50 ms | peer | peer ms | kbx hybrid / peer |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, shape, peer, pname in rows:
    t = hf(name)
    if not t:
        continue
    pl, n = plan(name)
    how = pl.get("traversal", "?")
    if pl.get("scope"):
        how += ", " + pl["scope"]["plan"] + f" ({pl['scope']['nodes']} nodes)"
    pt = hf(peer) if peer else None
    q = pl.get("question", name)
    print(f"| `{q}` | {shape} | {t[0]:.1f} ({t[1]:.1f}) | {t[2]:.1f} | {n} | {how} | "
          f"{'met' if t[0] < 50 else 'NOT met'} | {pname or ''} | "
          f"{f'{pt[0]:.1f}' if pt else ''} | {f'{t[0] / pt[0]:.2f}x' if pt else ''} |")
EOF
cat "$RES/hybrid.md"
