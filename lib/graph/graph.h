/*
 * lib/graph/: the code graph built on the store: walking the working
 * tree (scan.c), an index run (index.c) and its watching of the tree
 * (watch.c), changing nodes and edges (graph.c), resolving what a file's
 * calls, imports and bases refer to (resolve.c), and reading the graph
 * from a symbol: lookups and walks (query.c).
 *
 * It sits on lib/store/ (and through it lib/util/ and lib/lang/); the
 * analyses, the search and the hybrid questions are built on it.  This
 * header is private to lib/.
 */
#ifndef KBX_GRAPH_H
#define KBX_GRAPH_H

#include "store/store.h"

/* ---- the working tree (scan.c) ---- */
struct _kbx_scan_file {
	char *path;             /* repository-relative */
	uint64_t size;
	int64_t mtime_ns;
	const struct kbx_lang *lang;
};
struct _kbx_scan {
	struct _kbx_scan_file *files;
	size_t n, alloc;
};
/* List the files under root (or only under paths) that kbx indexes, in
 * byte order of their paths, honouring .gitignore and .kbxignore.
 * Skipped files (too large, not a known language) are told through
 * notify. */
kbx_status_t _kbx_scan_tree(const char *root, const char *const *paths, size_t npaths,
			    uint64_t max_size, void (*notify)(void *, const struct kbx_note *),
			    void *data, struct _kbx_scan *out, uint64_t *skipped,
			    struct kbx_error *err);
void _kbx_scan_release(struct _kbx_scan *scan);
/* The repository's Markdown files (*.md, *.markdown), with the same
 * ignore rules, in byte order of their paths. */
kbx_status_t _kbx_scan_markdown(const char *root, uint64_t max_size,
				void (*notify)(void *, const struct kbx_note *), void *data,
				struct _kbx_scan *out, struct kbx_error *err);
/* Call fn with each directory a scan of root enters, parents before
 * children, honouring the same ignore files: with start NULL or "" from
 * the root (told as ""), else from the repository path start, which is
 * told first, and only when a scan from the root would enter it.  A
 * status other than KBX_OK from fn ends the walk and is returned. */
kbx_status_t _kbx_scan_dirs(const char *root, const char *start,
			    kbx_status_t (*fn)(void *data, const char *rel), void *data,
			    struct kbx_error *err);
/* Would a scan of root list rel if it were a regular file of a size
 * within the limit?  Its name is of a known language, and neither it nor
 * a directory above it is left out (ignored, a link, a nested
 * repository). */
int _kbx_scan_wants(const char *root, const char *rel);
/* The same, and with missing_ok a directory that does not exist (any
 * more) is no obstacle: for paths of another revision. */
int _kbx_scan_would_index(const char *root, const char *rel, int missing_ok);
/* Would the rules of an ignore file whose text is text[0..len) (a
 * .gitignore of the directory base, "" for the root) ignore the
 * repository-relative path rel, a directory when is_dir?  1 yes, 0 no,
 * -1 out of memory.  One file's rules only: for tests and fuzzing. */
int _kbx_ignore_match(const char *text, size_t len, const char *base, const char *rel,
		      int is_dir);

/* Does a glob of list (globs separated by blanks, as a .gitignore
 * writes them; no '!') match the repository path rel or a directory
 * above it? */
int _kbx_globs_match(const char *list, const char *rel);
/* The language of the file at path, whose text is text[0..len): a .h
 * header's as h sets it (h may be NULL), else as _kbx_lang_for_text
 * decides.  kbx index, kbx changed and extract-dump all ask here. */
const struct kbx_lang *_kbx_header_lang(const struct kbx_header_langs *h, const char *path,
					const char *text, size_t len);

/* Append n to l unless a node with its id is there already (query.c). */
kbx_status_t _kbx_nodelist_add(struct kbx_nodelist *l, const struct kbx_node *n);

/* ---- writing the graph (graph.c); all inside the write transaction ---- */

/* The id of a canonical id, or 0. */
uint32_t _kbx_id_of(struct kbx_store *s, const char *cid);
/* Delete the record keyed by id (u32 BE) from dbi, if there is one: 0
 * or an LMDB error. */
int _kbx_del_u32(struct kbx_store *s, MDB_dbi dbi, uint32_t id);
/* Read a node by id (data points into the map). */
kbx_status_t _kbx_node_read(struct kbx_store *s, MDB_txn *txn, uint32_t id, struct kbx_node *out);
/* The same through a cursor on the nodes table: nodes read in the order
 * of their ids mostly sit on the leaf page the cursor is on, which LMDB
 * then searches without descending from the root again. */
kbx_status_t _kbx_node_read_cursor(MDB_cursor *c, uint32_t id, struct kbx_node *out);
/* A new id (meta "next_id"). */
int _kbx_id_alloc(struct kbx_store *s, uint32_t *out);
/* Write a node: its record, its canonical id, and (unless the kind is a
 * NAMEREF) its name in the name index. */
int _kbx_node_put(struct kbx_store *s, const struct kbx_node *n);
/* The node for cid of kind, created when missing (externals, modules, name
 * references, which belong to no file). */
int _kbx_node_ensure(struct kbx_store *s, const char *cid, const char *name, int kind,
		     int lang, uint32_t *out);
/* Remove a node, its body hashes and every edge into or out of it. */
int _kbx_node_delete(struct kbx_store *s, uint32_t id);
/* Remove the edges out of id (kind 0: of every kind), both directions.
 * Targets that are externals/modules/name references are added to
 * *orphans so they can be dropped when nothing points at them any more. */
int _kbx_edges_delete_from(struct kbx_store *s, uint32_t id, int kind,
			   struct _kbx_idset *orphans);
/* Write one edge both ways. */
int _kbx_edge_put(struct kbx_store *s, uint32_t src, int kind, uint32_t dst,
		  const struct _kbx_edge_val *v);
/* Drop the nodes in set that no edge points at any more. */
int _kbx_drop_orphans(struct kbx_store *s, struct _kbx_idset *set);

/* ---- resolution (resolve.c) ---- */
struct _kbx_resolver;
kbx_status_t _kbx_resolver_new(struct kbx_store *s, struct _kbx_resolver **out,
			       struct kbx_error *err);
void _kbx_resolver_free(struct _kbx_resolver *r);
/* Resolve one file's edges again from its refs, in two phases: first the
 * imports and bases of every file to resolve (KBX_RESOLVE_BASES), then
 * their calls (KBX_RESOLVE_CALLS), which look methods up through the
 * bases: so the answer does not hang on the order files come in. */
#define KBX_RESOLVE_BASES 1
#define KBX_RESOLVE_CALLS 2
kbx_status_t _kbx_resolve_file(struct _kbx_resolver *r, uint32_t file, int phase,
			       uint64_t *nedges, struct _kbx_idset *orphans, struct kbx_error *err);

#endif
