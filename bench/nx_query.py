#!/usr/bin/python3
"""bench/nx_query.py: answer callers/callees the seeds' way.

    nx_query.py GRAPH.pickle callers|callees|impact SYMBOL
    nx_query.py GRAPH.pickle path FROM TO

Loads the pickle written by nx_build.py (a networkx.DiGraph and a name
index) and prints one line per caller (predecessor) or callee (successor)
of every node SYMBOL names, as kbx does: SYMBOL is a canonical id
("path#Qual"), a qualified name ("Class.method", matched as a suffix of
the qualified name) or a bare name.  For callers of a function or method
it also takes the callers of the "name:NAME" node (calls kbx could not
pin down to one candidate among many of that name, same language family).
impact prints every transitive caller (networkx predecessors, breadth
first, with the same "name:NAME" callers at each function) with its
distance; path prints nx.shortest_path from FROM to TO, one line a
step (each must name one node, else exit 2, as kbx path does).
Exit status: 0 when something was printed, 1 when not, as kbx.
"""
import pickle
import sys

import networkx as nx

FAMILY = {"c": "c", "cpp": "c", "javascript": "js", "typescript": "js", "tsx": "js"}


def qual_of(cid):
    return cid.split("#", 1)[1] if "#" in cid else None


def lookup(g, by_name, sym):
    if sym in g and ("#" in sym or ":" in sym):
        return [sym]
    if "." in sym or "::" in sym:
        q = sym.replace("::", ".")
        name = q.rsplit(".", 1)[-1]
        return [c for c in by_name.get(name, ())
                if (qual_of(c) or "") == q or (qual_of(c) or "").endswith("." + q)]
    return [c for c in by_name.get(sym, ()) if g.nodes[c]["kind"] != "name"]


def callers_of(g, m):
    """predecessors of m, with those of "name:NAME" in m's language family"""
    found = list(g.predecessors(m))
    attrs = g.nodes[m]
    if attrs["kind"] in ("function", "method") and "name:" + attrs["name"] in g:
        fam = FAMILY.get(attrs["lang"], attrs["lang"])
        seen = set(found) | {m}
        for p in g.predecessors("name:" + attrs["name"]):
            if p not in seen and FAMILY.get(g.nodes[p]["lang"], g.nodes[p]["lang"]) == fam:
                seen.add(p)
                found.append(p)
    return found


def where(g, n):
    a = g.nodes[n]
    return f"{a['path']}:{a['line']}" if a["path"] else "(external)"


def impact(g, matches):
    dist = {m: 0 for m in matches}
    frontier = list(matches)
    d = 0
    while frontier:
        d += 1
        nxt = []
        for n in frontier:
            for p in callers_of(g, n):
                if p not in dist:
                    dist[p] = d
                    nxt.append(p)
        frontier = nxt
    out = [f"impact of {' '.join(matches)}"]
    for n, k in sorted(dist.items(), key=lambda x: x[1]):
        out.append(f"  {where(g, n)}  {g.nodes[n]['name']} ({g.nodes[n]['kind']}) distance {k}")
    return out


def one(g, by_name, sym):
    m = lookup(g, by_name, sym)
    if len(m) != 1:
        print(f"error: '{sym}' names {len(m)} nodes", file=sys.stderr)
        sys.exit(2 if m else 1)
    return m[0]


def main():
    if not (len(sys.argv) == 4 and sys.argv[2] in ("callers", "callees", "impact")) and \
            not (len(sys.argv) == 5 and sys.argv[2] == "path"):
        sys.exit("usage: nx_query.py GRAPH.pickle callers|callees|impact SYMBOL\n"
                 "       nx_query.py GRAPH.pickle path FROM TO")
    with open(sys.argv[1], "rb") as f:
        d = pickle.load(f)
    g, by_name = d["graph"], d["by_name"]
    if sys.argv[2] == "path":
        a, b = one(g, by_name, sys.argv[3]), one(g, by_name, sys.argv[4])
        try:
            p = nx.shortest_path(g, a, b)
        except nx.NetworkXNoPath:
            print(f"no path from {a} to {b}", file=sys.stderr)
            return 1
        out = [f"path from {a} to {b}, {len(p) - 1} steps"]
        out += [f"  {where(g, x)}  {x} calls {y}" for x, y in zip(p, p[1:])]
        sys.stdout.write("\n".join(out) + "\n")
        return 0
    matches = lookup(g, by_name, sys.argv[3])
    if not matches:
        print(f"error: no symbol '{sys.argv[3]}' in the graph", file=sys.stderr)
        return 1
    if sys.argv[2] == "impact":
        out = impact(g, matches)
        sys.stdout.write("\n".join(out) + "\n")
        return 0
    out = []
    for m in matches:
        out.append(f"{sys.argv[2]} of {m}")
        found = list(g.successors(m)) if sys.argv[2] == "callees" else callers_of(g, m)
        for n in found:
            a = g.nodes[n]
            out.append(f"  {where(g, n)}  {a['name']} ({a['kind']})")
    sys.stdout.write("\n".join(out) + "\n")
    return 0 if len(out) > len(matches) else 1


if __name__ == "__main__":
    sys.exit(main())
