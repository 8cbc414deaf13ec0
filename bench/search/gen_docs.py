#!/usr/bin/python3
"""bench/search/gen_docs.py: a Markdown collection of N sections from real text.

    gen_docs.py OUT N [SEED]

Writes OUT/docs/dNNNNN.md, 20 sections ("## heading" and 2 to 5
paragraphs, 400 to 2,600 bytes) a file, so that `kbx index` on OUT
(which holds no code) makes N doc chunks (kbx joins the title line to
the first section).  The paragraphs are drawn (random.Random(SEED),
default 7) from a pool of real English-and-code text found on this
machine: the docstring paragraphs of the Python standard library
(/usr/lib/python3.11) and the entries of the Debian changelogs under
/usr/share/doc (changelog.Debian.gz, the change lines); headings are the
first words of a pool paragraph.  So the vocabulary, its Zipf curve and
the lengths of the posting lists are those of real text, and a larger
collection is more of the same text recombined, as a real knowledge base
repeats its vocabulary.  Prints the pool size and what it wrote.
"""
import ast
import glob
import gzip
import os
import random
import re
import sys


def pool():
    paras = set()
    for root, dirs, files in os.walk("/usr/lib/python3.11"):
        dirs[:] = [d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__")]
        for f in files:
            if not f.endswith(".py"):
                continue
            try:
                tree = ast.parse(open(os.path.join(root, f), encoding="utf-8").read())
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for n in ast.walk(tree):
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
                    d = ast.get_docstring(n)
                    if d:
                        for p in re.split(r"\n\s*\n", d):
                            p = " ".join(p.split())
                            if len(p) >= 40:
                                paras.add(p)
    for g in sorted(glob.glob("/usr/share/doc/*/changelog.Debian.gz")):
        try:
            text = gzip.open(g, "rt", encoding="utf-8", errors="replace").read()
        except OSError:
            continue
        for m in re.finditer(r"^  [*+-] (.+(?:\n    .+)*)", text, re.M):
            p = " ".join(m.group(1).split())
            if len(p) >= 40:
                paras.add(p)
    return sorted(paras)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, n = sys.argv[1], int(sys.argv[2])
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    P = pool()
    d = os.path.join(out, "docs")
    os.makedirs(d, exist_ok=True)
    per = 20
    nbytes = 0
    for i in range((n + per - 1) // per):
        k = min(per, n - i * per)
        parts = [f"# Notes {i}\n"]
        for _ in range(k):
            h = " ".join(rnd.choice(P).split()[:6]).strip(" .:,")
            h = re.sub(r"[#`*_\[\]<>]", "", h) or "Section"
            # 2 to 5 paragraphs, and at least 400 bytes but under 2,800,
            # so that kbx makes one chunk of each section (it merges
            # sections under 300 bytes and cuts them over 3,000)
            paras, want = [], rnd.randint(2, 5)
            while len(paras) < want or sum(map(len, paras)) < 400:
                p = rnd.choice(P)
                if sum(map(len, paras)) + len(p) < 2600:
                    paras.append(p)
                elif len(paras) >= 2 and sum(map(len, paras)) >= 400:
                    break
                else:
                    paras = []
            body = "\n\n".join(paras)
            parts.append(f"## {h}\n\n{body}\n")
        s = "\n".join(parts)
        nbytes += len(s)
        with open(os.path.join(d, f"d{i:06d}.md"), "w", encoding="utf-8") as f:
            f.write(s)
    print(f"pool={len(P)} paragraphs; wrote {n} sections in {(n + per - 1) // per} files, {nbytes / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
