/*
 * Structure rules: globs, the rules file (YAML through libyaml's document
 * loader, validated in full so that every problem is reported at once),
 * and the check of every rule against the graph.
 *
 * Honesty about guesses: an edge the index proves (certain, or a call to
 * a name defined nowhere in the repository) breaks a rule for sure; an
 * ambiguous edge, or a call recorded against a name reference, only
 * maybe.  Violations that rest on such edges are warnings unless the
 * caller asks for KBX_CHECK_STRICT, and "must be called" counts every
 * possible caller, so that nothing is reported uncalled on a guess.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "analysis/analysis.h"
#include "graph/graph.h"
#include "analysis/rules.h"

const char *kbx_rule_check_str(int check)
{
	switch (check) {
	case KBX_CHECK_FORBID: return "forbid";
	case KBX_CHECK_NO_CYCLES: return "no-cycles";
	case KBX_CHECK_LIMIT: return "limit";
	case KBX_CHECK_MUST_BE_CALLED: return "must-be-called";
	default: return "unknown";
	}
}

const char *kbx_level_str(int level)
{
	return level == KBX_LEVEL_ERROR ? "error" : "warning";
}

/* ------------------------------------------------------------------ */
/* Globs                                                               */

/* Match one pattern character (or class, or escape) at p[*pi] against c;
 * advance *pi past it. */
static int match_one(const char *p, size_t plen, size_t *pi, unsigned char c)
{
	size_t i = *pi;
	if (p[i] == '?') {
		*pi = i + 1;
		return c != '/';
	}
	if (p[i] == '\\' && i + 1 < plen) {
		*pi = i + 2;
		return (unsigned char)p[i + 1] == c;
	}
	if (p[i] == '[') {
		size_t j = i + 1;
		int neg = 0, hit = 0;
		if (j < plen && (p[j] == '!' || p[j] == '^')) {
			neg = 1;
			j++;
		}
		/* a ']' right after '[' or '[!' is a member */
		size_t first = j;
		while (j < plen && (p[j] != ']' || j == first)) {
			unsigned char lo = (unsigned char)p[j];
			if (lo == '\\' && j + 1 < plen)
				lo = (unsigned char)p[++j];
			unsigned char hi = lo;
			if (j + 2 < plen && p[j + 1] == '-' && p[j + 2] != ']') {
				hi = (unsigned char)p[j + 2];
				if (hi == '\\' && j + 3 < plen)
					hi = (unsigned char)p[++j + 2];
				j += 2;
			}
			if (c >= lo && c <= hi)
				hit = 1;
			j++;
		}
		if (j >= plen) {
			/* unterminated (kbx_glob_check refuses it): literal '[' */
			*pi = i + 1;
			return c == '[';
		}
		*pi = j + 1;
		return c != '/' && hit != neg;
	}
	*pi = i + 1;
	return (unsigned char)p[i] == c;
}

/* One path component against one pattern component. */
static int match_component(const char *p, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0, star_p = 0, star_s = 0;
	int star = 0;
	while (si < slen) {
		if (pi < plen && p[pi] == '*') {
			while (pi < plen && p[pi] == '*')
				pi++;
			star = 1;
			star_p = pi;
			star_s = si;
			continue;
		}
		size_t next = pi;
		if (pi < plen && match_one(p, plen, &next, (unsigned char)s[si])) {
			pi = next;
			si++;
			continue;
		}
		if (!star)
			return 0;
		/* let the last star take one more character */
		pi = star_p;
		si = ++star_s;
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/* The end of the component that starts at i (the next '/' or len). */
static size_t comp_end(const char *s, size_t len, size_t i)
{
	while (i < len && s[i] != '/')
		i++;
	return i;
}

static int is_globstar(const char *p, size_t start, size_t end)
{
	return end - start == 2 && p[start] == '*' && p[start + 1] == '*';
}

int kbx_glob_match(const char *pattern, const char *path, size_t slen)
{
	size_t plen = strlen(pattern);
	/* "lib/" is "lib/" + "**"; components are walked with the same
	 * one-star backtracking as characters within a component, "**"
	 * playing the star.  A position past the end (len + 1) means every
	 * component is consumed. */
	int trailing = plen && pattern[plen - 1] == '/';
	size_t pend = trailing ? plen - 1 : plen;
	size_t pi = 0, si = 0, star_p = 0, star_s = 0;
	int star = 0;
	for (;;) {
		int p_done = pi > pend || (pi == pend && pend == 0);
		int s_done = si > slen || (si == slen && slen == 0);
		if (s_done) {
			/* what is left of the pattern must be able to match nothing */
			while (!p_done) {
				size_t e = comp_end(pattern, pend, pi);
				if (!is_globstar(pattern, pi, e))
					return 0;
				pi = e + 1;
				p_done = pi > pend;
			}
			return 1;
		}
		if (!p_done) {
			size_t e = comp_end(pattern, pend, pi);
			if (is_globstar(pattern, pi, e)) {
				star = 1;
				star_p = e + 1;
				star_s = si;
				pi = star_p;
				continue;
			}
			size_t se = comp_end(path, slen, si);
			if (match_component(pattern + pi, e - pi, path + si, se - si)) {
				pi = e + 1;
				si = se + 1;
				continue;
			}
		} else if (trailing) {
			/* "dir/": anything under it */
			return 1;
		}
		if (!star)
			return 0;
		/* let the last "**" take one more component */
		star_s = comp_end(path, slen, star_s) + 1;
		si = star_s;
		pi = star_p;
	}
}

const char *kbx_glob_check(const char *p)
{
	size_t len = strlen(p);
	if (!len)
		return "the pattern is empty";
	if (p[0] == '/')
		return "patterns are relative to the repository root: drop the leading '/'";
	if (p[0] == '.' && p[1] == '/')
		return "patterns are relative to the repository root: drop the leading './'";
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\\') {
			if (i + 1 == len)
				return "a '\\' at the end escapes nothing: drop it or escape it as '\\\\'";
			i++;
			continue;
		}
		if (p[i] == '/' && p[i + 1] == '/')
			return "an empty path component ('//')";
		if (p[i] == '[') {
			size_t j = i + 1;
			if (j < len && (p[j] == '!' || p[j] == '^'))
				j++;
			size_t first = j;
			while (j < len && (p[j] != ']' || j == first)) {
				if (p[j] == '/')
					break;
				if (p[j] == '\\' && j + 1 < len)
					j++;
				j++;
			}
			if (j >= len || p[j] != ']')
				return "a '[' without its ']' (write '\\[' for a literal '[')";
			i = j;
			continue;
		}
		if (p[i] == '*' && p[i + 1] == '*') {
			size_t j = i;
			while (p[j] == '*')
				j++;
			if (j - i > 2 || (i > 0 && p[i - 1] != '/') || (p[j] && p[j] != '/'))
				return "'**' must be a whole path component, as in 'lib/**', '**/test' or 'a/**/b'";
			i = j - 1;
		}
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* The rules                                                           */

/* Patterns, each either including or (with a leading '!') excluding. */
struct globset {
	char **pats;
	size_t n;
	size_t npos;            /* how many include */
};

struct rule {
	char *id;
	char *description;
	char *summary;
	int check;
	int severity;
	uint32_t line, col;
	struct globset from, to;   /* forbid */
	struct globset in, name;   /* no-cycles, limit, must-be-called */
	unsigned via;              /* KBX_EDGE_MASK set */
	int self_loops;
	int64_t max_callers, max_callees;  /* -1: no limit */
};

struct kbx_rules {
	struct rule *items;
	size_t n;
};

static void globset_release(struct globset *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->pats[i]);
	free(g->pats);
	memset(g, 0, sizeof(*g));
}

void kbx_rules_free(struct kbx_rules *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct rule *x = &r->items[i];
		free(x->id);
		free(x->description);
		free(x->summary);
		globset_release(&x->from);
		globset_release(&x->to);
		globset_release(&x->in);
		globset_release(&x->name);
	}
	free(r->items);
	free(r);
}

size_t kbx_rules_count(const struct kbx_rules *r)
{
	return r ? r->n : 0;
}

void kbx_rules_info(const struct kbx_rules *r, size_t i, struct kbx_rule_info *out)
{
	const struct rule *x = &r->items[i];
	out->id = x->id;
	out->check = x->check;
	out->description = x->description;
	out->summary = x->summary;
	out->severity = x->severity;
	out->line = x->line;
	out->col = x->col;
}

void kbx_rules_problems_release(struct kbx_rules_problems *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->items[i].msg);
	free(p->items);
	memset(p, 0, sizeof(*p));
}

/* ---- parsing ---- */

struct parse {
	yaml_document_t *doc;
	struct kbx_rules_problems *problems;
	int nomem;
};

static void problem_at(struct parse *ps, uint32_t line, uint32_t col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem_at(struct parse *ps, uint32_t line, uint32_t col, const char *fmt, ...)
{
	struct kbx_rules_problems *p = ps->problems;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (p->n == p->alloc) {
		size_t na = p->alloc ? p->alloc * 2 : 16;
		struct kbx_rules_problem *np = realloc(p->items, na * sizeof(*np));
		if (!np) {
			ps->nomem = 1;
			strbuf_release(&sb);
			return;
		}
		p->items = np;
		p->alloc = na;
	}
	if (sb.failed) {
		ps->nomem = 1;
		strbuf_release(&sb);
		return;
	}
	p->items[p->n].line = line;
	p->items[p->n].col = col;
	p->items[p->n].msg = strbuf_detach(&sb, NULL);
	p->n++;
}

#define LINE(n) ((uint32_t)(n)->start_mark.line + 1)
#define COL(n) ((uint32_t)(n)->start_mark.column + 1)
#define problem(ps, n, ...) problem_at((ps), LINE(n), COL(n), __VA_ARGS__)

static yaml_node_t *node_at(struct parse *ps, int i)
{
	return yaml_document_get_node(ps->doc, i);
}

static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* A plain empty scalar, '~' or 'null': a key given no value. */
static int is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	const char *s = scalar(n);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static const char *type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return is_null(n) ? "an empty value" : "a single value";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "an empty value";
	}
}

/* The nearest of the words to s, for "did you mean". */
static const char *nearest(const char *s, const char *const *words)
{
	const char *best = NULL;
	size_t bd = 3;
	for (size_t i = 0; words[i]; i++) {
		size_t d = _kbx_edit_distance(s, words[i], 2);
		if (d < bd) {
			bd = d;
			best = words[i];
		}
	}
	return best;
}

static void join_words(struct strbuf *sb, const char *const *words)
{
	for (size_t i = 0; words[i]; i++) {
		if (i)
			strbuf_addstr(sb, words[i + 1] ? ", " : " and ");
		strbuf_addstr(sb, words[i]);
	}
}

/* Check the keys of a mapping against the known ones: report unknown
 * and repeated keys.  where: "the top level", "rule 'x'", ... */
static void check_keys(struct parse *ps, yaml_node_t *map, const char *const *known,
		       const char *where)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(ps, p->key);
		if (!k)
			continue;
		if (k->type != YAML_SCALAR_NODE) {
			problem(ps, k, "a key in %s is %s: keys are names such as '%s'", where,
				type_name(k), known[0]);
			continue;
		}
		const char *name = scalar(k);
		size_t i;
		for (i = 0; known[i]; i++)
			if (!strcmp(known[i], name))
				break;
		if (!known[i]) {
			struct strbuf sb = STRBUF_INIT;
			join_words(&sb, known);
			const char *near = nearest(name, known);
			if (near)
				problem(ps, k, "unknown key '%s' in %s: did you mean '%s'? (the keys are %s)",
					name, where, near, strbuf_str(&sb));
			else
				problem(ps, k, "unknown key '%s' in %s: the keys are %s", name, where,
					strbuf_str(&sb));
			strbuf_release(&sb);
			continue;
		}
		for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
			yaml_node_t *k2 = node_at(ps, q->key);
			if (k2 && k2->type == YAML_SCALAR_NODE && !strcmp(scalar(k2), name)) {
				problem(ps, k, "'%s' is given twice in %s (first at line %u): keep one",
					name, where, LINE(k2));
				break;
			}
		}
	}
}

/* The value of key in map, or NULL; *key_node receives the key's node. */
static yaml_node_t *get(struct parse *ps, yaml_node_t *map, const char *key, yaml_node_t **key_node)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = node_at(ps, p->key);
		if (k && k->type == YAML_SCALAR_NODE && !strcmp(scalar(k), key)) {
			if (key_node)
				*key_node = k;
			return node_at(ps, p->value);
		}
	}
	return NULL;
}

/* A string value: a scalar that is not null and holds no NUL byte. */
static char *get_string(struct parse *ps, yaml_node_t *v, const char *key, const char *where)
{
	if (v->type != YAML_SCALAR_NODE || is_null(v)) {
		problem(ps, v, "'%s' in %s must be a string, not %s", key, where, type_name(v));
		return NULL;
	}
	if (strlen(scalar(v)) != v->data.scalar.length) {
		problem(ps, v, "'%s' in %s contains a NUL character", key, where);
		return NULL;
	}
	char *s = strdup(scalar(v));
	if (!s)
		ps->nomem = 1;
	return s;
}

/* A whole number, written plainly (not quoted), 0 or more. */
static int get_count(struct parse *ps, yaml_node_t *v, const char *key, const char *where,
		     int64_t *out)
{
	if (v->type != YAML_SCALAR_NODE || is_null(v)) {
		problem(ps, v, "'%s' in %s must be a whole number, not %s", key, where, type_name(v));
		return -1;
	}
	const char *s = scalar(v);
	if (v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
		problem(ps, v, "'%s' in %s must be a number, not the string \"%s\": drop the quotes",
			key, where, s);
		return -1;
	}
	char *end;
	errno = 0;
	long long n = strtoll(s, &end, 10);
	if (!*s || *end || errno || n < 0 || n > 1000000000LL || !(*s >= '0' && *s <= '9')) {
		problem(ps, v, "'%s' in %s must be a whole number, 0 or more, not '%s'", key, where, s);
		return -1;
	}
	*out = n;
	return 0;
}

static int get_bool(struct parse *ps, yaml_node_t *v, const char *key, const char *where, int *out)
{
	if (v->type == YAML_SCALAR_NODE && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
		const char *s = scalar(v);
		if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) {
			*out = 1;
			return 0;
		}
		if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) {
			*out = 0;
			return 0;
		}
	}
	problem(ps, v, "'%s' in %s must be true or false, not %s%s%s", key, where,
		v->type == YAML_SCALAR_NODE ? "'" : "",
		v->type == YAML_SCALAR_NODE ? scalar(v) : type_name(v),
		v->type == YAML_SCALAR_NODE ? "'" : "");
	return -1;
}

/* A value that may be one scalar or a list of them: call fn for each. */
static int each_scalar(struct parse *ps, yaml_node_t *v, const char *key, const char *where,
		       const char *what, int (*fn)(struct parse *, yaml_node_t *, void *), void *data)
{
	if (v->type == YAML_SCALAR_NODE && !is_null(v))
		return fn(ps, v, data);
	if (v->type != YAML_SEQUENCE_NODE) {
		problem(ps, v, "'%s' in %s must be %s or a list of them, not %s", key, where, what,
			type_name(v));
		return -1;
	}
	if (v->data.sequence.items.start == v->data.sequence.items.top) {
		problem(ps, v, "'%s' in %s is an empty list: give at least one %s", key, where, what);
		return -1;
	}
	int rc = 0;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = node_at(ps, *it);
		if (!e)
			continue;
		if (e->type != YAML_SCALAR_NODE || is_null(e)) {
			problem(ps, e, "an item of '%s' in %s is %s: each must be %s", key, where,
				type_name(e), what);
			rc = -1;
			continue;
		}
		if (fn(ps, e, data))
			rc = -1;
	}
	return rc;
}

static const char *const edge_kind_names[] = { "calls", "imports", "inherits", NULL };

struct via_ctx {
	unsigned mask;
	const char *where;
};

static int add_via(struct parse *ps, yaml_node_t *v, void *data)
{
	struct via_ctx *c = data;
	const char *s = scalar(v);
	static const int kinds[] = { KBX_EDGE_CALLS, KBX_EDGE_IMPORTS, KBX_EDGE_INHERITS };
	for (size_t i = 0; edge_kind_names[i]; i++) {
		if (!strcmp(s, edge_kind_names[i])) {
			c->mask |= KBX_EDGE_MASK(kinds[i]);
			return 0;
		}
	}
	const char *near = nearest(s, edge_kind_names);
	problem(ps, v, "unknown edge kind '%s' in 'via' of %s: %s%s%sthe kinds are calls, imports and inherits",
		s, c->where, near ? "did you mean '" : "", near ? near : "", near ? "'? " : "");
	return -1;
}

struct glob_ctx {
	struct globset *set;
	int names;              /* name patterns, not paths */
	const char *key, *where;
};

static int add_glob(struct parse *ps, yaml_node_t *v, void *data)
{
	struct glob_ctx *c = data;
	const char *s = scalar(v);
	if (strlen(s) != v->data.scalar.length) {
		problem(ps, v, "a pattern of '%s' in %s contains a NUL character", c->key, c->where);
		return -1;
	}
	const char *pat = s[0] == '!' ? s + 1 : s;
	const char *body = pat;
	if (!c->names && (!strncmp(body, "extern:", 7) || !strncmp(body, "module:", 7)))
		body += 7;
	const char *bad = kbx_glob_check(body);
	if (!bad && c->names && strchr(body, '/'))
		bad = "names have no '/': match paths with 'in'";
	if (bad) {
		problem(ps, v, "bad glob '%s' in '%s' of %s: %s", s, c->key, c->where, bad);
		return -1;
	}
	struct globset *g = c->set;
	char **np = realloc(g->pats, (g->n + 1) * sizeof(*np));
	char *dup = strdup(s);
	if (!np || !dup) {
		free(dup);
		if (np)
			g->pats = np;
		ps->nomem = 1;
		return -1;
	}
	g->pats = np;
	g->pats[g->n++] = dup;
	if (s[0] != '!')
		g->npos++;
	return 0;
}

static int get_globs(struct parse *ps, yaml_node_t *v, const char *key, const char *where,
		     int names, struct globset *out)
{
	struct glob_ctx c = { out, names, key, where };
	return each_scalar(ps, v, key, where, names ? "a name pattern" : "a path glob", add_glob, &c);
}

/* The patterns that include (neg 0) or exclude (neg 1), joined. */
static void join_patterns(struct strbuf *sb, const struct globset *g, int neg)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++) {
		if ((g->pats[i][0] == '!') != neg)
			continue;
		if (n++)
			strbuf_addstr(sb, ", ");
		strbuf_addstr(sb, g->pats[i] + neg);
	}
}

/* "lib/", "src/ except src/vendor/", "every path except tests/" (as globs) */
static void describe_set(struct strbuf *sb, const struct globset *g)
{
	if (g->npos)
		join_patterns(sb, g, 0);
	else
		strbuf_addstr(sb, "every path");
	if (g->npos < g->n) {
		strbuf_addstr(sb, " except ");
		join_patterns(sb, g, 1);
	}
}

/* "named cmd_*", "named test_* but not test_slow*", "not named main" */
static void describe_names(struct strbuf *sb, const struct globset *g)
{
	if (g->npos) {
		strbuf_addstr(sb, "named ");
		join_patterns(sb, g, 0);
		if (g->npos < g->n)
			strbuf_addstr(sb, " but not ");
	} else {
		strbuf_addstr(sb, "not named ");
	}
	join_patterns(sb, g, 1);
}

static void describe_edges(struct strbuf *sb, unsigned via, int nouns)
{
	static const int kinds[] = { KBX_EDGE_CALLS, KBX_EDGE_IMPORTS, KBX_EDGE_INHERITS };
	static const char *const verbs[] = { "calls", "imports", "inherits from" };
	static const char *const noun[] = { "call", "import", "inheritance" };
	size_t n = 0, total = 0;
	for (size_t i = 0; i < 3; i++)
		total += (via & KBX_EDGE_MASK(kinds[i])) != 0;
	for (size_t i = 0; i < 3; i++) {
		if (!(via & KBX_EDGE_MASK(kinds[i])))
			continue;
		if (n)
			strbuf_addstr(sb, n + 1 == total ? " or " : ", ");
		strbuf_addstr(sb, nouns ? noun[i] : verbs[i]);
		n++;
	}
}

static void summarize(struct rule *r, struct parse *ps)
{
	struct strbuf sb = STRBUF_INIT;
	switch (r->check) {
	case KBX_CHECK_FORBID:
		strbuf_addstr(&sb, "nothing in ");
		describe_set(&sb, &r->from);
		strbuf_addch(&sb, ' ');
		describe_edges(&sb, r->via, 0);
		strbuf_addstr(&sb, " anything in ");
		describe_set(&sb, &r->to);
		break;
	case KBX_CHECK_NO_CYCLES:
		strbuf_addstr(&sb, "no ");
		describe_edges(&sb, r->via, 1);
		strbuf_addstr(&sb, " cycles");
		if (r->in.n) {
			strbuf_addstr(&sb, " within ");
			describe_set(&sb, &r->in);
		}
		if (r->self_loops)
			strbuf_addstr(&sb, ", self-loops included");
		break;
	case KBX_CHECK_LIMIT:
	case KBX_CHECK_MUST_BE_CALLED:
		strbuf_addstr(&sb, r->check == KBX_CHECK_LIMIT ? "functions" : "every function");
		if (r->in.n) {
			strbuf_addstr(&sb, " in ");
			describe_set(&sb, &r->in);
		}
		if (r->name.n) {
			strbuf_addch(&sb, ' ');
			describe_names(&sb, &r->name);
		}
		if (r->check == KBX_CHECK_MUST_BE_CALLED) {
			strbuf_addstr(&sb, " has a caller");
			break;
		}
		strbuf_addstr(&sb, " have at most ");
		if (r->max_callers >= 0)
			strbuf_addf(&sb, "%lld caller%s", (long long)r->max_callers,
				    r->max_callers == 1 ? "" : "s");
		if (r->max_callers >= 0 && r->max_callees >= 0)
			strbuf_addstr(&sb, " and ");
		if (r->max_callees >= 0)
			strbuf_addf(&sb, "%lld callee%s", (long long)r->max_callees,
				    r->max_callees == 1 ? "" : "s");
		break;
	}
	if (sb.failed) {
		ps->nomem = 1;
		strbuf_release(&sb);
		return;
	}
	r->summary = strbuf_detach(&sb, NULL);
}

static const char *const top_keys[] = { "version", "rules", NULL };
static const char *const rule_keys[] = { "id", "description", "severity", "forbid", "no-cycles",
					 "limit", "must-be-called", NULL };
static const char *const check_names[] = { "forbid", "no-cycles", "limit", "must-be-called", NULL };
static const char *const forbid_keys[] = { "from", "to", "via", NULL };
static const char *const cycles_keys[] = { "in", "via", "self-loops", NULL };
static const char *const limit_keys[] = { "in", "name", "max-callers", "max-callees", NULL };
static const char *const called_keys[] = { "in", "name", NULL };

static int valid_id(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
		return 0;
	size_t n = 0;
	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
			return 0;
	return n <= 100;
}

/* Parse the body of a check (the value of "forbid:" and so on). */
static void parse_check(struct parse *ps, struct rule *r, yaml_node_t *key, yaml_node_t *body,
			const char *where)
{
	char w[200];
	snprintf(w, sizeof(w), "the %s check of %s", kbx_rule_check_str(r->check), where);
	if (body->type != YAML_MAPPING_NODE) {
		problem(ps, is_null(body) ? key : body, "'%s' in %s must be a mapping of its settings, not %s",
			kbx_rule_check_str(r->check), where, type_name(body));
		return;
	}
	yaml_node_t *v;
	switch (r->check) {
	case KBX_CHECK_FORBID: {
		check_keys(ps, body, forbid_keys, w);
		if ((v = get(ps, body, "from", NULL)))
			get_globs(ps, v, "from", w, 0, &r->from);
		else
			problem(ps, key, "%s has no 'from': give the paths the forbidden edges start from, as in 'from: \"lib/**\"'", w);
		if ((v = get(ps, body, "to", NULL)))
			get_globs(ps, v, "to", w, 0, &r->to);
		else
			problem(ps, key, "%s has no 'to': give the paths they must not reach, as in 'to: \"cmd/**\"'", w);
		r->via = KBX_EDGE_MASK(KBX_EDGE_CALLS) | KBX_EDGE_MASK(KBX_EDGE_IMPORTS);
		if ((v = get(ps, body, "via", NULL))) {
			struct via_ctx c = { 0, w };
			if (!each_scalar(ps, v, "via", w, "an edge kind", add_via, &c))
				r->via = c.mask;
		}
		break;
	}
	case KBX_CHECK_NO_CYCLES: {
		check_keys(ps, body, cycles_keys, w);
		if ((v = get(ps, body, "in", NULL)))
			get_globs(ps, v, "in", w, 0, &r->in);
		r->via = KBX_EDGE_MASK(KBX_EDGE_IMPORTS);
		if ((v = get(ps, body, "via", NULL))) {
			struct via_ctx c = { 0, w };
			if (!each_scalar(ps, v, "via", w, "an edge kind", add_via, &c))
				r->via = c.mask;
		}
		if ((v = get(ps, body, "self-loops", NULL)))
			get_bool(ps, v, "self-loops", w, &r->self_loops);
		break;
	}
	case KBX_CHECK_LIMIT: {
		check_keys(ps, body, limit_keys, w);
		if ((v = get(ps, body, "in", NULL)))
			get_globs(ps, v, "in", w, 0, &r->in);
		if ((v = get(ps, body, "name", NULL)))
			get_globs(ps, v, "name", w, 1, &r->name);
		if ((v = get(ps, body, "max-callers", NULL)))
			get_count(ps, v, "max-callers", w, &r->max_callers);
		if ((v = get(ps, body, "max-callees", NULL)))
			get_count(ps, v, "max-callees", w, &r->max_callees);
		if (!get(ps, body, "max-callers", NULL) && !get(ps, body, "max-callees", NULL))
			problem(ps, key, "%s sets no limit: give 'max-callers' (fan-in), 'max-callees' (fan-out) or both", w);
		break;
	}
	case KBX_CHECK_MUST_BE_CALLED:
		check_keys(ps, body, called_keys, w);
		if ((v = get(ps, body, "in", NULL)))
			get_globs(ps, v, "in", w, 0, &r->in);
		if ((v = get(ps, body, "name", NULL)))
			get_globs(ps, v, "name", w, 1, &r->name);
		break;
	}
}

static void parse_rule(struct parse *ps, struct kbx_rules *rules, yaml_node_t *n, size_t idx)
{
	char where[160];
	snprintf(where, sizeof(where), "rule %zu", idx + 1);
	if (n->type != YAML_MAPPING_NODE) {
		problem(ps, n, "rule %zu is %s: each rule is a mapping with an 'id' and one check (%s)",
			idx + 1, type_name(n), "forbid, no-cycles, limit or must-be-called");
		return;
	}
	struct rule *r = &rules->items[rules->n++];
	memset(r, 0, sizeof(*r));
	r->line = LINE(n);
	r->col = COL(n);
	r->severity = KBX_LEVEL_ERROR;
	r->max_callers = r->max_callees = -1;

	yaml_node_t *v, *k = NULL;
	if ((v = get(ps, n, "id", &k))) {
		r->id = get_string(ps, v, "id", where);
		if (r->id && !valid_id(r->id)) {
			problem(ps, v, "bad rule id '%s': use letters, digits, '-', '_' and '.', starting with a letter or digit, at most 100",
				r->id);
		} else if (r->id) {
			snprintf(where, sizeof(where), "rule '%s'", r->id);
			for (size_t i = 0; i + 1 < rules->n; i++) {
				if (rules->items[i].id && !strcmp(rules->items[i].id, r->id)) {
					problem(ps, v, "rule id '%s' is already used by the rule at line %u: ids must be unique",
						r->id, rules->items[i].line);
					break;
				}
			}
		}
	} else {
		problem(ps, n, "rule %zu has no 'id': give it a name such as 'id: lib-does-not-call-cmd'",
			idx + 1);
	}
	check_keys(ps, n, rule_keys, where);
	if ((v = get(ps, n, "description", NULL)))
		r->description = get_string(ps, v, "description", where);
	if ((v = get(ps, n, "severity", NULL))) {
		if (v->type == YAML_SCALAR_NODE && !strcmp(scalar(v), "error"))
			r->severity = KBX_LEVEL_ERROR;
		else if (v->type == YAML_SCALAR_NODE && !strcmp(scalar(v), "warning"))
			r->severity = KBX_LEVEL_WARNING;
		else
			problem(ps, v, "'severity' in %s must be error or warning, not %s%s%s", where,
				v->type == YAML_SCALAR_NODE ? "'" : "",
				v->type == YAML_SCALAR_NODE ? scalar(v) : type_name(v),
				v->type == YAML_SCALAR_NODE ? "'" : "");
	}
	/* the checks in the order of the file: the first is the rule's;
	 * any other is an error, but is validated all the same so that
	 * its problems are reported now rather than after the fix */
	yaml_node_t *first_key = NULL;
	static const int checks[] = { KBX_CHECK_FORBID, KBX_CHECK_NO_CYCLES, KBX_CHECK_LIMIT,
				      KBX_CHECK_MUST_BE_CALLED };
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *ck = node_at(ps, p->key), *cv = node_at(ps, p->value);
		if (!ck || !cv || ck->type != YAML_SCALAR_NODE)
			continue;
		size_t i;
		for (i = 0; check_names[i]; i++)
			if (!strcmp(scalar(ck), check_names[i]))
				break;
		if (!check_names[i])
			continue;
		if (!first_key) {
			first_key = ck;
			r->check = checks[i];
			parse_check(ps, r, ck, cv, where);
			continue;
		}
		problem(ps, ck, "%s has two checks, '%s' and '%s': write one rule for each", where,
			scalar(first_key), check_names[i]);
		struct rule extra;
		memset(&extra, 0, sizeof(extra));
		extra.check = checks[i];
		extra.max_callers = extra.max_callees = -1;
		parse_check(ps, &extra, ck, cv, where);
		globset_release(&extra.from);
		globset_release(&extra.to);
		globset_release(&extra.in);
		globset_release(&extra.name);
	}
	if (!first_key) {
		problem(ps, n, "%s has no check: give one of forbid, no-cycles, limit and must-be-called",
			where);
		return;
	}
	summarize(r, ps);
}

static void parse_root(struct parse *ps, yaml_node_t *root, struct kbx_rules *rules)
{
	if (root->type != YAML_MAPPING_NODE) {
		problem(ps, root, "the file is %s: it must be a mapping with 'version: %d' and a 'rules:' list",
			type_name(root), KBX_RULES_VERSION);
		return;
	}
	check_keys(ps, root, top_keys, "the top level");
	yaml_node_t *v = get(ps, root, "version", NULL);
	if (!v) {
		problem(ps, root, "no 'version': start the file with 'version: %d'", KBX_RULES_VERSION);
	} else if (v->type != YAML_SCALAR_NODE || v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
		   is_null(v)) {
		problem(ps, v, "'version' must be the number %d, not %s%s%s", KBX_RULES_VERSION,
			v->type == YAML_SCALAR_NODE && !is_null(v) ? "\"" : "",
			v->type == YAML_SCALAR_NODE && !is_null(v) ? scalar(v) : type_name(v),
			v->type == YAML_SCALAR_NODE && !is_null(v) ? "\"" : "");
	} else if (strcmp(scalar(v), "1")) {
		problem(ps, v, "version '%s' is not supported: this kbx reads rules files of version %d",
			scalar(v), KBX_RULES_VERSION);
	}
	yaml_node_t *k = NULL;
	v = get(ps, root, "rules", &k);
	if (!v) {
		problem(ps, root, "no 'rules': add a 'rules:' list (see kbx-rules(7))");
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		problem(ps, is_null(v) ? k : v, "'rules' must be a list of rules, not %s", type_name(v));
		return;
	}
	size_t n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	rules->items = calloc(n ? n : 1, sizeof(*rules->items));
	if (!rules->items) {
		ps->nomem = 1;
		return;
	}
	size_t i = 0;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++, i++) {
		yaml_node_t *rn = node_at(ps, *it);
		if (rn)
			parse_rule(ps, rules, rn, i);
	}
}

static int by_place(const void *a, const void *b)
{
	const struct kbx_rules_problem *x = a, *y = b;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return 0;
}

kbx_status_t kbx_rules_parse(const char *text, size_t len, struct kbx_rules **out,
			     struct kbx_rules_problems *problems, struct kbx_error *err)
{
	*out = NULL;
	struct parse ps = { NULL, problems, 0 };
	size_t before = problems->n;
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser))
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.error == YAML_MEMORY_ERROR) {
			yaml_parser_delete(&parser);
			return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		}
		const yaml_mark_t *m = &parser.problem_mark;
		if (parser.context)
			problem_at(&ps, (uint32_t)m->line + 1, (uint32_t)m->column + 1,
				   "not valid YAML: %s %s (line %zu)", parser.problem ? parser.problem : "error",
				   parser.context, parser.context_mark.line + 1);
		else
			problem_at(&ps, (uint32_t)m->line + 1, (uint32_t)m->column + 1,
				   "not valid YAML: %s", parser.problem ? parser.problem : "error");
		yaml_parser_delete(&parser);
		return _kbx_fail(err, ps.nomem ? KBX_ERR_NOMEM : KBX_ERR_PARSE,
				 "the rules file is not valid YAML");
	}
	ps.doc = &doc;
	struct kbx_rules *rules = calloc(1, sizeof(*rules));
	if (!rules) {
		yaml_document_delete(&doc);
		yaml_parser_delete(&parser);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root || is_null(root)) {
		problem_at(&ps, 1, 1, "the file is empty: start it with 'version: %d' and a 'rules:' list",
			   KBX_RULES_VERSION);
	} else {
		parse_root(&ps, root, rules);
		/* one document only: a second one would be silently ignored */
		yaml_document_t doc2;
		if (yaml_parser_load(&parser, &doc2)) {
			yaml_node_t *r2 = yaml_document_get_root_node(&doc2);
			if (r2)
				problem(&ps, r2, "a second YAML document ('---'): a rules file holds one; merge them");
			yaml_document_delete(&doc2);
		} else if (parser.error != YAML_NO_ERROR) {
			const yaml_mark_t *m = &parser.problem_mark;
			problem_at(&ps, (uint32_t)m->line + 1, (uint32_t)m->column + 1,
				   "not valid YAML: %s", parser.problem ? parser.problem : "error");
		}
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	if (ps.nomem) {
		kbx_rules_free(rules);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	size_t nprob = problems->n - before;
	if (nprob) {
		qsort(problems->items + before, nprob, sizeof(*problems->items), by_place);
		kbx_rules_free(rules);
		return _kbx_fail(err, KBX_ERR_PARSE, "the rules file has %zu problem%s", nprob,
				 nprob == 1 ? "" : "s");
	}
	*out = rules;
	return KBX_OK;
}

/* ------------------------------------------------------------------ */
/* Checking                                                            */

/* Patterns "extern:..." and "module:..." match the canonical ids of
 * names and modules defined nowhere in the repository; the others match
 * paths of the repository, so "**" never takes in printf. */
static int pattern_applies(const char *pat, const struct kbx_node *n, const char **subject,
			   size_t *len)
{
	int ext = !strncmp(pat, "extern:", 7) || !strncmp(pat, "module:", 7);
	if (n->path) {
		if (ext)
			return 0;
		*subject = n->path;
		*len = n->path_len;
		return 1;
	}
	if (!ext || strncmp(pat, n->cid, 7))
		return 0;
	*subject = n->cid + 7;
	*len = strlen(n->cid + 7);
	return 1;
}

static int set_matches_node(const struct globset *g, const struct kbx_node *n)
{
	if (!g->n)
		return n->path != NULL;
	/* in when an inclusion matches (or there are only exclusions), out
	 * when any exclusion matches, whatever the order */
	int in = !g->npos && n->path;
	for (size_t pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < g->n; i++) {
			const char *p = g->pats[i], *subj;
			size_t len;
			int neg = p[0] == '!';
			if (neg != (int)pass || (!neg && in))
				continue;
			if (neg)
				p++;
			if (!pattern_applies(p, n, &subj, &len))
				continue;
			if (!strncmp(p, "extern:", 7) || !strncmp(p, "module:", 7))
				p += 7;
			if (!kbx_glob_match(p, subj, len))
				continue;
			if (neg)
				return 0;
			in = 1;
		}
		if (!in)
			return 0;
	}
	return 1;
}

/* Name patterns: with a '.' they match the qualified name, else the name. */
static int set_matches_name(const struct globset *g, const struct kbx_node *n)
{
	if (!g->n)
		return 1;
	int in = !g->npos;
	for (size_t i = 0; i < g->n; i++) {
		const char *p = g->pats[i];
		int neg = p[0] == '!';
		if (neg)
			p++;
		const char *subj = strchr(p, '.') ? n->qual : n->name;
		if (!kbx_glob_match(p, subj, strlen(subj)))
			continue;
		if (neg)
			return 0;
		in = 1;
	}
	return in;
}

/* name:NAME nodes and what they stand for, per caller language family */
struct checker {
	kbx_store_t *store;
	const struct kbx_rules *rules;
	int flags;
	struct kbx_check_result *res;
	struct kbx_depgraph *cycles;   /* one per rule (used by no-cycles) */
	struct kbx_cand_cache cands;
	kbx_status_t st;
	struct kbx_error *err;
};

static struct kbx_violation *new_violation(struct checker *c, size_t rule, int certain)
{
	struct kbx_check_result *res = c->res;
	if (res->n == res->alloc) {
		size_t na = res->alloc ? res->alloc * 2 : 64;
		struct kbx_violation *p = realloc(res->items, na * sizeof(*p));
		if (!p) {
			c->st = _kbx_fail(c->err, KBX_ERR_NOMEM, "out of memory");
			return NULL;
		}
		res->items = p;
		res->alloc = na;
	}
	struct kbx_violation *v = &res->items[res->n++];
	memset(v, 0, sizeof(*v));
	v->rule = rule;
	v->confidence = certain ? KBX_CONF_CERTAIN : KBX_CONF_AMBIGUOUS;
	int sev = c->rules->items[rule].severity;
	v->level = certain || (c->flags & KBX_CHECK_STRICT) ? sev : KBX_LEVEL_WARNING;
	v->measure = -1;
	v->candidates = 1;
	return v;
}

static void set_message(struct checker *c, struct kbx_violation *v, struct strbuf *sb)
{
	if (sb->failed) {
		strbuf_release(sb);
		c->st = _kbx_fail(c->err, KBX_ERR_NOMEM, "out of memory");
		v->message = strdup("");
		return;
	}
	v->message = strbuf_detach(sb, NULL);
}

/* The candidates of a name reference seen from language lang (cached). */
static const struct kbx_nodelist *candidates(struct checker *c, const struct kbx_node *ref, int lang)
{
	const struct kbx_nodelist *l = NULL;
	kbx_status_t st = kbx_cand_cache_get(c->store, &c->cands, ref, lang, &l, c->err);
	if (st) {
		c->st = st;
		return NULL;
	}
	return l;
}

static const char *verb(int kind, int certain)
{
	switch (kind) {
	case KBX_EDGE_CALLS: return certain ? "calls" : "may call";
	case KBX_EDGE_IMPORTS: return certain ? "imports" : "may import";
	case KBX_EDGE_INHERITS: return certain ? "inherits from" : "may inherit from";
	default: return certain ? "defines" : "may define";
	}
}

static void locate_edge(struct kbx_violation *v, const struct kbx_edge *e)
{
	v->path = e->from.path;
	v->path_len = e->from.path_len;
	if (e->nsites) {
		v->line = e->sites[0].line;
		v->col = e->sites[0].col;
	} else {
		v->line = e->from.line ? e->from.line : 1;
		v->col = e->from.col ? e->from.col : 1;
	}
}

static void forbid_edge(struct checker *c, size_t ri, const struct rule *r, const struct kbx_edge *e)
{
	if (!set_matches_node(&r->from, &e->from))
		return;
	if (e->to.kind == KBX_KIND_NAMEREF) {
		/* a call on an unknown receiver, recorded once against its name:
		 * a possible edge to every definition of the name */
		const struct kbx_nodelist *l = candidates(c, &e->to, e->from.lang);
		if (!l)
			return;
		size_t hits = 0, first = 0;
		for (size_t i = 0; i < l->n; i++)
			if (l->items[i].id != e->from.id && set_matches_node(&r->to, &l->items[i]) &&
			    !hits++)
				first = i;
		if (!hits)
			return;
		struct kbx_violation *v = new_violation(c, ri, 0);
		if (!v)
			return;
		v->edge = e->kind;
		v->has_edge = 1;
		v->from = e->from;
		v->to = l->items[first];
		v->candidates = (uint32_t)l->n;
		locate_edge(v, e);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s %s %s", e->from.cid, verb(e->kind, 0), l->items[first].cid);
		if (hits > 1)
			strbuf_addf(&sb, " or %zu other definitions of '%s' there", hits - 1, e->to.name);
		strbuf_addf(&sb, " (the call names one of %zu definitions of '%s')", l->n, e->to.name);
		set_message(c, v, &sb);
		return;
	}
	if (!set_matches_node(&r->to, &e->to))
		return;
	int certain = e->confidence != KBX_CONF_AMBIGUOUS;
	struct kbx_violation *v = new_violation(c, ri, certain);
	if (!v)
		return;
	v->edge = e->kind;
	v->has_edge = 1;
	v->from = e->from;
	v->to = e->to;
	v->candidates = certain ? 1 : e->ncandidates;
	locate_edge(v, e);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "%s %s %s", e->from.cid, verb(e->kind, certain), e->to.cid);
	if (!certain && e->ncandidates > 1)
		strbuf_addf(&sb, " (ambiguous: one of %u candidates)", e->ncandidates);
	else if (!certain)
		strbuf_addf(&sb, " (ambiguous: the only candidate, not proved)");
	set_message(c, v, &sb);
}

/* Whether a node lies in the paths of rule r (for kbx_depgraph_add_edge). */
static int in_rule(void *data, const struct kbx_node *n)
{
	const struct rule *r = data;
	return set_matches_node(&r->in, n);
}

static void cycle_edge(struct checker *c, size_t ri, const struct rule *r, const struct kbx_edge *e)
{
	c->st = kbx_depgraph_add_edge(c->store, &c->cycles[ri], e, r->self_loops, in_rule,
				      (void *)r, c->err);
}

static int on_edge(void *data, const struct kbx_edge *e)
{
	struct checker *c = data;
	const struct kbx_rules *rules = c->rules;
	for (size_t i = 0; i < rules->n && !c->st; i++) {
		const struct rule *r = &rules->items[i];
		if (!(r->via & KBX_EDGE_MASK(e->kind)))
			continue;
		if (r->check == KBX_CHECK_FORBID) {
			if (set_matches_node(&r->from, &e->from))
				c->res->rules[i].examined++;
			forbid_edge(c, i, r, e);
		} else if (r->check == KBX_CHECK_NO_CYCLES) {
			cycle_edge(c, i, r, e);
		}
	}
	return c->st != KBX_OK;
}

/* How many steps of a cycle a message names. */
#define CYCLE_SHOWN 12

static void report_cycle(struct checker *c, size_t ri, const struct rule *r,
			 const struct kbx_depgraph *g, const uint32_t *path, size_t len,
			 size_t component, int certain)
{
	struct kbx_violation *v = new_violation(c, ri, certain);
	if (!v)
		return;
	v->cycle = calloc(len, sizeof(*v->cycle));
	if (!v->cycle) {
		c->st = _kbx_fail(c->err, KBX_ERR_NOMEM, "out of memory");
		return;
	}
	v->ncycle = len;
	v->component = component;
	int kinds_seen = 0;
	for (size_t i = 0; i < len; i++) {
		struct kbx_cycle_step *s = &v->cycle[i];
		if ((c->st = kbx_node_get(c->store, g->ids[path[i]], &s->node, c->err)))
			return;
		const struct kbx_dep_edge *e = kbx_depgraph_edge(g, path[i], path[(i + 1) % len]);
		if (e) {
			s->line = e->line;
			s->col = e->col;
			s->certain = e->certain;
		}
		kinds_seen |= s->node.kind == KBX_KIND_FILE ? 1 : 2;
	}
	v->has_edge = 1;
	v->from = v->cycle[0].node;
	v->to = v->cycle[len > 1 ? 1 : 0].node;
	v->edge = v->from.kind == KBX_KIND_FILE && v->to.kind == KBX_KIND_FILE &&
			  (r->via & KBX_EDGE_MASK(KBX_EDGE_IMPORTS))
		  ? KBX_EDGE_IMPORTS
		  : (r->via & KBX_EDGE_MASK(KBX_EDGE_CALLS)) ? KBX_EDGE_CALLS
		  : (r->via & KBX_EDGE_MASK(KBX_EDGE_IMPORTS)) ? KBX_EDGE_IMPORTS
							       : KBX_EDGE_INHERITS;
	v->path = v->from.path;
	v->path_len = v->from.path_len;
	v->line = v->cycle[0].line ? v->cycle[0].line : (v->from.line ? v->from.line : 1);
	v->col = v->cycle[0].line ? v->cycle[0].col : (v->from.col ? v->from.col : 1);
	struct strbuf sb = STRBUF_INIT;
	const char *what = kinds_seen == 1 ? "file" : kinds_seen == 2 ? "function" : "node";
	if (len == 1)
		strbuf_addf(&sb, "%s%s %s itself", certain ? "" : "possibly ", v->from.cid,
			    verb(v->edge, 1));
	else
		strbuf_addf(&sb, "%scycle of %zu %ss: ", certain ? "" : "possible ", len, what);
	/* a long cycle is shown by its ends; the steps are all in v->cycle */
	size_t head = len > CYCLE_SHOWN ? CYCLE_SHOWN - 3 : len, tail = len > CYCLE_SHOWN ? len - 3 : len;
	for (size_t i = 0; len > 1 && i <= len; i++) {
		const struct kbx_cycle_step *s = &v->cycle[i % len];
		if (i >= head && i < tail) {
			if (i == head)
				strbuf_addf(&sb, " -> ... (%zu more)", tail - head);
			continue;
		}
		if (i)
			strbuf_addstr(&sb, i && !v->cycle[i - 1].certain ? " ~> " : " -> ");
		strbuf_addstr(&sb, s->node.cid);
	}
	if (component > len)
		strbuf_addf(&sb, " (one of the cycles among %zu %ss that reach each other)", component,
			    what);
	if (!certain)
		strbuf_addstr(&sb, " ('~>' marks an ambiguous edge)");
	set_message(c, v, &sb);
}

struct cycle_report {
	struct checker *c;
	size_t ri;
	const struct rule *r;
};

static int on_cycle(void *data, const struct kbx_depgraph *g, const uint32_t *path, size_t len,
		    size_t component, int certain)
{
	struct cycle_report *cr = data;
	report_cycle(cr->c, cr->ri, cr->r, g, path, len, component, certain);
	return cr->c->st != KBX_OK;
}

static kbx_status_t check_cycles(struct checker *c, size_t ri, const struct rule *r)
{
	struct kbx_depgraph *g = &c->cycles[ri];
	if (!g->nedges)
		return KBX_OK;
	struct cycle_report cr = { c, ri, r };
	kbx_status_t st = kbx_depgraph_cycles(c->store, g, 0, on_cycle, &cr, c->err);
	c->res->rules[ri].examined = g->n;
	return st ? st : c->st;
}

/* ---- per function: limits and must-be-called ---- */

struct fan {
	uint64_t certain, possible;
	/* names of ambiguous callees, counted once each */
	char **names;
	size_t nnames, anames;
	int nomem;
};

static int count_caller(void *data, const struct kbx_edge *e)
{
	struct fan *f = data;
	f->possible++;
	if (e->confidence != KBX_CONF_AMBIGUOUS && e->from.kind != KBX_KIND_NAMEREF)
		f->certain++;
	return 0;
}

static int count_callee(void *data, const struct kbx_edge *e)
{
	struct fan *f = data;
	if (e->confidence != KBX_CONF_AMBIGUOUS && e->to.kind != KBX_KIND_NAMEREF) {
		f->certain++;
		f->possible++;
		return 0;
	}
	/* one call that could mean several definitions is one callee */
	for (size_t i = 0; i < f->nnames; i++)
		if (!strcmp(f->names[i], e->to.name))
			return 0;
	if (f->nnames == f->anames) {
		size_t na = f->anames ? f->anames * 2 : 8;
		char **p = realloc(f->names, na * sizeof(*p));
		if (!p) {
			f->nomem = 1;
			return 1;
		}
		f->names = p;
		f->anames = na;
	}
	if (!(f->names[f->nnames] = strdup(e->to.name))) {
		f->nomem = 1;
		return 1;
	}
	f->nnames++;
	f->possible++;
	return 0;
}

static void fan_release(struct fan *f)
{
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i]);
	free(f->names);
	memset(f, 0, sizeof(*f));
}

static kbx_status_t measure(struct checker *c, const struct kbx_node *n, int dir, struct fan *f)
{
	memset(f, 0, sizeof(*f));
	kbx_status_t st = kbx_walk_edges(c->store, n->id, KBX_EDGE_CALLS, dir, 1,
					 dir == KBX_DIR_IN ? count_caller : count_callee, f, c->err);
	if (!st && f->nomem)
		st = _kbx_fail(c->err, KBX_ERR_NOMEM, "out of memory");
	return st;
}

static void report_limit(struct checker *c, size_t ri, const struct kbx_node *n, int dir,
			 const struct fan *f, int64_t max)
{
	int certain = f->certain > (uint64_t)max;
	struct kbx_violation *v = new_violation(c, ri, certain);
	if (!v)
		return;
	v->has_symbol = 1;
	v->symbol = *n;
	v->measure = dir;
	v->count = f->certain;
	v->possible = f->possible;
	v->max = (uint64_t)max;
	v->edge = KBX_EDGE_CALLS;
	v->path = n->path;
	v->path_len = n->path_len;
	v->line = n->line ? n->line : 1;
	v->col = n->col ? n->col : 1;
	const char *what = dir == KBX_DIR_IN ? "caller" : "callee";
	struct strbuf sb = STRBUF_INIT;
	if (certain)
		strbuf_addf(&sb, "%s has %llu %ss, more than the %lld allowed", n->cid,
			    (unsigned long long)f->certain, what, (long long)max);
	else
		strbuf_addf(&sb, "%s may have %llu %ss, more than the %lld allowed", n->cid,
			    (unsigned long long)f->possible, what, (long long)max);
	if (f->possible > f->certain)
		strbuf_addf(&sb, " (%llu certain, %llu more through ambiguous calls)",
			    (unsigned long long)f->certain,
			    (unsigned long long)(f->possible - f->certain));
	set_message(c, v, &sb);
}

static int on_function(void *data, const struct kbx_node *n)
{
	struct checker *c = data;
	const struct kbx_rules *rules = c->rules;
	struct fan in, out;
	int have_in = 0, have_out = 0;
	for (size_t i = 0; i < rules->n && !c->st; i++) {
		const struct rule *r = &rules->items[i];
		if (r->check != KBX_CHECK_LIMIT && r->check != KBX_CHECK_MUST_BE_CALLED)
			continue;
		if (!set_matches_node(&r->in, n) || !set_matches_name(&r->name, n))
			continue;
		c->res->rules[i].examined++;
		if (r->check == KBX_CHECK_MUST_BE_CALLED || r->max_callers >= 0) {
			if (!have_in && (c->st = measure(c, n, KBX_DIR_IN, &in)))
				break;
			have_in = 1;
		}
		if (r->check == KBX_CHECK_MUST_BE_CALLED) {
			/* every possible caller counts: nothing is called unused
			 * on a guess */
			if (in.possible)
				continue;
			struct kbx_violation *v = new_violation(c, i, 1);
			if (!v)
				break;
			v->has_symbol = 1;
			v->symbol = *n;
			v->edge = KBX_EDGE_CALLS;
			v->path = n->path;
			v->path_len = n->path_len;
			v->line = n->line ? n->line : 1;
			v->col = n->col ? n->col : 1;
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "%s is never called", n->cid);
			set_message(c, v, &sb);
			continue;
		}
		if (r->max_callers >= 0 && in.possible > (uint64_t)r->max_callers)
			report_limit(c, i, n, KBX_DIR_IN, &in, r->max_callers);
		if (r->max_callees >= 0) {
			if (!have_out && (c->st = measure(c, n, KBX_DIR_OUT, &out)))
				break;
			have_out = 1;
			if (out.possible > (uint64_t)r->max_callees)
				report_limit(c, i, n, KBX_DIR_OUT, &out, r->max_callees);
		}
	}
	if (have_in)
		fan_release(&in);
	if (have_out)
		fan_release(&out);
	return c->st != KBX_OK;
}

static int by_rule_place(const void *a, const void *b)
{
	const struct kbx_violation *x = a, *y = b;
	if (x->rule != y->rule)
		return x->rule < y->rule ? -1 : 1;
	if (!x->path != !y->path)
		return x->path ? -1 : 1;
	if (x->path) {
		size_t n = x->path_len < y->path_len ? x->path_len : y->path_len;
		int d = memcmp(x->path, y->path, n);
		if (d)
			return d;
		if (x->path_len != y->path_len)
			return x->path_len < y->path_len ? -1 : 1;
	}
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return strcmp(x->message ? x->message : "", y->message ? y->message : "");
}

kbx_status_t kbx_rules_check(kbx_store_t *store, const struct kbx_rules *rules, int flags,
			     struct kbx_check_result *out, struct kbx_error *err)
{
	struct checker c = { 0 };
	c.store = store;
	c.rules = rules;
	c.flags = flags;
	c.res = out;
	c.err = err;
	memset(out, 0, sizeof(*out));
	out->nrules = rules->n;
	out->rules = calloc(rules->n + 1, sizeof(*out->rules));
	c.cycles = calloc(rules->n + 1, sizeof(*c.cycles));
	if (!out->rules || !c.cycles) {
		free(c.cycles);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	unsigned edge_kinds = 0;
	int per_function = 0;
	for (size_t i = 0; i < rules->n; i++) {
		const struct rule *r = &rules->items[i];
		if (r->check == KBX_CHECK_FORBID || r->check == KBX_CHECK_NO_CYCLES)
			edge_kinds |= r->via;
		else
			per_function = 1;
	}
	kbx_status_t st = KBX_OK;
	if (edge_kinds)
		st = kbx_scan_edges(store, edge_kinds, on_edge, &c, err);
	if (!st)
		st = c.st;
	for (size_t i = 0; i < rules->n && !st; i++)
		if (rules->items[i].check == KBX_CHECK_NO_CYCLES)
			st = check_cycles(&c, i, &rules->items[i]);
	if (!st && per_function) {
		st = kbx_scan_nodes(store, KBX_KIND_MASK(KBX_KIND_FUNCTION) | KBX_KIND_MASK(KBX_KIND_METHOD),
				    on_function, &c, err);
		if (!st)
			st = c.st;
	}
	for (size_t i = 0; i < rules->n; i++)
		kbx_depgraph_release(&c.cycles[i]);
	free(c.cycles);
	kbx_cand_cache_release(&c.cands);
	if (st) {
		kbx_check_result_release(out);
		return st;
	}
	if (out->n)
		qsort(out->items, out->n, sizeof(*out->items), by_rule_place);
	for (size_t i = 0; i < out->n; i++) {
		struct kbx_violation *v = &out->items[i];
		if (v->level == KBX_LEVEL_ERROR) {
			out->rules[v->rule].errors++;
			out->errors++;
		} else {
			out->rules[v->rule].warnings++;
			out->warnings++;
		}
	}
	return KBX_OK;
}

void kbx_check_result_release(struct kbx_check_result *res)
{
	for (size_t i = 0; i < res->n; i++) {
		free(res->items[i].message);
		free(res->items[i].cycle);
	}
	free(res->items);
	free(res->rules);
	memset(res, 0, sizeof(*res));
}
