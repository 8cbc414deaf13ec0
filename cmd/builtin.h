/*
 * The commands of kbx, one file each: cmd/<name>.c exports only
 * cmd_<name>(argc, argv, ctx).
 *
 * To add a command:
 *   1. write cmd/<name>.c with its option table (parse-options.h) and a
 *      usage array, printing results only through output.h;
 *   2. declare cmd_<name> below and add it to the table in cmd/kbx.c,
 *      with the flags that say what the dispatcher prepares;
 *   3. write man/kbx-<name>.1.md (its SYNOPSIS must match -h: t5000
 *      checks it);
 *   4. the completions ask the binary (--list-cmds, --list-opts), so
 *      there is nothing to add there unless an operand completes in a new
 *      way;
 *   5. add tests/tNNNN-<area>-<name>.sh.
 */
#ifndef KBX_BUILTIN_H
#define KBX_BUILTIN_H

#include "kbx.h"

/* Exit codes: an interface, documented in kbx(1) under EXIT STATUS.
 * Only ever append. */
enum kbx_exit {
	KBX_EXIT_OK = 0,          /* results found, or the command succeeded */
	KBX_EXIT_NOT_FOUND = 1,   /* the query was valid and found nothing */
	KBX_EXIT_USAGE = 2,       /* bad command line or unparsable symbol */
	KBX_EXIT_NO_INDEX = 3,    /* no index: run 'kbx index' */
	KBX_EXIT_SCHEMA = 4,      /* index from another version: 'kbx index --rebuild' */
	KBX_EXIT_BUSY = 5,        /* another kbx is indexing: retry */
	KBX_EXIT_IO = 6,          /* a file or the store could not be read or written */
	KBX_EXIT_FULL = 7,        /* disk or map full; the previous index is intact */
	KBX_EXIT_CORRUPT = 8,     /* the index does not decode: 'kbx index --rebuild' */
	KBX_EXIT_INTERNAL = 9,    /* a bug or out of memory */
	KBX_EXIT_CHECK_FAILED = 10, /* kbx check: a rule does not hold */
	KBX_EXIT_SKIPPED = 11,    /* kbx index: done, but registry input was skipped */
	KBX_EXIT_DB_UNREACHABLE = 12, /* kbx push: no database server answers there */
	KBX_EXIT_DB_AUTH = 13,    /* kbx push: the database refused the credentials */
	KBX_EXIT_DB_ERROR = 14    /* kbx push: the database refused a statement; nothing
				   * was pushed */
};

/* What the dispatcher prepares before calling a command. */
#define RUN_NEEDS_INDEX  0x01   /* open the store read-only; fail without one */
#define RUN_WRITES_INDEX 0x02   /* open the store for writing, creating it */
#define RUN_NO_PAGER     0x04   /* never page its output (see pager.h) */
#define RUN_NO_CONFIG    0x08   /* do not read the settings (config, help,
				 * version: they must work with a broken file) */
#define RUN_DB           0x10   /* may ask the database instead (kbx --db,
				 * db-graph.h) */

struct kbx_config;

struct kbx_ctx {
	const char *kbx_dir_opt;   /* --kbx-dir */
	char *kbx_dir;             /* the store directory in use */
	char *root;                /* the repository root */
	kbx_store_t *store;
	const char *cmd;           /* the command's name */
	/* the user's and the repository's settings (lib/util/config.h); NULL
	 * for RUN_NO_CONFIG commands, for which every key has its default */
	struct kbx_config *config;
	int no_pager;              /* --no-pager */
	const char *repo_opt;      /* kbx --repo=NAME (repos-util.h) */
	int db_given;              /* kbx --db[=URL]: ask the database */
	const char *db_url;        /* its URL (pg_database_url) */
	struct db_graph *db;       /* open while a command asks it */
	const char **config_params;   /* kbx -c key=value, in order */
	size_t nconfig_params;
};

/* Print "error: <msg>" (or fatal) for a failed library call and return
 * the exit code for its status. */
int die_status(const struct kbx_error *err);
int exit_code_for(kbx_status_t st);

/* Find and open the store into ctx->store (flags: RUN_NEEDS_INDEX or
 * RUN_WRITES_INDEX; any_schema accepts another schema version, for
 * --rebuild).  Returns 0 or an exit code after printing the error.
 * Commands flagged RUN_WRITES_INDEX call it themselves. */
int setup_store(struct kbx_ctx *ctx, int flags, int any_schema);

/* The settings for the store directory kbx_dir (NULL: the user's alone):
 * the user's file, the repository's, then kbx -c on top, into *out (free
 * with kbx_config_free).  Warns about every line of the repository's file
 * that was left out (kbx-security(7)).  Returns 0 or an exit code after
 * printing the error. */
int load_settings(struct kbx_ctx *ctx, const char *kbx_dir, struct kbx_config **out);
/* The warnings of load_settings, for settings read otherwise. */
void warn_refused_settings(const struct kbx_config *cfg);

/* The headers whose language the settings index.cHeaders and
 * index.cppHeaders set; the strings stay valid while cfg does. */
void header_langs_setting(const struct kbx_config *cfg, struct kbx_header_langs *out);

/* Does the user's safe.directory setting in cfg vouch for the store in
 * kbx_dir, of the repository root (either may be NULL)?  Then it is
 * opened with KBX_OPEN_TRUSTED. */
int store_trusted(const struct kbx_config *cfg, const char *kbx_dir, const char *root);

int cmd_callees(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_callers(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_changed(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_check(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_complete_symbols(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_context(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_config(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_cycles(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_dead(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_defines(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_defs(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_help(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_hybrid(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_impact(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_importers(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_imports(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_index(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_mcp(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_path(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_push(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_registry(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_repos(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_search(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_serve(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_status(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_subclasses(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_superclasses(int argc, const char **argv, struct kbx_ctx *ctx);
int cmd_version(int argc, const char **argv, struct kbx_ctx *ctx);

/* The embedding settings (search.*) as the library takes them; the
 * strings belong to ctx->config (cmd/search.c). */
struct kbx_embed_config;
void search_embed_config(struct kbx_ctx *ctx, struct kbx_embed_config *ec);

/* The search filters, the same for every command that searches (search,
 * context): --type, --lang, --tag, --severity, --path, for an option
 * table of parse-options.h.  search_parse_types() reads the --type
 * words into a set of 1 << enum kbx_chunk_type; 0, or an exit code after
 * printing the error. */
extern const char *const search_type_names[];
struct opt_list;
int search_parse_types(const struct opt_list *types, unsigned *out);
#define OPT_SEARCH_FILTERS_F(types, lang, tags, severity, path) \
	{ OPT_STRING_LIST, 0, "type", (types), "TYPE", \
	  "only these: error, pattern, doc, adr, behavioral, code (repeatable, or comma-separated)", \
	  search_type_names, 0, NULL }, \
	OPT_STRING_F(0, "lang", (lang), "LANG", \
		     "only this language (entries for all languages match too)"), \
	OPT_STRING_LIST_F(0, "tag", (tags), "TAG", "only entries with this tag (repeatable: all of them)"), \
	OPT_STRING_F(0, "severity", (severity), "SEVERITY", "only error entries of this severity"), \
	{ OPT_STRING, 0, "path", (path), "PATH", "only under this path, or matching this glob", \
	  NULL, 0, "path" }

/* Shared by commands that walk one kind of edge from a symbol
 * (cmd/graph-query.c). */
struct edge_query {
	const char *name;          /* the command: "callers" */
	const char *record;        /* JSON record type: "caller" */
	const char *heading;       /* "callers of" */
	int kind, dir;
	const char *const *usage;
};
int run_edge_query(int argc, const char **argv, struct kbx_ctx *ctx,
		   const struct edge_query *q);
/* Look up sym; on failure print the error with suggestions and return
 * the exit code; 0 with *out filled on success. */
int lookup_symbol(struct kbx_ctx *ctx, const char *sym, struct kbx_nodelist *out);

/* Run the command c as the dispatcher does after the options before
 * it: --help, --repo, the settings, the store (cmd/kbx.c).  ctx holds
 * those options; what the run opens is closed again.  Returns the exit
 * code.  kbx mcp runs its tools' commands through it in a child. */
struct cmd_struct;
int run_command(const struct cmd_struct *c, int argc, const char **argv, struct kbx_ctx *ctx);

/* The table, for help and completion. */
struct cmd_struct {
	const char *name;
	int (*fn)(int argc, const char **argv, struct kbx_ctx *ctx);
	int flags;
	const char *summary;
};
extern const struct cmd_struct kbx_commands[];
extern const char *const kbx_topics[];
const struct cmd_struct *find_command(const char *name);

#endif
