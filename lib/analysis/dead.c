/*
 * Functions and methods nothing calls, as a whole-graph pass: one scan of
 * the nodes, one of the CALLS and INHERITS edges, then a decision per
 * uncalled function from what the two scans gathered.  No walk per node.
 *
 * What the scans gather:
 *   - a bitmap of the ids some other definition (or file-level code)
 *     calls, with any confidence (with certain_only: with a confidence
 *     kbx_edge_wanted() takes; the others go to a second bitmap, which
 *     only says so of what is reported);
 *   - the (language family, name) pairs that name:NAME references are
 *     called with, so that every callable of that name and family is
 *     alive, as kbx_walk_edges() counts its callers (with certain_only,
 *     they only go to the second set: such a call is always ambiguous);
 *   - each type's bases (INHERITS), and the (type, method name) pairs the
 *     types define, for overrides.
 * Sets of pairs are sets of 64-bit hashes: a collision could only keep a
 * function alive, never report one dead.
 *
 * The graph has calls, not references: a function passed as a callback
 * (qsort(v, n, sizeof(*v), cmp), .fn = cmd_add, map(f, xs)) has no
 * caller in it.  So the last step reads the indexed source files of the
 * languages that still have candidates and keeps alive every candidate
 * whose name appears there, outside comments, other than before a '('
 * (a call or a definition): "referenced".  A name in a string counts
 * too (getattr(obj, "name")), and so does the start of a name a string
 * builds at run time (getattr(self, f"visit_{kind}")) for every
 * candidate it starts.  This reads the working tree, which may
 * have changed since the index was built; a file that cannot be read is
 * passed over.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "analysis/analysis.h"
#include "graph/graph.h"
#include "analysis/rules.h"

/* ---- a set of 64-bit hashes (open addressing; 0 stands for empty) ---- */

struct hset {
	uint64_t *v;
	size_t n, cap;
};

static uint64_t fix(uint64_t h)
{
	return h ? h : 1;
}

static int hset_add(struct hset *s, uint64_t h)
{
	h = fix(h);
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 1024;
		uint64_t *nv = calloc(ncap, sizeof(*nv));
		if (!nv)
			return -1;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i])
				continue;
			size_t j = s->v[i] & (ncap - 1);
			while (nv[j])
				j = (j + 1) & (ncap - 1);
			nv[j] = s->v[i];
		}
		free(s->v);
		s->v = nv;
		s->cap = ncap;
	}
	size_t j = h & (s->cap - 1);
	while (s->v[j]) {
		if (s->v[j] == h)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->v[j] = h;
	s->n++;
	return 0;
}

static int hset_has(const struct hset *s, uint64_t h)
{
	h = fix(h);
	if (!s->cap)
		return 0;
	for (size_t j = h & (s->cap - 1); s->v[j]; j = (j + 1) & (s->cap - 1))
		if (s->v[j] == h)
			return 1;
	return 0;
}

/* A name with a number (a language family, a type id) in front. */
static uint64_t pair_hash(uint32_t num, const char *name)
{
	return XXH3_64bits_withSeed(name, strlen(name), num);
}

/* ---- what the scans gather ---- */

struct base {
	uint32_t cls, base;     /* base 0: outside the index */
	const char *ext;        /* the external base's name, for the reason */
};

/* A map from 64-bit hashes to a number (the file that refers to a name). */
struct hmap {
	uint64_t *k;
	uint32_t *v;
	size_t n, cap;
};

static int hmap_put(struct hmap *m, uint64_t h, uint32_t v)
{
	h = fix(h);
	if ((m->n + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 1024;
		uint64_t *nk = calloc(ncap, sizeof(*nk));
		uint32_t *nv = calloc(ncap, sizeof(*nv));
		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->k[i])
				continue;
			size_t j = m->k[i] & (ncap - 1);
			while (nk[j])
				j = (j + 1) & (ncap - 1);
			nk[j] = m->k[i];
			nv[j] = m->v[i];
		}
		free(m->k);
		free(m->v);
		m->k = nk;
		m->v = nv;
		m->cap = ncap;
	}
	size_t j = h & (m->cap - 1);
	while (m->k[j]) {
		if (m->k[j] == h)
			return 0;  /* the first one stays */
		j = (j + 1) & (m->cap - 1);
	}
	m->k[j] = h;
	m->v[j] = v;
	m->n++;
	return 0;
}

/* The value for h, or 0. */
static uint32_t hmap_get(const struct hmap *m, uint64_t h)
{
	h = fix(h);
	if (!m->cap)
		return 0;
	for (size_t j = h & (m->cap - 1); m->k[j]; j = (j + 1) & (m->cap - 1))
		if (m->k[j] == h)
			return m->v[j];
	return 0;
}

/* The start of a name a program builds at run time, written in a string
 * that the rest is joined to: getattr(self, f"visit_{kind}"),
 * "visit_%s" % kind, this["handle" + name], `emit${name}`. */
struct prefix {
	int fam;
	uint32_t file;
	char text[64];
};

struct dead_ctx {
	struct kbx_node *fns;   /* every function and method, in id order */
	size_t nfns, afns;
	struct kbx_node *types; /* every type, in id order */
	size_t ntypes, atypes;
	uint32_t max_id;
	unsigned char *called;  /* bitmap over ids */
	struct hset namerefs;   /* (family, name) called through name:NAME */
	int certain_only;       /* count only what kbx_edge_wanted() takes */
	unsigned char *guessed; /* certain_only: ids only left-out calls reach */
	struct hset guessed_names;  /* certain_only: namerefs, left out */
	struct hset members;    /* (type id, method name) */
	struct hset ifaces;     /* (family, name) of interface methods (Go) */
	struct base *bases;
	size_t nbases, abases;
	struct kbx_node *files; /* every file, in id order */
	size_t nfiles, afiles;
	struct hset cands;      /* (family, name) of the functions nothing calls */
	struct hmap refs;       /* (family, name) -> the id of a file naming it */
	struct hmap hdr;        /* (family, name) -> the header defining a static one */
	struct hmap type_quals; /* (family, qualified name) -> the type's id */
	struct prefix *prefixes; /* names built at run time: their written start */
	size_t nprefixes, aprefixes;
	int nomem;
};

static int grow(void **arr, size_t *alloc, size_t n, size_t elem)
{
	return _kbx_grow(arr, alloc, n, elem, 256);
}

static int on_node(void *data, const struct kbx_node *n)
{
	struct dead_ctx *c = data;
	if (n->id > c->max_id)
		c->max_id = n->id;
	if (KBX_KIND_IS_CALLABLE(n->kind)) {
		if (grow((void **)&c->fns, &c->afns, c->nfns, sizeof(*c->fns)))
			goto nomem;
		c->fns[c->nfns++] = *n;
	} else if (n->kind == KBX_KIND_FILE) {
		if (grow((void **)&c->files, &c->afiles, c->nfiles, sizeof(*c->files)))
			goto nomem;
		c->files[c->nfiles++] = *n;
	} else if (KBX_KIND_IS_TYPE(n->kind)) {
		if (grow((void **)&c->types, &c->atypes, c->ntypes, sizeof(*c->types)))
			goto nomem;
		c->types[c->ntypes++] = *n;
	}
	return 0;
nomem:
	c->nomem = 1;
	return 1;
}

static int on_edge(void *data, const struct kbx_edge *e)
{
	struct dead_ctx *c = data;
	if (e->kind == KBX_EDGE_CALLS) {
		int counts = !c->certain_only || kbx_edge_wanted(e, KBX_WALK_CERTAIN);
		if (e->to.kind == KBX_KIND_NAMEREF) {
			if (hset_add(counts ? &c->namerefs : &c->guessed_names,
				     pair_hash((uint32_t)_kbx_lang_family(e->from.lang), e->to.name)))
				goto nomem;
		} else if (e->from.id != e->to.id && e->to.id <= c->max_id) {
			unsigned char *bits = counts ? c->called : c->guessed;
			bits[e->to.id >> 3] |= (unsigned char)(1u << (e->to.id & 7));
		}
		return 0;
	}
	if (e->kind != KBX_EDGE_INHERITS)
		return 0;
	if (grow((void **)&c->bases, &c->abases, c->nbases, sizeof(*c->bases)))
		goto nomem;
	struct base *b = &c->bases[c->nbases++];
	b->cls = e->from.id;
	b->base = KBX_KIND_IS_TYPE(e->to.kind) ? e->to.id : 0;
	b->ext = b->base ? NULL : e->to.name;
	return 0;
nomem:
	c->nomem = 1;
	return 1;
}

static int bit(const unsigned char *bits, uint32_t max_id, uint32_t id)
{
	return id <= max_id && (bits[id >> 3] >> (id & 7)) & 1;
}

static int is_called(const struct dead_ctx *c, uint32_t id)
{
	return bit(c->called, c->max_id, id);
}

/* With certain_only: is a dead one called, but only by calls left out? */
static int is_guessed(const struct dead_ctx *c, const struct kbx_node *n)
{
	return c->certain_only &&
	       (bit(c->guessed, c->max_id, n->id) ||
		hset_has(&c->guessed_names,
			 pair_hash((uint32_t)_kbx_lang_family(n->lang), n->name)));
}

static const struct kbx_node *find_node(const struct kbx_node *v, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid].id < id)
			lo = mid + 1;
		else if (v[mid].id > id)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}

/* The type a method belongs to: its parent, or for a C++ method defined
 * outside its class (`void DBImpl::Get() {}` in a file other than the
 * class's), the type its qualified name is in. */
static const struct kbx_node *type_of(const struct dead_ctx *c, const struct kbx_node *n)
{
	const struct kbx_node *p = find_node(c->types, c->ntypes, n->parent);
	if (p || n->kind != KBX_KIND_METHOD)
		return p;
	size_t ql = strlen(n->qual), nl = strlen(n->name);
	if (ql <= nl + 1 || n->qual[ql - nl - 1] != '.' || strcmp(n->qual + ql - nl, n->name))
		return NULL;
	uint64_t h = XXH3_64bits_withSeed(n->qual, ql - nl - 1,
					  (uint64_t)_kbx_lang_family(n->lang));
	uint32_t id = hmap_get(&c->type_quals, h);
	return id ? find_node(c->types, c->ntypes, id) : NULL;
}

static int by_cls(const void *a, const void *b)
{
	const struct base *x = a, *y = b;
	return x->cls < y->cls ? -1 : x->cls > y->cls;
}

/* The first base of cls in c->bases (sorted by cls), or nbases. */
static size_t first_base(const struct dead_ctx *c, uint32_t cls)
{
	size_t lo = 0, hi = c->nbases;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->bases[mid].cls < cls)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- the reasons ---- */

static const char *lang_name(int lang)
{
	const char *s = kbx_lang_str(lang);
	return s ? s : "";
}

static int is_lang(int lang, const char *name)
{
	return !strcmp(lang_name(lang), name);
}

/* Does the language make a class's override explicit (so that a method
 * without the marker overrides nothing, whatever its bases)? */
static int explicit_override(int lang)
{
	return is_lang(lang, "csharp") || is_lang(lang, "rust");
}

static int in_list(const char *name, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(name, list[i]))
			return 1;
	return 0;
}

static int word_char(unsigned char ch);

static const char *const ruby_hooks[] = {
	"initialize", "method_missing", "respond_to_missing?", "to_s", "to_str", "inspect",
	"hash", "eql?", "==", "<=>", "each", "coerce", "call", NULL
};

/* An entry point: why, into buf, or NULL. */
static const char *entry_point(const struct dead_ctx *c, const struct kbx_node *n, char *buf,
			       size_t size)
{
	const char *lang = lang_name(n->lang), *name = n->name;
	const struct kbx_node *p = n->kind == KBX_KIND_METHOD ? type_of(c, n) : NULL;
	if (n->flags & KBX_NODE_IMPLICIT) {
		snprintf(buf, size, "called without its name: a property or accessor, a function expression used as a value, or registered by a decorator, annotation or attribute");
		return buf;
	}
	if (!strcmp(name, "main") || (!strcmp(lang, "csharp") && !strcmp(name, "Main")) ||
	    (!strcmp(lang, "go") && !strcmp(name, "init") && n->kind == KBX_KIND_FUNCTION)) {
		snprintf(buf, size, "an entry point: the %s runtime calls %s", lang, name);
		return buf;
	}
	size_t len = strlen(name);
	if (!strcmp(lang, "python") && len > 4 && !strncmp(name, "__", 2) &&
	    !strcmp(name + len - 2, "__")) {
		snprintf(buf, size, "an entry point: Python calls %s itself", name);
		return buf;
	}
	/* __construct, __toString, __get...: PHP's magic methods */
	if (!strcmp(lang, "php") && n->kind == KBX_KIND_METHOD && len > 2 &&
	    !strncmp(name, "__", 2)) {
		snprintf(buf, size, "an entry point: PHP calls %s itself (a magic method)", name);
		return buf;
	}
	/* operator==(a, b) at namespace scope is called as a == b */
	if ((!strcmp(lang, "cpp") || !strcmp(lang, "csharp")) && !strncmp(name, "operator", 8) &&
	    !word_char((unsigned char)name[8])) {
		snprintf(buf, size, "an entry point: %s calls %s implicitly (an operator)", lang, name);
		return buf;
	}
	if (n->kind == KBX_KIND_METHOD &&
	    ((!strcmp(name, "constructor") && (strcmp(lang, "python") && strcmp(lang, "go"))) ||
	     (!strcmp(lang, "ruby") && in_list(name, ruby_hooks)) ||
	     ((!strcmp(lang, "cpp") || !strcmp(lang, "csharp")) &&
	      (name[0] == '~' || !strncmp(name, "operator", 8) || (p && !strcmp(p->name, name)))))) {
		snprintf(buf, size, "an entry point: %s calls %s implicitly (a constructor, destructor, operator or hook)",
			 lang, name);
		return buf;
	}
	return NULL;
}

/* Does method n override or implement a method of its type's bases?
 * Why, into buf, or NULL. */
static const char *override_of(const struct dead_ctx *c, const struct kbx_node *n, char *buf,
			       size_t size)
{
	if (n->kind != KBX_KIND_METHOD)
		return NULL;
	if (n->flags & KBX_NODE_OVERRIDE) {
		snprintf(buf, size, "overrides a method of a base: its declaration says so");
		return buf;
	}
	/* Go types implement interfaces without saying so; a method outside
	 * its type's file has the file for a parent */
	const struct kbx_node *p = type_of(c, n);
	if (is_lang(n->lang, "go") && (!p || p->kind != KBX_KIND_INTERFACE) &&
	    hset_has(&c->ifaces, pair_hash((uint32_t)_kbx_lang_family(n->lang), n->name))) {
		snprintf(buf, size, "may implement an interface: an interface in the index declares %s",
			 n->name);
		return buf;
	}
	if (!p)
		return NULL;
	if (p->kind == KBX_KIND_INTERFACE && is_lang(n->lang, "haskell")) {
		snprintf(buf, size, "the default of %s's %s: a call of the method reaches it",
			 p->qual, n->name);
		return buf;
	}
	/* breadth first over the bases, each type once */
	uint32_t queue[64];
	size_t head = 0, tail = 0;
	const char *ext = NULL;
	queue[tail++] = p->id;
	while (head < tail) {
		uint32_t t = queue[head++];
		for (size_t i = first_base(c, t); i < c->nbases && c->bases[i].cls == t; i++) {
			const struct base *b = &c->bases[i];
			if (!b->base) {
				if (!ext)
					ext = b->ext;
				continue;
			}
			if (hset_has(&c->members, pair_hash(b->base, n->name))) {
				const struct kbx_node *bn = find_node(c->types, c->ntypes, b->base);
				snprintf(buf, size, "overrides %s.%s: it is called through the base",
					 bn ? bn->qual : "?", n->name);
				return buf;
			}
			int seen = 0;
			for (size_t k = 0; k < tail && !seen; k++)
				seen = queue[k] == b->base;
			if (!seen && tail < sizeof(queue) / sizeof(*queue))
				queue[tail++] = b->base;
		}
	}
	if (ext && !explicit_override(n->lang)) {
		snprintf(buf, size, "may override a method of '%s', a base outside the index", ext);
		return buf;
	}
	return NULL;
}

static int has_suffix_n(const char *s, size_t len, const char *suffix)
{
	size_t l = strlen(suffix);
	return len >= l && !memcmp(s + len - l, suffix, l);
}

int kbx_is_test_path(const char *path, size_t len)
{
	static const char *const dirs[] = { "test", "tests", "t", "spec", "specs", "__tests__",
					    "testing", "testdata", NULL };
	static const char *const suffixes[] = {
		"_test.go", "_test.py", "_test.c", "_test.cc", "_test.cpp", "_test.rs",
		"_test.rb", "_spec.rb", "Test.java", "Tests.java", "Test.cs", "Tests.cs",
		".test.js", ".test.jsx", ".test.ts", ".test.tsx", ".spec.js", ".spec.jsx",
		".spec.ts", ".spec.tsx", "/conftest.py", NULL
	};
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		if (i < len) {  /* a directory component */
			for (size_t k = 0; dirs[k]; k++)
				if (strlen(dirs[k]) == i - start && !memcmp(path + start, dirs[k], i - start))
					return 1;
		} else if (len - start > 5 && !memcmp(path + start, "test_", 5)) {
			return 1;  /* test_x.py */
		}
		start = i + 1;
	}
	if (len == 11 && !memcmp(path, "conftest.py", 11))
		return 1;
	for (size_t k = 0; suffixes[k]; k++)
		if (has_suffix_n(path, len, suffixes[k]))
			return 1;
	return 0;
}

/* "Test" then the end, an upper-case letter, a digit or '_'. */
static int prefix_word(const char *name, const char *prefix)
{
	size_t l = strlen(prefix);
	if (strncmp(name, prefix, l))
		return 0;
	char c = name[l];
	return !c || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int kbx_is_test_name(const char *name, const char *qual, int lang)
{
	if (!strncmp(name, "test_", 5) || !strcmp(name, "test") || prefix_word(name, "Test"))
		return 1;
	if (is_lang(lang, "go") && (prefix_word(name, "Benchmark") || prefix_word(name, "Fuzz") ||
				    prefix_word(name, "Example")))
		return 1;
	/* Rust's #[cfg(test)] mod tests { ... } */
	for (const char *p = qual; p && *p;) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);
		if (dot && ((l == 5 && !memcmp(p, "tests", 5)) || (l == 4 && !memcmp(p, "test", 4))))
			return 1;
		p = dot ? dot + 1 : NULL;
	}
	return 0;
}

/* ---- names used other than in a call ---- */

static int word_char(unsigned char ch)
{
	return ch == '_' || ch == '$' || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= 'A' && ch <= 'Z') || ch >= 0x80;
}

/* Is the word s[start, end), which opens a string (quoted by quote), the
 * start of a name built at run time: followed by an interpolation (an
 * f-string's `{`, a template's `${`, `%s`) or by the string's end and a
 * '+'?  Then note it. */
static int add_prefix(struct dead_ctx *c, const char *s, size_t len, size_t start, size_t end,
		      char quote, uint32_t file, int fam)
{
	if (end < len && s[end - 1] == '$' && s[end] == '{')
		end--;  /* `emit${name}`: '$' is a name's character elsewhere */
	size_t l = end - start, k = end;
	if (l < 3 || l >= sizeof(c->prefixes->text) || k >= len)
		return 0;
	int fstring = start >= 2 && (s[start - 2] == 'f' || s[start - 2] == 'F');
	int joined = 0;
	if ((s[k] == '{' && fstring) || (quote == '`' && s[k] == '$' && k + 1 < len && s[k + 1] == '{'))
		joined = 1;
	else if (s[k] == '%' && k + 1 < len && (s[k + 1] == 's' || s[k + 1] == '('))
		joined = 1;
	else if (s[k] == quote) {
		for (k++; k < len && (s[k] == ' ' || s[k] == '\t'); k++)
			;
		joined = k < len && s[k] == '+';
	}
	if (!joined)
		return 0;
	for (size_t i = 0; i < c->nprefixes; i++)
		if (c->prefixes[i].fam == fam && strlen(c->prefixes[i].text) == l &&
		    !memcmp(c->prefixes[i].text, s + start, l))
			return 0;
	if (grow((void **)&c->prefixes, &c->aprefixes, c->nprefixes, sizeof(*c->prefixes)))
		return -1;
	struct prefix *p = &c->prefixes[c->nprefixes++];
	p->fam = fam;
	p->file = file;
	memcpy(p->text, s + start, l);
	p->text[l] = '\0';
	return 0;
}

/* The prefix a name built at run time may make n's name with, or NULL. */
static const struct prefix *built_name(const struct dead_ctx *c, const struct kbx_node *n)
{
	int fam = _kbx_lang_family(n->lang);
	for (size_t i = 0; i < c->nprefixes; i++) {
		const struct prefix *p = &c->prefixes[i];
		size_t l = strlen(p->text);
		if (p->fam == fam && strlen(n->name) > l && !memcmp(n->name, p->text, l))
			return p;
	}
	return NULL;
}

/* A character of a Haskell operator (-->, ==, |-). */
static int hs_sym(char ch)
{
	return ch && strchr("!#$%&*+./<=>?@\\^|-~:", ch);
}

/* Haskell: does the rest of the line from i make the name before it a
 * definition (ok x = ..., with a lone =, or ok x with guards on the
 * next line, | x > 0 = ...) or a signature (ok :: T)? */
static int hs_defines(const char *s, size_t len, size_t i)
{
	for (; i < len; i++) {
		if (s[i] == '\n') {
			size_t k = i + 1;
			while (k < len && (s[k] == ' ' || s[k] == '\t'))
				k++;
			return k < len && s[k] == '|' && (k + 1 == len || !hs_sym(s[k + 1]));
		}
		if (s[i] == ':' && i + 1 < len && s[i + 1] == ':')
			return 1;
		/* a comment, a string: no lone = before them */
		if ((s[i] == '-' && i + 1 < len && s[i + 1] == '-') || s[i] == '"')
			return 0;
		if (s[i] == '=' && (i == 0 || !hs_sym(s[i - 1])) && (i + 1 == len || !hs_sym(s[i + 1])))
			return 1;
	}
	return 0;
}

/* Note in c->refs the candidates that file (of id file, family fam) names
 * other than before a '(' (a call or a definition), outside comments.
 * hash_comments: '#' starts a comment (Python, Ruby); else a #define
 * line is C's, and every name in it counts, called or not, as the macro
 * may be expanded anywhere.  quote_char: '\'' quotes strings too.
 * macro_rules: the same for the body of a Rust macro_rules!.  haskell:
 * '\'' goes on a name (go', no quote then), and a name that starts its
 * line (or follows a `where` or `let` that does) is defined or declared
 * there when the line goes on with a lone = or with :: (hs_defines), so
 * not a reference. */
static int scan_source(struct dead_ctx *c, const char *s, size_t len, uint32_t file, int fam,
		       int hash_comments, int quote_char, int macro_rules, int haskell)
{
	size_t i = 0;
	int macro = 0;          /* macro_rules: 1 before its body, then 1 + depth */
	char quote = 0;         /* inside a string literal: its quote */
	size_t qstart = 0;      /* where its text starts */
	int in_define = 0;      /* inside a #define, to the end of its last line */
	int line_start = 1;
	int after_kw = 0;       /* haskell: the last word was a line's where or let */
	while (i < len) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '\n') {
			if (!(i > 0 && s[i - 1] == '\\'))
				in_define = 0;
			quote = 0;  /* an unclosed literal ends with its line */
			line_start = 1;
			i++;
			continue;
		}
		if (quote) {
			if (ch == '\\')
				i++;
			else if (ch == (unsigned char)quote)
				quote = 0;
			if (ch == '\\' || ch == (unsigned char)quote || !word_char(ch)) {
				i++;
				continue;
			}
		} else if (ch == '"' || (ch == '\'' && quote_char) || ch == '`') {
			quote = (char)ch;
			qstart = i + 1;
			i++;
			line_start = 0;
			continue;
		} else if (haskell && ch == '-' && i + 1 < len && s[i + 1] == '-' &&
			   (i == 0 || !hs_sym(s[i - 1]))) {
			/* -- a comment (not -->) */
			size_t k = i;
			while (k < len && s[k] == '-')
				k++;
			if (k == len || !hs_sym(s[k])) {
				while (i < len && s[i] != '\n')
					i++;
				continue;
			}
		} else if (haskell && ch == '{' && i + 1 < len && s[i + 1] == '-') {
			for (i += 2; i + 1 < len && !(s[i] == '-' && s[i + 1] == '}'); i++)
				;
			i += 2;
			continue;
		} else if (haskell) {
			/* no // nor slash-star comments: // is an operator */
		} else if (ch == '/' && i + 1 < len && s[i + 1] == '/') {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		} else if (ch == '/' && i + 1 < len && s[i + 1] == '*') {
			for (i += 2; i + 1 < len && !(s[i] == '*' && s[i + 1] == '/'); i++)
				;
			i += 2;
			continue;
		} else if (ch == '#' && hash_comments) {
			while (i < len && s[i] != '\n')
				i++;
			continue;
		} else if (ch == '#' && line_start) {
			size_t k = i + 1;
			while (k < len && (s[k] == ' ' || s[k] == '\t'))
				k++;
			in_define = k + 6 <= len && !memcmp(s + k, "define", 6);
		}
		int first = line_start;
		if (ch != ' ' && ch != '\t')
			line_start = 0;
		if (!word_char(ch)) {
			/* a Rust macro_rules! body is token trees, expanded
			 * where the macro is used: as a #define's */
			if (macro && !quote && (ch == '{' || ch == '(' || ch == '['))
				macro++;
			else if (macro > 1 && !quote && (ch == '}' || ch == ')' || ch == ']') &&
				 --macro == 1)
				macro = 0;
			i++;
			continue;
		}
		size_t start = i;
		while (i < len && (word_char((unsigned char)s[i]) || (haskell && s[i] == '\'')))
			i++;
		if (haskell && !quote) {
			/* where go x = ...: go heads the line too */
			int head = first || after_kw;
			int kw = (i - start == 5 && !memcmp(s + start, "where", 5)) ||
				 (i - start == 3 && !memcmp(s + start, "let", 3));
			after_kw = first && kw;
			if (head && !kw && hs_defines(s, len, i))
				continue;
		}
		size_t j = i;
		while (j < len && (s[j] == ' ' || s[j] == '\t'))
			j++;
		if (macro_rules && !quote && !macro && i - start == 11 &&
		    !memcmp(s + start, "macro_rules", 11) && j < len && s[j] == '!')
			macro = 1;
		int called = !in_define && !macro && !quote && j < len && s[j] == '(';
		char name[256];
		size_t l = i - start;
		if (l >= sizeof(name) || (s[start] >= '0' && s[start] <= '9'))
			continue;
		memcpy(name, s + start, l);
		name[l] = '\0';
		if (quote && start == qstart && add_prefix(c, s, len, start, i, quote, file, fam))
			return -1;
		uint64_t h = pair_hash((uint32_t)fam, name);
		/* a static function of a header is called from its includers,
		 * which the resolver does not link to it: a call there counts */
		if (called) {
			uint32_t def = hmap_get(&c->hdr, h);
			if (!def || def == file)
				continue;
		}
		if (hset_has(&c->cands, h) && hmap_put(&c->refs, h, file))
			return -1;
	}
	return 0;
}

/* Read the files of the families that have candidates, for scan_source. */
static kbx_status_t find_references(struct dead_ctx *c, kbx_store_t *store, const int *fams)
{
	const char *root = kbx_store_root(store);
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	for (size_t i = 0; i < c->nfiles; i++) {
		const struct kbx_node *f = &c->files[i];
		int fam = _kbx_lang_family(f->lang);
		if (fam <= 0 || fam >= 64 || !fams[fam] || !f->path)
			continue;
		strbuf_reset(&path);
		strbuf_add(&path, f->path, f->path_len);
		strbuf_reset(&text);
		/* gone, unreadable, a link or grown past what any index run
		 * reads since it was indexed: nothing to scan */
		if (path.failed ||
		    strbuf_read_regular_at(&text, root, path.buf, KBX_MAX_FILE_SIZE_LIMIT) != 0)
			continue;
		const char *lang = kbx_lang_str(f->lang);
		int hash_comments = lang && (!strcmp(lang, "python") || !strcmp(lang, "ruby"));
		int haskell = lang && !strcmp(lang, "haskell");
		/* 'a is a lifetime in Rust, go' a name in Haskell */
		int quote_char = !lang || (strcmp(lang, "rust") && !haskell);
		if (scan_source(c, strbuf_str(&text), text.len, f->id, fam, hash_comments,
				quote_char, lang && !strcmp(lang, "rust"), haskell)) {
			c->nomem = 1;
			break;
		}
	}
	strbuf_release(&path);
	strbuf_release(&text);
	return KBX_OK;
}

const char *kbx_dead_reason_str(int reason)
{
	static const char *const names[] = { "dead", "ignored", "entry-point", "override",
					     "referenced", "test", "exported" };
	return reason >= 0 && reason < KBX_DEAD__COUNT ? names[reason] : NULL;
}

static const char *ignored_by(const struct kbx_dead_opts *o, const struct kbx_node *n)
{
	for (size_t i = 0; i < o->nignore; i++) {
		const char *g = o->ignore[i];
		if (kbx_glob_match(g, n->name, strlen(n->name)) ||
		    kbx_glob_match(g, n->qual, strlen(n->qual)) ||
		    kbx_glob_match(g, n->cid, strlen(n->cid)))
			return g;
	}
	return NULL;
}

/* The reason n is left out, with why in buf; KBX_DEAD when it is not. */
static int decide(const struct dead_ctx *c, const struct kbx_dead_opts *o,
		  const struct kbx_node *n, char *buf, size_t size)
{
	const char *g = ignored_by(o, n);
	if (g) {
		snprintf(buf, size, "named by the ignore glob '%s'", g);
		return KBX_DEAD_IGNORED;
	}
	if (entry_point(c, n, buf, size))
		return KBX_DEAD_ENTRY;
	if (override_of(c, n, buf, size))
		return KBX_DEAD_OVERRIDE;
	uint32_t ref = hmap_get(&c->refs, pair_hash((uint32_t)_kbx_lang_family(n->lang), n->name));
	if (ref) {
		const struct kbx_node *f = find_node(c->files, c->nfiles, ref);
		snprintf(buf, size, "referenced: %s names it other than in a call (a callback, a function pointer, a value)",
			 f ? f->path : "a file");
		return KBX_DEAD_REFERENCED;
	}
	const struct prefix *pre = built_name(c, n);
	if (pre) {
		const struct kbx_node *f = find_node(c->files, c->nfiles, pre->file);
		snprintf(buf, size, "referenced: %s builds names that start with '%s' at run time (getattr(obj, f\"%s{...}\"), \"%s\" + name)",
			 f ? f->path : "a file", pre->text, pre->text, pre->text);
		return KBX_DEAD_REFERENCED;
	}
	int test_file = n->path && kbx_is_test_path(n->path, n->path_len);
	int test_name = kbx_is_test_name(n->name, n->qual, n->lang);
	if (test_file || test_name) {
		if (!o->include_tests) {
			snprintf(buf, size, "%s (--include-tests reports it)",
				 test_name ? "a test: the test runner calls it" : "in a test file");
			return KBX_DEAD_TEST;
		}
		return KBX_DEAD;  /* test code is nobody's API */
	}
	if ((n->flags & KBX_NODE_EXPORTED) && !o->include_exported) {
		snprintf(buf, size, "exported: %s makes it visible outside its module (--include-exported reports it)",
			 lang_name(n->lang));
		return KBX_DEAD_EXPORTED;
	}
	return KBX_DEAD;
}

/*
 * A Haskell class's methods are functions of its module (a call of cost
 * is of the class's cost), declared inside the class's lines: members
 * of the class, which its instances' equations (Priced.Item.cost, in a
 * class based on Priced) override.
 */
static int hs_class_methods(struct dead_ctx *c)
{
	for (size_t i = 0; i < c->ntypes; i++) {
		const struct kbx_node *t = &c->types[i];
		if (t->kind != KBX_KIND_INTERFACE || !is_lang(t->lang, "haskell"))
			continue;
		for (size_t k = 0; k < c->nfns; k++) {
			const struct kbx_node *n = &c->fns[k];
			if (n->file == t->file && !find_node(c->types, c->ntypes, n->parent) &&
			    n->line > t->line && n->line <= t->end_line &&
			    hset_add(&c->members, pair_hash(t->id, n->name)))
				return -1;
		}
	}
	return 0;
}

kbx_status_t kbx_dead_scan(kbx_store_t *store, const struct kbx_dead_opts *opts, kbx_dead_fn fn,
			   void *data, struct kbx_error *err)
{
	struct kbx_dead_opts none = { 0 };
	const struct kbx_dead_opts *o = opts ? opts : &none;
	for (size_t i = 0; i < o->nignore; i++) {
		const char *why = kbx_glob_check(o->ignore[i]);
		if (why)
			return _kbx_fail(err, KBX_ERR_USAGE, "bad ignore glob '%s': %s",
					 o->ignore[i], why);
	}
	unsigned kinds = o->kinds ? o->kinds : KBX_KIND_MASK(KBX_KIND_FUNCTION) |
		KBX_KIND_MASK(KBX_KIND_METHOD);
	struct dead_ctx c = { 0 };
	c.certain_only = o->certain_only;
	kbx_status_t st = kbx_scan_nodes(store, 0, on_node, &c, err);
	if (!st && c.nomem)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st) {
		c.called = calloc((size_t)c.max_id / 8 + 1, 1);
		c.guessed = calloc((size_t)c.max_id / 8 + 1, 1);
		if (!c.called || !c.guessed)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	if (!st)
		st = kbx_scan_edges(store, KBX_EDGE_MASK(KBX_EDGE_CALLS) |
				    KBX_EDGE_MASK(KBX_EDGE_INHERITS), on_edge, &c, err);
	if (!st && c.nomem)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (!st) {
		if (c.nbases > 1)
			qsort(c.bases, c.nbases, sizeof(*c.bases), by_cls);
		for (size_t i = 0; i < c.ntypes && !c.nomem; i++) {
			const struct kbx_node *t = &c.types[i];
			if (hmap_put(&c.type_quals, pair_hash((uint32_t)_kbx_lang_family(t->lang), t->qual),
				     t->id))
				c.nomem = 1;
		}
		for (size_t i = 0; i < c.nfns && !c.nomem; i++) {
			const struct kbx_node *n = &c.fns[i];
			const struct kbx_node *p = find_node(c.types, c.ntypes, n->parent);
			if (!p)
				continue;
			if (hset_add(&c.members, pair_hash(p->id, n->name)))
				c.nomem = 1;
			if (p->kind == KBX_KIND_INTERFACE &&
			    hset_add(&c.ifaces, pair_hash((uint32_t)_kbx_lang_family(n->lang), n->name)))
				c.nomem = 1;
		}
		if (!c.nomem && hs_class_methods(&c))
			c.nomem = 1;
		if (c.nomem)
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	/* the candidates, then the files that may refer to them */
	int fams[64] = { 0 };
	for (size_t i = 0; i < c.nfns && !st; i++) {
		const struct kbx_node *n = &c.fns[i];
		uint64_t h = pair_hash((uint32_t)_kbx_lang_family(n->lang), n->name);
		if (!(kinds & KBX_KIND_MASK(n->kind)) || is_called(&c, n->id) ||
		    hset_has(&c.namerefs, h)) {
			c.fns[i].id = 0;  /* alive */
			continue;
		}
		if (hset_add(&c.cands, h))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		if ((n->flags & KBX_NODE_FILE_LOCAL) && n->path &&
		    (has_suffix_n(n->path, n->path_len, ".h") ||
		     has_suffix_n(n->path, n->path_len, ".hh") ||
		     has_suffix_n(n->path, n->path_len, ".hpp") ||
		     has_suffix_n(n->path, n->path_len, ".hxx")) && hmap_put(&c.hdr, h, n->file))
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		int fam = _kbx_lang_family(n->lang);
		if (fam > 0 && fam < 64)
			fams[fam] = 1;
	}
	if (!st)
		st = find_references(&c, store, fams);
	if (!st && c.nomem)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	char why[512];
	for (size_t i = 0; i < c.nfns && !st; i++) {
		const struct kbx_node *n = &c.fns[i];
		if (!n->id)
			continue;
		why[0] = '\0';
		int reason = decide(&c, o, n, why, sizeof(why));
		const char *say = reason ? why : NULL;
		if (!reason && is_guessed(&c, n))
			say = "only ambiguous calls may reach it";
		if (fn(data, n, reason, say))
			break;
	}
	free(c.fns);
	free(c.types);
	free(c.called);
	free(c.guessed);
	free(c.namerefs.v);
	free(c.guessed_names.v);
	free(c.members.v);
	free(c.ifaces.v);
	free(c.bases);
	free(c.files);
	free(c.cands.v);
	free(c.refs.k);
	free(c.refs.v);
	free(c.hdr.k);
	free(c.hdr.v);
	free(c.prefixes);
	free(c.type_quals.k);
	free(c.type_quals.v);
	return st;
}
