#!/usr/bin/python3
"""bench/accuracy/oracle-cpp.py: clang (libclang 14, through Debian's
python3-clang-14) as the oracle of the accuracy bench for C and C++.

    oracle-cpp.py [--macros] ROOT [CLANG-ARG...] < FILES > oracle.tsv

FILES lists the translation units to compile (.cc, .cpp, .c), relative
to ROOT.  Each is parsed by clang with the arguments given (-I, -D,
-std=...), and every call written in a file under ROOT (headers too,
once) is one line in the format bench/accuracy/score.py reads:

  a function, method or constructor declared under ROOT        in
  a virtual method declared under ROOT that is pure, or whose
    name another virtual method under ROOT has (an override)   virt
  declared outside ROOT (the C and C++ libraries, gtest), or
    a compiler builtin (__builtin_expect, which C declares
    implicitly where it is first called)                       ext
  a call of a function pointer, a variable or a member
    holding a callable                                         dyn

The places of a declaration are every declaration and the definition
clang saw of the same entity (its USR) under ROOT, each by the line
where it starts and the line of its name.  Calls whose name is not
written where clang puts them (made by a macro, operators, implicit
constructions) are left out.

With --macros (the C project), calls are placed where the file says
they are (clang's "file location"): a call written in a macro's
argument, `api_check(L, lua_gettop(L) > 0, "x")`, is where it is
written; a call written in the body of a macro defined under ROOT is a
call made through that macro, at the place where the macro is used (the
outermost use written in the file), with the macro's name as an eleventh
column (the tenth, caller, is then "-"):

    file line col nline ncol name kind targets what - MACRO

A call made by a macro defined outside ROOT (assert, isalpha) is left
out.  bench/accuracy/score.py scores such calls through the macro.
"""
import ctypes
import os
import sys
from collections import defaultdict

import clang.cindex as ci

K = ci.CursorKind
FUNCS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.FUNCTION_TEMPLATE, K.CONVERSION_FUNCTION}
VALUES = {K.VAR_DECL, K.PARM_DECL, K.FIELD_DECL}


class FileLoc:
    """clang_getFileLocation of a source location: where a macro
    argument was written, or where the macro was used"""
    __slots__ = ("file", "line", "column")

    def __init__(self, loc):
        f = ci.c_object_p()
        line, col, off = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        ci.conf.lib.clang_getFileLocation(loc, ctypes.byref(f), ctypes.byref(line),
                                          ctypes.byref(col), ctypes.byref(off))
        self.file = ci.File(f) if f else None
        self.line, self.column = line.value, col.value


def ident_at(text):
    n = 0
    while n < len(text) and (text[n:n + 1].isalnum() or text[n:n + 1] == b"_"):
        n += 1
    return text[:n].decode("utf-8", "replace")


def main():
    argv = sys.argv[1:]
    macros_mode = bool(argv) and argv[0] == "--macros"
    if macros_mode:
        argv = argv[1:]
        lib = ci.conf.lib
        lib.clang_getFileLocation.argtypes = [ci.SourceLocation, ctypes.POINTER(ci.c_object_p),
                                              ctypes.POINTER(ctypes.c_uint),
                                              ctypes.POINTER(ctypes.c_uint),
                                              ctypes.POINTER(ctypes.c_uint)]
        lib.clang_getFileLocation.restype = None
    if len(argv) < 1:
        sys.exit("usage: oracle-cpp.py [--macros] ROOT [CLANG-ARG...] < FILES")
    root = os.path.realpath(argv[0])
    args = argv[1:]
    tree_macros = set()           # names of the macros defined under ROOT
    units = [l.strip() for l in sys.stdin if l.strip()]
    index = ci.Index.create()
    texts = {}
    places = defaultdict(set)     # USR -> {"path:line"}
    virtual_names = defaultdict(set)  # method name -> USRs of virtual methods
    pure = set()
    sites = {}                    # (file, line, col, nline, ncol) -> (name, usr or kind, what)
    via_macro = {}                # key of a site -> the macro that made the call

    def rel(f):
        if f is None:
            return None
        # never through the working directory, which a concurrent run
        # of the bench may have removed
        name = f.name if os.path.isabs(f.name) else os.path.join(root, f.name)
        p = os.path.realpath(name)
        r = os.path.relpath(p, root)
        return None if r.startswith("..") else r

    def text_at(path, line, col):
        if path not in texts:
            try:
                texts[path] = open(os.path.join(root, path), "rb").read().split(b"\n")
            except OSError:
                texts[path] = []
        ls = texts[path]
        return ls[line - 1][col - 1:] if 0 < line <= len(ls) else b""

    def note_decl(c):
        p = rel(c.location.file)
        if p is None:
            return
        usr = c.get_usr()
        if not usr:
            return
        places[usr].add(f"{p}:{c.extent.start.line}")
        places[usr].add(f"{p}:{c.location.line}")
        if c.kind == K.CXX_METHOD and c.is_virtual_method():
            virtual_names[c.spelling].add(usr)
            if c.is_pure_virtual_method():
                pure.add(usr)

    def callee_ref(c):
        """the DECL_REF_EXPR or MEMBER_REF_EXPR naming the called function"""
        for ch in c.get_children():
            while ch.kind == K.UNEXPOSED_EXPR:
                kids = list(ch.get_children())
                if not kids:
                    break
                ch = kids[0]
            if ch.kind in (K.DECL_REF_EXPR, K.MEMBER_REF_EXPR, K.OVERLOADED_DECL_REF):
                return ch
            return None
        return None

    def visit_call(c, path):
        ref = c.referenced
        name = c.spelling
        if not name or name.startswith("operator") or name.startswith("~"):
            return
        start = c.extent.start
        macro = None
        if macros_mode:
            r = callee_ref(c)
            nloc = FileLoc((r if r is not None else c).location)
            start = FileLoc(c.extent.start)
            path = rel(nloc.file)
            if path is None or rel(start.file) != path:
                return
            if start.line > nloc.line or (start.line == nloc.line and start.column > nloc.column):
                start = nloc
            written = ident_at(text_at(path, nloc.line, nloc.column))
            if written != name:
                macro = written
                if macro not in tree_macros:
                    return    # made by a macro of the system headers
        elif ref is not None and ref.kind == K.CONSTRUCTOR:
            # only a construction that names the class: T(x), new T(x)
            n = c.location
            if not text_at(path, n.line, n.column).startswith(name.encode()):
                return
            nloc = n
        else:
            r = callee_ref(c)
            nloc = r.location if r is not None else c.location
            if rel(nloc.file) != path or not text_at(path, nloc.line, nloc.column).startswith(name.encode()):
                return
        key = (path, start.line, start.column, nloc.line, nloc.column)
        if macro:
            # one use of a macro may make several calls
            key = key + (name,)
            via_macro[key] = macro
        if key in sites:
            return
        if ref is None or ref.kind in VALUES:
            sites[key] = (name, "dyn", name)
            return
        if ref.kind not in FUNCS:
            return
        usr = ref.get_usr()
        what = qualified(ref)
        if rel(ref.location.file) is None or name.startswith("__builtin_"):
            sites[key] = (name, "ext", what)
            return
        note_decl(ref)
        if ref.kind == K.CONSTRUCTOR and ref.semantic_parent is not None:
            cls = ref.semantic_parent
            note_decl(cls)
            places[usr] |= places[cls.get_usr()]
        sites[key] = (name, usr, what)

    for u in units:
        tu = index.parse(os.path.join(root, u), args=args,
                         options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        errs = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
        for d in errs[:3]:
            print(f"oracle-cpp: {u}: {d}", file=sys.stderr)
        if macros_mode:
            for ch in tu.cursor.get_children():
                if ch.kind == K.MACRO_DEFINITION and rel(ch.location.file) is not None:
                    tree_macros.add(ch.spelling)
        todo = [tu.cursor]
        while todo:
            c = todo.pop()
            for ch in c.get_children():
                f = ch.location.file
                if f is not None and rel(f) is None:
                    continue      # a system header: neither calls nor declarations of the tree
                todo.append(ch)
                if ch.kind in FUNCS or ch.kind in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
                    note_decl(ch)
                elif ch.kind == K.CALL_EXPR:
                    p = rel(ch.extent.start.file)
                    if p is not None:
                        visit_call(ch, p)

    out = sys.stdout
    allvirt = set().union(*virtual_names.values()) if virtual_names else set()
    for key in sorted(sites):
        name, usr, what = sites[key]
        site = "\t".join(str(x) for x in key[:5]) + f"\t{name}"
        tail = f"\t-\t{via_macro[key]}" if key in via_macro else ""
        if usr in ("dyn", "ext"):
            out.write(f"{site}\t{usr}\t-\t{what}{tail}\n")
            continue
        others = virtual_names.get(name, set()) - {usr}
        kind = "virt" if usr in pure or (usr in allvirt and others) else "in"
        out.write(f"{site}\t{kind}\t{','.join(sorted(places[usr]))}\t{what}{tail}\n")


def qualified(c):
    parts = []
    while c is not None and c.kind != K.TRANSLATION_UNIT:
        if c.spelling:
            parts.append(c.spelling)
        c = c.semantic_parent
    return "::".join(reversed(parts))


if __name__ == "__main__":
    main()
