/* kbx superclasses: list the types a class extends or implements. */
#include "builtin.h"

static const char *const superclasses_usage[] = {
	"kbx superclasses [--depth=<n> | --transitive] [--format=<format>] <class>",
	NULL
};

int cmd_superclasses(int argc, const char **argv, struct kbx_ctx *ctx)
{
	static const struct edge_query q = {
		"superclasses", "superclass", "superclasses of", KBX_EDGE_INHERITS, KBX_DIR_OUT, superclasses_usage
	};
	return run_edge_query(argc, argv, ctx, &q);
}
