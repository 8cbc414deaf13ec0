#!/usr/bin/python3
"""bench/search/score.py: MRR@10 and recall@k of runq.py outputs.

    score.py TRUTH.tsv NAME=RUN.jsonl[:SIGNAL] ... [--agree A.jsonl:SIGNAL=B.jsonl]
             [--rrf] [--json OUT.json]

TRUTH.tsv: QID <tab> right-id [<tab> right-id...] (any of them counts).
Each NAME=RUN.jsonl ranks the hits of RUN (from runq.py) by their fused
rank, or with :SIGNAL (vector, lexical, pattern) by that signal's own
rank, which lets one hybrid run with a large -n and --depth=100 stand for
the single-signal modes (--agree checks that on a sample: the top 10 of
A ranked by SIGNAL against the top 10 of an explicit --mode run B).
Queries missing from TRUTH.tsv are ignored; a query missing from a run
counts as a miss.

--rrf adds rows that re-fuse the vector and lexical ranks of the first
run offline (RRF with other k, and weighted), to show what the fusion
could give; these are simulations from kbx's own ranks, not kbx runs.

--split scores each run on two halves of the queries as well, split by
the CRC-32 of the query id: even is "dev" (settings may be chosen on
it), odd is "held" (never: the figures to quote).
"""
import json
import sys
import zlib


def load_truth(p):
    t = {}
    for line in open(p, encoding="utf-8"):
        f = line.rstrip("\n").split("\t")
        if len(f) >= 2 and f[1]:
            t[f[0]] = set(f[1:])
    return t


def load_run(p):
    return {json.loads(l)["qid"]: json.loads(l) for l in open(p, encoding="utf-8")}


def ranked(r, signal):
    hits = r["hits"]
    if signal:
        hits = [h for h in hits if h.get(signal) is not None]
        hits.sort(key=lambda h: h[signal])
    else:
        hits = sorted(hits, key=lambda h: h["rank"])
    return [h["id"] for h in hits]


def metrics(truth, lists):
    n = len(truth)
    mrr = r1 = r10 = r100 = 0.0
    for q, right in truth.items():
        ids = lists.get(q, [])
        for i, x in enumerate(ids[:100]):
            if x in right:
                if i < 10:
                    mrr += 1 / (i + 1)
                    r10 += 1
                if i == 0:
                    r1 += 1
                r100 += 1
                break
    return {"queries": n, "mrr10": mrr / n, "recall1": r1 / n, "recall10": r10 / n,
            "recall100": r100 / n}


def half(q):
    return "dev" if zlib.crc32(q.encode("utf-8")) % 2 == 0 else "held"


def refuse(run, k, wv=1.0, wl=1.0):
    out = {}
    for q, r in run.items():
        s = {}
        for h in r["hits"]:
            v = wv / (k + h["vector"]) if h.get("vector") else 0
            l = wl / (k + h["lexical"]) if h.get("lexical") else 0
            p = 1 / (k + h["pattern"]) if h.get("pattern") else 0
            s[h["id"]] = v + l + p
        out[q] = sorted(s, key=lambda x: -s[x])
    return out


def main():
    a = sys.argv[1:]
    if not a:
        sys.exit(__doc__)
    truth = load_truth(a.pop(0))
    rows, agree, jout, rrf, first = [], [], None, False, None
    split = "--split" in a
    while a:
        x = a.pop(0)
        if x == "--split":
            pass
        elif x == "--agree":
            agree.append(a.pop(0))
        elif x == "--json":
            jout = a.pop(0)
        elif x == "--rrf":
            rrf = True
        else:
            name, _, spec = x.partition("=")
            path, _, sig = spec.partition(":")
            run = load_run(path)
            first = first or run
            lists = {q: ranked(r, sig or None) for q, r in run.items()}
            m = metrics(truth, lists)
            m["name"] = name
            m["ms"] = sum(r["ms"] for r in run.values()) / max(len(run), 1)
            rows.append(m)
            for h in ("dev", "held") if split else ():
                mh = metrics({q: t for q, t in truth.items() if half(q) == h}, lists)
                mh["name"] = f"{name} ({h})"
                mh["ms"] = None
                rows.append(mh)
    if rrf and first:
        for k, wv, wl in [(60, 1, 1), (10, 1, 1), (1, 1, 1), (60, 0.5, 1), (60, 1, 0.5)]:
            m = metrics(truth, refuse(first, k, wv, wl))
            m["name"] = f"(offline) RRF k={k}, vector x{wv}, lexical x{wl}"
            m["ms"] = None
            rows.append(m)
    ag = []
    for spec in agree:
        left, _, b = spec.partition("=")
        ap, _, sig = left.partition(":")
        A, B = load_run(ap), load_run(b)
        same = sum(1 for q in B if q in A and ranked(A[q], sig or None)[:10] == ranked(B[q], None)[:10])
        ag.append({"spec": spec, "same_top10": same, "queries": len(B)})
    res = {"rows": rows, "agree": ag}
    if jout:
        json.dump(res, open(jout, "w"), indent=1)
    for m in rows:
        print(f"{m['name']:<50} n={m['queries']} MRR@10={m['mrr10']:.3f} R@1={m['recall1']:.3f} "
              f"R@10={m['recall10']:.3f} R@100={m['recall100']:.3f}")
    for x in ag:
        print(f"agreement {x['spec']}: {x['same_top10']}/{x['queries']} identical top-10 lists")


if __name__ == "__main__":
    main()
