/* What callers, callees and the other one-edge-kind queries share. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"

int lookup_symbol(struct kbx_ctx *ctx, const char *sym, struct kbx_nodelist *out)
{
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = kbx_lookup(ctx->store, sym, out, &err);
	if (st == KBX_OK)
		return 0;
	if (st != KBX_NOT_FOUND)
		return die_status(&err);
	fprintf(stderr, "error: %s\n", out_esc(err.msg));
	struct kbx_nodelist near = KBX_NODELIST_INIT;
	struct kbx_error e2 = KBX_ERROR_INIT;
	if (kbx_suggest(ctx->store, sym, 5, &near, &e2) == KBX_OK && near.n) {
		fprintf(stderr, "\nthe nearest names are\n");
		for (size_t i = 0; i < near.n; i++) {
			const struct kbx_node *n = &near.items[i];
			fprintf(stderr, "\t%s\t(%s %s)\n", out_esc(n->name), kbx_kind_str(n->kind),
				out_esc(n->cid));
		}
	}
	kbx_nodelist_release(&near);
	return KBX_EXIT_NOT_FOUND;
}

struct print_ctx {
	struct out *o;
	const struct edge_query *q;
	const struct kbx_node *query;
	size_t count;
};

static int print_edge(void *data, const struct kbx_edge *e)
{
	struct print_ctx *p = data;
	out_edge(p->o, p->q->record, p->query, e, p->q->dir);
	p->count++;
	return 0;
}

int run_edge_query(int argc, const char **argv, struct kbx_ctx *ctx, const struct edge_query *q)
{
	long depth = 1;
	int transitive = 0;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_INT_F('d', "depth", &depth, "N", "follow edges N hops (default 1)"),
		OPT_BOOL_F('t', "transitive", &transitive, "follow edges as far as they go"),
		OPT_OUTPUT_COMMON(&oo),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, q->usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs != 1) {
		fprintf(stderr, "error: '%s' takes one symbol\n", q->name);
		usage_with_options(q->usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	if (depth < 1) {
		fprintf(stderr, "error: --depth must be 1 or more\n");
		return KBX_EXIT_USAGE;
	}
	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;

	struct kbx_nodelist matches = KBX_NODELIST_INIT;
	int rc = lookup_symbol(ctx, argv[0], &matches);
	if (rc) {
		out_finish(o);
		return rc;
	}
	struct print_ctx p = { o, q, NULL, 0 };
	struct kbx_error err = KBX_ERROR_INIT;
	if (matches.n > 1)
		out_note(o, "'%s' names %zu definitions; the results are grouped by definition (name one by its id to choose)\n",
			 out_esc(argv[0]), matches.n);
	for (size_t i = 0; i < matches.n && !rc; i++) {
		const struct kbx_node *m = &matches.items[i];
		p.query = m;
		if (m->path)
			out_heading(o, "%s %s (%s, %s:%u)", q->heading, out_esc(m->cid),
				    kbx_kind_str(m->kind), out_escn(m->path, m->path_len), m->line);
		else
			out_heading(o, "%s %s (%s)", q->heading, out_esc(m->cid),
				    kbx_kind_str(m->kind));
		if (matches.n > 1 && out_format(o) == FMT_JSON)
			out_def(o, "symbol", m);
		size_t before = p.count;
		kbx_status_t st = kbx_walk_edges(ctx->store, m->id, q->kind, q->dir,
						 transitive ? 0 : (uint32_t)depth, print_edge, &p, &err);
		if (st)
			rc = die_status(&err);
		else if (p.count == before)
			out_note(o, "  (none)");
	}
	kbx_nodelist_release(&matches);
	if (out_finish(o))
		return KBX_EXIT_IO;
	if (rc)
		return rc;
	return p.count ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
