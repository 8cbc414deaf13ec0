/*
 * kbx --db hybrid (and kbx --db context, which asks it): the plan of
 * lib/hybrid/ over the database kbx push fills (db-graph.h).
 */
#ifndef KBX_DB_HYBRID_H
#define KBX_DB_HYBRID_H

#include "builtin.h"
#include "hybrid/kbx-hybrid.h"

struct db_graph;

/* The graph of the i'th repository asked, for kbx_hybrid_over (and
 * kbx context's sources): each callback asks the database focused on
 * it (db_graph_focus).  rc: the exit code of a statement that failed
 * (its error printed), 0 if none. */
struct db_hgraph {
	struct db_graph *g;
	size_t i;
	int rc;
	/* the nodes of the last search's hits, read with it: hits[k]'s
	 * doc_id and its node (node[k] an index in nodes, -1 for none,
	 * -2 for several: asked again) */
	char **hits;
	int *node;
	size_t nhits;
	struct kbx_nodelist nodes;
};
void db_hybrid_graph(struct db_hgraph *h, struct kbx_hybrid_graph *out);
/* Free what h read ahead (its rows stay the connection's). */
void db_hgraph_release(struct db_hgraph *h);

/* kbx_hybrid over the i'th repository asked, its graph and its search
 * the database's.  Returns 0 with *st and *res as kbx_hybrid's (err
 * says why *st failed), or an exit code after printing the database's
 * error.  res's strings stay valid until db_graph_close. */
int db_hybrid(struct db_graph *g, size_t i, const struct kbx_hybrid_opts *ho,
	      struct kbx_hybrid_results *res, kbx_status_t *st, struct kbx_error *err);

#endif
