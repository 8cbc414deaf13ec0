/*
 * Scala (2 and 3): classes, case classes, objects, traits and enums
 * (nested ones qualified by their outer type), functions, methods, and
 * the methods of a Scala 3 extension named after the type it extends
 * (`extension (s: String) def shout()` is String.shout); calls with
 * their receivers, Foo(...) and new Foo(...) as calls to Foo; imports
 * (selectors, renames, wildcards) and the types a class extends.
 *
 * An object that shares its name with a class, trait or enum of the same
 * scope is that type's companion: its members are the type's own, so
 * Cart.empty() is Cart.empty whichever of the two defines it.  The
 * statements of a class or object body run when it is constructed:
 * their calls belong to its "<init>".  Methods of an anonymous class
 * (`new T { def f() }`) are no definitions: like lambdas, their calls
 * belong to the enclosing function.  An auxiliary constructor is
 * "this"; the this(...) it starts with calls the primary one, "<init>".
 *
 * The types of receivers come from what the source states: a parameter,
 * val or var declared `x: Foo`, a class parameter, an initializer
 * new Foo(...), Foo(...) with Foo's name capitalised (a case class or a
 * companion's apply) or a string literal, x.asInstanceOf[Foo], and an
 * extension's parameter.  A lambda's parameter without a type, a for
 * comprehension's variable and `_` are values of unknown type.
 *
 * Scala 2's arrows "⇒" and "←" are read as "=>" and "<-" (sc_mask).
 *
 * Infix calls (xs map f, a merge b, a + b) are calls of the operator's
 * method on its left operand (on its right one for a name ending in
 * ':', x :: xs), but for ==, !=, eq, ne, && and || (no class defines
 * its own) and the pair a -> b.
 *
 * Not seen as calls: a method called without an argument list (x.size,
 * s.shout: the syntax does not tell it from reading a field).
 */
#include <ctype.h>
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_scala)

/* The extension being walked: its methods are named after its type. */
struct sc_state {
	const char *pkg;                  /* the packages its clauses name so far */
	const char *ext_type;
	uint32_t ext_end;
	struct _kbx_jsc_tparams tp;       /* class K[T], def f[R]: no types */
	struct _kbx_jsc_unbinds unbinds;  /* lambdas, for and extensions */
};

static void sc_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct sc_state));
}

static void sc_end(struct kbx_walk *w)
{
	struct sc_state *st = w->lang_state;
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
	struct sc_state *st = w->lang_state;
	if (st)
		_kbx_jsc_tparams_push(w, &st->tp, decl, _kbx_child_of_type(decl, "type_parameters"));
}

/* A written type as recv_type wants it: "a.b.Foo" for a.b.Foo[T], NULL
 * for a function, tuple or compound type, or a type parameter. */
static const char *type_text(struct kbx_walk *w, TSNode t)
{
	struct sc_state *st = w->lang_state;
	if (_kbx_is(t, "generic_type"))
		t = _kbx_field(t, "type");
	if (!_kbx_is(t, "type_identifier") && !_kbx_is(t, "stable_type_identifier"))
		return NULL;
	const char *s = _kbx_jsc_clean_text(w, t, 0);
	if (s && st && !strchr(s, '.') && _kbx_jsc_tparams_has(&st->tp, t, s))
		return NULL;
	return s;
}

/* The type an expression states: new Foo(...), Foo(...) (capitalised),
 * x.asInstanceOf[Foo], a string literal.  NULL otherwise. */
static const char *value_type(struct kbx_walk *w, TSNode v)
{
	if (_kbx_is(v, "string") || _kbx_is(v, "interpolated_string_expression"))
		return "String";
	if (_kbx_is(v, "instance_expression")) {
		static const char *const types[] = {
			"type_identifier", "generic_type", "stable_type_identifier", NULL
		};
		if (!ts_node_is_null(_kbx_child_of_type(v, "template_body")))
			return NULL;   /* new T { ... }: an anonymous subclass */
		return type_text(w, _kbx_jsc_child_of_types(v, types));
	}
	if (_kbx_is(v, "generic_function")) {
		TSNode f = _kbx_field(v, "function");
		const char *name = _kbx_is(f, "field_expression") ?
			_kbx_field_text(w, f, "field") : NULL;
		TSNode args = _kbx_field(v, "type_arguments");
		if (name && !strcmp(name, "asInstanceOf") && !ts_node_is_null(args))
			return type_text(w, ts_node_named_child(args, 0));
		return NULL;
	}
	return _kbx_jsc_capital_call(w, v, "identifier");
}

/* val x: T = v, var y = new Foo(): bind the name to the type it states. */
static void bind_value(struct kbx_walk *w, TSNode decl, int field)
{
	TSNode name = _kbx_field(decl, "pattern");
	if (!_kbx_is(name, "identifier"))
		return;  /* val (a, b) = pair: values of unknown type */
	const char *type = type_text(w, _kbx_field(decl, "type"));
	if (!type) {
		TSNode v = _kbx_field(decl, "value");
		type = ts_node_is_null(v) ? NULL : value_type(w, v);
	}
	if (field)
		_kbx_walk_bind_field(w, _kbx_node_text(w, name), type);
	else
		_kbx_walk_bind(w, _kbx_node_text(w, name), type);
}

/* A parameter or a lambda's binding: its name and declared type. */
static void bind_named(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	if (_kbx_is(name, "identifier"))
		_kbx_walk_bind(w, _kbx_node_text(w, name), type_text(w, _kbx_field(n, "type")));
}

/* The fields of a class, bound when its scope opens (a method may come
 * before them): its class parameters and its body's vals and vars. */
static void bind_fields(struct kbx_walk *w, TSNode decl)
{
	TSNode params = _kbx_field(decl, "class_parameters");
	uint32_t np = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < np; i++) {
		TSNode p = ts_node_named_child(params, i);
		TSNode name = _kbx_field(p, "name");
		if (_kbx_is(p, "class_parameter") && _kbx_is(name, "identifier"))
			_kbx_walk_bind_field(w, _kbx_node_text(w, name),
					     type_text(w, _kbx_field(p, "type")));
	}
	TSNode body = _kbx_field(decl, "body");
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		if (_kbx_is(m, "val_definition") || _kbx_is(m, "var_definition"))
			bind_value(w, m, 1);
	}
}

/* extends Base(1) with Priced with p.Other[T] */
static void add_bases(struct kbx_walk *w, int sym, TSNode decl)
{
	TSNode list = _kbx_field(decl, "extend");
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode t = ts_node_named_child(list, i);
		const char *base = type_text(w, t);
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(t));
	}
}

/* The type of the same scope, defined before, that an object called name
 * is the companion of, or -1. */
static int companion_of(struct kbx_walk *w, const char *name)
{
	const char *qual = _kbx_walk_qual(w, name);
	int parent = _kbx_walk_parent(w);
	for (size_t i = w->x->nsyms; qual && i-- > 0;) {
		const struct kbx_xsym *s = &w->x->syms[i];
		if (s->parent == parent && KBX_KIND_IS_TYPE(s->kind) && !strcmp(s->qual, qual))
			return (int)i;
	}
	return -1;
}

/* Is this body (template_body) that of an anonymous class, new T { }? */
static int anonymous_body(struct kbx_walk *w, TSNode body)
{
	return _kbx_is(body, "template_body") &&
	       _kbx_is(_kbx_walk_up(w, body), "instance_expression");
}

static void define_type(struct kbx_walk *w, TSNode n, int kind)
{
	const char *name = _kbx_field_text(w, n, "name");
	if (!name || anonymous_body(w, _kbx_walk_up(w, n)))
		return;
	push_tparams(w, n);
	/* a companion and its type, in either order, are one definition */
	int sym = companion_of(w, name);
	if (sym >= 0) {
		if (kind != KBX_KIND_CLASS || !_kbx_is(n, "object_definition"))
			w->x->syms[sym].kind = kind;   /* the object came first */
		_kbx_walk_scope(w, sym);
	} else {
		sym = _kbx_walk_define(w, n, kind, name, 1);
	}
	if (sym < 0)
		return;
	add_bases(w, sym, n);
	bind_fields(w, n);
}

/* def f(), def f[R](), a method of an extension (Type.f) */
static void visit_function(struct kbx_walk *w, TSNode n)
{
	struct sc_state *st = w->lang_state;
	push_tparams(w, n);
	const char *name = _kbx_field_text(w, n, "name");
	if (!name || anonymous_body(w, _kbx_walk_up(w, n)))
		return;
	int kind = _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION;
	if (!st || !st->ext_type || ts_node_start_byte(n) >= st->ext_end) {
		_kbx_walk_define(w, n, kind, name, 1);
		return;
	}
	const char *dot = strrchr(st->ext_type, '.');
	const char *qual = _kbx_join(w, dot ? dot + 1 : st->ext_type, ".", name);
	if (qual && qual != _kbx_qual_too_long)
		_kbx_jsc_define_dotted(w, n, kind, qual, 1);
}

/* extension (s: String) def a() ... : its methods are String's. */
static void visit_extension(struct kbx_walk *w, TSNode n)
{
	struct sc_state *st = w->lang_state;
	TSNode params = _kbx_field(n, "parameters");
	TSNode p = ts_node_is_null(params) ? params : _kbx_child_of_type(params, "parameter");
	if (!st || ts_node_is_null(p))
		return;
	st->ext_type = type_text(w, _kbx_field(p, "type"));
	st->ext_end = ts_node_end_byte(n);
	_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
}

/* The receiver of a call's callee, unwrapping f[T]: the callee node
 * (identifier or field_expression), or a null node. */
static TSNode callee_of(TSNode call)
{
	TSNode f = _kbx_field(call, "function");
	if (_kbx_is(f, "generic_function"))
		f = _kbx_field(f, "function");
	return f;
}

static void call_on(struct kbx_walk *w, TSNode n, TSNode obj, const char *name);

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode callee = callee_of(n);
	if (_kbx_is(callee, "identifier")) {
		const char *name = _kbx_node_text(w, callee);
		if (name && !strcmp(name, "this"))
			_kbx_walk_call(w, n, "<init>", KBX_RECV_SELF, NULL);
		else if (name && strcmp(name, "super"))
			_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
		return;
	}
	if (!_kbx_is(callee, "field_expression"))
		return;  /* f(a)(b), (a orElse b)(x): a call through a value */
	call_on(w, n, _kbx_field(callee, "value"), _kbx_field_text(w, callee, "field"));
}

/* The call n of the method name on the value obj: obj.name(...) or
 * obj name arg. */
static void call_on(struct kbx_walk *w, TSNode n, TSNode obj, const char *name)
{
	const char *text = _kbx_jsc_clean_text(w, obj, 0);
	if (!name || !text)
		return;
	if (!strcmp(text, "this")) {
		_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		return;
	}
	if (!strcmp(text, "super") || !strncmp(text, "super[", 6)) {
		_kbx_walk_call(w, n, name, KBX_RECV_SUPER, NULL);
		return;
	}
	const char *type = NULL;
	if (_kbx_is(obj, "wildcard")) {
		type = "?";   /* xs.map(_.f()): an element of unknown type */
	} else if (_kbx_is(obj, "field_expression") &&
		   _kbx_is(_kbx_field(obj, "value"), "identifier")) {
		/* this.field.m() */
		const char *self = _kbx_field_text(w, obj, "value");
		const char *field = _kbx_field_text(w, obj, "field");
		if (self && field && !strcmp(self, "this"))
			_kbx_walk_bound(w, field, 1, &type);
	} else {
		type = value_type(w, obj);
	}
	_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, text, type);
}

/* a op b, xs map f: a call of the method op on a, except the operators
 * no class defines for itself (==, !=, eq, ne, &&, ||) and the pair
 * a -> b.  A name ending in ':' is a method of its right operand
 * (x :: xs is xs.::(x)). */
static void visit_infix(struct kbx_walk *w, TSNode n)
{
	static const char *const skip[] = { "==", "!=", "eq", "ne", "&&", "||", "->", "→", NULL };
	const char *op = _kbx_field_text(w, n, "operator");
	if (!op || !*op)
		return;
	for (size_t i = 0; skip[i]; i++)
		if (!strcmp(op, skip[i]))
			return;
	int right = op[strlen(op) - 1] == ':';
	call_on(w, n, _kbx_field(n, right ? "right" : "left"), op);
}

/* new Foo(...), new a.b.Foo[T](...): a call to Foo. */
static void visit_new(struct kbx_walk *w, TSNode n)
{
	static const char *const types[] = {
		"type_identifier", "generic_type", "stable_type_identifier", NULL
	};
	const char *type = type_text(w, _kbx_jsc_child_of_types(n, types));
	if (!type)
		return;
	const char *dot = strrchr(type, '.');
	if (!dot)
		_kbx_walk_call(w, n, type, KBX_RECV_NONE, NULL);
	else
		_kbx_walk_call(w, n, dot + 1, KBX_RECV_EXPR,
			       _kbx_arena_strndup(&w->x->arena, type, (size_t)(dot - type)));
}

/* x => ..., (a: Int, b) => ..., case for comprehensions: bound until the
 * end of the lambda. */
static void visit_lambda(struct kbx_walk *w, TSNode n)
{
	struct sc_state *st = w->lang_state;
	if (st)
		_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
	TSNode params = _kbx_field(n, "parameters");
	if (_kbx_is(params, "identifier")) {
		_kbx_walk_bind(w, _kbx_node_text(w, params), NULL);
		return;
	}
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode b = ts_node_named_child(params, i);
		if (_kbx_is(b, "binding"))
			bind_named(w, b);
		else if (_kbx_is(b, "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, b), NULL);
	}
}

/* for (x <- xs; y = f(x)): x and y are values of unknown type. */
static void visit_enumerator(struct kbx_walk *w, TSNode n)
{
	TSNode first = ts_node_named_child(n, 0);
	if (_kbx_is(first, "identifier"))
		_kbx_walk_bind(w, _kbx_node_text(w, first), NULL);
}

/* One selector of import a.b.{C, D => E, F as G, _}: module is "a.b". */
/* Does the dotted path name an object or a class (its last segment
 * capitalised, as Scala's style has them: org.json4s.JsonAST), whose
 * members an import brings, rather than a package (org.json4s)? */
static int object_path(const char *path)
{
	const char *dot = strrchr(path, '.');
	return isupper((unsigned char)(dot ? dot[1] : path[0]));
}

static void import_selector(struct kbx_walk *w, const char *module, TSNode s, uint32_t line)
{
	const char *name = NULL, *alias = NULL;
	if (_kbx_is(s, "namespace_wildcard")) {
		const char *t = _kbx_node_text(w, s);
		if (t && (!strcmp(t, "_") || !strcmp(t, "*")))
			_kbx_x_import(w->x, module, NULL, NULL, 0,
				      KBX_IMPORT_WILDCARD | (object_path(module) ? KBX_IMPORT_STATIC : 0),
				      line);
		return;   /* given: the given instances only */
	}
	if (_kbx_is(s, "identifier")) {
		name = _kbx_node_text(w, s);
	} else if (_kbx_is(s, "arrow_renamed_identifier") || _kbx_is(s, "as_renamed_identifier")) {
		TSNode a = _kbx_field(s, "alias");
		if (!_kbx_is(a, "identifier"))
			return;   /* C => _: hides C */
		name = _kbx_field_text(w, s, "name");
		alias = _kbx_node_text(w, a);
	}
	const char *dotted = name ? _kbx_join(w, module, ".", name) : NULL;
	if (dotted && dotted != _kbx_qual_too_long)
		_kbx_jsc_import_dotted(w, dotted, alias, object_path(module) ? KBX_IMPORT_STATIC : 0,
				       line);
}

/* import a.b.C;  import a.b.{C, D => E};  import a.b._;  import a.b.C as D */
static void visit_import(struct kbx_walk *w, TSNode n)
{
	uint32_t line = _kbx_node_line(n);
	const char *module = NULL;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "identifier")) {
			const char *part = _kbx_node_text(w, c);
			module = module ? _kbx_join(w, module, ".", part) : part;
			if (!module || module == _kbx_qual_too_long)
				return;
			continue;
		}
		if (!module)
			return;
		if (_kbx_is(c, "namespace_selectors")) {
			uint32_t ns = ts_node_named_child_count(c);
			for (uint32_t k = 0; k < ns; k++)
				import_selector(w, module, ts_node_named_child(c, k), line);
		} else {
			import_selector(w, module, c, line);
		}
		return;
	}
	if (module)
		_kbx_jsc_import_dotted(w, module, NULL, 0, line);
}

/* In a package object, val X = Obj.X and type X = Obj.X make the
 * package's X the member X of the object Obj (json4s's package object
 * gives its package JsonAST's JObject so): an import of that member
 * the package object passes on to the files of the package and to
 * those importing it. */
static void package_alias(struct kbx_walk *w, TSNode n, int is_type)
{
	TSNode body = _kbx_walk_up(w, n);
	if (!_kbx_is(body, "template_body") || !_kbx_is(_kbx_walk_up(w, body), "package_object"))
		return;
	const char *name, *path;
	if (is_type) {
		name = _kbx_field_text(w, n, "name");
		TSNode t = _kbx_field(n, "type");
		if (!_kbx_is(t, "stable_type_identifier"))
			return;
		path = _kbx_node_text(w, t);
	} else {
		TSNode pat = _kbx_field(n, "pattern"), v = _kbx_field(n, "value");
		if (!_kbx_is(pat, "identifier") || !_kbx_is(v, "field_expression"))
			return;
		name = _kbx_node_text(w, pat);
		path = _kbx_jsc_clean_text(w, v, 0);
	}
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!name || !dot || strcmp(dot + 1, name) || strpbrk(path, "()[] \t\n"))
		return;
	const char *module = _kbx_arena_strndup(&w->x->arena, path, (size_t)(dot - path));
	if (module && object_path(module))
		_kbx_x_import(w->x, module, name, NULL, 0, KBX_IMPORT_STATIC | KBX_IMPORT_REEXPORT,
			      _kbx_node_line(n));
}

/* package a.b, then package c: the file is in a.b.c and sees a.b's
 * members too, as if it imported a.b._ (and a package object's body
 * sees those of the package around it) */
static void package_clause(struct kbx_walk *w, TSNode n)
{
	struct sc_state *st = w->lang_state;
	TSNode id = _kbx_field(n, "name");
	const char *name = ts_node_is_null(id) ? NULL : _kbx_node_text(w, id);
	if (!st || !name)
		return;
	if (st->pkg)
		_kbx_x_import(w->x, st->pkg, NULL, NULL, 0, KBX_IMPORT_WILDCARD | KBX_IMPORT_OUTER,
			      _kbx_node_line(n));
	const char *pkg = st->pkg ? _kbx_join(w, st->pkg, ".", name) : name;
	if (pkg && pkg != _kbx_qual_too_long) {
		st->pkg = pkg;
		/* the file's package so far (the last one is its own) */
		_kbx_x_import(w->x, pkg, NULL, NULL, 0, KBX_IMPORT_PACKAGE, _kbx_node_line(n));
	}
}

/* Is n a statement of a class or object body, which runs when it is
 * constructed? */
static int in_body(struct kbx_walk *w, TSNode n)
{
	TSNode body = _kbx_walk_up(w, n);
	return _kbx_is(body, "template_body") && !anonymous_body(w, body) &&
	       !_kbx_is(_kbx_walk_up(w, body), "package_clause");
}

static int sc_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct sc_state *st = w->lang_state;
	if (st)
		_kbx_jsc_unbind_leave(w, &st->unbinds, n);
	if (st && st->ext_type && ts_node_start_byte(n) >= st->ext_end)
		st->ext_type = NULL;
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call_expression")) {
			if (in_body(w, n))
				_kbx_walk_class_init(w, n, "<init>");
			visit_call(w, n);
		} else if (!strcmp(type, "class_definition")) {
			define_type(w, n, KBX_KIND_CLASS);
		}
		break;
	case 'e':
		if (!strcmp(type, "enum_definition"))
			define_type(w, n, KBX_KIND_ENUM);
		else if (!strcmp(type, "extension_definition"))
			visit_extension(w, n);
		else if (!strcmp(type, "enumerator"))
			visit_enumerator(w, n);
		break;
	case 'f':
		if (!strcmp(type, "function_definition") || !strcmp(type, "function_declaration"))
			visit_function(w, n);
		else if (!strcmp(type, "for_expression") && st)
			_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
		break;
	case 'i':
		if (!strcmp(type, "import_declaration")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "instance_expression")) {
			if (in_body(w, n))
				_kbx_walk_class_init(w, n, "<init>");
			visit_new(w, n);
		} else if (!strcmp(type, "infix_expression")) {
			if (in_body(w, n))
				_kbx_walk_class_init(w, n, "<init>");
			visit_infix(w, n);
		}
		break;
	case 'l':
		if (!strcmp(type, "lambda_expression"))
			visit_lambda(w, n);
		break;
	case 'o':
		if (!strcmp(type, "object_definition"))
			define_type(w, n, KBX_KIND_CLASS);
		break;
	case 'p':
		if (!strcmp(type, "package_clause") && ts_node_is_null(_kbx_field(n, "body"))) {
			package_clause(w, n);
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "package_object") && st && st->pkg)
			_kbx_x_import(w->x, st->pkg, NULL, NULL, 0,
				      KBX_IMPORT_WILDCARD | KBX_IMPORT_OUTER, _kbx_node_line(n));
		if (!strcmp(type, "parameter"))
			bind_named(w, n);
		break;
	case 't':
		if (!strcmp(type, "trait_definition"))
			define_type(w, n, KBX_KIND_TRAIT);
		else if (!strcmp(type, "type_definition")) {
			package_alias(w, n, 1);
			return KBX_WALK_SKIP;
		}
		break;
	case 'v':
		if (!strcmp(type, "val_definition"))
			package_alias(w, n, 0);
		if (!strcmp(type, "val_definition") || !strcmp(type, "var_definition")) {
			if (!in_body(w, n))
				bind_value(w, n, 0);
			else if (!ts_node_is_null(_kbx_field(n, "value")))
				_kbx_walk_class_init(w, n, "<init>");
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * Scala's files, like Kotlin's, sit by convention in the directory of
 * their package (see _kbx_jsc_package_candidates); looking under every
 * ancestor of the importer also finds an import relative to its own
 * package (import cart.Cart inside com.shop).
 */
static void sc_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	static const char *const platform[] = { "scala", "java", "javax", NULL };
	_kbx_jsc_package_candidates(importer, imp, platform, ".scala", out);
	/* import a.b.Obj.{f, g}, import Obj._: the members of an object,
	 * in the file named after it */
	char mod[4096];
	if ((imp->flags & KBX_IMPORT_STATIC) && imp->module && *imp->module &&
	    strncmp(imp->module, "scala.", 6) && strncmp(imp->module, "java.", 5) &&
	    strncmp(imp->module, "javax.", 6) &&
	    !_kbx_dots_to_slashes(mod, sizeof(mod), imp->module)) {
		_kbx_pathlist_addf(out, "*%s.scala", mod);
		_kbx_jsc_add_under_ancestors(importer, mod, ".scala", out);
	}
}

/* Scala 2's Unicode arrows, which the grammar does not read: "⇒" is
 * "=>" and "←" is "<-", each written over its three bytes. */
static size_t sc_mask(char *text, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i + 2 < len; i++) {
		if ((unsigned char)text[i] != 0xe2)
			continue;
		unsigned char b = (unsigned char)text[i + 1], c = (unsigned char)text[i + 2];
		if (b == 0x87 && c == 0x92)
			memcpy(text + i, "=> ", 3);
		else if (b == 0x86 && c == 0x90)
			memcpy(text + i, "<- ", 3);
		else
			continue;
		n += 3;
		i += 2;
	}
	return n;
}

static const char *const scala_extensions[] = { ".scala", ".sc", NULL };

const struct kbx_lang _kbx_lang_scala = {
	.name = "scala",
	.extensions = scala_extensions,
	.grammar = kbx_tree_sitter_scala,
	.visit = sc_visit,
	.begin = sc_begin,
	.end = sc_end,
	.import_candidates = sc_import_candidates,
	.implicit_self = 1,
	.nested_defs = 1,
	.dir_is_package = 1,
	.extension_functions = 1,
	.wildcards_hide = 1,
	.reexports = 1,
	.scope_sep = ".",
	.visibility = _kbx_scala_visibility,
	.mask = sc_mask,
};
