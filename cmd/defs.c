/* kbx defs: where a symbol is defined. */
#include <stdio.h>

#include "builtin.h"
#include "db-graph.h"
#include "output.h"
#include "parse-options.h"

static const char *const defs_usage[] = {
	"kbx defs [--format=<format>] <symbol>...",
	NULL
};

int cmd_defs(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct output_opts oo = OUTPUT_OPTS_INIT;
	int all_repos = 0;
	struct option opts[] = {
		OPT_OUTPUT_COMMON(&oo),
		OPT_ALL_REPOS_DB_F(&all_repos),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, defs_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs < 1) {
		fprintf(stderr, "error: 'defs' takes at least one symbol\n");
		usage_with_options(defs_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	if (all_repos && !ctx->db) {
		fprintf(stderr, "error: 'defs --all-repos' asks the database: give kbx --db=URL\n");
		return KBX_EXIT_USAGE;
	}
	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;
	int rc = 0, found = 0;
	for (int i = 0; i < nargs; i++) {
		struct kbx_nodelist l = KBX_NODELIST_INIT;
		int r = lookup_symbol(ctx, argv[i], &l);
		if (r == KBX_EXIT_NOT_FOUND) {
			continue;
		} else if (r) {
			rc = r;
			break;
		}
		if (nargs > 1 || l.n > 1)
			out_heading(o, "%s: %zu definition%s", out_esc(argv[i]), l.n,
				    l.n == 1 ? "" : "s");
		for (size_t j = 0; j < l.n; j++) {
			if (ctx->db && db_graph_all(ctx->db))
				out_set_repo(o, db_graph_match_repo(ctx->db, j), NULL, 0);
			out_def(o, "def", &l.items[j]);
		}
		found += (int)l.n;
		kbx_nodelist_release(&l);
	}
	if (out_finish(o))
		return KBX_EXIT_IO;
	if (rc)
		return rc;
	return found ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
