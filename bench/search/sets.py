#!/usr/bin/python3
"""bench/search/sets.py: score kbx search on a question set.

    sets.py [--dir DIR] [--split dev|held|all] SET.tsv KBX ARG...

SET.tsv (bench/search/sets/): QID <tab> SPLIT <tab> IDS <tab> QUESTION,
'#' lines are comments; IDS the right answers, comma-separated.  Each
question is given to `KBX ARG... --format=json -n 10 -` on standard input,
in DIR.  A hit is right when its id is one of IDS.  Prints, per split,
the questions, top-1, top-3 and MRR@10 (the hits as kbx lists them),
and one JSON line with the figures; --misses lists the questions whose
first hit is wrong.
"""
import json
import subprocess
import sys


def ranks(cmd, cwd, q):
    p = subprocess.run(cmd, cwd=cwd, input=q.encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    ids = []
    for line in p.stdout.decode("utf-8", "replace").splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "hit":
            ids.append(r["id"])
    return ids


def main():
    a = sys.argv[1:]
    cwd, split, misses = None, "all", False
    while a and a[0].startswith("--"):
        if a[0] == "--dir":
            cwd, a = a[1], a[2:]
        elif a[0] == "--split":
            split, a = a[1], a[2:]
        elif a[0] == "--misses":
            misses, a = True, a[1:]
        else:
            sys.exit(__doc__)
    if len(a) < 2:
        sys.exit(__doc__)
    path, cmd = a[0], a[1:] + ["--format=json", "-n", "10", "-"]
    res = {}
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        qid, sp, want, q = line.rstrip("\n").split("\t", 3)
        if split != "all" and sp != split:
            continue
        want = set(want.split(","))
        got = ranks(cmd, cwd, q)
        r = next((i + 1 for i, x in enumerate(got) if x in want), None)
        res.setdefault(sp, []).append(r)
        if misses and r != 1:
            print("miss %s (%s): %s -> %s" % (qid, ",".join(sorted(want)), q,
                                                 " ".join(got[:3])))
    out = {}
    for sp, rs in sorted(res.items()):
        n = len(rs)
        t1 = sum(1 for r in rs if r == 1) / n
        t3 = sum(1 for r in rs if r and r <= 3) / n
        mrr = sum(1 / r for r in rs if r) / n
        out[sp] = {"n": n, "top1": round(t1, 3), "top3": round(t3, 3), "mrr10": round(mrr, 3)}
        print("%-5s n=%-3d top-1 %.3f  top-3 %.3f  MRR@10 %.3f" % (sp, n, t1, t3, mrr))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
