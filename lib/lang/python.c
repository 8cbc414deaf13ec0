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
 * The text of an expression on one line: whitespace is dropped except a
 * single space between two word characters, so that a receiver written
 * over several lines still prints as one token.
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
		if (c == '"' || c == '\'') {
			/* a string literal: as written, on one line */
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
				} else if (d == c) {
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
		if (pending_space && o > 0 && word_char(c) && word_char((unsigned char)buf[o - 1]))
			buf[o++] = ' ';
		pending_space = 0;
		buf[o++] = (char)c;
	}
	return _kbx_arena_strndup(&w->x->arena, buf, o);
}

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
		if (is(c, "dotted_name"))
			_kbx_x_import(w->x, _kbx_node_text(w, c), NULL, NULL, 0, 0, line);
		else if (is(c, "aliased_import"))
			_kbx_x_import(w->x, _kbx_field_text(w, c, "name"), NULL,
				      _kbx_field_text(w, c, "alias"), 0, 0, line);
	}
}

static void visit_import_from(struct kbx_walk *w, TSNode n)
{
	uint32_t line = _kbx_node_line(n);
	TSNode modnode = field(n, "module_name");
	if (ts_node_is_null(modnode))
		return;
	const char *module = "";
	int level = 0;
	if (is(modnode, "relative_import")) {
		uint32_t count = ts_node_named_child_count(modnode);
		for (uint32_t i = 0; i < count; i++) {
			TSNode c = ts_node_named_child(modnode, i);
			if (is(c, "import_prefix"))
				level = import_level(w, c);
			else if (is(c, "dotted_name"))
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
		if (is(c, "dotted_name"))
			_kbx_x_import(w->x, module, _kbx_node_text(w, c), NULL, level, 0, line);
		else if (is(c, "aliased_import"))
			_kbx_x_import(w->x, module, _kbx_field_text(w, c, "name"),
				      _kbx_field_text(w, c, "alias"), level, 0, line);
		else if (is(c, "wildcard_import"))
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
	for (int guard = 0; guard < 8 && is(b, "subscript"); guard++)
		b = field(b, "value");
	if (is(b, "identifier") || is(b, "attribute"))
		return compact_text(w, b);
	return NULL;
}

static int visit_class(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_field_text(w, n, "name");
	int sym = _kbx_walk_define(w, n, KBX_KIND_CLASS, name, 1);
	if (sym < 0)
		return KBX_WALK_CONTINUE;
	TSNode bases = field(n, "superclasses");
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
	int parent = _kbx_walk_parent(w);
	int kind = parent >= 0 && KBX_KIND_IS_TYPE(w->x->syms[parent].kind)
		? KBX_KIND_METHOD : KBX_KIND_FUNCTION;
	_kbx_walk_define(w, n, kind, _kbx_field_text(w, n, "name"), 1);
	return KBX_WALK_CONTINUE;
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = field(n, "function");
	uint32_t line = _kbx_node_line(n), col = _kbx_node_col(n);
	int caller = _kbx_walk_caller(w);
	if (is(fn, "identifier")) {
		const char *name = _kbx_node_text(w, fn);
		/* super() only names the receiver of a super call */
		if (name && strcmp(name, "super"))
			_kbx_x_call(w->x, name, KBX_RECV_NONE, NULL, caller, line, col);
		return;
	}
	if (!is(fn, "attribute"))
		return;  /* f()(), f[0](): nothing to name */
	const char *name = _kbx_field_text(w, fn, "attribute");
	TSNode obj = field(fn, "object");
	if (ts_node_is_null(obj) || !name)
		return;
	if (is(obj, "identifier")) {
		const char *o = _kbx_node_text(w, obj);
		if (o && (!strcmp(o, "self") || !strcmp(o, "cls"))) {
			_kbx_x_call(w->x, name, KBX_RECV_SELF, NULL, caller, line, col);
			return;
		}
	} else if (is(obj, "call")) {
		TSNode inner = field(obj, "function");
		if (is(inner, "identifier")) {
			const char *f = _kbx_node_text(w, inner);
			if (f && !strcmp(f, "super")) {
				_kbx_x_call(w->x, name, KBX_RECV_SUPER, NULL, caller, line, col);
				return;
			}
		}
	}
	_kbx_x_call(w->x, name, KBX_RECV_EXPR, compact_text(w, obj), caller, line, col);
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

/* "a.b.c" -> "a/b/c" into out; returns -1 if it does not fit. */
static int module_path(char *out, size_t outsz, const char *module)
{
	size_t n = strlen(module);
	if (n >= outsz)
		return -1;
	for (size_t i = 0; i <= n; i++)
		out[i] = module[i] == '.' ? '/' : module[i];
	return 0;
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
	if (!imp->module || module_path(mod, sizeof(mod), imp->module) < 0)
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
};
