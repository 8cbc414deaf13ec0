/*
 * kbx dead: the functions and methods nothing calls.
 *
 *   kbx dead [--include-exported] [--include-tests] [--ignore=<glob>]... [<path>...]
 *
 * A call of any confidence keeps a function alive, so nothing is
 * reported on a guess (--certain: only what a rule proved counts, and a
 * function only guesses reach is reported, saying so); entry points,
 * overrides, tests, exported API and
 * the names of dead.ignore and --ignore are left out, each counted in a
 * summary (a line under the text, a record in JSON, a line on stderr
 * for grep and nul, whose output is only results) and shown one by one
 * with --explain.  The work
 * is one pass over the graph (kbx_dead_scan in lib/analysis/dead.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "builtin.h"
#include "util/config.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "analysis/rules.h"
#include "util/strbuf.h"

static const char *const dead_usage[] = {
	"kbx dead [--include-exported] [--include-tests] [--ignore=<glob>]... [--kind=<kind>] [--path=<glob>] [--certain] [--limit=<n>] [--explain] [--format=<format>] [<path>...]",
	NULL
};

static const char *const kind_names[] = { "all", "function", "method", NULL };

struct item {
	struct kbx_node node;   /* valid while the store is open */
	int reason;
	char *why;
};

struct dead {
	const char *const *paths;
	int npaths;
	int explain;
	struct item *items;
	size_t n, alloc;
	size_t counts[KBX_DEAD__COUNT];
	size_t guessed;         /* dead ones only ambiguous calls reach (--certain) */
	int nomem;
};

/* Is path under one of the operands (a directory or file prefix), or
 * matched by one of them as a glob?  Everything when there are none. */
static int wanted(const struct dead *d, const struct kbx_node *n)
{
	if (!d->npaths)
		return 1;
	if (!n->path)
		return 0;
	for (int i = 0; i < d->npaths; i++) {
		const char *p = d->paths[i];
		size_t l = strlen(p);
		while (l > 1 && p[l - 1] == '/')
			l--;
		if (strpbrk(p, "*?[")) {
			if (kbx_glob_match(p, n->path, n->path_len))
				return 1;
		} else if (!strcmp(p, ".") ||
			   (n->path_len >= l && !memcmp(n->path, p, l) &&
			    (n->path_len == l || n->path[l] == '/'))) {
			return 1;
		}
	}
	return 0;
}

static int on_fn(void *data, const struct kbx_node *n, int reason, const char *why)
{
	struct dead *d = data;
	if (!wanted(d, n))
		return 0;
	d->counts[reason]++;
	if (!reason && why)
		d->guessed++;
	if (reason && !d->explain)
		return 0;
	if (d->n == d->alloc) {
		size_t na = d->alloc ? d->alloc * 2 : 256;
		struct item *p = realloc(d->items, na * sizeof(*p));
		if (!p)
			goto nomem;
		d->items = p;
		d->alloc = na;
	}
	struct item *it = &d->items[d->n];
	it->node = *n;
	it->reason = reason;
	it->why = why ? strdup(why) : NULL;
	if (why && !it->why)
		goto nomem;
	d->n++;
	return 0;
nomem:
	d->nomem = 1;
	return 1;
}

static int by_place(const void *a, const void *b)
{
	return kbx_node_place_cmp(&((const struct item *)a)->node, &((const struct item *)b)->node);
}

static void print_item(struct out *o, const struct item *it)
{
	const struct kbx_node *n = &it->node;
	const char *what = it->reason ? "left out" : "dead";
	switch (out_format(o)) {
	case FMT_NUL:
		fputs(n->cid, stdout);
		putchar('\0');
		break;
	case FMT_GREP:
		printf("%s:%u:%u: %s %s %s", out_grep_path(NULL, n->path, n->path_len),
		       n->line ? n->line : 1, n->col ? n->col : 1, what, kbx_kind_str(n->kind),
		       out_esc(n->qual));
		if (it->why && it->reason)
			printf(" (%s: %s)", kbx_dead_reason_str(it->reason), out_esc(it->why));
		else if (it->why)
			printf(" (%s)", out_esc(it->why));
		putchar('\n');
		break;
	case FMT_JSON: {
		char *p = strndup(n->path, n->path_len);
		out_record_begin(o, it->reason ? "left-out" : "dead");
		out_field_str(o, "id", n->cid);
		out_field_str(o, "name", n->name);
		out_field_str(o, "qual", n->qual);
		out_field_str(o, "kind", kbx_kind_str(n->kind));
		out_field_str(o, "lang", kbx_lang_str(n->lang));
		out_field_str(o, "path", p);
		out_field_int(o, "line", n->line);
		out_field_int(o, "end_line", n->end_line);
		out_json_bool(o, "exported", !!(n->flags & KBX_NODE_EXPORTED));
		out_field_str(o, "reason", kbx_dead_reason_str(it->reason));
		/* a dead one's why is null (kbx-json(7)), --certain or not */
		out_field_str(o, "why", it->reason ? it->why : NULL);
		out_record_end(o);
		free(p);
		break;
	}
	default:
		printf("  %s:%u  %s (%s)", out_escn(n->path, n->path_len), n->line, out_esc(n->qual),
		       kbx_kind_str(n->kind));
		if (it->why)
			printf("  (%s%s)", it->reason ? "left out: " : "", out_esc(it->why));
		putchar('\n');
	}
}

/* The summary as a JSON record: the counts of the line, each reason's
 * under its name in kbx_dead_reason_str(). */
static void summary_record(struct out *o, const struct dead *d, size_t shown, size_t left)
{
	out_record_begin(o, "summary");
	out_field_int(o, "dead", (int64_t)d->counts[KBX_DEAD]);
	out_field_int(o, "shown", (int64_t)shown);
	out_field_int(o, "only_ambiguous", (int64_t)d->guessed);
	out_field_int(o, "left_out", (int64_t)left);
	out_json_begin(o, "reasons", 0);
	for (int r = 1; r < KBX_DEAD__COUNT; r++)
		out_json_int(o, kbx_dead_reason_str(r), (int64_t)d->counts[r]);
	out_json_end(o);
	out_record_end(o);
}

/* "15 dead; 26 functions left out: 12 entry points, 40 exported, ...":
 * under the text, which it sums up; on stderr for grep and nul, whose
 * output is results only; in JSON, a summary record. */
static void summary(struct out *o, const struct dead *d, size_t shown)
{
	static const char *const words[KBX_DEAD__COUNT][2] = {
		{ "", "" },
		{ "configured", "configured" },
		{ "entry point", "entry points" },
		{ "override", "overrides" },
		{ "referenced", "referenced" },
		{ "test", "tests" },
		{ "exported", "exported" },
	};
	static const int order[] = { KBX_DEAD_ENTRY, KBX_DEAD_OVERRIDE, KBX_DEAD_REFERENCED,
				     KBX_DEAD_EXPORTED, KBX_DEAD_TEST, KBX_DEAD_IGNORED };
	size_t left = 0;
	for (int r = 1; r < KBX_DEAD__COUNT; r++)
		left += d->counts[r];
	if (out_format(o) == FMT_JSON) {
		summary_record(o, d, shown, left);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%zu dead", d->counts[KBX_DEAD]);
	if (shown < d->counts[KBX_DEAD])
		strbuf_addf(&sb, " (%zu shown: --limit)", shown);
	if (d->guessed)
		strbuf_addf(&sb, ", %zu of which only ambiguous calls may reach (--certain)", d->guessed);
	strbuf_addf(&sb, "; %zu %s left out", left, left == 1 ? "function" : "functions");
	const char *sep = ": ";
	for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++) {
		size_t k = d->counts[order[i]];
		if (!k)
			continue;
		strbuf_addf(&sb, "%s%zu %s", sep, k, words[order[i]][k != 1]);
		sep = ", ";
	}
	if (left && !d->explain)
		strbuf_addstr(&sb, " (--explain lists them)");
	if (!sb.failed && out_format(o) == FMT_TEXT)
		out_note(o, "%s%s", d->n ? "\n" : "", sb.buf);
	else if (!sb.failed)
		fprintf(stderr, "%s\n", sb.buf);
	strbuf_release(&sb);
}

/* The globs of the dead.ignore setting, split at blanks, into list. */
static int config_globs(struct kbx_ctx *ctx, char **copy, const char ***list, size_t *n)
{
	struct kbx_config_value v;
	*copy = NULL;
	if (!ctx->config || kbx_config_get(ctx->config, "dead.ignore", &v, NULL) != KBX_OK ||
	    !v.text || !*v.text)
		return 0;
	*copy = strdup(v.text);
	if (!*copy)
		return -1;
	for (char *tok = strtok(*copy, " \t"); tok; tok = strtok(NULL, " \t")) {
		const char **p = realloc(*list, (*n + 1) * sizeof(*p));
		if (!p)
			return -1;
		*list = p;
		(*list)[(*n)++] = tok;
	}
	return 0;
}

int cmd_dead(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int include_exported = 0, include_tests = 0, explain = 0, quiet = 0, kind = 0, certain = 0;
	long limit = 0;
	const char *path = NULL;
	struct opt_list ignore = OPT_LIST_INIT;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_BOOL_F(0, "include-exported", &include_exported,
			   "report exported functions too (public API: what an application wants)"),
		OPT_BOOL_F(0, "include-tests", &include_tests,
			   "report tests and the functions of test files too"),
		OPT_STRING_LIST_F(0, "ignore", &ignore, "GLOB",
				  "never report names, qualified names or ids matching GLOB (repeatable)"),
		OPT_KEYWORD_F(0, "kind", &kind, kind_names, "KIND",
			      "only functions or only methods: all, function or method"),
		{ OPT_STRING, 0, "path", &path, "GLOB", "only in files under this path, or matching this glob",
		  NULL, 0, "path" },
		OPT_CERTAIN_F(&certain),
		OPT_INT_F('n', "limit", &limit, "N", "report at most N (default: all)"),
		OPT_BOOL_F(0, "explain", &explain, "list what is left out too, each with its reason"),
		OPT_BOOL_F('q', "quiet", &quiet, "no summary (line or JSON record)"),
		OPT_OUTPUT_COMMON(&oo),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, dead_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (limit < 0) {
		fprintf(stderr, "error: --limit must be 0 or more, not %ld\n", limit);
		return KBX_EXIT_USAGE;
	}

	int rc = 0;
	char *cfg_copy = NULL;
	const char **globs = NULL, **paths = NULL;
	size_t nglobs = 0;
	struct dead d = { 0 };
	struct out *o = NULL;
	if (config_globs(ctx, &cfg_copy, &globs, &nglobs) < 0)
		goto nomem;
	for (int i = 0; i < ignore.n; i++) {
		const char **p = realloc(globs, (nglobs + 1) * sizeof(*p));
		if (!p)
			goto nomem;
		globs = p;
		globs[nglobs++] = ignore.items[i];
	}
	paths = calloc((size_t)nargs + 2, sizeof(*paths));
	if (!paths)
		goto nomem;
	for (int i = 0; i < nargs; i++)
		paths[d.npaths++] = argv[i];
	if (path)
		paths[d.npaths++] = path;
	d.paths = paths;
	d.explain = explain;

	struct kbx_dead_opts dopts = { 0 };
	dopts.kinds = kind == 1 ? KBX_KIND_MASK(KBX_KIND_FUNCTION) :
		kind == 2 ? KBX_KIND_MASK(KBX_KIND_METHOD) : 0;
	dopts.include_exported = include_exported;
	dopts.include_tests = include_tests;
	dopts.ignore = globs;
	dopts.nignore = nglobs;
	dopts.certain_only = certain;
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_dead_scan(ctx->store, &dopts, on_fn, &d, &err)) {
		rc = die_status(&err);
		goto out;
	}
	if (d.nomem)
		goto nomem;
	if (d.n > 1)
		qsort(d.items, d.n, sizeof(*d.items), by_place);

	o = out_new(&oo);
	if (!o) {
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	size_t shown = 0;
	for (size_t i = 0; i < d.n; i++) {
		if (!d.items[i].reason && limit && shown >= (size_t)limit)
			continue;
		if (!d.items[i].reason)
			shown++;
		print_item(o, &d.items[i]);
	}
	if (!quiet)
		summary(o, &d, shown);
	if (out_finish(o))
		rc = KBX_EXIT_IO;
	if (!rc)
		rc = d.counts[KBX_DEAD] ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
	goto out;
nomem:
	fprintf(stderr, "fatal: out of memory\n");
	rc = KBX_EXIT_INTERNAL;
out:
	for (size_t i = 0; i < d.n; i++)
		free(d.items[i].why);
	free(d.items);
	free(paths);
	free(globs);
	free(cfg_copy);
	free(ignore.items);
	return rc;
}
