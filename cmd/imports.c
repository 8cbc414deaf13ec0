/* kbx imports: list the files and modules a file imports. */
#include "builtin.h"

static const char *const imports_usage[] = {
	"kbx imports [--depth=<n> | --transitive] [--format=<format>] <file>",
	NULL
};

int cmd_imports(int argc, const char **argv, struct kbx_ctx *ctx)
{
	static const struct edge_query q = {
		"imports", "import", "imports of", KBX_EDGE_IMPORTS, KBX_DIR_OUT, imports_usage
	};
	return run_edge_query(argc, argv, ctx, &q);
}
