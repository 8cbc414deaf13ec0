/*
 * kbx --db: the graph queries asked of the database kbx push fills
 * instead of the local index.  The commands keep their options and
 * their printing (output.h); what they ask the store (look a symbol
 * up, walk the edges from a node) they ask here, in the same order and
 * with the same records, through the module of pg-module.h.
 *
 * One repository (--repo=NAME, else the one kbx push would name from
 * here) or all of them (--all-repos).  Across repositories, an
 * external name of one (extern:NAME) is linked at query time to the
 * definition another exports under that name (the link column kbx
 * push writes): callers and callees then cross repositories, with
 * confidence certain when one repository exports the name and
 * ambiguous when several do (via "package").
 */
#ifndef KBX_DB_GRAPH_H
#define KBX_DB_GRAPH_H

#include "builtin.h"

struct db_graph;

/* Connect to ctx->db_url and choose the repositories from the
 * command's arguments (--repo, --all-repos) into ctx->db.  Returns 0,
 * or an exit code after printing the error: 3 for a repository the
 * database does not hold, 12-14 as kbx push. */
int db_graph_open(struct kbx_ctx *ctx, int argc, const char **argv);
void db_graph_close(struct kbx_ctx *ctx);

/* Every repository (--all-repos): records name theirs. */
int db_graph_all(const struct db_graph *g);

/* Append the nodes sym names, as kbx_lookup does, to out, and remember
 * the repository of each (db_graph_match_repo).  Returns 0, or an exit
 * code after printing the error (1 for none). */
int db_graph_lookup(struct db_graph *g, const char *sym, struct kbx_nodelist *out);
/* The repository of out->items[i] of the last lookup. */
const char *db_graph_match_repo(const struct db_graph *g, size_t i);

/* kbx_walk_edges_flags from out->items[match] of the last lookup,
 * one statement per depth; *repo names the repository of e->from
 * (callers) or e->to (callees) while fn runs.  Strings stay valid
 * until db_graph_close.  Returns 0 or an exit code after printing the
 * error. */
int db_graph_walk(struct db_graph *g, size_t match, int kind, int dir, uint32_t max_depth,
		  unsigned flags, kbx_edge_fn fn, void *data, const char **repo);

/* kbx --db repos: the repositories the database holds, by name, with
 * what kbx push recorded of each. */
struct output_opts;
int db_graph_repos(struct kbx_ctx *ctx, const struct output_opts *oo, int names_only);

#endif
