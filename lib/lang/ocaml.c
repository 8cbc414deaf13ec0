/*
 * OCaml: modules (`module M = struct ... end`, functors) as classes that
 * hold their functions, functions (`let f x = ...`, `let f = fun x ->`,
 * `let rec ... and ...`, and local ones in a function), classes and their
 * methods, calls (f x, M.f x, M.N.f x, x |> f, obj#m, self#m), and the
 * modules a file uses as its imports.
 *
 * A file a.ml (or A.ml) is the module A, and OCaml has no import
 * statement: a file depends on the modules it names (as ocamldep finds
 * them).  So M.f where M is no module of the file is an import of M,
 * which is a.ml beside the file, else any file of that name; `open M` and
 * `include M` at the top of a file or module are wildcard imports (plain
 * calls may reach M's definitions); `module U = M` binds U to M (also
 * when M.f came before it).  A let without rec does not see its own
 * name: in its body that name is another definition, never this one.  A plain
 * call reaches the definitions of its module and its file, and of what
 * they open (calls_in_imports_only), never another file's by name alone.
 * A `let` without parameters is a value: the calls that compute it are
 * the module's (file-level) code.  A parameter, a let-bound local and a
 * functor's parameter hide any definition of their name: a call through
 * them is a call through a value.  In a local open (`let open M in e`,
 * `M.(e)`) a plain call carries M, whose definitions the resolver tries
 * first.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_ocaml)

/* a module name the file knows: one it defines or binds (local), or
 * one it imported (M.f, open M) */
struct ml_mod {
	const char *name;
	int local;
};

/* let open M in e, M.(e): M's names come first in e, which ends there */
struct ml_open {
	const char *mod;
	uint32_t end;
};

/* a let without rec, whose name its body does not see (up to end),
 * until a function of that name is defined in it (cleared) */
struct ml_self {
	const char *name;
	uint32_t end;
	int cleared;
};

struct ml_state {
	struct ml_mod *mods;
	size_t nmods, amods;
	struct ml_open *opens;
	size_t nopens, aopens;
	struct ml_self *selves;
	size_t nselves, aselves;
	/* the name an object binds itself to (object (self)), and where
	 * that object ends */
	const char *self;
	uint32_t self_end;
};

static void ml_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct ml_state));
}

static void ml_end(struct kbx_walk *w)
{
	struct ml_state *st = w->lang_state;
	if (st) {
		free(st->mods);
		free(st->opens);
		free(st->selves);
	}
	free(st);
	w->lang_state = NULL;
}

/* The module name as the file knows it, or NULL. */
static const struct ml_mod *find_mod(struct ml_state *st, const char *name)
{
	for (size_t i = st ? st->nmods : 0; i-- > 0;)
		if (!strcmp(st->mods[i].name, name))
			return &st->mods[i];
	return NULL;
}

static int known_mod(struct ml_state *st, const char *name)
{
	return find_mod(st, name) != NULL;
}

static void add_mod(struct ml_state *st, const char *name, int local)
{
	if (st && name && !known_mod(st, name) &&
	    !_kbx_grow((void **)&st->mods, &st->amods, st->nmods, sizeof(*st->mods), 8))
		st->mods[st->nmods++] = (struct ml_mod){ name, local };
}

/* M.f names the module M: an import the first time, unless the file
 * defines or binds M (or M is a functor's parameter). */
static void use_module(struct kbx_walk *w, TSNode at, const char *first)
{
	struct ml_state *st = w->lang_state;
	const char *type;
	if (!first || known_mod(st, first) || _kbx_walk_bound(w, first, 0, &type))
		return;
	add_mod(st, first, 0);
	_kbx_x_import(w->x, first, NULL, NULL, 0, 0, _kbx_node_line(at));
}

/* The leftmost module name of a module_path, or NULL. */
static TSNode first_module(TSNode path)
{
	TSNode n = path;
	for (int i = 0; i < 64 && _kbx_is(n, "module_path"); i++) {
		TSNode c = ts_node_named_child(n, 0);
		if (_kbx_is(c, "module_name"))
			return c;
		n = c;
	}
	TSNode none = { 0 };
	return none;
}

/* let open M in e, M.(e): M opened in e, an import of M when it is
 * none of the file's modules. */
static void visit_local_open(struct kbx_walk *w, TSNode n, TSNode path)
{
	struct ml_state *st = w->lang_state;
	const char *text = _kbx_is(path, "module_path") ? _kbx_compact_text(w, path, 0) : NULL;
	TSNode first = first_module(path);
	if (!st || !text || ts_node_is_null(first))
		return;
	use_module(w, n, _kbx_node_text(w, first));
	if (!_kbx_grow((void **)&st->opens, &st->aopens, st->nopens, sizeof(*st->opens), 8))
		st->opens[st->nopens++] = (struct ml_open){ text, ts_node_end_byte(n) };
}

/* Is name, called at node at, the name of a let without rec whose body
 * holds the call (and that no function of its body defined again)? */
static int unseen_self(struct ml_state *st, TSNode at, const char *name, int clear)
{
	uint32_t start = ts_node_start_byte(at);
	while (st && st->nselves && st->selves[st->nselves - 1].end <= start)
		st->nselves--;
	for (size_t i = st ? st->nselves : 0; i-- > 0;) {
		if (strcmp(st->selves[i].name, name))
			continue;
		if (clear)
			st->selves[i].cleared = 1;
		return !st->selves[i].cleared;
	}
	return 0;
}

/* The module opened where node at is (the innermost), or NULL. */
static const char *opened_at(struct ml_state *st, TSNode at)
{
	uint32_t start = ts_node_start_byte(at);
	while (st && st->nopens && st->opens[st->nopens - 1].end <= start)
		st->nopens--;
	return st && st->nopens ? st->opens[st->nopens - 1].mod : NULL;
}

/* open M, include M: at the top of a file or a module, a wildcard import
 * (not the open of a let open M in, which is local). */
static void visit_open(struct kbx_walk *w, TSNode n)
{
	TSNode path = _kbx_field(n, "module");
	if (!_kbx_is(path, "module_path") || _kbx_walk_caller(w) >= 0 ||
	    _kbx_is(_kbx_walk_up(w, n), "let_open_expression") ||
	    _kbx_is(_kbx_walk_up(w, n), "let_open_class_expression"))
		return;
	const char *text = _kbx_compact_text(w, path, 0);
	TSNode first = first_module(path);
	if (!text || ts_node_is_null(first))
		return;
	const char *head = _kbx_node_text(w, first);
	struct ml_state *st = w->lang_state;
	if (head && known_mod(st, head))
		return;   /* a module of this file, or an import already */
	_kbx_x_import(w->x, text, NULL, NULL, 0, KBX_IMPORT_WILDCARD, _kbx_node_line(n));
}

/* The names a pattern binds (x, (a, b), { f = x }, ...): all its
 * value_names and value_patterns. */
static void bind_pattern(struct kbx_walk *w, TSNode p)
{
	if (ts_node_is_null(p))
		return;
	const char *t = ts_node_type(p);
	if (!strcmp(t, "value_pattern") || !strcmp(t, "value_name")) {
		_kbx_walk_bind(w, _kbx_node_text(w, p), NULL);
		return;
	}
	/* a pattern's parts; a small bound on what a parameter may hold */
	TSTreeCursor c = ts_tree_cursor_new(p);
	int seen = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		for (;;) {
			TSNode n = ts_tree_cursor_current_node(&c);
			const char *nt = ts_node_type(n);
			if (!strcmp(nt, "value_pattern") || !strcmp(nt, "value_name")) {
				_kbx_walk_bind(w, _kbx_node_text(w, n), NULL);
			} else if (ts_node_child_count(n) && ++seen < 256 &&
				   strcmp(nt, "field_path") && strcmp(nt, "constructor_path") &&
				   ts_tree_cursor_goto_first_child(&c)) {
				continue;
			}
			while (!ts_tree_cursor_goto_next_sibling(&c))
				if (!ts_tree_cursor_goto_parent(&c) ||
				    ts_node_eq(ts_tree_cursor_current_node(&c), p))
					goto done;
		}
	}
done:
	ts_tree_cursor_delete(&c);
}

static void bind_params(struct kbx_walk *w, TSNode n)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(n, i);
		if (_kbx_is(p, "parameter"))
			bind_pattern(w, _kbx_field(p, "pattern"));
	}
}

/* let f x = ..., let f = fun x -> ..., let f = function ...: a function,
 * and so is let ( ++ ) a b = ...; any other let binds values. */
static void visit_let(struct kbx_walk *w, TSNode n)
{
	TSNode pat = _kbx_field(n, "pattern");
	TSNode body = _kbx_field(n, "body");
	int fn = !ts_node_is_null(_kbx_child_of_type(n, "parameter")) ||
		 _kbx_is(body, "fun_expression") || _kbx_is(body, "function_expression");
	if (fn && _kbx_is(pat, "parenthesized_operator"))
		pat = ts_node_named_child(pat, 0);
	int named = !ts_node_is_null(pat) &&
		    (_kbx_is(pat, "value_name") || strstr(ts_node_type(pat), "operator"));
	if (!named || !fn) {
		/* a value: in a function, locals (seen after it, in the
		 * expression the let_expression holds) */
		if (_kbx_walk_caller(w) >= 0)
			bind_pattern(w, pat);
		return;
	}
	const char *name = _kbx_node_text(w, pat);
	if (!name)
		return;
	/* the name is a local of the enclosing function, and the function
	 * itself a definition nested in it */
	struct ml_state *st = w->lang_state;
	/* a function of this name in the body of a let of the same name:
	 * the calls after it are of it (let f x = let rec f y = ... in f x) */
	unseen_self(st, n, name, 1);
	int sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION, name, 1);
	if (sym < 0)
		return;
	bind_params(w, n);
	/* without rec, the name is not yet bound in its own body: f there is
	 * an earlier f, of the module, an opened module or Stdlib
	 * (let compare a b = compare a b), never this one */
	if (st && !_kbx_has_token(_kbx_walk_up(w, n), "rec") &&
	    !_kbx_grow((void **)&st->selves, &st->aselves, st->nselves, sizeof(*st->selves), 8))
		st->selves[st->nselves++] = (struct ml_self){ name, ts_node_end_byte(n), 0 };
}

static void visit_module(struct kbx_walk *w, TSNode n)
{
	struct ml_state *st = w->lang_state;
	TSNode name = _kbx_child_of_type(n, "module_name");
	const char *mname = _kbx_node_text(w, name);
	TSNode body = _kbx_field(n, "body");
	if (!mname)
		return;
	if (_kbx_is(body, "module_path") && _kbx_walk_caller(w) < 0) {
		/* module U = M, module U = A.B: U stands for that module, also
		 * when the file named M before (module A = Automata after
		 * Automata.f); not when M is the file's own */
		TSNode first = first_module(body);
		const char *head = _kbx_node_text(w, first);
		const char *text = _kbx_compact_text(w, body, 0);
		const struct ml_mod *known = head ? find_mod(st, head) : NULL;
		if (head && text && (!known || !known->local)) {
			const char *dot = strrchr(text, '.');
			if (dot)
				_kbx_x_import(w->x, _kbx_arena_strndup(&w->x->arena, text,
								       (size_t)(dot - text)),
					      dot + 1, mname, 0, 0, _kbx_node_line(n));
			else
				_kbx_x_import(w->x, text, NULL, mname, 0, 0, _kbx_node_line(n));
		}
		add_mod(st, mname, 1);
		return;
	}
	if (!_kbx_is(body, "structure") && !_kbx_is(body, "functor"))
		return;
	add_mod(st, mname, 1);
	if (_kbx_walk_caller(w) >= 0)
		return;   /* a module in a function: its code is the function's */
	int sym = _kbx_walk_define(w, n, KBX_KIND_CLASS, mname, 1);
	if (sym < 0)
		return;
	/* a functor's parameters are modules given at its application */
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(n, i);
		if (_kbx_is(p, "module_parameter"))
			_kbx_walk_bind(w, _kbx_node_text(w, _kbx_child_of_type(p, "module_name")),
				       NULL);
	}
}

/* A call of name without a module, carrying the module opened there. */
static void plain_call(struct kbx_walk *w, TSNode at, const char *name)
{
	if (unseen_self(w->lang_state, at, name, 0)) {
		_kbx_walk_call(w, at, name, KBX_RECV_VALUE, NULL);
		return;
	}
	int i = _kbx_walk_call(w, at, name, KBX_RECV_NONE, NULL);
	if (i >= 0 && w->x->calls[i].recv == KBX_RECV_NONE)
		w->x->calls[i].receiver = opened_at(w->lang_state, at);
}

/* The infix operators of the language and of Stdlib, which a project
 * does not define (a redefinition of one is not followed). */
static int stdlib_operator(const char *op)
{
	static const char *const ops[] = {
		"+", "-", "*", "/", "+.", "-.", "*.", "/.", "**", "=", "<>", "==", "!=", "<",
		">", "<=", ">=", "&&", "||", "&", "or", "^", "^^", "@", ":=", "mod", "land",
		"lor", "lxor", "lsl", "lsr", "asr", "|>", "@@", NULL
	};
	for (int i = 0; ops[i]; i++)
		if (!strcmp(ops[i], op))
			return 1;
	return 0;
}

/* f x, M.f x, M.N.f x: the function a value_path names. */
static void call_path(struct kbx_walk *w, TSNode at, TSNode path)
{
	TSNode vn = _kbx_child_of_type(path, "value_name");
	TSNode mp = _kbx_child_of_type(path, "module_path");
	const char *name = _kbx_node_text(w, vn);
	if (!name)
		return;
	if (ts_node_is_null(mp)) {
		plain_call(w, at, name);
		return;
	}
	const char *recv = _kbx_compact_text(w, mp, 0);
	TSNode first = first_module(mp);
	if (!recv || ts_node_is_null(first))
		return;
	use_module(w, at, _kbx_node_text(w, first));
	_kbx_walk_call(w, at, name, KBX_RECV_EXPR, recv);
}

static void visit_invocation(struct kbx_walk *w, TSNode n)
{
	struct ml_state *st = w->lang_state;
	const char *m = _kbx_node_text(w, _kbx_field(n, "method"));
	TSNode obj = _kbx_field(n, "object");
	if (!m || ts_node_is_null(obj))
		return;
	if (_kbx_is(obj, "value_path") && ts_node_named_child_count(obj) == 1) {
		const char *o = _kbx_node_text(w, obj);
		if (o && st && st->self && !strcmp(o, st->self) &&
		    ts_node_start_byte(n) < st->self_end) {
			_kbx_walk_call(w, n, m, KBX_RECV_SELF, NULL);
			return;
		}
		_kbx_walk_call(w, n, m, KBX_RECV_EXPR, o);
		return;
	}
	_kbx_walk_call(w, n, m, KBX_RECV_EXPR, _kbx_compact_text(w, obj, 0));
}

static void visit_class(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_node_text(w, _kbx_child_of_type(n, "class_name"));
	if (!name || _kbx_walk_caller(w) >= 0)
		return;
	int sym = _kbx_walk_define(w, n, KBX_KIND_CLASS, name, 1);
	if (sym >= 0)
		bind_params(w, n);
}

static void visit_method(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_node_text(w, _kbx_child_of_type(n, "method_name"));
	if (!name || !_kbx_walk_in_type(w))
		return;
	if (_kbx_walk_define(w, n, KBX_KIND_METHOD, name, 1) >= 0)
		bind_params(w, n);
}

static int ml_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct ml_state *st = w->lang_state;
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "application_expression")) {
			TSNode fn = _kbx_field(n, "function");
			if (_kbx_is(fn, "value_path"))
				call_path(w, n, fn);
		}
		break;
	case 'c':
		if (!strcmp(type, "comment"))
			return KBX_WALK_SKIP;
		if (!strcmp(type, "class_binding"))
			visit_class(w, n);
		break;
	case 'f':
		if (!strcmp(type, "fun_expression") && _kbx_walk_caller(w) >= 0)
			bind_params(w, n);
		break;
	case 'i':
		if (!strcmp(type, "include_module"))
			visit_open(w, n);
		else if (!strcmp(type, "infix_expression")) {
			/* x |> f and f @@ x call f */
			const char *op = _kbx_field_text(w, n, "operator");
			TSNode f = !op ? n : !strcmp(op, "|>") ? _kbx_field(n, "right") :
				!strcmp(op, "@@") ? _kbx_field(n, "left") : n;
			if (!ts_node_eq(f, n) && _kbx_is(f, "value_path"))
				call_path(w, f, f);
			else if (op && !stdlib_operator(op))
				plain_call(w, n, op);   /* a ++ b, the project's ( ++ ) */
		}
		break;
	case 'l':
		if (!strcmp(type, "let_binding"))
			visit_let(w, n);
		else if (!strcmp(type, "let_open_expression"))
			visit_local_open(w, n, _kbx_field(_kbx_child_of_type(n, "open_module"),
							 "module"));
		else if (!strcmp(type, "local_open_expression"))
			visit_local_open(w, n, _kbx_child_of_type(n, "module_path"));
		break;
	case 'm':
		if (!strcmp(type, "module_binding"))
			visit_module(w, n);
		else if (!strcmp(type, "method_invocation"))
			visit_invocation(w, n);
		else if (!strcmp(type, "method_definition"))
			visit_method(w, n);
		else if (!strcmp(type, "match_case") && _kbx_walk_caller(w) >= 0)
			bind_pattern(w, _kbx_field(n, "pattern"));
		break;
	case 'o':
		if (!strcmp(type, "open_module"))
			visit_open(w, n);
		else if (!strcmp(type, "object_expression") && st) {
			TSNode self = _kbx_field(n, "self");
			if (!ts_node_is_null(self)) {
				st->self = _kbx_node_text(w, self);
				st->self_end = ts_node_end_byte(n);
			}
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

/* Module Shop_util is shop_util.ml (or Shop_util.ml): beside the file
 * first, else anywhere (a library elsewhere in the tree). */
static void ml_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	char dir[4096], file[512], path[4096];
	const char *m = imp->module;
	size_t n = m ? strcspn(m, ".") : 0;
	if (!n || n >= sizeof(file) - 4)
		return;
	memcpy(file, m, n);
	file[n] = 0;
	_kbx_path_dirname(dir, sizeof(dir), importer);
	for (int upper = 0; upper < 2; upper++) {
		file[0] = upper ? (char)toupper((unsigned char)m[0]) :
			(char)tolower((unsigned char)m[0]);
		strcpy(file + n, ".ml");
		if (!_kbx_path_join(path, sizeof(path), dir, file))
			_kbx_pathlist_add(out, path);
	}
	for (int upper = 0; upper < 2; upper++) {
		file[0] = upper ? (char)toupper((unsigned char)m[0]) :
			(char)tolower((unsigned char)m[0]);
		_kbx_pathlist_addf(out, "*%s", file);
	}
}

static const char *const ocaml_extensions[] = { ".ml", NULL };

const struct kbx_lang _kbx_lang_ocaml = {
	.name = "ocaml",
	.extensions = ocaml_extensions,
	.grammar = kbx_tree_sitter_ocaml,
	.visit = ml_visit,
	.begin = ml_begin,
	.end = ml_end,
	.import_candidates = ml_import_candidates,
	.implicit_self = 1,
	.calls_in_imports_only = 1,
	.nested_defs = 1,
	.later_shadows = 1,
	.closed_modules = 1,
	.scope_sep = ".",
};
