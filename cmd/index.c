/* kbx index: build or update the index of the repository. */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "config.h"
#include "output.h"
#include "parse-options.h"
#include "strbuf.h"

/* the summary is one record: text or JSON (same order as FMT_TEXT, FMT_JSON) */
static const char *const summary_formats[] = { "text", "json", NULL };

static const char *const index_usage[] = {
	"kbx index [--rebuild] [-q] [--max-file-size=<size>] [--threads=<n>] [<path>...]",
	"kbx index --watch [--rebuild] [-q] [--max-file-size=<size>] [--threads=<n>]",
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

/* The JSON record of one run. */
static void json_summary(struct out *o, const struct kbx_index_stats *stats)
{
	out_record_begin(o, "index");
	out_field_int(o, "generation", (int64_t)stats->generation);
	out_field_int(o, "scanned", (int64_t)stats->scanned);
	out_field_int(o, "parsed", (int64_t)stats->parsed);
	out_field_int(o, "unchanged", (int64_t)stats->unchanged);
	out_field_int(o, "skipped", (int64_t)stats->skipped);
	out_field_int(o, "removed", (int64_t)stats->removed);
	out_field_int(o, "reresolved", (int64_t)stats->reresolved);
	out_field_int(o, "nodes", (int64_t)stats->symbols);
	out_field_int(o, "edges", (int64_t)stats->edges);
	out_field_int(o, "milliseconds", (int64_t)(stats->seconds * 1000));
	out_field_int(o, "ms_scan", (int64_t)(stats->seconds_scan * 1000));
	out_field_int(o, "ms_wait_parse", (int64_t)(stats->seconds_wait * 1000));
	out_field_int(o, "ms_write", (int64_t)(stats->seconds_write * 1000));
	out_field_int(o, "ms_resolve", (int64_t)(stats->seconds_resolve * 1000));
	out_field_int(o, "ms_commit", (int64_t)(stats->seconds_commit * 1000));
	out_record_end(o);
}

/* ---- --watch ---- */

struct watch_state {
	const struct output_opts *oo;
	int quiet;
	int rc;                 /* why watching stopped, when a run failed */
};

static void on_watch_ready(void *data, size_t ndirs)
{
	struct watch_state *ws = data;
	if (!ws->quiet)
		fprintf(stderr, "watching %zu director%s for changes; Ctrl-C stops\n", ndirs,
			ndirs == 1 ? "y" : "ies");
}

/* One line per run: the time, what changed, what the run did. */
static int on_watch_run(void *data, const struct kbx_watch_report *r)
{
	struct watch_state *ws = data;
	if (r->status) {
		int rc = die_status(r->err);
		/* a full disk or an unreadable file may pass: keep watching */
		if (r->status == KBX_ERR_FULL || r->status == KBX_ERR_IO) {
			fprintf(stderr, "note: the previous index is unchanged; the next change will retry\n");
			return 0;
		}
		ws->rc = rc;
		return 1;
	}
	const struct kbx_index_stats *st = r->stats;
	if (ws->oo->format == FMT_JSON) {
		struct out *o = out_new(ws->oo);
		if (!o) {
			ws->rc = KBX_EXIT_USAGE;
			return 1;
		}
		json_summary(o, st);
		if (out_finish(o)) {
			ws->rc = KBX_EXIT_IO;
			return 1;
		}
		return 0;
	}
	if (ws->quiet)
		return 0;
	char when[16];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	if (r->full)
		fprintf(stderr, "%s the whole tree", when);
	else if (r->npaths == 1)
		fprintf(stderr, "%s %s", when, r->paths[0]);
	else
		fprintf(stderr, "%s %s and %zu more", when, r->paths[0], r->npaths - 1);
	fprintf(stderr, ": %llu parsed, %llu removed, %llu re-resolved in %.2f s; %llu nodes, %llu edges\n",
		(unsigned long long)st->parsed, (unsigned long long)st->removed,
		(unsigned long long)st->reresolved, st->seconds, (unsigned long long)st->symbols,
		(unsigned long long)st->edges);
	return 0;
}

/* Watch until SIGINT, SIGTERM or SIGHUP, which end it with status 0. */
static int watch_loop(struct kbx_ctx *ctx, const struct kbx_index_opts *io,
		      const struct output_opts *oo, int quiet)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	/* the signals wait for the loop, which looks at them between two
	 * runs, so that a run is never cut short */
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0) {
		perror("error: cannot block signals");
		return KBX_EXIT_INTERNAL;
	}
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		perror("error: cannot watch for signals");
		sigprocmask(SIG_SETMASK, &old, NULL);
		return KBX_EXIT_INTERNAL;
	}
	struct watch_state ws = { oo, quiet, 0 };
	struct kbx_watch_opts wo = { 0 };
	wo.index = io;
	wo.stop_fd = sfd;
	wo.on_ready = on_watch_ready;
	wo.on_run = on_watch_run;
	wo.data = &ws;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = kbx_watch(ctx->store, &wo, &err);
	/* take the signal that stopped us, so that it is not delivered
	 * when the mask is restored */
	struct signalfd_siginfo si;
	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
	close(sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (st)
		return die_status(&err);
	return ws.rc;
}

int cmd_index(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int rebuild = 0, quiet = 0, watch = 0;
	long threads = LONG_MIN;   /* not given: the index.threads setting */
	uint64_t max_size = 0;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_BOOL_F(0, "rebuild", &rebuild, "drop the index and build it again from scratch"),
		OPT_BOOL_F('q', "quiet", &quiet, "print no progress, notes or summary"),
		OPT_SIZE_F(0, "max-file-size", &max_size, "SIZE",
			   "skip files larger than this (default 1m)"),
		OPT_INT_F(0, "threads", &threads, "N", "parser threads, at most 16 (default: one per core)"),
		OPT_BOOL_F(0, "watch", &watch, "keep the index current as files change, until interrupted"),
		OPT_KEYWORD_F(0, "format", &oo.format, summary_formats, "FORMAT",
			      "format of the summary: text (on stderr) or json (on stdout)"),
		OPT_INT_F(0, "format-version", &oo.format_version, "N",
			  "version of the JSON summary (default: the newest)"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, index_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (threads != LONG_MIN && (threads < 0 || threads > 16)) {
		fprintf(stderr, "error: --threads must be between 0 (one per core) and 16\n");
		return KBX_EXIT_USAGE;
	}
	if (watch && nargs) {
		fprintf(stderr, "error: --watch takes no path: it watches the whole repository\n");
		return KBX_EXIT_USAGE;
	}
	/* what the options leave open, the settings say (kbx-settings(7)) */
	struct kbx_config_value v;
	uint64_t parse_timeout_ms = 0;
	if (!max_size && kbx_config_get(ctx->config, "index.maxFileSize", &v, NULL) == KBX_OK)
		max_size = (uint64_t)v.number;
	if (threads == LONG_MIN)
		threads = kbx_config_get(ctx->config, "index.threads", &v, NULL) == KBX_OK ? v.number : 0;
	if (kbx_config_get(ctx->config, "index.parseTimeout", &v, NULL) == KBX_OK)
		parse_timeout_ms = (uint64_t)v.number;
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
	io.parse_timeout_us = parse_timeout_ms * 1000;
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
		json_summary(o, &stats);
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
	if (out_finish(o))
		return KBX_EXIT_IO;
	if (!watch)
		return KBX_EXIT_OK;
	/* the runs to come are short: no progress between them */
	state.progress = 0;
	io.rebuild = 0;
	io.paths = NULL;
	io.npaths = 0;
	return watch_loop(ctx, &io, &oo, quiet);
}
