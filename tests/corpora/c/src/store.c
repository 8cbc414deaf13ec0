#include <stdlib.h>
#include <string.h>

#include "kv/store.h"
#include "util.h"

static const size_t bucket_sizes[] = { 61, 251, 1021, 4093 };
static const size_t nbucket_sizes = ARRAY_SIZE(bucket_sizes);

static unsigned long hash(const char *key)
{
	unsigned long h = 5381;
	while (*key)
		h = h * 33 + (unsigned char)*key++;
	return h;
}

static void free_entries(struct kv_store *s)
{
	for (size_t i = 0; i < s->nbuckets; i++) {
		struct kv_entry *e = s->buckets[i], *next;
		for (; e; e = next) {
			next = e->next;
			free(e->key);
			free(e->value);
			free(e);
		}
	}
}

static void reset(struct kv_store *s)
{
	free_entries(s);
	memset(s->buckets, 0, s->nbuckets * sizeof(*s->buckets));
	s->count = 0;
}

struct kv_store *store_open(const char *path, const struct kv_ops *ops)
{
	struct kv_store *s = xmalloc(sizeof(*s));
	s->nbuckets = bucket_sizes[nbucket_sizes - 1];
	s->buckets = calloc(s->nbuckets, sizeof(*s->buckets));
	if (!s->buckets)
		fatal("cannot allocate %zu buckets", s->nbuckets);
	s->count = 0;
	s->ops = ops;
	s->path = path;
	if (ops && ops->load(s, path) < 0) {
		reset(s);
		return NULL;
	}
	return s;
}

const char *store_get(struct kv_store *s, const char *key)
{
	struct kv_entry *e = s->buckets[hash(key) % s->nbuckets];
	for (; e; e = e->next)
		if (!strcmp(e->key, key))
			return e->value;
	return NULL;
}

enum kv_status store_put(struct kv_store *s, const char *key, const char *value)
{
	struct kv_entry **slot = &s->buckets[hash(key) % s->nbuckets];
	struct kv_entry *e = xmalloc(sizeof(*e));
	e->key = xstrdup(key);
	e->value = xstrdup(value);
	e->next = *slot;
	*slot = e;
	s->count++;
	return KV_OK;
}

void store_stats(const struct kv_store *s, kv_stats_t *st)
{
	st->entries = s->count;
	st->longest_chain = 0;
	for (size_t i = 0; i < s->nbuckets; i++) {
		size_t n = 0;
		for (const struct kv_entry *e = s->buckets[i]; e; e = e->next)
			n++;
		if (n > st->longest_chain)
			st->longest_chain = n;
	}
}

/* Call visit for each entry until it returns non-zero: that value, or 0. */
int store_each(const struct kv_store *s, int (*visit)(const char *key, const char *value))
{
	for (size_t i = 0; i < s->nbuckets; i++)
		for (const struct kv_entry *e = s->buckets[i]; e; e = e->next) {
			int rc = visit(e->key, e->value);
			if (rc)
				return rc;
		}
	return 0;
}

void store_close(struct kv_store *s)
{
	if (s->ops && s->ops->flush(s) < 0)
		fatal("cannot write '%s'", s->path);
	reset(s);
	free(s->buckets);
	free(s);
}
