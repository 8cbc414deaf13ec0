/*
 * kbx --db hybrid (and kbx --db context, which asks it): the plan of
 * lib/hybrid/ over the database kbx push fills (db-graph.h).
 */
#ifndef KBX_DB_HYBRID_H
#define KBX_DB_HYBRID_H

#include "builtin.h"
#include "hybrid/kbx-hybrid.h"

struct db_graph;

/* kbx_hybrid over the i'th repository asked, its graph and its search
 * the database's.  Returns 0 with *st and *res as kbx_hybrid's (err
 * says why *st failed), or an exit code after printing the database's
 * error.  res's strings stay valid until db_graph_close. */
int db_hybrid(struct db_graph *g, size_t i, const struct kbx_hybrid_opts *ho,
	      struct kbx_hybrid_results *res, kbx_status_t *st, struct kbx_error *err);

#endif
