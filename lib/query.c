#define _GNU_SOURCE /* memrchr */
/* Queries: what a typed symbol names, and walks along edges. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void kbx_nodelist_release(struct kbx_nodelist *l)
{
	free(l->items);
	free(l->strings);
	memset(l, 0, sizeof(*l));
}

kbx_status_t _kbx_nodelist_add(struct kbx_nodelist *l, const struct kbx_node *n)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].id == n->id)
			return KBX_OK;
	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 16;
		struct kbx_node *p = realloc(l->items, na * sizeof(*p));
		if (!p)
			return KBX_ERR_NOMEM;
		l->items = p;
		l->alloc = na;
	}
	l->items[l->n++] = *n;
	return KBX_OK;
}

kbx_status_t kbx_node_get(kbx_store_t *s, uint32_t id, struct kbx_node *out, struct kbx_error *err)
{
	kbx_status_t st = _kbx_node_read(s, _kbx_txn(s), id, out);
	if (st == KBX_NOT_FOUND)
		return _kbx_fail(err, st, "no node %u in the index", id);
	if (st)
		return _kbx_fail(err, st, "node %u of the index does not decode: run 'kbx index --rebuild'",
				 id);
	return KBX_OK;
}

static int by_cid(const void *a, const void *b)
{
	const struct kbx_node *x = a, *y = b;
	return strcmp(x->cid, y->cid);
}

/* Append every node named name whose qualified name is qual or ends in
 * "." qual (qual NULL: any). */
static kbx_status_t add_named(struct kbx_store *s, const char *name, const char *qual,
			      struct kbx_nodelist *out)
{
	MDB_cursor *c;
	size_t len = strlen(name);
	if (!len || len > 500)
		return KBX_OK;
	int rc = mdb_cursor_open(_kbx_txn(s), s->names, &c);
	if (rc)
		return KBX_ERR_STORE;
	MDB_val k = { len, (void *)name }, d;
	kbx_status_t st = KBX_OK;
	for (int g = mdb_cursor_get(c, &k, &d, MDB_SET_KEY); !g && !st;
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT_DUP)) {
		struct kbx_node n;
		if (d.mv_size != 4 || _kbx_node_read(s, _kbx_txn(s), _kbx_get_u32(d.mv_data), &n))
			continue;
		if (qual) {
			size_t ql = strlen(qual), nl = strlen(n.qual);
			if (!(nl == ql && !strcmp(n.qual, qual)) &&
			    !(nl > ql && n.qual[nl - ql - 1] == '.' && !strcmp(n.qual + nl - ql, qual)))
				continue;
		}
		st = _kbx_nodelist_add(out, &n);
	}
	mdb_cursor_close(c);
	return st;
}

static kbx_status_t add_module_qualified(struct kbx_store *s, const char *qs, const char *last,
					 struct kbx_nodelist *out)
{
	/* "pkg.core" of "pkg.core.load" as a path: "pkg/core" */
	char mod[512];
	size_t ml = (size_t)(last - 1 - qs);
	if (ml == 0 || ml >= sizeof(mod))
		return KBX_OK;
	for (size_t i = 0; i < ml; i++)
		mod[i] = qs[i] == '.' ? '/' : qs[i];
	mod[ml] = '\0';
	MDB_cursor *c;
	size_t len = strlen(last);
	if (!len || len > 500 || mdb_cursor_open(_kbx_txn(s), s->names, &c))
		return KBX_OK;
	MDB_val k = { len, (void *)last }, d;
	kbx_status_t st = KBX_OK;
	for (int g = mdb_cursor_get(c, &k, &d, MDB_SET_KEY); !g && !st;
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT_DUP)) {
		struct kbx_node n;
		if (d.mv_size != 4 || _kbx_node_read(s, _kbx_txn(s), _kbx_get_u32(d.mv_data), &n) ||
		    !n.path || strcmp(n.qual, last))
			continue;
		/* the path without its extension must end in mod, at a '/' */
		size_t pl = n.path_len;
		const char *dot = memrchr(n.path, '.', pl);
		const char *slash = memrchr(n.path, '/', pl);
		if (dot && (!slash || dot > slash))
			pl = (size_t)(dot - n.path);
		/* pkg/__init__.py is the module pkg */
		if (pl >= 9 && !memcmp(n.path + pl - 9, "/__init__", 9))
			pl -= 9;
		if (pl < ml || memcmp(n.path + pl - ml, mod, ml) ||
		    (pl > ml && n.path[pl - ml - 1] != '/'))
			continue;
		st = _kbx_nodelist_add(out, &n);
	}
	mdb_cursor_close(c);
	return st;
}

kbx_status_t kbx_lookup(kbx_store_t *s, const char *symbol, struct kbx_nodelist *out,
			struct kbx_error *err)
{
	kbx_status_t st;
	size_t len = strlen(symbol);
	if (!len)
		return _kbx_fail(err, KBX_ERR_PARSE, "empty symbol: give a name ('add'), a qualified name ('Dog.speak') or an id ('src/a.py#add')");
	if (len > 480)
		return _kbx_fail(err, KBX_ERR_PARSE, "symbol longer than 480 bytes");
	for (const unsigned char *p = (const unsigned char *)symbol; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return _kbx_fail(err, KBX_ERR_PARSE,
					 "symbol contains a control character (byte 0x%02x at offset %zu)",
					 *p, (size_t)((const char *)p - symbol));
	size_t start = out->n;

	/* "./src/a.py" is "src/a.py" */
	const char *typed = symbol;
	while (symbol[0] == '.' && symbol[1] == '/')
		symbol += 2;
	if (!*symbol)
		return _kbx_fail(err, KBX_ERR_PARSE,
				 "cannot parse symbol '%s': no name or path after './'", typed);

	/* a canonical id or a file path, exactly */
	uint32_t id = _kbx_id_of(s, symbol);
	if (id) {
		struct kbx_node n;
		if (_kbx_node_read(s, _kbx_txn(s), id, &n) == KBX_OK)
			return _kbx_nodelist_add(out, &n);
	}
	if (strchr(symbol, '#')) {
		/* "#", "a.py#", "#f": no id looks like that (a file named so
		 * was found just above) */
		if (symbol[0] == '#' || symbol[strlen(symbol) - 1] == '#')
			return _kbx_fail(err, KBX_ERR_PARSE,
					 "cannot parse symbol '%s': an id is PATH#NAME ('src/a.py#add')",
					 symbol);
		return _kbx_fail(err, KBX_NOT_FOUND, "no symbol '%s' in the index", symbol);
	}

	/* "Foo::bar" and "Foo->bar" are "Foo.bar" */
	struct strbuf q = STRBUF_INIT;
	for (const char *p = symbol; *p; p++) {
		if (p[0] == ':' && p[1] == ':') {
			strbuf_addch(&q, '.');
			p++;
		} else if (p[0] == '-' && p[1] == '>') {
			strbuf_addch(&q, '.');
			p++;
		} else {
			strbuf_addch(&q, *p);
		}
	}
	if (q.failed) {
		strbuf_release(&q);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	const char *qs = q.buf;
	if (!q.len || qs[0] == '.' || qs[q.len - 1] == '.' || strstr(qs, "..")) {
		strbuf_release(&q);
		return _kbx_fail(err, KBX_ERR_PARSE,
				 "cannot parse symbol '%s': an empty name between separators", symbol);
	}

	/* a bare name, or a file's base name */
	st = add_named(s, qs, NULL, out);
	if (!st && strchr(qs, '.')) {
		const char *last = strrchr(qs, '.') + 1;
		st = add_named(s, last, qs, out);
		/* posixpath.join, pkg.core.load: a top-level definition of a
		 * file whose path, without its extension, ends in the qualifier */
		if (!st && out->n == start)
			st = add_module_qualified(s, qs, last, out);
		/* os.path.join: the external as it was called */
		if (!st) {
			struct strbuf e = STRBUF_INIT;
			strbuf_addf(&e, "extern:%s", qs);
			uint32_t eid = _kbx_id_of(s, strbuf_str(&e));
			struct kbx_node n;
			if (eid && _kbx_node_read(s, _kbx_txn(s), eid, &n) == KBX_OK)
				st = _kbx_nodelist_add(out, &n);
			strbuf_release(&e);
		}
	}
	strbuf_release(&q);
	if (st)
		return _kbx_fail(err, st, "cannot look up '%s'", symbol);
	if (out->n == start)
		return _kbx_fail(err, KBX_NOT_FOUND, "no symbol '%s' in the index", symbol);
	qsort(out->items + start, out->n - start, sizeof(*out->items), by_cid);
	return KBX_OK;
}

kbx_status_t kbx_suggest(kbx_store_t *s, const char *symbol, size_t max,
			 struct kbx_nodelist *out, struct kbx_error *err)
{
	const char *last = symbol;
	for (const char *p = symbol; *p; p++)
		if (*p == '.' || *p == ':' || *p == '#' || *p == '/' || *p == '>')
			last = p + 1;
	if (!*last || !max)
		return KBX_NOT_FOUND;
	size_t len = strlen(last);
	size_t limit = len < 4 ? 1 : len < 8 ? 2 : 3;
	struct cand {
		size_t dist;
		uint32_t id;
	} *best = calloc(max, sizeof(*best));
	size_t nbest = 0;
	if (!best)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	MDB_cursor *c;
	MDB_val k, d;
	if (mdb_cursor_open(_kbx_txn(s), s->names, &c)) {
		free(best);
		return _kbx_fail(err, KBX_ERR_STORE, "cannot read the name index");
	}
	char buf[512];
	for (int g = mdb_cursor_get(c, &k, &d, MDB_FIRST); !g;
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT_NODUP)) {
		if (k.mv_size >= sizeof(buf) || d.mv_size != 4)
			continue;
		memcpy(buf, k.mv_data, k.mv_size);
		buf[k.mv_size] = '\0';
		size_t dist = _kbx_edit_distance(last, buf, limit);
		/* a name that starts with what was typed is close too */
		if (dist > limit && len >= 3 && !strncmp(buf, last, len))
			dist = limit;
		if (dist > limit || dist == 0)
			continue;
		size_t pos = nbest;
		while (pos > 0 && best[pos - 1].dist > dist)
			pos--;
		if (pos >= max)
			continue;
		if (nbest < max)
			nbest++;
		memmove(best + pos + 1, best + pos, (nbest - pos - 1) * sizeof(*best));
		best[pos].dist = dist;
		best[pos].id = _kbx_get_u32(d.mv_data);
	}
	mdb_cursor_close(c);
	kbx_status_t st = KBX_OK;
	for (size_t i = 0; i < nbest && !st; i++) {
		struct kbx_node n;
		if (_kbx_node_read(s, _kbx_txn(s), best[i].id, &n) == KBX_OK)
			st = _kbx_nodelist_add(out, &n);
	}
	free(best);
	return nbest ? st : KBX_NOT_FOUND;
}

/* Scan one node's edges of one kind in one direction. */
static kbx_status_t scan_edges(struct kbx_store *s, const struct kbx_node *node, uint32_t scan_id,
			       int kind, int dir, uint32_t depth, struct _kbx_idset *seen,
			       struct _kbx_idset *next, int via_name, kbx_edge_fn fn, void *data,
			       int *stop)
{
	MDB_txn *txn = _kbx_txn(s);
	MDB_dbi dbi = dir == KBX_DIR_OUT ? s->edges : s->redges;
	unsigned char start[5];
	_kbx_put_u32(start, scan_id);
	start[4] = (unsigned char)kind;
	MDB_cursor *c;
	if (mdb_cursor_open(txn, dbi, &c))
		return KBX_ERR_STORE;
	MDB_val k = { 5, start }, d;
	kbx_status_t st = KBX_OK;
	for (int g = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
	     !g && !*stop && k.mv_size == KBX_EDGE_KEY_LEN && !memcmp(k.mv_data, start, 5);
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		uint32_t other_id = _kbx_get_u32((const unsigned char *)k.mv_data + 5);
		struct _kbx_edge_val v;
		struct kbx_node other;
		if (_kbx_edge_val_decode(d.mv_data, d.mv_size, &v) ||
		    _kbx_node_read(s, txn, other_id, &other)) {
			st = KBX_ERR_CORRUPT;
			break;
		}
		if (via_name && _kbx_lang_family(other.lang) != _kbx_lang_family(node->lang))
			continue;
		if (seen && _kbx_idset_has(seen, other_id))
			continue;
		if (seen)
			_kbx_idset_add(seen, other_id);
		if (next)
			_kbx_idset_add(next, other_id);
		struct kbx_edge e = { 0 };
		e.kind = kind;
		e.confidence = v.confidence;
		e.via = v.via;
		e.ncandidates = v.ncandidates;
		e.depth = depth;
		e.sites = v.sites;
		e.nsites = v.nsites;
		if (dir == KBX_DIR_OUT) {
			e.from = *node;
			e.to = other;
		} else {
			e.from = other;
			e.to = *node;
		}
		if (fn(data, &e))
			*stop = 1;
	}
	mdb_cursor_close(c);
	return st;
}

kbx_status_t kbx_walk_edges(kbx_store_t *s, uint32_t id, int kind, int dir, uint32_t max_depth,
			    kbx_edge_fn fn, void *data, struct kbx_error *err)
{
	struct _kbx_idset seen = { 0 }, frontier = { 0 }, next = { 0 };
	kbx_status_t st = KBX_OK;
	int stop = 0;
	_kbx_idset_add(&seen, id);
	_kbx_idset_add(&frontier, id);
	for (uint32_t depth = 1; frontier.n && !stop && (!max_depth || depth <= max_depth);
	     depth++) {
		for (size_t i = 0; i < frontier.n && !stop && !st; i++) {
			struct kbx_node node;
			if (_kbx_node_read(s, _kbx_txn(s), frontier.ids[i], &node)) {
				st = KBX_ERR_CORRUPT;
				break;
			}
			st = scan_edges(s, &node, node.id, kind, dir, depth, &seen, &next, 0, fn,
					data, &stop);
			/* calls that could be this one among many of its name */
			if (!st && kind == KBX_EDGE_CALLS && dir == KBX_DIR_IN &&
			    KBX_KIND_IS_CALLABLE(node.kind)) {
				struct strbuf cid = STRBUF_INIT;
				strbuf_addf(&cid, "name:%s", node.name);
				uint32_t nid = cid.failed ? 0 : _kbx_id_of(s, cid.buf);
				strbuf_release(&cid);
				if (nid)
					st = scan_edges(s, &node, nid, kind, dir, depth, &seen, &next, 1,
							fn, data, &stop);
			}
		}
		_kbx_idset_release(&frontier);
		frontier = next;
		memset(&next, 0, sizeof(next));
	}
	_kbx_idset_release(&seen);
	_kbx_idset_release(&frontier);
	_kbx_idset_release(&next);
	if (st)
		return _kbx_fail(err, st, "the index does not decode: run 'kbx index --rebuild'");
	return KBX_OK;
}

kbx_status_t kbx_names_with_prefix(kbx_store_t *s, const char *prefix, size_t max,
				   void (*fn)(void *data, const char *name, size_t len),
				   void *data, struct kbx_error *err)
{
	MDB_cursor *c;
	size_t plen = strlen(prefix), n = 0;
	if (mdb_cursor_open(_kbx_txn(s), s->names, &c))
		return _kbx_fail(err, KBX_ERR_STORE, "cannot read the name index");
	MDB_val k = { plen, (void *)prefix }, d;
	int g = plen ? mdb_cursor_get(c, &k, &d, MDB_SET_RANGE) : mdb_cursor_get(c, &k, &d, MDB_FIRST);
	for (; !g && (!max || n < max); g = mdb_cursor_get(c, &k, &d, MDB_NEXT_NODUP)) {
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen))
			break;
		fn(data, k.mv_data, k.mv_size);
		n++;
	}
	mdb_cursor_close(c);
	return n ? KBX_OK : KBX_NOT_FOUND;
}

kbx_status_t kbx_ids_with_prefix(kbx_store_t *s, const char *prefix, size_t max,
				 void (*fn)(void *data, const char *id, size_t len, int kind),
				 void *data, struct kbx_error *err)
{
	MDB_cursor *c;
	size_t plen = strlen(prefix), n = 0;
	if (mdb_cursor_open(_kbx_txn(s), s->ids, &c))
		return _kbx_fail(err, KBX_ERR_STORE, "cannot read the id index");
	MDB_val k = { plen, (void *)prefix }, d;
	int g = plen ? mdb_cursor_get(c, &k, &d, MDB_SET_RANGE) : mdb_cursor_get(c, &k, &d, MDB_FIRST);
	for (; !g && (!max || n < max); g = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		if (k.mv_size < plen || memcmp(k.mv_data, prefix, plen))
			break;
		struct kbx_node node;
		int kind = 0;
		if (d.mv_size == 4 &&
		    _kbx_node_read(s, _kbx_txn(s), _kbx_get_u32(d.mv_data), &node) == KBX_OK)
			kind = node.kind;
		fn(data, k.mv_data, k.mv_size, kind);
		n++;
	}
	mdb_cursor_close(c);
	return n ? KBX_OK : KBX_NOT_FOUND;
}
