/*
 * kbx complete-symbols: the names in the index that start with a prefix,
 * one per line, for the shell completions (plumbing: the output is the
 * bare names, never coloured, never grouped).
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "parse-options.h"

static const char *const complete_symbols_usage[] = {
	"kbx complete-symbols [--prefix=<prefix>] [--max=<n>]",
	NULL
};

static void print_name(void *data, const char *name, size_t len)
{
	(void)data;
	/* a name with a newline would break the one-per-line contract */
	if (memchr(name, '\n', len))
		return;
	fwrite(name, 1, len, stdout);
	putchar('\n');
}

int cmd_complete_symbols(int argc, const char **argv, struct kbx_ctx *ctx)
{
	const char *prefix = "";
	long max = 200;
	struct option opts[] = {
		OPT_STRING_F(0, "prefix", &prefix, "PREFIX", "only names that start with PREFIX"),
		OPT_INT_F(0, "max", &max, "N", "at most N names (default 200; 0: all)"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, complete_symbols_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs || max < 0) {
		usage_with_options(complete_symbols_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = kbx_names_with_prefix(ctx->store, prefix ? prefix : "", (size_t)max,
						print_name, NULL, &err);
	if (st && st != KBX_NOT_FOUND)
		return die_status(&err);
	if (fflush(stdout) || ferror(stdout))
		return KBX_EXIT_IO;
	return st == KBX_NOT_FOUND ? KBX_EXIT_NOT_FOUND : KBX_EXIT_OK;
}
