/*
 * Go: named types, functions and methods, calls, imports and embedding
 * from tree-sitter-go.
 *
 * A method `func (r *Recv) M()` is "Recv.M", its parent the type Recv when
 * the file declares it.  Go lets a file declare its types after their
 * methods, so the top-level types are defined first, when the walk enters
 * the file, and looked up by the methods later.  A struct type is a
 * struct, an interface an interface, and any other named type (`type ID
 * int`, `type HandlerFunc func()`) a class, since it can have methods too;
 * aliases (`type A = B`) define nothing.
 *
 * Go has no `self`: a call through the method's own receiver name
 * (`r.helper()`) is a self call.  A composite literal of a named type
 * (`Store{}`, `&pkg.T{}`) and `new(T)` construct T and are reported as
 * calls to it.  Embedded fields in structs and embedded interfaces are
 * inheritance.
 */
#include <stdlib.h>
#include <string.h>

#include "lang.h"

const TSLanguage *tree_sitter_go(void);

struct go_state {
	/* the method being walked and its receiver's name */
	int method_sym;
	const char *recv_name;
	/* top-level type_specs defined ahead of the walk */
	struct _kbx_predef types;
};

/* How Go writes a receiver or embedded type on one line: interpreted,
 * raw and rune literals as written. */
#define COMPACT (KBX_COMPACT_SQUOTE | KBX_COMPACT_BACKQUOTE)

/* Look through pointers and type arguments: *pkg.Base[T] -> pkg.Base. */
static TSNode strip_type(TSNode t)
{
	for (int guard = 0; guard < 16 && !ts_node_is_null(t); guard++) {
		if (_kbx_is(t, "pointer_type") || _kbx_is(t, "parenthesized_type"))
			t = ts_node_named_child(t, 0);
		else if (_kbx_is(t, "generic_type"))
			t = _kbx_field(t, "type");
		else
			break;
	}
	return t;
}

static int type_kind(TSNode type)
{
	if (_kbx_is(type, "struct_type"))
		return KBX_KIND_STRUCT;
	if (_kbx_is(type, "interface_type"))
		return KBX_KIND_INTERFACE;
	return KBX_KIND_CLASS;
}

/* Define every top-level named type before the walk reaches methods. */
static void predefine_types(struct kbx_walk *w, TSNode file)
{
	struct go_state *st = w->lang_state;
	uint32_t n = ts_node_named_child_count(file);
	for (uint32_t i = 0; i < n; i++) {
		TSNode decl = ts_node_named_child(file, i);
		if (!_kbx_is(decl, "type_declaration"))
			continue;
		uint32_t m = ts_node_named_child_count(decl);
		for (uint32_t j = 0; j < m; j++) {
			TSNode spec = ts_node_named_child(decl, j);
			if (!_kbx_is(spec, "type_spec"))
				continue;
			int sym = _kbx_walk_define(w, spec, type_kind(_kbx_field(spec, "type")),
						   _kbx_field_text(w, spec, "name"), 0);
			if (sym >= 0 && st)
				_kbx_predef_add(&st->types, ts_node_start_byte(spec), sym);
		}
	}
}

/* An embedded type, as a base name: "Base", "io.Reader"; NULL otherwise. */
static const char *embedded_name(struct kbx_walk *w, TSNode t)
{
	t = strip_type(t);
	if (_kbx_is(t, "type_identifier") || _kbx_is(t, "qualified_type"))
		return _kbx_compact_text(w, t, COMPACT);
	return NULL;
}

static void visit_type_spec(struct kbx_walk *w, TSNode n)
{
	struct go_state *st = w->lang_state;
	TSNode type = _kbx_field(n, "type");
	int sym = st ? _kbx_predef_find(&st->types, ts_node_start_byte(n)) : -1;
	if (sym < 0)  /* a type declared inside a function */
		sym = _kbx_walk_define(w, n, type_kind(type), _kbx_field_text(w, n, "name"), 0);
	if (sym < 0)
		return;
	if (_kbx_is(type, "struct_type")) {
		TSNode list = ts_node_named_child(type, 0);
		if (!_kbx_is(list, "field_declaration_list"))
			return;
		uint32_t count = ts_node_named_child_count(list);
		for (uint32_t i = 0; i < count; i++) {
			TSNode f = ts_node_named_child(list, i);
			if (!_kbx_is(f, "field_declaration") ||
			    !ts_node_is_null(_kbx_field(f, "name")))
				continue;
			const char *base = embedded_name(w, _kbx_field(f, "type"));
			if (base)
				_kbx_x_inherit(w->x, sym, base, _kbx_node_line(f));
		}
	} else if (_kbx_is(type, "interface_type")) {
		uint32_t count = ts_node_named_child_count(type);
		for (uint32_t i = 0; i < count; i++) {
			TSNode e = ts_node_named_child(type, i);
			if (_kbx_is(e, "method_elem")) {
				/* the interface's methods: "Labeler.Label" */
				const char *name = _kbx_field_text(w, e, "name");
				if (name)
					_kbx_x_sym_at(w->x, KBX_KIND_METHOD, name,
						   _kbx_join(w, w->x->syms[sym].qual, ".", name),
						   sym, e);
				continue;
			}
			/* a type_elem with one type is an embedded interface;
			 * `int | float64` is a constraint, not a base */
			if (!_kbx_is(e, "type_elem") || ts_node_named_child_count(e) != 1)
				continue;
			const char *base = embedded_name(w, ts_node_named_child(e, 0));
			if (base)
				_kbx_x_inherit(w->x, sym, base, _kbx_node_line(e));
		}
	}
}

static void visit_method(struct kbx_walk *w, TSNode n)
{
	struct go_state *st = w->lang_state;
	const char *name = _kbx_field_text(w, n, "name");
	TSNode recv = _kbx_field(n, "receiver");
	TSNode param = ts_node_is_null(recv) ? recv : ts_node_named_child(recv, 0);
	TSNode rtype = _kbx_is(param, "parameter_declaration") ?
		strip_type(_kbx_field(param, "type")) : param;
	if (!name)
		return;
	if (!_kbx_is(rtype, "type_identifier")) {
		/* no receiver we can read: still a method, by its own name */
		int sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, name, name, -1, n);
		_kbx_walk_scope(w, sym);
		return;
	}
	const char *tname = _kbx_node_text(w, rtype);
	if (!tname)
		return;
	/* only top-level types can have methods, and they are all
	 * predefined */
	int parent = st ? _kbx_predef_by_qual(w, &st->types, tname) : -1;
	const char *qual = _kbx_join(w, tname, ".", name);
	if (!qual)
		return;
	int sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, name, qual, parent, n);
	_kbx_walk_scope(w, sym);
	if (st && sym >= 0) {
		st->method_sym = sym;
		st->recv_name = _kbx_field_text(w, param, "name");
	}
}

/* A call of name through receiver node recv (null for a plain call). */
static void add_call(struct kbx_walk *w, TSNode at, const char *name, TSNode recv)
{
	struct go_state *st = w->lang_state;
	int caller = _kbx_walk_caller(w);
	if (!name)
		return;
	if (ts_node_is_null(recv)) {
		_kbx_walk_call(w, at, name, KBX_RECV_NONE, NULL);
		return;
	}
	if (_kbx_is(recv, "identifier") && st && st->recv_name && caller >= 0 &&
	    caller == st->method_sym) {
		const char *r = _kbx_node_text(w, recv);
		if (r && !strcmp(r, st->recv_name)) {
			_kbx_walk_call(w, at, name, KBX_RECV_SELF, NULL);
			return;
		}
	}
	_kbx_walk_call(w, at, name, KBX_RECV_EXPR, _kbx_compact_text(w, recv, COMPACT));
}

/* A call to a type: T, pkg.T, T[int] (a generic call or construction). */
static void add_type_call(struct kbx_walk *w, TSNode at, TSNode type)
{
	TSNode null = { 0 };
	type = strip_type(type);
	if (_kbx_is(type, "type_identifier"))
		add_call(w, at, _kbx_node_text(w, type), null);
	else if (_kbx_is(type, "qualified_type"))
		add_call(w, at, _kbx_field_text(w, type, "name"), _kbx_field(type, "package"));
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode null = { 0 };
	TSNode fn = _kbx_field(n, "function");
	if (_kbx_is(fn, "identifier")) {
		const char *name = _kbx_node_text(w, fn);
		TSNode args = _kbx_field(n, "arguments");
		TSNode arg = ts_node_is_null(args) ? args : ts_node_named_child(args, 0);
		/* new(T) constructs a T */
		if (name && !strcmp(name, "new") && !ts_node_is_null(arg) &&
		    (_kbx_is(arg, "type_identifier") || _kbx_is(arg, "qualified_type") ||
		     _kbx_is(arg, "generic_type"))) {
			add_type_call(w, n, arg);
			return;
		}
		add_call(w, n, name, null);
	} else if (_kbx_is(fn, "selector_expression")) {
		add_call(w, n, _kbx_field_text(w, fn, "field"), _kbx_field(fn, "operand"));
	}
}

static void visit_import_spec(struct kbx_walk *w, TSNode n)
{
	TSNode path = _kbx_field(n, "path");
	if (ts_node_is_null(path))
		return;
	const char *text = _kbx_node_text(w, path);
	size_t len = text ? strlen(text) : 0;
	if (len < 2)
		return;
	const char *module = _kbx_arena_strndup(&w->x->arena, text + 1, len - 2);
	TSNode name = _kbx_field(n, "name");
	const char *alias = NULL;
	int flags = 0;
	if (_kbx_is(name, "dot"))
		flags = KBX_IMPORT_WILDCARD;
	else if (!ts_node_is_null(name))
		alias = _kbx_node_text(w, name);
	_kbx_x_import(w->x, module, NULL, alias, 0, flags, _kbx_node_line(n));
}

static int go_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		else if (!strcmp(type, "composite_literal"))
			add_type_call(w, n, _kbx_field(n, "type"));
		break;
	case 'f':
		if (!strcmp(type, "function_declaration"))
			_kbx_walk_define(w, n, KBX_KIND_FUNCTION, _kbx_field_text(w, n, "name"), 1);
		break;
	case 'i':
		if (!strcmp(type, "import_spec")) {
			visit_import_spec(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 'm':
		if (!strcmp(type, "method_declaration"))
			visit_method(w, n);
		break;
	case 's':
		if (!strcmp(type, "source_file"))
			predefine_types(w, n);
		break;
	case 't':
		if (!strcmp(type, "type_spec"))
			visit_type_spec(w, n);
		else if (!strcmp(type, "type_conversion_expression")) {
			/* F[int](x) parses as a conversion to a generic type */
			TSNode t = _kbx_field(n, "type");
			if (_kbx_is(t, "generic_type"))
				add_type_call(w, n, t);
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

static void go_begin(struct kbx_walk *w)
{
	struct go_state *st = calloc(1, sizeof(*st));
	if (st)
		st->method_sym = -1;
	w->lang_state = st;
}

static void go_end(struct kbx_walk *w)
{
	struct go_state *st = w->lang_state;
	if (st) {
		_kbx_predef_release(&st->types);
		free(st);
	}
	w->lang_state = NULL;
}

/* Top-level directories of the standard library: imports under them are
 * never files of the repository. */
static const char *const go_std[] = {
	"archive", "bufio", "builtin", "bytes", "cmp", "compress", "container", "context",
	"crypto", "database", "debug", "embed", "encoding", "errors", "expvar", "flag",
	"fmt", "go", "hash", "html", "image", "index", "io", "iter", "log", "maps", "math",
	"mime", "net", "os", "path", "plugin", "reflect", "regexp", "runtime", "slices",
	"sort", "strconv", "strings", "sync", "syscall", "testing", "text", "time",
	"unicode", "unique", "unsafe", "C", NULL
};

/*
 * An import path names a package, that is a directory.  Without reading
 * go.mod we do not know which prefix is the module path, so every suffix
 * of the import path is a candidate directory, longest first:
 * "example.com/app/internal/util" tries "example.com/app/internal/util/",
 * "app/internal/util/", "internal/util/", "util/".
 */
static void go_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	(void)importer;
	const char *m = imp->module;
	if (!m || !*m)
		return;
	size_t first = strcspn(m, "/");
	if (!memchr(m, '.', first)) {
		for (size_t i = 0; go_std[i]; i++)
			if (strlen(go_std[i]) == first && !strncmp(m, go_std[i], first))
				return;
	}
	if (m[0] == '.' || m[0] == '/') {
		/* a relative import ("./util"), only in GOPATH-era code */
		char dir[4096], p[4096];
		_kbx_path_dirname(dir, sizeof(dir), importer);
		if (_kbx_path_join(p, sizeof(p), dir, m) == 0 && *p)
			_kbx_pathlist_addf(out, "%s/", p);
		return;
	}
	/* "example.com//x/" is the directory "example.com/x" */
	char norm[4096];
	if (_kbx_path_join(norm, sizeof(norm), "", m) < 0 || !*norm)
		return;
	for (const char *s = norm; s && *s; ) {
		_kbx_pathlist_addf(out, "%s/", s);
		s = strchr(s, '/');
		if (s)
			s++;
	}
}

static const char *const go_extensions[] = { ".go", NULL };

const struct kbx_lang _kbx_lang_go = {
	.name = "go",
	.extensions = go_extensions,
	.grammar = tree_sitter_go,
	.visit = go_visit,
	.begin = go_begin,
	.end = go_end,
	.import_candidates = go_import_candidates,
	.implicit_self = 0,
	.scope_sep = ".",
	.dir_is_package = 1,
	.visibility = _kbx_go_visibility,
};
