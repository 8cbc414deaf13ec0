/*
 * Java: classes, interfaces, enums, records and annotation types (nested
 * ones qualified by their outer class), methods and constructors, method
 * calls, `new`, this()/super() constructor calls, imports (static and
 * on-demand) and extends/implements.
 *
 * Constructors are named "constructor" (as in JavaScript), so that a class
 * and its constructor never share a name: `new Foo()` is a call to the
 * class Foo.  Methods of anonymous classes are not definitions: like
 * lambdas, their calls belong to the enclosing method.
 */
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_java)

/* A class body that belongs to `new X() { ... }` or to an enum constant. */
static int in_anonymous_body(struct kbx_walk *w, TSNode n)
{
	TSNode body = _kbx_walk_up(w, n);
	if (ts_node_is_null(body) || strcmp(ts_node_type(body), "class_body"))
		return 0;
	TSNode owner = _kbx_walk_up(w, body);
	if (ts_node_is_null(owner))
		return 0;
	const char *t = ts_node_type(owner);
	return !strcmp(t, "object_creation_expression") || !strcmp(t, "enum_constant");
}

/* Each type of a superclass, super_interfaces or extends_interfaces node,
 * through its type_list if it has one. */
static void add_bases(struct kbx_walk *w, int sym, TSNode clause)
{
	if (ts_node_is_null(clause))
		return;
	TSNode list = _kbx_child_of_type(clause, "type_list");
	if (ts_node_is_null(list))
		list = clause;
	uint32_t count = ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode t = ts_node_named_child(list, i);
		const char *tt = ts_node_type(t);
		if (!strcmp(tt, "type_identifier") || !strcmp(tt, "scoped_type_identifier") ||
		    !strcmp(tt, "generic_type"))
			_kbx_x_inherit(w->x, sym, _kbx_jsc_clean_text(w, t, KBX_JSC_STRIP_GENERICS),
				       _kbx_node_line(t));
	}
}

/* ---- the static types of names: the evidence for calls ---- */

/* A declared type as recv_type wants it: "java.util.Map" for
 * java.util.Map<K, V>; "var" is no type. */
static const char *type_text(struct kbx_walk *w, TSNode t)
{
	const char *s = _kbx_jsc_clean_text(w, t, KBX_JSC_STRIP_GENERICS);
	return s && strcmp(s, "var") ? s : NULL;
}

/* The type an initializer states: new T(...) */
static const char *value_type(struct kbx_walk *w, TSNode v)
{
	if (!ts_node_is_null(v) && !strcmp(ts_node_type(v), "object_creation_expression"))
		return type_text(w, _kbx_field(v, "type"));
	return NULL;
}

/* Bind the declarators of a declaration with a "type" field (fields,
 * locals) to that type; var takes its initializer's. */
static void bind_declarators(struct kbx_walk *w, TSNode decl, int field)
{
	const char *type = type_text(w, _kbx_field(decl, "type"));
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(decl, i);
		if (strcmp(ts_node_type(d), "variable_declarator"))
			continue;
		const char *name = _kbx_field_text(w, d, "name");
		const char *t = type ? type : value_type(w, _kbx_field(d, "value"));
		if (field)
			_kbx_walk_bind_field(w, name, t);
		else
			_kbx_walk_bind(w, name, t);
	}
}

/* A parameter-like node: a type and a name (parameters, for-each
 * variables, resources, catch parameters). */
static void bind_typed_name(struct kbx_walk *w, TSNode n)
{
	TSNode t = _kbx_field(n, "type");
	if (ts_node_is_null(t))
		t = _kbx_child_of_type(n, "catch_type");
	const char *type = ts_node_is_null(t) ? NULL : type_text(w, t);
	if (!type)
		type = value_type(w, _kbx_field(n, "value"));
	TSNode name = _kbx_field(n, "name");
	if (ts_node_is_null(name))
		name = _kbx_child_of_type(n, "identifier");
	if (!ts_node_is_null(name))
		_kbx_walk_bind(w, _kbx_node_text(w, name), type);
}

/* The fields of a class, bound when its scope opens: a method may come
 * before the field it uses.  Record components are fields too. */
static void bind_fields(struct kbx_walk *w, TSNode type_decl)
{
	TSNode params = _kbx_field(type_decl, "parameters");
	uint32_t np = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < np; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (!strcmp(ts_node_type(p), "formal_parameter"))
			_kbx_walk_bind_field(w, _kbx_field_text(w, p, "name"),
					     type_text(w, _kbx_field(p, "type")));
	}
	TSNode body = _kbx_field(type_decl, "body");
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		if (!strcmp(ts_node_type(m), "field_declaration") ||
		    !strcmp(ts_node_type(m), "constant_declaration"))
			bind_declarators(w, m, 1);
	}
}

static void define_type(struct kbx_walk *w, TSNode n, int kind)
{
	int sym = _kbx_walk_define(w, n, kind, _kbx_field_text(w, n, "name"), 1);
	if (sym < 0)
		return;
	add_bases(w, sym, _kbx_field(n, "superclass"));
	add_bases(w, sym, _kbx_field(n, "interfaces"));
	add_bases(w, sym, _kbx_child_of_type(n, "extends_interfaces"));
	bind_fields(w, n);
}

static void visit_invocation(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_field_text(w, n, "name");
	TSNode obj = _kbx_field(n, "object");
	int recv = KBX_RECV_NONE;
	const char *text = NULL;
	if (!ts_node_is_null(_kbx_child_of_type(n, "super")) &&
	    (ts_node_is_null(obj) || strcmp(ts_node_type(obj), "super"))) {
		recv = KBX_RECV_SUPER;  /* Iface.super.m() */
	} else if (!ts_node_is_null(obj)) {
		const char *t = ts_node_type(obj);
		if (!strcmp(t, "this"))
			recv = KBX_RECV_SELF;
		else if (!strcmp(t, "super"))
			recv = KBX_RECV_SUPER;
		else if ((text = _kbx_jsc_clean_text(w, obj, 0)))
			recv = KBX_RECV_EXPR;
		else
			return;
	}
	/* the receiver's type where the source states it: a typed name
	 * (the walker looks it up), this.field, new T() */
	const char *type = NULL;
	if (recv == KBX_RECV_EXPR && !strcmp(ts_node_type(obj), "field_access") &&
	    !ts_node_is_null(_kbx_child_of_type(obj, "this")))
		_kbx_walk_bound(w, _kbx_field_text(w, obj, "field"), 1, &type);
	else if (recv == KBX_RECV_EXPR)
		type = value_type(w, obj);
	_kbx_walk_call_typed(w, n, name, recv, text, type);
}

/* new Foo(), new a.b.Foo<>(): a call to the class, qualified by what
 * precedes it. */
static void visit_new(struct kbx_walk *w, TSNode n)
{
	_kbx_walk_call_dotted(w, n, _kbx_jsc_clean_text(w, _kbx_field(n, "type"),
							KBX_JSC_STRIP_GENERICS));
}

/* import a.b.C;  import a.b.*;  import static a.b.C.m;  import static a.b.C.*; */
static void visit_import(struct kbx_walk *w, TSNode n)
{
	TSNode path = _kbx_child_of_type(n, "scoped_identifier");
	if (ts_node_is_null(path))
		path = _kbx_child_of_type(n, "identifier");
	const char *text = _kbx_jsc_clean_text(w, path, 0);
	if (!text)
		return;
	uint32_t line = _kbx_node_line(n);
	/* import static brings a class's static members, to be called
	 * without a qualifier */
	int flags = 0;
	for (uint32_t i = 0; i < ts_node_child_count(n); i++)
		if (!strcmp(ts_node_type(ts_node_child(n, i)), "static"))
			flags |= KBX_IMPORT_STATIC;
	if (!ts_node_is_null(_kbx_child_of_type(n, "asterisk"))) {
		_kbx_x_import(w->x, text, NULL, NULL, 0, KBX_IMPORT_WILDCARD | flags, line);
		return;
	}
	_kbx_jsc_import_dotted(w, text, NULL, flags, line);
}

/* Does a declaration's modifiers node say static? */
static int is_static(TSNode decl)
{
	TSNode mods = _kbx_child_of_type(decl, "modifiers");
	uint32_t count = ts_node_is_null(mods) ? 0 : ts_node_child_count(mods);
	for (uint32_t i = 0; i < count; i++)
		if (!strcmp(ts_node_type(ts_node_child(mods, i)), "static"))
			return 1;
	return 0;
}

/* Does a field declaration give one of its variables a value? */
static int has_initializer(TSNode decl)
{
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(decl, i);
		if (!strcmp(ts_node_type(d), "variable_declarator") &&
		    !ts_node_is_null(_kbx_field(d, "value")))
			return 1;
	}
	return 0;
}

/* Code that runs when the class is loaded (static field initialisers,
 * static blocks, enum constants' arguments) belongs to "<clinit>", code
 * that runs with every constructor (instance field initialisers and
 * blocks) to "<init>": methods of the class, resolved in its scope. */
static void class_init_scope(struct kbx_walk *w, TSNode n, int is_class_load)
{
	_kbx_walk_class_init(w, n, is_class_load ? "<clinit>" : "<init>");
}

static int java_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'b':
		if (!strcmp(type, "block") && _kbx_is(_kbx_walk_up(w, n), "class_body") &&
		    !in_anonymous_body(w, n))
			class_init_scope(w, n, 0);
		break;
	case 'a':
		if (!strcmp(type, "annotation_type_declaration"))
			define_type(w, n, KBX_KIND_INTERFACE);
		break;
	case 'c':
		if (!strcmp(type, "class_declaration"))
			define_type(w, n, KBX_KIND_CLASS);
		else if (!strcmp(type, "catch_formal_parameter"))
			bind_typed_name(w, n);
		else if (!strcmp(type, "constructor_declaration") ||
			 !strcmp(type, "compact_constructor_declaration"))
			_kbx_walk_define(w, n, KBX_KIND_METHOD, "constructor", 1);
		break;
	case 'e':
		if (!strcmp(type, "enum_constant") &&
		    !ts_node_is_null(_kbx_child_of_type(n, "argument_list"))) {
			class_init_scope(w, n, 1);
		} else if (!strcmp(type, "enhanced_for_statement")) {
			bind_typed_name(w, n);
		} else if (!strcmp(type, "enum_declaration")) {
			define_type(w, n, KBX_KIND_ENUM);
		} else if (!strcmp(type, "explicit_constructor_invocation")) {
			/* this(...) or super(...) */
			TSNode c = _kbx_field(n, "constructor");
			if (!ts_node_is_null(c))
				_kbx_walk_call(w, n, "constructor",
					       strcmp(ts_node_type(c), "super") ? KBX_RECV_SELF :
					       KBX_RECV_SUPER, NULL);
		}
		break;
	case 'f':
		if (!strcmp(type, "formal_parameter"))
			bind_typed_name(w, n);
		else if (!strcmp(type, "field_declaration") && !in_anonymous_body(w, n) &&
			 has_initializer(n))
			class_init_scope(w, n, is_static(n));
		break;
	case 'l':
		if (!strcmp(type, "local_variable_declaration")) {
			bind_declarators(w, n, 0);
		} else if (!strcmp(type, "lambda_expression")) {
			/* untyped parameters: values of unknown type */
			TSNode ps = _kbx_field(n, "parameters");
			if (!ts_node_is_null(ps) && !strcmp(ts_node_type(ps), "identifier"))
				_kbx_walk_bind(w, _kbx_node_text(w, ps), NULL);
			uint32_t np = ts_node_is_null(ps) ? 0 : ts_node_named_child_count(ps);
			for (uint32_t i = 0; i < np; i++) {
				TSNode p = ts_node_named_child(ps, i);
				if (!strcmp(ts_node_type(p), "identifier"))
					_kbx_walk_bind(w, _kbx_node_text(w, p), NULL);
			}
		}
		break;
	case 'i':
		if (!strcmp(type, "interface_declaration")) {
			define_type(w, n, KBX_KIND_INTERFACE);
		} else if (!strcmp(type, "import_declaration")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 'm':
		if (!strcmp(type, "method_declaration")) {
			if (!in_anonymous_body(w, n))
				_kbx_walk_define(w, n, _kbx_walk_in_type(w) ?
						 KBX_KIND_METHOD : KBX_KIND_FUNCTION,
						 _kbx_field_text(w, n, "name"), 1);
		} else if (!strcmp(type, "method_invocation")) {
			visit_invocation(w, n);
		}
		break;
	case 'o':
		if (!strcmp(type, "object_creation_expression"))
			visit_new(w, n);
		break;
	case 'p':
		if (!strcmp(type, "package_declaration"))
			return KBX_WALK_SKIP;
		break;
	case 'r':
		if (!strcmp(type, "record_declaration"))
			define_type(w, n, KBX_KIND_CLASS);
		else if (!strcmp(type, "resource"))
			bind_typed_name(w, n);
		break;
	case 's':
		if (!strcmp(type, "spread_parameter"))
			bind_typed_name(w, n);
		else if (!strcmp(type, "static_initializer"))
			class_init_scope(w, n, 1);
		break;
	}
	return KBX_WALK_CONTINUE;
}

static int is_platform(const char *module)
{
	static const char *const prefixes[] = { "java.", "javax.", "jdk.", "sun.", NULL };
	for (size_t i = 0; prefixes[i]; i++)
		if (!strncmp(module, prefixes[i], strlen(prefixes[i])))
			return 1;
	return !strcmp(module, "java") || !strcmp(module, "javax");
}

static void java_import_candidates(const char *importer, const struct kbx_ximport *imp,
				   struct kbx_pathlist *out)
{
	char mod[4096];
	if (!imp->module || !*imp->module || is_platform(imp->module) ||
	    _kbx_dots_to_slashes(mod, sizeof(mod), imp->module))
		return;
	if (imp->flags & KBX_IMPORT_WILDCARD) {
		/* a package: its directory under whichever source root holds
		 * the importer; or, for `import static a.b.C.*`, the class */
		_kbx_jsc_add_under_ancestors(importer, mod, "/", out);
		_kbx_pathlist_addf(out, "*%s.java", mod);
		/* the package in the source roots of other modules */
		_kbx_pathlist_addf(out, "*%s/", mod);
		return;
	}
	/* the class file; for a static import or a nested class the module
	 * itself names the file */
	if (imp->name)
		_kbx_pathlist_addf(out, "*%s/%s.java", mod, imp->name);
	_kbx_pathlist_addf(out, "*%s.java", mod);
}

static const char *const java_extensions[] = { ".java", NULL };

const struct kbx_lang _kbx_lang_java = {
	.name = "java",
	.extensions = java_extensions,
	.grammar = kbx_tree_sitter_java,
	.visit = java_visit,
	.import_candidates = java_import_candidates,
	.implicit_self = 1,
	.dir_is_package = 1,
	.scope_sep = ".",
	.visibility = _kbx_java_visibility,
	.wildcards_hide = 1,
};
