/*
 * kbx_hybrid: run the plan a question makes (see kbx-hybrid.h): resolve
 * what it names, find seeds, expand them over the graph, rank.
 */
#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "analysis/analysis.h"
#include "hybrid/hybrid.h"
#include "graph/graph.h"
#include "search/search.h"

#define DEFAULT_LIMIT 10
#define DEFAULT_SEEDS 3
#define CALLABLES (1u << KBX_KIND_FUNCTION | 1u << KBX_KIND_METHOD)

const char *kbx_hybrid_rel_str(int rel)
{
	static const char *const names[KBX_REL__COUNT] = {
		"search", "defines", "callers", "callees", "subclasses", "superclasses",
		"imports", "importers", "impact"
	};
	return rel >= 0 && rel < KBX_REL__COUNT ? names[rel] : "?";
}

const char *kbx_hybrid_how_str(int how)
{
	switch (how) {
	case KBX_HOW_SYMBOL: return "symbol";
	case KBX_HOW_VARIANT: return "spelling";
	case KBX_HOW_FILE: return "file";
	case KBX_HOW_DIRECTORY: return "directory";
	case KBX_HOW_SEARCH: return "search";
	case KBX_HOW_GLOB: return "glob";
	default: return "unresolved";
	}
}

const char *kbx_hybrid_sim_str(int from)
{
	return from == KBX_SIM_SEED ? "seed" : from == KBX_SIM_NONE ? "none" : "search";
}

const char *kbx_hybrid_hop_str(int hop)
{
	return hop == KBX_HOP_ABOUT ? "about" : hop == KBX_HOP_USES ? "uses" : "none";
}

const char *kbx_hybrid_docs_why_str(int why)
{
	switch (why) {
	case KBX_DOCS_ASKED: return "asked";
	case KBX_DOCS_HOWTO: return "how-to";
	case KBX_DOCS_FALLBACK: return "fallback";
	default: return "none";
	}
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Words of the question as a message quotes them: at most 60 bytes,
 * "..." after a cut (buf has room for 64). */
static const char *clip(const char *s, char *buf)
{
	size_t n = strlen(s);
	if (n <= 60)
		return s;
	/* cut before a UTF-8 continuation byte, not in a character */
	size_t k = 57;
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	memcpy(buf, s, k);
	memcpy(buf + k, "...", 4);
	return buf;
}

static void note(struct kbx_hybrid_plan *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct kbx_hybrid_plan *p, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **n = realloc(p->notes, (p->nnotes + 1) * sizeof(*n));
	if (!n)
		return;
	p->notes = n;
	if ((n[p->nnotes] = strdup(buf)))
		p->nnotes++;
}

/* ---- sets of node ids (struct _kbx_u32s, settled before a lookup) ---- */

/* Keep in a what b holds too (both settled). */
static void ids_intersect(struct _kbx_u32s *a, const struct _kbx_u32s *b)
{
	size_t o = 0;
	for (size_t i = 0; i < a->n; i++)
		if (_kbx_u32s_has(b, a->v[i]))
			a->v[o++] = a->v[i];
	a->n = o;
}

/* ---- resolving a phrase ---- */

static int looks_like_path(const char *t)
{
	if (strchr(t, '/') || !strcmp(t, "."))
		return 1;
	const char *dot = strrchr(t, '.');
	if (!dot || strchr(t, ' '))
		return 0;
	/* "orders.py", "util.c": a known source extension */
	static const char *const exts[] = { "py", "c", "h", "cc", "cpp", "cxx", "hpp", "hh", "js",
					    "mjs", "cjs", "jsx", "ts", "tsx", "go", "rs", "java",
					    "cs", "rb", NULL };
	for (const char *const *e = exts; *e; e++)
		if (!strcmp(dot + 1, *e))
			return 1;
	return 0;
}

struct prefix_ctx {
	struct kbx_nodelist *out;
	size_t count;
	int files_only;
	const char *glob;        /* only ids whose name matches it */
};

/* Does canonical id match glob (lower-cased): a definition by its name,
 * or its qualified name when the glob has a '.' or "::"; a file by its
 * base name or one of its directories, or its path when the glob has a
 * '/'; case aside (both sides lower-cased: fnmatch's
 * FNM_CASEFOLD is not POSIX). */
static int id_matches(const char *glob, const char *id, size_t len, int kind)
{
	char buf[1100];
	if (len >= sizeof(buf) || kind == KBX_KIND_NAMEREF || kind == KBX_KIND_EXTERNAL ||
	    kind == KBX_KIND_MODULE)
		return 0;
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)tolower((unsigned char)id[i]);
	buf[len] = '\0';
	char *hash = strchr(buf, '#');
	const char *whole = hash ? hash + 1 : buf;
	const char *base = whole;
	/* the whole qualified name or path when the glob has a separator
	 * ("HttpClient.*", "src/auth*"); else "Http*" would take the
	 * methods of HttpClient too */
	if (strpbrk(glob, hash ? ".:" : "/"))
		return !fnmatch(glob, whole, 0);
	if (!hash) {
		/* a file: its base name or a directory on its path ("auth*"
		 * takes the files under src/auth) */
		for (char *part = buf, *slash; part; part = slash ? slash + 1 : NULL) {
			slash = strchr(part, '/');
			if (slash)
				*slash = '\0';
			if (!fnmatch(glob, part, 0))
				return 1;
		}
		return 0;
	}
	for (const char *p = whole; *p; p++)
		if (*p == '.')
			base = p + 1;
		else if (*p == ':' && p[1] == ':')
			base = p + 2;
	return !fnmatch(glob, base, 0);
}

static int add_prefixed(void *data, const struct kbx_node *n)
{
	struct prefix_ctx *c = data;
	if (c->files_only && n->kind != KBX_KIND_FILE)
		return 0;
	if (c->glob && !id_matches(c->glob, n->cid, strlen(n->cid), n->kind))
		return 0;
	if (!_kbx_nodelist_add(c->out, n))
		c->count++;
	return 0;
}

/* "HTTP client" -> HttpClient, HTTPClient, http_client, httpclient,
 * HTTP_CLIENT: the first that names something. */
static kbx_status_t try_variants(const struct kbx_hybrid_graph *g, const char *t, struct kbx_nodelist *out,
				 char **spelling)
{
	char words[16][64];
	size_t nw = 0;
	for (const char *p = t; *p && nw < 16;) {
		while (*p == ' ' || *p == '-')
			p++;
		size_t l = strcspn(p, " -");
		if (!l)
			break;
		if (l >= sizeof(words[0]))
			return KBX_NOT_FOUND;
		memcpy(words[nw], p, l);
		words[nw][l] = '\0';
		nw++;
		p += l;
	}
	if (nw < 2)
		return KBX_NOT_FOUND;
	for (int form = 0; form < 5; form++) {
		char v[1100] = "";
		size_t o = 0;
		for (size_t i = 0; i < nw; i++) {
			const char *w = words[i];
			if (form == 2 || form == 4) {
				if (i)
					v[o++] = '_';
			}
			for (size_t j = 0; w[j] && o < sizeof(v) - 2; j++) {
				char ch = w[j];
				switch (form) {
				case 0: /* CamelCase */
					ch = j ? (char)tolower((unsigned char)ch) : (char)toupper((unsigned char)ch);
					break;
				case 1: /* as written, first letters up */
					ch = j ? ch : (char)toupper((unsigned char)ch);
					break;
				case 2: case 3:
					ch = (char)tolower((unsigned char)ch);
					break;
				case 4:
					ch = (char)toupper((unsigned char)ch);
					break;
				}
				v[o++] = ch;
			}
		}
		v[o] = '\0';
		struct kbx_error e = KBX_ERROR_INIT;
		if (g->lookup(g->data, v, out, &e) == KBX_OK) {
			*spelling = strdup(v);
			return KBX_OK;
		}
	}
	return KBX_NOT_FOUND;
}

/* A path, a file's name or a directory into t (t->how stays 0 when it
 * is none of them). */
static kbx_status_t resolve_path(const struct kbx_hybrid_graph *g, const char *text, struct kbx_hybrid_term *t,
				 struct kbx_error *err)
{
	struct kbx_error e = KBX_ERROR_INIT;
	if (g->lookup(g->data, text, &t->nodes, &e) == KBX_OK) {
		t->how = t->nodes.items[0].kind == KBX_KIND_FILE ? KBX_HOW_FILE : KBX_HOW_SYMBOL;
		return KBX_OK;
	}
	char *bare = strdup(text);
	if (!bare)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	size_t bl = strlen(bare);
	while (bl > 1 && bare[bl - 1] == '/')
		bare[--bl] = '\0';
	const char *b = bare;
	while (b[0] == '.' && b[1] == '/')
		b += 2;
	if (!strchr(b, '/') && g->files_named(g->data, b, &t->nodes, &e) == KBX_OK && t->nodes.n) {
		t->how = KBX_HOW_FILE;
		free(bare);
		return KBX_OK;
	}
	/* a directory: the files under it ("." the whole repository) */
	char *dir = malloc(strlen(b) + 2);
	int ok = dir != NULL;
	if (dir) {
		sprintf(dir, "%s/", b);
		if (!strcmp(b, "."))
			dir[0] = '\0';
		struct prefix_ctx pc = { &t->nodes, 0, 1, NULL };
		g->prefixed(g->data, dir, add_prefixed, &pc, &e);
		if (pc.count)
			t->how = KBX_HOW_DIRECTORY;
	}
	free(dir);
	free(bare);
	return ok ? KBX_OK : _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
}

/* A search of the code chunks for text with the question's search
 * settings, at most limit hits; the caller adds any scope. */
static struct kbx_search_query code_query(const struct kbx_hybrid_opts *o, const char *text,
					  size_t limit)
{
	struct kbx_search_query q = { 0 };
	q.text = text;
	q.mode = o->mode;
	q.fusion = o->fusion;
	q.vector_weight = -1;
	q.limit = limit;
	q.types = 1u << KBX_CHUNK_CODE;
	q.scope_plan = o->scope_plan;
	q.embed = o->embed;
	return q;
}

/* Resolve a phrase into t.  Search seeds need the options. */
static kbx_status_t resolve(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_opts *o,
			    const char *text, const char *role, struct kbx_hybrid_term *t,
			    int may_search, struct kbx_error *err)
{
	struct kbx_error e = KBX_ERROR_INIT;
	kbx_status_t st0;
	memset(t, 0, sizeof(*t));
	t->text = strdup(text);
	t->role = role;
	if (!t->text)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (strpbrk(text, "*?[") && !strchr(text, ' ')) {
		/* "auth*": every name it matches */
		char *glob = strdup(text);
		if (!glob)
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		for (char *c = glob; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		struct prefix_ctx pc = { &t->nodes, 0, 0, glob };
		kbx_status_t st = g->prefixed(g->data, "", add_prefixed, &pc, &e);
		free(glob);
		if (st)
			return _kbx_fail(err, st, "%s", e.msg);
		if (pc.count)
			t->how = KBX_HOW_GLOB;
		return KBX_OK;
	}
	if (!looks_like_path(text) && !strchr(text, ' ')) {
		kbx_status_t st = g->lookup(g->data, text, &t->nodes, &e);
		if (st == KBX_OK) {
			t->how = t->nodes.items[0].kind == KBX_KIND_FILE ? KBX_HOW_FILE : KBX_HOW_SYMBOL;
			return KBX_OK;
		}
		if (st != KBX_NOT_FOUND && st != KBX_ERR_PARSE)
			return _kbx_fail(err, st, "%s", e.msg);
	}
	if (!strchr(text, ' ')) {
		/* a path, a file's name, or a directory ("src/auth", "gen") */
		st0 = resolve_path(g, text, t, err);
		if (st0 || t->how)
			return st0;
	} else if (try_variants(g, text, &t->nodes, &t->spelling) == KBX_OK) {
		t->how = KBX_HOW_VARIANT;
		return KBX_OK;
	}
	/* one word that names nothing is a name mistyped, not a
	 * description: it is not searched for */
	if (!may_search || !strchr(text, ' '))
		return KBX_OK;
	/* no symbol: the code the words describe */
	struct kbx_search_query q = code_query(o, text, o->seeds ? o->seeds : DEFAULT_SEEDS);
	struct kbx_search_results r;
	kbx_status_t st = g->search(g->data, &q, &r, &e);
	if (st == KBX_NOT_FOUND)
		return KBX_OK;
	if (st)
		return _kbx_fail(err, st, "%s", e.msg);
	t->scores = calloc(r.n + 1, sizeof(*t->scores));
	for (size_t i = 0; t->scores && i < r.n; i++) {
		struct kbx_node n;
		if (g->node_by_cid(g->data, r.hits[i].chunk.doc_id, &n, &e))
			continue;
		t->scores[t->nodes.n] = r.hits[i].score / r.hits[0].score;
		if (_kbx_nodelist_add(&t->nodes, &n))
			break;
	}
	kbx_search_results_release(&r);
	if (!t->scores)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (t->nodes.n)
		t->how = KBX_HOW_SEARCH;
	return KBX_OK;
}

static void term_release(struct kbx_hybrid_term *t)
{
	free(t->text);
	free(t->spelling);
	free(t->scores);
	kbx_nodelist_release(&t->nodes);
}

/* ---- walking ---- */

/* What a node stands for as a starting point of calls: a class or a file
 * its functions and methods (and itself). */
struct collect {
	struct _kbx_u32s *ids;
	unsigned kinds;
};

static int collect_to(void *data, const struct kbx_edge *e)
{
	struct collect *c = data;
	if (!c->kinds || (c->kinds & (1u << e->to.kind)))
		_kbx_u32s_add(c->ids, e->to.id);
	return 0;
}

static kbx_status_t members(const struct kbx_hybrid_graph *g, const struct kbx_node *n,
			    unsigned kinds, struct _kbx_u32s *out, struct kbx_error *err)
{
	struct collect c = { out, kinds };
	return g->walk(g->data, n, KBX_EDGE_DEFINES, KBX_DIR_OUT, 0, 0, collect_to, &c, err);
}

/* One node reached: fewest hops, and the way back to its seed. */
struct reach {
	uint32_t id;
	uint32_t hops;
	uint32_t parent;         /* 0 for a seed */
	uint32_t line;           /* the edge's site */
	int confidence;
	double seed_score;       /* of the seed it came from */
	struct kbx_node node;
};

struct reached {
	struct reach *r;
	size_t n, alloc;
	struct _kbx_idmap map;   /* node id -> its entry */
};

static struct reach *reach_find(struct reached *rs, uint32_t id)
{
	long i = _kbx_idmap_get(&rs->map, id);
	return i < 0 ? NULL : &rs->r[i];
}

static void reach_release(struct reached *rs)
{
	free(rs->r);
	_kbx_idmap_release(&rs->map);
}

/* Record node n at hops; keep the fewer.  Returns -1 when memory runs out. */
static int reach_add(struct reached *rs, const struct kbx_node *n, uint32_t hops,
		     uint32_t parent, uint32_t line, int conf, double seed_score)
{
	struct reach *r = reach_find(rs, n->id);
	if (r) {
		if (hops < r->hops || (hops == r->hops && seed_score > r->seed_score)) {
			r->hops = hops;
			r->parent = parent;
			r->line = line;
			r->confidence = conf;
			r->seed_score = seed_score;
		}
		return 0;
	}
	if (rs->n == rs->alloc) {
		size_t na = rs->alloc ? rs->alloc * 2 : 256;
		struct reach *p = realloc(rs->r, na * sizeof(*p));
		if (!p)
			return -1;
		rs->r = p;
		rs->alloc = na;
	}
	if (_kbx_idmap_put(&rs->map, n->id, (uint32_t)rs->n))
		return -1;
	r = &rs->r[rs->n++];
	r->id = n->id;
	r->hops = hops;
	r->parent = parent;
	r->line = line;
	r->confidence = conf;
	r->seed_score = seed_score;
	r->node = *n;
	return 0;
}

struct walk_ctx {
	const struct kbx_hybrid_graph *g;
	struct reached *rs;
	int dir;
	double seed_score;
	int failed;
};

static int on_walk(void *data, const struct kbx_edge *e)
{
	struct walk_ctx *w = data;
	/* the node reached is the far end; the near end is one hop closer */
	const struct kbx_node *far = w->dir == KBX_DIR_OUT ? &e->to : &e->from;
	const struct kbx_node *near = w->dir == KBX_DIR_OUT ? &e->from : &e->to;
	uint32_t line = e->nsites ? e->sites[0].line : 0;
	/* the way from the seed is as weak as its weakest edge */
	const struct reach *prev = reach_find(w->rs, near->id);
	int conf = kbx_edge_wanted(e, KBX_WALK_CERTAIN) &&
		(!prev || prev->confidence == KBX_CONF_CERTAIN) ? KBX_CONF_CERTAIN
								: KBX_CONF_AMBIGUOUS;
	if (far->kind == KBX_KIND_NAMEREF) {
		/* a call kbx could not pin down: each candidate, as ambiguous */
		struct kbx_nodelist c = KBX_NODELIST_INIT;
		struct kbx_error err = KBX_ERROR_INIT;
		if (w->g->name_candidates(w->g->data, far, near->lang, &c, &err) == KBX_OK)
			for (size_t i = 0; i < c.n; i++)
				if (reach_add(w->rs, &c.items[i], e->depth, near->id, line,
					      KBX_CONF_AMBIGUOUS, w->seed_score))
					w->failed = 1;
		/* strings of c must outlive it: look each up again */
		for (size_t i = 0; i < c.n; i++) {
			struct reach *r = reach_find(w->rs, c.items[i].id);
			if (r)
				w->g->node(w->g->data, r->id, &r->node, &err);
		}
		kbx_nodelist_release(&c);
		return w->failed;
	}
	if (reach_add(w->rs, far, e->depth, near->id, line, conf, w->seed_score))
		w->failed = 1;
	return w->failed;
}

/* flags: KBX_WALK_CERTAIN for a plan that follows only certain edges */
static kbx_status_t walk(const struct kbx_hybrid_graph *g, struct reached *rs,
			 const struct kbx_node *from, int kind,
			 int dir, uint32_t depth, unsigned flags, double seed_score,
			 struct kbx_error *err)
{
	struct walk_ctx w = { g, rs, dir, seed_score, 0 };
	uint32_t max = depth == KBX_HYBRID_DEPTH_ALL ? 0 : depth;
	/* hops are counted from the seed: a walk from a member starts at 0 */
	kbx_status_t st = g->walk(g->data, from, kind, dir, max, flags, on_walk, &w, err);
	if (!st && w.failed)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	return st;
}

/* The edge kind and direction each relation walks (impact: calls in,
 * and imports in from a file or module). */
static const struct {
	int kind, dir;
} rel_edges[KBX_REL__COUNT] = {
	[KBX_REL_DEFINES] = { KBX_EDGE_DEFINES, KBX_DIR_OUT },
	[KBX_REL_CALLERS] = { KBX_EDGE_CALLS, KBX_DIR_IN },
	[KBX_REL_CALLEES] = { KBX_EDGE_CALLS, KBX_DIR_OUT },
	[KBX_REL_SUBCLASSES] = { KBX_EDGE_INHERITS, KBX_DIR_IN },
	[KBX_REL_SUPERCLASSES] = { KBX_EDGE_INHERITS, KBX_DIR_OUT },
	[KBX_REL_IMPORTS] = { KBX_EDGE_IMPORTS, KBX_DIR_OUT },
	[KBX_REL_IMPORTERS] = { KBX_EDGE_IMPORTS, KBX_DIR_IN },
	[KBX_REL_IMPACT] = { KBX_EDGE_CALLS, KBX_DIR_IN },
};

/* The traversal of a relation from one node. */
static kbx_status_t traverse(const struct kbx_hybrid_graph *g, struct reached *rs, int rel,
			     const struct kbx_node *from, uint32_t depth, unsigned flags,
			     double seed_score, struct kbx_error *err)
{
	if (rel <= KBX_REL_NONE || rel >= KBX_REL__COUNT)
		return KBX_OK;
	kbx_status_t st = walk(g, rs, from, rel_edges[rel].kind, rel_edges[rel].dir, depth,
			       flags, seed_score, err);
	if (!st && rel == KBX_REL_IMPACT &&
	    (from->kind == KBX_KIND_FILE || from->kind == KBX_KIND_MODULE))
		st = walk(g, rs, from, KBX_EDGE_IMPORTS, KBX_DIR_IN, depth, flags, seed_score,
			  err);
	return st;
}

/* Relations over calls start from a class's or a file's functions. */
static int over_calls(int rel)
{
	return rel == KBX_REL_CALLERS || rel == KBX_REL_CALLEES || rel == KBX_REL_IMPACT;
}

/* ---- scopes ---- */

/* The nodes a resolved "within" term stands for: what its files,
 * classes or directories define, at every depth. */
static kbx_status_t scope_within(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_term *t,
				 struct _kbx_u32s *out, struct kbx_error *err)
{
	for (size_t i = 0; i < t->nodes.n; i++) {
		const struct kbx_node *n = &t->nodes.items[i];
		/* a file is the place, not a definition in it */
		if (n->kind != KBX_KIND_FILE && _kbx_u32s_add(out, n->id))
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		kbx_status_t st = members(g, n, 0, out, err);
		if (st)
			return st;
	}
	_kbx_u32s_settle(out);
	return KBX_OK;
}

/* Callers (dir IN) or callees (OUT) of what a term stands for, to depth. */
static kbx_status_t scope_calls(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_term *t, int dir,
				uint32_t depth, unsigned flags, struct _kbx_u32s *out,
				struct kbx_error *err)
{
	struct reached rs = { 0 };
	kbx_status_t st = KBX_OK;
	for (size_t i = 0; i < t->nodes.n && !st; i++) {
		const struct kbx_node *n = &t->nodes.items[i];
		struct _kbx_u32s from = { 0 };
		_kbx_u32s_add(&from, n->id);
		if (!KBX_KIND_IS_CALLABLE(n->kind))
			st = members(g, n, CALLABLES, &from, err);
		for (size_t j = 0; j < from.n && !st; j++) {
			struct kbx_node fn;
			if (from.v[j] == n->id)
				fn = *n;
			else if ((st = g->node(g->data, from.v[j], &fn, err)))
				break;
			st = walk(g, &rs, &fn, KBX_EDGE_CALLS, dir, depth, flags, 1.0, err);
		}
		free(from.v);
	}
	for (size_t i = 0; i < rs.n && !st; i++)
		if (_kbx_u32s_add(out, rs.r[i].id))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	reach_release(&rs);
	_kbx_u32s_settle(out);
	return st;
}

kbx_status_t kbx_hybrid_scope(kbx_store_t *store, const char *within, const char *callers_of,
			      const char *callees_of, uint32_t depth, uint32_t **ids, size_t *n,
			      char *notebuf, size_t notesz, struct kbx_error *err)
{
	const char *texts[3] = { within, callers_of, callees_of };
	const char *roles[3] = { "within", "calls", "called-by" };
	struct _kbx_u32s acc = { 0 };
	int have = 0;
	kbx_status_t st = KBX_OK;
	struct kbx_hybrid_opts o = { 0 };
	struct kbx_hybrid_graph graph, *g = &graph;
	_kbx_hybrid_store_graph(store, g);
	if (notebuf && notesz)
		notebuf[0] = '\0';
	*ids = NULL;
	*n = 0;
	for (int i = 0; i < 3 && !st; i++) {
		if (!texts[i])
			continue;
		struct kbx_hybrid_term t;
		st = resolve(g, &o, texts[i], roles[i], &t, 0, err);
		if (!st && !t.nodes.n)
			st = _kbx_fail(err, KBX_NOT_FOUND,
				       "'%s' names no symbol, file or directory in the index", texts[i]);
		if (!st && t.nodes.n > 1 && t.how == KBX_HOW_SYMBOL && notebuf && notesz) {
			size_t l = strlen(notebuf);
			snprintf(notebuf + l, notesz - l, "%s'%s' is ambiguous: %zu definitions, all taken",
				 l ? "; " : "", texts[i], t.nodes.n);
		}
		struct _kbx_u32s part = { 0 };
		if (!st)
			st = i == 0 ? scope_within(g, &t, &part, err)
				    : scope_calls(g, &t, i == 1 ? KBX_DIR_IN : KBX_DIR_OUT,
						  depth ? depth : 1, 0, &part, err);
		term_release(&t);
		if (!st) {
			if (have) {
				ids_intersect(&acc, &part);
				free(part.v);
			} else {
				free(acc.v);
				acc = part;
				have = 1;
			}
		} else {
			free(part.v);
		}
	}
	if (st) {
		free(acc.v);
		return st;
	}
	*ids = acc.v;
	*n = acc.n;
	if (!acc.v)
		*ids = malloc(sizeof(uint32_t));
	return KBX_OK;
}

/* ---- ranking ---- */

static int cmp_result(const void *a, const void *b)
{
	const struct kbx_hybrid_result *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (x->hops != y->hops)
		return x->hops < y->hops ? -1 : 1;
	return strcmp(x->node.cid, y->node.cid);
}

static int by_cid(const void *a, const void *b)
{
	const struct kbx_hybrid_result *x = a, *y = b;
	return strcmp(x->node.cid, y->node.cid);
}

/* Similarity of each candidate to text: a search scoped to them. */
static kbx_status_t similarity(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_opts *o,
			       const char *text, struct kbx_hybrid_result *res, size_t n,
			       struct kbx_hybrid_plan *p, struct kbx_error *err)
{
	struct _kbx_u32s scope = { 0 };
	for (size_t i = 0; i < n; i++)
		if (_kbx_u32s_add(&scope, res[i].node.id))
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	_kbx_u32s_settle(&scope);
	struct kbx_search_query q = code_query(o, text, n);
	struct kbx_search_results r;
	q.depth = n;
	q.scope = scope.v;
	q.nscope = scope.n;
	struct kbx_error e = KBX_ERROR_INIT;
	kbx_status_t st = g->search(g->data, &q, &r, &e);
	free(scope.v);
	if (!p->scoped) {
		/* the search of a traversal's results; a question's own
		 * scoped search was reported already */
		p->scoped = 1;
		p->scope_nodes = r.scope_nodes;
		p->scope_plan = r.scope_plan;
		memcpy(p->scope_why, r.scope_why, sizeof(p->scope_why));
		memcpy(p->sig, r.sig, sizeof(p->sig));
	}
	if (st == KBX_NOT_FOUND)
		return KBX_OK;
	if (st)
		return _kbx_fail(err, st, "the plan's step 'rank' (the %zu results compared with the words searched): %s",
				 n, e.msg);
	double best_v = 0, best_l = 0;
	for (size_t i = 0; i < r.n; i++) {
		if (r.hits[i].sig[KBX_SIG_VECTOR].score > best_v)
			best_v = r.hits[i].sig[KBX_SIG_VECTOR].score;
		if (r.hits[i].sig[KBX_SIG_LEXICAL].score > best_l)
			best_l = r.hits[i].sig[KBX_SIG_LEXICAL].score;
	}
	int nsig = (r.sig[KBX_SIG_VECTOR].used ? 1 : 0) + (r.sig[KBX_SIG_LEXICAL].used ? 1 : 0);
	/* each hit finds its candidate by canonical id (the candidates are
	 * ranked afterwards: their order does not matter here) */
	qsort(res, n, sizeof(*res), by_cid);
	for (size_t i = 0; i < r.n; i++) {
		const struct kbx_search_hit *h = &r.hits[i];
		struct kbx_hybrid_result key;
		key.node.cid = h->chunk.doc_id;
		struct kbx_hybrid_result *c = bsearch(&key, res, n, sizeof(*res), by_cid);
		if (!c)
			continue;
		c->vector = h->sig[KBX_SIG_VECTOR].rank ? h->sig[KBX_SIG_VECTOR].score : 0;
		c->lexical = h->sig[KBX_SIG_LEXICAL].rank ? h->sig[KBX_SIG_LEXICAL].score : 0;
		double sum = (best_v > 0 ? c->vector / best_v : 0) +
			     (best_l > 0 ? c->lexical / best_l : 0);
		c->similarity = nsig ? sum / nsig : 0;
	}
	kbx_search_results_release(&r);
	return KBX_OK;
}

/* ---- the registry's documents ---- */

#define HOP_FROM_MAX 50          /* results a hop starts from */
#define HOP_NAMES_MAX 64         /* names it collects */

struct names {
	struct kbx_hybrid_plan *p;
	struct _kbx_u32s *skip;  /* the results and their members: not "used" */
	int failed;
};

static void add_name(struct names *nm, const char *name, size_t len)
{
	struct kbx_hybrid_plan *p = nm->p;
	if (!len || p->ndocs_names >= HOP_NAMES_MAX)
		return;
	for (size_t i = 0; i < p->ndocs_names; i++)
		if (strlen(p->docs_names[i]) == len && !memcmp(p->docs_names[i], name, len))
			return;
	char **v = realloc(p->docs_names, (p->ndocs_names + 1) * sizeof(*v));
	if (!v || !(v[p->ndocs_names] = strndup(name, len))) {
		if (v)
			p->docs_names = v;
		nm->failed = 1;
		return;
	}
	p->docs_names = v;
	p->ndocs_names++;
}

/* The name a node is used by: a file's base name without its extension
 * ("retry" for http/retry.py), a module's name, a definition's qualified
 * name. */
static void add_node_name(struct names *nm, const struct kbx_node *n)
{
	if (n->kind == KBX_KIND_FILE && n->path) {
		const char *b = n->path + n->path_len;
		while (b > n->path && b[-1] != '/')
			b--;
		const char *dot = memchr(b, '.', (size_t)(n->path + n->path_len - b));
		add_name(nm, b, (size_t)((dot ? dot : n->path + n->path_len) - b));
		return;
	}
	/* "OrderService.process": the class says what the method is about */
	const char *name = n->qual && *n->qual ? n->qual : n->name;
	if (name)
		add_name(nm, name, strlen(name));
}

static int on_used(void *data, const struct kbx_edge *e)
{
	struct names *nm = data;
	if (!_kbx_u32s_has(nm->skip, e->to.id))
		add_node_name(nm, &e->to);
	return nm->failed;
}

/* The file node of n: its file, else the node of its path. */
static uint32_t file_of(const struct kbx_hybrid_graph *g, const struct kbx_node *n)
{
	struct kbx_node f;
	struct kbx_error e = KBX_ERROR_INIT;
	if (n->file || !n->path)
		return n->file;
	char *path = strndup(n->path, n->path_len);
	uint32_t id = path && g->node_by_cid(g->data, path, &f, &e) == KBX_OK ? f.id : 0;
	free(path);
	return id;
}

/* The edges of kind out of node id, one hop. */
static kbx_status_t walk_id(const struct kbx_hybrid_graph *g, uint32_t id, int kind, kbx_edge_fn fn,
			    void *data, struct kbx_error *err)
{
	struct kbx_node n;
	kbx_status_t st = g->node(g->data, id, &n, err);
	if (st == KBX_NOT_FOUND)
		return KBX_OK;
	return st ? st : g->walk(g->data, &n, kind, KBX_DIR_OUT, 1, 0, fn, data, err);
}

/* Names for the documents to be about: of the n nodes (ABOUT), or of
 * what they use (USES): the functions their functions and methods call,
 * and what their files import. */
static kbx_status_t hop_names(const struct kbx_hybrid_graph *g, struct kbx_hybrid_plan *p, int hop,
			      const struct kbx_node *const *nodes, size_t n, struct kbx_error *err)
{
	struct names nm = { p, NULL, 0 };
	struct _kbx_u32s from = { 0 }, files = { 0 };
	kbx_status_t st = KBX_OK;
	if (n > HOP_FROM_MAX)
		n = HOP_FROM_MAX;
	p->docs_from = n;
	if (hop != KBX_HOP_USES) {
		for (size_t i = 0; i < n; i++)
			add_node_name(&nm, nodes[i]);
		return nm.failed ? _kbx_fail(err, KBX_ERR_NOMEM, "out of memory") : KBX_OK;
	}
	for (size_t i = 0; i < n && !st; i++) {
		const struct kbx_node *r = nodes[i];
		if (_kbx_u32s_add(&from, r->id))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		if (!st && !KBX_KIND_IS_CALLABLE(r->kind))
			st = members(g, r, CALLABLES, &from, err);
		uint32_t file = r->kind == KBX_KIND_FILE ? r->id : file_of(g, r);
		if (!st && file && _kbx_u32s_add(&files, file))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	_kbx_u32s_settle(&from);
	_kbx_u32s_settle(&files);
	nm.skip = &from;
	/* what they call first, then what their files import */
	for (size_t i = 0; i < from.n && !st && !nm.failed; i++)
		st = walk_id(g, from.v[i], KBX_EDGE_CALLS, on_used, &nm, err);
	for (size_t i = 0; i < files.n && !st && !nm.failed; i++)
		st = walk_id(g, files.v[i], KBX_EDGE_IMPORTS, on_used, &nm, err);
	free(from.v);
	free(files.v);
	if (!st && nm.failed)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	return st;
}

/* Search the registry for the plan's documents (p->docs_text, of
 * p->docs_types) into out->docs, at most limit kept. */
static kbx_status_t search_docs(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_opts *o,
				struct kbx_hybrid_results *out, size_t limit, struct kbx_error *err)
{
	struct kbx_hybrid_plan *p = &out->plan;
	struct kbx_search_query q = { 0 };
	struct kbx_error e = KBX_ERROR_INIT;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	q.text = p->docs_text;
	q.mode = o->mode;
	q.fusion = o->fusion;
	q.vector_weight = -1;
	/* three times the limit, as for the code: enough to say how many
	 * more there are, or that there are many */
	q.limit = limit * 3;
	q.types = p->docs_types;
	q.embed = o->embed;
	kbx_status_t st = g->search(g->data, &q, &out->docs, &e);
	memcpy(p->docs_sig, out->docs.sig, sizeof(p->docs_sig));
	p->ms_docs = ms_since(&t0);
	if (st == KBX_NOT_FOUND) {
		kbx_search_results_release(&out->docs);
		uint64_t docs = 0;
		if (g->documents(g->data, &docs, &e) == KBX_OK && !docs)
			note(p, "the index holds no registry documents: add a registry with 'kbx registry add DIR', then run 'kbx index'");
		return KBX_OK;
	}
	if (st)
		return _kbx_fail(err, st, "%s", e.msg);
	out->docs_capped = out->docs.n >= q.limit;
	/* one hit per document, its best section: kbx_search folds a
	 * document's other sections into it */
	out->docs_total = out->docs.n;
	if (out->docs.n > limit)
		out->docs.n = limit;
	return KBX_OK;
}

/* The text the documents are searched with: the hop's names, then the
 * question's own words. */
static kbx_status_t docs_text(struct kbx_hybrid_plan *p, const char *words, struct kbx_error *err)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < p->ndocs_names; i++) {
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, p->docs_names[i]);
	}
	if (words) {
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, words);
	}
	if (sb.failed) {
		strbuf_release(&sb);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	free(p->docs_text);
	p->docs_text = sb.len ? strbuf_detach(&sb, NULL) : NULL;
	strbuf_release(&sb);
	return KBX_OK;
}

/*
 * The registry's part of a plan, once the code's results are ranked
 * (out->items, out->total of them): the documents the question asks for,
 * about the results or what they use when there is a hop, or, for a
 * search of words that found no code, the documents for those words.
 */
static kbx_status_t documents(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_opts *o,
			      struct kbx_hybrid_results *out, const struct _kbx_question *q,
			      const char *search_text, int have_scope, size_t limit,
			      struct kbx_error *err)
{
	struct kbx_hybrid_plan *p = &out->plan;
	kbx_status_t st = KBX_OK;
	if (!p->docs_why) {
		/* nothing asked for documents; a search of words that found
		 * no code may still find them */
		if (out->total || q->relation || have_scope || !search_text)
			return KBX_OK;
		p->docs_why = KBX_DOCS_FALLBACK;
		p->docs_types = 1u << KBX_CHUNK_ERROR | 1u << KBX_CHUNK_PATTERN |
				1u << KBX_CHUNK_DOC | 1u << KBX_CHUNK_ADR | 1u << KBX_CHUNK_BEHAVIORAL;
		st = docs_text(p, search_text, err);
	} else if (p->docs_hop && (out->total || p->nseeds)) {
		/* the hop: from the results, or from the seeds when the graph
		 * found nothing */
		size_t n = out->total ? out->total : p->nseeds;
		const struct kbx_node **nodes = calloc(n + 1, sizeof(*nodes));
		if (!nodes)
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		for (size_t i = 0; i < n; i++)
			nodes[i] = out->total ? &out->items[i].node : &p->seeds[i].node;
		if (!out->total && q->relation)
			note(p, "the graph found nothing: the documents are about what the question named");
		st = hop_names(g, p, p->docs_hop, nodes, n, err);
		if (!st && !p->ndocs_names && p->docs_hop == KBX_HOP_USES) {
			note(p, "the %zu result%s use%s nothing kbx knows of: the documents are about %s",
			     p->docs_from, p->docs_from == 1 ? "" : "s", p->docs_from == 1 ? "s" : "",
			     p->docs_from == 1 ? "it" : "them");
			p->docs_hop = KBX_HOP_ABOUT;
			st = hop_names(g, p, p->docs_hop, nodes, n, err);
		}
		free(nodes);
		if (!st)
			st = docs_text(p, p->docs_text ? p->docs_text : search_text, err);
	} else if (!p->docs_text) {
		st = docs_text(p, search_text, err);
	}
	if (st || !p->docs_text)
		return st;
	st = search_docs(g, o, out, limit, err);
	if (!st && p->docs_why == KBX_DOCS_FALLBACK && out->docs.n)
		note(p, "no code matches '%s': the registry's documents for it are shown",
		     search_text);
	return st;
}

/* ---- the plan ---- */

static double weight(double given, double def)
{
	return given < 0 ? def : given;
}

static uint32_t default_depth(int rel)
{
	if (rel == KBX_REL_DEFINES)
		return 2;
	if (rel == KBX_REL_IMPACT)
		return KBX_HYBRID_DEPTH_ALL;
	return 1;
}

static kbx_status_t add_term(struct kbx_hybrid_plan *p, struct kbx_hybrid_term *t,
			     struct kbx_error *err)
{
	struct kbx_hybrid_term *n = realloc(p->terms, (p->nterms + 1) * sizeof(*n));
	if (!n) {
		term_release(t);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	p->terms = n;
	p->terms[p->nterms++] = *t;
	return KBX_OK;
}

static kbx_status_t add_seed(struct kbx_hybrid_plan *p, const struct kbx_node *n,
			     const char *from, double score, struct kbx_error *err)
{
	for (size_t i = 0; i < p->nseeds; i++)
		if (p->seeds[i].node.id == n->id)
			return KBX_OK;
	struct kbx_hybrid_seed *v = realloc(p->seeds, (p->nseeds + 1) * sizeof(*v));
	if (!v)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	p->seeds = v;
	v[p->nseeds].node = *n;
	v[p->nseeds].from = from;
	v[p->nseeds].score = score;
	p->nseeds++;
	return KBX_OK;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* A phrase that stands for nothing: say so, with the nearest names. */
static kbx_status_t unresolved(const struct kbx_hybrid_graph *g, const char *text, struct kbx_error *err)
{
	struct kbx_nodelist near = KBX_NODELIST_INIT;
	struct kbx_error e = KBX_ERROR_INIT;
	char hint[512] = "";
	if (!strchr(text, ' ') && g->suggest && g->suggest(g->data, text, 4, &near, &e) == KBX_OK &&
	    near.n) {
		size_t l = (size_t)snprintf(hint, sizeof(hint), ": did you mean");
		for (size_t i = 0; i < near.n && l < sizeof(hint); i++)
			l += (size_t)snprintf(hint + l, sizeof(hint) - l, "%s %s", i ? "," : "",
					      near.items[i].name);
	}
	kbx_nodelist_release(&near);
	char c[64];
	if (strpbrk(text, "*?[") && !strchr(text, ' '))
		return _kbx_fail(err, KBX_NOT_FOUND,
				 "'%s' matches no name of a symbol or file in the index (a glob: * ? [...], case aside)",
				 clip(text, c));
	return _kbx_fail(err, KBX_NOT_FOUND, "'%s' names no symbol, file or directory in the index%s%s",
			 clip(text, c), strchr(text, ' ') ? ", and no code matches it" : "", hint);
}

/* How the graph part of the plan walks (kbx_walk_edges_flags()). */
static unsigned walk_flags(const struct kbx_hybrid_opts *o)
{
	return o->certain ? KBX_WALK_CERTAIN : 0;
}

/* Resolve a constraint phrase and turn it into a scope set. */
static kbx_status_t constraint(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_opts *o,
			       struct kbx_hybrid_plan *p, const char *text, const char *role,
			       uint32_t depth, struct _kbx_u32s *scope, int *have, struct kbx_error *err)
{
	struct kbx_hybrid_term t;
	kbx_status_t st = resolve(g, o, text, role, &t, !strcmp(role, "within") ? 0 : 1, err);
	if (st) {
		term_release(&t);
		return st;
	}
	if (!t.nodes.n) {
		term_release(&t);
		return unresolved(g, text, err);
	}
	char c[64];
	if (t.how == KBX_HOW_GLOB)
		note(p, "'%s' is a glob: %zu name%s in the index match%s it", clip(text, c), t.nodes.n,
		     t.nodes.n == 1 ? "" : "s", t.nodes.n == 1 ? "es" : "");
	if (t.nodes.n > 1 && t.how == KBX_HOW_SYMBOL)
		note(p, "'%s' is ambiguous: %zu definitions; all of them are taken", clip(text, c),
		     t.nodes.n);
	struct _kbx_u32s part = { 0 };
	if (!strcmp(role, "matching")) {
		/* the names themselves */
		for (size_t i = 0; i < t.nodes.n && !st; i++)
			if (_kbx_u32s_add(&part, t.nodes.items[i].id))
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		_kbx_u32s_settle(&part);
	} else if (!strcmp(role, "within"))
		st = scope_within(g, &t, &part, err);
	else
		st = scope_calls(g, &t, !strcmp(role, "calls") ? KBX_DIR_IN : KBX_DIR_OUT, depth,
				 walk_flags(o), &part, err);
	if (!st)
		st = add_term(p, &t, err);
	else
		term_release(&t);
	if (st) {
		free(part.v);
		return st;
	}
	if (*have) {
		ids_intersect(scope, &part);
		free(part.v);
	} else {
		*scope = part;
		*have = 1;
	}
	return KBX_OK;
}

kbx_status_t kbx_hybrid(kbx_store_t *store, const struct kbx_hybrid_opts *o,
			struct kbx_hybrid_results *out, struct kbx_error *err)
{
	struct kbx_hybrid_graph g;
	_kbx_hybrid_store_graph(store, &g);
	return kbx_hybrid_over(&g, o, out, err);
}

kbx_status_t kbx_hybrid_over(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_opts *o,
			     struct kbx_hybrid_results *out, struct kbx_error *err)
{
	struct kbx_error local = KBX_ERROR_INIT;
	struct _kbx_question q;
	struct kbx_hybrid_plan *p = &out->plan;
	struct reached rs = { 0 };
	struct _kbx_u32s scope = { 0 };
	int have_scope = 0;
	kbx_status_t st = KBX_OK;
	struct timespec t0;
	size_t limit = o->limit ? o->limit : DEFAULT_LIMIT;
	char *search_text = NULL;
	uint32_t exclude = 0;
	char cbuf[64];
	int seeds_searched = 0;         /* the target was found by a search */
	int code = 1;                   /* the code is searched for the words */

	if (!err)
		err = &local;
	memset(out, 0, sizeof(*out));
	if (!o->query || !*o->query)
		return _kbx_fail(err, KBX_ERR_USAGE, "no question: ask for example 'what calls add'");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (_kbx_understand(o->query, &q))
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	p->relation = q.relation;
	p->relation_words = dup_or_null(q.relation_words);
	p->depth = o->depth ? o->depth : q.depth ? q.depth : default_depth(q.relation);
	p->depth_words = dup_or_null(o->depth ? "--depth" : q.depth_words);
	p->certain = o->certain;
	p->kinds = q.kinds;
	p->kind_words = dup_or_null(q.kind_words);
	p->w.similarity = weight(o->w.similarity, KBX_HYBRID_W_SIMILARITY);
	p->w.graph = weight(o->w.graph, KBX_HYBRID_W_GRAPH);
	p->w.importance = weight(o->w.importance, KBX_HYBRID_W_IMPORTANCE);
	p->w.recency = weight(o->w.recency, KBX_HYBRID_W_RECENCY);
	/* files answer "what imports", never "methods" */
	if (q.relation == KBX_REL_IMPORTS || q.relation == KBX_REL_IMPORTERS)
		p->kinds = 0;
	if (q.doc_types) {
		p->docs_why = q.doc_head ? KBX_DOCS_ASKED : KBX_DOCS_HOWTO;
		p->docs_types = q.doc_types;
		p->docs_words = dup_or_null(q.doc_words);
		p->docs_hop_words = dup_or_null(q.doc_hop_words);
		/* "docs ... what calls X": about the answer, unless "used by" */
		p->docs_hop = q.doc_hop ? q.doc_hop : q.relation ? KBX_HOP_ABOUT : KBX_HOP_NONE;
	}

	if (!q.relation && !q.similar && !q.rest && !q.within && !q.called_by && !q.calls &&
	    !q.glob) {
		st = _kbx_fail(err, KBX_ERR_USAGE,
			       "'%s' has no words to search or follow: ask for example 'what calls add', 'methods in a.py' or 'code similar to retry with backoff'",
			       clip(o->query, cbuf));
		goto done;
	}

	/* the constraints: one scope, their intersection */
	uint32_t cdepth = o->depth ? o->depth : q.depth ? q.depth : 1;
	if (q.within)
		st = constraint(g, o, p, q.within, "within", cdepth, &scope, &have_scope, err);
	if (!st && q.called_by)
		st = constraint(g, o, p, q.called_by, "called-by", cdepth, &scope, &have_scope, err);
	if (!st && q.calls)
		st = constraint(g, o, p, q.calls, "calls", cdepth, &scope, &have_scope, err);
	if (!st && q.glob)
		st = constraint(g, o, p, q.glob, "matching", cdepth, &scope, &have_scope, err);
	if (st)
		goto done;

	/* the text to search: what it is similar to (a symbol's own code
	 * when the words name one), else the words no cue took */
	if (q.similar) {
		struct kbx_nodelist l = KBX_NODELIST_INIT;
		struct kbx_error e = KBX_ERROR_INIT;
		const char *text;
		size_t len;
		if (!strchr(q.similar, ' ') && g->lookup(g->data, q.similar, &l, &e) == KBX_OK &&
		    l.n == 1 && !g->code_text(g->data, &l.items[0], &text, &len, &e)) {
			search_text = strndup(text, len);
			p->similar_to = strdup(l.items[0].cid);
			exclude = l.items[0].id;
		} else {
			if (l.n > 1)
				note(p, "'%s' names %zu definitions: its words are searched, not one's code",
				     clip(q.similar, cbuf), l.n);
			search_text = strdup(q.similar);
		}
		kbx_nodelist_release(&l);
		if (q.rest)
			note(p, "words not used: '%s'", clip(q.rest, cbuf));
	} else if (q.rest) {
		search_text = strdup(q.rest);
	}
	if (q.doc_head && !q.relation && search_text) {
		/* "patterns used by HttpClient": a name is where the hop
		 * starts; other words are the documents' search, not the
		 * code's */
		struct kbx_nodelist l = KBX_NODELIST_INIT;
		struct kbx_error e = KBX_ERROR_INIT;
		if (p->docs_hop && !strchr(search_text, ' ') && !p->similar_to &&
		    g->lookup(g->data, search_text, &l, &e) == KBX_OK) {
			struct kbx_hybrid_term t = { 0 };
			t.text = strdup(search_text);
			t.role = "target";
			t.how = l.items[0].kind == KBX_KIND_FILE ? KBX_HOW_FILE : KBX_HOW_SYMBOL;
			t.nodes = l;
			for (size_t i = 0; i < l.n && !st; i++)
				st = add_seed(p, &l.items[i], "symbol", 1.0, err);
			if (!st)
				st = t.text ? add_term(p, &t, err)
					    : _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			else
				term_release(&t);
			if (st)
				goto done;
		} else {
			kbx_nodelist_release(&l);
			p->docs_text = strdup(search_text);
		}
		code = 0;
		free(search_text);
		search_text = NULL;
	}
	p->search_text = dup_or_null(p->similar_to ? NULL : search_text);
	p->ms_plan = ms_since(&t0);

	/* seeds */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (q.relation && q.target) {
		struct kbx_hybrid_term t;
		st = resolve(g, o, q.target, "target", &t, 1, err);
		if (st) {
			term_release(&t);
			goto done;
		}
		if (!t.nodes.n) {
			st = unresolved(g, q.target, err);
			term_release(&t);
			goto done;
		}
		if (t.nodes.n > 1 && t.how != KBX_HOW_SEARCH && t.how != KBX_HOW_DIRECTORY &&
		    t.how != KBX_HOW_GLOB)
			note(p, "'%s' is ambiguous: %zu definitions; each is a starting point",
			     clip(q.target, cbuf), t.nodes.n);
		if (t.how == KBX_HOW_SEARCH)
			note(p, "'%s' names no symbol: the %zu code chunk%s the search finds for it are the starting points",
			     clip(q.target, cbuf), t.nodes.n, t.nodes.n == 1 ? "" : "s");
		if (t.how == KBX_HOW_GLOB)
			note(p, "'%s' is a glob: the %zu name%s it matches %s the starting point%s",
			     clip(q.target, cbuf), t.nodes.n, t.nodes.n == 1 ? "" : "s",
			     t.nodes.n == 1 ? "is" : "are", t.nodes.n == 1 ? "" : "s");
		seeds_searched = t.how == KBX_HOW_SEARCH;
		for (size_t i = 0; i < t.nodes.n && !st; i++)
			st = add_seed(p, &t.nodes.items[i], t.how == KBX_HOW_SEARCH ? "search" : "symbol",
				      t.scores ? t.scores[i] : 1.0, err);
		/* a class or file in a relation over calls stands for its
		 * functions and methods */
		for (size_t i = 0; i < t.nodes.n && !st && over_calls(q.relation); i++) {
			const struct kbx_node *n = &t.nodes.items[i];
			if (KBX_KIND_IS_CALLABLE(n->kind))
				continue;
			struct _kbx_u32s m = { 0 };
			st = members(g, n, CALLABLES, &m, err);
			for (size_t j = 0; j < m.n && !st; j++) {
				struct kbx_node mn;
				struct kbx_error e = KBX_ERROR_INIT;
				if (g->node(g->data, m.v[j], &mn, &e) == KBX_OK)
					st = add_seed(p, &mn, "member", t.scores ? t.scores[i] : 1.0, err);
			}
			free(m.v);
		}
		if (!st)
			st = add_term(p, &t, err);
		else
			term_release(&t);
		if (st)
			goto done;
	} else if (q.relation) {
		st = _kbx_fail(err, KBX_ERR_USAGE, "'%s' needs a name after it",
			       clip(q.relation_words ? q.relation_words : "", cbuf));
		goto done;
	} else if (code) {
		/* no traversal: the search's hits are the seeds */
		if (!search_text && have_scope) {
			/* "functions within src/auth": the scope itself; a
			 * glob's files too */
			for (size_t i = 0; i < scope.n && !st; i++) {
				struct kbx_node n;
				struct kbx_error e = KBX_ERROR_INIT;
				if (g->node(g->data, scope.v[i], &n, &e) == KBX_OK &&
				    (n.kind != KBX_KIND_FILE || q.glob))
					st = add_seed(p, &n, q.glob ? "glob" : "scope", 1.0, err);
			}
		} else if (search_text) {
			struct kbx_search_query sq = code_query(o, search_text, limit * 3);
			struct kbx_search_results r;
			struct kbx_error e = KBX_ERROR_INIT;
			sq.scope = have_scope ? scope.v : NULL;
			sq.nscope = scope.n;
			if (have_scope && !scope.n) {
				st = KBX_NOT_FOUND;
			} else {
				st = g->search(g->data, &sq, &r, &e);
				memcpy(p->sig, r.sig, sizeof(p->sig));
				if (have_scope) {
					p->scoped = 1;
					p->scope_nodes = r.scope_nodes;
					p->scope_plan = r.scope_plan;
					memcpy(p->scope_why, r.scope_why, sizeof(p->scope_why));
				}
				for (size_t i = 0; !st && i < r.n; i++) {
					struct kbx_node n;
					struct kbx_error ne = KBX_ERROR_INIT;
					if (g->node_by_cid(g->data, r.hits[i].chunk.doc_id, &n, &ne) == KBX_OK &&
					    n.id != exclude)
						st = add_seed(p, &n, "search", r.hits[i].score / r.hits[0].score,
							      err);
				}
				if (st == KBX_NOT_FOUND || !st)
					kbx_search_results_release(&r);
				if (st && st != KBX_NOT_FOUND && have_scope)
					st = _kbx_fail(err, st, "the plan's step 'seeds' (the search within the scope): %s",
						       e.msg);
				else if (st && st != KBX_NOT_FOUND)
					st = _kbx_fail(err, st, "%s", e.msg);
			}
			if (st == KBX_NOT_FOUND)
				st = KBX_OK;
			if (st)
				goto done;
		}
	}
	p->ms_search = ms_since(&t0);

	/* expand */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < p->nseeds && !st; i++) {
		const struct kbx_hybrid_seed *sd = &p->seeds[i];
		if (reach_add(&rs, &sd->node, 0, 0, 0, KBX_CONF_CERTAIN, sd->score)) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		if (q.relation) {
			st = traverse(g, &rs, q.relation, &sd->node, p->depth, walk_flags(o), sd->score,
				      err);
		} else if (o->expand) {
			st = walk(g, &rs, &sd->node, KBX_EDGE_CALLS, KBX_DIR_IN, o->expand,
				  walk_flags(o), sd->score, err);
			if (!st)
				st = walk(g, &rs, &sd->node, KBX_EDGE_CALLS, KBX_DIR_OUT, o->expand,
					  walk_flags(o), sd->score, err);
		}
	}
	if (st)
		goto done;
	/* members taken as seeds were walked from at hops 0: so were the
	 * class or file they stand for */
	p->candidates = rs.n;
	p->ms_expand = ms_since(&t0);

	/* the candidates: not the seeds of a traversal, in the scope, of the
	 * kinds asked */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct kbx_hybrid_result *res = calloc(rs.n + 1, sizeof(*res));
	if (!res) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto done;
	}
	size_t nres = 0;
	for (size_t i = 0; i < rs.n; i++) {
		const struct reach *r = &rs.r[i];
		if (q.relation && !r->hops)
			continue;
		if (r->id == exclude)
			continue;
		if (have_scope && !_kbx_u32s_has(&scope, r->id))
			continue;
		if (p->kinds && !(p->kinds & (1u << r->node.kind)))
			continue;
		if (r->node.kind == KBX_KIND_NAMEREF)
			continue;
		struct kbx_hybrid_result *h = &res[nres++];
		h->node = r->node;
		h->hops = r->hops;
		h->confidence = r->confidence;
		/* with no text, a seed found by a search passes its score
		 * on; a seed the question named has no similarity to speak of */
		h->similarity_from = search_text ? KBX_SIM_SEARCH
				   : seeds_searched ? KBX_SIM_SEED : KBX_SIM_NONE;
		h->similarity = h->similarity_from == KBX_SIM_SEED ? r->seed_score : 0;
		/* a way through a call kbx could not pin down counts half */
		h->graph = (r->confidence == KBX_CONF_AMBIGUOUS ? 0.5 : 1.0) / (1.0 + r->hops);
	}
	if (search_text && nres)
		st = similarity(g, o, search_text, res, nres, p, err);
	if (st) {
		free(res);
		goto done;
	}
	/* importance and recency, relative to the candidates */
	uint32_t most = 0;
	int64_t newest = 0;
	if (nres && (st = g->facts(g->data, res, nres, err))) {
		free(res);
		goto done;
	}
	for (size_t i = 0; i < nres; i++) {
		if (res[i].callers > most)
			most = res[i].callers;
		if (res[i].mtime > newest)
			newest = res[i].mtime;
	}
	for (size_t i = 0; i < nres; i++) {
		struct kbx_hybrid_result *h = &res[i];
		h->importance = most ? log1p(h->callers) / log1p(most) : 0;
		double days = h->mtime ? (double)(newest - h->mtime) / 86400.0 : 0;
		h->recency = h->mtime ? pow(0.5, days / KBX_HYBRID_RECENCY_HALF_LIFE_DAYS) : 0;
		h->score = p->w.similarity * h->similarity + p->w.graph * h->graph +
			   p->w.importance * h->importance + p->w.recency * h->recency;
	}
	if (nres)
		qsort(res, nres, sizeof(*res), cmp_result);
	out->total = nres;
	p->ms_rank = ms_since(&t0);
	out->items = res;
	st = documents(g, o, out, &q, search_text, have_scope, limit, err);
	if (st)
		goto done;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (nres > limit)
		nres = limit;
	/* the way from each result back to its seed */
	for (size_t i = 0; i < nres && !st; i++) {
		struct kbx_hybrid_result *h = &res[i];
		size_t len = 1;
		for (const struct reach *r = reach_find(&rs, h->node.id); r && r->parent && len < 64;
		     r = reach_find(&rs, r->parent))
			len++;
		h->via = calloc(len, sizeof(*h->via));
		h->via_line = calloc(len, sizeof(*h->via_line));
		if (!h->via || !h->via_line) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		h->nvia = len;
		const struct reach *r = reach_find(&rs, h->node.id);
		for (size_t k = len; k-- > 0 && r;) {
			h->via[k] = r->node;
			h->via_line[k] = r->line;
			r = r->parent ? reach_find(&rs, r->parent) : NULL;
		}
		h->via_line[0] = 0;
	}
	out->n = nres;
	p->ms_rank += ms_since(&t0);
	if (!st && !nres && !out->docs.n)
		st = _kbx_fail(err, KBX_NOT_FOUND, "nothing found for '%s'", clip(o->query, cbuf));
done:
	free(search_text);
	reach_release(&rs);
	free(scope.v);
	_kbx_question_release(&q);
	return st;
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void kbx_hybrid_release(struct kbx_hybrid_results *r)
{
	struct kbx_hybrid_plan *p = &r->plan;
	for (size_t i = 0; i < r->n; i++) {
		free(r->items[i].via);
		free(r->items[i].via_line);
	}
	free(r->items);
	free(p->relation_words);
	free(p->depth_words);
	free(p->search_text);
	free(p->similar_to);
	free(p->kind_words);
	free(p->docs_words);
	free(p->docs_hop_words);
	free(p->docs_text);
	free_strings(p->docs_names, p->ndocs_names);
	kbx_search_results_release(&r->docs);
	for (size_t i = 0; i < p->nterms; i++)
		term_release(&p->terms[i]);
	free(p->terms);
	free(p->seeds);
	free_strings(p->notes, p->nnotes);
	kbx_nodelist_release(&r->strings);
	memset(r, 0, sizeof(*r));
}
