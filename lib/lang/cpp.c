/*
 * C++: namespaces, classes, structs, unions and enums, functions and
 * methods (inline and out of line), calls, constructions, #include lines
 * and base classes from tree-sitter-cpp.
 *
 * Namespaces qualify what they hold ("geo.Shape.area"); an anonymous
 * namespace qualifies nothing.  An out-of-line definition
 * `void geo::Shape::area() {}` is the method "geo.Shape.area" (plus the
 * enclosing namespaces), whose parent is the class when this file defines
 * it; when the qualifier names a namespace of this file, it is a function
 * of that namespace.  Member function declarations are not definitions,
 * except pure virtual ones (`= 0`), which have no body anywhere.
 *
 * Calls: `this->f()` is a self call, `Type::f()` and `ns::f()` have the
 * qualifier as receiver, `obj.f()` and `p->f()` the object.  `new T(...)`,
 * `T{...}` and a declaration with arguments (`T x(1);`) construct T and
 * are reported as calls to it.  Template arguments are dropped from
 * receivers and bases.  `using` declarations bind no file and are not
 * reported.
 */
#include <stdlib.h>
#include <string.h>

#include "lang.h"

const TSLanguage *tree_sitter_cpp(void);

/* How C++ writes a receiver, base or qualified name on one line: "::" and
 * "->" as ".", template arguments dropped ("ns::Box<int>" -> "ns.Box"),
 * string literals as written, a backslash-newline as white space. */
#define COMPACT (KBX_COMPACT_LINE_CONT | KBX_COMPACT_ARROW | KBX_COMPACT_SCOPE | \
		 KBX_COMPACT_NO_TEMPLATE)

/* "a" "b" -> "a.b" (or "b" when a is NULL or empty), in the arena. */
static const char *join_qual(struct kbx_walk *w, const char *a, const char *b)
{
	if (!b)
		return NULL;
	if (a == _kbx_qual_too_long)
		return a;
	if (!a || !*a)
		return b;
	return _kbx_join(w, a, ".", b);
}

/* The qualified name of the current scope, "" at top level. */
static const char *scope_qual(const struct kbx_walk *w)
{
	int p = _kbx_walk_parent(w);
	return p >= 0 ? w->x->syms[p].qual : "";
}

/*
 * The classes, structs and namespaces defined so far, which out-of-line
 * definitions look up by qualified name: a list of its own so that a file
 * of many methods does not search every method for each one.
 */
struct cpp_state {
	int *owners;
	size_t nowners, aowners;
};

static void add_owner(struct kbx_walk *w, int sym)
{
	struct cpp_state *st = w->lang_state;
	if (!st || sym < 0)
		return;
	if (_kbx_grow((void **)&st->owners, &st->aowners, st->nowners, sizeof(*st->owners), 32))
		return;
	st->owners[st->nowners++] = sym;
}

static int find_owner(const struct kbx_walk *w, const char *qual)
{
	const struct cpp_state *st = w->lang_state;
	if (!st)
		return -1;
	for (size_t i = st->nowners; i-- > 0;)
		if (!strcmp(w->x->syms[st->owners[i]].qual, qual))
			return st->owners[i];
	return -1;
}

/*
 * The node that names a function definition, looking through pointers,
 * references, parentheses and attributes.
 */
static TSNode declarator_name(TSNode d)
{
	for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
		const char *t = ts_node_type(d);
		if (!strcmp(t, "function_declarator") || !strcmp(t, "attributed_declarator")) {
			d = _kbx_field(d, "declarator");
		} else if (!strcmp(t, "pointer_declarator") || !strcmp(t, "reference_declarator") ||
			   !strcmp(t, "parenthesized_declarator")) {
			TSNode inner = _kbx_field(d, "declarator");
			if (ts_node_is_null(inner)) {
				/* no field: the last named child is the declarator */
				uint32_t n = ts_node_named_child_count(d);
				inner = n ? ts_node_named_child(d, n - 1) : inner;
			}
			d = inner;
		} else {
			return d;
		}
	}
	TSNode null = { 0 };
	return null;
}

/*
 * Split a declarator name into its qualifier ("geo.Shape", or NULL) and
 * simple name ("area", "~Shape", "operator==").
 */
static const char *split_name(struct kbx_walk *w, TSNode d, const char **scope)
{
	*scope = NULL;
	if (_kbx_is(d, "qualified_identifier")) {
		/* the qualifier is everything before the innermost name */
		TSNode name = d;
		for (int guard = 0; guard < 32 && _kbx_is(name, "qualified_identifier"); guard++)
			name = _kbx_field(name, "name");
		if (ts_node_is_null(name))
			return NULL;
		uint32_t start = ts_node_start_byte(d), end = ts_node_start_byte(name);
		if (end > start && end <= w->len) {
			/* the text "geo::Shape::", compacted, without its last dot */
			char buf[512];
			size_t len = end - start < sizeof(buf) - 1 ? end - start : sizeof(buf) - 1;
			size_t o = 0;
			for (size_t i = 0; i < len; i++) {
				char c = w->src[start + i];
				if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
					continue;
				if (c == '<') {
					int depth = 1;
					for (i++; i < len && depth > 0; i++)
						depth += w->src[start + i] == '<' ? 1 :
							 w->src[start + i] == '>' ? -1 : 0;
					i--;
					continue;
				}
				if (c == ':' && i + 1 < len && w->src[start + i + 1] == ':') {
					if (o > 0)
						buf[o++] = '.';
					i++;
					continue;
				}
				buf[o++] = c;
			}
			while (o > 0 && buf[o - 1] == '.')
				o--;
			if (o > 0)
				*scope = _kbx_arena_strndup(&w->x->arena, buf, o);
		}
		d = name;
	}
	if (_kbx_is(d, "template_function") || _kbx_is(d, "template_type"))
		d = _kbx_field(d, "name");
	if (ts_node_is_null(d))
		return NULL;
	return _kbx_node_text(w, d);
}

static void visit_function(struct kbx_walk *w, TSNode n)
{
	TSNode d = declarator_name(_kbx_field(n, "declarator"));
	if (ts_node_is_null(d))
		return;
	const char *scope;
	const char *name = split_name(w, d, &scope);
	if (!name)
		return;
	if (!scope) {
		int in_type = _kbx_walk_in_type(w);
		int sym = _kbx_walk_define(w, n, in_type ? KBX_KIND_METHOD : KBX_KIND_FUNCTION,
					   name, 1);
		/* a static member function is not file-local; a static free one is */
		if (sym >= 0 && !in_type && _kbx_c_is_static(w, n))
			w->x->syms[sym].flags |= KBX_SYM_FILE_LOCAL;
		return;
	}
	/* out of line: Foo::bar, ns::f */
	const char *owner = join_qual(w, scope_qual(w), scope);
	int parent = owner ? find_owner(w, owner) : -1;
	int kind = KBX_KIND_METHOD;
	if (parent >= 0 && !KBX_KIND_IS_TYPE(w->x->syms[parent].kind))
		kind = KBX_KIND_FUNCTION;  /* a namespace */
	int sym = _kbx_x_sym_at(w->x, kind, name, join_qual(w, owner, name), parent, n);
	_kbx_walk_scope(w, sym);
}

/* A pure virtual member function: `virtual void f() = 0;` */
static void visit_field_declaration(struct kbx_walk *w, TSNode n)
{
	TSNode dv = _kbx_field(n, "default_value");
	if (ts_node_is_null(dv) || strcmp(ts_node_type(dv), "number_literal"))
		return;
	TSNode fd = _kbx_field(n, "declarator");
	if (!_kbx_is(fd, "function_declarator"))
		return;
	TSNode d = declarator_name(fd);
	const char *scope;
	const char *name = ts_node_is_null(d) ? NULL : split_name(w, d, &scope);
	if (name && _kbx_walk_in_type(w))
		_kbx_walk_define(w, n, KBX_KIND_METHOD, name, 0);
}

/* A base as written, without template arguments: "ns.Mixin". */
static const char *base_text(struct kbx_walk *w, TSNode b)
{
	if (_kbx_is(b, "type_identifier") || _kbx_is(b, "qualified_identifier") ||
	    _kbx_is(b, "template_type"))
		return _kbx_compact_text(w, b, COMPACT);
	return NULL;
}

/* class_specifier, struct_specifier, union_specifier, enum_specifier */
static void visit_type(struct kbx_walk *w, TSNode n, int kind)
{
	if (ts_node_is_null(_kbx_field(n, "body")))
		return;  /* a use or a forward declaration */
	TSNode nn = _kbx_field(n, "name");
	const char *name = NULL, *scope = NULL;
	if (!ts_node_is_null(nn)) {
		name = split_name(w, nn, &scope);
	} else {
		name = _kbx_c_typedef_name(w, n);
	}
	if (!name)
		return;
	int sym;
	if (scope) {
		/* class Outer::Inner { } */
		const char *owner = join_qual(w, scope_qual(w), scope);
		sym = _kbx_x_sym_at(w->x, kind, name, join_qual(w, owner, name),
				 owner ? find_owner(w, owner) : -1, n);
		if (kind != KBX_KIND_ENUM)
			_kbx_walk_scope(w, sym);
	} else {
		sym = _kbx_walk_define(w, n, kind, name, kind != KBX_KIND_ENUM);
	}
	add_owner(w, sym);
	if (sym < 0 || kind == KBX_KIND_ENUM)
		return;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (!_kbx_is(c, "base_class_clause"))
			continue;
		uint32_t nb = ts_node_named_child_count(c);
		for (uint32_t j = 0; j < nb; j++) {
			TSNode b = ts_node_named_child(c, j);
			const char *base = base_text(w, b);
			if (base)
				_kbx_x_inherit(w->x, sym, base, _kbx_node_line(b));
		}
	}
}

static void visit_namespace(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	if (_kbx_is(name, "namespace_identifier") || _kbx_is(name, "identifier")) {
		add_owner(w, _kbx_walk_define(w, n, KBX_KIND_NAMESPACE, _kbx_node_text(w, name), 1));
	} else if (_kbx_is(name, "nested_namespace_specifier")) {
		/* namespace a::b { }: a, then a.b, both closing with n */
		uint32_t count = ts_node_named_child_count(name);
		for (uint32_t i = 0; i < count; i++) {
			TSNode part = ts_node_named_child(name, i);
			if (_kbx_is(part, "namespace_identifier") || _kbx_is(part, "identifier"))
				add_owner(w, _kbx_walk_define(w, n, KBX_KIND_NAMESPACE,
							      _kbx_node_text(w, part), 1));
		}
	}
}

/* A construction of type t: T, ns::T, T<int>. */
static void add_construction(struct kbx_walk *w, TSNode at, TSNode t)
{
	if (_kbx_is(t, "type_identifier") || _kbx_is(t, "qualified_identifier") ||
	    _kbx_is(t, "template_type"))
		_kbx_walk_call_dotted(w, at, _kbx_compact_text(w, t, COMPACT));
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	if (_kbx_is(fn, "identifier")) {
		_kbx_walk_call(w, n, _kbx_node_text(w, fn), KBX_RECV_NONE, NULL);
	} else if (_kbx_is(fn, "template_function")) {
		const char *name = _kbx_field_text(w, fn, "name");
		/* static_cast<T>(x) and its kin are conversions */
		if (name && (!strcmp(name, "static_cast") || !strcmp(name, "dynamic_cast") ||
			     !strcmp(name, "const_cast") || !strcmp(name, "reinterpret_cast")))
			return;
		_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
	} else if (_kbx_is(fn, "qualified_identifier")) {
		_kbx_walk_call_dotted(w, n, _kbx_compact_text(w, fn, COMPACT));
	} else if (_kbx_is(fn, "field_expression")) {
		TSNode obj = _kbx_field(fn, "argument");
		TSNode f = _kbx_field(fn, "field");
		if (_kbx_is(f, "template_method") || _kbx_is(f, "template_function"))
			f = _kbx_field(f, "name");
		const char *name = ts_node_is_null(f) ? NULL : _kbx_compact_text(w, f, COMPACT);
		if (ts_node_is_null(obj) || !name)
			return;
		if (_kbx_is(obj, "this"))
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		else
			_kbx_walk_call(w, n, name, KBX_RECV_EXPR,
				       _kbx_compact_text(w, obj, COMPACT));
	}
}

/* T x(args); T x{args}; */
static void visit_declaration(struct kbx_walk *w, TSNode n)
{
	TSNode type = _kbx_field(n, "type");
	if (!_kbx_is(type, "type_identifier") && !_kbx_is(type, "qualified_identifier") &&
	    !_kbx_is(type, "template_type"))
		return;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(n, i);
		if (!_kbx_is(d, "init_declarator"))
			continue;
		TSNode v = _kbx_field(d, "value");
		/* only a plain variable: `T *p{..}` and `T a[] = {..}` construct
		 * no T */
		if (!_kbx_is(_kbx_field(d, "declarator"), "identifier"))
			continue;
		if (_kbx_is(v, "argument_list") || _kbx_is(v, "initializer_list"))
			add_construction(w, d, type);
	}
}

static int cpp_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		else if (!strcmp(type, "class_specifier"))
			visit_type(w, n, KBX_KIND_CLASS);
		else if (!strcmp(type, "compound_literal_expression"))
			add_construction(w, n, _kbx_field(n, "type"));
		break;
	case 'd':
		if (!strcmp(type, "declaration"))
			visit_declaration(w, n);
		break;
	case 'e':
		if (!strcmp(type, "enum_specifier"))
			visit_type(w, n, KBX_KIND_ENUM);
		break;
	case 'f':
		if (!strcmp(type, "function_definition"))
			visit_function(w, n);
		else if (!strcmp(type, "field_declaration"))
			visit_field_declaration(w, n);
		break;
	case 'n':
		if (!strcmp(type, "namespace_definition"))
			visit_namespace(w, n);
		else if (!strcmp(type, "new_expression"))
			add_construction(w, n, _kbx_field(n, "type"));
		break;
	case 'p':
		if (!strcmp(type, "preproc_include")) {
			_kbx_c_visit_include(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 's':
		if (!strcmp(type, "struct_specifier"))
			visit_type(w, n, KBX_KIND_STRUCT);
		break;
	case 'u':
		if (!strcmp(type, "union_specifier"))
			visit_type(w, n, KBX_KIND_STRUCT);
		break;
	}
	return KBX_WALK_CONTINUE;
}

static void cpp_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct cpp_state));
}

static void cpp_end(struct kbx_walk *w)
{
	struct cpp_state *st = w->lang_state;
	if (st) {
		free(st->owners);
		free(st);
	}
	w->lang_state = NULL;
}

static const char *const cpp_extensions[] = {
	".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".C", NULL
};

const struct kbx_lang _kbx_lang_cpp = {
	.name = "cpp",
	.extensions = cpp_extensions,
	.grammar = tree_sitter_cpp,
	.visit = cpp_visit,
	.begin = cpp_begin,
	.end = cpp_end,
	.import_candidates = _kbx_c_import_candidates,
	.implicit_self = 1,
	.scope_sep = "::",
	.visibility = _kbx_cpp_visibility,
};
