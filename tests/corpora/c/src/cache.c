#include <stdio.h>
#include <string.h>

#include "cache.h"
#include "kv/store.h"

/* a macro of this file alone, and one defined for two builds */
#define SLOT_OF(h) ((h) % CACHE_SLOTS)
#ifdef CACHE_DEBUG
#define cache_trace(s) cache_note(s)
#else
#define cache_trace(s) ((void)(s))
#endif

struct cache {
	char *slots[CACHE_SLOTS];
};

static void cache_note(const char *msg)
{
	fputs(msg, stderr);
}

static void cache_fail(const char *msg)
{
	fatal("cache: %s", msg);
}

void *cache_zero(void *p, size_t n)
{
	memset(p, 0, n);
	return p;
}

struct cache *cache_new(void)
{
	struct cache *c = CACHE_NEW_ZERO(struct cache);
	CACHE_LOG("cache: new\n");
	cache_trace("new");
	return c;
}

void cache_put(struct cache *c, unsigned long h, char *value)
{
	CACHE_CHECK((c != NULL), "no cache");
	c->slots[SLOT_OF(h)] = value;
}
