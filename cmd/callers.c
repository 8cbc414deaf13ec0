/* kbx callers: who calls a function. */
#include "builtin.h"

static const char *const callers_usage[] = {
	"kbx callers [--depth=<n> | --transitive] [--certain] [-v] [--format=<format>] <symbol>",
	NULL
};

int cmd_callers(int argc, const char **argv, struct kbx_ctx *ctx)
{
	static const struct edge_query q = {
		"callers", "caller", "callers of", KBX_EDGE_CALLS, KBX_DIR_IN, callers_usage
	};
	return run_edge_query(argc, argv, ctx, &q);
}
