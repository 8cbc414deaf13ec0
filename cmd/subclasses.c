/* kbx subclasses: list the classes that extend or implement a type. */
#include "builtin.h"

static const char *const subclasses_usage[] = {
	"kbx subclasses [--depth=<n> | --transitive] [--format=<format>] <class>",
	NULL
};

int cmd_subclasses(int argc, const char **argv, struct kbx_ctx *ctx)
{
	static const struct edge_query q = {
		"subclasses", "subclass", "subclasses of", KBX_EDGE_INHERITS, KBX_DIR_IN, subclasses_usage
	};
	return run_edge_query(argc, argv, ctx, &q);
}
