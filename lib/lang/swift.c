/*
 * Swift: classes, structs, enums, actors and protocols (nested ones
 * qualified by their outer type), functions, methods and initialisers
 * ("init"); the methods an extension adds to a type are that type's,
 * T.f; calls with their receivers, Foo(...) as a call to Foo; imports of
 * modules and the supertypes a type lists.
 *
 * The grammar reads class, struct, enum, actor and extension alike
 * (class_declaration) and tells them apart by their keyword; its field
 * names are not used, since the runtime kbx links reads some of them
 * wrongly for this grammar: children are found by their types.
 *
 * The types of receivers come from what the source states: a parameter,
 * local or property declared `x: Foo` (or Foo?, Foo!), the type's stored
 * properties, an initialiser Foo(...) whose name starts with a capital
 * letter, string literals, and self inside an extension.
 */
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_swift)

/* The extensions being walked: the type each extends, to the end of it. */
struct sw_state {
	struct sw_ext { uint32_t end; const char *type; } *v;
	size_t n, alloc;
};

static void sw_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct sw_state));
}

static void sw_end(struct kbx_walk *w)
{
	struct sw_state *st = w->lang_state;
	if (st)
		free(st->v);
	free(st);
	w->lang_state = NULL;
}

/* The type the innermost extension holding n extends, or NULL. */
static const char *extension_at(struct kbx_walk *w, TSNode n)
{
	struct sw_state *st = w->lang_state;
	if (!st)
		return NULL;
	while (st->n && st->v[st->n - 1].end <= ts_node_start_byte(n))
		st->n--;
	return st->n ? st->v[st->n - 1].type : NULL;
}

/* The keyword token of a declaration ("class", "struct", ...), or "". */
static const char *keyword(TSNode n)
{
	uint32_t count = ts_node_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_child(n, i);
		if (!ts_node_is_named(c))
			return ts_node_type(c);
	}
	return "";
}

/* A written type as recv_type wants it: Foo for Foo, Foo?, Foo! and
 * a.Foo<T>; NULL for an array, a tuple or a function type. */
static const char *type_text(struct kbx_walk *w, TSNode t)
{
	while (_kbx_is(t, "optional_type") || _kbx_is(t, "type_annotation") ||
	       _kbx_is(t, "implicitly_unwrapped_type"))
		t = ts_node_named_child(t, 0);
	if (!_kbx_is(t, "user_type"))
		return NULL;
	return _kbx_jsc_clean_text(w, t, KBX_JSC_STRIP_GENERICS);
}

/* The first named child of n that is a type, or a null node. */
static TSNode type_child(TSNode n)
{
	static const char *const types[] = {
		"user_type", "optional_type", "type_annotation", "implicitly_unwrapped_type", NULL
	};
	return _kbx_jsc_child_of_types(n, types);
}

/* Foo(...) with Foo capitalised is a Foo; a string literal a String. */
static const char *value_type(struct kbx_walk *w, TSNode v)
{
	if (_kbx_is(v, "line_string_literal") || _kbx_is(v, "multi_line_string_literal"))
		return "String";
	return _kbx_jsc_capital_call(w, v, "simple_identifier");
}

/* let x: T = v, var y = Foo(): the name, bound to the type it states. */
static void bind_property(struct kbx_walk *w, TSNode decl, int field)
{
	TSNode pat = _kbx_child_of_type(decl, "pattern");
	TSNode name = ts_node_is_null(pat) ? pat : _kbx_child_of_type(pat, "simple_identifier");
	if (ts_node_is_null(name))
		return;
	const char *type = type_text(w, type_child(decl));
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count && !type; i++)
		type = value_type(w, ts_node_named_child(decl, i));
	if (field)
		_kbx_walk_bind_field(w, _kbx_node_text(w, name), type);
	else
		_kbx_walk_bind(w, _kbx_node_text(w, name), type);
}

static void bind_parameter(struct kbx_walk *w, TSNode p)
{
	TSNode name = _kbx_child_of_type(p, "simple_identifier");
	uint32_t count = ts_node_named_child_count(p);
	/* `for label name: T`: the last name before the type is the local */
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(p, i);
		if (_kbx_is(c, "simple_identifier"))
			name = c;
	}
	if (!ts_node_is_null(name))
		_kbx_walk_bind(w, _kbx_node_text(w, name), type_text(w, type_child(p)));
}

/* : Base, Proto */
static void add_bases(struct kbx_walk *w, int sym, TSNode decl)
{
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count; i++) {
		TSNode spec = ts_node_named_child(decl, i);
		if (!_kbx_is(spec, "inheritance_specifier"))
			continue;
		const char *base = type_text(w, ts_node_named_child(spec, 0));
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(spec));
	}
}

static void visit_type(struct kbx_walk *w, TSNode n, int kind)
{
	TSNode name = _kbx_child_of_type(n, "type_identifier");
	if (ts_node_is_null(name))
		return;
	int sym = _kbx_walk_define(w, n, kind, _kbx_node_text(w, name), 1);
	if (sym < 0)
		return;
	add_bases(w, sym, n);
	TSNode body = _kbx_child_of_type(n, "class_body");
	if (ts_node_is_null(body))
		body = _kbx_child_of_type(n, "enum_class_body");
	if (ts_node_is_null(body))
		body = _kbx_child_of_type(n, "protocol_body");
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode m = ts_node_named_child(body, i);
		if (_kbx_is(m, "property_declaration"))
			bind_property(w, m, 1);
	}
}

static void visit_class(struct kbx_walk *w, TSNode n)
{
	const char *k = keyword(n);
	if (!strcmp(k, "extension")) {
		/* extension T: its methods are T's, defined here */
		struct sw_state *st = w->lang_state;
		const char *type = type_text(w, _kbx_child_of_type(n, "user_type"));
		if (!type || !st || _kbx_grow((void **)&st->v, &st->alloc, st->n, sizeof(*st->v), 8))
			return;
		extension_at(w, n);
		const char *dot = strrchr(type, '.');
		st->v[st->n].end = ts_node_end_byte(n);
		st->v[st->n].type = dot ? dot + 1 : type;
		st->n++;
		return;
	}
	visit_type(w, n, !strcmp(k, "struct") ? KBX_KIND_STRUCT :
		   !strcmp(k, "enum") ? KBX_KIND_ENUM : KBX_KIND_CLASS);
}

/* A function's name: its first simple_identifier; NULL for an operator
 * (`static func == (a: T, b: T)`), which no call names. */
static const char *name_of(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_child_of_type(n, "simple_identifier");
	return ts_node_is_null(name) ? NULL : _kbx_node_text(w, name);
}

static void visit_function(struct kbx_walk *w, TSNode n, const char *name)
{
	if (!name)
		return;
	const char *ext = _kbx_walk_in_type(w) ? NULL : extension_at(w, n);
	if (!ext) {
		_kbx_walk_define(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION,
				 name, 1);
		return;
	}
	const char *qual = _kbx_join(w, ext, ".", name);
	if (qual && qual != _kbx_qual_too_long)
		_kbx_jsc_define_dotted(w, n, KBX_KIND_METHOD, qual, 1);
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode callee = ts_node_named_child(n, 0);
	if (_kbx_is(callee, "simple_identifier")) {
		_kbx_walk_call(w, n, _kbx_node_text(w, callee), KBX_RECV_NONE, NULL);
		return;
	}
	if (!_kbx_is(callee, "navigation_expression"))
		return;  /* a call through a value */
	TSNode obj = ts_node_named_child(callee, 0);
	TSNode suffix = _kbx_child_of_type(callee, "navigation_suffix");
	TSNode last = ts_node_is_null(suffix) ? suffix :
		_kbx_child_of_type(suffix, "simple_identifier");
	if (ts_node_is_null(last) || ts_node_is_null(obj))
		return;
	const char *name = _kbx_node_text(w, last);
	if (_kbx_is(obj, "super_expression")) {
		_kbx_walk_call(w, n, name, KBX_RECV_SUPER, NULL);
		return;
	}
	if (_kbx_is(obj, "self_expression")) {
		const char *ext = extension_at(w, n);
		if (ext && !_kbx_walk_in_type(w))
			_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, "self", ext);
		else
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		return;
	}
	const char *text = _kbx_jsc_clean_text(w, obj, KBX_JSC_NONNULL);
	if (!text)
		return;
	const char *type = NULL;
	if (_kbx_is(obj, "navigation_expression") &&
	    _kbx_is(ts_node_named_child(obj, 0), "self_expression")) {
		/* self.property.m() */
		TSNode s = _kbx_child_of_type(obj, "navigation_suffix");
		TSNode f = ts_node_is_null(s) ? s : _kbx_child_of_type(s, "simple_identifier");
		if (!ts_node_is_null(f))
			_kbx_walk_bound(w, _kbx_node_text(w, f), 1, &type);
	} else {
		type = value_type(w, obj);
	}
	_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, text, type);
}

/* import Module, import struct Module.Type: the module's files. */
static void visit_import(struct kbx_walk *w, TSNode n)
{
	TSNode id = _kbx_child_of_type(n, "identifier");
	const char *text = _kbx_jsc_clean_text(w, id, 0);
	if (!text)
		return;
	const char *dot = strchr(text, '.');
	if (dot)
		text = _kbx_arena_strndup(&w->x->arena, text, (size_t)(dot - text));
	_kbx_x_import(w->x, text, NULL, NULL, 0, KBX_IMPORT_WILDCARD, _kbx_node_line(n));
}

static int sw_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "class_declaration"))
			visit_class(w, n);
		else if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		break;
	case 'f':
		if (!strcmp(type, "function_declaration"))
			visit_function(w, n, name_of(w, n));
		break;
	case 'i':
		if (!strcmp(type, "import_declaration")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "init_declaration"))
			visit_function(w, n, "init");
		break;
	case 'p':
		if (!strcmp(type, "protocol_declaration"))
			visit_type(w, n, KBX_KIND_INTERFACE);
		else if (!strcmp(type, "protocol_function_declaration"))
			visit_function(w, n, name_of(w, n));
		else if (!strcmp(type, "parameter"))
			bind_parameter(w, n);
		else if (!strcmp(type, "property_declaration") &&
			 !_kbx_is(_kbx_walk_up(w, n), "class_body"))
			bind_property(w, n, 0);
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * A module is a directory: Sources/Name/ in a Swift package, or a
 * directory Name/ (an Xcode target), under the importer's directory or
 * one above it.
 */
static void sw_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	char mod[4096];
	if (!imp->module || !*imp->module || _kbx_dots_to_slashes(mod, sizeof(mod), imp->module))
		return;
	char rel[4200];
	snprintf(rel, sizeof(rel), "Sources/%s", mod);
	_kbx_jsc_add_under_ancestors(importer, rel, "/", out);
	_kbx_jsc_add_under_ancestors(importer, mod, "/", out);
}

static const char *const swift_extensions[] = { ".swift", NULL };

const struct kbx_lang _kbx_lang_swift = {
	.name = "swift",
	.extensions = swift_extensions,
	.grammar = kbx_tree_sitter_swift,
	.visit = sw_visit,
	.begin = sw_begin,
	.end = sw_end,
	.import_candidates = sw_import_candidates,
	.implicit_self = 1,
	.nested_defs = 1,
	.dir_is_package = 1,
	.extension_functions = 1,
	.scope_sep = ".",
	.visibility = _kbx_swift_visibility,
};
