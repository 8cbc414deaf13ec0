/*
 * Private to the Go and Rust extractors: the names a function declares
 * and their static types, each visible over a range of bytes.
 *
 * The walker's own bindings (_kbx_walk_bind) open and close with the
 * scopes of definitions.  Go and Rust scope names by block, and declare
 * a name again in the next block, or in the same one, as a matter of
 * course (`v, ok := x.(*T)` in Go, `let x = x.trim();` in Rust), so a
 * binding per function would mostly end as a conflict.  Here a name is
 * visible from the end of its declaration to the end of its block; the
 * walk only goes forward, so what ended before the node being visited is
 * dropped as the walk goes, and a lookup is a short walk down one hash
 * chain.  Defined in lib/lang/scoped-names.c.
 */
#ifndef KBX_LANG_SCOPED_NAMES_H
#define KBX_LANG_SCOPED_NAMES_H

#include "lang.h"

/* What the source states about a value's type: the named type a call on
 * it reaches ("Store", "sync.Mutex", "hir.Class"), and for a container
 * the named types of its keys and elements, for what indexing, ranging
 * or unwrapping it gives.  NULL where the source does not say. */
struct _kbx_vtype {
	const char *name;
	const char *key;     /* a map's key type */
	const char *elem;    /* a slice's, array's, map's, channel's element,
			      * or what an Option or Result holds */
	char container;      /* the language's letter for the container, 0 */
};

struct _kbx_scoped_name {
	const char *name;
	struct _kbx_vtype type;
	uint32_t from, to;   /* visible in the bytes [from, to) */
	int flags;           /* the language's */
	size_t next;         /* the entry below in the same hash chain */
};

#define KBX_NAME_BUCKETS 512

struct _kbx_scoped_names {
	struct _kbx_scoped_name *v;
	size_t n, alloc;
	/* the topmost entry of each hash chain; names come and go in stack
	 * order, so the top of the stack heads its chain */
	size_t bucket[KBX_NAME_BUCKETS];
};

void _kbx_names_init(struct _kbx_scoped_names *s);
void _kbx_names_release(struct _kbx_scoped_names *s);
/* Declare name with its type (NULL: not stated), visible in [from, to).
 * "_" and NULL are no names.  -1 when out of memory. */
int _kbx_names_push(struct _kbx_scoped_names *s, const char *name,
		    const struct _kbx_vtype *type, uint32_t from, uint32_t to, int flags);
/* The innermost declaration of name visible at byte pos, or NULL.  The
 * pointer is good until the next push. */
const struct _kbx_scoped_name *_kbx_names_find(const struct _kbx_scoped_names *s,
					       const char *name, uint32_t pos);
/* Drop the names whose range ended before pos. */
void _kbx_names_leave(struct _kbx_scoped_names *s, uint32_t pos);
/* Drop the names declared after the first n. */
void _kbx_names_truncate(struct _kbx_scoped_names *s, size_t n);

/* The ends of the open blocks, innermost last. */
struct _kbx_blocks {
	uint32_t *end;
	size_t n, alloc;
};
/* As the walk enters node n of that type: leave the blocks that ended
 * before it, and enter n when its type is one of kinds (NULL-ended), the
 * nodes whose end ends the scope of a name declared in them. */
void _kbx_blocks_visit(struct _kbx_blocks *b, TSNode n, const char *type,
		       const char *const *kinds);
/* The end of the innermost open block, UINT32_MAX when none is. */
uint32_t _kbx_blocks_end(const struct _kbx_blocks *b);
void _kbx_blocks_release(struct _kbx_blocks *b);

#endif
