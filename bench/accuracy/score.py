#!/usr/bin/python3
"""bench/accuracy/score.py: join a compiler oracle's call sites with kbx's
call edges and count how often kbx is right.

    score.py [--lang L] [--errors FILE] [--tree DIR] ORACLE.tsv KBX.tsv

ORACLE.tsv, one call site a line, tab-separated (written by the oracle of
each language, bench/accuracy/oracle-*):

    file  line  col  nline  ncol  name  kind  targets  what  [caller]

  file        the calling file, relative to the tree's root
  line, col   where the call expression starts (1-based; col in bytes)
  nline, ncol where the called name is written (for `a.\n  b()`, b's line)
  name        the called name as written: `get` for m.get(k), `Foo` for
              new Foo(), `New` for pkg.New()
  kind        in    the compiler bound the call to one declaration of the
                    project, and nothing in the project overrides it
              virt  bound to a declaration of the project that other
                    declarations of the project override or implement
                    (an interface or virtual call with several targets)
              ext   bound to a declaration outside the project (a standard
                    library, a dependency, a builtin)
              dyn   a call of a value (a variable, a parameter, a field of
                    function type): no declaration is bound
  targets     for in and virt: the declaration as path:line, then any
              other place that stands for the same declaration (the
              class of a constructor, the definition of a prototype),
              comma-separated; "-" otherwise
  what        the declaration's qualified name, for people
  caller      optional: the places of the declaration the call is written
              in, as targets (else the kbx definition whose lines hold
              the call stands for it)
  macro       optional (C, oracle-cpp.py --macros): the call is written
              in the body of this macro of the project, and the site is
              where the macro is used (name is still the function called)

KBX.tsv is `kbx-export --sites` of the same tree (N and E records).

A call site of the oracle is joined with the kbx edges that have a site
in the same file on the line where the call starts or where its name is
written, and whose target has the called name or sits at one of the
oracle's target places.  (kbx keeps at most 32 sites an edge; for an
edge holding 32, an edge from the kbx definition whose lines hold the
call also joins, or from the file's node when no function or method
holds them: module-level code; such a site, of which kbx kept nothing,
is taken to be as sure as the least sure site the edge kept.)  For each site kbx's answer is the surest of the
joined edges: certain, else ambiguous, else unresolved, else none; a
certain answer is right when one of the certain edges goes to one of
the oracle's places.  Lines, not columns, are joined (kbx's site is
where the call expression starts, which a compiler may put elsewhere),
but where two or more calls of one name share a line and kbx has as
many columns there for that name, they are paired in column order
(a.size() < b.size(): the first with the first); else they share
kbx's answer.

Printed, as KEY<TAB>VALUE lines (with --lang L, keys start with L.):

  sites.in/virt/ext/dyn      the oracle's sites of each kind
  recall                     of the `in` sites, the share where kbx has an
                             edge (any confidence) to the target
  recall_name_node           of those, the ones found only through a
                             name: node (more than 16 candidates)
  missed_self                `in` sites missed that call the declaration
                             they are written in, or one that shares its
                             kbx node (an overload): kbx's walk never
                             lists a node's edge to itself
  certain_edges              kbx certain (edge, site) pairs joined to an
                             in or ext site of the oracle
  certain_precision          of those, the share whose target is the
                             oracle's
  dup_sites                  in and ext sites whose called name kbx
                             defines twice or more in the tree
  dup_certain_wrong          the share of those where kbx is certain and
                             wrong
  in.certain_right, in.certain_wrong, in.ambiguous, in.unresolved,
  in.none                    how kbx answered the `in` sites (shares)
  ext.certain_wrong ...      the same for the `ext` sites

Calls made through a macro (a site with a macro) are left out of all of
the above, which count the calls written where they are.  They are
scored through the macro, and counted in the keys ending in _macros,
which cover every site (written or made through a macro): at such a
site kbx must have a call of the macro (an edge, on the site's line, to
a node of that name), and from that macro a chain of calls to the
declaration, going only through macros (a macro that uses another
macro), at most 8 steps: the answer is the weakest confidence along the
chain, the surest chain counting.  A certain chain is right when it ends
at one of the oracle's places, wrong when it ends at another node of the
called name.  Such sites count in certain_precision_macros one each.

  sites.in_macro, sites.ext_macro   the oracle's sites made by a macro
  recall_macros, certain_precision_macros, dup_certain_wrong_macros,
  in_macro.certain_right ...        as above, over every site

With --errors FILE, every wrong certain answer and every missed `in` site
is written to FILE (TSV, with the source line when --tree is given).
"""
import sys
from collections import defaultdict

DEF_KINDS = {"function", "method", "class", "struct", "interface", "trait", "enum", "macro"}
CONF_RANK = {"certain": 0, "ambiguous": 1, "unresolved": 2}
MAX_SITES = 32


class Node:
    __slots__ = ("id", "kind", "lang", "name", "cid", "path", "line", "end")

    def __init__(self, r):
        self.id = int(r[1])
        self.kind, self.lang, self.name, self.cid = r[2], r[3], r[4], r[5]
        self.path = None if r[6] == "-" else r[6]
        self.line = None if r[7] == "-" else int(r[7])
        self.end = None if len(r) < 9 or r[8] == "-" else int(r[8])

    def loc(self):
        return f"{self.path}:{self.line}" if self.path else None


class Edge:
    __slots__ = ("frm", "to", "conf", "via", "sites")

    def __init__(self, frm, to, conf, via, sites):
        self.frm, self.to, self.conf, self.via, self.sites = frm, to, conf, via, sites


class Site:
    __slots__ = ("file", "line", "col", "nline", "ncol", "name", "kind", "targets", "what", "caller",
                 "macro")

    def __init__(self, r):
        self.file = r[0]
        self.line, self.col, self.nline, self.ncol = (int(x) for x in r[1:5])
        self.name, self.kind = r[5], r[6]
        self.targets = set() if r[7] == "-" else set(r[7].split(","))
        self.what = r[8] if len(r) > 8 else ""
        self.caller = set(r[9].split(",")) if len(r) > 9 and r[9] != "-" else set()
        self.macro = r[10] if len(r) > 10 and r[10] != "-" else None

    def lines(self):
        return {self.line, self.nline}


def site_of(text, edge_conf):
    """line, col and the call's own confidence (older exports: the edge's)"""
    f = text.split(":")
    return int(f[0]), int(f[1]), f[2] if len(f) > 2 else edge_conf


def read_kbx(path):
    nodes, edges = {}, []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            r = line.rstrip("\n").split("\t")
            if r[0] == "N":
                n = Node(r)
                nodes[n.id] = n
            elif r[0] == "E":
                if len(r) < 7:
                    sys.exit("score.py: the kbx export has no call sites: run kbx-export --sites")
                sites = [] if r[6] == "-" else [site_of(s, r[3]) for s in r[6].split(",")]
                edges.append(Edge(nodes[int(r[1])], nodes[int(r[2])], r[3], r[4], sites))
    return nodes, edges


def read_oracle(path):
    sites = []
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            r = line.rstrip("\n").split("\t")
            if len(r) < 8:
                sys.exit(f"score.py: {path}: bad line: {line.rstrip()}")
            sites.append(Site(r))
    return sites


class Kbx:
    """kbx's call edges, found by the place of a call"""

    def __init__(self, nodes, edges):
        self.by_line = defaultdict(list)   # (path, line) -> [(edge, col)]
        self.full = defaultdict(list)      # path -> edges holding MAX_SITES sites
        self.ndefs = defaultdict(int)      # name -> definitions in the tree
        self.defs = defaultdict(list)      # path -> definitions with lines
        self.out = defaultdict(list)       # node id -> its call edges
        for n in nodes.values():
            if n.kind in DEF_KINDS and n.path:
                self.ndefs[n.name] += 1
                if n.line and n.end:
                    self.defs[n.path].append(n)
        for e in edges:
            self.out[e.frm.id].append(e)
            if not e.frm.path:
                continue
            for ln, col, conf in e.sites:
                self.by_line[(e.frm.path, ln)].append((e, col, conf))
            if len(e.sites) >= MAX_SITES:
                self.full[e.frm.path].append(e)

    def enclosing(self, s):
        """the innermost kbx definition whose lines hold the call"""
        best = None
        for n in self.defs.get(s.file, ()):
            if n.line <= s.line <= n.end and (best is None or n.line > best.line):
                best = n
        return best

    def enclosing_code(self, s):
        """the innermost kbx function or method whose lines hold the
        call: outside one, the call is module-level code (a Lua class made
        by a call, `local P = class({...}, {check("name")})`, holds the
        calls in its arguments as lines, but they are the file's)"""
        best = None
        for n in self.defs.get(s.file, ()):
            if n.kind in ("function", "method") and n.line <= s.line <= n.end and \
                    (best is None or n.line > best.line):
                best = n
        return best

    @staticmethod
    def names(e, s):
        """does edge e stand for the call at oracle site s?"""
        return e.to.name == s.name or e.to.loc() in s.targets

    def pair_columns(self, sites):
        """Two or more calls of one name on one line (a.size() <
        b.size()): where kbx has as many columns there for the name as
        the oracle has calls, the n-th call by column is joined with the
        n-th column alone.  The two tools count columns differently (the
        expression's start, the name's), but in the same order."""
        self.col_of = {}
        groups = defaultdict(list)
        for s in sites:
            if not s.macro and s.nline == s.line:
                groups[(s.file, s.line, s.name)].append(s)
        for (path, ln, name), group in groups.items():
            if len(group) < 2:
                continue
            cols = sorted({col for e, col, _ in self.by_line.get((path, ln), ())
                           if any(self.names(e, s) for s in group)})
            order = sorted(group, key=lambda s: (s.col, s.ncol))
            if len(cols) != len(order) or len({(s.col, s.ncol) for s in order}) != len(order):
                continue
            for s, col in zip(order, cols):
                self.col_of[id(s)] = col

    def joined(self, s):
        """(edge, confidence of the call) for the edges at oracle site s"""
        got = {}
        only = getattr(self, "col_of", {}).get(id(s))
        for ln in s.lines():
            for e, col, conf in self.by_line.get((s.file, ln), ()):
                if only is not None and col != only:
                    continue
                if self.names(e, s):
                    old = got.get(id(e))
                    if old is None or CONF_RANK.get(conf, 3) < CONF_RANK.get(old[1], 3):
                        got[id(e)] = (e, conf)
        for e in self.full.get(s.file, ()):
            f = e.frm
            held = f.line and f.end and f.line <= s.line <= f.end
            if f.kind == "file" and f.path == s.file:
                held = self.enclosing_code(s) is None
            if held and self.names(e, s):
                # a site the edge did not keep: kbx said nothing of it,
                # so it is taken to be as sure as the least sure of the
                # sites kept, not as the surest
                weakest = max((c for _, _, c in e.sites), key=lambda c: CONF_RANK.get(c, 3),
                              default=e.conf)
                got.setdefault(id(e), (e, weakest))
        return list(got.values())


def through_macro(kbx, s):
    """kbx's answer for oracle site s, a call made by macro s.macro:
    (verdict, recalled, the calls of the macro at the site)"""
    start = []
    for ln in s.lines():
        for e, _, conf in kbx.by_line.get((s.file, ln), ()):
            if e.to.name == s.macro and e.to.kind == "macro":
                start.append((e, conf))
    for e in kbx.full.get(s.file, ()):
        f = e.frm
        if f.line and f.end and f.line <= s.line <= f.end and e.to.name == s.macro and \
                e.to.kind == "macro" and all(e is not x for x, _ in start):
            start.append((e, e.conf))
    # the surest chain to each node: rank of its weakest step
    best = {}
    todo = [(e.to, CONF_RANK.get(c, 3), 1) for e, c in start]
    while todo:
        n, rank, depth = todo.pop()
        if n.id in best and best[n.id][1] <= rank:
            continue
        best[n.id] = (n, rank)
        if n.kind != "macro" or depth > 8:
            continue
        for e in kbx.out.get(n.id, ()):
            todo.append((e.to, max(rank, CONF_RANK.get(e.conf, 3)), depth + 1))
    ends = [(n, r) for n, r in best.values() if n.loc() in s.targets or
            (n.name == s.name and n.kind != "macro")]
    if not ends:
        return "none", False, start
    recalled = any(n.loc() in s.targets for n, _ in ends)
    top = min(r for _, r in ends)
    conf = {0: "certain", 1: "ambiguous", 2: "unresolved"}.get(top, "none")
    if conf == "certain":
        right = any(n.loc() in s.targets for n, r in ends if r == top)
        return ("certain_right" if right else "certain_wrong"), recalled, start
    return conf, recalled, start


def verdict(s, es):
    """kbx's answer for oracle site s from the joined edges es"""
    if not es:
        return "none", None
    best = min(CONF_RANK.get(c, 3) for _, c in es)
    conf = {0: "certain", 1: "ambiguous", 2: "unresolved"}.get(best, "none")
    chosen = [e for e, c in es if CONF_RANK.get(c, 3) == best]
    if conf == "certain":
        right = any(e.to.loc() in s.targets for e in chosen)
        return ("certain_right" if right else "certain_wrong"), chosen
    return conf, chosen


def main(argv):
    lang, errors, tree = "", None, None
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--lang", "--errors", "--tree") and i + 1 < len(argv):
            if a == "--lang":
                lang = argv[i + 1] + "."
            elif a == "--errors":
                errors = argv[i + 1]
            else:
                tree = argv[i + 1]
            i += 2
            continue
        args.append(a)
        i += 1
    if len(args) != 2:
        sys.exit("usage: score.py [--lang L] [--errors FILE] [--tree DIR] ORACLE.tsv KBX.tsv")
    sites = read_oracle(args[0])
    nodes, edges = read_kbx(args[1])
    kbx = Kbx(nodes, edges)
    kbx.pair_columns(sites)

    out = []
    put = lambda k, v: out.append(f"{lang}{k}\t{v}")
    msites = [s for s in sites if s.macro]
    sites = [s for s in sites if not s.macro]
    kinds = defaultdict(int)
    for s in sites:
        kinds[s.kind] += 1
    for k in ("in", "virt", "ext", "dyn"):
        put(f"sites.{k}", kinds[k])

    wrong_rows = []
    answers = {"in": defaultdict(int), "ext": defaultdict(int)}
    recalled = by_name_node = missed_self = 0
    dup = dup_wrong = 0
    for s in sites:
        if s.kind not in ("in", "ext"):
            continue
        es = kbx.joined(s)
        v, chosen = verdict(s, es)
        answers[s.kind][v] += 1
        if s.kind == "in":
            if any(e.to.loc() in s.targets for e, _ in es):
                recalled += 1
            elif any(e.to.cid == "name:" + s.name for e, _ in es):
                recalled += 1
                by_name_node += 1
            else:
                # a call of the function it is in: kbx's walk never
                # lists an edge from a node to itself
                enc = kbx.enclosing(s)
                if s.caller & s.targets or (enc is not None and enc.loc() in s.targets):
                    missed_self += 1
                    wrong_rows.append(("missed-self", s, v, chosen))
                else:
                    wrong_rows.append(("missed", s, v, chosen))
        if v == "certain_wrong":
            wrong_rows.append(("certain-wrong", s, v, chosen))
        if kbx.ndefs.get(s.name, 0) >= 2:
            dup += 1
            dup_wrong += v == "certain_wrong"

    # precision: every site of every certain edge that meets a resolved
    # oracle site of the same name (or target) on its line
    oracle_at = defaultdict(list)
    for s in sites:
        for ln in s.lines():
            oracle_at[(s.file, ln)].append(s)
    cert = cert_right = 0
    for e in edges:
        if e.conf != "certain" or not e.frm.path:
            continue
        for ln, _, conf in e.sites:
            if conf != "certain":
                continue
            ss = [s for s in oracle_at.get((e.frm.path, ln), ()) if Kbx.names(e, s)]
            if not ss or any(s.kind in ("virt", "dyn") for s in ss):
                continue
            cert += 1
            cert_right += any(e.to.loc() in s.targets for s in ss)

    n_in = kinds["in"]
    ratio = lambda a, b: f"{a / b:.4f}" if b else "n/a"
    macro_out = []
    if msites:
        mk = defaultdict(int)
        manswers = defaultdict(int)
        mrec = mcert = mright = mdup = mdup_wrong = 0
        for s in msites:
            mk[s.kind] += 1
            if s.kind not in ("in", "ext"):
                continue
            v, rec, start = through_macro(kbx, s)
            if s.kind == "in":
                manswers[v] += 1
                mrec += rec
                if not rec:
                    wrong_rows.append(("missed-macro", s, v, [e for e, _ in start]))
            if v.startswith("certain"):
                mcert += 1
                mright += v == "certain_right"
            if v == "certain_wrong":
                wrong_rows.append(("certain-wrong-macro", s, v, [e for e, _ in start]))
            if kbx.ndefs.get(s.name, 0) >= 2:
                mdup += 1
                mdup_wrong += v == "certain_wrong"
        mput = lambda k, v: macro_out.append(f"{lang}{k}\t{v}")
        mput("sites.in_macro", mk["in"])
        mput("sites.ext_macro", mk["ext"])
        mput("recall_macros", ratio(recalled + mrec, n_in + mk["in"]))
        mput("certain_precision_macros", ratio(cert_right + mright, cert + mcert))
        mput("dup_certain_wrong_macros", ratio(dup_wrong + mdup_wrong, dup + mdup))
        for v in ("certain_right", "certain_wrong", "ambiguous", "unresolved", "none"):
            mput(f"in_macro.{v}", ratio(manswers[v], mk["in"]))
            mput(f"in_macro.{v}_n", manswers[v])
    put("recall", ratio(recalled, n_in))
    put("recalled", recalled)
    put("recall_name_node", by_name_node)
    put("missed_self", missed_self)
    put("certain_edges", cert)
    put("certain_right", cert_right)
    put("certain_precision", ratio(cert_right, cert))
    put("dup_sites", dup)
    put("dup_certain_wrong_n", dup_wrong)
    put("dup_certain_wrong", ratio(dup_wrong, dup))
    for k in ("in", "ext"):
        tot = kinds[k]
        for v in ("certain_right", "certain_wrong", "ambiguous", "unresolved", "none"):
            put(f"{k}.{v}", ratio(answers[k][v], tot))
            put(f"{k}.{v}_n", answers[k][v])
    print("\n".join(out + macro_out))

    if errors:
        write_errors(errors, wrong_rows, tree)


def write_errors(path, rows, tree):
    cache = {}

    def text(f, ln):
        if not tree:
            return ""
        if f not in cache:
            try:
                cache[f] = open(f"{tree}/{f}", encoding="utf-8", errors="replace").read().split("\n")
            except OSError:
                cache[f] = []
        ls = cache[f]
        return ls[ln - 1].strip()[:160] if 0 < ln <= len(ls) else ""

    with open(path, "w", encoding="utf-8") as o:
        o.write("# problem\tsite\tname\toracle_kind\toracle_target\toracle_what\tkbx\tkbx_targets\tkbx_via\tsource\n")
        for what, s, v, chosen in rows:
            kt = ",".join(sorted(e.to.cid for e in chosen)) if chosen else "-"
            kv = ",".join(sorted({e.via for e in chosen})) if chosen else "-"
            tg = ",".join(sorted(s.targets)) or "-"
            name = f"{s.macro}>{s.name}" if s.macro else s.name
            o.write(f"{what}\t{s.file}:{s.nline}\t{name}\t{s.kind}\t{tg}\t{s.what}\t{v}\t{kt}\t{kv}\t"
                    f"{text(s.file, s.nline)}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
