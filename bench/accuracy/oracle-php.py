#!/usr/bin/python3
"""bench/accuracy/oracle-php.py: PHP's own runtime (with Xdebug's function
traces) as the call oracle.

    oracle-php.py ROOT AUTOLOAD SCRIPT [ARG...]

A DYNAMIC oracle, as oracle-lua.py: it records the calls that actually
run while `php SCRIPT ARG...` (the project's test suite, PHPUnit) runs in
ROOT, so its call sites are a sample, the sites the tests executed, each
with the function PHP really called there.  (`php -l` only checks
syntax; Debian has no PHP checker that binds calls.)

php runs with Xdebug (Debian's php-xdebug) tracing every call in its
machine-readable format (xdebug.trace_format=1) into a pipe this script
reads, and with oracle-php-boot.php (beside this file) prepended: an
autoloader for the project's classes under the folders AUTOLOAD names
(colon-separated, relative to ROOT; as Debian's phpab autoloaders), and
at shutdown a map from the names Xdebug gives calls (`Ns\\C->m`,
`Ns\\C::m`, `fn`) to the file and line of their declaration.

A trace entry gives the called function's name and the file and line of
the call.  A call site is the calling file, the line and the called name
as written: the method or function name, or for a constructor (`new
Foo(...)`, traced as `Foo->__construct`, or as `Base->__construct` when
Foo inherits Base's) the class's name.  Only calls
whose name is written on that line and that are made by PHP code are
kept: a call made by an internal function (array_map's callback,
usort's comparator), a magic method (`__get`, `__toString`), a closure
or a name held in a variable (`$this->$m()`) is *dyn* when its target is
in ROOT, and left out otherwise.

  in    every call there went to one function or method declared in ROOT
        (for a constructor: the constructor's place, then the class's)
  virt  calls there went to two or more declarations in ROOT, or to a
        method that another class or interface of ROOT related to its
        class (a parent or a child) declares too: an overridden or
        implemented method, as the static oracles count it; or a line
        with two `new` whose classes share the constructor called
  ext   every call there went to PHP's internal functions or to code
        outside ROOT (PHPUnit's assertions)
  dyn   as said above

Columns are unknown to a trace: col and ncol are 0, nline is the line.
The caller column is "-".  The TSV goes to standard output, sorted;
SCRIPT's output goes to standard error.  Exit status 0 when calls were
traced, whatever SCRIPT's status (said on standard error).
"""
import os
import re
import subprocess
import sys
import tempfile
import threading
from collections import defaultdict

from dyntree import Tree

BOOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "oracle-php-boot.php")
SKIP = {"{main}", "require", "require_once", "include", "include_once"}


def short(name):
    """the called name of a traced function name"""
    return re.split(r"->|::|\\", name)[-1]


def written(text, name):
    """is the call of name written on this line?"""
    return re.search(r"(?<![\w$])" + re.escape(name) + r"\s*\(", text) is not None


def parents(places, c):
    p = places.get(c + "@parents")
    return set(p[0].split(",")) - {""} if p else set()


def constructed(text, decl, places):
    """the classes each `new X` on this line makes whose constructor is
    the one class decl declares: {X as written: [the classes' full names]}"""
    out = {}
    for m in re.finditer(r"\bnew\s+\\?([A-Za-z_][\w\\]*)", text):
        x = m.group(1).lower()
        found = [c for c in places.get("@classes", ()) if (c.lower() == x or c.lower().endswith("\\" + x))
                 and (c == decl or decl in parents(places, c))]
        if found:
            out.setdefault(short(m.group(1)), []).extend(found)
    return out


def overridden(places, name):
    """does a class related to the class of method name (Class->m or
    Class::m) declare m at another place?"""
    m = re.match(r"(.*?)(->|::)(\w+)$", name)
    if not m or m.group(3) == "__construct":
        return False
    cls, op, meth = m.groups()
    place = places.get(name)
    up = parents(places, cls)
    for d in places.get("@classes", ()):
        if d != cls and (d in up or cls in parents(places, d)):
            other = places.get(d + op + meth)
            if other is not None and other != place:
                return True
    return False


def trace(tree, autoload, script_args, tmp):
    """run php under Xdebug; (entries, map): entries are (site file, line,
    traced name, user-defined) of the calls made by PHP code"""
    fifo = os.path.join(tmp, "trace.xt")
    os.mkfifo(fifo)
    mapfile = os.path.join(tmp, "map.tsv")
    cmd = ["php", "-d", "xdebug.mode=trace", "-d", "xdebug.start_with_request=yes",
           "-d", "xdebug.trace_format=1", "-d", f"xdebug.output_dir={tmp}",
           "-d", "xdebug.trace_output_name=trace", "-d", "xdebug.use_compression=0",
           "-d", "xdebug.var_display_max_depth=0", "-d", "xdebug.var_display_max_children=0",
           "-d", "xdebug.var_display_max_data=0", "-d", f"auto_prepend_file={BOOT}"] + script_args
    env = dict(os.environ, ORACLE_PHP_AUTOLOAD=autoload, ORACLE_PHP_MAP=mapfile)
    p = subprocess.Popen(cmd, cwd=tree.root, env=env, stdout=sys.stderr, stdin=subprocess.DEVNULL)

    def unblock():
        # a php that never opens the pipe must not leave the reader waiting
        p.wait()
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    threading.Thread(target=unblock, daemon=True).start()

    entries = defaultdict(int)
    stack = {}
    with open(fifo, encoding="utf-8", errors="surrogateescape") as f:
        for ln in f:
            r = ln.split("\t", 10)
            if len(r) < 10 or r[2] != "0":
                continue
            level = int(r[0])
            name, user, path, line = r[5], r[6] == "1", r[8], int(r[9])
            stack[level] = user
            if name in SKIP or not stack.get(level - 1, True):
                continue     # an include, or a call made by an internal function
            rel = tree.rel(path)
            if rel is not None:
                entries[(rel, line, name, user)] += 1
    rc = p.wait()
    if rc != 0:
        print(f"oracle-php.py: php {' '.join(script_args)} exited {rc}; its calls are kept", file=sys.stderr)
    places = {}
    if os.path.exists(mapfile):
        with open(mapfile, encoding="utf-8", errors="surrogateescape") as f:
            for ln in f:
                r = ln.rstrip("\n").split("\t")
                if len(r) == 3:
                    places[r[0]] = (r[1], int(r[2]))
    places["@classes"] = [k for k in places if k + "@parents" in places]
    return entries, places


def sites(tree, entries, places):
    got = defaultdict(set)      # (file, line, written name) -> {(kind, target, what)}
    for (rel, line, name, user), _ in entries.items():
        text = tree.line(rel, line)
        if name.startswith("{closure"):
            m = re.match(r"\{closure:(.*):(\d+)-\d+\}$", name)
            if m and tree.rel(m.group(1)):
                got[(rel, line, "{closure}")].add(("dyn", None, name))
            continue
        called, made = short(name), {}
        if called == "__construct" and "->" in name:
            made = constructed(text, name.split("->")[0], places)
        place = places.get(name) if user else None
        inside = place is not None and tree.rel(place[0]) is not None
        if len(made) > 1:
            # new A(...) and new B(...) on one line, one constructor: which made which?
            for x in made:
                got[(rel, line, x)].add(("virt", f"{tree.rel(place[0])}:{place[1]}" if inside else None, name))
            continue
        classes = next(iter(made.values()), [])
        if made:
            key = (rel, line, next(iter(made)))
        elif written(text, called):
            key = (rel, line, called)
        else:
            if inside:       # a magic method, a name held in a variable
                got[(rel, line, called)].add(("dyn", None, name))
            continue
        if not inside:
            got[key].add(("ext", None, name))
            continue
        targets = [f"{tree.rel(place[0])}:{place[1]}"]
        for c in classes:
            cplace = places.get(c)
            if cplace and tree.rel(cplace[0]):
                targets.append(f"{tree.rel(cplace[0])}:{cplace[1]}")
        got[key].add(("virt" if overridden(places, name) else "in", ",".join(targets), name))
    out = []
    for key in sorted(got):
        f, line, name = key
        g = got[key]
        inside = sorted({(t, w) for k, t, w in g if k in ("in", "virt") and t})
        if any(k == "dyn" for k, _, _ in g):
            kind, targets, what = "dyn", "-", " | ".join(sorted({w for _, _, w in g}))
        elif not inside:
            kind, targets, what = "ext", "-", " | ".join(sorted({w for _, _, w in g}))
        elif len(g) > 1 or any(k == "virt" for k, _, _ in g):
            kind = "virt"
            targets = ",".join(sorted({x for t, _ in inside for x in t.split(",")}))
            what = " | ".join(w for _, w in inside)
        else:
            kind, (targets, what) = "in", inside[0]
        out.append(f"{f}\t{line}\t0\t{line}\t0\t{name}\t{kind}\t{targets}\t{what}\t-")
    return out


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: oracle-php.py ROOT AUTOLOAD SCRIPT [ARG...]")
    tree = Tree(argv[0])
    with tempfile.TemporaryDirectory(prefix="kbx-oracle-php.") as tmp:
        entries, places = trace(tree, argv[1], argv[2:], tmp)
    if not entries:
        sys.exit("oracle-php.py: no call traced (is php-xdebug installed?)")
    sys.stdout.write("".join(ln + "\n" for ln in sites(tree, entries, places)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
