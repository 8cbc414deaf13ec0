/*
 * Ruby: classes, modules (namespaces), methods (`def`, `def self.x`, and
 * inside `class << self`), calls with and without receiver, `Foo.new` as a
 * call to the class, `super`, require/require_relative, `class A < B` and
 * include/extend/prepend.
 *
 * A bare identifier is a method call unless it names a local variable, and
 * the parser does not tell the two apart: we keep the locals assigned so
 * far in the current def/class/module body (Ruby's own rule: a name is a
 * local from its first assignment on) and report the other identifiers as
 * calls.
 */
#include <stdlib.h>
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_ruby)

struct rb_frame {
	size_t first;    /* index of its first local in rb_state.locals */
	uint32_t end;    /* end byte of the def, class or module body */
};

struct rb_state {
	const char **locals;
	size_t nlocals, alocals;
	struct rb_frame *frames;
	size_t nframes, aframes;
	/* start bytes of nodes that are names, not calls: the method of a
	 * call node, the name of a def */
	uint32_t *names;
	size_t nnames, anames;
	/* start byte + 1 of a call that is the target of `x.y = v` */
	uint32_t setter_call;
};

static void rb_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct rb_state));
}

static void rb_end(struct kbx_walk *w)
{
	struct rb_state *st = w->lang_state;
	if (st) {
		free(st->locals);
		free(st->frames);
		free(st->names);
		free(st);
	}
	w->lang_state = NULL;
}

/* Leave the frames that end before byte pos. */
static void pop_frames(struct rb_state *st, uint32_t pos)
{
	while (st->nframes && st->frames[st->nframes - 1].end <= pos) {
		st->nlocals = st->frames[st->nframes - 1].first;
		st->nframes--;
	}
}

/* def, class, module and class << self start a new set of locals. */
static void push_frame(struct kbx_walk *w, TSNode n)
{
	struct rb_state *st = w->lang_state;
	if (!st)
		return;
	pop_frames(st, ts_node_start_byte(n));
	if (_kbx_grow((void **)&st->frames, &st->aframes, st->nframes, sizeof(*st->frames), 16))
		return;
	st->frames[st->nframes].first = st->nlocals;
	st->frames[st->nframes].end = ts_node_end_byte(n);
	st->nframes++;
}

static void add_local(struct kbx_walk *w, TSNode id)
{
	struct rb_state *st = w->lang_state;
	if (!st || ts_node_is_null(id) || strcmp(ts_node_type(id), "identifier"))
		return;
	pop_frames(st, ts_node_start_byte(id));
	const char *name = _kbx_node_text(w, id);
	if (name && !_kbx_grow((void **)&st->locals, &st->alocals, st->nlocals,
			       sizeof(*st->locals), 16))
		st->locals[st->nlocals++] = name;
}

static int is_local(struct rb_state *st, const char *name)
{
	size_t first = st->nframes ? st->frames[st->nframes - 1].first : 0;
	for (size_t i = st->nlocals; i-- > first;)
		if (!strcmp(st->locals[i], name))
			return 1;
	return 0;
}

/* Add the identifier children of a parameter list or assignment target. */
static void add_local_children(struct kbx_walk *w, TSNode n)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++)
		add_local(w, ts_node_named_child(n, i));
}

static void mark_name(struct kbx_walk *w, TSNode n)
{
	struct rb_state *st = w->lang_state;
	if (!st || ts_node_is_null(n) ||
	    _kbx_grow((void **)&st->names, &st->anames, st->nnames, sizeof(*st->names), 16))
		return;
	st->names[st->nnames++] = ts_node_start_byte(n);
}

/* Whether the node at pos was marked as a name; forgets marks at or
 * before pos, which the walk has passed. */
static int take_name(struct rb_state *st, uint32_t pos)
{
	int found = 0;
	size_t o = 0;
	for (size_t i = 0; i < st->nnames; i++) {
		if (st->names[i] == pos)
			found = 1;
		else if (st->names[i] > pos)
			st->names[o++] = st->names[i];
	}
	st->nnames = o;
	return found;
}

/* Methods that work as keywords, not calls worth a graph edge. */
static int is_keyword_method(const char *name)
{
	static const char *const words[] = {
		"private", "public", "protected", "module_function", "private_class_method",
		"public_class_method", "private_constant", "lambda", "proc", NULL
	};
	for (size_t i = 0; words[i]; i++)
		if (!strcmp(name, words[i]))
			return 1;
	return 0;
}

/* The class a bare `new` or `self.new` inside a method creates. */
static int enclosing_class(struct kbx_walk *w)
{
	int caller = _kbx_walk_caller(w);
	if (caller < 0)
		return _kbx_walk_class(w);
	int p = w->x->syms[caller].parent;
	return p >= 0 && KBX_KIND_IS_TYPE(w->x->syms[p].kind) ? p : -1;
}

/* The class or module that `include M` at this point extends. */
static int including_sym(struct kbx_walk *w)
{
	if (_kbx_walk_caller(w) >= 0)
		return -1;
	int p = _kbx_walk_parent(w);
	if (p < 0)
		return -1;
	int k = w->x->syms[p].kind;
	return KBX_KIND_IS_TYPE(k) || k == KBX_KIND_NAMESPACE ? p : -1;
}

static void call_self_class(struct kbx_walk *w, TSNode n)
{
	int cls = enclosing_class(w);
	if (cls >= 0)
		_kbx_walk_call(w, n, w->x->syms[cls].name, KBX_RECV_NONE, NULL);
}

/* super, super(...): the method of the same name in the base class. */
static void call_super(struct kbx_walk *w, TSNode n)
{
	int caller = _kbx_walk_caller(w);
	if (caller >= 0)
		_kbx_walk_call(w, n, w->x->syms[caller].name, KBX_RECV_SUPER, NULL);
}

/* require "x", require_relative "x", include M...: true if handled. */
static int special_call(struct kbx_walk *w, TSNode n, const char *name)
{
	TSNode args = _kbx_field(n, "arguments");
	if (ts_node_is_null(args))
		return 0;
	int rel = !strcmp(name, "require_relative");
	if (rel || !strcmp(name, "require")) {
		TSNode arg = ts_node_named_child(args, 0);
		const char *module = ts_node_is_null(arg) || strcmp(ts_node_type(arg), "string") ?
			NULL : _kbx_jsc_string_value(w, arg);
		/* a require binds no name: everything the file defines becomes
		 * visible, as with a wildcard import */
		if (module)
			_kbx_x_import(w->x, module, NULL, NULL, rel, KBX_IMPORT_WILDCARD,
				      _kbx_node_line(n));
		return 1;
	}
	if (strcmp(name, "include") && strcmp(name, "extend") && strcmp(name, "prepend"))
		return 0;
	int sym = including_sym(w);
	if (sym < 0)
		return 0;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		const char *t = ts_node_type(a);
		if (!strcmp(t, "constant") || !strcmp(t, "scope_resolution"))
			_kbx_x_inherit(w->x, sym, _kbx_jsc_clean_text(w, a, 0), _kbx_node_line(a));
	}
	return 1;
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	struct rb_state *st = w->lang_state;
	TSNode method = _kbx_field(n, "method");
	if (ts_node_is_null(method))
		return;  /* foo.() */
	mark_name(w, method);
	const char *mt = ts_node_type(method);
	if (!strcmp(mt, "super")) {
		call_super(w, n);
		return;
	}
	if (strcmp(mt, "identifier") && strcmp(mt, "constant"))
		return;
	const char *name = _kbx_node_text(w, method);
	if (!name)
		return;
	if (st && st->setter_call == ts_node_start_byte(n) + 1) {
		/* x.y = v calls the method "y=" */
		name = _kbx_join(w, name, "=", "");
		if (!name)
			return;
	}
	TSNode recv = _kbx_field(n, "receiver");
	if (ts_node_is_null(recv)) {
		if (special_call(w, n, name) || is_keyword_method(name))
			return;
		if (!strcmp(name, "new")) {
			call_self_class(w, n);
			return;
		}
		_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
		return;
	}
	const char *rt = ts_node_type(recv);
	if (!strcmp(rt, "self")) {
		if (!strcmp(name, "new"))
			call_self_class(w, n);
		else
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		return;
	}
	const char *text = _kbx_jsc_clean_text(w, recv, 0);
	if (!text)
		return;
	if (!strcmp(name, "new") && (!strcmp(rt, "constant") || !strcmp(rt, "scope_resolution"))) {
		/* Foo.new, A::B.new: a call to the class */
		_kbx_walk_call_dotted(w, n, text);
		return;
	}
	_kbx_walk_call(w, n, name, KBX_RECV_EXPR, text);
}

/* A bare identifier: a local variable, or a call without arguments. */
static void visit_identifier(struct kbx_walk *w, TSNode n)
{
	struct rb_state *st = w->lang_state;
	if (!st || take_name(st, ts_node_start_byte(n)))
		return;
	pop_frames(st, ts_node_start_byte(n));
	const char *name = _kbx_node_text(w, n);
	if (!name || is_local(st, name) || is_keyword_method(name))
		return;
	if (!strcmp(name, "new")) {
		call_self_class(w, n);
		return;
	}
	_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
}

static void define_method(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	mark_name(w, name);
	TSNode obj = _kbx_field(n, "object");  /* def self.x, def obj.x */
	if (!ts_node_is_null(obj))
		mark_name(w, obj);
	int p = _kbx_walk_parent(w);
	int k = p >= 0 ? w->x->syms[p].kind : KBX_KIND_NONE;
	int kind = KBX_KIND_IS_TYPE(k) || k == KBX_KIND_NAMESPACE ? KBX_KIND_METHOD :
		KBX_KIND_FUNCTION;
	const char *s = ts_node_is_null(name) ? NULL : _kbx_node_text(w, name);
	_kbx_walk_define(w, n, kind, s, 1);
	push_frame(w, n);
}

static void define_class(struct kbx_walk *w, TSNode n, int kind)
{
	int sym = _kbx_jsc_define_dotted(w, n, kind,
					 _kbx_jsc_clean_text(w, _kbx_field(n, "name"), 0), 1);
	push_frame(w, n);
	TSNode sup = _kbx_field(n, "superclass");
	if (sym < 0 || ts_node_is_null(sup))
		return;
	TSNode base = ts_node_named_child(sup, 0);
	if (ts_node_is_null(base))
		return;
	const char *t = ts_node_type(base);
	if (!strcmp(t, "constant") || !strcmp(t, "scope_resolution"))
		_kbx_x_inherit(w->x, sym, _kbx_jsc_clean_text(w, base, 0), _kbx_node_line(base));
}

static int rb_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct rb_state *st = w->lang_state;
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "assignment") || !strcmp(type, "operator_assignment")) {
			TSNode left = _kbx_field(n, "left");
			if (ts_node_is_null(left))
				break;
			if (!strcmp(ts_node_type(left), "identifier"))
				add_local(w, left);
			else if (st && !strcmp(type, "assignment") &&
				 !strcmp(ts_node_type(left), "call"))
				st->setter_call = ts_node_start_byte(left) + 1;
		} else if (!strcmp(type, "alias")) {
			return KBX_WALK_SKIP;
		} else if (!strcmp(type, "as_pattern")) {
			add_local(w, _kbx_field(n, "name"));
		} else if (!strcmp(type, "array_pattern")) {
			add_local_children(w, n);
		}
		break;
	case 'b':
		if (!strcmp(type, "block_parameters"))
			add_local_children(w, n);
		else if (!strcmp(type, "block_parameter"))
			add_local(w, _kbx_field(n, "name"));
		break;
	case 'c':
		if (!strcmp(type, "call"))
			visit_call(w, n);
		else if (!strcmp(type, "class"))
			define_class(w, n, KBX_KIND_CLASS);
		else if (!strcmp(type, "comment"))
			return KBX_WALK_SKIP;
		break;
	case 'd':
		if (!strcmp(type, "destructured_parameter") ||
		    !strcmp(type, "destructured_left_assignment"))
			add_local_children(w, n);
		break;
	case 'e':
		if (!strcmp(type, "exception_variable"))
			add_local_children(w, n);
		break;
	case 'f':
		if (!strcmp(type, "for")) {
			TSNode pat = _kbx_field(n, "pattern");
			if (!ts_node_is_null(pat))
				add_local(w, pat);
		} else if (!strcmp(type, "find_pattern")) {
			add_local_children(w, n);
		}
		break;
	case 'h':
		if (!strcmp(type, "hash_splat_parameter"))
			add_local(w, _kbx_field(n, "name"));
		break;
	case 'i':
		if (!strcmp(type, "identifier"))
			visit_identifier(w, n);
		break;
	case 'k':
		if (!strcmp(type, "keyword_parameter"))
			add_local(w, _kbx_field(n, "name"));
		break;
	case 'l':
		if (!strcmp(type, "lambda_parameters") || !strcmp(type, "left_assignment_list"))
			add_local_children(w, n);
		break;
	case 'm':
		if (!strcmp(type, "method"))
			define_method(w, n);
		else if (!strcmp(type, "module"))
			define_class(w, n, KBX_KIND_NAMESPACE);
		else if (!strcmp(type, "method_parameters"))
			add_local_children(w, n);
		break;
	case 'o':
		if (!strcmp(type, "optional_parameter"))
			add_local(w, _kbx_field(n, "name"));
		break;
	case 'r':
		if (!strcmp(type, "rest_assignment"))
			add_local_children(w, n);
		break;
	case 's':
		if (!strcmp(type, "singleton_method")) {
			define_method(w, n);
		} else if (!strcmp(type, "singleton_class")) {
			push_frame(w, n);
		} else if (!strcmp(type, "splat_parameter")) {
			add_local(w, _kbx_field(n, "name"));
		} else if (!strcmp(type, "super")) {
			if (!st || !take_name(st, ts_node_start_byte(n)))
				call_super(w, n);  /* bare super: same arguments */
		}
		break;
	case 'u':
		if (!strcmp(type, "undef"))
			return KBX_WALK_SKIP;
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * require_relative is relative to the requiring file; require searches the
 * load path, which in a repository is usually lib/ (of this project or of
 * one of the gems it holds), else the root.
 */
static void rb_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	const char *m = imp->module;
	if (!m || !*m)
		return;
	size_t len = strlen(m);
	const char *ext = len > 3 && !strcmp(m + len - 3, ".rb") ? "" : ".rb";
	char dir[4096], path[4096];
	if (imp->level > 0 || m[0] == '.') {
		_kbx_path_dirname(dir, sizeof(dir), importer);
		if (!_kbx_path_join(path, sizeof(path), dir, m))
			_kbx_pathlist_addf(out, "%s%s", path, ext);
		return;
	}
	if (_kbx_path_join(path, sizeof(path), "", m))
		return;
	_kbx_pathlist_addf(out, "lib/%s%s", path, ext);
	_kbx_pathlist_addf(out, "%s%s", path, ext);
	_kbx_pathlist_addf(out, "*lib/%s%s", path, ext);
}

static const char *const ruby_extensions[] = { ".rb", ".rake", ".gemspec", NULL };
static const char *const ruby_filenames[] = { "Rakefile", "Gemfile", NULL };

const struct kbx_lang _kbx_lang_ruby = {
	.name = "ruby",
	.extensions = ruby_extensions,
	.filenames = ruby_filenames,
	.grammar = kbx_tree_sitter_ruby,
	.visit = rb_visit,
	.begin = rb_begin,
	.end = rb_end,
	.import_candidates = rb_import_candidates,
	.implicit_self = 1,
	.scope_sep = "::",
	.visibility = _kbx_ruby_visibility,
};
