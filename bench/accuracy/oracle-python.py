#!/usr/bin/python3
"""bench/accuracy/oracle-python.py: Python's own parser (ast) as the oracle
of the accuracy bench, limited to what binding rules alone can prove.

    oracle-python.py ROOT > oracle.tsv

Python has no compiler that binds calls, so this oracle only writes the
calls whose target follows from the language's scoping rules without
running anything:

  f()          f bound once at the top of its module by def or class, or
               by an import of a module of the tree (followed through
               re-exports), and not rebound in the calling function or
               an enclosing one                              in
               f a builtin, or imported from a module outside the tree
                                                              ext
  m.f()        m a module of the tree (import m, import a.m as m,
               from a import m), f bound once at its top     in
               m a module outside the tree                   ext
  C.f(), C()   C a class of the tree found as above; f looked up along
               C's bases of the tree (C() goes to the class)  in
  self.f(), cls.f(), super().f()
               inside a method of class C (self/cls its first parameter):
               f looked up along C's bases of the tree; when
               a subclass of C in the tree defines f too      virt
               not defined by C and its bases in the tree, never assigned
               as self.f, no __getattr__, some base outside the tree
                                                              ext

Everything else (calls through local variables, parameters, attributes
of objects, names bound twice, star imports) is left out: the oracle
cannot prove it.  Module names are file paths relative to ROOT, and
relative to ROOT/src when it exists (the src layout).
"""
import ast
import builtins
import os
import sys

BUILTINS = set(dir(builtins))


class Module:
    def __init__(self, name, path, tree, is_pkg):
        self.name, self.path, self.tree, self.is_pkg = name, path, tree, is_pkg
        self.bindings = {}   # name -> list of (kind, node or import target)
        self.star = False


class Oracle:
    def __init__(self, root):
        self.root = root
        self.mods = {}       # dotted name -> Module
        self.classes = {}    # id(ClassDef) -> (Module, ClassDef)
        self.out = []

    # ---- loading ----
    def load(self):
        srcroots = [self.root]
        if os.path.isdir(os.path.join(self.root, "src")):
            srcroots.append(os.path.join(self.root, "src"))
        for dp, dns, fns in os.walk(self.root):
            dns[:] = sorted(d for d in dns if not d.startswith("."))
            for fn in sorted(fns):
                if not fn.endswith(".py"):
                    continue
                full = os.path.join(dp, fn)
                rel = os.path.relpath(full, self.root)
                try:
                    tree = ast.parse(open(full, "rb").read(), rel)
                except (SyntaxError, ValueError) as e:
                    print(f"oracle-python: {rel}: {e}", file=sys.stderr)
                    continue
                mod = None
                # the src layout's name wins: it is the one imports use
                for sr in reversed(srcroots):
                    r = os.path.relpath(full, sr)
                    if r.startswith(".."):
                        continue
                    parts = r[:-3].split(os.sep)
                    is_pkg = parts[-1] == "__init__"
                    if is_pkg:
                        parts = parts[:-1]
                    if not parts:
                        continue
                    name = ".".join(parts)
                    if mod is None:
                        mod = Module(name, rel, tree, is_pkg)
                    self.mods.setdefault(name, mod)
        for m in {id(m): m for m in self.mods.values()}.values():
            self.bind_module(m)

    def bind_module(self, m):
        def add(name, what):
            m.bindings.setdefault(name, []).append(what)

        # every statement at module level, including those under if/try
        def walk(stmts):
            for s in stmts:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    add(s.name, ("def", s))
                elif isinstance(s, ast.ClassDef):
                    add(s.name, ("class", s))
                    self.classes[id(s)] = (m, s)
                elif isinstance(s, ast.Import):
                    for a in s.names:
                        if a.asname:
                            add(a.asname, ("module", a.name))
                        else:
                            add(a.name.split(".")[0], ("module", a.name.split(".")[0]))
                elif isinstance(s, ast.ImportFrom):
                    base = self.absolute(m, s.module, s.level)
                    for a in s.names:
                        if a.name == "*":
                            m.star = True
                        else:
                            add(a.asname or a.name, ("from", base, a.name))
                elif isinstance(s, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                    for f in ("body", "orelse", "finalbody"):
                        walk(getattr(s, f, []) or [])
                    for h in getattr(s, "handlers", []) or []:
                        walk(h.body)
                        if h.name:
                            add(h.name, ("other", h))
                    if isinstance(s, ast.For):
                        for n in names_in_target(s.target):
                            add(n, ("other", s))
                    if isinstance(s, ast.With):
                        for it in s.items:
                            if it.optional_vars is not None:
                                for n in names_in_target(it.optional_vars):
                                    add(n, ("other", s))
                else:
                    for n in assigned_names(s):
                        add(n, ("other", s))
        walk(m.tree.body)
        # `global f` in a function that assigns f rebinds it
        for node in ast.walk(m.tree):
            if isinstance(node, ast.Global):
                for n in node.names:
                    add(n, ("other", node))

    def absolute(self, m, module, level):
        if not level:
            return module or ""
        parts = m.name.split(".")
        if not m.is_pkg:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        return ".".join(parts + ([module] if module else []))

    # ---- resolving a name at the top of a module ----
    def top(self, modname, name, depth=0):
        """what NAME at the top of module MODNAME is: ("def"|"class", Module,
        node), ("module", dotted), ("ext", what) or None (not provable)"""
        if depth > 10:
            return None
        m = self.mods.get(modname)
        if m is None:
            return ("ext", f"{modname}.{name}")
        bs = m.bindings.get(name)
        if not bs:
            if m.star:
                return None
            sub = f"{modname}.{name}"
            if sub in self.mods:
                return ("module", sub)
            if name in BUILTINS:
                return ("ext", f"builtins.{name}")
            return None
        if len(bs) != 1:
            return None
        b = bs[0]
        if b[0] in ("def", "class"):
            return (b[0], m, b[1])
        if b[0] == "module":
            return ("module", b[1])
        if b[0] == "from":
            base, nm = b[1], b[2]
            if f"{base}.{nm}" in self.mods:
                return ("module", f"{base}.{nm}")
            if base not in self.mods:
                return ("ext", f"{base}.{nm}")
            return self.top(base, nm, depth + 1)
        return None

    def module_attr(self, dotted, name):
        if dotted not in self.mods:
            return ("ext", f"{dotted}.{name}")
        return self.top(dotted, name)

    # ---- classes ----
    def bases(self, m, c):
        """the classes of the tree C's bases name, and whether some base is
        outside the tree (None when a base cannot be proven)"""
        out, outside = [], False
        for b in c.bases:
            r = self.expr(m, b, None)
            if r is None:
                return None, None
            if r[0] == "class":
                out.append((r[1], r[2]))
            elif r[0] == "ext":
                outside = True
            else:
                return None, None
        return out, outside

    def mro(self, m, c):
        """C and its bases of the tree, depth first, and whether any base is
        outside the tree; None when a base cannot be proven"""
        seen, order, outside = set(), [], False
        todo = [(m, c)]
        while todo:
            mm, cc = todo.pop(0)
            if id(cc) in seen:
                continue
            seen.add(id(cc))
            order.append((mm, cc))
            bs, out = self.bases(mm, cc)
            if bs is None:
                return None, None
            outside |= out
            todo.extend(bs)
        return order, outside

    def member(self, m, c, name, skip_self=False):
        order, outside = self.mro(m, c)
        if order is None:
            return None, None
        for mm, cc in order[1:] if skip_self else order:
            for s in cc.body:
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name:
                    if any(decorator_name(d) == "property" for d in s.decorator_list):
                        return None, None
                    return (mm, cc, s), None
                if name in assigned_names(s):
                    return None, None
                if isinstance(s, ast.ClassDef) and s.name == name:
                    return (mm, cc, s), None
        return None, (order, outside)

    def overridden(self, cls, name):
        """does a subclass of cls in the tree define name?"""
        for mm, cc in self.classes.values():
            if cc is cls:
                continue
            order, _ = self.mro(mm, cc)
            if order and any(x is cls for _, x in order[1:]):
                if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == name for s in cc.body):
                    return True
        return False

    # ---- expressions ----
    def expr(self, m, e, scope):
        """what expression e (a Name or a chain of attributes) is at module
        level or in the function scopes `scope`"""
        if isinstance(e, ast.Name):
            if scope and any(e.id in s for s in scope):
                return None
            return self.top(m.name, e.id)
        if isinstance(e, ast.Attribute):
            r = self.expr(m, e.value, scope)
            if r is None:
                return None
            if r[0] == "module":
                return self.module_attr(r[1], e.attr)
            if r[0] == "ext":
                return ("ext", f"{r[1]}.{e.attr}")
            if r[0] == "class":
                found, _ = self.member(r[1], r[2], e.attr)
                if found:
                    kind = "class" if isinstance(found[2], ast.ClassDef) else "def"
                    return (kind, found[0], found[2])
            return None
        return None

    # ---- calls ----
    def run(self):
        for m in sorted({id(m): m for m in self.mods.values()}.values(), key=lambda x: x.path):
            self.visit(m, m.tree.body, [], None)

    def visit(self, m, stmts, scope, method):
        """walk statements; scope: the local name sets of the enclosing
        functions, innermost last; method: (class, its self parameter)"""
        for s in stmts:
            self.exprs(m, roots(s), scope, method)
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(m, s, scope, None)
            elif isinstance(s, ast.ClassDef):
                for d in s.decorator_list + s.bases + [k.value for k in s.keywords]:
                    self.exprs(m, [d], scope, method)
                body_names = set()
                for b in s.body:
                    body_names.update(assigned_names(b))
                    if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        body_names.add(b.name)
                for b in s.body:
                    if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.function(m, b, scope, s)
                    else:
                        self.visit(m, [b], scope + [body_names], None)
            else:
                for f in ("body", "orelse", "finalbody"):
                    self.visit(m, getattr(s, f, []) or [], scope, method)
                for h in getattr(s, "handlers", []) or []:
                    self.exprs(m, [h.type] if h.type else [], scope, method)
                    self.visit(m, h.body, scope, method)
                for c in getattr(s, "cases", []) or []:
                    self.visit(m, c.body, scope, method)

    def exprs(self, m, todo, scope, method):
        """the calls in expressions; lambdas and comprehensions bind names
        of their own"""
        todo = list(todo)
        while todo:
            n = todo.pop()
            if isinstance(n, ast.Call):
                self.call(m, n, scope, method)
            if isinstance(n, ast.Lambda):
                a = n.args
                own = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
                own |= {x.arg for x in (a.vararg, a.kwarg) if x}
                self.exprs(m, a.defaults + [x for x in a.kw_defaults if x], scope, method)
                self.exprs(m, [n.body], scope + [own], method)
                continue
            if isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                own = set()
                for g in n.generators:
                    own.update(names_in_target(g.target))
                inner = [g.iter for g in n.generators[1:]] + [c for g in n.generators for c in g.ifs]
                inner += [n.key, n.value] if isinstance(n, ast.DictComp) else [n.elt]
                self.exprs(m, [n.generators[0].iter], scope, method)
                self.exprs(m, inner, scope + [own], method)
                continue
            todo.extend(ast.iter_child_nodes(n))

    def function(self, m, f, scope, cls):
        self.exprs(m, f.decorator_list + f.args.defaults + [x for x in f.args.kw_defaults if x],
                   scope, None)
        method = None
        if cls is not None:
            decos = {decorator_name(d) for d in f.decorator_list}
            params = f.args.posonlyargs + f.args.args
            if "staticmethod" not in decos and params:
                method = (cls, params[0].arg)
        self.visit(m, f.body, scope + [local_names(f)], method)

    def call(self, m, c, scope, method):
        fn = c.func
        if isinstance(fn, ast.Name):
            name, nline, ncol = fn.id, fn.lineno, fn.col_offset + 1
        elif isinstance(fn, ast.Attribute):
            name = fn.attr
            nline, ncol = fn.end_lineno, fn.end_col_offset - len(fn.attr.encode()) + 1
        else:
            return
        r = None
        virt = False
        if isinstance(fn, ast.Attribute) and method is not None:
            cls, selfname = method
            recv = fn.value
            if isinstance(recv, ast.Name) and recv.id == selfname:
                r, virt = self.on_self(m, cls, name, False)
            elif (isinstance(recv, ast.Call) and isinstance(recv.func, ast.Name) and recv.func.id == "super"
                  and not recv.args):
                r, virt = self.on_self(m, cls, name, True)
            elif r is None:
                r = self.expr(m, fn, scope)
        else:
            r = self.expr(m, fn, scope)
        if r is None or r[0] in ("module",):
            return
        site = (f"{m.path}\t{c.lineno}\t{c.col_offset + 1}\t{nline}\t{ncol}\t{name}")
        if r[0] == "ext":
            self.out.append(f"{site}\text\t-\t{r[1]}")
            return
        _, dm, node = r
        targets = self.places(dm, node)
        if r[0] == "class":
            for s in node.body:
                if isinstance(s, ast.FunctionDef) and s.name == "__init__":
                    targets += [t for t in self.places(dm, s) if t not in targets]
        self.out.append(f"{site}\t{'virt' if virt else 'in'}\t{','.join(targets)}\t{dm.name}.{node.name}")

    def on_self(self, m, cls, name, is_super):
        if any(isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__getattr__"
               for s in cls.body):
            return None, False
        found, rest = self.member(m, cls, name, skip_self=is_super)
        if found:
            fm, fc, node = found
            kind = "class" if isinstance(node, ast.ClassDef) else "def"
            virt = not is_super and self.overridden(cls, name) or (fc is not cls and self.overridden(fc, name)
                                                                   and not is_super)
            return (kind, fm, node), virt
        if rest is None:
            return None, False
        order, outside = rest
        if not outside:
            return None, False
        for mm, cc in order:
            if assigns_self_attr(cc, name):
                return None, False
        if self.overridden(cls, name):
            return None, False
        return ("ext", f"(a base outside the tree).{name}"), False

    def places(self, m, node):
        out = [f"{m.path}:{node.lineno}"]
        if getattr(node, "decorator_list", None):
            first = min(d.lineno for d in node.decorator_list)
            out.append(f"{m.path}:{first}")
        return out


def decorator_name(d):
    if isinstance(d, ast.Call):
        d = d.func
    if isinstance(d, ast.Name):
        return d.id
    if isinstance(d, ast.Attribute):
        return d.attr
    return ""


def names_in_target(t):
    return [n.id for n in ast.walk(t) if isinstance(n, ast.Name)]


def assigned_names(s):
    out = []
    if isinstance(s, ast.Assign):
        for t in s.targets:
            out += names_in_target(t)
    elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
        out += names_in_target(s.target)
    return out


def local_names(f):
    """the names a function binds: parameters and anything assigned,
    imported, defined or declared nonlocal/global in its own body"""
    a = f.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
    if a.vararg:
        names.add(a.vararg.arg)
    if a.kwarg:
        names.add(a.kwarg.arg)
    for node in walk_shallow_all(f.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for al in node.names:
                names.add((al.asname or al.name).split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def walk_shallow_all(stmts):
    """every node of the statements, not entering nested functions' and
    classes' bodies (their names are still seen)"""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(n))


def roots(s):
    """the expressions that belong to statement s itself, not to the
    statements, functions or classes nested in it"""
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    out = []
    for field, val in ast.iter_fields(s):
        if field in ("body", "orelse", "finalbody", "handlers", "cases"):
            continue
        for v in val if isinstance(val, list) else [val]:
            if isinstance(v, ast.expr):
                out.append(v)
            elif isinstance(v, (ast.withitem, ast.keyword, ast.alias)):
                out.extend(x for x in ast.iter_child_nodes(v) if isinstance(x, ast.expr))
    return out


def assigns_self_attr(cls, name):
    for node in ast.walk(cls):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and node.attr == name
                and isinstance(node.value, ast.Name)):
            return True
    return False


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: oracle-python.py ROOT")
    o = Oracle(os.path.abspath(sys.argv[1]))
    o.load()
    o.run()
    sys.stdout.write("".join(line + "\n" for line in o.out))


if __name__ == "__main__":
    main()
