#define _GNU_SOURCE /* memrchr, qsort_r */
/* Queries: what a typed symbol names, and walks along edges. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

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

/* Is qual (written with '.') the qualified name nq, or its end after a
 * separator?  nq may separate with "::" (an external of Rust or C++:
 * std::process::exit). */
static int qual_matches(const char *nq, const char *qual)
{
	char buf[512];
	if (strstr(nq, "::")) {
		size_t o = 0;
		for (const char *p = nq; *p && o + 1 < sizeof(buf); p++) {
			buf[o++] = *p;
			if (p[0] == ':' && p[1] == ':') {
				buf[o - 1] = '.';
				p++;
			}
		}
		buf[o] = '\0';
		nq = buf;
	}
	size_t ql = strlen(qual), nl = strlen(nq);
	return (nl == ql && !strcmp(nq, qual)) ||
	       (nl > ql && nq[nl - ql - 1] == '.' && !strcmp(nq + nl - ql, qual));
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
		return rc == ENOMEM ? KBX_ERR_NOMEM : KBX_ERR_STORE;
	MDB_val k = { len, (void *)name }, d;
	kbx_status_t st = KBX_OK;
	for (int g = mdb_cursor_get(c, &k, &d, MDB_SET_KEY); !g && !st;
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT_DUP)) {
		struct kbx_node n;
		if (d.mv_size != 4 || _kbx_node_read(s, _kbx_txn(s), _kbx_get_u32(d.mv_data), &n))
			continue;
		if (qual && !qual_matches(n.qual, qual))
			continue;
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
	if (!len || len > 500)
		return KBX_OK;
	int rc = mdb_cursor_open(_kbx_txn(s), s->names, &c);
	if (rc)
		return rc == ENOMEM ? KBX_ERR_NOMEM : KBX_ERR_STORE;
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

/* "Foo::bar" and "Foo->bar" are "Foo.bar": symbol as kbx_lookup reads
 * a qualified name, into q. */
static void qualified_form(const char *symbol, struct strbuf *q)
{
	for (const char *p = symbol; *p; p++) {
		if ((p[0] == ':' && p[1] == ':') || (p[0] == '-' && p[1] == '>')) {
			strbuf_addch(q, '.');
			p++;
		} else {
			strbuf_addch(q, *p);
		}
	}
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
	/* extern:std.process.exit is extern:std::process::exit, and the
	 * other way round (an index from before Rust and C++ externals
	 * were written with "::") */
	if (!strncmp(symbol, "extern:", 7) && !strchr(symbol, '#')) {
		struct strbuf alt = STRBUF_INIT;
		int colons = strstr(symbol + 7, "::") != NULL;
		strbuf_addstr(&alt, "extern:");
		for (const char *p = symbol + 7; *p; p++) {
			if (colons && p[0] == ':' && p[1] == ':') {
				strbuf_addch(&alt, '.');
				p++;
			} else if (!colons && *p == '.') {
				strbuf_addstr(&alt, "::");
			} else {
				strbuf_addch(&alt, *p);
			}
		}
		uint32_t aid = alt.failed ? 0 : _kbx_id_of(s, alt.buf);
		strbuf_release(&alt);
		struct kbx_node n;
		if (aid && _kbx_node_read(s, _kbx_txn(s), aid, &n) == KBX_OK)
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

	struct strbuf q = STRBUF_INIT;
	qualified_form(symbol, &q);
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
		return _kbx_fail(err, st, "cannot look up '%s': %s", symbol, kbx_status_str(st));
	if (out->n == start)
		return _kbx_fail(err, KBX_NOT_FOUND, "no symbol '%s' in the index", symbol);
	qsort(out->items + start, out->n - start, sizeof(*out->items), by_cid);
	return KBX_OK;
}

/* ---- inherited methods ---- */

/* The nodes a walk reached, each with its depth, in the walk's order. */
struct reached_nodes {
	struct kbx_node *nodes;
	uint32_t *depth;
	size_t n, alloc;
	int nomem;
};

static int collect_reached(void *data, const struct kbx_edge *e)
{
	struct reached_nodes *r = data;
	if (r->n == r->alloc) {
		size_t na = r->alloc ? r->alloc * 2 : 16;
		struct kbx_node *pn = realloc(r->nodes, na * sizeof(*pn));
		if (pn)
			r->nodes = pn;
		uint32_t *pd = pn ? realloc(r->depth, na * sizeof(*pd)) : NULL;
		if (!pd) {
			r->nomem = 1;
			return 1;
		}
		r->depth = pd;
		r->alloc = na;
	}
	r->nodes[r->n] = e->to;
	r->depth[r->n++] = e->depth;
	return 0;
}

static void reached_release(struct reached_nodes *r)
{
	free(r->nodes);
	free(r->depth);
	memset(r, 0, sizeof(*r));
}

/* The nodes c leads to by edges of kind, up to depth hops (0: all),
 * nearest first, into r: its bases (KBX_EDGE_INHERITS, 0), what it
 * defines (KBX_EDGE_DEFINES, 1). */
static kbx_status_t reached_from(struct kbx_store *s, const struct kbx_node *c, int kind,
				 uint32_t depth, struct reached_nodes *r, struct kbx_error *err)
{
	kbx_status_t st = kbx_walk_edges(s, c->id, kind, KBX_DIR_OUT, depth, collect_reached, r,
					 err);
	if (!st && r->nomem)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	return st;
}

kbx_status_t kbx_lookup_inherited(kbx_store_t *s, const char *symbol, struct kbx_nodelist *out,
				  struct kbx_error *err)
{
	struct strbuf q = STRBUF_INIT;
	qualified_form(symbol, &q);
	if (q.failed) {
		strbuf_release(&q);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	char *dot = strrchr(q.buf, '.');
	if (!dot || dot == q.buf || !dot[1] || strchr(q.buf, '#')) {
		strbuf_release(&q);
		return KBX_NOT_FOUND;
	}
	*dot = '\0';
	const char *cls = q.buf, *method = dot + 1;
	const char *cls_last = strrchr(cls, '.');
	struct kbx_nodelist classes = KBX_NODELIST_INIT;
	kbx_status_t st = add_named(s, cls_last ? cls_last + 1 : cls, cls_last ? cls : NULL,
				    &classes);
	uint32_t best = UINT32_MAX;  /* the depth of the nearest base found */
	size_t start = out->n;
	for (size_t i = 0; i < classes.n && !st; i++) {
		if (!KBX_KIND_IS_TYPE(classes.items[i].kind))
			continue;
		struct reached_nodes bases = { 0 };
		st = reached_from(s, &classes.items[i], KBX_EDGE_INHERITS, 0, &bases, err);
		for (size_t b = 0; b < bases.n && !st && bases.depth[b] <= best; b++) {
			struct reached_nodes m = { 0 };
			st = reached_from(s, &bases.nodes[b], KBX_EDGE_DEFINES, 1, &m, err);
			for (size_t k = 0; k < m.n && !st; k++) {
				if (strcmp(m.nodes[k].name, method))
					continue;
				if (bases.depth[b] < best) {
					out->n = start;  /* a nearer base hides them */
					best = bases.depth[b];
				}
				st = _kbx_nodelist_add(out, &m.nodes[k]);
			}
			reached_release(&m);
		}
		reached_release(&bases);
	}
	kbx_nodelist_release(&classes);
	strbuf_release(&q);
	if (st)
		return st;
	if (out->n == start)
		return KBX_NOT_FOUND;
	qsort(out->items + start, out->n - start, sizeof(*out->items), by_cid);
	return KBX_OK;
}

/* ---- suggestions ---- */

/* How far a name may be from what was typed and still be suggested. */
static size_t typo_limit(size_t len)
{
	return len < 4 ? 1 : len < 8 ? 2 : 3;
}

/* The distance of name from the typed word, or limit + 1: a name that
 * starts with a word of 3 or more characters is as near as the limit. */
static size_t word_distance(const char *typed, const char *name)
{
	size_t len = strlen(typed), limit = typo_limit(len);
	size_t d = _kbx_edit_distance(typed, name, limit);
	if (d > limit && len >= 3 && !strncmp(name, typed, len))
		d = limit;
	return d;
}

/* The up to max nearest suggestions, best first. */
struct suggestions {
	struct sugg {
		size_t dist;
		struct kbx_node node;
	} *best;
	size_t n, max;
};

static int sugg_cmp(const struct sugg *a, const struct sugg *b)
{
	if (a->dist != b->dist)
		return a->dist < b->dist ? -1 : 1;
	return strcmp(a->node.cid, b->node.cid);
}

static void sugg_add(struct suggestions *sg, const struct kbx_node *n, size_t dist)
{
	struct sugg nw = { dist, *n };
	for (size_t i = 0; i < sg->n; i++) {
		if (sg->best[i].node.id != n->id)
			continue;
		if (sugg_cmp(&nw, &sg->best[i]) >= 0)
			return;
		memmove(sg->best + i, sg->best + i + 1, (sg->n - i - 1) * sizeof(*sg->best));
		sg->n--;
		break;
	}
	size_t pos = sg->n;
	while (pos > 0 && sugg_cmp(&nw, &sg->best[pos - 1]) < 0)
		pos--;
	if (pos >= sg->max)
		return;
	if (sg->n < sg->max)
		sg->n++;
	memmove(sg->best + pos + 1, sg->best + pos, (sg->n - pos - 1) * sizeof(*sg->best));
	sg->best[pos] = nw;
}

/* The distance of a node's qualifier (its qualified name without the
 * last part) from the typed one, part by part from the right, or
 * (size_t)-1 when a part is too far or missing. */
static size_t qualifier_distance(char **typed, size_t ntyped, const char *qual)
{
	char buf[512];
	size_t ql = strlen(qual);
	if (ql >= sizeof(buf))
		return (size_t)-1;
	memcpy(buf, qual, ql + 1);
	char *end = strrchr(buf, '.');
	if (!end)
		return (size_t)-1;
	*end = '\0';
	size_t sum = 0;
	for (size_t i = ntyped; i-- > 0;) {
		char *dot = strrchr(buf, '.');
		const char *part = dot ? dot + 1 : buf;
		if (!*buf)
			return (size_t)-1;
		size_t d = word_distance(typed[i], part);
		if (d > typo_limit(strlen(typed[i])))
			return (size_t)-1;
		sum += d;
		if (dot)
			*dot = '\0';
		else
			*buf = '\0';
	}
	return sum;
}

/* Suggest the methods a class near the typed one has or inherits whose
 * name is near the typed method: "Sesion.send" finds Session, whose
 * base defines send. */
static kbx_status_t suggest_members(struct kbx_store *s, const struct kbx_node *cls,
				    size_t cls_dist, const char *method,
				    struct suggestions *sg, struct kbx_error *err)
{
	struct reached_nodes bases = { 0 };
	kbx_status_t st = reached_from(s, cls, KBX_EDGE_INHERITS, 0, &bases, err);
	for (size_t b = 0; b <= bases.n && !st; b++) {
		struct reached_nodes m = { 0 };
		st = reached_from(s, b ? &bases.nodes[b - 1] : cls, KBX_EDGE_DEFINES, 1, &m, err);
		for (size_t k = 0; k < m.n && !st; k++) {
			size_t d = word_distance(method, m.nodes[k].name);
			if (d <= typo_limit(strlen(method)) && cls_dist + d)
				sugg_add(sg, &m.nodes[k], cls_dist + d);
		}
		reached_release(&m);
	}
	reached_release(&bases);
	return st;
}

kbx_status_t kbx_suggest(kbx_store_t *s, const char *symbol, size_t max,
			 struct kbx_nodelist *out, struct kbx_error *err)
{
	/* the qualified name: after an id's '#', else after a path's '/' */
	const char *text = symbol;
	const char *hash = strrchr(symbol, '#');
	if (hash)
		text = hash + 1;
	else if (strrchr(symbol, '/'))
		text = strrchr(symbol, '/') + 1;
	struct strbuf q = STRBUF_INIT;
	qualified_form(text, &q);
	if (q.failed) {
		strbuf_release(&q);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	/* its parts; a path's "name.py" is one */
	char *parts[16];
	size_t np = 0;
	char *save = NULL;
	if (!q.buf || !*q.buf) {
		/* nothing after the '/' or '#' ("src/"): no name to be near */
		strbuf_release(&q);
		return KBX_NOT_FOUND;
	}
	if (!hash && strchr(symbol, '/'))
		parts[np++] = q.buf;
	else
		for (char *t = strtok_r(q.buf, ".", &save); t && np < 16;
		     t = strtok_r(NULL, ".", &save))
			parts[np++] = t;
	if (!np || !max) {
		strbuf_release(&q);
		return KBX_NOT_FOUND;
	}
	const char *last = parts[np - 1];
	const char *qlast = np > 1 ? parts[np - 2] : NULL;
	size_t limit = typo_limit(strlen(last));
	struct suggestions sg = { calloc(max, sizeof(struct sugg)), 0, max };
	if (!sg.best) {
		strbuf_release(&q);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	kbx_status_t st = KBX_OK;
	MDB_cursor *c;
	MDB_val k, d;
	if (mdb_cursor_open(_kbx_txn(s), s->names, &c)) {
		free(sg.best);
		strbuf_release(&q);
		return _kbx_fail(err, KBX_ERR_STORE, "cannot read the name index");
	}
	char buf[512];
	for (int g = mdb_cursor_get(c, &k, &d, MDB_FIRST); !g && !st;
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT_NODUP)) {
		if (k.mv_size >= sizeof(buf) || d.mv_size != 4)
			continue;
		memcpy(buf, k.mv_data, k.mv_size);
		buf[k.mv_size] = '\0';
		size_t dist = word_distance(last, buf);
		size_t qdist = qlast ? word_distance(qlast, buf) : (size_t)-1;
		if (!qlast && (dist > limit || !dist))
			continue;
		if (qlast && dist > limit && qdist > typo_limit(strlen(qlast)))
			continue;
		/* every node of the name: a bare name needs only the first */
		MDB_cursor *dc;
		if (mdb_cursor_open(_kbx_txn(s), s->names, &dc)) {
			st = _kbx_fail(err, KBX_ERR_STORE, "cannot read the name index");
			break;
		}
		MDB_val dk = k, dd;
		for (int h = mdb_cursor_get(dc, &dk, &dd, MDB_SET_KEY); !h && !st;
		     h = qlast ? mdb_cursor_get(dc, &dk, &dd, MDB_NEXT_DUP) : MDB_NOTFOUND) {
			struct kbx_node n;
			if (dd.mv_size != 4 || _kbx_node_read(s, _kbx_txn(s), _kbx_get_u32(dd.mv_data), &n))
				continue;
			if (!qlast) {
				sugg_add(&sg, &n, dist);
				continue;
			}
			/* "Sesion.sned": the name near the method, its qualifier
			 * near the rest, part by part */
			size_t qd = dist <= limit ? qualifier_distance(parts, np - 1, n.qual) : (size_t)-1;
			if (qd != (size_t)-1 && dist + qd)
				sugg_add(&sg, &n, dist + qd);
			/* a class near the qualifier: its methods and its bases' */
			if (qdist <= typo_limit(strlen(qlast)) && KBX_KIND_IS_TYPE(n.kind))
				st = suggest_members(s, &n, qdist, last, &sg, err);
		}
		mdb_cursor_close(dc);
	}
	mdb_cursor_close(c);
	for (size_t i = 0; i < sg.n && !st; i++)
		st = _kbx_nodelist_add(out, &sg.best[i].node);
	size_t found = sg.n;
	free(sg.best);
	strbuf_release(&q);
	if (st)
		return st;
	return found ? KBX_OK : KBX_NOT_FOUND;
}

/*
 * One edge found while scanning a level of a walk, waiting to be sorted:
 * near is the node of the frontier (its place in the level's array of
 * them, which many edges share), other the node it leads to.  The sites
 * are kept in the level's site array (it may move while it grows).
 */
struct pending_edge {
	struct kbx_node other;
	uint32_t near;
	uint8_t confidence, via;
	uint32_t ncandidates, nsites;
	size_t site_off;
};

struct walk_level {
	struct pending_edge *edges;
	size_t n, alloc;
	struct kbx_site *sites;
	size_t nsites, sites_alloc;
	struct kbx_node *nears;        /* the frontier nodes scanned */
	size_t nnears, nears_alloc;
};

static void walk_level_release(struct walk_level *l)
{
	free(l->edges);
	free(l->sites);
	free(l->nears);
	memset(l, 0, sizeof(*l));
}

/* Keep a frontier node for the edges that leave it; its place in *ix. */
static kbx_status_t walk_level_near(struct walk_level *l, const struct kbx_node *near,
				    uint32_t *ix)
{
	if (l->nnears == l->nears_alloc) {
		size_t na = l->nears_alloc ? l->nears_alloc * 2 : 16;
		struct kbx_node *p = realloc(l->nears, na * sizeof(*p));
		if (!p)
			return KBX_ERR_NOMEM;
		l->nears = p;
		l->nears_alloc = na;
	}
	l->nears[l->nnears] = *near;
	*ix = (uint32_t)l->nnears++;
	return KBX_OK;
}

static kbx_status_t walk_level_add(struct walk_level *l, uint32_t near,
				   const struct kbx_node *other, const struct _kbx_edge_val *v)
{
	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 1024;
		struct pending_edge *p = realloc(l->edges, na * sizeof(*p));
		if (!p)
			return KBX_ERR_NOMEM;
		l->edges = p;
		l->alloc = na;
	}
	if (l->nsites + v->nsites > l->sites_alloc) {
		size_t na = l->sites_alloc ? l->sites_alloc : 64;
		while (na < l->nsites + v->nsites)
			na *= 2;
		struct kbx_site *p = realloc(l->sites, na * sizeof(*p));
		if (!p)
			return KBX_ERR_NOMEM;
		l->sites = p;
		l->sites_alloc = na;
	}
	struct pending_edge *e = &l->edges[l->n++];
	e->near = near;
	e->other = *other;
	e->confidence = v->confidence;
	e->via = v->via;
	e->ncandidates = v->ncandidates;
	e->nsites = v->nsites;
	e->site_off = l->nsites;
	memcpy(l->sites + l->nsites, v->sites, v->nsites * sizeof(*v->sites));
	l->nsites += v->nsites;
	return KBX_OK;
}

#define CMP(a, b) ((a) < (b) ? -1 : (a) > (b))

int kbx_node_place_cmp(const struct kbx_node *a, const struct kbx_node *b)
{
	if (!a->path != !b->path)
		return a->path ? -1 : 1;
	if (a->path) {
		size_t len = a->path_len < b->path_len ? a->path_len : b->path_len;
		int c = memcmp(a->path, b->path, len);
		if (c)
			return c;
		if (a->path_len != b->path_len)
			return CMP(a->path_len, b->path_len);
		if (a->line != b->line)
			return CMP(a->line, b->line);
		if (a->col != b->col)
			return CMP(a->col, b->col);
	}
	return strcmp(a->cid, b->cid);
}

/* For qsort_r(), with the level as its argument. */
static int pending_cmp(const void *pa, const void *pb, void *level)
{
	const struct pending_edge *a = pa, *b = pb;
	const struct walk_level *l = level;
	const struct kbx_site *sort_sites = l->sites;
	int c = kbx_node_place_cmp(&a->other, &b->other);
	if (c)
		return c;
	/* the same node reached twice: the edge from the first neighbour,
	 * the surest edge, then by its sites, so that the edge reported
	 * does not depend on the order of the scan either */
	c = kbx_node_place_cmp(&l->nears[a->near], &l->nears[b->near]);
	if (c)
		return c;
	if (a->confidence != b->confidence)
		return CMP(a->confidence, b->confidence);
	if (a->via != b->via)
		return CMP(a->via, b->via);
	if (a->ncandidates != b->ncandidates)
		return CMP(a->ncandidates, b->ncandidates);
	if (a->nsites != b->nsites)
		return CMP(a->nsites, b->nsites);
	for (uint32_t i = 0; i < a->nsites; i++) {
		const struct kbx_site *x = &sort_sites[a->site_off + i];
		const struct kbx_site *y = &sort_sites[b->site_off + i];
		if (x->line != y->line)
			return CMP(x->line, y->line);
		if (x->col != y->col)
			return CMP(x->col, y->col);
	}
	return 0;
}

static int confidence_wanted(int confidence, unsigned flags)
{
	return !(flags & KBX_WALK_CERTAIN) || confidence != KBX_CONF_AMBIGUOUS;
}

int kbx_edge_wanted(const struct kbx_edge *e, unsigned flags)
{
	return confidence_wanted(e->confidence, flags);
}

/* Scan one node's edges of one kind in one direction into the level. */
static kbx_status_t scan_edges(struct kbx_store *s, const struct kbx_node *node, uint32_t near,
			       uint32_t scan_id, int kind, int dir, unsigned flags,
			       const struct _kbx_idset *seen, int via_name, int self,
			       struct walk_level *level)
{
	MDB_txn *txn = _kbx_txn(s);
	MDB_dbi dbi = dir == KBX_DIR_OUT ? s->edges : s->redges;
	unsigned char start[5];
	_kbx_put_u32(start, scan_id);
	start[4] = (unsigned char)kind;
	MDB_cursor *c, *nc;
	int rc = mdb_cursor_open(txn, dbi, &c);
	if (rc)
		return rc == ENOMEM ? KBX_ERR_NOMEM : KBX_ERR_STORE;
	/* the other ends come in the order of their ids: read through one
	 * cursor, they are mostly on the page it is on */
	rc = mdb_cursor_open(txn, s->nodes, &nc);
	if (rc) {
		mdb_cursor_close(c);
		return rc == ENOMEM ? KBX_ERR_NOMEM : KBX_ERR_STORE;
	}
	MDB_val k = { 5, start }, d;
	kbx_status_t st = KBX_OK;
	for (int g = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
	     !g && !st && k.mv_size == KBX_EDGE_KEY_LEN && !memcmp(k.mv_data, start, 5);
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		uint32_t other_id = _kbx_get_u32((const unsigned char *)k.mv_data + 5);
		struct _kbx_edge_val v;
		struct kbx_node other;
		if (_kbx_edge_val_decode(d.mv_data, d.mv_size, &v) ||
		    _kbx_node_read_cursor(nc, other_id, &other)) {
			st = KBX_ERR_CORRUPT;
			break;
		}
		if (!confidence_wanted(v.confidence, flags))
			continue;
		if (via_name && _kbx_lang_family(other.lang) != _kbx_lang_family(node->lang))
			continue;
		/* seen, but for the start's edge to itself (recursion), which is
		 * a direct neighbour like any other */
		if (_kbx_idset_has(seen, other_id) && !(self && other_id == node->id))
			continue;
		st = walk_level_add(level, near, &other, &v);
	}
	mdb_cursor_close(nc);
	mdb_cursor_close(c);
	return st;
}

/*
 * The level's edges in place order.  Node ids follow the places of a
 * tree indexed in one run, and each node's edges are scanned in the
 * order of the other end's id: the edges mostly come in order already,
 * which one pass tells (for git's callers of die, 1,192 edges, the sort
 * cost more than the rest of the walk).
 */
static void sort_level(struct walk_level *l)
{
	size_t i = 1;
	while (i < l->n && pending_cmp(&l->edges[i - 1], &l->edges[i], l) <= 0)
		i++;
	if (i < l->n)
		qsort_r(l->edges, l->n, sizeof(*l->edges), pending_cmp, l);
}

/* Hand the level's edges to fn in order, each new node once; the nodes
 * reached go into seen and next. */
static kbx_status_t deliver_level(struct walk_level *level, int kind, int dir, uint32_t depth,
				  struct _kbx_idset *seen, struct _kbx_idset *next,
				  kbx_edge_fn fn, void *data, int *stop)
{
	sort_level(level);
	/* the nodes reached, added to seen and next in one merge after the
	 * level: they come in the order of their places, and an insert
	 * each into the sorted sets moved half of them every time */
	uint32_t *reached = malloc((level->n + 1) * sizeof(*reached));
	size_t nreached = 0;
	if (!reached)
		return KBX_ERR_NOMEM;
	for (size_t i = 0; i < level->n && !*stop; i++) {
		const struct pending_edge *p = &level->edges[i];
		if (i && level->edges[i - 1].other.id == p->other.id)
			continue;
		reached[nreached++] = p->other.id;
		struct kbx_edge e = { 0 };
		e.kind = kind;
		e.confidence = p->confidence;
		e.via = p->via;
		e.ncandidates = p->ncandidates;
		e.depth = depth;
		e.sites = p->nsites ? level->sites + p->site_off : NULL;
		e.nsites = p->nsites;
		e.from = dir == KBX_DIR_OUT ? level->nears[p->near] : p->other;
		e.to = dir == KBX_DIR_OUT ? p->other : level->nears[p->near];
		if (fn(data, &e))
			*stop = 1;
	}
	int rc = _kbx_idset_add_many(seen, reached, nreached) < 0 ||
		 _kbx_idset_add_many(next, reached, nreached) < 0;
	free(reached);
	return rc ? KBX_ERR_NOMEM : KBX_OK;
}

kbx_status_t kbx_walk_edges(kbx_store_t *s, uint32_t id, int kind, int dir, uint32_t max_depth,
			    kbx_edge_fn fn, void *data, struct kbx_error *err)
{
	return kbx_walk_edges_flags(s, id, kind, dir, max_depth, 0, fn, data, err);
}

kbx_status_t kbx_walk_edges_flags(kbx_store_t *s, uint32_t id, int kind, int dir,
				  uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *data,
				  struct kbx_error *err)
{
	struct _kbx_idset seen = { 0 }, frontier = { 0 }, next = { 0 };
	struct walk_level level = { 0 };
	kbx_status_t st = KBX_OK;
	int stop = 0;
	if (_kbx_idset_add(&seen, id) < 0 || _kbx_idset_add(&frontier, id) < 0)
		st = KBX_ERR_NOMEM;
	for (uint32_t depth = 1; !st && frontier.n && !stop && (!max_depth || depth <= max_depth);
	     depth++) {
		level.n = 0;
		level.nsites = 0;
		level.nnears = 0;
		for (size_t i = 0; i < frontier.n && !st; i++) {
			struct kbx_node node;
			if (_kbx_node_read(s, _kbx_txn(s), frontier.ids[i], &node)) {
				st = KBX_ERR_CORRUPT;
				break;
			}
			uint32_t near;
			st = walk_level_near(&level, &node, &near);
			if (!st)
				st = scan_edges(s, &node, near, node.id, kind, dir, flags, &seen, 0,
						depth == 1, &level);
			/* calls that could be this one among many of its name
			 * (always ambiguous) */
			if (!st && kind == KBX_EDGE_CALLS && dir == KBX_DIR_IN &&
			    KBX_KIND_IS_CALLABLE(node.kind) && confidence_wanted(KBX_CONF_AMBIGUOUS, flags)) {
				struct strbuf cid = STRBUF_INIT;
				strbuf_addf(&cid, "name:%s", node.name);
				uint32_t nid = cid.failed ? 0 : _kbx_id_of(s, cid.buf);
				strbuf_release(&cid);
				if (nid)
					st = scan_edges(s, &node, near, nid, kind, dir, flags, &seen,
							1, 0, &level);
			}
		}
		if (!st)
			st = deliver_level(&level, kind, dir, depth, &seen, &next, fn, data, &stop);
		_kbx_idset_release(&frontier);
		frontier = next;
		memset(&next, 0, sizeof(next));
	}
	walk_level_release(&level);
	_kbx_idset_release(&seen);
	_kbx_idset_release(&frontier);
	_kbx_idset_release(&next);
	if (st == KBX_ERR_NOMEM)
		return _kbx_fail(err, st, "out of memory while walking the graph");
	if (st)
		return _kbx_fail(err, st, "the index does not decode: run 'kbx index --rebuild'");
	return KBX_OK;
}

kbx_status_t kbx_names_with_prefix(kbx_store_t *s, const char *prefix, size_t max,
				   int (*fn)(void *data, const char *name, size_t len),
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
		n++;
		if (fn(data, k.mv_data, k.mv_size))
			break;
	}
	mdb_cursor_close(c);
	return n ? KBX_OK : KBX_NOT_FOUND;
}

kbx_status_t kbx_ids_with_prefix(kbx_store_t *s, const char *prefix, size_t max,
				 int (*fn)(void *data, const char *id, size_t len, int kind),
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
		n++;
		if (fn(data, k.mv_data, k.mv_size, kind))
			break;
	}
	mdb_cursor_close(c);
	return n ? KBX_OK : KBX_NOT_FOUND;
}
