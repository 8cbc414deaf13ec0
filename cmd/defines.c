/* kbx defines: list what a file or class defines. */
#include "builtin.h"

static const char *const defines_usage[] = {
	"kbx defines [--depth=<n> | --transitive] [--format=<format>] <symbol>",
	NULL
};

int cmd_defines(int argc, const char **argv, struct kbx_ctx *ctx)
{
	static const struct edge_query q = {
		"defines", "member", "defined in", KBX_EDGE_DEFINES, KBX_DIR_OUT, defines_usage
	};
	return run_edge_query(argc, argv, ctx, &q);
}
