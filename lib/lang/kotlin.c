/*
 * Kotlin: classes, interfaces, enum classes and objects (nested ones
 * qualified by their outer type), functions, methods, and extension
 * functions named after their receiver's type (`fun String.shout()` is
 * String.shout); calls with their receivers, Foo() as a call to Foo,
 * infix calls (a merge b) on their left operand, the supertype
 * constructor a class header calls (class A : B(x));
 * imports (aliased and on-demand) and the supertypes a class lists.
 *
 * A companion object's members are the class's own: Cart.create() is
 * Cart.create.  Functions of an object expression (`object : I { }`)
 * are no definitions: like lambdas, their calls belong to the enclosing
 * function.  Secondary constructors are "constructor", init blocks
 * "<init>" (as in Java).
 *
 * The types of receivers come from what the source states: a parameter,
 * local or property declared `x: Foo`, a property of the class (and a
 * `val`/`var` constructor parameter), an initializer Foo(...) whose name
 * starts with a capital letter, this inside an extension function (its
 * receiver's type).  Inside the lambda of apply, run, with and the
 * build* functions `this` is the receiver given to it, whose type is not
 * stated: this.f() there is a call on an unknown receiver.
 */
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_kotlin)

/* The stretches of the file where `this` is not the enclosing class's:
 * an extension function (type: its receiver's) or a lambda given a
 * receiver (type "?"). */
struct kt_frame {
	uint32_t end;
	const char *type;
};

struct kt_state {
	struct kt_frame *v;
	size_t n, alloc;
	struct _kbx_jsc_tparams tp;   /* class K<T>, fun <R> f(): T and R are no types */
};

static void kt_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct kt_state));
}

static void kt_end(struct kbx_walk *w)
{
	struct kt_state *st = w->lang_state;
	if (st) {
		free(st->v);
		_kbx_jsc_tparams_release(&st->tp);
	}
	free(st);
	w->lang_state = NULL;
}

static void frame_push(struct kbx_walk *w, TSNode n, const char *type)
{
	struct kt_state *st = w->lang_state;
	if (!st || _kbx_grow((void **)&st->v, &st->alloc, st->n, sizeof(*st->v), 8))
		return;
	st->v[st->n].end = ts_node_end_byte(n);
	st->v[st->n].type = type;
	st->n++;
}

/* The innermost frame holding node n, or NULL; frames n is past are
 * dropped. */
static const struct kt_frame *frame_at(struct kbx_walk *w, TSNode n)
{
	struct kt_state *st = w->lang_state;
	if (!st)
		return NULL;
	uint32_t at = ts_node_start_byte(n);
	while (st->n && st->v[st->n - 1].end <= at)
		st->n--;
	return st->n ? &st->v[st->n - 1] : NULL;
}

/* Does a declaration's modifiers node hold a modifier of this type
 * whose text is word? */
static int has_modifier(struct kbx_walk *w, TSNode decl, const char *type, const char *word)
{
	TSNode mods = _kbx_child_of_type(decl, "modifiers");
	uint32_t count = ts_node_is_null(mods) ? 0 : ts_node_named_child_count(mods);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(mods, i);
		if (_kbx_is(m, type)) {
			const char *t = _kbx_node_text(w, m);
			if (t && !strcmp(t, word))
				return 1;
		}
	}
	return 0;
}

/* ---- types ---- */

/* The type parameters decl declares, in scope until its end. */
static void push_tparams(struct kbx_walk *w, TSNode decl)
{
	struct kt_state *st = w->lang_state;
	if (st)
		_kbx_jsc_tparams_push(w, &st->tp, decl, _kbx_child_of_type(decl, "type_parameters"));
}

/* A written type as recv_type wants it: "a.b.Foo" for a.b.Foo<T>?, NULL
 * for a function type, a type parameter or anything else. */
static const char *type_text(struct kbx_walk *w, TSNode t)
{
	struct kt_state *st = w->lang_state;
	if (_kbx_is(t, "nullable_type"))
		t = _kbx_child_of_type(t, "user_type");
	if (!_kbx_is(t, "user_type"))
		return NULL;
	const char *s = _kbx_jsc_clean_text(w, t, KBX_JSC_STRIP_GENERICS);
	if (s && st && !strchr(s, '.') && _kbx_jsc_tparams_has(&st->tp, t, s))
		return NULL;
	return s;
}

/* The first type child of n (user_type or nullable_type), or a null node. */
static TSNode type_child(TSNode n)
{
	static const char *const types[] = { "user_type", "nullable_type", NULL };
	return _kbx_jsc_child_of_types(n, types);
}

/* The type an expression states: Foo(...) with Foo's name capitalised,
 * the way Kotlin constructs, is a Foo; (x as Foo) and (x as? Foo) a Foo;
 * a string literal a String.  NULL otherwise. */
static const char *value_type(struct kbx_walk *w, TSNode v)
{
	if (_kbx_is(v, "string_literal") || _kbx_is(v, "multiline_string_literal"))
		return "String";
	if (_kbx_is(v, "number_literal")) {
		/* 1, 0x1F, 1_000 (no L, no u: a Long, an unsigned) */
		const char *t = _kbx_node_text(w, v);
		return t && !strpbrk(t, "LuU") ? "Int" : NULL;
	}
	if (_kbx_is(v, "boolean_literal"))
		return "Boolean";
	if (_kbx_is(v, "parenthesized_expression")) {
		TSNode cast = _kbx_child_of_type(v, "as_expression");
		return ts_node_is_null(cast) ? NULL : type_text(w, _kbx_field(cast, "right"));
	}
	return _kbx_jsc_capital_call(w, v, "identifier");
}

/* val x: T = v, var y = Foo(): bind the name to the type it states. */
static void bind_property(struct kbx_walk *w, TSNode decl, int field)
{
	TSNode var = _kbx_child_of_type(decl, "variable_declaration");
	if (ts_node_is_null(var))
		return;  /* val (a, b) = pair: values of unknown type */
	TSNode name = _kbx_child_of_type(var, "identifier");
	if (ts_node_is_null(name))
		return;
	const char *type = type_text(w, type_child(var));
	if (!type) {
		/* the initializer: the named child after the declaration */
		uint32_t count = ts_node_named_child_count(decl);
		for (uint32_t i = 0; i < count && !type; i++) {
			TSNode c = ts_node_named_child(decl, i);
			if (ts_node_start_byte(c) > ts_node_start_byte(var))
				type = value_type(w, c);
		}
	}
	if (field)
		_kbx_walk_bind_field(w, _kbx_node_text(w, name), type);
	else
		_kbx_walk_bind(w, _kbx_node_text(w, name), type);
}

/* A parameter, a for loop's or a lambda's variable: name and type. */
static void bind_named(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_child_of_type(n, "identifier");
	if (!ts_node_is_null(name))
		_kbx_walk_bind(w, _kbx_node_text(w, name), type_text(w, type_child(n)));
}

/* The properties of a class, bound when its scope opens (a method may
 * come before them): its body's properties and its constructor's val
 * and var parameters. */
static void bind_properties(struct kbx_walk *w, TSNode decl)
{
	TSNode ctor = _kbx_child_of_type(decl, "primary_constructor");
	TSNode params = ts_node_is_null(ctor) ? ctor : _kbx_child_of_type(ctor, "class_parameters");
	uint32_t np = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < np; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (!_kbx_is(p, "class_parameter") ||
		    (!_kbx_has_token(p, "val") && !_kbx_has_token(p, "var")))
			continue;
		TSNode name = _kbx_child_of_type(p, "identifier");
		if (!ts_node_is_null(name))
			_kbx_walk_bind_field(w, _kbx_node_text(w, name),
					     type_text(w, type_child(p)));
	}
	TSNode body = _kbx_child_of_type(decl, "class_body");
	if (ts_node_is_null(body))
		body = _kbx_child_of_type(decl, "enum_class_body");
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		if (_kbx_is(m, "property_declaration"))
			bind_property(w, m, 1);
	}
}

/* : Base(), Iface, Other by x */
static void add_bases(struct kbx_walk *w, int sym, TSNode decl)
{
	TSNode list = _kbx_child_of_type(decl, "delegation_specifiers");
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode spec = ts_node_named_child(list, i);
		TSNode t = ts_node_named_child(spec, 0);
		if (_kbx_is(t, "constructor_invocation") || _kbx_is(t, "explicit_delegation"))
			t = _kbx_child_of_type(t, "user_type");
		const char *base = type_text(w, t);
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(t));
	}
}

static void define_type(struct kbx_walk *w, TSNode n, int kind)
{
	push_tparams(w, n);
	int sym = _kbx_walk_define(w, n, kind, _kbx_field_text(w, n, "name"), 1);
	if (sym < 0)
		return;
	add_bases(w, sym, n);
	bind_properties(w, n);
}

static void visit_class(struct kbx_walk *w, TSNode n)
{
	int kind = KBX_KIND_CLASS;
	if (_kbx_has_token(n, "interface"))
		kind = KBX_KIND_INTERFACE;
	else if (has_modifier(w, n, "class_modifier", "enum"))
		kind = KBX_KIND_ENUM;
	define_type(w, n, kind);
}

/* Is the class body of n that of an object expression? */
static int in_object_literal(struct kbx_walk *w, TSNode n)
{
	TSNode body = _kbx_walk_up(w, n);
	return _kbx_is(body, "class_body") && _kbx_is(_kbx_walk_up(w, body), "object_literal");
}

/* fun f(), fun T.f() (an extension: T.f), fun <R> List<R>.f() */
/* How many arguments a call of the function n may pass: its parameters
 * without defaults, and all of them (any number with a vararg). */
static void set_arity(struct kbx_walk *w, TSNode n, int sym)
{
	TSNode params = _kbx_child_of_type(n, "function_value_parameters");
	if (sym < 0 || ts_node_is_null(params))
		return;
	int min = 0, max = 0, vararg = 0, next_vararg = 0, required = 0;
	uint32_t count = ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (_kbx_is(p, "parameter_modifiers")) {
			next_vararg = _kbx_has_token(ts_node_named_child(p, 0), "vararg") ||
				      _kbx_has_token(p, "vararg");
			continue;
		}
		if (_kbx_is(p, "parameter")) {
			max++;
			vararg |= next_vararg;
			required = !next_vararg;
			min += required;
			next_vararg = 0;
			continue;
		}
		/* a default value, after its parameter */
		if (required)
			min--;
		required = 0;
	}
	w->x->syms[sym].arity_min = min;
	w->x->syms[sym].arity_max = vararg ? KBX_ARITY_ANY : max;
}

static void visit_function(struct kbx_walk *w, TSNode n)
{
	push_tparams(w, n);
	if (in_object_literal(w, n))
		return;
	TSNode name = _kbx_field(n, "name");
	if (ts_node_is_null(name))
		return;
	/* the receiver's type is written before the name */
	TSNode recv = { 0 };
	int fn_recv = 0;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (ts_node_start_byte(c) >= ts_node_start_byte(name))
			break;
		if (_kbx_is(c, "user_type") || _kbx_is(c, "nullable_type"))
			recv = c;
		else if (_kbx_is(c, "function_type") || _kbx_is(c, "parenthesized_type"))
			fn_recv = 1;
	}
	const char *text = _kbx_node_text(w, name);
	/* fun (suspend () -> T).start(): an extension of function types,
	 * named after Kotlin's name for them */
	const char *rtype = fn_recv ? "Function" : ts_node_is_null(recv) ? NULL : type_text(w, recv);
	if (!rtype) {
		set_arity(w, n, _kbx_walk_define(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD :
						 KBX_KIND_FUNCTION, text, 1));
		return;
	}
	const char *dot = strrchr(rtype, '.');
	const char *qual = _kbx_join(w, dot ? dot + 1 : rtype, ".", text);
	if (!qual || qual == _kbx_qual_too_long)
		return;
	set_arity(w, n, _kbx_jsc_define_dotted(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD :
					       KBX_KIND_FUNCTION, qual, 1));
	frame_push(w, n, rtype);
}

/* The functions whose lambda gets a receiver that `this` then names. */
static int receiver_lambda(struct kbx_walk *w, TSNode lambda)
{
	static const char *const names[] = {
		"apply", "run", "with", "buildString", "buildList", "buildMap", "buildSet",
		"sequence", "iterator", NULL
	};
	TSNode up = _kbx_walk_up(w, lambda);
	if (_kbx_is(up, "annotated_lambda"))
		up = _kbx_walk_up(w, up);
	else if (_kbx_is(up, "value_argument"))
		up = _kbx_walk_up(w, _kbx_walk_up(w, up));
	if (_kbx_is(up, "call_suffix"))
		up = _kbx_walk_up(w, up);
	if (!_kbx_is(up, "call_expression"))
		return 0;
	TSNode callee = ts_node_named_child(up, 0);
	if (_kbx_is(callee, "navigation_expression"))
		callee = ts_node_named_child(callee, ts_node_named_child_count(callee) - 1);
	const char *name = _kbx_is(callee, "identifier") ? _kbx_node_text(w, callee) : NULL;
	for (size_t i = 0; name && names[i]; i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

static void visit_lambda(struct kbx_walk *w, TSNode n)
{
	if (receiver_lambda(w, n))
		frame_push(w, n, "?");
	TSNode params = _kbx_child_of_type(n, "lambda_parameters");
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (_kbx_is(p, "variable_declaration"))
			bind_named(w, p);
	}
	if (!count)
		_kbx_walk_bind(w, "it", NULL);
}

/* `when (this) { is D -> f(v) }` and `if (this is D) f(v)`: in that
 * branch `this` is smart-cast to D, whose member f may be meant rather
 * than the enclosing class's or extension's: its plain calls are on a
 * receiver of unknown type ("?"), as in a receiver lambda. */
static void visit_smart_cast(struct kbx_walk *w, TSNode n, const char *type)
{
	if (!strcmp(type, "when_entry")) {
		TSNode cond = _kbx_field(n, "condition");
		TSNode when = _kbx_walk_up(w, n);
		TSNode subject = _kbx_child_of_type(when, "when_subject");
		if (_kbx_is(cond, "type_test") && !_kbx_has_token(cond, "!is") &&
		    _kbx_is(ts_node_named_child(subject, 0), "this_expression"))
			frame_push(w, n, "?");
		return;
	}
	TSNode cond = _kbx_field(n, "condition");
	if (!_kbx_is(cond, "is_expression") || _kbx_has_token(cond, "!is") ||
	    !_kbx_is(_kbx_field(cond, "left"), "this_expression"))
		return;
	/* the branch taken when it holds: what follows the condition */
	TSNode then = ts_node_next_named_sibling(cond);
	if (!ts_node_is_null(then))
		frame_push(w, then, "?");
}

/* f(x): in the lambda of apply, with, sequence... maybe a member of the
 * receiver given to it ("?", kbx_xcall) */
static void plain_call(struct kbx_walk *w, TSNode n, const char *name)
{
	const struct kt_frame *f = frame_at(w, n);
	int i = _kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
	if (i >= 0 && f && !strcmp(f->type, "?") && w->x->calls[i].recv == KBX_RECV_NONE)
		w->x->calls[i].receiver = "?";
}

/* The call n of name on the value obj: obj.name(x), obj name x. */
static void call_on(struct kbx_walk *w, TSNode n, TSNode obj, const char *name)
{
	if (_kbx_is(obj, "super_expression")) {
		_kbx_walk_call(w, n, name, KBX_RECV_SUPER, NULL);
		return;
	}
	if (_kbx_is(obj, "this_expression") && ts_node_named_child_count(obj)) {
		/* this@Outer.f(): Outer's f, not the inner class's */
		const char *label = _kbx_node_text(w, ts_node_named_child(obj, 0));
		if (label)
			_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, "this", label);
		return;
	}
	if (_kbx_is(obj, "this_expression")) {
		const struct kt_frame *f = frame_at(w, n);
		if (f)
			_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, "this", f->type);
		else
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		return;
	}
	const char *text = _kbx_jsc_clean_text(w, obj, KBX_JSC_NONNULL);
	if (!text)
		return;
	const char *type = NULL;
	if (_kbx_is(obj, "navigation_expression") && ts_node_named_child_count(obj) == 2 &&
	    _kbx_is(ts_node_named_child(obj, 0), "this_expression") && !frame_at(w, n)) {
		/* this.field.m() */
		TSNode field = ts_node_named_child(obj, 1);
		if (_kbx_is(field, "identifier"))
			_kbx_walk_bound(w, _kbx_node_text(w, field), 1, &type);
	} else {
		type = value_type(w, obj);
	}
	_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, text, type);
}

/* f(x) or a.b.f(x), the callee of the call or of its type arguments */
static void call_of(struct kbx_walk *w, TSNode n, TSNode callee)
{
	if (_kbx_is(callee, "identifier")) {
		plain_call(w, n, _kbx_node_text(w, callee));
		return;
	}
	if (!_kbx_is(callee, "navigation_expression"))
		return;  /* f()(), (a ?: b)(): a call through a value */
	uint32_t count = ts_node_named_child_count(callee);
	TSNode last = ts_node_named_child(callee, count - 1);
	if (count < 2 || !_kbx_is(last, "identifier"))
		return;
	const char *name = _kbx_node_text(w, last);
	if (name)
		call_on(w, n, ts_node_named_child(callee, 0), name);
}

/* The arguments of the call n: its value arguments and a trailing
 * lambda (which the grammar may hang on a call around it: f(1) { }); -1
 * with a spread *args. */
static int count_args(struct kbx_walk *w, TSNode n)
{
	int k = 0;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 1; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "annotated_lambda") || _kbx_is(c, "lambda_literal")) {
			k++;
		} else if (_kbx_is(c, "value_arguments")) {
			uint32_t na = ts_node_named_child_count(c);
			for (uint32_t j = 0; j < na; j++) {
				TSNode a = ts_node_named_child(c, j);
				if (!_kbx_is(a, "value_argument"))
					continue;
				if (!ts_node_is_null(_kbx_child_of_type(a, "spread_expression")))
					return -1;
				k++;
			}
		}
	}
	TSNode up = _kbx_walk_up(w, n);
	if (_kbx_is(up, "call_expression") && ts_node_eq(ts_node_named_child(up, 0), n) &&
	    !ts_node_is_null(_kbx_child_of_type(up, "annotated_lambda")))
		k++;
	return k;
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode callee = ts_node_named_child(n, 0);
	/* !f(x): the grammar reads (!f)(x) */
	if (_kbx_is(callee, "unary_expression"))
		callee = _kbx_field(callee, "argument");
	size_t before = w->x->ncalls;
	call_of(w, n, callee);
	if (w->x->ncalls == before + 1)
		w->x->calls[before].nargs = count_args(w, n);
}

/* f<T>(x), a.f<T> { }: the grammar reads (f < T) > (x); a comparison
 * of a comparison with a parenthesised value or a lambda is none Kotlin
 * programs write (a Boolean is no Comparable of an Int). */
static void visit_generic_call(struct kbx_walk *w, TSNode n)
{
	const char *op = _kbx_field_text(w, n, "operator");
	TSNode left = _kbx_field(n, "left"), right = _kbx_field(n, "right");
	if (!op || strcmp(op, ">") || !_kbx_is(left, "binary_expression") ||
	    !(_kbx_is(right, "parenthesized_expression") || _kbx_is(right, "lambda_literal")))
		return;
	const char *lop = _kbx_field_text(w, left, "operator");
	TSNode targ = _kbx_field(left, "right");
	if (lop && !strcmp(lop, "<") &&
	    (_kbx_is(targ, "identifier") || _kbx_is(targ, "navigation_expression")))
		call_of(w, n, _kbx_field(left, "left"));
}

/* a to b, x shl 2, a merge b: a call of the infix function named
 * between the operands, on the left one */
static void visit_infix(struct kbx_walk *w, TSNode n)
{
	if (ts_node_named_child_count(n) != 3)
		return;
	TSNode obj = ts_node_named_child(n, 0), op = ts_node_named_child(n, 1);
	const char *name = _kbx_is(op, "identifier") ? _kbx_node_text(w, op) : NULL;
	if (!name)
		return;
	/* this wo MASK: a member of the class, or a member extension
	 * (infix fun Long.wo) in scope where this is the extension's */
	size_t before = w->x->ncalls;
	if (_kbx_is(obj, "this_expression") && !ts_node_named_child_count(obj))
		_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
	else
		call_on(w, n, obj, name);
	if (w->x->ncalls == before + 1)
		w->x->calls[before].nargs = 1;   /* an infix call's one argument */
}

/* class A : B(x), object : B(x) { }: a call of B's constructor, by the
 * class's <init> or by the function holding the object expression */
static void visit_supertype_call(struct kbx_walk *w, TSNode n)
{
	TSNode t = _kbx_child_of_type(n, "user_type");
	const char *base = type_text(w, t);
	if (!base)
		return;
	const char *dot = strrchr(base, '.');
	TSNode holder = _kbx_walk_up(w, _kbx_walk_up(w, _kbx_walk_up(w, n)));
	if (!_kbx_is(holder, "object_literal"))
		_kbx_walk_class_init(w, n, "<init>");
	if (!dot)
		_kbx_walk_call(w, n, base, KBX_RECV_NONE, NULL);
	else
		_kbx_walk_call(w, n, dot + 1, KBX_RECV_EXPR,
			       _kbx_arena_strndup(&w->x->arena, base, (size_t)(dot - base)));
}

/* import a.b.C;  import a.b.C as D;  import a.b.* */
static void visit_import(struct kbx_walk *w, TSNode n)
{
	TSNode path = _kbx_child_of_type(n, "qualified_identifier");
	if (ts_node_is_null(path))
		path = _kbx_child_of_type(n, "identifier");
	const char *text = _kbx_jsc_clean_text(w, path, 0);
	if (!text)
		return;
	uint32_t line = _kbx_node_line(n);
	if (_kbx_has_token(n, "*") || _kbx_has_token(n, ".*")) {
		_kbx_x_import(w->x, text, NULL, NULL, 0, KBX_IMPORT_WILDCARD, line);
		return;
	}
	const char *alias = NULL;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "identifier") && ts_node_start_byte(c) > ts_node_start_byte(path))
			alias = _kbx_node_text(w, c);
	}
	_kbx_jsc_import_dotted(w, text, alias, 0, line);
}

static int kt_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "anonymous_initializer"))
			_kbx_walk_class_init(w, n, "<init>");
		break;
	case 'b':
		if (!strcmp(type, "binary_expression"))
			visit_generic_call(w, n);
		break;
	case 'c':
		if (!strcmp(type, "class_declaration"))
			visit_class(w, n);
		else if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		else if (!strcmp(type, "constructor_invocation"))
			visit_supertype_call(w, n);
		else if (!strcmp(type, "constructor_delegation_call"))
			_kbx_walk_call(w, n, "constructor",
				       _kbx_has_token(n, "super") ? KBX_RECV_SUPER : KBX_RECV_SELF, NULL);
		break;
	case 'f':
		if (!strcmp(type, "function_declaration"))
			visit_function(w, n);
		else if (!strcmp(type, "for_statement")) {
			TSNode v = _kbx_child_of_type(n, "variable_declaration");
			if (!ts_node_is_null(v))
				bind_named(w, v);
		}
		break;
	case 'i':
		if (!strcmp(type, "import")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "infix_expression"))
			visit_infix(w, n);
		else if (!strcmp(type, "if_expression"))
			visit_smart_cast(w, n, type);
		break;
	case 'l':
		if (!strcmp(type, "lambda_literal"))
			visit_lambda(w, n);
		break;
	case 'o':
		if (!strcmp(type, "object_declaration"))
			define_type(w, n, KBX_KIND_CLASS);
		break;
	case 'p':
		if (!strcmp(type, "package_header")) {
			TSNode id = _kbx_child_of_type(n, "qualified_identifier");
			if (ts_node_is_null(id))
				id = _kbx_child_of_type(n, "identifier");
			const char *pkg = _kbx_jsc_clean_text(w, id, 0);
			if (pkg)
				_kbx_x_import(w->x, pkg, NULL, NULL, 0, KBX_IMPORT_PACKAGE,
					      _kbx_node_line(n));
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "parameter"))
			bind_named(w, n);
		else if (!strcmp(type, "property_declaration") &&
			 !_kbx_is(_kbx_walk_up(w, n), "class_body"))
			bind_property(w, n, 0);
		else if (!strcmp(type, "property_declaration") && !in_object_literal(w, n) &&
			 _kbx_has_token(n, "="))
			_kbx_walk_class_init(w, n, "<init>");  /* runs with the constructor */
		break;
	case 's':
		if (!strcmp(type, "secondary_constructor"))
			_kbx_walk_define(w, n, KBX_KIND_METHOD, "constructor", 1);
		break;
	case 't':
		if (!strcmp(type, "type_alias"))
			return KBX_WALK_SKIP;
		break;
	case 'w':
		if (!strcmp(type, "when_entry"))
			visit_smart_cast(w, n, type);
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * A Kotlin file need not be named after a class, but its directory is,
 * by convention, its package's (see _kbx_jsc_package_candidates).
 */
static void kt_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	/* kotlinx.*, a library's like any other, is in the repository
	 * when the repository is that library (kotlinx.coroutines) */
	static const char *const platform[] = { "kotlin", "java", "javax", NULL };
	_kbx_jsc_package_candidates(importer, imp, platform, ".kt", out);
}

static const char *const kotlin_extensions[] = { ".kt", ".kts", NULL };

const struct kbx_lang _kbx_lang_kotlin = {
	.name = "kotlin",
	.extensions = kotlin_extensions,
	.grammar = kbx_tree_sitter_kotlin,
	.visit = kt_visit,
	.begin = kt_begin,
	.end = kt_end,
	.import_candidates = kt_import_candidates,
	.implicit_self = 1,
	.nested_defs = 1,
	.dir_is_package = 1,
	.wildcards_hide = 1,
	.extension_functions = 1,
	.scope_sep = ".",
	.visibility = _kbx_kotlin_visibility,
};
