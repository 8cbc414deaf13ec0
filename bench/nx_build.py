#!/usr/bin/python3
"""bench/nx_build.py: the seeds' design, rebuilt from kbx's own edges.

    nx_build.py EDGES.tsv GRAPH.pickle

EDGES.tsv is the output of bench/kbx-export (N and E records).  Builds a
networkx.DiGraph whose nodes are kbx's canonical ids ("path#Qual.name",
"extern:printf", "name:read", "path" for a file) with the node's kind,
lang, name, path and line as attributes, and whose edges are kbx's CALLS
edges (confidence, via, number of call sites), plus a dict from simple
name to node ids so that a query does not scan every node; pickles both.
"""
import pickle
import sys

import networkx as nx


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: nx_build.py EDGES.tsv GRAPH.pickle")
    g = nx.DiGraph()
    by_id = {}
    by_name = {}
    with open(sys.argv[1], encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            r = line.rstrip("\n").split("\t")
            if r[0] == "N":
                _, nid, kind, lang, name, cid, path, lno = r
                by_id[nid] = cid
                g.add_node(cid, kind=kind, lang=lang, name=name,
                           path=None if path == "-" else path,
                           line=None if lno == "-" else int(lno))
                by_name.setdefault(name, []).append(cid)
            elif r[0] == "E":
                _, a, b, conf, via, nsites = r
                g.add_edge(by_id[a], by_id[b], confidence=conf, via=via,
                           sites=int(nsites))
    with open(sys.argv[2], "wb") as f:
        pickle.dump({"graph": g, "by_name": by_name}, f,
                    protocol=pickle.HIGHEST_PROTOCOL)
    print(f"nx_build: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges",
          file=sys.stderr)


if __name__ == "__main__":
    main()
