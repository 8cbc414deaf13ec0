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
 *
 * A receiver's type is what the source declares: parameters, locals,
 * range-for variables, globals, and the fields of a class of this file
 * (which its methods see, in its body or out of line, and through
 * this->), through the typedefs and using aliases of this file; the
 * initializer's for auto: `new T`, `T{}`, and `T(...)` when T is a class
 * of this file.  Members declared in another file (a header) are not
 * known here.
 */
#include <stdlib.h>
#include <string.h>

#include "c-common.h"
#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_cpp)

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

struct cpp_field {
	int cls;              /* the class's sym */
	const char *name;
	const char *type;     /* as bound: "T", "*T" or NULL (see below) */
};

struct cpp_alias {
	const char *name;
	const char *type;     /* as bound; NULL when unknown */
};

struct cpp_tparam {
	const char *name;
	uint32_t end;         /* the end byte of its template declaration */
};

/*
 * The classes, structs and namespaces defined so far, which out-of-line
 * definitions look up by qualified name: a list of its own so that a file
 * of many methods does not search every method for each one.
 */
struct cpp_state {
	int *owners;
	size_t nowners, aowners;
	/* the fields of the classes of this file, for this->x and for
	 * their methods defined out of line */
	struct cpp_field *fields;
	size_t nfields, afields;
	/* typedef and using aliases of this file, by simple name */
	struct cpp_alias *aliases;
	size_t naliases, aaliases;
	/* the type parameters of the open template declarations */
	struct cpp_tparam *tparams;
	size_t ntparams, atparams;
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

/* ---- the static types of names: the evidence for calls ----
 *
 * A name is bound to what its declaration states: "T" for an object of
 * class type T or a reference to one, "*T" for a pointer to one, NULL
 * when the declaration names no class kbx can follow (a built-in type,
 * auto without a telling initializer, a template parameter, a type that
 * depends on one, an array, a pointer to a pointer, a function pointer).
 * The leading '*' is this file's own mark: a call looks its receiver up
 * here (receiver_binding) and gives the walker the type it proves, since
 * `p->f()` on an object (a smart pointer, an iterator) goes through its
 * operator-> and calls no f of the object's own type, and `x.f()` on a
 * pointer is no call kbx understands.  Template arguments are no part of
 * a type ("std.vector" for std::vector<int>): `std::unique_ptr<T> p` is a
 * std.unique_ptr, not a T.
 */

static int is_tparam(const struct kbx_walk *w, const char *name, size_t len)
{
	const struct cpp_state *st = w->lang_state;
	for (size_t i = 0; st && i < st->ntparams; i++)
		if (strlen(st->tparams[i].name) == len && !memcmp(st->tparams[i].name, name, len))
			return 1;
	return 0;
}

/* The parameters of a template declaration are in scope until it ends. */
static void open_tparams(struct kbx_walk *w, TSNode decl)
{
	struct cpp_state *st = w->lang_state;
	TSNode list = _kbx_field(decl, "parameters");
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; st && i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		if (_kbx_is(p, "template_template_parameter_declaration")) {
			uint32_t nc = ts_node_named_child_count(p);
			p = nc ? ts_node_named_child(p, nc - 1) : p;
		}
		const char *t = ts_node_type(p);
		if (strcmp(t, "type_parameter_declaration") &&
		    strcmp(t, "variadic_type_parameter_declaration") &&
		    strcmp(t, "optional_type_parameter_declaration"))
			continue;   /* a value: int N */
		TSNode name = _kbx_field(p, "name");
		if (ts_node_is_null(name))
			name = _kbx_child_of_type(p, "type_identifier");
		const char *text = ts_node_is_null(name) ? NULL : _kbx_node_text(w, name);
		if (!text || _kbx_grow((void **)&st->tparams, &st->atparams, st->ntparams,
				       sizeof(*st->tparams), 8))
			continue;
		st->tparams[st->ntparams++] = (struct cpp_tparam){ text, ts_node_end_byte(decl) };
	}
}

/* Forget the template parameters of the declarations that ended before n. */
static void close_tparams(struct kbx_walk *w, TSNode n)
{
	struct cpp_state *st = w->lang_state;
	uint32_t at = ts_node_start_byte(n);
	while (st && st->ntparams && st->tparams[st->ntparams - 1].end <= at)
		st->ntparams--;
}

static const struct cpp_alias *find_alias(const struct kbx_walk *w, const char *name, size_t len)
{
	const struct cpp_state *st = w->lang_state;
	for (size_t i = 0; st && i < st->naliases; i++)
		if (strlen(st->aliases[i].name) == len && !memcmp(st->aliases[i].name, name, len))
			return &st->aliases[i];
	return NULL;
}

/* The class a type specifier names, as bound: "geo.Circle", "std.vector",
 * "*Node" through `typedef Node *NodePtr`; NULL for no class. */
static const char *class_type(struct kbx_walk *w, TSNode t)
{
	const char *s = NULL;
	if (_kbx_is(t, "type_identifier") || _kbx_is(t, "qualified_identifier") ||
	    _kbx_is(t, "template_type")) {
		s = _kbx_compact_text(w, t, COMPACT);
	} else if (_kbx_is(t, "struct_specifier") || _kbx_is(t, "class_specifier") ||
		   _kbx_is(t, "union_specifier")) {
		TSNode name = _kbx_field(t, "name");
		s = ts_node_is_null(name) ? NULL : _kbx_compact_text(w, name, COMPACT);
	}
	if (!s || !*s)
		return NULL;
	size_t first = strcspn(s, ".");
	if (is_tparam(w, s, first))
		return NULL;    /* T, T::type: known only once instantiated */
	const struct cpp_alias *a = find_alias(w, s, first);
	if (!a)
		return s;
	if (!s[first] || !a->type)
		return a->type;
	/* Alias::Member: the member of the class the alias names */
	return a->type[0] == '*' ? NULL : _kbx_join(w, a->type, "", s + first);
}

/* t behind depth more pointers (-1: no class object at all). */
static const char *pointer_to(struct kbx_walk *w, const char *t, int depth)
{
	if (!t || t == _kbx_qual_too_long || depth < 0)
		return NULL;
	if (depth == 0)
		return t;
	if (depth > 1 || t[0] == '*')
		return NULL;
	return _kbx_join(w, "*", "", t);
}

/* The type an initializer states: new T(...) is a T*, T{...} a T, and
 * T(...) a T when T is a class of this file (a call of a function looks
 * the same). */
static const char *value_type(struct kbx_walk *w, TSNode v)
{
	if (_kbx_is(v, "new_expression"))
		return pointer_to(w, class_type(w, _kbx_field(v, "type")), 1);
	if (_kbx_is(v, "compound_literal_expression"))
		return class_type(w, _kbx_field(v, "type"));
	if (_kbx_is(v, "call_expression")) {
		TSNode fn = _kbx_field(v, "function");
		if (!_kbx_is(fn, "identifier") && !_kbx_is(fn, "qualified_identifier"))
			return NULL;
		const char *t = _kbx_compact_text(w, fn, COMPACT);
		const struct cpp_state *st = w->lang_state;
		for (size_t i = 0; t && st && i < st->nowners; i++) {
			const struct kbx_xsym *s = &w->x->syms[st->owners[i]];
			if (KBX_KIND_IS_TYPE(s->kind) && s->kind != KBX_KIND_ENUM &&
			    (!strcmp(s->qual, t) || (_kbx_has_suffix(s->qual, t) &&
			     s->qual[strlen(s->qual) - strlen(t) - 1] == '.')))
				return t;
		}
	}
	return NULL;
}

static void add_field(struct kbx_walk *w, int cls, const char *name, const char *type)
{
	struct cpp_state *st = w->lang_state;
	if (!st || _kbx_grow((void **)&st->fields, &st->afields, st->nfields, sizeof(*st->fields),
			     32))
		return;
	st->fields[st->nfields++] = (struct cpp_field){ cls, name, type };
}

/*
 * Bind the names a declaration declares (a local, a global, a parameter,
 * a range-for variable; with cls >= 0 the fields of that class) to the
 * types it states; auto takes its initializer's.
 */
static void bind_declaration(struct kbx_walk *w, TSNode decl, int cls)
{
	TSNode tnode = _kbx_field(decl, "type");
	int is_auto = _kbx_is(tnode, "placeholder_type_specifier");
	const char *type = is_auto ? NULL : class_type(w, tnode);
	/* in a body, `T x(y);` constructs a variable far more often than it
	 * declares a function */
	int vexing = type && cls < 0 && _kbx_is(decl, "declaration") && _kbx_walk_caller(w) >= 0;
	TSNode ds[64];
	uint32_t nd = _kbx_c_declarators(decl, ds, 64);
	for (uint32_t i = 0; i < nd; i++) {
		if (_kbx_is(ds[i], "structured_binding_declarator")) {
			for (uint32_t j = 0; j < ts_node_named_child_count(ds[i]); j++)
				_kbx_walk_bind(w, _kbx_node_text(w, ts_node_named_child(ds[i], j)),
					       NULL);
			continue;
		}
		int depth;
		TSNode name = _kbx_c_declared_name(w, decl, ds[i], vexing, &depth);
		if (ts_node_is_null(name))
			continue;
		const char *t;
		if (is_auto) {
			/* auto x = v (and auto *x, auto &x): v's type */
			TSNode v = _kbx_is(ds[i], "init_declarator") ? _kbx_field(ds[i], "value")
								      : _kbx_field(decl, "value");
			t = ts_node_is_null(v) ? NULL : value_type(w, v);
		} else {
			t = pointer_to(w, type, depth);
		}
		const char *text = _kbx_node_text(w, name);
		if (cls >= 0) {
			_kbx_walk_bind_field(w, text, t);
			add_field(w, cls, text, t);
			/* and for the methods another file defines
			 * (void DBImpl::f() of db_impl.h's DBImpl) */
			_kbx_x_field(w->x, cls, text, t, _kbx_node_line(decl));
		} else {
			_kbx_walk_bind(w, text, t);
		}
	}
}

/* The parameters of a parameter_list. */
static void bind_parameters(struct kbx_walk *w, TSNode list)
{
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		if (_kbx_is(p, "parameter_declaration") || _kbx_is(p, "optional_parameter_declaration") ||
		    _kbx_is(p, "variadic_parameter_declaration"))
			bind_declaration(w, p, -1);
	}
}

static void visit_alias(struct kbx_walk *w, TSNode n);

/* The fields a class body declares, also under #if; the body's typedefs
 * and using aliases first, which its fields may name (MemTable's `Table
 * table_;` after `typedef SkipList<...> Table;`). */
static void bind_fields(struct kbx_walk *w, TSNode body, int cls, int guard)
{
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count && !guard; i++) {
		TSNode m = ts_node_named_child(body, i);
		if (_kbx_is(m, "type_definition") || _kbx_is(m, "alias_declaration"))
			visit_alias(w, m);
	}
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		const char *t = ts_node_type(m);
		if (!strcmp(t, "field_declaration"))
			bind_declaration(w, m, cls);
		else if (!strncmp(t, "preproc_", 8) && guard < 8)
			bind_fields(w, m, cls, guard + 1);
	}
}

/* typedef T Name; using Name = T; */
static void add_alias(struct kbx_walk *w, const char *name, const char *type)
{
	struct cpp_state *st = w->lang_state;
	if (!st || !name)
		return;
	for (size_t i = 0; i < st->naliases; i++)
		if (!strcmp(st->aliases[i].name, name)) {
			if (!st->aliases[i].type || !type || strcmp(st->aliases[i].type, type))
				st->aliases[i].type = NULL;   /* two meanings */
			return;
		}
	if (_kbx_grow((void **)&st->aliases, &st->aaliases, st->naliases, sizeof(*st->aliases), 8))
		return;
	st->aliases[st->naliases++] = (struct cpp_alias){ name, type };
}

static void visit_alias(struct kbx_walk *w, TSNode n)
{
	if (_kbx_is(n, "alias_declaration")) {
		TSNode desc = _kbx_field(n, "type");
		if (ts_node_is_null(desc))
			return;
		const char *type = class_type(w, _kbx_field(desc, "type"));
		int depth = 0;
		for (TSNode d = _kbx_field(desc, "declarator"); !ts_node_is_null(d) && depth >= 0;) {
			if (_kbx_is(d, "abstract_pointer_declarator")) {
				depth++;
				d = _kbx_field(d, "declarator");
			} else if (_kbx_is(d, "abstract_reference_declarator")) {
				uint32_t nc = ts_node_named_child_count(d);
				d = nc ? ts_node_named_child(d, nc - 1) : (TSNode){ 0 };
			} else {
				depth = -1;
			}
		}
		add_alias(w, _kbx_field_text(w, n, "name"), pointer_to(w, type, depth));
		return;
	}
	/* typedef: an anonymous struct it names is a definition of that
	 * name, no alias */
	TSNode tnode = _kbx_field(n, "type");
	if ((_kbx_is(tnode, "struct_specifier") || _kbx_is(tnode, "class_specifier") ||
	     _kbx_is(tnode, "union_specifier")) && ts_node_is_null(_kbx_field(tnode, "name")))
		return;
	const char *type = class_type(w, tnode);
	TSNode ds[16];
	uint32_t nd = _kbx_c_declarators(n, ds, 16);
	for (uint32_t i = 0; i < nd; i++) {
		int depth;
		TSNode name = _kbx_c_declared_name(w, n, ds[i], 0, &depth);
		if (!ts_node_is_null(name))
			add_alias(w, _kbx_node_text(w, name), pointer_to(w, type, depth));
	}
}

/* The innermost function or method, and the scope level it opened. */
static int enclosing_callable(const struct kbx_walk *w, size_t *level)
{
	for (size_t i = w->nscope; i-- > 0;)
		if (KBX_KIND_IS_CALLABLE(w->x->syms[w->scope_sym[i]].kind)) {
			*level = i + 1;
			return w->scope_sym[i];
		}
	*level = 0;
	return -1;
}

/* The class whose member the innermost method is, when this file
 * defines it (in its body or out of line), else -1. */
static int this_class(const struct kbx_walk *w)
{
	size_t level;
	int m = enclosing_callable(w, &level);
	if (m < 0 || w->x->syms[m].kind != KBX_KIND_METHOD)
		return -1;
	int cls = w->x->syms[m].parent;
	return cls >= 0 && KBX_KIND_IS_TYPE(w->x->syms[cls].kind) ? cls : -1;
}

/* Whether every member a method may name without this-> is a field kbx
 * bound: its class is this file's and has no base (whose members kbx
 * cannot see).  Free functions name no members. */
static int members_known(const struct kbx_walk *w)
{
	size_t level;
	int m = enclosing_callable(w, &level);
	if (m < 0 || w->x->syms[m].kind != KBX_KIND_METHOD)
		return 1;
	int cls = this_class(w);
	if (cls < 0)
		return 0;
	for (size_t i = 0; i < w->x->ninherits; i++)
		if (w->x->inherits[i].sym == cls)
			return 0;
	return 1;
}

/*
 * What name is bound to in the innermost scope that binds it; *found is 0
 * when none does.  A name bound outside a method, other than a field of
 * its class, may be hidden by a member kbx cannot see: it is unknown.
 */
static const char *lookup(const struct kbx_walk *w, const char *name, int *found)
{
	size_t level;
	enclosing_callable(w, &level);
	int cls = this_class(w);
	size_t cls_level = 0;
	for (size_t i = 0; cls >= 0 && i < w->nscope; i++)
		if (w->scope_sym[i] == cls)
			cls_level = i + 1;
	for (size_t i = w->nbind; i-- > 0;) {
		const struct _kbx_binding *b = &w->bind[i];
		if (strcmp(b->name, name))
			continue;
		*found = 1;
		if (b->conflict)
			return NULL;
		if (b->level < level && b->level != cls_level && !members_known(w))
			return NULL;
		return b->type;
	}
	*found = 0;
	return NULL;
}

/* A field of class cls (of this file). */
static const char *field_of(const struct kbx_walk *w, int cls, const char *name, int *found)
{
	const struct cpp_state *st = w->lang_state;
	for (size_t i = st ? st->nfields : 0; i-- > 0;)
		if (st->fields[i].cls == cls && !strcmp(st->fields[i].name, name)) {
			*found = 1;
			return st->fields[i].type;
		}
	*found = 0;
	return NULL;
}

/* The class of this file a type as bound names, or -1. */
static int class_of_file(const struct kbx_walk *w, const char *type)
{
	const struct cpp_state *st = w->lang_state;
	int hit = -1;
	size_t tl = strlen(type);
	for (size_t i = 0; st && i < st->nowners; i++) {
		const struct kbx_xsym *s = &w->x->syms[st->owners[i]];
		size_t ql = strlen(s->qual);
		if (!KBX_KIND_IS_TYPE(s->kind) || ql < tl || strcmp(s->qual + ql - tl, type) ||
		    (ql > tl && s->qual[ql - tl - 1] != '.'))
			continue;
		if (hit >= 0)
			return -1;   /* two classes of that name */
		hit = st->owners[i];
	}
	return hit;
}

/* The type a receiver proves for a call through it with "." (arrow 0)
 * or "->": the class, or "?" when its declaration names none. */
static const char *as_receiver(const char *bound, int arrow)
{
	if (!bound || bound == _kbx_qual_too_long)
		return "?";
	if (bound[0] == '*')
		return arrow ? bound + 1 : "?";
	return arrow ? "?" : bound;
}

static int is_arrow(struct kbx_walk *w, TSNode field_expr)
{
	const char *op = _kbx_field_text(w, field_expr, "operator");
	return op && !strcmp(op, "->");
}

/*
 * What a receiver is bound to: a name, this->name, and a.b or a->b when
 * a's class is one of this file's.  *found is 0 when nothing is known.
 */
static const char *receiver_binding(struct kbx_walk *w, TSNode e, int *found, int guard)
{
	*found = 0;
	if (_kbx_is(e, "identifier")) {
		const char *name = _kbx_node_text(w, e);
		return name ? lookup(w, name, found) : NULL;
	}
	if (!_kbx_is(e, "field_expression") || guard > 4)
		return NULL;
	TSNode obj = _kbx_field(e, "argument");
	TSNode f = _kbx_field(e, "field");
	const char *name = _kbx_is(f, "field_identifier") ? _kbx_node_text(w, f) : NULL;
	if (!name)
		return NULL;
	int cls;
	if (_kbx_is(obj, "this")) {
		cls = this_class(w);
	} else {
		int inner_found;
		const char *inner = receiver_binding(w, obj, &inner_found, guard + 1);
		if (!inner_found)
			return NULL;
		const char *t = as_receiver(inner, is_arrow(w, e));
		cls = strcmp(t, "?") ? class_of_file(w, t) : -1;
	}
	return cls >= 0 ? field_of(w, cls, name, found) : NULL;
}

/* The parameters of a function definition's declarator. */
static void bind_function_parameters(struct kbx_walk *w, TSNode d)
{
	for (int guard = 0; guard < 32 && !ts_node_is_null(d); guard++) {
		if (_kbx_is(d, "function_declarator")) {
			bind_parameters(w, _kbx_field(d, "parameters"));
			return;
		}
		TSNode inner = _kbx_field(d, "declarator");
		if (ts_node_is_null(inner)) {
			uint32_t n = ts_node_named_child_count(d);
			inner = n ? ts_node_named_child(d, n - 1) : inner;
		}
		d = inner;
	}
}

/*
 * A googletest case, `TEST_F(Fixture, Name) { ... }`: the macro makes the
 * class Fixture_Name_Test, derived from Fixture, whose TestBody is the
 * body, so the body's plain calls are the fixture's methods.  kbx reads
 * it as that class and method, as googletest names them (TEST(Suite,
 * Name) derives from nothing kbx can see; TEST_P, TYPED_TEST and
 * TYPED_TEST_P as TEST_F).  TestBody is called by the framework, never
 * by its name.  1 when n is one.
 */
static int visit_gtest(struct kbx_walk *w, TSNode n)
{
	TSNode fd = _kbx_field(n, "declarator");
	if (!_kbx_is(fd, "function_declarator") || !ts_node_is_null(_kbx_field(n, "type")))
		return 0;
	TSNode id = _kbx_field(fd, "declarator");
	if (!_kbx_is(id, "identifier"))
		return 0;
	const char *macro = _kbx_node_text(w, id);
	int fixture = macro && (!strcmp(macro, "TEST_F") || !strcmp(macro, "TEST_P") ||
				!strcmp(macro, "TYPED_TEST") || !strcmp(macro, "TYPED_TEST_P"));
	if (!macro || (!fixture && strcmp(macro, "TEST")))
		return 0;
	TSNode params = _kbx_field(fd, "parameters");
	if (ts_node_is_null(params) || ts_node_named_child_count(params) != 2)
		return 0;
	const char *part[2];
	for (uint32_t i = 0; i < 2; i++) {
		TSNode p = ts_node_named_child(params, i);
		TSNode t = _kbx_field(p, "type");
		if (!_kbx_is(p, "parameter_declaration") || !ts_node_is_null(_kbx_field(p, "declarator")) ||
		    !_kbx_is(t, "type_identifier"))
			return 0;
		part[i] = _kbx_node_text(w, t);
		if (!part[i])
			return 0;
	}
	char name[300];
	snprintf(name, sizeof(name), "%s_%s_Test", part[0], part[1]);
	const char *cname = _kbx_arena_strndup(&w->x->arena, name, strlen(name));
	const char *owner = fixture ? join_qual(w, scope_qual(w), part[0]) : NULL;
	int base = owner ? find_owner(w, owner) : -1;
	const char *cqual = join_qual(w, scope_qual(w), cname);
	int cls = _kbx_x_sym_at(w->x, KBX_KIND_CLASS, cname, cqual, _kbx_walk_parent(w), n);
	if (cls < 0)
		return 1;
	if (fixture)
		_kbx_x_inherit(w->x, cls, part[0], _kbx_node_line(n));
	int sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, "TestBody", join_qual(w, cqual, "TestBody"),
				cls, n);
	if (sym < 0)
		return 1;
	w->x->syms[sym].flags |= KBX_SYM_IMPLICIT;
	_kbx_walk_scope(w, sym);
	/* the body sees the fields of a fixture this file defines */
	const struct cpp_state *st = w->lang_state;
	for (size_t i = 0; base >= 0 && st && i < st->nfields; i++)
		if (st->fields[i].cls == base)
			_kbx_walk_bind(w, st->fields[i].name, st->fields[i].type);
	return 1;
}

static void visit_function(struct kbx_walk *w, TSNode n)
{
	if (visit_gtest(w, n))
		return;
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
		if (sym >= 0)
			bind_function_parameters(w, _kbx_field(n, "declarator"));
		return;
	}
	/* out of line: Foo::bar, ns::f */
	const char *owner = join_qual(w, scope_qual(w), scope);
	int parent = owner ? find_owner(w, owner) : -1;
	int kind = KBX_KIND_METHOD;
	if (parent >= 0 && !KBX_KIND_IS_TYPE(w->x->syms[parent].kind))
		kind = KBX_KIND_FUNCTION;  /* a namespace */
	int sym = _kbx_x_sym_at(w->x, kind, name, join_qual(w, owner, name), parent, n);
	if (sym < 0)
		return;
	_kbx_walk_scope(w, sym);
	/* a method of a class of this file sees its fields */
	const struct cpp_state *st = w->lang_state;
	for (size_t i = 0; parent >= 0 && kind == KBX_KIND_METHOD && st && i < st->nfields; i++)
		if (st->fields[i].cls == parent)
			_kbx_walk_bind(w, st->fields[i].name, st->fields[i].type);
	bind_function_parameters(w, _kbx_field(n, "declarator"));
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
	bind_fields(w, _kbx_field(n, "body"), sym, 0);
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
		if (_kbx_is(obj, "this")) {
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
			return;
		}
		int found;
		const char *bound = receiver_binding(w, obj, &found, 0);
		/* a name this file does not declare, called through ->: "->",
		 * for the resolver to take a pointer field of the caller's
		 * class that another file declares (kbx_lang's
		 * fields_elsewhere) */
		const char *rt = found ? as_receiver(bound, is_arrow(w, fn))
			       : _kbx_is(obj, "identifier") && is_arrow(w, fn) ? "->" : NULL;
		_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, _kbx_compact_text(w, obj, COMPACT),
				     rt);
	}
}

/* T x(args); T x{args}; and the names it binds */
static void visit_declaration(struct kbx_walk *w, TSNode n)
{
	bind_declaration(w, n, -1);
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
	close_tparams(w, n);
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "alias_declaration"))
			visit_alias(w, n);
		break;
	case 'c':
		if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		else if (!strcmp(type, "class_specifier"))
			visit_type(w, n, KBX_KIND_CLASS);
		else if (!strcmp(type, "compound_literal_expression"))
			add_construction(w, n, _kbx_field(n, "type"));
		else if (!strcmp(type, "catch_clause"))
			bind_parameters(w, _kbx_field(n, "parameters"));
		break;
	case 'd':
		if (!strcmp(type, "declaration"))
			visit_declaration(w, n);
		break;
	case 'e':
		if (!strcmp(type, "enum_specifier"))
			visit_type(w, n, KBX_KIND_ENUM);
		else if (!strcmp(type, "expression_statement"))
			_kbx_c_visit_bare_name(w, n);
		break;
	case 'f':
		if (!strcmp(type, "function_definition"))
			visit_function(w, n);
		else if (!strcmp(type, "field_declaration"))
			visit_field_declaration(w, n);
		else if (!strcmp(type, "for_range_loop"))
			bind_declaration(w, n, -1);
		break;
	case 'l':
		if (!strcmp(type, "lambda_expression")) {
			TSNode d = _kbx_field(n, "declarator");   /* absent in [] { } */
			if (!ts_node_is_null(d))
				bind_parameters(w, _kbx_field(d, "parameters"));
		}
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
		if (!strcmp(type, "preproc_def") || !strcmp(type, "preproc_function_def")) {
			_kbx_c_visit_define(w, n, kbx_tree_sitter_cpp());
			return KBX_WALK_SKIP;
		}
		break;
	case 's':
		if (!strcmp(type, "struct_specifier"))
			visit_type(w, n, KBX_KIND_STRUCT);
		break;
	case 't':
		if (!strcmp(type, "template_declaration"))
			open_tparams(w, n);
		else if (!strcmp(type, "type_definition"))
			visit_alias(w, n);
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
		free(st->fields);
		free(st->aliases);
		free(st->tparams);
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
	.grammar = kbx_tree_sitter_cpp,
	.visit = cpp_visit,
	.begin = cpp_begin,
	.end = cpp_end,
	.import_candidates = _kbx_c_import_candidates,
	.implicit_self = 1,
	.fields_elsewhere = 1,
	.scope_sep = "::",
	.mask = _kbx_c_mask_macros,
	.visibility = _kbx_cpp_visibility,
};
