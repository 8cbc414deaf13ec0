/* kbx version: print the version. */
#include <stdio.h>

#include "builtin.h"
#include "parse-options.h"

#ifndef KBX_VERSION
#define KBX_VERSION "0.1.0"
#endif

static const char *const version_usage[] = {
	"kbx version",
	NULL
};

int cmd_version(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct option opts[] = { OPT_END_F() };
	(void)ctx;
	if (parse_options(argc, argv, opts, version_usage) != 0) {
		usage_with_options(version_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	printf("kbx version %s\n", KBX_VERSION);
	return fflush(stdout) ? KBX_EXIT_IO : KBX_EXIT_OK;
}
