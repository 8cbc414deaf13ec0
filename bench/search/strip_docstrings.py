#!/usr/bin/python3
"""bench/search/strip_docstrings.py: the docstring benchmark's corpus and queries.

    strip_docstrings.py SRC OUT QUERIES.tsv [SAMPLE [SEED]]

Copies every regular *.py file under SRC into OUT with every docstring
(module, class, function) removed, and writes, for a sample of the
documented functions and methods, one query a line to QUERIES.tsv:

    canonical-id <tab> first sentence of the docstring

Stripping: each docstring statement is replaced by `pass` and as many
newlines as it spanned, so every other line keeps its number and the
code still parses (checked with ast.parse; a file that would not is
copied with its docstrings left in and counted on stderr).  Files that
do not parse as Python 3.11 are copied as they are and give no query.

The query is the docstring's first sentence: inspect.cleandoc, first
paragraph, whitespace collapsed, cut after the first '.', '?' or '!'
followed by a space (or at the paragraph's end).  Kept only when it has
at least 4 words and 20 characters, and when no other definition in the
corpus has the same sentence (compared lower-cased), so that every query
has exactly one right answer.  The answer is PATH#Qual.name (the names
of the enclosing classes and functions, dot-separated), which is kbx's
canonical id for the definition; of two definitions with one qualified
name in one file, only the first is kept (kbx gives both its id).
SAMPLE queries (default 2000) are drawn with random.Random(SEED)
(default 20261122) and written sorted by id.
"""
import ast
import inspect
import os
import random
import re
import sys
from collections import Counter

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def docstring_node(node):
    body = getattr(node, "body", None)
    if not body:
        return None
    s = body[0]
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
        return s
    return None


def first_sentence(doc):
    doc = inspect.cleandoc(doc)
    para = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]
    para = " ".join(para.split())
    m = re.search(r"[.?!](\s|$)", para)
    return para[: m.end()].strip() if m else para


def walk(tree):
    """(qualname, node) for every def and class, outermost first"""
    out = []

    def rec(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, DEFS):
                q = prefix + child.name
                out.append((q, child))
                rec(child, q + ".")
            else:
                rec(child, prefix)
    rec(tree, "")
    return out


def strip(text, tree):
    nodes = [tree] + [n for _, n in walk(tree)]
    spans = []
    for n in nodes:
        d = docstring_node(n)
        if d is not None:
            spans.append((d.lineno, d.col_offset, d.end_lineno, d.end_col_offset))
    # col offsets are UTF-8 byte offsets: work on bytes
    # (split at \n only: str.splitlines also splits at form feeds, which
    # the Python tokenizer does not count as line ends)
    blines = text.encode("utf-8").split(b"\n")
    blines = [l + b"\n" for l in blines[:-1]] + ([blines[-1]] if blines[-1] else [])
    for l0, c0, l1, c1 in sorted(spans, reverse=True):
        head = blines[l0 - 1][:c0]
        tail = blines[l1 - 1][c1:]
        repl = head + b"pass" + b"\n" * (l1 - l0) + tail
        blines[l0 - 1:l1] = [repl]
    return b"".join(blines), len(spans)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, out, qpath = sys.argv[1:4]
    sample = int(sys.argv[4]) if len(sys.argv) > 4 else 2000
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 20261122
    cands = []
    nfiles = nstripped = nbad = nunparsed = 0
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__"))
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            p = os.path.join(root, f)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            rel = os.path.relpath(p, src)
            d = os.path.join(out, rel)
            os.makedirs(os.path.dirname(d), exist_ok=True)
            raw = open(p, "rb").read()
            nfiles += 1
            try:
                text = raw.decode("utf-8")
                tree = ast.parse(text)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                open(d, "wb").write(raw)
                nunparsed += 1
                continue
            new, n = strip(text, tree)
            try:
                ast.parse(new)
            except SyntaxError:
                new = raw
                nbad += 1
                n = 0
            open(d, "wb").write(new)
            nstripped += n
            seen = set()
            for q, node in walk(tree):
                if q in seen:
                    continue
                seen.add(q)
                if isinstance(node, ast.ClassDef):
                    continue
                ds = docstring_node(node)
                if ds is None:
                    continue
                cands.append((rel + "#" + q, first_sentence(ds.value.value)))
    count = Counter(s.lower() for _, s in cands)
    kept = [(i, s) for i, s in cands
            if len(s.split()) >= 4 and len(s) >= 20 and count[s.lower()] == 1]
    rnd = random.Random(seed)
    pick = sorted(rnd.sample(kept, min(sample, len(kept))))
    with open(qpath, "w", encoding="utf-8") as fq:
        for i, s in pick:
            fq.write(f"{i}\t{s}\n")
    print(f"files={nfiles} docstrings_stripped={nstripped} unparsed={nunparsed} "
          f"left_unstripped={nbad} documented_functions={len(cands)} "
          f"kept_after_filter={len(kept)} sampled={len(pick)}")


if __name__ == "__main__":
    main()
