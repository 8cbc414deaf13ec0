#!/usr/bin/python3
"""bench/report.py: write bench/results.md from what bench/run.sh measured.

    report.py RESULTS_DIR OUT.md

RESULTS_DIR holds records.tsv (key, value), cmds.tsv (key, command) and
hf/*.json (hyperfine exports, times in seconds).  Sections whose data is
missing (BENCH_SECTIONS left them out) are skipped.
"""
import json
import os
import sys

RES = sys.argv[1]
OUT = sys.argv[2]

rec = {}
for line in open(os.path.join(RES, "records.tsv"), encoding="utf-8"):
    k, _, v = line.rstrip("\n").partition("\t")
    rec[k] = v
cmds = {}
if os.path.exists(os.path.join(RES, "cmds.tsv")):
    for line in open(os.path.join(RES, "cmds.tsv"), encoding="utf-8"):
        k, _, v = line.rstrip("\n").partition("\t")
        cmds[k] = v


def hf(name):
    p = os.path.join(RES, "hf", name + ".json")
    if not os.path.exists(p):
        return None
    return {r["command"]: r for r in json.load(open(p))["results"]}


def num(key, default=None):
    v = rec.get(key)
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def ms(x):
    if x is None:
        return "n/a"
    if x >= 1000:
        return f"{x:,.0f} ms"
    if x >= 100:
        return f"{x:.0f} ms"
    if x >= 10:
        return f"{x:.1f} ms"
    return f"{x:.2f} ms"


def mb(b):
    return "n/a" if b is None else f"{b / 1e6:.1f} MB"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}x"


def phases(name):
    """kbx's own account of one --rebuild (index --format=json), if it gives one"""
    try:
        s = json.load(open(os.path.join(RES, "out", name)))
    except (OSError, ValueError):
        return ""
    parts = [f"{k[3:]} {v:,} ms" for k, v in s.items() if k.startswith("ms_")]
    if not parts:
        return ""
    return (f"kbx's own account of one `--rebuild` (`index --format=json`): {s.get('milliseconds', '?'):,} ms "
            f"in all; " + ", ".join(parts) + ".")


GRAPH_CPU = [("scan", "listing the files"), ("parse", "tree-sitter's parse"),
             ("extract", "reading, hashing, walking the trees"), ("write", "writing definitions and refs"),
             ("resolve", "resolving edges"), ("commit", "committing the graph")]
SEARCH_CPU = [("chunk", "making and writing code chunks"), ("tokenize", "tokenizing for BM25"),
              ("postings", "sorting and writing postings"), ("embed", "embedding (builtin)"),
              ("vectors", "building the vector file"), ("other", "the rest: sources, vector cache, commit")]


def cpu_table(runs, floor_ms=None):
    """The CPU time of index runs by phase (the summaries' cpu_ms), one
    column per run: runs is a list of (column title, summary file)"""
    cols = []
    for title, name in runs:
        try:
            cols.append((title, json.load(open(os.path.join(RES, "out", name)))))
        except (OSError, ValueError):
            pass
    cols = [(t, s) for t, s in cols if "cpu_ms" in s]
    if not cols:
        return
    rows = []
    totals = []
    for _, s in cols:
        g, q = s["cpu_ms"], (s.get("search") or {}).get("cpu_ms", {})
        totals.append(sum(g.values()) + sum(q.values()))
    for part, keys in (("graph", GRAPH_CPU), ("search", SEARCH_CPU)):
        for k, what in keys:
            row = [f"{part}: {k}", what]
            for (_, s), total in zip(cols, totals):
                v = (s["cpu_ms"] if part == "graph" else (s.get("search") or {}).get("cpu_ms", {})).get(k)
                row.append("" if v is None else f"{v:,} ms ({100 * v / total:.0f}%)" if total else f"{v:,} ms")
            rows.append(row)
    row = ["all", "user + system, every thread"]
    for (_, s), total in zip(cols, totals):
        row.append(f"{total:,} ms" + (f" ({total / floor_ms:.2f}x tree-sitter parse + walk)" if floor_ms else ""))
    rows.append(row)
    row = ["wall", "graph + search, as the runs timed themselves"]
    for _, s in cols:
        row.append(f"{s.get('milliseconds', 0) + (s.get('search') or {}).get('milliseconds', 0):,} ms")
    rows.append(row)
    table(["phase", "what", *[t for t, _ in cols]], rows)


def kfmt(n):
    return "n/a" if n is None else f"{int(n):,}"


out = []
w = out.append


def table(head, rows):
    w("| " + " | ".join(head) + " |")
    w("|" + "|".join("---" for _ in head) + "|")
    for r in rows:
        w("| " + " | ".join(str(c) for c in r) + " |")
    w("")


def hfrow(res, label):
    r = res.get(label) if res else None
    if not r:
        return None
    return r


def med_ms(r):
    return r["median"] * 1000 if r else None


def meansd(r):
    return f"{r['mean'] * 1000:.2f} ± {r['stddev'] * 1000:.2f}" if r else "n/a"


def runs(r):
    return len(r["times"]) if r else 0


# ---------------------------------------------------------------------------
w("# kbx benchmark results")
w("")
w("Written by `bench/report.py` from the measurements of `bench/run.sh` "
  "(`make bench`); raw data in `bench/work/results/` (records.tsv, "
  "hf/*.json, out/).  Times are wall-clock medians; hyperfine runs "
  "without a shell (`-N`), output to /dev/null.  Ratios are kbx / peer: "
  "below 1 means kbx is faster or smaller.")
w("")
w("## Machine and versions")
w("")
table(["what", "value"], [
    ["date", rec.get("meta.date", "")],
    ["machine", f"{rec.get('meta.cpu', '')}, {rec.get('meta.cores', '')} cores, "
                f"{rec.get('meta.mem', '')} RAM, {rec.get('meta.fs', '')} file system"],
    ["OS", rec.get("meta.os", "")],
    ["load average (start / end)", f"{rec.get('meta.load_start', '')} / {rec.get('meta.load_end', '')}"],
    ["kbx", f"`{rec.get('meta.kbx', '')}`, measured as a copy of {rec.get('meta.kbx_source', '')}"],
    ["cscope", rec.get("meta.cscope", "")],
    ["GNU Global", rec.get("meta.global", "")],
    ["hyperfine", rec.get("meta.hyperfine", "")],
    ["python / networkx", f"{rec.get('meta.python', '')} / networkx {rec.get('meta.networkx', '')}"],
    ["tree-sitter (for bench/ts-parse)", rec.get("meta.tree_sitter", "")],
    ["total run time", f"{rec.get('meta.runtime_s', '?')} s (sections: {rec.get('meta.sections', '')})"],
])

w("## Corpora")
w("")
rows = []
if "c.tree.lines" in rec:
    rows.append(["git (C)", f"Debian source package git {rec.get('corpus.git', '')}, "
                 "`*.c` `*.h` only, all directories (incl. compat/, contrib/, t/helper/)",
                 kfmt(num("c.tree.files")), kfmt(num("c.tree.lines")), mb(num("c.tree.bytes"))])
if "py.tree.lines" in rec:
    rows.append(["Python stdlib", f"/usr/lib/python3.11 (libpython3.11-stdlib {rec.get('corpus.python3.11-stdlib', '')}), "
                 "regular `*.py` files, without site-packages/ and dist-packages/ and the 2 symlinks",
                 kfmt(num("py.tree.files")), kfmt(num("py.tree.lines")), mb(num("py.tree.bytes"))])
if "scale.2m.tree.lines" in rec:
    rows.append(["postgresql (C)", f"Debian source package postgresql-15 {rec.get('corpus.postgresql-15', '')}, "
                 f"`*.c` `*.h` up to 1 MiB (left out: {rec.get('corpus.pg_excluded', '')}); scaling only",
                 "", "", ""])
if rows:
    table(["corpus", "what", "files", "lines", "size"], rows)

targets = []

# ---------------------------------------------------------------------------
if "c.tree.lines" in rec:
    w("## C: the git tree")
    w("")
    w(f"{kfmt(num('c.tree.files'))} files, {kfmt(num('c.tree.lines'))} lines. "
      "All tools index the same files (`cscope.files` lists every `*.c`/`*.h`; "
      "kbx and gtags walk the tree, which holds nothing else).")
    w("")
    w("### Full index (median of 3 runs)")
    w("")
    tools = [
        ("kbx_rebuild", "c.idx.kbx", "kbx index --rebuild"),
        ("kbx_scratch", "c.idx.kbx_scratch", "kbx index (into a new store)"),
        ("kbx_t1", "c.idx.kbx_t1", "kbx index --rebuild --threads=1"),
        ("cscope_plain", "c.idx.cscope_plain", "cscope -b"),
        ("cscope_qk", "c.idx.cscope_qk", "cscope -b -q -k"),
        ("gtags", "c.idx.gtags", "gtags"),
        ("ts_parse", "c.idx.ts_parse", "tree-sitter parse + walk alone, 1 thread (bench/ts-parse)"),
    ]
    kb = num("c.idx.kbx.wall_ms")
    rows = []
    for _, k, label in tools:
        wall = num(k + ".wall_ms")
        store = num(k + ".store_bytes")
        if store is None and k.startswith("c.idx.kbx"):
            store = num("c.idx.kbx.store_bytes")
        rows.append([f"`{label}`", ms(wall), rec.get(k + ".wall_runs", ""), ms(num(k + ".cpu_ms")),
                     mb(num(k + ".rss_kb", 0) * 1024), mb(store),
                     "" if k.startswith("c.idx.kbx") else ratio(kb, wall),
                     "" if k.startswith("c.idx.kbx") else ratio(num("c.idx.kbx.cpu_ms"), num(k + ".cpu_ms"))])
    table(["tool", "wall (median)", "runs (ms)", "CPU user+sys (median)", "peak RSS", "store",
           "kbx --rebuild / tool (wall)", "(CPU)"], rows)
    try:
        s = json.load(open(os.path.join(RES, "out", "c.idx.kbx.status.json")))
        w(f"kbx store: {s.get('symbols', '?'):,} symbols, {s.get('externals', '?'):,} externals, "
          f"{s.get('edges', '?'):,} edges ({s.get('edges_calls', '?'):,} calls, "
          f"{s.get('edges_ambiguous', '?'):,} ambiguous, {s.get('edges_unresolved', '?'):,} unresolved); "
          f"data.mdb {mb(s.get('store_bytes'))}.  kbx store size is `.kbx/data.mdb` + `lock.mdb` "
          "after `--rebuild` over an existing store (the 'new store' row: after a build into an empty .kbx/); "
          "cscope -b -q -k: cscope.out + cscope.in.out + cscope.po.out; gtags: GTAGS + GRTAGS + GPATH.  "
          "Plain `cscope -b` (no -k) also parses the system headers that the sources include.")
        w("")
    except (OSError, ValueError):
        pass
    p = phases("c.idx.kbx.summary.json")
    if p:
        w(p)
        w("")
    w("Where kbx's CPU time goes, by phase (`cpu_ms` of `index --format=json`, one run each; "
      "every thread counted, so the sum exceeds the wall time of a run on two threads):")
    w("")
    cpu_table([("`--rebuild` (vectors cached)", "c.idx.kbx.summary.json"),
               ("into a new store (all embedded)", "c.idx.kbx_scratch.summary.json"),
               ("`--rebuild --threads=1`", "c.idx.kbx_t1.summary.json")],
              num("c.idx.ts_parse.cpu_ms"))
    targets.append(("full index within 2x of `cscope -b` wall time",
                    f"kbx --rebuild {ms(kb)} vs cscope -b {ms(num('c.idx.cscope_plain.wall_ms'))}: "
                    f"{ratio(kb, num('c.idx.cscope_plain.wall_ms'))} "
                    f"(vs cscope -b -q -k: {ratio(kb, num('c.idx.cscope_qk.wall_ms'))}; "
                    f"kbx --threads=1 vs cscope -b: {ratio(num('c.idx.kbx_t1.wall_ms'), num('c.idx.cscope_plain.wall_ms'))})",
                    kb is not None and num('c.idx.cscope_plain.wall_ms') and kb <= 2 * num('c.idx.cscope_plain.wall_ms')))

    w("### Query latency (hyperfine, median; whole process)")
    w("")
    rows = []
    worst = None
    for n in ["xstrdup", "strbuf_addf", "die", "error", "oid_to_hex"]:
        res = hf(f"c-callers-{n}")
        if not res:
            continue
        k = res.get(f"kbx callers {n}")
        c = res.get(f"cscope -d -L3 {n}")
        g = res.get(f"global -r {n}")
        gx = res.get(f"global -rx {n}")
        r = med_ms(k) / med_ms(c) if k and c else None
        worst = r if worst is None or (r is not None and r > worst) else worst
        rows.append([f"callers `{n}`", ms(med_ms(k)), ms(med_ms(c)), ms(med_ms(g)), ms(med_ms(gx)),
                     ratio(med_ms(k), med_ms(c)), ratio(med_ms(k), med_ms(g)), ratio(med_ms(k), med_ms(gx)),
                     f"{rec.get(f'c.q.callers.{n}.kbx.lines', '?')} / {rec.get(f'c.q.callers.{n}.cscope.lines', '?')} / {rec.get(f'c.q.callers.{n}.global.lines', '?')} / {rec.get(f'c.q.callers.{n}.globalx.lines', '?')}"])
    table(["query", "kbx callers", "cscope -d -L3", "global -r", "global -rx", "kbx/cscope",
           "kbx/global -r", "kbx/global -rx",
           "output lines kbx / cscope / global -r / global -rx"], rows)
    w("`global -r` prints the files that refer to the name, one line each; "
      "`global -rx` and kbx print every reference with its line.")
    w("")
    line = []
    for n in ["xstrdup", "strbuf_addf", "die", "error", "oid_to_hex"]:
        res = hf(f"c-callers-{n}")
        if res:
            k, c = res.get(f"kbx callers {n}"), res.get(f"cscope -d -L3 {n}")
            line.append(f"{n} {ms(med_ms(k))} vs {ms(med_ms(c))}: {ratio(med_ms(k), med_ms(c))}")
    targets.append(("`kbx callers` no slower than `cscope -d -L3`", "; ".join(line),
                    worst is not None and worst <= 1.0))
    # issue 17's own row: against GNU Global's reference list, which
    # prints file names only (-r), and the like-for-like -rx
    for flag, what in (("-r", "file names only"), ("-rx", "every reference with its line, as kbx")):
        line, worst_g = [], None
        for n in ["xstrdup", "strbuf_addf", "die", "error", "oid_to_hex"]:
            res = hf(f"c-callers-{n}")
            if not res:
                continue
            k, g = res.get(f"kbx callers {n}"), res.get(f"global {flag} {n}")
            if not k or not g:
                continue
            r = med_ms(k) / med_ms(g)
            worst_g = r if worst_g is None or r > worst_g else worst_g
            line.append(f"{n} {ms(med_ms(k))} vs {ms(med_ms(g))}: {ratio(med_ms(k), med_ms(g))}")
        if line:
            targets.append((f"`kbx callers` no slower than `global {flag}` ({what})",
                            "; ".join(line), worst_g <= 1.0))
    rows = []
    for n in ["cmd_commit", "setup_revisions", "diff_flush"]:
        res = hf(f"c-callees-{n}")
        if not res:
            continue
        k = res.get(f"kbx callees {n}")
        c = res.get(f"cscope -d -L2 {n}")
        rows.append([f"callees `{n}`", ms(med_ms(k)), ms(med_ms(c)), ratio(med_ms(k), med_ms(c)),
                     f"{rec.get(f'c.q.callees.{n}.kbx.lines', '?')} / {rec.get(f'c.q.callees.{n}.cscope.lines', '?')}"])
    table(["query", "kbx callees", "cscope -d -L2", "kbx/cscope", "output lines kbx / cscope"], rows)
    rows = []
    worst = None
    for name, label in (("c-search", "as `kbx index` left the page cache"),
                        ("c-search-reread", "the vector file dropped from the cache and read back by one search")):
        res = hf(name)
        if not res:
            continue
        h, l = res.get("kbx search"), res.get("kbx search --mode=lexical")
        r = med_ms(h) / med_ms(l) if h and l else None
        worst = r if worst is None or (r is not None and r > worst) else worst
        rows.append([label, ms(med_ms(h)), ms(med_ms(l)), ratio(med_ms(h), med_ms(l))])
    if rows:
        w("`kbx search \"read a config file and parse its sections\"` on git's code chunks:")
        w("")
        table(["page cache", "kbx search (hybrid)", "--mode=lexical", "ratio"], rows)
        targets.append(("`kbx search` within 1.3x of `--mode=lexical` on git",
                        "; ".join(f"{x[0]}: {x[3]}" for x in rows), worst is not None and worst <= 1.3))
    res = hf("c-steps")
    if res:
        w("#### A graph query step by step, beside GNU Global")
        w("")
        w("Each command does what the one above it does and one step more; page faults are the "
          "kernel's count (perf stat, 20 runs), which the load on the machine does not move.")
        w("")
        rows = []
        for step, kc, gc in (("start: load, relocate, read the arguments", "kbx --version", "global --version"),
                             ("+ settings, open the index, find the definition", "kbx defs strbuf_addf",
                              "global strbuf_addf"),
                             ("+ walk the callers, read their nodes, print", "kbx callers strbuf_addf",
                              "global -r strbuf_addf")):
            k, g = res.get(kc), res.get(gc)
            fk = rec.get("c.steps.faults." + kc.replace(" ", "_"), "n/a")
            fg = rec.get("c.steps.faults." + gc.replace(" ", "_"), "n/a")
            rows.append([step, f"`{kc}` {ms(med_ms(k))}", f"`{gc}` {ms(med_ms(g))}",
                         ratio(med_ms(k), med_ms(g)), f"{fk} / {fg}"])
        table(["step", "kbx", "global", "kbx/global", "page faults kbx / global"], rows)
    w("Mean ± standard deviation (ms) and runs, for the record:")
    w("")
    rows = []
    for n in ["xstrdup", "strbuf_addf", "die", "error", "oid_to_hex"]:
        for label, r in (hf(f"c-callers-{n}") or {}).items():
            rows.append([f"`{label}`", meansd(r), runs(r)])
    for n in ["cmd_commit", "setup_revisions", "diff_flush"]:
        for label, r in (hf(f"c-callees-{n}") or {}).items():
            rows.append([f"`{label}`", meansd(r), runs(r)])
    table(["command", "mean ± sd (ms)", "runs"], rows)

    w("### Do the answers agree with cscope's?")
    w("")
    w("Distinct (file, calling function) pairs for callers, distinct called names for "
      "callees; kbx's answer is the union over all definitions of the name "
      "(`defs` column).  Differences are listed in `bench/work/results/out/c.q.*.diff.txt`.")
    w("")
    rows = []
    for n in ["xstrdup", "strbuf_addf", "die", "error", "oid_to_hex"]:
        a = rec.get(f"c.q.callers.{n}.agree")
        if a:
            d = dict(x.split("=") for x in a.split())
            rows.append([f"callers `{n}`", rec.get(f"c.q.callers.{n}.ndefs", "?") or "1",
                         d["kbx"], d["cscope"], d["both"],
                         int(d["kbx"]) - int(d["both"]), int(d["cscope"]) - int(d["both"])])
    for n in ["cmd_commit", "setup_revisions", "diff_flush"]:
        a = rec.get(f"c.q.callees.{n}.agree")
        if a:
            d = dict(x.split("=") for x in a.split())
            rows.append([f"callees `{n}`", "", d["kbx"], d["cscope"], d["both"],
                         int(d["kbx"]) - int(d["both"]), int(d["cscope"]) - int(d["both"])])
    table(["query", "kbx defs", "kbx", "cscope", "both", "only kbx", "only cscope"], rows)

    w("### Re-index")
    w("")
    res = hf("c-reindex-nochange") or {}
    rows = [[f"`{l}` (no change)", ms(med_ms(r)), meansd(r),
             "" if l == "kbx index" else ratio(med_ms(res.get("kbx index")), med_ms(r))]
            for l, r in res.items()]
    table(["command", "median", "mean ± sd (ms)", "kbx / tool"], rows)
    rows = []
    kmeds = []
    for key in sorted(k for k in rec if k.startswith("c.reindex.file.")):
        f = rec[key]
        res = hf("c-reindex-edit-" + key.split(".", 3)[3]) or {}
        k = res.get(f"kbx index ({f})")
        c = res.get(f"cscope -b -q -k ({f})")
        g = res.get(f"gtags -i ({f})")
        if f.endswith(".c") and k:
            kmeds.append(med_ms(k))
        summ = ""
        try:
            s = json.load(open(os.path.join(RES, "out", f"c.reindex.{key.split('.', 3)[3]}.summary.json")))
            summ = f"parsed {s.get('parsed')}, re-resolved {s.get('reresolved')}"
        except (OSError, ValueError):
            pass
        rows.append([f"`{f}`", ms(med_ms(k)), ms(med_ms(c)), ms(med_ms(g)),
                     ratio(med_ms(k), med_ms(c)), ratio(med_ms(k), med_ms(g)), summ])
    table(["file edited", "kbx index", "cscope -b -q -k", "gtags -i", "kbx/cscope", "kbx/gtags",
           "what kbx did"], rows)
    w("Each run appends a comment line to the file and dates it 2 s ahead (`bench/edit-file.sh`, "
      "hyperfine `--prepare`, untimed), then times the update; 1 warmup + 7 runs per file and tool. "
      "The 2 s matter: cscope and gtags compare modification times to the second, and an edit "
      "made in the same second as their last update would go unseen (they then 'update' in ~5 ms "
      "without reading anything).  cscope -b -q -k re-reads its old cross-reference for the "
      "unchanged files and rebuilds the inverted index; gtags -i re-parses the changed file.")
    w("")
    if kmeds:
        kmeds.sort()
        m = kmeds[len(kmeds) // 2] if len(kmeds) % 2 else (kmeds[len(kmeds) // 2 - 1] + kmeds[len(kmeds) // 2]) / 2
        targets.append(("re-index after a one-file edit under 100 ms",
                        f"median over the .c files {ms(m)} (per file: " +
                        ", ".join(ms(x) for x in kmeds) + ")", m < 100))

# ---------------------------------------------------------------------------
if "py.tree.lines" in rec:
    w("## Python: the standard library, kbx vs the seeds' design")
    w("")
    w(f"{kfmt(num('py.tree.files'))} files, {kfmt(num('py.tree.lines'))} lines.  The seeds' design: "
      "a `networkx.DiGraph` built from the SAME call edges as kbx's store "
      "(exported with `bench/kbx-export`, a C program on lib/kbx.h, since kbx has no "
      "export command), pickled with a name index; each query is a python3 process "
      "(`bench/nx_query.py`) that loads the pickle and answers predecessors / successors.")
    w("")
    table(["step", "wall", "peak RSS", "size"], [
        ["`kbx index --rebuild`", ms(num("py.idx.kbx.wall_ms")) + f" (CPU {ms(num('py.idx.kbx.cpu_ms'))})",
         mb(num("py.idx.kbx.rss_kb", 0) * 1024), mb(num("py.idx.kbx.store_bytes"))],
        ["`kbx index` (into a new store)", ms(num("py.idx.kbx_scratch.wall_ms")), mb(num("py.idx.kbx_scratch.rss_kb", 0) * 1024),
         mb(num("py.idx.kbx_scratch.store_bytes"))],
        ["tree-sitter parse + walk alone, 1 thread (`bench/ts-parse`)", ms(num("py.idx.ts_parse.wall_ms")),
         mb(num("py.idx.ts_parse.rss_kb", 0) * 1024), f"CPU {ms(num('py.idx.ts_parse.cpu_ms'))}"],
        ["export the edges (`bench/kbx-export`)", ms(num("py.export.wall_ms")), mb(num("py.export.rss_kb", 0) * 1024),
         f"{kfmt(num('py.export.nodes'))} nodes, {kfmt(num('py.export.edges'))} call edges"],
        ["build + pickle the DiGraph (`nx_build.py`)", ms(num("py.nx_build.wall_ms")), mb(num("py.nx_build.rss_kb", 0) * 1024),
         mb(num("py.nx.pickle_bytes")) + " pickle"],
        ["load the pickle alone (python3 -c, median of 3)", ms(num("py.nx_load.wall_ms")), mb(num("py.nx_load.rss_kb", 0) * 1024), ""],
    ])
    p = phases("py.idx.kbx.summary.json")
    if p:
        w(p)
        w("")
    base = hf("py-baseline") or {}
    rows = [[f"`{l}`", ms(med_ms(r)), meansd(r)] for l, r in base.items()]
    w("Start-up baselines:")
    w("")
    table(["command", "median", "mean ± sd (ms)"], rows)
    rows = []
    for q in ["callers:join", "callers:warn", "callers:deepcopy", "callers:getLogger", "callers:urlparse",
              "callees:Popen._execute_child", "callees:compile_file", "callees:_parse_makefile"]:
        c, n = q.split(":")
        res = hf(f"py-{c}-{n}")
        if not res:
            continue
        k, x = res.get(f"kbx {c} {n}"), res.get(f"networkx {c} {n}")
        rows.append([f"{c} `{n}`", rec.get(f"py.q.{c}.{n}.ndefs", "?"), ms(med_ms(k)), ms(med_ms(x)),
                     ratio(med_ms(k), med_ms(x)),
                     f"{med_ms(x) / med_ms(k):.0f}x" if k and x else "n/a",
                     rec.get(f"py.q.{c}.{n}.agree", "")])
    table(["query", "defs", "kbx", "networkx (load pickle + answer)", "kbx/networkx",
           "networkx is slower by", "results (same edges)"], rows)
    res = hf("py-reindex") or {}
    res2 = hf("py-reindex-edit") or {}
    rows = [[f"`{l}`", ms(med_ms(r)), meansd(r)] for l, r in list(res.items()) + list(res2.items())]
    table(["re-index", "median", "mean ± sd (ms)"], rows)

# ---------------------------------------------------------------------------
if "scale.2m.tree.lines" in rec or "scale.010k.tree.lines" in rec:
    w("## Scaling")
    w("")
    w("Trees of whole files: git's C files (core files first: git-compat-util.h, cache.h, "
      "strbuf, wrapper.c, usage.c, hex.c, builtin/commit.c, then the rest in path order) "
      "until the line target, under `git/`; past git's size, plus postgresql-15's C files "
      "(mcxt.c first) under `postgresql/`.  Real code throughout, nothing duplicated.  "
      "Index: median of 3; queries: hyperfine, warmup 3, 20 runs; re-index: 7 runs.")
    w("")
    rows = []
    for s in ["010k", "100k", "390k", "1m", "2m"]:
        p = f"scale.{s}"
        if p + ".tree.lines" not in rec:
            continue
        q = hf(f"scale-{s}-query") or {}
        ri = hf(f"scale-{s}-reindex") or {}
        re_ = hf(f"scale-{s}-reindex-edit") or {}
        kx = med_ms(q.get("kbx callers xstrdup"))
        cx = med_ms(q.get("cscope -d -L3 xstrdup"))
        kd = med_ms(q.get("kbx callers die"))
        cd = med_ms(q.get("cscope -d -L3 die"))
        rows.append([
            kfmt(num(p + ".tree.lines")), kfmt(num(p + ".tree.files")),
            f"{ms(num(p + '.kbx.wall_ms'))} ({ms(num(p + '.kbx.cpu_ms'))})",
            f"{ms(num(p + '.cscope_qk.wall_ms'))} ({ms(num(p + '.cscope_qk.cpu_ms'))})",
            ratio(num(p + ".kbx.wall_ms"), num(p + ".cscope_qk.wall_ms")),
            mb(num(p + ".kbx.rss_kb", 0) * 1024),
            mb(num(p + ".kbx.store_bytes")), mb(num(p + ".cscope_qk.store_bytes")),
            f"{ms(kx)} / {ms(cx)}", f"{ms(kd)} / {ms(cd)}",
            ms(med_ms(q.get("kbx callees cmd_commit"))),
            f"{ms(med_ms(q.get('kbx callers palloc')))} / {ms(med_ms(q.get('cscope -d -L3 palloc')))}" if "kbx callers palloc" in q else "",
            ms(med_ms(next(iter(ri.values()), None))),
            ms(med_ms(next(iter(re_.values()), None))),
        ])
    table(["lines", "files", "kbx index (CPU)", "cscope -b -q -k (CPU)", "kbx/cscope (wall)", "kbx RSS", "kbx store",
           "cscope store", "callers xstrdup kbx / cscope", "callers die kbx / cscope",
           "kbx callees cmd_commit", "callers palloc kbx / cscope", "kbx index (no change)",
           "kbx index (1 file edited)"], rows)
    rows = []
    for s in ["010k", "100k", "390k", "1m", "2m"]:
        p = f"scale.{s}"
        if p + ".tree.lines" not in rec:
            continue
        lines = num(p + ".tree.lines")
        kw = num(p + ".kbx.wall_ms")
        sb = num(p + ".kbx.store_bytes")
        kc = num(p + ".kbx.cpu_ms")
        rows.append([kfmt(lines), f"{lines / kw:,.0f}" if kw else "n/a",
                     f"{kc * 1000 / lines:.1f}" if kc else "n/a",
                     f"{sb / lines:.0f}" if sb else "n/a",
                     f"{num(p + '.cscope_qk.store_bytes') / lines:.0f}" if num(p + '.cscope_qk.store_bytes') else "n/a"])
    for s in ["010k", "100k", "390k", "1m", "2m"]:
        p = phases(f"scale.{s}.kbx.summary.json")
        if p:
            w(f"- {s}: {p}")
    w("")
    table(["lines", "kbx lines indexed per ms (wall)", "kbx CPU µs per line", "kbx store bytes per line",
           "cscope -q store bytes per line"], rows)

# ---------------------------------------------------------------------------
if "analytics.nx.nodes" in rec:
    w("## Analytics: impact, path and cycles (git tree)")
    w("")
    w(f"The git tree of the C section ({kfmt(num('analytics.tree.lines') or num('c.tree.lines'))} lines).  "
      f"Peer: the same call edges exported from kbx's store (`bench/kbx-export`) into a pickled "
      f"`networkx.DiGraph` ({kfmt(num('analytics.nx.nodes'))} nodes, {kfmt(num('analytics.nx.edges'))} edges, "
      f"{mb(num('analytics.nx.pickle_bytes'))}), loaded by a python3 process per query "
      "(`bench/nx_query.py`: `impact` = transitive predecessors, breadth first; `path` = `nx.shortest_path`).  "
      "cscope has no transitive query: `cscope -d -L3` (direct callers only) is shown as a reference.  "
      "hyperfine, warmup 5; whole-process wall time, median.")
    w("")
    def cpu(r):
        """hyperfine's mean user + system time, for a machine that was busy"""
        return f" (CPU {ms((r['user'] + r['system']) * 1000)})" if r else ""

    rows = []
    for key in sorted(k for k in rec if k.startswith("analytics.impact.") and k.endswith(".agree")):
        n = key[len("analytics.impact."):-len(".agree")]
        r = hf(f"analytics-impact-{n}") or {}
        k = med_ms(r.get(f"kbx impact {n}"))
        x = med_ms(r.get(f"networkx impact {n}"))
        c = med_ms(r.get(f"cscope -d -L3 {n} (one hop)"))
        rows.append([f"impact {n}", ms(k) + cpu(r.get(f"kbx impact {n}")),
                     ms(x) + cpu(r.get(f"networkx impact {n}")), ratio(k, x), ms(c), rec[key]])
        if k is not None:
            targets.append((f"`kbx impact {n}` under 20 ms", ms(k), k < 20))
    for key in sorted(k for k in rec if k.startswith("analytics.path.") and k.endswith(".agree")):
        a, b = key[len("analytics.path."):-len(".agree")].split(".", 1)
        r = hf(f"analytics-path-{a}-{b}") or {}
        k = med_ms(r.get(f"kbx path {a} {b}"))
        ka = med_ms(r.get(f"kbx path --all {a} {b}"))
        x = med_ms(r.get(f"networkx path {a} {b}"))
        rows.append([f"path {a} {b}", f"{ms(k)}{cpu(r.get(f'kbx path {a} {b}'))}; --all {ms(ka)}",
                     ms(x) + cpu(r.get(f"networkx path {a} {b}")), ratio(k, x), "",
                     "steps: " + rec[key]])
    r = hf("analytics-cycles") or {}
    if r:
        rows.append(["cycles (whole graph)",
                     f"{ms(med_ms(r.get('kbx cycles')))}{cpu(r.get('kbx cycles'))}; --certain {ms(med_ms(r.get('kbx cycles --certain')))}",
                     "", "", "", f"{rec.get('analytics.cycles.count', '?')} cycles, "
                                 f"{rec.get('analytics.cycles.certain', '?')} certain"])
    table(["query", "kbx", "networkx", "kbx/networkx", "cscope -d -L3 (one hop)", "results"], rows)

# ---------------------------------------------------------------------------
ACC_LANGS = [("go", "Go", "go/types (golang-go)"), ("java", "Java", "javac 17, com.sun.source Trees API"),
             ("ts", "TypeScript", "the TypeScript checker"), ("cpp", "C++", "clang 14 (libclang)"),
             ("c", "C", "clang 14 (libclang), C"),
             ("rs", "Rust", "rustc 1.63 -Zsave-analysis"),
             ("py", "Python", "ast, binding rules only"),
             ("lua", "Lua", "Lua 5.4's call hook over the project's tests (dynamic: executed calls only)"),
             ("php", "PHP", "PHP 8.2 and Xdebug's traces over the project's tests (dynamic: executed calls only)"),
             ("elixir", "Elixir", "Elixir 1.14's compiler, a compiler tracer"),
             ("ocaml", "OCaml", "ocamlc 4.13 -bin-annot, typed trees read with compiler-libs"),
             ("haskell", "Haskell", "ghc 9.0 -fwrite-ide-info, .hie files read with the ghc library"),
             ("objc", "Objective-C", "clang 14 (libclang), -x objective-c with GNUstep's headers"),
             ("bash", "Bash", "Bash 5.2's DEBUG trap over the project's tests (dynamic: executed commands only)"),
             ("scala", "Scala", "scalac 2.11's typer, through scala.tools.nsc.Global"),
             ("kotlin", "Kotlin", "kotlinc 1.3's front end, its BindingContext"),
             ("zig", "Zig", "zig 0.11's unoptimised LLVM IR (calls and their debug locations)")]
if any(f"accuracy.{l}.project" in rec for l, _, _ in ACC_LANGS):
    w("## Call resolution against the compilers (bench/accuracy/)")
    w("")
    w("Each language's compiler front end binds the calls of a real project; `bench/accuracy/score.py` "
      "joins its call sites with kbx's call edges (`kbx-export --sites`) by file, line and called name, "
      "then by the declaration's file and line.  **in**: calls bound to one declaration of the project "
      "that nothing in the project overrides; **virt**: bound to a method of the project that is abstract, "
      "an interface's or overridden in the project (left out of every ratio); **ext**: bound outside the "
      "project (standard library, builtins, the `error` interface, `java.util.Map`); **dyn**: calls of "
      "variables (left out).  **recall**: of the *in* calls, the share where kbx has an edge of any "
      "confidence to the declaration; **certain precision**: of kbx's certain edges at *in* or *ext* calls, "
      "the share that point to the compiler's declaration (a certain edge at an *ext* call is wrong); "
      "**certain wrong, dup names**: of the *in* and *ext* calls whose name the project defines twice or "
      "more, the share kbx answers certain and wrong; **ambiguous**, **unresolved**, **no edge**: how kbx "
      "answered the *in* calls.  Overloads share one kbx node (one canonical id), so that node stands for "
      "each of them; a call from one overload to another, or a recursive call, would be an edge from that "
      "node to itself, which kbx's walk (and so `kbx callers`) never lists: such misses are counted apart.  Every miss and wrong edge, with its source line: "
      "`bench/work/results/out/accuracy-LANG.errors.tsv`.")
    w("")
    rows = []
    pct = lambda k: "n/a" if num(k) is None else f"{100 * num(k):.1f}%"
    rat = lambda k: "n/a" if num(k) is None else f"{num(k):.3f}"
    for l, name, oracle in ACC_LANGS:
        p = f"accuracy.{l}."
        if p + "project" not in rec:
            continue
        if p + "recall" not in rec:
            rows.append([name, rec[p + "project"], rec.get(p + "version", ""), "", "", oracle,
                         "failed: see the warnings", "", "", "", "", "", "", "", ""])
            continue
        rows.append([name, rec[p + "project"], rec.get(p + "version", ""), kfmt(num(p + "files")),
                     kfmt(num(p + "lines")), oracle,
                     " / ".join(kfmt(num(p + f"sites.{k}")) for k in ("in", "virt", "ext", "dyn")),
                     rat(p + "recall"), rat(p + "certain_precision") + f" ({kfmt(num(p + 'certain_edges'))})",
                     pct(p + "dup_certain_wrong") + f" of {kfmt(num(p + 'dup_sites'))}",
                     pct(p + "in.ambiguous"), pct(p + "in.unresolved"), pct(p + "in.none"),
                     kfmt(num(p + "missed_self")),
                     f"{num(p + 'oracle_s', 0):.1f} s / {ms(num(p + 'kbx_index_ms'))}"])
    table(["language", "project", "version", "files", "lines", "oracle", "calls in / virt / ext / dyn",
           "recall", "certain precision (edges)", "certain wrong, dup names", "ambiguous", "unresolved",
           "no edge", "misses inside the callee's own node", "oracle / kbx index"], rows)
    mrows = []
    for l, name, _ in ACC_LANGS:
        p = f"accuracy.{l}."
        if p + "sites.in_macro" in rec:
            mrows.append([name, f"{kfmt(num(p + 'sites.in_macro'))} / {kfmt(num(p + 'sites.ext_macro'))}",
                          rat(p + "recall_macros"), rat(p + "certain_precision_macros"),
                          pct(p + "dup_certain_wrong_macros"), pct(p + "in_macro.certain_right"),
                          pct(p + "in_macro.ambiguous"), pct(p + "in_macro.none")])
    if mrows:
        w("Calls made by a macro of the project (C, `oracle-cpp.py --macros`), left out of the table "
          "above, are scored through the macro: kbx must have a call of the macro where it is used and "
          "a chain of calls from the macro, through macros only, to the declaration (score.py's header). "
          "The ratios below count every call, written or made by a macro.")
        w("")
        table(["language", "calls made by a macro, in / ext", "recall, all calls",
               "certain precision, all calls", "certain wrong, dup names, all calls",
               "macro calls certain and right", "macro calls ambiguous", "macro calls missed"], mrows)
    w("Goal (the resolver's next step): recall at least 0.95, certain precision at least 0.98, "
      "certain wrong on names defined twice or more at most 0.5%, in every language.  "
      f"Section run time: {rec.get('accuracy.runtime_s', '?')} s ({rec.get('meta.date', '')}; "
      f"kbx `{rec.get('meta.kbx', '')}`).  Oracles: "
      + "; ".join(rec[f"meta.{m}"] for m in ("go", "javac", "node", "libclang", "rustc", "lua", "php", "elixir", "ocaml", "ghc", "bash") if f"meta.{m}" in rec)
      + (f"; typescript {rec['accuracy.manifest.typescript']}" if "accuracy.manifest.typescript" in rec else "")
      + ".")
    w("")

# ---------------------------------------------------------------------------
if any(f"accuracy.{l}.dead.default.reported" in rec for l, _, _ in ACC_LANGS):
    w("## kbx dead against the compilers (bench/accuracy/dead.sh)")
    w("")
    w("On each project of the accuracy section, `kbx dead` runs as a library's user runs it "
      "(the default: exported functions left out) and as an application's (`--include-exported`), "
      "and `bench/accuracy/dead.py` checks every function it reports.  **used**: the oracle binds a "
      "call to it (from elsewhere than the function itself, or an overload, which shares its node); "
      "**referenced**: else its name is written outside comments somewhere in the tree's files of "
      "its language other than in its own lines, a definition or declaration of that name, or a call "
      "the oracle binds elsewhere; or it is a method named like one the oracle binds a call to "
      "through a base (`virt`), a name a string builds at run time (`f\"visit_{kind}\"`), or a "
      "JavaScript or TypeScript function expression: to be looked at by hand; **dead**: neither, "
      "confirmed dead.  **precision**: dead / reported; **lenient**: (dead + referenced) / reported.  "
      "Each verdict: `bench/work/results/out/accuracy-LANG.dead.tsv`.")
    w("")
    rows = []
    for l, name, oracle in ACC_LANGS:
        p = f"accuracy.{l}.dead."
        if p + "default.reported" not in rec:
            continue
        row = [name, rec.get(f"accuracy.{l}.project", "")]
        for mode in ("default", "exported"):
            q = p + mode + "."
            row.append(" / ".join(kfmt(num(q + k)) for k in ("reported", "used", "referenced", "dead")))
            row.append("n/a" if num(q + "precision") is None else
                       f"{num(q + 'precision'):.3f} ({num(q + 'precision_lenient'):.3f})")
        rows.append(row)
    table(["language", "project", "default: reported / used / referenced / dead", "precision (lenient)",
           "--include-exported: reported / used / referenced / dead", "precision (lenient)"], rows)
    w("Goal: precision at least 0.95 on every project.")
    w("")

# ---------------------------------------------------------------------------
if targets:
    w("## Targets (reported, not asserted)")
    w("")
    table(["target", "measured", "met?"],
          [[t, m, "yes" if ok else "no"] for t, m, ok in targets])

loads = [(k[5:], v) for k, v in rec.items() if k.startswith("load.")]
if loads:
    w("## Load on the machine before each group of measurements")
    w("")
    w("The machine may be shared (2 cores): before each group the run waits up to "
      f"BENCH_QUIET_WAIT ({rec.get('meta.quiet_wait', '15')}) s for the CPUs to be under 10% busy, and measures anyway after that. "
      "Where a group started busy, trust the CPU-time columns more than the wall times.")
    w("")
    table(["group", "load average, wait"], loads)

w("## Commands")
w("")
w("Run in the root of the tree measured (`bench/work/trees/NAME`); `$KBX` is "
  f"`{rec.get('meta.kbx_path', './kbx')}`.  `PREP` runs before each timed run, untimed.")
w("")
w("```")
kbxp = rec.get("meta.kbx_path", "")
bench = os.path.dirname(os.path.abspath(OUT))
trees = os.path.join(bench, "work", "trees")
for k, v in cmds.items():
    if kbxp:
        v = v.replace(kbxp, "$KBX")
    v = v.replace(trees + "/", "bench/work/trees/").replace(bench + "/", "bench/")
    w(f"{k}: {v}")
w("```")
w("")
wf = os.path.join(RES, "warnings.txt")
if os.path.exists(wf) and os.path.getsize(wf):
    w("## Warnings during the run")
    w("")
    w("```")
    w(open(wf).read().rstrip())
    w("```")
    w("")

# bench/hybrid.sh's, bench/search/report.py's and bench/mcp.sh's tables, one heading
# level down
for frag in ("hybrid.md", "search.md", "mcp.md", "serve.md", "context.md", "languages.md", "org.md"):
    sp = os.path.join(RES, frag)
    if os.path.exists(sp):
        for line in open(sp, encoding="utf-8").read().rstrip().split("\n"):
            out.append("#" + line if line.startswith("#") else line)
        out.append("")

open(OUT, "w").write("\n".join(out))
print(f"report: {OUT}")
