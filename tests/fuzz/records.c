/*
 * Fuzz the decoders of the store's records (lib/store/keys.c, lib/store/refs.c): a
 * store written by a crashed or buggy kbx, or damaged on disk, must give
 * KBX_ERR_CORRUPT, never a read out of bounds.
 *
 * The whole input is given to each decoder.  What decodes must also
 * encode back to the same bytes (the parts the format defines), and the
 * strings of decoded refs must lie in their blob.
 */
#include <string.h>

#include "fuzz.h"
#include "graph/graph.h"

static void check_node(const uint8_t *data, size_t size)
{
	struct kbx_node n;
	if (_kbx_node_decode(data, size, 7, &n) != KBX_OK)
		return;
	const char *lo = (const char *)data, *hi = lo + size;
	size_t cl = strlen(n.cid);
	FUZZ_ASSERT(n.cid >= lo && n.cid + cl < hi);
	FUZZ_ASSERT(n.name >= n.cid && n.name <= n.cid + cl);
	FUZZ_ASSERT(n.qual >= n.cid && n.qual <= n.cid + cl);
	if (n.path)
		FUZZ_ASSERT(n.path == n.cid && n.path_len <= cl);
	FUZZ_ASSERT(n.id == 7);

	/* the header and the id up to its NUL encode back as they were */
	struct strbuf sb = STRBUF_INIT;
	_kbx_node_encode(&sb, &n);
	FUZZ_ASSERT(!sb.failed);
	FUZZ_ASSERT(sb.len == KBX_NODE_HDR_LEN + cl + 1);
	FUZZ_ASSERT(!memcmp(sb.buf, data, 2));
	FUZZ_ASSERT(!memcmp(sb.buf + 4, data + 4, sb.len - 4));
	strbuf_release(&sb);
}

static void check_edge_val(const uint8_t *data, size_t size)
{
	struct _kbx_edge_val v;
	if (_kbx_edge_val_decode(data, size, &v) != KBX_OK)
		return;
	FUZZ_ASSERT(v.nsites <= KBX_EDGE_MAX_SITES);
	struct strbuf sb = STRBUF_INIT;
	_kbx_edge_val_encode(&sb, &v);
	FUZZ_ASSERT(!sb.failed && sb.len == size && !memcmp(sb.buf, data, size));
	strbuf_release(&sb);
}

static void check_file_rec(const uint8_t *data, size_t size)
{
	struct _kbx_file_rec r;
	if (_kbx_file_rec_decode(data, size, &r) != KBX_OK)
		return;
	unsigned char out[KBX_FILE_REC_LEN];
	_kbx_file_rec_encode(out, &r);
	FUZZ_ASSERT(size == KBX_FILE_REC_LEN);
	FUZZ_ASSERT(!memcmp(out, data, 5) && !memcmp(out + 8, data + 8, KBX_FILE_REC_LEN - 8));
}

static void count_name(void *data, const char *name)
{
	FUZZ_ASSERT(name != NULL);
	*(size_t *)data += strlen(name) + 1;
}

/* A string of decoded refs: NULL, or NUL-terminated inside the blob. */
static void check_str(const struct _kbx_refs *r, size_t size, const char *s)
{
	if (s)
		FUZZ_ASSERT(s >= r->blob && s + strlen(s) <= r->blob + size);
}

static void check_refs(const uint8_t *data, size_t size)
{
	struct _kbx_refs r;
	kbx_status_t st = _kbx_refs_decode(data, size, &r);
	if (st != KBX_OK) {
		FUZZ_ASSERT(st == KBX_ERR_CORRUPT || st == KBX_ERR_NOMEM);
		FUZZ_ASSERT(!r.blob && !r.nodes && !r.calls && !r.imports && !r.inherits &&
			    !r.fields && !r.arities && !r.returns);
		return;
	}
	for (size_t i = 0; i < r.ncalls; i++) {
		FUZZ_ASSERT(r.calls[i].name);
		check_str(&r, size, r.calls[i].name);
		check_str(&r, size, r.calls[i].receiver);
		check_str(&r, size, r.calls[i].class_qual);
	}
	for (size_t i = 0; i < r.nimports; i++) {
		FUZZ_ASSERT(r.imports[i].module);
		check_str(&r, size, r.imports[i].module);
		check_str(&r, size, r.imports[i].name);
		check_str(&r, size, r.imports[i].alias);
	}
	for (size_t i = 0; i < r.ninherits; i++) {
		FUZZ_ASSERT(r.inherits[i].base);
		check_str(&r, size, r.inherits[i].base);
	}
	for (size_t i = 0; i < r.ncalls; i++)
		FUZZ_ASSERT(r.calls[i].nargs >= -1 && r.calls[i].nargs <= KBX_ARITY_ANY);
	for (size_t i = 0; i < r.nreturns; i++) {
		FUZZ_ASSERT(r.returns[i].type);
		check_str(&r, size, r.returns[i].type);
	}
	for (size_t i = 0; i < r.nfields; i++) {
		FUZZ_ASSERT(r.fields[i].name && r.fields[i].type);
		check_str(&r, size, r.fields[i].name);
		check_str(&r, size, r.fields[i].type);
	}

	/* each language's import_candidates on the decoded imports, with the
	 * strings in blocks of their own size, so that ASan sees a read past
	 * their end (in the blob it would not) */
	for (size_t i = 0; i < r.nimports; i++) {
		const struct _kbx_ref_import *m = &r.imports[i];
		struct kbx_ximport xi = { strdup(m->module), m->name ? strdup(m->name) : NULL,
					  m->alias ? strdup(m->alias) : NULL, m->level, m->flags,
					  m->line };
		for (size_t j = 0; xi.module && _kbx_languages[j]; j++) {
			const struct kbx_lang *lang = _kbx_languages[j];
			struct kbx_pathlist pl = { 0 };
			if (!lang->import_candidates)
				continue;
			lang->import_candidates("src/a/b/c.rs", &xi, &pl);
			_kbx_pathlist_release(&pl);
			lang->import_candidates("", &xi, &pl);
			_kbx_pathlist_release(&pl);
		}
		free((char *)xi.module);
		free((char *)xi.name);
		free((char *)xi.alias);
	}

	/* the names the refs index under, for every language */
	for (size_t i = 0; _kbx_languages[i]; i++) {
		const struct kbx_lang *lang = _kbx_languages[i];
		char path[64];
		snprintf(path, sizeof(path), "src/a/b/c%s",
			 lang->extensions && lang->extensions[0] ? lang->extensions[0] : "");
		size_t total = 0;
		r.path = NULL;
		_kbx_refs_names(&r, lang, count_name, &total);
		r.path = path;
		_kbx_refs_names(&r, lang, count_name, &total);
	}
	_kbx_refs_release(&r);
}

static void key_cb(void *data, const char *key)
{
	FUZZ_ASSERT(!strncmp(key, "@mod:", 5) && key[5]);
	(*(size_t *)data)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_node(data, size);
	check_edge_val(data, size);
	check_file_rec(data, size);
	check_refs(data, size);

	/* the "@mod:" keys of the input taken as a path */
	if (size < 4096) {
		char *path = malloc(size + 1);
		if (path) {
			memcpy(path, data, size);
			path[size] = '\0';
			size_t n = 0;
			_kbx_path_mod_keys(path, key_cb, &n);
			free(path);
		}
	}
	return 0;
}
