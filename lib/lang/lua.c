/*
 * Lua: functions (`function f`, `local function f`, `function M.f`,
 * `function M:m`, `M.f = function`), tables as classes, calls (f(),
 * m.f(), obj:m(), self:m()), and require as an import.
 *
 * A table is a class when the file assigns it a table constructor at its
 * top (`local M = {}`, `M = {}`), or what a call returns (`local P =
 * class({...})`, `setmetatable({}, mt)`, `Object:extend()`: a table, since
 * the file then stores functions in it), and then defines functions in it:
 * they are its methods (M.f and M:m alike, since a table's functions are
 * called both ways), and self:m() inside them is a call on it.  A function in a table
 * the file does not make (`function other.f`) is a function qualified
 * other.f.  `local x = require "a.b"` binds x to the module a.b; a require
 * whose value is not kept is a wildcard import (the module may set
 * globals).  `local function` at the top of a file is seen by that file
 * alone; inside a function, by that function alone.
 */
#include <stdlib.h>
#include <string.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_lua)

struct lua_table {
	const char *name;
	TSNode node;     /* the assignment that made it */
	int sym;         /* its class sym once a function is defined in it, else -1 */
};

struct lua_state {
	struct lua_table *v;
	size_t n, alloc;
};

static void lua_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct lua_state));
}

static void lua_end(struct kbx_walk *w)
{
	struct lua_state *st = w->lang_state;
	if (st)
		free(st->v);
	free(st);
	w->lang_state = NULL;
}

static struct lua_table *find_table(struct lua_state *st, const char *name)
{
	for (size_t i = st ? st->n : 0; i-- > 0;)
		if (!strcmp(st->v[i].name, name))
			return &st->v[i];
	return NULL;
}

/* The string a require call names ("a.b"), or NULL. */
static const char *require_module(struct kbx_walk *w, TSNode call)
{
	TSNode name = _kbx_field(call, "name");
	const char *f = _kbx_is(name, "identifier") ? _kbx_node_text(w, name) : NULL;
	if (!f || strcmp(f, "require"))
		return NULL;
	TSNode args = _kbx_field(call, "arguments");
	TSNode s = _kbx_is(args, "string") ? args : ts_node_named_child(args, 0);
	if (!_kbx_is(s, "string") || ts_node_named_child_count(s) != 1)
		return NULL;
	TSNode content = ts_node_named_child(s, 0);
	return _kbx_is(content, "string_content") ? _kbx_node_text(w, content) : NULL;
}

/* The value expression that goes with the i-th name of an assignment. */
static TSNode value_at(TSNode assign, uint32_t i)
{
	TSNode values = _kbx_child_of_type(assign, "expression_list");
	TSNode none = { 0 };
	if (ts_node_is_null(values) || i >= ts_node_named_child_count(values))
		return none;
	return ts_node_named_child(values, i);
}

/* Is n a name or a path of names (M, a.b.c)?  Only those name the table
 * a function is stored in. */
static int plain_path(TSNode n)
{
	for (int depth = 0; depth < 64; depth++) {
		if (_kbx_is(n, "identifier"))
			return 1;
		if (!_kbx_is(n, "dot_index_expression"))
			return 0;
		n = _kbx_field(n, "table");
	}
	return 0;
}

/* Define a function named by a dotted or method name (M.f, M:m, a.b.f).
 * A function stored in the field of what an expression gives
 * (getmetatable(p).error = function ... end, t[k].f = ...) has no name
 * a call could reach it by: it stays anonymous, so that error(msg)
 * elsewhere is never taken for a call of it. */
static void define_member(struct kbx_walk *w, TSNode at, TSNode table, const char *field)
{
	struct lua_state *st = w->lang_state;
	if (!plain_path(table))
		return;
	const char *owner = _kbx_jsc_clean_text(w, table, 0);
	if (!owner || !field)
		return;
	struct lua_table *t = _kbx_is(table, "identifier") && _kbx_walk_parent(w) < 0 ?
		find_table(st, owner) : NULL;
	if (t) {
		if (t->sym < 0)
			t->sym = _kbx_x_sym_at(w->x, KBX_KIND_CLASS, t->name, t->name, -1, t->node);
		if (t->sym < 0)
			return;
		const char *qual = _kbx_join(w, t->name, ".", field);
		if (!qual || qual == _kbx_qual_too_long)
			return;
		int sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, field, qual, t->sym, at);
		if (sym >= 0)
			_kbx_walk_scope(w, sym);
		return;
	}
	_kbx_jsc_define_dotted(w, at, KBX_KIND_FUNCTION, _kbx_join(w, owner, ".", field), 1);
}

static void bind_params(struct kbx_walk *w, TSNode fn)
{
	TSNode params = _kbx_field(fn, "parameters");
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (_kbx_is(p, "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, p), NULL);
	}
}

static void visit_function(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	const char *t = ts_node_is_null(name) ? "" : ts_node_type(name);
	if (!strcmp(t, "identifier")) {
		TSNode first = ts_node_child(n, 0);
		int local = !ts_node_is_null(first) && !strcmp(ts_node_type(first), "local");
		int sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION, _kbx_node_text(w, name), 1);
		if (sym >= 0 && local && w->x->syms[sym].parent < 0)
			w->x->syms[sym].flags |= KBX_SYM_FILE_LOCAL;
	} else if (!strcmp(t, "dot_index_expression")) {
		define_member(w, n, _kbx_field(name, "table"),
			      _kbx_field_text(w, name, "field"));
	} else if (!strcmp(t, "method_index_expression")) {
		define_member(w, n, _kbx_field(name, "table"),
			      _kbx_field_text(w, name, "method"));
	}
	bind_params(w, n);
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	const char *t = ts_node_is_null(name) ? "" : ts_node_type(name);
	if (!strcmp(t, "identifier")) {
		const char *f = _kbx_node_text(w, name);
		if (!f)
			return;
		if (!strcmp(f, "require")) {
			const char *m = require_module(w, n);
			TSNode parent = _kbx_walk_up(w, n);
			/* kept in a variable: that statement imports it */
			if (m && !_kbx_is(parent, "expression_list"))
				_kbx_x_import(w->x, m, NULL, NULL, 0, KBX_IMPORT_WILDCARD,
					      _kbx_node_line(n));
			return;
		}
		_kbx_walk_call(w, n, f, KBX_RECV_NONE, NULL);
	} else if (!strcmp(t, "dot_index_expression") || !strcmp(t, "method_index_expression")) {
		TSNode table = _kbx_field(name, "table");
		const char *m = _kbx_field_text(w, name, t[0] == 'd' ? "field" : "method");
		const char *recv = _kbx_jsc_clean_text(w, table, 0);
		if (!m || !recv)
			return;
		if (!strcmp(recv, "self"))
			_kbx_walk_call(w, n, m, KBX_RECV_SELF, NULL);
		else
			_kbx_walk_call(w, n, m, KBX_RECV_EXPR, recv);
	}
}

/* local x = ..., x = ...: requires kept in a name, tables made at the top
 * of the file, functions assigned to a table's field, and the locals of
 * functions (calls through them are calls through values). */
static void visit_assignment(struct kbx_walk *w, TSNode n)
{
	struct lua_state *st = w->lang_state;
	int local = _kbx_is(_kbx_walk_up(w, n), "variable_declaration");
	TSNode vars = _kbx_child_of_type(n, "variable_list");
	uint32_t count = ts_node_is_null(vars) ? 0 : ts_node_named_child_count(vars);
	for (uint32_t i = 0; i < count; i++) {
		TSNode v = ts_node_named_child(vars, i);
		TSNode value = value_at(n, i);
		if (_kbx_is(v, "dot_index_expression") && _kbx_is(value, "function_definition")) {
			/* M.f = function () ... end: defined when the walk
			 * reaches the function */
			continue;
		}
		if (!_kbx_is(v, "identifier"))
			continue;
		const char *name = _kbx_node_text(w, v);
		if (!name)
			continue;
		const char *m = _kbx_is(value, "function_call") ? require_module(w, value) : NULL;
		if (m) {
			_kbx_x_import(w->x, m, NULL, name, 0, 0, _kbx_node_line(v));
			continue;
		}
		if (_kbx_walk_caller(w) >= 0) {
			if (local)
				_kbx_walk_bind(w, name, NULL);
		} else if ((_kbx_is(value, "table_constructor") || _kbx_is(value, "function_call")) &&
			   st && _kbx_walk_parent(w) < 0 &&
			   !_kbx_grow((void **)&st->v, &st->alloc, st->n, sizeof(*st->v), 8)) {
			st->v[st->n].name = name;
			st->v[st->n].node = n;
			st->v[st->n].sym = -1;
			st->n++;
		}
	}
}

/* function () ... end as the value of M.f = ...: defined as M.f. */
static void visit_function_value(struct kbx_walk *w, TSNode n)
{
	TSNode list = _kbx_walk_up(w, n);
	TSNode assign = _kbx_is(list, "expression_list") ? _kbx_walk_up(w, list) : list;
	if (_kbx_is(assign, "assignment_statement") &&
	    !_kbx_is(_kbx_walk_up(w, assign), "variable_declaration")) {
		TSNode vars = _kbx_child_of_type(assign, "variable_list");
		uint32_t count = ts_node_named_child_count(list);
		for (uint32_t i = 0; i < count && !ts_node_is_null(vars); i++) {
			if (ts_node_start_byte(ts_node_named_child(list, i)) != ts_node_start_byte(n))
				continue;
			TSNode v = ts_node_named_child(vars, i);
			if (_kbx_is(v, "dot_index_expression"))
				define_member(w, n, _kbx_field(v, "table"),
					      _kbx_field_text(w, v, "field"));
			break;
		}
	}
	bind_params(w, n);
}

/* return M at the top of the file: M is the module (returned_table). */
static void visit_return(struct kbx_walk *w, TSNode n)
{
	TSNode list = _kbx_child_of_type(n, "expression_list");
	TSNode v = ts_node_is_null(list) ? list : ts_node_named_child(list, 0);
	const char *name = _kbx_is(v, "identifier") && _kbx_walk_parent(w) < 0 ?
		_kbx_node_text(w, v) : NULL;
	struct lua_table *t = name ? find_table(w->lang_state, name) : NULL;
	if (t && t->sym >= 0)
		w->x->syms[t->sym].flags |= KBX_SYM_EXPORTED;
}

static int lua_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'r':
		if (!strcmp(type, "return_statement"))
			visit_return(w, n);
		break;
	case 'a':
		if (!strcmp(type, "assignment_statement"))
			visit_assignment(w, n);
		break;
	case 'c':
		if (!strcmp(type, "comment"))
			return KBX_WALK_SKIP;
		break;
	case 'f':
		if (!strcmp(type, "function_declaration"))
			visit_function(w, n);
		else if (!strcmp(type, "function_call"))
			visit_call(w, n);
		else if (!strcmp(type, "function_definition"))
			visit_function_value(w, n);
		else if (!strcmp(type, "for_generic_clause") || !strcmp(type, "for_numeric_clause")) {
			TSNode vars = _kbx_child_of_type(n, "variable_list");
			TSNode one = _kbx_field(n, "name");
			if (_kbx_is(one, "identifier") && _kbx_walk_caller(w) >= 0)
				_kbx_walk_bind(w, _kbx_node_text(w, one), NULL);
			uint32_t count = ts_node_is_null(vars) ? 0 : ts_node_named_child_count(vars);
			for (uint32_t i = 0; i < count && _kbx_walk_caller(w) >= 0; i++)
				if (_kbx_is(ts_node_named_child(vars, i), "identifier"))
					_kbx_walk_bind(w, _kbx_node_text(w, ts_node_named_child(vars, i)),
						       NULL);
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * require "a.b": a/b.lua or a/b/init.lua from the top, or under a source
 * root (lua/, src/, lib/...: package.path is the program's to set).
 */
static void lua_import_candidates(const char *importer, const struct kbx_ximport *imp,
				  struct kbx_pathlist *out)
{
	char mod[4096];
	if (!imp->module || _kbx_dots_to_slashes(mod, sizeof(mod), imp->module))
		return;
	_kbx_pathlist_addf(out, "%s.lua", mod);
	_kbx_pathlist_addf(out, "%s/init.lua", mod);
	_kbx_pathlist_addf(out, "*%s.lua", mod);
	_kbx_pathlist_addf(out, "*%s/init.lua", mod);
}

static const char *const lua_extensions[] = { ".lua", NULL };

const struct kbx_lang _kbx_lang_lua = {
	.name = "lua",
	.extensions = lua_extensions,
	.grammar = kbx_tree_sitter_lua,
	.visit = lua_visit,
	.begin = lua_begin,
	.end = lua_end,
	.import_candidates = lua_import_candidates,
	.scope_sep = ".",
	.nested_defs = 1,
	.returned_table = 1,
};
