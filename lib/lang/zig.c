/*
 * Zig: containers (`const S = struct { ... }`, enum, union, opaque) as
 * structs and enums, functions and the methods of containers, calls, and
 * @import as an import.
 *
 * A file is a struct whose fields and declarations are its top level: a
 * function there is a function, one in a container a method, and
 * `const Parse = @This();` anywhere at the top names the file itself
 * (recv_type "@This": the resolver looks among the file's functions).
 * A function returning `type` is a generic: a struct whose returned
 * struct's functions are its methods; one returning another generic's
 * instance (`return ArrayListAligned(T, null);`) lists it as a base.
 * Inside a container its declarations are in scope without a receiver
 * (so a plain call in a method tries the container first:
 * implicit_self), and nothing else is but the file's top level and what
 * `usingnamespace` brings in (calls_in_imports_only): a function of
 * another file is always called through a name bound to it.
 *
 * `const m = @import("a/b.zig")` binds m to the file a/b.zig, beside the
 * importing file; `const T = @import("a.zig").T`, `const T = m.T` (m an
 * import) and `const expect = std.testing.expect` bind the name to what
 * the dotted path reaches in that file (module_values: the resolver
 * walks each component through what the files pass on); a pub one is
 * passed on in turn (KBX_IMPORT_REEXPORT).  `usingnamespace
 * @import("x.zig")` is a wildcard import.  @import("std") is std.zig
 * where the repository is the standard library; other package names
 * are modules kbx does not have.  A receiver's type is the one a
 * parameter or a constant declares (`self: *Self`, `it: Item`), with
 * pointers and optionals taken off, `Self = @This()` read as the
 * container, `List(u8)` as the generic List, and `const Fe = Field(256)`
 * at the top as Field.  A declaration without `pub` is its file's alone.
 */
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_zig)

/* const Self = @This(); in a container: the name stands for it */
struct zig_self {
	const char *name;
	int cls;                /* -1: the file; -2: a generic's instance */
	const char *generic;    /* for -2: const Fe = Field(256) -> "Field" */
	int in;                 /* for -2: the container declaring it, -1: the file */
};

/* a name bound at the top of the file to an import, or to a name in it
 * (prefix: const mem = std.mem binds mem to std.zig's "mem") */
struct zig_mod {
	const char *name, *module, *prefix;
};

struct zig_state {
	struct zig_self *selfs;
	size_t nselfs, aselfs;
	struct zig_mod *mods;
	size_t nmods, amods;
};

static void zig_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct zig_state));
}

static void zig_end(struct kbx_walk *w)
{
	struct zig_state *st = w->lang_state;
	if (st) {
		free(st->selfs);
		free(st->mods);
	}
	free(st);
	w->lang_state = NULL;
}

/* The path of @import("path"), or NULL when n is no such call. */
static const char *import_path(struct kbx_walk *w, TSNode n)
{
	if (!_kbx_is(n, "builtin_function"))
		return NULL;
	const char *b = _kbx_node_text(w, _kbx_child_of_type(n, "builtin_identifier"));
	if (!b || strcmp(b, "@import"))
		return NULL;
	TSNode args = _kbx_child_of_type(n, "arguments");
	TSNode s = ts_node_is_null(args) ? args : ts_node_named_child(args, 0);
	if (!_kbx_is(s, "string") || ts_node_named_child_count(s) != 1)
		return NULL;
	TSNode content = ts_node_named_child(s, 0);
	return _kbx_is(content, "string_content") ? _kbx_node_text(w, content) : NULL;
}

static int is_this(struct kbx_walk *w, TSNode n)
{
	if (!_kbx_is(n, "builtin_function"))
		return 0;
	const char *b = _kbx_node_text(w, _kbx_child_of_type(n, "builtin_identifier"));
	return b && !strcmp(b, "@This");
}

/* Is sym one of the open scopes? */
static int in_scope(const struct kbx_walk *w, int sym)
{
	for (size_t k = w->nscope; k-- > 0;)
		if (w->scope_sym[k] == sym)
			return 1;
	return 0;
}

/* The innermost container, through the functions; -1: none (the file). */
static int container(const struct kbx_walk *w)
{
	for (size_t k = w->nscope; k-- > 0;)
		if (KBX_KIND_IS_TYPE(w->x->syms[w->scope_sym[k]].kind))
			return w->scope_sym[k];
	return -1;
}

/* The type a declaration states, as recv_type: pointers, optionals and
 * error unions taken off, Self and @This() the enclosing container;
 * NULL when it names none. */
static const char *type_name(struct kbx_walk *w, TSNode t)
{
	struct zig_state *st = w->lang_state;
	for (int i = 0; i < 8 && !ts_node_is_null(t); i++) {
		const char *type = ts_node_type(t);
		if (!strcmp(type, "pointer_type") || !strcmp(type, "nullable_type")) {
			uint32_t n = ts_node_named_child_count(t);
			t = n ? ts_node_named_child(t, n - 1) : _kbx_field(t, "none");
			continue;
		}
		if (!strcmp(type, "error_union_type")) {
			t = _kbx_field(t, "ok");
			continue;
		}
		if (is_this(w, t)) {
			/* the innermost container, through the functions
			 * (self: *@This() in a method), else the file */
			int cls = container(w);
			return cls >= 0 ? w->x->syms[cls].qual : "@This";
		}
		if (!strcmp(type, "identifier")) {
			const char *name = _kbx_node_text(w, t);
			for (size_t j = st && name ? st->nselfs : 0; j-- > 0;) {
				if (strcmp(st->selfs[j].name, name))
					continue;
				if (st->selfs[j].cls == -2) {
					if (st->selfs[j].in < 0 || in_scope(w, st->selfs[j].in))
						return st->selfs[j].generic;
					continue;
				}
				if (st->selfs[j].cls < 0)
					return "@This";   /* the file's own struct */
				for (size_t k = w->nscope; k-- > 0;)
					if (w->scope_sym[k] == st->selfs[j].cls)
						return w->x->syms[st->selfs[j].cls].qual;
			}
			return name;
		}
		if (!strcmp(type, "field_expression")) {
			/* the grammar reads *const m.T as (*const m).T:
			 * the pointer taken off the text */
			const char *text = _kbx_compact_text(w, t, 0);
			for (int more = 1; text && more;) {
				more = 0;
				static const char *const prefixes[] = { "*", "?", "[*]", "[]", "const ",
					"volatile ", "allowzero " };
				for (size_t k = 0; k < sizeof(prefixes) / sizeof(*prefixes); k++)
					if (!strncmp(text, prefixes[k], strlen(prefixes[k]))) {
						text += strlen(prefixes[k]);
						more = 1;
					}
			}
			return text && *text ? text : NULL;
		}
		if (!strcmp(type, "call_expression")) {
			/* std.ArrayList(u8): an instance of that generic */
			TSNode fn = _kbx_field(t, "function");
			if (_kbx_is(fn, "identifier") || _kbx_is(fn, "field_expression")) {
				t = fn;
				continue;
			}
		}
		return NULL;
	}
	return NULL;
}

static const char *receiver_text(struct kbx_walk *w, TSNode n);

static void mark(struct kbx_walk *w, TSNode n, int sym)
{
	if (sym < 0)
		return;
	if (_kbx_has_token(n, "pub") || _kbx_has_token(n, "export"))
		w->x->syms[sym].flags |= KBX_SYM_EXPORTED;
	else
		w->x->syms[sym].flags |= KBX_SYM_FILE_LOCAL;
}

static void add_mod(struct kbx_walk *w, const char *name, const char *module,
		    const char *prefix)
{
	struct zig_state *st = w->lang_state;
	if (st && name && module &&
	    !_kbx_grow((void **)&st->mods, &st->amods, st->nmods, sizeof(*st->mods), 8)) {
		st->mods[st->nmods].name = name;
		st->mods[st->nmods].module = module;
		st->mods[st->nmods].prefix = prefix;
		st->nmods++;
	}
}

static const struct zig_mod *mod_of(struct kbx_walk *w, const char *name)
{
	struct zig_state *st = w->lang_state;
	for (size_t i = st && name ? st->nmods : 0; i-- > 0;)
		if (!strcmp(st->mods[i].name, name))
			return &st->mods[i];
	return NULL;
}

/* Is the node being visited inside a test block, and no function? */
static int in_test(const struct kbx_walk *w)
{
	for (uint32_t d = w->depth; d-- > 0;) {
		const char *t = ts_node_type(w->up[d]);
		if (!strcmp(t, "test_declaration"))
			return 1;
		if (!strcmp(t, "function_declaration"))
			return 0;
	}
	return 0;
}

static const char *own_field_type(struct kbx_walk *w, TSNode fe);

/* What a.b.c reads its fields of: a (at most eight fields down). */
static TSNode field_root(TSNode n)
{
	for (int depth = 0; depth < 9 && _kbx_is(n, "field_expression"); depth++)
		n = _kbx_field(n, "object");
	return n;
}

/* Does value name a module, or a declaration through one (@import(...),
 * m.x, @import("std").testing)? */
static int names_module(struct kbx_walk *w, TSNode value)
{
	if (import_path(w, value))
		return 1;
	if (!_kbx_is(value, "field_expression"))
		return 0;
	TSNode obj = field_root(value);
	return import_path(w, obj) || (_kbx_is(obj, "identifier") &&
				       mod_of(w, _kbx_node_text(w, obj)));
}

/* const X = ...: a container, an import, Self = @This(), or a local. */
static void visit_variable(struct kbx_walk *w, TSNode n)
{
	TSNode first = ts_node_named_child(n, 0);
	if (!_kbx_is(first, "identifier"))
		return;   /* x.f += 1 reads as one too */
	const char *name = _kbx_node_text(w, first);
	TSNode value = ts_node_named_child(n, ts_node_named_child_count(n) - 1);
	const char *vt = ts_node_is_null(value) ? "" : ts_node_type(value);
	if (!name)
		return;
	/* Locals are bound, a test block's too: its calls are the file's,
	 * and its names are bound at the file's level, where Zig lets no
	 * declaration of the file have the same name (a local may not
	 * shadow one).  x = e (the grammar reads an assignment as a
	 * declaration without var or const) leaves x's type as its
	 * declaration made it. */
	int declares = _kbx_has_token(n, "var") || _kbx_has_token(n, "const");
	int local = declares && _kbx_walk_caller(w) >= 0;
	if (!local && declares && in_test(w)) {
		/* in a test, a module's name (const testing =
		 * @import("std").testing) is left to the file's modules
		 * below, unless another test bound the name */
		const char *was;
		local = !names_module(w, value) || _kbx_walk_bound(w, name, 0, &was);
	}
	if (local) {
		/* x: T = ..., or x = T{ ... } */
		TSNode type = _kbx_field(n, "type");
		if (ts_node_is_null(type) && !strcmp(vt, "struct_initializer"))
			type = ts_node_named_child(value, 0);
		const char *tn = ts_node_is_null(type) ? NULL : type_name(w, type);
		/* var x = try T.init(a): what the call returns, the call
		 * being the next one recorded (kbx_xcall.recv_type "=K:NAME") */
		TSNode call = _kbx_is(value, "try_expression") ? ts_node_named_child(value, 0) : value;
		if (!tn && ts_node_is_null(type) && _kbx_is(value, "field_expression"))
			tn = own_field_type(w, value);   /* const e = self.entries */
		if (!tn && ts_node_is_null(type) && _kbx_is(call, "call_expression")) {
			TSNode fn = _kbx_field(call, "function");
			tn = _kbx_call_result(w, w->x->ncalls,
					      _kbx_is(fn, "identifier") ? _kbx_node_text(w, fn) :
					      _kbx_is(fn, "field_expression") ?
					      _kbx_field_text(w, fn, "member") : NULL);
		}
		_kbx_walk_bind(w, name, tn);
	}
	if (!declares)
		return;
	int kind = 0;
	if (!strcmp(vt, "struct_declaration") || !strcmp(vt, "union_declaration") ||
	    !strcmp(vt, "opaque_declaration"))
		kind = KBX_KIND_STRUCT;
	else if (!strcmp(vt, "enum_declaration"))
		kind = KBX_KIND_ENUM;
	if (kind && _kbx_walk_caller(w) < 0) {
		mark(w, n, _kbx_walk_define(w, n, kind, name, 1));
		return;
	}
	struct zig_state *st = w->lang_state;
	if (_kbx_walk_parent(w) < 0 && is_this(w, value))
		return;   /* file_self has it */
	if (_kbx_walk_parent(w) >= 0) {
		int cls = _kbx_walk_class(w);
		if (is_this(w, value) && cls >= 0 && st &&
		    !_kbx_grow((void **)&st->selfs, &st->aselfs, st->nselfs,
			       sizeof(*st->selfs), 4)) {
			st->selfs[st->nselfs].name = name;
			st->selfs[st->nselfs].cls = cls;
			st->selfs[st->nselfs].generic = NULL;
			st->nselfs++;
		}
		return;
	}
	/* the top of the file: imports and names taken from them; a pub
	 * one is passed on to the files importing this one (std.zig's
	 * pub const mem = @import("mem.zig")) */
	int pass = _kbx_has_token(n, "pub") ? KBX_IMPORT_REEXPORT : 0;
	const char *path = import_path(w, value);
	if (path) {
		_kbx_x_import(w->x, path, NULL, name, 0, pass, _kbx_node_line(n));
		add_mod(w, name, path, NULL);
		return;
	}
	if (!strcmp(vt, "field_expression")) {
		/* const T = m.T, const expect = std.testing.expect: the name
		 * after the import's, dotted where it goes through the
		 * modules the imported file passes on */
		TSNode obj = field_root(value);
		const char *from = import_path(w, obj), *prefix = NULL;
		if (!from && _kbx_is(obj, "identifier")) {
			const struct zig_mod *m = mod_of(w, _kbx_node_text(w, obj));
			from = m ? m->module : NULL;
			prefix = m ? m->prefix : NULL;
		}
		const char *member = from ? _kbx_compact_text(w, value, 0) : NULL;
		const char *head = member ? _kbx_compact_text(w, obj, 0) : NULL;
		size_t hl = head ? strlen(head) : 0;
		if (!member || strncmp(member, head, hl) || member[hl] != '.' || !member[hl + 1])
			return;
		member += hl + 1;
		if (prefix)
			member = _kbx_join(w, prefix, ".", member);
		if (!member || member == _kbx_qual_too_long)
			return;
		_kbx_x_import(w->x, from, member, strcmp(member, name) ? name : NULL, 0,
			      pass, _kbx_node_line(n));
		add_mod(w, name, from, member);
	}
}

/* fn List(comptime T: type) type { return struct { ... }; }: a generic
 * type, which a call makes (List(u8)); its struct's functions are its
 * methods.  One that returns another's (ArrayList returning
 * ArrayListAligned(T, null)) has that one's methods: a base. */
static int is_type_function(struct kbx_walk *w, TSNode n)
{
	TSNode t = _kbx_field(n, "type");
	if (!_kbx_is(t, "builtin_type"))
		return 0;
	const char *text = _kbx_node_text(w, t);
	return text && !strcmp(text, "type");
}

/* The generic call names, as written (List for List(u8), std.ArrayList
 * for std.ArrayList(u8)), or NULL for a call of no named function. */
static const char *callee_text(struct kbx_walk *w, TSNode call)
{
	TSNode fn = _kbx_field(call, "function");
	return _kbx_is(fn, "identifier") || _kbx_is(fn, "field_expression") ?
		       receiver_text(w, fn) : NULL;
}

static void type_function_base(struct kbx_walk *w, TSNode n, int sym)
{
	TSNode body = _kbx_field(n, "body");
	if (ts_node_named_child_count(body) != 1)
		return;
	TSNode st = ts_node_named_child(body, 0);
	TSNode ret = _kbx_is(st, "expression_statement") ? ts_node_named_child(st, 0) : st;
	if (!_kbx_is(ret, "return_expression"))
		return;
	TSNode call = ts_node_named_child(ret, 0);
	const char *base = _kbx_is(call, "call_expression") ? callee_text(w, call) : NULL;
	if (base)
		_kbx_x_inherit(w->x, sym, base, _kbx_node_line(ret));
}

/* The top of the file, wherever a declaration is written (one is seen
 * in all of its container): const Parse = @This() makes the file a
 * struct (its fields at the top), its functions Parse's; const Fe =
 * Field(256) names what Field makes, if Field makes a type (the
 * resolver sees whether it does). */
/* The member d of a container (in; -1: the file itself) as one of selfs:
 * `const Fe = Field(256)`, an instance of the generic Field there, and
 * at the top of the file `const Parse = @This()`. */
static void note_alias(struct kbx_walk *w, TSNode d, int in)
{
	struct zig_state *st = w->lang_state;
	if (!st || !_kbx_is(d, "variable_declaration"))
		return;
	TSNode first = ts_node_named_child(d, 0);
	TSNode value = ts_node_named_child(d, ts_node_named_child_count(d) - 1);
	const char *name = _kbx_is(first, "identifier") ? _kbx_node_text(w, first) : NULL;
	const char *generic = _kbx_is(value, "call_expression") &&
			      ts_node_is_null(_kbx_field(d, "type")) ?
			      callee_text(w, value) : NULL;
	if (!name || (!generic && (in >= 0 || !is_this(w, value))) ||
	    _kbx_grow((void **)&st->selfs, &st->aselfs, st->nselfs, sizeof(*st->selfs), 4))
		return;
	st->selfs[st->nselfs].name = name;
	st->selfs[st->nselfs].cls = generic ? -2 : -1;
	st->selfs[st->nselfs].generic = generic;
	st->selfs[st->nselfs].in = in;
	st->nselfs++;
}

static void file_self(struct kbx_walk *w, TSNode root)
{
	uint32_t count = ts_node_named_child_count(root);
	for (uint32_t i = 0; i < count; i++)
		note_alias(w, ts_node_named_child(root, i), -1);
}

/*
 * A container's own struct { ... } (the value of the declaration that
 * defined it, or what its type function returns), on entering it: its
 * `const L = std.MultiArrayList(T)` are instances of those generics in
 * it, and its fields' types are bound as ".name", a name no identifier
 * has (a field is no name in scope in Zig: self.entries, never
 * entries), for self.entries.items() in its methods.
 */
static void visit_struct(struct kbx_walk *w, TSNode n)
{
	struct zig_state *st = w->lang_state;
	if (!st || !w->nscope || w->depth < 1)
		return;
	int cls = w->scope_sym[w->nscope - 1];
	if (!KBX_KIND_IS_TYPE(w->x->syms[cls].kind))
		return;
	uint32_t at = w->scope_depth[w->nscope - 1];
	int own = (at == w->depth - 1 && _kbx_is(w->up[at], "variable_declaration")) ||
		  (w->depth >= 4 && at == w->depth - 4 &&
		   _kbx_is(w->up[w->depth - 1], "return_expression") &&
		   _kbx_is(w->up[w->depth - 2], "expression_statement") &&
		   _kbx_is(w->up[w->depth - 3], "block") &&
		   _kbx_is(w->up[at], "function_declaration"));
	if (!own)
		return;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++)
		note_alias(w, ts_node_named_child(n, i), cls);
	for (uint32_t i = 0; i < count; i++) {
		TSNode f = ts_node_named_child(n, i);
		if (!_kbx_is(f, "container_field"))
			continue;
		const char *name = _kbx_field_text(w, f, "name");
		TSNode type = _kbx_field(f, "type");
		const char *key = name ? _kbx_join(w, ".", name, "") : NULL;
		if (key && key != _kbx_qual_too_long && !ts_node_is_null(type))
			_kbx_walk_bind_field(w, key, type_name(w, type));
	}
}

/* The type of self.f in a method, self its container: f's declared
 * type, or NULL. */
static const char *own_field_type(struct kbx_walk *w, TSNode fe)
{
	TSNode obj = _kbx_field(fe, "object");
	const char *f = _kbx_field_text(w, fe, "member"), *t = NULL, *ft = NULL;
	if (!f || !_kbx_is(obj, "identifier") ||
	    !_kbx_walk_bound(w, _kbx_node_text(w, obj), 0, &t) || !t)
		return NULL;
	int cls = container(w);
	if (cls >= 0 && strcmp(w->x->syms[cls].qual, t))
		return NULL;
	const char *key = _kbx_join(w, ".", f, "");
	return key && key != _kbx_qual_too_long && _kbx_walk_bound(w, key, 1, &ft) ? ft : NULL;
}

static void visit_function(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_field_text(w, n, "name");
	if (!name || ts_node_is_null(_kbx_field(n, "body")))
		return;   /* extern fn f(...): declared, defined elsewhere */
	int generic = is_type_function(w, n);
	int kind = generic ? KBX_KIND_STRUCT :
		   _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION;
	int sym = _kbx_walk_define(w, n, kind, name, 1);
	mark(w, n, sym);
	if (sym < 0)
		return;
	/* what it returns, as a type of its file (Self: its container) */
	if (!generic) {
		TSNode rt = _kbx_field(n, "type");
		const char *t = ts_node_is_null(rt) ? NULL : type_name(w, rt);
		w->x->syms[sym].ret_type = t && !strchr(t, '.') && strcmp(t, "@This") ? t : NULL;
	}
	if (generic)
		type_function_base(w, n, sym);
	TSNode params = _kbx_child_of_type(n, "parameters");
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		const char *pn = _kbx_field_text(w, p, "name");
		TSNode type = _kbx_field(p, "type");
		if (pn)
			_kbx_walk_bind(w, pn, ts_node_is_null(type) ? NULL : type_name(w, type));
	}
}

/* a.b.c as a receiver: identifiers and fields only, else NULL. */
static const char *receiver_text(struct kbx_walk *w, TSNode n)
{
	TSNode t = n;
	while (_kbx_is(t, "field_expression"))
		t = _kbx_field(t, "object");
	return _kbx_is(t, "identifier") ? _kbx_compact_text(w, n, 0) : NULL;
}

/* Is n a value, not a type or a module: a local or parameter, a field
 * of one (self.x), or what a call of a method returns? */
static int is_value(struct kbx_walk *w, TSNode n)
{
	for (int depth = 0; depth < 8 && _kbx_is(n, "field_expression"); depth++)
		n = _kbx_field(n, "object");
	if (_kbx_is(n, "call_expression"))
		return _kbx_is(_kbx_field(n, "function"), "field_expression") &&
		       is_value(w, _kbx_field(_kbx_field(n, "function"), "object"));
	const char *t;
	return _kbx_is(n, "identifier") && _kbx_walk_bound(w, _kbx_node_text(w, n), 0, &t);
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	/* !f(x): the grammar reads `!f` as an error union type with no
	 * error set; the call is f(x), negated */
	if (_kbx_is(fn, "error_union_type") && ts_node_named_child_count(fn) == 1)
		fn = _kbx_field(fn, "ok");
	if (_kbx_is(fn, "identifier")) {
		_kbx_walk_call(w, n, _kbx_node_text(w, fn), KBX_RECV_NONE, NULL);
	} else if (_kbx_is(fn, "field_expression")) {
		const char *m = _kbx_field_text(w, fn, "member");
		TSNode obj = _kbx_field(fn, "object");
		if (!m || ts_node_is_null(obj))
			return;   /* .init(x): a declaration of the inferred type */
		/* !self.f(x): the grammar reads `!self` as an error union
		 * type with no error set; the call is self.f(x), negated */
		if (_kbx_is(obj, "error_union_type") && ts_node_named_child_count(obj) == 1)
			obj = _kbx_field(obj, "ok");
		const char *recv = receiver_text(w, obj);
		const char *tn = recv && _kbx_is(obj, "identifier") ? type_name(w, obj) : NULL;
		const char *ft = recv && _kbx_is(obj, "field_expression") ?
				 own_field_type(w, obj) : NULL;
		if (ft) {
			/* self.entries.items(): the field's declared type */
			_kbx_walk_call_typed(w, n, m, KBX_RECV_EXPR, recv, ft);
		} else if (tn && strcmp(tn, recv)) {
			/* Progress.f() in Progress.zig: the file's own
			 * function, not a method of the caller's container;
			 * Fe.mul() with const Fe = Field(256): Field's */
			_kbx_walk_call_typed(w, n, m, KBX_RECV_EXPR, recv, tn);
		} else if (recv) {
			_kbx_walk_call(w, n, m, KBX_RECV_EXPR, recv);
		} else if (_kbx_is(obj, "null_coercion_expression") &&
			   _kbx_is(ts_node_named_child(obj, 0), "identifier")) {
			/* o.?.f(): o's type unwrapped */
			_kbx_walk_call(w, n, m, KBX_RECV_EXPR,
				       _kbx_node_text(w, ts_node_named_child(obj, 0)));
		} else if (_kbx_is(obj, "call_expression")) {
			/* x.sq().mul(y): what sq returns, sq the call recorded
			 * right after this one (kbx_xcall.recv_type "=K:NAME");
			 * List(u8).init(): a function of the type a generic
			 * makes, if List is one (the resolver checks); else a
			 * call's result, as written */
			TSNode ifn = _kbx_field(obj, "function");
			const char *res = _kbx_is(ifn, "field_expression") &&
					  is_value(w, _kbx_field(ifn, "object")) ?
					  _kbx_call_result(w, w->x->ncalls + 1,
							   _kbx_field_text(w, ifn, "member")) : NULL;
			_kbx_walk_call_typed(w, n, m, KBX_RECV_EXPR, _kbx_compact_text(w, obj, 0),
					     res ? res : type_name(w, obj));
		} else {
			/* an index's result, as written */
			_kbx_walk_call(w, n, m, KBX_RECV_EXPR, _kbx_compact_text(w, obj, 0));
		}
	}
}

static void visit_payload(struct kbx_walk *w, TSNode n)
{
	if (_kbx_walk_caller(w) < 0)
		return;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++)
		if (_kbx_is(ts_node_named_child(n, i), "identifier"))
			_kbx_walk_bind(w, _kbx_node_text(w, ts_node_named_child(n, i)), NULL);
}

static int zig_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		else if (!strcmp(type, "comment"))
			return KBX_WALK_SKIP;
		break;
	case 'f':
		if (!strcmp(type, "function_declaration"))
			visit_function(w, n);
		break;
	case 'p':
		if (!strcmp(type, "payload"))
			visit_payload(w, n);
		break;
	case 's':
		if (!strcmp(type, "source_file"))
			file_self(w, n);
		else if (!strcmp(type, "struct_declaration"))
			visit_struct(w, n);
		break;
	case 'u':
		if (!strcmp(type, "using_namespace_declaration")) {
			const char *path = import_path(w, ts_node_named_child(n, 0));
			if (path && _kbx_walk_parent(w) < 0)
				_kbx_x_import(w->x, path, NULL, NULL, 0, KBX_IMPORT_WILDCARD,
					      _kbx_node_line(n));
		}
		break;
	case 'v':
		if (!strcmp(type, "variable_declaration"))
			visit_variable(w, n);
		break;
	}
	return KBX_WALK_CONTINUE;
}

/* @import("a/b.zig"): that path from the importing file's directory.  A
 * package's name ("std", or one build.zig declares) names no file here. */
static void zig_import_candidates(const char *importer, const struct kbx_ximport *imp,
				  struct kbx_pathlist *out)
{
	char dir[4096], path[4096];
	if (imp->module && !strcmp(imp->module, "std")) {
		/* the standard library, where the repository is it (Zig's
		 * lib/std, or the compiler's tree) */
		_kbx_pathlist_add(out, "std.zig");
		_kbx_pathlist_add(out, "lib/std/std.zig");
		return;
	}
	if (!imp->module || !_kbx_has_suffix(imp->module, ".zig"))
		return;
	_kbx_path_dirname(dir, sizeof(dir), importer);
	if (!_kbx_path_join(path, sizeof(path), dir, imp->module))
		_kbx_pathlist_add(out, path);
}

static const char *const zig_extensions[] = { ".zig", NULL };

const struct kbx_lang _kbx_lang_zig = {
	.name = "zig",
	.extensions = zig_extensions,
	.grammar = kbx_tree_sitter_zig,
	.visit = zig_visit,
	.begin = zig_begin,
	.end = zig_end,
	.import_candidates = zig_import_candidates,
	.implicit_self = 1,
	.calls_in_imports_only = 1,
	.reexports = 1,
	.module_values = 1,
	.later_shadows = 1,
	.scope_sep = ".",
};
