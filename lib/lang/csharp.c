/*
 * C#: namespaces (block and file-scoped), classes, structs, interfaces,
 * enums and records, methods, constructors ("constructor", as in Java),
 * destructors, operators, properties with code, local functions; calls,
 * `new`, `: base(...)`/`: this(...)`; using directives; base lists; and
 * the static types of the names a call's receiver may be (parameters,
 * locals, fields and properties, foreach, catch, pattern and range
 * variables), with the element types of arrays and of the standard
 * collections for foreach and for lambdas given to List and LINQ methods.
 */
#include <stdlib.h>
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_c_sharp)

static void add_bases(struct kbx_walk *w, int sym, TSNode list)
{
	uint32_t count = ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode t = ts_node_named_child(list, i);
		const char *tt = ts_node_type(t);
		if (!strcmp(tt, "primary_constructor_base_type")) {
			/* record R(int A) : Base(A) */
			t = _kbx_field(t, "type");
			if (ts_node_is_null(t))
				continue;
			tt = ts_node_type(t);
		}
		if (!strcmp(tt, "identifier") || !strcmp(tt, "generic_name") ||
		    !strcmp(tt, "qualified_name") || !strcmp(tt, "alias_qualified_name"))
			_kbx_x_inherit(w->x, sym, _kbx_jsc_clean_text(w, t, KBX_JSC_STRIP_GENERICS),
				       _kbx_node_line(t));
	}
}

/* ---- the static types of names: the evidence for calls ---- */

struct cs_state {
	struct _kbx_jsc_tparams tparams;
	/* blocks, lambdas and the statements that declare a variable for
	 * their own body: what they bind ends with them */
	struct _kbx_jsc_unbinds unbinds;
	/* start + 1 of a lambda whose first parameter is an element of the
	 * collection a call like xs.Select(x => ...) is made on, and its type */
	uint32_t elem_lambda;
	const char *elem_type;
};

static void cs_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct cs_state));
}

static void cs_end(struct kbx_walk *w)
{
	struct cs_state *st = w->lang_state;
	if (st) {
		_kbx_jsc_tparams_release(&st->tparams);
		_kbx_jsc_unbinds_release(&st->unbinds);
	}
	free(st);
	w->lang_state = NULL;
}

/* The generic collections of the standard library whose elements are of
 * their one type argument (foreach, LINQ). */
static const char *const collections[] = {
	"BlockingCollection", "Collection", "ConcurrentBag", "ConcurrentQueue",
	"ConcurrentStack", "HashSet", "ICollection", "IEnumerable", "IList", "IOrderedEnumerable",
	"IQueryable", "IReadOnlyCollection", "IReadOnlyList", "IReadOnlySet", "ISet",
	"ImmutableArray", "ImmutableHashSet", "ImmutableList", "LinkedList", "List",
	"ObservableCollection", "Queue", "ReadOnlyCollection", "ReadOnlySpan", "SortedSet", "Span",
	"Stack", NULL
};

/* The methods of List<T> and System.Linq whose first argument may be a
 * lambda taking an element first. */
static const char *const element_callbacks[] = {
	"Aggregate", "All", "Any", "Average", "ConvertAll", "Count", "DistinctBy", "Exists",
	"Find", "FindAll", "FindIndex", "FindLast", "FindLastIndex", "First", "FirstOrDefault",
	"ForEach", "GroupBy", "Last", "LastOrDefault", "LongCount", "Max", "MaxBy", "Min",
	"MinBy", "OrderBy", "OrderByDescending", "RemoveAll", "Select", "SelectMany", "Single",
	"SingleOrDefault", "SkipWhile", "Sum", "TakeWhile", "ThenBy", "ThenByDescending",
	"ToDictionary", "ToLookup", "TrueForAll", "Where", NULL
};

static int listed(const char *const *list, const char *s)
{
	for (; s && *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

/* Through nullable_type (T?) to T. */
static TSNode strip_nullable(TSNode t)
{
	for (int steps = 0; steps < 4 && _kbx_is(t, "nullable_type"); steps++)
		t = _kbx_field(t, "type");
	return t;
}

/*
 * A declared type as recv_type wants it: "Order", "Shop.Models.Order",
 * "Dictionary" for Dictionary<K, V>, "string", "Array" for T[]; NULL for
 * var, dynamic, a type parameter, tuples and pointers.
 */
static const char *cs_type(struct kbx_walk *w, TSNode t)
{
	struct cs_state *st = w->lang_state;
	t = strip_nullable(t);
	if (ts_node_is_null(t))
		return NULL;
	const char *tt = ts_node_type(t);
	if (!strcmp(tt, "identifier")) {
		const char *s = _kbx_node_text(w, t);
		if (!s || !strcmp(s, "dynamic") || !strcmp(s, "var") ||
		    (st && _kbx_jsc_tparams_has(&st->tparams, t, s)))
			return NULL;
		return s;
	}
	if (!strcmp(tt, "generic_name") || !strcmp(tt, "qualified_name") ||
	    !strcmp(tt, "alias_qualified_name"))
		return _kbx_jsc_clean_text(w, t, KBX_JSC_STRIP_GENERICS);
	if (!strcmp(tt, "predefined_type"))
		return _kbx_node_text(w, t);
	if (!strcmp(tt, "array_type"))
		return "Array";
	return NULL;
}

/* The elements' type of a declared collection type: T of T[], List<T>,
 * IEnumerable<T>; NULL for any other type. */
static const char *cs_element_type(struct kbx_walk *w, TSNode t)
{
	t = strip_nullable(t);
	if (_kbx_is(t, "array_type"))
		return cs_type(w, _kbx_field(t, "type"));
	if (!_kbx_is(t, "generic_name") ||
	    !listed(collections, _kbx_node_text(w, _kbx_child_of_type(t, "identifier"))))
		return NULL;
	TSNode args = _kbx_child_of_type(t, "type_argument_list");
	if (ts_node_is_null(args) || ts_node_named_child_count(args) != 1)
		return NULL;
	return cs_type(w, ts_node_named_child(args, 0));
}

/* Through parentheses to the expression. */
static TSNode strip_parens(TSNode v)
{
	for (int steps = 0; steps < 8 && _kbx_is(v, "parenthesized_expression"); steps++)
		v = ts_node_named_child(v, 0);
	return v;
}

/* The type a value states: new T(), (T)x, x as T, string literals; with
 * elem, the type of the elements it holds (new List<T>(), new T[n]). */
static const char *cs_value_type(struct kbx_walk *w, TSNode v, int elem)
{
	v = strip_parens(v);
	if (ts_node_is_null(v))
		return NULL;
	const char *t = ts_node_type(v);
	if (!strcmp(t, "object_creation_expression") || !strcmp(t, "array_creation_expression") ||
	    !strcmp(t, "cast_expression")) {
		TSNode ty = _kbx_field(v, "type");
		return elem ? cs_element_type(w, ty) : cs_type(w, ty);
	}
	if (!strcmp(t, "as_expression"))
		return elem ? cs_element_type(w, _kbx_field(v, "right")) :
			cs_type(w, _kbx_field(v, "right"));
	if (elem)
		return NULL;
	if (!strcmp(t, "string_literal") || !strcmp(t, "verbatim_string_literal") ||
	    !strcmp(t, "raw_string_literal") || !strcmp(t, "interpolated_string_expression"))
		return "string";
	return NULL;
}

/* The name a collection's element type is bound under: "xs[]" for xs. */
static const char *element_name(struct kbx_walk *w, const char *name)
{
	return name ? _kbx_join(w, name, "", "[]") : NULL;
}

/* Bind name (as a field of the enclosing type, with field) to the type
 * the declared type t or, for var and new(), the value v states, and
 * name[] to the type of its elements. */
static void bind_typed(struct kbx_walk *w, const char *name, TSNode t, TSNode v, int field)
{
	int implicit = ts_node_is_null(t) || _kbx_is(t, "implicit_type");
	const char *type = implicit ? cs_value_type(w, v, 0) : cs_type(w, t);
	const char *elem = implicit ? cs_value_type(w, v, 1) : cs_element_type(w, t);
	void (*bind)(struct kbx_walk *, const char *, const char *) =
		field ? _kbx_walk_bind_field : _kbx_walk_bind;
	bind(w, name, type);
	bind(w, element_name(w, name), elem);
}

/* The value of a variable_declarator: the expression after its name. */
static TSNode declarator_value(TSNode d)
{
	uint32_t count = ts_node_named_child_count(d);
	TSNode name = _kbx_field(d, "name");
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(d, i);
		if (!ts_node_eq(c, name) && !_kbx_is(c, "bracketed_argument_list"))
			return c;
	}
	return (TSNode){ 0 };
}

/* Bind the names a pattern declares, untyped: (a, b) = ..., var (a, b). */
static void bind_untyped_names(struct kbx_walk *w, TSNode p)
{
	if (_kbx_is(p, "identifier")) {
		_kbx_walk_bind(w, _kbx_node_text(w, p), NULL);
		return;
	}
	uint32_t count = ts_node_named_child_count(p);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(p, i);
		if (_kbx_is(c, "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, c), NULL);
	}
}

/* The declarators of a variable_declaration (a local, a field with
 * field, a using or for variable). */
static void bind_declaration(struct kbx_walk *w, TSNode decl, int field)
{
	if (ts_node_is_null(decl))
		return;
	TSNode type = _kbx_field(decl, "type");
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(decl, i);
		if (!_kbx_is(d, "variable_declarator"))
			continue;
		TSNode name = _kbx_field(d, "name");
		if (_kbx_is(name, "identifier"))
			bind_typed(w, _kbx_node_text(w, name), type, declarator_value(d), field);
		else if (!ts_node_is_null(name))
			bind_untyped_names(w, name);
	}
}

/* A parameter, a catch variable, a pattern's or out variable: a type
 * and a name. */
static void bind_declared(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	if (_kbx_is(name, "identifier"))
		bind_typed(w, _kbx_node_text(w, name), _kbx_field(n, "type"), (TSNode){ 0 }, 0);
	else if (!ts_node_is_null(name))
		bind_untyped_names(w, name);
}

/* The parameters of a method, constructor, local function, lambda or
 * anonymous method n; the first of a lambda passed to xs.Select() and
 * the like is an element of xs. */
static void bind_parameters(struct kbx_walk *w, TSNode n)
{
	struct cs_state *st = w->lang_state;
	const char *elem = NULL;
	if (st && st->elem_lambda == ts_node_start_byte(n) + 1)
		elem = st->elem_type;
	TSNode ps = _kbx_field(n, "parameters");
	if (_kbx_is(ps, "implicit_parameter") || _kbx_is(ps, "identifier")) {
		_kbx_walk_bind(w, _kbx_node_text(w, ps), elem);
		return;
	}
	uint32_t count = ts_node_is_null(ps) ? 0 : ts_node_named_child_count(ps);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(ps, i);
		if (!_kbx_is(p, "parameter"))
			continue;
		if (i == 0 && elem && ts_node_is_null(_kbx_field(p, "type")))
			_kbx_walk_bind(w, _kbx_field_text(w, p, "name"), elem);
		else
			bind_declared(w, p);
	}
}

/* The fields and properties of a type, and the parameters of its primary
 * constructor, bound when its scope opens: a method may come before the
 * field it uses. */
static void bind_fields(struct kbx_walk *w, TSNode type_decl)
{
	TSNode params = _kbx_child_of_type(type_decl, "parameter_list");
	uint32_t np = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < np; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (_kbx_is(p, "parameter"))
			bind_typed(w, _kbx_field_text(w, p, "name"), _kbx_field(p, "type"),
				   (TSNode){ 0 }, 1);
	}
	TSNode body = _kbx_field(type_decl, "body");
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		if (_kbx_is(m, "field_declaration"))
			bind_declaration(w, _kbx_child_of_type(m, "variable_declaration"), 1);
		else if (_kbx_is(m, "property_declaration"))
			bind_typed(w, _kbx_field_text(w, m, "name"), _kbx_field(m, "type"),
				   (TSNode){ 0 }, 1);
	}
}

/* What a receiver that is a name holds, as a field with fields_only (the
 * x of this.x): its type or, with elem, its elements'. */
static const char *bound_type(struct kbx_walk *w, TSNode name, int fields_only, int elem)
{
	const char *s = _kbx_node_text(w, name), *type = NULL;
	if (s && elem)
		s = element_name(w, s);
	if (s)
		_kbx_walk_bound(w, s, fields_only, &type);
	return type;
}

/* The type of the receiver expression obj where the source states it:
 * this.x, new T(), (T)x; with elem, the type of its elements, also for
 * a plain name (whose own type the walker looks up). */
static const char *receiver_type(struct kbx_walk *w, TSNode obj, int elem)
{
	obj = strip_parens(obj);
	if (_kbx_is(obj, "member_access_expression")) {
		TSNode e = _kbx_field(obj, "expression");
		if (_kbx_is(e, "this"))
			return bound_type(w, _kbx_field(obj, "name"), 1, elem);
		return NULL;
	}
	if (elem && _kbx_is(obj, "identifier"))
		return bound_type(w, obj, 0, 1);
	return cs_value_type(w, obj, elem);
}

/* xs.Select(x => ...): remember that the lambda's first parameter is an
 * element of xs. */
static void note_element_lambda(struct kbx_walk *w, TSNode call, TSNode obj, const char *name)
{
	struct cs_state *st = w->lang_state;
	if (!st || !listed(element_callbacks, name))
		return;
	const char *elem = receiver_type(w, obj, 1);
	TSNode args = _kbx_field(call, "arguments");
	if (!elem || ts_node_is_null(args) || !ts_node_named_child_count(args))
		return;
	TSNode lambda = ts_node_named_child(ts_node_named_child(args, 0), 0);
	if (!_kbx_is(lambda, "lambda_expression"))
		return;
	st->elem_lambda = ts_node_start_byte(lambda) + 1;
	st->elem_type = elem;
}

/* foreach (var x in xs), foreach (T x in xs): x's type, and its
 * elements' for a collection of collections. */
static void bind_foreach(struct kbx_walk *w, TSNode n)
{
	TSNode type = _kbx_field(n, "type"), left = _kbx_field(n, "left");
	if (!_kbx_is(left, "identifier")) {
		if (!ts_node_is_null(left))
			bind_untyped_names(w, left);
		return;
	}
	const char *name = _kbx_node_text(w, left);
	if (!ts_node_is_null(type) && !_kbx_is(type, "implicit_type")) {
		bind_typed(w, name, type, (TSNode){ 0 }, 0);
		return;
	}
	_kbx_walk_bind(w, name, receiver_type(w, _kbx_field(n, "right"), 1));
	_kbx_walk_bind(w, element_name(w, name), NULL);
}

/* The type parameters a generic type, method or local function lists. */
static void push_type_params(struct kbx_walk *w, TSNode n)
{
	struct cs_state *st = w->lang_state;
	TSNode list = _kbx_field(n, "type_parameters");
	if (ts_node_is_null(list))
		list = _kbx_child_of_type(n, "type_parameter_list");
	if (st)
		_kbx_jsc_tparams_push(w, &st->tparams, n, list);
}

static void define_type(struct kbx_walk *w, TSNode n, int kind)
{
	int sym = _kbx_walk_define(w, n, kind, _kbx_field_text(w, n, "name"), 1);
	if (sym < 0 || kind == KBX_KIND_ENUM)  /* enum E : byte names its storage */
		return;
	TSNode bases = _kbx_child_of_type(n, "base_list");
	if (!ts_node_is_null(bases))
		add_bases(w, sym, bases);
	push_type_params(w, n);
	bind_fields(w, n);
}

/* Entering the callable n that the walk defined as sym (or could not):
 * its type parameters and its parameters, which end with it. */
static void enter_callable(struct kbx_walk *w, TSNode n, int sym)
{
	struct cs_state *st = w->lang_state;
	if (sym < 0 && st)
		_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
	push_type_params(w, n);
	bind_parameters(w, n);
}

/* A construct whose variables end with it: a block, a lambda, a for,
 * foreach, using, fixed or catch, a switch section or arm. */
static void scope_ends_with(struct kbx_walk *w, TSNode n)
{
	struct cs_state *st = w->lang_state;
	if (st)
		_kbx_jsc_unbind_at_end(w, &st->unbinds, n);
}

/* from x in xs, join y in ys: a range variable, an element of what it
 * ranges over. */
static void bind_range(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	TSNode type = _kbx_field(n, "type");
	uint32_t count = ts_node_named_child_count(n);
	if (!_kbx_is(name, "identifier") || !count)
		return;
	if (!ts_node_is_null(type)) {
		bind_typed(w, _kbx_node_text(w, name), type, (TSNode){ 0 }, 0);
		return;
	}
	TSNode source = ts_node_named_child(n, count - 1);
	_kbx_walk_bind(w, _kbx_node_text(w, name),
		       ts_node_eq(source, name) ? NULL : receiver_type(w, source, 1));
}

/* A modifier of declaration n, by its text: "static", "const". */
static int has_modifier(struct kbx_walk *w, TSNode n, const char *mod)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "modifier")) {
			const char *s = _kbx_node_text(w, c);
			if (s && !strcmp(s, mod))
				return 1;
		}
	}
	return 0;
}

/* Does a field declaration give any of its variables a value? */
static int field_has_value(TSNode n)
{
	TSNode decl = _kbx_child_of_type(n, "variable_declaration");
	uint32_t count = ts_node_is_null(decl) ? 0 : ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(decl, i);
		if (_kbx_is(d, "variable_declarator") && !ts_node_is_null(declarator_value(d)))
			return 1;
	}
	return 0;
}

/* The initialiser of a field or of an auto-property (int x = F();
 * P { get; } = G();) runs with every constructor, or once for the type
 * when it is static or const: its calls belong to the type's "<init>"
 * or "<clinit>" (named as kbx names Java's), resolved in its scope. */
static void field_initialiser(struct kbx_walk *w, TSNode n)
{
	int once = has_modifier(w, n, "static") || has_modifier(w, n, "const");
	_kbx_walk_class_init(w, n, once ? "<clinit>" : "<init>");
}

/* namespace A.B;  applies to the rest of the file, which the grammar puts
 * next to it rather than inside it: open its scope on the parent node. */
static void file_scoped_namespace(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_jsc_clean_text(w, _kbx_field(n, "name"), 0);
	int sym = _kbx_jsc_define_dotted(w, n, KBX_KIND_NAMESPACE, name, 0);
	if (sym < 0 || w->depth == 0)
		return;
	w->x->syms[sym].end_line = ts_node_end_point(_kbx_walk_up(w, n)).row + 1;
	w->depth--;
	_kbx_walk_scope(w, sym);
	w->depth++;
}

/* A property or indexer runs code when it has an expression body or an
 * accessor with a body; auto-properties do not. */
static int has_code(TSNode n)
{
	TSNode v = _kbx_field(n, "value");
	if (!ts_node_is_null(v) && !strcmp(ts_node_type(v), "arrow_expression_clause"))
		return 1;
	if (!ts_node_is_null(_kbx_child_of_type(n, "arrow_expression_clause")))
		return 1;
	TSNode acc = _kbx_field(n, "accessors");
	if (ts_node_is_null(acc))
		acc = _kbx_child_of_type(n, "accessor_list");
	uint32_t count = ts_node_is_null(acc) ? 0 : ts_node_named_child_count(acc);
	for (uint32_t i = 0; i < count; i++)
		if (!ts_node_is_null(_kbx_field(ts_node_named_child(acc, i), "body")))
			return 1;
	return 0;
}

/* The simple name of an identifier or generic_name (Foo<T> -> Foo). */
static const char *simple_name(struct kbx_walk *w, TSNode n)
{
	if (ts_node_is_null(n))
		return NULL;
	if (!strcmp(ts_node_type(n), "generic_name"))
		n = _kbx_child_of_type(n, "identifier");
	if (ts_node_is_null(n) || strcmp(ts_node_type(n), "identifier"))
		return NULL;
	return _kbx_node_text(w, n);
}

static void visit_invocation(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	if (ts_node_is_null(fn))
		return;
	const char *t = ts_node_type(fn);
	const char *name = NULL, *text = NULL;
	int recv = KBX_RECV_NONE;
	if (!strcmp(t, "identifier") || !strcmp(t, "generic_name")) {
		name = simple_name(w, fn);
		if (name && !strcmp(name, "nameof"))
			return;  /* an operator that looks like a call */
	} else if (!strcmp(t, "member_access_expression")) {
		name = simple_name(w, _kbx_field(fn, "name"));
		TSNode obj = _kbx_field(fn, "expression");
		if (ts_node_is_null(obj))
			return;
		const char *ot = ts_node_type(obj);
		if (!strcmp(ot, "this")) {
			recv = KBX_RECV_SELF;
		} else if (!strcmp(ot, "base")) {
			recv = KBX_RECV_SUPER;
		} else {
			recv = KBX_RECV_EXPR;
			text = _kbx_jsc_clean_text(w, obj, KBX_JSC_NONNULL);
		}
	} else if (!strcmp(t, "conditional_access_expression")) {
		/* a?.B() */
		TSNode bind = _kbx_child_of_type(fn, "member_binding_expression");
		if (ts_node_is_null(bind))
			return;
		name = simple_name(w, _kbx_field(bind, "name"));
		recv = KBX_RECV_EXPR;
		text = _kbx_jsc_clean_text(w, _kbx_field(fn, "condition"), KBX_JSC_NONNULL);
	} else {
		return;
	}
	if (recv == KBX_RECV_EXPR && !text)
		return;
	const char *type = NULL;
	if (recv == KBX_RECV_EXPR) {
		TSNode obj = !strcmp(t, "conditional_access_expression") ?
			_kbx_field(fn, "condition") : _kbx_field(fn, "expression");
		type = receiver_type(w, obj, 0);
		note_element_lambda(w, n, obj, name);
	}
	_kbx_walk_call_typed(w, n, name, recv, text, type);
}

/* new Foo(), new A.B.Foo<T>(): a call to the class. */
static void visit_new(struct kbx_walk *w, TSNode n)
{
	TSNode type = _kbx_field(n, "type");
	if (ts_node_is_null(type))
		return;
	const char *tt = ts_node_type(type);
	if (strcmp(tt, "identifier") && strcmp(tt, "generic_name") && strcmp(tt, "qualified_name") &&
	    strcmp(tt, "alias_qualified_name"))
		return;  /* new int[3], new (int, int)... */
	_kbx_walk_call_dotted(w, n, _kbx_jsc_clean_text(w, type, KBX_JSC_STRIP_GENERICS));
}

/* : base(...) or : this(...) after a constructor's parameters. */
static void visit_ctor_initializer(struct kbx_walk *w, TSNode n)
{
	int recv = -1;
	if (_kbx_has_token(n, "base"))
		recv = KBX_RECV_SUPER;
	else if (_kbx_has_token(n, "this"))
		recv = KBX_RECV_SELF;
	if (recv >= 0)
		_kbx_walk_call(w, n, "constructor", recv, NULL);
}

/*
 * using A.B;  using static A.B.C;  using X = A.B;  global using A.B;
 * A namespace using brings every type of the namespace into scope, like
 * Java's import a.b.*, so it is a wildcard import; an alias binds one name.
 */
static void visit_using(struct kbx_walk *w, TSNode n)
{
	TSNode alias = _kbx_field(n, "name");
	const char *target = NULL;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (!ts_node_is_null(alias) && ts_node_start_byte(c) == ts_node_start_byte(alias))
			continue;
		target = _kbx_jsc_clean_text(w, c, 0);
		break;
	}
	if (!target)
		return;
	if (!ts_node_is_null(alias))
		_kbx_x_import(w->x, target, NULL, _kbx_node_text(w, alias), 0, 0, _kbx_node_line(n));
	else
		_kbx_x_import(w->x, target, NULL, NULL, 0, KBX_IMPORT_WILDCARD, _kbx_node_line(n));
}

static int cs_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct cs_state *st = w->lang_state;
	if (st)
		_kbx_jsc_unbind_leave(w, &st->unbinds, n);
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "anonymous_method_expression")) {
			scope_ends_with(w, n);
			bind_parameters(w, n);
		}
		break;
	case 'b':
		if (!strcmp(type, "block"))
			scope_ends_with(w, n);
		break;
	case 'c':
		if (!strcmp(type, "class_declaration")) {
			define_type(w, n, KBX_KIND_CLASS);
		} else if (!strcmp(type, "constructor_declaration")) {
			enter_callable(w, n, _kbx_walk_define(w, n, KBX_KIND_METHOD, "constructor", 1));
		} else if (!strcmp(type, "constructor_initializer")) {
			visit_ctor_initializer(w, n);
		} else if (!strcmp(type, "conversion_operator_declaration")) {
			enter_callable(w, n, _kbx_walk_define(w, n, KBX_KIND_METHOD, "operator", 1));
		} else if (!strcmp(type, "catch_clause")) {
			scope_ends_with(w, n);
			TSNode decl = _kbx_child_of_type(n, "catch_declaration");
			if (!ts_node_is_null(decl))
				bind_declared(w, decl);
		}
		break;
	case 'd':
		if (!strcmp(type, "destructor_declaration")) {
			const char *name = _kbx_field_text(w, n, "name");
			size_t len = name ? strlen(name) : 0;
			char buf[256];
			if (len && len + 2 <= sizeof(buf)) {
				buf[0] = '~';
				memcpy(buf + 1, name, len + 1);
				_kbx_walk_define(w, n, KBX_KIND_METHOD,
						 _kbx_arena_strdup(&w->x->arena, buf), 1);
			}
		} else if (!strcmp(type, "declaration_pattern") ||
			   !strcmp(type, "declaration_expression")) {
			/* o is Foo f, case Foo f:, out var x */
			bind_declared(w, n);
		}
		break;
	case 'e':
		if (!strcmp(type, "enum_declaration"))
			define_type(w, n, KBX_KIND_ENUM);
		break;
	case 'f':
		if (!strcmp(type, "file_scoped_namespace_declaration")) {
			file_scoped_namespace(w, n);
		} else if (!strcmp(type, "field_declaration")) {
			if (field_has_value(n))
				field_initialiser(w, n);
		} else if (!strcmp(type, "foreach_statement")) {
			scope_ends_with(w, n);
			bind_foreach(w, n);
		} else if (!strcmp(type, "for_statement")) {
			scope_ends_with(w, n);
			TSNode init = _kbx_field(n, "initializer");
			if (_kbx_is(init, "variable_declaration"))
				bind_declaration(w, init, 0);
		} else if (!strcmp(type, "fixed_statement")) {
			scope_ends_with(w, n);
			bind_declaration(w, _kbx_child_of_type(n, "variable_declaration"), 0);
		} else if (!strcmp(type, "from_clause")) {
			bind_range(w, n);
		}
		break;
	case 'i':
		if (!strcmp(type, "interface_declaration"))
			define_type(w, n, KBX_KIND_INTERFACE);
		else if (!strcmp(type, "invocation_expression"))
			visit_invocation(w, n);
		else if (!strcmp(type, "indexer_declaration") && has_code(n))
			enter_callable(w, n, _kbx_walk_define(w, n, KBX_KIND_METHOD, "this", 1));
		break;
	case 'j':
		if (!strcmp(type, "join_clause")) {
			TSNode id = _kbx_child_of_type(n, "identifier");
			if (!ts_node_is_null(id))
				_kbx_walk_bind(w, _kbx_node_text(w, id), NULL);
		}
		break;
	case 'l':
		if (!strcmp(type, "local_function_statement")) {
			enter_callable(w, n, _kbx_walk_define(w, n, KBX_KIND_FUNCTION,
							      _kbx_field_text(w, n, "name"), 1));
		} else if (!strcmp(type, "lambda_expression")) {
			scope_ends_with(w, n);
			bind_parameters(w, n);
		} else if (!strcmp(type, "local_declaration_statement")) {
			bind_declaration(w, _kbx_child_of_type(n, "variable_declaration"), 0);
		} else if (!strcmp(type, "let_clause")) {
			TSNode id = _kbx_child_of_type(n, "identifier");
			if (!ts_node_is_null(id))
				_kbx_walk_bind(w, _kbx_node_text(w, id), NULL);
		}
		break;
	case 'm':
		if (!strcmp(type, "method_declaration"))
			enter_callable(w, n, _kbx_walk_define(w, n, _kbx_walk_in_type(w) ?
							      KBX_KIND_METHOD : KBX_KIND_FUNCTION,
							      _kbx_field_text(w, n, "name"), 1));
		break;
	case 'n':
		if (!strcmp(type, "namespace_declaration"))
			_kbx_jsc_define_dotted(w, n, KBX_KIND_NAMESPACE,
					       _kbx_jsc_clean_text(w, _kbx_field(n, "name"), 0),
					       1);
		break;
	case 'o':
		if (!strcmp(type, "object_creation_expression")) {
			visit_new(w, n);
		} else if (!strcmp(type, "operator_declaration")) {
			TSNode op = _kbx_field(n, "operator");
			char buf[32] = "operator";
			const char *ot = ts_node_is_null(op) ? "" : ts_node_type(op);
			if (strlen(ot) < sizeof(buf) - 9)
				strcat(buf, ot);
			enter_callable(w, n, _kbx_walk_define(w, n, KBX_KIND_METHOD,
							      _kbx_arena_strdup(&w->x->arena, buf),
							      1));
		}
		break;
	case 'p':
		if (!strcmp(type, "property_declaration")) {
			if (has_code(n))
				_kbx_walk_define(w, n, KBX_KIND_METHOD, _kbx_field_text(w, n, "name"),
						 1);
			else if (!ts_node_is_null(_kbx_field(n, "value")))
				field_initialiser(w, n);
		}
		break;
	case 'r':
		if (!strcmp(type, "record_declaration"))
			define_type(w, n, _kbx_has_token(n, "struct") ? KBX_KIND_STRUCT : KBX_KIND_CLASS);
		break;
	case 's':
		if (!strcmp(type, "struct_declaration"))
			define_type(w, n, KBX_KIND_STRUCT);
		else if (!strcmp(type, "switch_section") || !strcmp(type, "switch_expression_arm"))
			scope_ends_with(w, n);
		break;
	case 'u':
		if (!strcmp(type, "using_directive")) {
			visit_using(w, n);
			return KBX_WALK_SKIP;
		} else if (!strcmp(type, "using_statement")) {
			scope_ends_with(w, n);
			bind_declaration(w, _kbx_child_of_type(n, "variable_declaration"), 0);
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * Namespaces do not name files in C#, but projects usually lay out folders
 * after them, often without the root namespace (Shop.Models in Models/).
 * A namespace using is tried as such a folder under each ancestor of the
 * importer; an alias may name a type, whose file usually bears its name.
 */
static void cs_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	const char *m = imp->module;
	char path[4096];
	if (!m || !*m || !strcmp(m, "System") || !strncmp(m, "System.", 7) ||
	    !strcmp(m, "Microsoft") || !strncmp(m, "Microsoft.", 10) ||
	    _kbx_dots_to_slashes(path, sizeof(path), m))
		return;
	const char *rest = strchr(path, '/');  /* without the root namespace */
	if (imp->alias) {
		_kbx_pathlist_addf(out, "*%s.cs", path);
		if (rest)
			_kbx_pathlist_addf(out, "*%s.cs", rest + 1);
	}
	_kbx_jsc_add_under_ancestors(importer, path, "/", out);
	if (rest)
		_kbx_jsc_add_under_ancestors(importer, rest + 1, "/", out);
}

static const char *const csharp_extensions[] = { ".cs", NULL };

const struct kbx_lang _kbx_lang_csharp = {
	.name = "csharp",
	.extensions = csharp_extensions,
	.grammar = kbx_tree_sitter_c_sharp,
	.visit = cs_visit,
	.begin = cs_begin,
	.end = cs_end,
	.import_candidates = cs_import_candidates,
	.implicit_self = 1,
	.nested_defs = 1,
	.scope_sep = ".",
	.visibility = _kbx_csharp_visibility,
};
