/*
 * What changed: the files of the working tree that differ from the index,
 * and the definitions of one file compared between the index and other
 * content (the working tree's file, or a blob of another revision).
 *
 * Definitions are compared by the body hashes the extractor computes
 * (lib/lang/extract.c) and the index keeps in its "bodies" table: the
 * same hash of the same syntax whichever side it comes from.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "lang/grammars.h"

#define DEFAULT_MAX_FILE_SIZE (1u << 20)
#define PARSE_TIMEOUT_US 10000000ull

/* ---- lists ---- */

void kbx_file_changes_release(struct kbx_file_changes *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].path);
		free(l->items[i].old_path);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int file_change_add(struct kbx_file_changes *l, int status, const char *path,
			   const char *old_path)
{
	if (_kbx_grow((void **)&l->items, &l->alloc, l->n, sizeof(*l->items), 16))
		return -1;
	struct kbx_file_change *c = &l->items[l->n];
	c->status = status;
	c->path = strdup(path);
	c->old_path = old_path ? strdup(old_path) : NULL;
	if (!c->path || (old_path && !c->old_path)) {
		free(c->path);
		free(c->old_path);
		return -1;
	}
	l->n++;
	return 0;
}

void kbx_changes_release(struct kbx_changes *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->items[i].name);
		free(l->items[i].qual);
		free(l->items[i].path);
		free(l->items[i].old_path);
	}
	free(l->items);
	memset(l, 0, sizeof(*l));
}

const char *kbx_change_status_str(int status)
{
	switch (status) {
	case KBX_CHANGE_ADDED: return "added";
	case KBX_CHANGE_REMOVED: return "removed";
	case KBX_CHANGE_CHANGED: return "changed";
	case KBX_CHANGE_MOVED: return "moved";
	}
	return "unknown";
}

int kbx_path_indexable(kbx_store_t *s, const char *path)
{
	return s->root && path && _kbx_scan_would_index(s->root, path, 1);
}

/* ---- the working tree against the files table ---- */

static int looks_binary(const char *buf, size_t len)
{
	return memchr(buf, '\0', len < 8000 ? len : 8000) != NULL;
}

/* The content hash of a working-tree file as kbx index computes it;
 * -1 when it cannot be read or is binary (the indexer skips it). */
static int hash_file(const char *root, const char *rel, uint64_t max, unsigned char out[16])
{
	struct strbuf src = STRBUF_INIT;
	int ok = -1;
	if (strbuf_read_regular_at(&src, root, rel, max) >= 0 && !looks_binary(src.buf, src.len)) {
		_kbx_hash128(src.buf, src.len, out);
		ok = 0;
	}
	strbuf_release(&src);
	return ok;
}

struct gone {
	char *path;
	unsigned char hash[16];
};

kbx_status_t kbx_worktree_changes(kbx_store_t *s, uint64_t max_file_size,
				  struct kbx_file_changes *out, struct kbx_error *err)
{
	struct _kbx_scan scan = { 0 };
	uint64_t skipped = 0;
	uint64_t max = max_file_size ? max_file_size : DEFAULT_MAX_FILE_SIZE;
	struct gone *gone = NULL;
	size_t ngone = 0, agone = 0;
	/* hashes of the added files, by index in out */
	unsigned char (*added_hash)[16] = NULL;
	size_t aadded = 0;
	MDB_cursor *c = NULL;
	MDB_val k, d;
	kbx_status_t st = KBX_OK;

	if (!s->root)
		return _kbx_fail(err, KBX_ERR_INTERNAL, "the index has no repository root");
	st = _kbx_scan_tree(s->root, NULL, 0, max, NULL, NULL, &scan, &skipped, err);
	if (st)
		return st;
	int rc = mdb_cursor_open(_kbx_txn(s), s->files, &c);
	if (rc) {
		_kbx_scan_release(&scan);
		return _kbx_fail_mdb(err, rc, "cannot read the files table");
	}
	size_t si = 0;
	int g = mdb_cursor_get(c, &k, &d, MDB_FIRST);
	for (;;) {
		char *ipath = NULL;
		int cmp;
		if (g == 0) {
			ipath = strndup(k.mv_data, k.mv_size);
			if (!ipath)
				goto nomem;
		} else if (g != MDB_NOTFOUND) {
			st = _kbx_fail_mdb(err, g, "cannot read the files table");
			goto out;
		}
		if (!ipath && si >= scan.n)
			break;
		if (!ipath)
			cmp = -1;
		else if (si >= scan.n)
			cmp = 1;
		else
			cmp = strcmp(scan.files[si].path, ipath);
		if (cmp < 0) {
			/* in the tree only */
			const struct _kbx_scan_file *f = &scan.files[si++];
			unsigned char h[16];
			if (hash_file(s->root, f->path, max, h) == 0) {
				if (_kbx_grow((void **)&added_hash, &aadded, out->n,
					      sizeof(*added_hash), 16) ||
				    file_change_add(out, KBX_FILE_ADDED, f->path, NULL)) {
					free(ipath);
					goto nomem;
				}
				memcpy(added_hash[out->n - 1], h, 16);
			}
			free(ipath);
			continue;
		}
		struct _kbx_file_rec fr;
		if (_kbx_file_rec_decode(d.mv_data, d.mv_size, &fr) != KBX_OK) {
			st = _kbx_fail(err, KBX_ERR_CORRUPT,
				       "the index's record of '%s' does not decode: run 'kbx index --rebuild'",
				       ipath);
			free(ipath);
			goto out;
		}
		if (cmp > 0) {
			/* in the index only */
			if (_kbx_grow((void **)&gone, &agone, ngone, sizeof(*gone), 16)) {
				free(ipath);
				goto nomem;
			}
			gone[ngone].path = ipath;
			memcpy(gone[ngone].hash, fr.hash, 16);
			ngone++;
		} else {
			const struct _kbx_scan_file *f = &scan.files[si++];
			/* The scan goes by the path, which calls every .h C and
			 * every component JavaScript; the indexer reads the text
			 * and keeps the language it decided in the record.  Take
			 * the record's when the text may have decided it, as kbx
			 * index does (lib/graph/index.c): the content hash still
			 * says whether the file changed. */
			const struct kbx_lang *then = _kbx_lang_from_id(fr.lang);
			const struct kbx_lang *l = f->lang;
			if (then && _kbx_lang_text_variant(l, then) && _kbx_lang_text_decides(f->path))
				l = then;
			int lang = _kbx_lang_id(l);
			unsigned char h[16];
			if ((fr.size != f->size || fr.mtime_ns != f->mtime_ns || fr.lang != lang) &&
			    (fr.lang != lang || hash_file(s->root, f->path, max, h) < 0 ||
			     memcmp(h, fr.hash, 16)) &&
			    file_change_add(out, KBX_FILE_MODIFIED, f->path, NULL)) {
				free(ipath);
				goto nomem;
			}
			free(ipath);
		}
		g = mdb_cursor_get(c, &k, &d, MDB_NEXT);
	}

	/* an added file with a gone file's content is that file renamed */
	for (size_t i = 0; i < out->n; i++) {
		struct kbx_file_change *fc = &out->items[i];
		if (fc->status != KBX_FILE_ADDED || i >= aadded)
			continue;
		for (size_t j = 0; j < ngone; j++) {
			if (!gone[j].path || memcmp(gone[j].hash, added_hash[i], 16))
				continue;
			fc->status = KBX_FILE_RENAMED;
			fc->old_path = gone[j].path;
			gone[j].path = NULL;
			break;
		}
	}
	for (size_t j = 0; j < ngone; j++)
		if (gone[j].path && file_change_add(out, KBX_FILE_DELETED, gone[j].path, NULL))
			goto nomem;
	goto out;
nomem:
	st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
out:
	if (c)
		mdb_cursor_close(c);
	for (size_t j = 0; j < ngone; j++)
		free(gone[j].path);
	free(gone);
	free(added_hash);
	_kbx_scan_release(&scan);
	return st;
}

/* ---- definitions of one file, from the index or from content ---- */

struct def {
	const char *name, *qual;  /* in the store's map or the extraction's arena */
	int kind;
	uint32_t line, col, end_line;
	uint64_t hash;
	uint32_t id;
	size_t order;
};

struct defs {
	struct def *v;
	size_t n, alloc;
};

static int defs_add(struct defs *l, const struct def *d)
{
	if (_kbx_grow((void **)&l->v, &l->alloc, l->n, sizeof(*l->v), 32))
		return -1;
	l->v[l->n] = *d;
	l->v[l->n].order = l->n;
	l->n++;
	return 0;
}

struct kbx_comparer {
	struct kbx_store *s;
	int index_side;
	TSParser *parser;
	struct kbx_header_langs headers;   /* strings owned */
};

kbx_status_t kbx_comparer_new(kbx_store_t *s, int index_side, kbx_comparer_t **out,
			      struct kbx_error *err)
{
	kbx_status_t loaded = _kbx_grammars_need(err);
	if (loaded)
		return loaded;
	struct kbx_comparer *c = calloc(1, sizeof(*c));
	if (!c || !(c->parser = ts_parser_new())) {
		free(c);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	c->s = s;
	c->index_side = index_side;
	*out = c;
	return KBX_OK;
}

kbx_status_t kbx_comparer_set_headers(kbx_comparer_t *c, const struct kbx_header_langs *h,
				      struct kbx_error *err)
{
	char *lc = h && h->c ? strdup(h->c) : NULL;
	char *lcpp = h && h->cpp ? strdup(h->cpp) : NULL;
	if ((h && h->c && !lc) || (h && h->cpp && !lcpp)) {
		free(lc);
		free(lcpp);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	free((char *)c->headers.c);
	free((char *)c->headers.cpp);
	c->headers.c = lc;
	c->headers.cpp = lcpp;
	return KBX_OK;
}

void kbx_comparer_free(kbx_comparer_t *c)
{
	if (!c)
		return;
	ts_parser_delete(c->parser);
	free((char *)c->headers.c);
	free((char *)c->headers.cpp);
	free(c);
}

/* The index's record of path into *fr; KBX_NOT_FOUND (err untouched)
 * when it has no such file. */
static kbx_status_t file_rec_get(struct kbx_store *s, const char *path, struct _kbx_file_rec *fr,
				 struct kbx_error *err)
{
	MDB_val k = { strlen(path), (void *)path }, d;
	int rc = mdb_get(_kbx_txn(s), s->files, &k, &d);
	if (rc == MDB_NOTFOUND)
		return KBX_NOT_FOUND;
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the files table");
	if (_kbx_file_rec_decode(d.mv_data, d.mv_size, fr) != KBX_OK)
		return _kbx_fail(err, KBX_ERR_CORRUPT,
				 "the index's record of '%s' does not decode: run 'kbx index --rebuild'",
				 path);
	return KBX_OK;
}

/* The definitions the index holds for path (none when it has no such
 * file), one per body entry. */
static kbx_status_t index_defs(struct kbx_store *s, const char *path, struct defs *out,
			       struct kbx_error *err)
{
	MDB_txn *txn = _kbx_txn(s);
	struct _kbx_file_rec fr;
	struct _kbx_refs refs;
	int rc;
	kbx_status_t st = file_rec_get(s, path, &fr, err);
	if (st)
		return st == KBX_NOT_FOUND ? KBX_OK : st;
	st = _kbx_refs_read(s, fr.id, &refs);
	if (st == KBX_NOT_FOUND)
		return KBX_OK;
	if (st)
		return _kbx_fail(err, st, "cannot read what the index holds for '%s': %s", path,
				 kbx_status_str(st));
	for (size_t i = 0; i < refs.nnodes && !st; i++) {
		struct kbx_node n;
		uint32_t id = refs.nodes[i];
		if (_kbx_node_read(s, txn, id, &n) != KBX_OK)
			continue;
		unsigned char kb[4];
		_kbx_put_u32(kb, id);
		MDB_val bk = { 4, kb }, bd;
		struct def def = { n.name, n.qual, n.kind, n.line, n.col, n.end_line, 0, id, 0 };
		rc = mdb_get(txn, s->bodies, &bk, &bd);
		if (rc == MDB_NOTFOUND) {
			if (defs_add(out, &def))
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			continue;
		}
		if (rc || !bd.mv_size || bd.mv_size % KBX_BODY_ENTRY_LEN) {
			st = rc ? _kbx_fail_mdb(err, rc, "cannot read the body hashes")
				: _kbx_fail(err, KBX_ERR_CORRUPT,
					    "the body hashes of '%s' do not decode: run 'kbx index --rebuild'",
					    n.cid);
			break;
		}
		for (size_t e = 0; e < bd.mv_size / KBX_BODY_ENTRY_LEN; e++) {
			struct _kbx_body b;
			_kbx_body_decode((const unsigned char *)bd.mv_data + e * KBX_BODY_ENTRY_LEN,
					 &b);
			def.kind = b.kind;
			def.line = b.line;
			def.col = b.col;
			def.end_line = b.end_line;
			def.hash = b.hash;
			if (defs_add(out, &def)) {
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				break;
			}
		}
	}
	_kbx_refs_release(&refs);
	return st;
}

/* The definitions extracted from content as lang, as kbx index would
 * store them. */
static kbx_status_t content_defs(struct kbx_comparer *c, const char *path,
				 const struct kbx_lang *lang, const char *content, size_t len,
				 struct kbx_extract *x, struct defs *out, struct kbx_error *err)
{
	if (!content || !lang || looks_binary(content, len))
		return KBX_OK;
	if (len > UINT32_MAX)
		return _kbx_fail(err, KBX_ERR_USAGE, "'%s' is too large to parse", path);
	if (_kbx_extract(lang, c->parser, path, content, len, PARSE_TIMEOUT_US, x) < 0)
		return _kbx_fail(err, x->timed_out ? KBX_ERR_PARSE : KBX_ERR_NOMEM,
				 x->timed_out ? "parsing '%s' took longer than %.0f s"
					      : "out of memory while parsing '%s'",
				 path, (double)PARSE_TIMEOUT_US / 1e6);
	size_t plen = strlen(path);
	for (size_t i = 0; i < x->nsyms; i++) {
		const struct kbx_xsym *xs = &x->syms[i];
		/* what the index leaves out (see apply_parsed in index.c) */
		if (xs->qual == _kbx_qual_too_long || plen + 1 + strlen(xs->qual) > 480)
			continue;
		struct def d = { xs->name, xs->qual, xs->kind, xs->line, xs->col, xs->end_line,
				 xs->body_hash, 0, 0 };
		if (defs_add(out, &d))
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	return KBX_OK;
}

/* Do two definitions, one of each side, have one name and kind?  0 when
 * they do; else which sorts first. */
static int def_name_cmp(const struct def *x, const struct def *y)
{
	int c = strcmp(x->qual, y->qual);
	if (c)
		return c;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int def_cmp(const void *a, const void *b)
{
	const struct def *x = a, *y = b;
	int c = def_name_cmp(x, y);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The definitions of both sides, each sorted by def_cmp: the index's of
 * index_path, and those extracted as lang from content, the file at
 * content_path (either path NULL: none). */
static kbx_status_t both_defs(struct kbx_comparer *c, const char *index_path,
			      const char *content_path, const struct kbx_lang *lang,
			      const char *content, size_t len, struct kbx_extract *x,
			      struct defs *idx, struct defs *cnt, struct kbx_error *err)
{
	kbx_status_t st = KBX_OK;
	if (index_path)
		st = index_defs(c->s, index_path, idx, err);
	if (!st && content_path)
		st = content_defs(c, content_path, lang, content, len, x, cnt, err);
	if (st)
		return st;
	/* (no qsort of a null base, even of no items: UBSan) */
	if (idx->n > 1)
		qsort(idx->v, idx->n, sizeof(*idx->v), def_cmp);
	if (cnt->n > 1)
		qsort(cnt->v, cnt->n, sizeof(*cnt->v), def_cmp);
	return KBX_OK;
}

static int change_add(struct kbx_changes *l, int status, int lang, const struct def *old,
		      const char *old_path, const struct def *new, const char *new_path)
{
	if (_kbx_grow((void **)&l->items, &l->alloc, l->n, sizeof(*l->items), 16))
		return -1;
	const struct def *at = new ? new : old;
	struct kbx_change *ch = &l->items[l->n];
	memset(ch, 0, sizeof(*ch));
	ch->status = status;
	ch->kind = at->kind;
	ch->lang = lang;
	ch->name = strdup(at->name);
	ch->qual = strdup(at->qual);
	ch->path = strdup(new ? new_path : old_path);
	ch->line = at->line;
	ch->col = at->col;
	ch->end_line = at->end_line;
	if (old) {
		ch->old_path = strdup(old_path);
		ch->old_line = old->line;
		ch->old_end_line = old->end_line;
	}
	ch->id = (new && new->id) ? new->id : old ? old->id : 0;
	l->n++;
	if (!ch->name || !ch->qual || !ch->path || (old && !ch->old_path))
		return -1;  /* the list frees what was made */
	return 0;
}

/* Order the changes of one file: by line, removed ones last by their
 * old line. */
static int change_cmp(const void *a, const void *b)
{
	const struct kbx_change *x = a, *y = b;
	int xr = x->status == KBX_CHANGE_REMOVED, yr = y->status == KBX_CHANGE_REMOVED;
	if (xr != yr)
		return xr - yr;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->qual, y->qual);
}

kbx_status_t kbx_compare_file(kbx_comparer_t *c, const char *index_path,
			      const char *content_path, const char *content, size_t len,
			      struct kbx_changes *out, struct kbx_error *err)
{
	struct kbx_extract x = KBX_EXTRACT_INIT;
	struct defs idx = { 0 }, cnt = { 0 };
	kbx_status_t st = KBX_OK;
	size_t first = out->n;

	st = both_defs(c, index_path, content_path,
		       content_path ? _kbx_header_lang(&c->headers, content_path, content, len) : NULL,
		       content, len, &x, &idx, &cnt, err);
	if (st)
		goto out;

	int index_old = c->index_side == KBX_INDEX_IS_OLD;
	const struct defs *olds = index_old ? &idx : &cnt, *news = index_old ? &cnt : &idx;
	const char *old_path = index_old ? index_path : content_path;
	const char *new_path = index_old ? content_path : index_path;
	const struct kbx_lang *l = _kbx_lang_for_path(new_path ? new_path : old_path);
	int lang = l ? _kbx_lang_id(l) : 0;
	size_t i = 0, j = 0;
	int bad = 0;
	while (!bad && (i < olds->n || j < news->n)) {
		const struct def *o = i < olds->n ? &olds->v[i] : NULL;
		const struct def *n = j < news->n ? &news->v[j] : NULL;
		int cmp;
		if (!o)
			cmp = 1;
		else if (!n)
			cmp = -1;
		else
			cmp = def_name_cmp(o, n);
		if (cmp < 0) {
			bad = change_add(out, KBX_CHANGE_REMOVED, lang, o, old_path, NULL, NULL);
			i++;
		} else if (cmp > 0) {
			bad = change_add(out, KBX_CHANGE_ADDED, lang, NULL, NULL, n, new_path);
			j++;
		} else {
			/* the k-th of a name on one side is the k-th on the other */
			if (!o->hash || o->hash != n->hash)
				bad = change_add(out, KBX_CHANGE_CHANGED, lang, o, old_path, n,
						 new_path);
			else if (o->line != n->line || strcmp(old_path, new_path))
				bad = change_add(out, KBX_CHANGE_MOVED, lang, o, old_path, n,
						 new_path);
			i++;
			j++;
		}
	}
	if (bad)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	else if (out->n - first > 1)
		qsort(out->items + first, out->n - first, sizeof(*out->items), change_cmp);
out:
	free(idx.v);
	free(cnt.v);
	_kbx_extract_release(&x);
	return st;
}

void kbx_def_places_release(struct kbx_def_places *l)
{
	free(l->items);
	memset(l, 0, sizeof(*l));
}

kbx_status_t kbx_defs_in_place(kbx_comparer_t *c, const char *path, const char *content,
			       size_t len, int *same, struct kbx_def_places *kept,
			       struct kbx_error *err)
{
	struct kbx_store *s = c->s;
	struct _kbx_file_rec fr;
	unsigned char h[16];
	*same = 0;
	kbx_status_t st = file_rec_get(s, path, &fr, err);
	if (st == KBX_NOT_FOUND)
		return _kbx_fail(err, KBX_NOT_FOUND, "the index has no file '%s'", path);
	if (st)
		return st;
	_kbx_hash128(content ? content : "", content ? len : 0, h);
	if (!memcmp(h, fr.hash, sizeof(h))) {
		*same = 1;
		return KBX_OK;
	}

	/* edited: where each definition is now, read as the index read the
	 * file (a header's language is the one it was given then) */
	struct kbx_extract x = KBX_EXTRACT_INIT;
	struct defs idx = { 0 }, cnt = { 0 };
	st = both_defs(c, path, path, _kbx_lang_from_id(fr.lang), content, len, &x, &idx, &cnt, err);
	if (st)
		goto out;
	for (size_t i = 0, j = 0; i < idx.n && j < cnt.n;) {
		const struct def *o = &idx.v[i], *n = &cnt.v[j];
		int cmp = def_name_cmp(o, n);
		if (cmp < 0) {
			i++;
		} else if (cmp > 0) {
			j++;
		} else {
			/* the k-th of a name on one side is the k-th on the other */
			if (o->line == n->line && o->end_line == n->end_line) {
				if (_kbx_grow((void **)&kept->items, &kept->alloc, kept->n,
					      sizeof(*kept->items), 16)) {
					st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
					break;
				}
				kept->items[kept->n++] =
					(struct kbx_def_place){ o->id, o->line, o->end_line };
			}
			i++;
			j++;
		}
	}
out:
	free(idx.v);
	free(cnt.v);
	_kbx_extract_release(&x);
	return st;
}
