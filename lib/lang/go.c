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
 *
 * A call's receiver gets its static type (recv_type) where the source
 * states it: a parameter or named result, `var x T`, `x := T{}`, `&T{}`,
 * `new(T)`, `x.(T)` and the cases of a type switch, a conversion T(x) to
 * a type of this file, the declared result of a function or method of
 * this file (`s := NewStore()`), an element of a slice, array or map of a
 * stated element type (`m[k]`, `for _, v := range xs`), and the fields of
 * the struct types of this file (`s.mu.Lock()` is sync.Mutex's).  What
 * a call of another file's function or method gives (`st, err :=
 * inv.Load(p)`, `catalog.NewStore(n).Add(it)`) is "=K:NAME", call K of
 * the file: the resolver finds its callee and the type the callee's
 * declaration returns (kbx_xsym.ret_type, which every function and
 * method here records).  A local
 * whose type the source does not state is "?".  Go's scopes are blocks,
 * and a name is often declared again in the next one (`v, ok := x.(T)`),
 * so the names live in a table of names scoped by bytes (scoped-names.h)
 * rather than in the walker's bindings.  Calling a local, or a field of
 * a struct of this file, is a call of a value.
 */
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "scoped-names.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_go)

/* Containers, as _kbx_vtype.container: slices and arrays, maps,
 * channels. */
#define GO_SLICE 's'
#define GO_MAP 'm'
#define GO_CHAN 'c'

/* A name's flag: the method's receiver, through which calls are self
 * calls. */
#define GO_RECEIVER 1

/* A field of a struct type of this file: Store.mu is sync.Mutex. */
struct go_field {
	const char *owner, *name;
	struct _kbx_vtype type;
};

/* The result types of a function or method of this file ("NewStore",
 * "Store.Lookup"), for x := NewStore() and a, err := s.Lookup(k). */
#define GO_MAX_RESULTS 4
struct go_results {
	const char *qual;
	struct _kbx_vtype type[GO_MAX_RESULTS];
	int n;
};

struct go_state {
	/* top-level type_specs defined ahead of the walk */
	struct _kbx_predef types;
	/* the names in scope, and the type parameters */
	struct _kbx_scoped_names vars, tparams;
	struct _kbx_blocks blocks;
	struct go_field *fields;
	size_t nfields, afields;
	struct go_results *results;
	size_t nresults, aresults;
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

/* The named type a function, method or interface method returns first
 * ("Segments", "text.Segments": pointers off), as kbx_xsym.ret_type, or
 * NULL. */
static const char *ret_type(struct kbx_walk *w, TSNode decl)
{
	TSNode result = _kbx_field(decl, "result");
	if (_kbx_is(result, "parameter_list")) {
		uint32_t count = ts_node_named_child_count(result);
		TSNode first = { 0 };
		for (uint32_t i = 0; i < count && ts_node_is_null(first); i++)
			if (_kbx_is(ts_node_named_child(result, i), "parameter_declaration"))
				first = ts_node_named_child(result, i);
		result = ts_node_is_null(first) ? first : _kbx_field(first, "type");
	}
	result = strip_type(result);
	return _kbx_is(result, "type_identifier") || _kbx_is(result, "qualified_type") ?
		       _kbx_node_text(w, result) : NULL;
}

static void set_ret_type(struct kbx_walk *w, int sym, TSNode decl)
{
	if (sym >= 0)
		w->x->syms[sym].ret_type = ret_type(w, decl);
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

/* ---- the static types of names: the evidence for calls ---- */

/* A named type as a receiver's type: "T", "pkg.T", through pointers and
 * type arguments; NULL for a type parameter or a type without a name. */
static const char *named_type(struct kbx_walk *w, TSNode t)
{
	const struct go_state *st = w->lang_state;
	t = strip_type(t);
	if (_kbx_is(t, "type_identifier")) {
		const char *name = _kbx_node_text(w, t);
		if (name && _kbx_names_find(&st->tparams, name, ts_node_start_byte(t)))
			return NULL;
		return name;
	}
	if (_kbx_is(t, "qualified_type"))
		return _kbx_compact_text(w, t, COMPACT);
	return NULL;
}

/* A type as declared: a named type, or a container of named types. */
static struct _kbx_vtype declared_type(struct kbx_walk *w, TSNode t)
{
	struct _kbx_vtype r = { 0 };
	t = strip_type(t);
	if (_kbx_is(t, "slice_type") || _kbx_is(t, "array_type")) {
		r.container = GO_SLICE;
		r.elem = named_type(w, _kbx_field(t, "element"));
	} else if (_kbx_is(t, "map_type")) {
		r.container = GO_MAP;
		r.key = named_type(w, _kbx_field(t, "key"));
		r.elem = named_type(w, _kbx_field(t, "value"));
	} else if (_kbx_is(t, "channel_type")) {
		r.container = GO_CHAN;
		r.elem = named_type(w, _kbx_field(t, "value"));
	} else {
		r.name = named_type(w, t);
	}
	return r;
}

static const struct _kbx_vtype *field_type(const struct go_state *st, const char *owner,
					const char *name)
{
	if (!owner || !name)
		return NULL;
	for (size_t i = 0; i < st->nfields; i++)
		if (!strcmp(st->fields[i].owner, owner) && !strcmp(st->fields[i].name, name))
			return &st->fields[i].type;
	return NULL;
}

static const struct go_results *results_of(const struct go_state *st, const char *qual)
{
	if (!qual)
		return NULL;
	for (size_t i = 0; i < st->nresults; i++)
		if (!strcmp(st->results[i].qual, qual))
			return &st->results[i];
	return NULL;
}

/* Does this file declare a top-level type of that name? */
static int file_type(struct kbx_walk *w, const char *name)
{
	const struct go_state *st = w->lang_state;
	return name && _kbx_predef_by_qual(w, &st->types, name) >= 0;
}

/* What the source states about the type of expression e, or of its
 * value number idx when it has several (a, err := f()).  *local is set
 * when e is a name of this scope (or a field of one) whose type the
 * source does not state: a value, not a package. */
static struct _kbx_vtype value_type(struct kbx_walk *w, TSNode e, int idx, int *local, int depth)
{
	const struct go_state *st = w->lang_state;
	struct _kbx_vtype none = { 0 };
	if (ts_node_is_null(e) || depth > 8)
		return none;
	const char *type = ts_node_type(e);
	if (!strcmp(type, "parenthesized_expression"))
		return idx ? none : value_type(w, ts_node_named_child(e, 0), 0, local, depth + 1);
	if (!strcmp(type, "composite_literal"))
		return idx ? none : declared_type(w, _kbx_field(e, "type"));
	if (!strcmp(type, "unary_expression")) {
		/* &T{...} */
		TSNode op = _kbx_field(e, "operand");
		const char *o = _kbx_field_text(w, e, "operator");
		if (!idx && o && !strcmp(o, "&") && _kbx_is(op, "composite_literal"))
			return declared_type(w, _kbx_field(op, "type"));
		return none;
	}
	if (!strcmp(type, "type_assertion_expression"))
		return idx ? none : declared_type(w, _kbx_field(e, "type"));
	if (!strcmp(type, "identifier")) {
		const char *name = _kbx_node_text(w, e);
		const struct _kbx_scoped_name *v = _kbx_names_find(&st->vars, name, ts_node_start_byte(e));
		if (v && local)
			*local = 1;
		return v && !idx ? v->type : none;
	}
	if (!strcmp(type, "selector_expression")) {
		/* x.field, with x a name of this scope */
		int base_local = 0;
		TSNode operand = _kbx_field(e, "operand");
		struct _kbx_vtype o = value_type(w, operand, 0, &base_local, depth + 1);
		if (base_local && local)
			*local = 1;
		const struct _kbx_vtype *f = field_type(st, o.name, _kbx_field_text(w, e, "field"));
		return f && !idx ? *f : none;
	}
	if (!strcmp(type, "index_expression")) {
		/* xs[i], m[k]; the second value of m[k] is a bool */
		struct _kbx_vtype o = value_type(w, _kbx_field(e, "operand"), 0, NULL, depth + 1);
		struct _kbx_vtype r = { 0 };
		if (idx || (o.container != GO_SLICE && o.container != GO_MAP))
			return none;
		r.name = o.elem;
		return r;
	}
	if (!strcmp(type, "call_expression")) {
		TSNode fn = _kbx_field(e, "function");
		TSNode args = _kbx_field(e, "arguments");
		const char *qual = NULL;
		if (_kbx_is(fn, "identifier")) {
			const char *name = _kbx_node_text(w, fn);
			if (!name || _kbx_names_find(&st->vars, name, ts_node_start_byte(fn)))
				return none;   /* a call of a value */
			if (!strcmp(name, "new") || !strcmp(name, "make")) {
				TSNode arg = ts_node_is_null(args) ? args : ts_node_named_child(args, 0);
				return idx ? none : declared_type(w, arg);
			}
			if (file_type(w, name)) {
				struct _kbx_vtype r = { 0 };
				r.name = idx ? NULL : name;   /* a conversion: T(x) */
				return r;
			}
			qual = name;
		} else if (_kbx_is(fn, "selector_expression")) {
			/* x.M() with x of a type of this file */
			struct _kbx_vtype o = value_type(w, _kbx_field(fn, "operand"), 0, NULL, depth + 1);
			if (o.name && !strchr(o.name, '.'))
				qual = _kbx_join(w, o.name, ".", _kbx_field_text(w, fn, "field"));
		}
		const struct go_results *r = results_of(st, qual);
		return r && idx < r->n ? r->type[idx] : none;
	}
	return none;
}

/* The names a parameter or field declaration gives its type: the
 * children of kind id ("identifier", "field_identifier") other than the
 * type itself. */
static uint32_t declared_names(TSNode p, TSNode type, const char *id, TSNode *out, uint32_t max)
{
	uint32_t k = 0, count = ts_node_named_child_count(p);
	for (uint32_t i = 0; i < count && k < max; i++) {
		TSNode c = ts_node_named_child(p, i);
		if (_kbx_is(c, id) && !ts_node_eq(c, type))
			out[k++] = c;
	}
	return k;
}

/* Bind the parameters of a parameter list, visible in [from, to). */
static void bind_params(struct kbx_walk *w, TSNode list, uint32_t from, uint32_t to)
{
	struct go_state *st = w->lang_state;
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		int variadic = _kbx_is(p, "variadic_parameter_declaration");
		if (!variadic && !_kbx_is(p, "parameter_declaration"))
			continue;
		TSNode t = _kbx_field(p, "type");
		struct _kbx_vtype type = declared_type(w, t);
		if (variadic) {
			/* xs ...T is a []T */
			struct _kbx_vtype s = { 0 };
			s.container = GO_SLICE;
			s.elem = type.name;
			type = s;
		}
		TSNode names[16];
		uint32_t nn = declared_names(p, t, "identifier", names, 16);
		for (uint32_t j = 0; j < nn; j++)
			_kbx_names_push(&st->vars, _kbx_node_text(w, names[j]), &type, from, to, 0);
	}
}

static void push_type_param(struct kbx_walk *w, TSNode id, uint32_t from, uint32_t to)
{
	struct go_state *st = w->lang_state;
	_kbx_names_push(&st->tparams, _kbx_node_text(w, id), NULL, from, to, 0);
}

/* The type parameters of a function or type (and those a method's
 * receiver names, as in func (l *List[T]) ...): no type of the
 * repository, whatever their names. */
static void bind_type_params(struct kbx_walk *w, TSNode n)
{
	uint32_t from = ts_node_start_byte(n), to = ts_node_end_byte(n);
	TSNode list = _kbx_field(n, "type_parameters");
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(list, i);
		uint32_t m = ts_node_named_child_count(d);
		for (uint32_t j = 0; j < m; j++)
			if (_kbx_is(ts_node_named_child(d, j), "identifier"))
				push_type_param(w, ts_node_named_child(d, j), from, to);
	}
	TSNode recv = _kbx_field(n, "receiver");
	TSNode param = ts_node_is_null(recv) ? recv : ts_node_named_child(recv, 0);
	TSNode rt = _kbx_is(param, "parameter_declaration") ? _kbx_field(param, "type") : param;
	while (_kbx_is(rt, "pointer_type") || _kbx_is(rt, "parenthesized_type"))
		rt = ts_node_named_child(rt, 0);
	TSNode args = _kbx_is(rt, "generic_type") ? _kbx_field(rt, "type_arguments") : rt;
	count = _kbx_is(args, "type_arguments") ? ts_node_named_child_count(args) : 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		if (_kbx_is(a, "type_elem") && ts_node_named_child_count(a) == 1)
			a = ts_node_named_child(a, 0);
		if (_kbx_is(a, "type_identifier"))
			push_type_param(w, a, from, to);
	}
}

/* The names a declaration introduces: the identifiers of an
 * expression_list (x, err := ...) or those a var or const spec lists
 * before its type and values. */
static uint32_t decl_names(TSNode n, TSNode *out, uint32_t max)
{
	uint32_t k = 0, count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count && k < max; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "identifier"))
			out[k++] = c;
		else if (!_kbx_is(c, "comment"))
			break;
	}
	return k;
}

/*
 * What the call e gives, where its callee is another file's: "=K:NAME",
 * K the index the call will have among the file's calls (recorded in
 * order: k is where the next one goes) and NAME the called name, which
 * the resolver checks.  It finds the callee, and the type its
 * declaration returns (kbx_xsym.ret_type).  NULL when e is no call of a
 * named function or method.
 */
static const char *call_result(struct kbx_walk *w, TSNode e, size_t k)
{
	if (!_kbx_is(e, "call_expression"))
		return NULL;
	TSNode fn = _kbx_field(e, "function");
	return _kbx_call_result(w, k, _kbx_is(fn, "identifier") ? _kbx_node_text(w, fn) :
				      _kbx_is(fn, "selector_expression") ?
				      _kbx_field_text(w, fn, "field") : NULL);
}

/* Bind the names of n (var_spec, const_spec, short_var_declaration,
 * range_clause, receive_statement), visible from its end to the end of
 * the block; a package-level spec from the start of the file. */
static void bind_decl(struct kbx_walk *w, TSNode n, int package_level)
{
	struct go_state *st = w->lang_state;
	TSNode names[16], values[16];
	uint32_t nn, nv = 0;
	int spec = _kbx_is(n, "var_spec") || _kbx_is(n, "const_spec");
	TSNode t = { 0 }, right;
	if (spec) {
		nn = decl_names(n, names, 16);
		t = _kbx_field(n, "type");
		right = _kbx_field(n, "value");
	} else {
		TSNode left = _kbx_field(n, "left");
		nn = ts_node_is_null(left) ? 0 : decl_names(left, names, 16);
		right = _kbx_field(n, "right");
	}
	if (_kbx_is(right, "expression_list")) {
		uint32_t count = ts_node_named_child_count(right);
		for (uint32_t i = 0; i < count && nv < 16; i++)
			if (!_kbx_is(ts_node_named_child(right, i), "comment"))
				values[nv++] = ts_node_named_child(right, i);
	} else if (!ts_node_is_null(right)) {
		values[nv++] = right;
	}
	/* a range clause or a receive of `=` declares nothing */
	if (_kbx_is(n, "range_clause") || _kbx_is(n, "receive_statement")) {
		TSNode left = _kbx_field(n, "left");
		TSNode op = ts_node_is_null(left) ? left : ts_node_next_sibling(left);
		if (ts_node_is_null(op) || strcmp(ts_node_type(op), ":="))
			return;
	}
	uint32_t from = package_level ? 0 : ts_node_end_byte(n);
	uint32_t to = _kbx_blocks_end(&st->blocks);
	struct _kbx_vtype ranged = { 0 };
	if (_kbx_is(n, "range_clause") && nv == 1)
		ranged = value_type(w, values[0], 0, NULL, 0);
	for (uint32_t i = 0; i < nn; i++) {
		struct _kbx_vtype type = { 0 };
		const char *name = _kbx_node_text(w, names[i]);
		if (!name)
			continue;
		if (!ts_node_is_null(t)) {
			type = declared_type(w, t);
		} else if (_kbx_is(n, "range_clause")) {
			/* for k, v := range m; for i, x := range xs; for x := range ch */
			if (ranged.container == GO_MAP)
				type.name = i ? ranged.elem : ranged.key;
			else if (ranged.container == GO_SLICE && i == 1)
				type.name = ranged.elem;
			else if (ranged.container == GO_CHAN && i == 0)
				type.name = ranged.elem;
		} else if (_kbx_is(n, "receive_statement")) {
			/* v, ok := <-ch: not followed */
		} else if (nv == nn) {
			type = value_type(w, values[i], 0, NULL, 0);
		} else if (nv == 1) {
			type = value_type(w, values[0], (int)i, NULL, 0);
		}
		/* x := pkg.New(), x, err := s.Open(p): the first result of a
		 * call whose callee the resolver finds (the call is the next
		 * one recorded) */
		if (!type.name && !package_level && nv == 1 && i == 0 &&
		    (nn == 1 || _kbx_is(n, "short_var_declaration")) && ts_node_is_null(t))
			type.name = call_result(w, values[0], w->x->ncalls);
		/* x, err := f() where x was declared in this block: x keeps
		 * its type (it is assigned, not declared) */
		const struct _kbx_scoped_name *old =
			_kbx_names_find(&st->vars, name, ts_node_start_byte(n));
		if (!package_level && _kbx_is(n, "short_var_declaration") && old && old->to == to)
			continue;
		_kbx_names_push(&st->vars, name, &type, from, to, 0);
	}
}

/* switch v := x.(type): in each case v has the case's type when it
 * names one, else x's (not followed). */
static void bind_type_switch(struct kbx_walk *w, TSNode n)
{
	struct go_state *st = w->lang_state;
	TSNode alias = _kbx_field(n, "alias");
	TSNode names[1];
	if (ts_node_is_null(alias) || decl_names(alias, names, 1) != 1)
		return;
	const char *name = _kbx_node_text(w, names[0]);
	/* the cases in reverse, so that the first to end is on top */
	for (uint32_t i = ts_node_named_child_count(n); i-- > 0;) {
		TSNode c = ts_node_named_child(n, i);
		struct _kbx_vtype type = { 0 };
		if (_kbx_is(c, "type_case")) {
			/* the types are the named children before the ':' */
			uint32_t ntypes = 0, count = ts_node_child_count(c);
			TSNode first = { 0 };
			for (uint32_t j = 0; j < count; j++) {
				TSNode k = ts_node_child(c, j);
				if (!strcmp(ts_node_type(k), ":"))
					break;
				if (ts_node_is_named(k) && !_kbx_is(k, "comment") && !ntypes++)
					first = k;
			}
			if (ntypes == 1)
				type = declared_type(w, first);
		} else if (!_kbx_is(c, "default_case")) {
			continue;
		}
		_kbx_names_push(&st->vars, name, &type, ts_node_start_byte(c), ts_node_end_byte(c), 0);
	}
}

/* A function's, method's or function literal's receiver, parameters and
 * named results. */
static void bind_function(struct kbx_walk *w, TSNode n, const char *recv_type)
{
	struct go_state *st = w->lang_state;
	uint32_t from = ts_node_start_byte(n), to = ts_node_end_byte(n);
	bind_type_params(w, n);
	TSNode recv = _kbx_field(n, "receiver");
	TSNode param = ts_node_is_null(recv) ? recv : ts_node_named_child(recv, 0);
	if (_kbx_is(param, "parameter_declaration")) {
		struct _kbx_vtype type = { 0 };
		type.name = recv_type;
		_kbx_names_push(&st->vars, _kbx_field_text(w, param, "name"), &type, from, to,
				recv_type ? GO_RECEIVER : 0);
	}
	bind_params(w, _kbx_field(n, "parameters"), from, to);
	TSNode result = _kbx_field(n, "result");
	if (_kbx_is(result, "parameter_list"))
		bind_params(w, result, from, to);
}

/* The fields of a struct type of the file. */
static void predefine_fields(struct kbx_walk *w, TSNode spec)
{
	struct go_state *st = w->lang_state;
	TSNode type = _kbx_field(spec, "type");
	TSNode list = _kbx_is(type, "struct_type") ? ts_node_named_child(type, 0) : type;
	const char *owner = _kbx_field_text(w, spec, "name");
	if (!owner || !_kbx_is(list, "field_declaration_list"))
		return;
	size_t tparams = st->tparams.n;
	bind_type_params(w, spec);
	uint32_t count = ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode f = ts_node_named_child(list, i);
		TSNode ft = _kbx_field(f, "type");
		if (!_kbx_is(f, "field_declaration") || ts_node_is_null(ft))
			continue;
		struct _kbx_vtype t = declared_type(w, ft);
		TSNode names[16];
		uint32_t nn = declared_names(f, ft, "field_identifier", names, 16);
		if (!nn) {
			/* an embedded T or pkg.T is the field T */
			TSNode e = strip_type(ft);
			if (_kbx_is(e, "qualified_type"))
				e = _kbx_field(e, "name");
			if (!_kbx_is(e, "type_identifier"))
				continue;
			names[nn++] = e;
		}
		for (uint32_t j = 0; j < nn; j++) {
			const char *name = _kbx_node_text(w, names[j]);
			if (name && !_kbx_grow((void **)&st->fields, &st->afields, st->nfields,
					       sizeof(*st->fields), 16))
				st->fields[st->nfields++] = (struct go_field){ owner, name, t };
		}
	}
	_kbx_names_truncate(&st->tparams, tparams);
}

/* The result types of a function or method of the file; of a method an
 * interface type of the file declares (iface: its name), as
 * "Node.Lines", since a value of the interface type has it. */
static void predefine_results(struct kbx_walk *w, TSNode decl, const char *iface)
{
	struct go_state *st = w->lang_state;
	const char *name = _kbx_field_text(w, decl, "name");
	TSNode recv = _kbx_field(decl, "receiver");
	if (iface) {
		name = name ? _kbx_join(w, iface, ".", name) : NULL;
	} else if (!ts_node_is_null(recv)) {
		TSNode p = ts_node_named_child(recv, 0);
		TSNode rt = _kbx_is(p, "parameter_declaration") ? strip_type(_kbx_field(p, "type")) : p;
		name = _kbx_is(rt, "type_identifier") ?
			_kbx_join(w, _kbx_node_text(w, rt), ".", name) : NULL;
	}
	TSNode result = _kbx_field(decl, "result");
	if (!name || name == _kbx_qual_too_long || ts_node_is_null(result) ||
	    _kbx_grow((void **)&st->results, &st->aresults, st->nresults, sizeof(*st->results), 16))
		return;
	size_t tparams = st->tparams.n;
	bind_type_params(w, decl);
	struct go_results *r = &st->results[st->nresults++];
	memset(r, 0, sizeof(*r));
	r->qual = name;
	if (!_kbx_is(result, "parameter_list"))
		r->type[r->n++] = declared_type(w, result);
	uint32_t count = _kbx_is(result, "parameter_list") ? ts_node_named_child_count(result) : 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(result, i);
		if (!_kbx_is(p, "parameter_declaration"))
			continue;
		/* (a, b T) is two results */
		TSNode t = _kbx_field(p, "type"), names[GO_MAX_RESULTS];
		uint32_t nn = declared_names(p, t, "identifier", names, GO_MAX_RESULTS);
		struct _kbx_vtype type = declared_type(w, t);
		for (uint32_t j = 0; j < (nn ? nn : 1) && r->n < GO_MAX_RESULTS; j++)
			r->type[r->n++] = type;
	}
	_kbx_names_truncate(&st->tparams, tparams);
}

/* The fields of the struct types, the results of the functions and
 * methods, and the package-level variables of the file, before the
 * walk: a function may come before what it uses. */
static void predefine_evidence(struct kbx_walk *w, TSNode file)
{
	uint32_t n = ts_node_named_child_count(file);
	for (uint32_t i = 0; i < n; i++) {
		TSNode decl = ts_node_named_child(file, i);
		if (_kbx_is(decl, "type_declaration")) {
			uint32_t m = ts_node_named_child_count(decl);
			for (uint32_t j = 0; j < m; j++) {
				TSNode spec = ts_node_named_child(decl, j);
				if (!_kbx_is(spec, "type_spec"))
					continue;
				predefine_fields(w, spec);
				/* type Node interface { Lines() *text.Segments } */
				TSNode it = _kbx_field(spec, "type");
				const char *iname = _kbx_field_text(w, spec, "name");
				uint32_t k = _kbx_is(it, "interface_type") && iname ?
					     ts_node_named_child_count(it) : 0;
				for (uint32_t q = 0; q < k; q++)
					if (_kbx_is(ts_node_named_child(it, q), "method_elem"))
						predefine_results(w, ts_node_named_child(it, q), iname);
			}
		} else if (_kbx_is(decl, "function_declaration") ||
			   _kbx_is(decl, "method_declaration")) {
			predefine_results(w, decl, NULL);
		}
	}
	/* the package-level variables, once the results are known */
	for (uint32_t i = 0; i < n; i++) {
		TSNode decl = ts_node_named_child(file, i);
		if (!_kbx_is(decl, "var_declaration") && !_kbx_is(decl, "const_declaration"))
			continue;
		uint32_t m = ts_node_named_child_count(decl);
		for (uint32_t j = 0; j < m; j++) {
			TSNode spec = ts_node_named_child(decl, j);
			int list = _kbx_is(spec, "var_spec_list") || _kbx_is(spec, "const_spec_list");
			uint32_t k = list ? ts_node_named_child_count(spec) : 1;
			for (uint32_t q = 0; q < k; q++) {
				TSNode one = list ? ts_node_named_child(spec, q) : spec;
				if (_kbx_is(one, "var_spec") || _kbx_is(one, "const_spec"))
					bind_decl(w, one, 1);
			}
		}
	}
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
					set_ret_type(w, _kbx_x_sym_at(w->x, KBX_KIND_METHOD, name,
						   _kbx_join(w, w->x->syms[sym].qual, ".", name),
						   sym, e), e);
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
		set_ret_type(w, sym, n);
		_kbx_walk_scope(w, sym);
		if (st)
			bind_function(w, n, NULL);
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
	set_ret_type(w, sym, n);
	_kbx_walk_scope(w, sym);
	if (st)
		bind_function(w, n, tname);
}

/* A call of name through receiver node recv (null for a plain call),
 * with the receiver's type where the source states it. */
static void add_call(struct kbx_walk *w, TSNode at, const char *name, TSNode recv)
{
	struct go_state *st = w->lang_state;
	if (!name)
		return;
	if (ts_node_is_null(recv)) {
		/* f() with f a parameter or a local: a call through a value */
		int value = st && _kbx_names_find(&st->vars, name, ts_node_start_byte(at));
		_kbx_walk_call(w, at, name, value ? KBX_RECV_VALUE : KBX_RECV_NONE, NULL);
		return;
	}
	if (!st) {
		_kbx_walk_call(w, at, name, KBX_RECV_EXPR, _kbx_compact_text(w, recv, COMPACT));
		return;
	}
	int local = 0;
	struct _kbx_vtype t = value_type(w, recv, 0, &local, 0);
	/* what a call or an index gives is a value too, never a package */
	if (_kbx_is(recv, "call_expression") || _kbx_is(recv, "index_expression") ||
	    _kbx_is(recv, "slice_expression"))
		local = 1;
	/* x.f() with f a field of x's struct: a value of function type */
	if (field_type(st, t.name, name)) {
		_kbx_walk_call(w, at, name, KBX_RECV_VALUE, NULL);
		return;
	}
	/* a call through the method's own receiver is a self call */
	if (_kbx_is(recv, "identifier")) {
		const char *r = _kbx_node_text(w, recv);
		const struct _kbx_scoped_name *v =
			_kbx_names_find(&st->vars, r, ts_node_start_byte(recv));
		if (v && (v->flags & GO_RECEIVER)) {
			_kbx_walk_call(w, at, name, KBX_RECV_SELF, NULL);
			return;
		}
	}
	/* x.A().B(): what A returns, A the call recorded right after
	 * this one */
	if (!t.name)
		t.name = call_result(w, recv, w->x->ncalls + 1);
	_kbx_walk_call_typed(w, at, name, KBX_RECV_EXPR, _kbx_compact_text(w, recv, COMPACT),
			     t.name ? t.name : local ? "?" : NULL);
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

/* The nodes whose end ends the scope of a name declared in them: blocks,
 * and the statements and clauses that are implicit blocks. */
static const char *const go_blocks[] = {
	"block", "communication_case", "default_case", "expression_case",
	"expression_switch_statement", "for_statement", "func_literal", "function_declaration",
	"if_statement", "method_declaration", "select_statement", "source_file", "type_case",
	"type_switch_statement", NULL
};

/* Names, types and blocks as the walk enters node n. */
static void visit_scope(struct kbx_walk *w, TSNode n, const char *type)
{
	struct go_state *st = w->lang_state;
	uint32_t pos = ts_node_start_byte(n);
	_kbx_names_leave(&st->vars, pos);
	_kbx_names_leave(&st->tparams, pos);
	_kbx_blocks_visit(&st->blocks, n, type, go_blocks);
	if (!strcmp(type, "short_var_declaration") || !strcmp(type, "range_clause") ||
	    !strcmp(type, "receive_statement"))
		bind_decl(w, n, 0);
	else if ((!strcmp(type, "var_spec") || !strcmp(type, "const_spec")) && st->blocks.n > 1)
		bind_decl(w, n, 0);   /* the package-level ones are predefined */
	else if (!strcmp(type, "type_switch_statement"))
		bind_type_switch(w, n);
	else if (!strcmp(type, "func_literal") || !strcmp(type, "function_declaration"))
		bind_function(w, n, NULL);
	else if (!strcmp(type, "source_file"))
		predefine_evidence(w, n);
}

static int go_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	if (!strcmp(type, "source_file"))
		predefine_types(w, n);
	if (w->lang_state)
		visit_scope(w, n, type);
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		else if (!strcmp(type, "composite_literal"))
			add_type_call(w, n, _kbx_field(n, "type"));
		break;
	case 'f':
		if (!strcmp(type, "function_declaration"))
			set_ret_type(w, _kbx_walk_define(w, n, KBX_KIND_FUNCTION,
							 _kbx_field_text(w, n, "name"), 1), n);
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
	if (st) {
		_kbx_names_init(&st->vars);
		_kbx_names_init(&st->tparams);
	}
	w->lang_state = st;
}

static void go_end(struct kbx_walk *w)
{
	struct go_state *st = w->lang_state;
	if (st) {
		_kbx_predef_release(&st->types);
		_kbx_names_release(&st->vars);
		_kbx_names_release(&st->tparams);
		_kbx_blocks_release(&st->blocks);
		free(st->fields);
		free(st->results);
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

/* The package directories `vendor/PATH/` of the importer's directory and
 * of each above it, nearest first, as the go command looks for a vendored
 * package; then, for a path like the standard library's ("fmt",
 * "internal/abi"), PATH/ under each directory named src above the
 * importer (the tree of a Go release without its src/go.mod, or a
 * GOPATH). */
static void go_vendor_candidates(const char *importer, const char *m, int std_like,
				 struct kbx_pathlist *out)
{
	char dir[4096], up[4096], p[4096];
	_kbx_path_dirname(dir, sizeof(dir), importer);
	for (int src = 0; src < 1 + std_like; src++) {
		char d[4096];
		strcpy(d, dir);
		for (;;) {
			const char *base = strrchr(d, '/');
			base = base ? base + 1 : d;
			if (!src && snprintf(p, sizeof(p), "%s%svendor/%s", d, *d ? "/" : "", m) <
					    (int)sizeof(p) &&
			    _kbx_path_join(up, sizeof(up), "", p) == 0)
				_kbx_pathlist_addf(out, "%s/", up);
			if (src && !strcmp(base, "src") && _kbx_path_join(up, sizeof(up), d, m) == 0)
				_kbx_pathlist_addf(out, "%s/", up);
			if (!*d)
				break;
			_kbx_path_dirname(up, sizeof(up), d);
			strcpy(d, up);
		}
	}
}

/*
 * An import path names a package, that is a directory.  The resolver maps
 * the paths a go.mod of the repository declares (go_module_path), and
 * the standard library's to the tree declaring `module std`; for any
 * other, a vendored copy (go_vendor_candidates) comes first, then, since
 * we do not know which prefix is the module path, every suffix of the
 * import path is a candidate directory, longest first:
 * "example.com/app/internal/util" tries "example.com/app/internal/util/",
 * "app/internal/util/", "internal/util/", "util/".  A path of the
 * standard library has no other candidate than vendored ones and a src
 * tree's.
 */
static void go_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	const char *m = imp->module;
	if (!m || !*m)
		return;
	size_t first = strcspn(m, "/");
	int std_like = !memchr(m, '.', first);
	if (m[0] != '.' && m[0] != '/')
		go_vendor_candidates(importer, m, std_like, out);
	if (std_like) {
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

/* The module path of go.mod: its `module` directive, `module a/b` or
 * `module "a/b"`, with no comment. */
static int go_module_path(const char *text, size_t len, char *out, size_t outsz)
{
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		const char *q = p;
		while (q < eol && (*q == ' ' || *q == '\t'))
			q++;
		if (eol - q > 7 && !memcmp(q, "module", 6) && (q[6] == ' ' || q[6] == '\t')) {
			q += 7;
			while (q < eol && (*q == ' ' || *q == '\t'))
				q++;
			int quoted = q < eol && (*q == '"' || *q == '`');
			q += quoted;
			size_t n = 0;
			while (q + n < eol && !strchr(" \t\r\"`", q[n]) &&
			       !(q[n] == '/' && q + n + 1 < eol && q[n + 1] == '/'))
				n++;
			if (!n || n >= outsz)
				return -1;
			memcpy(out, q, n);
			out[n] = '\0';
			return 0;
		}
		p = eol + 1;
	}
	return -1;
}

static const char *const go_extensions[] = { ".go", NULL };

const struct kbx_lang _kbx_lang_go = {
	.name = "go",
	.extensions = go_extensions,
	.grammar = kbx_tree_sitter_go,
	.visit = go_visit,
	.begin = go_begin,
	.end = go_end,
	.import_candidates = go_import_candidates,
	.module_file = "go.mod",
	.module_path = go_module_path,
	.implicit_self = 0,
	.scope_sep = ".",
	.dir_is_package = 1,
	.visibility = _kbx_go_visibility,
};
