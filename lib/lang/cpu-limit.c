/*
 * Parse time limits counted in the parsing thread's CPU time.
 *
 * tree-sitter's own timeout (ts_parser_set_timeout_micros) reads
 * CLOCK_MONOTONIC, so on a busy machine a parse that needs little CPU
 * can run out of wall-clock time and its file is skipped.  Here one
 * watchdog thread looks at each parsing thread's CPU clock a few times
 * per limit and sets that parser's cancellation flag when the parse has
 * used up its CPU time.  A thread that is not running uses none, so the
 * watchdog also ends a parse at a wall-clock ceiling well above the
 * limit (a stalled thread must not hang an index run).
 *
 * The ceiling is the watchdog's and not tree-sitter's timeout because
 * tree-sitter 0.20's deadline (clock_after() in its clock.h) adds the
 * microseconds to tv_nsec without carrying into tv_sec: a timeout with
 * a fraction of a second can fire at the next whole second, anywhere
 * from at once to the full timeout.
 */
#include <string.h>

#include "lang.h"

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *watch_main(void *arg)
{
	struct kbx_cpu_watch *w = arg;
	pthread_mutex_lock(&w->mu);
	while (!w->stop) {
		for (size_t i = 0; i < w->nslots; i++) {
			struct kbx_cpu_slot *sl = &w->slots[i];
			if (!sl->active || __atomic_load_n(&sl->flag, __ATOMIC_ACQUIRE))
				continue;
			if (clock_ns(sl->clock) >= sl->deadline_ns)
				__atomic_store_n(&sl->flag, KBX_PARSE_CPU_LIMIT, __ATOMIC_RELEASE);
			else if (clock_ns(CLOCK_MONOTONIC) >= sl->wall_deadline_ns)
				__atomic_store_n(&sl->flag, KBX_PARSE_WALL_CEILING, __ATOMIC_RELEASE);
		}
		struct timespec until;
		uint64_t t = clock_ns(CLOCK_MONOTONIC) + w->poll_ns;
		until.tv_sec = (time_t)(t / 1000000000ull);
		until.tv_nsec = (long)(t % 1000000000ull);
		pthread_cond_timedwait(&w->cv, &w->mu, &until);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int _kbx_cpu_watch_start(struct kbx_cpu_watch *w, size_t nslots, uint64_t limit_us)
{
	pthread_condattr_t ca;
	memset(w, 0, sizeof(*w));
	w->limit_ns = limit_us * 1000;
	/* look a few times per limit, but not more often than every
	 * millisecond nor less often than ten times a second */
	w->poll_ns = w->limit_ns / 20;
	if (w->poll_ns < 1000000)
		w->poll_ns = 1000000;
	if (w->poll_ns > 100000000)
		w->poll_ns = 100000000;
	w->slots = calloc(nslots ? nslots : 1, sizeof(*w->slots));
	if (!w->slots)
		return -1;
	w->nslots = nslots;
	if (pthread_condattr_init(&ca)) {
		free(w->slots);
		w->slots = NULL;
		return -1;
	}
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	/* a small stack: under an address space limit (ulimit -v) the
	 * default 8 MiB would be missed by the parsers and the map */
	pthread_attr_t ta;
	int started = !pthread_attr_init(&ta);
	if (started) {
		pthread_attr_setstacksize(&ta, 64 * 1024);
		started = !pthread_create(&w->thread, &ta, watch_main, w);
		pthread_attr_destroy(&ta);
	}
	if (!started) {
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w->slots);
		w->slots = NULL;
		return -1;
	}
	w->running = 1;
	return 0;
}

void _kbx_cpu_watch_stop(struct kbx_cpu_watch *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	free(w->slots);
	memset(w, 0, sizeof(*w));
}

struct kbx_cpu_slot *_kbx_cpu_watch_attach(struct kbx_cpu_watch *w)
{
	struct kbx_cpu_slot *sl = NULL;
	clockid_t clock;
	if (!w->running || pthread_getcpuclockid(pthread_self(), &clock))
		return NULL;
	pthread_mutex_lock(&w->mu);
	for (size_t i = 0; i < w->nslots; i++)
		if (!w->slots[i].used) {
			sl = &w->slots[i];
			sl->used = 1;
			sl->clock = clock;
			break;
		}
	pthread_mutex_unlock(&w->mu);
	return sl;
}

void _kbx_cpu_watch_detach(struct kbx_cpu_watch *w, struct kbx_cpu_slot *sl)
{
	if (!sl)
		return;
	pthread_mutex_lock(&w->mu);
	sl->active = 0;
	sl->used = 0;
	pthread_mutex_unlock(&w->mu);
}

void _kbx_cpu_slot_begin(struct kbx_cpu_watch *w, struct kbx_cpu_slot *sl)
{
	if (!sl)
		return;
	pthread_mutex_lock(&w->mu);
	__atomic_store_n(&sl->flag, 0, __ATOMIC_RELEASE);
	sl->deadline_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) + w->limit_ns;
	sl->wall_deadline_ns = clock_ns(CLOCK_MONOTONIC) + w->limit_ns * KBX_PARSE_WALL_FACTOR;
	sl->active = 1;
	pthread_mutex_unlock(&w->mu);
}

int _kbx_cpu_slot_end(struct kbx_cpu_watch *w, struct kbx_cpu_slot *sl)
{
	if (!sl)
		return 0;
	pthread_mutex_lock(&w->mu);
	sl->active = 0;
	pthread_mutex_unlock(&w->mu);
	return (int)__atomic_load_n(&sl->flag, __ATOMIC_ACQUIRE);
}

uint64_t _kbx_parse_timeout_us(const struct kbx_cpu_watch *w, const struct kbx_cpu_slot *sl,
			      uint64_t limit_us)
{
	/* the watchdog keeps both limits */
	if (w->running && sl)
		return 0;
	/* without it the limit is wall-clock time, as tree-sitter counts
	 * it, in whole seconds (see above) */
	if (limit_us > UINT64_MAX - 999999)
		return 0;
	return (limit_us + 999999) / 1000000 * 1000000;
}
