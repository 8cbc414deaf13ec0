/*
 * Resolution: turning what one file's extraction said (its refs) into
 * CALLS, IMPORTS and INHERITS edges.
 *
 * Imports first: each import's candidate paths (from the language) are
 * matched against the files of the repository; a match is an IMPORTS edge
 * to the file (several files of a '*' match: ambiguous; a package
 * directory: certain for each file), no match an edge to a module node.
 * What the import binds (a name, a module, a wildcard, a C include) is
 * kept for the calls.
 *
 * Calls, in order (the first rule that yields candidates decides; the
 * "via" of each edge names it):
 *   0. for a plain call in an opened module (OCaml's let open M in):
 *      M's own f, if M defines one at its top; then scope, rule 3b
 *      below, since a helper hides a method of the enclosing class of
 *      its name;
 *   1. same-class: self/this/super, and plain calls in languages with an
 *      implicit receiver: a method of the enclosing class, then of its
 *      bases; for a method defined outside its type's file, Type.name
 *      in this file, else wherever it is defined once;
 *   2. import: a receiver that is an import (module.f(), Alias.f(), the
 *      longest dotted prefix that an import binds); an import from
 *      outside the repository makes the call external at once
 *      (import os; os.path.join()); m.sub.f() is sub.f in m, never
 *      m's own f;
 *   3. same-file: Foo.f() with Foo a class of this file;
 *   3b. scope: f() of a helper nested in the caller, or in a function or
 *      method enclosing it (the innermost); a helper is seen from
 *      nowhere else, so the rules below leave helpers out;
 *   4. same-file: definitions in this file (closed_modules: at its
 *      top or in a definition enclosing the caller); a definition the
 *      file makes twice is ambiguous where later_shadows;
 *   5. import: names brought in by resolved imports (from m import f,
 *      #include "x.h", wildcard imports);
 *   5b. scope: the caller's package directory (Go); in a language
 *      whose functions exist only where they were defined or sourced
 *      (Bash), nothing further proves a call: the definitions of the
 *      name in other scripts are ambiguous candidates, and without one
 *      the call is external;
 *   6. qualified: R.f() where some definition's qualified name ends in
 *      R.f (geo::Circle(), Type::new(), Outer.Inner.f());
 *   7. unique-name: the definitions of the name in the languages that can
 *      call each other.  One is certain.  Several are first narrowed by
 *      the caller's enclosing namespaces, innermost first (scope), then
 *      by the namespaces its file imports (import: C# using, C++ using
 *      namespace); what remains is recorded as ambiguous, every
 *      candidate, or (more than AMBIGUOUS_MAX) as one edge to a name
 *      node standing for all of them.  None is an external.
 *
 * Bases go through the same steps for types (and Ruby modules, which
 * are mixed in with include).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

#define AMBIGUOUS_MAX 16
#define MAX_TARGETS 64

#define M_FUNC   0x01
#define M_METHOD 0x02
#define M_TYPE   0x04
#define M_NS     0x08   /* Ruby modules mixed in with include */
#define M_BASE   (M_TYPE | M_NS)
#define M_IMPORT 0x10   /* a name a file imports ("*": a wildcard), not a definition */
#define M_MACRO  0x20   /* a C or C++ macro: what a plain call may name too */
#define M_RETURNED 0x40 /* the table a Lua file returns: its module's members */

struct files_index {
	char **paths;           /* sorted, as in the files table */
	uint32_t *ids;
	size_t n;
	/* for suffix matches: indexes into paths sorted by base name */
	size_t *by_base;
	/* for directory suffix matches ("*org/json4s/"): the directories
	 * of the files, each written backwards, sorted; made when first
	 * needed */
	char **rdirs;
	size_t nrdirs;
	int rdirs_made;
};

/* One definition of a name, as the resolver needs it. */
struct cand {
	uint32_t id, file;
	int mask;               /* M_* of its kind */
	int fam;                /* its language family */
	unsigned flags;         /* KBX_NODE_* */
	char *qual;
};

/* Every definition of one name, read once per run (definitions do not
 * change while edges are resolved). */
struct cand_cache_entry {
	char *name;
	struct cand *c;
	size_t n;
};

/* A directory whose module file (go.mod) declares the import path that
 * names it. */
struct module_dir {
	int lang_id;
	char *path;             /* "github.com/yuin/goldmark" */
	char *dir;              /* "" for the top of the repository */
};

struct _kbx_resolver {
	struct kbx_store *s;
	struct files_index fi;
	struct module_dir *mods;
	size_t nmods, amods;
	uint32_t mods_read;     /* a bit per language id: its module files are read */
	struct file_defs *fd;   /* file id -> its definitions, open addressing */
	size_t fd_size, fd_used;
	struct cand_cache_entry *cache;
	size_t cache_size, cache_used;
	int rc;                 /* a read of the store failed: no answer is sure */
};

/* Note that something the lookups need could not be read (an LMDB or a
 * decoding error): the file's resolution fails rather than go on with
 * less than the index says, which would make plausible wrong edges.
 * (A refused allocation is counted where it happens: util.h,
 * lib/util/alloc-count.c.) */
static void lost(struct _kbx_resolver *r, int rc)
{
	if (!r->rc)
		r->rc = rc;
}

struct pending {
	uint32_t src, dst;
	uint8_t kind, conf, via;
	uint32_t ncand;
	uint32_t line, col;
};

struct binding {
	const char *local;
	const char *symname;    /* NULL: the binding is the module itself */
	const char *module;     /* as written, for externals */
	int members;            /* a static import: methods count, not only functions */
	uint32_t targets[MAX_TARGETS];
	size_t ntargets;        /* 0: not a file of the repository */
};

struct local_def {
	char *name;
	uint32_t id;
	int mask;
	int top;
};

/* An import a file passes on (KBX_IMPORT_REEXPORT): the name it brings
 * (NULL: a wildcard, everything) and the files it resolves to. */
struct passed {
	char *name;
	char *type;             /* a member of this type of the targets (Scala's
				 * val X = Obj.X in a package object), or NULL */
	/* module_values: the name stands for the targets themselves
	 * (pub const mem = @import("mem.zig")), or for sym reached from
	 * them through path, the files passed on by those names
	 * (pub const Allocator = std.mem.Allocator: path "mem") */
	int module;
	char *sym, *path;
	uint32_t targets[MAX_TARGETS];
	size_t nt;
};

/* A field a class of a file declares, with its type (refs' fields). */
struct local_field {
	uint32_t cls;
	char *name, *type;
};

struct local_return {
	uint32_t node;
	char *type;
};
struct local_import {
	char *local, *module;
	char *name;             /* the name imported, or NULL: the module itself */
	int level;              /* Python's relative level */
};

struct file_defs {
	uint32_t file;          /* 0: an empty slot */
	char *package;          /* the package it declares itself in, or NULL */
	struct local_field *fields;
	size_t nfields;
	struct local_def *defs;
	size_t n;
	/* each name's first definition, by the name's hash: a slot is the
	 * hash's low 32 bits above the index in defs, 0 an empty one */
	uint64_t *first;
	size_t first_mask;
	struct passed *pass;    /* the imports it passes on, resolved */
	size_t npass;
	/* the arities its definitions have (refs), by node id; one for the
	 * overloads kbx keeps as one node, their union */
	struct _kbx_ref_arity *arities;
	size_t narities;
	/* the types its functions return (refs), as it writes them, and
	 * the names its imports bind, to read a "pkg.T" among them */
	struct local_return *rets;
	size_t nrets;
	struct local_import *imps;
	size_t nimps;
};

struct ctx {
	/* the type a callback's parameter is given, as result_types read
	 * it (it names it through *named) */
	char cb_type[256];
	struct _kbx_resolver *r;
	struct kbx_store *s;
	struct _kbx_refs refs;
	const struct kbx_lang *lang;
	int lang_id, fam;
	uint32_t file;
	const char *path;
	struct binding *b;
	size_t nb, ab;
	uint32_t *spread;       /* files whose names are all visible (includes, wildcards) */
	size_t nspread, aspread;
	uint32_t *outer;        /* the files of the packages around the file's own
				 * (KBX_IMPORT_OUTER), seen after its package's */
	size_t nouter, aouter;
	int open_wildcard;      /* a wildcard import from outside the repository */
	int nargs;              /* the arguments of the call being resolved, or -1 */
	int probing;            /* calls resolved to learn what they return, nested */
	uint32_t *callee_of;    /* per call of the file, its certain callee once
				 * certain_target() has looked (UINT32_MAX: none);
				 * 0: not yet */
	const char *package;    /* the package the file declares, or NULL */
	char **ns;              /* imported namespaces that are not files, dot-joined */
	size_t nns, ans;
	struct pending *pe;
	size_t npe, ape;
	struct _kbx_idset *orphans;
	struct kbx_error *err;
	int rc;
};

static int kind_mask(int kind)
{
	if (kind == KBX_KIND_FUNCTION)
		return M_FUNC;
	if (kind == KBX_KIND_METHOD)
		return M_METHOD;
	if (KBX_KIND_IS_TYPE(kind))
		return M_TYPE;
	if (kind == KBX_KIND_NAMESPACE)
		return M_NS;
	if (kind == KBX_KIND_MACRO)
		return M_MACRO;
	return 0;
}

/* ---- the files of the repository ---- */

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static struct files_index *sort_ctx;
static int cmp_by_base(const void *a, const void *b)
{
	const char *pa = sort_ctx->paths[*(const size_t *)a];
	const char *pb = sort_ctx->paths[*(const size_t *)b];
	return strcmp(base_of(pa), base_of(pb));
}

static kbx_status_t files_load(struct kbx_store *s, struct files_index *fi, struct kbx_error *err)
{
	MDB_cursor *c;
	MDB_val k, d;
	MDB_stat ms;
	int rc = mdb_stat(_kbx_txn(s), s->files, &ms);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the files table");
	size_t cap = ms.ms_entries + 1;
	fi->paths = calloc(cap, sizeof(*fi->paths));
	fi->ids = calloc(cap, sizeof(*fi->ids));
	fi->by_base = calloc(cap, sizeof(*fi->by_base));
	if (!fi->paths || !fi->ids || !fi->by_base)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	rc = mdb_cursor_open(_kbx_txn(s), s->files, &c);
	if (rc)
		return _kbx_fail_mdb(err, rc, "cannot read the files table");
	for (int g = mdb_cursor_get(c, &k, &d, MDB_FIRST); !g && fi->n < cap;
	     g = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct _kbx_file_rec fr;
		if (_kbx_file_rec_decode(d.mv_data, d.mv_size, &fr))
			continue;
		fi->paths[fi->n] = strndup(k.mv_data, k.mv_size);
		if (!fi->paths[fi->n]) {
			mdb_cursor_close(c);
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		}
		fi->ids[fi->n] = fr.id;
		fi->by_base[fi->n] = fi->n;
		fi->n++;
	}
	mdb_cursor_close(c);
	sort_ctx = fi;
	qsort(fi->by_base, fi->n, sizeof(*fi->by_base), cmp_by_base);
	sort_ctx = NULL;
	return KBX_OK;
}

static void files_release(struct files_index *fi)
{
	for (size_t i = 0; i < fi->n; i++)
		free(fi->paths[i]);
	free(fi->paths);
	free(fi->ids);
	free(fi->by_base);
	for (size_t i = 0; i < fi->nrdirs; i++)
		free(fi->rdirs[i]);
	free(fi->rdirs);
	memset(fi, 0, sizeof(*fi));
}

/* p[0..len) written backwards, then end (a character, or '\0' for
 * none): a new string. */
static char *reversed(const char *p, size_t len, char end)
{
	char *r = malloc(len + 2);
	if (!r)
		return NULL;
	for (size_t i = 0; i < len; i++)
		r[i] = p[len - 1 - i];
	r[len] = end;
	r[len + 1] = '\0';
	return r;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directories of the files, backwards and sorted, once. */
static void rdirs_make(struct files_index *fi)
{
	fi->rdirs_made = 1;
	if (!fi->n || !(fi->rdirs = calloc(fi->n, sizeof(*fi->rdirs))))
		return;
	for (size_t i = 0; i < fi->n; i++) {
		const char *slash = strrchr(fi->paths[i], '/');
		if (!slash)
			continue;
		char *r = reversed(fi->paths[i], (size_t)(slash - fi->paths[i]), '\0');
		if (r)
			fi->rdirs[fi->nrdirs++] = r;
	}
	qsort(fi->rdirs, fi->nrdirs, sizeof(*fi->rdirs), cmp_strp);
	size_t k = 0;
	for (size_t i = 0; i < fi->nrdirs; i++) {
		if (k && !strcmp(fi->rdirs[k - 1], fi->rdirs[i]))
			free(fi->rdirs[i]);
		else
			fi->rdirs[k++] = fi->rdirs[i];
	}
	fi->nrdirs = k;
}

/* First index of the sorted v[0..n) whose string is >= key. */
static size_t lower_bound(char *const *v, size_t n, const char *key)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (strcmp(v[mid], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First index whose path is >= key. */
static size_t files_lower(const struct files_index *fi, const char *key)
{
	return lower_bound(fi->paths, fi->n, key);
}

/* Is the file at path in a language of family fam (0: any)? */
static int in_family(const char *path, int fam)
{
	return !fam || _kbx_lang_family(_kbx_lang_id(_kbx_lang_for_path(path))) == fam;
}

/* The files at the top of the repository (no '/' in their paths), in
 * languages of family fam (0: any). */
static size_t top_level_files(const struct files_index *fi, int fam, uint32_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < fi->n && n < max; i++)
		if (!strchr(fi->paths[i], '/') && in_family(fi->paths[i], fam))
			out[n++] = fi->ids[i];
	return n;
}

/* Files a candidate names; returns how many were put in out.  A
 * directory's are those in languages of family fam (0: any): a package
 * of one language is not the other files beside it. */
static size_t files_match(struct files_index *fi, const char *cand, int fam, uint32_t *out,
			  size_t max)
{
	size_t n = 0, len = strlen(cand);
	if (!len)
		return 0;
	if (!strcmp(cand, "/"))
		return top_level_files(fi, fam, out, max);
	if (cand[0] == '*' && len > 2 && cand[len - 1] == '/') {
		/* "*a/b/": the files of every directory a/b, at the top or
		 * under any other (a package across the source roots of a
		 * project's modules) */
		if (!fi->rdirs_made)
			rdirs_make(fi);
		char *rs = reversed(cand + 1, len - 2, '\0');
		if (!rs)
			return 0;
		size_t rl = len - 2;
		for (size_t i = lower_bound(fi->rdirs, fi->nrdirs, rs); i < fi->nrdirs && n < max && !strncmp(fi->rdirs[i], rs, rl); i++) {
			if (fi->rdirs[i][rl] && fi->rdirs[i][rl] != '/')
				continue;
			/* the directory, forwards again, as a "dir/" candidate */
			char *dir = reversed(fi->rdirs[i], strlen(fi->rdirs[i]), '/');
			if (!dir)
				break;
			n += files_match(fi, dir, fam, out + n, max - n);
			free(dir);
		}
		free(rs);
		return n;
	}
	if (cand[0] == '*') {
		const char *suffix = cand + 1;
		const char *b = base_of(suffix);
		size_t slen = strlen(suffix);
		/* binary search the base-name order */
		size_t lo = 0, hi = fi->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (strcmp(base_of(fi->paths[fi->by_base[mid]]), b) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t i = lo; i < fi->n && n < max; i++) {
			const char *p = fi->paths[fi->by_base[i]];
			if (strcmp(base_of(p), b))
				break;
			size_t pl = strlen(p);
			if (pl == slen ? !strcmp(p, suffix)
				       : pl > slen && p[pl - slen - 1] == '/' &&
						 !strcmp(p + pl - slen, suffix))
				out[n++] = fi->ids[fi->by_base[i]];
		}
		return n;
	}
	if (cand[len - 1] == '/') {
		for (size_t i = files_lower(fi, cand); i < fi->n && n < max; i++) {
			const char *p = fi->paths[i];
			if (strncmp(p, cand, len))
				break;
			if (!strchr(p + len, '/') && in_family(p, fam))
				out[n++] = fi->ids[i];
		}
		return n;
	}
	size_t i = files_lower(fi, cand);
	if (i < fi->n && !strcmp(fi->paths[i], cand))
		out[n++] = fi->ids[i];
	return n;
}

static void file_defs_release(struct _kbx_resolver *r);

/* ---- the resolver ---- */

kbx_status_t _kbx_resolver_new(struct kbx_store *s, struct _kbx_resolver **out,
			       struct kbx_error *err)
{
	struct _kbx_resolver *r = calloc(1, sizeof(*r));
	if (!r)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	r->s = s;
	kbx_status_t st = files_load(s, &r->fi, err);
	if (st) {
		_kbx_resolver_free(r);
		return st;
	}
	r->cache_size = 4096;
	r->cache = calloc(r->cache_size, sizeof(*r->cache));
	if (!r->cache) {
		_kbx_resolver_free(r);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	*out = r;
	return KBX_OK;
}

static void cache_release(struct _kbx_resolver *r)
{
	/* also for a resolver whose cache could not be allocated */
	for (size_t i = 0; r->cache && i < r->cache_size; i++) {
		for (size_t j = 0; j < r->cache[i].n; j++)
			free(r->cache[i].c[j].qual);
		free(r->cache[i].c);
		free(r->cache[i].name);
	}
	free(r->cache);
	r->cache = NULL;
	r->cache_size = r->cache_used = 0;
}

void _kbx_resolver_free(struct _kbx_resolver *r)
{
	if (!r)
		return;
	cache_release(r);
	files_release(&r->fi);
	file_defs_release(r);
	for (size_t i = 0; i < r->nmods; i++) {
		free(r->mods[i].path);
		free(r->mods[i].dir);
	}
	free(r->mods);
	free(r);
}

/*
 * The files of the first of pl's candidate paths that names any (a path
 * starting with '=' is a module's whole name: *eq then; one ending in
 * '/' a package directory, one module: *dir then), into
 * targets[MAX_TARGETS] without the importing file self.  How many.
 */
/* Drop self from targets[0..nt): never an edge from a file to itself. */
static size_t without_self(uint32_t *targets, size_t nt, uint32_t self)
{
	size_t k = 0;
	for (size_t j = 0; j < nt; j++)
		if (targets[j] != self)
			targets[k++] = targets[j];
	return k;
}

static size_t candidate_files(struct ctx *c, const struct kbx_pathlist *pl, uint32_t self,
			      uint32_t *targets, int *eq, int *dir)
{
	size_t nt = 0;
	for (size_t j = 0; j < pl->n && !nt; j++) {
		const char *cand = pl->paths[j];
		int is_eq = cand[0] == '=';
		nt = files_match(&c->r->fi, is_eq ? cand + 1 : cand, c->fam, targets, MAX_TARGETS);
		if (nt && is_eq)
			*eq = 1;
		if (nt && cand[strlen(cand) - 1] == '/')
			*dir = 1;
	}
	return without_self(targets, nt, self);
}

static const char *module_tail(const char *m);
static size_t members_in_types(struct ctx *c, const uint32_t *ids, size_t n, const char *name,
			       uint32_t *out, size_t max);

/*
 * The imports of a file that it passes on, resolved to files as its
 * importers' lookups need them (refs: the file's), into fd->pass.
 */
static void passed_imports(struct ctx *c, struct file_defs *fd, const struct _kbx_refs *refs)
{
	struct kbx_node f;
	const struct kbx_lang *lang = NULL;
	char *path = NULL;
	for (size_t i = 0; i < refs->nimports; i++) {
		const struct _kbx_ref_import *m = &refs->imports[i];
		if (!(m->flags & KBX_IMPORT_REEXPORT) || !*m->module)
			continue;
		/* the file's own language makes its import's candidates */
		if (!path && (_kbx_node_read(c->s, _kbx_txn(c->s), fd->file, &f) != KBX_OK ||
			      !f.path || !(lang = _kbx_lang_from_id(f.lang)) ||
			      !lang->import_candidates || !(path = strndup(f.path, f.path_len))))
			break;
		struct passed *p = realloc(fd->pass, (fd->npass + 1) * sizeof(*p));
		if (!p)
			break;
		fd->pass = p;
		p = &fd->pass[fd->npass];
		p->name = NULL;
		p->type = NULL;
		p->module = 0;
		p->sym = p->path = NULL;
		if (lang->module_values && !(m->flags & KBX_IMPORT_WILDCARD)) {
			/* the name it binds: the file itself, or a name of
			 * it, dotted through what that file passes on */
			const char *dot = m->name ? strrchr(m->name, '.') : NULL;
			const char *as = m->alias ? m->alias : (dot ? dot + 1 : m->name);
			if (!as || !(p->name = strdup(as)))
				continue;
			p->module = !m->name;
			if (m->name && (!(p->sym = strdup(dot ? dot + 1 : m->name)) ||
					(dot && !(p->path = strndup(m->name, (size_t)(dot - m->name)))))) {
				free(p->name);
				free(p->sym);
				continue;
			}
		} else if (!(m->flags & KBX_IMPORT_WILDCARD) &&
			   (!m->name || !(p->name = strdup(m->name)))) {
			continue;
		}
		if ((m->flags & KBX_IMPORT_STATIC) && !(p->type = strdup(module_tail(m->module)))) {
			free(p->name);
			continue;
		}
		struct kbx_ximport xi = { m->module, m->name, m->alias, m->level, m->flags, m->line };
		struct kbx_pathlist pl = { 0 };
		int eq = 0, dir = 0;
		lang->import_candidates(path, &xi, &pl);
		p->nt = candidate_files(c, &pl, fd->file, p->targets, &eq, &dir);
		_kbx_pathlist_release(&pl);
		fd->npass++;
	}
	free(path);
}

/*
 * Definitions named name, of the kinds in mask, in languages of family
 * fam (0: any).  When files is given, only those in these files.  Puts at
 * most max ids in out, returns how many matched in all.
 */
static int cmp_local(const void *a, const void *b)
{
	return strcmp(((const struct local_def *)a)->name, ((const struct local_def *)b)->name);
}

/*
 * The definitions of one file by name, sorted; built once per run from
 * the file's refs and kept in the resolver (nothing that is a definition
 * changes while edges are resolved).  top marks top-level definitions,
 * the only ones another file can reach by a plain name.
 */
static int takes_args(struct ctx *c, uint32_t id, int n);

/* Keep in ids[0..n) the definitions the call being resolved can be by
 * its arguments' count (all of them past AMBIGUOUS_MAX); how many. */
static size_t taking_args(struct ctx *c, uint32_t *ids, size_t n)
{
	size_t k = 0;
	if (c->nargs < 0 || n > AMBIGUOUS_MAX)
		return n;
	for (size_t i = 0; i < n; i++)
		if (takes_args(c, ids[i], c->nargs))
			ids[k++] = ids[i];
	return k;
}

static int cmp_arity(const void *a, const void *b)
{
	uint32_t x = ((const struct _kbx_ref_arity *)a)->node, y = ((const struct _kbx_ref_arity *)b)->node;
	return x < y ? -1 : x > y;
}

static uint32_t name_hash(const char *name)
{
	uint64_t h = _kbx_fnv1a_str(name);
	return (uint32_t)(h ^ (h >> 32));
}

/* Index the first definition of each name in fd->defs (sorted by name):
 * a call looks its name up in every file its own includes, and a hash
 * of it once, then a slot a file, costs less than a search of each
 * file's names.  Out of memory, the files are searched. */
static void index_first_defs(struct file_defs *fd)
{
	size_t size = 16;
	while (size < 2 * fd->n)
		size *= 2;
	fd->first = calloc(size, sizeof(*fd->first));
	if (!fd->first)
		return;
	fd->first_mask = size - 1;
	for (size_t i = 0; i < fd->n; i++) {
		if (i && !strcmp(fd->defs[i].name, fd->defs[i - 1].name))
			continue;
		uint32_t h = name_hash(fd->defs[i].name);
		size_t at = h & fd->first_mask;
		while (fd->first[at])
			at = (at + 1) & fd->first_mask;
		fd->first[at] = (uint64_t)h << 32 | (uint64_t)(i + 1);
	}
}

/* The index in fd->defs of the first definition named name (of hash h),
 * or fd->n when there is none. */
static size_t first_def(const struct file_defs *fd, const char *name, uint32_t h)
{
	if (!fd->first) {
		size_t lo = 0, hi = fd->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (strcmp(fd->defs[mid].name, name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		return lo < fd->n && !strcmp(fd->defs[lo].name, name) ? lo : fd->n;
	}
	for (size_t at = h & fd->first_mask; fd->first[at]; at = (at + 1) & fd->first_mask) {
		uint64_t slot = fd->first[at];
		size_t i = (size_t)(uint32_t)slot - 1;
		if ((uint32_t)(slot >> 32) == h && !strcmp(fd->defs[i].name, name))
			return i;
	}
	return fd->n;
}

static struct file_defs *file_defs_get(struct ctx *c, uint32_t file)
{
	struct _kbx_resolver *r = c->r;
	if (r->fd_used * 2 >= r->fd_size) {
		size_t ns = r->fd_size ? r->fd_size * 2 : 1024;
		struct file_defs *nt = calloc(ns, sizeof(*nt));
		if (!nt)
			return NULL;
		for (size_t i = 0; i < r->fd_size; i++) {
			if (!r->fd[i].file)
				continue;
			size_t j = (r->fd[i].file * 2654435761u) & (ns - 1);
			while (nt[j].file)
				j = (j + 1) & (ns - 1);
			nt[j] = r->fd[i];
		}
		free(r->fd);
		r->fd = nt;
		r->fd_size = ns;
	}
	size_t j = (file * 2654435761u) & (r->fd_size - 1);
	for (; r->fd[j].file; j = (j + 1) & (r->fd_size - 1))
		if (r->fd[j].file == file)
			return &r->fd[j];
	struct file_defs *fd = &r->fd[j];
	fd->file = file;
	r->fd_used++;
	struct _kbx_refs refs;
	kbx_status_t st = _kbx_refs_read(c->s, file, &refs);
	if (st != KBX_OK) {
		/* none recorded (a file of no definitions) is no failure; out
		 * of memory is counted where it was refused */
		if (st != KBX_NOT_FOUND && st != KBX_ERR_NOMEM)
			lost(r, MDB_CORRUPTED);
		return fd;
	}
	fd->defs = calloc(refs.nnodes + refs.nimports + 1, sizeof(*fd->defs));
	for (size_t i = 0; fd->defs && i < refs.nimports; i++) {
		/* the names it imports, which it may pass on (re-exports) */
		const struct _kbx_ref_import *m = &refs.imports[i];
		if (m->flags & KBX_IMPORT_PACKAGE) {
			free(fd->package);
			fd->package = strdup(m->module);
			continue;
		}
		const char *local = m->flags & KBX_IMPORT_WILDCARD ? "*" : m->alias ? m->alias : m->name;
		struct local_def *d = &fd->defs[fd->n];
		if (!local || !(d->name = strdup(local)))
			continue;
		d->mask = M_IMPORT;
		d->top = 1;
		fd->n++;
	}
	for (size_t i = 0; fd->defs && i < refs.nnodes; i++) {
		struct kbx_node n;
		if (_kbx_node_read(c->s, _kbx_txn(c->s), refs.nodes[i], &n) != KBX_OK)
			continue;
		struct local_def *d = &fd->defs[fd->n];
		d->name = strdup(n.name);
		if (!d->name)
			continue;
		d->id = n.id;
		d->mask = kind_mask(n.kind);
		/* a file-local definition is no name another file can reach
		 * through an import (Zig's without pub, Lua's local function),
		 * except C's: a static function of a header is its includer's */
		d->top = n.parent == file && (!(n.flags & KBX_NODE_FILE_LOCAL) ||
					      _kbx_lang_family(n.lang) == 1);
		const struct kbx_lang *nl = _kbx_lang_from_id(n.lang);
		if (d->top && KBX_KIND_IS_TYPE(n.kind) && (n.flags & KBX_NODE_EXPORTED) && nl &&
		    nl->returned_table)
			d->mask |= M_RETURNED;
		fd->n++;
	}
	fd->fields = refs.nfields ? calloc(refs.nfields, sizeof(*fd->fields)) : NULL;
	for (size_t i = 0; fd->fields && i < refs.nfields; i++) {
		struct local_field *f = &fd->fields[fd->nfields];
		f->cls = refs.fields[i].cls;
		f->name = strdup(refs.fields[i].name);
		f->type = strdup(refs.fields[i].type);
		if (!f->name || !f->type) {
			free(f->name);
			free(f->type);
			continue;
		}
		fd->nfields++;
	}
	if (refs.narities && (fd->arities = malloc(refs.narities * sizeof(*fd->arities)))) {
		memcpy(fd->arities, refs.arities, refs.narities * sizeof(*fd->arities));
		qsort(fd->arities, refs.narities, sizeof(*fd->arities), cmp_arity);
		for (size_t i = 0; i < refs.narities; i++) {
			struct _kbx_ref_arity *a = &fd->arities[i], *last = &fd->arities[fd->narities - 1];
			if (fd->narities && last->node == a->node) {
				last->min = a->min < last->min ? a->min : last->min;
				last->max = a->max > last->max ? a->max : last->max;
			} else {
				fd->arities[fd->narities++] = *a;
			}
		}
	}
	fd->rets = refs.nreturns ? calloc(refs.nreturns, sizeof(*fd->rets)) : NULL;
	for (size_t i = 0; fd->rets && i < refs.nreturns; i++) {
		struct local_return *lr = &fd->rets[fd->nrets];
		lr->node = refs.returns[i].node;
		if ((lr->type = strdup(refs.returns[i].type)))
			fd->nrets++;
	}
	fd->imps = refs.nreturns && refs.nimports ? calloc(refs.nimports, sizeof(*fd->imps)) : NULL;
	for (size_t i = 0; fd->imps && i < refs.nimports; i++) {
		const struct _kbx_ref_import *m = &refs.imports[i];
		struct local_import *li = &fd->imps[fd->nimps];
		if (!*m->module || (m->flags & (KBX_IMPORT_WILDCARD | KBX_IMPORT_PACKAGE)))
			continue;
		li->local = strdup(m->alias ? m->alias : m->name ? m->name : module_tail(m->module));
		li->module = strdup(m->module);
		li->name = m->name ? strdup(m->name) : NULL;
		li->level = m->level;
		if (li->local && li->module && (!m->name || li->name)) {
			fd->nimps++;
		} else {
			free(li->local);
			free(li->module);
			free(li->name);
		}
	}
	passed_imports(c, fd, &refs);
	_kbx_refs_release(&refs);
	if (fd->n) {
		qsort(fd->defs, fd->n, sizeof(*fd->defs), cmp_local);
		index_first_defs(fd);
	}
	return fd;
}

/* Can the definition id take n arguments?  Yes when its language does
 * not say how many it takes. */
static int takes_args(struct ctx *c, uint32_t id, int n)
{
	struct kbx_node d;
	if (n < 0 || _kbx_node_read(c->s, _kbx_txn(c->s), id, &d) != KBX_OK || !d.file)
		return 1;
	const struct file_defs *fd = file_defs_get(c, d.file);
	size_t lo = 0, hi = fd ? fd->narities : 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (fd->arities[mid].node < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!fd || lo == fd->narities || fd->arities[lo].node != id)
		return 1;
	return n >= fd->arities[lo].min && n <= fd->arities[lo].max;
}

static void file_defs_release(struct _kbx_resolver *r)
{
	for (size_t i = 0; i < r->fd_size; i++) {
		for (size_t j = 0; j < r->fd[i].n; j++)
			free(r->fd[i].defs[j].name);
		free(r->fd[i].defs);
		free(r->fd[i].first);
		free(r->fd[i].arities);
		for (size_t j = 0; j < r->fd[i].nrets; j++)
			free(r->fd[i].rets[j].type);
		free(r->fd[i].rets);
		for (size_t j = 0; j < r->fd[i].nimps; j++) {
			free(r->fd[i].imps[j].local);
			free(r->fd[i].imps[j].module);
			free(r->fd[i].imps[j].name);
		}
		free(r->fd[i].imps);
		free(r->fd[i].package);
		for (size_t j = 0; j < r->fd[i].nfields; j++) {
			free(r->fd[i].fields[j].name);
			free(r->fd[i].fields[j].type);
		}
		free(r->fd[i].fields);
		for (size_t j = 0; j < r->fd[i].npass; j++) {
			free(r->fd[i].pass[j].name);
			free(r->fd[i].pass[j].type);
			free(r->fd[i].pass[j].sym);
			free(r->fd[i].pass[j].path);
		}
		free(r->fd[i].pass);
	}
	free(r->fd);
	r->fd = NULL;
	r->fd_size = r->fd_used = 0;
}

/* Definitions named name in this file (at any depth) or at the top level
 * of the given other files. */
static size_t defs_in_files(struct ctx *c, const char *name, int mask, const uint32_t *files,
			    size_t nfiles, uint32_t *out, size_t max)
{
	size_t n = 0;
	uint32_t h = name_hash(name);
	for (size_t f = 0; f < nfiles; f++) {
		const struct file_defs *fd = file_defs_get(c, files[f]);
		if (!fd || !fd->n)
			continue;
		int own = files[f] == c->file;
		for (size_t i = first_def(fd, name, h); i < fd->n && !strcmp(fd->defs[i].name, name); i++)
			if ((fd->defs[i].mask & mask) && (own || fd->defs[i].top)) {
				if (n < max)
					out[n] = fd->defs[i].id;
				n++;
			}
	}
	return n;
}

/* A test a candidate definition's qualified name must pass. */
typedef int (*def_filter_fn)(const void *data, const char *qual);

/* The definitions named name: from the cache, read from the name index
 * the first time.  NULL when out of memory. */
static const struct cand_cache_entry *cands_of(struct ctx *c, const char *name)
{
	struct _kbx_resolver *r = c->r;
	if (r->cache_used * 2 >= r->cache_size) {
		size_t ns = r->cache_size ? r->cache_size * 2 : 4096;
		struct cand_cache_entry *nt = calloc(ns, sizeof(*nt));
		if (!nt)
			return NULL;
		for (size_t i = 0; i < r->cache_size; i++) {
			if (!r->cache[i].name)
				continue;
			size_t j = (size_t)_kbx_fnv1a_str(r->cache[i].name) & (ns - 1);
			while (nt[j].name)
				j = (j + 1) & (ns - 1);
			nt[j] = r->cache[i];
		}
		free(r->cache);
		r->cache = nt;
		r->cache_size = ns;
	}
	size_t i = (size_t)_kbx_fnv1a_str(name) & (r->cache_size - 1);
	for (; r->cache[i].name; i = (i + 1) & (r->cache_size - 1))
		if (!strcmp(r->cache[i].name, name))
			return &r->cache[i];
	struct cand_cache_entry *e = &r->cache[i];
	size_t len = strlen(name), alloc = 0;
	struct cand *list = NULL;
	size_t n = 0;
	MDB_cursor *cur;
	int orc = len && len <= 500 ? mdb_cursor_open(_kbx_txn(c->s), c->s->names, &cur) : -1;
	if (orc > 0)
		lost(r, orc);
	if (!orc) {
		MDB_val k = { len, (void *)name }, d;
		for (int g = mdb_cursor_get(cur, &k, &d, MDB_SET_KEY); !g;
		     g = mdb_cursor_get(cur, &k, &d, MDB_NEXT_DUP)) {
			struct kbx_node node;
			if (d.mv_size != 4 ||
			    _kbx_node_read(c->s, _kbx_txn(c->s), _kbx_get_u32(d.mv_data), &node) != KBX_OK ||
			    !kind_mask(node.kind))
				continue;
			if (n == alloc) {
				alloc = alloc ? alloc * 2 : 4;
				struct cand *p = realloc(list, alloc * sizeof(*p));
				if (!p)
					break;
				list = p;
			}
			list[n].id = node.id;
			list[n].file = node.file;
			list[n].mask = kind_mask(node.kind);
			list[n].fam = _kbx_lang_family(node.lang);
			list[n].flags = node.flags;
			list[n].qual = strdup(node.qual);
			if (list[n].qual)
				n++;
		}
		mdb_cursor_close(cur);
	}
	e->name = strdup(name);
	if (!e->name) {
		for (size_t j = 0; j < n; j++)
			free(list[j].qual);
		free(list);
		return NULL;
	}
	e->c = list;
	e->n = n;
	r->cache_used++;
	return e;
}

#define ANY_FILE (-1)

/*
 * The definitions named name of the kinds in mask, in languages of family
 * fam (0: any), that filter accepts (NULL: all).  A file-local definition
 * (C static) counts only for calls from its own file, or never with
 * global_only, or from any file with global_only ANY_FILE.  At most max ids go to out; the return value counts them
 * all.
 */
static size_t defs_select(struct ctx *c, const char *name, int mask, int fam, int global_only,
			  def_filter_fn filter, const void *fdata, uint32_t *out, size_t max)
{
	const struct cand_cache_entry *e = cands_of(c, name);
	size_t n = 0;
	for (size_t i = 0; e && i < e->n; i++) {
		const struct cand *d = &e->c[i];
		if (!(d->mask & mask) || (fam && d->fam != fam) ||
		    ((d->flags & KBX_NODE_FILE_LOCAL) && global_only != ANY_FILE &&
		     (global_only || d->file != c->file)) ||
		    (filter && !filter(fdata, d->qual)))
			continue;
		if (n < max)
			out[n] = d->id;
		n++;
	}
	return n;
}

static size_t defs_filtered(struct ctx *c, const char *name, int mask, int fam,
			    def_filter_fn filter, const void *fdata, uint32_t *out, size_t max)
{
	return defs_select(c, name, mask, fam, 0, filter, fdata, out, max);
}

static size_t defs_named(struct ctx *c, const char *name, int mask, int fam,
			 const uint32_t *files, size_t nfiles, uint32_t *out, size_t max)
{
	if (files)
		return defs_in_files(c, name, mask, files, nfiles, out, max);
	return defs_filtered(c, name, mask, fam, NULL, NULL, out, max);
}

/*
 * The definitions named name that files[0..nf) pass on from their own
 * imports (KBX_IMPORT_REEXPORT, Haskell's `module X` exports: a
 * wildcard import passes on everything it brings, a named one its
 * name), followed REEXPORT_DEPTH imports deep at most.  How many were
 * found; the first max in out.
 */
#define REEXPORT_DEPTH 4

static size_t walk_modules(struct ctx *c, const uint32_t *files, size_t nf, const char *path,
			   size_t len, uint32_t *out, int depth);

static size_t passed_on(struct ctx *c, const uint32_t *files, size_t nf, const char *name,
			int mask, uint32_t *out, size_t max, int depth)
{
	size_t found = 0;
	if (!c->lang->reexports || depth >= REEXPORT_DEPTH)
		return 0;
	for (size_t i = 0; i < nf && found < max; i++) {
		const struct file_defs *fd = file_defs_get(c, files[i]);
		for (size_t k = 0; fd && k < fd->npass && found < max; k++) {
			const struct passed *p = &fd->pass[k];
			if (p->name && strcmp(p->name, name))
				continue;
			size_t n;
			if (p->module)
				continue;   /* a file, not a definition */
			if (p->sym) {
				/* pub const X = m.a.Y: Y where m.a leads */
				uint32_t via[MAX_TARGETS];
				size_t nv = walk_modules(c, p->targets, p->nt, p->path ? p->path : "",
							 p->path ? strlen(p->path) : 0, via, depth + 1);
				n = defs_named(c, p->sym, mask, 0, via, nv, out + found, max - found);
				if (!n)
					n = passed_on(c, via, nv, p->sym, mask, out + found, max - found,
						      depth + 1);
				found += n < max - found ? n : max - found;
				continue;
			}
			if (p->type) {
				/* a member of an object of the files (Scala's
				 * val JObject = JsonAST.JObject) */
				uint32_t types[AMBIGUOUS_MAX + 1];
				size_t nt = defs_named(c, p->type, M_TYPE, 0, p->targets, p->nt, types,
						       AMBIGUOUS_MAX + 1);
				n = members_in_types(c, types, nt < AMBIGUOUS_MAX + 1 ? nt :
						     AMBIGUOUS_MAX + 1, name, out + found, max - found);
				n = n < max - found ? n : max - found;
				/* type X = Obj.X and val X = Obj.X pass on one X */
				size_t base = found;
				for (size_t j = 0; j < n; j++) {
					uint32_t id = out[base + j];
					int seen = 0;
					for (size_t q = 0; q < found && !seen; q++)
						seen = out[q] == id;
					if (!seen)
						out[found++] = id;
				}
				continue;
			}
			n = defs_named(c, name, mask, 0, p->targets, p->nt, out + found, max - found);
			if (!n)
				n = passed_on(c, p->targets, p->nt, name, mask, out + found,
					      max - found, depth + 1);
			found += n < max - found ? n : max - found;
		}
	}
	return found;
}

/* The definitions named name in files[0..nf), else those the files pass
 * on: how many, the first AMBIGUOUS_MAX + 1 in ids. */
static size_t named_or_passed(struct ctx *c, const char *name, int mask, const uint32_t *files,
			      size_t nf, uint32_t *ids)
{
	size_t n = defs_named(c, name, mask, 0, files, nf, ids, AMBIGUOUS_MAX + 1);
	return n ? n : passed_on(c, files, nf, name, mask, ids, AMBIGUOUS_MAX + 1, 0);
}

/*
 * module_values: the files the name stands for that files[0..nf) pass on
 * (std.zig's pub const mem = @import("mem.zig"): mem.zig), into
 * out[MAX_TARGETS]; how many.
 */
static size_t module_passed(struct ctx *c, const uint32_t *files, size_t nf, const char *name,
			    size_t len, uint32_t *out, int depth)
{
	size_t found = 0;
	if (depth >= REEXPORT_DEPTH)
		return 0;
	for (size_t i = 0; i < nf && !found; i++) {
		const struct file_defs *fd = file_defs_get(c, files[i]);
		for (size_t k = 0; fd && k < fd->npass && !found; k++) {
			const struct passed *p = &fd->pass[k];
			if (!p->name || strlen(p->name) != len || strncmp(p->name, name, len))
				continue;
			if (p->module) {
				found = p->nt;
				memcpy(out, p->targets, p->nt * sizeof(*out));
			} else if (p->sym) {
				/* pub const mem = std.mem: mem where std leads */
				uint32_t via[MAX_TARGETS];
				size_t nv = walk_modules(c, p->targets, p->nt, p->path ? p->path : "",
							 p->path ? strlen(p->path) : 0, via, depth + 1);
				if (nv)
					found = module_passed(c, via, nv, p->sym, strlen(p->sym), out,
							      depth + 1);
			}
		}
	}
	return found;
}

/* module_values: the files path[0..len) ("testing", "crypto.sha2") leads
 * to from files[0..nf), one component at a time, into out[MAX_TARGETS]
 * (files themselves for an empty path); 0 when a component is no file
 * passed on. */
static size_t walk_modules(struct ctx *c, const uint32_t *files, size_t nf, const char *path,
			   size_t len, uint32_t *out, int depth)
{
	uint32_t cur[MAX_TARGETS];
	size_t n = nf < MAX_TARGETS ? nf : MAX_TARGETS;
	memmove(out, files, n * sizeof(*out));
	while (len && n) {
		const char *dot = memchr(path, '.', len);
		size_t l = dot ? (size_t)(dot - path) : len;
		memcpy(cur, out, n * sizeof(*cur));
		n = module_passed(c, cur, n, path, l, out, depth);
		path += dot ? l + 1 : l;
		len -= dot ? l + 1 : l;
	}
	return n;
}

/* Does qual end with suffix, at a component boundary? */
static int qual_ends_with(const char *qual, const char *suffix)
{
	size_t q = strlen(qual), n = strlen(suffix);
	return n <= q && !strcmp(qual + q - n, suffix) && (q == n || qual[q - n - 1] == '.');
}

static int filter_qual_suffix(const void *data, const char *qual)
{
	return qual_ends_with(qual, data);
}

static int filter_qual_equal(const void *data, const char *qual)
{
	return !strcmp(qual, data);
}

/*
 * Several definitions share a name: narrow them down as the languages
 * with namespaces do, else leave them all.  First the caller's enclosing
 * scopes, innermost first (Shop.Cart.describe calling Item finds
 * Shop.Cart.Item, then Shop.Item); then the namespaces the file imports
 * without naming a file (C# using, C++ using namespace, Java wildcard
 * packages).  Returns how many remain in ids (all of them when nothing
 * narrows) and sets *via.
 */
static size_t narrow_candidates(struct ctx *c, uint32_t src, const char *name, int mask,
				uint32_t *ids, size_t n, size_t max, int *via)
{
	struct strbuf q = STRBUF_INIT;
	uint32_t tmp[AMBIGUOUS_MAX + 1];
	if (src && src != c->file) {
		struct kbx_node caller;
		if (_kbx_node_read(c->s, _kbx_txn(c->s), src, &caller) == KBX_OK) {
			struct strbuf scope = STRBUF_INIT;
			strbuf_addstr(&scope, caller.qual);
			for (;;) {
				char *dot = strrchr(scope.buf ? scope.buf : "", '.');
				if (!dot)
					break;
				strbuf_setlen(&scope, (size_t)(dot - scope.buf));
				strbuf_reset(&q);
				strbuf_addf(&q, "%s.%s", scope.buf, name);
				size_t k = defs_filtered(c, name, mask, c->fam, filter_qual_equal, q.buf,
							 tmp, AMBIGUOUS_MAX + 1);
				if (k && k <= max) {
					memcpy(ids, tmp, k * sizeof(*ids));
					*via = KBX_VIA_SCOPE;
					strbuf_release(&scope);
					strbuf_release(&q);
					return k;
				}
			}
			strbuf_release(&scope);
		}
	}
	size_t found = 0;
	for (size_t i = 0; i < c->nns && found <= AMBIGUOUS_MAX; i++) {
		strbuf_reset(&q);
		strbuf_addf(&q, "%s.%s", c->ns[i], name);
		size_t k = defs_filtered(c, name, mask, c->fam, filter_qual_equal, q.buf,
					 tmp + found, AMBIGUOUS_MAX + 1 - found);
		found += k < AMBIGUOUS_MAX + 1 - found ? k : AMBIGUOUS_MAX + 1 - found;
	}
	strbuf_release(&q);
	if (found && found <= max) {
		memcpy(ids, tmp, found * sizeof(*ids));
		*via = KBX_VIA_IMPORT;
		return found;
	}
	return n;
}

/* The definitions of a name that any file can reach (not file-local):
 * how many, and the first AMBIGUOUS_MAX + 1 of them. */
struct everywhere {
	size_t n;
	uint32_t ids[AMBIGUOUS_MAX + 1];
};

static void defs_everywhere(struct ctx *c, const char *name, int mask, int fam,
			    struct everywhere *out)
{
	out->n = defs_select(c, name, mask, fam, 1, NULL, NULL, out->ids, AMBIGUOUS_MAX + 1);
}

/* Does dst's file define its qualified name more than once? */
static int node_flagged(struct ctx *c, uint32_t dst, unsigned flag)
{
	struct kbx_node d;
	return _kbx_node_read(c->s, _kbx_txn(c->s), dst, &d) == KBX_OK && (d.flags & flag);
}

static void add_edge(struct ctx *c, uint32_t src, int kind, uint32_t dst, int conf, int via,
		     uint32_t ncand, uint32_t line, uint32_t col)
{
	if (!src || !dst)
		return;
	if (kind == KBX_EDGE_CALLS && conf == KBX_CONF_CERTAIN && c->lang &&
	    c->lang->later_shadows && node_flagged(c, dst, KBX_NODE_REDEFINED)) {
		conf = KBX_CONF_AMBIGUOUS;
		ncand = 2;
	}
	/* a definition only some builds have (C's #if): in another build
	 * the name may be a library's */
	if (kind == KBX_EDGE_CALLS && conf == KBX_CONF_CERTAIN && c->fam == 1 &&
	    node_flagged(c, dst, KBX_NODE_CONDITIONAL))
		conf = KBX_CONF_AMBIGUOUS;
	if (c->npe == c->ape) {
		size_t na = c->ape ? c->ape * 2 : 256;
		struct pending *p = realloc(c->pe, na * sizeof(*p));
		if (!p) {
			c->rc = ENOMEM;
			return;
		}
		c->pe = p;
		c->ape = na;
	}
	struct pending *p = &c->pe[c->npe++];
	p->src = src;
	p->dst = dst;
	p->kind = (uint8_t)kind;
	p->conf = (uint8_t)conf;
	p->via = (uint8_t)via;
	p->ncand = ncand;
	p->line = line;
	p->col = col;
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;
	if (x->src != y->src)
		return x->src < y->src ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->dst != y->dst)
		return x->dst < y->dst ? -1 : 1;
	if (x->conf != y->conf)
		return x->conf < y->conf ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* Write the pending edges, one per (source, kind, target), sites merged. */
static void flush_edges(struct ctx *c, uint64_t *nedges)
{
	if (c->rc || !c->npe) {
		c->npe = 0;
		return;
	}
	qsort(c->pe, c->npe, sizeof(*c->pe), cmp_pending);
	size_t i = 0;
	while (i < c->npe && !c->rc) {
		struct _kbx_edge_val v = { 0 };
		size_t j = i;
		v.confidence = c->pe[i].conf;
		v.via = c->pe[i].via;
		v.ncandidates = c->pe[i].ncand;
		/* sorted surest first (cmp_pending): the first site decides
		 * the edge's confidence, and each keeps its own */
		for (; j < c->npe && c->pe[j].src == c->pe[i].src &&
		       c->pe[j].kind == c->pe[i].kind && c->pe[j].dst == c->pe[i].dst;
		     j++) {
			int seen = 0;
			for (uint32_t k = 0; k < v.nsites && !seen; k++)
				seen = v.sites[k].line == c->pe[j].line && v.sites[k].col == c->pe[j].col;
			if (!seen && v.nsites < KBX_EDGE_MAX_SITES) {
				v.sites[v.nsites].line = c->pe[j].line;
				v.sites[v.nsites].col = c->pe[j].col;
				v.sites[v.nsites].confidence = c->pe[j].conf;
				v.nsites++;
			}
		}
		c->rc = _kbx_edge_put(c->s, c->pe[i].src, c->pe[i].kind, c->pe[i].dst, &v);
		if (nedges)
			(*nedges)++;
		i = j;
	}
	c->npe = 0;
}

static uint32_t ensure_floating(struct ctx *c, const char *prefix, const char *text,
				const char *name, int kind)
{
	struct strbuf cid = STRBUF_INIT;
	uint32_t id = 0;
	strbuf_addf(&cid, "%s%s", prefix, text);
	if (!cid.failed && cid.len <= 480) {
		int rc = _kbx_node_ensure(c->s, cid.buf, name, kind, c->lang_id, &id);
		if (rc && !c->rc)
			c->rc = rc;
		if (id && c->orphans)
			_kbx_idset_add(c->orphans, id);
	}
	strbuf_release(&cid);
	return id;
}

/* Python binds `import a.b` as the dotted path; the other languages by
 * the last component. */
static int import_binds_path(const struct kbx_lang *lang)
{
	return !strcmp(lang->name, "python");
}

static struct binding *find_binding(struct ctx *c, const char *local, size_t len)
{
	for (size_t i = c->nb; i-- > 0;)
		if (strlen(c->b[i].local) == len && !strncmp(c->b[i].local, local, len))
			return &c->b[i];
	return NULL;
}

static struct binding *new_binding(struct ctx *c)
{
	if (c->nb == c->ab) {
		size_t na = c->ab ? c->ab * 2 : 16;
		struct binding *b = realloc(c->b, na * sizeof(*b));
		if (!b) {
			c->rc = ENOMEM;
			return NULL;
		}
		c->b = b;
		c->ab = na;
	}
	struct binding *b = &c->b[c->nb++];
	memset(b, 0, sizeof(*b));
	return b;
}

/* Add file to a list of files whose names are visible (c->spread, or
 * c->mspread for static members), once. */
static void add_spread(struct ctx *c, uint32_t **list, size_t *n, size_t *alloc, uint32_t file)
{
	for (size_t i = 0; i < *n; i++)
		if ((*list)[i] == file)
			return;
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 16;
		uint32_t *p = realloc(*list, na * sizeof(*p));
		if (!p) {
			c->rc = ENOMEM;
			return;
		}
		*list = p;
		*alloc = na;
	}
	(*list)[(*n)++] = file;
}

/* Remember an import that names no file as a namespace whose names may
 * be used unqualified: "Shop.Models", "geo" (from geo::), "com.x". */
static void add_namespace(struct ctx *c, const char *module, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = module; *p; p++) {
		if ((p[0] == ':' && p[1] == ':') || (p[0] == '-' && p[1] == '>')) {
			strbuf_addch(&sb, '.');
			p++;
		} else if (*p == '/' || *p == '\\') {
			strbuf_addch(&sb, '.');
		} else {
			strbuf_addch(&sb, *p);
		}
	}
	/* `import a.b.C` names a type C in a.b, not a namespace */
	if (name && strcmp(name, "*"))
		strbuf_addf(&sb, ".%s", name);
	if (sb.failed || !sb.len) {
		strbuf_release(&sb);
		return;
	}
	if (c->nns == c->ans) {
		size_t na = c->ans ? c->ans * 2 : 8;
		char **p = realloc(c->ns, na * sizeof(*p));
		if (!p) {
			strbuf_release(&sb);
			return;
		}
		c->ns = p;
		c->ans = na;
	}
	c->ns[c->nns++] = strbuf_detach(&sb, NULL);
}

/* The last component of a module as written ("a.b" -> "b", "./x/y" -> "y",
 * "crate::m" -> "m", "github.com/u/p" -> "p"). */
static const char *module_tail(const char *m)
{
	const char *t = m;
	for (const char *p = m; *p; p++)
		if ((*p == '.' && p[1] != '.' && p[1] != '/') || *p == '/' || *p == ':')
			t = p + 1;
	return *t ? t : m;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Read the module files (lang->module_file) of the directories that hold
 * the language's files and of the directories above them, once per run. */
static void modules_read(struct ctx *c)
{
	struct _kbx_resolver *r = c->r;
	uint32_t bit = c->lang_id > 0 && c->lang_id < 32 ? 1u << c->lang_id : 0;
	if (!bit || (r->mods_read & bit) || !c->s->root)
		return;
	r->mods_read |= bit;
	char **dirs = NULL;
	size_t nd = 0, ad = 0;
	char prev[4096] = "", d[4096], up[4096];
	for (size_t i = 0; i < r->fi.n; i++) {
		if (_kbx_lang_for_path(r->fi.paths[i]) != c->lang)
			continue;
		_kbx_path_dirname(d, sizeof(d), r->fi.paths[i]);
		if (nd && !strcmp(d, prev))
			continue;   /* this directory and those above it are in */
		strcpy(prev, d);
		for (;;) {
			if (nd == ad) {
				size_t na = ad ? ad * 2 : 64;
				char **p = realloc(dirs, na * sizeof(*p));
				if (!p)
					goto out;
				dirs = p;
				ad = na;
			}
			if (!(dirs[nd] = strdup(d)))
				goto out;
			nd++;
			if (!*d)
				break;
			_kbx_path_dirname(up, sizeof(up), d);
			strcpy(d, up);
		}
	}
	if (nd)
		qsort(dirs, nd, sizeof(*dirs), cmp_str_ptr);
	struct strbuf rel = STRBUF_INIT, text = STRBUF_INIT;
	for (size_t i = 0; i < nd; i++) {
		if (i && !strcmp(dirs[i], dirs[i - 1]))
			continue;
		char mpath[1024];
		strbuf_reset(&rel);
		strbuf_addf(&rel, "%s%s%s", dirs[i], *dirs[i] ? "/" : "", c->lang->module_file);
		strbuf_reset(&text);
		if (rel.failed || strbuf_read_regular_at(&text, c->s->root, rel.buf, 1 << 20) != 0 ||
		    c->lang->module_path(text.buf, text.len, mpath, sizeof(mpath)) != 0)
			continue;
		if (r->nmods == r->amods) {
			size_t na = r->amods ? r->amods * 2 : 8;
			struct module_dir *p = realloc(r->mods, na * sizeof(*p));
			if (!p)
				break;
			r->mods = p;
			r->amods = na;
		}
		struct module_dir *m = &r->mods[r->nmods];
		m->lang_id = c->lang_id;
		m->path = strdup(mpath);
		m->dir = strdup(dirs[i]);
		if (m->path && m->dir) {
			r->nmods++;
		} else {
			free(m->path);
			free(m->dir);
		}
	}
	strbuf_release(&rel);
	strbuf_release(&text);
out:
	for (size_t i = 0; i < nd; i++)
		free(dirs[i]);
	free(dirs);
}

/* The directory an import path names when a module file of the
 * repository declares it or a path above it (the longest such): into
 * out as a candidate ("parser/", "/" for the top); 0 when none does. */
static int module_candidate(struct ctx *c, const char *module, struct kbx_pathlist *out)
{
	const struct module_dir *best = NULL;
	size_t blen = 0;
	modules_read(c);
	for (size_t i = 0; i < c->r->nmods; i++) {
		const struct module_dir *m = &c->r->mods[i];
		size_t len = strlen(m->path);
		if (m->lang_id == c->lang_id && len > blen && !strncmp(module, m->path, len) &&
		    (!module[len] || module[len] == '/')) {
			best = m;
			blen = len;
		}
	}
	if (!best)
		return 0;
	char p[4096], sub[4096];
	const char *rest = module[blen] ? module + blen + 1 : "";
	if (c->lang->module_dir) {
		/* a file under the module's subdirectory (Dart's lib/) */
		if (_kbx_path_join(sub, sizeof(sub), best->dir, c->lang->module_dir) == 0 &&
		    *rest && _kbx_path_join(p, sizeof(p), sub, rest) == 0 &&
		    !strncmp(p, sub, strlen(sub)) && p[strlen(sub)] == '/')
			_kbx_pathlist_add(out, p);
		return 1;
	}
	if (_kbx_path_join(p, sizeof(p), best->dir, rest) < 0)
		return 1;   /* above the top: no directory of the repository */
	_kbx_pathlist_addf(out, "%s/", p);
	return 1;
}

/* Go's standard library in the repository: the tree of a Go release
 * declares `module std` in src/go.mod, and its packages are imported by
 * their directory under src ("fmt", "internal/abi"), from any module of
 * the release (the directory above src).  The files of the package
 * module names in each such tree the importer is in, into out[0..max);
 * *ndirs: how many trees hold it (one proves the import). */
static size_t std_packages(struct ctx *c, const char *module, uint32_t *out, size_t max,
			   size_t *ndirs)
{
	size_t n = 0;
	*ndirs = 0;
	size_t first = strcspn(module, "/");
	if (strcmp(c->lang->name, "go") || !first || memchr(module, '.', first))
		return 0;
	modules_read(c);
	for (size_t i = 0; i < c->r->nmods && n < max; i++) {
		const struct module_dir *m = &c->r->mods[i];
		char p[4096], root[4096];
		_kbx_path_dirname(root, sizeof(root), m->dir);
		size_t rl = strlen(root);
		if (rl && (strncmp(c->path, root, rl) || c->path[rl] != '/'))
			continue;
		if (m->lang_id != c->lang_id || strcmp(m->path, "std") ||
		    _kbx_path_join(p, sizeof(p) - 1, m->dir, module) < 0 || !*p)
			continue;
		strcat(p, "/");
		size_t k = files_match(&c->r->fi, p, c->fam, out + n, max - n);
		if (k)
			(*ndirs)++;
		n += k;
	}
	return n;
}

/*
 * module_values: an import's dotted name walked through the files each
 * component passes on (const expect = std.testing.expect: testing.zig's
 * expect; const mem = std.mem: the file mem.zig itself).  A component
 * that is no file passed on leaves the binding as it was: its name
 * matches no definition.
 */
static void walk_binding(struct ctx *c, struct binding *b)
{
	const char *dot = strrchr(b->symname, '.');
	const char *last = dot ? dot + 1 : b->symname;
	uint32_t via[MAX_TARGETS], mods[MAX_TARGETS];
	size_t nv = walk_modules(c, b->targets, b->ntargets, b->symname,
				 dot ? (size_t)(dot - b->symname) : 0, via, 0);
	if (!nv)
		return;
	size_t nm = module_passed(c, via, nv, last, strlen(last), mods, 0);
	if (nm) {
		b->symname = NULL;
		memcpy(b->targets, mods, nm * sizeof(*mods));
		b->ntargets = nm;
	} else {
		b->symname = last;
		memcpy(b->targets, via, nv * sizeof(*via));
		b->ntargets = nv;
	}
}

/*
 * The files the import xi of the file at importer (self) names, into
 * targets[MAX_TARGETS], without self: a package of a module the
 * repository declares, else what the language guesses.  *is_dir when
 * they are one package directory (one module, however many files),
 * *is_module_name as candidate_files() says.  How many.
 */
static size_t import_targets(struct ctx *c, const char *importer, uint32_t self,
			     const struct kbx_ximport *xi, uint32_t *targets, int *is_module_name,
			     int *is_dir)
{
	struct kbx_pathlist pl = { 0 };
	size_t nt = 0, std_dirs = 0;
	int system = (xi->flags & KBX_IMPORT_SYSTEM) != 0;
	if (!system && *xi->module)
		nt = std_packages(c, xi->module, targets, MAX_TARGETS, &std_dirs);
	*is_dir = std_dirs == 1;
	int declared = nt || (!system && c->lang->module_file && *xi->module &&
			      module_candidate(c, xi->module, &pl));
	if (!declared && !system && c->lang->import_candidates)
		c->lang->import_candidates(importer, xi, &pl);
	nt = nt ? without_self(targets, nt, self) :
		  candidate_files(c, &pl, self, targets, is_module_name, is_dir);
	_kbx_pathlist_release(&pl);
	return nt;
}

static void resolve_imports(struct ctx *c)
{
	for (size_t i = 0; i < c->refs.nimports && !c->rc; i++) {
		const struct _kbx_ref_import *m = &c->refs.imports[i];
		if (m->flags & KBX_IMPORT_PACKAGE) {
			c->package = m->module;   /* the last is the file's own */
			continue;
		}
		struct kbx_ximport xi = { m->module, m->name, m->alias, m->level, m->flags, m->line };
		uint32_t targets[MAX_TARGETS];
		int is_module_name = 0, is_dir = 0;
		size_t nt = import_targets(c, c->path, c->file, &xi, targets, &is_module_name, &is_dir);
		if (!nt && (m->flags & KBX_IMPORT_WILDCARD) && !(m->flags & KBX_IMPORT_OUTER))
			c->open_wildcard = 1;

		if (nt) {
			int conf = nt == 1 || is_dir ? KBX_CONF_CERTAIN : KBX_CONF_AMBIGUOUS;
			for (size_t j = 0; j < nt; j++)
				add_edge(c, c->file, KBX_EDGE_IMPORTS, targets[j], conf, KBX_VIA_PATH,
					 is_dir ? 1 : (uint32_t)nt, m->line, 1);
		} else {
			const char *text = *m->module ? m->module : (m->name ? m->name : "");
			if (!*text)
				continue;
			uint32_t mod = ensure_floating(c, "module:", text, text, KBX_KIND_MODULE);
			add_edge(c, c->file, KBX_EDGE_IMPORTS, mod, KBX_CONF_UNRESOLVED, KBX_VIA_NONE,
				 0, m->line, 1);

		}

		/* Its names may be used unqualified where the language has
		 * namespaces (C# using, C++ using namespace): narrowing uses
		 * this when a name has several definitions. */
		if (!(m->flags & KBX_IMPORT_SYSTEM) && *m->module && !m->alias)
			add_namespace(c, m->module, m->name);

		/* What the import binds in this file. */
		if (m->flags & KBX_IMPORT_WILDCARD || (!m->name && !m->alias &&
						       (c->lang_id == _kbx_lang_id(_kbx_lang_by_name("c")) ||
							c->lang_id == _kbx_lang_id(_kbx_lang_by_name("cpp"))))) {
			if (m->flags & KBX_IMPORT_OUTER) {
				for (size_t j = 0; j < nt; j++)
					add_spread(c, &c->outer, &c->nouter, &c->aouter, targets[j]);
				continue;
			}
			if (!(m->flags & KBX_IMPORT_STATIC)) {
				for (size_t j = 0; j < nt; j++)
					add_spread(c, &c->spread, &c->nspread, &c->aspread, targets[j]);
				continue;
			}
			/* import static p.C.*: C's members, by any name (a binding
			 * with no local name) */
		}
		if (m->flags & KBX_IMPORT_MOD) {
			/* Rust `mod x;`: x.f() and x::f() reach into the file */
		}
		struct binding *b = new_binding(c);
		if (!b)
			break;
		b->module = m->module;
		b->members = (m->flags & KBX_IMPORT_STATIC) != 0;
		if (b->members && (m->flags & KBX_IMPORT_WILDCARD)) {
			b->local = "";
			b->symname = NULL;
		} else if (m->name && !is_module_name) {
			b->local = m->alias ? m->alias : m->name;
			b->symname = m->name;
		} else {
			/* `import a.b` makes "a.b" usable as written in Python; a Go
			 * or Java package is known by its last component */
			const char *local = import_binds_path(c->lang) ? m->module : module_tail(m->module);
			b->local = m->alias ? m->alias : (m->name ? m->name : local);
			b->symname = NULL;
		}
		memcpy(b->targets, targets, nt * sizeof(*targets));
		b->ntargets = nt;
		if (c->lang->module_values && nt && b->symname)
			walk_binding(c, b);
	}
}

/* Record the outcome of a name lookup as edges from src. */
static void emit_candidates(struct ctx *c, uint32_t src, int kind, const char *name,
			    const uint32_t *ids, size_t n, int via_one, uint32_t line, uint32_t col)
{
	if (n == 1) {
		add_edge(c, src, kind, ids[0], KBX_CONF_CERTAIN, via_one, 1, line, col);
	} else if (n <= AMBIGUOUS_MAX) {
		for (size_t i = 0; i < n; i++)
			add_edge(c, src, kind, ids[i], KBX_CONF_AMBIGUOUS,
				 via_one == KBX_VIA_UNIQUE ? KBX_VIA_NAME : via_one, (uint32_t)n,
				 line, col);
	} else {
		uint32_t nr = ensure_floating(c, "name:", name, name, KBX_KIND_NAMEREF);
		add_edge(c, src, kind, nr, KBX_CONF_AMBIGUOUS, KBX_VIA_NAME, (uint32_t)n, line, col);
	}
}

/* An external's name without the source text of its receiver: each
 * argument list "(...)" or index "[...]" of a call chain is written
 * "()" or "[]", so that yargs.command('a', 'b').command names the same
 * external as any other command(...).command, and no string of the
 * source becomes a name. */
static void tidy_external(struct strbuf *out, const char *qual)
{
	int depth = 0;
	for (const char *p = qual; *p; p++) {
		if (*p == '(' || *p == '[') {
			if (!depth++)
				strbuf_addch(out, *p);
		} else if (*p == ')' || *p == ']') {
			if (depth && !--depth)
				strbuf_addch(out, *p);
		} else if (!depth) {
			strbuf_addch(out, *p);
		}
	}
}

/* Does the language write a path to an external with "::" (Rust's
 * std::process::exit, C++'s std::vector::push_back)?  Ruby's scope_sep
 * is "::" too, but its methods are called with '.' (File.read). */
static int external_scoped(const struct kbx_lang *lang)
{
	return !strcmp(lang->name, "rust") || !strcmp(lang->name, "cpp");
}

static void emit_external(struct ctx *c, uint32_t src, int kind, const char *qual,
			  const char *name, uint32_t line, uint32_t col)
{
	struct strbuf tidy = STRBUF_INIT;
	if (strpbrk(qual, "(["))
		tidy_external(&tidy, qual);
	if (tidy.len && !tidy.failed)
		qual = tidy.buf;
	/* the path as the language writes it: extern:std::process::exit
	 * (kbx_lookup takes either separator) */
	struct strbuf scoped = STRBUF_INIT;
	if (external_scoped(c->lang) && strchr(qual, '.')) {
		for (const char *p = qual; *p; p++)
			if (*p == '.')
				strbuf_addstr(&scoped, "::");
			else
				strbuf_addch(&scoped, *p);
		if (!scoped.failed)
			qual = scoped.buf;
	}
	uint32_t ext = ensure_floating(c, "extern:", qual, name, KBX_KIND_EXTERNAL);
	strbuf_release(&scoped);
	strbuf_release(&tidy);
	add_edge(c, src, kind, ext, KBX_CONF_UNRESOLVED, KBX_VIA_NONE, 0, line, col);
}

/* The id of PATH#QUAL.NAME for a type node id, or 0. */
static uint32_t member_of(struct ctx *c, uint32_t type_id, const char *name)
{
	struct kbx_node t;
	if (_kbx_node_read(c->s, _kbx_txn(c->s), type_id, &t) != KBX_OK)
		return 0;
	struct strbuf cid = STRBUF_INIT;
	strbuf_addf(&cid, "%s.%s", t.cid, name);
	uint32_t id = cid.failed ? 0 : _kbx_id_of(c->s, cid.buf);
	if (!id && !cid.failed && (!strcmp(c->lang->name, "cpp") || !strcmp(c->lang->name, "objc"))) {
		/* a member defined outside its class's body, in another file
		 * (C++ `void Foo::bar() {}`, an Objective-C @implementation
		 * of a class a header declares): the one definition whose
		 * qualified name is the class's and the member's */
		/* its qualified name: the type's and the member's (the
		 * type's path may hold '#' too) */
		const char *qual = cid.buf + (t.qual - t.cid);
		uint32_t cands[8];
		size_t n = t.path ? defs_filtered(c, name, M_METHOD | M_FUNC, c->fam,
						  filter_qual_equal, qual, cands, 8) : 0;
		if (n > 8)
			n = 0;
		/* not a member of another class of that name, one its own
		 * file defines */
		for (size_t i = 0; i < n && i < 8; i++) {
			struct kbx_node d;
			if (_kbx_node_read(c->s, _kbx_txn(c->s), cands[i], &d) != KBX_OK)
				continue;
			const char *dot = strrchr(d.cid, '.');
			struct strbuf own = STRBUF_INIT;
			if (dot)
				strbuf_add(&own, d.cid, (size_t)(dot - d.cid));
			uint32_t cls = dot && !own.failed ? _kbx_id_of(c->s, own.buf) : 0;
			strbuf_release(&own);
			if (cls && cls != type_id)
				continue;
			if (id) {
				id = 0;    /* two: not proved */
				break;
			}
			id = cands[i];
		}
	}
	strbuf_release(&cid);
	return id;
}

/* The classes at the other end of t's INHERITS edges in dbi (edges: its
 * bases; redges: the classes that extend it): the certain ones appended
 * to queue (at most 64 in all), and the first other one (a base outside
 * the repository) into *other when other is given and *other is 0. */
static void inherits_edges(struct ctx *c, MDB_dbi dbi, uint32_t t, uint32_t *queue, size_t *qt,
			   uint32_t *other, int any);

static void inherits_of(struct ctx *c, MDB_dbi dbi, uint32_t t, uint32_t *queue, size_t *qt,
			uint32_t *other)
{
	inherits_edges(c, dbi, t, queue, qt, other, 0);
}

/* As inherits_of; with any, every edge whatever its confidence (the
 * classes extending an external, whose edges are unresolved). */
static void inherits_edges(struct ctx *c, MDB_dbi dbi, uint32_t t, uint32_t *queue, size_t *qt,
			   uint32_t *other, int any)
{
	unsigned char start[5];
	_kbx_put_u32(start, t);
	start[4] = KBX_EDGE_INHERITS;
	MDB_cursor *cur;
	if (mdb_cursor_open(_kbx_txn(c->s), dbi, &cur))
		return;
	MDB_val k = { 5, start }, d;
	int g = mdb_cursor_get(cur, &k, &d, MDB_SET_RANGE);
	while (!g && k.mv_size == KBX_EDGE_KEY_LEN && !memcmp(k.mv_data, start, 5) && *qt < 64) {
		const unsigned char *v = d.mv_data;
		uint32_t to = _kbx_get_u32((const unsigned char *)k.mv_data + 5);
		if (any || (d.mv_size && v[0] == KBX_CONF_CERTAIN))
			queue[(*qt)++] = to;
		else if (other && !*other)
			*other = to;
		g = mdb_cursor_get(cur, &k, &d, MDB_NEXT);
	}
	mdb_cursor_close(cur);
}

/* Search cls and its bases, breadth first, for a member named name.
 * With skip_self, start at the bases (super). */
static int kind_of(struct ctx *c, uint32_t id);

static uint32_t member_in_hierarchy(struct ctx *c, uint32_t cls, const char *name, int skip_self)
{
	uint32_t queue[64], declared = 0;
	size_t qh = 0, qt = 0;
	queue[qt++] = cls;
	while (qh < qt) {
		uint32_t t = queue[qh++];
		if (!(skip_self && t == cls)) {
			uint32_t m = member_of(c, t, name);
			/* a member the call cannot be, by its arguments'
			 * count (a subclass's start(a, b) for start()): the
			 * bases may have one it can, or an extension */
			if (m && !takes_args(c, m, c->nargs))
				m = 0;
			/* an interface's declaration, nearer than the class that
			 * implements it (a Kotlin coroutine reaches Job through
			 * its interfaces before JobSupport through its classes):
			 * the implementation runs, if a base class has one */
			if (m && kind_of(c, t) == KBX_KIND_INTERFACE) {
				if (!declared)
					declared = m;
			} else if (m) {
				return m;
			}
		}
		inherits_of(c, c->s->edges, t, queue, &qt, NULL);
	}
	return declared;
}

/* The first base outside the repository of cls or of its bases,
 * breadth first: its name as written ("string.Formatter") into out;
 * 0 when every base is the repository's. */
static int external_base(struct ctx *c, uint32_t cls, struct strbuf *out)
{
	uint32_t queue[64], ext = 0;
	size_t qh = 0, qt = 0;
	queue[qt++] = cls;
	while (qh < qt && !ext)
		inherits_of(c, c->s->edges, queue[qh++], queue, &qt, &ext);
	struct kbx_node n;
	if (!ext || _kbx_node_read(c->s, _kbx_txn(c->s), ext, &n) != KBX_OK ||
	    n.kind != KBX_KIND_EXTERNAL || strncmp(n.cid, "extern:", 7))
		return 0;
	strbuf_addstr(out, n.cid + 7);
	return !out->failed;
}

/* Does a class that extends cls, at any depth, have a member named name,
 * its own or from its other bases (a hook cls calls, a mixin's partner)? */
static int subclass_has(struct ctx *c, uint32_t cls, const char *name)
{
	uint32_t queue[64];
	size_t qh = 0, qt = 0;
	inherits_of(c, c->s->redges, cls, queue, &qt, NULL);
	while (qh < qt) {
		uint32_t t = queue[qh++];
		if (member_in_hierarchy(c, t, name, 0))
			return 1;
		inherits_of(c, c->s->redges, t, queue, &qt, NULL);
	}
	return 0;
}

/* Is the definition id a member of the package the file being resolved
 * declares: at the top of a file that declares the same package (Kotlin's
 * package header: a package may span directories)?  A class's member
 * is not, whatever its file's package. */
static int same_package(struct ctx *c, uint32_t id)
{
	struct kbx_node n;
	if (!c->package || _kbx_node_read(c->s, _kbx_txn(c->s), id, &n) != KBX_OK ||
	    n.parent != n.file)
		return 0;
	const struct file_defs *fd = file_defs_get(c, n.file);
	return fd && fd->package && !strcmp(fd->package, c->package);
}

/* The methods named name that the repository's subclasses of the
 * external class type (at any depth) define: how many, the first max in
 * ids. */
static size_t overrides_of_external(struct ctx *c, const char *type, const char *name,
				    uint32_t *ids, size_t max)
{
	struct strbuf cid = STRBUF_INIT;
	strbuf_addf(&cid, "extern:%s", type);
	uint32_t ext = cid.failed ? 0 : _kbx_id_of(c->s, cid.buf);
	strbuf_release(&cid);
	if (!ext)
		return 0;
	uint32_t queue[64];
	size_t qh = 0, qt = 0, n = 0;
	inherits_edges(c, c->s->redges, ext, queue, &qt, NULL, 1);
	while (qh < qt) {
		uint32_t t = queue[qh++];
		uint32_t m = member_of(c, t, name);
		if (m && n < max)
			ids[n++] = m;
		inherits_of(c, c->s->redges, t, queue, &qt, NULL);
	}
	return n;
}

static uint32_t class_id(struct ctx *c, const char *class_qual)
{
	struct strbuf cid = STRBUF_INIT;
	strbuf_addf(&cid, "%s#%s", c->path, class_qual);
	uint32_t id = cid.failed ? 0 : _kbx_id_of(c->s, cid.buf);
	strbuf_release(&cid);
	return id;
}

/* What a type name, as a file writes it (a base, a declared type),
 * stands for: in-tree types (n, the first AMBIGUOUS_MAX + 1 in ids, by
 * the rule via), or none (n 0: outside the repository, or defined
 * nowhere; with unknown, a name the repository binds to something that
 * is not a type, so nothing is known of its values).  exclude is a type
 * that cannot be meant (a class is not its own base); mask the kinds
 * that count (M_BASE). */
struct type_res {
	size_t n;
	uint32_t ids[AMBIGUOUS_MAX + 1];
	int via;
	int unknown;
	/* module_values: the type is these files themselves (a Zig file is
	 * a struct: const Mutex = @import("Thread/Mutex.zig")), whose
	 * top-level functions are its methods */
	size_t nfiles;
	uint32_t files[MAX_TARGETS];
};

/*
 * An import binding's files do not define want as a type: is it
 * something else there?  A function or a method of that name is; in
 * Python, so is a name the files neither define nor import (a variable:
 * `T = TypeVar("T")`, `Make = make_factory()`), since Python states
 * no variable as a definition.  A name they import, or a wildcard they
 * import, may be a type passed on (a re-export), so it is not.
 */
static int bound_to_non_type(struct ctx *c, const struct binding *b, const char *want)
{
	uint32_t one[1];
	if (defs_named(c, want, M_FUNC | M_METHOD, 0, b->targets, b->ntargets, one, 1))
		return 1;
	if (!import_binds_path(c->lang))
		return 0;
	return !defs_named(c, want, M_TYPE | M_NS | M_IMPORT, 0, b->targets, b->ntargets, one, 1) &&
	       !defs_named(c, "*", M_IMPORT, 0, b->targets, b->ntargets, one, 1);
}

/* Drop exclude from the first n (at most AMBIGUOUS_MAX + 1) of ids;
 * how many remain. */
static size_t without(uint32_t *ids, size_t n, uint32_t exclude)
{
	size_t k = 0;
	for (size_t j = 0; j < n && j < AMBIGUOUS_MAX + 1; j++)
		if (ids[j] != exclude)
			ids[k++] = ids[j];
	return k;
}

/* The files of the caller's directory, where a directory is a package
 * (Go, and Kotlin and Swift by convention): how many, in files. */
static size_t package_files(struct ctx *c, uint32_t *files, size_t max)
{
	char dir[4096];
	_kbx_path_dirname(dir, sizeof(dir) - 1, c->path);
	if (*dir)
		strcat(dir, "/");
	return *dir ? files_match(&c->r->fi, dir, c->fam, files, max)
		    : top_level_files(&c->r->fi, c->fam, files, max);
}

static void resolve_type(struct ctx *c, const char *tname, uint32_t exclude, int mask,
			 struct type_res *out)
{
	const char *last = strrchr(tname, '.');
	last = last ? last + 1 : tname;
	const char *dot = strchr(tname, '.');
	size_t n;
	out->n = 0;
	out->via = KBX_VIA_NONE;
	out->unknown = 0;
	out->nfiles = 0;
	if (c->lang->module_values && !strcmp(tname, "@This")) {
		/* the caller's own file (const Self = @This() at its top) */
		out->files[0] = c->file;
		out->nfiles = 1;
		return;
	}
	if (c->lang->absolute_types) {
		/* the full name the language expanded: that type or none */
		n = defs_filtered(c, last, mask, c->fam, filter_qual_equal, tname, out->ids,
				  AMBIGUOUS_MAX + 1);
		n = without(out->ids, n, exclude);
		out->n = n;
		out->via = n ? KBX_VIA_QUALIFIED : KBX_VIA_NONE;
		return;
	}
	/* a type named through an import: m.Base or Base */
	struct binding *b = find_binding(c, tname, dot ? (size_t)(dot - tname) : strlen(tname));
	if (b && b->ntargets && c->lang->module_values) {
		/* std.mem.Allocator: mem a file std.zig passes on */
		uint32_t via[MAX_TARGETS];
		size_t nv = walk_modules(c, b->targets, b->ntargets, dot ? dot + 1 : "",
					 dot && last - 1 > dot ? (size_t)(last - 1 - (dot + 1)) : 0,
					 via, 0);
		if (!dot && !b->symname) {
			/* the imported file itself */
			memcpy(out->files, b->targets, b->ntargets * sizeof(*out->files));
			out->nfiles = b->ntargets;
			return;
		}
		const char *want = dot ? last : b->symname;
		n = nv ? named_or_passed(c, want, mask, via, nv, out->ids) : 0;
		if (!n && nv)
			out->nfiles = module_passed(c, via, nv, want, strlen(want), out->files, 0);
		out->n = n;
		out->via = KBX_VIA_IMPORT;
		out->unknown = !n && !out->nfiles;
		return;
	}
	if (b && b->ntargets) {
		const char *want = dot || !b->symname ? last : b->symname;
		n = defs_named(c, want, mask, 0, b->targets, b->ntargets, out->ids,
			       AMBIGUOUS_MAX + 1);
		if (n) {
			out->n = n;
			out->via = KBX_VIA_IMPORT;
			return;
		}
		/* a factory function or a variable there, however many
		 * classes elsewhere share its name (m.Make, not m.sub.Make) */
		if ((!dot || dot == strrchr(tname, '.')) && bound_to_non_type(c, b, want)) {
			out->unknown = 1;
			return;
		}
	} else if (b) {
		return;   /* from outside the repository */
	}
	/* the same file */
	if (!dot) {
		n = defs_named(c, last, mask, 0, &c->file, 1, out->ids, AMBIGUOUS_MAX + 1);
		size_t k = without(out->ids, n, exclude);
		if (k) {
			out->n = k;
			out->via = KBX_VIA_FILE;
			return;
		}
	}
	if (c->nspread) {
		n = defs_named(c, last, mask, 0, c->spread, c->nspread, out->ids, AMBIGUOUS_MAX + 1);
		if (!n && !dot)
			n = passed_on(c, c->spread, c->nspread, last, mask, out->ids,
				      AMBIGUOUS_MAX + 1, 0);
		if (n) {
			out->n = n;
			out->via = KBX_VIA_IMPORT;
			return;
		}
	}
	/* the package's, where a directory is one, and what its files
	 * pass on */
	if (!dot && c->lang->dir_is_package) {
		uint32_t files[1024];
		size_t nf = package_files(c, files, 1024);
		n = named_or_passed(c, last, mask, files, nf, out->ids);
		size_t k = without(out->ids, n, exclude);
		if (k) {
			out->n = k;
			out->via = KBX_VIA_SCOPE;
			return;
		}
	}
	/* the packages around it */
	if (!dot && c->nouter) {
		n = named_or_passed(c, last, mask, c->outer, c->nouter, out->ids);
		size_t k = without(out->ids, n, exclude);
		if (k) {
			out->n = k;
			out->via = KBX_VIA_SCOPE;
			return;
		}
	}
	/* a name the file neither declares nor imports is no other file's
	 * (Zig's const Fe = Field(...); a type parameter T) */
	if (c->lang->module_values) {
		out->unknown = 1;
		return;
	}
	/* R.Base with R a namespace or an enclosing type */
	if (dot) {
		n = defs_filtered(c, last, mask, c->fam, filter_qual_suffix, tname, out->ids,
				  AMBIGUOUS_MAX + 1);
		if (n) {
			out->n = n;
			out->via = KBX_VIA_QUALIFIED;
			return;
		}
	}
	struct everywhere ev;
	defs_everywhere(c, last, mask, c->fam, &ev);
	const struct everywhere *e = &ev;
	if (!e->n)
		return;
	size_t k = 0, stored = e->n < AMBIGUOUS_MAX + 1 ? e->n : AMBIGUOUS_MAX + 1;
	for (size_t j = 0; j < stored; j++)
		if (e->ids[j] != exclude)
			out->ids[k++] = e->ids[j];
	n = e->n - (stored - k);
	out->via = KBX_VIA_UNIQUE;
	if (n > 1) {
		uint32_t nids[AMBIGUOUS_MAX + 1];
		size_t m = narrow_candidates(c, exclude ? exclude : c->file, last, mask, nids, n,
					     AMBIGUOUS_MAX, &out->via);
		if (m < n) {
			memcpy(out->ids, nids, m * sizeof(*out->ids));
			n = m;
		} else {
			out->via = KBX_VIA_UNIQUE;
		}
	}
	out->n = n;
}

static void resolve_inherits(struct ctx *c)
{
	for (size_t i = 0; i < c->refs.ninherits && !c->rc; i++) {
		const struct _kbx_ref_inherit *h = &c->refs.inherits[i];
		const char *last = strrchr(h->base, '.');
		last = last ? last + 1 : h->base;
		struct type_res t;
		resolve_type(c, h->base, h->cls, M_BASE, &t);
		if (t.n)
			emit_candidates(c, h->cls, KBX_EDGE_INHERITS, last, t.ids, t.n, t.via, h->line,
					1);
		else
			emit_external(c, h->cls, KBX_EDGE_INHERITS, h->base, last, h->line, 1);
	}
}

/* A receiver written as a literal value ("".join(), b"".join(), [].append(),
 * 1.0.hex(), ()): a value of a built-in type, never of the repository.
 * In Objective-C, [ starts a message and @ a literal (@"", @[], @{}, @1). */
static int literal_receiver(const struct kbx_lang *lang, const char *rcv)
{
	if (!rcv || !rcv[0])
		return 0;
	if (!strcmp(lang->name, "objc"))
		return strchr("@\"'0123456789", rcv[0]) != NULL;
	if (strchr("\"'`[{0123456789", rcv[0]) || (rcv[0] == '(' && rcv[1] == ')'))
		return 1;
	/* string prefixes: b"", r'', f"", rb"", u'' */
	size_t i = 0;
	while (i < 2 && rcv[i] && strchr("bBrRfFuU", rcv[i]))
		i++;
	return i && (rcv[i] == '"' || rcv[i] == '\'');
}

/* The methods named name in the type ids[0..n) and their bases: into
 * out (at most max), how many there are.  *open is set when one of the
 * hierarchies has a base kbx cannot see (outside the repository), so a
 * method missing there may be the base's. */
static size_t members_in_types(struct ctx *c, const uint32_t *ids, size_t n, const char *name,
			       uint32_t *out, size_t max)
{
	size_t found = 0;
	for (size_t i = 0; i < n && i < AMBIGUOUS_MAX + 1; i++) {
		uint32_t m = member_in_hierarchy(c, ids[i], name, 0);
		if (!m)
			continue;
		size_t j = 0;
		while (j < found && j < max && out[j] != m)
			j++;
		if (j < found)
			continue;   /* the same method through two types */
		if (found < max)
			out[found] = m;
		found++;
	}
	return found;
}

/* A call whose receiver kbx cannot type: each method of that name the
 * language family defines is a candidate, and none is proved (ambiguous,
 * even when there is one); none is an external. */
/* A qualified name of an extension function (Pump.drain): dotted. */
static int filter_dotted(const void *data, const char *qual)
{
	(void)data;
	return qual && strchr(qual, '.') != NULL;
}

static void call_on_unknown(struct ctx *c, uint32_t src, const char *name, uint32_t line,
			    uint32_t col)
{
	struct everywhere ev;
	/* the methods of every file, and those its own file alone sees
	 * (Zig's fn without pub) */
	ev.n = defs_select(c, name, M_METHOD, c->fam, 0, NULL, NULL, ev.ids, AMBIGUOUS_MAX + 1);
	if (c->lang->extension_functions && ev.n <= AMBIGUOUS_MAX) {
		/* and the functions extending a type (Kotlin's fun
		 * (suspend () -> T).startCoroutine...: block.start...()) */
		size_t k = defs_filtered(c, name, M_FUNC, c->fam, filter_dotted, NULL, ev.ids + ev.n,
					 AMBIGUOUS_MAX + 1 - ev.n);
		ev.n += k < AMBIGUOUS_MAX + 1 - ev.n ? k : AMBIGUOUS_MAX + 1 - ev.n;
	}
	if (!ev.n) {
		emit_external(c, src, KBX_EDGE_CALLS, name, name, line, col);
		return;
	}
	if (ev.n > AMBIGUOUS_MAX) {
		emit_candidates(c, src, KBX_EDGE_CALLS, name, ev.ids, ev.n, KBX_VIA_NAME, line, col);
		return;
	}
	for (size_t i = 0; i < ev.n; i++)
		add_edge(c, src, KBX_EDGE_CALLS, ev.ids[i], KBX_CONF_AMBIGUOUS, KBX_VIA_NAME,
			 (uint32_t)ev.n, line, col);
}

/* The name of an external reached through an import from outside the
 * repository: the import's module (and the name it brings), then rest
 * (".Sub", or NULL) and name: com.lib.Formatter.format. */
static void external_through(struct strbuf *q, const struct binding *b, const char *rest,
			     const char *name)
{
	if (b->symname)
		strbuf_addf(q, "%s.%s%s.%s", b->module, b->symname, rest ? rest : "", name);
	else
		strbuf_addf(q, "%s%s.%s", b->module, rest ? rest : "", name);
}

/* A call on a receiver whose static type the source states: the method
 * in that type and its bases (certain when one type is meant, via
 * "type"), or an external Type.name when the type is not the
 * repository's or does not have the method.  call_in_types does it for
 * types already found (types[0..nt), written type), with via. */
static void call_in_types(struct ctx *c, uint32_t src, const uint32_t *types, size_t nt,
			  const char *type, const char *name, int via, uint32_t line, uint32_t col)
{
	uint32_t ids[AMBIGUOUS_MAX + 1];
	size_t n = nt ? members_in_types(c, types, nt, name, ids, AMBIGUOUS_MAX + 1) : 0;
	if (n == 1 && nt == 1) {
		add_edge(c, src, KBX_EDGE_CALLS, ids[0], KBX_CONF_CERTAIN, via, 1, line, col);
		return;
	}
	if (n) {
		emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n < AMBIGUOUS_MAX + 1 ? n :
				AMBIGUOUS_MAX + 1, via, line, col);
		return;
	}
	struct strbuf q = STRBUF_INIT;
	if (c->lang->extension_functions) {
		/* fun T.name() or extension T { func name() } declared for
		 * the type outside it */
		const char *dot = strrchr(type, '.');
		strbuf_addf(&q, "%s.%s", dot ? dot + 1 : type, name);
		n = q.failed ? 0 : defs_filtered(c, name, M_FUNC | M_METHOD, c->fam,
						 filter_qual_equal, q.buf, ids, AMBIGUOUS_MAX + 1);
		n = taking_args(c, ids, n);
		/* or one declared for a base of the type (fun
		 * AbstractCoroutine.start() on a ScopeCoroutine), the nearest */
		uint32_t queue[64];
		size_t qh = 0, qt = 0;
		for (size_t i = 0; i < nt && qt < 64; i++)
			inherits_of(c, c->s->edges, types[i], queue, &qt, NULL);
		while (!n && qh < qt) {
			struct kbx_node b;
			uint32_t t = queue[qh++];
			if (_kbx_node_read(c->s, _kbx_txn(c->s), t, &b) != KBX_OK || !b.name)
				continue;
			strbuf_reset(&q);
			strbuf_addf(&q, "%s.%s", b.name, name);
			n = q.failed ? 0 : defs_filtered(c, name, M_FUNC | M_METHOD, c->fam,
							 filter_qual_equal, q.buf, ids,
							 AMBIGUOUS_MAX + 1);
			n = taking_args(c, ids, n);
			inherits_of(c, c->s->edges, t, queue, &qt, NULL);
		}
		if (n == 1) {
			add_edge(c, src, KBX_EDGE_CALLS, ids[0], KBX_CONF_CERTAIN, via, 1, line, col);
		} else if (n) {
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, via, line, col);
		}
		strbuf_reset(&q);
		if (n) {
			strbuf_release(&q);
			return;
		}
	}
	/* a message to a class outside the repository runs, at run time,
	 * the override of the receiver's class: one of the repository's
	 * subclasses', or the class's own */
	if (!nt && c->lang->late_binding) {
		n = overrides_of_external(c, type, name, ids, AMBIGUOUS_MAX);
		if (n) {
			for (size_t i = 0; i < n; i++)
				add_edge(c, src, KBX_EDGE_CALLS, ids[i], KBX_CONF_AMBIGUOUS, via,
					 (uint32_t)n + 1, line, col);
			strbuf_release(&q);
			return;
		}
	}
	/* a type an import brings from outside the repository is named as
	 * the import names it (Formatter after import com.lib.Formatter:
	 * extern:com.lib.Formatter.format), as a call through the import
	 * itself is */
	const char *tdot = strchr(type, '.');
	struct binding *b = find_binding(c, type, tdot ? (size_t)(tdot - type) : strlen(type));
	if (b && !b->ntargets)
		external_through(&q, b, tdot, name);
	else
		strbuf_addf(&q, "%s.%s", type, name);
	emit_external(c, src, KBX_EDGE_CALLS, q.failed ? name : q.buf, name, line, col);
	strbuf_release(&q);
}

static size_t keep_qual(struct ctx *c, uint32_t *ids, size_t n, const char *scope,
			const char *name);

static void call_on_type(struct ctx *c, uint32_t src, const char *type, const char *name,
			 uint32_t line, uint32_t col)
{
	struct type_res t;
	resolve_type(c, type, 0, M_TYPE, &t);
	/* JavaScript's constructor functions are its classes before `class`:
	 * new Widget() is a Widget whose methods are this.run = function ...
	 * and Widget.prototype.run = ... */
	const char *script = _kbx_lang_script_name(c->lang->name);
	if (!t.n && !t.unknown &&
	    !strcmp(script ? script : c->lang->name, "javascript")) {
		struct type_res f;
		resolve_type(c, type, 0, M_TYPE | M_FUNC, &f);
		if (f.n)
			t = f;
	}
	if (t.unknown) {
		call_on_unknown(c, src, name, line, col);
		return;
	}
	if (t.nfiles) {
		/* a file that is a struct: its function of that name */
		uint32_t ids[AMBIGUOUS_MAX + 1];
		size_t n = defs_named(c, name, M_FUNC, 0, t.files, t.nfiles, ids, AMBIGUOUS_MAX + 1);
		n = n <= AMBIGUOUS_MAX ? keep_qual(c, ids, n, NULL, name) : 0;
		if (n)
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, KBX_VIA_TYPE, line, col);
		else
			call_on_unknown(c, src, name, line, col);
		return;
	}
	/* a type found only by its name's uniqueness, where the file's
	 * wildcard import may bring another of that name, or where its
	 * qualifier (java.io.Reader) names no package of the repository */
	if (t.n && t.via == KBX_VIA_UNIQUE && c->lang->wildcards_hide &&
	    (strchr(type, '.') || (c->open_wildcard && !(t.n == 1 && same_package(c, t.ids[0]))))) {
		uint32_t ids[AMBIGUOUS_MAX + 1];
		size_t n = members_in_types(c, t.ids, t.n, name, ids, AMBIGUOUS_MAX + 1);
		if (n && n <= AMBIGUOUS_MAX) {
			for (size_t i = 0; i < n; i++)
				add_edge(c, src, KBX_EDGE_CALLS, ids[i], KBX_CONF_AMBIGUOUS,
					 KBX_VIA_NAME, (uint32_t)n + 1, line, col);
			return;
		}
	}
	call_in_types(c, src, t.ids, t.n, type, name, KBX_VIA_TYPE, line, col);
}

/* m.f() where the module m is the table its file returns (Lua): f in
 * that table or its bases, in each file the import names.  How many
 * were found, the first AMBIGUOUS_MAX + 1 in ids. */
static size_t returned_members(struct ctx *c, const struct binding *b, const char *name,
			       uint32_t *ids)
{
	size_t found = 0;
	for (size_t j = 0; j < b->ntargets; j++) {
		const struct file_defs *fd = file_defs_get(c, b->targets[j]);
		for (size_t i = 0; fd && i < fd->n && found <= AMBIGUOUS_MAX; i++) {
			if (!(fd->defs[i].mask & M_RETURNED))
				continue;
			uint32_t m = member_in_hierarchy(c, fd->defs[i].id, name, 0);
			if (m)
				ids[found++] = m;
		}
	}
	return found;
}

/* The members named name of the class a static import names (import
 * static p.C.m, import static p.C.*: the class C of the imported file),
 * and of its bases. */
static size_t static_members(struct ctx *c, const struct binding *b, const char *name,
			     uint32_t *ids)
{
	uint32_t types[AMBIGUOUS_MAX + 1];
	size_t nt = defs_named(c, module_tail(b->module), M_TYPE, 0, b->targets, b->ntargets,
			       types, AMBIGUOUS_MAX + 1);
	return members_in_types(c, types, nt, name, ids, AMBIGUOUS_MAX + 1);
}

/* Is the definition id nested in a function or a method: a helper only
 * its enclosing definition sees? */
static int kind_of(struct ctx *c, uint32_t id)
{
	struct kbx_node n;
	return _kbx_node_read(c->s, _kbx_txn(c->s), id, &n) == KBX_OK ? n.kind : 0;
}

static int nested_in_callable(struct ctx *c, uint32_t id)
{
	struct kbx_node n, p;
	return _kbx_node_read(c->s, _kbx_txn(c->s), id, &n) == KBX_OK && n.parent &&
	       n.parent != n.file &&
	       _kbx_node_read(c->s, _kbx_txn(c->s), n.parent, &p) == KBX_OK &&
	       KBX_KIND_IS_CALLABLE(p.kind);
}

/* Keep in ids[0..n) the definitions whose qualified name is
 * scope.name (name alone with scope NULL); returns how many remain. */
static size_t keep_qual(struct ctx *c, uint32_t *ids, size_t n, const char *scope,
			const char *name)
{
	struct strbuf q = STRBUF_INIT;
	struct kbx_node d;
	size_t k = 0;
	if (scope)
		strbuf_addf(&q, "%s.", scope);
	strbuf_addstr(&q, name);
	for (size_t i = 0; i < n && !q.failed; i++)
		if (_kbx_node_read(c->s, _kbx_txn(c->s), ids[i], &d) == KBX_OK && d.qual &&
		    !strcmp(d.qual, q.buf))
			ids[k++] = ids[i];
	strbuf_release(&q);
	return k;
}

/* Keep in ids[0..n) the definitions at the top of the file or in a
 * definition enclosing src; returns how many remain. */
static size_t keep_enclosing(struct ctx *c, uint32_t src, uint32_t *ids, size_t n)
{
	uint32_t up[64];
	size_t nup = 0, k = 0;
	struct kbx_node d;
	for (uint32_t at = src; at && at != c->file && nup < 64; at = d.parent) {
		if (_kbx_node_read(c->s, _kbx_txn(c->s), at, &d) != KBX_OK)
			break;
		up[nup++] = at;
	}
	for (size_t i = 0; i < n; i++) {
		if (_kbx_node_read(c->s, _kbx_txn(c->s), ids[i], &d) != KBX_OK)
			continue;
		int seen = !d.parent || d.parent == c->file;
		for (size_t j = 0; j < nup && !seen; j++)
			seen = d.parent == up[j];
		if (seen)
			ids[k++] = ids[i];
	}
	return k;
}

/* Drop the helpers nested in functions or methods from ids[0..n): a
 * plain call that no enclosing definition answered cannot see them.
 * Only when all n are in ids; returns how many remain. */
static size_t drop_nested(struct ctx *c, uint32_t *ids, size_t n)
{
	if (n > AMBIGUOUS_MAX + 1 || !c->lang->nested_defs)
		return n;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!nested_in_callable(c, ids[i]))
			ids[k++] = ids[i];
	return k;
}

/* f() in a function or method that defines f inside it, or inside a
 * function or method enclosing it (through a class defined in one): the
 * innermost such f, or 0.
 * *several is set when that scope defines f more than once. */
static uint32_t nested_def(struct ctx *c, uint32_t src, const char *name, int mask,
			   int *several)
{
	struct strbuf q = STRBUF_INIT;
	uint32_t scope = src, found = 0;
	if (!c->lang->nested_defs)
		return 0;
	for (int depth = 0; scope && scope != c->file && !found && depth < 64; depth++) {
		struct kbx_node n, d;
		if (_kbx_node_read(c->s, _kbx_txn(c->s), scope, &n) != KBX_OK)
			break;
		/* a class inside a function: its methods see the function's
		 * helpers (not the class's own names: self.f() reaches those) */
		if (KBX_KIND_IS_TYPE(n.kind) && n.parent && n.parent != c->file) {
			scope = n.parent;
			continue;
		}
		if (!KBX_KIND_IS_CALLABLE(n.kind))
			break;
		strbuf_reset(&q);
		strbuf_addf(&q, "%s.%s", n.cid, name);
		scope = n.parent;
		uint32_t id = q.failed ? 0 : _kbx_id_of(c->s, q.buf);
		if (id && _kbx_node_read(c->s, _kbx_txn(c->s), id, &d) == KBX_OK &&
		    (kind_mask(d.kind) & mask)) {
			found = id;
			*several = (d.flags & KBX_NODE_REDEFINED) != 0;
		}
	}
	strbuf_release(&q);
	return found;
}

/* The one class of the family whose qualified name is class_qual, in
 * whatever file (an Objective-C @implementation's class, which a header
 * declares), or 0 when there is none or more than one. */
static uint32_t class_elsewhere(struct ctx *c, const char *class_qual)
{
	const char *dot = strrchr(class_qual, '.');
	uint32_t cands[2];
	size_t n = defs_filtered(c, dot ? dot + 1 : class_qual, M_TYPE, c->fam, filter_qual_equal,
				 class_qual, cands, 2);
	return n == 1 ? cands[0] : 0;
}

/* The type a field named name of the class cls, or of its bases, is
 * declared with, in whatever file declares it: NULL when no field of
 * that name states a type (or two of them state different ones). */
static const char *field_type(struct ctx *c, uint32_t cls, const char *name)
{
	uint32_t queue[64];
	size_t qh = 0, qt = 0;
	queue[qt++] = cls;
	while (qh < qt) {
		uint32_t t = queue[qh++];
		struct kbx_node n;
		if (_kbx_node_read(c->s, _kbx_txn(c->s), t, &n) != KBX_OK)
			continue;
		const struct file_defs *fd = file_defs_get(c, n.file);
		const char *found = NULL;
		for (size_t i = 0; fd && i < fd->nfields; i++) {
			const struct local_field *f = &fd->fields[i];
			if (f->cls != t || strcmp(f->name, name))
				continue;
			if (found && strcmp(found, f->type))
				return NULL;
			found = f->type;
		}
		if (found)
			return found;
		inherits_of(c, c->s->edges, t, queue, &qt, NULL);
	}
	return NULL;
}

/* The class of a caller whose qualified class name is class_qual: in
 * this file, else the one of the family elsewhere (a C++ class whose
 * methods another file defines, a Kotlin extension's type), or 0. */
static uint32_t caller_class(struct ctx *c, const char *class_qual)
{
	uint32_t cls = class_id(c, class_qual);
	return cls ? cls : class_elsewhere(c, class_qual);
}

/* f() where the module mod is opened (OCaml's let open M in, M.(...)):
 * f at the top of mod, an import (or a module in an import's file:
 * Util.Money, the longest prefix an import binds) or a module of this
 * file, or nothing (0: the other rules decide). */
static int call_in_opened(struct ctx *c, uint32_t src, const char *mod, const char *name,
			  uint32_t line, uint32_t col)
{
	uint32_t ids[AMBIGUOUS_MAX + 1];
	size_t n = 0, flen = strlen(mod);
	struct binding *b = NULL;
	while (flen && !(b = find_binding(c, mod, flen))) {
		while (flen > 0 && mod[flen - 1] != '.')
			flen--;
		if (flen)
			flen--;  /* the dot */
	}
	if (b && b->ntargets && !b->symname && !mod[flen]) {
		n = defs_named(c, name, M_FUNC | M_TYPE | M_METHOD, 0, b->targets, b->ntargets, ids,
			       AMBIGUOUS_MAX + 1);
		if (n <= AMBIGUOUS_MAX)
			n = keep_qual(c, ids, n, NULL, name);
	} else if (b && b->ntargets && !b->symname) {
		/* Util.Money: Money.f in the import's files */
		struct strbuf cid = STRBUF_INIT;
		struct kbx_node fn;
		for (size_t i = 0; i < b->ntargets && n <= AMBIGUOUS_MAX; i++) {
			if (_kbx_node_read(c->s, _kbx_txn(c->s), b->targets[i], &fn) != KBX_OK ||
			    !fn.path)
				continue;
			strbuf_reset(&cid);
			strbuf_addf(&cid, "%.*s#%s.%s", (int)fn.path_len, fn.path, mod + flen + 1, name);
			uint32_t id = cid.failed ? 0 : _kbx_id_of(c->s, cid.buf);
			if (id)
				ids[n++] = id;
		}
		strbuf_release(&cid);
	} else if (!b) {
		struct strbuf cid = STRBUF_INIT;
		strbuf_addf(&cid, "%s#%s.%s", c->path, mod, name);
		ids[0] = cid.failed ? 0 : _kbx_id_of(c->s, cid.buf);
		n = ids[0] != 0;
		strbuf_release(&cid);
	}
	if (n)
		emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, b ? KBX_VIA_IMPORT : KBX_VIA_FILE,
				line, col);
	return n != 0;
}

static void resolve_call(struct ctx *c, const struct _kbx_ref_call *call);

/* The definition call k of the file resolves to, when it is one and
 * certain, else 0: the call is resolved as it will be in its turn, and
 * what it added taken back.  Kept for the other uses of its value (st
 * in st.Count(); st.Add()), but where a chain of such calls was cut at
 * its depth. */
static uint32_t certain_target(struct ctx *c, size_t k)
{
	const struct _kbx_ref_call *call = &c->refs.calls[k];
	if (c->callee_of && c->callee_of[k])
		return c->callee_of[k] == UINT32_MAX ? 0 : c->callee_of[k];
	if (c->probing >= 4)
		return 0;
	int top = !c->probing;
	size_t before = c->npe;
	int nargs = c->nargs;
	c->nargs = call->nargs;
	c->probing++;
	resolve_call(c, call);
	c->probing--;
	c->nargs = nargs;
	uint32_t target = 0;
	size_t n = 0;
	for (size_t i = before; i < c->npe; i++) {
		if (c->pe[i].kind != KBX_EDGE_CALLS)
			continue;
		n++;
		if (c->pe[i].conf == KBX_CONF_CERTAIN)
			target = c->pe[i].dst;
	}
	c->npe = before;
	target = n == 1 ? target : 0;
	if (top && (c->callee_of ||
		    (c->callee_of = calloc(c->refs.ncalls, sizeof(*c->callee_of)))))
		c->callee_of[k] = target ? target : UINT32_MAX;
	return target;
}

/*
 * "=K:NAME" (kbx_xcall.recv_type): the type that call K of the file, of
 * NAME, returns, read where its callee is declared: "T" among the types
 * of the callee's package (its directory, where a directory is one:
 * Go), else of its file (Zig), "pkg.T" in the package its file imports
 * as pkg.  How many types, in types; 0 when the call or
 * its callee is not certain, or the type is no type of the repository
 * (*named then says what the callee's file wrote).
 */
/* The files of the first import of fd (the callee's file, at path)
 * whose local name is local[0..len): of a module (by_name 0) or of a
 * name brought in by name (by_name 1: *name is then that name as the
 * imported file calls it).  How many, into files (1024). */
static size_t imported_files(struct ctx *c, const struct file_defs *fd, const char *path,
			     uint32_t file, const char *local, size_t len, int by_name,
			     uint32_t *files, const char **name)
{
	for (size_t i = 0; i < fd->nimps; i++) {
		const struct local_import *li = &fd->imps[i];
		if (!li->name != !by_name || strlen(li->local) != len || strncmp(li->local, local, len))
			continue;
		struct kbx_ximport xi = { li->module, NULL, NULL, li->level, 0, 0 };
		int module_name = 0, is_dir = 0;
		size_t nf = import_targets(c, path, file, &xi, files, &module_name, &is_dir);
		if (nf) {
			if (name)
				*name = li->name;
			return nf;
		}
	}
	return 0;
}

static size_t result_types(struct ctx *c, const char *marker, uint32_t caller, uint32_t *types,
			   const char **named)
{
	char *end, cb[32] = "";
	*named = NULL;
	unsigned long k = strtoul(marker + 1, &end, 10);
	if (*end == '@') {
		/* "=K@J.I:NAME": the type call K's callee gives parameter I
		 * of the function passed as its argument J ("J.I:" in the
		 * callee's "@J.I:TYPE;..." record) */
		size_t n = strcspn(end + 1, ":");
		if (n + 2 > sizeof(cb) || !end[1 + n])
			return 0;
		memcpy(cb, end + 1, n);
		memcpy(cb + n, ":", 2);
		end += 1 + n;
	}
	if (*end != ':' || k >= c->refs.ncalls || strcmp(c->refs.calls[k].name, end + 1) ||
	    c->refs.calls[k].caller != caller)
		return 0;
	uint32_t callee = certain_target(c, k);
	struct kbx_node d;
	if (!callee || _kbx_node_read(c->s, _kbx_txn(c->s), callee, &d) != KBX_OK || !d.file ||
	    !d.path)
		return 0;
	if (*cb && KBX_KIND_IS_TYPE(d.kind)) {
		/* new C((x) => ...): what C's constructor says */
		callee = member_in_hierarchy(c, callee, "constructor", 0);
		if (!callee || _kbx_node_read(c->s, _kbx_txn(c->s), callee, &d) != KBX_OK ||
		    !d.file || !d.path)
			return 0;
	}
	const struct file_defs *fd = file_defs_get(c, d.file);
	const char *rt = NULL;
	char *cbt = c->cb_type;
	for (size_t i = 0; fd && i < fd->nrets && !rt; i++) {
		const char *t = fd->rets[i].type;
		if (fd->rets[i].node != callee || (*cb ? *t != '@' : *t == '@'))
			continue;
		if (!*cb) {
			rt = t;
			continue;
		}
		/* the entry "J.I:TYPE" after '@' or ';' */
		size_t cl = strlen(cb);
		for (const char *p = t + 1; *p; p += strcspn(p, ";"), p += *p == ';') {
			size_t len = strcspn(p, ";");
			if (len > cl && len - cl < sizeof(c->cb_type) && !strncmp(p, cb, cl)) {
				memcpy(cbt, p + cl, len - cl);
				cbt[len - cl] = '\0';
				rt = cbt;
				break;
			}
		}
	}
	if (!rt)
		return 0;
	*named = rt;
	char path[4096], dir[4096];
	snprintf(path, sizeof(path), "%.*s", (int)d.path_len, d.path);
	uint32_t files[1024];
	size_t nf = 0;
	const char *dot = strrchr(rt, '.');
	if (dot) {
		nf = imported_files(c, fd, path, d.file, rt, (size_t)(dot - rt), 0, files, NULL);
	} else if (!c->lang->dir_is_package) {
		/* a type of the callee's file (Zig), or one it imports by
		 * name (TypeScript's import { Observable } from './Observable') */
		files[nf++] = d.file;
		size_t got = defs_named(c, rt, M_TYPE, 0, files, nf, types, AMBIGUOUS_MAX + 1);
		if (got)
			return got;
		nf = imported_files(c, fd, path, d.file, rt, strlen(rt), 1, files, &rt);
	} else {
		_kbx_path_dirname(dir, sizeof(dir) - 1, path);
		if (*dir)
			strcat(dir, "/");
		nf = *dir ? files_match(&c->r->fi, dir, c->fam, files, 1024)
			  : top_level_files(&c->r->fi, c->fam, files, 1024);
	}
	if (!nf)
		return 0;
	return defs_named(c, dot ? dot + 1 : rt, M_TYPE, 0, files, nf, types, AMBIGUOUS_MAX + 1);
}

static void resolve_call(struct ctx *c, const struct _kbx_ref_call *call)
{
	uint32_t ids[AMBIGUOUS_MAX + 1];
	size_t n;
	uint32_t src = call->caller ? call->caller : c->file;
	const char *name = call->name;
	int recv = call->recv;
	const char *rcv = call->receiver;
	uint32_t line = call->line, col = call->col;

	/* a call through a parameter or a local variable: no name proves
	 * what it calls */
	if (recv == KBX_RECV_VALUE) {
		emit_external(c, src, KBX_EDGE_CALLS, name, name, line, col);
		return;
	}

	/* "?": a plain call in a lambda given a receiver kbx cannot type
	 * (Kotlin's apply, with, sequence); see unsure_calls */
	if (recv == KBX_RECV_NONE && rcv && !strcmp(rcv, "?"))
		rcv = NULL;

	/* 0. a plain call in an opened module (OCaml's let open M in) */
	if (recv == KBX_RECV_NONE && rcv && call_in_opened(c, src, rcv, name, line, col))
		return;

	/* 3b, before the others: a helper nested in the caller or in a
	 * definition enclosing it, which hides a method of the enclosing
	 * class of its name (C#, Kotlin, Swift, Scala, Dart local functions,
	 * OCaml's local let); one defined twice there (Rust #[cfg] variants)
	 * is not proved */
	int mask = (c->lang->no_type_calls ? M_FUNC : M_FUNC | M_TYPE) | M_MACRO;
	if (recv == KBX_RECV_NONE) {
		int several = 0;
		uint32_t helper = nested_def(c, src, name, mask, &several);
		if (helper) {
			add_edge(c, src, KBX_EDGE_CALLS, helper,
				 several ? KBX_CONF_AMBIGUOUS : KBX_CONF_CERTAIN, KBX_VIA_SCOPE,
				 several ? 2 : 1, line, col);
			return;
		}
	}

	/* 1. the enclosing class and its bases */
	if (call->class_qual &&
	    (recv == KBX_RECV_SELF || recv == KBX_RECV_SUPER ||
	     (recv == KBX_RECV_NONE && c->lang->implicit_self))) {
		uint32_t cls = class_id(c, call->class_qual);
		if (!cls && !strcmp(c->lang->name, "objc"))
			cls = class_elsewhere(c, call->class_qual);
		uint32_t m = 0;
		if (cls) {
			m = member_in_hierarchy(c, cls, name, recv == KBX_RECV_SUPER);
		} else if (recv != KBX_RECV_SUPER) {
			/* a method of a type defined elsewhere (C++ out-of-line
			 * definitions, Go and Rust methods): first this file,
			 * then wherever Type.name is defined, if only once */
			struct strbuf q = STRBUF_INIT;
			strbuf_addf(&q, "%s#%s.%s", c->path, call->class_qual, name);
			m = q.failed ? 0 : _kbx_id_of(c->s, q.buf);
			if (!m) {
				uint32_t one[2];
				strbuf_reset(&q);
				strbuf_addf(&q, "%s.%s", call->class_qual, name);
				if (defs_filtered(c, name, M_METHOD | M_FUNC, c->fam, filter_qual_suffix,
						  q.buf, one, 2) == 1)
					m = one[0];
			}
			strbuf_release(&q);
		}
		/* a plain call in a nested class reaches the enclosing classes'
		 * methods too (Java inner classes, C# and C++ nested types) */
		if (!m && cls && recv == KBX_RECV_NONE) {
			struct strbuf outer = STRBUF_INIT;
			strbuf_addstr(&outer, call->class_qual);
			char *dot;
			while (!m && !outer.failed && (dot = strrchr(outer.buf, '.'))) {
				strbuf_setlen(&outer, (size_t)(dot - outer.buf));
				uint32_t oc = class_id(c, outer.buf);
				if (oc)
					m = member_in_hierarchy(c, oc, name, 0);
			}
			strbuf_release(&outer);
		}
		if (m) {
			add_edge(c, src, KBX_EDGE_CALLS, m, KBX_CONF_CERTAIN, KBX_VIA_CLASS, 1, line, col);
			return;
		}
		if (recv != KBX_RECV_NONE) {
			/* self.f() or super().f() that neither the class nor its
			 * bases in the repository define, with a base outside
			 * it: that base's, unless a class extending this one
			 * has f (a hook) */
			struct strbuf ext = STRBUF_INIT;
			if (cls && external_base(c, cls, &ext) && !subclass_has(c, cls, name)) {
				strbuf_addf(&ext, ".%s", name);
				if (!ext.failed) {
					emit_external(c, src, KBX_EDGE_CALLS, ext.buf, name, line, col);
					strbuf_release(&ext);
					return;
				}
			}
			strbuf_release(&ext);
			/* else an attribute set at run time, or a method of a
			 * class mixed in: not proved */
			call_on_unknown(c, src, name, line, col);
			return;
		}
	}
	if (recv == KBX_RECV_SELF || recv == KBX_RECV_SUPER) {
		/* outside any class kbx knows (a Python function taking self) */
		call_on_unknown(c, src, name, line, col);
		return;
	}

	if (recv == KBX_RECV_EXPR) {
		/* a literal value is of a built-in type (which may have
		 * extension functions: "x".shout()) */
		if (literal_receiver(c->lang, rcv) && !(call->recv_type && c->lang->extension_functions)) {
			emit_external(c, src, KBX_EDGE_CALLS, name, name, line, col);
			return;
		}

		/* 2. a receiver that is an import: the longest dotted prefix of
		 * the receiver that an import binds (os.path.join: "os.path",
		 * then "os") */
		struct binding *b = NULL;
		const char *dot = NULL;
		const char *type = call->recv_type;
		/* C++: "->" is a name the file does not declare, called
		 * through ->; "*T" below a pointer to a T */
		int arrow = type && !strcmp(type, "->");
		if (arrow)
			type = NULL;
		/* but first, a name no declaration of this file types that is
		 * a field of the caller's class another file declares: C++'s
		 * mutex_.Lock() in DBImpl::f of db_impl.cc (db_impl.h declares
		 * mutex_), an Objective-C instance variable of Foo.h in Foo.m */
		if (!type && rcv && call->class_qual && c->lang->fields_elsewhere &&
		    _kbx_plain_name(rcv) && !find_binding(c, rcv, strlen(rcv))) {
			uint32_t cls = caller_class(c, call->class_qual);
			const char *ft = cls ? field_type(c, cls, rcv) : NULL;
			/* p->f() on a pointer, x.f() on an object: what else
			 * (x->f() through an object's operator->) is a
			 * receiver of unknown type */
			if (ft)
				type = ft[0] == '*' ? (arrow ? ft + 1 : "?") : (arrow ? "?" : ft);
			/* a type the header names that is no class here may be
			 * a typedef of its class (MemTable's Table table_): of
			 * unknown type, not outside the repository, but in
			 * Objective-C, whose classes are named alike everywhere */
			if (ft && strcmp(type, "?") && !c->lang->late_binding) {
				struct type_res t;
				resolve_type(c, type, 0, M_TYPE, &t);
				if (!t.n)
					type = "?";
			}
		}
		if (type && type[0] == '=') {
			/* x.A().B(), x := f(): what the call returns */
			uint32_t types[AMBIGUOUS_MAX + 1];
			const char *named;
			size_t nt = result_types(c, type, call->caller, types, &named);
			if (nt && nt <= AMBIGUOUS_MAX)
				call_in_types(c, src, types, nt, named, name, KBX_VIA_TYPE, line, col);
			else
				call_on_unknown(c, src, name, line, col);
			return;
		}
		int typed_local = type && !strcmp(type, "?");
		size_t flen = rcv ? strlen(rcv) : 0;
		while (rcv && !type) {
			b = find_binding(c, rcv, flen);
			if (b) {
				dot = rcv[flen] ? rcv + flen : NULL;
				break;
			}
			while (flen > 0 && rcv[flen - 1] != '.')
				flen--;
			if (flen == 0)
				break;
			flen--;  /* the dot */
		}
		if (!b && rcv)
			dot = strchr(rcv, '.');
		if (b) {
			if (!b->ntargets) {
				/* a module from outside the repository */
				struct strbuf q = STRBUF_INIT;
				external_through(&q, b, dot, name);
				emit_external(c, src, KBX_EDGE_CALLS, strbuf_str(&q), name, line, col);
				strbuf_release(&q);
				return;
			}
			if (b->symname) {
				/* Alias.f() where Alias is a class brought in by name */
				size_t found = 0;
				for (size_t j = 0; j < b->ntargets && found <= AMBIGUOUS_MAX; j++) {
					uint32_t t[AMBIGUOUS_MAX + 1];
					size_t tn = defs_named(c, b->symname, M_TYPE, 0, &b->targets[j], 1,
							       t, AMBIGUOUS_MAX + 1);
					for (size_t q = 0; q < tn && q < AMBIGUOUS_MAX + 1; q++) {
						uint32_t m = member_in_hierarchy(c, t[q], name, 0);
						if (m && found <= AMBIGUOUS_MAX)
							ids[found++] = m;
					}
				}
				if (found) {
					emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, found,
							KBX_VIA_IMPORT, line, col);
					return;
				}
				if (c->lang->module_values) {
					/* bound to what kbx does not follow
					 * (pub const Sha256 = Sha2x32(...)) */
					call_on_unknown(c, src, name, line, col);
					return;
				}
			} else if (dot && c->lang->module_values) {
				/* std.mem.swap(): each component a file the
				 * previous passes on, the last maybe a type */
				const char *path = dot + 1, *ld = strrchr(path, '.');
				const char *last = ld ? ld + 1 : path;
				uint32_t via[MAX_TARGETS], mods[MAX_TARGETS];
				size_t nm = 0;
				size_t nv = walk_modules(c, b->targets, b->ntargets, path,
							 ld ? (size_t)(ld - path) : 0, via, 0);
				if (nv)
					nm = module_passed(c, via, nv, last, strlen(last), mods, 0);
				if (nm) {
					n = named_or_passed(c, name, M_FUNC | M_TYPE | M_METHOD, mods,
							    nm, ids);
					if (n) {
						emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n,
								KBX_VIA_IMPORT, line, col);
						return;
					}
				} else if (nv) {
					uint32_t types[AMBIGUOUS_MAX + 1];
					size_t nt = named_or_passed(c, last, M_TYPE, via, nv, types);
					if (nt) {
						call_in_types(c, src, types, nt, rcv, name,
							      KBX_VIA_IMPORT, line, col);
						return;
					}
				}
				call_on_unknown(c, src, name, line, col);
				return;
			} else {
				n = defs_named(c, name, M_FUNC | M_TYPE | M_METHOD, 0, b->targets,
					       b->ntargets, ids, AMBIGUOUS_MAX + 1);
				/* m.sub.f(): f inside sub, not m's own f (OCaml's
				 * Cset.Map.add is not Cset.add) */
				if (dot && n <= AMBIGUOUS_MAX)
					n = keep_qual(c, ids, n, dot + 1, name);
				if (!n && !dot)
					n = returned_members(c, b, name, ids);
				if (!n && !dot)
					n = passed_on(c, b->targets, b->ntargets, name,
						      M_FUNC | M_TYPE | M_METHOD, ids,
						      AMBIGUOUS_MAX + 1, 0);
				if (n) {
					emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n,
							KBX_VIA_IMPORT, line, col);
					return;
				}
				if (!dot && c->lang->returned_table) {
					/* a field the module's table gets at run time
					 * (M.f = other.f): no definition proves it, and
					 * a table of that name elsewhere is no other */
					call_on_unknown(c, src, name, line, col);
					return;
				}
				uint32_t types[AMBIGUOUS_MAX + 1];
				size_t nt = dot && !strchr(dot + 1, '.') ?
					defs_named(c, dot + 1, M_TYPE, 0, b->targets, b->ntargets, types,
						   AMBIGUOUS_MAX + 1) : 0;
				if (nt) {
					/* m.Class.f(): the method in that class of the
					 * module, or its bases */
					call_in_types(c, src, types, nt, rcv, name, KBX_VIA_IMPORT, line,
						      col);
					return;
				}
				if (dot) {
					/* m.sub.f() with m a module of the repository that
					 * does not define sub: an attribute kbx cannot
					 * follow (os.path.join): unresolved, not every f */
					struct strbuf q = STRBUF_INIT;
					strbuf_addf(&q, "%s.%s", rcv, name);
					emit_external(c, src, KBX_EDGE_CALLS, strbuf_str(&q), name, line,
						      col);
					strbuf_release(&q);
					return;
				}
			}
		}

		/* 3. the receiver's static type, where the source states it */
		if (type && !typed_local) {
			call_on_type(c, src, type, name, line, col);
			return;
		}

		if (rcv && !typed_local && !strchr(rcv, '(') && !strchr(rcv, '[')) {
			/* 4. Foo.f() with Foo a class of this file */
			if (!dot) {
				struct strbuf cid = STRBUF_INIT;
				strbuf_addf(&cid, "%s#%s.%s", c->path, rcv, name);
				uint32_t m = cid.failed ? 0 : _kbx_id_of(c->s, cid.buf);
				strbuf_release(&cid);
				if (m) {
					add_edge(c, src, KBX_EDGE_CALLS, m, KBX_CONF_CERTAIN, KBX_VIA_FILE,
						 1, line, col);
					return;
				}
			}
			/* 5. R.f() where some definition's qualified name ends in
			 * R.f: geo::Circle(), Type::new(), Outer.Inner.f(); where
			 * names are the file's alone (module_values), its own */
			struct strbuf q = STRBUF_INIT;
			strbuf_addf(&q, "%s.%s", rcv, name);
			if (c->lang->module_values) {
				n = defs_named(c, name, M_FUNC | M_METHOD | M_TYPE, 0, &c->file, 1, ids,
					       AMBIGUOUS_MAX + 1);
				n = n <= AMBIGUOUS_MAX ? keep_qual(c, ids, n, rcv, name) : 0;
			} else {
				n = q.failed ? 0 : defs_filtered(c, name, M_FUNC | M_METHOD | M_TYPE,
								 c->fam, filter_qual_suffix, q.buf,
								 ids, AMBIGUOUS_MAX + 1);
			}
			strbuf_release(&q);
			if (n) {
				emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, KBX_VIA_QUALIFIED,
						line, col);
				return;
			}
		}

		/* 6. a receiver kbx cannot type: the methods of that name, none
		 * proved */
		call_on_unknown(c, src, name, line, col);
		return;
	}

	/* f(): plain calls, of a function or of a macro (only C and C++
	 * define macros) by the same rules; a bare name as a statement
	 * can only be a macro */
	if (recv == KBX_RECV_MACRO)
		mask = M_MACRO;

	/* 4. the same file, but the helpers of other definitions; a macro
	 * of the file that a header it includes defines too (#undef and
	 * #define again, or #ifdef) is either */
	n = defs_named(c, name, mask, 0, &c->file, 1, ids, AMBIGUOUS_MAX + 1);
	n = drop_nested(c, ids, n);
	if (c->lang->closed_modules && n <= AMBIGUOUS_MAX)
		n = keep_enclosing(c, src, ids, n);
	if (n && n <= AMBIGUOUS_MAX && c->nspread &&
	    defs_named(c, name, M_MACRO, 0, &c->file, 1, NULL, 0)) {
		size_t more = defs_named(c, name, M_MACRO, 0, c->spread, c->nspread, ids + n,
					 AMBIGUOUS_MAX + 1 - n);
		n += more < AMBIGUOUS_MAX + 1 - n ? more : AMBIGUOUS_MAX + 1 - n;
	}
	if (n) {
		emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, KBX_VIA_FILE, line, col);
		return;
	}

	/* 5. names brought in by imports */
	struct binding *b = find_binding(c, name, strlen(name));
	if (b && b->symname) {
		if (!b->ntargets) {
			struct strbuf q = STRBUF_INIT;
			strbuf_addf(&q, "%s.%s", b->module, b->symname);
			emit_external(c, src, KBX_EDGE_CALLS, strbuf_str(&q), name, line, col);
			strbuf_release(&q);
			return;
		}
		n = b->members ? static_members(c, b, b->symname, ids)
			       : defs_named(c, b->symname, mask, 0, b->targets, b->ntargets, ids,
					    AMBIGUOUS_MAX + 1);
		if (!n)
			n = passed_on(c, b->targets, b->ntargets, b->symname, mask, ids,
				      AMBIGUOUS_MAX + 1, 0);
		if (n) {
			emit_candidates(c, src, KBX_EDGE_CALLS, b->symname, ids, n, KBX_VIA_IMPORT,
					line, col);
			return;
		}
	}
	/* import static p.C.*: the members of C */
	for (size_t i = 0; i < c->nb; i++) {
		if (!c->b[i].members || *c->b[i].local || !c->b[i].ntargets)
			continue;
		n = static_members(c, &c->b[i], name, ids);
		if (n) {
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, KBX_VIA_IMPORT, line, col);
			return;
		}
	}
	if (c->nspread) {
		n = named_or_passed(c, name, mask, c->spread, c->nspread, ids);
		if (n) {
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, KBX_VIA_IMPORT, line,
					col);
			return;
		}
	}

	/* Nothing else proves a call (Bash, Elixir, Zig, OCaml, Haskell).
	 * A shell function exists only where it was defined or sourced:
	 * another script's function of the name is a candidate, never
	 * proved (the shell running this one may have loaded it some other
	 * way, or run a program of that name, which counts as one more
	 * candidate); without one, a program.  In the others, an external. */
	if (c->lang->calls_in_imports_only) {
		struct everywhere ev = { 0 };
		if (c->lang->loaded_elsewhere) {
			defs_everywhere(c, name, mask, c->fam, &ev);
			ev.n = drop_nested(c, ev.ids, ev.n);
		}
		if (!ev.n) {
			emit_external(c, src, KBX_EDGE_CALLS, name, name, line, col);
		} else if (ev.n <= AMBIGUOUS_MAX) {
			for (size_t i = 0; i < ev.n; i++)
				add_edge(c, src, KBX_EDGE_CALLS, ev.ids[i], KBX_CONF_AMBIGUOUS,
					 KBX_VIA_NAME, (uint32_t)ev.n + 1, line, col);
		} else {
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ev.ids, ev.n, KBX_VIA_NAME,
					line, col);
		}
		return;
	}

	/* 5b. the caller's package, where a directory is one (Go), and
	 * what its files pass on (a Scala package object's aliases) */
	if (c->lang->dir_is_package) {
		uint32_t files[1024];
		size_t nf = package_files(c, files, 1024);
		n = named_or_passed(c, name, mask, files, nf, ids);
		if (n) {
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, KBX_VIA_SCOPE, line, col);
			return;
		}
	}
	/* 5c. the packages around it (Scala's package a.b then package c) */
	if (c->nouter) {
		n = named_or_passed(c, name, mask, c->outer, c->nouter, ids);
		if (n) {
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, KBX_VIA_SCOPE, line, col);
			return;
		}
	}

	/* 7. the whole repository: a plain call names a function by its
	 * name alone, so one definition of it is the one */
	struct everywhere ev;
	defs_everywhere(c, name, mask, c->fam, &ev);
	ev.n = drop_nested(c, ev.ids, ev.n);
	if (!ev.n && src != c->file && kind_of(c, src) == KBX_KIND_MACRO) {
		/* a macro's body is read where the macro is used: a header's
		 * macro may call what a source file including it defines for
		 * itself (static functions, its own macros) */
		ev.n = defs_select(c, name, mask, c->fam, ANY_FILE, NULL, NULL, ev.ids,
				   AMBIGUOUS_MAX + 1);
		ev.n = drop_nested(c, ev.ids, ev.n);
	}
	const struct everywhere *e = &ev;
	if (e->n == 1 && c->lang->wildcards_hide && c->open_wildcard &&
	    !same_package(c, e->ids[0])) {
		/* or a name the file's wildcard import brings */
		add_edge(c, src, KBX_EDGE_CALLS, e->ids[0], KBX_CONF_AMBIGUOUS, KBX_VIA_NAME, 2,
			 line, col);
		return;
	}
	if (e->n == 1) {
		add_edge(c, src, KBX_EDGE_CALLS, e->ids[0], KBX_CONF_CERTAIN, KBX_VIA_UNIQUE, 1,
			 line, col);
		return;
	}
	if (e->n > 1) {
		int via = KBX_VIA_NAME;
		n = narrow_candidates(c, src, name, mask, ids, e->n, AMBIGUOUS_MAX, &via);
		if (n < e->n) {
			emit_candidates(c, src, KBX_EDGE_CALLS, name, ids, n, via, line, col);
			return;
		}
		emit_candidates(c, src, KBX_EDGE_CALLS, name, e->ids, e->n, KBX_VIA_UNIQUE, line, col);
		return;
	}
	/* a bare name that is no macro of the repository: a statement that
	 * does nothing, or a macro of a system header */
	if (recv == KBX_RECV_MACRO)
		return;
	emit_external(c, src, KBX_EDGE_CALLS, name, name, line, col);
}

/* Does the class cls, or one of its bases, have the simple name want? */
static int class_or_base_named(struct ctx *c, uint32_t cls, const char *want)
{
	uint32_t queue[64];
	size_t qh = 0, qt = 0;
	queue[qt++] = cls;
	while (qh < qt) {
		struct kbx_node n;
		uint32_t t = queue[qh++];
		if (_kbx_node_read(c->s, _kbx_txn(c->s), t, &n) == KBX_OK && n.name &&
		    !strcmp(n.name, want))
			return 1;
		inherits_of(c, c->s->edges, t, queue, &qt, NULL);
	}
	return 0;
}

/* A plain call's certain edges in c->pe[from..npe) that nothing proves
 * after all become ambiguous, with one candidate more (what kbx cannot
 * see): in a lambda given a receiver kbx cannot type (its members may be
 * meant), and, where functions extend types (Kotlin's fun T.f()), an
 * extension of a type that no implicit receiver of the caller has
 * (resume() in an extension of Continuation is not DispatchedTask.resume). */
static void unsure_calls(struct ctx *c, const struct _kbx_ref_call *call, size_t from)
{
	if (call->recv != KBX_RECV_NONE)
		return;
	int lambda = call->receiver && !strcmp(call->receiver, "?");
	for (size_t i = from; i < c->npe; i++) {
		struct pending *p = &c->pe[i];
		if (p->kind != KBX_EDGE_CALLS || p->conf != KBX_CONF_CERTAIN)
			continue;
		int unsure = lambda;
		struct kbx_node d;
		if (!unsure && c->lang->extension_functions &&
		    _kbx_node_read(c->s, _kbx_txn(c->s), p->dst, &d) == KBX_OK &&
		    d.kind == KBX_KIND_FUNCTION && d.parent == d.file && d.qual &&
		    strchr(d.qual, '.')) {
			/* the extended type: T of T.f */
			const char *dot = strrchr(d.qual, '.');
			const char *start = dot;
			while (start > d.qual && start[-1] != '.')
				start--;
			char *type = strndup(start, (size_t)(dot - start));
			uint32_t cls = call->class_qual ? caller_class(c, call->class_qual) : 0;
			const char *cq = call->class_qual ? strrchr(call->class_qual, '.') : NULL;
			cq = cq ? cq + 1 : call->class_qual;
			unsure = type && !(cq && !strcmp(cq, type)) &&
				 !(cls && class_or_base_named(c, cls, type));
			free(type);
		}
		if (unsure) {
			p->conf = KBX_CONF_AMBIGUOUS;
			p->via = KBX_VIA_NAME;
			p->ncand = (p->ncand ? p->ncand : 1) + 1;
		}
	}
}

kbx_status_t _kbx_resolve_file(struct _kbx_resolver *r, uint32_t file, int phase,
			       uint64_t *nedges, struct _kbx_idset *orphans, struct kbx_error *err)
{
	struct ctx c = { 0 };
	struct kbx_node fnode;
	kbx_status_t st;
	unsigned long nomem0 = _kbx_nomem_count;
	c.r = r;
	c.s = r->s;
	c.file = file;
	c.orphans = orphans;
	c.nargs = -1;
	c.err = err;
	st = _kbx_node_read(r->s, _kbx_txn(r->s), file, &fnode);
	if (st == KBX_NOT_FOUND)
		return KBX_OK;  /* removed in this run */
	if (st)
		return _kbx_fail(err, st, "cannot read node %u of the index", file);
	st = _kbx_refs_read(r->s, file, &c.refs);
	if (st == KBX_NOT_FOUND)
		return KBX_OK;
	if (st)
		return _kbx_fail(err, st, "cannot read what was recorded for '%s': run 'kbx index --rebuild'",
				 fnode.cid);
	/* node data lives in pages that the writes below may move: copy */
	char *path = strdup(fnode.cid);
	if (!path) {
		_kbx_refs_release(&c.refs);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	c.path = path;
	c.lang_id = fnode.lang;
	c.lang = _kbx_lang_from_id(fnode.lang);
	c.fam = _kbx_lang_family(fnode.lang);
	c.refs.path = c.path;
	c.refs.lang = c.lang_id;
	if (!c.lang) {
		_kbx_refs_release(&c.refs);
		free(path);
		return KBX_OK;
	}
	/* what an earlier resolution of this phase wrote */
	int rc = 0;
	for (int kind = KBX_EDGE_CALLS; kind <= KBX_EDGE_INHERITS && !rc; kind++) {
		if ((kind == KBX_EDGE_CALLS) != (phase == KBX_RESOLVE_CALLS))
			continue;
		rc = _kbx_edges_delete_from(r->s, file, kind, orphans);
		for (size_t i = 0; i < c.refs.nnodes && !rc; i++)
			rc = _kbx_edges_delete_from(r->s, c.refs.nodes[i], kind, orphans);
	}
	c.rc = rc;
	/* the imports bind the names both phases look up; their edges are
	 * written by the first */
	if (!c.rc)
		resolve_imports(&c);
	if (phase == KBX_RESOLVE_BASES) {
		flush_edges(&c, nedges);
		if (!c.rc)
			resolve_inherits(&c);
	} else {
		c.npe = 0;
		for (size_t i = 0; i < c.refs.ncalls && !c.rc; i++) {
			size_t from = c.npe;
			c.nargs = c.refs.calls[i].nargs;
			resolve_call(&c, &c.refs.calls[i]);
			c.nargs = -1;
			unsure_calls(&c, &c.refs.calls[i], from);
		}
	}
	flush_edges(&c, nedges);

	st = KBX_OK;
	if (!c.rc && _kbx_nomem_count != nomem0)
		r->rc = ENOMEM;
	if (!c.rc && r->rc) {
		/* a lookup went without what it needed: no edge of this run
		 * can be trusted, and the run must not commit */
		st = r->rc == ENOMEM ? _kbx_fail(err, KBX_ERR_NOMEM, "out of memory while resolving '%s'", path)
				     : _kbx_fail_mdb(err, r->rc, "cannot read the index while resolving calls");
	} else if (c.rc) {
		st = _kbx_fail_mdb(err, c.rc, "cannot write the edges");
	}
	_kbx_refs_release(&c.refs);
	free(c.b);
	free(c.spread);
	free(c.outer);
	for (size_t i = 0; i < c.nns; i++)
		free(c.ns[i]);
	free(c.ns);
	free(c.pe);
	free(c.callee_of);
	free(path);
	return st;
}
