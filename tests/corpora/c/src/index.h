#ifndef INDEX_H
#define INDEX_H

#include "kv/store.h"

/* A sorted list of the keys of a store, for ordered listings. */
struct kv_index {
	const char **keys;
	size_t n, alloc;
};

/* The keys of an index as a list, for callers that stream them. */
struct link {
	const char *key;
	struct link *next;
};

void index_build(struct kv_index *ix, const struct kv_store *s, size_t limit);
struct link *index_chain(const struct kv_index *ix);
void index_release(struct kv_index *ix);

#endif
