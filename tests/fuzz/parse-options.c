/*
 * Fuzz the option parser (cmd/parse-options.c) with any argv: every kind
 * of option the commands use, in one table with the shared output
 * options.  The input is argv[1..], NUL-separated.  -h and --list-opts
 * print and exit by design, so inputs naming them are skipped.
 */
#include <string.h>

#include "fuzz.h"
#include "output.h"
#include "parse-options.h"

#define MAX_ARGS 64

static const char *const usage[] = { "kbx fuzz [<options>] <symbol>...", NULL };
static const char *const kinds[] = { "function", "class", "method", NULL };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* parse_options reports errors on stderr: send the C stream (not
	 * file descriptor 2, where the sanitizers report) to /dev/null */
	FILE *null = fopen("/dev/null", "w");
	if (null)
		stderr = null;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = '\0';

	const char *argv[MAX_ARGS + 2], *orig[MAX_ARGS + 2];
	int argc = 0;
	argv[argc++] = "fuzz";
	for (char *p = copy; p <= copy + size && argc <= MAX_ARGS; p += strlen(p) + 1) {
		if (!strcmp(p, "-h") || !strcmp(p, "--list-opts")) {
			free(copy);
			return 0;
		}
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	memcpy(orig, argv, sizeof(argv));

	int flag = 0, verbose = 0, kind = -1;
	long depth = 1;
	uint64_t max_size = 0;
	const char *name = NULL;
	struct opt_list paths = { NULL, 0 };
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_INT_F('d', "depth", &depth, "N", "follow edges N hops"),
		OPT_BOOL_F('t', "transitive", &flag, "follow edges as far as they go"),
		OPT_COUNT_F('v', "verbose", &verbose, "say more"),
		OPT_STRING_F('n', "name", &name, "NAME", "a name"),
		OPT_SIZE_F(0, "max-file-size", &max_size, "SIZE", "a size"),
		OPT_KEYWORD_F('k', "kind", &kind, kinds, "KIND", "a kind"),
		{ OPT_STRING_LIST, 'p', "path", &paths, "PATH", "repeatable", NULL, 0, "path" },
		{ OPT_BOOL, 0, "secret", &flag, NULL, "hidden", NULL, OPT_HIDDEN, NULL },
		{ OPT_BOOL, 0, "always", &flag, NULL, "no --no- form", NULL, OPT_NONEG, NULL },
		OPT_OUTPUT_COMMON(&oo),
		OPT_END_F(),
	};
	int n = parse_options(argc, argv, opts, usage);
	FUZZ_ASSERT(n >= -1 && n < argc);
	if (n >= 0) {
		FUZZ_ASSERT(argv[n] == NULL);
		/* operands are some of the arguments, in their order */
		int j = 1;
		for (int i = 0; i < n; i++) {
			while (j < argc && orig[j] != argv[i])
				j++;
			FUZZ_ASSERT(j < argc);
			j++;
		}
		FUZZ_ASSERT(kind >= -1 && kind < 3);
		FUZZ_ASSERT(oo.format >= 0 && oo.format < 4);
		if (name)
			FUZZ_ASSERT(name >= copy && name <= copy + size);
		for (int i = 0; i < paths.n; i++)
			FUZZ_ASSERT(paths.items[i] >= copy && paths.items[i] <= copy + size);
	}
	free(paths.items);
	free(copy);
	return 0;
}
