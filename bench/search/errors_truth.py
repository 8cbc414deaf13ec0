#!/usr/bin/python3
"""bench/search/errors_truth.py: which registry entries each captured message should find.

    errors_truth.py REGISTRY CAPTURED_DIR QUERIES.tsv TRUTH.tsv

REGISTRY is an error registry (errors/LANGUAGE/.../*.yml, read with
PyYAML).  CAPTURED_DIR holds one NAME.LANG.txt a message (the standard
error of a failing program, LANG its language: python, javascript, c,
cpp, rust, java).  The right answers for a message are the entries of
its language (errors/LANG/ and below, or language: all) whose pattern,
read as Python's re, matches somewhere in it (re.search, re.M: ^ and $ at
every line, as kbx matches).  All of them count as right, so a generic
pattern that matches as well ("(.+) is not defined") is not a miss.
Entries of other languages do not count, even when their pattern
matches (a Python NameError also matches JavaScript's "(.+) is not
defined").  Messages without a right answer are left out of TRUTH.tsv
and QUERIES.tsv and listed on stdout with the reason.
"""
import os
import re
import sys

import yaml


def entries(reg):
    out = []
    base = os.path.join(reg, "errors")
    for root, dirs, files in os.walk(base):
        dirs.sort()
        lang = os.path.relpath(root, base).split(os.sep)[0]
        for f in sorted(files):
            if not f.endswith((".yml", ".yaml")):
                continue
            for doc in yaml.safe_load_all(open(os.path.join(root, f), encoding="utf-8")):
                for e in doc or []:
                    if isinstance(e, dict) and e.get("id") and e.get("pattern"):
                        out.append((e["id"], e.get("language") or lang, e["pattern"]))
    return out


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    reg, cap, qp, tp = sys.argv[1:]
    ents = entries(reg)
    nq = 0
    with open(qp, "w") as fq, open(tp, "w") as ft:
        for f in sorted(os.listdir(cap)):
            if not f.endswith(".txt"):
                continue
            name, lang = f[:-4].rsplit(".", 1)
            text = open(os.path.join(cap, f), encoding="utf-8", errors="replace").read()
            if not text.strip():
                print(f"excluded {name} ({lang}): empty standard error")
                continue
            right, other = [], []
            for i, l, p in ents:
                try:
                    m = re.search(p, text, re.M)
                except re.error:
                    continue
                if m:
                    (right if l in (lang, "all") else other).append(i)
            if not right:
                print(f"excluded {name} ({lang}): no entry of its language matches"
                      + (f" (other languages' entries do: {', '.join(other)})" if other else ""))
                continue
            nq += 1
            fq.write(f"{name}\t@{os.path.abspath(os.path.join(cap, f))}\n")
            ft.write(name + "\t" + "\t".join(right) + "\n")
            print(f"query {name} ({lang}): right {' '.join(right)}")
    print(f"{nq} queries")


if __name__ == "__main__":
    main()
