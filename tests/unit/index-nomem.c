/*
 * An index run that memory runs out under, at a chosen moment: the run
 * either finishes or fails with KBX_ERR_NOMEM, and fails before it
 * commits.  It must never commit less than the files say: an
 * allocation that fails while the resolver reads what another file
 * defines used to leave that file's names unknown, and the run then
 * committed calls resolved by name alone ("unique-name" for a call of
 * the same file, an external for an imported one).
 *
 * Usage: index-nomem [--once] [--from-start] [--search] DIR N
 *
 * Runs one index run of the repository DIR, on its store DIR/.kbx, with
 * one parser thread.  Once the parse phase has reported its last file
 * (the writer then writes it, resolves the edges and commits), or from
 * the start with --from-start (the files are then read, parsed and
 * extracted too), N more allocations succeed and every one after fails;
 * with --once, only the one after them fails (as under an address
 * space limit, where a large block cannot be had and small ones still
 * can).
 * Linked, as kbx is, with -Wl,--wrap for malloc, calloc, realloc,
 * strdup and strndup (ALLOC_WRAP in the Makefile), which catches the
 * calls of libkbx and of what is linked statically (LMDB), not those
 * inside the C library.  It defines those wrappers itself, counting a
 * refusal as lib/util/alloc-count.c's do.
 *
 * With --search, the graph's run is followed by the search index's (its
 * code chunks, BM25, the builtin embedding, the vector file), as kbx
 * index does, memory refused there as in the graph's.
 *
 * Prints "allocations K, failed F" (those asked for after the parse
 * phase, and how many of them were refused) and exits
 * 0 when the run finished, 9 when it failed for want of memory, 1 for
 * any other failure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tree_sitter/api.h>

#include "kbx.h"
#include "search/kbx-search.h"
#include "util/alloc-wrap.h"
#include "util/util.h"

static int armed, once;
static unsigned long left, made, failures;

/* May this allocation be had? */
static int allowed(void)
{
	if (!armed)
		return 1;
	made++;
	if (left) {
		left--;
		return 1;
	}
	if (once)
		armed = 0;
	failures++;
	_kbx_nomem();   /* as lib/util/alloc-count.c's, which these replace */
	errno = ENOMEM;
	return 0;
}

void *__wrap_malloc(size_t n)
{
	return allowed() ? __real_malloc(n) : NULL;
}

void *__wrap_calloc(size_t n, size_t size)
{
	return allowed() ? __real_calloc(n, size) : NULL;
}

void *__wrap_realloc(void *p, size_t n)
{
	return allowed() ? __real_realloc(p, n) : NULL;
}

char *__wrap_strdup(const char *s)
{
	return allowed() ? __real_strdup(s) : NULL;
}

char *__wrap_strndup(const char *s, size_t n)
{
	return allowed() ? __real_strndup(s, n) : NULL;
}

/* tree-sitter's own allocations are kbx's to have or to exit on (its
 * main() gives tree-sitter an allocator that exits with status 9), not
 * this test's to refuse */
static void *ts_malloc_(size_t n)
{
	return __real_malloc(n);
}

static void *ts_calloc_(size_t n, size_t size)
{
	return __real_calloc(n, size);
}

static void *ts_realloc_(void *p, size_t n)
{
	return __real_realloc(p, n);
}

/* as kbx's main() does: say so, exit with status 9 */
static void nomem_exit(const char *what)
{
	fprintf(stderr, "fatal: out of memory while %s\n", what);
	fflush(NULL);
	_exit(9);
}

static void on_note(void *data, const struct kbx_note *note)
{
	(void)data;
	if (note->kind == KBX_NOTE_PROGRESS && note->phase && !strcmp(note->phase, "parse") &&
	    note->done == note->total)
		armed = 1;
}

int main(int argc, char **argv)
{
	int from_start = 0, search = 0;
	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[1], "--once"))
			once = 1;
		else if (!strcmp(argv[1], "--from-start"))
			from_start = 1;
		else if (!strcmp(argv[1], "--search"))
			search = 1;
		else
			break;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: index-nomem [--once] [--from-start] [--search] DIR N\n");
		return 2;
	}
	left = strtoul(argv[2], NULL, 10);
	kbx_store_t *s;
	struct kbx_error err = KBX_ERROR_INIT;
	char kbx_dir[4096];
	snprintf(kbx_dir, sizeof(kbx_dir), "%s/.kbx", argv[1]);
	if (kbx_store_open(kbx_dir, argv[1], KBX_OPEN_WRITE, 0, &s, &err)) {
		fprintf(stderr, "cannot open %s: %s\n", kbx_dir, err.msg);
		return 2;
	}
	struct kbx_index_opts o = { 0 };
	o.threads = 1;
	o.notify = on_note;
	struct kbx_index_stats stats;
	memset(&stats, 0, sizeof(stats));
	ts_set_allocator(ts_malloc_, ts_calloc_, ts_realloc_, free);
	_kbx_set_nomem_fatal(nomem_exit);
	armed = from_start;
	kbx_status_t st = kbx_index_run(s, &o, &stats, &err);
	if (!st && search) {
		struct kbx_search_index_opts so = { 0 };
		struct kbx_search_index_stats ss;
		so.parts = KBX_SEARCH_PART_CODE | KBX_SEARCH_PART_REGISTRY;
		so.markdown = 1;
		so.code_chunks = 1;
		so.threads = 1;
		memset(&ss, 0, sizeof(ss));
		st = kbx_search_index(s, &so, &ss, &err);
	}
	armed = 0;
	printf("allocations %lu, failed %lu\n", made, failures);
	if (st)
		fprintf(stderr, "%s\n", err.msg);
	kbx_store_close(s);
	return st == KBX_OK ? 0 : st == KBX_ERR_NOMEM ? 9 : 1;
}
