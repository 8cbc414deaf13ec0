#!/usr/bin/python3
"""bench/nx_query.py: answer callers/callees the seeds' way.

    nx_query.py GRAPH.pickle callers|callees SYMBOL

Loads the pickle written by nx_build.py (a networkx.DiGraph and a name
index) and prints one line per caller (predecessor) or callee (successor)
of every node SYMBOL names, as kbx does: SYMBOL is a canonical id
("path#Qual"), a qualified name ("Class.method", matched as a suffix of
the qualified name) or a bare name.  For callers of a function or method
it also takes the callers of the "name:NAME" node (calls kbx could not
pin down to one candidate among many of that name, same language family).
Exit status: 0 when something was printed, 1 when not, as kbx.
"""
import pickle
import sys

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


def main():
    if len(sys.argv) != 4 or sys.argv[2] not in ("callers", "callees"):
        sys.exit("usage: nx_query.py GRAPH.pickle callers|callees SYMBOL")
    with open(sys.argv[1], "rb") as f:
        d = pickle.load(f)
    g, by_name = d["graph"], d["by_name"]
    matches = lookup(g, by_name, sys.argv[3])
    if not matches:
        print(f"error: no symbol '{sys.argv[3]}' in the graph", file=sys.stderr)
        return 1
    out = []
    for m in matches:
        attrs = g.nodes[m]
        out.append(f"{sys.argv[2]} of {m}")
        if sys.argv[2] == "callees":
            found = list(g.successors(m))
        else:
            found = list(g.predecessors(m))
            if attrs["kind"] in ("function", "method") and "name:" + attrs["name"] in g:
                fam = FAMILY.get(attrs["lang"], attrs["lang"])
                seen = set(found) | {m}
                for p in g.predecessors("name:" + attrs["name"]):
                    if p not in seen and FAMILY.get(g.nodes[p]["lang"], g.nodes[p]["lang"]) == fam:
                        seen.add(p)
                        found.append(p)
        for n in found:
            a = g.nodes[n]
            where = f"{a['path']}:{a['line']}" if a["path"] else "(external)"
            out.append(f"  {where}  {a['name']} ({a['kind']})")
    sys.stdout.write("\n".join(out) + "\n")
    return 0 if len(out) > len(matches) else 1


if __name__ == "__main__":
    sys.exit(main())
