/*
 * Rust: structs, enums, unions, traits, functions and methods, inline
 * modules, calls, `use` and `mod` declarations, and trait implementations
 * from tree-sitter-rust.
 *
 * Functions in `impl Type { }` or `impl Trait for Type { }` are methods
 * "Type.name", whose parent is Type when this file defines it.  As an impl
 * may come before the type it extends, the types of a file or module body
 * are defined when the walk enters that body.  `impl Trait for Type` makes
 * Type inherit Trait (only when Type is defined here: there is nothing to
 * attach it to otherwise); supertraits (`trait A: B`) are bases too.
 *
 * Calls: `self.f()` and `Self::f()` are self calls, `Type::f()` and
 * `module::f()` have the path as receiver ("a.b"), `self::f()` is a plain
 * call in this module.  A struct literal `Config { .. }` constructs Config
 * and is reported as a call to it, like `Config::new()` (receiver
 * "Config", name "new").  Macro invocations (`println!`) are not calls, and
 * calls inside their arguments are not seen: the grammar leaves macro
 * arguments as unparsed token trees.
 */
#include <stdlib.h>
#include <string.h>

#include "lang.h"

const TSLanguage *tree_sitter_rust(void);

struct rust_state {
	/* the types of the file, most defined ahead of the walk (those of
	 * function bodies are added as met) */
	struct _kbx_predef types;
};

/* How Rust writes a path, receiver or base on one line: "::" as "." (a
 * leading one too), generic arguments dropped ("Vec::<u8>", "HashMap<K,
 * V>"), string literals as written. */
#define COMPACT (KBX_COMPACT_SCOPE | KBX_COMPACT_LEAD_SCOPE | KBX_COMPACT_NO_GENERICS)

/* The type named, through references, generics and paths: the last
 * segment ("&mut a::B<T>" -> the B node). */
static TSNode type_name_node(TSNode t)
{
	for (int guard = 0; guard < 16 && !ts_node_is_null(t); guard++) {
		if (_kbx_is(t, "reference_type") || _kbx_is(t, "pointer_type") ||
		    _kbx_is(t, "generic_type"))
			t = _kbx_field(t, "type");
		else if (_kbx_is(t, "scoped_type_identifier"))
			t = _kbx_field(t, "name");
		else
			break;
	}
	return t;
}

/* A base type as written, "::" as ".", without generic arguments. */
static const char *base_text(struct kbx_walk *w, TSNode t)
{
	for (int guard = 0; guard < 16 && !ts_node_is_null(t); guard++) {
		if (_kbx_is(t, "generic_type"))
			t = _kbx_field(t, "type");
		else
			break;
	}
	if (_kbx_is(t, "type_identifier") || _kbx_is(t, "scoped_type_identifier"))
		return _kbx_compact_text(w, t, COMPACT);
	return NULL;
}

static int item_kind(const char *type)
{
	if (!strcmp(type, "struct_item") || !strcmp(type, "union_item"))
		return KBX_KIND_STRUCT;
	if (!strcmp(type, "enum_item"))
		return KBX_KIND_ENUM;
	if (!strcmp(type, "trait_item"))
		return KBX_KIND_TRAIT;
	return KBX_KIND_NONE;
}

/* Define the types of a file or module body (its direct children). */
static void predefine_types(struct kbx_walk *w, TSNode body)
{
	struct rust_state *st = w->lang_state;
	uint32_t n = ts_node_named_child_count(body);
	for (uint32_t i = 0; i < n; i++) {
		TSNode item = ts_node_named_child(body, i);
		int kind = ts_node_is_null(item) ? 0 : item_kind(ts_node_type(item));
		if (!kind)
			continue;
		int sym = _kbx_walk_define(w, item, kind, _kbx_field_text(w, item, "name"), 0);
		if (sym >= 0 && st)
			_kbx_predef_add(&st->types, ts_node_start_byte(item), sym);
	}
}

/* struct, enum, union, trait */
static void visit_type(struct kbx_walk *w, TSNode n, int kind)
{
	struct rust_state *st = w->lang_state;
	int sym = st ? _kbx_predef_find(&st->types, ts_node_start_byte(n)) : -1;
	if (sym < 0) {
		/* inside a function body */
		sym = _kbx_walk_define(w, n, kind, _kbx_field_text(w, n, "name"), 0);
		if (sym >= 0 && st)
			_kbx_predef_add(&st->types, ts_node_start_byte(n), sym);
	}
	if (sym < 0)
		return;
	if (kind != KBX_KIND_TRAIT)
		return;
	_kbx_walk_scope(w, sym);  /* its provided methods */
	TSNode bounds = _kbx_field(n, "bounds");
	uint32_t count = ts_node_is_null(bounds) ? 0 : ts_node_named_child_count(bounds);
	for (uint32_t i = 0; i < count; i++) {
		TSNode b = ts_node_named_child(bounds, i);
		const char *base = base_text(w, b);
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(b));
	}
}

/*
 * The type an impl block is for, as defined in this file: looked up by its
 * qualified name within the current module.  -1 when it is defined
 * elsewhere.  *name gets the type's simple name either way.
 */
static int impl_type(struct kbx_walk *w, TSNode impl, const char **name)
{
	TSNode t = type_name_node(_kbx_field(impl, "type"));
	*name = _kbx_is(t, "type_identifier") ? _kbx_node_text(w, t) : NULL;
	if (!*name)
		return -1;
	const char *qual = _kbx_walk_qual(w, *name);
	const struct rust_state *st = w->lang_state;
	if (!qual || !st)
		return -1;
	return _kbx_predef_by_qual(w, &st->types, qual);
}

static void visit_impl(struct kbx_walk *w, TSNode n)
{
	TSNode trait = _kbx_field(n, "trait");
	if (ts_node_is_null(trait))
		return;
	const char *name;
	int sym = impl_type(w, n, &name);
	const char *base = base_text(w, trait);
	if (sym >= 0 && base)
		_kbx_x_inherit(w->x, sym, base, _kbx_node_line(n));
}

static void visit_function(struct kbx_walk *w, TSNode n, int open_scope)
{
	const char *name = _kbx_field_text(w, n, "name");
	if (!name)
		return;
	TSNode list = ts_node_parent(n);
	TSNode impl = _kbx_is(list, "declaration_list") ? ts_node_parent(list) : list;
	if (_kbx_is(impl, "impl_item")) {
		const char *tname;
		int tsym = impl_type(w, impl, &tname);
		int sym;
		if (tsym >= 0) {
			sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, name,
					 _kbx_join(w, w->x->syms[tsym].qual, ".", name), tsym, n);
		} else if (tname) {
			const char *tq = _kbx_walk_qual(w, tname);
			sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, name,
					 tq ? _kbx_join(w, tq, ".", name) : NULL, -1, n);
		} else {
			sym = _kbx_walk_define(w, n, KBX_KIND_METHOD, name, 0);
		}
		if (open_scope)
			_kbx_walk_scope(w, sym);
		return;
	}
	_kbx_walk_define(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION, name,
			 open_scope);
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	if (_kbx_is(fn, "generic_function"))
		fn = _kbx_field(fn, "function");  /* f::<T>() */
	if (_kbx_is(fn, "identifier")) {
		_kbx_walk_call(w, n, _kbx_node_text(w, fn), KBX_RECV_NONE, NULL);
	} else if (_kbx_is(fn, "field_expression")) {
		TSNode value = _kbx_field(fn, "value");
		const char *name = _kbx_field_text(w, fn, "field");
		if (!name || ts_node_is_null(value))
			return;
		if (_kbx_is(value, "self"))
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		else
			_kbx_walk_call(w, n, name, KBX_RECV_EXPR,
				       _kbx_compact_text(w, value, COMPACT));
	} else if (_kbx_is(fn, "scoped_identifier")) {
		TSNode path = _kbx_field(fn, "path");
		const char *name = _kbx_field_text(w, fn, "name");
		if (!name)
			return;
		if (ts_node_is_null(path)) {
			_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);  /* ::f() */
			return;
		}
		const char *p = _kbx_compact_text(w, path, COMPACT);
		if (!p)
			return;
		if (!strcmp(p, "Self"))
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		else if (!strcmp(p, "self"))
			_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
		else
			_kbx_walk_call(w, n, name, KBX_RECV_EXPR, p);
	}
}

/* A struct literal `Config { .. }` constructs Config: a call to it. */
static void visit_struct_expression(struct kbx_walk *w, TSNode n)
{
	TSNode t = _kbx_field(n, "name");
	if (_kbx_is(t, "generic_type_with_turbofish") || _kbx_is(t, "generic_type"))
		t = _kbx_field(t, "type");
	if (_kbx_is(t, "type_identifier")) {
		const char *name = _kbx_node_text(w, t);
		if (name && strcmp(name, "Self"))
			_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
	} else if (_kbx_is(t, "scoped_type_identifier")) {
		TSNode path = _kbx_field(t, "path");
		const char *name = _kbx_field_text(w, t, "name");
		if (name && !ts_node_is_null(path))
			_kbx_walk_call(w, n, name, KBX_RECV_EXPR,
				       _kbx_compact_text(w, path, COMPACT));
	}
}

/*
 * Inside an inline module (`mod tests { use super::*; }`) a leading super
 * climbs inline modules of this very file first, which import_candidates,
 * seeing only the file's path, cannot know: so each `super` that stays
 * within the file is dropped, and a path that never leaves the file starts
 * with "self" instead ("super::Config" in `mod tests` is "self::Config").
 */
static const char *inline_super(struct kbx_walk *w, const char *path)
{
	size_t depth = 0;
	for (size_t i = 0; i < w->nscope; i++)
		if (w->x->syms[w->scope_sym[i]].kind == KBX_KIND_NAMESPACE)
			depth++;
	const char *p = path;
	size_t dropped = 0;
	while (dropped < depth && !strncmp(p, "super", 5) && (p[5] == '\0' || p[5] == ':')) {
		p += 5;
		if (*p == ':')
			p += 2;
		dropped++;
	}
	if (!dropped)
		return path;
	if (!strncmp(p, "super", 5) && (p[5] == '\0' || p[5] == ':'))
		return p;  /* climbs out of the file: the rest is file-relative */
	const char *r = _kbx_join(w, "self", *p ? "::" : "", p);
	return r ? r : path;
}

/*
 * use a::b::{c, d as e, f::*}: one import per leaf.  Use trees nest, so
 * the walk keeps its own small stack of (node, prefix) instead of
 * recursing; a tree deeper than the stack loses its innermost leaves.
 */
static void visit_use(struct kbx_walk *w, TSNode n)
{
	struct { TSNode node; const char *prefix; } stack[32];
	size_t sp = 0;
	uint32_t line = _kbx_node_line(n);
	TSNode arg = _kbx_field(n, "argument");
	if (ts_node_is_null(arg))
		return;
	stack[sp].node = arg;
	stack[sp].prefix = "";
	sp++;
	while (sp > 0) {
		sp--;
		TSNode t = stack[sp].node;
		const char *prefix = stack[sp].prefix;
		const char *type = ts_node_type(t);
		const char *module = NULL, *name = NULL, *alias = NULL;
		int flags = 0;
		if (!strcmp(type, "use_list") || !strcmp(type, "scoped_use_list")) {
			TSNode list = t;
			if (!strcmp(type, "scoped_use_list")) {
				TSNode path = _kbx_field(t, "path");
				if (!ts_node_is_null(path)) {
					const char *p = _kbx_node_text(w, path);
					if (!p)
						continue;
					if (*prefix)
						p = _kbx_join(w, prefix, "::", p);
					if (!p)
						continue;
					prefix = p;
				}
				list = _kbx_field(t, "list");
			}
			uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
			/* push in reverse so that leaves come out in source order */
			for (uint32_t i = count; i-- > 0 && sp < 32;) {
				stack[sp].node = ts_node_named_child(list, i);
				stack[sp].prefix = prefix;
				sp++;
			}
			continue;
		}
		TSNode path = t;
		if (!strcmp(type, "use_as_clause")) {
			path = _kbx_field(t, "path");
			alias = _kbx_field_text(w, t, "alias");
		} else if (!strcmp(type, "use_wildcard")) {
			path = ts_node_named_child(t, 0);
			flags = KBX_IMPORT_WILDCARD;
		}
		if (ts_node_is_null(path)) {
			if (flags && *prefix)  /* use a::{*} */
				_kbx_x_import(w->x, inline_super(w, prefix), NULL, NULL, 0, flags,
					      line);
			continue;
		}
		/* split the path into module and last segment */
		const char *text = _kbx_node_text(w, path);
		if (!text)
			continue;
		const char *full = *prefix ? _kbx_join(w, prefix, "::", text) : text;
		if (!full)
			continue;
		full = inline_super(w, full);
		if (flags & KBX_IMPORT_WILDCARD) {
			module = full;
		} else {
			const char *sep = NULL;
			for (const char *p = full; (p = strstr(p, "::")) != NULL; p += 2)
				sep = p;
			if (sep) {
				module = _kbx_arena_strndup(&w->x->arena, full, (size_t)(sep - full));
				name = sep + 2;
			} else {
				module = full;
			}
			/* a::b::{self} imports a::b itself */
			if (name && !strcmp(name, "self")) {
				const char *s2 = NULL;
				for (const char *p = module; (p = strstr(p, "::")) != NULL; p += 2)
					s2 = p;
				if (s2) {
					name = s2 + 2;
					module = _kbx_arena_strndup(&w->x->arena, module,
								    (size_t)(s2 - module));
				} else {
					name = NULL;
				}
			}
		}
		if (module)
			_kbx_x_import(w->x, module, name, alias, 0, flags, line);
	}
}

static int rust_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		break;
	case 'e':
		if (!strcmp(type, "enum_item"))
			visit_type(w, n, KBX_KIND_ENUM);
		else if (!strcmp(type, "extern_crate_declaration")) {
			const char *name = _kbx_field_text(w, n, "name");
			if (name)
				_kbx_x_import(w->x, name, NULL, _kbx_field_text(w, n, "alias"), 0,
					      0, _kbx_node_line(n));
			return KBX_WALK_SKIP;
		}
		break;
	case 'f':
		if (!strcmp(type, "function_item"))
			visit_function(w, n, 1);
		else if (!strcmp(type, "function_signature_item")) {
			/* a trait's required method; not an extern block's
			 * declaration */
			TSNode list = ts_node_parent(n);
			if (_kbx_is(list, "declaration_list") &&
			    _kbx_is(ts_node_parent(list), "trait_item"))
				visit_function(w, n, 0);
		}
		break;
	case 'i':
		if (!strcmp(type, "impl_item"))
			visit_impl(w, n);
		break;
	case 'm':
		if (!strcmp(type, "mod_item")) {
			TSNode body = _kbx_field(n, "body");
			const char *name = _kbx_field_text(w, n, "name");
			if (ts_node_is_null(body)) {
				if (name)
					_kbx_x_import(w->x, name, NULL, NULL, 0, KBX_IMPORT_MOD,
						      _kbx_node_line(n));
				return KBX_WALK_SKIP;
			}
			if (_kbx_walk_define(w, n, KBX_KIND_NAMESPACE, name, 1) >= 0)
				predefine_types(w, body);
		} else if (!strcmp(type, "macro_invocation") || !strcmp(type, "macro_definition")) {
			return KBX_WALK_SKIP;
		}
		break;
	case 's':
		if (!strcmp(type, "struct_item"))
			visit_type(w, n, KBX_KIND_STRUCT);
		else if (!strcmp(type, "source_file"))
			predefine_types(w, n);
		else if (!strcmp(type, "struct_expression"))
			visit_struct_expression(w, n);
		break;
	case 't':
		if (!strcmp(type, "trait_item"))
			visit_type(w, n, KBX_KIND_TRAIT);
		break;
	case 'u':
		if (!strcmp(type, "union_item"))
			visit_type(w, n, KBX_KIND_STRUCT);
		else if (!strcmp(type, "use_declaration")) {
			visit_use(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

static void rust_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct rust_state));
}

static void rust_end(struct kbx_walk *w)
{
	struct rust_state *st = w->lang_state;
	if (st) {
		_kbx_predef_release(&st->types);
		free(st);
	}
	w->lang_state = NULL;
}

/* ---- import candidates ---- */

/*
 * The directory that holds a file's child modules, and whether that file
 * is a crate root: src/lib.rs, src/main.rs and x/mod.rs hold theirs next to
 * them, src/a.rs in src/a/.
 */
static void module_dir(const char *file, char *out, size_t outsz, int *is_root)
{
	const char *base = strrchr(file, '/');
	base = base ? base + 1 : file;
	*is_root = !strcmp(base, "lib.rs") || !strcmp(base, "main.rs");
	if (*is_root || !strcmp(base, "mod.rs")) {
		_kbx_path_dirname(out, outsz, file);
		return;
	}
	size_t n = strlen(file);
	if (n >= 3 && _kbx_has_suffix(file, ".rs"))
		n -= 3;
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, file, n);
	out[n] = '\0';
}

/* The crate's source root: the path up to its last "src" directory, else
 * the importer's directory. */
static void crate_root(const char *file, char *out, size_t outsz)
{
	const char *best = NULL;
	for (const char *p = file; (p = strstr(p, "src/")) != NULL; p += 4)
		if (p == file || p[-1] == '/')
			best = p;
	if (best) {
		size_t n = (size_t)(best - file) + 3;
		if (n >= outsz)
			n = outsz - 1;
		memcpy(out, file, n);
		out[n] = '\0';
		return;
	}
	_kbx_path_dirname(out, outsz, file);
}

/* The files of module dir (a directory path of module nesting). */
static void add_module_files(struct kbx_pathlist *out, const char *dir, const char *root,
			     const char *prefix)
{
	if (!strcmp(dir, root)) {
		_kbx_pathlist_addf(out, "%s%s%slib.rs", prefix, dir, *dir ? "/" : "");
		_kbx_pathlist_addf(out, "%s%s%smain.rs", prefix, dir, *dir ? "/" : "");
	} else {
		_kbx_pathlist_addf(out, "%s%s.rs", prefix, dir);
		_kbx_pathlist_addf(out, "%s%s/mod.rs", prefix, dir);
	}
}

/* Can a path segment name a module?  Not when it holds a '/' or a '.',
 * which a path join would take for directories (text the parser recovered
 * from an error can hold anything). */
static int module_segment_ok(const char *s, size_t len)
{
	return len && !memchr(s, '/', len) && !memchr(s, '.', len);
}

static void rust_import_candidates(const char *importer, const struct kbx_ximport *imp,
				   struct kbx_pathlist *out)
{
	char dir[4096], root[4096], p[4096];
	int is_root;
	if (!imp->module || !*imp->module)
		return;
	module_dir(importer, dir, sizeof(dir), &is_root);
	crate_root(importer, root, sizeof(root));

	if (imp->flags & KBX_IMPORT_MOD) {
		if (!module_segment_ok(imp->module, strlen(imp->module)) ||
		    _kbx_path_join(p, sizeof(p), dir, imp->module) < 0)
			return;
		_kbx_pathlist_addf(out, "%s.rs", p);
		_kbx_pathlist_addf(out, "%s/mod.rs", p);
		return;
	}

	/* walk the path segment by segment from its starting module */
	char cur[4096];
	const char *m = imp->module;
	const char *seg_end = strstr(m, "::");
	size_t first = seg_end ? (size_t)(seg_end - m) : strlen(m);
	const char *rest;
	if (first == 5 && !strncmp(m, "crate", 5)) {
		snprintf(cur, sizeof(cur), "%s", root);
		rest = seg_end ? seg_end + 2 : "";
	} else if (first == 4 && !strncmp(m, "self", 4)) {
		snprintf(cur, sizeof(cur), "%s", dir);
		rest = seg_end ? seg_end + 2 : "";
	} else if (first == 5 && !strncmp(m, "super", 5)) {
		/* the parent of the importer's module */
		char self[4096];
		if (is_root)
			return;
		snprintf(self, sizeof(self), "%s", dir);
		rest = seg_end ? seg_end + 2 : "";
		while (!strncmp(rest, "super", 5) &&
		       (rest[5] == '\0' || (rest[5] == ':' && rest[6] == ':'))) {
			char up[4096];
			_kbx_path_dirname(up, sizeof(up), self);
			snprintf(self, sizeof(self), "%s", up);
			rest = rest[5] ? rest + 7 : "";
		}
		_kbx_path_dirname(cur, sizeof(cur), self);
		if (strlen(cur) < strlen(root))
			snprintf(cur, sizeof(cur), "%s", root);
	} else {
		/* another crate, or a module in scope at the crate root */
		snprintf(cur, sizeof(cur), "%s", root);
		rest = m;
	}
	while (*rest) {
		const char *e = strstr(rest, "::");
		size_t len = e ? (size_t)(e - rest) : strlen(rest);
		char seg[1024];
		if (!len) {
			/* "::std::io" (Rust 2015's absolute path) */
			rest = e ? e + 2 : "";
			continue;
		}
		if (len >= sizeof(seg) || !module_segment_ok(rest, len))
			return;
		memcpy(seg, rest, len);
		seg[len] = '\0';
		if (_kbx_path_join(p, sizeof(p), cur, seg) < 0)
			return;
		snprintf(cur, sizeof(cur), "%s", p);
		rest = e ? e + 2 : "";
	}
	if (imp->name && !(imp->flags & KBX_IMPORT_WILDCARD) &&
	    module_segment_ok(imp->name, strlen(imp->name)) &&
	    _kbx_path_join(p, sizeof(p), cur, imp->name) == 0)
		add_module_files(out, p, root, "=");
	add_module_files(out, cur, root, "");
}

static const char *const rust_extensions[] = { ".rs", NULL };

const struct kbx_lang _kbx_lang_rust = {
	.name = "rust",
	.extensions = rust_extensions,
	.grammar = tree_sitter_rust,
	.visit = rust_visit,
	.begin = rust_begin,
	.end = rust_end,
	.import_candidates = rust_import_candidates,
	.implicit_self = 0,
	.scope_sep = "::",
	.visibility = _kbx_rust_visibility,
};
