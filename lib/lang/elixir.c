/*
 * Elixir: modules (defmodule, nested ones qualified by the enclosing
 * module as Elixir names them: Shop.Cart.Inner), protocols and their
 * implementations, functions and macros (def, defp, defmacro, defmacrop,
 * defguard, defdelegate), calls, alias, import, require and use, and
 * @behaviour as a base.
 *
 * Everything in Elixir is a call in the grammar: `def total(x) do ... end`
 * is a call of def whose first argument is the head.  The clauses of one
 * function (`def f([])` and `def f([h | t])`, of any arity) are one
 * definition, Module.f: the first clause defines it, the others add
 * their calls to it.  The head's own names are parameters, never calls.
 *
 * A call Mod.f() names its module, which is absolute once the aliases in
 * force are expanded (alias Shop.Model.Item makes Item.describe() a call
 * of Shop.Model.Item.describe; a nested defmodule aliases its last part in
 * the enclosing module): the module is given as the receiver's type, and
 * the resolver takes it by its full name only (kbx_lang.absolute_types).
 * __MODULE__.f() is a call on the module itself; a plain f() is one of the
 * module's functions or of a module it imports; :ets.new() is Erlang's.
 * var.f() with parentheses calls a function of the module a variable
 * holds (no type); var.field without them reads a map and is no call.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "js-common.h"

const TSLanguage *tree_sitter_elixir(void);

struct ex_alias {
	const char *local, *full;
	uint32_t end;       /* the end byte of the module (or file) it holds in */
};

struct ex_clause {
	int parent;
	const char *name;
	int sym;
};

struct ex_state {
	struct ex_alias *aliases;
	size_t naliases, aaliases;
	struct ex_clause *clauses;
	size_t nclauses, aclauses;
	/* the heads of the definitions being walked: names, not calls */
	TSNode skip[16];
	size_t nskip;
};

static void ex_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct ex_state));
}

static void ex_end(struct kbx_walk *w)
{
	struct ex_state *st = w->lang_state;
	if (st) {
		free(st->aliases);
		free(st->clauses);
	}
	free(st);
	w->lang_state = NULL;
}

/* ---- aliases ---- */

/* The end byte of the innermost enclosing module or function (an alias
 * is lexical: one written in a function holds there), or of the file. */
static uint32_t scope_end(struct kbx_walk *w)
{
	if (!w->nscope)
		return (uint32_t)w->len;
	return ts_node_end_byte(w->up[w->scope_depth[w->nscope - 1]]);
}

static void add_alias(struct kbx_walk *w, const char *local, const char *full, uint32_t end)
{
	struct ex_state *st = w->lang_state;
	if (!st || !local || !full ||
	    _kbx_grow((void **)&st->aliases, &st->aaliases, st->naliases, sizeof(*st->aliases), 8))
		return;
	st->aliases[st->naliases].local = local;
	st->aliases[st->naliases].full = full;
	st->aliases[st->naliases].end = end;
	st->naliases++;
}

/* A module name as written, with its first part expanded by the aliases
 * in force at byte pos (the latest first): in the arena. */
static const char *expand(struct kbx_walk *w, const char *name, uint32_t pos)
{
	struct ex_state *st = w->lang_state;
	if (!st || !name)
		return name;
	const char *dot = strchr(name, '.');
	size_t first = dot ? (size_t)(dot - name) : strlen(name);
	for (size_t i = st->naliases; i-- > 0;) {
		const struct ex_alias *a = &st->aliases[i];
		if (pos >= a->end || strlen(a->local) != first || memcmp(a->local, name, first))
			continue;
		return dot ? _kbx_join(w, a->full, "", dot) : a->full;
	}
	return name;
}

/* The text of an alias node (Shop.Cart), or of __MODULE__ as the
 * enclosing module's name; NULL for anything else. */
static const char *module_text(struct kbx_walk *w, TSNode n)
{
	if (_kbx_is(n, "alias"))
		return _kbx_compact_text(w, n, 0);
	if (_kbx_is(n, "identifier")) {
		const char *t = _kbx_node_text(w, n);
		int cls = _kbx_walk_class(w);
		if (t && !strcmp(t, "__MODULE__") && cls >= 0)
			return w->x->syms[cls].qual;
	}
	return NULL;
}

/* ---- definitions ---- */

/* The value of keyword key (for: Item, as: Short, to: Mod) among the
 * arguments. */
static TSNode keyword_value(struct kbx_walk *w, TSNode args, const char *key)
{
	TSNode kw = _kbx_child_of_type(args, "keywords");
	uint32_t count = ts_node_is_null(kw) ? 0 : ts_node_named_child_count(kw);
	size_t klen = strlen(key);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(kw, i);
		const char *k = _kbx_field_text(w, p, "key");
		if (k && !strncmp(k, key, klen) && k[klen] == ':')
			return _kbx_field(p, "value");
	}
	return (TSNode){ 0 };
}

/* defmodule A.B do ... end, defprotocol P do ... end: the module, and an
 * alias of its last part in the enclosing module. */
static void define_module(struct kbx_walk *w, TSNode n, TSNode args, int kind)
{
	TSNode alias = ts_node_named_child(args, 0);
	const char *name = _kbx_is(alias, "alias") ? _kbx_compact_text(w, alias, 0) : NULL;
	if (!name)
		return;
	int outer = _kbx_walk_class(w);
	uint32_t end = scope_end(w);
	int sym = _kbx_jsc_define_dotted(w, n, kind, name, 1);
	if (sym >= 0 && outer >= 0)
		add_alias(w, w->x->syms[sym].name, w->x->syms[sym].qual, end);
}

/* defimpl P, for: T do ... end: the module P.T, whose base is P. */
static void define_impl(struct kbx_walk *w, TSNode n, TSNode args)
{
	uint32_t pos = ts_node_start_byte(n);
	const char *proto = module_text(w, ts_node_named_child(args, 0));
	const char *target = module_text(w, keyword_value(w, args, "for"));
	int cls = _kbx_walk_class(w);
	if (!target && cls >= 0)
		target = w->x->syms[cls].name;
	if (!proto || !target)
		return;
	int sym = _kbx_jsc_define_dotted(w, n, KBX_KIND_CLASS, _kbx_join(w, proto, ".", target), 1);
	if (sym >= 0)
		_kbx_x_inherit(w->x, sym, expand(w, proto, pos), _kbx_node_line(n));
}

/* Bind the identifiers of a head (its parameters, not the names it
 * calls: the function's own, a guard's) as values. */
static void bind_params(struct kbx_walk *w, TSNode head)
{
	TSTreeCursor c = ts_tree_cursor_new(head);
	int steps = 0;
	for (;;) {
		TSNode k = ts_tree_cursor_current_node(&c);
		const char *field = ts_tree_cursor_current_field_name(&c);
		if (_kbx_is(k, "identifier") && !(field && !strcmp(field, "target"))) {
			const char *s = _kbx_node_text(w, k);
			if (s)
				_kbx_walk_bind(w, s, NULL);
		}
		if (++steps > 512)
			break;
		if (ts_tree_cursor_goto_first_child(&c))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&c))
			if (!ts_tree_cursor_goto_parent(&c))
				goto out;
		if (ts_node_eq(ts_tree_cursor_current_node(&c), head))
			break;
	}
out:
	ts_tree_cursor_delete(&c);
}

/* def name(args) [when guard], do: ... or do ... end: the function
 * (its first clause), its scope, and its head kept from being read as
 * calls. */
static void define_function(struct kbx_walk *w, TSNode n, TSNode args, const char *macro)
{
	struct ex_state *st = w->lang_state;
	TSNode head = ts_node_named_child(args, 0);
	TSNode call = head;
	if (_kbx_is(call, "binary_operator"))
		call = _kbx_field(call, "left");   /* ... when guard */
	const char *name = NULL;
	if (_kbx_is(call, "call"))
		name = _kbx_field_text(w, call, "target");
	else if (_kbx_is(call, "identifier"))
		name = _kbx_node_text(w, call);
	if (!st || !name || (_kbx_is(call, "call") && !_kbx_is(_kbx_field(call, "target"), "identifier")))
		return;
	int parent = _kbx_walk_parent(w);
	int sym = -1;
	for (size_t i = 0; i < st->nclauses; i++)
		if (st->clauses[i].parent == parent && !strcmp(st->clauses[i].name, name))
			sym = st->clauses[i].sym;
	if (sym >= 0) {
		_kbx_sym_extend(w, sym, n);
		_kbx_walk_scope(w, sym);
	} else {
		sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION, name, 1);
		if (sym < 0 || _kbx_grow((void **)&st->clauses, &st->aclauses, st->nclauses,
					 sizeof(*st->clauses), 16))
			return;
		st->clauses[st->nclauses].parent = parent;
		st->clauses[st->nclauses].name = name;
		st->clauses[st->nclauses].sym = sym;
		st->nclauses++;
	}
	bind_params(w, head);
	if (st->nskip < sizeof(st->skip) / sizeof(st->skip[0]))
		st->skip[st->nskip++] = head;
	if (!strcmp(macro, "defdelegate")) {
		/* defdelegate f(x), to: Mod: a call of Mod.f */
		TSNode to = keyword_value(w, args, "to");
		const char *mod = module_text(w, to);
		if (mod)
			_kbx_walk_call_typed(w, to, name, KBX_RECV_EXPR, mod,
					     expand(w, mod, ts_node_start_byte(n)));
	}
}

/* ---- imports ---- */

/* alias A.B, alias A.B, as: C, alias A.{B, C}: the names and imports. */
static void visit_alias(struct kbx_walk *w, TSNode n, TSNode args)
{
	TSNode first = ts_node_named_child(args, 0);
	uint32_t pos = ts_node_start_byte(n), end = scope_end(w), line = _kbx_node_line(n);
	if (_kbx_is(first, "dot") && _kbx_is(_kbx_field(first, "right"), "tuple")) {
		const char *base = expand(w, module_text(w, _kbx_field(first, "left")), pos);
		TSNode tuple = _kbx_field(first, "right");
		uint32_t count = ts_node_named_child_count(tuple);
		for (uint32_t i = 0; base && i < count; i++) {
			TSNode a = ts_node_named_child(tuple, i);
			const char *part = module_text(w, a);
			const char *full = part ? _kbx_join(w, base, ".", part) : NULL;
			if (!full || full == _kbx_qual_too_long)
				continue;
			const char *dot = strrchr(part, '.');
			add_alias(w, dot ? dot + 1 : part, full, end);
			_kbx_x_import(w->x, full, NULL, NULL, 0, 0, line);
		}
		return;
	}
	const char *full = expand(w, module_text(w, first), pos);
	if (!full)
		return;
	const char *local = module_text(w, keyword_value(w, args, "as"));
	const char *dot = strrchr(full, '.');
	add_alias(w, local ? local : dot ? dot + 1 : full, full, end);
	_kbx_x_import(w->x, full, NULL, NULL, 0, 0, line);
}

/* import A (its functions, to be called without the module), require A,
 * use A. */
static void visit_import(struct kbx_walk *w, TSNode n, TSNode args, int import)
{
	const char *full = expand(w, module_text(w, ts_node_named_child(args, 0)),
				  ts_node_start_byte(n));
	if (full)
		_kbx_x_import(w->x, full, NULL, NULL, 0,
			      import ? KBX_IMPORT_STATIC | KBX_IMPORT_WILDCARD : 0,
			      _kbx_node_line(n));
}

/* ---- calls ---- */

/* Calls that are the language's syntax, not functions of a module. */
static int is_keyword(const char *name)
{
	static const char *const words[] = {
		"if", "unless", "case", "cond", "with", "for", "try", "receive", "quote",
		"unquote", "unquote_splicing", "fn", "super", "import", "require", "use",
		"alias", "defstruct", "defexception", "defoverridable", "defcallback", NULL
	};
	for (size_t i = 0; words[i]; i++)
		if (!strcmp(name, words[i]))
			return 1;
	return 0;
}

static void visit_dot_call(struct kbx_walk *w, TSNode n, TSNode target)
{
	TSNode left = _kbx_field(target, "left"), right = _kbx_field(target, "right");
	const char *name = _kbx_is(right, "identifier") ? _kbx_node_text(w, right) : NULL;
	if (!name || ts_node_is_null(left))
		return;   /* fun.(x): a call of a value */
	int parens = !ts_node_is_null(_kbx_child_of_type(n, "arguments"));
	if (_kbx_is(left, "alias")) {
		const char *mod = module_text(w, left);
		if (mod)
			_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, mod,
					     expand(w, mod, ts_node_start_byte(n)));
		return;
	}
	if (_kbx_is(left, "atom")) {
		/* an Erlang module: :ets.new() */
		const char *mod = _kbx_node_text(w, left);
		if (mod)
			_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, mod, mod);
		return;
	}
	if (_kbx_is(left, "identifier")) {
		const char *var = _kbx_node_text(w, left);
		if (var && !strcmp(var, "__MODULE__"))
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		else if (var && parens)
			_kbx_walk_call(w, n, name, KBX_RECV_EXPR, var);
		return;   /* var.field: a map's */
	}
	if (parens) {
		const char *text = _kbx_compact_text(w, left, 0);
		if (text)
			_kbx_walk_call(w, n, name, KBX_RECV_EXPR, text);
	}
}

static int visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode target = _kbx_field(n, "target");
	if (_kbx_is(target, "dot")) {
		visit_dot_call(w, n, target);
		return KBX_WALK_CONTINUE;
	}
	const char *name = _kbx_is(target, "identifier") ? _kbx_node_text(w, target) : NULL;
	if (!name)
		return KBX_WALK_CONTINUE;
	TSNode args = _kbx_child_of_type(n, "arguments");
	int has_args = !ts_node_is_null(args) && ts_node_named_child_count(args) > 0;
	if (!strcmp(name, "defmodule") && has_args) {
		define_module(w, n, args, KBX_KIND_CLASS);
	} else if (!strcmp(name, "defprotocol") && has_args) {
		define_module(w, n, args, KBX_KIND_INTERFACE);
	} else if (!strcmp(name, "defimpl") && has_args) {
		define_impl(w, n, args);
	} else if ((!strcmp(name, "def") || !strcmp(name, "defp") || !strcmp(name, "defmacro") ||
		    !strcmp(name, "defmacrop") || !strcmp(name, "defguard") ||
		    !strcmp(name, "defguardp") || !strcmp(name, "defdelegate")) && has_args) {
		define_function(w, n, args, name);
	} else if (!strcmp(name, "alias") && has_args) {
		visit_alias(w, n, args);
		return KBX_WALK_SKIP;
	} else if ((!strcmp(name, "import") || !strcmp(name, "require") || !strcmp(name, "use")) &&
		   has_args) {
		visit_import(w, n, args, !strcmp(name, "import"));
		return KBX_WALK_SKIP;
	} else if (!is_keyword(name)) {
		_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
	}
	return KBX_WALK_CONTINUE;
}

/* @behaviour Mod: a base; any other attribute (@doc, @spec, @impl) holds
 * no call worth an edge. */
static int visit_attribute(struct kbx_walk *w, TSNode n)
{
	TSNode op = _kbx_field(n, "operand");
	if (!_kbx_is(op, "call"))
		return KBX_WALK_CONTINUE;
	const char *attr = _kbx_field_text(w, op, "target");
	int cls = _kbx_walk_class(w);
	if (attr && !strcmp(attr, "behaviour") && cls >= 0) {
		TSNode args = _kbx_child_of_type(op, "arguments");
		const char *mod = ts_node_is_null(args) ? NULL :
			module_text(w, ts_node_named_child(args, 0));
		if (mod)
			_kbx_x_inherit(w->x, cls, expand(w, mod, ts_node_start_byte(n)),
				       _kbx_node_line(n));
	}
	return KBX_WALK_SKIP;
}

static int ex_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct ex_state *st = w->lang_state;
	if (st) {
		for (size_t i = 0; i < st->nskip; i++) {
			if (ts_node_eq(st->skip[i], n)) {
				st->skip[i] = st->skip[--st->nskip];
				return KBX_WALK_SKIP;
			}
		}
		/* heads the walk has passed (a def that was not entered) */
		while (st->nskip && ts_node_end_byte(st->skip[st->nskip - 1]) <= ts_node_start_byte(n))
			st->nskip--;
	}
	if (!strcmp(type, "call"))
		return visit_call(w, n);
	if (!strcmp(type, "unary_operator") && _kbx_has_token(n, "@"))
		return visit_attribute(w, n);
	if (!strcmp(type, "binary_operator") && _kbx_has_token(n, "=")) {
		TSNode left = _kbx_field(n, "left");
		if (_kbx_is(left, "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, left), NULL);
	}
	return KBX_WALK_CONTINUE;
}

/*
 * A module's file by Mix's convention: Shop.Model.Item is
 * lib/shop/model/item.ex (under any directory: an umbrella's apps),
 * HTTPClient http_client.ex.  A module written elsewhere (nested in
 * another's file, or two in one file) is not found so, and the import
 * stays a module: guessing the parent's file would name a file that
 * may not define it.  Erlang's modules (:ets) are no file.
 */
static void ex_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	(void)importer;
	const char *m = imp->module;
	if (!m || !*m || !isupper((unsigned char)m[0]))
		return;
	char path[1024];
	size_t n = 0;
	for (size_t i = 0; m[i]; i++) {
		unsigned char c = (unsigned char)m[i];
		if (n + 3 >= sizeof(path))
			return;
		if (c == '.') {
			path[n++] = '/';
			continue;
		}
		if (!isalnum(c) && c != '_')
			return;
		if (isupper(c) && i > 0 && m[i - 1] != '.' &&
		    (islower((unsigned char)m[i - 1]) || isdigit((unsigned char)m[i - 1]) ||
		     (m[i + 1] && islower((unsigned char)m[i + 1]))))
			path[n++] = '_';
		path[n++] = (char)tolower(c);
	}
	path[n] = '\0';
	_kbx_pathlist_addf(out, "*lib/%s.ex", path);
}

static const char *const elixir_extensions[] = { ".ex", ".exs", NULL };

const struct kbx_lang _kbx_lang_elixir = {
	.name = "elixir",
	.extensions = elixir_extensions,
	.grammar = tree_sitter_elixir,
	.visit = ex_visit,
	.begin = ex_begin,
	.end = ex_end,
	.import_candidates = ex_import_candidates,
	.implicit_self = 1,
	.calls_in_imports_only = 1,
	.absolute_types = 1,
	.scope_sep = ".",
	.visibility = _kbx_elixir_visibility,
};
