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
 * module's functions or of a module it imports, never a variable's (that
 * is f.()), or Kernel's, which every module imports: a plain call whose
 * name and arity are Kernel's (inspect/1, max/2), in a module that does
 * not define that name with that arity, is Kernel.f.  &f/1 and x |> f
 * are calls of f too, and so are the calls in a head's guard and default
 * values (def f(c \\ config())).  :ets.new() is Erlang's.  var.f() with
 * parentheses calls a function of the module a variable holds (no type);
 * var.field without them reads a map and is no call, nor is a bitstring
 * segment's modifier (size(4) in <<x::binary-size(4)>>).  Record's
 * defrecord and defrecordp :name define the macro name of the module.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_elixir)

struct ex_alias {
	const char *local, *full;
	uint32_t end;       /* the end byte of the module (or file) it holds in */
};

struct ex_clause {
	int parent;
	const char *name;
	int sym;
	uint64_t arities;   /* bit n: the module defines name/n (all: not known) */
};

/* a plain call f(...) whose name and arity are Kernel's, and the module
 * it is written in: Kernel's unless that module defines f/arity */
struct ex_kernel_call {
	size_t call;
	int module;
	const char *name;
	unsigned arity;
};

struct ex_state {
	struct ex_alias *aliases;
	size_t naliases, aaliases;
	struct ex_clause *clauses;
	size_t nclauses, aclauses;
	/* the head calls of the definitions being walked: names, not calls
	 * (what is inside them is walked: guards, default values) */
	TSNode skip[16];
	size_t nskip;
	/* the right sides of the pipes being walked: x |> f(y) is f/2 */
	TSNode piped[16];
	size_t npiped;
	/* the modifiers of the bitstring segments being walked: in
	 * <<x::binary-size(4)>>, size(4) is no call */
	TSNode modifiers[8];
	size_t nmodifiers;
	struct ex_kernel_call *kcalls;
	size_t nkcalls, akcalls;
	int imports_kernel;  /* import Kernel, only/except: Kernel's names may be others' */
};

static void ex_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct ex_state));
}

static void kernel_calls(struct kbx_walk *w);

static void ex_end(struct kbx_walk *w)
{
	struct ex_state *st = w->lang_state;
	if (st) {
		kernel_calls(w);
		free(st->aliases);
		free(st->clauses);
		free(st->kcalls);
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

#define ARITY(n) ((uint64_t)1 << (n))
#define ARITY_ANY (~(uint64_t)0)

/* The arguments of a call, comments left out; -1 when a splice makes
 * their number unknown (f(unquote_splicing(args))). */
static int count_args(struct kbx_walk *w, TSNode args, int *defaults, int *keywords_last)
{
	uint32_t count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	int n = 0;
	*defaults = *keywords_last = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (_kbx_is(a, "comment"))
			continue;
		if (_kbx_is(a, "call")) {
			const char *t = _kbx_field_text(w, a, "target");
			if (t && !strcmp(t, "unquote_splicing"))
				return -1;
		}
		*defaults += _kbx_is(a, "binary_operator") && _kbx_has_token(a, "\\\\");
		*keywords_last = _kbx_is(a, "keywords");
		n++;
	}
	return n;
}

/* The arities a head defines: f(a, b \\ 1) both f/1 and f/2. */
static uint64_t head_arities(struct kbx_walk *w, TSNode call)
{
	if (!_kbx_is(call, "call"))
		return ARITY(0);
	int defaults, keywords;
	int n = count_args(w, _kbx_child_of_type(call, "arguments"), &defaults, &keywords);
	if (n < 0 || n > 63)
		return ARITY_ANY;
	uint64_t m = 0;
	for (int i = n - defaults; i <= n; i++)
		m |= ARITY(i);
	return m;
}

/* The number of arguments of the call n: a do block is one (merged into a
 * trailing keyword list it is not: then -1, not known), the left side
 * of a pipe into it another. */
static int call_arity(struct kbx_walk *w, TSNode n)
{
	struct ex_state *st = w->lang_state;
	int defaults, keywords;
	int arity = count_args(w, _kbx_child_of_type(n, "arguments"), &defaults, &keywords);
	if (arity < 0)
		return -1;
	if (!ts_node_is_null(_kbx_child_of_type(n, "do_block"))) {
		if (keywords)
			return -1;
		arity++;
	}
	for (size_t i = 0; st && i < st->npiped; i++) {
		if (ts_node_eq(st->piped[i], n)) {
			st->piped[i] = st->piped[--st->npiped];
			arity++;
			break;
		}
	}
	return arity;
}

/* A clause of the function name of the current module at n: the first
 * defines it, a later one (of any arity) extends it; with open_scope, a
 * scope opens for it.  Its sym, or -1. */
static int define_clause(struct kbx_walk *w, TSNode n, const char *name, uint64_t arities,
			 int open_scope)
{
	struct ex_state *st = w->lang_state;
	int parent = _kbx_walk_parent(w);
	for (size_t i = 0; i < st->nclauses; i++) {
		if (st->clauses[i].parent != parent || strcmp(st->clauses[i].name, name))
			continue;
		st->clauses[i].arities |= arities;
		int sym = st->clauses[i].sym;
		_kbx_sym_extend(w, sym, n);
		if (open_scope)
			_kbx_walk_scope(w, sym);
		return sym;
	}
	int sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION, name, open_scope);
	if (sym < 0 || _kbx_grow((void **)&st->clauses, &st->aclauses, st->nclauses,
				 sizeof(*st->clauses), 16))
		return -1;
	st->clauses[st->nclauses].parent = parent;
	st->clauses[st->nclauses].name = name;
	st->clauses[st->nclauses].sym = sym;
	st->clauses[st->nclauses].arities = arities;
	st->nclauses++;
	return sym;
}

/* defrecord :name, [...] and defrecordp (Record's, imported or called as
 * Record.defrecord): the macros name/0, name/1 and name/2 of the module,
 * which build and match the record. */
static void define_record(struct kbx_walk *w, TSNode n, TSNode args)
{
	TSNode atom = ts_node_named_child(args, 0);
	const char *name = _kbx_is(atom, "atom") ? _kbx_node_text(w, atom) : NULL;
	if (!w->lang_state || !name || name[0] != ':' || !name[1] || _kbx_walk_class(w) < 0)
		return;
	for (const char *c = name + 1; *c; c++)
		if (!_kbx_word_char((unsigned char)*c))
			return;   /* :"quoted name" */
	define_clause(w, n, name + 1, ARITY(0) | ARITY(1) | ARITY(2), 0);
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
	if (define_clause(w, n, name, head_arities(w, call), 1) < 0)
		return;
	bind_params(w, head);
	/* the head's own call is no call; its guard and the default values
	 * of its parameters (config \\ config()) hold calls */
	if (st->nskip < sizeof(st->skip) / sizeof(st->skip[0]))
		st->skip[st->nskip++] = call;
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

/* import A (its functions, to be called without the module), require A
 * (require A, as: B is an alias too), use A. */
static void visit_import(struct kbx_walk *w, TSNode n, TSNode args, const char *what)
{
	int import = !strcmp(what, "import");
	const char *full = expand(w, module_text(w, ts_node_named_child(args, 0)),
				  ts_node_start_byte(n));
	if (!full)
		return;
	_kbx_x_import(w->x, full, NULL, NULL, 0, import ? KBX_IMPORT_STATIC | KBX_IMPORT_WILDCARD : 0,
		      _kbx_node_line(n));
	if (import && !strcmp(full, "Kernel"))
		((struct ex_state *)w->lang_state)->imports_kernel = 1;
	const char *local = !strcmp(what, "require") ? module_text(w, keyword_value(w, args, "as")) : NULL;
	if (local)
		add_alias(w, local, full, scope_end(w));
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

/* Kernel's functions and macros called like functions, with their
 * arities, as Elixir 1.14's Kernel.__info__ lists them (operators, the
 * def forms, if, unless, use and the sigils left out: kbx reads them as
 * syntax).  Kernel is imported into every module: a plain call of one of
 * these with one of these arities is Kernel's unless the module defines
 * that name and arity itself (a function of an imported module of the
 * same name and arity would be a compile error at the call). */
#define A(n) ARITY(n)
static const struct {
	const char *name;
	uint64_t arities;
} kernel_functions[] = {
	{ "abs", A(1) },
	{ "alias!", A(1) },
	{ "apply", A(2) | A(3) },
	{ "binary_part", A(3) },
	{ "binary_slice", A(2) | A(3) },
	{ "binding", A(0) | A(1) },
	{ "bit_size", A(1) },
	{ "byte_size", A(1) },
	{ "ceil", A(1) },
	{ "dbg", A(0) | A(1) | A(2) },
	{ "destructure", A(2) },
	{ "div", A(2) },
	{ "elem", A(2) },
	{ "exit", A(1) },
	{ "floor", A(1) },
	{ "function_exported?", A(3) },
	{ "get_and_update_in", A(2) | A(3) },
	{ "get_in", A(2) },
	{ "hd", A(1) },
	{ "inspect", A(1) | A(2) },
	{ "is_atom", A(1) },
	{ "is_binary", A(1) },
	{ "is_bitstring", A(1) },
	{ "is_boolean", A(1) },
	{ "is_exception", A(1) | A(2) },
	{ "is_float", A(1) },
	{ "is_function", A(1) | A(2) },
	{ "is_integer", A(1) },
	{ "is_list", A(1) },
	{ "is_map", A(1) },
	{ "is_map_key", A(2) },
	{ "is_nil", A(1) },
	{ "is_number", A(1) },
	{ "is_pid", A(1) },
	{ "is_port", A(1) },
	{ "is_reference", A(1) },
	{ "is_struct", A(1) | A(2) },
	{ "is_tuple", A(1) },
	{ "length", A(1) },
	{ "macro_exported?", A(3) },
	{ "make_ref", A(0) },
	{ "map_size", A(1) },
	{ "match?", A(2) },
	{ "max", A(2) },
	{ "min", A(2) },
	{ "node", A(0) | A(1) },
	{ "pop_in", A(1) | A(2) },
	{ "put_elem", A(3) },
	{ "put_in", A(2) | A(3) },
	{ "raise", A(1) | A(2) },
	{ "rem", A(2) },
	{ "reraise", A(2) | A(3) },
	{ "round", A(1) },
	{ "self", A(0) },
	{ "send", A(2) },
	{ "spawn", A(1) | A(3) },
	{ "spawn_link", A(1) | A(3) },
	{ "spawn_monitor", A(1) | A(3) },
	{ "struct", A(1) | A(2) },
	{ "struct!", A(1) | A(2) },
	{ "tap", A(2) },
	{ "then", A(2) },
	{ "throw", A(1) },
	{ "tl", A(1) },
	{ "to_char_list", A(1) },
	{ "to_charlist", A(1) },
	{ "to_string", A(1) },
	{ "trunc", A(1) },
	{ "tuple_size", A(1) },
	{ "update_in", A(2) | A(3) },
	{ "var!", A(1) | A(2) },
};
#undef A

static uint64_t kernel_arities(const char *name)
{
	size_t lo = 0, hi = sizeof(kernel_functions) / sizeof(kernel_functions[0]);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, kernel_functions[mid].name);
		if (!c)
			return kernel_functions[mid].arities;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/* f(x), f x: a function of the module or of a module it imports, never a
 * variable's value even where a variable f is bound (that call is
 * f.(x)); arity -1 when not known.  Kernel's are kept for kernel_calls. */
static void local_call(struct kbx_walk *w, TSNode at, const char *name, int arity)
{
	struct ex_state *st = w->lang_state;
	int i = _kbx_x_call(w->x, name, KBX_RECV_NONE, NULL, _kbx_walk_caller(w),
			    _kbx_node_line(at), _kbx_node_col(at));
	if (i < 0 || !st || arity < 0 || arity > 63 || !(kernel_arities(name) & ARITY(arity)) ||
	    _kbx_grow((void **)&st->kcalls, &st->akcalls, st->nkcalls, sizeof(*st->kcalls), 16))
		return;
	st->kcalls[st->nkcalls++] = (struct ex_kernel_call){ (size_t)i, _kbx_walk_class(w), name,
							     (unsigned)arity };
}

/* At the end of the file, when every definition is known: the plain
 * calls of Kernel's names that their module does not define with that
 * arity become calls of Kernel's (external).  Not where the file imports
 * Kernel itself (import Kernel, except: [...] lets a module's own or an
 * imported function take the name). */
static void kernel_calls(struct kbx_walk *w)
{
	struct ex_state *st = w->lang_state;
	if (st->imports_kernel)
		return;
	for (size_t k = 0; k < st->nkcalls; k++) {
		const struct ex_kernel_call *kc = &st->kcalls[k];
		uint64_t defined = 0;
		for (size_t i = 0; i < st->nclauses; i++)
			if (st->clauses[i].parent == kc->module && !strcmp(st->clauses[i].name, kc->name))
				defined |= st->clauses[i].arities;
		if (defined & ARITY(kc->arity) || kc->call >= w->x->ncalls)
			continue;
		struct kbx_xcall *c = &w->x->calls[kc->call];
		c->recv = KBX_RECV_EXPR;
		c->receiver = "Kernel";
		c->recv_type = "Kernel";
	}
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
		TSNode args = _kbx_child_of_type(n, "arguments");
		if (mod && !strcmp(mod, "Record") && !ts_node_is_null(args) &&
		    (!strcmp(name, "defrecord") || !strcmp(name, "defrecordp")))
			define_record(w, n, args);
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

/* A variable's name (not __MODULE__): require(files, opts, extra) with
 * one first is a call of the module's own function require/3, not the
 * directive, which takes a module. */
static int names_variable(struct kbx_walk *w, TSNode n)
{
	const char *t = _kbx_is(n, "identifier") ? _kbx_node_text(w, n) : NULL;
	return t && strcmp(t, "__MODULE__");
}

/* Is n inside the modifiers of a bitstring segment? */
static int in_modifier(struct kbx_walk *w, TSNode n)
{
	struct ex_state *st = w->lang_state;
	for (size_t i = 0; st && i < st->nmodifiers; i++)
		if (ts_node_start_byte(n) >= ts_node_start_byte(st->modifiers[i]) &&
		    ts_node_end_byte(n) <= ts_node_end_byte(st->modifiers[i]))
			return 1;
	return 0;
}

static int visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode target = _kbx_field(n, "target");
	if (in_modifier(w, n))
		return KBX_WALK_CONTINUE;
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
		   has_args && !names_variable(w, ts_node_named_child(args, 0))) {
		visit_import(w, n, args, name);
		return KBX_WALK_SKIP;
	} else if ((!strcmp(name, "defrecord") || !strcmp(name, "defrecordp")) && has_args) {
		define_record(w, n, args);
	} else if (!is_keyword(name) || !strcmp(name, "import") || !strcmp(name, "require") ||
		   !strcmp(name, "use")) {
		/* import, require, use with a variable first: a function's */
		local_call(w, n, name, call_arity(w, n));
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

/* &f/1: the function f/1 of the module (or of an imported one) passed by
 * name, a call as Elixir's compiler binds it.  &Mod.f/1 is read as the
 * call Mod.f it holds; &(&1 + 1) and &f(&1) hold their calls too. */
static void visit_capture(struct kbx_walk *w, TSNode n)
{
	TSNode op = _kbx_field(n, "operand");
	if (!_kbx_is(op, "binary_operator") || !_kbx_has_token(op, "/") ||
	    !_kbx_is(_kbx_field(op, "right"), "integer"))
		return;
	TSNode left = _kbx_field(op, "left");
	const char *name = _kbx_is(left, "identifier") ? _kbx_node_text(w, left) : NULL;
	const char *arity = _kbx_node_text(w, _kbx_field(op, "right"));
	if (name && arity && !is_keyword(name))
		local_call(w, left, name, strlen(arity) < 3 ? atoi(arity) : -1);
}

static int ex_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct ex_state *st = w->lang_state;
	if (st) {
		for (size_t i = 0; i < st->nskip; i++) {
			if (ts_node_eq(st->skip[i], n)) {
				st->skip[i] = st->skip[--st->nskip];
				return KBX_WALK_CONTINUE;
			}
		}
		/* heads the walk has passed (a def that was not entered) */
		while (st->nskip && ts_node_end_byte(st->skip[st->nskip - 1]) <= ts_node_start_byte(n))
			st->nskip--;
		while (st->npiped && ts_node_end_byte(st->piped[st->npiped - 1]) <= ts_node_start_byte(n))
			st->npiped--;
		while (st->nmodifiers &&
		       ts_node_end_byte(st->modifiers[st->nmodifiers - 1]) <= ts_node_start_byte(n))
			st->nmodifiers--;
	}
	if (!strcmp(type, "call"))
		return visit_call(w, n);
	if (!strcmp(type, "unary_operator") && _kbx_has_token(n, "@"))
		return visit_attribute(w, n);
	if (!strcmp(type, "unary_operator") && _kbx_has_token(n, "&"))
		visit_capture(w, n);
	if (!strcmp(type, "binary_operator") && _kbx_has_token(n, "::") && st &&
	    st->nmodifiers < sizeof(st->modifiers) / sizeof(st->modifiers[0]))
		st->modifiers[st->nmodifiers++] = _kbx_field(n, "right");
	if (!strcmp(type, "binary_operator") && _kbx_has_token(n, "|>")) {
		/* x |> f(y): f/2; x |> f: f/1, a call too */
		TSNode right = _kbx_field(n, "right");
		const char *name = _kbx_is(right, "identifier") ? _kbx_node_text(w, right) : NULL;
		if (name && !is_keyword(name))
			local_call(w, right, name, 1);
		else if (st && _kbx_is(right, "call") && _kbx_is(_kbx_field(right, "target"), "identifier") &&
			 st->npiped < sizeof(st->piped) / sizeof(st->piped[0]))
			st->piped[st->npiped++] = right;
	}
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
	.grammar = kbx_tree_sitter_elixir,
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
