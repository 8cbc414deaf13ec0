#!/usr/bin/python3
"""bench/search/report.py: Markdown tables from what bench/search/*.sh measured.

    report.py [SRES [OUT.md]]

SRES is bench/work/results/search (records.tsv, cmds.tsv, the scored
runs and hyperfine exports); OUT.md defaults to SRES/../search.md.
Sections whose data is missing are left out.  bench/report.py appends
OUT.md to bench/results.md.
"""
import json
import os
import statistics
import sys

here = os.path.dirname(os.path.abspath(__file__))
SRES = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "work", "results", "search")
OUT = sys.argv[2] if len(sys.argv) > 2 else os.path.join(SRES, "..", "search.md")

rec, cmds = {}, {}
for name, d in (("records.tsv", rec), ("cmds.tsv", cmds)):
    p = os.path.join(SRES, name)
    if os.path.exists(p):
        for line in open(p, encoding="utf-8"):
            k, _, v = line.rstrip("\n").partition("\t")
            d[k] = v
out = []
w = out.append


def table(head, rows):
    w("| " + " | ".join(head) + " |")
    w("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        w("| " + " | ".join(str(x) for x in r) + " |")
    w("")


def jload(name):
    p = os.path.join(SRES, name)
    try:
        return json.load(open(p))
    except (OSError, ValueError):
        return None


def jrec(key):
    try:
        return json.loads(rec[key])
    except (KeyError, ValueError):
        return None


def hf(name):
    j = jload(name)
    if not j:
        return {}
    return {r["command"]: r for r in j["results"]}


def lat(r):
    if not r:
        return "n/a"
    t = [x * 1000 for x in r["times"]]
    return f"{statistics.median(t):.1f} ms (mean {r['mean'] * 1000:.1f} ± {r['stddev'] * 1000:.1f})"


def mb(b):
    return "n/a" if b in (None, "") else f"{int(b) / 1e6:.1f} MB"


def f3(x):
    return f"{x:.3f}"


w("# kbx search: retrieval quality, latency, indexing throughput")
w("")
src = rec.get("meta.kbx_source", "?")
ph = rec.get("meta.placeholders", "").strip()
w(f"Measured with `{src}`.  " + (
    f"**Placeholder code**: {ph} still say TEMPORARY (the tokenizer and/or the builtin embedder "
    "are stand-ins), so the vector and lexical figures below are those of the placeholders."
    if ph else "The tokenizer and embedder were the real ones (no TEMPORARY marker)."))
w("Written by `bench/search/*.sh` (each runs alone; `BENCH_SECTIONS=search bench/run.sh` runs them all).")
w("")

# --- code quality ----------------------------------------------------------
sc = jload("code-scores.json")
if sc:
    w("## Retrieval quality on code: the docstring method")
    w("")
    w(f"Corpus: `{rec.get('quality.code.corpus', '?')}` with every docstring replaced by `pass` "
      "(bench/search/strip_docstrings.py); query: the first sentence of a function's or method's docstring "
      "(at least 4 words and 20 characters, and no other definition with the same sentence); "
      "right answer: that definition's canonical id, and nothing else.  "
      f"`{rec.get('quality.code.strip', '')}`.")
    w("")
    idx = jrec("quality.code.index_json") or {}
    s = idx.get("search", {})
    run = jrec("quality.code.run") or {}
    w(f"Index: {s.get('chunks', '?'):,} code chunks, vector index {s.get('vector_index')}, "
      f"built in {int(rec.get('quality.code.index_ms', 0)):,} ms.  Queries: {run.get('queries')} processes, "
      f"{run.get('parallel')} at a time, {run.get('wall_s')} s wall ({run.get('mean_process_ms')} ms a process).")
    w("")
    rows = []
    for m in sc["rows"]:
        rows.append([m["name"], m["queries"], f3(m["mrr10"]), f3(m["recall1"]), f3(m["recall10"]), f3(m["recall100"])])
    table(["mode", "queries", "MRR@10", "recall@1", "recall@10", "recall@100"], rows)
    best = max((m for m in sc["rows"] if m["name"] in ("lexical", "vector")), key=lambda m: m["mrr10"], default=None)
    hyb = next((m for m in sc["rows"] if m["name"] == "hybrid"), None)
    if best and hyb:
        w(f"Hybrid (RRF, k 60) against the better single signal ({best['name']}): MRR@10 "
          f"{hyb['mrr10']:.3f} vs {best['mrr10']:.3f}, recall@10 {hyb['recall10']:.3f} vs {best['recall10']:.3f}: "
          + ("**hybrid beats it**." if hyb["mrr10"] > best["mrr10"] else "**hybrid does not beat it**."))
        w("")
    w("The lexical and vector rows are read off the hybrid run (`-n 300 --depth=100`: every candidate with its "
      "rank in each signal); the rows marked (offline) re-fuse those ranks in Python to show what other fusion "
      "constants would give (simulations, not kbx runs).  Check against real `--mode` runs with `-n 10`: "
      + "; ".join(f"{a['spec'].split('/')[-1]}: {a['same_top10']}/{a['queries']} identical top-10 lists"
                  for a in sc.get("agree", [])) + ".")
    w("")

# --- error quality ---------------------------------------------------------
se = jload("errors-scores.json")
if rec.get("quality.errors.skipped"):
    w("## Retrieval quality on error messages")
    w("")
    w(f"Skipped: {rec['quality.errors.skipped']}.")
    w("")
elif se:
    w("## Retrieval quality on error messages")
    w("")
    w(f"Real messages: the standard error of {rec.get('quality.errors.captured')} small failing programs "
      "(bench/search/errors/) run or compiled here; tools: " + rec.get("quality.errors.tools", "?"))
    w("")
    w("Searched: the third-party registry at /work/shared/fixtures/kb-registry only (added by path).  "
      "Right answers: the entries of the message's language whose pattern matches it with Python's `re` "
      "(all such entries count).  " f"{rec.get('quality.errors.queries')} messages have one; "
      f"{rec.get('quality.errors.excluded')} have none and are left out (list below).  "
      "Each message piped whole to `kbx search --type=error --format=json --mode=MODE -`, no `--lang`.")
    w("")
    rows = [[m["name"], m["queries"], f3(m["mrr10"]), f3(m["recall1"]), f3(m["recall10"])] for m in se["rows"]]
    table(["mode", "messages", "MRR@10", "recall@1", "recall@10"], rows)
    w("Since the right answer is defined by the patterns, the pattern signal (part of `lexical` and `hybrid`) "
      "finds it by construction; the BM25-alone and vector rows are the informative ones.")
    w("")
    p = os.path.join(SRES, "errors-truth.txt")
    if os.path.exists(p):
        ex = [l.strip() for l in open(p) if l.startswith("excluded")]
        if ex:
            w("<details><summary>messages left out</summary>")
            w("")
            for l in ex:
                w(f"- {l[9:]}")
            w("")
            w("</details>")
            w("")

# --- question sets ---------------------------------------------------------
qs = {k: jrec(k) for k in rec if k.startswith("quality.sets.") and k != "quality.sets.skipped"}
if rec.get("quality.sets.skipped") or qs:
    w("## Questions of meaning (bench/search/sets/)")
    w("")
    if rec.get("quality.sets.skipped"):
        w(f"Skipped: {rec['quality.sets.skipped']}.")
    else:
        w("Questions written for this bench over the third-party registry, worded away from their answers; "
          "`held` questions were never used to choose a setting.  Top-1 / top-3 / MRR@10 of the hits as "
          "`kbx search -n 10` lists them, with the builtin embedding's learned vectors (`words`) and without "
          "them (`hash`).")
        w("")
        rows = []
        for k in sorted(qs):
            _, _, sname, model, mode = k.split(".")
            for split, f in sorted((qs[k] or {}).items()):
                rows.append([sname, split, f["n"], mode, model,
                             f"{f['top1']:.3f} / {f['top3']:.3f} / {f['mrr10']:.3f}"])
        table(["set", "split", "questions", "mode", "model", "top-1 / top-3 / MRR@10"], rows)
    w("")

# --- latency ---------------------------------------------------------------
sizes = sorted({int(k.split(".")[1]) for k in rec if k.startswith("latency.") and k.endswith(".index_ms")})
if sizes:
    w("## Latency against the size of the collection")
    w("")
    w("Collections of Markdown sections written by bench/search/gen_docs.py from real text of this machine "
      "(standard-library docstrings and Debian changelog entries, recombined at random with a fixed seed), "
      "so that vocabulary and posting-list lengths are those of real prose-and-code text; one doc chunk a section.  "
      "Whole-process `kbx search -n 10` latency, hyperfine -N, warm page cache: median (mean ± σ).  "
      "The machine has 2 cores and was shared with other jobs (load averages below).")
    w("")
    rows = []
    for n in sizes:
        j = jrec(f"latency.{n}.index_json") or {}
        s = j.get("search", {})
        h = hf(f"hf-latency-{n}.json")
        st = jrec(f"latency.{n}.status") or {}
        ms = s.get("milliseconds") or 0
        rows.append([f"{s.get('chunks', n):,}", f"{int(rec[f'latency.{n}.index_ms']):,} ms",
                     f"{ms:,} ms ({s.get('chunks', 0) / max(ms, 1) * 1000:,.0f}/s)",
                     " / ".join(f"{s.get(k, 0) or 0:,}" for k in ("ms_chunk", "ms_postings", "ms_embed", "ms_vectors"))
                     + f" ({ms - sum(s.get(k, 0) or 0 for k in ('ms_chunk', 'ms_postings', 'ms_embed', 'ms_vectors')):,})",
                     mb(int(rec.get(f"latency.{n}.index_rss_kb", 0)) * 1024),
                     mb(rec.get(f"latency.{n}.store_bytes")), mb(rec.get(f"latency.{n}.vectors_bytes")),
                     st.get("vector_index", s.get("vector_index")),
                     lat(h.get("hybrid")), lat(h.get("lexical")), lat(h.get("vector")),
                     rec.get(f"latency.{n}.load_before_query", "")])
    table(["chunks", "kbx index (wall)", "search phase (chunks/s)", "chunk / postings / embed / vectors ms (rest)", "peak RSS",
           "store", "vectors.kbxv", "vector index", "hybrid", "lexical", "vector", "load avg"], rows)
    for n in sizes:
        p = os.path.join(SRES, f"latency-{n}-explain.txt")
        if os.path.exists(p):
            lines = [l.rstrip() for l in open(p)][:4]
            w(f"- {n:,}: `--explain`: " + "; ".join(f"`{l.strip()}`" for l in lines if l.strip()))
    w("")
    t = hf("hf-latency-100000.json").get("hybrid")
    if t:
        m = statistics.median(t["times"]) * 1000
        w(f"Target: hybrid under 20 ms at 100k chunks: measured {m:.1f} ms (median): "
          + ("**met**." if m < 20 else "**not met**."))
        w("")

# --- index types -----------------------------------------------------------
tk = sorted({(int(k.split(".")[1]), k.split(".")[2]) for k in rec if k.startswith("types.") and k.endswith(".index_ms")})
if tk:
    w("## Vector index types at one size")
    w("")
    w("`kbx config search.index TYPE && kbx index --rebuild` (the cached vectors are kept, so only the vector "
      "index is built again), then hyperfine as above.  Top-10 overlap: how many of flat's (exact) top 10 for the query "
      "the index also returns.")
    w("")
    rows = []
    for n, t in tk:
        j = jrec(f"types.{n}.{t}.index_json") or {}
        s = j.get("search", {})
        h = hf(f"hf-types-{n}-{t}.json")
        rows.append([f"{n:,}", t, rec.get(f"types.{n}.{t}.status_index"), f"{s.get('ms_vectors', 0):,} ms",
                     mb(rec.get(f"types.{n}.{t}.vectors_bytes")), lat(h.get("hybrid")), lat(h.get("vector")),
                     rec.get(f"types.{n}.{t}.overlap_flat", ""), rec.get(f"types.{n}.{t}.load", "")])
    table(["chunks", "search.index", "built", "build (ms_vectors)", "vectors.kbxv", "hybrid", "vector",
           "top-10 overlap with flat", "load avg"], rows)

# --- throughput ------------------------------------------------------------
names = [n for n in ("registry", "pystdlib", "git-c") if f"throughput.{n}.chunks" in rec]
if names:
    w("## Indexing throughput")
    w("")
    w("`kbx index --format=json` from an empty `.kbx` (median of runs): kbx's own account of the search phase "
      "(`search.milliseconds`: chunking, BM25, embedding with the builtin provider, vector index).")
    w("")
    rows = []
    for n in names:
        g = lambda k: rec.get(f"throughput.{n}.{k}", "")
        rows.append([{"registry": "the kb-registry (errors, docs)", "pystdlib": "Python stdlib (code chunks)",
                      "git-c": "git's C sources (code chunks)"}[n], g("chunks"), g("graph_ms"), g("search_ms"),
                     g("embed_ms"), g("vectors_ms"), g("chunks_per_s"), g("wall_ms"), g("vector_index")])
    table(["source", "chunks", "graph phase ms", "search phase ms", "embed ms", "vector index ms",
           "chunks/s (search phase)", "wall ms", "vector index"], rows)

if cmds:
    w("## Commands")
    w("")
    w("```")
    for k, v in cmds.items():
        w(f"{k}: {v}")
    w("```")
    w("")

open(OUT, "w").write("\n".join(out))
print(f"report: {OUT}")
