/*
 * What a file's extraction said, kept in the "refs" table so that its
 * calls, imports and bases can be resolved again when another file
 * changes, without parsing it again.
 *
 * Layout (integers big-endian u32 unless said):
 *   version(=1) lang nnodes node-ids...
 *   ncalls  { caller line col recv(u8) name receiver class_qual recv_type }
 *   nimports { flags(u8) level(u8) line module name alias }
 *   ninherits { class line base }
 *   nfields { class name type }                      (version 3)
 *   narities { node min(u16) max(u16) }              (version 4: the
 *     definitions whose arity the language says)
 *   nnargs { call-index nargs(u16) }                 (version 4: the
 *     calls whose argument count it says)
 *   nreturns { node type }                           (version 5: the
 *     definitions whose result type it says)
 * where a string is a u32 length (0xffffffff for none) and its bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#define REFS_VERSION 5   /* 2: recv_type; 3: fields; 4: arities; 5: result types */
#define NO_STR 0xffffffffu

static void put32(struct strbuf *sb, uint32_t v)
{
	unsigned char b[4];
	_kbx_put_u32(b, v);
	strbuf_add(sb, b, 4);
}

static void put16(struct strbuf *sb, unsigned v)
{
	unsigned char b[2] = { (unsigned char)(v >> 8), (unsigned char)v };
	strbuf_add(sb, b, 2);
}

static unsigned arity16(int a)
{
	return a < 0 ? 0 : a > KBX_ARITY_ANY ? KBX_ARITY_ANY : (unsigned)a;
}

static void putstr(struct strbuf *sb, const char *s)
{
	if (!s) {
		put32(sb, NO_STR);
		return;
	}
	size_t n = strlen(s);
	put32(sb, (uint32_t)n);
	strbuf_add(sb, s, n);
}

/* The class enclosing sym i, or -1. */
static int enclosing_class_slow(const struct kbx_extract *x, int i)
{
	for (int p = x->syms[i].parent; p >= 0; p = x->syms[p].parent)
		if (KBX_KIND_IS_TYPE(x->syms[p].kind))
			return p;
	return -1;
}

/* The class enclosing each sym, in one pass: a definition comes after
 * its parent in syms, so the parent's answer is known.  Walking up from
 * every call instead was quadratic: 50,000 nested namespaces each
 * holding a call took seconds.  NULL when out of memory. */
static int *enclosing_classes(const struct kbx_extract *x)
{
	int *cls = malloc((x->nsyms + 1) * sizeof(*cls));
	if (!cls)
		return NULL;
	for (size_t i = 0; i < x->nsyms; i++) {
		int p = x->syms[i].parent;
		if (p < 0)
			cls[i] = -1;
		else if (KBX_KIND_IS_TYPE(x->syms[p].kind))
			cls[i] = p;
		else if ((size_t)p < i)
			cls[i] = cls[p];
		else
			cls[i] = enclosing_class_slow(x, (int)i);
	}
	return cls;
}

/* The qualified name of the class enclosing sym i, or NULL. */
static const char *class_qual(const struct kbx_extract *x, const int *cls, int i)
{
	int c = cls ? cls[i] : enclosing_class_slow(x, i);
	return c >= 0 ? x->syms[c].qual : NULL;
}

void _kbx_refs_encode(struct strbuf *out, const struct kbx_extract *x, const uint32_t *sym_ids,
		      const uint32_t *uniq_ids, size_t nuniq)
{
	put32(out, REFS_VERSION);
	put32(out, 0);  /* lang: filled by the reader from the file record */
	put32(out, (uint32_t)nuniq);
	for (size_t i = 0; i < nuniq; i++)
		put32(out, uniq_ids[i]);
	int *cls = x->ncalls ? enclosing_classes(x) : NULL;
	put32(out, (uint32_t)x->ncalls);
	for (size_t i = 0; i < x->ncalls; i++) {
		const struct kbx_xcall *c = &x->calls[i];
		put32(out, c->caller >= 0 ? sym_ids[c->caller] : 0);
		put32(out, c->line);
		put32(out, c->col);
		strbuf_addch(out, c->recv);
		putstr(out, c->name);
		putstr(out, c->receiver);
		const char *cq = NULL;
		struct strbuf t = STRBUF_INIT;
		if (c->caller >= 0) {
			cq = class_qual(x, cls, c->caller);
			if (!cq && (x->syms[c->caller].kind == KBX_KIND_METHOD ||
				    (x->syms[c->caller].kind == KBX_KIND_FUNCTION &&
				     x->syms[c->caller].parent < 0))) {
				/* a method qualified by a type defined elsewhere,
				 * or a function extending one (Kotlin's fun
				 * Pump.drain(), whose plain calls are Pump's) */
				const char *q = x->syms[c->caller].qual;
				const char *dot = strrchr(q, '.');
				if (dot) {
					strbuf_add(&t, q, (size_t)(dot - q));
					cq = strbuf_str(&t);
				}
			}
		}
		putstr(out, cq);
		strbuf_release(&t);
		putstr(out, c->recv_type);
	}
	free(cls);
	put32(out, (uint32_t)x->nimports);
	for (size_t i = 0; i < x->nimports; i++) {
		const struct kbx_ximport *m = &x->imports[i];
		strbuf_addch(out, m->flags);
		strbuf_addch(out, m->level > 255 ? 255 : m->level);
		put32(out, m->line);
		putstr(out, m->module);
		putstr(out, m->name);
		putstr(out, m->alias);
	}
	put32(out, (uint32_t)x->ninherits);
	for (size_t i = 0; i < x->ninherits; i++) {
		const struct kbx_xinherit *h = &x->inherits[i];
		put32(out, sym_ids[h->sym]);
		put32(out, h->line);
		putstr(out, h->base);
	}
	put32(out, (uint32_t)x->nfields);
	for (size_t i = 0; i < x->nfields; i++) {
		const struct kbx_xfield *f = &x->fields[i];
		put32(out, sym_ids[f->sym]);
		putstr(out, f->name);
		putstr(out, f->type);
	}
	/* sym_ids of syms the store merged (overloads of one qualified
	 * name) repeat: such a node's arity is the union of theirs */
	size_t na = 0;
	for (size_t i = 0; i < x->nsyms; i++)
		na += x->syms[i].arity_min >= 0;
	put32(out, (uint32_t)na);
	for (size_t i = 0; i < x->nsyms; i++) {
		const struct kbx_xsym *sy = &x->syms[i];
		if (sy->arity_min < 0)
			continue;
		put32(out, sym_ids[i]);
		put16(out, arity16(sy->arity_min));
		put16(out, arity16(sy->arity_max));
	}
	size_t nn = 0;
	for (size_t i = 0; i < x->ncalls; i++)
		nn += x->calls[i].nargs >= 0;
	put32(out, (uint32_t)nn);
	for (size_t i = 0; i < x->ncalls; i++) {
		if (x->calls[i].nargs < 0)
			continue;
		put32(out, (uint32_t)i);
		put16(out, arity16(x->calls[i].nargs));
	}
	/* results, and callbacks' parameter types ("@...") among them */
	size_t nr = 0;
	for (size_t i = 0; i < x->nsyms; i++)
		nr += (x->syms[i].ret_type != NULL) + (x->syms[i].cb_types != NULL);
	put32(out, (uint32_t)nr);
	for (size_t i = 0; i < x->nsyms; i++) {
		if (x->syms[i].ret_type) {
			put32(out, sym_ids[i]);
			putstr(out, x->syms[i].ret_type);
		}
		if (x->syms[i].cb_types) {
			put32(out, sym_ids[i]);
			putstr(out, x->syms[i].cb_types);
		}
	}
}

struct reader {
	unsigned char *p, *end;
	int bad;
};

static uint32_t get32(struct reader *r)
{
	if (r->end - r->p < 4) {
		r->bad = 1;
		return 0;
	}
	uint32_t v = _kbx_get_u32(r->p);
	r->p += 4;
	return v;
}

static unsigned get16(struct reader *r)
{
	if (r->end - r->p < 2) {
		r->bad = 1;
		return 0;
	}
	unsigned v = ((unsigned)r->p[0] << 8) | r->p[1];
	r->p += 2;
	return v;
}

static uint8_t get8(struct reader *r)
{
	if (r->p >= r->end) {
		r->bad = 1;
		return 0;
	}
	return *r->p++;
}

/* Strings are NUL-terminated in place: each length word is followed by
 * its bytes, and we copied the blob with room to terminate. */
static const char *getstr(struct reader *r)
{
	uint32_t n = get32(r);
	if (n == NO_STR || r->bad)
		return NULL;
	if ((size_t)(r->end - r->p) < n) {
		r->bad = 1;
		return NULL;
	}
	/* Move the bytes back over the length word to make room for a NUL. */
	char *dst = (char *)r->p - 4;
	memmove(dst, r->p, n);
	dst[n] = '\0';
	r->p += n;
	return dst;
}

/*
 * A section of n records of at least min bytes each, of a record of len
 * bytes: room for them (and one more) in *arr.  An array that cannot be
 * allocated ends the decoding at once: the reader would otherwise skip
 * nothing and read the next section from the middle of this one, and
 * report memory running out as a damaged record.
 */
static kbx_status_t section(const struct reader *r, uint32_t n, size_t len, size_t min,
			    size_t elem, void **arr)
{
	if (r->bad || n > len / min)
		return KBX_ERR_CORRUPT;
	*arr = calloc((size_t)n + 1, elem);
	return *arr ? KBX_OK : KBX_ERR_NOMEM;
}

kbx_status_t _kbx_refs_decode(const void *data, size_t len, struct _kbx_refs *out)
{
	kbx_status_t st = KBX_ERR_CORRUPT;
	memset(out, 0, sizeof(*out));
	out->blob = malloc(len + 1);
	if (!out->blob)
		return KBX_ERR_NOMEM;
	memcpy(out->blob, data, len);
	struct reader r = { (unsigned char *)out->blob, (unsigned char *)out->blob + len, 0 };
	/* an older version ends before the sections it did not have:
	 * they are read as empty */
	uint32_t version = get32(&r);
	if (version > REFS_VERSION || version < 2)
		goto fail;
	get32(&r);
	uint32_t n = get32(&r);
	if ((st = section(&r, n, len, 4, sizeof(*out->nodes), (void **)&out->nodes)))
		goto fail;
	for (uint32_t i = 0; i < n; i++)
		out->nodes[i] = get32(&r);
	out->nnodes = n;

	n = get32(&r);
	if ((st = section(&r, n, len, 17, sizeof(*out->calls), (void **)&out->calls)))
		goto fail;
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		struct _kbx_ref_call *c = &out->calls[i];
		c->caller = get32(&r);
		c->line = get32(&r);
		c->col = get32(&r);
		c->recv = get8(&r);
		c->name = getstr(&r);
		c->receiver = getstr(&r);
		c->class_qual = getstr(&r);
		c->recv_type = getstr(&r);
		c->nargs = -1;
		r.bad |= !c->name;
	}
	out->ncalls = n;

	n = get32(&r);
	if ((st = section(&r, n, len, 18, sizeof(*out->imports), (void **)&out->imports)))
		goto fail;
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		struct _kbx_ref_import *m = &out->imports[i];
		m->flags = get8(&r);
		m->level = get8(&r);
		m->line = get32(&r);
		m->module = getstr(&r);
		m->name = getstr(&r);
		m->alias = getstr(&r);
		r.bad |= !m->module;
	}
	out->nimports = n;

	n = get32(&r);
	if ((st = section(&r, n, len, 12, sizeof(*out->inherits), (void **)&out->inherits)))
		goto fail;
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		struct _kbx_ref_inherit *h = &out->inherits[i];
		h->cls = get32(&r);
		h->line = get32(&r);
		h->base = getstr(&r);
		r.bad |= !h->base;
	}
	out->ninherits = n;

	n = version >= 3 ? get32(&r) : 0;
	if ((st = section(&r, n, len, 12, sizeof(*out->fields), (void **)&out->fields)))
		goto fail;
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		struct _kbx_ref_field *f = &out->fields[i];
		f->cls = get32(&r);
		f->name = getstr(&r);
		f->type = getstr(&r);
		r.bad |= !f->name || !f->type;
	}
	out->nfields = n;

	n = version >= 4 ? get32(&r) : 0;
	if ((st = section(&r, n, len, 8, sizeof(*out->arities), (void **)&out->arities)))
		goto fail;
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		struct _kbx_ref_arity *a = &out->arities[i];
		a->node = get32(&r);
		a->min = (uint16_t)get16(&r);
		a->max = (uint16_t)get16(&r);
	}
	out->narities = n;
	n = version >= 4 ? get32(&r) : 0;
	if (r.bad || n > len / 6) {
		st = KBX_ERR_CORRUPT;
		goto fail;
	}
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		uint32_t k = get32(&r);
		unsigned v = get16(&r);
		if (k < out->ncalls)
			out->calls[k].nargs = (int)v;
		else
			r.bad = 1;
	}
	n = version >= 5 ? get32(&r) : 0;
	if ((st = section(&r, n, len, 8, sizeof(*out->returns), (void **)&out->returns)))
		goto fail;
	for (uint32_t i = 0; i < n && !r.bad; i++) {
		out->returns[i].node = get32(&r);
		out->returns[i].type = getstr(&r);
		r.bad |= !out->returns[i].type;
	}
	out->nreturns = n;
	/* a string a record must have that is missing is damage too */
	if (!r.bad)
		return KBX_OK;
	st = KBX_ERR_CORRUPT;
fail:
	_kbx_refs_release(out);
	return st;
}

void _kbx_refs_release(struct _kbx_refs *r)
{
	free(r->blob);
	free(r->nodes);
	free(r->calls);
	free(r->imports);
	free(r->inherits);
	free(r->fields);
	free(r->arities);
	free(r->returns);
	memset(r, 0, sizeof(*r));
}

kbx_status_t _kbx_refs_read(struct kbx_store *s, uint32_t file, struct _kbx_refs *out)
{
	unsigned char kb[4];
	_kbx_put_u32(kb, file);
	MDB_val k = { 4, kb }, d;
	int rc = mdb_get(_kbx_txn(s), s->refs, &k, &d);
	if (rc == MDB_NOTFOUND)
		return KBX_NOT_FOUND;
	if (rc)
		return KBX_ERR_STORE;
	kbx_status_t st = _kbx_refs_decode(d.mv_data, d.mv_size, out);
	if (!st)
		out->file = file;
	return st;
}

/* The last component of a dotted or slashed name. */
static const char *last_component(const char *s, size_t *len)
{
	const char *end = s + strlen(s);
	while (end > s && (end[-1] == '/' || end[-1] == '.'))
		end--;
	const char *p = end;
	while (p > s && p[-1] != '.' && p[-1] != '/' && p[-1] != ':')
		p--;
	*len = (size_t)(end - p);
	return p;
}

static void emit_key(void (*fn)(void *, const char *), void *data, const char *prefix,
		     const char *s, size_t n)
{
	char buf[512];
	size_t pl = strlen(prefix);
	if (!n || pl + n >= sizeof(buf))
		return;
	memcpy(buf, prefix, pl);
	memcpy(buf + pl, s, n);
	buf[pl + n] = '\0';
	fn(data, buf);
}

/* The stem of a file name: "a/b/util.test.js" -> "util" */
static void stem_of(const char *path, const char **s, size_t *n)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strchr(base, '.');
	*s = base;
	*n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
}

void _kbx_path_mod_keys(const char *path, void (*fn)(void *data, const char *key), void *data)
{
	const char *s;
	size_t n;
	stem_of(path, &s, &n);
	emit_key(fn, data, "@mod:", s, n);
	const char *slash = strrchr(path, '/');
	if (slash) {
		const char *d = slash;
		while (d > path && d[-1] != '/')
			d--;
		emit_key(fn, data, "@mod:", d, (size_t)(slash - d));
	}
}

void _kbx_refs_names(const struct _kbx_refs *r, const struct kbx_lang *lang,
		     void (*fn)(void *data, const char *name), void *data)
{
	for (size_t i = 0; i < r->ncalls; i++) {
		fn(data, r->calls[i].name);
		if (r->calls[i].receiver) {
			/* Foo.bar(): a change to Foo matters */
			size_t n;
			const char *l = last_component(r->calls[i].receiver, &n);
			emit_key(fn, data, "", l, n);
		}
	}
	for (size_t i = 0; i < r->ninherits; i++) {
		size_t n;
		const char *l = last_component(r->inherits[i].base, &n);
		emit_key(fn, data, "", l, n);
	}
	for (size_t i = 0; i < r->nimports; i++) {
		const struct _kbx_ref_import *m = &r->imports[i];
		if (m->name)
			fn(data, m->name);
		if (m->flags & KBX_IMPORT_SYSTEM || !lang || !lang->import_candidates)
			continue;
		/* every file that could answer this import */
		struct kbx_pathlist pl = { 0 };
		struct kbx_ximport xi = { m->module, m->name, m->alias, m->level, m->flags, m->line };
		lang->import_candidates(r->path ? r->path : "", &xi, &pl);
		for (size_t j = 0; j < pl.n; j++) {
			const char *p = pl.paths[j];
			if (*p == '*' || *p == '=')
				p++;
			size_t len = strlen(p);
			if (len && p[len - 1] == '/') {
				size_t n;
				const char *l = last_component(p, &n);
				emit_key(fn, data, "@mod:", l, n);
			} else {
				const char *s;
				size_t n;
				stem_of(p, &s, &n);
				emit_key(fn, data, "@mod:", s, n);
			}
		}
		_kbx_pathlist_release(&pl);
	}
}
