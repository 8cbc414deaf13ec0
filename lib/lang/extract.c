/*
 * The parts of extraction every language shares: the arena that owns the
 * strings, the appenders, the cursor-driven tree walk, and the small
 * helpers the language files have in common.
 */
#define _POSIX_C_SOURCE 200809L  /* strdup */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "lang.h"
#include "util/util.h"

struct _kbx_arena_block {
	struct _kbx_arena_block *next;
	size_t used, size;
	char data[];
};

static void *arena_alloc(struct _kbx_arena *a, size_t n)
{
	struct _kbx_arena_block *b = a->head;
	n = (n + 7) & ~(size_t)7;
	if (!b || b->size - b->used < n) {
		size_t size = n > 65536 - sizeof(*b) ? n : 65536 - sizeof(*b);
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->size = size;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	b->used += n;
	return b->data + b->used - n;
}

const char *_kbx_arena_strndup(struct _kbx_arena *a, const char *s, size_t len)
{
	char *p = arena_alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

const char *_kbx_arena_strdup(struct _kbx_arena *a, const char *s)
{
	return s ? _kbx_arena_strndup(a, s, strlen(s)) : NULL;
}

void _kbx_extract_release(struct kbx_extract *x)
{
	struct _kbx_arena_block *b = x->arena.head;
	while (b) {
		struct _kbx_arena_block *next = b->next;
		free(b);
		b = next;
	}
	free(x->syms);
	free(x->calls);
	free(x->imports);
	free(x->inherits);
	free(x->fields);
	memset(x, 0, sizeof(*x));
}

int _kbx_grow(void **arr, size_t *alloc, size_t n, size_t elem, size_t first)
{
	if (n < *alloc)
		return 0;
	size_t na = *alloc ? *alloc * 2 : first;
	void *p = realloc(*arr, na * elem);
	if (!p)
		return -1;
	*arr = p;
	*alloc = na;
	return 0;
}

/* Grow an array of facts so that it holds at least one more element. */
static int grow(void **arr, size_t *alloc, size_t n, size_t elem)
{
	return _kbx_grow(arr, alloc, n, elem, 64);
}

int _kbx_x_sym(struct kbx_extract *x, int kind, const char *name, const char *qual,
	       int parent, uint32_t line, uint32_t col, uint32_t end_line)
{
	if (!name || !*name || grow((void **)&x->syms, &x->asyms, x->nsyms, sizeof(*x->syms)))
		return -1;
	struct kbx_xsym *s = &x->syms[x->nsyms];
	s->kind = kind;
	s->name = name;
	s->qual = qual ? qual : name;
	s->parent = parent;
	s->line = line;
	s->col = col;
	s->end_line = end_line;
	s->flags = 0;
	s->body_hash = 0;
	s->arity_min = s->arity_max = -1;
	s->ret_type = NULL;
	s->cb_types = NULL;
	memset(&s->node, 0, sizeof(s->node));
	return (int)x->nsyms++;
}

int _kbx_x_sym_at(struct kbx_extract *x, int kind, const char *name, const char *qual,
		  int parent, TSNode n)
{
	int sym = _kbx_x_sym(x, kind, name, qual, parent, _kbx_node_line(n), _kbx_node_col(n),
			     ts_node_end_point(n).row + 1);
	if (sym >= 0)
		x->syms[sym].node = n;
	return sym;
}

int _kbx_x_call(struct kbx_extract *x, const char *name, int recv, const char *receiver,
		int caller, uint32_t line, uint32_t col)
{
	if (!name || !*name || name == _kbx_qual_too_long || receiver == _kbx_qual_too_long ||
	    grow((void **)&x->calls, &x->acalls, x->ncalls, sizeof(*x->calls)))
		return -1;
	struct kbx_xcall *c = &x->calls[x->ncalls];
	c->name = name;
	c->recv = recv;
	c->receiver = recv == KBX_RECV_EXPR ? receiver : NULL;
	c->caller = caller;
	c->line = line;
	c->col = col;
	c->recv_type = NULL;
	c->nargs = -1;
	return (int)x->ncalls++;
}

int _kbx_x_import(struct kbx_extract *x, const char *module, const char *name,
		  const char *alias, int level, int flags, uint32_t line)
{
	if (!module || module == _kbx_qual_too_long || name == _kbx_qual_too_long ||
	    alias == _kbx_qual_too_long ||
	    grow((void **)&x->imports, &x->aimports, x->nimports, sizeof(*x->imports)))
		return -1;
	struct kbx_ximport *i = &x->imports[x->nimports];
	i->module = module;
	i->name = name;
	i->alias = alias;
	i->level = level;
	i->flags = flags;
	i->line = line;
	return (int)x->nimports++;
}

int _kbx_x_inherit(struct kbx_extract *x, int sym, const char *base, uint32_t line)
{
	if (sym < 0 || !base || !*base || base == _kbx_qual_too_long ||
	    grow((void **)&x->inherits, &x->ainherits, x->ninherits, sizeof(*x->inherits)))
		return -1;
	struct kbx_xinherit *h = &x->inherits[x->ninherits];
	h->sym = sym;
	h->base = base;
	h->line = line;
	return (int)x->ninherits++;
}

int _kbx_x_field(struct kbx_extract *x, int sym, const char *name, const char *type,
		 uint32_t line)
{
	if (sym < 0 || !name || !*name || !type || !*type || type == _kbx_qual_too_long ||
	    !strcmp(type, "?") ||
	    _kbx_grow((void **)&x->fields, &x->afields, x->nfields, sizeof(*x->fields), 16))
		return -1;
	struct kbx_xfield *f = &x->fields[x->nfields];
	f->sym = sym;
	f->name = name;
	f->type = type;
	f->line = line;
	return (int)x->nfields++;
}

/* ---- the walk ---- */

void _kbx_walk_scope(struct kbx_walk *w, int sym)
{
	if (sym < 0)
		return;
	if (w->nscope == w->ascope) {
		size_t na = w->ascope ? w->ascope * 2 : 32;
		int *s = realloc(w->scope_sym, na * sizeof(*s));
		if (!s)
			return;
		w->scope_sym = s;
		uint32_t *d = realloc(w->scope_depth, na * sizeof(*d));
		if (!d)
			return;
		w->scope_depth = d;
		w->ascope = na;
	}
	w->scope_sym[w->nscope] = sym;
	w->scope_depth[w->nscope] = w->depth;
	w->nscope++;
}

int _kbx_walk_caller(const struct kbx_walk *w)
{
	for (size_t i = w->nscope; i-- > 0;)
		if (KBX_KIND_IS_CALLABLE(w->x->syms[w->scope_sym[i]].kind))
			return w->scope_sym[i];
	return -1;
}

int _kbx_walk_class(const struct kbx_walk *w)
{
	for (size_t i = w->nscope; i-- > 0;) {
		int k = w->x->syms[w->scope_sym[i]].kind;
		if (KBX_KIND_IS_TYPE(k))
			return w->scope_sym[i];
		if (KBX_KIND_IS_CALLABLE(k))
			return -1;  /* a class is not "enclosing" through a function */
	}
	return -1;
}

int _kbx_walk_parent(const struct kbx_walk *w)
{
	return w->nscope ? w->scope_sym[w->nscope - 1] : -1;
}

/* Nothing longer can be stored (a canonical id is at most 480 bytes),
 * and without a limit nested definitions cost quadratic memory: 80,000
 * nested namespaces in a 1 MB file made 6 GB of qualified names. */
#define JOIN_MAX 480
const char _kbx_qual_too_long[] = "(name too long)";

const char *_kbx_join(struct kbx_walk *w, const char *a, const char *sep, const char *b)
{
	if (a == _kbx_qual_too_long || b == _kbx_qual_too_long)
		return _kbx_qual_too_long;
	size_t la = strlen(a), ls = strlen(sep), lb = strlen(b);
	if (la + ls + lb > JOIN_MAX)
		return _kbx_qual_too_long;
	char *q = arena_alloc(&w->x->arena, la + ls + lb + 1);
	if (!q)
		return NULL;
	memcpy(q, a, la);
	memcpy(q + la, sep, ls);
	memcpy(q + la + ls, b, lb + 1);
	return q;
}

const char *_kbx_call_result(struct kbx_walk *w, size_t k, const char *name)
{
	char buf[64];
	if (!name || strlen(name) > 40)
		return NULL;
	snprintf(buf, sizeof(buf), "=%zu:%s", k, name);
	return _kbx_arena_strdup(&w->x->arena, buf);
}

const char *_kbx_walk_qual(struct kbx_walk *w, const char *name)
{
	int p = _kbx_walk_parent(w);
	if (p < 0)
		return name;
	return _kbx_join(w, w->x->syms[p].qual, ".", name);
}

int _kbx_walk_in_type(const struct kbx_walk *w)
{
	int p = _kbx_walk_parent(w);
	return p >= 0 && KBX_KIND_IS_TYPE(w->x->syms[p].kind);
}

uint32_t _kbx_node_line(TSNode n)
{
	return ts_node_start_point(n).row + 1;
}

uint32_t _kbx_node_col(TSNode n)
{
	return ts_node_start_point(n).column + 1;
}

int _kbx_walk_define(struct kbx_walk *w, TSNode n, int kind, const char *name, int open_scope)
{
	if (!name || !*name)
		return -1;
	const char *qual = _kbx_walk_qual(w, name);
	int sym = _kbx_x_sym_at(w->x, kind, name, qual, _kbx_walk_parent(w), n);
	if (open_scope)
		_kbx_walk_scope(w, sym);
	return sym;
}

const char *_kbx_node_text(struct kbx_walk *w, TSNode n)
{
	if (ts_node_is_null(n))
		return NULL;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > w->len || s > e)
		return NULL;
	return _kbx_arena_strndup(&w->x->arena, w->src + s, e - s);
}

const char *_kbx_field_text(struct kbx_walk *w, TSNode n, const char *field)
{
	TSNode c = _kbx_field(n, field);
	if (ts_node_is_null(c))
		return NULL;
	return _kbx_node_text(w, c);
}

/* ---- bindings: the static types of names in scope ---- */

static void bind_at(struct kbx_walk *w, const char *name, const char *type, size_t level)
{
	if (!name || !*name || name == _kbx_qual_too_long)
		return;
	if (type && (!*type || type == _kbx_qual_too_long))
		type = NULL;
	/* bound at this level before: the same binding, or a conflict */
	for (size_t i = w->nbind; i-- > 0 && w->bind[i].level >= level;) {
		struct _kbx_binding *b = &w->bind[i];
		if (b->level == level && !strcmp(b->name, name)) {
			if (!b->type || !type || strcmp(b->type, type))
				b->conflict = 1;
			return;
		}
	}
	if (grow((void **)&w->bind, &w->abind, w->nbind, sizeof(*w->bind)))
		return;
	/* keep the stack ordered by level: a field bound while a method's
	 * scope is open goes below the method's bindings */
	size_t at = w->nbind;
	while (at > 0 && w->bind[at - 1].level > level)
		at--;
	memmove(w->bind + at + 1, w->bind + at, (w->nbind - at) * sizeof(*w->bind));
	w->bind[at] = (struct _kbx_binding){ name, type, level, 0 };
	w->nbind++;
}

void _kbx_walk_bind(struct kbx_walk *w, const char *name, const char *type)
{
	bind_at(w, name, type, w->nscope);
}

void _kbx_walk_bind_field(struct kbx_walk *w, const char *name, const char *type)
{
	for (size_t i = w->nscope; i-- > 0;) {
		int k = w->x->syms[w->scope_sym[i]].kind;
		if (KBX_KIND_IS_TYPE(k)) {
			bind_at(w, name, type, i + 1);
			return;
		}
	}
}

/* The scope level of the enclosing class, or 0 for none. */
static size_t class_level(const struct kbx_walk *w)
{
	for (size_t i = w->nscope; i-- > 0;)
		if (KBX_KIND_IS_TYPE(w->x->syms[w->scope_sym[i]].kind))
			return i + 1;
	return 0;
}

int _kbx_walk_bound(const struct kbx_walk *w, const char *name, int fields_only,
		    const char **type)
{
	size_t cls = fields_only ? class_level(w) : 0;
	if (fields_only && !cls)
		return 0;
	for (size_t i = w->nbind; i-- > 0;) {
		const struct _kbx_binding *b = &w->bind[i];
		if (fields_only && b->level != cls)
			continue;
		if (!strcmp(b->name, name)) {
			*type = b->conflict ? NULL : b->type;
			return 1;
		}
	}
	return 0;
}

int _kbx_walk_is_local(const struct kbx_walk *w, const char *name)
{
	int caller = -1;
	size_t level = 0;
	for (size_t i = w->nscope; i-- > 0;)
		if (KBX_KIND_IS_CALLABLE(w->x->syms[w->scope_sym[i]].kind)) {
			caller = w->scope_sym[i];
			level = i + 1;
			break;
		}
	if (caller < 0)
		return 0;
	for (size_t i = w->nbind; i-- > 0 && w->bind[i].level >= level;)
		if (!strcmp(w->bind[i].name, name))
			return 1;
	return 0;
}

void _kbx_sym_extend(struct kbx_walk *w, int sym, TSNode n)
{
	uint32_t end = ts_node_end_point(n).row + 1;
	if (w->x->syms[sym].end_line < end)
		w->x->syms[sym].end_line = end;
}

int _kbx_walk_class_init(struct kbx_walk *w, TSNode at, const char *name)
{
	int cls = _kbx_walk_class(w);
	if (cls < 0 || _kbx_walk_parent(w) != cls)
		return -1;
	int sym = -1;
	for (size_t i = 0; i < w->ninits && sym < 0; i++)
		if (w->inits[i].cls == cls && !strcmp(w->inits[i].name, name))
			sym = w->inits[i].sym;
	if (sym >= 0)
		_kbx_sym_extend(w, sym, at);
	if (sym < 0) {
		const struct kbx_xsym *c = &w->x->syms[cls];
		sym = _kbx_x_sym(w->x, KBX_KIND_METHOD, name, _kbx_join(w, c->qual, ".", name), cls,
				 _kbx_node_line(at), _kbx_node_col(at),
				 ts_node_end_point(at).row + 1);
		if (sym < 0 || grow((void **)&w->inits, &w->ainits, w->ninits, sizeof(*w->inits)))
			return -1;
		w->x->syms[sym].flags |= KBX_SYM_IMPLICIT;
		w->inits[w->ninits++] = (struct _kbx_class_init){ cls, sym, name };
	}
	_kbx_walk_scope(w, sym);
	return sym;
}

/* A receiver that is one plain name: letters, digits, '_', '$' (lang.h). */
int _kbx_plain_name(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!_kbx_word_char((unsigned char)*s) && *s != '$')
			return 0;
	return 1;
}

int _kbx_walk_call_typed(struct kbx_walk *w, TSNode at, const char *name, int recv,
			 const char *receiver, const char *type)
{
	if (!name || !*name)
		return -1;
	/* a type of no text (a node error recovery made up) states nothing */
	if (type && !*type)
		type = NULL;
	if (recv == KBX_RECV_NONE && _kbx_walk_is_local(w, name))
		recv = KBX_RECV_VALUE;
	/* a receiver that is a bound name: its type, or "?" for a variable
	 * whose type the source does not state (it is no class or module
	 * of that name) */
	if (recv == KBX_RECV_EXPR && !type && _kbx_plain_name(receiver) &&
	    _kbx_walk_bound(w, receiver, 0, &type) && !type)
		type = "?";
	int i = _kbx_x_call(w->x, name, recv, receiver, _kbx_walk_caller(w), _kbx_node_line(at),
			    _kbx_node_col(at));
	if (i >= 0 && recv == KBX_RECV_EXPR)
		w->x->calls[i].recv_type = type;
	return i;
}

int _kbx_walk_call(struct kbx_walk *w, TSNode at, const char *name, int recv,
		   const char *receiver)
{
	return _kbx_walk_call_typed(w, at, name, recv, receiver, NULL);
}

void _kbx_walk_call_dotted(struct kbx_walk *w, TSNode at, const char *dotted)
{
	if (!dotted || !*dotted)
		return;
	const char *dot = strrchr(dotted, '.');
	if (!dot) {
		_kbx_walk_call(w, at, dotted, KBX_RECV_NONE, NULL);
		return;
	}
	const char *recv = _kbx_arena_strndup(&w->x->arena, dotted, (size_t)(dot - dotted));
	_kbx_walk_call(w, at, dot + 1, KBX_RECV_EXPR, recv);
}

/* ---- helpers for the language files ---- */

/*
 * A field's id, from the language and the name: tree-sitter looks a
 * name up by comparing it with each of the language's field names, and
 * the walks ask for a field at most nodes they visit.  So each thread
 * keeps the ids it has looked up, by the name's address (the names are
 * literals), and checks the text too (an address does not prove it).
 */
#define FIELD_CACHE 128
#define FIELD_NAME_MAX 32

struct field_slot {
	const TSLanguage *lang;
	const char *name;
	char text[FIELD_NAME_MAX];
	TSFieldId id;
};

static TSFieldId field_id(const TSLanguage *lang, const char *name)
{
	static __thread struct field_slot cache[FIELD_CACHE];
	uintptr_t a = (uintptr_t)name, l = (uintptr_t)lang;
	struct field_slot *f = &cache[((a >> 2) ^ (a >> 9) ^ (l >> 4)) & (FIELD_CACHE - 1)];
	size_t len = strlen(name);
	if (len < FIELD_NAME_MAX && f->lang == lang && f->name == name &&
	    !memcmp(f->text, name, len + 1))
		return f->id;
	TSFieldId id = ts_language_field_id_for_name(lang, name, (uint32_t)len);
	if (len < FIELD_NAME_MAX) {
		f->lang = lang;
		f->name = name;
		memcpy(f->text, name, len + 1);
		f->id = id;
	}
	return id;
}

TSNode _kbx_field(TSNode n, const char *name)
{
	if (!n.tree)
		return n;       /* the null node has no field */
	return ts_node_child_by_field_id(n, field_id(ts_tree_language(n.tree), name));
}

int _kbx_is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

TSNode _kbx_child_of_type(TSNode n, const char *type)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (!strcmp(ts_node_type(c), type))
			return c;
	}
	TSNode none = { 0 };
	return none;
}

int _kbx_has_token(TSNode n, const char *type)
{
	uint32_t count = ts_node_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_child(n, i);
		if (!ts_node_is_named(c) && !strcmp(ts_node_type(c), type))
			return 1;
	}
	return 0;
}

int _kbx_word_char(unsigned char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
	       c >= 0x80;
}

/* Where a '<' at i starts a C++ template argument list that closes before
 * e, the index just past its '>'; else 0. */
static uint32_t template_end(const char *src, uint32_t i, uint32_t e)
{
	int depth = 1;
	uint32_t j;
	for (j = i + 1; j < e && depth > 0; j++) {
		if (src[j] == '<')
			depth++;
		else if (src[j] == '>' && src[j - 1] != '-')
			depth--;
	}
	return depth == 0 ? j : 0;
}

const char *_kbx_compact_text(struct kbx_walk *w, TSNode n, int flags)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > w->len || s > e)
		return NULL;
	const char *src = w->src;
	char buf[256];
	size_t o = 0;
	int pending_space = 0;
	for (uint32_t i = s; i < e && o + 2 < sizeof(buf); i++) {
		unsigned char c = (unsigned char)src[i];
		if (c == '"' || (c == '\'' && (flags & KBX_COMPACT_SQUOTE)) ||
		    (c == '`' && (flags & KBX_COMPACT_BACKQUOTE))) {
			/* a literal: as written, on one line */
			if (pending_space && o > 0 && _kbx_word_char((unsigned char)buf[o - 1]))
				buf[o++] = ' ';
			pending_space = 0;
			buf[o++] = (char)c;
			for (i++; i < e && o + 2 < sizeof(buf); i++) {
				unsigned char d = (unsigned char)src[i];
				buf[o++] = d == '\n' || d == '\r' || d == '\t' ? ' ' : (char)d;
				if (d == '\\' && c != '`' && i + 1 < e && o + 2 < sizeof(buf)) {
					d = (unsigned char)src[++i];
					buf[o++] = d == '\n' || d == '\r' ? ' ' : (char)d;
				} else if (d == c) {
					break;
				}
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    ((flags & KBX_COMPACT_LINE_CONT) && c == '\\' && i + 1 < e &&
		     (src[i + 1] == '\n' || src[i + 1] == '\r'))) {
			pending_space = 1;
			continue;
		}
		if ((flags & KBX_COMPACT_NO_TEMPLATE) && c == '<' && o > 0 &&
		    _kbx_word_char((unsigned char)buf[o - 1]) &&
		    !(i + 1 < e && (src[i + 1] == '<' || src[i + 1] == '='))) {
			uint32_t end = template_end(src, i, e);
			if (end) {
				i = end - 1;
				continue;
			}
		}
		if ((flags & KBX_COMPACT_NO_GENERICS) && c == '<' && o > 0 &&
		    (_kbx_word_char((unsigned char)buf[o - 1]) || buf[o - 1] == '.')) {
			/* a generic argument list right after a path segment or "::" */
			int angle = 1;
			if (buf[o - 1] == '.')
				o--;  /* Vec::<u8>::new: the turbofish's "::" */
			for (i++; i < e && angle > 0; i++) {
				if (src[i] == '<')
					angle++;
				else if (src[i] == '>' && src[i - 1] != '-')
					angle--;
			}
			i--;
			continue;
		}
		if ((flags & KBX_COMPACT_SCOPE) && c == ':' && i + 1 < e && src[i + 1] == ':') {
			if (o > 0 || (flags & KBX_COMPACT_LEAD_SCOPE))
				buf[o++] = '.';
			i++;
			pending_space = 0;
			continue;
		}
		if ((flags & KBX_COMPACT_ARROW) && c == '-' && i + 1 < e && src[i + 1] == '>') {
			buf[o++] = '.';
			i++;
			pending_space = 0;
			continue;
		}
		if (pending_space && o > 0 && _kbx_word_char(c) &&
		    _kbx_word_char((unsigned char)buf[o - 1]))
			buf[o++] = ' ';
		pending_space = 0;
		buf[o++] = (char)c;
	}
	return _kbx_arena_strndup(&w->x->arena, buf, o);
}

int _kbx_dots_to_slashes(char *out, size_t outsz, const char *dotted)
{
	size_t n = strlen(dotted);
	if (n + 1 > outsz)
		return -1;
	for (size_t i = 0; i <= n; i++) {
		/* "a..b", ".a", "a.", "a/b" and "=a" name no module (the text
		 * of a parse error can be anything): no path either.  Names are
		 * letters, digits, '_', '$' (Java), '@' (C#) and UTF-8. */
		unsigned char c = (unsigned char)dotted[i];
		if ((c && c != '.' && !_kbx_word_char(c) && c != '$' && c != '@') ||
		    (n && (c == '.' || !c) && (!i || dotted[i - 1] == '.')))
			return -1;
		out[i] = dotted[i] == '.' ? '/' : dotted[i];
	}
	return 0;
}

int _kbx_has_suffix(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

void _kbx_predef_add(struct _kbx_predef *p, uint32_t start, int sym)
{
	if (_kbx_grow((void **)&p->v, &p->alloc, p->n, sizeof(*p->v), 16))
		return;
	p->v[p->n].start = start;
	p->v[p->n].sym = sym;
	p->n++;
}

int _kbx_predef_find(const struct _kbx_predef *p, uint32_t start)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].start == start)
			return p->v[i].sym;
	return -1;
}

int _kbx_predef_by_qual(const struct kbx_walk *w, const struct _kbx_predef *p,
			const char *qual)
{
	for (size_t i = 0; i < p->n; i++)
		if (!strcmp(w->x->syms[p->v[i].sym].qual, qual))
			return p->v[i].sym;
	return -1;
}

void _kbx_predef_release(struct _kbx_predef *p)
{
	free(p->v);
	p->v = NULL;
	p->n = p->alloc = 0;
}

void _kbx_pathlist_add(struct kbx_pathlist *l, const char *path)
{
	if (_kbx_grow((void **)&l->paths, &l->alloc, l->n, sizeof(*l->paths), 8))
		return;
	char *copy = strdup(path);
	if (copy)
		l->paths[l->n++] = copy;
}

void _kbx_pathlist_addf(struct kbx_pathlist *l, const char *fmt, ...)
{
	char buf[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(buf))
		_kbx_pathlist_add(l, buf);
}

void _kbx_pathlist_release(struct kbx_pathlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	l->paths = NULL;
	l->n = l->alloc = 0;
}

/*
 * Body hashes.  A definition's hash covers its own syntax tree: the type
 * of every node and the text of every token, so that any change of a
 * token or of the tree's shape counts, but white space between tokens
 * (reformatting, re-indenting a whole definition) and comments do not.
 * Python's indentation is kept: moving a line into or out of a block
 * changes the tree.  The definitions nested in it are left out, so that
 * a change is reported for the innermost definition that holds it, not
 * for the class, namespace or function around it too.  Node types are
 * hashed by name, not by the grammar's symbol number.
 *
 * Computed during the extraction's own walk, in post-order: each node's
 * hash combines its type with its children's hashes (a leaf's: with its
 * text); a node that is a definition's keeps its hash and gives its
 * parent nothing.  Linear in the size of the tree however deeply
 * definitions nest; a second walk of the tree cost a fifth more time.
 */
struct body_frame {
	uint64_t h;
	int comment;             /* adds nothing to its parent */
};

struct body_state {
	uint64_t *type_hash;     /* by symbol: 0 not yet, else the name's hash | 1 */
	unsigned char *comment;  /* by symbol: 1 not a comment, 2 a comment */
	uint32_t nsymbols;
	struct body_frame *stack;
	size_t depth, alloc;
	/* the definitions by the start byte of their node, open addressing */
	struct body_slot { uint32_t start; int sym; } *slots;  /* sym -1: empty */
	size_t mask, used, indexed;
	const char *src;
	size_t len;
	int failed;              /* out of memory: every hash stays 0 (unknown) */
};

static int body_init(struct body_state *b, const TSLanguage *lang, const char *src, size_t len)
{
	memset(b, 0, sizeof(*b));
	b->nsymbols = ts_language_symbol_count(lang);
	b->type_hash = calloc(b->nsymbols + 1, sizeof(*b->type_hash));
	b->comment = calloc(b->nsymbols + 1, 1);
	b->src = src;
	b->len = len;
	b->failed = !b->type_hash || !b->comment;
	return b->failed ? -1 : 0;
}

static void body_release(struct body_state *b)
{
	free(b->type_hash);
	free(b->comment);
	free(b->stack);
	free(b->slots);
}

static size_t body_slot_of(const struct body_state *b, uint32_t start)
{
	return (size_t)((start * 0x9e3779b97f4a7c15ull) >> 17) & b->mask;
}

/* Enter the definitions made since the last call in the table. */
static void body_index(struct body_state *b, const struct kbx_extract *x)
{
	if (b->failed)
		return;
	for (; b->indexed < x->nsyms; b->indexed++) {
		const struct kbx_xsym *xs = &x->syms[b->indexed];
		if (ts_node_is_null(xs->node))
			continue;
		if (2 * (b->used + 1) > b->mask) {
			size_t size = b->mask ? 2 * (b->mask + 1) : 64;
			struct body_slot *old = b->slots;
			size_t old_size = b->mask ? b->mask + 1 : 0;
			b->slots = malloc(size * sizeof(*b->slots));
			if (!b->slots) {
				b->slots = old;
				b->failed = 1;
				return;
			}
			for (size_t i = 0; i < size; i++)
				b->slots[i].sym = -1;
			b->mask = size - 1;
			for (size_t i = 0; i < old_size; i++) {
				if (old[i].sym < 0)
					continue;
				size_t at = body_slot_of(b, old[i].start);
				while (b->slots[at].sym >= 0)
					at = (at + 1) & b->mask;
				b->slots[at] = old[i];
			}
			free(old);
		}
		uint32_t start = ts_node_start_byte(xs->node);
		size_t at = body_slot_of(b, start);
		while (b->slots[at].sym >= 0)
			at = (at + 1) & b->mask;
		b->slots[at].start = start;
		b->slots[at].sym = (int)b->indexed;
		b->used++;
	}
}

static void body_enter(struct body_state *b, TSNode n)
{
	if (b->failed || _kbx_grow((void **)&b->stack, &b->alloc, b->depth, sizeof(*b->stack), 64)) {
		b->failed = 1;
		return;
	}
	struct body_frame *f = &b->stack[b->depth++];
	TSSymbol sym = ts_node_symbol(n);
	if (sym < b->nsymbols && b->type_hash[sym]) {
		f->h = b->type_hash[sym];
		f->comment = b->comment[sym] == 2;
		return;
	}
	const char *type = ts_node_type(n);
	if (!type)
		type = "";
	f->h = XXH3_64bits(type, strlen(type)) | 1;
	f->comment = strstr(type, "comment") != NULL;
	if (sym < b->nsymbols) {
		b->type_hash[sym] = f->h;
		b->comment[sym] = f->comment ? 2 : 1;
	}
}

/* The node just entered has no children: its text. */
static void body_leaf(struct body_state *b, TSNode n)
{
	if (b->failed)
		return;
	struct body_frame *f = &b->stack[b->depth - 1];
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (!f->comment && e <= b->len && s < e)
		f->h = XXH3_64bits_withSeed(b->src + s, e - s, f->h);
}

/* A parent's hash and a child's: order matters, every bit of both
 * reaches every bit of the result (the murmur3 finaliser). */
static inline uint64_t body_mix(uint64_t h, uint64_t child)
{
	h = (h ^ (child + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2))) * 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

/* Leave node n: a definition's node keeps its hash, any other gives it
 * to its parent. */
static void body_leave(struct body_state *b, struct kbx_extract *x, TSNode n)
{
	if (b->failed)
		return;
	body_index(b, x);
	struct body_frame *f = &b->stack[--b->depth];
	if (f->comment || b->failed)
		return;
	int def = 0;
	if (b->mask) {
		uint32_t start = ts_node_start_byte(n);
		for (size_t at = body_slot_of(b, start); b->slots[at].sym >= 0;
		     at = (at + 1) & b->mask) {
			struct kbx_xsym *xs = &x->syms[b->slots[at].sym];
			if (b->slots[at].start == start && ts_node_eq(xs->node, n)) {
				xs->body_hash = f->h ? f->h : 1;
				def = 1;
			}
		}
	}
	if (!def && b->depth)
		b->stack[b->depth - 1].h = body_mix(b->stack[b->depth - 1].h, f->h);
}

/* The descendants of a node the extraction's walk skips. */
static void body_subtree(struct body_state *b, struct kbx_extract *x, TSNode top)
{
	TSTreeCursor cur = ts_tree_cursor_new(top);
	if (!ts_tree_cursor_goto_first_child(&cur)) {
		ts_tree_cursor_delete(&cur);
		return;
	}
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		body_enter(b, n);
		if (ts_tree_cursor_goto_first_child(&cur))
			continue;
		body_leaf(b, n);
		for (;;) {
			body_leave(b, x, ts_tree_cursor_current_node(&cur));
			if (ts_tree_cursor_goto_next_sibling(&cur))
				break;
			if (!ts_tree_cursor_goto_parent(&cur) ||
			    ts_node_eq(ts_tree_cursor_current_node(&cur), top)) {
				ts_tree_cursor_delete(&cur);
				return;
			}
		}
	}
}

/* Does node a hold node b (the same bytes or more, b not before a)? */
static int node_holds(TSNode a, TSNode b)
{
	return ts_node_start_byte(a) <= ts_node_start_byte(b) &&
	       ts_node_end_byte(b) <= ts_node_end_byte(a);
}

TSNode _kbx_walk_up(const struct kbx_walk *w, TSNode n)
{
	TSNode none = { 0 };
	if (ts_node_is_null(n))
		return none;
	if (!w->up)
		return ts_node_parent(n);
	size_t top = w->depth;
	/* the node being visited or an ancestor holds the node being
	 * visited; a node deeper down (the usual case) is not looked for */
	if (node_holds(n, w->up[top]))
		for (size_t i = top + 1; i-- > 0;)
			if (ts_node_eq(w->up[i], n))
				return i ? w->up[i - 1] : none;
	/* not on the path: down from the deepest node of it that holds n,
	 * through the children holding n, to the one whose child n is */
	size_t from = top + 1;
	while (from-- > 0 && !node_holds(w->up[from], n))
		;
	if (from == (size_t)-1)
		return ts_node_parent(n);
	TSNode at = w->up[from];
	for (;;) {
		uint32_t count = ts_node_child_count(at);
		TSNode next = none;
		for (uint32_t i = 0; i < count; i++) {
			TSNode c = ts_node_child(at, i);
			if (ts_node_eq(c, n))
				return at;
			if (ts_node_is_null(next) && node_holds(c, n) &&
			    ts_node_end_byte(c) > ts_node_start_byte(c))
				next = c;
		}
		if (ts_node_is_null(next))
			return ts_node_parent(n);  /* zero-width pieces: the long way */
		at = next;
	}
}

/* Put n on the walker's path at its depth.  Out of memory, the path is
 * given up for the rest of the file (and _kbx_walk_up asks the tree). */
static void path_set(struct kbx_walk *w, TSNode n)
{
	if (!w->up && w->aup)
		return;  /* given up */
	if (_kbx_grow((void **)&w->up, &w->aup, w->depth, sizeof(*w->up), 64)) {
		free(w->up);
		w->up = NULL;
		w->aup = 1;
		return;
	}
	w->up[w->depth] = n;
}

/* Walk the tree under root, calling the language's visitor on every
 * named node, with the scopes, the path from the root and the bodies'
 * hashes kept up to date. */
static void walk_tree(struct kbx_walk *w, const struct kbx_lang *lang, TSNode root,
		      struct body_state *body)
{
	struct kbx_extract *x = w->x;
	TSTreeCursor cur = ts_tree_cursor_new(root);
	w->depth = 0;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		int skip = 0;
		body_enter(body, n);
		path_set(w, n);
		if (ts_node_is_named(n)) {
			size_t first = x->nsyms;
			skip = lang->visit(w, n, ts_node_type(n)) == KBX_WALK_SKIP;
			if (lang->visibility)
				for (size_t i = first; i < x->nsyms; i++)
					lang->visibility(w, n, (int)i);
		}
		if (!skip && ts_tree_cursor_goto_first_child(&cur)) {
			w->depth++;
			continue;
		}
		if (skip && ts_node_child_count(n))
			body_subtree(body, x, n);
		else
			body_leaf(body, n);
		/* leave this node and every finished ancestor */
		for (;;) {
			body_leave(body, x, ts_tree_cursor_current_node(&cur));
			while (w->nscope && w->scope_depth[w->nscope - 1] >= w->depth)
				w->nscope--;
			while (w->nbind && w->bind[w->nbind - 1].level > w->nscope)
				w->nbind--;
			if (ts_tree_cursor_goto_next_sibling(&cur))
				break;
			if (!ts_tree_cursor_goto_parent(&cur))
				goto done;
			w->depth--;
		}
	}
done:
	ts_tree_cursor_delete(&cur);
}

/* The point of byte to, given pt, the point of byte from. */
static TSPoint point_after(const char *src, size_t from, size_t to, TSPoint pt)
{
	for (size_t k = from; k < to; k++) {
		if (src[k] == '\n') {
			pt.row++;
			pt.column = 0;
		} else {
			pt.column++;
		}
	}
	return pt;
}

/*
 * A file the grammar could not read whole, parsed again piece by piece
 * (kbx_lang's pieces): each piece alone, as an included range of the
 * same text, so that its nodes keep their places in the file.  The trees
 * into trees[0..), their number returned; 0 when the language has no
 * pieces or the file has fewer than two.
 */
static size_t parse_pieces(const struct kbx_lang *lang, TSParser *parser, const char *src,
			   size_t len, struct kbx_extract *x, TSTree ***trees_out)
{
	*trees_out = NULL;
	if (!lang->pieces || len > UINT32_MAX)
		return 0;
	uint32_t *starts = malloc(KBX_MAX_PIECES * sizeof(*starts));
	TSTree **trees = NULL;
	size_t n = starts ? lang->pieces(src, len, starts, KBX_MAX_PIECES) : 0, ntrees = 0;
	if (n >= 2)
		trees = calloc(n, sizeof(*trees));
	if (!trees) {
		free(starts);
		return 0;
	}
	TSPoint pt = { 0, 0 };
	for (size_t i = 0; i < n; i++) {
		uint32_t from = starts[i], to = i + 1 < n ? starts[i + 1] : (uint32_t)len;
		TSRange r = { .start_point = pt, .start_byte = from, .end_byte = to };
		pt = point_after(src, from, to, pt);
		r.end_point = pt;
		if (to <= from || !ts_parser_set_included_ranges(parser, &r, 1))
			continue;
		uint64_t cpu0 = _kbx_thread_cpu_ns();
		TSTree *t = ts_parser_parse_string(parser, NULL, src, (uint32_t)len);
		x->parse_cpu_ns += _kbx_thread_cpu_ns() - cpu0;
		if (!t) {       /* this piece ran out of time: the others go on */
			ts_parser_reset(parser);
			continue;
		}
		trees[ntrees++] = t;
	}
	/* the next file is parsed whole */
	ts_parser_set_included_ranges(parser, NULL, 0);
	free(starts);
	*trees_out = trees;
	return ntrees;
}

int _kbx_extract(const struct kbx_lang *lang, TSParser *parser, const char *path,
		 const char *src, size_t len, uint64_t timeout_us, struct kbx_extract *x)
{
	const TSLanguage *grammar = lang->grammar();
	if (!grammar || !ts_parser_set_language(parser, grammar))
		return -1;
	ts_parser_set_timeout_micros(parser, timeout_us);
	unsigned long nomem0 = _kbx_nomem_count;
	/* what the grammar cannot read, blanked in a copy that keeps every
	 * other byte in its place */
	char *masked = NULL;
	if (lang->mask && len) {
		masked = malloc(len);
		if (!masked) {
			x->nomem = 1;
			return -1;
		}
		memcpy(masked, src, len);
		if (lang->mask(masked, len)) {
			src = masked;
		} else {
			free(masked);
			masked = NULL;
		}
	}
	uint64_t cpu0 = _kbx_thread_cpu_ns();
	TSTree *tree = ts_parser_parse_string(parser, NULL, src, (uint32_t)len);
	x->parse_cpu_ns += _kbx_thread_cpu_ns() - cpu0;
	if (!tree) {
		free(masked);
		x->timed_out = 1;
		ts_parser_reset(parser);
		return -1;
	}
	TSNode root = ts_tree_root_node(tree);
	x->had_errors = ts_node_has_error(root);
	/* one error can leave the rest of a file unread (a shell script's
	 * every function after it): its pieces, parsed alone, lose only
	 * their own */
	TSTree **pieces = NULL;
	size_t npieces = x->had_errors ? parse_pieces(lang, parser, src, len, x, &pieces) : 0;

	struct kbx_walk w = { 0 };
	w.x = x;
	w.src = src;
	w.len = len;
	w.path = path;
	if (lang->begin)
		lang->begin(&w);

	struct body_state body;
	body_init(&body, grammar, src, len);
	if (npieces)
		for (size_t i = 0; i < npieces; i++)
			walk_tree(&w, lang, ts_tree_root_node(pieces[i]), &body);
	else
		walk_tree(&w, lang, root, &body);
	if (lang->end)
		lang->end(&w);
	free(w.scope_sym);
	free(w.scope_depth);
	free(w.up);
	free(w.bind);
	free(w.inits);
	if (w.aux_parser)
		ts_parser_delete(w.aux_parser);
	body_release(&body);
	/* the nodes die with the tree */
	for (size_t i = 0; i < x->nsyms; i++)
		memset(&x->syms[i].node, 0, sizeof(x->syms[i].node));
	for (size_t i = 0; i < npieces; i++)
		ts_tree_delete(pieces[i]);
	free(pieces);
	ts_tree_delete(tree);
	free(masked);
	if (_kbx_nomem_count != nomem0) {
		x->nomem = 1;
		return -1;
	}
	return 0;
}

int _kbx_path_join(char *out, size_t outsz, const char *dir, const char *rel)
{
	char buf[4096];
	int n;
	if (rel[0] == '/')
		n = snprintf(buf, sizeof(buf), "%s", rel + 1);
	else if (dir && *dir)
		n = snprintf(buf, sizeof(buf), "%s/%s", dir, rel);
	else
		n = snprintf(buf, sizeof(buf), "%s", rel);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -1;
	/* Split on '/', push components, pop on "..". */
	size_t o = 0;
	char *p = buf;
	while (*p) {
		char *slash = strchr(p, '/');
		size_t clen = slash ? (size_t)(slash - p) : strlen(p);
		if (clen == 0 || (clen == 1 && p[0] == '.')) {
			/* skip */
		} else if (clen == 2 && p[0] == '.' && p[1] == '.') {
			if (o == 0)
				return -1;
			while (o > 0 && out[o - 1] != '/')
				o--;
			if (o > 0)
				o--;  /* drop the separator too */
		} else {
			if (o + clen + 2 > outsz)
				return -1;
			if (o > 0)
				out[o++] = '/';
			memcpy(out + o, p, clen);
			o += clen;
		}
		p += clen;
		if (*p == '/')
			p++;
	}
	if (o >= outsz)
		return -1;
	out[o] = '\0';
	return 0;
}

void _kbx_path_dirname(char *out, size_t outsz, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, path, n);
	out[n] = '\0';
}

void _kbx_include_candidates(const char *importer, const struct kbx_ximport *imp,
			     struct kbx_pathlist *out)
{
	char dir[4096], path[4096];
	if (!imp->module || !*imp->module || imp->module[0] == '/')
		return;
	_kbx_path_dirname(dir, sizeof(dir), importer);
	/* "." or "a/.." from the top is the top itself: no file */
	if (!_kbx_path_join(path, sizeof(path), dir, imp->module) && *path)
		_kbx_pathlist_add(out, path);
	if (!imp->level && !_kbx_path_join(path, sizeof(path), "", imp->module) && *path)
		_kbx_pathlist_add(out, path);
}
