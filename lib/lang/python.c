/*
 * Python: classes, functions and methods, calls, imports and class bases
 * from tree-sitter-python.
 *
 * A method is a function whose innermost enclosing definition is a class;
 * a function inside a function is qualified by it ("outer.inner").
 * Lambdas are not definitions, so calls inside them belong to the
 * enclosing function.  `self.f()` and `cls.f()` are self calls, any
 * `super(...).f()` is a super call.
 */
#include <string.h>

#include "lang.h"

const TSLanguage *tree_sitter_python(void);

/* How Python writes a receiver or base on one line: string literals in
 * either quote as written, a backslash-newline as white space. */
#define COMPACT (KBX_COMPACT_SQUOTE | KBX_COMPACT_LINE_CONT)

/* Count the leading dots of a relative import. */
static int import_level(struct kbx_walk *w, TSNode prefix)
{
	int level = 0;
	for (uint32_t i = ts_node_start_byte(prefix); i < ts_node_end_byte(prefix) && i < w->len; i++)
		if (w->src[i] == '.')
			level++;
	return level;
}

static void visit_import(struct kbx_walk *w, TSNode n)
{
	uint32_t line = _kbx_node_line(n);
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "dotted_name"))
			_kbx_x_import(w->x, _kbx_node_text(w, c), NULL, NULL, 0, 0, line);
		else if (_kbx_is(c, "aliased_import"))
			_kbx_x_import(w->x, _kbx_field_text(w, c, "name"), NULL,
				      _kbx_field_text(w, c, "alias"), 0, 0, line);
	}
}

static void visit_import_from(struct kbx_walk *w, TSNode n)
{
	uint32_t line = _kbx_node_line(n);
	TSNode modnode = _kbx_field(n, "module_name");
	if (ts_node_is_null(modnode))
		return;
	const char *module = "";
	int level = 0;
	if (_kbx_is(modnode, "relative_import")) {
		uint32_t count = ts_node_named_child_count(modnode);
		for (uint32_t i = 0; i < count; i++) {
			TSNode c = ts_node_named_child(modnode, i);
			if (_kbx_is(c, "import_prefix"))
				level = import_level(w, c);
			else if (_kbx_is(c, "dotted_name"))
				module = _kbx_node_text(w, c);
		}
	} else {
		module = _kbx_node_text(w, modnode);
	}
	if (!module)
		return;
	module = _kbx_arena_strdup(&w->x->arena, module);

	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (ts_node_eq(c, modnode))
			continue;
		if (_kbx_is(c, "dotted_name"))
			_kbx_x_import(w->x, module, _kbx_node_text(w, c), NULL, level, 0, line);
		else if (_kbx_is(c, "aliased_import"))
			_kbx_x_import(w->x, module, _kbx_field_text(w, c, "name"),
				      _kbx_field_text(w, c, "alias"), level, 0, line);
		else if (_kbx_is(c, "wildcard_import"))
			_kbx_x_import(w->x, module, NULL, NULL, level, KBX_IMPORT_WILDCARD, line);
	}
}

/*
 * The name a base class expression refers to: "Base", "mod.Base"; generic
 * arguments are dropped ("Generic[T]" -> "Generic").  NULL for anything
 * computed (a call, a keyword argument, a splat).
 */
static const char *base_name(struct kbx_walk *w, TSNode b)
{
	for (int guard = 0; guard < 8 && _kbx_is(b, "subscript"); guard++)
		b = _kbx_field(b, "value");
	if (_kbx_is(b, "identifier") || _kbx_is(b, "attribute"))
		return _kbx_compact_text(w, b, COMPACT);
	return NULL;
}

static int visit_class(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_field_text(w, n, "name");
	int sym = _kbx_walk_define(w, n, KBX_KIND_CLASS, name, 1);
	if (sym < 0)
		return KBX_WALK_CONTINUE;
	TSNode bases = _kbx_field(n, "superclasses");
	if (ts_node_is_null(bases))
		return KBX_WALK_CONTINUE;
	uint32_t count = ts_node_named_child_count(bases);
	for (uint32_t i = 0; i < count; i++) {
		TSNode b = ts_node_named_child(bases, i);
		const char *base = base_name(w, b);
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(b));
	}
	return KBX_WALK_CONTINUE;
}

static int visit_function(struct kbx_walk *w, TSNode n)
{
	_kbx_walk_define(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION,
			 _kbx_field_text(w, n, "name"), 1);
	return KBX_WALK_CONTINUE;
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	if (_kbx_is(fn, "identifier")) {
		const char *name = _kbx_node_text(w, fn);
		/* super() only names the receiver of a super call */
		if (name && strcmp(name, "super"))
			_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
		return;
	}
	if (!_kbx_is(fn, "attribute"))
		return;  /* f()(), f[0](): nothing to name */
	const char *name = _kbx_field_text(w, fn, "attribute");
	TSNode obj = _kbx_field(fn, "object");
	if (ts_node_is_null(obj) || !name)
		return;
	if (_kbx_is(obj, "identifier")) {
		const char *o = _kbx_node_text(w, obj);
		if (o && (!strcmp(o, "self") || !strcmp(o, "cls"))) {
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
			return;
		}
	} else if (_kbx_is(obj, "call")) {
		TSNode inner = _kbx_field(obj, "function");
		if (_kbx_is(inner, "identifier")) {
			const char *f = _kbx_node_text(w, inner);
			if (f && !strcmp(f, "super")) {
				_kbx_walk_call(w, n, name, KBX_RECV_SUPER, NULL);
				return;
			}
		}
	}
	_kbx_walk_call(w, n, name, KBX_RECV_EXPR, _kbx_compact_text(w, obj, COMPACT));
}

static int py_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call"))
			visit_call(w, n);
		else if (!strcmp(type, "class_definition"))
			return visit_class(w, n);
		break;
	case 'f':
		if (!strcmp(type, "function_definition"))
			return visit_function(w, n);
		if (!strcmp(type, "future_import_statement"))
			return KBX_WALK_SKIP;
		break;
	case 'i':
		if (!strcmp(type, "import_statement")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "import_from_statement")) {
			visit_import_from(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * The files that module dir/mod may be, given an imported name (NULL for
 * the module itself): the name as a submodule first, because
 * `from pkg import b` most often means pkg/b.py, then the module's own
 * file and package.
 */
static void add_module(struct kbx_pathlist *out, const char *dir, const char *mod,
		       const char *name)
{
	char root[4096], sub[4096];
	if (_kbx_path_join(root, sizeof(root), dir, mod) < 0)
		return;
	if (name && strchr(name, '.') == NULL &&
	    _kbx_path_join(sub, sizeof(sub), root, name) == 0) {
		_kbx_pathlist_addf(out, "=%s.py", sub);
		_kbx_pathlist_addf(out, "=%s/__init__.py", sub);
	}
	if (!*mod) {
		/* `from . import x`: the package itself */
		_kbx_pathlist_addf(out, "%s%s__init__.py", root, *root ? "/" : "");
	} else {
		_kbx_pathlist_addf(out, "%s.py", root);
		_kbx_pathlist_addf(out, "%s/__init__.py", root);
		_kbx_pathlist_addf(out, "%s.pyi", root);
	}
}

static void py_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	char mod[4096], dir[4096];
	if (!imp->module || _kbx_dots_to_slashes(mod, sizeof(mod), imp->module) < 0)
		return;
	const char *name = (imp->flags & KBX_IMPORT_WILDCARD) ? NULL : imp->name;
	_kbx_path_dirname(dir, sizeof(dir), importer);

	if (imp->level > 0) {
		/* one dot is the importer's package, each further dot one up */
		for (int i = 1; i < imp->level; i++) {
			if (!*dir)
				return;  /* climbs above the repository */
			char up[4096];
			_kbx_path_dirname(up, sizeof(up), dir);
			memcpy(dir, up, strlen(up) + 1);
		}
		add_module(out, dir, mod, name);
		return;
	}
	if (!*mod)
		return;
	/* absolute: from the repository root, then next to the importer
	 * (a script's own directory is on sys.path), then anywhere below a
	 * source root such as src/ */
	add_module(out, "", mod, name);
	if (*dir)
		add_module(out, dir, mod, name);
	if (strchr(mod, '/')) {
		_kbx_pathlist_addf(out, "*%s.py", mod);
		_kbx_pathlist_addf(out, "*%s/__init__.py", mod);
	} else {
		/* a lone name: only a package directory, since a stray
		 * tools/json.py must not capture `import json` */
		_kbx_pathlist_addf(out, "*%s/__init__.py", mod);
	}
}

static const char *const py_extensions[] = { ".py", ".pyi", NULL };

const struct kbx_lang _kbx_lang_python = {
	.name = "python",
	.extensions = py_extensions,
	.grammar = tree_sitter_python,
	.visit = py_visit,
	.import_candidates = py_import_candidates,
	.implicit_self = 0,
	.scope_sep = ".",
	.visibility = _kbx_python_visibility,
};
