/*
 * libkbx: the code-graph store behind the kbx command.
 *
 * A quiet library: nothing here prints, exits or reads the terminal.
 * Every call returns a kbx_status_t; on failure the caller's struct
 * kbx_error holds a message naming what failed and what to do.  Things
 * worth telling the user that are not failures (a skipped file, progress)
 * reach the caller through the callback in struct kbx_index_opts.
 *
 * Memory: a function that returns memory says who frees it.  Node views
 * (struct kbx_node) point into the store's memory map or a buffer of the
 * result list and stay valid until the list is released or the store
 * closed.
 */
#ifndef KBX_H
#define KBX_H

#include <stddef.h>
#include <stdint.h>

/* Status codes.  Only ever append: cmd/ maps them to exit codes. */
typedef enum {
	KBX_OK = 0,
	KBX_NOT_FOUND,      /* the query is valid and found nothing */
	KBX_ERR_USAGE,      /* bad argument or option value */
	KBX_ERR_NO_STORE,   /* no .kbx directory here or above */
	KBX_ERR_SCHEMA,     /* the store was written by another version of kbx */
	KBX_ERR_IO,         /* a file could not be read or written */
	KBX_ERR_STORE,      /* LMDB reported an error */
	KBX_ERR_BUSY,       /* another kbx process is writing the store */
	KBX_ERR_NOMEM,
	KBX_ERR_FULL,       /* the disk or the store's map size limit is full */
	KBX_ERR_CORRUPT,    /* a record in the store does not decode */
	KBX_ERR_PARSE,      /* input (a symbol, a file) could not be parsed */
	KBX_ERR_INTERNAL,
	KBX_ERR_UNSAFE,     /* refused: a symbolic link, a file of another user, a
			     * store kbx did not build for this user (kbx-security(7)) */
	KBX_STATUS__COUNT
} kbx_status_t;

/* A short description of a status ("store is busy"). */
const char *kbx_status_str(kbx_status_t status);

/* Read a size as users write it: digits and an optional k, m or g (times
 * 1024, 1024^2, 1024^3), nothing else.  Returns 0, or -1 for anything
 * else (a sign, a fraction, an overflow, trailing text). */
int kbx_parse_size(const char *text, uint64_t *out);

/* The caller owns this; the library fills it on failure. */
struct kbx_error {
	kbx_status_t status;
	char msg[1024];
};
#define KBX_ERROR_INIT { KBX_OK, "" }

/* ---- the store ---- */

typedef struct kbx_store kbx_store_t;

#define KBX_SCHEMA_VERSION 4

/* Edge kinds; stored on disk: only append. */
enum kbx_edge_kind {
	KBX_EDGE_DEFINES = 1,
	KBX_EDGE_CALLS = 2,
	KBX_EDGE_IMPORTS = 3,
	KBX_EDGE_INHERITS = 4,
	KBX_EDGE__COUNT
};

/* How sure an edge is. */
enum kbx_confidence {
	KBX_CONF_CERTAIN = 1,    /* resolved by a rule that leaves one candidate */
	KBX_CONF_AMBIGUOUS = 2,  /* one of several candidates, all recorded */
	KBX_CONF_UNRESOLVED = 3  /* to a name or module defined nowhere in the repository */
};

/* Which rule resolved an edge. */
enum kbx_via {
	KBX_VIA_NONE = 0,
	KBX_VIA_SYNTAX = 1,      /* DEFINES: nesting in the source */
	KBX_VIA_CLASS = 2,       /* self/this: the enclosing class or its bases */
	KBX_VIA_FILE = 3,        /* a definition in the same file */
	KBX_VIA_IMPORT = 4,      /* a name brought in by a resolved import */
	KBX_VIA_UNIQUE = 5,      /* the only definition of the name in the repository */
	KBX_VIA_NAME = 6,        /* several definitions share the name */
	KBX_VIA_PATH = 7,        /* IMPORTS: the import's path names this file */
	KBX_VIA_SCOPE = 8,       /* the definition nearest in the caller's namespaces */
	KBX_VIA_QUALIFIED = 9,   /* the only definition matching a qualified call (ns::f) */
	KBX_VIA_TYPE = 10,       /* the receiver's static type, as the source states it */
	KBX_VIA_PACKAGE = 11     /* an external name of one repository, matched to what
				  * another exports under that name (kbx --db) */
};

const char *kbx_edge_kind_str(int kind);      /* "calls" */
const char *kbx_confidence_str(int conf);     /* "certain", "ambiguous", "unresolved" */
const char *kbx_via_str(int via);             /* "same-file", ... */
const char *kbx_kind_str(int kind);           /* "function", "class", ... */
const char *kbx_lang_str(int lang);           /* "python", ... or NULL */

/*
 * Find the store for a directory: $KBX_DIR if set, else the nearest
 * ancestor of start holding ".kbx", else (with create) the repository root
 * (the nearest ancestor holding ".git", else start itself) + "/.kbx".
 * *kbx_dir and *root are malloc()ed; the caller frees them.
 */
kbx_status_t kbx_store_locate(const char *start, int create, char **kbx_dir, char **root,
			      struct kbx_error *err);

#define KBX_OPEN_READ   0
#define KBX_OPEN_WRITE  1   /* the caller will index */
#define KBX_OPEN_CREATE 2   /* create the store if missing (with WRITE) */
#define KBX_OPEN_ANY_SCHEMA 4 /* accept another schema version (for --rebuild) */
/* The user vouches for this store (safe.directory): open it though
 * another user owns it or kbx did not build it.  Links are refused
 * still. */
#define KBX_OPEN_TRUSTED 8
/* With WRITE: a store kbx did not build for this user is removed, never
 * opened, and a new one made in its place (for --rebuild). */
#define KBX_OPEN_REPLACE_FOREIGN 16

/* Open the store in kbx_dir.  root is the repository root (used when
 * creating; otherwise read from the store).  map_size is the first size
 * of a writer's map in bytes (0: 64 MiB, or twice the data file); the
 * map doubles by itself whenever an index run fills it.  Free with
 * kbx_store_close. */
kbx_status_t kbx_store_open(const char *kbx_dir, const char *root, int flags, size_t map_size,
			    kbx_store_t **out, struct kbx_error *err);
void kbx_store_close(kbx_store_t *store);

/* A reader sees the index as one index run committed it, the last one
 * before kbx_store_open.  kbx_store_outdated: has a run committed since?
 * kbx_store_refresh: see the latest one from now on; everything read
 * through the store before is invalid then.  Neither does anything in a
 * writer. */
int kbx_store_outdated(kbx_store_t *store);
kbx_status_t kbx_store_refresh(kbx_store_t *store, struct kbx_error *err);

/*
 * Write the store again, compacted, into a new file and switch to it
 * (lib/store/compact.c says how readers are kept safe).  A writer's
 * store, between index runs.  With always, when the file is floor bytes
 * or more; else when the free pages are a quarter of the file or more,
 * and 8 MiB or more.  cs->compacted says whether it was done; the
 * store stays open, on the new file.
 */
#define KBX_COMPACT_FLOOR (32u << 20)   /* index.compact=auto, whole-graph runs: 32 MiB */
struct kbx_compact_stats {
	int compacted;
	uint64_t page_size, pages, free_pages;   /* before */
	uint64_t bytes_before, bytes_after;
	double seconds;
};
kbx_status_t kbx_store_compact(kbx_store_t *store, int always, uint64_t floor,
			       struct kbx_compact_stats *cs, struct kbx_error *err);

/* Make the store directory kbx_dir, with the .gitignore that keeps it
 * out of git, unless it exists.  KBX_ERR_UNSAFE when it is a symbolic
 * link or another user's; KBX_ERR_FULL on a full disk, where nothing is
 * left behind. */
kbx_status_t kbx_store_make_dir(const char *kbx_dir, struct kbx_error *err);

/* The repository root the store indexes. */
const char *kbx_store_root(const kbx_store_t *store);

struct kbx_store_info {
	uint32_t schema_version;
	uint64_t generation;      /* +1 on every completed index run */
	int64_t created, updated; /* seconds since the epoch; 0 if never */
	uint64_t files;
	uint64_t symbols;         /* definitions: classes, functions, methods, ... */
	uint64_t externals;       /* called names defined nowhere in the repository */
	uint64_t modules;         /* imported modules that are not files here */
	uint64_t edges;
	uint64_t files_by_lang[32];
	uint64_t edges_by_kind[KBX_EDGE__COUNT];
	uint64_t ambiguous_edges, unresolved_edges;
	uint64_t store_bytes;     /* size of the data file */
	uint64_t map_bytes;       /* current map size */
};
kbx_status_t kbx_store_info(kbx_store_t *store, struct kbx_store_info *info,
			    struct kbx_error *err);

/* ---- indexing ---- */

enum kbx_note_kind {
	KBX_NOTE_SKIPPED = 1,   /* a file was skipped: path and reason */
	KBX_NOTE_WARNING = 2,   /* something worth a warning: path, line, message */
	KBX_NOTE_PROGRESS = 3   /* phase, done, total */
};

struct kbx_note {
	int kind;
	const char *path;       /* may be NULL */
	uint32_t line;          /* 0 if none */
	const char *message;
	const char *phase;      /* for progress: "scan", "parse", "resolve", "write" */
	uint64_t done, total;
	uint32_t col;           /* 1-based column, 0 if none */
	/* For skips and warnings of the retrieval layer: a short word the
	 * summary counts them by ("yaml-syntax", "missing-field",
	 * "duplicate-id", "bad-pattern", ...), or NULL. */
	const char *reason;
	/* KBX_NOTE_SKIPPED: what was skipped, "file" or "entry" (NULL: a file) */
	const char *what;
};

/* Which .h headers are C and which C++ whatever their text says (the
 * settings index.cHeaders and index.cppHeaders): each a list of globs
 * separated by blanks, as a .gitignore writes them, matched against the
 * repository-relative path and the directories above it; NULL or "" for
 * none.  A header both lists match is C++.  Any other header is C++ when
 * its text has C++ syntax, else C (kbx-graph(7), LANGUAGES). */
struct kbx_header_langs {
	const char *c;
	const char *cpp;
};

struct kbx_index_opts {
	int rebuild;                    /* drop everything and index from scratch */
	const char *const *paths;       /* limit the scan to these repository paths */
	size_t npaths;
	uint64_t max_file_size;         /* bytes; 0 means the default (1 MiB) */
	int threads;                    /* parser threads; 0: one per core */
	uint64_t parse_timeout_us;      /* per file; 0: the default (10 s) */
	/* Headers whose language is set.  When it differs from the last
	 * run's over the whole tree, every header is read again and its
	 * language decided anew. */
	struct kbx_header_langs headers;
	void (*notify)(void *data, const struct kbx_note *note);
	void *notify_data;
};

struct kbx_index_stats {
	uint64_t scanned;      /* files considered */
	uint64_t parsed;       /* files (re)parsed */
	uint64_t unchanged;
	uint64_t skipped;      /* binary, too large, unreadable, parse timeout */
	uint64_t removed;      /* files gone since the last run */
	uint64_t reresolved;   /* unchanged files whose edges were resolved again */
	int rules_changed;     /* the index was made by other rules: made again whole */
	uint64_t symbols, edges;
	uint64_t generation;
	double seconds;
	/* where the time went: the scan, waiting for parser threads, writing
	 * definitions, resolving edges, committing */
	double seconds_scan, seconds_wait, seconds_write, seconds_resolve, seconds_commit;
	/* where the CPU time went (user and system, every thread, seconds):
	 * the scan; tree-sitter's parse; extraction (reading and hashing the
	 * files, walking the trees); writing definitions and refs; resolving
	 * edges; committing */
	double cpu_scan, cpu_parse, cpu_extract, cpu_write, cpu_resolve, cpu_commit;
};

/* Bring the store up to date with the working tree, in one write
 * transaction: readers see the previous index until it commits. */
kbx_status_t kbx_index_run(kbx_store_t *store, const struct kbx_index_opts *opts,
			   struct kbx_index_stats *stats, struct kbx_error *err);

/* ---- watching the working tree (Linux inotify) ---- */

/* What one run of kbx_watch did. */
struct kbx_watch_report {
	kbx_status_t status;                 /* of the index run */
	const struct kbx_error *err;         /* its error, when status is not KBX_OK */
	const struct kbx_index_stats *stats; /* when status is KBX_OK */
	const char *const *paths;            /* what changed, repository-relative */
	size_t npaths;                       /* 0 for a run over the whole tree */
	int full;                            /* the whole tree was indexed: an ignore
					      * file changed, or events were lost */
};

struct kbx_watch_opts {
	const struct kbx_index_opts *index;  /* for every run; its paths are not used */
	unsigned debounce_ms;                /* quiet time before a run; 0: 200 ms */
	int stop_fd;                         /* return when it turns readable (a
					      * signalfd, a pipe); -1: never */
	/* Called once the watches are in place, with how many directories
	 * are watched. */
	void (*on_ready)(void *data, size_t ndirs);
	/* Called after each run; return non-zero to stop watching. */
	int (*on_run)(void *data, const struct kbx_watch_report *report);
	void *data;
};

/*
 * Keep the store up to date while files change: watch every directory
 * that kbx_index_run would enter (new ones as they appear, honouring the
 * ignore files), wait until changes have been quiet for debounce_ms, then
 * run an index limited to the changed paths (the whole tree when an
 * ignore file changed).  Returns KBX_OK when stop_fd turns readable or
 * on_run asks to stop; an error when watching itself fails (for
 * instance the system's limit of inotify watches).  A failed index run
 * is reported to on_run, and watching goes on unless it says to stop.
 */
kbx_status_t kbx_watch(kbx_store_t *store, const struct kbx_watch_opts *opts,
		       struct kbx_error *err);

/* ---- queries ---- */

struct kbx_node {
	uint32_t id;
	int kind;               /* enum kbx_kind in lib/lang/lang.h; kbx_kind_str() */
	int lang;               /* kbx_lang_str() */
	const char *cid;        /* canonical id: "src/a.py#Foo.process", "src/a.py",
				 * "extern:printf", "module:os.path" */
	const char *name;       /* simple name: "process" */
	const char *qual;       /* "Foo.process"; the path for a file */
	const char *path;       /* "src/a.py"; NULL for externals and modules */
	size_t path_len;
	uint32_t line, col, end_line;
	uint32_t parent;        /* enclosing definition's id, 0 for none */
	uint32_t file;          /* the file node's id, 0 for none */
	unsigned flags;         /* KBX_NODE_*: */
};
#define KBX_NODE_FILE_LOCAL 0x01  /* reachable by name only from its own file (C static) */
#define KBX_NODE_EXPORTED   0x02  /* visible outside its module by the language's rules
				   * (non-static C, Go capitals, pub, public, export) */
#define KBX_NODE_OVERRIDE   0x04  /* a method that says it overrides (impl Trait for T,
				   * @Override, override) */
#define KBX_NODE_IMPLICIT   0x08  /* called without its name: a property or accessor, a
				   * named function expression used as a value, or
				   * registered by a decorator, annotation or attribute */
#define KBX_NODE_REDEFINED  0x10  /* its file defines its qualified name more than once
				   * (#[cfg] or #ifdef variants): the node stands for all */
#define KBX_NODE_CONDITIONAL 0x20 /* defined only in some builds (under an #if whose
				   * other branches do not define it): a call of its
				   * name is never certain to reach it */

struct kbx_nodelist {
	struct kbx_node *items;
	size_t n, alloc;
	char *strings;          /* owns the strings the items point to */
	size_t slen, salloc;
};
#define KBX_NODELIST_INIT { 0 }
void kbx_nodelist_release(struct kbx_nodelist *l);

/*
 * Resolve what a user typed: a canonical id ("src/a.py#Foo.bar", a file
 * path "src/a.py"), a qualified name ("Foo.bar", "Foo::bar"), or a bare
 * name ("bar").  Every match is appended to out (the caller releases it).
 * KBX_NOT_FOUND when nothing matches; KBX_ERR_PARSE when the symbol does
 * not parse (the message says why).
 */
kbx_status_t kbx_lookup(kbx_store_t *store, const char *symbol, struct kbx_nodelist *out,
			struct kbx_error *err);

/* Call fn with each distinct name in the index that starts with prefix,
 * in byte order, at most max of them (0: no limit), until fn returns
 * non-zero (a caller that filters counts what it keeps).  One range
 * scan of the name index: fast enough for shell completion. */
kbx_status_t kbx_names_with_prefix(kbx_store_t *store, const char *prefix, size_t max,
				   int (*fn)(void *data, const char *name, size_t len),
				   void *data, struct kbx_error *err);

/* Call fn with each canonical id (paths, PATH#Qual.Name, extern:NAME,
 * module:NAME, name:NAME) that starts with prefix, in byte order, at
 * most max (0: no limit), with the node's kind, until fn returns
 * non-zero. */
kbx_status_t kbx_ids_with_prefix(kbx_store_t *store, const char *prefix, size_t max,
				 int (*fn)(void *data, const char *id, size_t len, int kind),
				 void *data, struct kbx_error *err);

/*
 * "Class.method" where Class defines no method of that name but a base
 * does: the method of the nearest base that defines it (several when
 * several classes have the name, or a class has several bases at that
 * distance), appended to out.  KBX_NOT_FOUND when symbol is not of that
 * shape or no base defines it.  kbx_lookup() does not do this: its
 * caller says that the answer is inherited.
 */
kbx_status_t kbx_lookup_inherited(kbx_store_t *store, const char *symbol,
				  struct kbx_nodelist *out, struct kbx_error *err);

/* Up to max definitions nearest to symbol, best first, for "did you
 * mean": by edit distance of the last part of the name, and of a
 * qualified name each part of the qualifier too ("Sesion.send" finds
 * Session.send); the methods a class near the qualifier inherits count
 * as its own.  KBX_NOT_FOUND when none is near. */
kbx_status_t kbx_suggest(kbx_store_t *store, const char *symbol, size_t max,
			 struct kbx_nodelist *out, struct kbx_error *err);

struct kbx_site {
	uint32_t line, col;
	/* enum kbx_confidence: this call's own.  An edge stands for every
	 * call of its source to its target, and is as sure as its surest
	 * one: a function may call x.f() on a receiver of known type and
	 * y.f() on one of unknown type, certain and ambiguous.  Sites are
	 * listed surest first.  0 when written: the edge's. */
	int confidence;
};

/* One edge seen from the node it was asked about. */
struct kbx_edge {
	int kind;               /* enum kbx_edge_kind */
	int confidence;         /* enum kbx_confidence */
	int via;                /* enum kbx_via */
	uint32_t ncandidates;   /* for ambiguous edges: how many candidates share them */
	struct kbx_node from, to;
	uint32_t depth;         /* 1 for direct neighbours */
	const struct kbx_site *sites; /* call or import sites in from's file */
	uint32_t nsites;
};

#define KBX_DIR_OUT 0   /* callees, imports, superclasses, children */
#define KBX_DIR_IN  1   /* callers, importers, subclasses, parent */

/* Called for each edge; return non-zero to stop the walk. */
typedef int (*kbx_edge_fn)(void *data, const struct kbx_edge *edge);

/*
 * Walk edges of one kind from node id, breadth first, to max_depth hops
 * (1: direct neighbours; 0: unlimited), each node once.  Incoming CALLS
 * also include the call sites that could not be told apart from other
 * candidates of the same name (confidence ambiguous).  Each depth is
 * delivered in order of the node reached (path, line, column, canonical
 * id; nodes without a path last), and a node reached from several
 * nodes comes with the edge from the first of them in that order: the
 * same sequence from any store of the same tree, whatever its node ids.
 * An edge from the node to itself (a function that calls itself) is
 * delivered at depth 1, like any direct neighbour; the walk does not go
 * on from it.  The same as kbx_walk_edges_flags() with no flags.
 */
kbx_status_t kbx_walk_edges(kbx_store_t *store, uint32_t id, int kind, int dir,
			    uint32_t max_depth, kbx_edge_fn fn, void *data,
			    struct kbx_error *err);

/*
 * What --certain asks of a query: follow and count only the edges no
 * guess went into.  Ambiguous edges are left out, and with them the
 * calls recorded against a name (name:NAME); certain edges stay, and so
 * do unresolved ones, whose one target is a name defined nowhere in the
 * repository.  kbx path, callers, callees, impact, dead, cycles and
 * hybrid all mean this by it.
 */
#define KBX_WALK_CERTAIN 0x01
/* Whether a query asking for flags (KBX_WALK_*) takes edge e. */
int kbx_edge_wanted(const struct kbx_edge *e, unsigned flags);

/* The order results are listed in: nodes of a file first, by path,
 * line, column, then canonical id (a total order); qsort style. */
int kbx_node_place_cmp(const struct kbx_node *a, const struct kbx_node *b);

/* kbx_walk_edges(), with flags: KBX_WALK_CERTAIN walks and delivers only
 * the edges kbx_edge_wanted() takes, so a node that only an ambiguous
 * edge reaches is neither delivered nor walked from. */
kbx_status_t kbx_walk_edges_flags(kbx_store_t *store, uint32_t id, int kind, int dir,
				  uint32_t max_depth, unsigned flags, kbx_edge_fn fn,
				  void *data, struct kbx_error *err);

/* Fetch one node by id into *out (strings valid until the store closes). */
kbx_status_t kbx_node_get(kbx_store_t *store, uint32_t id, struct kbx_node *out,
			  struct kbx_error *err);

/* ---- the whole index, table by table (dump.c): for kbx push ---- */

/* One indexed file.  path is valid during the call only. */
struct kbx_file_info {
	const char *path;
	size_t path_len;
	int lang;               /* kbx_lang_str() */
	uint32_t id;            /* its file node */
	uint64_t size;
	unsigned char hash[16]; /* of its content, as kbx index read it */
	int64_t mtime_ns;       /* its modification time as kbx index saw it */
};
typedef int (*kbx_file_fn)(void *data, const struct kbx_file_info *file);
typedef int (*kbx_node_fn)(void *data, const struct kbx_node *node);

/* One edge as stored: the sites point into the walk's buffer and are
 * valid during the call only. */
struct kbx_edge_rec {
	uint32_t src;
	int kind;               /* enum kbx_edge_kind */
	uint32_t dst;
	int confidence, via;
	uint32_t ncandidates;
	const struct kbx_site *sites;
	uint32_t nsites;
};
typedef int (*kbx_edge_rec_fn)(void *data, const struct kbx_edge_rec *edge);

/* Call fn with every file (by path, in byte order), every node (by id),
 * or every edge (by source, kind, target) of the store's snapshot;
 * non-zero from fn stops the walk, and KBX_OK is returned. */
kbx_status_t kbx_files_walk(kbx_store_t *store, kbx_file_fn fn, void *data,
			    struct kbx_error *err);
kbx_status_t kbx_nodes_walk(kbx_store_t *store, kbx_node_fn fn, void *data,
			    struct kbx_error *err);
kbx_status_t kbx_edges_walk_all(kbx_store_t *store, kbx_edge_rec_fn fn, void *data,
				struct kbx_error *err);

/* ---- what changed: definitions compared by body (changes.c) ---- */

/* The files of the working tree that differ from the index. */
enum kbx_file_status {
	KBX_FILE_ADDED = 1,     /* kbx index would add it */
	KBX_FILE_DELETED = 2,   /* indexed, gone (or no longer indexed) */
	KBX_FILE_MODIFIED = 3,  /* indexed; its content differs */
	KBX_FILE_RENAMED = 4    /* an added file with the content of a deleted one */
};

struct kbx_file_change {
	int status;
	char *path;             /* the working tree's; the index's for deleted */
	char *old_path;         /* the index's path, for renamed; else NULL */
};

struct kbx_file_changes {
	struct kbx_file_change *items;
	size_t n, alloc;
};
#define KBX_FILE_CHANGES_INIT { NULL, 0, 0 }
void kbx_file_changes_release(struct kbx_file_changes *l);

/*
 * Append to out the files whose stamp in the index differs from the
 * working tree, as kbx index would see them: the same scan and ignore
 * rules (max_file_size: 0 is the default 1 MiB), a file whose size or
 * mtime differ counted only when its content does too.  In byte order
 * of the paths; the caller releases out.
 */
kbx_status_t kbx_worktree_changes(kbx_store_t *store, uint64_t max_file_size,
				  struct kbx_file_changes *out, struct kbx_error *err);

/* Would kbx index the repository path (its language is known and no
 * ignore rule leaves it out)?  A directory that does not exist is no
 * obstacle, so that paths of another revision can be asked about. */
int kbx_path_indexable(kbx_store_t *store, const char *path);

enum kbx_change_status {
	KBX_CHANGE_ADDED = 1,   /* only on the new side */
	KBX_CHANGE_REMOVED = 2, /* only on the old side */
	KBX_CHANGE_CHANGED = 3, /* on both; the body differs */
	KBX_CHANGE_MOVED = 4    /* on both, the same body at another line or path */
};
const char *kbx_change_status_str(int status);  /* "added", ... */

/* One definition that changed.  Strings are malloc()ed and freed with
 * the list. */
struct kbx_change {
	int status;             /* enum kbx_change_status */
	int kind, lang;
	char *name, *qual;
	char *path;             /* where it is: the new side, the old for removed */
	uint32_t line, col, end_line;
	char *old_path;         /* where it was (NULL for added) */
	uint32_t old_line, old_end_line;
	uint32_t id;            /* its node in the index, 0 when the index lacks it */
};

struct kbx_changes {
	struct kbx_change *items;
	size_t n, alloc;
};
#define KBX_CHANGES_INIT { NULL, 0, 0 }
void kbx_changes_release(struct kbx_changes *l);

/* Which side of a comparison the index is. */
#define KBX_INDEX_IS_OLD 0      /* the index against the working tree */
#define KBX_INDEX_IS_NEW 1      /* a revision against the index */

typedef struct kbx_comparer kbx_comparer_t;
kbx_status_t kbx_comparer_new(kbx_store_t *store, int index_side, kbx_comparer_t **out,
			      struct kbx_error *err);
void kbx_comparer_free(kbx_comparer_t *c);
/* Decide the language of .h headers as kbx index does with these
 * settings (the default: by their text alone).  The strings are copied. */
kbx_status_t kbx_comparer_set_headers(kbx_comparer_t *c, const struct kbx_header_langs *h,
				      struct kbx_error *err);

/*
 * Compare the definitions the index holds for index_path (NULL, or a
 * path the index does not have: none) with those extracted from
 * content[0..len), the file at content_path (content NULL, a binary
 * file or a language kbx does not know: none), and append what differs
 * to out, in source order, removed ones last.  A definition is matched by
 * its qualified name and kind; several of one name (overloads,
 * redefinitions) are matched in order.  Bodies are compared by hash:
 * white space between tokens and comments do not count.  The two paths
 * differ for a renamed file.
 */
kbx_status_t kbx_compare_file(kbx_comparer_t *c, const char *index_path,
			      const char *content_path, const char *content, size_t len,
			      struct kbx_changes *out, struct kbx_error *err);

/* One of the index's definitions: its node and lines. */
struct kbx_def_place {
	uint32_t id;
	uint32_t line, end_line;
};

struct kbx_def_places {
	struct kbx_def_place *items;
	size_t n, alloc;
};
#define KBX_DEF_PLACES_INIT { NULL, 0, 0 }
void kbx_def_places_release(struct kbx_def_places *l);

/*
 * Which of the index's definitions of path does content[0..len) (the
 * file as read now) hold where the index puts them?  For kbx context,
 * which quotes the lines the index gives and must not quote lines that
 * are no longer the definition.  *same is 1 when content has the hash
 * kbx index recorded for the file: then every definition is where the
 * index puts it, and nothing is appended.  Otherwise *same is 0 and
 * content is extracted again, as the language the index read the file
 * as, and each of the index's definitions that it still holds at the
 * same first and last lines (matched as kbx_compare_file matches them:
 * by qualified name and kind, in order) is appended to kept, whatever
 * its body now says.  KBX_NOT_FOUND when the index has no such file.
 * The caller releases kept.
 */
kbx_status_t kbx_defs_in_place(kbx_comparer_t *c, const char *path, const char *content,
			       size_t len, int *same, struct kbx_def_places *kept,
			       struct kbx_error *err);

#endif
