#!/usr/bin/python3
"""bench/accuracy/oracle-rust.py: rustc (Debian's rustc 1.63, whose
-Zsave-analysis still exists) as the oracle of the accuracy bench.

    oracle-rust.py ROOT CRATE-NAME EDITION [FEATURE...] > oracle.tsv

Compiles ROOT/src/lib.rs as a test crate (so #[cfg(test)] code is in;
no code generated) with the features given, RUSTC_BOOTSTRAP=1 and
-Zsave-analysis, and turns the references of kind Function that are
called (the name followed by `(` or `::<`) into the format
bench/accuracy/score.py reads:

  a function or method of the crate, not a trait's declaration   in
  a method declared by a trait of the crate (the impl is chosen by
    the receiver's type, which save-analysis does not record), or
    a method of a trait from outside whose name some impl in the
    crate defines (it may dispatch into the crate)             virt
  a function or method from outside the crate                    ext

save-analysis gives the called name's place; where the call starts
(the receiver of a method chain, `a::b::f`'s first segment) is found
by reading back from the name over the receiver's tokens.  A method's
place is the line of its name; kbx keeps methods of one type and one
name as one node (`impl Display` and `impl Debug` both define fmt), so
the first of them in the file stands for each.
"""
import json
import os
import re
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 4:
        sys.exit("usage: oracle-rust.py ROOT CRATE-NAME EDITION [FEATURE...]")
    root, crate, edition = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    cfgs = []
    for f in sys.argv[4:]:
        cfgs += ["--cfg", f'feature="{f}"']
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, RUSTC_BOOTSTRAP="1")
        r = subprocess.run([os.environ.get("RUSTC", "/usr/bin/rustc"), "--edition", edition, "--crate-name", crate,
                            "--test", *cfgs, "src/lib.rs", "-Zsave-analysis", "-Zno-codegen", "--out-dir", out],
                           cwd=root, env=env, stderr=subprocess.PIPE, text=True)
        if r.returncode:
            sys.exit(f"oracle-rust: rustc failed:\n{r.stderr[-3000:]}")
        data = json.load(open(os.path.join(out, "save-analysis", crate + ".json")))

    crates = {c["num"]: c["id"]["name"] for c in (data.get("prelude") or {}).get("external_crates", [])}
    defs = {}
    for d in data["defs"]:
        if d["id"]["krate"] == 0:
            defs[d["id"]["index"]] = d
    traits = {i for i, d in defs.items() if d["kind"] == "Trait"}
    # names of the crate's methods that implement some trait
    impl_names = {d["name"] for d in defs.values() if d["kind"] == "Method" and " as " in d["qualname"]}
    # kbx's node for Type.name: the first such method of the file
    first = {}
    for d in defs.values():
        if d["kind"] not in ("Method", "Function"):
            continue
        key = (d["span"]["file_name"], self_type(d["qualname"]), d["name"])
        if key not in first or d["span"]["line_start"] < first[key]:
            first[key] = d["span"]["line_start"]

    texts = {}

    def text(f):
        if f not in texts:
            try:
                texts[f] = open(os.path.join(root, f), "rb").read()
            except OSError:
                texts[f] = b""
        return texts[f]

    out = []
    seen = set()
    for ref in data["refs"]:
        if ref["kind"] != "Function":
            continue
        sp = ref["span"]
        f = sp["file_name"]
        if os.path.isabs(f) or f.startswith(".."):
            continue
        t = text(f)
        # save-analysis's byte offsets are not the file's (past its first
        # file); its lines and character columns are
        b0 = offset(t, sp["line_start"], sp["column_start"])
        b1 = offset(t, sp["line_end"], sp["column_end"])
        if b0 is None or b1 is None:
            continue
        name = t[b0:b1].decode("utf-8", "replace")
        rest = t[b1:b1 + 200].lstrip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not (rest.startswith(b"(") or rest.startswith(b"::<")):
            continue   # a function used as a value, or text a macro made
        key = (f, b0)
        if key in seen:
            continue
        seen.add(key)
        sl, sc = line_col(t, call_start(t, b0))
        nl, nc = line_col(t, b0)
        site = f"{f}\t{sl}\t{sc}\t{nl}\t{nc}\t{name}"
        rid = ref["ref_id"]
        if rid["krate"] != 0:
            kind = "virt" if name in impl_names else "ext"
            out.append(f"{site}\t{kind}\t-\t{crates.get(rid['krate'], rid['krate'])}::...::{name}")
            continue
        d = defs.get(rid["index"])
        if d is None or d["kind"] not in ("Method", "Function"):
            continue
        df = d["span"]["file_name"]
        places = [f"{df}:{d['span']['line_start']}"]
        fl = first.get((df, self_type(d["qualname"]), d["name"]))
        if fl and f"{df}:{fl}" not in places:
            places.append(f"{df}:{fl}")
        parent = d.get("parent")
        is_decl = parent is not None and parent["krate"] == 0 and parent["index"] in traits \
            and not d["qualname"].startswith("<")
        out.append(f"{site}\t{'virt' if is_decl else 'in'}\t{','.join(places)}\t{d['qualname']}")
    out.sort(key=lambda l: (l.split("\t")[0], int(l.split("\t")[1]), int(l.split("\t")[2]), int(l.split("\t")[4])))
    sys.stdout.write("".join(l + "\n" for l in out))


def self_type(qualname):
    """`<Foo<T> as Bar>::f` and `<Foo>::f`: Foo; `::a::f`: """
    m = re.match(r"<\s*(?:&(?:mut\s+)?)?([A-Za-z0-9_:]+)", qualname)
    return m.group(1).split("::")[-1] if m else ""


IDENT = re.compile(rb"[A-Za-z0-9_]")


def call_start(t, pos):
    """where the call whose name starts at pos starts: back over `.`, `::`,
    `?`, identifiers, balanced (), [] and <>, and the white space around
    a `.` (a method chain over several lines)"""
    i = pos
    while True:
        j = i - 1
        while j >= 0 and t[j:j + 1] in b" \t\r\n":
            j -= 1
        if j >= 1 and t[j - 1:j + 1] == b"::":
            j -= 2
        elif j >= 0 and t[j:j + 1] in b".?":
            j -= 1
            while j >= 0 and t[j:j + 1] in b" \t\r\n?":
                j -= 1
        else:
            return i
        # one primary before the separator: a group or an identifier path
        k = j
        while k >= 0 and t[k:k + 1] in b")]>":
            k = skip_group(t, k)
            while k >= 0 and t[k:k + 1] in b" \t":
                k -= 1
        while k >= 0 and IDENT.match(t[k:k + 1]):
            k -= 1
        if k + 1 > j:
            return i
        i = k + 1


def skip_group(t, k):
    close = t[k:k + 1]
    open_ = {b")": b"(", b"]": b"[", b">": b"<"}[close]
    depth = 0
    while k >= 0:
        c = t[k:k + 1]
        if c == close:
            depth += 1
        elif c == open_:
            depth -= 1
            if depth == 0:
                return k - 1
        k -= 1
    return k


def offset(t, line, col):
    """the byte offset of a line and a character column (1-based)"""
    start = 0
    for _ in range(line - 1):
        start = t.find(b"\n", start) + 1
        if start == 0:
            return None
    end = t.find(b"\n", start)
    chars = t[start:end if end >= 0 else len(t)].decode("utf-8", "replace")
    return start + len(chars[:col - 1].encode("utf-8"))


def line_col(t, pos):
    line = t.count(b"\n", 0, pos) + 1
    col = pos - (t.rfind(b"\n", 0, pos) + 1) + 1
    return line, col


if __name__ == "__main__":
    main()
