#!/usr/bin/python3
"""bench/accuracy/oracle-bash.py: Bash's own runtime as the call oracle.

    oracle-bash.py ROOT COMMAND [ARG...]

A DYNAMIC oracle, as oracle-lua.py: it records the commands that actually
run while COMMAND (the project's own test suite) runs in ROOT, so its
call sites are a sample: the sites the tests executed, each with what
Bash really ran there, a function (and which one) or not.  Bash has no
static checker that binds commands; its runtime is the witness.

COMMAND runs in ROOT with BASH_ENV naming oracle-bash-hook.bash (beside
this file), which every non-interactive bash of the run loads first,
and with PROMPT_COMMAND loading it (and unsetting itself) before an
interactive shell's first prompt: a suite that drives an interactive
`bash --norc` (bash-completion's, through pexpect) gets the hook too.  The hook (its header says what it
records) sees each simple command whose first word is a plain name; its
records are joined here into score.py's format, one line a call site,
a site being the file, the line and the command's name:

  in    every time the command ran there, the name was a function
        defined in one place of ROOT: the target is that file and the
        line its definition starts on (`declare -F` under extdebug)
  virt  processes of the run ran two or more functions of ROOT there
        (a name defined again), or a function of ROOT in one and none
        in another (the hook writes a site once for the whole run, the
        first time it runs)
  ext   it never ran a function of ROOT: a builtin, a program, or a
        function defined outside ROOT (the test framework's, the
        interactive shell's)

A command whose name is an expansion ($cmd, "$@", a `complete -F`
callback run by readline) is not recorded, so there is no dyn site;
neither are the words of keywords (if, for, case...).  Columns are not
known to a DEBUG trap: col and ncol are 0 and nline is the line.  Bash
gives a command continued over lines (`\\` at the end) the line where it
ends; the site is moved up to the line, within the continuation, where
its name is written.  The caller column is "-" (the kbx definition
whose lines hold the call stands for it).  The TSV goes to standard
output, sorted; COMMAND's own output to standard error.  Exit status 0
when the hook recorded calls, whatever COMMAND's status (said on
standard error).
"""
import os
import re
import shutil
import sys
import tempfile
from collections import defaultdict

from dyntree import Tree, run_and_read

HOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle-bash-hook.bash")
DEF = re.compile(r"\s*(function\s+[^\s(]+|[\w:.+@,-]+\s*\(\s*\))")
KEYWORDS = {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
            "select", "function", "time", "coproc", "in", "!", "{", "}"}


def written(tree, rel, line, name):
    """the line, at or above `line` within a command continued with
    backslashes, where `name` is written as a word; None when it is not"""
    rx = re.compile(r"(?<![\w$./-])" + re.escape(name) + r"(?![\w./-])")
    n = line
    while n > 0:
        if rx.search(tree.line(rel, n)):
            return n
        if n == line or tree.line(rel, n).rstrip().endswith("\\"):
            prev = tree.line(rel, n - 1).rstrip()
            if not prev.endswith("\\"):
                return None
            n -= 1
            continue
        return None
    return None


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: oracle-bash.py ROOT COMMAND [ARG...]")
    tree = Tree(argv[0])
    tmp = tempfile.mkdtemp(prefix="kbx-oracle-bash.")
    try:
        for d in ("calls", "seen"):
            os.mkdir(os.path.join(tmp, d))
        env = dict(os.environ, BASH_ENV=HOOK, ORACLE_BASH_OUT=tmp, ORACLE_BASH_HOOK=HOOK,
                   PROMPT_COMMAND='unset PROMPT_COMMAND; . "$ORACLE_BASH_HOOK"')
        records = run_and_read("oracle-bash.py", argv[1:], tree.root, env, os.path.join(tmp, "calls"),
                               "the hook recorded no command (is BASH_ENV honoured?)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.stdout.write("".join(ln + "\n" for ln in sites(tree, records)))
    return 0


def place(tree, cwd, path):
    """a path the hook gave (relative to the process's directory, or
    absolute) as a file of the tree, or None"""
    if not path or path in ("main", "environment"):
        return None
    return tree.rel(os.path.join(cwd, path))


def parse(lines):
    """the hook's records: (cwd, file, line, name, command, declaration,
    caller's declaration)"""
    rec = None
    for ln in lines:
        tag, _, rest = ln.partition("\t")
        if tag == "@":
            if rec:
                yield rec
            f = rest.split("\t", 4)
            rec = (f + ["-"] * 5)[:5] + ["-", "-"] if len(f) >= 4 else None
        elif rec and tag == "D":
            rec[5] = rest or "-"
        elif rec and tag == "C":
            rec[6] = rest or "-"
    if rec:
        yield rec


def declared(tree, cwd, decl):
    """`declare -F` output ("NAME LINE FILE") as (file of the tree,
    line), or None"""
    d = decl.split(" ", 2)
    if len(d) != 3 or not d[1].isdigit():
        return None
    f = place(tree, cwd, d[2])
    return (f, int(d[1])) if f else None


def in_body(tree, f, start, name, command):
    """the line of the function starting at line `start` of f (up to the
    next definition at the start of a line) where a command `name`
    written as `command` is: the only line writing the name, else the
    only one writing its first two words (comment lines left out); None
    when not one"""
    rx = re.compile(r"(?<![\w$./-])" + re.escape(name) + r"(?![\w./-])")
    hits, n = [], start
    while True:
        text = tree.line(f, n)
        if n > start and (DEF.match(text) or n > len(tree.lines[f])):
            break
        if rx.search(text) and not text.lstrip().startswith("#"):
            hits.append(n)
        n += 1
    if len(hits) > 1:
        words = command.split()[:2]
        if len(words) == 2:
            pair = re.compile(r"(?<![\w$./-])" + re.escape(name) + r"\s+" + re.escape(words[1]))
            hits = [n for n in hits if pair.search(tree.line(f, n))]
    return hits[0] if len(hits) == 1 else None


def sites(tree, records):
    """score.py's lines from the hook's records"""
    ran = defaultdict(set)     # (file, line, name) -> {("in", target) or ("ext", None)}
    for cwd, src, line, name, command, decl, caller in parse(records):
        f = place(tree, cwd, src)
        if f is None or name in KEYWORDS:
            continue
        if line == "?":
            at = declared(tree, cwd, caller)
            n = in_body(tree, f, at[1], name, command) if at and at[0] == f else None
        else:
            n = written(tree, f, int(line), name) if line.isdigit() else None
        if n is None:
            continue
        target = None
        if decl != "-":
            at = declared(tree, cwd, decl)
            if at:
                if at == (f, n):
                    continue    # the trap's event at a function's entry, on its definition's line
                target = f"{at[0]}:{at[1]}"
        ran[(f, n, name)].add(("in", target) if target else ("ext", None))
    out = []
    for key in sorted(ran):
        f, line, name = key
        got = ran[key]
        inside = sorted(t for k, t in got if k == "in")
        if not inside:
            kind, targets, what = "ext", "-", "(not a function of the tree)"
        elif len(got) > 1:
            kind, targets = "virt", ",".join(inside)
            what = name + (" (and not a function of the tree)" if ("ext", None) in got else "")
        else:
            kind, targets, what = "in", inside[0], name
        out.append(f"{f}\t{line}\t0\t{line}\t0\t{name}\t{kind}\t{targets}\t{what}\t-")
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
