/*
 * Names visible over ranges of bytes, for the Go and Rust extractors: see
 * scoped-names.h.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scoped-names.h"

#define NO_ENTRY ((size_t)-1)

static size_t name_bucket(const char *name)
{
	size_t h = 5381;
	for (; *name; name++)
		h = h * 33 + (unsigned char)*name;
	return h % KBX_NAME_BUCKETS;
}

void _kbx_names_init(struct _kbx_scoped_names *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < KBX_NAME_BUCKETS; i++)
		s->bucket[i] = NO_ENTRY;
}

void _kbx_names_release(struct _kbx_scoped_names *s)
{
	free(s->v);
	_kbx_names_init(s);
}

int _kbx_names_push(struct _kbx_scoped_names *s, const char *name,
		    const struct _kbx_vtype *type, uint32_t from, uint32_t to, int flags)
{
	static const struct _kbx_vtype none;
	if (!name || !*name || !strcmp(name, "_") ||
	    _kbx_grow((void **)&s->v, &s->alloc, s->n, sizeof(*s->v), 32))
		return -1;
	size_t b = name_bucket(name);
	s->v[s->n] = (struct _kbx_scoped_name){ name, type ? *type : none, from, to, flags,
						s->bucket[b] };
	s->bucket[b] = s->n++;
	return 0;
}

const struct _kbx_scoped_name *_kbx_names_find(const struct _kbx_scoped_names *s,
					       const char *name, uint32_t pos)
{
	if (!name)
		return NULL;
	for (size_t i = s->bucket[name_bucket(name)]; i != NO_ENTRY; i = s->v[i].next) {
		const struct _kbx_scoped_name *v = &s->v[i];
		if (v->from <= pos && pos < v->to && !strcmp(v->name, name))
			return v;
	}
	return NULL;
}

static void pop(struct _kbx_scoped_names *s)
{
	const struct _kbx_scoped_name *v = &s->v[--s->n];
	s->bucket[name_bucket(v->name)] = v->next;
}

void _kbx_names_leave(struct _kbx_scoped_names *s, uint32_t pos)
{
	/* an entry below the top may have ended too (the cases of a switch
	 * are declared together): it stays until the top goes, and lookups
	 * pass over it by its range */
	while (s->n && s->v[s->n - 1].to <= pos)
		pop(s);
}

void _kbx_names_truncate(struct _kbx_scoped_names *s, size_t n)
{
	while (s->n > n)
		pop(s);
}

void _kbx_blocks_visit(struct _kbx_blocks *b, TSNode n, const char *type,
		       const char *const *kinds)
{
	uint32_t pos = ts_node_start_byte(n);
	while (b->n && b->end[b->n - 1] <= pos)
		b->n--;
	for (size_t i = 0; kinds[i]; i++)
		if (!strcmp(type, kinds[i])) {
			if (!_kbx_grow((void **)&b->end, &b->alloc, b->n, sizeof(*b->end), 32))
				b->end[b->n++] = ts_node_end_byte(n);
			return;
		}
}

uint32_t _kbx_blocks_end(const struct _kbx_blocks *b)
{
	return b->n ? b->end[b->n - 1] : UINT32_MAX;
}

void _kbx_blocks_release(struct _kbx_blocks *b)
{
	free(b->end);
	memset(b, 0, sizeof(*b));
}
