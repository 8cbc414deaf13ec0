#include <stdlib.h>
#include <string.h>

#include "index.h"

/* Not the one from util.h: this one also reserves room for a terminator. */
static size_t clamp_size(size_t n, size_t max)
{
	return n + 1 > max ? max - 1 : n;
}

static int compare_keys(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void index_clear(struct kv_index *ix)
{
	free(ix->keys);
	ix->keys = NULL;
	ix->n = ix->alloc = 0;
}

static void reset(struct kv_index *ix, size_t alloc)
{
	index_clear(ix);
	ix->keys = calloc(alloc, sizeof(*ix->keys));
	ix->alloc = alloc;
}

void index_build(struct kv_index *ix, const struct kv_store *s, size_t limit)
{
	reset(ix, clamp_size(s->count, limit));
	for (size_t i = 0; i < s->nbuckets && ix->n < ix->alloc; i++)
		for (const struct kv_entry *e = s->buckets[i]; e && ix->n < ix->alloc; e = e->next)
			ix->keys[ix->n++] = e->key;
	qsort(ix->keys, ix->n, sizeof(*ix->keys), compare_keys);
}

/* NULL when the index is empty or memory ran out. */
struct link *index_chain(const struct kv_index *ix)
{
	struct link *head = NULL;
	for (size_t i = ix->n; i-- > 0;) {
		struct link *l = malloc(sizeof(*l));
		if (!l)
			break;
		l->key = ix->keys[i];
		l->next = head;
		head = l;
	}
	return head;
}

void index_release(struct kv_index *ix)
{
	index_clear(ix);
}
