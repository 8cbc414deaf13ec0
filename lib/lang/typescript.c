/*
 * TypeScript and TSX: everything JavaScript has (lib/lang/javascript.c does
 * that part), plus interfaces, abstract classes, enums, namespaces,
 * `implements`, method signatures of interfaces, and `import x = require()`.
 * Type-only syntax holds no calls and is skipped.
 */
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_typescript)
KBX_GRAMMAR(tree_sitter_tsx)

/* namespace A.B { } and module M { }: a namespace; declare module "x" { }
 * only declares another package's types and is skipped. */
static int visit_namespace(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	if (ts_node_is_null(name) || !strcmp(ts_node_type(name), "string"))
		return KBX_WALK_SKIP;
	_kbx_jsc_define_dotted(w, n, KBX_KIND_NAMESPACE, _kbx_jsc_clean_text(w, name, 0), 1);
	return KBX_WALK_CONTINUE;
}

int _kbx_ts_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	_kbx_js_enter(w, n);
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "abstract_class_declaration")) {
			_kbx_js_define_class(w, n, n, KBX_KIND_CLASS, _kbx_field_text(w, n, "name"));
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "abstract_method_signature")) {
			_kbx_walk_define(w, n, KBX_KIND_METHOD, _kbx_field_text(w, n, "name"), 1);
			return KBX_WALK_SKIP;
		}
		break;
	case 'e':
		if (!strcmp(type, "enum_declaration")) {
			_kbx_walk_define(w, n, KBX_KIND_ENUM, _kbx_field_text(w, n, "name"), 1);
			return KBX_WALK_CONTINUE;
		}
		break;
	case 'f':
		/* an overload or `declare function`: the body, if any, is the
		 * definition */
		if (!strcmp(type, "function_signature"))
			return KBX_WALK_SKIP;
		break;
	case 'i':
		if (!strcmp(type, "interface_declaration")) {
			_kbx_js_define_class(w, n, n, KBX_KIND_INTERFACE,
					     _kbx_field_text(w, n, "name"));
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "internal_module"))
			return visit_namespace(w, n);
		if (!strcmp(type, "import_alias"))
			return KBX_WALK_SKIP;  /* import A = NS.B: a local alias, not a file */
		break;
	case 'm':
		if (!strcmp(type, "module"))
			return visit_namespace(w, n);
		if (!strcmp(type, "method_signature")) {
			/* an interface's method; in a class body it is an overload
			 * of a method defined next to it */
			int p = _kbx_walk_parent(w);
			if (p >= 0 && w->x->syms[p].kind == KBX_KIND_INTERFACE)
				_kbx_walk_define(w, n, KBX_KIND_METHOD,
						 _kbx_field_text(w, n, "name"), 1);
			return KBX_WALK_SKIP;
		}
		break;
	case 'o':
		if (!strcmp(type, "object_type"))
			return KBX_WALK_SKIP;
		break;
	case 'p':
		if (!strcmp(type, "public_field_definition")) {
			/* handle = () => {...}: a method bound to the instance */
			_kbx_js_visit_field(w, n, "name");
			return KBX_WALK_CONTINUE;
		}
		break;
	case 't':
		if (!strcmp(type, "type_alias_declaration") || !strcmp(type, "type_annotation") ||
		    !strcmp(type, "type_arguments") || !strcmp(type, "type_parameters"))
			return KBX_WALK_SKIP;
		break;
	}
	return _kbx_js_visit(w, n, type);
}

static const char *const typescript_extensions[] = { ".ts", ".mts", ".cts", NULL };
static const char *const tsx_extensions[] = { ".tsx", NULL };

const struct kbx_lang _kbx_lang_typescript = {
	.name = "typescript",
	.extensions = typescript_extensions,
	.grammar = kbx_tree_sitter_typescript,
	.visit = _kbx_ts_visit,
	.begin = _kbx_ts_begin,
	.end = _kbx_js_end,
	.import_candidates = _kbx_js_import_candidates,
	.implicit_self = 0,
	.nested_defs = 1,
	.scope_sep = ".",
	.visibility = _kbx_js_visibility,
};

const struct kbx_lang _kbx_lang_tsx = {
	.name = "tsx",
	.extensions = tsx_extensions,
	.grammar = kbx_tree_sitter_tsx,
	.visit = _kbx_ts_visit,
	.begin = _kbx_ts_begin,
	.end = _kbx_js_end,
	.import_candidates = _kbx_js_import_candidates,
	.implicit_self = 0,
	.nested_defs = 1,
	.scope_sep = ".",
	.visibility = _kbx_js_visibility,
};
