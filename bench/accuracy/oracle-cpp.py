#!/usr/bin/python3
"""bench/accuracy/oracle-cpp.py: clang (libclang 14, through Debian's
python3-clang-14) as the oracle of the accuracy bench for C and C++.

    oracle-cpp.py [--macros | --objc] ROOT [CLANG-ARG...] < FILES > oracle.tsv

FILES lists the translation units to compile (.cc, .cpp, .c, .m), relative
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

With --objc (Objective-C, -x objective-c), the message sends are call
sites too, named by their selector (`addItem:quantity:`), the site's
name where the selector's first part is written.  Every method the
project declares or defines is read first, with the superclass of every
class (the system's too), and each send is then bound as the runtime
would, over the whole project:

  [super sel], [Foo sel], [[Foo alloc] sel] (the receiver is exactly
    one class): the first class from it upwards that defines sel
    (a method with a body under ROOT)                          in
    none under ROOT                                             ext
  [obj sel] with obj of a class type (Foo *), self: that method,
    and any subclass of Foo under ROOT that defines sel; one
    method in all                                               in
    several (an override)                                       virt
    none under ROOT                                             ext
  a method clang bound that only a protocol of ROOT declares    virt
  [obj sel] with obj an id, Class or id<P>: sel defined in two
    or more classes under ROOT                                  virt
    else                                                        dyn

A method declared under ROOT and defined nowhere is bound to its
declaration (in) when its class is implemented under ROOT (an accessor
a @property makes), else it is the system's (ext: a category declaring
a method the class has, `@interface NSDocument (Hidden)`).
"""
import ctypes
import os
import re
import sys
from collections import defaultdict

import clang.cindex as ci

K = ci.CursorKind
FUNCS = {K.FUNCTION_DECL, K.CXX_METHOD, K.CONSTRUCTOR, K.FUNCTION_TEMPLATE, K.CONVERSION_FUNCTION}
VALUES = {K.VAR_DECL, K.PARM_DECL, K.FIELD_DECL}
OBJC_METHODS = {K.OBJC_INSTANCE_METHOD_DECL, K.OBJC_CLASS_METHOD_DECL}
OBJC_CLASSES = {K.OBJC_INTERFACE_DECL, K.OBJC_IMPLEMENTATION_DECL, K.OBJC_CATEGORY_DECL,
                K.OBJC_CATEGORY_IMPL_DECL, K.OBJC_PROTOCOL_DECL}
# c:objc(cs)Cart(im)addItem:quantity: -- the class (cs) or protocol (pl),
# instance (im) or class (cm) method, the selector
OBJC_USR = re.compile(r"c:objc\((cs|pl)\)([^(]+)\((im|cm)\)(.+)$")


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
    objc = ObjC() if argv and argv[0] == "--objc" else None
    if objc:
        argv = argv[1:]
    if macros_mode:
        argv = argv[1:]
        lib = ci.conf.lib
        lib.clang_getFileLocation.argtypes = [ci.SourceLocation, ctypes.POINTER(ci.c_object_p),
                                              ctypes.POINTER(ctypes.c_uint),
                                              ctypes.POINTER(ctypes.c_uint),
                                              ctypes.POINTER(ctypes.c_uint)]
        lib.clang_getFileLocation.restype = None
    if len(argv) < 1:
        sys.exit("usage: oracle-cpp.py [--macros | --objc] ROOT [CLANG-ARG...] < FILES")
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
        if objc and c.kind in OBJC_METHODS:
            objc.note_method(c, usr)
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
        if objc:
            objc.note_classes(tu)
        todo = [(tu.cursor, None)]
        while todo:
            c, ctx = todo.pop()
            for ch in c.get_children():
                f = ch.location.file
                if f is not None and rel(f) is None:
                    continue      # a system header: neither calls nor declarations of the tree
                if objc and ch._kind_id not in KNOWN_KINDS:
                    continue      # an attribute the bindings lack (GNUstep's headers have them)
                todo.append((ch, objc.context(ch, ctx) if objc else None))
                if ch.kind in FUNCS or ch.kind in OBJC_METHODS or \
                        ch.kind in (K.CLASS_DECL, K.STRUCT_DECL, K.CLASS_TEMPLATE):
                    note_decl(ch)
                elif ch.kind == K.CALL_EXPR:
                    p = rel(ch.extent.start.file)
                    if p is not None:
                        visit_call(ch, p)
                elif ch.kind == K.OBJC_MESSAGE_EXPR and objc:
                    p = rel(ch.extent.start.file)
                    if p is not None:
                        objc.visit_send(ch, p, ctx, sites, rel)

    out = sys.stdout
    allvirt = set().union(*virtual_names.values()) if virtual_names else set()
    for key in sorted(sites):
        name, usr, what = sites[key]
        site = "\t".join(str(x) for x in key[:5]) + f"\t{name}"
        tail = f"\t-\t{via_macro[key]}" if key in via_macro else ""
        if isinstance(usr, ObjCSend):
            kind, usrs = objc.bind(usr)
            targets = ",".join(sorted(set().union(*(places[u] for u in usrs)))) if usrs else "-"
            out.write(f"{site}\t{kind}\t{targets}\t{what}\n")
            continue
        if usr in ("dyn", "ext"):
            out.write(f"{site}\t{usr}\t-\t{what}{tail}\n")
            continue
        others = virtual_names.get(name, set()) - {usr}
        kind = "virt" if usr in pure or (usr in allvirt and others) else "in"
        out.write(f"{site}\t{kind}\t{','.join(sorted(places[usr]))}\t{what}{tail}\n")


class ObjCSend:
    """a message send, bound once every file has been read"""
    __slots__ = ("ref", "sel", "meta", "recv", "exact")

    def __init__(self, ref, sel, meta, recv, exact):
        self.ref = ref        # the USR of the method clang bound, None outside ROOT
        self.sel = sel
        self.meta = meta      # a class method (+)
        self.recv = recv      # the receiver's class, None for id and Class
        self.exact = exact    # the receiver is that class, not a subclass


class ObjC:
    """what --objc adds: the classes and methods of the project, and
    its message sends"""

    def __init__(self):
        lib = ci.conf.lib
        lib.clang_Cursor_getReceiverType.argtypes = [ci.Cursor]
        lib.clang_Cursor_getReceiverType.restype = ci.Type
        lib.clang_Cursor_getReceiverType.errcheck = ci.Type.from_result
        lib.clang_Cursor_isDynamicCall.argtypes = [ci.Cursor]
        lib.clang_Cursor_isDynamicCall.restype = ctypes.c_int
        self.lib = lib
        self.supers = {}                # class -> its superclass (any class clang saw)
        self.defined = {}               # (class, meta, selector) -> USR of a method with a body under ROOT
        self.protocol = set()           # USRs of methods a protocol of ROOT declares
        self.implemented = set()        # classes with an @implementation under ROOT

    def note_classes(self, tu):
        for c in tu.cursor.get_children():
            if c.kind == K.OBJC_INTERFACE_DECL and c.spelling not in self.supers:
                sup = [s.spelling for s in c.get_children()
                       if s._kind_id == K.OBJC_SUPER_CLASS_REF.value]
                if sup:
                    self.supers[c.spelling] = sup[0]

    def note_method(self, c, usr):
        m = OBJC_USR.match(usr)
        if not m:
            return
        owner_kind, owner, meta, sel = m.groups()
        if owner_kind == "pl":
            self.protocol.add(usr)
        elif c.is_definition():
            self.defined[(owner, meta == "cm", sel)] = usr
            if c.semantic_parent.kind == K.OBJC_IMPLEMENTATION_DECL:
                self.implemented.add(owner)

    @staticmethod
    def context(c, ctx):
        """(class, in a class method) of the code under c"""
        if c.kind == K.OBJC_IMPLEMENTATION_DECL:
            return (c.spelling, False)
        if c.kind == K.OBJC_CATEGORY_IMPL_DECL:
            refs = [r.spelling for r in c.get_children() if r._kind_id == K.OBJC_CLASS_REF.value]
            return (refs[0], False) if refs else None
        if ctx and c.kind in OBJC_METHODS:
            return (ctx[0], c.kind == K.OBJC_CLASS_METHOD_DECL)
        return ctx

    @staticmethod
    def selector_at(c, sel):
        """the token of the selector's first part: after the receiver,
        directly inside the send's brackets"""
        first = sel.split(":")[0]
        toks = list(c.get_tokens())
        depth = 0
        for i, t in enumerate(toks):
            s = t.spelling
            if s in ("[", "(", "{"):
                depth += 1
            elif s in ("]", ")", "}"):
                depth -= 1
            elif depth == 1 and i >= 2 and s == first and i + 1 < len(toks) and \
                    toks[i + 1].spelling == (":" if ":" in sel else "]"):
                return t.location
        return None

    def visit_send(self, c, path, ctx, sites, rel):
        sel = c.spelling
        ref = c.referenced
        nloc = self.selector_at(c, sel) if sel else None
        if nloc is None or rel(nloc.file) != path:
            return            # written by a macro
        start = c.extent.start
        key = (path, start.line, start.column, nloc.line, nloc.column)
        if key in sites:
            return
        rt = self.lib.clang_Cursor_getReceiverType(c)
        try:
            rk = rt.kind
        except ValueError:
            rk = None         # a kind the bindings lack (id<P>)
        recv, exact, meta = None, not self.lib.clang_Cursor_isDynamicCall(c), False
        if rk == TK.OBJCINTERFACE:          # [Foo sel], [super sel] in a class method
            recv, meta = rt.get_declaration().spelling, True
        elif rk == TK.OBJCOBJECTPOINTER:
            d = rt.get_pointee().get_declaration()
            if d.kind == K.OBJC_INTERFACE_DECL:
                recv = d.spelling
        elif rk == TK.OBJCCLASS and ctx and ctx[1] and \
                [k.spelling for k in c.get_children()][:1] == ["self"]:
            recv, meta = ctx[0], True       # self in a class method
        if ref is not None and ref.kind in OBJC_METHODS:
            meta = ref.kind == K.OBJC_CLASS_METHOD_DECL
            usr = ref.get_usr() if rel(ref.location.file) is not None else None
            what = ("+" if meta else "-") + f"[{ref.semantic_parent.spelling} {sel}]"
        else:
            usr, what = None, sel
        sites[key] = (sel, ObjCSend(usr, sel, meta, recv, exact), what)

    def lookup(self, cls, meta, sel):
        """the method a message to an object of class cls runs: the
        first class upwards that defines it"""
        seen = set()
        while cls and cls not in seen:
            seen.add(cls)
            u = self.defined.get((cls, meta, sel))
            if u:
                return u
            cls = self.supers.get(cls)
        return None

    def bind(self, s):
        """(kind, USRs) of a send"""
        if s.ref in self.protocol:
            return "virt", sorted({u for (c, m, sel), u in self.defined.items()
                                   if sel == s.sel and m == s.meta} | {s.ref})
        if s.recv is None:
            owners = {u for (c, m, sel), u in self.defined.items() if sel == s.sel and m == s.meta}
            return ("virt", sorted(owners)) if len(owners) >= 2 else ("dyn", [])
        found = set()
        u = self.lookup(s.recv, s.meta, s.sel)
        if u:
            found.add(u)
        if not s.exact:
            for (c, m, sel), u in self.defined.items():
                if sel == s.sel and m == s.meta and c != s.recv and self.is_sub(c, s.recv):
                    found.add(u)
        if len(found) > 1:
            return "virt", sorted(found)
        if found:
            return "in", sorted(found)
        m = OBJC_USR.match(s.ref or "")
        if m and m.group(2) in self.implemented:
            return "in", [s.ref]    # declared under ROOT, defined nowhere: a @property's accessor
        return "ext", []            # the system's, or a category declaring a method it has

    def is_sub(self, c, base):
        seen = set()
        while c and c not in seen:
            if c == base:
                return True
            seen.add(c)
            c = self.supers.get(c)
        return False


TK = ci.TypeKind
KNOWN_KINDS = {k.value for k in K.get_all_kinds()}


def qualified(c):
    parts = []
    while c is not None and c.kind != K.TRANSLATION_UNIT:
        if c.spelling:
            parts.append(c.spelling)
        c = c.semantic_parent
    return "::".join(reversed(parts))


if __name__ == "__main__":
    main()
