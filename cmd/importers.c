/* kbx importers: list the files that import a file or module. */
#include "builtin.h"

static const char *const importers_usage[] = {
	"kbx importers [--depth=<n> | --transitive] [--format=<format>] <file>",
	NULL
};

int cmd_importers(int argc, const char **argv, struct kbx_ctx *ctx)
{
	static const struct edge_query q = {
		"importers", "importer", "importers of", KBX_EDGE_IMPORTS, KBX_DIR_IN, importers_usage
	};
	return run_edge_query(argc, argv, ctx, &q);
}
