/*
 * JavaScript and JSX: classes, functions (declared, or function and arrow
 * expressions bound to a name), methods, ES imports and re-exports,
 * CommonJS require(), and calls including `new` and JSX components, with
 * the type of a call's receiver where the source states it: the names
 * of parameters, locals and fields are bound to the types their
 * TypeScript annotations, `new T()` values and constructors give them
 * (the static types of names, below).
 *
 * TypeScript (lib/lang/typescript.c) handles its own node types and hands
 * everything else to _kbx_js_visit.  This file also holds the text helpers
 * declared in js-common.h that the Java, C# and Ruby extractors share.
 */
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_javascript)

/* ---- text helpers (see js-common.h) ---- */

#define CLEAN_MAX 200

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static int is_word_end(char c)
{
	return c == '_' || c == ')' || c == ']' || (c >= '0' && c <= '9') ||
	       (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (unsigned char)c >= 0x80;
}

const char *_kbx_jsc_clean_text(struct kbx_walk *w, TSNode n, int flags)
{
	if (ts_node_is_null(n))
		return NULL;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > w->len || s >= e)
		return NULL;
	if (e - s >= 8 && !memcmp(w->src + s, "global::", 8))
		s += 8;  /* C# alias of the global namespace */
	char buf[CLEAN_MAX + 2];
	size_t o = 0;
	int space = 0, angle = 0, truncated = 0;
	for (uint32_t i = s; i < e; i++) {
		char c = w->src[i];
		char next = i + 1 < e ? w->src[i + 1] : '\0';
		if (flags & KBX_JSC_STRIP_GENERICS) {
			if (c == '<') {
				angle++;
				continue;
			}
			if (angle) {
				if (c == '>')
					angle--;
				continue;
			}
		}
		if (is_space(c)) {
			space = 1;
			continue;
		}
		if ((c == ':' && next == ':') || (c == '-' && next == '>') || (c == '&' && next == '.') ||
		    ((flags & KBX_JSC_NONNULL) && c == '?' && next == '.')) {
			c = '.';
			i++;
		} else if ((flags & KBX_JSC_NONNULL) && c == '!' && next != '=' && o > 0 &&
			   is_word_end(buf[o - 1])) {
			continue;  /* TypeScript/C# non-null assertion: x!.y */
		}
		if (c == '.' && o == 0)
			continue;  /* Ruby ::Top, or what was left of global:: */
		if (space && o > 0 && !strchr(".([{,", buf[o - 1]) && !strchr(".)]},(", c)) {
			if (o >= CLEAN_MAX) {
				truncated = 1;
				break;
			}
			buf[o++] = ' ';
		}
		space = 0;
		if (o >= CLEAN_MAX) {
			truncated = 1;
			break;
		}
		buf[o++] = c;
	}
	if (truncated)
		while (o > 0 && (unsigned char)buf[o - 1] >= 0x80)
			o--;  /* never leave half a UTF-8 sequence */
	while (o > 0 && buf[o - 1] == '.')
		o--;
	if (!o)
		return NULL;
	return _kbx_arena_strndup(&w->x->arena, buf, o);
}

const char *_kbx_jsc_string_value(struct kbx_walk *w, TSNode n)
{
	if (ts_node_is_null(n))
		return NULL;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		const char *t = ts_node_type(ts_node_named_child(n, i));
		if (!strcmp(t, "interpolation") || !strcmp(t, "template_substitution") ||
		    !strcmp(t, "string_interpolation"))
			return NULL;
	}
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > w->len || s >= e)
		return NULL;
	while (s < e && (w->src[s] == '@' || w->src[s] == '$'))
		s++;
	if (e - s >= 2) {
		char q = w->src[s];
		if ((q == '"' || q == '\'' || q == '`') && w->src[e - 1] == q)
			return _kbx_arena_strndup(&w->x->arena, w->src + s + 1, e - s - 2);
	}
	if (count == 1)  /* Ruby %q(x) and friends: the one content child */
		return _kbx_node_text(w, ts_node_named_child(n, 0));
	return NULL;
}

int _kbx_jsc_define_dotted(struct kbx_walk *w, TSNode n, int kind, const char *dotted,
			   int open_scope)
{
	if (!dotted || !*dotted)
		return -1;
	const char *dot = strrchr(dotted, '.');
	if (!dot)
		return _kbx_walk_define(w, n, kind, dotted, open_scope);
	if (!dot[1])
		return -1;
	const char *qual = _kbx_walk_qual(w, dotted);
	int sym = _kbx_x_sym_at(w->x, kind, dot + 1, qual, _kbx_walk_parent(w), n);
	if (open_scope)
		_kbx_walk_scope(w, sym);
	return sym;
}

TSNode _kbx_jsc_child_of_types(TSNode n, const char *const *types)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		for (size_t k = 0; types[k]; k++)
			if (!strcmp(ts_node_type(c), types[k]))
				return c;
	}
	TSNode null = { 0 };
	return null;
}

const char *_kbx_jsc_capital_call(struct kbx_walk *w, TSNode v, const char *ident)
{
	if (!_kbx_is(v, "call_expression"))
		return NULL;
	TSNode callee = ts_node_named_child(v, 0);
	const char *name = _kbx_is(callee, ident) ? _kbx_node_text(w, callee) : NULL;
	return name && isupper((unsigned char)name[0]) ? name : NULL;
}

void _kbx_jsc_import_dotted(struct kbx_walk *w, const char *dotted, const char *alias, int flags,
			    uint32_t line)
{
	const char *dot = strrchr(dotted, '.');
	if (!dot) {
		_kbx_x_import(w->x, dotted, NULL, alias, 0, flags, line);
		return;
	}
	_kbx_x_import(w->x, _kbx_arena_strndup(&w->x->arena, dotted, (size_t)(dot - dotted)),
		      dot + 1, alias, 0, flags, line);
}

/* Does the dotted module start with one of roots ("java" holds
 * "java.util" and "java", not "javafx")? */
static int under_roots(const char *module, const char *const *roots)
{
	for (size_t i = 0; roots[i]; i++) {
		size_t n = strlen(roots[i]);
		if (!strncmp(module, roots[i], n) && (module[n] == '.' || !module[n]))
			return 1;
	}
	return 0;
}

void _kbx_jsc_package_candidates(const char *importer, const struct kbx_ximport *imp,
				 const char *const *platform, const char *ext,
				 struct kbx_pathlist *out)
{
	char mod[4096];
	if (!imp->module || !*imp->module || under_roots(imp->module, platform) ||
	    _kbx_dots_to_slashes(mod, sizeof(mod), imp->module))
		return;
	if (imp->name)
		_kbx_pathlist_addf(out, "*%s/%s%s", mod, imp->name, ext);
	_kbx_jsc_add_under_ancestors(importer, mod, "/", out);
	if (imp->flags & KBX_IMPORT_WILDCARD) {
		_kbx_pathlist_addf(out, "*%s%s", mod, ext);   /* import a.b.Obj.* */
		/* the package in the source roots of other modules */
		_kbx_pathlist_addf(out, "*%s/", mod);
	}
}

void _kbx_jsc_add_under_ancestors(const char *importer, const char *rel, const char *suffix,
				  struct kbx_pathlist *out)
{
	char dir[4096], path[4096];
	_kbx_path_dirname(dir, sizeof(dir), importer);
	for (;;) {
		if (!_kbx_path_join(path, sizeof(path), dir, rel))
			_kbx_pathlist_addf(out, "%s%s", path, suffix);
		if (!*dir)
			break;
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		else
			dir[0] = '\0';
	}
}

/* Drop the entries the walk is past at byte pos. */
static void tparams_leave(struct _kbx_jsc_tparams *tp, uint32_t pos)
{
	while (tp->n && tp->v[tp->n - 1].end <= pos)
		tp->n--;
}

void _kbx_jsc_tparams_push(struct kbx_walk *w, struct _kbx_jsc_tparams *tp, TSNode decl,
			   TSNode list)
{
	if (ts_node_is_null(list))
		return;
	tparams_leave(tp, ts_node_start_byte(decl));
	uint32_t count = ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		const char *name = NULL;
		if (_kbx_is(p, "identifier"))   /* Scala: [A, B] */
			name = _kbx_node_text(w, p);
		else if (_kbx_is(p, "type_parameter"))
			name = ts_node_is_null(_kbx_field(p, "name")) ?   /* Kotlin: no field */
				_kbx_node_text(w, _kbx_child_of_type(p, "identifier")) :
				_kbx_field_text(w, p, "name");
		if (!name || _kbx_grow((void **)&tp->v, &tp->alloc, tp->n, sizeof(*tp->v), 8))
			continue;
		tp->v[tp->n].name = name;
		tp->v[tp->n].end = ts_node_end_byte(decl);
		tp->n++;
	}
}

int _kbx_jsc_tparams_has(struct _kbx_jsc_tparams *tp, TSNode at, const char *name)
{
	tparams_leave(tp, ts_node_start_byte(at));
	for (size_t i = tp->n; i-- > 0;)
		if (!strcmp(tp->v[i].name, name))
			return 1;
	return 0;
}

void _kbx_jsc_tparams_release(struct _kbx_jsc_tparams *tp)
{
	free(tp->v);
	*tp = (struct _kbx_jsc_tparams){ 0 };
}

void _kbx_jsc_unbind_at_end(struct kbx_walk *w, struct _kbx_jsc_unbinds *u, TSNode n)
{
	if (_kbx_grow((void **)&u->v, &u->alloc, u->n, sizeof(*u->v), 16))
		return;
	u->v[u->n].end = ts_node_end_byte(n);
	u->v[u->n].nbind = w->nbind;
	u->n++;
}

void _kbx_jsc_unbind_leave(struct kbx_walk *w, struct _kbx_jsc_unbinds *u, TSNode at)
{
	uint32_t pos = ts_node_start_byte(at);
	while (u->n && u->v[u->n - 1].end <= pos) {
		/* the walker keeps the bindings as a stack; the construct's
		 * scope in its terms is the enclosing one, so it would keep
		 * them until that ends */
		size_t keep = u->v[--u->n].nbind;
		if (w->nbind > keep)
			w->nbind = keep;
	}
}

void _kbx_jsc_unbinds_release(struct _kbx_jsc_unbinds *u)
{
	free(u->v);
	*u = (struct _kbx_jsc_unbinds){ 0 };
}

/* ---- JavaScript ---- */

/*
 * What `this` is where the walk is: a function that is not an arrow sets
 * it (a method or field initializer of a class to the instance), and a
 * class tells its methods whether its fields are bound.
 */
struct js_frame {
	uint32_t end;      /* the function's or class's end byte */
	int this_kind;     /* THIS_* */
	int cls;           /* a class body: CLASS_* */
	/* TypeScript: the type `this` is declared with, function f(this: T),
	 * or "?" for a declaration that states none (this: any) */
	const char *this_type;
};
#define CLASS_NONE  0
#define CLASS_NAMED 1      /* a class the walk defined, whose fields are bound */
#define CLASS_ANON  2      /* a class expression without a name: none are */
#define THIS_INHERITED 0   /* an arrow function: the enclosing `this` */
#define THIS_INSTANCE  1   /* a method or field of a class: its instance */
#define THIS_OTHER     2   /* another function: whatever it is called on */

#define RECENT_CALLS 256

struct js_state {
	/* Start byte + 1 of a function or class expression that a declarator,
	 * pair, assignment, field or default export has already defined under
	 * its own name, so that the expression does not define it again. */
	uint32_t named_value;
	/* Did the definition made for named_value open a scope (which its
	 * parameters are then bound in)? */
	int named_scoped;
	/* Start byte + 1 of a require() call already reported as a bound import. */
	uint32_t bound_require;
	/* TypeScript or TSX: types are declared (annotations, fields) */
	int typescript;
	struct js_frame *frames;
	size_t nframes, aframes;
	/* anonymous functions bind in the enclosing scope until their end */
	struct _kbx_jsc_unbinds unbinds;
	struct _kbx_jsc_tparams tparams;
	/* TypeScript: the type aliases the file declares (type X = ...),
	 * which name no class; sorted after the first visit */
	const char **aliases;
	size_t naliases, aaliases;
	int aliases_done;
	/* TypeScript: the calls recorded last (a ring), so that a function
	 * passed to one finds the call's index (struct recent_call) */
	struct recent_call {
		uint32_t start, end;
		int index;
	} recent[RECENT_CALLS];
	size_t nrecent;
};

void _kbx_js_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct js_state));
}

void _kbx_ts_begin(struct kbx_walk *w)
{
	_kbx_js_begin(w);
	struct js_state *st = w->lang_state;
	if (st)
		st->typescript = 1;
}

void _kbx_js_end(struct kbx_walk *w)
{
	struct js_state *st = w->lang_state;
	if (st) {
		free(st->frames);
		free(st->aliases);
		_kbx_jsc_unbinds_release(&st->unbinds);
		_kbx_jsc_tparams_release(&st->tparams);
	}
	free(w->lang_state);
	w->lang_state = NULL;
}

void _kbx_js_enter(struct kbx_walk *w, TSNode n)
{
	struct js_state *st = w->lang_state;
	if (!st)
		return;
	uint32_t pos = ts_node_start_byte(n);
	while (st->nframes && st->frames[st->nframes - 1].end <= pos)
		st->nframes--;
	_kbx_jsc_unbind_leave(w, &st->unbinds, n);
	tparams_leave(&st->tparams, pos);
}

static void push_frame(struct kbx_walk *w, TSNode n, int this_kind, int cls)
{
	struct js_state *st = w->lang_state;
	if (!st || _kbx_grow((void **)&st->frames, &st->aframes, st->nframes, sizeof(*st->frames),
			     16))
		return;
	st->frames[st->nframes++] = (struct js_frame){ ts_node_end_byte(n), this_kind, cls, NULL };
}

/* What `this` is in a method or field initializer n: the instance of a
 * class the walk defined, or something the bindings know nothing of. */
static int member_this(struct kbx_walk *w, TSNode n)
{
	struct js_state *st = w->lang_state;
	if (!st || strcmp(ts_node_type(_kbx_walk_up(w, n)), "class_body"))
		return THIS_OTHER;
	for (size_t i = st->nframes; i-- > 0;)
		if (st->frames[i].cls)
			return st->frames[i].cls == CLASS_NAMED ? THIS_INSTANCE : THIS_OTHER;
	return THIS_OTHER;
}

/* The type `this` is declared with in the function the walk is in
 * (function f(this: T)), "?" if the declaration states none, or NULL
 * where it is not declared. */
static const char *this_declared(struct kbx_walk *w)
{
	struct js_state *st = w->lang_state;
	for (size_t i = st ? st->nframes : 0; i-- > 0;)
		if (st->frames[i].this_kind != THIS_INHERITED)
			return st->frames[i].this_type;
	return NULL;
}

/* Is `this` where the walk is the instance of the innermost class? */
static int this_is_instance(struct kbx_walk *w)
{
	struct js_state *st = w->lang_state;
	for (size_t i = st ? st->nframes : 0; i-- > 0;)
		if (st->frames[i].this_kind != THIS_INHERITED)
			return st->frames[i].this_kind == THIS_INSTANCE;
	return 0;
}

static int is_function_value(TSNode v)
{
	if (ts_node_is_null(v))
		return 0;
	const char *t = ts_node_type(v);
	return !strcmp(t, "arrow_function") || !strcmp(t, "function_expression") ||
	       !strcmp(t, "function") || !strcmp(t, "generator_function");
}

static int is_class_value(TSNode v)
{
	return !ts_node_is_null(v) && !strcmp(ts_node_type(v), "class");
}

static void mark_named(struct kbx_walk *w, TSNode v)
{
	struct js_state *st = w->lang_state;
	if (st) {
		st->named_value = ts_node_start_byte(v) + 1;
		st->named_scoped = 0;
	}
}

/* The definition for the value marked named got sym. */
static void named_as(struct kbx_walk *w, int sym)
{
	struct js_state *st = w->lang_state;
	if (st)
		st->named_scoped = sym >= 0;
}

static int already_named(struct kbx_walk *w, TSNode n)
{
	struct js_state *st = w->lang_state;
	return st && st->named_value == ts_node_start_byte(n) + 1;
}

/* The name of a method, field or pair key: identifiers as written, string
 * keys without quotes, and for a computed key such as [Symbol.iterator] the
 * last component ("iterator"). */
static const char *member_name(struct kbx_walk *w, TSNode key)
{
	if (ts_node_is_null(key))
		return NULL;
	const char *t = ts_node_type(key);
	if (!strcmp(t, "string"))
		return _kbx_jsc_string_value(w, key);
	if (!strcmp(t, "computed_property_name")) {
		const char *text = _kbx_jsc_clean_text(w, ts_node_named_child(key, 0), 0);
		if (!text)
			return NULL;
		const char *dot = strrchr(text, '.');
		text = dot ? dot + 1 : text;
		for (const char *p = text; *p; p++)
			if (!is_word_end(*p) || *p == ')' || *p == ']')
				return NULL;
		return text;
	}
	return _kbx_node_text(w, key);
}

/* A base class as written: identifiers and dotted names (generic arguments
 * stripped); mixin calls and other expressions are not names. */
static void add_base(struct kbx_walk *w, int sym, TSNode b)
{
	const char *t = ts_node_type(b);
	if (!strcmp(t, "identifier") || !strcmp(t, "member_expression") ||
	    !strcmp(t, "type_identifier") || !strcmp(t, "nested_type_identifier") ||
	    !strcmp(t, "generic_type") || !strcmp(t, "nested_identifier"))
		_kbx_x_inherit(w->x, sym, _kbx_jsc_clean_text(w, b, KBX_JSC_STRIP_GENERICS),
			       _kbx_node_line(b));
}

static void add_bases(struct kbx_walk *w, int sym, TSNode list)
{
	uint32_t count = ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(list, i);
		const char *t = ts_node_type(c);
		if (!strcmp(t, "extends_clause") || !strcmp(t, "implements_clause") ||
		    !strcmp(t, "extends_type_clause"))
			add_bases(w, sym, c);  /* one level: TypeScript's clauses */
		else if (strcmp(t, "type_arguments"))
			add_base(w, sym, c);
	}
}

static void bind_fields(struct kbx_walk *w, TSNode cls);

int _kbx_js_define_class(struct kbx_walk *w, TSNode at, TSNode cls, int kind, const char *name)
{
	struct js_state *st = w->lang_state;
	int sym = _kbx_walk_define(w, at, kind, name, 1);
	if (kind == KBX_KIND_CLASS)
		push_frame(w, cls, THIS_INHERITED, sym < 0 ? CLASS_ANON : CLASS_NAMED);
	if (sym < 0)
		return sym;
	if (st)
		_kbx_jsc_tparams_push(w, &st->tparams, cls, _kbx_field(cls, "type_parameters"));
	uint32_t count = ts_node_named_child_count(cls);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(cls, i);
		const char *t = ts_node_type(c);
		if (!strcmp(t, "class_heritage") || !strcmp(t, "extends_type_clause"))
			add_bases(w, sym, c);
	}
	if (kind == KBX_KIND_CLASS)
		bind_fields(w, cls);
	return sym;
}

static void import_record(struct kbx_walk *w, const char *module, const char *name,
			  const char *alias, int flags, TSNode at)
{
	if (module)
		_kbx_x_import(w->x, module, name, alias, 0, flags, _kbx_node_line(at));
}

/* An import or export specifier's name: an identifier, or a string for
 * `import {"a-b" as c}`. */
static const char *spec_name(struct kbx_walk *w, TSNode n)
{
	if (ts_node_is_null(n))
		return NULL;
	if (!strcmp(ts_node_type(n), "string"))
		return _kbx_jsc_string_value(w, n);
	return _kbx_node_text(w, n);
}

static void visit_import(struct kbx_walk *w, TSNode n)
{
	const char *module = _kbx_jsc_string_value(w, _kbx_field(n, "source"));
	int bound = 0;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		const char *t = ts_node_type(c);
		if (!strcmp(t, "import_require_clause")) {
			/* TypeScript: import fs = require("fs") */
			const char *m = _kbx_jsc_string_value(w, _kbx_field(c, "source"));
			TSNode id = _kbx_child_of_type(c, "identifier");
			import_record(w, m, NULL, ts_node_is_null(id) ? NULL : _kbx_node_text(w, id),
				      0, n);
			bound = 1;
			continue;
		}
		if (strcmp(t, "import_clause"))
			continue;
		uint32_t nk = ts_node_named_child_count(c);
		for (uint32_t j = 0; j < nk; j++) {
			TSNode k = ts_node_named_child(c, j);
			const char *kt = ts_node_type(k);
			if (!strcmp(kt, "identifier")) {
				import_record(w, module, "default", _kbx_node_text(w, k), 0, n);
				bound = 1;
			} else if (!strcmp(kt, "namespace_import")) {
				TSNode id = _kbx_child_of_type(k, "identifier");
				if (!ts_node_is_null(id)) {
					import_record(w, module, NULL, _kbx_node_text(w, id), 0, n);
					bound = 1;
				}
			} else if (!strcmp(kt, "named_imports")) {
				uint32_t ns = ts_node_named_child_count(k);
				for (uint32_t s = 0; s < ns; s++) {
					TSNode spec = ts_node_named_child(k, s);
					if (strcmp(ts_node_type(spec), "import_specifier"))
						continue;
					const char *name = spec_name(w, _kbx_field(spec, "name"));
					TSNode a = _kbx_field(spec, "alias");
					if (!name)
						continue;
					import_record(w, module, name,
						      ts_node_is_null(a) ? NULL : _kbx_node_text(w, a),
						      0, n);
				}
				bound = 1;  /* even `import {} from "x"` names x */
			}
		}
	}
	if (!bound)
		import_record(w, module, NULL, NULL, 0, n);  /* import "./side-effect" */
}

/* export ... from "x": the re-exported names are imports of x. */
static void visit_reexport(struct kbx_walk *w, TSNode n, const char *module)
{
	int any = 0;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		const char *t = ts_node_type(c);
		if (!strcmp(t, "export_clause")) {
			uint32_t ns = ts_node_named_child_count(c);
			for (uint32_t s = 0; s < ns; s++) {
				TSNode spec = ts_node_named_child(c, s);
				if (strcmp(ts_node_type(spec), "export_specifier"))
					continue;
				const char *name = spec_name(w, _kbx_field(spec, "name"));
				const char *alias = spec_name(w, _kbx_field(spec, "alias"));
				if (name)
					import_record(w, module, name, alias, 0, n);
			}
			any = 1;
		} else if (!strcmp(t, "namespace_export")) {
			const char *alias = spec_name(w, ts_node_named_child(c, 0));
			import_record(w, module, NULL, alias, 0, n);
			any = 1;
		}
	}
	if (!any)
		import_record(w, module, NULL, NULL, KBX_IMPORT_WILDCARD, n);  /* export * from */
}

/* The module of require("x"), or NULL if call is not such a call. */
static const char *require_module(struct kbx_walk *w, TSNode call)
{
	if (ts_node_is_null(call) || strcmp(ts_node_type(call), "call_expression"))
		return NULL;
	TSNode fn = _kbx_field(call, "function");
	if (ts_node_is_null(fn) || strcmp(ts_node_type(fn), "identifier"))
		return NULL;
	uint32_t s = ts_node_start_byte(fn), e = ts_node_end_byte(fn);
	if (e - s != 7 || e > w->len || memcmp(w->src + s, "require", 7))
		return NULL;
	TSNode args = _kbx_field(call, "arguments");
	if (ts_node_is_null(args) || ts_node_named_child_count(args) < 1)
		return NULL;
	TSNode arg = ts_node_named_child(args, 0);
	if (strcmp(ts_node_type(arg), "string"))
		return NULL;
	return _kbx_jsc_string_value(w, arg);
}

/* const x = require("m"), const {a, b: c} = require("m"),
 * const y = require("m").y: imports bound to names. */
static void bound_require(struct kbx_walk *w, TSNode decl, TSNode value)
{
	TSNode call = value, prop = { 0 };
	if (!strcmp(ts_node_type(value), "member_expression")) {
		call = _kbx_field(value, "object");
		prop = _kbx_field(value, "property");
	}
	const char *module = require_module(w, call);
	if (!module)
		return;
	struct js_state *st = w->lang_state;
	if (st)
		st->bound_require = ts_node_start_byte(call) + 1;
	TSNode pat = _kbx_field(decl, "name");
	const char *pt = ts_node_is_null(pat) ? "" : ts_node_type(pat);
	if (!ts_node_is_null(prop)) {
		const char *name = _kbx_node_text(w, prop);
		const char *local = !strcmp(pt, "identifier") ? _kbx_node_text(w, pat) : NULL;
		import_record(w, module, name, local && name && strcmp(local, name) ? local : NULL,
			      0, decl);
		return;
	}
	if (!strcmp(pt, "identifier")) {
		import_record(w, module, NULL, _kbx_node_text(w, pat), 0, decl);
		return;
	}
	int any = 0;
	if (!strcmp(pt, "object_pattern")) {
		uint32_t count = ts_node_named_child_count(pat);
		for (uint32_t i = 0; i < count; i++) {
			TSNode c = ts_node_named_child(pat, i);
			const char *t = ts_node_type(c);
			if (!strcmp(t, "shorthand_property_identifier_pattern")) {
				import_record(w, module, _kbx_node_text(w, c), NULL, 0, decl);
				any = 1;
			} else if (!strcmp(t, "pair_pattern")) {
				TSNode k = _kbx_field(c, "key"), v = _kbx_field(c, "value");
				if (ts_node_is_null(k) || ts_node_is_null(v) ||
				    strcmp(ts_node_type(v), "identifier"))
					continue;
				const char *name = member_name(w, k);
				const char *local = _kbx_node_text(w, v);
				if (!name)
					continue;
				import_record(w, module, name,
					      local && strcmp(local, name) ? local : NULL, 0, decl);
				any = 1;
			}
		}
	}
	if (!any)
		import_record(w, module, NULL, NULL, 0, decl);
}

/* ---- the static types of names: the evidence for calls ---- */

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The type aliases of the file (TypeScript), collected from the whole
 * tree the first time a declared type is looked at. */
static void collect_aliases(struct kbx_walk *w, struct js_state *st, TSNode any)
{
	st->aliases_done = 1;
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(any.tree));
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		if (!strcmp(ts_node_type(n), "type_alias_declaration")) {
			const char *name = _kbx_field_text(w, n, "name");
			if (name && !_kbx_grow((void **)&st->aliases, &st->aaliases, st->naliases,
					       sizeof(*st->aliases), 8))
				st->aliases[st->naliases++] = name;
		}
		if (ts_tree_cursor_goto_first_child(&cur))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&cur))
			if (!ts_tree_cursor_goto_parent(&cur))
				goto done;
	}
done:
	ts_tree_cursor_delete(&cur);
	if (st->naliases)
		qsort(st->aliases, st->naliases, sizeof(*st->aliases), by_str);
}

/* Does the type name t (at node at) name no class: a type parameter in
 * scope or a type alias of the file? */
static int type_is_not_class(struct kbx_walk *w, TSNode at, const char *t)
{
	struct js_state *st = w->lang_state;
	if (!st)
		return 1;
	if (_kbx_jsc_tparams_has(&st->tparams, at, t))
		return 1;
	if (!st->aliases_done)
		collect_aliases(w, st, at);
	return st->naliases && bsearch(&t, st->aliases, st->naliases, sizeof(*st->aliases), by_str);
}

/* The standard library's generic types whose values have the members of
 * their first argument, and those whose values name no class at all. */
static const char *const same_members[] = {
	"Partial", "Required", "Readonly", "NonNullable", "Pick", "Omit", NULL
};
static const char *const no_class[] = {
	"Record", "ReturnType", "InstanceType", "Parameters", "ConstructorParameters",
	"Awaited", "Exclude", "Extract", "ThisType", "ThisParameterType", "OmitThisParameter",
	"NoInfer", "Uppercase", "Lowercase", "Capitalize", "Uncapitalize", NULL
};

static int in_list(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

#define TYPE_NULLISH ((const char *)1)  /* null or undefined in a union */
#define TYPE_PARTS 8                     /* the members of a union looked at */

/* The built-in type of a literal, in an expression or a literal type:
 * "string", "number", "boolean", "Array", "RegExp"; TYPE_NULLISH for
 * null and undefined; NULL for what is no literal. */
static const char *literal_type(struct kbx_walk *w, TSNode v)
{
	const char *t = ts_node_type(v);
	if (!strcmp(t, "string") || !strcmp(t, "template_string"))
		return "string";
	if (!strcmp(t, "number"))
		return "number";
	if (!strcmp(t, "true") || !strcmp(t, "false"))
		return "boolean";
	if (!strcmp(t, "array"))
		return "Array";
	if (!strcmp(t, "regex"))
		return "RegExp";
	if (!strcmp(t, "null") || !strcmp(t, "undefined"))
		return TYPE_NULLISH;
	uint32_t s = ts_node_start_byte(v), e = ts_node_end_byte(v);
	if (!strcmp(t, "identifier") && e - s == 9 && e <= w->len &&
	    !memcmp(w->src + s, "undefined", 9))
		return TYPE_NULLISH;
	return NULL;
}

/* One member of a TypeScript type, after the union is taken apart: a
 * class-like name, a built-in type's name, TYPE_NULLISH, or NULL. */
static const char *type_member(struct kbx_walk *w, TSNode t, TSNode *inner)
{
	const char *tt = ts_node_type(t);
	*inner = (TSNode){ 0 };
	if (!strcmp(tt, "type_identifier")) {
		const char *name = _kbx_node_text(w, t);
		return name && !type_is_not_class(w, t, name) ? name : NULL;
	}
	if (!strcmp(tt, "nested_type_identifier"))
		return _kbx_jsc_clean_text(w, t, 0);
	if (!strcmp(tt, "generic_type")) {
		TSNode name = _kbx_field(t, "name");
		if (ts_node_is_null(name))
			return NULL;
		if (strcmp(ts_node_type(name), "type_identifier"))
			return _kbx_jsc_clean_text(w, name, 0);
		const char *s = _kbx_node_text(w, name);
		if (!s || type_is_not_class(w, name, s) || in_list(no_class, s))
			return NULL;
		if (!strcmp(s, "Array") || !strcmp(s, "ReadonlyArray"))
			return "Array";
		if (in_list(same_members, s)) {
			/* Partial<T>: look at T instead */
			TSNode args = _kbx_field(t, "type_arguments");
			if (!ts_node_is_null(args) && ts_node_named_child_count(args))
				*inner = ts_node_named_child(args, 0);
			return NULL;
		}
		return s;
	}
	if (!strcmp(tt, "predefined_type")) {
		const char *s = _kbx_node_text(w, t);
		if (s && (!strcmp(s, "string") || !strcmp(s, "number") || !strcmp(s, "boolean") ||
			  !strcmp(s, "bigint") || !strcmp(s, "symbol")))
			return s;
		if (s && (!strcmp(s, "undefined") || !strcmp(s, "null")))
			return TYPE_NULLISH;
		return NULL;  /* any, unknown, object, never, void */
	}
	if (!strcmp(tt, "literal_type")) {
		TSNode v = ts_node_named_child(t, 0);
		if (!ts_node_is_null(v) && !strcmp(ts_node_type(v), "unary_expression"))
			return "number";  /* -1 */
		return ts_node_is_null(v) ? NULL : literal_type(w, v);
	}
	if (!strcmp(tt, "template_literal_type"))
		return "string";
	if (!strcmp(tt, "array_type") || !strcmp(tt, "tuple_type"))
		return "Array";
	if (!strcmp(tt, "function_type") || !strcmp(tt, "constructor_type"))
		return "Function";
	if (!strcmp(tt, "parenthesized_type") || !strcmp(tt, "readonly_type") ||
	    !strcmp(tt, "type_annotation") || !strcmp(tt, "opting_type_annotation") ||
	    !strcmp(tt, "omitting_type_annotation")) {
		*inner = ts_node_named_child(t, 0);
		return NULL;
	}
	/* object types, intersections, keyof, typeof x, conditional and
	 * indexed types: no one class */
	return NULL;
}

/*
 * The type a TypeScript annotation states, as recv_type wants it: a class
 * or interface name ("Foo", "ns.Foo", without generic arguments), a
 * built-in's ("string", "Array", "Function"), the one type of a union
 * with null or undefined; NULL when it states no one type (any, a type
 * parameter, an alias, an object type, a union of several).
 */
static const char *ts_type(struct kbx_walk *w, TSNode t)
{
	TSNode todo[TYPE_PARTS];
	size_t ntodo = 0, steps = 0;
	const char *found = NULL;
	if (ts_node_is_null(t))
		return NULL;
	todo[ntodo++] = t;
	while (ntodo) {
		TSNode n = todo[--ntodo];
		if (++steps > 4 * TYPE_PARTS || ts_node_is_null(n))
			return NULL;
		if (!strcmp(ts_node_type(n), "union_type")) {
			uint32_t count = ts_node_named_child_count(n);
			if (ntodo + count > TYPE_PARTS)
				return NULL;
			for (uint32_t i = 0; i < count; i++)
				todo[ntodo++] = ts_node_named_child(n, i);
			continue;
		}
		TSNode inner;
		const char *m = type_member(w, n, &inner);
		if (!ts_node_is_null(inner)) {
			todo[ntodo++] = inner;
			continue;
		}
		if (m == TYPE_NULLISH)
			continue;
		if (!m || (found && strcmp(found, m)))
			return NULL;
		found = m;
	}
	return found;
}

/* Is n the identifier undefined, or null? */
static int is_nullish(struct kbx_walk *w, TSNode n)
{
	return literal_type(w, n) == TYPE_NULLISH;
}

/*
 * The type a value states: new T(), x as T, <T>x (TypeScript), and the
 * literals of the built-in types; NULL for any other expression.
 */
static const char *value_type(struct kbx_walk *w, TSNode v)
{
	for (int steps = 0; !ts_node_is_null(v) && steps < 8; steps++) {
		const char *t = ts_node_type(v);
		if (!strcmp(t, "parenthesized_expression") || !strcmp(t, "non_null_expression") ||
		    !strcmp(t, "satisfies_expression")) {
			v = ts_node_named_child(v, 0);
		} else if (!strcmp(t, "as_expression") || !strcmp(t, "type_assertion")) {
			/* x as T: the type is the last child; <T>x: the first */
			uint32_t count = ts_node_named_child_count(v);
			if (count < 2)
				return NULL;
			TSNode ty = ts_node_named_child(v, !strcmp(t, "as_expression") ? count - 1 : 0);
			if (!strcmp(ts_node_type(ty), "type_arguments"))
				ty = ts_node_named_child(ty, 0);
			return ts_type(w, ty);
		} else if (!strcmp(t, "new_expression")) {
			TSNode c = _kbx_field(v, "constructor");
			const char *ct = ts_node_is_null(c) ? "" : ts_node_type(c);
			if (strcmp(ct, "identifier") && strcmp(ct, "member_expression"))
				return NULL;
			const char *name = _kbx_jsc_clean_text(w, c, 0);
			if (!name)
				return NULL;
			/* new C() with C a parameter or a local: a class only known
			 * at run time */
			char first[128];
			size_t k = strcspn(name, ".");
			const char *ignored;
			if (k >= sizeof(first))
				return NULL;
			memcpy(first, name, k);
			first[k] = '\0';
			if (!strcmp(first, "this") || _kbx_walk_bound(w, first, 0, &ignored))
				return NULL;
			return name;
		} else {
			const char *lt = literal_type(w, v);
			return lt == TYPE_NULLISH ? NULL : lt;
		}
	}
	return NULL;
}

/* Is v a definition's value (a function or class the walk defines under
 * the declared name) or require(): no variable to bind? */
static int defines_or_imports(struct kbx_walk *w, TSNode v)
{
	if (is_function_value(v) || is_class_value(v))
		return 1;
	if (!strcmp(ts_node_type(v), "member_expression"))
		v = _kbx_field(v, "object");
	return require_module(w, v) != NULL;
}

/* Bind every name a destructuring pattern declares, untyped: identifiers
 * and shorthand properties, not the keys of pairs nor default values. */
static void bind_pattern(struct kbx_walk *w, TSNode p)
{
	const char *pt = ts_node_type(p);
	if (!strcmp(pt, "identifier") || !strcmp(pt, "shorthand_property_identifier_pattern")) {
		_kbx_walk_bind(w, _kbx_node_text(w, p), NULL);
		return;
	}
	if (strcmp(pt, "object_pattern") && strcmp(pt, "array_pattern") &&
	    strcmp(pt, "rest_pattern") && strcmp(pt, "assignment_pattern") &&
	    strcmp(pt, "object_assignment_pattern") && strcmp(pt, "pair_pattern"))
		return;  /* a member expression: for (this.x of xs) */
	TSTreeCursor cur = ts_tree_cursor_new(p);
	if (!ts_tree_cursor_goto_first_child(&cur))
		goto done;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		const char *field = ts_tree_cursor_current_field_name(&cur);
		const char *t = ts_node_type(n);
		int descend = 0;
		if (field && (!strcmp(field, "right") || !strcmp(field, "key"))) {
			/* a default value, or the key of { key: name } */
		} else if (!strcmp(t, "identifier") ||
			   !strcmp(t, "shorthand_property_identifier_pattern")) {
			_kbx_walk_bind(w, _kbx_node_text(w, n), NULL);
		} else if (!strcmp(t, "object_pattern") || !strcmp(t, "array_pattern") ||
			   !strcmp(t, "rest_pattern") || !strcmp(t, "assignment_pattern") ||
			   !strcmp(t, "object_assignment_pattern") || !strcmp(t, "pair_pattern")) {
			descend = 1;
		}
		if (descend && ts_tree_cursor_goto_first_child(&cur))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&cur)) {
			if (!ts_tree_cursor_goto_parent(&cur) ||
			    ts_node_eq(ts_tree_cursor_current_node(&cur), p))
				goto done;
		}
	}
done:
	ts_tree_cursor_delete(&cur);
}

/* A parameter: `a`, `a = d`, `a: T`, `a?: T = d`, patterns.  In
 * JavaScript a default value says nothing of what callers pass; in
 * TypeScript it is the declared type when there is no annotation. */
static void bind_param(struct kbx_walk *w, TSNode p, int typescript)
{
	const char *pt = ts_node_type(p);
	if (!strcmp(pt, "required_parameter") || !strcmp(pt, "optional_parameter")) {
		TSNode pat = _kbx_field(p, "pattern");
		if (ts_node_is_null(pat))
			return;
		if (strcmp(ts_node_type(pat), "identifier")) {
			TSNode ty = _kbx_field(p, "type");
			if (!strcmp(ts_node_type(pat), "rest_pattern") && !ts_node_is_null(ty) &&
			    !strcmp(ts_node_type(ts_node_named_child(pat, 0)), "identifier"))
				_kbx_walk_bind(w, _kbx_node_text(w, ts_node_named_child(pat, 0)),
					       ts_type(w, ty));
			else
				bind_pattern(w, pat);
			return;
		}
		TSNode ty = _kbx_field(p, "type");
		const char *type = ts_node_is_null(ty) ? value_type(w, _kbx_field(p, "value")) :
			ts_type(w, ty);
		_kbx_walk_bind(w, _kbx_node_text(w, pat), type);
	} else if (!strcmp(pt, "assignment_pattern") && typescript) {
		TSNode left = _kbx_field(p, "left");
		if (!ts_node_is_null(left) && !strcmp(ts_node_type(left), "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, left), value_type(w, _kbx_field(p, "right")));
		else
			bind_pattern(w, p);
	} else {
		bind_pattern(w, p);
	}
}

static int is_this_param(struct kbx_walk *w, TSNode p);
static int recalled_call(struct kbx_walk *w, TSNode n);

/*
 * TypeScript: the function n, passed as argument J of call K of the
 * file (f((x) => ...), new C((x) => ...)): a marker "=K@J.I:NAME" for its parameter I, to
 * be given the type the callee says its callback's parameter I has
 * (kbx_xsym.cb_types); NULL when n is passed to no call kbx recorded.
 */
static const char *callback_param(struct kbx_walk *w, TSNode n, uint32_t i)
{
	TSNode args = _kbx_walk_up(w, n);
	if (ts_node_is_null(args) || strcmp(ts_node_type(args), "arguments"))
		return NULL;
	TSNode call = _kbx_walk_up(w, args);
	if (ts_node_is_null(call) || (strcmp(ts_node_type(call), "call_expression") &&
				      strcmp(ts_node_type(call), "new_expression")))
		return NULL;
	int k = recalled_call(w, call);
	if (k < 0 || (size_t)k >= w->x->ncalls || strlen(w->x->calls[k].name) > 40)
		return NULL;
	uint32_t j = 0, count = ts_node_named_child_count(args);
	for (; j < count && !ts_node_eq(ts_node_named_child(args, j), n); j++)
		if (!strcmp(ts_node_type(ts_node_named_child(args, j)), "spread_element"))
			return NULL;   /* f(...xs, (x) => ...): its place is not known */
	if (j == count)
		return NULL;
	char buf[96];
	snprintf(buf, sizeof(buf), "=%d@%u.%u:%s", k, j, i, w->x->calls[k].name);
	return _kbx_arena_strdup(&w->x->arena, buf);
}

/* The parameters of the function n, in the innermost scope. */
static void bind_params(struct kbx_walk *w, TSNode n)
{
	struct js_state *st = w->lang_state;
	int typescript = st && st->typescript;
	TSNode one = _kbx_field(n, "parameter");  /* x => ... */
	if (!ts_node_is_null(one)) {
		if (typescript && !strcmp(ts_node_type(one), "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, one), callback_param(w, n, 0));
		else
			bind_pattern(w, one);
		return;
	}
	TSNode ps = _kbx_field(n, "parameters");
	uint32_t count = ts_node_is_null(ps) ? 0 : ts_node_named_child_count(ps), at = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(ps, i);
		if (is_this_param(w, p))
			continue;   /* (this: T, ...): no argument is passed for it */
		TSNode pat = _kbx_field(p, "pattern");
		if (typescript && !strcmp(ts_node_type(p), "required_parameter") &&
		    ts_node_is_null(_kbx_field(p, "type")) &&
		    ts_node_is_null(_kbx_field(p, "value")) && _kbx_is(pat, "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, pat), callback_param(w, n, at));
		else
			bind_param(w, p, typescript);
		at++;
	}
}

/* (this: T): TypeScript's declared `this`, a parameter no argument is
 * passed for. */
static int is_this_param(struct kbx_walk *w, TSNode p)
{
	TSNode pat = _kbx_field(p, "pattern");
	if (ts_node_is_null(pat))
		return 0;
	const char *t = ts_node_type(pat);
	return !strcmp(t, "this") || (!strcmp(t, "identifier") && (t = _kbx_node_text(w, pat)) &&
				       !strcmp(t, "this"));
}

/*
 * TypeScript: "@J.I:TYPE;..." for the parameters J of function n typed
 * with a function type, whose parameter I is declared of a TYPE
 * (kbx_xsym.cb_types), or NULL.
 */
static const char *callback_types(struct kbx_walk *w, TSNode n)
{
	TSNode ps = _kbx_field(n, "parameters");
	uint32_t count = ts_node_is_null(ps) ? 0 : ts_node_named_child_count(ps), j = 0;
	char buf[512] = "@";
	size_t len = 1;
	for (uint32_t a = 0; a < count; a++) {
		TSNode p = ts_node_named_child(ps, a);
		if (is_this_param(w, p))
			continue;
		TSNode ty = _kbx_field(p, "type");
		TSNode ft = ts_node_is_null(ty) ? ty : ts_node_named_child(ty, 0);
		if (_kbx_is(ft, "function_type")) {
			TSNode fps = _kbx_field(ft, "parameters");
			uint32_t fc = ts_node_is_null(fps) ? 0 : ts_node_named_child_count(fps), i = 0;
			for (uint32_t b = 0; b < fc; b++) {
				TSNode fp = ts_node_named_child(fps, b);
				if (is_this_param(w, fp))
					continue;
				TSNode fty = _kbx_field(fp, "type");
				const char *t = ts_node_is_null(fty) ? NULL :
						ts_type(w, ts_node_named_child(fty, 0));
				if (t && t != TYPE_NULLISH && !strchr(t, ';') && !strchr(t, ':')) {
					int wrote = snprintf(buf + len, sizeof(buf) - len, "%s%u.%u:%s",
							     len > 1 ? ";" : "", j, i, t);
					if (wrote < 0 || (size_t)wrote >= sizeof(buf) - len) {
						buf[len] = '\0';   /* no entry cut short */
						goto done;
					}
					len += (size_t)wrote;
				}
				i++;
			}
		}
		j++;
	}
done:
	return len > 1 ? _kbx_arena_strdup(&w->x->arena, buf) : NULL;
}

/* Is the declarator d a `const` one? */
static int is_const(struct kbx_walk *w, TSNode d)
{
	TSNode kind = _kbx_field(_kbx_walk_up(w, d), "kind");
	if (ts_node_is_null(kind))
		return 0;
	uint32_t s = ts_node_start_byte(kind), e = ts_node_end_byte(kind);
	return e - s == 5 && e <= w->len && !memcmp(w->src + s, "const", 5);
}

/* The type the value v of a declaration states: a value_type, or the
 * class for `this` in one of its methods (const self = this). */
static const char *initial_type(struct kbx_walk *w, TSNode v)
{
	if (ts_node_is_null(v) || strcmp(ts_node_type(v), "this"))
		return value_type(w, v);
	if (!this_is_instance(w))
		return NULL;
	for (size_t i = w->nscope; i-- > 0;) {
		const struct kbx_xsym *cls = &w->x->syms[w->scope_sym[i]];
		if (KBX_KIND_IS_TYPE(cls->kind))
			return cls->qual;
	}
	return NULL;
}

/* What call e returns, e the call recorded as call k of the file: the
 * marker "=K:NAME" (kbx_xcall.recv_type) when e is a call of a named
 * function or method, else NULL. */
static const char *call_result(struct kbx_walk *w, TSNode e, size_t k)
{
	if (ts_node_is_null(e) || strcmp(ts_node_type(e), "call_expression"))
		return NULL;
	TSNode fn = _kbx_field(e, "function");
	const char *ft = ts_node_is_null(fn) ? "" : ts_node_type(fn);
	return _kbx_call_result(w, k, !strcmp(ft, "identifier") ? _kbx_node_text(w, fn) :
				      !strcmp(ft, "member_expression") ?
				      _kbx_field_text(w, fn, "property") : NULL);
}

/* let x: T, const x = new T(), var {a, b} = o.  A TypeScript variable
 * keeps the type of its annotation or first value; what a JavaScript
 * `let` or `var` first holds is no evidence of what it holds later. */
static void bind_declarator(struct kbx_walk *w, TSNode d)
{
	struct js_state *st = w->lang_state;
	TSNode name = _kbx_field(d, "name"), v = _kbx_field(d, "value");
	if (ts_node_is_null(name) || (!ts_node_is_null(v) && defines_or_imports(w, v)))
		return;
	if (strcmp(ts_node_type(name), "identifier")) {
		bind_pattern(w, name);
		return;
	}
	const char *type = NULL;
	TSNode ty = _kbx_field(d, "type");
	if (!ts_node_is_null(ty))
		type = ts_type(w, ty);
	else if ((st && st->typescript) || is_const(w, d))
		type = initial_type(w, v);
	/* const x = f(a): what f says it returns, f the next call */
	if (!type && st && st->typescript && ts_node_is_null(ty))
		type = call_result(w, v, w->x->ncalls);
	_kbx_walk_bind(w, _kbx_node_text(w, name), type);
}

/* ---- the fields of a class: what `this.x` holds ---- */

struct field_seen {
	const char *name;
	const char *type;
	int unknown;   /* assigned a value that states no type, or two types */
};

struct field_list {
	struct field_seen *v;
	size_t n, alloc;
};

/* Note that field name holds a value of type (NULL: a value that states
 * none). */
static void field_note(struct field_list *l, const char *name, const char *type)
{
	if (!name)
		return;
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].name, name)) {
			if (!type || !l->v[i].type || strcmp(type, l->v[i].type))
				l->v[i].unknown = 1;
			return;
		}
	if (_kbx_grow((void **)&l->v, &l->alloc, l->n, sizeof(*l->v), 8))
		return;
	l->v[l->n++] = (struct field_seen){ name, type, !type };
}

/* "this.x", the name a field x is bound under; NULL for NULL. */
static const char *this_name(struct kbx_walk *w, const char *field)
{
	return field ? _kbx_join(w, "this", ".", field) : NULL;
}

/* "this.x" for the member expression this.x (or this.#x), else NULL. */
static const char *this_member(struct kbx_walk *w, TSNode m)
{
	if (ts_node_is_null(m) || strcmp(ts_node_type(m), "member_expression"))
		return NULL;
	TSNode obj = _kbx_field(m, "object"), prop = _kbx_field(m, "property");
	if (ts_node_is_null(obj) || ts_node_is_null(prop) || strcmp(ts_node_type(obj), "this"))
		return NULL;
	return this_name(w, _kbx_node_text(w, prop));
}

/* Every this.x a pattern assigns (for [this.a, this.b] = pair). */
static void fields_in_pattern(struct kbx_walk *w, struct field_list *l, TSNode p)
{
	TSTreeCursor cur = ts_tree_cursor_new(p);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		const char *f = this_member(w, n);
		if (f)
			field_note(l, f, NULL);
		if (ts_tree_cursor_goto_first_child(&cur))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&cur))
			if (!ts_tree_cursor_goto_parent(&cur) ||
			    ts_node_eq(ts_tree_cursor_current_node(&cur), p))
				goto done;
	}
done:
	ts_tree_cursor_delete(&cur);
}

/*
 * JavaScript declares no field's type: what a class's code assigns to
 * this.x is the evidence, where every assignment (other than of null or
 * undefined) is a new T() of the same T.  Looked for in the methods and
 * field initializers of the class body, not in nested classes nor in
 * functions where `this` is something else.
 */
static void js_assigned_fields(struct kbx_walk *w, TSNode body, struct field_list *l)
{
	TSTreeCursor cur = ts_tree_cursor_new(body);
	if (!ts_tree_cursor_goto_first_child(&cur))
		goto done;
	for (unsigned depth = 1;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		const char *t = ts_node_type(n);
		int descend = 1;
		if (!strcmp(t, "class") || !strcmp(t, "class_declaration") ||
		    !strcmp(t, "function_expression") || !strcmp(t, "function") ||
		    !strcmp(t, "function_declaration") || !strcmp(t, "generator_function") ||
		    !strcmp(t, "generator_function_declaration") ||
		    (!strcmp(t, "method_definition") && depth > 1)) {
			descend = 0;
		} else if (!strcmp(t, "field_definition") && depth == 1) {
			TSNode v = _kbx_field(n, "value");
			const char *name = this_name(w, _kbx_field_text(w, n, "property"));
			if (!ts_node_is_null(v) && !is_nullish(w, v))
				field_note(l, name, is_function_value(v) ? NULL : value_type(w, v));
		} else if (!strcmp(t, "assignment_expression")) {
			TSNode left = _kbx_field(n, "left"), right = _kbx_field(n, "right");
			const char *f = this_member(w, left);
			if (f && !ts_node_is_null(right) && !is_nullish(w, right))
				field_note(l, f, value_type(w, right));
			else if (!f && !ts_node_is_null(left))
				fields_in_pattern(w, l, left);
		} else if (!strcmp(t, "augmented_assignment_expression") ||
			   !strcmp(t, "update_expression")) {
			TSNode left = _kbx_field(n, "left");
			if (ts_node_is_null(left))
				left = _kbx_field(n, "argument");
			field_note(l, this_member(w, left), NULL);
		}
		if (descend && ts_tree_cursor_goto_first_child(&cur)) {
			depth++;
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&cur)) {
			if (!ts_tree_cursor_goto_parent(&cur) || --depth == 0)
				goto done;
		}
	}
done:
	ts_tree_cursor_delete(&cur);
}

/* A field or accessor modifier makes a constructor parameter a field. */
static int is_parameter_property(TSNode p)
{
	return !ts_node_is_null(_kbx_child_of_type(p, "accessibility_modifier")) ||
	       !ts_node_is_null(_kbx_child_of_type(p, "override_modifier")) ||
	       _kbx_has_token(p, "readonly");
}

/* TypeScript declares its fields: `x: T`, `x = new T()`, and the
 * parameter properties of the constructor (`constructor(private r: R)`). */
static void ts_declared_fields(struct kbx_walk *w, TSNode body, struct field_list *l)
{
	uint32_t count = ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		const char *t = ts_node_type(m);
		if (!strcmp(t, "public_field_definition")) {
			TSNode ty = _kbx_field(m, "type"), v = _kbx_field(m, "value");
			const char *name = this_name(w, _kbx_field_text(w, m, "name"));
			field_note(l, name, !ts_node_is_null(ty) ? ts_type(w, ty) :
				   is_function_value(v) ? NULL : value_type(w, v));
		} else if (!strcmp(t, "method_definition")) {
			const char *name = _kbx_field_text(w, m, "name");
			TSNode ps = _kbx_field(m, "parameters");
			if (!name || strcmp(name, "constructor") || ts_node_is_null(ps))
				continue;
			uint32_t np = ts_node_named_child_count(ps);
			for (uint32_t j = 0; j < np; j++) {
				TSNode p = ts_node_named_child(ps, j);
				TSNode pat = _kbx_field(p, "pattern");
				if (!is_parameter_property(p) || ts_node_is_null(pat) ||
				    strcmp(ts_node_type(pat), "identifier"))
					continue;
				TSNode ty = _kbx_field(p, "type");
				field_note(l, this_name(w, _kbx_node_text(w, pat)),
					   ts_node_is_null(ty) ? value_type(w, _kbx_field(p, "value")) :
					   ts_type(w, ty));
			}
		}
	}
}

/* Bind "this.x" for each field of the class cls whose scope just opened
 * (fields only: a method sees them through `this`, never by bare name). */
static void bind_fields(struct kbx_walk *w, TSNode cls)
{
	struct js_state *st = w->lang_state;
	TSNode body = _kbx_field(cls, "body");
	if (!st || ts_node_is_null(body))
		return;
	struct field_list l = { 0 };
	if (st->typescript)
		ts_declared_fields(w, body, &l);
	else
		js_assigned_fields(w, body, &l);
	for (size_t i = 0; i < l.n; i++)
		_kbx_walk_bind_field(w, l.v[i].name, l.v[i].unknown ? NULL : l.v[i].type);
	free(l.v);
}

/* The type of a call's receiver where the source states it: this.x of a
 * field with a known type, new T(), (x as T).  A plain name is looked up
 * by the walker. */
static const char *receiver_type(struct kbx_walk *w, TSNode obj)
{
	/* (this.x!).f(): the member inside */
	for (int steps = 0; steps < 8 && !ts_node_is_null(obj); steps++) {
		const char *t = ts_node_type(obj);
		if (strcmp(t, "non_null_expression") && strcmp(t, "parenthesized_expression"))
			break;
		obj = ts_node_named_child(obj, 0);
	}
	if (ts_node_is_null(obj))
		return NULL;
	const char *field = this_member(w, obj);
	if (field) {
		const char *type = NULL;
		if (this_is_instance(w))
			_kbx_walk_bound(w, field, 1, &type);
		return type;
	}
	return value_type(w, obj);
}

/* x instanceof C narrows x to C where it holds, and kbx does not follow
 * where that is: from here on the declared type of x is no evidence. */
static void visit_instanceof(struct kbx_walk *w, TSNode n)
{
	TSNode op = _kbx_field(n, "operator"), left = _kbx_field(n, "left");
	if (ts_node_is_null(op) || ts_node_is_null(left) || strcmp(ts_node_type(op), "instanceof"))
		return;
	const char *t = ts_node_type(left);
	if (!strcmp(t, "identifier"))
		_kbx_walk_bind(w, _kbx_node_text(w, left), NULL);
	else if (!strcmp(t, "member_expression"))
		_kbx_walk_bind_field(w, this_member(w, left), NULL);
}

/* The objects the language and its hosts define globally, whose methods
 * a call on one of these names reaches when the file declares, binds and
 * imports nothing of that name. */
static const char *const global_objects[] = {
	"Array", "ArrayBuffer", "Atomics", "BigInt", "Boolean", "Buffer", "DataView", "Date",
	"Error", "Function", "Intl", "JSON", "Map", "Math", "Number", "Object", "Promise",
	"Proxy", "Reflect", "RegExp", "Set", "String", "Symbol", "WeakMap", "WeakRef",
	"WeakSet", "console", "document", "globalThis", "navigator", "process", "window",
	NULL
};

static int global_object(struct kbx_walk *w, const char *name)
{
	const char *ignored;
	if (!in_list(global_objects, name) || _kbx_walk_bound(w, name, 0, &ignored))
		return 0;
	for (size_t i = 0; i < w->x->nsyms; i++)
		if (!strcmp(w->x->syms[i].name, name))
			return 0;
	for (size_t i = 0; i < w->x->nimports; i++) {
		const struct kbx_ximport *imp = &w->x->imports[i];
		const char *local = imp->alias ? imp->alias : imp->name;
		if (local && !strcmp(local, name))
			return 0;
	}
	return 1;
}

/* A call's receiver: this, super, or an expression as written. */
static int receiver_kind(TSNode obj)
{
	const char *t = ts_node_type(obj);
	if (!strcmp(t, "this"))
		return KBX_RECV_SELF;
	if (!strcmp(t, "super"))
		return KBX_RECV_SUPER;
	return KBX_RECV_EXPR;
}

/* Remember that call node n is call i of the file (TypeScript). */
static void remember_call(struct kbx_walk *w, TSNode n, int i)
{
	struct js_state *st = w->lang_state;
	if (!st || !st->typescript || i < 0)
		return;
	struct recent_call *r = &st->recent[st->nrecent++ % RECENT_CALLS];
	r->start = ts_node_start_byte(n);
	r->end = ts_node_end_byte(n);
	r->index = i;
}

/* The index of the call recorded for node n, or -1. */
static int recalled_call(struct kbx_walk *w, TSNode n)
{
	struct js_state *st = w->lang_state;
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	size_t have = st->nrecent < RECENT_CALLS ? st->nrecent : RECENT_CALLS;
	for (size_t k = 1; k <= have; k++) {
		const struct recent_call *r = &st->recent[(st->nrecent - k) % RECENT_CALLS];
		if (r->start == s && r->end == e)
			return r->index;
	}
	return -1;
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	if (ts_node_is_null(fn))
		return;
	const char *t = ts_node_type(fn);
	if (!strcmp(t, "identifier")) {
		const char *module = require_module(w, n);
		if (module) {
			struct js_state *st = w->lang_state;
			if (!st || st->bound_require != ts_node_start_byte(n) + 1)
				import_record(w, module, NULL, NULL, 0, n);
			return;
		}
		remember_call(w, n, _kbx_walk_call(w, n, _kbx_node_text(w, fn), KBX_RECV_NONE, NULL));
	} else if (!strcmp(t, "member_expression")) {
		TSNode obj = _kbx_field(fn, "object");
		TSNode prop = _kbx_field(fn, "property");
		if (ts_node_is_null(obj) || ts_node_is_null(prop))
			return;
		int recv = receiver_kind(obj);
		const char *text = recv == KBX_RECV_EXPR ?
			_kbx_jsc_clean_text(w, obj, KBX_JSC_NONNULL) : NULL;
		if (recv == KBX_RECV_EXPR && !text)
			return;
		const char *type = NULL;
		if (recv == KBX_RECV_SELF && (type = this_declared(w))) {
			/* this.f() where `this` is declared: on a value of that type */
			recv = KBX_RECV_EXPR;
			text = "this";
		} else if (recv == KBX_RECV_EXPR) {
			type = receiver_type(w, obj);
			if (!type && !strcmp(ts_node_type(obj), "identifier") &&
			    global_object(w, text))
				type = text;
			/* f(a).g(): what f says it returns, f the call
			 * recorded right after this one */
			struct js_state *st = w->lang_state;
			if (!type && st && st->typescript)
				type = call_result(w, obj, w->x->ncalls + 1);
		}
		remember_call(w, n, _kbx_walk_call_typed(w, n, _kbx_node_text(w, prop), recv, text,
							 type));
	} else if (!strcmp(t, "super")) {
		/* super(...) in a constructor runs the base class's constructor */
		_kbx_walk_call(w, n, "constructor", KBX_RECV_SUPER, NULL);
	} else if (!strcmp(t, "import")) {
		TSNode args = _kbx_field(n, "arguments");
		if (!ts_node_is_null(args) && ts_node_named_child_count(args) > 0) {
			TSNode arg = ts_node_named_child(args, 0);
			if (!strcmp(ts_node_type(arg), "string"))
				import_record(w, _kbx_jsc_string_value(w, arg), NULL, NULL, 0, n);
		}
	}
}

/* new Foo(), new ns.Foo(): a call to the class. */
static void visit_new(struct kbx_walk *w, TSNode n)
{
	TSNode ctor = _kbx_field(n, "constructor");
	if (ts_node_is_null(ctor))
		return;
	const char *t = ts_node_type(ctor);
	if (!strcmp(t, "identifier")) {
		remember_call(w, n, _kbx_walk_call(w, n, _kbx_node_text(w, ctor), KBX_RECV_NONE,
						   NULL));
	} else if (!strcmp(t, "member_expression")) {
		TSNode obj = _kbx_field(ctor, "object");
		const char *text = _kbx_jsc_clean_text(w, obj, KBX_JSC_NONNULL);
		if (text)
			remember_call(w, n, _kbx_walk_call(w, n, _kbx_field_text(w, ctor, "property"),
							   KBX_RECV_EXPR, text));
	}
}

/* <Button/>, <Foo.Bar>: a component is a function or class called by the
 * renderer; lower-case names are HTML elements. */
static void visit_jsx(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	if (ts_node_is_null(name))
		return;
	const char *t = ts_node_type(name);
	if (!strcmp(t, "identifier")) {
		const char *s = _kbx_node_text(w, name);
		if (s && *s >= 'A' && *s <= 'Z')
			_kbx_walk_call(w, n, s, KBX_RECV_NONE, NULL);
	} else if (!strcmp(t, "member_expression") || !strcmp(t, "nested_identifier")) {
		TSNode obj = _kbx_field(name, "object");
		const char *text = _kbx_jsc_clean_text(w, obj, 0);
		if (text)
			_kbx_walk_call(w, n, _kbx_field_text(w, name, "property"), KBX_RECV_EXPR,
				       text);
	}
}

/* Define the function or class expression v under name (at node at). */
static void define_value(struct kbx_walk *w, TSNode at, TSNode v, int kind, const char *name)
{
	if (!name)
		return;
	mark_named(w, v);
	if (is_class_value(v))
		named_as(w, _kbx_js_define_class(w, at, v, KBX_KIND_CLASS, name));
	else
		named_as(w, _kbx_walk_define(w, at, kind, name, 1));
}

void _kbx_js_visit_field(struct kbx_walk *w, TSNode n, const char *name_field)
{
	push_frame(w, n, member_this(w, n), CLASS_NONE);
	TSNode v = _kbx_field(n, "value");
	if (is_function_value(v) || is_class_value(v))
		define_value(w, n, v, _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION,
			     member_name(w, _kbx_field(n, name_field)));
}

/*
 * The kind of a function that is a member of an object literal ({ f() {}
 * }, { f: () => {} }): a method of the object, which no plain call f()
 * reaches (the name is no binding in any scope), except in the object a
 * CommonJS module exports, whose members are the module's functions that
 * others import by name (const { f } = require(...)).
 */
static int member_kind(struct kbx_walk *w, TSNode member)
{
	TSNode obj = _kbx_walk_up(w, member);
	if (ts_node_is_null(obj) || strcmp(ts_node_type(obj), "object"))
		return KBX_KIND_FUNCTION;  /* the method of a class without a name */
	TSNode assign = _kbx_walk_up(w, obj);
	if (!ts_node_is_null(assign) && !strcmp(ts_node_type(assign), "assignment_expression")) {
		const char *left = _kbx_field_text(w, assign, "left");
		if (left && (!strcmp(left, "module.exports") || !strcmp(left, "exports")))
			return KBX_KIND_FUNCTION;
	}
	return KBX_KIND_METHOD;
}

/* x = function () {}, exports.x = ..., module.exports.x = ...,
 * Foo.prototype.x = ... */
static void visit_assignment(struct kbx_walk *w, TSNode n)
{
	TSNode left = _kbx_field(n, "left"), right = _kbx_field(n, "right");
	if (ts_node_is_null(left) || !is_function_value(right))
		return;
	const char *lt = ts_node_type(left);
	if (!strcmp(lt, "identifier")) {
		define_value(w, n, right, KBX_KIND_FUNCTION, _kbx_node_text(w, left));
		return;
	}
	if (strcmp(lt, "member_expression"))
		return;
	TSNode obj = _kbx_field(left, "object");
	const char *name = _kbx_field_text(w, left, "property");
	const char *ot = ts_node_is_null(obj) ? NULL : _kbx_node_text(w, obj);
	if (!ot || !name)
		return;
	if (!strcmp(ot, "exports") || !strcmp(ot, "module.exports")) {
		define_value(w, n, right, KBX_KIND_FUNCTION, name);
		return;
	}
	/* obj.x = function () {}, self.x = function y() {}, this.x = () =>
	 * ...: a method named by the property it is assigned to (y is a
	 * name only inside its own body), which obj.x() may call */
	if (!strcmp(ts_node_type(obj), "identifier") && _kbx_walk_parent(w) < 0 &&
	    !is_class_value(right)) {
		/* at file level, a member of that object: "panel.close" */
		mark_named(w, right);
		int sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, name, _kbx_join(w, ot, ".", name), -1,
					n);
		_kbx_walk_scope(w, sym);
		named_as(w, sym);
		return;
	}
	if (!strcmp(ts_node_type(obj), "identifier") || !strcmp(ts_node_type(obj), "this")) {
		define_value(w, n, right, KBX_KIND_METHOD, name);
		return;
	}
	if (strcmp(ts_node_type(obj), "member_expression"))
		return;
	const char *proto = _kbx_field_text(w, obj, "property");
	TSNode cls = _kbx_field(obj, "object");
	if (!proto || strcmp(proto, "prototype") || ts_node_is_null(cls) ||
	    strcmp(ts_node_type(cls), "identifier"))
		return;
	/* Foo.prototype.bar = function: method "Foo.bar", whatever the scope */
	const char *cname = _kbx_node_text(w, cls);
	if (!cname)
		return;
	int parent = -1;
	for (size_t i = 0; i < w->x->nsyms; i++)
		if (!strcmp(w->x->syms[i].qual, cname)) {
			parent = (int)i;
			break;
		}
	const char *q = _kbx_join(w, cname, ".", name);
	mark_named(w, right);
	int sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, name, q, parent, n);
	_kbx_walk_scope(w, sym);
	named_as(w, sym);
}

/*
 * Entering the function n: its type parameters, what `this` is inside
 * it, and its parameters, bound in its scope when it has one (scoped)
 * and else in the enclosing one until the walk leaves it.
 */
/* TypeScript's function f(this: T, ...): `this` in the function n is a T
 * whatever it is called on; note it in n's frame (the last pushed). */
static void declare_this(struct kbx_walk *w, TSNode n)
{
	struct js_state *st = w->lang_state;
	TSNode ps = _kbx_field(n, "parameters");
	if (!st || !st->typescript || !st->nframes || ts_node_is_null(ps) ||
	    !ts_node_named_child_count(ps))
		return;
	TSNode p = ts_node_named_child(ps, 0);
	TSNode pat = _kbx_field(p, "pattern"), ty = _kbx_field(p, "type");
	if (!_kbx_is(p, "required_parameter") || !_kbx_is(pat, "this") || ts_node_is_null(ty))
		return;
	const char *type = ts_type(w, ty);
	st->frames[st->nframes - 1].this_type = type ? type : "?";
}

static const char *callback_types(struct kbx_walk *w, TSNode n);

/* The type the function or signature n says it returns, or NULL. */
static const char *returns_of(struct kbx_walk *w, TSNode n)
{
	TSNode rt = _kbx_field(n, "return_type");
	const char *t = ts_node_is_null(rt) ? NULL : ts_type(w, ts_node_named_child(rt, 0));
	return t == TYPE_NULLISH ? NULL : t;
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Does function or method n come after signatures of its name
 * (TypeScript's overloads: function f(x: A): B; ... function f(x) {})
 * that say another result or other callback types than its own, rt and
 * cb? */
static int has_overloads(struct kbx_walk *w, TSNode n, const char *rt, const char *cb)
{
	const char *t = ts_node_type(n), *sig;
	if (!strcmp(t, "function_declaration"))
		sig = "function_signature";
	else if (!strcmp(t, "method_definition"))
		sig = "method_signature";
	else
		return 0;
	const char *name = _kbx_field_text(w, n, "name");
	TSNode parent = _kbx_walk_up(w, n);
	if (!name || ts_node_is_null(parent))
		return 0;
	int exported = !strcmp(ts_node_type(parent), "export_statement");
	TSNode list = exported ? _kbx_walk_up(w, parent) : parent;
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(list, i);
		if (!strcmp(ts_node_type(c), "export_statement"))
			c = _kbx_field(c, "declaration");
		if (ts_node_is_null(c) || strcmp(ts_node_type(c), sig))
			continue;
		const char *other = _kbx_field_text(w, c, "name");
		if (other && !strcmp(other, name) &&
		    (!same_str(returns_of(w, c), rt) || !same_str(callback_types(w, c), cb)))
			return 1;
	}
	return 0;
}

static void enter_function(struct kbx_walk *w, TSNode n, int scoped, int this_kind)
{
	struct js_state *st = w->lang_state;
	if (this_kind != THIS_INHERITED) {
		push_frame(w, n, this_kind, CLASS_NONE);
		declare_this(w, n);
	}
	if (st && !scoped)
		_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
	if (st)
		_kbx_jsc_tparams_push(w, &st->tparams, n, _kbx_field(n, "type_parameters"));
	/* what a TypeScript function says it returns (kbx_xsym.ret_type), a
	 * class or interface by its name, not one of its type parameters,
	 * and what it says its callbacks' parameters are (cb_types); nothing
	 * for one with overloads that say otherwise, whose calls the checker
	 * binds to a signature by their arguments */
	struct kbx_xsym *sym = st && st->typescript && scoped && w->nscope ?
			       &w->x->syms[w->scope_sym[w->nscope - 1]] : NULL;
	if (sym && sym->line == _kbx_node_line(n)) {
		const char *rt = returns_of(w, n), *cb = callback_types(w, n);
		if (!has_overloads(w, n, rt, cb)) {
			sym->ret_type = rt;
			sym->cb_types = cb;
		}
	}
	bind_params(w, n);
}

/* A function value, defined where it was named or, with a name of its
 * own, here (function f() {} as an argument); an arrow keeps `this`. */
static void visit_function_value(struct kbx_walk *w, TSNode n, int arrow)
{
	struct js_state *st = w->lang_state;
	int scoped;
	if (already_named(w, n))
		scoped = st->named_scoped;
	else if (arrow)
		scoped = 0;
	else {
		int sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION, _kbx_field_text(w, n, "name"), 1);
		/* a named function expression is a value (an argument, a
		 * return value): its name is seen only inside it, and it is
		 * called through where the value goes */
		if (sym >= 0)
			w->x->syms[sym].flags |= KBX_SYM_IMPLICIT;
		scoped = sym >= 0;
	}
	enter_function(w, n, scoped, arrow ? THIS_INHERITED : THIS_OTHER);
}

int _kbx_js_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	_kbx_js_enter(w, n);
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "assignment_expression"))
			visit_assignment(w, n);
		else if (!strcmp(type, "arrow_function"))
			visit_function_value(w, n, 1);
		break;
	case 'b':
		if (!strcmp(type, "binary_expression"))
			visit_instanceof(w, n);
		break;
	case 'c':
		if (!strcmp(type, "call_expression")) {
			visit_call(w, n);
		} else if (!strcmp(type, "class_declaration") || !strcmp(type, "class")) {
			/* an anonymous class defines nothing: its methods become
			 * functions of the enclosing scope */
			if (!already_named(w, n))
				_kbx_js_define_class(w, n, n, KBX_KIND_CLASS,
						     _kbx_field_text(w, n, "name"));
		} else if (!strcmp(type, "catch_clause")) {
			TSNode p = _kbx_field(n, "parameter");
			if (!ts_node_is_null(p))
				bind_pattern(w, p);
		} else if (!strcmp(type, "class_static_block")) {
			push_frame(w, n, THIS_OTHER, CLASS_NONE);
		}
		break;
	case 'e':
		if (!strcmp(type, "export_statement")) {
			const char *module = _kbx_jsc_string_value(w, _kbx_field(n, "source"));
			if (module) {
				visit_reexport(w, n, module);
				return KBX_WALK_SKIP;
			}
			/* export default function () {}: the module's "default" */
			TSNode v = _kbx_field(n, "value");
			if ((is_function_value(v) || is_class_value(v)) &&
			    ts_node_is_null(_kbx_field(v, "name")))
				define_value(w, n, v, KBX_KIND_FUNCTION, "default");
		}
		break;
	case 'f':
		if (!strcmp(type, "function_declaration")) {
			int sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION,
						   _kbx_field_text(w, n, "name"), 1);
			enter_function(w, n, sym >= 0, THIS_OTHER);
		} else if (!strcmp(type, "function_expression") || !strcmp(type, "function")) {
			visit_function_value(w, n, 0);
		} else if (!strcmp(type, "field_definition")) {
			_kbx_js_visit_field(w, n, "property");
		} else if (!strcmp(type, "for_in_statement")) {
			/* for (const x of xs): a value of no stated type */
			TSNode left = _kbx_field(n, "left");
			if (!ts_node_is_null(left))
				bind_pattern(w, left);
		}
		break;
	case 'g':
		if (!strcmp(type, "generator_function")) {
			visit_function_value(w, n, 0);
		} else if (!strcmp(type, "generator_function_declaration")) {
			int sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION,
						   _kbx_field_text(w, n, "name"), 1);
			enter_function(w, n, sym >= 0, THIS_OTHER);
		}
		break;
	case 'i':
		if (!strcmp(type, "import_statement")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 'j':
		if (!strcmp(type, "jsx_opening_element") || !strcmp(type, "jsx_self_closing_element"))
			visit_jsx(w, n);
		break;
	case 'm':
		if (!strcmp(type, "method_definition")) {
			int sym = _kbx_walk_define(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD :
						   member_kind(w, n),
						   member_name(w, _kbx_field(n, "name")), 1);
			enter_function(w, n, sym >= 0, member_this(w, n));
		}
		break;
	case 'n':
		if (!strcmp(type, "new_expression"))
			visit_new(w, n);
		break;
	case 'p':
		if (!strcmp(type, "pair")) {
			TSNode v = _kbx_field(n, "value");
			if (is_function_value(v))
				define_value(w, n, v, member_kind(w, n),
					     member_name(w, _kbx_field(n, "key")));
		}
		break;
	case 'v':
		if (!strcmp(type, "variable_declarator")) {
			TSNode name = _kbx_field(n, "name");
			TSNode v = _kbx_field(n, "value");
			if (!ts_node_is_null(name))
				bind_declarator(w, n);
			if (ts_node_is_null(name) || ts_node_is_null(v))
				break;
			if ((is_function_value(v) || is_class_value(v)) &&
			    !strcmp(ts_node_type(name), "identifier"))
				define_value(w, n, v, KBX_KIND_FUNCTION, _kbx_node_text(w, name));
			else
				bound_require(w, n, v);
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

static const char *const js_exts[] = {
	".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".d.ts", NULL
};
static const char *const ts_exts[] = {
	".ts", ".tsx", ".d.ts", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", NULL
};

void _kbx_js_import_candidates(const char *importer, const struct kbx_ximport *imp,
			       struct kbx_pathlist *out)
{
	const char *m = imp->module;
	char dir[4096], base[4096];
	if (!m || !*m)
		return;
	if (m[0] == '.') {
		_kbx_path_dirname(dir, sizeof(dir), importer);
		if (_kbx_path_join(base, sizeof(base), dir, m))
			return;
	} else if (m[0] == '/') {
		if (_kbx_path_join(base, sizeof(base), "", m))
			return;
	} else {
		return;  /* a package from node_modules, or a path alias we cannot see */
	}
	int ts = _kbx_has_suffix(importer, ".ts") || _kbx_has_suffix(importer, ".tsx") ||
		 _kbx_has_suffix(importer, ".mts") || _kbx_has_suffix(importer, ".cts");
	const char *const *exts = ts ? ts_exts : js_exts;
	const char *slash = strrchr(base, '/');
	const char *dot = strrchr(slash ? slash + 1 : base, '.');
	int code = 0;
	if (dot) {
		_kbx_pathlist_add(out, base);
		for (size_t i = 0; js_exts[i]; i++)
			if (!strcmp(dot, js_exts[i]))
				code = 1;
		/* TypeScript sources are imported under the name of the emitted
		 * JavaScript: "./a.js" may be a.ts */
		size_t stem = (size_t)(dot - base);
		if (!strcmp(dot, ".js") || !strcmp(dot, ".jsx")) {
			_kbx_pathlist_addf(out, "%.*s.ts", (int)stem, base);
			_kbx_pathlist_addf(out, "%.*s.tsx", (int)stem, base);
		} else if (!strcmp(dot, ".mjs")) {
			_kbx_pathlist_addf(out, "%.*s.mts", (int)stem, base);
		} else if (!strcmp(dot, ".cjs")) {
			_kbx_pathlist_addf(out, "%.*s.cts", (int)stem, base);
		}
	}
	if (code)
		return;
	if (*base)
		for (size_t i = 0; exts[i]; i++)
			_kbx_pathlist_addf(out, "%s%s", base, exts[i]);
	for (size_t i = 0; exts[i]; i++)
		_kbx_pathlist_addf(out, "%s%sindex%s", base, *base ? "/" : "", exts[i]);
}

static const char *const javascript_extensions[] = { ".js", ".mjs", ".cjs", ".jsx", NULL };

const struct kbx_lang _kbx_lang_javascript = {
	.name = "javascript",
	.extensions = javascript_extensions,
	.grammar = kbx_tree_sitter_javascript,
	.visit = _kbx_js_visit,
	.begin = _kbx_js_begin,
	.end = _kbx_js_end,
	.import_candidates = _kbx_js_import_candidates,
	.implicit_self = 0,
	.nested_defs = 1,
	.scope_sep = ".",
	.visibility = _kbx_js_visibility,
};
