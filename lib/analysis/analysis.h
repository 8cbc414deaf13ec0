/*
 * lib/analysis/: what is computed over the whole graph, on top of
 * lib/graph/: scans of every node or edge (graph-scan.c), strongly
 * connected components (cycles.c), the dependency graph that kbx cycles
 * and kbx check share (depgraph.c), the structure rules of kbx check
 * (rules.c), functions nothing calls (dead.c) and the definitions
 * changed since the index or a revision (changes.c).  The retrieval
 * layer's hybrid questions use it; nothing below it does.
 *
 * Whole-graph analysis over the store: scans of every node or every edge
 * of some kinds, the definitions a name reference stands for, and
 * strongly connected components.  Part of the quiet library (see kbx.h):
 * nothing here prints or exits; every call returns a kbx_status_t and
 * fills the caller's struct kbx_error on failure.
 *
 * The scans read the store's snapshot in one pass over a table: use them
 * for questions about the whole graph (kbx check), and kbx_walk_edges()
 * for questions about one node.
 */
#ifndef KBX_ANALYSIS_H
#define KBX_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"

/* A set of edge kinds for kbx_scan_edges: KBX_EDGE_MASK(KBX_EDGE_CALLS) |
 * KBX_EDGE_MASK(KBX_EDGE_IMPORTS).  Node kinds (enum kbx_kind in
 * lang/lang.h) combine the same way with KBX_KIND_MASK. */
#define KBX_EDGE_MASK(kind) (1u << (kind))
#define KBX_KIND_MASK(kind) (1u << (kind))

/*
 * Call fn with every edge whose kind is in kinds (a KBX_EDGE_MASK set;
 * 0 means every kind), once each, in its own direction (from calls,
 * imports, defines or inherits to), ordered by the source's id and then
 * by kind.  depth is 1; sites point into the store and are valid only
 * during the call.  The node views in the edge stay valid until the
 * store is closed.  fn returns non-zero to stop the scan (the call then
 * returns KBX_OK).  Edges to name:NAME references are passed as they
 * are: see kbx_name_candidates().
 */
kbx_status_t kbx_scan_edges(kbx_store_t *store, unsigned kinds, kbx_edge_fn fn, void *data,
			    struct kbx_error *err);

/* Called for each node; return non-zero to stop. */
typedef int (*kbx_node_fn)(void *data, const struct kbx_node *node);

/*
 * Call fn with every node whose kind is in kinds (a KBX_KIND_MASK set; 0
 * means every kind), in id order.  The views stay valid until the store
 * is closed.
 */
kbx_status_t kbx_scan_nodes(kbx_store_t *store, unsigned kinds, kbx_node_fn fn, void *data,
			    struct kbx_error *err);

/*
 * The definitions a name reference (a node of kind name, canonical id
 * name:NAME) stands for, as seen from a caller written in language lang:
 * every function or method called NAME in a language that could make the
 * call, which is what kbx_walk_edges() counts as the callers of such a
 * definition.  Appended to out (the caller releases it); KBX_NOT_FOUND
 * when there is none, KBX_ERR_USAGE when ref is not a name reference.
 */
kbx_status_t kbx_name_candidates(kbx_store_t *store, const struct kbx_node *ref, int lang,
				 struct kbx_nodelist *out, struct kbx_error *err);

/*
 * The candidates of name references, each looked up once: a call graph
 * walk meets the same name:NAME node again and again.
 */
struct kbx_cand_entry;
struct kbx_cand_cache {
	struct kbx_cand_entry *items;
	size_t n, alloc;
};
#define KBX_CAND_CACHE_INIT { NULL, 0, 0 }

/* kbx_name_candidates(store, ref, lang) into *out, from the cache when
 * it was asked before (for ref and lang's family).  *out is empty, not
 * an error, when there is no candidate; it stays valid until the cache
 * is released. */
kbx_status_t kbx_cand_cache_get(kbx_store_t *store, struct kbx_cand_cache *cache,
				const struct kbx_node *ref, int lang,
				const struct kbx_nodelist **out, struct kbx_error *err);
void kbx_cand_cache_release(struct kbx_cand_cache *cache);

/*
 * Strongly connected components of a directed graph of n vertices
 * 0..n-1 given as adjacency arrays: the successors of v are
 * targets[offsets[v]] .. targets[offsets[v + 1] - 1] (offsets has n + 1
 * entries).  Tarjan's algorithm, iterative, so the depth of the graph
 * does not matter.  comp (n entries, the caller's) receives each
 * vertex's component number; components are numbered from 0 in reverse
 * topological order (a component's successors have smaller numbers) and
 * *ncomp receives how many there are.  KBX_ERR_NOMEM when memory runs
 * out, KBX_ERR_USAGE when a target is out of range.
 */
kbx_status_t kbx_scc(size_t n, const size_t *offsets, const uint32_t *targets, uint32_t *comp,
		     size_t *ncomp, struct kbx_error *err);

/*
 * A shortest cycle through vertex start that stays inside start's
 * component (comp as filled by kbx_scc) and, unless first is
 * KBX_ANY_VERTEX, goes from start to first in its first step (the
 * caller knows that edge exists).  path receives the vertices along it,
 * start first, each followed by its successor on the cycle and the last
 * one leading back to start; *len receives their number (1 for a vertex
 * with an edge to itself).  path has room for n vertices.  KBX_NOT_FOUND
 * when there is no such cycle.
 */
#define KBX_ANY_VERTEX UINT32_MAX
kbx_status_t kbx_scc_cycle(size_t n, const size_t *offsets, const uint32_t *targets,
			   const uint32_t *comp, uint32_t start, uint32_t first, uint32_t *path,
			   size_t *len, struct kbx_error *err);

/* ---- functions nothing calls (lib/analysis/dead.c) ---- */

/* Why kbx_dead_scan() passes on a function or method nothing calls. */
enum kbx_dead_reason {
	KBX_DEAD = 0,            /* dead: report it */
	KBX_DEAD_IGNORED,        /* named by an ignore glob */
	KBX_DEAD_ENTRY,          /* an entry point: the runtime or a framework calls it */
	KBX_DEAD_OVERRIDE,       /* overrides or implements a base's method */
	KBX_DEAD_REFERENCED,     /* its name is used other than in a call: a callback */
	KBX_DEAD_TEST,           /* a test, or code in a test file */
	KBX_DEAD_EXPORTED,       /* visible outside its module (KBX_NODE_EXPORTED) */
	KBX_DEAD__COUNT
};

/* "dead", "ignored", "entry-point", "override", "referenced", "test",
 * "exported". */
const char *kbx_dead_reason_str(int reason);

struct kbx_dead_opts {
	unsigned kinds;                 /* KBX_KIND_MASK of function and method; 0: both */
	int include_exported;           /* exported ones are dead too */
	int include_tests;              /* tests and test files are dead too */
	const char *const *ignore;      /* globs (kbx_glob_match) over names, qualified
					 * names and canonical ids */
	size_t nignore;
	int certain_only;               /* only calls kbx_edge_wanted(KBX_WALK_CERTAIN)
					 * takes keep a function alive (--certain) */
};

/*
 * Called for each function or method that nothing calls, with the reason
 * it is left out (KBX_DEAD when it is not) and, for a reason, a sentence
 * that says why ("an entry point: Python calls __init__ itself"), valid
 * during the call only.  For KBX_DEAD it is NULL, but with certain_only
 * a dead one that an ambiguous call may reach (a call left out) comes
 * with "only ambiguous calls may reach it".  Return non-zero to stop.
 */
typedef int (*kbx_dead_fn)(void *data, const struct kbx_node *node, int reason,
			   const char *why);

/*
 * Find the functions and methods nothing calls, in one pass over the
 * nodes and one over the CALLS and INHERITS edges.  A call of any
 * confidence keeps its target alive: every candidate of an ambiguous
 * call, and every definition a name:NAME reference stands for (see
 * kbx_name_candidates()), so obj.process() on an unknown receiver keeps
 * each process of the caller's language family.  With certain_only, an
 * ambiguous call keeps nothing alive: what only such calls reach is
 * reported, saying so.  A function calling
 * itself is not a caller.  A function whose name the source files of its
 * language use other than in a call (a callback, a function pointer) is
 * left out as referenced: this reads the indexed files from the working
 * tree.  fn is called in id order.  The ignore globs
 * are checked first (KBX_ERR_USAGE names a bad one).
 */
kbx_status_t kbx_dead_scan(kbx_store_t *store, const struct kbx_dead_opts *opts, kbx_dead_fn fn,
			   void *data, struct kbx_error *err);

/* Is path a test file (tests/, spec/, test_x.py, x_test.go, x.spec.ts,
 * XTest.java, ...)?  Is name (in language lang, with its qualified name
 * qual) a test function? */
int kbx_is_test_path(const char *path, size_t len);
int kbx_is_test_name(const char *name, const char *qual, int lang);

/*
 * A dependency graph gathered from the store's edges, to find cycles in:
 * the edges are added one by one (during kbx_scan_edges), then
 * kbx_depgraph_cycles() numbers the nodes as vertices, merges the edges
 * (one per pair of nodes, certain when any of them was) and reports
 * cycles.  Shared by kbx check's no-cycles rule and kbx cycles.
 */
struct kbx_dep_edge {
	uint32_t from, to;      /* node ids */
	uint32_t line, col;     /* the edge's first site; 0 when it has none */
	int certain;            /* 0: ambiguous */
};

struct kbx_depgraph {
	struct kbx_dep_edge *edges;
	size_t nedges, aedges;
	/* filled by kbx_depgraph_cycles: vertex v is node ids[v] (ascending),
	 * its successors are tg_all[off_all[v]] .. tg_all[off_all[v + 1] - 1]
	 * (the edge of position i is edges[e_all[i]]), and those through
	 * certain edges tg_cert[off_cert[v]] .. */
	uint32_t *ids;
	size_t n;
	size_t *off_all, *off_cert;
	uint32_t *tg_all, *tg_cert, *e_all;
	struct kbx_cand_cache cands;
};
#define KBX_DEPGRAPH_INIT { 0 }

/* Free what the graph holds (not g itself). */
void kbx_depgraph_release(struct kbx_depgraph *g);

/* Add one edge between two nodes.  KBX_ERR_NOMEM when memory runs out. */
kbx_status_t kbx_depgraph_add(struct kbx_depgraph *g, uint32_t from, uint32_t to, uint32_t line,
			      uint32_t col, int certain, struct kbx_error *err);

/* Whether a node takes part in the graph; data is the caller's. */
typedef int (*kbx_depgraph_keep_fn)(void *data, const struct kbx_node *n);

/*
 * Add an edge as kbx_scan_edges() passes it.  Both ends must be nodes of
 * a file (definitions or files) that keep (NULL: every node) accepts;
 * an edge to a name reference becomes an ambiguous edge to each of its
 * candidates (kbx_name_candidates()) that keep accepts.  An edge from a
 * node to itself is dropped unless self_loops.
 */
kbx_status_t kbx_depgraph_add_edge(kbx_store_t *store, struct kbx_depgraph *g,
				   const struct kbx_edge *e, int self_loops,
				   kbx_depgraph_keep_fn keep, void *data, struct kbx_error *err);

/* The merged edge from vertex u to vertex w, or NULL (after cycles). */
const struct kbx_dep_edge *kbx_depgraph_edge(const struct kbx_depgraph *g, uint32_t u, uint32_t w);

/*
 * Called with one cycle: path holds its vertices (node g->ids[path[i]]),
 * each with an edge to the next and the last one back to the first; len
 * of them (1: a node with an edge to itself).  component is how many
 * nodes reach each other there; certain is 0 when the cycle closes only
 * through ambiguous edges.  Return non-zero to stop.
 */
typedef int (*kbx_cycle_fn)(void *data, const struct kbx_depgraph *g, const uint32_t *path,
			    size_t len, size_t component, int certain);

/*
 * Find the strongly connected components of the graph and call fn with
 * one shortest cycle of each, starting at the node with the smallest
 * canonical id: first the cycles of certain edges, then, unless
 * certain_only, one for each component that closes only through
 * ambiguous edges (starting with such an edge).  Call once per graph.
 */
kbx_status_t kbx_depgraph_cycles(kbx_store_t *store, struct kbx_depgraph *g, int certain_only,
				 kbx_cycle_fn fn, void *data, struct kbx_error *err);

#endif
