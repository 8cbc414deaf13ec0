/*
 * The whole index, table by table, for a program that copies it
 * elsewhere (kbx push): every file with its content hash, every node,
 * every edge.  Each walk is one cursor over one table of the store's
 * snapshot, in key order.
 */
#include <stdio.h>
#include <string.h>

#include "graph/graph.h"

/* Decode one record and hand it to the caller's function: 0 to go on,
 * 1 to stop, -1 when the record does not decode. */
typedef int (*record_fn)(const MDB_val *k, const MDB_val *d, void *fn, void *data);

static kbx_status_t walk_table(struct kbx_store *s, MDB_dbi dbi, const char *table,
			       record_fn each, void *fn, void *data, struct kbx_error *err)
{
	char what[64];
	snprintf(what, sizeof(what), "reading the %s", table);
	MDB_cursor *c;
	int rc = mdb_cursor_open(_kbx_txn(s), dbi, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, what);
	kbx_status_t st = KBX_OK;
	MDB_val k, d;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); rc == 0;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		int r = each(&k, &d, fn, data);
		if (r < 0) {
			err->status = st = KBX_ERR_CORRUPT;
			snprintf(err->msg, sizeof(err->msg),
				 "a record of the %s table does not decode: run 'kbx index --rebuild'",
				 table);
		}
		if (r)
			break;
	}
	if (!st && rc && rc != MDB_NOTFOUND)
		st = _kbx_fail_mdb(err, rc, what);
	mdb_cursor_close(c);
	return st;
}

static int each_file(const MDB_val *k, const MDB_val *d, void *fn, void *data)
{
	struct _kbx_file_rec r;
	char path[4096];
	if (_kbx_file_rec_decode(d->mv_data, d->mv_size, &r) || k->mv_size >= sizeof(path))
		return -1;
	memcpy(path, k->mv_data, k->mv_size);
	path[k->mv_size] = '\0';
	struct kbx_file_info fi = { path, k->mv_size, r.lang, r.id, r.size, { 0 }, r.mtime_ns };
	memcpy(fi.hash, r.hash, sizeof(fi.hash));
	return ((kbx_file_fn)fn)(data, &fi) ? 1 : 0;
}

static int each_node(const MDB_val *k, const MDB_val *d, void *fn, void *data)
{
	struct kbx_node n;
	if (k->mv_size != 4 || _kbx_node_decode(d->mv_data, d->mv_size, _kbx_get_u32(k->mv_data), &n))
		return -1;
	return ((kbx_node_fn)fn)(data, &n) ? 1 : 0;
}

static int each_edge(const MDB_val *k, const MDB_val *d, void *fn, void *data)
{
	struct _kbx_edge_val v;
	const unsigned char *kp = k->mv_data;
	if (k->mv_size != KBX_EDGE_KEY_LEN || _kbx_edge_val_decode(d->mv_data, d->mv_size, &v))
		return -1;
	struct kbx_edge_rec e = {
		_kbx_get_u32(kp), kp[4], _kbx_get_u32(kp + 5), v.confidence, v.via,
		v.ncandidates, v.sites, v.nsites
	};
	return ((kbx_edge_rec_fn)fn)(data, &e) ? 1 : 0;
}

kbx_status_t kbx_files_walk(kbx_store_t *s, kbx_file_fn fn, void *data, struct kbx_error *err)
{
	return walk_table(s, s->files, "files", each_file, (void *)fn, data, err);
}

kbx_status_t kbx_nodes_walk(kbx_store_t *s, kbx_node_fn fn, void *data, struct kbx_error *err)
{
	return walk_table(s, s->nodes, "nodes", each_node, (void *)fn, data, err);
}

kbx_status_t kbx_edges_walk_all(kbx_store_t *s, kbx_edge_rec_fn fn, void *data,
				struct kbx_error *err)
{
	return walk_table(s, s->edges, "edges", each_edge, (void *)fn, data, err);
}
