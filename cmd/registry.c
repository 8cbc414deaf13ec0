/* kbx registry: the registries of errors and documents kbx indexes. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "search/kbx-search.h"
#include "output.h"
#include "parse-options.h"

static const char *const registry_usage[] = {
	"kbx registry add <path>...",
	"kbx registry remove <path>...",
	"kbx registry list [--format=<format>]",
	NULL
};

static const char *const list_formats[] = { "text", "json", NULL };

struct lister {
	struct out *o;
	size_t n;
};

static void list_one(void *data, const char *path, int64_t added)
{
	struct lister *l = data;
	l->n++;
	if (out_format(l->o) == FMT_JSON) {
		char when[32] = "";
		time_t t = (time_t)added;
		struct tm tm;
		if (added && gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
		out_record_begin(l->o, "registry");
		out_field_str(l->o, "path", path);
		out_field_str(l->o, "added", *when ? when : NULL);
		out_record_end(l->o);
	} else {
		printf("%s\n", out_esc(path));
	}
}

int cmd_registry(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_KEYWORD_F(0, "format", &oo.format, list_formats, "FORMAT",
			      "list: text (one path a line) or json"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, registry_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (!nargs) {
		fprintf(stderr, "error: say add, remove or list\n");
		usage_with_options(registry_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	const char *sub = argv[0];
	struct kbx_error err = KBX_ERROR_INIT;
	int rc;
	if (!strcmp(sub, "list")) {
		if (nargs > 1) {
			fprintf(stderr, "error: 'registry list' takes no arguments\n");
			return KBX_EXIT_USAGE;
		}
		rc = setup_store(ctx, RUN_NEEDS_INDEX, 0);
		if (rc)
			return rc;
		struct lister l = { out_new(&oo), 0 };
		if (!l.o)
			return KBX_EXIT_USAGE;
		kbx_status_t st = kbx_registry_list(ctx->store, list_one, &l, &err);
		if (out_finish(l.o))
			return KBX_EXIT_IO;
		if (st)
			return die_status(&err);
		return l.n ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
	}
	int add = !strcmp(sub, "add");
	if (!add && strcmp(sub, "remove")) {
		fprintf(stderr, "error: unknown subcommand '%s': say add, remove or list\n",
			out_esc(sub));
		return KBX_EXIT_USAGE;
	}
	if (nargs < 2) {
		fprintf(stderr, "error: 'registry %s' needs the path of a registry directory\n", sub);
		return KBX_EXIT_USAGE;
	}
	rc = setup_store(ctx, RUN_WRITES_INDEX, 0);
	if (rc)
		return rc;
	int status = KBX_EXIT_OK;
	for (int i = 1; i < nargs; i++) {
		kbx_status_t st;
		if (add) {
			int was = 0;
			st = kbx_registry_add(ctx->store, argv[i], &was, &err);
			if (!st && was)
				fprintf(stderr, "note: '%s' is a registry already\n", out_esc(argv[i]));
		} else {
			st = kbx_registry_remove(ctx->store, argv[i], &err);
		}
		if (st) {
			int r = die_status(&err);
			if (!status || st != KBX_NOT_FOUND)
				status = r;
		}
	}
	if (status == KBX_EXIT_OK)
		fprintf(stderr, "%s; run 'kbx index' to bring the search index up to date\n",
			add ? "added" : "removed");
	return status;
}
