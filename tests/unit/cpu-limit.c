/*
 * The parse time limit counts the parsing thread's CPU time, with a
 * wall-clock ceiling (lib/lang/cpu-limit.c).  Nothing here asserts how
 * fast anything runs: a thread that sleeps uses no CPU time however long
 * it sleeps, and a busy loop reaches any CPU limit.  Prints TAP.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lang/lang.h"
#include "tap.h"

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts))
		;
}

/* A source read in chunks, sleeping before the first one: the parse has
 * started (tree-sitter's clock runs) and uses no CPU while it waits. */
struct slow_source {
	const char *src;
	size_t len;
	unsigned sleep_ms;
	int slept;
};

static const char *slow_read(void *payload, uint32_t byte, TSPoint pos, uint32_t *nread)
{
	struct slow_source *s = payload;
	(void)pos;
	if (!s->slept && s->sleep_ms) {
		s->slept = 1;
		sleep_ms(s->sleep_ms);
	}
	if (byte >= s->len) {
		*nread = 0;
		return "";
	}
	size_t n = s->len - byte < 4096 ? s->len - byte : 4096;
	*nread = (uint32_t)n;
	return s->src + byte;
}

/* n lines of Python: a few thousand parser operations per kilobyte */
static char *python_source(size_t lines, size_t *len)
{
	static const char line[] = "value = compute(alpha, beta[1], {\"k\": (2, 3)}) + other.call()\n";
	size_t ll = sizeof(line) - 1;
	char *s = malloc(lines * ll + 1);
	if (!s)
		exit(2);
	for (size_t i = 0; i < lines; i++)
		memcpy(s + i * ll, line, ll);
	s[lines * ll] = '\0';
	*len = lines * ll;
	return s;
}

/* Parse with the limits as lib/graph/index.c sets them; returns the tree or
 * NULL, and which limit, if any, ended the parse. */
static TSTree *parse_limited(struct kbx_cpu_watch *w, struct kbx_cpu_slot *slot,
			     TSParser *parser, struct slow_source *in, int *why)
{
	TSInput input = { in, slow_read, TSInputEncodingUTF8 };
	ts_parser_set_cancellation_flag(parser, &slot->flag);
	ts_parser_set_timeout_micros(parser, _kbx_parse_timeout_us(w, slot, 1));
	_kbx_cpu_slot_begin(w, slot);
	TSTree *t = ts_parser_parse(parser, NULL, input);
	*why = _kbx_cpu_slot_end(w, slot);
	if (!t)
		ts_parser_reset(parser);
	return t;
}

int main(void)
{
	struct kbx_cpu_watch w;
	const uint64_t limit_us = 100000;

	/* the mechanism: the flag follows this thread's CPU clock */
	ok(_kbx_cpu_watch_start(&w, 1, limit_us) == 0, "the watchdog starts");
	struct kbx_cpu_slot *slot = _kbx_cpu_watch_attach(&w);
	ok(slot != NULL, "a thread gets a slot");
	ok(_kbx_cpu_watch_attach(&w) == NULL, "no second slot in a watch of one");
	if (!slot) {
		printf("1..%d\n", tests);
		return 1;
	}
	ok(_kbx_parse_timeout_us(&w, slot, limit_us) == 0,
	   "with a watchdog tree-sitter keeps no timeout of its own");

	_kbx_cpu_slot_begin(&w, slot);
	sleep_ms(600);
	ok(__atomic_load_n(&slot->flag, __ATOMIC_ACQUIRE) == 0,
	   "sleeping six times the limit uses no CPU time: the flag stays clear");
	ok(_kbx_cpu_slot_end(&w, slot) == 0, "and the slot ends without a timeout");

	_kbx_cpu_slot_begin(&w, slot);
	uint64_t start = now_ns(CLOCK_THREAD_CPUTIME_ID), used = 0;
	volatile uint64_t spin = 0;
	/* spin until the flag is set; 30 s of CPU time means it never will */
	while (!__atomic_load_n(&slot->flag, __ATOMIC_ACQUIRE) && used < 30000000000ull) {
		for (int i = 0; i < 100000; i++)
			spin += (uint64_t)i;
		used = now_ns(CLOCK_THREAD_CPUTIME_ID) - start;
	}
	ok(_kbx_cpu_slot_end(&w, slot) == KBX_PARSE_CPU_LIMIT, "a busy thread has its flag set");
	ok(used >= limit_us * 1000, "only once it has used the limit of CPU time");

	/* tree-sitter honours it */
	TSParser *parser = ts_parser_new();
	const struct kbx_lang *py = _kbx_lang_by_name("python");
	ok(parser && py && ts_parser_set_language(parser, py->grammar()),
	   "a Python parser");
	size_t len;
	char *src = python_source(100, &len);
	struct slow_source in = { src, len, 400, 0 };
	int why = -1;
	TSTree *t = parse_limited(&w, slot, parser, &in, &why);
	ok(t != NULL && !why,
	   "a parse that waits four times its limit, using little CPU, is not cut short");
	if (t)
		ts_tree_delete(t);

	struct slow_source late = { src, len, 1200, 0 };
	t = parse_limited(&w, slot, parser, &late, &why);
	ok(t == NULL && why == KBX_PARSE_WALL_CEILING,
	   "a parse stalled past the wall-clock ceiling is cancelled by the ceiling");
	if (t)
		ts_tree_delete(t);
	free(src);

	/* 6 MB: far more than the limit's worth of CPU time */
	src = python_source(100000, &len);
	struct slow_source big = { src, len, 0, 0 };
	t = parse_limited(&w, slot, parser, &big, &why);
	ok(t == NULL && why == KBX_PARSE_CPU_LIMIT, "a parse past its CPU time is cancelled by the flag");
	if (t)
		ts_tree_delete(t);
	free(src);
	ts_parser_delete(parser);

	_kbx_cpu_watch_detach(&w, slot);
	_kbx_cpu_watch_stop(&w);

	struct kbx_cpu_watch none;
	memset(&none, 0, sizeof(none));
	ok(_kbx_cpu_watch_attach(&none) == NULL,
	   "a watch that did not start gives no slot");
	ok(_kbx_parse_timeout_us(&none, NULL, 2500000) == 3000000 &&
	   _kbx_parse_timeout_us(&none, NULL, 1000) == 1000000,
	   "without a watchdog the limit is tree-sitter's wall-clock timeout, in whole seconds");

	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
