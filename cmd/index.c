/* kbx index: build or update the index of the repository. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"
#include "strbuf.h"

/* the summary is one record: text or JSON (same order as FMT_TEXT, FMT_JSON) */
static const char *const summary_formats[] = { "text", "json", NULL };

static const char *const index_usage[] = {
	"kbx index [--rebuild] [-q] [--max-file-size=<size>] [--threads=<n>] [<path>...]",
	NULL
};

struct index_state {
	int quiet;
	int progress;           /* on a terminal, not quiet */
	int progress_shown;
	uint64_t skipped_notes;
	const char *phase;      /* the phase being shown, and when it began */
	struct timespec phase_start;
};

static double seconds_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void on_note(void *data, const struct kbx_note *n)
{
	struct index_state *s = data;
	switch (n->kind) {
	case KBX_NOTE_PROGRESS:
		if (!s->progress)
			return;
		if (!s->phase || strcmp(s->phase, n->phase)) {
			s->phase = n->phase;
			clock_gettime(CLOCK_MONOTONIC, &s->phase_start);
		}
		if (n->total > 1) {
			double t = seconds_since(&s->phase_start);
			fprintf(stderr, "\r%-8s %llu/%llu files (%llu%%)", n->phase,
				(unsigned long long)n->done, (unsigned long long)n->total,
				(unsigned long long)(n->done * 100 / n->total));
			if (t > 0.05)
				fprintf(stderr, ", %.0f files/s", (double)n->done / t);
			fputs("\033[K", stderr);
		} else {
			fprintf(stderr, "\r%-8s\033[K", n->phase);
		}
		s->progress_shown = 1;
		break;
	case KBX_NOTE_SKIPPED:
		s->skipped_notes++;
		if (s->quiet)
			return;
		if (s->progress_shown) {
			fputs("\r\033[K", stderr);
			s->progress_shown = 0;
		}
		fprintf(stderr, "note: skipped '%s': %s\n", n->path ? n->path : "?", n->message);
		break;
	case KBX_NOTE_WARNING:
		if (s->progress_shown) {
			fputs("\r\033[K", stderr);
			s->progress_shown = 0;
		}
		if (n->line)
			fprintf(stderr, "warning: '%s' line %u: %s\n", n->path, n->line, n->message);
		else
			fprintf(stderr, "warning: '%s': %s\n", n->path ? n->path : "?", n->message);
		break;
	}
}

/* PATH arguments are given relative to the current directory; the
 * library wants them relative to the repository root.  A path that no
 * longer exists (to drop it from the index) is resolved through its
 * parent directory. */
static char *repo_relative(const char *root, const char *arg)
{
	char real[PATH_MAX], rroot[PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	if (!realpath(root, rroot))
		return NULL;
	if (!realpath(arg, real)) {
		char *copy = strdup(arg);
		if (!copy)
			return NULL;
		char *slash = strrchr(copy, '/');
		const char *dir = ".", *base = copy;
		if (slash) {
			*slash = '\0';
			dir = *copy ? copy : "/";
			base = slash + 1;
		}
		if (!realpath(dir, real) || strlen(real) + strlen(base) + 2 > sizeof(real)) {
			free(copy);
			return NULL;
		}
		strcat(real, "/");
		strcat(real, base);
		free(copy);
	}
	size_t rl = strlen(rroot);
	if (!strcmp(real, rroot))
		return strdup(".");
	if (!strncmp(real, rroot, rl) && (real[rl] == '/' || rl == 1)) {
		strbuf_addstr(&sb, real + (rl == 1 ? 1 : rl + 1));
		return strbuf_detach(&sb, NULL);
	}
	return NULL;
}

int cmd_index(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int rebuild = 0, quiet = 0;
	long threads = 0;
	uint64_t max_size = 0;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_BOOL_F(0, "rebuild", &rebuild, "drop the index and build it again from scratch"),
		OPT_BOOL_F('q', "quiet", &quiet, "print no progress, notes or summary"),
		OPT_SIZE_F(0, "max-file-size", &max_size, "SIZE",
			   "skip files larger than this (default 1m)"),
		OPT_INT_F(0, "threads", &threads, "N", "parser threads, at most 16 (default: one per core)"),
		OPT_KEYWORD_F(0, "format", &oo.format, summary_formats, "FORMAT",
			      "format of the summary: text (on stderr) or json (on stdout)"),
		OPT_INT_F(0, "format-version", &oo.format_version, "N",
			  "version of the JSON summary (default: the newest)"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, index_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (threads < 0 || threads > 16) {
		fprintf(stderr, "error: --threads must be between 0 (one per core) and 16\n");
		return KBX_EXIT_USAGE;
	}
	int rc = setup_store(ctx, RUN_WRITES_INDEX, rebuild);
	if (rc)
		return rc;

	const char **paths = NULL;
	if (nargs) {
		paths = calloc((size_t)nargs + 1, sizeof(*paths));
		if (!paths) {
			fprintf(stderr, "fatal: out of memory\n");
			return KBX_EXIT_INTERNAL;
		}
		for (int i = 0; i < nargs; i++) {
			char *rel = repo_relative(kbx_store_root(ctx->store), argv[i]);
			if (!rel) {
				fprintf(stderr, "error: '%s' is outside the repository at '%s'\n", argv[i],
					kbx_store_root(ctx->store));
				for (int j = 0; j < i; j++)
					free((char *)paths[j]);
				free(paths);
				return KBX_EXIT_USAGE;
			}
			paths[i] = rel;
		}
	}

	struct index_state state = { 0 };
	state.quiet = quiet;
	state.progress = !quiet && isatty(2);
	struct kbx_index_opts io = { 0 };
	io.rebuild = rebuild;
	io.paths = paths;
	io.npaths = (size_t)nargs;
	io.max_file_size = max_size;
	io.threads = (int)threads;
	io.notify = on_note;
	io.notify_data = &state;
	struct kbx_index_stats stats;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = kbx_index_run(ctx->store, &io, &stats, &err);
	if (state.progress_shown)
		fputs("\r\033[K", stderr);
	for (int i = 0; i < nargs; i++)
		free((char *)paths[i]);
	free(paths);
	if (st) {
		rc = die_status(&err);
		if (st == KBX_ERR_FULL || st == KBX_ERR_IO || st == KBX_ERR_STORE)
			fprintf(stderr, "note: the previous index is unchanged\n");
		return rc;
	}

	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;
	if (out_format(o) == FMT_JSON) {
		out_record_begin(o, "index");
		out_field_int(o, "generation", (int64_t)stats.generation);
		out_field_int(o, "scanned", (int64_t)stats.scanned);
		out_field_int(o, "parsed", (int64_t)stats.parsed);
		out_field_int(o, "unchanged", (int64_t)stats.unchanged);
		out_field_int(o, "skipped", (int64_t)stats.skipped);
		out_field_int(o, "removed", (int64_t)stats.removed);
		out_field_int(o, "reresolved", (int64_t)stats.reresolved);
		out_field_int(o, "nodes", (int64_t)stats.symbols);
		out_field_int(o, "edges", (int64_t)stats.edges);
		out_field_int(o, "milliseconds", (int64_t)(stats.seconds * 1000));
		out_field_int(o, "ms_scan", (int64_t)(stats.seconds_scan * 1000));
		out_field_int(o, "ms_wait_parse", (int64_t)(stats.seconds_wait * 1000));
		out_field_int(o, "ms_write", (int64_t)(stats.seconds_write * 1000));
		out_field_int(o, "ms_resolve", (int64_t)(stats.seconds_resolve * 1000));
		out_field_int(o, "ms_commit", (int64_t)(stats.seconds_commit * 1000));
		out_record_end(o);
	} else if (!quiet) {
		/* the summary goes to stderr like the progress: stdout stays for results */
		fprintf(stderr,
			"indexed %llu files in %.2f s: %llu parsed, %llu unchanged, %llu skipped, %llu removed, %llu re-resolved; %llu nodes, %llu edges\n",
			(unsigned long long)stats.scanned, stats.seconds,
			(unsigned long long)stats.parsed, (unsigned long long)stats.unchanged,
			(unsigned long long)stats.skipped, (unsigned long long)stats.removed,
			(unsigned long long)stats.reresolved, (unsigned long long)stats.symbols,
			(unsigned long long)stats.edges);
	}
	return out_finish(o) ? KBX_EXIT_IO : KBX_EXIT_OK;
}
