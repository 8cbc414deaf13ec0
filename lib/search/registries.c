/*
 * The registries a store indexes besides the repository: directories
 * added with 'kbx registry add', kept in the store's registries table
 * (which 'kbx index --rebuild' keeps), and the store's search summary.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "search/search.h"
#include "registry/registry.h"

kbx_status_t kbx_registry_list(kbx_store_t *s,
			       void (*fn)(void *data, const char *path, int64_t added),
			       void *data, struct kbx_error *err)
{
	MDB_txn *txn = _kbx_txn(s);
	MDB_txn *own = NULL;
	if (!txn) {
		int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &own);
		if (rc)
			return _kbx_fail_mdb(err, rc, "cannot begin a read transaction");
		txn = own;
	}
	MDB_cursor *c;
	MDB_val k, d;
	int rc = mdb_cursor_open(txn, s->registries, &c);
	if (rc) {
		if (own)
			mdb_txn_abort(own);
		return _kbx_fail_mdb(err, rc, "cannot read the registries");
	}
	char path[PATH_MAX + 1];
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		if (k.mv_size > PATH_MAX)
			continue;
		memcpy(path, k.mv_data, k.mv_size);
		path[k.mv_size] = '\0';
		int64_t added = 0;
		if (d.mv_size == 8)
			added = (int64_t)((uint64_t)_kbx_get_u32(d.mv_data) << 32 |
					  _kbx_get_u32((const unsigned char *)d.mv_data + 4));
		fn(data, path, added);
	}
	mdb_cursor_close(c);
	if (own)
		mdb_txn_abort(own);
	return KBX_OK;
}

static kbx_status_t absolute(const char *path, char *out, struct kbx_error *err)
{
	if (!realpath(path, out))
		return _kbx_fail(err, errno == ENOENT ? KBX_NOT_FOUND : KBX_ERR_IO,
				 "cannot use '%s' as a registry: %s", path, strerror(errno));
	return KBX_OK;
}

static kbx_status_t write_one(kbx_store_t *s, const char *key, int add, int *existed,
			      struct kbx_error *err)
{
	kbx_status_t st = _kbx_store_write_begin(s, err);
	if (st)
		return st;
	MDB_val k = { strlen(key), (void *)key }, d;
	int rc = mdb_get(s->wtxn, s->registries, &k, &d);
	*existed = rc == 0;
	if (rc && rc != MDB_NOTFOUND) {
		_kbx_store_write_abort(s);
		return _kbx_fail_mdb(err, rc, "cannot read the registries");
	}
	if (add && !*existed) {
		unsigned char v[8];
		uint64_t now = (uint64_t)time(NULL);
		_kbx_put_u32(v, (uint32_t)(now >> 32));
		_kbx_put_u32(v + 4, (uint32_t)now);
		MDB_val dv = { 8, v };
		rc = mdb_put(s->wtxn, s->registries, &k, &dv, 0);
	} else if (!add && *existed) {
		rc = mdb_del(s->wtxn, s->registries, &k, NULL);
	} else {
		_kbx_store_write_abort(s);
		return KBX_OK;
	}
	if (rc) {
		_kbx_store_write_abort(s);
		return _kbx_fail_mdb(err, _kbx_store_write_error(s, rc), "cannot write the registries");
	}
	return _kbx_store_write_commit(s, err);
}

/* What a look into a directory found: whether it holds a file a
 * registry indexes, and YAML files outside an errors/ directory (the
 * mistake of giving errors/ or errors/<language>/ itself). */
struct content {
	int found, stray_yaml;
};

/* Look through root/rel as 'kbx index' walks a registry (names that
 * start with '.' left out, symbolic links not followed), until a file
 * it indexes is found. */
static void look_for_content(const char *root, const char *rel, int depth, struct content *c)
{
	char dir[PATH_MAX];
	if (depth > 64 || (size_t)snprintf(dir, sizeof(dir), "%s%s%s", root, *rel ? "/" : "", rel) >=
			  sizeof(dir))
		return;
	DIR *dh = opendir(dir);
	if (!dh)
		return;
	struct dirent *de;
	while (!c->found && (de = readdir(dh))) {
		char r[PATH_MAX], full[PATH_MAX];
		struct stat sb;
		if (de->d_name[0] == '.' ||
		    (size_t)snprintf(r, sizeof(r), "%s%s%s", rel, *rel ? "/" : "", de->d_name) >=
			    sizeof(r) ||
		    (size_t)snprintf(full, sizeof(full), "%s/%s", root, r) >= sizeof(full) ||
		    lstat(full, &sb) < 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			look_for_content(root, r, depth + 1, c);
			continue;
		}
		const char *lang;
		size_t lang_len;
		int type;
		if (!S_ISREG(sb.st_mode))
			continue;
		if (_kbx_registry_classify(r, &lang, &lang_len, &type) != KBX_REG_NONE) {
			c->found = 1;
		} else {
			size_t l = strlen(r);
			if ((l > 4 && !strcmp(r + l - 4, ".yml")) || (l > 5 && !strcmp(r + l - 5, ".yaml")))
				c->stray_yaml = 1;
		}
	}
	closedir(dh);
}

kbx_status_t kbx_registry_add(kbx_store_t *s, const char *path, int *was_there,
			      struct kbx_error *err)
{
	char abs[PATH_MAX];
	kbx_status_t st = absolute(path, abs, err);
	if (st == KBX_NOT_FOUND)
		return _kbx_fail(err, KBX_ERR_USAGE, "'%s' does not exist: give a registry directory",
				 path);
	if (st)
		return st;
	struct stat sb;
	if (stat(abs, &sb) < 0 || !S_ISDIR(sb.st_mode))
		return _kbx_fail(err, KBX_ERR_USAGE, "'%s' is not a directory: give a registry directory",
				 path);
	struct content c = { 0, 0 };
	look_for_content(abs, "", 0, &c);
	if (!c.found)
		return _kbx_fail(err, KBX_ERR_USAGE,
				 "'%s' holds nothing a registry indexes: a registry is a directory of error entries (errors/<language>/*.yml) and Markdown documents (*.md, as in patterns/ or docs/)%s; see kbx-registries(7)",
				 path, c.stray_yaml ? "; its YAML files are not under an errors/ directory: give the directory that holds errors/" : "");
	int existed = 0;
	st = write_one(s, abs, 1, &existed, err);
	if (was_there)
		*was_there = existed;
	return st;
}

kbx_status_t kbx_registry_remove(kbx_store_t *s, const char *path, struct kbx_error *err)
{
	char abs[PATH_MAX];
	const char *key = path;
	int existed = 0;
	/* as given first (it may be gone from the disk), then resolved */
	kbx_status_t st = write_one(s, key, 0, &existed, err);
	if (!st && !existed && absolute(path, abs, err) == KBX_OK) {
		err->status = KBX_OK;
		err->msg[0] = '\0';
		st = write_one(s, abs, 0, &existed, err);
	}
	if (!st && !existed)
		return _kbx_fail(err, KBX_NOT_FOUND,
				 "'%s' is not a registry of this index (see 'kbx registry list')", path);
	return st;
}

kbx_status_t kbx_search_info(kbx_store_t *s, struct kbx_search_info *info,
			     struct kbx_error *err)
{
	MDB_txn *txn = _kbx_txn(s);
	MDB_txn *own = NULL;
	if (!txn) {
		int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &own);
		if (rc) {
			memset(info, 0, sizeof(*info));
			return _kbx_fail_mdb(err, rc, "cannot begin a read transaction");
		}
		txn = own;
	}
	_kbx_search_info_txn(s, txn, info);
	if (own)
		mdb_txn_abort(own);
	return KBX_OK;
}

void _kbx_search_info_txn(struct kbx_store *s, MDB_txn *txn, struct kbx_search_info *info)
{
	memset(info, 0, sizeof(*info));
	_kbx_meta_get_u64(s, txn, "chunks", &info->chunks);
	_kbx_meta_get_u64(s, txn, "chunk_tokens", &info->chunk_tokens);
	for (int t = 1; t < KBX_CHUNK__COUNT; t++) {
		char key[32];
		snprintf(key, sizeof(key), "chunks.%s", kbx_chunk_type_str(t));
		_kbx_meta_get_u64(s, txn, key, &info->by_type[t]);
	}
	_kbx_meta_get_u64(s, txn, "search_generation", &info->generation);
	MDB_stat ms;
	if (mdb_stat(txn, s->postings, &ms) == 0)
		info->postings = ms.ms_entries;
	if (mdb_stat(txn, s->registries, &ms) == 0)
		info->registries = ms.ms_entries;
	_kbx_meta_get_str(s, txn, "vector_identity", info->identity, sizeof(info->identity));
	/* the vector file: what the last build recorded, and whether it
	 * was for the chunks there are now (no need to load the module) */
	uint64_t built = 0;
	int have_built = _kbx_meta_get_u64(s, txn, "vectors", &built) == KBX_OK;
	_kbx_meta_get_u64(s, txn, "vector_count", &info->vectors);
	_kbx_meta_get_str(s, txn, "vector_kind", info->vector_kind, sizeof(info->vector_kind));
	MDB_stat ds;
	if (mdb_stat(txn, s->vdelta, &ds) == 0)
		info->vector_delta = ds.ms_entries;
	_kbx_meta_get_u64(s, txn, KBX_META_VECTORS_MISSING, &info->vectors_missing);
	char *path = kbx_search_vector_path(s);
	/* the file the last build wrote, not one put there since */
	int recorded = path ? _kbx_vector_file_recorded(s, txn, path) : -1;
	if (recorded >= 0) {
		info->vector_generation = built;
		info->vector_state = have_built && recorded ? 1 : 2;
	} else {
		info->vector_state = 0;
		info->vectors = 0;
	}
	free(path);
}
