#!/usr/bin/python3
"""bench/accuracy/oracle-lua.py: Lua's own runtime as the call oracle.

    oracle-lua.py [--lua PROGRAM] ROOT COMMAND [ARG...]

A DYNAMIC oracle: unlike the others, which bind every call a compiler
sees, this one records the calls that actually run while COMMAND (the
project's own test suite) runs in ROOT, so its call sites are a sample:
the sites the tests executed, each with the function Lua really called
there.  Lua has no static checker in Debian; its runtime is the witness.

COMMAND runs in ROOT with LUA_INIT naming oracle-lua-hook.lua (beside
this file), which every Lua process of the run loads first (the ones a
test starts as well; `lua` on PATH is PROGRAM, default lua5.4).  The
hook's records (its header says what they hold) are joined here into
score.py's format, one line a call site, a site being the calling file,
the line and the called name:

  in    every call Lua made there went to one Lua function defined in
        ROOT, and that function is defined under the called name
        (`function M.get(`, `function C:get(`, `local function get(`,
        `get = function(`): the target is its file and the line its
        definition starts on
  virt  calls there went to two or more functions of ROOT (`self:run()`
        on objects of two classes, or two calls of one name on a line)
  ext   every call there went to a C function or to Lua code outside
        ROOT (the standard library, the test framework)
  dyn   a function of ROOT called under another name than its own (a
        parameter, a local alias, a table of callbacks, a method a
        metatable makes up) or one compiled from a string: Lua knows the
        value called, no declaration names it

Columns are not known to a call hook: col and ncol are 0 and nline is
the line (score.py joins by line).  The caller column is the calling
function's definition (file:line), "-" in a chunk's main code.  Calls
made by C functions (pcall(f), table.sort's comparator, require running
a module's chunk), metamethods, `for ... in` iterators and tail calls
are not recorded.  The TSV goes to standard output, sorted; COMMAND's
own output goes to standard error.  Exit status 0 when the hook
recorded calls, whatever COMMAND's status (said on standard error).
"""
import os
import re
import shutil
import sys
import tempfile
from collections import defaultdict

from dyntree import Tree, run_and_read

HOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle-lua-hook.lua")
DECL = [
    re.compile(r"\bfunction\s+([A-Za-z_][\w.:]*)\s*\("),                        # function a.b:c(
    re.compile(r"([A-Za-z_][\w.]*)\s*=\s*function\s*\("),                       # a.b = function(
    re.compile(r"\[\s*[\"']([A-Za-z_]\w*)[\"']\s*\]\s*=\s*function\s*\("),      # ["b"] = function(
]


class LuaTree(Tree):
    def chunk(self, chunk):
        """the file of a chunk name ("@path"), relative to the root, or
        None when the chunk is not a file of the tree"""
        return self.rel(chunk[1:]) if chunk.startswith("@") else None

    def declared(self, rel, n):
        """the qualified name a definition starting on line n declares,
        or None (an anonymous function)"""
        text = self.line(rel, n)
        for rx in DECL:
            m = rx.search(text)
            if m:
                return m.group(1)
        return None


def last_name(q):
    return re.split(r"[.:]", q)[-1]


def main(argv):
    lua = "lua5.4"
    if len(argv) > 2 and argv[0] == "--lua":
        lua, argv = argv[1], argv[2:]
    if len(argv) < 2:
        sys.exit("usage: oracle-lua.py [--lua PROGRAM] ROOT COMMAND [ARG...]")
    tree = LuaTree(argv[0])
    lua_path = shutil.which(lua)
    if not lua_path:
        sys.exit(f"oracle-lua.py: {lua} is not on PATH")
    tmp = tempfile.mkdtemp(prefix="kbx-oracle-lua.")
    try:
        os.mkdir(os.path.join(tmp, "bin"))
        os.mkdir(os.path.join(tmp, "calls"))
        os.symlink(lua_path, os.path.join(tmp, "bin", "lua"))
        env = dict(os.environ, LUA_INIT="@" + HOOK, ORACLE_LUA_OUT=os.path.join(tmp, "calls"),
                   PATH=os.path.join(tmp, "bin") + os.pathsep + os.environ.get("PATH", ""))
        records = run_and_read("oracle-lua.py", argv[1:], tree.root, env, os.path.join(tmp, "calls"),
                               "the hook recorded no call (is LUA_INIT honoured?)")
        records = [ln.split("\t") for ln in records]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.stdout.write("".join(ln + "\n" for ln in sites(tree, records)))
    return 0


def sites(tree, records):
    """score.py's lines from the hook's records"""
    callees = defaultdict(set)     # (file, line, name) -> {(target or None, declared)}
    callers = defaultdict(set)
    for r in records:
        src, line, name, _namewhat, what, csrc, cline, fline = r[:8]
        f = tree.chunk(src)
        if f is None or name == "?":
            continue
        key = (f, int(line), name)
        if int(fline) > 0:
            callers[key].add(f"{f}:{fline}")
        cf = tree.chunk(csrc) if what != "C" else None
        if what == "C" or (cf is None and csrc.startswith("@")):
            callees[key].add(("ext", None, None))
        elif cf is None:
            callees[key].add(("dyn", None, None))     # a chunk compiled from a string
        else:
            callees[key].add(("in", f"{cf}:{cline}", tree.declared(cf, int(cline))))
    out = []
    for key in sorted(callees):
        f, line, name = key
        got = callees[key]
        inside = sorted({(t, d) for k, t, d in got if k == "in"})
        if any(k == "dyn" for k, _, _ in got):
            kind, targets, what = "dyn", "-", "(a chunk compiled from a string)"
        elif not inside:
            kind, targets, what = "ext", "-", "(C or outside the tree)"
        elif len(got) > 1:
            named = [t for t, d in inside if d and last_name(d) == name]
            kind = "virt" if named else "dyn"
            targets = ",".join(named) if named else "-"
            what = " | ".join(d or t for t, d in inside)
        else:
            t, d = inside[0]
            if d and last_name(d) == name:
                kind, targets, what = "in", t, d
            else:
                kind, targets, what = "dyn", "-", f"{d or '(anonymous)'} at {t}"
        caller = ",".join(sorted(callers[key])) or "-"
        out.append(f"{f}\t{line}\t0\t{line}\t0\t{name}\t{kind}\t{targets}\t{what}\t{caller}")
    return out


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
