/*
 * Changing the graph inside the write transaction: nodes with their
 * canonical ids and names, and edges written both ways so that each
 * direction of each kind is one key range.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

uint32_t _kbx_id_of(struct kbx_store *s, const char *cid)
{
	MDB_val k = { strlen(cid), (void *)cid }, d;
	if (!k.mv_size || mdb_get(_kbx_txn(s), s->ids, &k, &d) || d.mv_size != 4)
		return 0;
	return _kbx_get_u32(d.mv_data);
}

/* The node record d of id, as LMDB's rc found it, decoded. */
static kbx_status_t node_found(int rc, const MDB_val *d, uint32_t id, struct kbx_node *out)
{
	if (rc == MDB_NOTFOUND)
		return KBX_NOT_FOUND;
	if (rc)
		return KBX_ERR_STORE;
	return _kbx_node_decode(d->mv_data, d->mv_size, id, out);
}

kbx_status_t _kbx_node_read(struct kbx_store *s, MDB_txn *txn, uint32_t id, struct kbx_node *out)
{
	unsigned char kb[4];
	_kbx_put_u32(kb, id);
	MDB_val k = { 4, kb }, d;
	return node_found(mdb_get(txn, s->nodes, &k, &d), &d, id, out);
}

kbx_status_t _kbx_node_read_cursor(MDB_cursor *c, uint32_t id, struct kbx_node *out)
{
	unsigned char kb[4];
	_kbx_put_u32(kb, id);
	MDB_val k = { 4, kb }, d;
	return node_found(mdb_cursor_get(c, &k, &d, MDB_SET), &d, id, out);
}

int _kbx_id_alloc(struct kbx_store *s, uint32_t *out)
{
	uint64_t next = 1;
	kbx_status_t st = _kbx_meta_get_u64(s, s->wtxn, "next_id", &next);
	if (st && st != KBX_NOT_FOUND)
		return MDB_CORRUPTED;
	if (next == 0 || next >= 0xffffffffu)
		return MDB_MAP_FULL;
	*out = (uint32_t)next;
	return _kbx_meta_put_u64(s, s->wtxn, "next_id", next + 1);
}

int _kbx_node_put(struct kbx_store *s, const struct kbx_node *n)
{
	struct strbuf rec = STRBUF_INIT;
	unsigned char kb[4];
	int rc;
	_kbx_put_u32(kb, n->id);
	_kbx_node_encode(&rec, n);
	if (rec.failed) {
		strbuf_release(&rec);
		return ENOMEM;
	}
	MDB_val k = { 4, kb }, d = { rec.len, rec.buf };
	rc = mdb_put(s->wtxn, s->nodes, &k, &d, 0);
	strbuf_release(&rec);
	if (rc)
		return rc;
	MDB_val ck = { strlen(n->cid), (void *)n->cid }, cv = { 4, kb };
	rc = mdb_put(s->wtxn, s->ids, &ck, &cv, 0);
	if (rc || n->kind == KBX_KIND_NAMEREF || !n->name || !*n->name)
		return rc;
	MDB_val nk = { strlen(n->name), (void *)n->name }, nv = { 4, kb };
	if (nk.mv_size > 500)
		return 0;  /* past LMDB's key limit: findable by id only */
	rc = mdb_put(s->wtxn, s->names, &nk, &nv, MDB_NODUPDATA);
	return rc == MDB_KEYEXIST ? 0 : rc;
}

int _kbx_node_ensure(struct kbx_store *s, const char *cid, const char *name, int kind,
		     int lang, uint32_t *out)
{
	uint32_t id = _kbx_id_of(s, cid);
	if (id) {
		*out = id;
		return 0;
	}
	if (strlen(cid) > 480)
		return MDB_BAD_VALSIZE;
	int rc = _kbx_id_alloc(s, &id);
	if (rc)
		return rc;
	struct kbx_node n = { 0 };
	n.id = id;
	n.kind = kind;
	n.lang = lang;
	n.cid = cid;
	n.name = name;
	rc = _kbx_node_put(s, &n);
	if (!rc)
		*out = id;
	return rc;
}

/* Delete the reverse (or forward) twin of an edge. */
static int delete_twin(struct kbx_store *s, MDB_dbi dbi, uint32_t a, int kind, uint32_t b)
{
	unsigned char key[KBX_EDGE_KEY_LEN];
	_kbx_edge_key(key, a, kind, b);
	MDB_val k = { sizeof(key), key };
	int rc = mdb_del(s->wtxn, dbi, &k, NULL);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

static int is_floating(int kind)
{
	return kind == KBX_KIND_EXTERNAL || kind == KBX_KIND_MODULE || kind == KBX_KIND_NAMEREF;
}

/* Delete the edges in dbi whose keys start with id (and kind, unless 0);
 * their twins in the other table go too. */
static int delete_range(struct kbx_store *s, MDB_dbi dbi, MDB_dbi twin, uint32_t id, int kind,
			struct _kbx_idset *orphans)
{
	MDB_cursor *c;
	unsigned char start[KBX_EDGE_KEY_LEN];
	_kbx_edge_key(start, id, kind, 0);
	int rc = mdb_cursor_open(s->wtxn, dbi, &c);
	if (rc)
		return rc;
	MDB_val k = { kind ? 5 : 4, start }, d;
	rc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
	while (!rc) {
		const unsigned char *kp = k.mv_data;
		if (k.mv_size != KBX_EDGE_KEY_LEN || _kbx_get_u32(kp) != id ||
		    (kind && kp[4] != kind))
			break;
		uint32_t other = _kbx_get_u32(kp + 5);
		int ek = kp[4];
		rc = delete_twin(s, twin, other, ek, id);
		if (rc)
			break;
		if (orphans) {
			struct kbx_node n;
			if (_kbx_node_read(s, s->wtxn, other, &n) == KBX_OK && is_floating(n.kind))
				_kbx_idset_add(orphans, other);
		}
		rc = mdb_cursor_del(c, 0);
		if (rc)
			break;
		/* seek again rather than trust the cursor after a delete */
		k.mv_size = kind ? 5 : 4;
		k.mv_data = start;
		rc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
	}
	mdb_cursor_close(c);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

int _kbx_edges_delete_from(struct kbx_store *s, uint32_t id, int kind, struct _kbx_idset *orphans)
{
	return delete_range(s, s->edges, s->redges, id, kind, orphans);
}

int _kbx_del_u32(struct kbx_store *s, MDB_dbi dbi, uint32_t id)
{
	unsigned char kb[4];
	_kbx_put_u32(kb, id);
	MDB_val k = { 4, kb };
	int rc = mdb_del(s->wtxn, dbi, &k, NULL);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

int _kbx_node_delete(struct kbx_store *s, uint32_t id)
{
	struct kbx_node n;
	int rc;
	kbx_status_t st = _kbx_node_read(s, s->wtxn, id, &n);
	if (st == KBX_NOT_FOUND)
		return 0;
	if (st)
		return MDB_CORRUPTED;
	/* Copy what we need before the record goes away. */
	char *cid = strdup(n.cid);
	char *name = strdup(n.name);
	if (!cid || !name) {
		free(cid);
		free(name);
		return ENOMEM;
	}
	rc = delete_range(s, s->edges, s->redges, id, 0, NULL);
	if (!rc)
		rc = delete_range(s, s->redges, s->edges, id, 0, NULL);
	/* the node's record and its body hashes (a definition's) */
	if (!rc)
		rc = _kbx_del_u32(s, s->nodes, id);
	if (!rc)
		rc = _kbx_del_u32(s, s->bodies, id);
	if (!rc) {
		MDB_val k = { strlen(cid), cid };
		rc = mdb_del(s->wtxn, s->ids, &k, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	}
	if (!rc && *name && strlen(name) <= 500) {
		unsigned char kb[4];
		_kbx_put_u32(kb, id);
		MDB_val k = { strlen(name), name }, v = { 4, kb };
		rc = mdb_del(s->wtxn, s->names, &k, &v);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	}
	free(cid);
	free(name);
	return rc;
}

int _kbx_edge_put(struct kbx_store *s, uint32_t src, int kind, uint32_t dst,
		  const struct _kbx_edge_val *v)
{
	unsigned char key[KBX_EDGE_KEY_LEN];
	struct strbuf val = STRBUF_INIT;
	_kbx_edge_val_encode(&val, v);
	if (val.failed) {
		strbuf_release(&val);
		return ENOMEM;
	}
	_kbx_edge_key(key, src, kind, dst);
	MDB_val k = { sizeof(key), key }, d = { val.len, val.buf };
	int rc = mdb_put(s->wtxn, s->edges, &k, &d, 0);
	if (!rc) {
		_kbx_edge_key(key, dst, kind, src);
		rc = mdb_put(s->wtxn, s->redges, &k, &d, 0);
	}
	strbuf_release(&val);
	return rc;
}

int _kbx_drop_orphans(struct kbx_store *s, struct _kbx_idset *set)
{
	for (size_t i = 0; i < set->n; i++) {
		uint32_t id = set->ids[i];
		unsigned char start[4];
		_kbx_put_u32(start, id);
		MDB_cursor *c;
		int rc = mdb_cursor_open(s->wtxn, s->redges, &c);
		if (rc)
			return rc;
		MDB_val k = { 4, start }, d;
		rc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
		int used = !rc && k.mv_size == KBX_EDGE_KEY_LEN &&
			   _kbx_get_u32(k.mv_data) == id;
		mdb_cursor_close(c);
		if (rc && rc != MDB_NOTFOUND)
			return rc;
		if (!used) {
			rc = _kbx_node_delete(s, id);
			if (rc)
				return rc;
		}
	}
	return 0;
}
