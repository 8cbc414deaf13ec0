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

static TSNode field(TSNode n, const char *name)
{
	return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

static int is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && !strcmp(ts_node_type(n), type);
}

static int word_char(unsigned char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
	       c >= 0x80;
}

/*
 * The text of an expression or name on one line, with "::" and "->"
 * written as ".", template arguments dropped ("ns::Box<int>" -> "ns.Box"),
 * whitespace dropped except one space between two word characters, and
 * string literals kept as written.
 */
static const char *compact_text(struct kbx_walk *w, TSNode n)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	if (e > w->len || s > e)
		return NULL;
	char buf[256];
	size_t o = 0;
	int pending_space = 0;
	for (uint32_t i = s; i < e && o + 2 < sizeof(buf); i++) {
		unsigned char c = (unsigned char)w->src[i];
		if (c == '"') {
			if (pending_space && o > 0 && word_char((unsigned char)buf[o - 1]))
				buf[o++] = ' ';
			pending_space = 0;
			buf[o++] = (char)c;
			for (i++; i < e && o + 2 < sizeof(buf); i++) {
				unsigned char d = (unsigned char)w->src[i];
				buf[o++] = d == '\n' || d == '\r' || d == '\t' ? ' ' : (char)d;
				if (d == '\\' && i + 1 < e && o + 2 < sizeof(buf)) {
					d = (unsigned char)w->src[++i];
					buf[o++] = d == '\n' || d == '\r' ? ' ' : (char)d;
				} else if (d == '"') {
					break;
				}
			}
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
		    (c == '\\' && i + 1 < e && (w->src[i + 1] == '\n' || w->src[i + 1] == '\r'))) {
			pending_space = 1;
			continue;
		}
		if (c == '<' && o > 0 && word_char((unsigned char)buf[o - 1]) &&
		    !(i + 1 < e && (w->src[i + 1] == '<' || w->src[i + 1] == '='))) {
			/* template arguments: skip to the matching '>' */
			int depth = 1;
			uint32_t j;
			for (j = i + 1; j < e && depth > 0; j++) {
				if (w->src[j] == '<')
					depth++;
				else if (w->src[j] == '>' && w->src[j - 1] != '-')
					depth--;
			}
			if (depth == 0) {
				i = j - 1;
				continue;
			}
		}
		if ((c == ':' && i + 1 < e && w->src[i + 1] == ':') ||
		    (c == '-' && i + 1 < e && w->src[i + 1] == '>')) {
			if (o > 0 || c == '-')
				buf[o++] = '.';
			i++;
			pending_space = 0;
			continue;
		}
		if (pending_space && o > 0 && word_char(c) && word_char((unsigned char)buf[o - 1]))
			buf[o++] = ' ';
		pending_space = 0;
		buf[o++] = (char)c;
	}
	return _kbx_arena_strndup(&w->x->arena, buf, o);
}

/* "a" "b" -> "a.b" (or "b" when a is NULL or empty), in the arena. */
static const char *join_qual(struct kbx_walk *w, const char *a, const char *b)
{
	if (!b)
		return NULL;
	if (!a || !*a)
		return b;
	size_t la = strlen(a), lb = strlen(b);
	char *tmp = malloc(la + lb + 2);
	if (!tmp)
		return NULL;
	memcpy(tmp, a, la);
	tmp[la] = '.';
	memcpy(tmp + la + 1, b, lb + 1);
	const char *q = _kbx_arena_strndup(&w->x->arena, tmp, la + lb + 1);
	free(tmp);
	return q;
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
	if (st->nowners == st->aowners) {
		size_t na = st->aowners ? st->aowners * 2 : 32;
		int *p = realloc(st->owners, na * sizeof(*p));
		if (!p)
			return;
		st->owners = p;
		st->aowners = na;
	}
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
			d = field(d, "declarator");
		} else if (!strcmp(t, "pointer_declarator") || !strcmp(t, "reference_declarator") ||
			   !strcmp(t, "parenthesized_declarator")) {
			TSNode inner = field(d, "declarator");
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
	if (is(d, "qualified_identifier")) {
		/* the qualifier is everything before the innermost name */
		TSNode name = d;
		for (int guard = 0; guard < 32 && is(name, "qualified_identifier"); guard++)
			name = field(name, "name");
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
	if (is(d, "template_function") || is(d, "template_type"))
		d = field(d, "name");
	if (ts_node_is_null(d))
		return NULL;
	return _kbx_node_text(w, d);
}

static void visit_function(struct kbx_walk *w, TSNode n)
{
	TSNode d = declarator_name(field(n, "declarator"));
	if (ts_node_is_null(d))
		return;
	const char *scope;
	const char *name = split_name(w, d, &scope);
	if (!name)
		return;
	if (!scope) {
		int parent = _kbx_walk_parent(w);
		int kind = parent >= 0 && KBX_KIND_IS_TYPE(w->x->syms[parent].kind)
			? KBX_KIND_METHOD : KBX_KIND_FUNCTION;
		_kbx_walk_define(w, n, kind, name, 1);
		return;
	}
	/* out of line: Foo::bar, ns::f */
	const char *owner = join_qual(w, scope_qual(w), scope);
	int parent = owner ? find_owner(w, owner) : -1;
	int kind = KBX_KIND_METHOD;
	if (parent >= 0 && !KBX_KIND_IS_TYPE(w->x->syms[parent].kind))
		kind = KBX_KIND_FUNCTION;  /* a namespace */
	int sym = _kbx_x_sym(w->x, kind, name, join_qual(w, owner, name), parent,
			     _kbx_node_line(n), _kbx_node_col(n), ts_node_end_point(n).row + 1);
	_kbx_walk_scope(w, sym);
}

/* A pure virtual member function: `virtual void f() = 0;` */
static void visit_field_declaration(struct kbx_walk *w, TSNode n)
{
	TSNode dv = field(n, "default_value");
	if (ts_node_is_null(dv) || strcmp(ts_node_type(dv), "number_literal"))
		return;
	TSNode fd = field(n, "declarator");
	if (!is(fd, "function_declarator"))
		return;
	TSNode d = declarator_name(fd);
	const char *scope;
	const char *name = ts_node_is_null(d) ? NULL : split_name(w, d, &scope);
	int parent = _kbx_walk_parent(w);
	if (name && parent >= 0 && KBX_KIND_IS_TYPE(w->x->syms[parent].kind))
		_kbx_walk_define(w, n, KBX_KIND_METHOD, name, 0);
}

/* A base as written, without template arguments: "ns.Mixin". */
static const char *base_text(struct kbx_walk *w, TSNode b)
{
	if (is(b, "type_identifier") || is(b, "qualified_identifier") || is(b, "template_type"))
		return compact_text(w, b);
	return NULL;
}

/* class_specifier, struct_specifier, union_specifier, enum_specifier */
static void visit_type(struct kbx_walk *w, TSNode n, int kind)
{
	if (ts_node_is_null(field(n, "body")))
		return;  /* a use or a forward declaration */
	TSNode nn = field(n, "name");
	const char *name = NULL, *scope = NULL;
	if (!ts_node_is_null(nn)) {
		name = split_name(w, nn, &scope);
	} else {
		/* typedef struct { ... } name_t; */
		TSNode parent = ts_node_parent(n);
		if (is(parent, "type_definition")) {
			TSNode d = field(parent, "declarator");
			if (is(d, "type_identifier"))
				name = _kbx_node_text(w, d);
		}
	}
	if (!name)
		return;
	int sym;
	if (scope) {
		/* class Outer::Inner { } */
		const char *owner = join_qual(w, scope_qual(w), scope);
		sym = _kbx_x_sym(w->x, kind, name, join_qual(w, owner, name),
				 owner ? find_owner(w, owner) : -1, _kbx_node_line(n),
				 _kbx_node_col(n), ts_node_end_point(n).row + 1);
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
		if (!is(c, "base_class_clause"))
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
	TSNode name = field(n, "name");
	if (is(name, "namespace_identifier") || is(name, "identifier")) {
		add_owner(w, _kbx_walk_define(w, n, KBX_KIND_NAMESPACE, _kbx_node_text(w, name), 1));
	} else if (is(name, "nested_namespace_specifier")) {
		/* namespace a::b { }: a, then a.b, both closing with n */
		uint32_t count = ts_node_named_child_count(name);
		for (uint32_t i = 0; i < count; i++) {
			TSNode part = ts_node_named_child(name, i);
			if (is(part, "namespace_identifier") || is(part, "identifier"))
				add_owner(w, _kbx_walk_define(w, n, KBX_KIND_NAMESPACE,
							      _kbx_node_text(w, part), 1));
		}
	}
}

static void add_call(struct kbx_walk *w, TSNode at, const char *name, int recv,
		     const char *receiver)
{
	if (!name)
		return;
	_kbx_x_call(w->x, name, recv, receiver, _kbx_walk_caller(w), _kbx_node_line(at),
		    _kbx_node_col(at));
}

/* A call to a qualified or plain name given as text "a.b.f" or "f". */
static void add_path_call(struct kbx_walk *w, TSNode at, const char *path)
{
	if (!path || !*path)
		return;
	const char *dot = strrchr(path, '.');
	if (!dot) {
		add_call(w, at, path, KBX_RECV_NONE, NULL);
		return;
	}
	const char *recv = _kbx_arena_strndup(&w->x->arena, path, (size_t)(dot - path));
	add_call(w, at, dot + 1, KBX_RECV_EXPR, recv);
}

/* A construction of type t: T, ns::T, T<int>. */
static void add_construction(struct kbx_walk *w, TSNode at, TSNode t)
{
	if (is(t, "type_identifier") || is(t, "qualified_identifier") || is(t, "template_type"))
		add_path_call(w, at, compact_text(w, t));
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = field(n, "function");
	if (is(fn, "identifier")) {
		add_call(w, n, _kbx_node_text(w, fn), KBX_RECV_NONE, NULL);
	} else if (is(fn, "template_function")) {
		const char *name = _kbx_field_text(w, fn, "name");
		/* static_cast<T>(x) and its kin are conversions */
		if (name && (!strcmp(name, "static_cast") || !strcmp(name, "dynamic_cast") ||
			     !strcmp(name, "const_cast") || !strcmp(name, "reinterpret_cast")))
			return;
		add_call(w, n, name, KBX_RECV_NONE, NULL);
	} else if (is(fn, "qualified_identifier")) {
		add_path_call(w, n, compact_text(w, fn));
	} else if (is(fn, "field_expression")) {
		TSNode obj = field(fn, "argument");
		TSNode f = field(fn, "field");
		if (is(f, "template_method") || is(f, "template_function"))
			f = field(f, "name");
		const char *name = ts_node_is_null(f) ? NULL : compact_text(w, f);
		if (ts_node_is_null(obj) || !name)
			return;
		if (is(obj, "this"))
			add_call(w, n, name, KBX_RECV_SELF, NULL);
		else
			add_call(w, n, name, KBX_RECV_EXPR, compact_text(w, obj));
	}
}

/* T x(args); T x{args}; */
static void visit_declaration(struct kbx_walk *w, TSNode n)
{
	TSNode type = field(n, "type");
	if (!is(type, "type_identifier") && !is(type, "qualified_identifier") &&
	    !is(type, "template_type"))
		return;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(n, i);
		if (!is(d, "init_declarator"))
			continue;
		TSNode v = field(d, "value");
		/* only a plain variable: `T *p{..}` and `T a[] = {..}` construct
		 * no T */
		if (!is(field(d, "declarator"), "identifier"))
			continue;
		if (is(v, "argument_list") || is(v, "initializer_list"))
			add_construction(w, d, type);
	}
}

static void visit_include(struct kbx_walk *w, TSNode n)
{
	TSNode path = field(n, "path");
	if (ts_node_is_null(path))
		return;
	const char *text = _kbx_node_text(w, path);
	size_t len = text ? strlen(text) : 0;
	int flags = 0;
	if (is(path, "system_lib_string"))
		flags = KBX_IMPORT_SYSTEM;
	else if (!is(path, "string_literal"))
		return;  /* #include MACRO */
	if (len < 2)
		return;
	const char *module = _kbx_arena_strndup(&w->x->arena, text + 1, len - 2);
	_kbx_x_import(w->x, module, NULL, NULL, 0, flags, _kbx_node_line(n));
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
			add_construction(w, n, field(n, "type"));
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
			add_construction(w, n, field(n, "type"));
		break;
	case 'p':
		if (!strcmp(type, "preproc_include")) {
			visit_include(w, n);
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

/* As for C: next to the includer, from the root, then by suffix. */
static void cpp_import_candidates(const char *importer, const struct kbx_ximport *imp,
				  struct kbx_pathlist *out)
{
	char dir[4096], p[4096];
	if (!imp->module || !*imp->module || (imp->flags & KBX_IMPORT_SYSTEM))
		return;
	_kbx_path_dirname(dir, sizeof(dir), importer);
	if (*dir && _kbx_path_join(p, sizeof(p), dir, imp->module) == 0)
		_kbx_pathlist_add(out, p);
	if (_kbx_path_join(p, sizeof(p), "", imp->module) == 0) {
		_kbx_pathlist_add(out, p);
		_kbx_pathlist_addf(out, "*%s", p);
	}
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
	.import_candidates = cpp_import_candidates,
	.implicit_self = 1,
	.scope_sep = "::",
};
