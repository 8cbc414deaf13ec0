/*
 * Dart: classes, mixins, enums, functions, methods, getters and setters,
 * constructors, and the methods of an extension named after the type it
 * extends (`extension on String { String shout() }` is String.shout);
 * calls with their receivers, Foo(...) and new Foo(...) as calls to Foo;
 * imports, exports and parts by their URI; the superclass, mixins and
 * interfaces a class lists.
 *
 * The grammar writes a function as two siblings, its signature and then
 * its body (function_signature or method_signature, then function_body):
 * the definition is made at the signature and its scope opened at the
 * body, which is where the parameters are bound.  Constructors are
 * named as Dart names them: the unnamed one "new" (Cart.new), a named
 * one by its name (Cart.empty); a redirection this(...) calls "new".
 * A local function (int twice(int x) => ... inside a body) is defined
 * inside its function, as in the other languages with nested_defs.
 * A getter or setter is called by reading or writing a property, and an
 * @override annotation says the method overrides: both are set here,
 * where the annotation (a sibling before the method) is seen.
 *
 * Expressions are written flat too: a primary and then its selectors
 * (cart, .add, (item)).  A selector holding arguments is a call of the
 * name the selector before it reads, on the receiver the ones before
 * that make; a cascade (cart..add(x)) calls on its target.
 *
 * The types of receivers come from what the source states: a parameter,
 * local or field declared with a type (`Item item`, `final Log log`,
 * `this.log` in a constructor's parameters takes the field's), an
 * initializer Foo(...) whose name starts with a capital letter, new and
 * const Foo(...), (x as Foo), a string literal.  `var x` without one, a
 * lambda's untyped parameter and a for-in variable are unknown.
 */
#include <ctype.h>
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_dart)

struct dt_state {
	/* the function whose signature was seen and whose body comes next,
	 * as a sibling at depth pending_depth */
	int pending;
	uint32_t pending_depth;
	TSNode pending_sig;
	/* annotations just seen, for the definition that follows them */
	uint32_t annot_depth;
	int annot_override, annot_other;
	/* the extension being walked: its methods are named after its type */
	const char *ext_type;
	uint32_t ext_end;
	struct _kbx_jsc_tparams tp;
	struct _kbx_jsc_unbinds unbinds;
};

static void dt_begin(struct kbx_walk *w)
{
	struct dt_state *st = calloc(1, sizeof(*st));
	if (st)
		st->pending = -1;
	w->lang_state = st;
}

static void dt_end(struct kbx_walk *w)
{
	struct dt_state *st = w->lang_state;
	if (st) {
		_kbx_jsc_tparams_release(&st->tp);
		_kbx_jsc_unbinds_release(&st->unbinds);
	}
	free(st);
	w->lang_state = NULL;
}

/* ---- types ---- */

static void push_tparams(struct kbx_walk *w, TSNode decl)
{
	struct dt_state *st = w->lang_state;
	if (st)
		_kbx_jsc_tparams_push(w, &st->tp, decl, _kbx_child_of_type(decl, "type_parameters"));
}

/* A written type as recv_type wants it: "Foo" for Foo<T>? (the grammar
 * gives the name alone), NULL for a type parameter, a function type,
 * void or anything else. */
static const char *type_text(struct kbx_walk *w, TSNode t)
{
	struct dt_state *st = w->lang_state;
	if (!_kbx_is(t, "type_identifier"))
		return NULL;
	const char *s = _kbx_node_text(w, t);
	/* empty: a MISSING node, which error recovery inserts */
	if (!s || !*s || (st && _kbx_jsc_tparams_has(&st->tp, t, s)))
		return NULL;
	return s;
}

/* The bytes from a's start to b's end on one line, in the arena:
 * white space dropped but one space between two word characters. */
static const char *range_text(struct kbx_walk *w, TSNode a, TSNode b)
{
	uint32_t s = ts_node_start_byte(a), e = ts_node_end_byte(b);
	if (e > w->len || s >= e)
		return NULL;
	if (e - s > 200)
		e = s + 200;
	char buf[256];
	size_t n = 0;
	for (uint32_t i = s; i < e; i++) {
		unsigned char c = (unsigned char)w->src[i];
		if (isspace(c)) {
			if (n && i + 1 < e && _kbx_word_char((unsigned char)buf[n - 1]) &&
			    _kbx_word_char((unsigned char)w->src[i + 1]))
				buf[n++] = ' ';
			continue;
		}
		buf[n++] = (char)c;
	}
	return n ? _kbx_arena_strndup(&w->x->arena, buf, n) : NULL;
}

/* The name a member selector reads (.f, ?.f), or NULL. */
static const char *member_name(struct kbx_walk *w, TSNode s)
{
	if (_kbx_is(s, "selector"))
		s = ts_node_named_child(s, 0);
	if (!_kbx_is(s, "unconditional_assignable_selector") &&
	    !_kbx_is(s, "conditional_assignable_selector"))
		return NULL;
	return _kbx_node_text(w, _kbx_child_of_type(s, "identifier"));
}

/* Does this selector hold arguments (a call)? */
static int is_call_selector(TSNode s)
{
	return _kbx_is(s, "selector") && _kbx_is(ts_node_named_child(s, 0), "argument_part");
}

/* The type a primary and its selectors state, v[0..n): Foo(...) with
 * Foo capitalised, new and const Foo(...), (x as Foo), a string
 * literal, this.field; NULL otherwise. */
static const char *run_type(struct kbx_walk *w, const TSNode *v, size_t n)
{
	if (!n)
		return NULL;
	TSNode p = v[0];
	if (n == 1) {
		if (_kbx_is(p, "string_literal"))
			return "String";
		if (_kbx_is(p, "new_expression") || _kbx_is(p, "const_object_expression"))
			return type_text(w, _kbx_child_of_type(p, "type_identifier"));
		if (_kbx_is(p, "parenthesized_expression")) {
			TSNode cast = _kbx_child_of_type(p, "type_cast_expression");
			TSNode tc = ts_node_is_null(cast) ? cast : _kbx_child_of_type(cast, "type_cast");
			return ts_node_is_null(tc) ? NULL :
				type_text(w, _kbx_child_of_type(tc, "type_identifier"));
		}
		return NULL;
	}
	if (n == 2 && _kbx_is(p, "identifier") && is_call_selector(v[1])) {
		const char *name = _kbx_node_text(w, p);
		return name && isupper((unsigned char)name[0]) ? name : NULL;
	}
	if (n == 2 && _kbx_is(p, "this")) {
		const char *field = member_name(w, v[1]);
		const char *type = NULL;
		if (field)
			_kbx_walk_bound(w, field, 1, &type);
		return type;
	}
	return NULL;
}

#define MAX_RUN 64

/* The named children of parent up to and including the one that starts
 * at byte `at`, the last MAX_RUN of them, into v; how many. */
static size_t children_until(TSNode parent, uint32_t at, TSNode *v)
{
	size_t n = 0;
	TSTreeCursor c = ts_tree_cursor_new(parent);
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			TSNode k = ts_tree_cursor_current_node(&c);
			if (!ts_node_is_named(k))
				continue;
			if (n == MAX_RUN) {
				memmove(v, v + 1, (MAX_RUN - 1) * sizeof(*v));
				n--;
			}
			v[n++] = k;
			if (ts_node_start_byte(k) >= at)
				break;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return n;
}

/* The primary that starts the run of selectors ending at v[end]. */
static size_t run_start(const TSNode *v, size_t end)
{
	size_t s = end;
	while (s > 0 && (_kbx_is(v[s], "selector") ||
			 _kbx_is(v[s], "unconditional_assignable_selector")))
		s--;
	return s;
}

/* A call on receiver v[0..n), of name, at node at. */
static void call_on(struct kbx_walk *w, TSNode at, const char *name, const TSNode *v, size_t n)
{
	if (n == 1 && _kbx_is(v[0], "this")) {
		_kbx_walk_call(w, at, name, KBX_RECV_SELF, NULL);
		return;
	}
	if (n == 1 && _kbx_is(v[0], "super")) {
		_kbx_walk_call(w, at, name, KBX_RECV_SUPER, NULL);
		return;
	}
	const char *text = range_text(w, v[0], v[n - 1]);
	if (text)
		_kbx_walk_call_typed(w, at, name, KBX_RECV_EXPR, text, run_type(w, v, n));
}

/* A selector with arguments: the call of what the selectors before it
 * name. */
static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode v[MAX_RUN];
	size_t k = children_until(_kbx_walk_up(w, n), ts_node_start_byte(n), v);
	if (k < 2 || !ts_node_eq(v[k - 1], n))
		return;
	TSNode prev = v[k - 2];
	if (_kbx_is(prev, "identifier") && (k == 2 || !_kbx_is(v[k - 3], "selector"))) {
		_kbx_walk_call(w, n, _kbx_node_text(w, prev), KBX_RECV_NONE, NULL);
		return;
	}
	const char *name = member_name(w, prev);
	if (!name || k < 3)
		return;   /* f()(), (a ?? b)(): a call through a value */
	size_t s = run_start(v, k - 3);
	call_on(w, n, name, v + s, k - 2 - s);
}

/* cart..add(x)..total(): calls on the cascade's target. */
static void visit_cascade(struct kbx_walk *w, TSNode n)
{
	if (ts_node_is_null(_kbx_child_of_type(n, "argument_part")))
		return;
	TSNode sel = _kbx_child_of_type(n, "cascade_selector");
	const char *name = ts_node_is_null(sel) ? NULL :
		_kbx_node_text(w, _kbx_child_of_type(sel, "identifier"));
	TSNode v[MAX_RUN];
	size_t k = children_until(_kbx_walk_up(w, n), ts_node_start_byte(n), v);
	size_t first = 0;
	while (first < k && !_kbx_is(v[first], "cascade_section"))
		first++;
	if (name && first > 0 && first < k)
		call_on(w, n, name, v, first);
}

/* new Foo(...), const Foo(...): a call to Foo (new Foo.named(): named,
 * on Foo). */
static void visit_new(struct kbx_walk *w, TSNode n)
{
	TSNode t = _kbx_child_of_type(n, "type_identifier");
	const char *type = type_text(w, t);
	if (!type)
		return;
	TSNode named = _kbx_child_of_type(n, "identifier");
	if (!ts_node_is_null(named) && ts_node_start_byte(named) > ts_node_start_byte(t))
		_kbx_walk_call(w, n, _kbx_node_text(w, named), KBX_RECV_EXPR, type);
	else
		_kbx_walk_call(w, n, type, KBX_RECV_NONE, NULL);
}

/* ---- bindings ---- */

/* The declared type among a declaration's children before its name. */
static const char *declared_type(struct kbx_walk *w, TSNode decl, TSNode name)
{
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(decl, i);
		if (ts_node_start_byte(c) >= ts_node_start_byte(name))
			break;
		if (_kbx_is(c, "type_identifier"))
			return type_text(w, c);
	}
	return NULL;
}

/* The type of the value run that follows name among decl's children. */
static const char *value_after(struct kbx_walk *w, TSNode decl, TSNode name)
{
	TSNode v[MAX_RUN];
	size_t n = 0;
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count && n < MAX_RUN; i++) {
		TSNode c = ts_node_named_child(decl, i);
		if (ts_node_start_byte(c) > ts_node_start_byte(name))
			v[n++] = c;
	}
	return run_type(w, v, n);
}

/* Item item = ..., var cart = Cart(...), final Log log: bind name. */
static void bind_declared(struct kbx_walk *w, TSNode decl, TSNode name, int field)
{
	if (!_kbx_is(name, "identifier"))
		return;
	const char *type = declared_type(w, decl, name);
	if (!type)
		type = value_after(w, decl, name);
	if (field)
		_kbx_walk_bind_field(w, _kbx_node_text(w, name), type);
	else
		_kbx_walk_bind(w, _kbx_node_text(w, name), type);
}

/* The parameters of a formal_parameter_list (and its optional
 * groups): `Item item`, `this.log` (the field's type), `x`. */
static void bind_params(struct kbx_walk *w, TSNode list)
{
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		if (_kbx_is(p, "optional_formal_parameters")) {
			bind_params(w, p);
			continue;
		}
		if (!_kbx_is(p, "formal_parameter"))
			continue;
		TSNode cp = _kbx_child_of_type(p, "constructor_param");
		if (!ts_node_is_null(cp)) {
			const char *field = _kbx_node_text(w, _kbx_child_of_type(cp, "identifier"));
			const char *type = NULL;
			if (field) {
				_kbx_walk_bound(w, field, 1, &type);
				_kbx_walk_bind(w, field, type);
			}
			continue;
		}
		TSNode name = _kbx_field(p, "name");
		if (ts_node_is_null(name))
			name = _kbx_child_of_type(p, "identifier");
		if (!ts_node_is_null(name))
			_kbx_walk_bind(w, _kbx_node_text(w, name), declared_type(w, p, name));
	}
}

/* The fields of a class body, bound when the class opens. */
static void bind_fields(struct kbx_walk *w, TSNode body)
{
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(body, i);
		if (!_kbx_is(d, "declaration"))
			continue;
		TSNode list = _kbx_child_of_type(d, "initialized_identifier_list");
		if (ts_node_is_null(list))
			list = _kbx_child_of_type(d, "identifier_list");
		uint32_t nl = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
		for (uint32_t k = 0; k < nl; k++) {
			TSNode id = ts_node_named_child(list, k);
			TSNode name = _kbx_is(id, "identifier") ? id : _kbx_child_of_type(id, "identifier");
			if (ts_node_is_null(name))
				continue;
			const char *type = declared_type(w, d, list);
			if (!type && !_kbx_is(id, "identifier"))
				type = value_after(w, id, name);
			_kbx_walk_bind_field(w, _kbx_node_text(w, name), type);
		}
	}
}

/* for (Item i in items), for (final i in items): the element's type
 * only where it is declared. */
static void visit_for_in(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	if (_kbx_is(name, "identifier"))
		_kbx_walk_bind(w, _kbx_node_text(w, name), declared_type(w, n, name));
}

/* ---- definitions ---- */

/* Every type_identifier child of n, as bases of sym. */
static void add_bases_in(struct kbx_walk *w, int sym, TSNode n)
{
	uint32_t count = ts_node_is_null(n) ? 0 : ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode t = ts_node_named_child(n, i);
		const char *base = type_text(w, t);
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(t));
		else if (_kbx_is(t, "mixins"))
			add_bases_in(w, sym, t);
	}
}

static void define_type(struct kbx_walk *w, TSNode n, int kind, const char *name)
{
	if (!name)
		return;
	push_tparams(w, n);
	int sym = _kbx_walk_define(w, n, kind, name, 1);
	if (sym < 0)
		return;
	if (_kbx_is(n, "mixin_declaration")) {
		add_bases_in(w, sym, n);   /* mixin M on Base implements I */
	} else {
		add_bases_in(w, sym, _kbx_field(n, "superclass"));
		add_bases_in(w, sym, _kbx_field(n, "interfaces"));
	}
	TSNode body = _kbx_field(n, "body");
	if (ts_node_is_null(body))
		body = _kbx_child_of_type(n, "class_body");
	bind_fields(w, body);
}

/* The name of a constructor's signature: Cart() is "new", Cart.empty()
 * "empty"; NULL when it has no name. */
static const char *constructor_name(struct kbx_walk *w, TSNode sig)
{
	TSNode last = { 0 };
	int names = 0;
	uint32_t count = ts_node_named_child_count(sig);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(sig, i);
		if (_kbx_is(c, "identifier")) {
			last = c;
			names++;
		}
	}
	if (!names)
		return NULL;
	return names == 1 ? "new" : _kbx_node_text(w, last);
}

/* A signature: define the function, method, getter, setter or
 * constructor, and wait for its body. */
static void visit_signature(struct kbx_walk *w, TSNode n, const char *type)
{
	struct dt_state *st = w->lang_state;
	TSNode up = _kbx_walk_up(w, n);
	/* a local function is a lambda_expression under a
	 * local_function_declaration, its body the signature's sibling */
	int local = _kbx_is(up, "lambda_expression") &&
		    _kbx_is(_kbx_walk_up(w, up), "local_function_declaration");
	if (!st || (!local && !_kbx_is(up, "method_signature") && !_kbx_is(up, "declaration") &&
		    !_kbx_is(up, "program") && !_kbx_is(up, "class_body") &&
		    !_kbx_is(up, "extension_body")))
		return;   /* a function type's, a lambda's */
	push_tparams(w, n);
	const char *name;
	if (!strcmp(type, "constructor_signature") ||
	    !strcmp(type, "factory_constructor_signature") ||
	    !strcmp(type, "redirecting_factory_constructor_signature"))
		name = constructor_name(w, n);
	else
		name = _kbx_field_text(w, n, "name");
	if (!name)
		return;   /* operator == */
	int kind = _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION;
	int sym;
	if (st->ext_type && ts_node_start_byte(n) < st->ext_end) {
		const char *qual = _kbx_join(w, st->ext_type, ".", name);
		if (!qual || qual == _kbx_qual_too_long)
			return;
		sym = _kbx_jsc_define_dotted(w, n, kind, qual, 0);
	} else {
		sym = _kbx_walk_define(w, n, kind, name, 0);
	}
	if (sym < 0)
		return;
	struct kbx_xsym *s = &w->x->syms[sym];
	if (!strcmp(type, "getter_signature") || !strcmp(type, "setter_signature"))
		s->flags |= KBX_SYM_IMPLICIT;
	uint32_t decl_depth = _kbx_is(up, "method_signature") || _kbx_is(up, "declaration") ?
		w->depth - 1 : w->depth;
	if (st->annot_depth == decl_depth) {
		if (st->annot_override)
			s->flags |= KBX_SYM_OVERRIDE;
		if (st->annot_other)
			s->flags |= KBX_SYM_IMPLICIT;
	}
	st->pending = sym;
	st->pending_sig = n;
	/* the body is the method_signature's sibling, or the signature's;
	 * a declaration's initializers are the signature's */
	st->pending_depth = _kbx_is(up, "method_signature") ? w->depth - 1 : w->depth;
}

/* The body (or a constructor's initializers) of the pending function. */
static void open_body(struct kbx_walk *w, TSNode n)
{
	struct dt_state *st = w->lang_state;
	int sym = st->pending;
	_kbx_walk_scope(w, sym);
	_kbx_sym_extend(w, sym, n);
	TSNode list = _kbx_child_of_type(st->pending_sig, "formal_parameter_list");
	if (ts_node_is_null(list))
		list = _kbx_field(st->pending_sig, "parameters");
	bind_params(w, list);
	if (!_kbx_is(n, "initializers"))
		st->pending = -1;
}

/* (a, Item b) => ...: its parameters, until its end. */
static void visit_lambda(struct kbx_walk *w, TSNode n)
{
	struct dt_state *st = w->lang_state;
	if (!st)
		return;
	_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
	bind_params(w, _kbx_field(n, "parameters"));
}

/* ---- imports ---- */

/* The URI of a directive: the text of its string literal. */
static const char *uri_of(struct kbx_walk *w, TSNode n)
{
	TSNode cu = _kbx_child_of_type(n, "configurable_uri");
	TSNode uri = _kbx_child_of_type(ts_node_is_null(cu) ? n : cu, "uri");
	TSNode lit = ts_node_is_null(uri) ? uri : _kbx_child_of_type(uri, "string_literal");
	const char *t = _kbx_node_text(w, lit);
	size_t len = t ? strlen(t) : 0;
	if (len < 2 || (t[0] != '\'' && t[0] != '"') || t[len - 1] != t[0])
		return NULL;   /* an interpolated or raw literal */
	return _kbx_arena_strndup(&w->x->arena, t + 1, len - 2);
}

/* import 'u' [as p] [show A, B] [hide C];  export 'u';  part 'u' */
static void visit_import(struct kbx_walk *w, TSNode n)
{
	TSNode spec = _kbx_child_of_type(n, "import_specification");
	TSNode at = ts_node_is_null(spec) ? n : spec;
	const char *uri = uri_of(w, at);
	if (!uri || !*uri)
		return;
	uint32_t line = _kbx_node_line(n);
	const char *prefix = NULL;
	int shown = 0;
	uint32_t count = ts_node_named_child_count(at);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(at, i);
		if (_kbx_is(c, "identifier"))
			prefix = _kbx_node_text(w, c);
		else if (_kbx_is(c, "combinator") && _kbx_has_token(c, "show"))
			shown = 1;
	}
	if (prefix) {
		_kbx_x_import(w->x, uri, NULL, prefix, 0, 0, line);
		return;
	}
	if (!shown) {
		_kbx_x_import(w->x, uri, NULL, NULL, 0, KBX_IMPORT_WILDCARD, line);
		return;
	}
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(at, i);
		if (!_kbx_is(c, "combinator") || !_kbx_has_token(c, "show"))
			continue;
		uint32_t nc = ts_node_named_child_count(c);
		for (uint32_t k = 0; k < nc; k++) {
			TSNode id = ts_node_named_child(c, k);
			if (_kbx_is(id, "identifier"))
				_kbx_x_import(w->x, uri, _kbx_node_text(w, id), NULL, 0, 0, line);
		}
	}
}

/* ---- the walk ---- */

/* Annotations before a definition: @override, or another (a framework's). */
static void visit_annotation(struct kbx_walk *w, TSNode n)
{
	struct dt_state *st = w->lang_state;
	const char *name = _kbx_field_text(w, n, "name");
	if (!st || !name)
		return;
	if (st->annot_depth != w->depth) {
		st->annot_depth = w->depth;
		st->annot_override = st->annot_other = 0;
	}
	if (!strcmp(name, "override"))
		st->annot_override = 1;
	else if (strcmp(name, "deprecated") && strcmp(name, "Deprecated"))
		st->annot_other = 1;
}

static int dt_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct dt_state *st = w->lang_state;
	if (st) {
		_kbx_jsc_unbind_leave(w, &st->unbinds, n);
		if (st->ext_type && ts_node_start_byte(n) >= st->ext_end)
			st->ext_type = NULL;
		if (st->pending >= 0 && w->depth <= st->pending_depth &&
		    (w->depth < st->pending_depth ||
		     (strcmp(type, "function_body") && strcmp(type, "initializers") &&
		      strcmp(type, "redirection"))))
			st->pending = -1;
		if (st->pending >= 0 && w->depth == st->pending_depth)
			open_body(w, n);
		if (w->depth < st->annot_depth ||
		    (w->depth == st->annot_depth && strcmp(type, "marker_annotation") &&
		     strcmp(type, "annotation") && strcmp(type, "declaration") &&
		     !_kbx_has_suffix(type, "_signature")))
			st->annot_depth = 0;
	}
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "annotation"))
			visit_annotation(w, n);
		break;
	case 'c':
		if (!strcmp(type, "class_definition"))
			define_type(w, n, KBX_KIND_CLASS, _kbx_field_text(w, n, "name"));
		else if (!strcmp(type, "cascade_section"))
			visit_cascade(w, n);
		else if (!strcmp(type, "constructor_signature"))
			visit_signature(w, n, type);
		else if (!strcmp(type, "const_object_expression"))
			visit_new(w, n);
		break;
	case 'e':
		if (!strcmp(type, "enum_declaration")) {
			define_type(w, n, KBX_KIND_ENUM, _kbx_field_text(w, n, "name"));
		} else if (!strcmp(type, "extension_declaration") && st) {
			st->ext_type = type_text(w, _kbx_field(n, "class"));
			st->ext_end = ts_node_end_byte(n);
		}
		break;
	case 'f':
		if (!strcmp(type, "function_signature") ||
		    !strcmp(type, "factory_constructor_signature"))
			visit_signature(w, n, type);
		else if (!strcmp(type, "function_expression"))
			visit_lambda(w, n);
		else if (!strcmp(type, "for_statement") && st)
			_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
		else if (!strcmp(type, "for_loop_parts"))
			visit_for_in(w, n);
		break;
	case 'g':
		if (!strcmp(type, "getter_signature"))
			visit_signature(w, n, type);
		break;
	case 'i':
		if (!strcmp(type, "import_or_export")) {
			TSNode d = ts_node_named_child(n, 0);
			if (!ts_node_is_null(d))
				visit_import(w, d);
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "initialized_variable_definition"))
			bind_declared(w, n, _kbx_field(n, "name"), 0);
		break;
	case 'l':
		if (!strcmp(type, "library_name"))
			return KBX_WALK_SKIP;
		break;
	case 'm':
		if (!strcmp(type, "mixin_declaration"))
			define_type(w, n, KBX_KIND_TRAIT,
				    _kbx_node_text(w, _kbx_child_of_type(n, "identifier")));
		else if (!strcmp(type, "marker_annotation"))
			visit_annotation(w, n);
		break;
	case 'n':
		if (!strcmp(type, "new_expression"))
			visit_new(w, n);
		break;
	case 'p':
		if (!strcmp(type, "part_directive") || !strcmp(type, "part_of_directive")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 'r':
		if (!strcmp(type, "redirection"))
			_kbx_walk_call(w, n, "new",
				       _kbx_has_token(n, "super") ? KBX_RECV_SUPER : KBX_RECV_SELF, NULL);
		break;
	case 's':
		if (!strcmp(type, "selector") && is_call_selector(n))
			visit_call(w, n);
		else if (!strcmp(type, "setter_signature"))
			visit_signature(w, n, type);
		else if (!strcmp(type, "static_final_declaration"))
			bind_declared(w, n, _kbx_child_of_type(n, "identifier"), 0);
		break;
	case 't':
		if (!strcmp(type, "type_alias"))
			return KBX_WALK_SKIP;
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * import 'a/b.dart' and '../c.dart' are paths from the importer's
 * directory; 'package:NAME/x.dart' is lib/x.dart beside the pubspec.yaml
 * that says `name: NAME` (read by the resolver through module_path), and
 * no file here when no pubspec of the repository does; 'dart:io' is the
 * SDK's.
 */
static void dt_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	char dir[4096], path[4096];
	const char *uri = imp->module;
	if (!uri || !*uri || strchr(uri, ':'))
		return;
	_kbx_path_dirname(dir, sizeof(dir), importer);
	if (uri[0] == '/')
		uri++;   /* from the top of the package: rare, but not outside it */
	if (!_kbx_path_join(path, sizeof(path), dir, uri))
		_kbx_pathlist_add(out, path);
}

/* pubspec.yaml: `name: shop` at the start of a line declares the
 * package:shop/ URIs. */
static int dt_module_path(const char *text, size_t len, char *out, size_t outsz)
{
	size_t i = 0;
	while (i < len) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		if (e - i > 5 && !memcmp(text + i, "name:", 5)) {
			size_t s = i + 5;
			while (s < e && (text[s] == ' ' || text[s] == '\t' || text[s] == '\'' ||
					 text[s] == '"'))
				s++;
			size_t k = s;
			while (k < e && (islower((unsigned char)text[k]) ||
					 isdigit((unsigned char)text[k]) || text[k] == '_'))
				k++;
			if (k == s || k - s + 9 > outsz)
				return -1;
			memcpy(out, "package:", 8);
			memcpy(out + 8, text + s, k - s);
			out[8 + k - s] = '\0';
			return 0;
		}
		i = e + 1;
	}
	return -1;
}

static const char *const dart_extensions[] = { ".dart", NULL };

const struct kbx_lang _kbx_lang_dart = {
	.name = "dart",
	.extensions = dart_extensions,
	.grammar = kbx_tree_sitter_dart,
	.visit = dt_visit,
	.begin = dt_begin,
	.end = dt_end,
	.import_candidates = dt_import_candidates,
	.module_file = "pubspec.yaml",
	.module_path = dt_module_path,
	.module_dir = "lib",
	.implicit_self = 1,
	.nested_defs = 1,
	.extension_functions = 1,
	.scope_sep = ".",
	.visibility = _kbx_dart_visibility,
};
