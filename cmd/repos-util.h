/*
 * Several repositories: naming another store (--repo), registering a
 * store after 'kbx index', and opening every registered store at once
 * (--all-repos).  The list itself lives in lib/util/repos.h.
 */
#ifndef KBX_REPOS_UTIL_H
#define KBX_REPOS_UTIL_H

#include <stddef.h>

#include "builtin.h"
#include "util/repos.h"

/* The store and root of a registered name, or of a directory given
 * instead (a path holding '/', or "."): both malloc()ed.  Returns 0, or
 * an exit code after printing the error (3 for a name not registered,
 * with the nearest names). */
int repo_resolve(const char *name, char **kbx_dir, char **root);

/* Make ctx use the store named name, as "-C <root> --kbx-dir=<store>"
 * would.  Returns 0 or an exit code after printing the error. */
int repo_select(struct kbx_ctx *ctx, const char *name);

/*
 * The dispatcher's look at a store-reading command's arguments before
 * the command parses them: the last --repo=NAME (or --repo NAME) before
 * "--", else global (kbx --repo), into *repo; and whether --all-repos is
 * there.  Returns 0, or 2 after printing an error (both given).
 */
int repo_scan_args(int argc, const char **argv, const char *global, const char **repo,
		   int *all_repos);

/* After a successful 'kbx index': list the store in the user's list of
 * repositories as the repos.register setting says (auto: when it has a
 * remote on another machine, or is listed already; always; never).  A
 * failure is a warning; nothing here changes the exit code. */
void repo_register_store(struct kbx_ctx *ctx);

/* Drop from the user's list the repositories that are gone (their root
 * and their index both deleted), each with a note on stderr; a list
 * that cannot be changed is a warning.  kbx repos list and --all-repos
 * do it before they read the list. */
void repo_prune_gone(void);

/* ---- every registered store at once ---- */

struct repo_store {
	const struct kbx_repo *repo;   /* name, kbx_dir, root (in the set's list) */
	kbx_store_t *store;            /* open read-only */
	struct kbx_config *config;     /* the user's settings and this repository's */
};

struct repo_stores {
	struct kbx_repo_list list;
	struct repo_store *items;
	size_t n;
};
#define REPO_STORES_INIT { KBX_REPO_LIST_INIT, NULL, 0 }

/* Open every registered store that has an index, each read-only and with
 * its settings, in the order of the list.  One that is missing or cannot
 * be opened is skipped with a warning.  Returns 0, or an exit code after
 * printing the error: 3 when there is none to open. */
int repo_stores_open(struct kbx_ctx *ctx, struct repo_stores *rs);
void repo_stores_close(struct repo_stores *rs);

/* kbx search --all-repos: q (its embedding settings are each store's
 * own) run against every store, the lists fused by reciprocal rank
 * fusion (q->rrf_k), the best q->limit printed, each naming its
 * repository.  Returns the command's exit code. */
struct kbx_search_query;
struct output_opts;
int search_all_repos(struct kbx_ctx *ctx, const struct kbx_search_query *q,
		     const struct output_opts *oo, int explain);

/* What search_all_repos and kbx --db search --all-repos share: a
 * repository's search that returned st (a failure is warned of and
 * its results emptied: 0; else its signals' notes warned of: 1), and
 * the fusion and printing of the nrepos results (roots may be NULL:
 * the database knows none). */
struct kbx_search_results;
struct kbx_error;
int search_repo_done(const char *name, kbx_status_t st, const struct kbx_error *err,
		     struct kbx_search_results *res);
int search_fuse_print(const char *const *names, const char *const *roots, size_t nrepos,
		      const struct kbx_search_results *res, size_t searched,
		      const struct kbx_search_query *q, const struct output_opts *oo, int explain);

#endif
