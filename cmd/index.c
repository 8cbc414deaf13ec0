/* kbx index: build or update the index of the repository. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "util/config.h"
#include "search/kbx-search.h"
#include "output.h"
#include "parse-options.h"
#include "repos-util.h"
#include "util/strbuf.h"

/* the summary is one record: text or JSON (same order as FMT_TEXT, FMT_JSON) */
static const char *const summary_formats[] = { "text", "json", NULL };

static const char *const only_names[] = { "all", "code", "registry", NULL };
enum { ONLY_ALL, ONLY_CODE, ONLY_REGISTRY };

static const char *const index_usage[] = {
	"kbx index [-q] [--only=<part>] [--max-file-size=<size>] [--threads=<n>] [<path>...]",
	"kbx index --rebuild [-q] [--only=<part>] [--max-file-size=<size>] [--threads=<n>]",
	"kbx index --watch [--rebuild] [-q] [--max-file-size=<size>] [--threads=<n>]",
	NULL
};

struct index_state {
	int quiet;
	int progress;           /* on a terminal, not quiet */
	int progress_shown;
	int progress_fd;        /* --progress-fd, or -1 */
	uint64_t skipped_notes;
	/* the retrieval layer's skips and warnings, by reason */
	struct { const char *reason; uint64_t n; } reasons[16];
	size_t nreasons;
	const char *phase;      /* the phase being shown, and when it began */
	struct timespec phase_start;
	struct kbx_compact_stats compact;   /* the compaction after the run */
};

/* Compact the store after a run: always after a run that wrote the
 * whole graph, else when its free pages are worth it
 * (lib/store/compact.c).  The index is committed
 * whatever happens here: a failure is a warning. */
enum { COMPACT_AUTO, COMPACT_EAGER, COMPACT_NEVER };

static void compact_store(struct kbx_ctx *ctx, kbx_store_t *store, int always,
			  struct kbx_compact_stats *cs)
{
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_config_value v;
	long mode = COMPACT_AUTO;
	memset(cs, 0, sizeof(*cs));
	if (kbx_config_get(ctx->config, "index.compact", &v, NULL) == KBX_OK)
		mode = (long)v.number;
	if (mode == COMPACT_NEVER)
		return;
	uint64_t floor = mode == COMPACT_EAGER ? 0 : KBX_COMPACT_FLOOR;
	if (kbx_store_compact(store, always, floor, cs, &err)) {
		fprintf(stderr, "warning: the index is not compacted: %s\n", err.msg);
		cs->compacted = 0;
	}
}

static double seconds_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

static void count_reason(struct index_state *s, const char *reason)
{
	if (!reason)
		return;
	for (size_t i = 0; i < s->nreasons; i++)
		if (!strcmp(s->reasons[i].reason, reason)) {
			s->reasons[i].n++;
			return;
		}
	if (s->nreasons < sizeof(s->reasons) / sizeof(s->reasons[0])) {
		s->reasons[s->nreasons].reason = reason;
		s->reasons[s->nreasons].n = 1;
		s->nreasons++;
	}
}

/* "path:line:col" as compilers write it */
static void where(const struct kbx_note *n)
{
	fprintf(stderr, "%s", n->path ? out_esc(n->path) : "?");
	if (n->line)
		fprintf(stderr, ":%u", n->line);
	if (n->line && n->col)
		fprintf(stderr, ":%u", n->col);
}

static void on_note(void *data, const struct kbx_note *n)
{
	struct index_state *s = data;
	switch (n->kind) {
	case KBX_NOTE_PROGRESS:
		/* for a program: one line a step, whatever the terminal */
		if (s->progress_fd >= 0)
			dprintf(s->progress_fd, "%s %llu %llu\n", n->phase,
				(unsigned long long)n->done, (unsigned long long)n->total);
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
		count_reason(s, n->reason);
		/* registry input that was skipped is printed even with -q:
		 * it makes the exit status 11, and the user must learn why */
		if (s->quiet && !n->reason)
			return;
		if (s->progress_shown) {
			fputs("\r\033[K", stderr);
			s->progress_shown = 0;
		}
		if (n->reason) {
			/* registry input: path:line:col first, as compilers do,
			 * so that editors jump to it */
			where(n);
			fprintf(stderr, ": skipped %s: %s\n", n->what ? out_esc(n->what) : "file",
				out_esc(n->message));
		} else {
			fprintf(stderr, "note: skipped '%s': %s\n", n->path ? out_esc(n->path) : "?",
				out_esc(n->message));
		}
		break;
	case KBX_NOTE_WARNING:
		count_reason(s, n->reason);
		if (n->reason) {
			if (s->progress_shown) {
				fputs("\r\033[K", stderr);
				s->progress_shown = 0;
			}
			where(n);
			fprintf(stderr, ": warning: %s\n", out_esc(n->message));
			break;
		}
		if (s->progress_shown) {
			fputs("\r\033[K", stderr);
			s->progress_shown = 0;
		}
		if (n->line)
			fprintf(stderr, "warning: '%s' line %u: %s\n", out_esc(n->path), n->line,
				out_esc(n->message));
		else
			fprintf(stderr, "warning: '%s': %s\n", n->path ? out_esc(n->path) : "?",
				out_esc(n->message));
		break;
	}
}

/* Is nothing at path, not even a dangling link? */
static int path_missing(const char *path)
{
	struct stat st;
	return lstat(path, &st) < 0 && (errno == ENOENT || errno == ENOTDIR);
}

enum { REL_OK, REL_OUTSIDE, REL_DOTDOT };

/*
 * PATH arguments are given relative to the current directory; the
 * library wants them relative to the repository root.  A path that no
 * longer exists (to drop it from the index: a deleted file, or what was
 * under a deleted directory) is resolved through the nearest directory
 * above it that exists, whose real path is checked like any other, and
 * the names below it are added as given.  None of those names may lead
 * through a symbolic link, since the repository may point one anywhere:
 * each but the last must not exist at all (a dangling link there is
 * refused, as it always was), and '..' among them is refused, since it
 * would climb back into names that exist, unresolved.  NULL with *why
 * (REL_OUTSIDE, REL_DOTDOT) when the path cannot be taken; the caller
 * frees the result.
 */
static char *repo_relative(const char *root, const char *arg, int *why)
{
	char real[PATH_MAX], rroot[PATH_MAX];
	struct strbuf sb = STRBUF_INIT;
	char *copy = NULL;
	*why = REL_OUTSIDE;
	if (!realpath(root, rroot))
		return NULL;
	if (realpath(arg, real)) {
		strbuf_addstr(&sb, real);
	} else {
		copy = strdup(arg);
		if (!copy)
			return NULL;
		size_t n = strlen(copy);
		while (n > 1 && copy[n - 1] == '/')
			copy[--n] = '\0';
		/* copy up to cut is the directory tried, from the nearest */
		char *cut = strrchr(copy, '/'), *tail;
		for (;;) {
			const char *dir = !cut ? "." : cut == copy ? "/" : copy;
			if (cut)
				*cut = '\0';
			if (realpath(dir, real)) {
				tail = cut ? cut + 1 : copy;
				break;
			}
			if (!cut || !path_missing(dir))
				goto fail;
			char *up = strrchr(copy, '/');
			*cut = '/';
			cut = up;
		}
		strbuf_addstr(&sb, real);
		for (char *name = tail; *name;) {
			size_t len = strcspn(name, "/");
			if (len == 2 && !strncmp(name, "..", 2)) {
				*why = REL_DOTDOT;
				goto fail;
			}
			if (len && !(len == 1 && *name == '.')) {
				strbuf_addch(&sb, '/');
				strbuf_add(&sb, name, len);
			}
			name += len;
			while (*name == '/')
				name++;
		}
		free(copy);
		copy = NULL;
	}
	if (sb.failed)
		goto fail;
	size_t rl = strlen(rroot);
	const char *r = strbuf_str(&sb);
	char *rel = NULL;
	if (!strcmp(r, rroot))
		rel = strdup(".");
	else if (!strncmp(r, rroot, rl) && (r[rl] == '/' || rl == 1))
		rel = strdup(r + (rl == 1 ? 1 : rl + 1));
	if (rel)
		*why = REL_OK;
	strbuf_release(&sb);
	return rel;
fail:
	free(copy);
	strbuf_release(&sb);
	return NULL;
}

/* The JSON record of one run; ss is NULL when the search index did not run. */
static void json_summary(struct out *o, const struct kbx_index_stats *stats,
			 const struct kbx_search_index_stats *ss, const struct index_state *is)
{
	out_record_begin(o, "index");
	out_field_int(o, "generation", (int64_t)stats->generation);
	out_field_int(o, "scanned", (int64_t)stats->scanned);
	out_field_int(o, "parsed", (int64_t)stats->parsed);
	out_field_int(o, "unchanged", (int64_t)stats->unchanged);
	out_field_int(o, "skipped", (int64_t)stats->skipped);
	out_field_int(o, "removed", (int64_t)stats->removed);
	out_field_int(o, "reresolved", (int64_t)stats->reresolved);
	if (stats->rules_changed)
		out_json_bool(o, "rules_changed", 1);
	out_field_int(o, "nodes", (int64_t)stats->symbols);
	out_field_int(o, "edges", (int64_t)stats->edges);
	out_field_int(o, "milliseconds", (int64_t)(stats->seconds * 1000));
	out_field_int(o, "ms_scan", (int64_t)(stats->seconds_scan * 1000));
	out_field_int(o, "ms_wait_parse", (int64_t)(stats->seconds_wait * 1000));
	out_field_int(o, "ms_write", (int64_t)(stats->seconds_write * 1000));
	out_field_int(o, "ms_resolve", (int64_t)(stats->seconds_resolve * 1000));
	out_field_int(o, "ms_commit", (int64_t)(stats->seconds_commit * 1000));
	if (is && is->compact.compacted) {
		out_json_begin(o, "compacted", 0);
		out_json_int(o, "bytes_before", (int64_t)is->compact.bytes_before);
		out_json_int(o, "bytes_after", (int64_t)is->compact.bytes_after);
		out_json_int(o, "milliseconds", (int64_t)(is->compact.seconds * 1000));
		out_json_end(o);
	}
	/* CPU time by kind of work, every thread */
	out_json_begin(o, "cpu_ms", 0);
	out_json_int(o, "scan", (int64_t)(stats->cpu_scan * 1000));
	out_json_int(o, "parse", (int64_t)(stats->cpu_parse * 1000));
	out_json_int(o, "extract", (int64_t)(stats->cpu_extract * 1000));
	out_json_int(o, "write", (int64_t)(stats->cpu_write * 1000));
	out_json_int(o, "resolve", (int64_t)(stats->cpu_resolve * 1000));
	out_json_int(o, "commit", (int64_t)(stats->cpu_commit * 1000));
	out_json_end(o);
	if (ss) {
		out_json_begin(o, "search", 0);
		out_json_int(o, "generation", (int64_t)ss->generation);
		out_json_int(o, "sources", (int64_t)ss->sources);
		out_json_int(o, "sources_changed", (int64_t)ss->sources_changed);
		out_json_int(o, "sources_removed", (int64_t)ss->sources_removed);
		out_json_int(o, "chunks", (int64_t)ss->chunks);
		out_json_begin(o, "chunks_by_type", 0);
		for (int t = 1; t < KBX_CHUNK__COUNT; t++)
			out_json_int(o, kbx_chunk_type_str(t), (int64_t)ss->chunks_by_type[t]);
		out_json_end(o);
		out_json_int(o, "chunks_added", (int64_t)ss->chunks_added);
		out_json_int(o, "chunks_removed", (int64_t)ss->chunks_removed);
		if (ss->code_remade && ss->committed)
			out_json_bool(o, "code_remade", 1);
		out_json_int(o, "files_skipped", (int64_t)ss->files_skipped);
		out_json_int(o, "entries_skipped", (int64_t)ss->entries_skipped);
		out_json_int(o, "docs_skipped", (int64_t)ss->docs_skipped);
		out_json_int(o, "warnings", (int64_t)ss->warnings);
		out_json_begin(o, "reasons", 0);
		for (size_t i = 0; is && i < is->nreasons; i++)
			out_json_int(o, is->reasons[i].reason, (int64_t)is->reasons[i].n);
		out_json_end(o);
		out_json_int(o, "embedded", (int64_t)ss->embedded);
		out_json_int(o, "embed_repeated", (int64_t)ss->embed_repeated);
		/* version 1 counts the repeated texts among the cached ones */
		out_json_int(o, "embed_cached", (int64_t)(ss->embed_cached + ss->embed_repeated));
		out_json_int(o, "cache_pruned", (int64_t)ss->cache_pruned);
		out_json_int(o, "vectors", (int64_t)ss->vectors);
		out_json_str(o, "vector_index", ss->vector_kind[0] ? ss->vector_kind : NULL);
		out_json_bool(o, "vectors_rebuilt", ss->vectors_rebuilt);
		out_json_int(o, "vector_delta", (int64_t)ss->vector_delta);
		out_json_int(o, "milliseconds", (int64_t)(ss->seconds * 1000));
		out_json_int(o, "ms_embed", (int64_t)(ss->seconds_embed * 1000));
		out_json_int(o, "ms_vectors", (int64_t)(ss->seconds_vectors * 1000));
		out_json_int(o, "ms_chunk", (int64_t)(ss->seconds_chunk * 1000));
		out_json_int(o, "ms_postings", (int64_t)(ss->seconds_postings * 1000));
		double known = ss->cpu_chunk + ss->cpu_tokenize + ss->cpu_postings + ss->cpu_embed +
			       ss->cpu_vectors;
		out_json_begin(o, "cpu_ms", 0);
		out_json_int(o, "chunk", (int64_t)(ss->cpu_chunk * 1000));
		out_json_int(o, "tokenize", (int64_t)(ss->cpu_tokenize * 1000));
		out_json_int(o, "postings", (int64_t)(ss->cpu_postings * 1000));
		out_json_int(o, "embed", (int64_t)(ss->cpu_embed * 1000));
		out_json_int(o, "vectors", (int64_t)(ss->cpu_vectors * 1000));
		out_json_int(o, "other", (int64_t)((ss->cpu > known ? ss->cpu - known : 0) * 1000));
		out_json_end(o);
		out_json_end(o);
	}
	out_record_end(o);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The search part of the text summary: what is indexed, what changed,
 * what became of the vectors, what was left out and why.  Each number
 * is of what was done: failed says the run ended in an error (printed
 * above), after which only what was committed is counted. */
static void search_summary(const struct kbx_search_index_stats *ss, const struct index_state *is,
			   int failed)
{
	struct strbuf sb = STRBUF_INIT;
	for (int t = 1; t < KBX_CHUNK__COUNT; t++) {
		if (!ss->chunks_by_type[t])
			continue;
		strbuf_addf(&sb, "%s%llu %s", sb.len ? ", " : "",
			    (unsigned long long)ss->chunks_by_type[t], kbx_chunk_type_str(t));
	}
	struct strbuf types = STRBUF_INIT;
	if (sb.len)
		strbuf_addf(&types, " (%s)", sb.buf);
	if (failed && !ss->committed) {
		fprintf(stderr, "search: not updated (see the error above); %llu %s%s as before\n",
			(unsigned long long)ss->chunks, plural(ss->chunks, "chunk", "chunks"),
			strbuf_str(&types));
	} else {
		fprintf(stderr, "search: %llu %s%s: %llu added, %llu removed",
			(unsigned long long)ss->chunks, plural(ss->chunks, "chunk", "chunks"),
			strbuf_str(&types), (unsigned long long)ss->chunks_added,
			(unsigned long long)ss->chunks_removed);
		uint64_t needed = ss->embedded + ss->embed_repeated + ss->embed_cached;
		if (needed || ss->vectors_rebuilt) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%llu embedded", (unsigned long long)ss->embedded);
			if (ss->embed_repeated)
				strbuf_addf(&sb, ", %llu repeated %s", (unsigned long long)ss->embed_repeated,
					    plural(ss->embed_repeated, "text", "texts"));
			if (ss->embed_cached)
				strbuf_addf(&sb, ", %llu from the cache", (unsigned long long)ss->embed_cached);
			if (ss->cache_pruned)
				strbuf_addf(&sb, ", %llu old %s dropped from the cache",
					    (unsigned long long)ss->cache_pruned,
					    plural(ss->cache_pruned, "vector", "vectors"));
			fprintf(stderr, "; vectors: %s", strbuf_str(&sb));
			if (ss->vectors_rebuilt && ss->vectors)
				fprintf(stderr, "; %s index of %llu written in %.2f s", ss->vector_kind,
					(unsigned long long)ss->vectors,
					ss->seconds_embed + ss->seconds_vectors);
			else if (ss->vectors_rebuilt)
				fprintf(stderr, "; no vector index (no chunk)");
			else if (failed)
				fprintf(stderr, "; the vector index is not written (see the error above)");
			else if (ss->vectors)
				fprintf(stderr, "; %llu searched beside the %s index of %llu until it is built again",
					(unsigned long long)ss->vector_delta, ss->vector_kind,
					(unsigned long long)ss->vectors);
			else
				fprintf(stderr, "; %llu searched without a vector index until one is built",
					(unsigned long long)ss->vector_delta);
		}
		fputc('\n', stderr);
	}
	/* what was left out: only the counts that are not 0 */
	strbuf_reset(&sb);
	if (ss->files_skipped)
		strbuf_addf(&sb, "%llu registry %s", (unsigned long long)ss->files_skipped,
			    plural(ss->files_skipped, "file", "files"));
	if (ss->entries_skipped)
		strbuf_addf(&sb, "%s%llu %s", sb.len ? " and " : "", (unsigned long long)ss->entries_skipped,
			    plural(ss->entries_skipped, "entry", "entries"));
	if (sb.len)
		strbuf_addstr(&sb, " skipped");
	if (ss->docs_skipped)
		strbuf_addf(&sb, "%s%llu Markdown %s left out", sb.len ? ", " : "",
			    (unsigned long long)ss->docs_skipped, plural(ss->docs_skipped, "file", "files"));
	if (ss->warnings)
		strbuf_addf(&sb, "%s%llu %s", sb.len ? ", " : "", (unsigned long long)ss->warnings,
			    plural(ss->warnings, "warning", "warnings"));
	if (sb.len) {
		fprintf(stderr, "search: %s", sb.buf);
		for (size_t i = 0; i < is->nreasons; i++)
			fprintf(stderr, "%s%s %llu", i ? ", " : " (", is->reasons[i].reason,
				(unsigned long long)is->reasons[i].n);
		fprintf(stderr, "%s\n", is->nreasons ? ")" : "");
	}
	strbuf_release(&sb);
	strbuf_release(&types);
}

/* ---- --watch ---- */

struct watch_state {
	const struct output_opts *oo;
	int quiet;
	int rc;                 /* why watching stopped, when a run failed */
	kbx_store_t *store;
	const struct kbx_search_index_opts *search;  /* code chunks after each run */
	struct kbx_ctx *ctx;
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
	/* the code chunks follow the graph */
	struct kbx_search_index_stats ss;
	struct kbx_error serr = KBX_ERROR_INIT;
	if (ws->search && kbx_search_index(ws->store, ws->search, &ss, &serr)) {
		die_status(&serr);
		fprintf(stderr, "note: the search index will catch up at the next change\n");
	}
	struct kbx_compact_stats cs;
	compact_store(ws->ctx, ws->store, 0, &cs);
	if (ws->oo->format == FMT_JSON) {
		struct out *o = out_new(ws->oo);
		if (!o) {
			ws->rc = KBX_EXIT_USAGE;
			return 1;
		}
		json_summary(o, st, NULL, NULL);
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
		fprintf(stderr, "%s %s", when, out_esc(r->paths[0]));
	else
		fprintf(stderr, "%s %s and %zu more", when, out_esc(r->paths[0]), r->npaths - 1);
	fprintf(stderr, ": %llu parsed, %llu removed, %llu re-resolved in %.2f s; %llu nodes, %llu edges\n",
		(unsigned long long)st->parsed, (unsigned long long)st->removed,
		(unsigned long long)st->reresolved, st->seconds, (unsigned long long)st->symbols,
		(unsigned long long)st->edges);
	return 0;
}

/* Watch until SIGINT, SIGTERM or SIGHUP, which end it with status 0. */
static sigset_t watch_signals;

/* The signals that stop --watch wait for the loop, which looks at them
 * between two runs, so that a run is never cut short.  They are blocked
 * before the first run: threads that libraries start (OpenBLAS, when the
 * vector module loads) inherit the mask, and one of them must not take
 * a SIGTERM's default action for the whole process. */
static int block_watch_signals(void)
{
	sigemptyset(&watch_signals);
	sigaddset(&watch_signals, SIGINT);
	sigaddset(&watch_signals, SIGTERM);
	sigaddset(&watch_signals, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &watch_signals, NULL) < 0) {
		perror("error: cannot block signals");
		return -1;
	}
	return 0;
}

static int watch_loop(struct kbx_ctx *ctx, const struct kbx_index_opts *io,
		      const struct output_opts *oo, int quiet,
		      const struct kbx_search_index_opts *so)
{
	sigset_t set = watch_signals;
	int sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		perror("error: cannot watch for signals");
		return KBX_EXIT_INTERNAL;
	}
	struct watch_state ws = { oo, quiet, 0, ctx->store, so, ctx };
	struct kbx_watch_opts wo = { 0 };
	wo.index = io;
	wo.stop_fd = sfd;
	wo.on_ready = on_watch_ready;
	wo.on_run = on_watch_run;
	wo.data = &ws;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = kbx_watch(ctx->store, &wo, &err);
	/* The signals stay blocked until we exit: one more may be on its way
	 * (timeout(1) signals its child, then its whole process group), and
	 * with the mask restored it would take its default action and turn
	 * a clean stop into death by signal. */
	close(sfd);
	if (st)
		return die_status(&err);
	return ws.rc;
}

int cmd_index(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int rebuild = 0, quiet = 0, watch = 0, only = ONLY_ALL;
	long threads = LONG_MIN;   /* not given: the index.threads setting */
	long progress_fd = -1;
	uint64_t max_size = 0;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_BOOL_F(0, "rebuild", &rebuild, "drop the index and build it again from scratch"),
		OPT_BOOL_F('q', "quiet", &quiet, "print no progress, notes or summary"),
		OPT_KEYWORD_F(0, "only", &only, only_names, "PART",
			      "index only the code (graph and code chunks) or only the registries and Markdown"),
		OPT_SIZE_F(0, "max-file-size", &max_size, "SIZE",
			   "skip files larger than this (default 1m)"),
		OPT_INT_F(0, "threads", &threads, "N", "worker threads, at most 16 (default: one per core)"),
		OPT_INT_F(0, "progress-fd", &progress_fd, "N",
			  "also write the progress as lines 'PHASE DONE TOTAL' to file descriptor N"),
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
	if (progress_fd != -1 &&
	    (progress_fd < 0 || progress_fd > INT_MAX || fcntl((int)progress_fd, F_GETFD) < 0)) {
		fprintf(stderr, "error: --progress-fd=%ld is not an open file descriptor\n", progress_fd);
		return KBX_EXIT_USAGE;
	}
	if (only == ONLY_REGISTRY && nargs) {
		fprintf(stderr, "error: --only=registry takes no path: registries are indexed whole\n");
		return KBX_EXIT_USAGE;
	}
	if (watch && nargs) {
		fprintf(stderr, "error: --watch takes no path: it watches the whole repository\n");
		return KBX_EXIT_USAGE;
	}
	if (rebuild && nargs) {
		fprintf(stderr, "error: --rebuild takes no path: it builds the whole index again\n");
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
	if (watch && block_watch_signals())
		return KBX_EXIT_INTERNAL;
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
			int why;
			char *rel = repo_relative(kbx_store_root(ctx->store), argv[i], &why);
			if (!rel) {
				if (why == REL_DOTDOT)
					fprintf(stderr, "error: '%s' has '..' below a directory that does not exist: name the path without it\n",
						out_esc(argv[i]));
				else
					fprintf(stderr, "error: '%s' is outside the repository at '%s'\n",
						out_esc(argv[i]), out_esc(kbx_store_root(ctx->store)));
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
	state.progress_fd = (int)progress_fd;
	struct kbx_index_opts io = { 0 };
	io.rebuild = rebuild;
	io.paths = paths;
	io.npaths = (size_t)nargs;
	io.max_file_size = max_size;
	io.threads = (int)threads;
	io.parse_timeout_us = parse_timeout_ms * 1000;
	header_langs_setting(ctx->config, &io.headers);
	io.notify = on_note;
	io.notify_data = &state;
	struct kbx_index_stats stats;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = KBX_OK;
	memset(&stats, 0, sizeof(stats));
	if (only != ONLY_REGISTRY)
		st = kbx_index_run(ctx->store, &io, &stats, &err);
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
	/* the graph is committed: the store is one to know by name */
	repo_register_store(ctx);

	/* the retrieval layer: code chunks after the graph they come from,
	 * then the registries and the Markdown (not for a run limited to
	 * some paths, which is about code) */
	struct kbx_search_index_stats ss;
	struct kbx_embed_config ec;
	search_embed_config(ctx, &ec);
	struct kbx_search_index_opts so = { 0 };
	so.parts = only == ONLY_CODE || nargs ? KBX_SEARCH_PART_CODE
		 : only == ONLY_REGISTRY ? KBX_SEARCH_PART_REGISTRY
		 : KBX_SEARCH_PART_CODE | KBX_SEARCH_PART_REGISTRY;
	so.rebuild = rebuild;
	so.markdown = kbx_config_get(ctx->config, "index.markdown", &v, NULL) != KBX_OK || v.number;
	so.code_chunks = kbx_config_get(ctx->config, "index.codeChunks", &v, NULL) != KBX_OK || v.number;
	so.embed = &ec;
	if (kbx_config_get(ctx->config, "search.index", &v, NULL) == KBX_OK)
		so.index_kind = v.text;
	so.max_file_size = max_size;
	so.threads = (int)threads;
	so.notify = on_note;
	so.notify_data = &state;
	struct kbx_error serr = KBX_ERROR_INIT;
	kbx_status_t sst = kbx_search_index(ctx->store, &so, &ss, &serr);
	if (state.progress_shown) {
		fputs("\r\033[K", stderr);
		state.progress_shown = 0;
	}
	int search_rc = 0;
	if (sst) {
		search_rc = die_status(&serr);
		if (ss.committed)
			fprintf(stderr, "note: the chunks and BM25 are up to date; vector search catches up at the next 'kbx index' that succeeds\n");
		else if (only != ONLY_REGISTRY && rebuild)
			fprintf(stderr, "note: the code graph is rebuilt; the search index is as it was, and the next 'kbx index' makes its code chunks again\n");
		else if (only != ONLY_REGISTRY)
			fprintf(stderr, "note: the code graph is up to date; the search index is as it was\n");
		else
			fprintf(stderr, "note: the search index is as it was\n");
	}

	/* a whole graph was written in this run (--rebuild, or the store's
	 * first run): its pages are scattered among each file's records */
	if (!sst)
		compact_store(ctx, ctx->store, rebuild || stats.generation == 1, &state.compact);

	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;
	if (out_format(o) == FMT_JSON) {
		json_summary(o, &stats, &ss, &state);
	} else if (!quiet) {
		/* the summary goes to stderr like the progress: stdout stays for results */
		if (stats.rules_changed)
			fprintf(stderr,
				"the index was made by an older kbx, whose rules give other facts: every file was read again\n");
		fprintf(stderr,
			"indexed %llu files in %.2f s: %llu parsed, %llu unchanged, %llu skipped, %llu removed, %llu re-resolved; %llu nodes, %llu edges\n",
			(unsigned long long)stats.scanned, stats.seconds,
			(unsigned long long)stats.parsed, (unsigned long long)stats.unchanged,
			(unsigned long long)stats.skipped, (unsigned long long)stats.removed,
			(unsigned long long)stats.reresolved, (unsigned long long)stats.symbols,
			(unsigned long long)stats.edges);
		if (ss.code_remade && ss.committed)
			fprintf(stderr,
				"the code chunks were made by an older kbx, which weighed them otherwise: each was made and embedded again\n");
		search_summary(&ss, &state, sst != KBX_OK);
		if (state.compact.compacted)
			fprintf(stderr, "compacted the index from %.1f MiB to %.1f MiB in %.2f s\n",
				state.compact.bytes_before / 1048576.0,
				state.compact.bytes_after / 1048576.0, state.compact.seconds);
	}
	if (out_finish(o))
		return KBX_EXIT_IO;
	if (search_rc)
		return search_rc;
	if (!watch)
		return ss.files_skipped || ss.entries_skipped ? KBX_EXIT_SKIPPED : KBX_EXIT_OK;
	/* the runs to come are short: no progress between them */
	state.progress = 0;
	io.rebuild = 0;
	io.paths = NULL;
	io.npaths = 0;
	so.parts = KBX_SEARCH_PART_CODE;
	so.rebuild = 0;
	so.notify = NULL;
	return watch_loop(ctx, &io, &oo, quiet, &so);
}
