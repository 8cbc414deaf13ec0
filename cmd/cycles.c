/*
 * kbx cycles: import cycles between files and call cycles between
 * functions, smallest first: one shortest cycle for each group of nodes
 * that reach each other, with the site of every step.
 *
 *   kbx cycles [--kind=imports|calls|all] [--certain] [<path>...]
 *
 * A cycle that closes only through an ambiguous edge (a call that could
 * mean several definitions) is shown as possible, never as certain;
 * --certain leaves such edges out.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "builtin.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"

static const char *const cycles_usage[] = {
	"kbx cycles [--kind=<kind>] [--path=<glob>] [--limit=<n>] [--certain] [--format=<format>] [<path>...]",
	NULL
};

static const char *const kind_names[] = { "all", "imports", "calls", NULL };
enum { KIND_ALL, KIND_IMPORTS, KIND_CALLS };

/* Which nodes take part: under one of the paths and matching one of the
 * globs (each list empty: any). */
struct scope {
	const char **prefixes;
	size_t nprefixes;
	const struct opt_list *globs;
};

static int in_scope(void *data, const struct kbx_node *n)
{
	const struct scope *sc = data;
	if (!n->path)
		return 0;
	char buf[4096];
	if (n->path_len >= sizeof(buf))
		return 0;
	memcpy(buf, n->path, n->path_len);
	buf[n->path_len] = '\0';
	if (sc->nprefixes) {
		size_t i;
		for (i = 0; i < sc->nprefixes; i++) {
			size_t pl = strlen(sc->prefixes[i]);
			while (pl && sc->prefixes[i][pl - 1] == '/')
				pl--;
			if (!pl || (!strncmp(buf, sc->prefixes[i], pl) &&
				    (buf[pl] == '\0' || buf[pl] == '/')))
				break;
		}
		if (i == sc->nprefixes)
			return 0;
	}
	if (sc->globs->n) {
		int i;
		for (i = 0; i < sc->globs->n; i++)
			if (!fnmatch(sc->globs->items[i], buf, 0))
				break;
		if (i == sc->globs->n)
			return 0;
	}
	return 1;
}

struct step {
	struct kbx_node node;
	uint32_t line, col;     /* the site of its edge to the next step */
	int certain;
};

struct cycle {
	int kind;               /* KBX_EDGE_CALLS or KBX_EDGE_IMPORTS */
	struct step *steps;
	size_t len, component;
	int certain;
};

struct finder {
	kbx_store_t *store;
	struct kbx_depgraph calls, imports;
	struct scope *scope;
	int self_loops;
	struct cycle *cycles;
	size_t n, alloc;
	int kind;               /* of the graph being searched */
	kbx_status_t st;
	struct kbx_error *err;
};

static int on_edge(void *data, const struct kbx_edge *e)
{
	struct finder *f = data;
	struct kbx_depgraph *g = e->kind == KBX_EDGE_CALLS ? &f->calls : &f->imports;
	f->st = kbx_depgraph_add_edge(f->store, g, e, f->self_loops, in_scope, f->scope, f->err);
	return f->st != KBX_OK;
}

static int on_cycle(void *data, const struct kbx_depgraph *g, const uint32_t *path, size_t len,
		    size_t component, int certain)
{
	struct finder *f = data;
	if (f->n == f->alloc) {
		size_t na = f->alloc ? f->alloc * 2 : 64;
		struct cycle *p = realloc(f->cycles, na * sizeof(*p));
		if (!p)
			goto nomem;
		f->cycles = p;
		f->alloc = na;
	}
	struct cycle *c = &f->cycles[f->n];
	c->steps = calloc(len, sizeof(*c->steps));
	if (!c->steps)
		goto nomem;
	f->n++;
	c->kind = f->kind;
	c->len = len;
	c->component = component;
	c->certain = certain;
	for (size_t i = 0; i < len; i++) {
		struct step *s = &c->steps[i];
		if ((f->st = kbx_node_get(f->store, g->ids[path[i]], &s->node, f->err)))
			return 1;
		const struct kbx_dep_edge *e = kbx_depgraph_edge(g, path[i], path[(i + 1) % len]);
		if (e) {
			s->line = e->line;
			s->col = e->col;
			s->certain = e->certain;
		}
	}
	return 0;
nomem:
	f->st = KBX_ERR_NOMEM;
	snprintf(f->err->msg, sizeof(f->err->msg), "out of memory");
	f->err->status = KBX_ERR_NOMEM;
	return 1;
}

/* Smallest first; certain before possible; imports before calls; then
 * by the first member's id, so that the order never depends on ids. */
static int by_size(const void *a, const void *b)
{
	const struct cycle *x = a, *y = b;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->certain != y->certain)
		return y->certain - x->certain;
	if (x->kind != y->kind)
		return x->kind == KBX_EDGE_IMPORTS ? -1 : 1;
	return strcmp(x->steps[0].node.cid, y->steps[0].node.cid);
}

static const char *step_verb(int kind, int certain)
{
	if (kind == KBX_EDGE_IMPORTS)
		return certain ? "imports" : "may import";
	return certain ? "calls" : "may call";
}

static void print_cycle(struct out *o, size_t index, const struct cycle *c)
{
	const char *what = c->kind == KBX_EDGE_IMPORTS ? "import" : "call";
	const char *members = c->kind == KBX_EDGE_IMPORTS ? "file" : "function";
	if (out_is_picture(o)) {
		if (index == 1)
			out_picture_title(o, "cycles");
		for (size_t i = 0; i < c->len; i++)
			out_picture_edge(o, &c->steps[i].node, &c->steps[(i + 1) % c->len].node,
					 c->steps[i].certain ? KBX_CONF_CERTAIN : KBX_CONF_AMBIGUOUS, NULL);
		return;
	}
	switch (out_format(o)) {
	case FMT_NUL:
		/* an empty item between two cycles */
		if (index > 1)
			putchar('\0');
		for (size_t i = 0; i < c->len; i++) {
			fputs(c->steps[i].node.cid, stdout);
			putchar('\0');
		}
		return;
	case FMT_GREP:
		for (size_t i = 0; i < c->len; i++) {
			const struct step *s = &c->steps[i];
			const struct kbx_node *n = &s->node, *next = &c->steps[(i + 1) % c->len].node;
			out_line(o, "%s:%u:%u: %s%s cycle %zu, step %zu of %zu: %s %s %s",
				 out_grep_path(NULL, n->path, n->path_len),
				 s->line ? s->line : (n->line ? n->line : 1), s->line ? s->col : 1,
				 c->certain ? "" : "possible ", what, index, i + 1, c->len,
				 out_esc(n->cid), step_verb(c->kind, s->certain), out_esc(next->cid));
		}
		return;
	case FMT_JSON: {
		out_record_begin(o, "cycle");
		out_field_str(o, "kind", kbx_edge_kind_str(c->kind));
		out_field_int(o, "length", (int64_t)c->len);
		out_field_str(o, "confidence", c->certain ? "certain" : "ambiguous");
		out_field_int(o, "component", (int64_t)c->component);
		out_json_begin(o, "steps", 1);
		for (size_t i = 0; i < c->len; i++) {
			const struct step *s = &c->steps[i];
			const struct kbx_node *n = &s->node;
			out_json_begin(o, NULL, 0);
			out_json_str(o, "id", n->cid);
			out_json_str(o, "name", n->name);
			out_json_str(o, "kind", kbx_kind_str(n->kind));
			out_json_strn(o, "path", n->path, n->path_len);
			out_json_int(o, "line", n->line ? n->line : 1);
			out_json_str(o, "to", c->steps[(i + 1) % c->len].node.cid);
			out_json_site(o, "site_line", "site_col", s->line, s->col);
			out_json_str(o, "confidence", s->certain ? "certain" : "ambiguous");
			out_json_end(o);
		}
		out_json_end(o);
		out_record_end(o);
		return;
	}
	default:
		break;
	}
	if (c->len == 1)
		out_heading(o, "%s%s cycle %zu: %s %s itself", c->certain ? "" : "possible ", what,
			    index, out_esc(c->steps[0].node.cid),
			    step_verb(c->kind, c->steps[0].certain));
	else if (c->component > c->len)
		out_heading(o, "%s%s cycle %zu: %zu %ss (one cycle among %zu that reach each other)",
			    c->certain ? "" : "possible ", what, index, c->len, members,
			    c->component);
	else
		out_heading(o, "%s%s cycle %zu: %zu %ss", c->certain ? "" : "possible ", what, index,
			    c->len, members);
	for (size_t i = 0; i < c->len; i++) {
		const struct step *s = &c->steps[i];
		const struct kbx_node *n = &s->node, *next = &c->steps[(i + 1) % c->len].node;
		out_line(o, "  %s:%u  %s %s %s%s", out_escn(n->path, n->path_len),
			 s->line ? s->line : (n->line ? n->line : 1), out_esc(n->cid),
			 step_verb(c->kind, s->certain), out_esc(next->cid),
			 s->certain ? "" : "  (ambiguous)");
	}
}

int cmd_cycles(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int kind = KIND_ALL, certain = 0, self_loops = 1;
	long limit = 0;
	struct opt_list globs = OPT_LIST_INIT;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	oo.pictures = 1;
	struct option opts[] = {
		OPT_KEYWORD_F(0, "kind", &kind, kind_names, "KIND",
			      "which cycles: imports, calls or all (the default)"),
		OPT_STRING_LIST_F(0, "path", &globs, "GLOB",
				  "only files whose path matches GLOB (repeatable)"),
		OPT_INT_F('n', "limit", &limit, "N", "show at most N cycles (default: all)"),
		OPT_CERTAIN_F(&certain),
		OPT_BOOL_F(0, "self-loops", &self_loops,
			   "count a function that calls itself (default; --no-self-loops to skip)"),
		OPT_OUTPUT_COMMON(&oo),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, cycles_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (limit < 0) {
		fprintf(stderr, "error: --limit must be 0 (no limit) or more\n");
		free(globs.items);
		return KBX_EXIT_USAGE;
	}
	/* the operands are repository paths: "./lib/" is "lib" */
	for (int i = 0; i < nargs; i++) {
		while (argv[i][0] == '.' && argv[i][1] == '/')
			argv[i] += 2;
		if (!strcmp(argv[i], "."))
			argv[i] = "";
	}
	struct scope sc = { argv, (size_t)nargs, &globs };
	struct kbx_error err = KBX_ERROR_INIT;
	struct finder f = { 0 };
	f.store = ctx->store;
	f.scope = &sc;
	f.self_loops = self_loops;
	f.err = &err;
	unsigned kinds = 0;
	if (kind != KIND_CALLS)
		kinds |= KBX_EDGE_MASK(KBX_EDGE_IMPORTS);
	if (kind != KIND_IMPORTS)
		kinds |= KBX_EDGE_MASK(KBX_EDGE_CALLS);
	kbx_status_t st = kbx_scan_edges(ctx->store, kinds, on_edge, &f, &err);
	if (!st)
		st = f.st;
	if (!st) {
		f.kind = KBX_EDGE_IMPORTS;
		st = kbx_depgraph_cycles(ctx->store, &f.imports, certain, on_cycle, &f, &err);
	}
	if (!st)
		st = f.st;
	if (!st) {
		f.kind = KBX_EDGE_CALLS;
		st = kbx_depgraph_cycles(ctx->store, &f.calls, certain, on_cycle, &f, &err);
	}
	if (!st)
		st = f.st;
	kbx_depgraph_release(&f.calls);
	kbx_depgraph_release(&f.imports);
	free(globs.items);
	int rc = 0;
	struct out *o = NULL;
	if (st)
		rc = die_status(&err);
	else if (!(o = out_new(&oo)))
		rc = KBX_EXIT_USAGE;
	size_t shown = 0;
	if (!rc) {
		if (f.n)
			qsort(f.cycles, f.n, sizeof(*f.cycles), by_size);
		shown = limit && (size_t)limit < f.n ? (size_t)limit : f.n;
		for (size_t i = 0; i < shown; i++)
			print_cycle(o, i + 1, &f.cycles[i]);
		if (shown < f.n)
			out_note(o, "\n(%zu more; --limit=0 shows them all)", f.n - shown);
	}
	for (size_t i = 0; i < f.n; i++)
		free(f.cycles[i].steps);
	free(f.cycles);
	if (o && out_finish(o))
		return KBX_EXIT_IO;
	if (rc)
		return rc;
	return shown ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
