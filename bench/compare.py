#!/usr/bin/python3
"""bench/compare.py: how far kbx's answer agrees with cscope's.

    compare.py callers KBX.jsonl CSCOPE.txt DIFF.txt
    compare.py callees KBX.jsonl CSCOPE.txt DIFF.txt

callers: the distinct (file, calling function) pairs of `kbx callers
--format=json` (a file-level caller counts as "<global>", as cscope says)
against those of `cscope -d -L3` (fields: file function line text).
callees: the distinct called names of `kbx callees --format=json` against
the second field of `cscope -d -L2`.  When a name has several
definitions, kbx's answer is the union over them.  Prints
"kbx=N cscope=M both=K" and writes the differences to DIFF.txt.
"""
import json
import sys


def main():
    mode, kfile, cfile, dfile = sys.argv[1:5]
    k, c = set(), set()
    for line in open(kfile, encoding="utf-8", errors="replace"):
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if mode == "callers" and d.get("type") == "caller":
            name = "<global>" if d.get("kind") == "file" else d["name"]
            k.add((d.get("path") or "", name))
        elif mode == "callees" and d.get("type") == "callee":
            k.add(d["name"])
    for line in open(cfile, encoding="utf-8", errors="replace"):
        f = line.split(None, 3)
        if len(f) < 3:
            continue
        c.add((f[0], f[1]) if mode == "callers" else f[1])
    both = k & c
    with open(dfile, "w") as out:
        out.write(f"# {mode}: only kbx ({len(k - c)})\n")
        for x in sorted(k - c):
            out.write(f"kbx-only\t{x}\n")
        out.write(f"# only cscope ({len(c - k)})\n")
        for x in sorted(c - k):
            out.write(f"cscope-only\t{x}\n")
    print(f"kbx={len(k)} cscope={len(c)} both={len(both)}")


if __name__ == "__main__":
    main()
