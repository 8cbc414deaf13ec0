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
/* The repositories asked, by name: the i'th one's name and id (the
 * repo column of the tables). */
size_t db_graph_nrepos(const struct db_graph *g);
const char *db_graph_repo_name(const struct db_graph *g, size_t i);
const char *db_graph_repo_id(const struct db_graph *g, size_t i);
/* Run sql and keep its rows (*res) until db_graph_close.  Returns 0 or
 * an exit code after printing the error. */
struct kbx_pg_result;
int db_graph_query(struct db_graph *g, const char *sql, int n, const char *const *params,
		   struct kbx_pg_result **res, const char *what);
const struct kbx_pg_ops *db_graph_ops(const struct db_graph *g);
/* As db_graph_query, the rows in the binary format when binary, and
 * not kept: the caller clears them (the module's clear). */
int db_graph_query_once(struct db_graph *g, const char *sql, int n, const char *const *params,
			int binary, struct kbx_pg_result **res, const char *what);
/* The i'th repository asked as an index among every repository asked
 * before a focus (db_graph_focus), their number, and the id of the
 * i'th of them: what is read for several repositories at once. */
size_t db_graph_base_index(const struct db_graph *g, size_t i);
size_t db_graph_base_nrepos(const struct db_graph *g);
const char *db_graph_base_repo_id(const struct db_graph *g, size_t i);
/* What db-search.c reads for several repositories at once (a batch of
 * those asked), kept with the connection; freed by db_graph_close
 * with db_search_cache_free. */
struct db_search_cache;
struct db_search_cache **db_graph_search_cache(struct db_graph *g);
void db_search_cache_free(struct db_search_cache *c);
/* Does the database hold the tables of the schema this kbx writes
 * (KBX_PG_SCHEMA)?  0, or the error printed (cmd: the command that
 * needs it) and its exit code (14). */
int db_graph_schema(struct db_graph *g, const char *cmd);

/* kbx --db search: q over the i'th repository asked, as kbx_search
 * over its index (kbx_search_source).  Returns 0 with st and *res as
 * kbx_search's (err says why st failed), or an exit code after
 * printing the database's error.  *res's strings stay valid until
 * db_graph_close. */
struct kbx_search_query;
struct kbx_search_results;
int db_search(struct db_graph *g, size_t i, const struct kbx_search_query *q,
	      struct kbx_search_results *res, kbx_status_t *st, struct kbx_error *err);
/* kbx --db search --all-repos: each repository searched so, the lists
 * fused as search_all_repos fuses the stores'.  The command's exit
 * code. */
struct output_opts;
int db_search_all(struct kbx_ctx *ctx, const struct kbx_search_query *q,
		  const struct output_opts *oo, int explain);

/* Append the nodes sym names, as kbx_lookup does, to out, and remember
 * the repository of each (db_graph_match_repo).  Returns 0, or an exit
 * code after printing the error (1 for none). */
int db_graph_lookup(struct db_graph *g, const char *sym, struct kbx_nodelist *out);
/* As db_graph_lookup, quietly: none found is 0 with nothing appended,
 * and so is a symbol kbx_lookup would not parse.  Returns 0 or an exit
 * code after printing the database's error.  The last lookup's matches
 * (db_graph_walk) are left as they were. */
int db_graph_find(struct db_graph *g, const char *sym, struct kbx_nodelist *out);

/* Ask only the i'th repository asked (as if --repo named it, and
 * without --all-repos' links between repositories) until
 * db_graph_unfocus.  A focus within a focus (a walk's callback asking
 * again) must be on the same repository. */
void db_graph_focus(struct db_graph *g, size_t i);
void db_graph_unfocus(struct db_graph *g);

/* The nodes of the repository asked (focused) for which the SQL
 * condition where holds (on the nodes n, the repository $1 and params
 * $2...$n+1, at most 7), appended to out in the order it gives (an
 * ORDER BY may end it).  Returns 0 or an exit code after printing the
 * error. */
int db_graph_nodes(struct db_graph *g, const char *where, int n, const char *const *params,
		   struct kbx_nodelist *out);

/* The repository of out->items[i] of the last lookup: its name, and
 * its index among those asked (db_graph_repo_name). */
const char *db_graph_match_repo(const struct db_graph *g, size_t i);
size_t db_graph_match_repo_index(const struct db_graph *g, size_t i);

/* kbx_walk_edges_flags from out->items[match] of the last lookup,
 * one statement per depth; *repo names the repository of e->from
 * (callers) or e->to (callees) while fn runs.  Strings stay valid
 * until db_graph_close.  Returns 0 or an exit code after printing the
 * error. */
int db_graph_walk(struct db_graph *g, size_t match, int kind, int dir, uint32_t max_depth,
		  unsigned flags, kbx_edge_fn fn, void *data, const char **repo);

/* The repositories of an edge's two nodes, by their index among those
 * asked (db_graph_repo_name), while the walk's fn runs. */
struct db_edge_repos {
	size_t from, to;
	size_t near;    /* db_graph_step: the index in from[] of the node left */
};

/* As db_graph_walk, from any node n of the repo'th repository asked
 * (its id as db_graph_node and the walks hand them out; 0 when one
 * repository is asked).  With --all-repos the walk crosses
 * repositories as db_graph_walk does, and *at (unless NULL) says
 * where each edge's nodes are. */
int db_graph_walk_node(struct db_graph *g, size_t repo, const struct kbx_node *n, int kind,
		       int dir, uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *data,
		       struct db_edge_repos *at);

/* A node of the repo'th repository asked. */
struct db_node_ref {
	size_t repo;
	uint32_t id;
};

/* One hop of db_graph_walk_node from each of the n nodes from[] at
 * once (kbx path's layer), in a few statements for them all: fn gets
 * the edges of from[0] first, then those of from[1]..., each node's
 * those a walk of one hop from it alone hands over, in that order,
 * at->near naming the one the edge leaves.
 * Returns 0 or an exit code after printing the error. */
int db_graph_step(struct db_graph *g, const struct db_node_ref *from, size_t n, int kind,
		  int dir, unsigned flags, kbx_edge_fn fn, void *data, struct db_edge_repos *at);

/* The node id of the repo'th repository asked, as kbx_node_get.
 * Returns 0 or an exit code after printing the error. */
int db_graph_node(struct db_graph *g, size_t repo, uint32_t id, struct kbx_node *out);

/* kbx_name_candidates: the callables of the repo'th repository asked
 * that a call through the name: node ref from a file of language lang
 * may mean, by id, appended to out.  Returns 0 (none found included)
 * or an exit code after printing the error. */
int db_graph_name_candidates(struct db_graph *g, size_t repo, const struct kbx_node *ref,
			     int lang, struct kbx_nodelist *out);

/* kbx --db repos: the repositories the database holds, by name, with
 * what kbx push recorded of each. */
struct output_opts;
int db_graph_repos(struct kbx_ctx *ctx, const struct output_opts *oo, int names_only);

#endif
