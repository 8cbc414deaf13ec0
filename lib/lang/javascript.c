/*
 * JavaScript and JSX: classes, functions (declared, or function and arrow
 * expressions bound to a name), methods, ES imports and re-exports,
 * CommonJS require(), and calls including `new` and JSX components.
 *
 * TypeScript (lib/lang/typescript.c) handles its own node types and hands
 * everything else to _kbx_js_visit.  This file also holds the text helpers
 * declared in js-common.h that the Java, C# and Ruby extractors share.
 */
#include <stdlib.h>
#include <string.h>

#include "js-common.h"

const TSLanguage *tree_sitter_javascript(void);

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

/* ---- JavaScript ---- */

struct js_state {
	/* Start byte + 1 of a function or class expression that a declarator,
	 * pair, assignment, field or default export has already defined under
	 * its own name, so that the expression does not define it again. */
	uint32_t named_value;
	/* Start byte + 1 of a require() call already reported as a bound import. */
	uint32_t bound_require;
};

void _kbx_js_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct js_state));
}

void _kbx_js_end(struct kbx_walk *w)
{
	free(w->lang_state);
	w->lang_state = NULL;
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
	if (st)
		st->named_value = ts_node_start_byte(v) + 1;
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

int _kbx_js_define_class(struct kbx_walk *w, TSNode at, TSNode cls, int kind, const char *name)
{
	int sym = _kbx_walk_define(w, at, kind, name, 1);
	if (sym < 0)
		return sym;
	uint32_t count = ts_node_named_child_count(cls);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(cls, i);
		const char *t = ts_node_type(c);
		if (!strcmp(t, "class_heritage") || !strcmp(t, "extends_type_clause"))
			add_bases(w, sym, c);
	}
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
		_kbx_walk_call(w, n, _kbx_node_text(w, fn), KBX_RECV_NONE, NULL);
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
		_kbx_walk_call(w, n, _kbx_node_text(w, prop), recv, text);
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
		_kbx_walk_call(w, n, _kbx_node_text(w, ctor), KBX_RECV_NONE, NULL);
	} else if (!strcmp(t, "member_expression")) {
		TSNode obj = _kbx_field(ctor, "object");
		const char *text = _kbx_jsc_clean_text(w, obj, KBX_JSC_NONNULL);
		if (text)
			_kbx_walk_call(w, n, _kbx_field_text(w, ctor, "property"), KBX_RECV_EXPR,
				       text);
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
		_kbx_js_define_class(w, at, v, KBX_KIND_CLASS, name);
	else
		_kbx_walk_define(w, at, kind, name, 1);
}

void _kbx_js_visit_field(struct kbx_walk *w, TSNode n, const char *name_field)
{
	TSNode v = _kbx_field(n, "value");
	if (is_function_value(v) || is_class_value(v))
		define_value(w, n, v, _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION,
			     member_name(w, _kbx_field(n, name_field)));
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
}

int _kbx_js_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "assignment_expression"))
			visit_assignment(w, n);
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
			_kbx_walk_define(w, n, KBX_KIND_FUNCTION, _kbx_field_text(w, n, "name"), 1);
		} else if (!strcmp(type, "function_expression") || !strcmp(type, "function")) {
			if (!already_named(w, n))
				_kbx_walk_define(w, n, KBX_KIND_FUNCTION,
						 _kbx_field_text(w, n, "name"), 1);
		} else if (!strcmp(type, "field_definition")) {
			_kbx_js_visit_field(w, n, "property");
		}
		break;
	case 'g':
		if ((!strcmp(type, "generator_function") && !already_named(w, n)) ||
		    !strcmp(type, "generator_function_declaration"))
			_kbx_walk_define(w, n, KBX_KIND_FUNCTION, _kbx_field_text(w, n, "name"), 1);
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
		if (!strcmp(type, "method_definition"))
			_kbx_walk_define(w, n,
					 _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION,
					 member_name(w, _kbx_field(n, "name")), 1);
		break;
	case 'n':
		if (!strcmp(type, "new_expression"))
			visit_new(w, n);
		break;
	case 'p':
		if (!strcmp(type, "pair")) {
			TSNode v = _kbx_field(n, "value");
			if (is_function_value(v))
				define_value(w, n, v, KBX_KIND_FUNCTION,
					     member_name(w, _kbx_field(n, "key")));
		}
		break;
	case 'v':
		if (!strcmp(type, "variable_declarator")) {
			TSNode name = _kbx_field(n, "name");
			TSNode v = _kbx_field(n, "value");
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
	.grammar = tree_sitter_javascript,
	.visit = _kbx_js_visit,
	.begin = _kbx_js_begin,
	.end = _kbx_js_end,
	.import_candidates = _kbx_js_import_candidates,
	.implicit_self = 0,
	.scope_sep = ".",
	.visibility = _kbx_js_visibility,
};
