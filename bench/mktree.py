#!/usr/bin/python3
"""bench/mktree.py: build a scaling tree out of whole files of the corpora.

    mktree.py OUT TARGET_LINES PART=DIR[:FIRST,FIRST...] [PART=DIR...]

Copies the regular files of each DIR into OUT/PART/, in this order: the
FIRST files (paths relative to DIR), then the rest sorted by path, until
the tree holds at least TARGET_LINES lines (0: everything).  Whole files
only, so the tree is real code, just less of it; the same arguments give
the same tree.  Prints the number of files and lines.
"""
import os
import shutil
import sys


def files_of(d):
    out = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for f in files:
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p):
                out.append(os.path.relpath(p, d))
    return sorted(out)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, target = sys.argv[1], int(sys.argv[2])
    if os.path.exists(out):
        shutil.rmtree(out)
    total_lines = total_files = 0
    for spec in sys.argv[3:]:
        part, rest = spec.split("=", 1)
        src, _, first = rest.partition(":")
        first = [f for f in first.split(",") if f]
        order = first + [f for f in files_of(src) if f not in set(first)]
        for rel in order:
            if target and total_lines >= target:
                break
            s = os.path.join(src, rel)
            d = os.path.join(out, part, rel)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copyfile(s, d)
            with open(s, "rb") as f:
                total_lines += f.read().count(b"\n")
            total_files += 1
    print(f"{out}: {total_files} files, {total_lines} lines")


if __name__ == "__main__":
    main()
