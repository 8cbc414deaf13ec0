#!/usr/bin/python3
"""bench/accuracy/dead.py: check each function `kbx dead` reports against
the compiler oracle's calls and a search of the tree.

    dead.py --lang L --tree DIR --oracle ORACLE.tsv --all ALL.json
            [--out VERDICTS.tsv] MODE=DEAD.json...

DEAD.json is `kbx dead --format=json` of the tree (one `dead` record a
line), one file per MODE (`default`, `exported` for --include-exported);
ALL.json is `kbx dead --explain --include-exported --format=json`, every
function of the index, for where each is defined.  ORACLE.tsv is the
oracle's call sites (score.py's header says the format).

Each reported function gets one verdict:

  used        the oracle has a call (in or virt) bound to it: a call site
              whose target place is in the function's file, on a line of
              the function, and whose called name is the function's name
  referenced  else its name is written, as a whole word outside comments,
              somewhere in the tree's source files of its language other
              than inside its own lines, on the first line of a definition
              of the same name, where it is declared (`void name(` in a
              header) and on a line where the oracle binds a call of that
              name (to another declaration, or from the function itself):
              a value, a callback, a string in a table, a reflective call,
              code the oracle does not compile; or a method named like one
              the oracle binds a call to through its base (`virt`), which
              it may override; or a name a string may build at run time
              (f"visit_{kind}", "visit_%s" % kind, "on" + name); or a
              JavaScript or TypeScript function expression (`return
              function f() {}`), a value.  To be looked at by hand
  dead        neither: confirmed dead

Printed, as KEY<TAB>VALUE lines (keys start with L.dead.MODE.):

  reported, used, referenced, dead    counts
  precision          dead / reported (referenced counted as wrong)
  precision_lenient  (dead + referenced) / reported (referenced counted
                     as right)

With --out, one line a reported function: mode, verdict, path, line,
qualified name, kind, and for `used` the oracle's first calling site, for
`referenced` the first place that names it.
"""
import argparse
import json
import os
import re
import sys
from collections import defaultdict

EXTS = {
    "go": (".go",),
    "java": (".java",),
    "python": (".py",),
    "typescript": (".ts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"),
    "javascript": (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"),
    "c": (".c", ".h"),
    "cpp": (".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".c"),
    "rust": (".rs",),
    "lua": (".lua",),
    "php": (".php",),
    "elixir": (".ex", ".exs"),
    "haskell": (".hs",),
}
LUA_LONG = re.compile(r"\[(=*)\[")
# Haskell: -- starts a comment unless part of an operator (-->, |--)
HS_SYMBOL = set("!#$%&*+./<=>?@\\^|-~:")
HS_LINE_COMMENT = re.compile(r"--+(?![!#$%&*+./<=>?@\\^|~:])")
WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def strip_comments(text, lang):
    """text with comments blanked, new lines kept (strings stay: a name in
    a string counts)"""
    out = []
    i, n = 0, len(text)
    hash_comments = lang in ("python", "elixir")
    lua = lang == "lua"
    haskell = lang == "haskell"
    quote = None
    while i < n:
        ch = text[i]
        if haskell and not quote:
            if HS_LINE_COMMENT.match(text, i) and (i == 0 or text[i - 1] not in HS_SYMBOL):
                while i < n and text[i] != "\n":
                    i += 1
                continue
            if text.startswith("{-", i):
                j = text.find("-}", i + 2)
                j = n if j < 0 else j + 2
                out.append("".join(c if c == "\n" else " " for c in text[i:j]))
                i = j
                continue
            if ch == "'" and i + 2 < n and text[i + 2] == "'":
                # a character ('"', 'x'); else a prime of a name (go')
                out.append(text[i:i + 3])
                i += 3
                continue
            if ch == "'":
                out.append(ch)
                i += 1
                continue
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == quote or (ch == "\n" and quote != "`"):
                quote = None
            i += 1
            continue
        if hash_comments and text.startswith(('"""', "'''"), i):
            # a triple-quoted string, kept (a name in it may be a use)
            j = text.find(text[i:i + 3], i + 3)
            j = n if j < 0 else j + 3
            out.append(text[i:j])
            i = j
            continue
        if ch in "\"`" or (ch == "'" and lang != "rust"):
            quote = ch
            out.append(ch)
            i += 1
            continue
        if hash_comments and ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if lua and text.startswith("--", i):
            # a Lua comment: --[[ ... ]] (or --[==[ ... ]==]) or to the line's end
            m = LUA_LONG.match(text, i + 2)
            if m:
                close = "]" + m.group(1) + "]"
                j = text.find(close, m.end())
                j = n if j < 0 else j + len(close)
                out.append("".join(c if c == "\n" else " " for c in text[i:j]))
                i = j
                continue
            while i < n and text[i] != "\n":
                i += 1
            continue
        if lua:
            out.append(ch)
            i += 1
            continue
        if not hash_comments and text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if not hash_comments and text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(c if c == "\n" else " " for c in text[i:j]))
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


# what may stand before a declared name (a type, a modifier) but never
# before a called one
NOT_TYPES = {"return", "new", "throw", "else", "case", "await", "yield", "typeof", "delete",
             "in", "of", "instanceof", "not", "and", "or", "is", "if", "while", "go",
             "defer", "do", "sizeof", "assert", "raise", "lambda", "print", "from", "import",
             "await", "async", "export", "default", "as", "let", "const", "var", "mut"}


def declares(text, start, end, lang):
    """is the name at text[start:end] declared there (a definition or a
    prototype of a function of that name, not a use)?"""
    if lang == "haskell":
        # name :: T, a, name :: T, and an equation name x y = ... (at the
        # start of its line)
        if text[:start].strip(" \t") not in ("", "("):
            return False
        after = text[end:].lstrip(" \t)")
        if after.startswith(("::", ",")):
            return True
        return bool(re.match(r"[^=<]*(?<![=<>/])=(?![=>])", after))
    if lang == "elixir":
        # def name(, defp name do, defmacro name, ... (a head may have no parentheses)
        return bool(re.search(r"(?:^|[\s(])(?:defp?|defmacrop?|defguardp?|defdelegate)\s+$", text[:start]))
    after = text[end:].lstrip()
    if not after.startswith(("(", "<")):
        return False
    before = text[:start].rstrip()
    # C++'s Class::name( and Go's func (r *T) name(
    while before.endswith("::"):
        before = re.sub(r"[A-Za-z0-9_$<>,\s]*::$", "", before).rstrip()
    if lang == "go":
        return bool(re.match(r"\s*func\s*(\([^)]*\)\s*)?$", text[:start]))
    m = re.search(r"([A-Za-z0-9_$]+)$", before)
    if m:
        w = m.group(1)
        if w in ("def", "fn", "function", "func"):
            return True
        if lang in ("python", "rust"):
            return False
        if w not in NOT_TYPES:
            return True  # a type or a modifier: `static int name(`, `void name(`
    if lang in ("python", "rust"):
        return False
    if before.endswith(("*", "&", ">", "]", "~")) and not before.endswith(("->", "=>")):
        return True  # `char *name(`, `List<T> name(`, `int[] name(`
    # a TypeScript or JavaScript method: `name(...) {` or `name(...): T {`
    if lang in ("typescript", "javascript") and not before.strip(" \t"):
        return text.rstrip().endswith(("{", "(", ",")) or "):" in text
    return False


def place(text):
    """(path, line) of path:line; line 0 when there is none"""
    p, _, ln = text.rpartition(":")
    return (p, int(ln)) if ln.isdigit() else (text, 0)


def read_json(path):
    recs = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.strip()
            if line:
                recs.append(json.loads(line))
    return recs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lang", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--all", required=True)
    ap.add_argument("--out")
    ap.add_argument("modes", nargs="+")
    a = ap.parse_args()

    # the oracle's calls, by the place of their target
    called = defaultdict(list)  # (path, name) -> [(target line, site, caller places)]
    sites = defaultdict(set)    # (path, line) -> names the oracle binds calls of there
    virt = {}                   # name -> a site of a call the oracle binds to a base
    with open(a.oracle, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            r = line.rstrip("\n").split("\t")
            if len(r) < 8:
                continue
            sites[(r[0], int(r[1]))].add(r[5])
            sites[(r[0], int(r[3]))].add(r[5])
            if r[6] not in ("in", "virt") or r[7] == "-":
                continue
            if r[6] == "virt":
                virt.setdefault(r[5], f"{r[0]}:{r[1]}")
            callers = {(r[0], int(r[1]))}
            if len(r) > 9 and r[9] != "-":
                callers |= {place(c) for c in r[9].split(",")}
            for t in r[7].split(","):
                p, ln = place(t)
                if ln:
                    called[(p, r[5])].append((ln, f"{r[0]}:{r[1]}", callers))

    # where each name is defined, per language: those lines are not uses
    defs = defaultdict(set)  # (lang, name) -> {(path, line)}
    for d in read_json(a.all):
        defs[(d["lang"], d["name"])].add((d["path"], d["line"]))

    modes = []
    for m in a.modes:
        mode, _, path = m.partition("=")
        modes.append((mode, read_json(path)))

    # the tree's source files, comments blanked, as lines
    langs = {r["lang"] for _, recs in modes for r in recs}
    exts = tuple(sorted({e for l in langs for e in EXTS.get(l, ())}))
    lines = {}  # path -> [text of each line]
    for top, dirs, files in os.walk(a.tree):
        dirs[:] = sorted(d for d in dirs if d != ".kbx" and not d.startswith(".git"))
        for fn in sorted(files):
            if not fn.endswith(exts):
                continue
            full = os.path.join(top, fn)
            rel = os.path.relpath(full, a.tree)
            try:
                with open(full, encoding="utf-8", errors="surrogateescape") as f:
                    text = f.read()
            except OSError:
                continue
            lang = ("python" if fn.endswith(".py") else "rust" if fn.endswith(".rs") else
                    "lua" if fn.endswith(".lua") else
                    "elixir" if fn.endswith((".ex", ".exs")) else
                    "haskell" if fn.endswith(".hs") else "c")
            lines[rel] = strip_comments(text, lang).split("\n")

    # the starts of names built at run time: f"visit_{...}", `on${...}`,
    # "visit_%s" % x, "visit_" + x, Lua's "get_" .. x
    built = defaultdict(dict)  # extension group -> {prefix: place}
    pat = re.compile(r"""(?:[fF]["']([A-Za-z_][A-Za-z0-9_]{2,})\{"""
                     r"""|`([A-Za-z_][A-Za-z0-9_]{2,})\$\{"""
                     r"""|["']([A-Za-z_][A-Za-z0-9_]{2,})%[s(]"""
                     r"""|["']([A-Za-z_][A-Za-z0-9_]{2,})["']\s*(?:\+|\.\.))""")
    for path in sorted(lines):
        for i, text in enumerate(lines[path]):
            for m in pat.finditer(text):
                pre = next(g for g in m.groups() if g)
                built[os.path.splitext(path)[1]].setdefault(pre, f"{path}:{i + 1}")

    def built_from(r):
        for e in EXTS.get(r["lang"], ()):
            for pre, where in built.get(e, {}).items():
                if r["name"].startswith(pre) and r["name"] != pre:
                    return where
        return None

    def named_elsewhere(r):
        own = defs.get((r["lang"], r["name"]), set())
        ext = EXTS.get(r["lang"], ())
        wc = "A-Za-z0-9_'" if r["lang"] == "haskell" else "A-Za-z0-9_$"   # go' is a name
        word = re.compile(f"(?<![{wc}])" + re.escape(r["name"]) + f"(?![{wc}])")
        for path in sorted(lines):
            if not path.endswith(ext):
                continue
            for i, text in enumerate(lines[path]):
                ln = i + 1
                if path == r["path"] and r["line"] <= ln <= r["end_line"]:
                    continue
                # a definition, or a call the oracle binds (elsewhere, or
                # from the function itself: else it would be used)
                if (path, ln) in own or r["name"] in sites.get((path, ln), ()):
                    continue
                for m in word.finditer(text):
                    if not declares(text, m.start(), m.end(), r["lang"]):
                        return f"{path}:{ln}"
        return None

    def function_value(r):
        """a JavaScript or TypeScript function expression (`return function
        f() {}`, `g(function f() {})`): a value, its name seen only in it"""
        if r["lang"] not in ("typescript", "javascript"):
            return None
        text = lines.get(r["path"], [])
        if r["line"] > len(text):
            return None
        cur = text[r["line"] - 1]
        m = re.search(r"\bfunction\s*\*?\s*" + re.escape(r["name"]) + r"\b", cur)
        if not m:
            return None
        before = cur[:m.start()].strip()
        k = r["line"] - 2
        while not before and k >= 0:
            before = text[k].strip()
            k -= 1
        before = re.sub(r"\b(export|default|async|declare)\s*$", "", before).strip()
        if not before or before.endswith((";", "}", "{")):
            return None
        return f"{r['path']}:{r['line']}"

    out = open(a.out, "w", encoding="utf-8") if a.out else None
    if out:
        out.write("mode\tverdict\tpath\tline\tqual\tkind\tevidence\n")
    for mode, recs in modes:
        n = defaultdict(int)
        for r in recs:
            # a call from the function itself (or from an overload, which
            # shares its node) does not count: kbx dead says so
            inside = lambda c: c[0] == r["path"] and r["line"] <= c[1] <= r["end_line"]
            site = next((s for ln, s, callers in called.get((r["path"], r["name"]), ())
                         if r["line"] <= ln <= r["end_line"] and not any(map(inside, callers))),
                        None)
            if site:
                verdict, ev = "used", site
            elif r["kind"] == "method" and r["name"] in virt:
                # a call through a base the project's methods override:
                # the oracle names the base's declaration, not which
                # override runs
                verdict, ev = "referenced", virt[r["name"]]
            else:
                ev = named_elsewhere(r) or built_from(r) or function_value(r)
                verdict = "referenced" if ev else "dead"
                ev = ev or "-"
            n[verdict] += 1
            if out:
                out.write(f"{mode}\t{verdict}\t{r['path']}\t{r['line']}\t{r['qual']}\t{r['kind']}\t{ev}\n")
        tot = len(recs)
        p = f"{a.lang}.dead.{mode}."
        print(f"{p}reported\t{tot}")
        for v in ("used", "referenced", "dead"):
            print(f"{p}{v}\t{n[v]}")
        if tot:
            print(f"{p}precision\t{n['dead'] / tot:.4f}")
            print(f"{p}precision_lenient\t{(n['dead'] + n['referenced']) / tot:.4f}")
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
