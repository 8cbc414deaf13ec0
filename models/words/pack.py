#!/usr/bin/env python3
"""pack.py: fastText word vectors into the file kbx's builtin embedding
maps (lib/embed/words.c reads it; its header describes the layout).

    pack.py VECTORS.vec TOKENS.txt OUT

VECTORS.vec is fastText's text output ("N DIM", then "word x1 ... xDIM"
lines); TOKENS.txt the tokenized corpus it was trained on (one paragraph
a line), for the words' frequencies and the common direction.

Each word gets
  - its vector, quantized to int8 with a scale of its own,
  - a weight a / (a + p(w)), p its frequency in the corpus: frequent
    words say little about a text's topic (smooth inverse frequency),
and the file one direction: the first singular vector of the weighted
paragraph vectors of the corpus, which every text shares and which a
text's vector loses before it is scaled to unit length.
"""
import hashlib
import math
import struct
import sys

SIF_A = 1e-3
MAGIC = b"KBXWORDS"
VERSION = 1


def read_vectors(path):
    words, vecs = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        n, dim = map(int, f.readline().split())
        for line in f:
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if len(parts) != dim + 1:
                continue
            w = parts[0]
            if w == "</s>" or not w or len(w.encode()) > 64:
                continue
            words.append(w)
            vecs.append([float(x) for x in parts[1:]])
    return words, vecs, dim


def counts(path, vocab):
    c = dict.fromkeys(vocab, 0)
    total = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            for t in line.split():
                total += 1
                if t in c:
                    c[t] += 1
    return c, total


def common_direction(path, index, vecs, weight, dim, sample=20000, rounds=30):
    """The first right singular vector of the paragraph vectors (power
    iteration on X^T X, X the weighted paragraph sums of a sample)."""
    rows = []
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    step = max(1, len(lines) // sample)
    for line in lines[::step]:
        acc = [0.0] * dim
        n = 0
        for t in line.split():
            i = index.get(t)
            if i is None:
                continue
            w = weight[i]
            v = vecs[i]
            for k in range(dim):
                acc[k] += w * v[k]
            n += 1
        if n:
            norm = math.sqrt(sum(x * x for x in acc)) or 1.0
            rows.append([x / norm for x in acc])
    u = [1.0 / math.sqrt(dim)] * dim
    for _ in range(rounds):
        nu = [0.0] * dim
        for r in rows:
            d = sum(a * b for a, b in zip(r, u))
            for k in range(dim):
                nu[k] += d * r[k]
        norm = math.sqrt(sum(x * x for x in nu)) or 1.0
        u = [x / norm for x in nu]
    return u


def main():
    vec_path, tok_path, out_path = sys.argv[1:4]
    words, vecs, dim = read_vectors(vec_path)
    c, total = counts(tok_path, words)
    order = sorted(range(len(words)), key=lambda i: words[i].encode())
    words = [words[i] for i in order]
    vecs = [vecs[i] for i in order]
    index = {w: i for i, w in enumerate(words)}
    weight = [SIF_A / (SIF_A + max(c[w], 1) / total) for w in words]
    u = common_direction(tok_path, index, vecs, weight, dim)

    pool = bytearray()
    offs = []
    for w in words:
        offs.append(len(pool))
        pool += w.encode()
    offs.append(len(pool))
    while len(pool) % 4:
        pool += b"\0"
    scales, qvecs = [], bytearray()
    for v in vecs:
        m = max(abs(x) for x in v) or 1.0
        s = m / 127.0
        scales.append(s)
        qvecs += struct.pack("<%db" % dim, *[max(-127, min(127, round(x / s))) for x in v])

    body = bytearray()
    body += struct.pack("<%dI" % len(offs), *offs)
    body += pool
    body += struct.pack("<%df" % len(scales), *scales)
    body += struct.pack("<%df" % len(weight), *weight)
    body += struct.pack("<%df" % dim, *u)
    body += qvecs
    digest = hashlib.sha256(body).hexdigest()
    header = MAGIC + struct.pack("<IIIII", VERSION, dim, len(words), len(pool), len(body))
    header += digest[:16].encode()
    header += b"\0" * (64 - len(header))
    with open(out_path, "wb") as f:
        f.write(header)
        f.write(body)
    print("%s: %d words, dim %d, %d bytes, sha256 %s" %
          (out_path, len(words), dim, 64 + len(body), digest))


if __name__ == "__main__":
    main()
