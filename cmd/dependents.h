/*
 * What depends on a set of nodes: their transitive callers, and for
 * files and modules their transitive importers, each with its distance
 * from the nearest of them (kbx impact, kbx changed --callers).
 */
#ifndef KBX_DEPENDENTS_H
#define KBX_DEPENDENTS_H

#include "kbx.h"
#include "output.h"

struct dependents;

/* max_depth: hops to follow, 0 for all; walk_flags: KBX_WALK_CERTAIN to
 * follow only certain edges (kbx.h).  NULL when out of memory. */
struct dependents *dependents_new(kbx_store_t *store, uint32_t max_depth, unsigned walk_flags);
void dependents_free(struct dependents *d);

/* Add n (at distance 0) and walk what depends on it: the callers of a
 * callable, the importers of a file or module, and for a file or a
 * class also the callers of what it defines. */
kbx_status_t dependents_walk(struct dependents *d, const struct kbx_node *n,
			     struct kbx_error *err);

/* As dependents_walk, over the database kbx --db asks (db-graph.h),
 * from n of its repo'th repository (db_graph_match_repo_index; 0 when
 * one is asked).  With --all-repos the walk crosses into the other
 * repositories through the calls linked to n's definitions, and
 * dependents_print names each node's repository.  Returns 0 or an exit
 * code after printing the error. */
struct db_graph;
int dependents_walk_db(struct dependents *d, struct db_graph *db, size_t repo,
		       const struct kbx_node *n);

/* How many nodes were found, the starting ones included. */
size_t dependents_count(const struct dependents *d);

/* Print them nearest first: "changed" records for the starting nodes
 * (unless skip_start: the caller printed them its own way), "affected"
 * for the others. */
void dependents_print(struct out *o, struct dependents *d, int skip_start);

#endif
