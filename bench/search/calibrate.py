#!/usr/bin/python3
"""bench/search/calibrate.py: fit the confidence of kbx search's hits.

    calibrate.py --dir DIR [--captured DIR TRUTH.tsv] SET.tsv [SET.tsv ...] -- KBX [ARG...]

Each SET.tsv is QID <tab> SPLIT <tab> IDS <tab> QUESTION (as sets.py
reads them; a QUESTION that is a path to a file is read from it, for
whole error messages; IDS may be empty: no entry answers it).
--captured takes the messages quality-errors.sh captured and its
truth.tsv (bench/work/search/errors/): each message is a question, in
the dev or held split by the CRC-32 of its name, its right entries those
of truth.tsv, none when it is not there (no entry answers it).  Each
question goes to `KBX ARG... search --format=json --explain -n 10 -` in
DIR.  The first five hits of each question, right or not, are the
samples: features the hit's BM25 share of the query, its cosine (the
vector list's last when below its cut), whether a pattern matched, and
whether it is the first hit; a logistic regression (Newton's method, a
small L2 penalty) is fitted on the dev split for each set of signals
(all; BM25 and patterns; vectors and patterns) and printed as the CALIB_*
lines of lib/search/search.c, with the calibration on each split (per
fifth of [0, 1]: hits, mean confidence, share right).
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import zlib


def captured_set(cdir, truth):
    right = {}
    for line in open(truth, encoding="utf-8"):
        a = line.rstrip("\n").split("\t")
        right[a[0]] = ",".join(a[1:])
    t = tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False)
    for f in sorted(os.listdir(cdir)):
        name = f.split(".")[0]
        sp = "dev" if zlib.crc32(name.encode()) % 2 == 0 else "held"
        t.write("%s\t%s\t%s\t%s\n" % (name, sp, right.get(name, ""), os.path.join(cdir, f)))
    t.close()
    return t.name


def dump(d, cmd, path):
    qs = []
    for line in open(path, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        qid, sp, want, q = line.rstrip("\n").split("\t", 3)
        if os.path.isfile(q):
            q = open(q, encoding="utf-8", errors="replace").read()
        p = subprocess.run(cmd + ["search", "--format=json", "--explain", "-n", "10", "-"],
                           cwd=d, input=q.encode(), stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        hits = []
        for l in p.stdout.decode("utf-8", "replace").splitlines():
            r = json.loads(l)
            if r.get("type") != "hit":
                continue
            s = r.get("signals", {})
            hits.append(dict(id=r["id"], share=(s.get("lexical") or {}).get("share") or 0,
                             vec=(s.get("vector") or {}).get("score"),
                             pat=1 if (s.get("pattern") or {}).get("rank") else 0))
        qs.append(dict(split=sp, want=[w for w in want.split(",") if w], hits=hits))
    return qs


def samples(qs, split, topk=5):
    X = []
    for q in qs:
        if q["split"] != split:
            continue
        vmin = min([h["vec"] for h in q["hits"] if h["vec"] is not None] + [0])
        for i, h in enumerate(q["hits"][:topk]):
            x = [h["share"], h["vec"] if h["vec"] is not None else vmin, h["pat"], 1 if i == 0 else 0]
            X.append((x, 1 if h["id"] in q["want"] else 0))
    return X


def solve(A, b):
    n = len(b)
    M = [A[i][:] + [b[i]] for i in range(n)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[c][c]:
                f = M[r][c] / M[c][c]
                for k in range(c, n + 1):
                    M[r][k] -= f * M[c][k]
    return [M[i][n] / M[i][i] if M[i][i] else 0 for i in range(n)]


def feats(x, use):
    return [1] + [x[i] for i in range(len(x)) if use[i]]


def prob(w, x, use):
    return 1 / (1 + math.exp(-sum(a * b for a, b in zip(w, feats(x, use)))))


def fit(X, use, l2=0.1):
    d = 1 + sum(use)
    w = [0.0] * d
    for _ in range(30):
        H = [[0.0] * d for _ in range(d)]
        g = [0.0] * d
        for x, y in X:
            f = feats(x, use)
            p = prob(w, x, use)
            for i in range(d):
                g[i] += (p - y) * f[i]
                for j in range(d):
                    H[i][j] += p * (1 - p) * f[i] * f[j]
        for i in range(1, d):
            g[i] += l2 * w[i]
            H[i][i] += l2
        w = [a - b for a, b in zip(w, solve(H, g))]
    return w


def table(w, X, use):
    bins = [[0, 0.0, 0] for _ in range(5)]
    for x, y in X:
        p = prob(w, x, use)
        b = bins[min(4, int(p * 5))]
        b[0] += 1
        b[1] += p
        b[2] += y
    return "  ".join("[%.1f,%.1f) %d hits, mean %.2f, right %.2f" %
                     (i / 5, (i + 1) / 5, b[0], b[1] / b[0], b[2] / b[0])
                     for i, b in enumerate(bins) if b[0])


def main():
    a = sys.argv[1:]
    if len(a) < 4 or a[0] != "--dir" or "--" not in a:
        sys.exit(__doc__)
    d = a[1]
    sets = a[2:a.index("--")]
    if sets and sets[0] == "--captured":
        sets = [captured_set(sets[1], sets[2])] + sets[3:]
    cmd = a[a.index("--") + 1:]
    qs = []
    for s in sets:
        qs += dump(d, cmd, s)
    dev, held = samples(qs, "dev"), samples(qs, "held")
    for name, use in (("ALL", (1, 1, 1, 1)), ("LEXICAL", (1, 0, 1, 1)), ("VECTOR", (0, 1, 1, 1))):
        w = fit(dev, use)
        full, k = [], 1
        for i in range(4):
            if use[i]:
                full.append(w[k])
                k += 1
            else:
                full.append(0.0)
        print("#define CALIB_%s %s" % (name, ", ".join("%.2f" % v for v in [w[0]] + full)))
        print("    dev:  " + table(w, dev, use))
        print("    held: " + table(w, held, use))


if __name__ == "__main__":
    main()
