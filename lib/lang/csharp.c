/*
 * C#: namespaces (block and file-scoped), classes, structs, interfaces,
 * enums and records, methods, constructors ("constructor", as in Java),
 * destructors, operators, properties with code, local functions; calls,
 * `new`, `: base(...)`/`: this(...)`; using directives; base lists.
 */
#include <string.h>

#include "js-common.h"

const TSLanguage *tree_sitter_c_sharp(void);

/* Whether n has an anonymous child token of the given type ("struct"). */
static int has_token(TSNode n, const char *type)
{
	uint32_t count = ts_node_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_child(n, i);
		if (!ts_node_is_named(c) && !strcmp(ts_node_type(c), type))
			return 1;
	}
	return 0;
}

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

static void define_type(struct kbx_walk *w, TSNode n, int kind)
{
	int sym = _kbx_walk_define(w, n, kind, _kbx_field_text(w, n, "name"), 1);
	if (sym < 0 || kind == KBX_KIND_ENUM)  /* enum E : byte names its storage */
		return;
	TSNode bases = _kbx_child_of_type(n, "base_list");
	if (!ts_node_is_null(bases))
		add_bases(w, sym, bases);
}

/* namespace A.B;  applies to the rest of the file, which the grammar puts
 * next to it rather than inside it: open its scope on the parent node. */
static void file_scoped_namespace(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_jsc_clean_text(w, _kbx_field(n, "name"), 0);
	int sym = _kbx_jsc_define_dotted(w, n, KBX_KIND_NAMESPACE, name, 0);
	if (sym < 0 || w->depth == 0)
		return;
	w->x->syms[sym].end_line = ts_node_end_point(ts_node_parent(n)).row + 1;
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
	_kbx_walk_call(w, n, name, recv, text);
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
	if (has_token(n, "base"))
		recv = KBX_RECV_SUPER;
	else if (has_token(n, "this"))
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
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "class_declaration"))
			define_type(w, n, KBX_KIND_CLASS);
		else if (!strcmp(type, "constructor_declaration"))
			_kbx_walk_define(w, n, KBX_KIND_METHOD, "constructor", 1);
		else if (!strcmp(type, "constructor_initializer"))
			visit_ctor_initializer(w, n);
		else if (!strcmp(type, "conversion_operator_declaration"))
			_kbx_walk_define(w, n, KBX_KIND_METHOD, "operator", 1);
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
		}
		break;
	case 'e':
		if (!strcmp(type, "enum_declaration"))
			define_type(w, n, KBX_KIND_ENUM);
		break;
	case 'f':
		if (!strcmp(type, "file_scoped_namespace_declaration"))
			file_scoped_namespace(w, n);
		break;
	case 'i':
		if (!strcmp(type, "interface_declaration"))
			define_type(w, n, KBX_KIND_INTERFACE);
		else if (!strcmp(type, "invocation_expression"))
			visit_invocation(w, n);
		else if (!strcmp(type, "indexer_declaration") && has_code(n))
			_kbx_walk_define(w, n, KBX_KIND_METHOD, "this", 1);
		break;
	case 'l':
		if (!strcmp(type, "local_function_statement"))
			_kbx_walk_define(w, n, KBX_KIND_FUNCTION, _kbx_field_text(w, n, "name"), 1);
		break;
	case 'm':
		if (!strcmp(type, "method_declaration"))
			_kbx_walk_define(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD :
					 KBX_KIND_FUNCTION, _kbx_field_text(w, n, "name"), 1);
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
			_kbx_walk_define(w, n, KBX_KIND_METHOD, _kbx_arena_strdup(&w->x->arena, buf),
					 1);
		}
		break;
	case 'p':
		if (!strcmp(type, "property_declaration") && has_code(n))
			_kbx_walk_define(w, n, KBX_KIND_METHOD, _kbx_field_text(w, n, "name"), 1);
		break;
	case 'r':
		if (!strcmp(type, "record_declaration"))
			define_type(w, n, has_token(n, "struct") ? KBX_KIND_STRUCT : KBX_KIND_CLASS);
		break;
	case 's':
		if (!strcmp(type, "struct_declaration"))
			define_type(w, n, KBX_KIND_STRUCT);
		break;
	case 'u':
		if (!strcmp(type, "using_directive")) {
			visit_using(w, n);
			return KBX_WALK_SKIP;
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
	.grammar = tree_sitter_c_sharp,
	.visit = cs_visit,
	.import_candidates = cs_import_candidates,
	.implicit_self = 1,
	.scope_sep = ".",
	.visibility = _kbx_csharp_visibility,
};
