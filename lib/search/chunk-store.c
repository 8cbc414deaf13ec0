/*
 * The chunk store: chunk records, sources, document ids, BM25 postings and
 * compiled patterns, written inside one write transaction per run.
 *
 * Chunk ids come from a counter ("next_chunk") and are never reused, so a
 * run's new postings always sort after the old ones of the same term.
 * Postings of removed chunks are found again by tokenizing the chunk's
 * stored text (the tokenizer is deterministic, so the same terms come
 * out that went in) and, under each term, by the chunk's id, whatever
 * counts a posting holds (a kbx that counted them otherwise wrote it).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "search/search.h"

/* ---- records ---- */

static const char *field_of(const struct kbx_chunk *c, const char *source, int f)
{
	const char *v = NULL;
	switch (f) {
	case CF_SOURCE: v = source; break;
	case CF_DOC_ID: v = c->doc_id; break;
	case CF_TITLE: v = c->title; break;
	case CF_HEADING: v = c->heading; break;
	case CF_PATH: v = c->path; break;
	case CF_LANG: v = c->lang; break;
	case CF_TAGS: v = c->tags; break;
	case CF_CATEGORY: v = c->category; break;
	case CF_SEVERITY: v = c->severity; break;
	case CF_PATTERN: v = c->pattern; break;
	case CF_CAUSE: v = c->cause; break;
	case CF_FIX: v = c->fix; break;
	case CF_RELATED: v = c->related; break;
	}
	return v ? v : "";
}

void _kbx_chunk_encode(struct strbuf *out, const struct kbx_chunk *c, const char *source,
		       uint32_t ntokens)
{
	unsigned char h[KBX_CHUNK_HDR_LEN] = { 0 };
	h[0] = (unsigned char)c->type;
	h[1] = (unsigned char)c->kind;
	_kbx_put_u32(h + 4, c->node);
	_kbx_put_u32(h + 8, c->line);
	_kbx_put_u32(h + 12, c->end_line);
	_kbx_put_u32(h + 16, c->seq);
	_kbx_put_u32(h + 20, c->pattern_line);
	_kbx_put_u32(h + 24, ntokens);
	strbuf_add(out, h, sizeof(h));
	for (int f = 0; f < CF_TEXT; f++) {
		const char *v = field_of(c, source, f);
		strbuf_add(out, v, strlen(v) + 1);
	}
	/* the text may hold NUL bytes in theory; it is stored to its length */
	strbuf_add(out, c->text ? c->text : "", c->text ? c->text_len : 0);
	strbuf_addch(out, '\0');
}

kbx_status_t _kbx_chunk_decode(const void *data, size_t len, struct _kbx_chunk_view *v)
{
	const unsigned char *p = data;
	memset(v, 0, sizeof(*v));
	if (len < KBX_CHUNK_HDR_LEN + CF__COUNT || p[len - 1] != '\0')
		return KBX_ERR_CORRUPT;
	struct kbx_chunk *c = &v->c;
	c->type = p[0];
	c->kind = p[1];
	c->node = _kbx_get_u32(p + 4);
	c->line = _kbx_get_u32(p + 8);
	c->end_line = _kbx_get_u32(p + 12);
	c->seq = _kbx_get_u32(p + 16);
	c->pattern_line = _kbx_get_u32(p + 20);
	v->ntokens = _kbx_get_u32(p + 24);
	const char *s = (const char *)p + KBX_CHUNK_HDR_LEN, *end = (const char *)p + len;
	const char *f[CF__COUNT];
	for (int i = 0; i < CF__COUNT; i++) {
		if (s >= end)
			return KBX_ERR_CORRUPT;
		f[i] = s;
		if (i == CF_TEXT)
			break;
		const char *z = memchr(s, '\0', (size_t)(end - s));
		if (!z)
			return KBX_ERR_CORRUPT;
		s = z + 1;
	}
	v->source = f[CF_SOURCE];
	c->doc_id = f[CF_DOC_ID];
	c->title = f[CF_TITLE];
	c->heading = f[CF_HEADING];
	c->path = f[CF_PATH];
	c->lang = f[CF_LANG];
	c->tags = f[CF_TAGS];
	c->category = f[CF_CATEGORY];
	c->severity = f[CF_SEVERITY];
	c->pattern = f[CF_PATTERN];
	c->cause = f[CF_CAUSE];
	c->fix = f[CF_FIX];
	c->related = f[CF_RELATED];
	c->text = f[CF_TEXT];
	c->text_len = (size_t)(end - f[CF_TEXT]) - 1;
	return KBX_OK;
}

kbx_status_t _kbx_chunk_get(struct kbx_store *s, MDB_txn *txn, uint32_t id,
			    struct _kbx_chunk_view *v)
{
	unsigned char k[4];
	_kbx_put_u32(k, id);
	MDB_val key = { 4, k }, d;
	int rc = mdb_get(txn, s->chunks, &key, &d);
	if (rc == MDB_NOTFOUND)
		return KBX_NOT_FOUND;
	if (rc)
		return KBX_ERR_STORE;
	return _kbx_chunk_decode(d.mv_data, d.mv_size, v);
}

/* ---- source records ---- */

static void source_encode(struct strbuf *out, uint64_t size, int64_t mtime_ns,
			  const unsigned char hash[16], uint32_t flags, const uint32_t *ids,
			  size_t n)
{
	unsigned char h[KBX_SOURCE_HDR_LEN] = { 0 };
	_kbx_put_u32(h, (uint32_t)(size >> 32));
	_kbx_put_u32(h + 4, (uint32_t)size);
	_kbx_put_u32(h + 8, (uint32_t)((uint64_t)mtime_ns >> 32));
	_kbx_put_u32(h + 12, (uint32_t)(uint64_t)mtime_ns);
	memcpy(h + 16, hash, 16);
	_kbx_put_u32(h + 32, (uint32_t)n);
	_kbx_put_u32(h + 36, flags);
	strbuf_add(out, h, sizeof(h));
	for (size_t i = 0; i < n; i++) {
		unsigned char b[4];
		_kbx_put_u32(b, ids[i]);
		strbuf_add(out, b, 4);
	}
}

static kbx_status_t source_decode(const void *data, size_t len, struct _kbx_source_rec *r)
{
	const unsigned char *p = data;
	if (len < KBX_SOURCE_HDR_LEN)
		return KBX_ERR_CORRUPT;
	r->size = (uint64_t)_kbx_get_u32(p) << 32 | _kbx_get_u32(p + 4);
	r->mtime_ns = (int64_t)((uint64_t)_kbx_get_u32(p + 8) << 32 | _kbx_get_u32(p + 12));
	memcpy(r->hash, p + 16, 16);
	r->nchunks = _kbx_get_u32(p + 32);
	r->flags = _kbx_get_u32(p + 36);
	if (len != KBX_SOURCE_HDR_LEN + (size_t)r->nchunks * 4)
		return KBX_ERR_CORRUPT;
	r->ids = p + KBX_SOURCE_HDR_LEN;
	return KBX_OK;
}

/* ---- the writer ---- */

struct post {
	const char *term;       /* interned, NUL-terminated */
	uint32_t len;
	unsigned char val[KBX_POSTING_LEN];
};

struct intern {
	char **slots;           /* open addressing; each: u32 len then bytes, NUL */
	size_t n, cap;
};

/* One text's terms and their counts; the terms are interned in names,
 * which keeps them for the counter's life. */
struct _kbx_termcount {
	kbx_tokenizer_t *tok;
	struct intern names;
	struct _kbx_term *tc;
	size_t ntc, atc;
	size_t *tc_index;       /* open addressing over tc */
	size_t tc_cap;
	uint32_t ntokens;
	int nomem;
	struct strbuf doc;      /* a code chunk's documentation */
};

struct _kbx_cw {
	struct kbx_store *s;
	MDB_txn *txn;
	struct kbx_error *err;
	/* the terms of the chunk being written; postings point into its
	 * names, and into those of the counters adopted */
	struct _kbx_termcount *count;
	struct _kbx_termcount **adopted;
	size_t nadopted;
	/* the source being written */
	char *key;
	uint32_t *ids;
	size_t nids, aids;
	/* postings to write at flush */
	struct post *posts;
	size_t nposts, aposts;
	/* counters */
	uint64_t added, removed;
	uint32_t *new_ids;      /* every chunk added in this run */
	size_t nnew, anew;
	int64_t d_chunks, d_tokens, d_type[KBX_CHUNK__COUNT];
	uint32_t next_chunk;
	struct strbuf buf;
	char dupbuf[600];
};

static const char *intern(struct intern *t, const char *s, size_t len)
{
	if (t->n * 2 >= t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 4096;
		char **ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return NULL;
		for (size_t i = 0; i < t->cap; i++) {
			char *e = t->slots[i];
			if (!e)
				continue;
			uint32_t el;
			memcpy(&el, e, 4);
			size_t j = _kbx_fnv1a(e + 4, el) & (ncap - 1);
			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = e;
		}
		free(t->slots);
		t->slots = ns;
		t->cap = ncap;
	}
	size_t j = _kbx_fnv1a(s, len) & (t->cap - 1);
	for (;;) {
		char *e = t->slots[j];
		if (!e)
			break;
		uint32_t el;
		memcpy(&el, e, 4);
		if (el == len && !memcmp(e + 4, s, len))
			return e + 4;
		j = (j + 1) & (t->cap - 1);
	}
	char *e = malloc(4 + len + 1);
	if (!e)
		return NULL;
	uint32_t l32 = (uint32_t)len;
	memcpy(e, &l32, 4);
	memcpy(e + 4, s, len);
	e[4 + len] = '\0';
	t->slots[j] = e;
	t->n++;
	return e + 4;
}

static void intern_free(struct intern *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->slots[i]);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

static int fail_mdb(struct _kbx_cw *w, int rc, const char *what)
{
	_kbx_fail_mdb(w->err, _kbx_store_write_error(w->s, rc), what);
	return -1;
}

struct _kbx_cw *_kbx_cw_new(struct kbx_store *s, MDB_txn *txn, struct kbx_error *err)
{
	struct _kbx_cw *w = calloc(1, sizeof(*w));
	if (!w) {
		_kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		return NULL;
	}
	w->s = s;
	w->txn = txn;
	w->err = err;
	strbuf_init(&w->buf);
	w->count = _kbx_termcount_new();
	if (!w->count) {
		free(w);
		_kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		return NULL;
	}
	uint64_t next = 1;
	if (_kbx_meta_get_u64(s, txn, "next_chunk", &next) != KBX_OK || next == 0)
		next = 1;
	w->next_chunk = (uint32_t)next;
	return w;
}

void _kbx_cw_free(struct _kbx_cw *w)
{
	if (!w)
		return;
	_kbx_termcount_free(w->count);
	for (size_t i = 0; i < w->nadopted; i++)
		_kbx_termcount_free(w->adopted[i]);
	free(w->adopted);
	free(w->key);
	free(w->ids);
	free(w->new_ids);
	free(w->posts);
	strbuf_release(&w->buf);
	free(w);
}

uint64_t _kbx_cw_added(const struct _kbx_cw *w) { return w->added; }
const uint32_t *_kbx_cw_added_ids(const struct _kbx_cw *w, size_t *n)
{
	*n = w->nnew;
	return w->new_ids;
}
uint64_t _kbx_cw_removed(const struct _kbx_cw *w) { return w->removed; }

kbx_status_t _kbx_source_get(struct kbx_store *s, MDB_txn *txn, const char *key,
			     struct _kbx_source_rec *out, struct kbx_error *err)
{
	MDB_val k = { strlen(key), (void *)key }, d;
	int rc = mdb_get(txn, s->sources, &k, &d);
	if (rc == MDB_NOTFOUND)
		return KBX_NOT_FOUND;
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read a source record");
	if (source_decode(d.mv_data, d.mv_size, out))
		return _kbx_fail(err, KBX_ERR_CORRUPT,
				 "the record of '%s' does not decode: run 'kbx index --rebuild'", key);
	return KBX_OK;
}

kbx_status_t _kbx_cw_source(struct _kbx_cw *w, const char *key, struct _kbx_source_rec *out)
{
	return _kbx_source_get(w->s, w->txn, key, out, w->err);
}

/* ---- counting a text's terms ---- */

struct _kbx_termcount *_kbx_termcount_new(void)
{
	struct _kbx_termcount *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tok = _kbx_tokenizer_new();
	if (!t->tok) {
		free(t);
		return NULL;
	}
	strbuf_init(&t->doc);
	return t;
}

void _kbx_termcount_free(struct _kbx_termcount *t)
{
	if (!t)
		return;
	_kbx_tokenizer_free(t->tok);
	strbuf_release(&t->doc);
	intern_free(&t->names);
	free(t->tc);
	free(t->tc_index);
	free(t);
}

static int count_token(void *data, const char *tok, size_t len, int kind)
{
	struct _kbx_termcount *w = data;
	(void)kind;
	w->ntokens++;
	if (w->ntc * 2 >= w->tc_cap) {
		size_t ncap = w->tc_cap ? w->tc_cap * 2 : 256;
		size_t *ni = malloc(ncap * sizeof(*ni));
		if (!ni)
			return w->nomem = 1;
		for (size_t i = 0; i < ncap; i++)
			ni[i] = SIZE_MAX;
		for (size_t i = 0; i < w->ntc; i++) {
			size_t j = _kbx_fnv1a(w->tc[i].term, w->tc[i].len) & (ncap - 1);
			while (ni[j] != SIZE_MAX)
				j = (j + 1) & (ncap - 1);
			ni[j] = i;
		}
		free(w->tc_index);
		w->tc_index = ni;
		w->tc_cap = ncap;
	}
	size_t j = _kbx_fnv1a(tok, len) & (w->tc_cap - 1);
	while (w->tc_index[j] != SIZE_MAX) {
		struct _kbx_term *t = &w->tc[w->tc_index[j]];
		if (t->len == len && !memcmp(t->term, tok, len)) {
			t->tf++;
			return 0;
		}
		j = (j + 1) & (w->tc_cap - 1);
	}
	const char *it = intern(&w->names, tok, len);
	if (!it)
		return w->nomem = 1;
	if (w->ntc == w->atc) {
		size_t na = w->atc ? w->atc * 2 : 256;
		struct _kbx_term *nt = realloc(w->tc, na * sizeof(*nt));
		if (!nt)
			return w->nomem = 1;
		w->tc = nt;
		w->atc = na;
	}
	w->tc[w->ntc] = (struct _kbx_term){ it, (uint32_t)len, 1 };
	w->tc_index[j] = w->ntc++;
	return 0;
}

const struct _kbx_term *_kbx_termcount_chunk(struct _kbx_termcount *w, int type,
					     const char *text, size_t len, const char *title,
					     size_t *nterms, uint32_t *ntokens)
{
	const char *name = _kbx_code_name(type, title);
	w->ntc = 0;
	w->ntokens = 0;
	w->nomem = 0;
	if (w->tc_index)
		for (size_t i = 0; i < w->tc_cap; i++)
			w->tc_index[i] = SIZE_MAX;
	_kbx_tokenize(w->tok, text, len, count_token, w);
	if (type == KBX_CHUNK_CODE) {
		strbuf_reset(&w->doc);
		if (_kbx_code_doc(text, len, &w->doc)) {
			if (w->doc.failed)
				w->nomem = 1;
			else
				_kbx_tokenize(w->tok, w->doc.buf, w->doc.len, count_token, w);
		}
		for (int i = 0; name && i < KBX_NAME_COUNT; i++)
			_kbx_tokenize(w->tok, name, strlen(name), count_token, w);
	}
	*nterms = w->ntc;
	*ntokens = w->ntokens;
	if (w->nomem)
		return NULL;
	/* a text without a word, before any other: no array yet */
	static const struct _kbx_term none[1];
	return w->tc ? w->tc : none;
}

static int meta_add(struct _kbx_cw *w, const char *key, int64_t delta)
{
	uint64_t v = 0;
	kbx_status_t st = _kbx_meta_get_u64(w->s, w->txn, key, &v);
	if (st && st != KBX_NOT_FOUND)
		return MDB_CORRUPTED;
	if (delta < 0 && (uint64_t)-delta > v)
		v = 0;
	else
		v = (uint64_t)((int64_t)v + delta);
	return _kbx_meta_put_u64(w->s, w->txn, key, v);
}

/* Remove one chunk and everything that points at it. */
static int remove_chunk(struct _kbx_cw *w, uint32_t id, const char *source)
{
	struct kbx_store *s = w->s;
	unsigned char k4[4];
	_kbx_put_u32(k4, id);
	MDB_val k = { 4, k4 }, d;
	int rc = mdb_get(w->txn, s->chunks, &k, &d);
	if (rc == MDB_NOTFOUND)
		return 0;
	if (rc)
		return fail_mdb(w, rc, "cannot read a chunk");
	struct _kbx_chunk_view v;
	if (_kbx_chunk_decode(d.mv_data, d.mv_size, &v)) {
		_kbx_fail(w->err, KBX_ERR_CORRUPT,
			  "chunk %u does not decode: run 'kbx index --rebuild'", id);
		return -1;
	}
	/* copy what is needed: the record goes away under us */
	char *text = malloc(v.c.text_len + 1);
	char *doc_id = strdup(v.c.doc_id);
	if (!text || !doc_id) {
		free(text);
		free(doc_id);
		_kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		return -1;
	}
	memcpy(text, v.c.text, v.c.text_len);
	text[v.c.text_len] = '\0';
	size_t text_len = v.c.text_len;
	int type = v.c.type;
	uint32_t ntokens = v.ntokens;

	size_t nterms;
	uint32_t counted;
	const struct _kbx_term *tc = _kbx_termcount_chunk(w->count, type, text, text_len,
							   v.c.title, &nterms, &counted);
	if (!tc) {
		free(text);
		free(doc_id);
		_kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		return -1;
	}
	/* each term's posting of this chunk, found by its id whatever its
	 * counts (a kbx that counted them otherwise wrote it) */
	MDB_cursor *pc = NULL;
	if (nterms)
		rc = mdb_cursor_open(w->txn, s->postings, &pc);
	for (size_t i = 0; i < nterms && !rc; i++) {
		unsigned char val[KBX_POSTING_LEN];
		_kbx_posting_put(val, id, 0, 0);
		MDB_val tk = { tc[i].len, (void *)tc[i].term }, tv = { sizeof(val), val };
		rc = mdb_cursor_get(pc, &tk, &tv, MDB_GET_BOTH_RANGE);
		if (!rc && tv.mv_size == KBX_POSTING_LEN && _kbx_get_u32(tv.mv_data) == id)
			rc = mdb_cursor_del(pc, 0);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	}
	if (pc)
		mdb_cursor_close(pc);
	if (!rc) {
		rc = mdb_del(w->txn, s->patterns, &k, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	}
	if (!rc) {
		rc = mdb_del(w->txn, s->vdelta, &k, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	}
	if (!rc && *doc_id) {
		/* the document id is freed when this source owned it */
		MDB_val dk = { strlen(doc_id), doc_id }, dv;
		rc = mdb_get(w->txn, s->docids, &dk, &dv);
		if (!rc && dv.mv_size > strlen(source) && !memcmp(dv.mv_data, source, strlen(source)) &&
		    ((char *)dv.mv_data)[strlen(source)] == '\0')
			rc = mdb_del(w->txn, s->docids, &dk, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	}
	if (!rc)
		rc = mdb_del(w->txn, s->chunks, &k, NULL);
	free(text);
	free(doc_id);
	if (rc)
		return fail_mdb(w, rc, "cannot remove a chunk");
	w->removed++;
	w->d_chunks--;
	w->d_tokens -= ntokens;
	if (type > 0 && type < KBX_CHUNK__COUNT)
		w->d_type[type]--;
	return 0;
}

/* A source record's chunk ids, copied out of the map (malloc()ed); NULL
 * with w->err set when out of memory. */
static uint32_t *source_ids(struct _kbx_cw *w, const struct _kbx_source_rec *r)
{
	uint32_t *ids = malloc((r->nchunks + 1) * sizeof(*ids));
	if (!ids) {
		_kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < r->nchunks; i++)
		ids[i] = _kbx_get_u32(r->ids + 4 * i);
	return ids;
}

kbx_status_t _kbx_cw_remove_source(struct _kbx_cw *w, const char *key)
{
	struct _kbx_source_rec r;
	kbx_status_t st = _kbx_cw_source(w, key, &r);
	if (st == KBX_NOT_FOUND)
		return KBX_OK;
	if (st)
		return st;
	/* copy the ids: deleting moves the record */
	uint32_t *ids = source_ids(w, &r);
	if (!ids)
		return w->err->status;
	uint32_t n = r.nchunks;
	for (uint32_t i = 0; i < n; i++)
		if (remove_chunk(w, ids[i], key)) {
			free(ids);
			return w->err->status;
		}
	free(ids);
	MDB_val k = { strlen(key), (void *)key };
	int rc = mdb_del(w->txn, w->s->sources, &k, NULL);
	if (rc && rc != MDB_NOTFOUND)
		return fail_mdb(w, rc, "cannot remove a source record"), w->err->status;
	return KBX_OK;
}

kbx_status_t _kbx_cw_touch(struct _kbx_cw *w, const char *key, uint64_t size, int64_t mtime_ns)
{
	struct _kbx_source_rec r;
	kbx_status_t st = _kbx_cw_source(w, key, &r);
	if (st)
		return st;
	uint32_t *ids = source_ids(w, &r);
	if (!ids)
		return w->err->status;
	strbuf_reset(&w->buf);
	source_encode(&w->buf, size, mtime_ns, r.hash, r.flags, ids, r.nchunks);
	free(ids);
	if (w->buf.failed)
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	MDB_val k = { strlen(key), (void *)key }, v = { w->buf.len, w->buf.buf };
	int rc = mdb_put(w->txn, w->s->sources, &k, &v, 0);
	if (rc)
		return fail_mdb(w, rc, "cannot write a source record"), w->err->status;
	return KBX_OK;
}

kbx_status_t _kbx_cw_begin(struct _kbx_cw *w, const char *key)
{
	kbx_status_t st = _kbx_cw_remove_source(w, key);
	if (st)
		return st;
	free(w->key);
	w->key = strdup(key);
	if (!w->key)
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	w->nids = 0;
	return KBX_OK;
}

/* Add chunk c with its terms counted by w->count (own_terms), or by a
 * counter the writer adopted. */
static kbx_status_t add_chunk(struct _kbx_cw *w, const struct kbx_chunk *c, const char **dup_of,
			      const struct _kbx_term *terms, size_t nterms, uint32_t ntokens,
			      int own_terms);

kbx_status_t _kbx_cw_add(struct _kbx_cw *w, const struct kbx_chunk *c, const char **dup_of)
{
	return add_chunk(w, c, dup_of, NULL, 0, 0, 1);
}

kbx_status_t _kbx_cw_add_counted(struct _kbx_cw *w, const struct kbx_chunk *c,
				 const struct _kbx_term *terms, size_t nterms, uint32_t ntokens)
{
	const char *dup;
	return add_chunk(w, c, &dup, terms, nterms, ntokens, 0);
}

int _kbx_cw_adopt(struct _kbx_cw *w, struct _kbx_termcount *t)
{
	struct _kbx_termcount **n = realloc(w->adopted, (w->nadopted + 1) * sizeof(*n));
	if (!n)
		return -1;
	w->adopted = n;
	w->adopted[w->nadopted++] = t;
	return 0;
}

static kbx_status_t add_chunk(struct _kbx_cw *w, const struct kbx_chunk *c, const char **dup_of,
			      const struct _kbx_term *terms, size_t nterms, uint32_t ntokens,
			      int own_terms)
{
	struct kbx_store *s = w->s;
	int rc;
	*dup_of = NULL;
	if (!w->key)
		return _kbx_fail(w->err, KBX_ERR_INTERNAL, "chunk added outside a source");
	if (strlen(c->doc_id) > 400 || !*c->doc_id)
		return KBX_OK;   /* cannot be a key; the parsers never give one */

	/* document ids: one source owns each (code ids are unique by
	 * construction and are not entered) */
	if (c->type != KBX_CHUNK_CODE) {
		MDB_val dk = { strlen(c->doc_id), (void *)c->doc_id }, dv;
		rc = mdb_get(w->txn, s->docids, &dk, &dv);
		if (rc && rc != MDB_NOTFOUND)
			return fail_mdb(w, rc, "cannot read the document ids"), w->err->status;
		size_t kl = strlen(w->key);
		if (!rc) {
			const char *owner = dv.mv_data;
			if (!(dv.mv_size > kl && !memcmp(owner, w->key, kl) && owner[kl] == '\0')) {
				/* "r:/abs/path\0line" -> "/abs/path:line" */
				size_t ol = strnlen(owner, dv.mv_size);
				const char *line = ol + 1 < dv.mv_size ? owner + ol + 1 : "";
				const char *shown = ol > 2 && owner[1] == ':' ? owner + 2 : owner;
				snprintf(w->dupbuf, sizeof(w->dupbuf), "%.*s%s%.*s",
					 (int)(ol - (size_t)(shown - owner)), shown, *line ? ":" : "",
					 (int)strnlen(line, dv.mv_size - ol - 1 < 16 ? dv.mv_size - ol - 1 : 16),
					 line);
				*dup_of = w->dupbuf;
				return KBX_OK;
			}
		} else {
			strbuf_reset(&w->buf);
			strbuf_add(&w->buf, w->key, kl + 1);
			strbuf_addf(&w->buf, "%u", c->line);
			if (w->buf.failed)
				return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
			MDB_val v = { w->buf.len, w->buf.buf };
			rc = mdb_put(w->txn, s->docids, &dk, &v, 0);
			if (rc)
				return fail_mdb(w, rc, "cannot write a document id"), w->err->status;
		}
	}

	uint32_t id = w->next_chunk++;
	if (!w->next_chunk)
		return _kbx_fail(w->err, KBX_ERR_FULL, "out of chunk ids: run 'kbx index --rebuild'");
	if (own_terms) {
		terms = _kbx_termcount_chunk(w->count, c->type, c->text, c->text_len, c->title,
					     &nterms, &ntokens);
		if (!terms)
			return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	}

	strbuf_reset(&w->buf);
	_kbx_chunk_encode(&w->buf, c, w->key, ntokens);
	if (w->buf.failed)
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	unsigned char k4[4];
	_kbx_put_u32(k4, id);
	MDB_val k = { 4, k4 }, v = { w->buf.len, w->buf.buf };
	rc = mdb_put(w->txn, s->chunks, &k, &v, MDB_APPEND);
	if (rc == MDB_KEYEXIST)
		rc = mdb_put(w->txn, s->chunks, &k, &v, 0);
	if (rc)
		return fail_mdb(w, rc, "cannot write a chunk"), w->err->status;

	/* the postings wait for flush, sorted by term */
	if (w->nposts + nterms > w->aposts) {
		size_t na = w->aposts ? w->aposts : 4096;
		while (na < w->nposts + nterms)
			na *= 2;
		struct post *np = realloc(w->posts, na * sizeof(*np));
		if (!np)
			return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		w->posts = np;
		w->aposts = na;
	}
	for (size_t i = 0; i < nterms; i++) {
		struct post *p = &w->posts[w->nposts];
		p->term = terms[i].term;
		p->len = terms[i].len;
		_kbx_posting_put(p->val, id, terms[i].tf, ntokens);
		w->nposts++;
	}

	if (c->type == KBX_CHUNK_ERROR && c->pattern && *c->pattern) {
		char msg[256];
		strbuf_reset(&w->buf);
		if (_kbx_pattern_compile(c->pattern, &w->buf, msg, sizeof(msg)) == 0) {
			MDB_val pv = { w->buf.len, w->buf.buf };
			rc = mdb_put(w->txn, s->patterns, &k, &pv, 0);
			if (rc)
				return fail_mdb(w, rc, "cannot write a pattern"), w->err->status;
		}
	}

	if (w->nids == w->aids) {
		size_t na = w->aids ? w->aids * 2 : 16;
		uint32_t *ni = realloc(w->ids, na * sizeof(*ni));
		if (!ni)
			return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		w->ids = ni;
		w->aids = na;
	}
	w->ids[w->nids++] = id;
	if (w->nnew == w->anew) {
		size_t na = w->anew ? w->anew * 2 : 64;
		uint32_t *nn = realloc(w->new_ids, na * sizeof(*nn));
		if (!nn)
			return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
		w->new_ids = nn;
		w->anew = na;
	}
	w->new_ids[w->nnew++] = id;
	w->added++;
	w->d_chunks++;
	w->d_tokens += ntokens;
	if (c->type > 0 && c->type < KBX_CHUNK__COUNT)
		w->d_type[c->type]++;
	return KBX_OK;
}

kbx_status_t _kbx_cw_end(struct _kbx_cw *w, uint64_t size, int64_t mtime_ns,
			 const unsigned char hash[16], uint32_t flags)
{
	if (!w->key)
		return _kbx_fail(w->err, KBX_ERR_INTERNAL, "source ended before it began");
	strbuf_reset(&w->buf);
	source_encode(&w->buf, size, mtime_ns, hash, flags, w->ids, w->nids);
	if (w->buf.failed)
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
	MDB_val k = { strlen(w->key), w->key }, v = { w->buf.len, w->buf.buf };
	int rc = mdb_put(w->txn, w->s->sources, &k, &v, 0);
	free(w->key);
	w->key = NULL;
	w->nids = 0;
	if (rc)
		return fail_mdb(w, rc, "cannot write a source record"), w->err->status;
	return KBX_OK;
}

/* By term, then by chunk id.  The same term may be interned by two
 * counters, at two addresses: the bytes decide. */
static int cmp_post(const void *a, const void *b)
{
	const struct post *x = a, *y = b;
	if (x->term != y->term) {
		size_t n = x->len < y->len ? x->len : y->len;
		int c = memcmp(x->term, y->term, n);
		if (c)
			return c;
		if (x->len != y->len)
			return x->len < y->len ? -1 : 1;
	}
	return memcmp(x->val, y->val, 4);
}

/* A term of the postings, once whatever counter interned it. */
struct term_slot {
	const char *term;
	uint32_t len;
	uint32_t uid;
};

/* By the term's bytes, as cmp_post and LMDB order them. */
static int cmp_slot(const void *a, const void *b)
{
	const struct term_slot *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->term, y->term, n);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * w->posts in cmp_post's order, without comparing terms half a million
 * times over: the postings come in chunk id order (the writer numbers
 * chunks as it adds them), so each distinct term is given its place
 * among the terms (one sort of the distinct terms), and the postings
 * are then counted into place by it, keeping the order of the ids.
 * Returns -1 when that cannot be done (out of memory, ids not in
 * order); the caller then sorts them all.
 */
#define MEMO_SLOTS 65536      /* the top 16 bits of a multiplicative hash */
static int sort_posts(struct _kbx_cw *w)
{
	size_t n = w->nposts, cap = 4096, nu = 0;
	struct term_slot *tab = NULL;
	uint32_t *uid = malloc(n * sizeof(*uid)), *count = NULL, *at = NULL;
	struct term_slot *order = NULL, *memo = NULL;
	struct post *sorted = NULL;
	int rc = -1;

	if (!uid)
		goto out;
	/* each distinct term, by its bytes: uid[i] for posts[i] */
	tab = calloc(cap, sizeof(*tab));
	memo = calloc(MEMO_SLOTS, sizeof(*memo));
	if (!tab || !memo)
		goto out;
	uint32_t last_id = 0;
	for (size_t i = 0; i < n; i++) {
		const struct post *p = &w->posts[i];
		uint32_t id = _kbx_get_u32(p->val);
		if (i && id < last_id)
			goto out;
		last_id = id;
		if (nu * 2 >= cap) {
			size_t ncap = cap * 2;
			struct term_slot *nt = calloc(ncap, sizeof(*nt));
			if (!nt)
				goto out;
			for (size_t j = 0; j < cap; j++) {
				if (!tab[j].term)
					continue;
				size_t h = _kbx_fnv1a(tab[j].term, tab[j].len) & (ncap - 1);
				while (nt[h].term)
					h = (h + 1) & (ncap - 1);
				nt[h] = tab[j];
			}
			free(tab);
			tab = nt;
			cap = ncap;
		}
		/* most postings' terms were seen at the same address before */
		size_t c = (size_t)(((uintptr_t)p->term * 0x9e3779b97f4a7c15ull) >> 48);
		if (memo[c].term == p->term) {
			uid[i] = memo[c].uid;
			continue;
		}
		size_t h = _kbx_fnv1a(p->term, p->len) & (cap - 1);
		for (;;) {
			struct term_slot *t = &tab[h];
			if (!t->term) {
				t->term = p->term;
				t->len = p->len;
				t->uid = (uint32_t)nu++;
				break;
			}
			if (t->term == p->term ||
			    (t->len == p->len && !memcmp(t->term, p->term, p->len)))
				break;
			h = (h + 1) & (cap - 1);
		}
		uid[i] = tab[h].uid;
		memo[c].term = p->term;
		memo[c].uid = uid[i];
	}
	/* the distinct terms in order; count[u]: term u's postings;
	 * at[u]: where they go */
	order = malloc((nu + 1) * sizeof(*order));
	count = calloc(nu + 1, sizeof(*count));
	at = malloc((nu + 1) * sizeof(*at));
	sorted = malloc((n + 1) * sizeof(*sorted));
	if (!order || !count || !at || !sorted)
		goto out;
	for (size_t j = 0, u = 0; j < cap; j++)
		if (tab[j].term)
			order[u++] = tab[j];
	qsort(order, nu, sizeof(*order), cmp_slot);
	for (size_t i = 0; i < n; i++)
		count[uid[i]]++;
	uint32_t pos = 0;
	for (size_t r = 0; r < nu; r++) {
		uint32_t u = order[r].uid;
		at[u] = pos;
		pos += count[u];
	}
	for (size_t i = 0; i < n; i++)
		sorted[at[uid[i]]++] = w->posts[i];
	free(w->posts);
	w->posts = sorted;
	w->aposts = n + 1;
	sorted = NULL;
	rc = 0;
out:
	free(uid);
	free(tab);
	free(memo);
	free(count);
	free(order);
	free(at);
	free(sorted);
	return rc;
}

kbx_status_t _kbx_cw_flush(struct _kbx_cw *w)
{
	struct kbx_store *s = w->s;
	if (w->nposts && sort_posts(w))
		qsort(w->posts, w->nposts, sizeof(*w->posts), cmp_post);
	MDB_cursor *cur;
	int rc = mdb_cursor_open(w->txn, s->postings, &cur);
	if (rc)
		return fail_mdb(w, rc, "cannot write the postings"), w->err->status;
	/* a term's postings in one put (they are of one size, DUPFIXED):
	 * LMDB finds the term's place once, not once a posting */
	unsigned char *run = NULL;
	size_t arun = 0;
	for (size_t i = 0, j; i < w->nposts && !rc; i = j) {
		const struct post *p = &w->posts[i];
		for (j = i + 1; j < w->nposts && w->posts[j].len == p->len &&
				(w->posts[j].term == p->term ||
				 !memcmp(w->posts[j].term, p->term, p->len));
		     j++)
			;
		if (j - i > arun) {
			unsigned char *nr = realloc(run, (j - i) * KBX_POSTING_LEN);
			if (!nr) {
				rc = ENOMEM;
				break;
			}
			run = nr;
			arun = j - i;
		}
		for (size_t m = i; m < j; m++)
			memcpy(run + (m - i) * KBX_POSTING_LEN, w->posts[m].val, KBX_POSTING_LEN);
		MDB_val k = { p->len, (void *)p->term };
		MDB_val d[2] = { { KBX_POSTING_LEN, run }, { j - i, NULL } };
		rc = mdb_cursor_put(cur, &k, d, MDB_MULTIPLE);
		if (rc != MDB_KEYEXIST)
			continue;
		/* a posting there already stops the batch: one at a time */
		rc = 0;
		for (size_t m = i; !rc && m < j; m++) {
			MDB_val v = { KBX_POSTING_LEN, w->posts[m].val };
			rc = mdb_cursor_put(cur, &k, &v, 0);
			if (rc == MDB_KEYEXIST)
				rc = 0;
		}
	}
	free(run);
	mdb_cursor_close(cur);
	w->nposts = 0;
	if (rc)
		return fail_mdb(w, rc, "cannot write the postings"), w->err->status;

	rc = _kbx_meta_put_u64(s, w->txn, "next_chunk", w->next_chunk);
	if (!rc)
		rc = meta_add(w, "chunks", w->d_chunks);
	if (!rc)
		rc = meta_add(w, "chunk_tokens", w->d_tokens);
	for (int t = 1; t < KBX_CHUNK__COUNT && !rc; t++) {
		if (!w->d_type[t])
			continue;
		char key[32];
		snprintf(key, sizeof(key), "chunks.%s", kbx_chunk_type_str(t));
		rc = meta_add(w, key, w->d_type[t]);
	}
	if (!rc && (w->added || w->removed)) {
		rc = meta_add(w, "search_generation", 1);
	}
	w->d_chunks = w->d_tokens = 0;
	memset(w->d_type, 0, sizeof(w->d_type));
	if (rc)
		return fail_mdb(w, rc, "cannot write the collection's statistics"), w->err->status;
	return KBX_OK;
}

/* ---- every chunk, for kbx push (kbx-search.h) ---- */

kbx_status_t kbx_chunks_walk(kbx_store_t *s, kbx_chunk_fn fn, void *data, struct kbx_error *err)
{
	MDB_cursor *c;
	int rc = mdb_cursor_open(_kbx_txn(s), s->chunks, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "reading the chunks");
	kbx_status_t st = KBX_OK;
	MDB_val k, d;
	rc = mdb_cursor_get(c, &k, &d, MDB_FIRST);
	for (; rc == 0; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct _kbx_chunk_view v;
		if (k.mv_size != 4 || _kbx_chunk_decode(d.mv_data, d.mv_size, &v)) {
			err->status = st = KBX_ERR_CORRUPT;
			snprintf(err->msg, sizeof(err->msg),
				 "a record of the chunks table does not decode: run 'kbx index --rebuild'");
			break;
		}
		if (fn(data, _kbx_get_u32(k.mv_data), &v.c))
			break;
	}
	if (!st && rc && rc != MDB_NOTFOUND)
		st = _kbx_fail_mdb(err, rc, "reading the chunks");
	mdb_cursor_close(c);
	return st;
}

kbx_status_t kbx_postings_walk(kbx_store_t *s, kbx_posting_walk_fn fn, void *data,
			       struct kbx_error *err)
{
	MDB_cursor *c;
	int rc = mdb_cursor_open(_kbx_txn(s), s->postings, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the postings");
	MDB_val k, d;
	int stop = 0;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc && !stop;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT_NODUP)) {
		/* the term's postings a page at a time, as BM25 reads them */
		for (int r = mdb_cursor_get(c, &k, &d, MDB_GET_MULTIPLE); !r && !stop;
		     r = mdb_cursor_get(c, &k, &d, MDB_NEXT_MULTIPLE)) {
			const unsigned char *p = d.mv_data;
			for (size_t j = 0; j < d.mv_size / KBX_POSTING_LEN && !stop; j++, p += KBX_POSTING_LEN)
				stop = fn(data, _kbx_get_u32(p), k.mv_data, k.mv_size,
					  (uint32_t)(p[4] << 8 | p[5]), (uint32_t)(p[6] << 8 | p[7]));
		}
	}
	mdb_cursor_close(c);
	if (rc && rc != MDB_NOTFOUND && !stop)
		return _kbx_fail_mdb(err, rc, "cannot read the postings");
	return KBX_OK;
}

struct vector_walk {
	struct kbx_store *s;
	uint64_t ih;            /* the hash of the vectors' identity */
	kbx_vector_walk_fn fn;
	void *data;
	uint64_t *missing;
	float *buf;
	size_t bufsz;
	int nomem;
};

static int vector_of_chunk(void *data, uint32_t id, const struct kbx_chunk *c)
{
	struct vector_walk *w = data;
	unsigned char key[KBX_VCACHE_KEY_LEN];
	_kbx_vcache_key(key, w->ih, c->type, c->text, c->text_len, c->title);
	MDB_val vk = { sizeof(key), key }, vv;
	if (mdb_get(_kbx_txn(w->s), w->s->vcache, &vk, &vv) || !vv.mv_size ||
	    vv.mv_size % sizeof(float)) {
		(*w->missing)++;
		return 0;
	}
	/* a copy: the map need not align the floats */
	if (vv.mv_size > w->bufsz) {
		float *nb = realloc(w->buf, vv.mv_size);
		if (!nb) {
			w->nomem = 1;
			return 1;
		}
		w->buf = nb;
		w->bufsz = vv.mv_size;
	}
	memcpy(w->buf, vv.mv_data, vv.mv_size);
	return w->fn(w->data, id, w->buf, (uint32_t)(vv.mv_size / sizeof(float)));
}

kbx_status_t kbx_vectors_walk(kbx_store_t *s, char *ident, size_t identsz,
			      kbx_vector_walk_fn fn, void *data, uint64_t *missing,
			      struct kbx_error *err)
{
	char stored[256] = "";
	*missing = 0;
	_kbx_meta_get_str(s, _kbx_txn(s), "vector_identity", stored, sizeof(stored));
	snprintf(ident, identsz, "%s", stored);
	if (!*stored)
		return KBX_OK;
	struct vector_walk w = { s, XXH3_64bits(stored, strlen(stored)), fn, data, missing,
				 NULL, 0, 0 };
	kbx_status_t st = kbx_chunks_walk(s, vector_of_chunk, &w, err);
	free(w.buf);
	if (!st && w.nomem)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	return st;
}
