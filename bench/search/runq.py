#!/usr/bin/python3
"""bench/search/runq.py: run many `kbx search` processes, keep every hit.

    runq.py [-P N] [--dir DIR] QUERIES.tsv OUT.jsonl KBX ARG...

QUERIES.tsv: QID <tab> QUERY, or QID <tab> @FILE for a query read from
FILE.  Each query is given to `KBX ARG... -` on standard input (so no
quoting problem and long stack traces are fine), N processes at a time
(default 2: kbx has no batch mode), in DIR (default: the current one).
ARG should hold --format=json.  OUT.jsonl gets one line a query:

    {"qid": ..., "rc": exit status, "ms": wall ms of the process,
     "hits": [{"id", "rank", "score", "vector", "lexical", "pattern"}...]}

where vector/lexical/pattern are the signal's rank (null when the chunk
is not in that signal's list or the signal did not run).  Prints the
number of queries, the total wall time and the mean per process.
"""
import concurrent.futures
import json
import os
import subprocess
import sys
import time


def run_one(cmd, cwd, qid, text):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, input=text.encode("utf-8"),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    ms = (time.perf_counter() - t0) * 1000
    hits = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") != "hit":
            continue
        sig = r.get("signals") or {}
        hits.append({"id": r["id"], "rank": r["rank"], "score": r.get("score"),
                     "chunk_type": r.get("chunk_type"),
                     "vector": (sig.get("vector") or {}).get("rank"),
                     "lexical": (sig.get("lexical") or {}).get("rank"),
                     "pattern": (sig.get("pattern") or {}).get("rank")})
    return {"qid": qid, "rc": p.returncode, "ms": round(ms, 2), "hits": hits,
            "stderr": p.stderr.decode("utf-8", "replace")[-500:]}


def main():
    a = sys.argv[1:]
    par, cwd = 2, None
    while a and a[0] in ("-P", "--dir"):
        if a[0] == "-P":
            par = int(a[1])
        else:
            cwd = a[1]
        a = a[2:]
    if len(a) < 3:
        sys.exit(__doc__)
    qpath, out, cmd = a[0], a[1], a[2:] + ["-"]
    qs = []
    for line in open(qpath, encoding="utf-8"):
        qid, _, text = line.rstrip("\n").partition("\t")
        if text.startswith("@"):
            text = open(text[1:], encoding="utf-8", errors="replace").read()
        qs.append((qid, text))
    t0 = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(par) as ex:
        res = list(ex.map(lambda q: run_one(cmd, cwd, *q), qs))
    wall = time.perf_counter() - t0
    with open(out, "w", encoding="utf-8") as f:
        for r in res:
            f.write(json.dumps(r) + "\n")
    bad = sum(1 for r in res if r["rc"] not in (0, 1))
    print(json.dumps({"queries": len(qs), "parallel": par, "wall_s": round(wall, 2),
                      "mean_process_ms": round(sum(r["ms"] for r in res) / max(len(res), 1), 2),
                      "failed": bad}))
    if bad:
        r = next(r for r in res if r["rc"] not in (0, 1))
        print(f"runq: {bad} queries failed, e.g. {r['qid']}: exit {r['rc']}: {r['stderr']}", file=sys.stderr)


if __name__ == "__main__":
    main()
