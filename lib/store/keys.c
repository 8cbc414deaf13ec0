/*
 * How keys and records are laid out in the store.  Integers are
 * big-endian so that byte order is numeric order and one node's edges of
 * one kind are one contiguous key range.  And the names users see for
 * what the records hold: edge kinds, confidences, rules, node kinds.
 */
#include <string.h>

#include "store/store.h"

void _kbx_edge_key(unsigned char key[KBX_EDGE_KEY_LEN], uint32_t a, int kind, uint32_t b)
{
	_kbx_put_u32(key, a);
	key[4] = (unsigned char)kind;
	_kbx_put_u32(key + 5, b);
}

/*
 * A definition's canonical id is its path, '#' and its qualified name, and
 * a path may hold '#' too ("src/C#/app.cs#App.Main").  Byte 3 of a
 * node's header counts the '#'s of its path, so that decoding splits the
 * id after them; indexes written before it was kept hold 0 there, which
 * reads as before.  More than 255 cannot be told: the path then ends at
 * the 256th.
 */
static unsigned path_hashes(const struct kbx_node *n)
{
	unsigned k = 0;
	if (n->kind == KBX_KIND_FILE || !n->path)
		return 0;
	for (size_t i = 0; i < n->path_len && k < 255; i++)
		k += n->path[i] == '#';
	return k;
}

void _kbx_node_encode(struct strbuf *out, const struct kbx_node *n)
{
	unsigned char h[KBX_NODE_HDR_LEN];
	h[0] = (unsigned char)n->kind;
	h[1] = (unsigned char)n->lang;
	h[2] = (unsigned char)n->flags;
	h[3] = (unsigned char)path_hashes(n);
	_kbx_put_u32(h + 4, n->file);
	_kbx_put_u32(h + 8, n->parent);
	_kbx_put_u32(h + 12, n->line);
	_kbx_put_u32(h + 16, n->col);
	_kbx_put_u32(h + 20, n->end_line);
	strbuf_add(out, h, sizeof(h));
	strbuf_add(out, n->cid, strlen(n->cid) + 1);
}

/* Point name, qual and path into the canonical id, whose path holds
 * hashes '#'s (path_hashes). */
static void split_cid(struct kbx_node *n, unsigned hashes)
{
	const char *cid = n->cid;
	const char *hash = strchr(cid, '#');
	for (; hash && hashes; hashes--)
		hash = strchr(hash + 1, '#');
	n->path = NULL;
	n->path_len = 0;
	if (n->kind == KBX_KIND_FILE) {
		n->path = cid;
		n->path_len = strlen(cid);
		n->qual = cid;
		const char *slash = strrchr(cid, '/');
		n->name = slash ? slash + 1 : cid;
		return;
	}
	if (!hash) {
		/* "extern:printf", "extern:os.path.join", "module:os.path",
		 * "name:close" */
		const char *colon = strchr(cid, ':');
		n->qual = n->name = colon ? colon + 1 : cid;
		if (n->kind == KBX_KIND_EXTERNAL) {
			/* "os.path.join", "std::process::exit" */
			const char *dot = strrchr(n->qual, '.');
			const char *last = strrchr(n->qual, ':');
			if (last && (!dot || last > dot))
				dot = last;
			if (dot && dot[1])
				n->name = dot + 1;
		}
		return;
	}
	n->path = cid;
	n->path_len = (size_t)(hash - cid);
	n->qual = hash + 1;
	const char *dot = strrchr(n->qual, '.');
	n->name = dot ? dot + 1 : n->qual;
}

kbx_status_t _kbx_node_decode(const void *data, size_t len, uint32_t id, struct kbx_node *out)
{
	const unsigned char *p = data;
	if (len < KBX_NODE_HDR_LEN + 1 || p[len - 1] != '\0')
		return KBX_ERR_CORRUPT;
	memset(out, 0, sizeof(*out));
	out->id = id;
	out->kind = p[0];
	out->lang = p[1];
	out->flags = p[2];
	out->file = _kbx_get_u32(p + 4);
	out->parent = _kbx_get_u32(p + 8);
	out->line = _kbx_get_u32(p + 12);
	out->col = _kbx_get_u32(p + 16);
	out->end_line = _kbx_get_u32(p + 20);
	out->cid = (const char *)p + KBX_NODE_HDR_LEN;
	split_cid(out, p[3]);
	return KBX_OK;
}

void _kbx_edge_val_encode(struct strbuf *out, const struct _kbx_edge_val *v)
{
	unsigned char h[10];
	uint32_t ns = v->nsites > KBX_EDGE_MAX_SITES ? KBX_EDGE_MAX_SITES : v->nsites;
	h[0] = v->confidence;
	h[1] = v->via;
	_kbx_put_u32(h + 2, v->ncandidates);
	_kbx_put_u32(h + 6, ns);
	strbuf_add(out, h, sizeof(h));
	for (uint32_t i = 0; i < ns; i++) {
		unsigned char s[9];
		_kbx_put_u32(s, v->sites[i].line);
		_kbx_put_u32(s + 4, v->sites[i].col);
		s[8] = (unsigned char)(v->sites[i].confidence ? v->sites[i].confidence : v->confidence);
		strbuf_add(out, s, sizeof(s));
	}
}

kbx_status_t _kbx_edge_val_decode(const void *data, size_t len, struct _kbx_edge_val *v)
{
	const unsigned char *p = data;
	if (len < 10)
		return KBX_ERR_CORRUPT;
	v->confidence = p[0];
	v->via = p[1];
	v->ncandidates = _kbx_get_u32(p + 2);
	v->nsites = _kbx_get_u32(p + 6);
	if (v->nsites > KBX_EDGE_MAX_SITES || len != 10 + (size_t)v->nsites * 9)
		return KBX_ERR_CORRUPT;
	for (uint32_t i = 0; i < v->nsites; i++) {
		const unsigned char *s = p + 10 + i * 9;
		v->sites[i].line = _kbx_get_u32(s);
		v->sites[i].col = _kbx_get_u32(s + 4);
		v->sites[i].confidence = s[8];
		if (s[8] < KBX_CONF_CERTAIN || s[8] > KBX_CONF_UNRESOLVED)
			return KBX_ERR_CORRUPT;
	}
	return KBX_OK;
}

static void put_u64(unsigned char *p, uint64_t v)
{
	_kbx_put_u32(p, (uint32_t)(v >> 32));
	_kbx_put_u32(p + 4, (uint32_t)v);
}

static uint64_t get_u64(const unsigned char *p)
{
	return (uint64_t)_kbx_get_u32(p) << 32 | _kbx_get_u32(p + 4);
}

void _kbx_file_rec_encode(unsigned char out[KBX_FILE_REC_LEN], const struct _kbx_file_rec *r)
{
	_kbx_put_u32(out, r->id);
	out[4] = r->lang;
	out[5] = out[6] = out[7] = 0;
	put_u64(out + 8, r->size);
	put_u64(out + 16, (uint64_t)r->mtime_ns);
	memcpy(out + 24, r->hash, 16);
}

kbx_status_t _kbx_file_rec_decode(const void *data, size_t len, struct _kbx_file_rec *r)
{
	const unsigned char *p = data;
	if (len != KBX_FILE_REC_LEN)
		return KBX_ERR_CORRUPT;
	r->id = _kbx_get_u32(p);
	r->lang = p[4];
	r->size = get_u64(p + 8);
	r->mtime_ns = (int64_t)get_u64(p + 16);
	memcpy(r->hash, p + 24, 16);
	return KBX_OK;
}

/* ---- the names of what the records hold (kbx.h) ---- */

const char *kbx_edge_kind_str(int kind)
{
	switch (kind) {
	case KBX_EDGE_DEFINES: return "defines";
	case KBX_EDGE_CALLS: return "calls";
	case KBX_EDGE_IMPORTS: return "imports";
	case KBX_EDGE_INHERITS: return "inherits";
	}
	return "unknown";
}

const char *kbx_confidence_str(int conf)
{
	switch (conf) {
	case KBX_CONF_CERTAIN: return "certain";
	case KBX_CONF_AMBIGUOUS: return "ambiguous";
	case KBX_CONF_UNRESOLVED: return "unresolved";
	}
	return "unknown";
}

const char *kbx_via_str(int via)
{
	switch (via) {
	case KBX_VIA_SYNTAX: return "syntax";
	case KBX_VIA_CLASS: return "same-class";
	case KBX_VIA_FILE: return "same-file";
	case KBX_VIA_IMPORT: return "import";
	case KBX_VIA_UNIQUE: return "unique-name";
	case KBX_VIA_NAME: return "name";
	case KBX_VIA_PATH: return "path";
	case KBX_VIA_SCOPE: return "scope";
	case KBX_VIA_QUALIFIED: return "qualified";
	case KBX_VIA_TYPE: return "type";
	case KBX_VIA_PACKAGE: return "package";
	}
	return "none";
}

const char *kbx_kind_str(int kind)
{
	const char *s = _kbx_kind_name(kind);
	return s ? s : "unknown";
}

const char *kbx_lang_str(int lang)
{
	const struct kbx_lang *l = _kbx_lang_from_id(lang);
	return l ? l->name : NULL;
}
