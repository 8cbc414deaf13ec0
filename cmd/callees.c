/* kbx callees: what a function calls. */
#include "builtin.h"

static const char *const callees_usage[] = {
	"kbx callees [--depth=<n> | --transitive] [--certain] [-v] [--format=<format>] <symbol>",
	NULL
};

int cmd_callees(int argc, const char **argv, struct kbx_ctx *ctx)
{
	static const struct edge_query q = {
		"callees", "callee", "callees of", KBX_EDGE_CALLS, KBX_DIR_OUT, callees_usage
	};
	return run_edge_query(argc, argv, ctx, &q);
}
