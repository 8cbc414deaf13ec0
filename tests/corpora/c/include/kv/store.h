/* A small in-memory key-value store with a pluggable persistence layer. */
#ifndef KV_STORE_H
#define KV_STORE_H

#include <stddef.h>

enum kv_status {
	KV_OK = 0,
	KV_NOT_FOUND,
	KV_NO_MEMORY,
};

struct kv_store;

struct kv_ops {
	int (*load)(struct kv_store *s, const char *path);
	int (*flush)(struct kv_store *s);
};

struct kv_store {
	struct kv_entry {
		char *key;
		char *value;
		struct kv_entry *next;
	} **buckets;
	size_t nbuckets;
	size_t count;
	const struct kv_ops *ops;
	const char *path;
};

typedef struct {
	size_t entries;
	size_t longest_chain;
} kv_stats_t;

struct kv_store *store_open(const char *path, const struct kv_ops *ops);
const char *store_get(struct kv_store *s, const char *key);
enum kv_status store_put(struct kv_store *s, const char *key, const char *value);
void store_stats(const struct kv_store *s, kv_stats_t *st);
int store_each(const struct kv_store *s, int (*visit)(const char *key, const char *value));
void store_close(struct kv_store *s);

/* Provided by each program: print a message and exit. */
void fatal(const char *fmt, ...);

#endif
