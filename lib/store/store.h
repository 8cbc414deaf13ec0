/*
 * lib/store/: the LMDB store under .kbx/ and what it holds, as bytes:
 * opening it and the trust in it (store.c, trust.c), the layout of its
 * keys and records (keys.c), and what a file's extraction said, kept so
 * that its edges can be resolved again without parsing it (refs.c).
 *
 * It sits on lib/util/ and lib/lang/ (refs are extraction results); the
 * graph, the analyses and the retrieval layer are built on it.  This
 * header is private to lib/.
 */
#ifndef KBX_STORE_H
#define KBX_STORE_H

#include <lmdb.h>
#include <stdint.h>
#include <stddef.h>

#include "kbx.h"
#include "util/util.h"
#include "lang/lang.h"

/* Map an LMDB return code to a status with a message naming what was done. */
kbx_status_t _kbx_fail_mdb(struct kbx_error *err, int rc, const char *what);

/*
 * The LMDB environment and its named databases.
 *
 *   meta      "schema", "generation", "root", "created", "updated", "next_id",
 *             KBX_META_REBUILD_CODE_CHUNKS, KBX_META_CODE_CHUNKS_FORMAT,
 *             KBX_META_HEADER_LANGS (below)
 *   files     path -> struct file_rec
 *   nodes     id (u32 BE) -> node record (see keys.c)
 *   ids       canonical id -> id (u32 BE)
 *   names     simple name -> id (dupsort, u32 BE values)
 *   edges     src(u32) kind(u8) dst(u32) -> edge value     (source -> target)
 *   redges    dst(u32) kind(u8) src(u32) -> edge value     (target -> source)
 *   refs      file id -> what the file's extraction said, kept so that the
 *             file's edges can be resolved again without parsing it
 *   refnames  name -> file id (dupsort): files whose calls, bases or imports
 *             mention the name, to find whom a changed definition affects
 *   bodies    definition id (u32 BE) -> one body entry (see below) for each
 *             definition of that canonical id in its file, in source
 *             order (redefinitions and overloads share a node): written
 *             and deleted with the node, for kbx changed
 *
 * The retrieval layer's tables (lib/search/, see lib/search/search.h):
 *
 *   chunks    chunk id (u32 BE) -> chunk record
 *   ckeys     chunk key ("error:ID", "doc:ID#3", "code:PATH#Qual") -> chunk id
 *   sources   source key ("c:PATH", "m:PATH", "r:ABSPATH") -> source record:
 *             what a file last gave, to update or remove its chunks
 *   docids    document or entry id -> the source and line that define it
 *   postings  term -> (chunk id u32 BE, tf u16, length u16) (dupsort, fixed
 *             size): one term's postings are one sorted range
 *   patterns  chunk id -> an error entry's compiled pattern (serialised PCRE2)
 *   vcache    identity hash (8) + content hash (16) -> vector (float32)
 *   registries  absolute path -> registry record (kept by --rebuild)
 *   vdelta    chunk id -> its vcache key: chunks added since the vector
 *             file was built, which searches scan beside it
 */
struct kbx_store {
	MDB_env *env;
	MDB_dbi meta, files, nodes, ids, names, edges, redges, refs, refnames, bodies;
	MDB_dbi chunks, ckeys, sources, docids, postings, patterns, vcache, registries, vdelta;
	MDB_txn *rtxn;          /* the long read transaction of a read-only open */
	MDB_txn *wtxn;          /* the write transaction of an index run */
	int writable;
	int lock_fd;            /* the writer's lock on .kbx/lock, or -1 */
	char *dir;              /* .kbx */
	uint64_t env_gen;       /* the environment is dir/db.N with N this, or dir itself (0) */
	char *env_dir;          /* that directory */
	int open_flags;         /* kbx_store_open's, for a reopen */
	char *root;
	size_t map_size;
	int map_lost;           /* a failed resize left LMDB with no map: no more transactions */
};

/*
 * Compaction and the environment's place (compact.c).
 *
 * _kbx_store_pointer_read: the N of the db.N that kbx_dir/current names
 * into *gen, 0 when there is no such file (the environment is kbx_dir).
 * _kbx_store_env_path: that directory, malloc()ed (the caller frees it).
 * _kbx_store_pointer_moved: does current name another one than s opened?
 * _kbx_store_sweep: remove the environments a killed compaction left
 * (the writer's lock held): every db.N but db.keep, and with keep,
 * kbx_dir's own data files.
 * _kbx_store_mark: mark the data file in dir as this user's, and sync it.
 * _kbx_store_reopen: close s's environment and open the one current names.
 */
#define KBX_COMPACT_FREE_SHARE 4   /* compact when free pages are 1/4 of the file */
#define KBX_COMPACT_FREE_MIN (8u << 20)   /* and 8 MiB or more */
kbx_status_t _kbx_store_pointer_read(const char *kbx_dir, int trusted, uint64_t *gen,
				     struct kbx_error *err);
char *_kbx_store_env_path(const char *kbx_dir, uint64_t gen);
int _kbx_store_pointer_moved(const struct kbx_store *s);
void _kbx_store_sweep(const char *kbx_dir, uint64_t keep);
kbx_status_t _kbx_store_mark(const char *dir, struct kbx_error *err);
kbx_status_t _kbx_store_reopen(struct kbx_store *s, struct kbx_error *err);

/* In meta while the code chunks wait to be made again from nothing: set
 * by the graph's transaction of a --rebuild, removed by the search
 * index's transaction that replaces them, so that a run cut short
 * between the two commits (killed, or out of disk) leaves the rest of
 * the rebuild to the next run. */
#define KBX_META_REBUILD_CODE_CHUNKS "rebuild_code_chunks"

/* In meta: the rules the graph was extracted and resolved by.  Raise
 * KBX_GRAPH_RULES with any change to lib/lang/ or the resolver that makes
 * an unchanged file give other facts; an index made by other rules is
 * made again, as by --rebuild, by its next run, so that an upgrade of
 * kbx leaves no fact of the old rules behind.  Absent: rules before the
 * stamp (1). */
#define KBX_META_GRAPH_RULES "graph_rules"
#define KBX_GRAPH_RULES 11  /* 2: Bash's directory variables, calls of other scripts' functions ambiguous;
                               * 3: Scala's infix calls, names an outside wildcard import may bring;
                               * 4: fields another file declares, Objective-C's late binding;
                               * 5: Kotlin's package headers, supertype calls, receiver lambdas;
                               * 6: a base class's implementation over a nearer interface's;
                               * 7: Kotlin's extensions of function types and of bases;
                               * 8: Zig's names passed on, files and generics as structs;
                               *    an untyped receiver's candidates include its file's own;
                               *    Kotlin's smart casts of this;
                               * 9: arities (refs 4): a member a call's arguments cannot fit;
                               * 10: result types (refs 5): Go's x.A().B() and x := pkg.F();
                               * 11: Zig's test blocks bind their locals; its fields' types,
                               *     chains of calls, assignments keeping types;
                               *     TypeScript's result types and callbacks' parameter types */

/* In meta: how the code chunks were made (their terms counted, their
 * vectors embedded): KBX_CODE_CHUNKS_FORMAT, absent for the first way.
 * The code chunks of another format are made again by the next run. */
#define KBX_META_CODE_CHUNKS_FORMAT "code_chunks_format"
#define KBX_CODE_CHUNKS_FORMAT 3   /* 2: documentation counted twice, vectors leaning on it;
                                    * 3: the name counted KBX_NAME_COUNT times more,
                                    *    vectors leaning on it too */

/* In meta: how many chunks a run committed without their vectors (the
 * embedding provider failed); absent when every chunk has one.  Searches
 * say so; the next run makes them, and writes the vector file again. */
#define KBX_META_VECTORS_MISSING "vectors_missing"

/* In meta: a hash of the settings that chose the language of .h headers
 * (struct kbx_header_langs) in the last index run over the whole tree;
 * absent while none is set.  A run with other settings reads every
 * header again. */
#define KBX_META_HEADER_LANGS "header_langs"

/* The transaction queries run in: the write one during an index run. */
static inline MDB_txn *_kbx_txn(const struct kbx_store *s)
{
	return s->wtxn ? s->wtxn : s->rtxn;
}

/* ---- keys and records (keys.c) ---- */

static inline void _kbx_put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static inline uint32_t _kbx_get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

#define KBX_EDGE_KEY_LEN 9
/* src, kind, dst -> 9 bytes, big-endian so that one node's edges of one
 * kind are one contiguous key range. */
void _kbx_edge_key(unsigned char key[KBX_EDGE_KEY_LEN], uint32_t a, int kind, uint32_t b);
/* LMDB comparisons of the keys of nodes and chunks (a 4-byte id) and of
 * edges, in the order of LMDB's default (bytes, then length) for every
 * key, without a call of memcmp (lib/store/store.c). */
int _kbx_cmp_id_key(const MDB_val *a, const MDB_val *b);
int _kbx_cmp_edge_key(const MDB_val *a, const MDB_val *b);

/* Node record: fixed header then the canonical id, NUL-terminated. */
struct _kbx_node_hdr {
	uint8_t kind, lang, flags, reserved;
	uint32_t file, parent, line, col, end_line;
};
#define KBX_NODE_HDR_LEN 24
void _kbx_node_encode(struct strbuf *out, const struct kbx_node *n);
kbx_status_t _kbx_node_decode(const void *data, size_t len, uint32_t id, struct kbx_node *out);

/* Edge value: confidence, via, candidate count, then the sites. */
#define KBX_EDGE_MAX_SITES 32
struct _kbx_edge_val {
	uint8_t confidence, via;
	uint32_t ncandidates;
	uint32_t nsites;
	struct kbx_site sites[KBX_EDGE_MAX_SITES];
};
void _kbx_edge_val_encode(struct strbuf *out, const struct _kbx_edge_val *v);
kbx_status_t _kbx_edge_val_decode(const void *data, size_t len, struct _kbx_edge_val *v);

/* File record. */
struct _kbx_file_rec {
	uint32_t id;
	uint8_t lang;
	uint64_t size;
	int64_t mtime_ns;
	unsigned char hash[16];
};
#define KBX_FILE_REC_LEN 40
void _kbx_file_rec_encode(unsigned char out[KBX_FILE_REC_LEN], const struct _kbx_file_rec *r);
kbx_status_t _kbx_file_rec_decode(const void *data, size_t len, struct _kbx_file_rec *r);

/* Body entry: the hash of a definition's syntax (struct kbx_xsym's
 * body_hash: white space and comments do not count) and where it is.
 * Big-endian: hash (8), line, col, end_line (4 each), kind (1), 3 bytes
 * reserved (0). */
#define KBX_BODY_ENTRY_LEN 24
struct _kbx_body {
	uint64_t hash;
	uint32_t line, col, end_line;
	uint8_t kind;
};

static inline void _kbx_body_encode(unsigned char out[KBX_BODY_ENTRY_LEN],
				    const struct _kbx_body *b)
{
	_kbx_put_u32(out, (uint32_t)(b->hash >> 32));
	_kbx_put_u32(out + 4, (uint32_t)b->hash);
	_kbx_put_u32(out + 8, b->line);
	_kbx_put_u32(out + 12, b->col);
	_kbx_put_u32(out + 16, b->end_line);
	out[20] = b->kind;
	out[21] = out[22] = out[23] = 0;
}

static inline void _kbx_body_decode(const unsigned char *in, struct _kbx_body *b)
{
	b->hash = (uint64_t)_kbx_get_u32(in) << 32 | _kbx_get_u32(in + 4);
	b->line = _kbx_get_u32(in + 8);
	b->col = _kbx_get_u32(in + 12);
	b->end_line = _kbx_get_u32(in + 16);
	b->kind = in[20];
}

/* ---- store helpers (store.c) ---- */
kbx_status_t _kbx_meta_get_u64(struct kbx_store *s, MDB_txn *txn, const char *key,
			       uint64_t *out);
/* A string of the meta table into out (cut to outsz - 1 bytes); "" and
 * KBX_NOT_FOUND when there is none. */
kbx_status_t _kbx_meta_get_str(struct kbx_store *s, MDB_txn *txn, const char *key, char *out,
			       size_t outsz);
int _kbx_meta_put_u64(struct kbx_store *s, MDB_txn *txn, const char *key, uint64_t v);
int _kbx_meta_put_str(struct kbx_store *s, MDB_txn *txn, const char *key, const char *v);
/* Delete key from meta; 0 also when it is not there. */
int _kbx_meta_del(struct kbx_store *s, MDB_txn *txn, const char *key);
/* Begin the write transaction, growing the map if the last run filled it. */
kbx_status_t _kbx_store_write_begin(struct kbx_store *s, struct kbx_error *err);
kbx_status_t _kbx_store_write_commit(struct kbx_store *s, struct kbx_error *err);
void _kbx_store_write_abort(struct kbx_store *s);
/* Double the map size (after MDB_MAP_FULL), outside any write transaction. */
kbx_status_t _kbx_store_grow(struct kbx_store *s, struct kbx_error *err);
/* LMDB reports a short write as EIO: say ENOSPC or EFBIG instead when
 * the disk is (nearly) full or the data file is at the file size limit,
 * so that the user hears "disk full" (exit 7), not "I/O error".  Any
 * other rc is returned as it is. */
int _kbx_store_write_error(const struct kbx_store *s, int rc);
/* Grow the map, outside any write transaction, so that extra more bytes
 * fit after what is used: a run that would fill it is done again from
 * the start, so a run that knows it will write much asks first. */
kbx_status_t _kbx_store_reserve(struct kbx_store *s, uint64_t extra);
/* What _kbx_store_clear drops. */
enum {
	KBX_CLEAR_GRAPH = 1,    /* the code graph; the schema is written again */
	KBX_CLEAR_SEARCH = 2,   /* the chunks, their postings and counters; the
				 * search generation moves on */
	KBX_CLEAR_VECTORS = 4,  /* the record of the vector file, so that no
				 * search takes the file for a current one */
};
/* Drop records for --rebuild, inside the write transaction: the graph in
 * the graph's transaction, the search index in the search index's own,
 * each filled again before it commits, so that a reader sees the old
 * records or the new ones.  The registries and the vector cache stay. */
int _kbx_store_clear(struct kbx_store *s, unsigned what);

/* ---- what a file's extraction said, kept in "refs" (refs.c) ---- */
struct _kbx_ref_call {
	uint32_t caller;          /* node id; the file's own id for file level */
	uint32_t line, col;
	uint8_t recv;
	const char *name, *receiver;
	const char *class_qual;   /* qualified name of the caller's class, or NULL */
	const char *recv_type;    /* the receiver's static type as the source states
				   * it (struct kbx_xcall), or NULL */
	int nargs;                /* arguments passed, or -1 (kbx_xcall) */
};
/* The type a definition returns, as its file writes it (kbx_xsym). */
struct _kbx_ref_return {
	uint32_t node;
	const char *type;
};
/* How many arguments a call of a definition may pass (kbx_xsym). */
struct _kbx_ref_arity {
	uint32_t node;
	uint16_t min, max;
};
struct _kbx_ref_import {
	uint8_t flags, level;
	uint32_t line;
	const char *module, *name, *alias;
};
struct _kbx_ref_inherit {
	uint32_t cls;
	uint32_t line;
	const char *base;
};
struct _kbx_ref_field {
	uint32_t cls;             /* the class's node id */
	const char *name, *type;
};
struct _kbx_refs {
	uint32_t file;
	int lang;
	const char *path;
	uint32_t *nodes;          /* the ids of the file's definitions */
	size_t nnodes;
	struct _kbx_ref_call *calls;
	size_t ncalls;
	struct _kbx_ref_import *imports;
	size_t nimports;
	struct _kbx_ref_inherit *inherits;
	size_t ninherits;
	struct _kbx_ref_field *fields;
	size_t nfields;
	struct _kbx_ref_arity *arities;   /* the definitions whose arity is known */
	size_t narities;
	struct _kbx_ref_return *returns;  /* the definitions whose result type is known */
	size_t nreturns;
	char *blob;               /* owns the strings */
};
/* Encode x with sym_ids[i] the node id of x->syms[i]. */
void _kbx_refs_encode(struct strbuf *out, const struct kbx_extract *x, const uint32_t *sym_ids,
		      const uint32_t *uniq_ids, size_t nuniq);
kbx_status_t _kbx_refs_decode(const void *data, size_t len, struct _kbx_refs *out);
void _kbx_refs_release(struct _kbx_refs *r);
/* Read the refs of file id; KBX_NOT_FOUND if none. */
kbx_status_t _kbx_refs_read(struct kbx_store *s, uint32_t file, struct _kbx_refs *out);
/* The names the refs mention (call names, bases' last components, import
 * keys "@mod:<stem>"), for the refnames table; each once. */
void _kbx_refs_names(const struct _kbx_refs *r, const struct kbx_lang *lang,
		     void (*fn)(void *data, const char *name), void *data);
/* The "@mod:" keys a file at path answers to (its stem and its directory). */
void _kbx_path_mod_keys(const char *path, void (*fn)(void *data, const char *key), void *data);

#endif
