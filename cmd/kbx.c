/*
 * kbx: the command table and the dispatcher.
 *
 *   kbx [--kbx-dir=DIR] [-C DIR] [--repo=NAME] <command> [<args>]
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tree_sitter/api.h>

#include "builtin.h"
#include "util/config.h"
#include "graph/graph.h"
#include "output.h"
#include "db-graph.h"
#include "pager.h"
#include "pg-client.h"
#include "repos-util.h"

#ifndef KBX_VERSION
#define KBX_VERSION "0.1.0"
#endif

/* Sorted by name. */
const struct cmd_struct kbx_commands[] = {
	{ "callees", cmd_callees, RUN_NEEDS_INDEX | RUN_DB, "list what a function calls" },
	{ "callers", cmd_callers, RUN_NEEDS_INDEX | RUN_DB, "list who calls a function" },
	{ "changed", cmd_changed, RUN_NEEDS_INDEX,
	  "list the functions added, removed or changed since the index or a revision" },
	{ "check", cmd_check, RUN_NEEDS_INDEX, "check the structure rules of a repository (for CI)" },
	{ "complete-symbols", cmd_complete_symbols, RUN_NEEDS_INDEX | RUN_NO_PAGER,
	  "list indexed names by prefix (for shell completion)" },
	{ "config", cmd_config, RUN_NO_CONFIG | RUN_NO_PAGER, "get and set kbx's settings" },
	{ "context", cmd_context, RUN_NEEDS_INDEX | RUN_DB,
	  "pack what answers a question into a token budget, for a model" },
	{ "cycles", cmd_cycles, RUN_NEEDS_INDEX, "list import and call cycles, smallest first" },
	{ "dead", cmd_dead, RUN_NEEDS_INDEX, "list the functions and methods nothing calls" },
	{ "defines", cmd_defines, RUN_NEEDS_INDEX | RUN_DB, "list what a file or class defines" },
	{ "defs", cmd_defs, RUN_NEEDS_INDEX | RUN_DB, "show where a symbol is defined" },
	{ "help", cmd_help, RUN_NO_CONFIG | RUN_NO_PAGER, "show the manual page of a command or topic" },
	{ "hybrid", cmd_hybrid, RUN_NEEDS_INDEX | RUN_DB,
	  "answer a question with the graph and the search together" },
	{ "impact", cmd_impact, RUN_NEEDS_INDEX | RUN_DB, "list what a change to a symbol, a file or a diff affects" },
	{ "importers", cmd_importers, RUN_NEEDS_INDEX | RUN_DB, "list the files that import a file or module" },
	{ "imports", cmd_imports, RUN_NEEDS_INDEX | RUN_DB, "list what a file imports" },
	{ "index", cmd_index, RUN_WRITES_INDEX | RUN_NO_PAGER,
	  "build or update the index of a repository" },
	{ "mcp", cmd_mcp, RUN_NO_PAGER,
	  "serve kbx's queries to AI agents over the Model Context Protocol (stdio)" },
	{ "path", cmd_path, RUN_NEEDS_INDEX | RUN_DB, "show the shortest call or import path between two symbols" },
	{ "push", cmd_push, RUN_NO_PAGER,
	  "publish the index to PostgreSQL, for queries across repositories" },
	{ "registry", cmd_registry, RUN_NO_PAGER, "add, list or remove the registries kbx indexes" },
	{ "repos", cmd_repos, RUN_DB, "list and name the repositories kbx knows" },
	{ "search", cmd_search, RUN_NEEDS_INDEX | RUN_DB, "search error entries, documents and code by meaning" },
	{ "serve", cmd_serve, RUN_NO_PAGER,
	  "serve kbx's queries over HTTP, with a page to ask from" },
	{ "status", cmd_status, RUN_NEEDS_INDEX, "show what the index holds" },
	{ "subclasses", cmd_subclasses, RUN_NEEDS_INDEX | RUN_DB, "list the classes that extend a type" },
	{ "superclasses", cmd_superclasses, RUN_NEEDS_INDEX | RUN_DB, "list the types a class extends" },
	{ "version", cmd_version, RUN_NO_CONFIG | RUN_NO_PAGER, "print the version of kbx" },
	{ NULL, NULL, 0, NULL }
};

/* The topic pages, man/kbx-<topic>.7.md (t5000 checks the two agree). */
const char *const kbx_topics[] = { "graph", "json", "registries", "retrieval", "rules", "security", "settings", "symbols", NULL };

const struct cmd_struct *find_command(const char *name)
{
	for (const struct cmd_struct *c = kbx_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int exit_code_for(kbx_status_t st)
{
	switch (st) {
	case KBX_OK: return KBX_EXIT_OK;
	case KBX_NOT_FOUND: return KBX_EXIT_NOT_FOUND;
	case KBX_ERR_USAGE:
	case KBX_ERR_PARSE: return KBX_EXIT_USAGE;
	case KBX_ERR_NO_STORE: return KBX_EXIT_NO_INDEX;
	case KBX_ERR_SCHEMA: return KBX_EXIT_SCHEMA;
	case KBX_ERR_BUSY: return KBX_EXIT_BUSY;
	case KBX_ERR_IO:
	case KBX_ERR_STORE:
	case KBX_ERR_UNSAFE: return KBX_EXIT_IO;
	case KBX_ERR_FULL: return KBX_EXIT_FULL;
	case KBX_ERR_CORRUPT: return KBX_EXIT_CORRUPT;
	default: return KBX_EXIT_INTERNAL;
	}
}

int die_status(const struct kbx_error *err)
{
	/* memory refused on the way (util.h) is the likelier cause of
	 * whatever failed: say so, and exit 9 */
	int nomem = _kbx_nomem_count != 0;
	if (err->status == KBX_OK) {
		/* a failure whose reason was not recorded: never exit 0 */
		fprintf(stderr, "fatal: %s\n", nomem ? "out of memory"
				: "internal error (a failure with no reason given)");
		return KBX_EXIT_INTERNAL;
	}
	const char *level = nomem || err->status == KBX_ERR_NOMEM || err->status == KBX_ERR_INTERNAL
				    ? "fatal" : "error";
	fprintf(stderr, "%s: %s%s\n", level, out_esc(err->msg[0] ? err->msg : kbx_status_str(err->status)),
		nomem && err->status != KBX_ERR_NOMEM ? " (memory ran out)" : "");
	return nomem ? KBX_EXIT_INTERNAL : exit_code_for(err->status);
}

static const char *const kbx_usage[] = {
	"kbx [--kbx-dir=<dir>] [-C <dir>] [--repo=<name>] [--db[=<url>]] [-c <key>=<value>] [--no-pager] <command> [<args>]",
	NULL
};

static void print_usage(FILE *f)
{
	fprintf(f, "usage: %s\n\ncommands:\n", kbx_usage[0]);
	for (const struct cmd_struct *c = kbx_commands; c->name; c++)
		fprintf(f, "   %-10s %s\n", c->name, c->summary);
	fprintf(f, "\n'kbx <command> -h' lists a command's options; 'kbx help <command>' opens its manual.\n");
}

static void suggest_command(const char *name)
{
	size_t best = 3;
	const char *cands[8];
	size_t n = 0;
	for (const struct cmd_struct *c = kbx_commands; c->name; c++) {
		size_t d = _kbx_edit_distance(name, c->name, 2);
		int prefix = strlen(name) >= 2 && !strncmp(c->name, name, strlen(name));
		if (prefix)
			d = 1;
		if (d < best) {
			best = d;
			n = 0;
		}
		if (d == best && d <= 2 && n < 8)
			cands[n++] = c->name;
	}
	fprintf(stderr, "error: '%s' is not a kbx command: see 'kbx -h'\n", out_esc(name));
	if (n) {
		fprintf(stderr, "\nthe most similar command%s\n", n > 1 ? "s are" : " is");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "\t%s\n", cands[i]);
	}
}

/* kbx-<name> on PATH extends kbx as git-<name> extends git. */
static void try_external(const char *name, int argc, const char **argv)
{
	char prog[256];
	if (snprintf(prog, sizeof(prog), "kbx-%s", name) >= (int)sizeof(prog) || strchr(name, '/'))
		return;
	const char **args = calloc((size_t)argc + 1, sizeof(*args));
	if (!args)
		return;
	args[0] = prog;
	for (int i = 1; i < argc; i++)
		args[i] = argv[i];
	execvp(prog, (char *const *)args);
	free(args);  /* not found: fall through to the error */
}

int setup_store(struct kbx_ctx *ctx, int flags, int any_schema)
{
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st;
	int writes = (flags & RUN_WRITES_INDEX) != 0;
	if (ctx->kbx_dir_opt) {
		char cwd[PATH_MAX];
		if (!getcwd(cwd, sizeof(cwd))) {
			fprintf(stderr, "fatal: cannot get the current directory: %s\n", strerror(errno));
			return KBX_EXIT_IO;
		}
		ctx->kbx_dir = strdup(ctx->kbx_dir_opt);
		ctx->root = strdup(cwd);
	} else {
		st = kbx_store_locate(".", writes, &ctx->kbx_dir, &ctx->root, &err);
		if (st)
			return die_status(&err);
	}
	if (!ctx->kbx_dir || !ctx->root) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	int oflags = writes ? KBX_OPEN_WRITE | KBX_OPEN_CREATE : KBX_OPEN_READ;
	if (writes && any_schema)
		oflags |= KBX_OPEN_ANY_SCHEMA | KBX_OPEN_REPLACE_FOREIGN;
	if (store_trusted(ctx->config, ctx->kbx_dir, ctx->root))
		oflags |= KBX_OPEN_TRUSTED;
	/* KBX_MAP_SIZE: the writer's first map size, for tests of map growth */
	size_t map_size = 0;
	const char *ms = getenv("KBX_MAP_SIZE");
	if (writes && ms && *ms) {
		uint64_t v;
		if (kbx_parse_size(ms, &v) || !v || v > SIZE_MAX) {
			fprintf(stderr, "error: KBX_MAP_SIZE='%s' is not a size such as 65536 or 64m\n", ms);
			return KBX_EXIT_USAGE;
		}
		map_size = (size_t)v;
	}
	st = kbx_store_open(ctx->kbx_dir, ctx->root, oflags, map_size, &ctx->store, &err);
	if (st)
		return die_status(&err);
	return 0;
}

int load_settings(struct kbx_ctx *ctx, const char *kbx_dir, struct kbx_config **out)
{
	struct kbx_config_error err = KBX_CONFIG_ERROR_INIT;
	kbx_status_t st = kbx_config_load(kbx_dir, out, &err);
	for (size_t i = 0; !st && i < ctx->nconfig_params; i++) {
		const char *p = ctx->config_params[i], *eq = strchr(p, '=');
		char key[128];
		snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
		st = kbx_config_set(*out, key, eq + 1, KBX_CONFIG_COMMAND, &err);
		if (st) {
			fprintf(stderr, "error: -c %s\n", err.err.msg);
			kbx_config_free(*out);
			*out = NULL;
			return exit_code_for(st);
		}
	}
	if (st) {
		die_status(&err.err);
		if (err.line)
			fprintf(stderr, "hint: correct or remove that line; 'kbx config --list --defaults' lists the keys, kbx-settings(7) describes them\n");
		return exit_code_for(st);
	}
	warn_refused_settings(*out);
	return 0;
}

void header_langs_setting(const struct kbx_config *cfg, struct kbx_header_langs *out)
{
	struct kbx_config_value v;
	out->c = out->cpp = NULL;
	if (cfg && kbx_config_get(cfg, "index.cHeaders", &v, NULL) == KBX_OK)
		out->c = v.text;
	if (cfg && kbx_config_get(cfg, "index.cppHeaders", &v, NULL) == KBX_OK)
		out->cpp = v.text;
}

void warn_refused_settings(const struct kbx_config *cfg)
{
	const struct kbx_config_refusal *r;
	size_t n = kbx_config_refusals(cfg, &r);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "warning: ignoring %s in '%s' at line %u: %s\n", r[i].key,
			out_esc(r[i].path), r[i].line, r[i].reason);
	if (n)
		fprintf(stderr, "hint: if you trust %s, set %s in your own settings (kbx config --user KEY VALUE) or for one command (kbx -c KEY=VALUE); see kbx-security(7)\n",
			n > 1 ? "them" : "it", n > 1 ? "them" : "it");
}

/* Is dir the directory entry names (after resolving both)? */
static int same_directory(const char *entry, const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];
	return dir && realpath(entry, a) && realpath(dir, b) && !strcmp(a, b);
}

int store_trusted(const struct kbx_config *cfg, const char *kbx_dir, const char *root)
{
	struct kbx_config_value v;
	if (!cfg || kbx_config_get(cfg, "safe.directory", &v, NULL) != KBX_OK || !*v.text)
		return 0;
	char entry[PATH_MAX];
	for (const char *p = v.text; *p;) {
		size_t n = strcspn(p, ":");
		if (n && n < sizeof(entry)) {
			memcpy(entry, p, n);
			entry[n] = '\0';
			if (!strcmp(entry, "*") ||
			    (entry[0] == '/' &&
			     (same_directory(entry, root) || same_directory(entry, kbx_dir))))
				return 1;
		}
		p += n;
		if (*p)
			p++;
	}
	return 0;
}

/* Read the settings into ctx->config (the user's file, and the
 * repository's when there is an index directory here or above), and
 * apply the ones the dispatcher owns: the colour and the pager.  Returns
 * 0 or an exit code after printing the error. */
static int setup_config(const struct cmd_struct *c, struct kbx_ctx *ctx)
{
	struct kbx_error lerr = KBX_ERROR_INIT;
	struct kbx_config_value v;
	char *kbx_dir = NULL, *root = NULL;
	if (ctx->kbx_dir_opt)
		kbx_dir = strdup(ctx->kbx_dir_opt);
	else if (kbx_store_locate(".", 0, &kbx_dir, &root, &lerr) != KBX_OK)
		kbx_dir = NULL;   /* no index: the user's settings alone */
	free(root);
	int rc = load_settings(ctx, kbx_dir, &ctx->config);
	free(kbx_dir);
	if (rc)
		return rc;
	if (kbx_config_get(ctx->config, "color.ui", &v, NULL) == KBX_OK)
		output_color_default = (int)v.number;
	if (!ctx->no_pager && !(c->flags & RUN_NO_PAGER) &&
	    kbx_config_get(ctx->config, "pager.enabled", &v, NULL) == KBX_OK && v.number &&
	    kbx_config_get(ctx->config, "core.pager", &v, NULL) == KBX_OK)
		pager_allow(v.scope == KBX_CONFIG_DEFAULT ? NULL : v.text);
	return 0;
}

/*
 * kbx --db: the command asks the database instead of an index.  The
 * URL is the one given, else KBX_DATABASE_URL or push.database: these
 * two are read only when --db is there, so that no query goes to a
 * database unless its command line says so.
 */
static int run_db_command(const struct cmd_struct *c, int argc, const char **argv,
			  struct kbx_ctx *ctx)
{
	if (!(c->flags & RUN_DB)) {
		fprintf(stderr, "error: '%s' does not ask the database; run it without --db\n"
			"hint: with --db: ", c->name);
		const char *sep = "";
		for (const struct cmd_struct *d = kbx_commands; d->name; d++)
			if (d->flags & RUN_DB) {
				fprintf(stderr, "%s%s", sep, d->name);
				sep = ", ";
			}
		fputc('\n', stderr);
		return KBX_EXIT_USAGE;
	}
	int rc = setup_config(c, ctx);
	if (rc)
		return rc;
	ctx->db_url = pg_database_url(ctx, ctx->db_url);
	if (!ctx->db_url) {
		fprintf(stderr, "error: --db without a URL, and no KBX_DATABASE_URL or push.database setting\n"
			"hint: give --db=postgresql://USER@HOST/DB\n");
		rc = KBX_EXIT_USAGE;
	}
	/* kbx repos lists the database's repositories: none to choose */
	if (!rc && strcmp(c->name, "repos"))
		rc = db_graph_open(ctx, argc, argv);
	if (!rc)
		rc = c->fn(argc, argv, ctx);
	db_graph_close(ctx);
	kbx_store_close(ctx->store);
	ctx->store = NULL;
	kbx_config_free(ctx->config);
	ctx->config = NULL;
	return rc;
}

static int run_command_once(const struct cmd_struct *c, int argc, const char **argv,
			    struct kbx_ctx *ctx)
{
	ctx->cmd = c->name;
	/* --help anywhere before "--" opens the manual, as git does */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help")) {
			const char *hargv[] = { "help", c->name, NULL };
			return cmd_help(2, hargv, ctx);
		}
	}
	/* -h and --list-opts work outside any indexed tree, and whatever
	 * the settings say: the command parses its options before the
	 * store is opened. */
	int options_only = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--list-opts"))
			options_only = 1;
	}
	int needs = options_only ? 0 : c->flags & (RUN_NEEDS_INDEX | RUN_WRITES_INDEX);
	if (ctx->db_given && !options_only)
		return run_db_command(c, argc, argv, ctx);
	/* --repo, before the command or among a reader's options, is -C and
	 * --kbx-dir for a registered repository; --all-repos leaves the
	 * opening of stores to the command */
	int all_repos = 0;
	if (!options_only) {
		const char *repo = ctx->repo_opt;
		int rc = 0;
		if (c->flags & RUN_NEEDS_INDEX)
			rc = repo_scan_args(argc, argv, repo, &repo, &all_repos);
		if (!rc && repo)
			rc = repo_select(ctx, repo);
		if (rc)
			return rc;
	}
	if (!options_only && !(c->flags & RUN_NO_CONFIG)) {
		int rc = setup_config(c, ctx);
		if (rc)
			return rc;
	}
	if (needs && !(c->flags & RUN_WRITES_INDEX) && !all_repos) {
		int rc = setup_store(ctx, c->flags, 0);
		if (rc) {
			kbx_config_free(ctx->config);
			ctx->config = NULL;
			return rc;
		}
	} else if (needs) {
		/* index opens the store itself: it knows --rebuild */
	}
	int rc = c->fn(argc, argv, ctx);
	kbx_store_close(ctx->store);
	ctx->store = NULL;
	kbx_config_free(ctx->config);
	ctx->config = NULL;
	return rc;
}

/* A command, as kbx runs it (and kbx mcp's and kbx serve's children).
 * Memory refused anywhere on the way (util.h counts what kbx's own code
 * was refused, some of which answers "none" or "?" and goes on): what
 * was printed may be short, so the exit status says so. */
int run_command(const struct cmd_struct *c, int argc, const char **argv, struct kbx_ctx *ctx)
{
	unsigned long nomem0 = _kbx_nomem_count;
	int rc = run_command_once(c, argc, argv, ctx);
	if (_kbx_nomem_count != nomem0 && rc != KBX_EXIT_INTERNAL) {
		fprintf(stderr, "fatal: out of memory%s\n",
			rc ? "" : ": what was printed may be incomplete");
		rc = KBX_EXIT_INTERNAL;
	}
	return rc;
}

/*
 * tree-sitter cannot report a failed allocation: its own allocator
 * prints a line and exits with status 1, which reads as "nothing found".
 * These say what happened and exit with the code for running out of
 * memory.  An index run that ends here has committed nothing, so the
 * previous index is left as it was.
 */
static void parser_out_of_memory(void)
{
	static const char msg[] = "fatal: out of memory while parsing\n";
	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing more can be said */
	}
	_exit(KBX_EXIT_INTERNAL);
}

/* The same for the other projects' code in kbx that cannot go on without
 * the memory it asked for (cmark: _kbx_nomem_fatal). */
static void out_of_memory_in(const char *what)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg), "fatal: out of memory while %s\n", what);
	if (n > 0 && write(2, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1) < 0) {
		/* nothing more can be said */
	}
	_exit(KBX_EXIT_INTERNAL);
}

static void *parser_malloc(size_t n)
{
	void *p = malloc(n);
	if (!p && n)
		parser_out_of_memory();
	return p;
}

static void *parser_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p && n && size)
		parser_out_of_memory();
	return p;
}

static void *parser_realloc(void *old, size_t n)
{
	void *p = realloc(old, n);
	if (!p && n)
		parser_out_of_memory();
	return p;
}

int main(int argc, char **argv_)
{
	const char **argv = (const char **)argv_;
	struct kbx_ctx ctx = { 0 };
	int i;

	/* a reader that goes away (| head) ends us quietly; writes then
	 * fail with EPIPE, which out_finish does not report */
	signal(SIGPIPE, SIG_DFL);
	/* only this thread writes to stdout (kbx mcp writes to the
	 * descriptor itself; workers print nothing): the stream needs no
	 * lock, whose taking and leaving was a tenth of `kbx callers die`
	 * (1,208 lines printed a piece at a time) */
	__fsetlocking(stdout, FSETLOCKING_BYCALLER);
	ts_set_allocator(parser_malloc, parser_calloc, parser_realloc, free);
	_kbx_set_nomem_fatal(out_of_memory_in);

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-')
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			print_usage(stdout);
			return 0;
		}
		if (!strcmp(a, "--version") || !strcmp(a, "-v")) {
			printf("kbx version %s\n", KBX_VERSION);
			return 0;
		}
		if (!strcmp(a, "--list-cmds")) {
			for (const struct cmd_struct *c = kbx_commands; c->name; c++)
				printf("%s\n", c->name);
			return 0;
		}
		if (!strcmp(a, "--list-topics")) {
			for (size_t t = 0; kbx_topics[t]; t++)
				printf("%s\n", kbx_topics[t]);
			return 0;
		}
		if (!strcmp(a, "--list-opts")) {
			/* the options before the command, for the completions */
			printf("--kbx-dir=\t@path\n-C=\t@path\n--repo=\t@repo\n--db=\n--db\n-c=\n--no-pager\n--version\n--list-cmds\n--list-topics\n--help\n-h\n");
			return 0;
		}
		if (!strcmp(a, "-c") && i + 1 < argc) {
			const char *p = argv[++i];
			size_t kl = strcspn(p, "=");
			const char **np;
			if (!p[kl] || !kl || kl >= 128) {
				fprintf(stderr, "error: -c takes key=value, such as -c search.provider=http: '%s'\n",
					p);
				return KBX_EXIT_USAGE;
			}
			np = realloc(ctx.config_params, (ctx.nconfig_params + 1) * sizeof(*np));
			if (!np) {
				fprintf(stderr, "fatal: out of memory\n");
				return KBX_EXIT_INTERNAL;
			}
			ctx.config_params = np;
			ctx.config_params[ctx.nconfig_params++] = p;
		} else if (!strcmp(a, "--no-pager")) {
			ctx.no_pager = 1;
		} else if (!strncmp(a, "--kbx-dir=", 10)) {
			ctx.kbx_dir_opt = a + 10;
		} else if (!strcmp(a, "--kbx-dir") && i + 1 < argc) {
			ctx.kbx_dir_opt = argv[++i];
		} else if (!strcmp(a, "--db")) {
			ctx.db_given = 1;
		} else if (!strncmp(a, "--db=", 5)) {
			ctx.db_given = 1;
			ctx.db_url = a + 5;
		} else if (!strncmp(a, "--repo=", 7)) {
			ctx.repo_opt = a + 7;
		} else if (!strcmp(a, "--repo") && i + 1 < argc) {
			ctx.repo_opt = argv[++i];
		} else if (!strcmp(a, "-C") && i + 1 < argc) {
			if (chdir(argv[++i]) < 0) {
				fprintf(stderr, "fatal: cannot change to '%s': %s\n", argv[i],
					strerror(errno));
				return KBX_EXIT_USAGE;
			}
		} else {
			fprintf(stderr, "error: unknown option '%s'\n", a);
			print_usage(stderr);
			return KBX_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		print_usage(stderr);
		return KBX_EXIT_USAGE;
	}
	const struct cmd_struct *c = find_command(argv[i]);
	if (!c) {
		try_external(argv[i], argc - i, argv + i);
		suggest_command(argv[i]);
		return KBX_EXIT_USAGE;
	}
	int rc = run_command(c, argc - i, argv + i, &ctx);
	free(ctx.kbx_dir);
	free(ctx.root);
	free(ctx.config_params);
	return rc;
}
