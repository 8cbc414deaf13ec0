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
 * "Config", name "new").  Macro invocations (`println!`) are not calls.
 * The grammar leaves macro arguments as unparsed token trees; those of
 * the standard library's macros whose arguments are expressions
 * (assert_eq!, vec!, format!, write!, ...) are parsed again as Rust, with
 * the positions of the file, and the calls in them are seen like any
 * other.  What another macro makes of its tokens only its definition
 * says: calls in its arguments are not seen.
 *
 * A call's receiver gets its static type (recv_type) where the source
 * states it: a parameter (`x: &mut T`), self in an impl, `let x: T`,
 * `let x = T { .. }`, the declared result of a function or method of
 * this file (`T::new()` or `T::from(..)` is a T only when this file
 * declares it to return Self or T, or T is the standard library's
 * String, Vec, HashMap..., whose constructors do), the fields of this file's structs (`self.log.push()`) and of its
 * enum variants in a pattern (`Ast::Class(ref x) => x.span()`), what an
 * Option or Result holds (`Some(x)`, `x?`, `.unwrap()`), an element of a
 * Vec, slice or array (`for x in &v`, `v[i]`), and through a Box, Rc or
 * Arc the value it points to (but for the methods the pointer answers
 * itself, like clone()).  `T::f()` with T a type (the path's last
 * segment in UpperCamelCase) is a call on the type T; a local whose
 * type the source does not state, and the value of a call, are "?".
 * Rust scopes names by block and shadows them (`let x = x.trim();`), so
 * the names live in a table of names scoped by bytes (scoped-names.h).
 * An import of a name of this very file (`use super::X` in an inline
 * `mod tests`) is left out: a file never imports itself, and the name is
 * found in the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "scoped-names.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_rust)

/* Containers, as _kbx_vtype.container: Vec, VecDeque, slices and
 * arrays; HashMap and BTreeMap; Option; Result. */
#define RS_VEC 's'
#define RS_MAP 'm'
#define RS_OPTION 'o'
#define RS_RESULT 'r'
/* Box, Rc and Arc: a call through one is its value's (elem), but for
 * the methods the pointer has itself (pointer_method()) */
#define RS_POINTER 'p'

/* A field of a struct of this file (owner "Config", name "path"), or
 * the declared result of a function (owner "") or a method (owner the
 * impl's type) of this file. */
struct rust_member {
	const char *owner, *name;
	struct _kbx_vtype type;
	int conflict;        /* declared twice, with two types */
};

struct rust_state {
	/* the types of the file, most defined ahead of the walk (those of
	 * function bodies are added as met) */
	struct _kbx_predef types;
	/* the names in scope; the type parameters, and Self; the values
	 * of the open match expressions, as "match" */
	struct _kbx_scoped_names vars, tparams, scrutinees;
	struct _kbx_blocks blocks;
	struct rust_member *fields, *results;
	size_t nfields, afields, nresults, aresults;
	/* the modules the file declares (`mod x;`) */
	const char **mods;
	size_t nmods, amods;
	/* parses the arguments of the standard library's macros */
	TSParser *macro_parser;
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

/* ---- the static types of names: the evidence for calls ---- */

/* The type a type node names, as recv_type wants it, and for the
 * standard containers what they hold.  Self is the impl's type; a type
 * parameter, a tuple, a function or a raw pointer is no named type. */
static struct _kbx_vtype declared_type(struct kbx_walk *w, TSNode t, int depth)
{
	const struct rust_state *st = w->lang_state;
	struct _kbx_vtype r = { 0 };
	if (ts_node_is_null(t) || depth > 8)
		return r;
	if (_kbx_is(t, "reference_type"))
		return declared_type(w, _kbx_field(t, "type"), depth + 1);
	if (_kbx_is(t, "dynamic_type") || _kbx_is(t, "abstract_type")) {
		/* dyn Trait, impl Trait: the trait's methods */
		r.name = declared_type(w, _kbx_field(t, "trait"), depth + 1).name;
		return r;
	}
	if (_kbx_is(t, "array_type")) {
		r.container = RS_VEC;
		r.elem = declared_type(w, _kbx_field(t, "element"), depth + 1).name;
		return r;
	}
	if (_kbx_is(t, "primitive_type") || _kbx_is(t, "scoped_type_identifier")) {
		r.name = _kbx_compact_text(w, t, COMPACT);
		return r;
	}
	if (_kbx_is(t, "type_identifier")) {
		const char *name = _kbx_node_text(w, t);
		const struct _kbx_scoped_name *p = st ? _kbx_names_find(&st->tparams, name,
								       ts_node_start_byte(t)) : NULL;
		r.name = p ? p->type.name : name;   /* Self, or a type parameter */
		return r;
	}
	if (!_kbx_is(t, "generic_type"))
		return r;
	TSNode base = _kbx_field(t, "type");
	TSNode args = _kbx_field(t, "type_arguments");
	TSNode a[2];
	memset(a, 0, sizeof(a));
	uint32_t na = 0, count = ts_node_is_null(args) ? 0 : ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count && na < 2; i++) {
		TSNode c = ts_node_named_child(args, i);
		if (!_kbx_is(c, "lifetime"))
			a[na++] = c;
	}
	r = declared_type(w, base, depth + 1);
	const char *b = _kbx_is(base, "type_identifier") ? r.name : NULL;
	if (!b)
		return r;
	if (!strcmp(b, "Vec") || !strcmp(b, "VecDeque")) {
		r.container = RS_VEC;
		r.elem = declared_type(w, a[0], depth + 1).name;
	} else if (!strcmp(b, "HashMap") || !strcmp(b, "BTreeMap")) {
		r.container = RS_MAP;
		r.key = declared_type(w, a[0], depth + 1).name;
		r.elem = declared_type(w, a[1], depth + 1).name;
	} else if (!strcmp(b, "Option") || !strcmp(b, "Result")) {
		r.container = b[0] == 'O' ? RS_OPTION : RS_RESULT;
		r.elem = declared_type(w, a[0], depth + 1).name;
	} else if (!strcmp(b, "Box") || !strcmp(b, "Rc") || !strcmp(b, "Arc")) {
		r.container = RS_POINTER;
		r.elem = declared_type(w, a[0], depth + 1).name;
	}
	return r;
}

/* The type a path names, as a call's receiver: `Config`, `hir::Class`,
 * `Vec::<u8>`, Self (the impl's type); NULL for a module, a type
 * parameter, Self in a trait, or <T as Trait>.  Rust writes types in
 * UpperCamelCase and modules in snake_case (the compiler warns
 * otherwise), so in `a::B::f()` B is a type and in `a::b::f()` b a
 * module. */
static const char *path_type(struct kbx_walk *w, TSNode path)
{
	const struct rust_state *st = w->lang_state;
	if (_kbx_is(path, "generic_type"))
		path = _kbx_field(path, "type");
	if (!_kbx_is(path, "identifier") && !_kbx_is(path, "scoped_identifier") &&
	    !_kbx_is(path, "type_identifier") && !_kbx_is(path, "scoped_type_identifier"))
		return NULL;
	const char *p = _kbx_compact_text(w, path, COMPACT);
	if (!p)
		return NULL;
	const char *last = strrchr(p, '.');
	last = last ? last + 1 : p;
	if (last == p) {
		const struct _kbx_scoped_name *t =
			_kbx_names_find(&st->tparams, p, ts_node_start_byte(path));
		if (t)
			return t->type.name;
	}
	return *last >= 'A' && *last <= 'Z' ? p : NULL;
}

/*
 * Does a Box, Rc or Arc answer a method call itself?  Method lookup
 * tries the pointer before what it points to: its own methods and those
 * of the traits it implements (Clone, comparison, Hash, formatting,
 * Deref, AsRef, Borrow, Iterator, and the blanket Into, ToOwned,
 * ToString); every other method is its value's.
 */
static int pointer_method(const char *name)
{
	static const char *const own[] = {
		"as_mut", "as_ref", "borrow", "borrow_mut", "clamp", "clone", "clone_from", "cmp",
		"deref", "deref_mut", "eq", "fmt", "ge", "gt", "hash", "into", "le", "lt", "max",
		"min", "ne", "next", "next_back", "nth", "partial_cmp", "size_hint", "to_owned",
		"to_string", "try_into", "type_id", NULL
	};
	for (size_t i = 0; own[i]; i++)
		if (!strcmp(name, own[i]))
			return 1;
	return 0;
}

/*
 * Is T::name() a constructor of the standard library's type T, which the
 * library declares to return Self: String::new(), Vec::with_capacity(n),
 * HashMap::default(), PathBuf::from(s)?  A type of this name declared in
 * the repository (a struct String of its own) is not told apart: these
 * names are the prelude's and std::collections'.
 */
static int std_constructor(const char *owner, const char *name)
{
	static const char *const types[] = {
		"BTreeMap", "BTreeSet", "BinaryHeap", "HashMap", "HashSet", "OsString",
		"PathBuf", "String", "Vec", "VecDeque", NULL
	};
	static const char *const made_by[] = {
		"default", "from", "new", "with_capacity", NULL
	};
	int t = 0, m = 0;
	for (size_t i = 0; types[i] && !t; i++)
		t = !strcmp(owner, types[i]);
	for (size_t i = 0; made_by[i] && !m; i++)
		m = !strcmp(name, made_by[i]);
	return t && m;
}

/* The type a call of method name on a value of type t reaches: through
 * a Box, Rc or Arc to what it holds. */
static const char *method_owner(const struct _kbx_vtype *t, const char *name)
{
	if (t->container == RS_POINTER && name && !pointer_method(name))
		return t->elem;
	return t->name;
}

/* A field of a struct, or the result of a method, of the type owner of
 * this file; owner "" for a free function.  NULL when the file says
 * nothing, or two things. */
static const struct _kbx_vtype *find_member(const struct rust_member *v, size_t n,
					    const char *owner, const char *name)
{
	if (!owner || !name)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name) && !strcmp(v[i].owner, owner))
			return v[i].conflict ? NULL : &v[i].type;
	return NULL;
}

/* Record a field or a result; the same name of the same owner with
 * another type (in another module of the file) is no evidence. */
static void add_member(struct rust_member **v, size_t *n, size_t *alloc, const char *owner,
		       const char *name, struct _kbx_vtype type)
{
	if (!name || !owner || name == _kbx_qual_too_long)
		return;
	for (size_t i = 0; i < *n; i++) {
		struct rust_member *m = &(*v)[i];
		if (!strcmp(m->owner, owner) && !strcmp(m->name, name)) {
			if (!m->type.name || !type.name || strcmp(m->type.name, type.name))
				m->conflict = 1;
			return;
		}
	}
	if (!_kbx_grow((void **)v, alloc, *n, sizeof(**v), 16))
		(*v)[(*n)++] = (struct rust_member){ owner, name, type, 0 };
}

static const struct _kbx_vtype *result_of(const struct rust_state *st, const char *owner,
					  const char *name)
{
	return find_member(st->results, st->nresults, owner, name);
}

static const struct _kbx_vtype *field_of(const struct rust_state *st, const char *owner,
					 const char *name)
{
	/* the fields of this file's structs and variants, by the name this
	 * file gives them ("Config", "Ast.Class"); a type named through a
	 * module ("hir.Class") is another file's */
	return find_member(st->fields, st->nfields, owner, name);
}

/* What the source states about the type of expression e.  *local is set
 * when e is a name of this scope (or a field of one), so a value, not a
 * module or a type. */
static struct _kbx_vtype value_type(struct kbx_walk *w, TSNode e, int *local, int depth)
{
	const struct rust_state *st = w->lang_state;
	struct _kbx_vtype none = { 0 };
	if (ts_node_is_null(e) || depth > 8)
		return none;
	const char *type = ts_node_type(e);
	if (!strcmp(type, "parenthesized_expression"))
		return value_type(w, ts_node_named_child(e, 0), local, depth + 1);
	if (!strcmp(type, "reference_expression"))
		return value_type(w, _kbx_field(e, "value"), local, depth + 1);
	if (!strcmp(type, "identifier") || !strcmp(type, "self")) {
		const struct _kbx_scoped_name *v =
			_kbx_names_find(&st->vars, _kbx_node_text(w, e), ts_node_start_byte(e));
		if (v && local)
			*local = 1;
		return v ? v->type : none;
	}
	if (!strcmp(type, "field_expression")) {
		int base_local = 0;
		struct _kbx_vtype o = value_type(w, _kbx_field(e, "value"), &base_local, depth + 1);
		if (base_local && local)
			*local = 1;
		/* a pointer has no fields: b.x is what it points to's */
		const char *owner = o.container == RS_POINTER ? o.elem : o.name;
		const struct _kbx_vtype *f = field_of(st, owner, _kbx_field_text(w, e, "field"));
		return f ? *f : none;
	}
	if (!strcmp(type, "struct_expression")) {
		TSNode t = _kbx_field(e, "name");
		if (_kbx_is(t, "generic_type_with_turbofish"))
			t = _kbx_field(t, "type");
		return declared_type(w, t, depth + 1);
	}
	if (!strcmp(type, "try_expression") || !strcmp(type, "index_expression")) {
		/* x? of an Option or a Result; v[i] of a Vec, slice, array or map */
		struct _kbx_vtype o = value_type(w, ts_node_named_child(e, 0), NULL, depth + 1);
		struct _kbx_vtype r = { 0 };
		int ok = type[0] == 't' ? o.container == RS_OPTION || o.container == RS_RESULT
					: o.container == RS_VEC || o.container == RS_MAP;
		r.name = ok ? o.elem : NULL;
		return r;
	}
	if (!strcmp(type, "type_cast_expression"))
		return declared_type(w, _kbx_field(e, "type"), depth + 1);
	if (!strcmp(type, "string_literal") || !strcmp(type, "raw_string_literal") ||
	    !strcmp(type, "char_literal") || !strcmp(type, "boolean_literal")) {
		struct _kbx_vtype r = { 0 };
		r.name = type[0] == 'c' ? "char" : type[0] == 'b' ? "bool" : "str";
		return r;
	}
	if (!strcmp(type, "macro_invocation")) {
		/* vec![..] and format!(..) of the standard library */
		const char *m = _kbx_field_text(w, e, "macro");
		struct _kbx_vtype r = { 0 };
		if (m && !strcmp(m, "vec")) {
			r.name = "Vec";
			r.container = RS_VEC;
		} else if (m && !strcmp(m, "format")) {
			r.name = "String";
		}
		return r;
	}
	if (strcmp(type, "call_expression"))
		return none;
	TSNode fn = _kbx_field(e, "function");
	if (_kbx_is(fn, "generic_function"))
		fn = _kbx_field(fn, "function");
	if (_kbx_is(fn, "identifier")) {
		/* f(): a function of this file, not a closure held in a local */
		const char *name = _kbx_node_text(w, fn);
		if (_kbx_names_find(&st->vars, name, ts_node_start_byte(fn)))
			return none;
		const struct _kbx_vtype *r = result_of(st, "", name);
		return r ? *r : none;
	}
	if (_kbx_is(fn, "scoped_identifier")) {
		/* T::f(): its declared result in this file, or a constructor
		 * of the standard library; T::new() of a type declared in
		 * another file is not known to be a T (it may be a Result,
		 * an Rc<T>, or anything) */
		const char *owner = path_type(w, _kbx_field(fn, "path"));
		const char *name = _kbx_field_text(w, fn, "name");
		if (!owner || !name)
			return none;
		const struct _kbx_vtype *r = result_of(st, owner, name);
		struct _kbx_vtype made = { 0 };
		if (r)
			return *r;
		if (!strcmp(name, "new") &&
		    (!strcmp(owner, "Box") || !strcmp(owner, "Rc") || !strcmp(owner, "Arc"))) {
			/* Box::new(v) points to v */
			TSNode args = _kbx_field(e, "arguments");
			made.name = owner;
			made.container = RS_POINTER;
			made.elem = ts_node_is_null(args) ? NULL :
				value_type(w, ts_node_named_child(args, 0), NULL, depth + 1).name;
			return made;
		}
		made.name = std_constructor(owner, name) ? owner : NULL;
		if (made.name && (!strcmp(owner, "Vec") || !strcmp(owner, "VecDeque")))
			made.container = RS_VEC;
		return made;
	}
	if (!_kbx_is(fn, "field_expression"))
		return none;
	/* x.m(): clone() is of x's type, unwrap() and expect() give what an
	 * Option or a Result holds, and a method of a type of this file its
	 * declared result */
	const char *m = _kbx_field_text(w, fn, "field");
	struct _kbx_vtype o = value_type(w, _kbx_field(fn, "value"), NULL, depth + 1);
	if (!m)
		return none;
	if (!strcmp(m, "clone"))
		return o;
	if ((!strcmp(m, "unwrap") || !strcmp(m, "expect")) &&
	    (o.container == RS_OPTION || o.container == RS_RESULT)) {
		struct _kbx_vtype r = { 0 };
		r.name = o.elem;
		return r;
	}
	const struct _kbx_vtype *r = result_of(st, method_owner(&o, m), m);
	return r ? *r : none;
}

/* The struct, tuple struct or enum variant a pattern's path names, as
 * the owner of its fields in this file: "Point", "Ast.Class" (for
 * Ast::Class and, in an impl of Ast, Self::Class); NULL when it is none
 * of this file's or a bare variant name (use Ast::*). */
static const char *pattern_owner(struct kbx_walk *w, TSNode path)
{
	const struct rust_state *st = w->lang_state;
	const char *p = _kbx_compact_text(w, path, COMPACT);
	if (!p)
		return NULL;
	if (!strncmp(p, "Self.", 5)) {
		const struct _kbx_scoped_name *self =
			_kbx_names_find(&st->tparams, "Self", ts_node_start_byte(path));
		return self && self->type.name ? _kbx_join(w, self->type.name, "", p + 4) : NULL;
	}
	return p;
}

/* The position i of a tuple struct or variant, as a field name. */
static const char *position_name(struct kbx_walk *w, uint32_t i)
{
	char buf[16];
	snprintf(buf, sizeof(buf), "%u", i);
	return _kbx_arena_strdup(&w->x->arena, buf);
}

/* Bind what a pattern binds, from byte from to byte to: a plain name
 * (`x`, `mut x`, `ref x`) with type; `Some(x)` of an Option and `Ok(x)`
 * of a Result with what they hold; the parts of a tuple struct, struct
 * or enum variant of this file (`Ast::Class(ref x)`, `Point { x, y: b
 * }`) with the types its declaration gives them; every other name with
 * no type.  A name in UpperCamelCase is a constant or a variant, not a
 * binding. */
static void bind_pattern(struct kbx_walk *w, TSNode pat, const struct _kbx_vtype *type,
			 uint32_t from, uint32_t to)
{
	struct rust_state *st = w->lang_state;
	struct { TSNode node; const struct _kbx_vtype *type; } stack[64];
	struct _kbx_vtype held = { 0 };
	size_t sp = 0;
	if (ts_node_is_null(pat))
		return;
	stack[sp].node = pat;
	stack[sp++].type = type;
	while (sp > 0) {
		TSNode p = stack[--sp].node;
		const struct _kbx_vtype *t = stack[sp].type;
		if (ts_node_is_null(p))
			continue;
		const char *k = ts_node_type(p);
		if (!strcmp(k, "mut_pattern") || !strcmp(k, "ref_pattern") ||
		    !strcmp(k, "reference_pattern")) {
			stack[sp].node = ts_node_named_child(p, ts_node_named_child_count(p) - 1);
			stack[sp++].type = t;
			continue;
		}
		if (!strcmp(k, "identifier")) {
			const char *name = _kbx_node_text(w, p);
			if (name && !(*name >= 'A' && *name <= 'Z'))
				_kbx_names_push(&st->vars, name, t, from, to, 0);
			continue;
		}
		TSNode path = _kbx_field(p, "type");
		const char *owner = NULL, *v = NULL;
		if ((!strcmp(k, "tuple_struct_pattern") || !strcmp(k, "struct_pattern")) &&
		    !ts_node_is_null(path)) {
			v = _kbx_node_text(w, path);
			owner = pattern_owner(w, path);
		}
		if (!strcmp(k, "tuple_struct_pattern") && t && v &&
		    ((!strcmp(v, "Some") && t->container == RS_OPTION) ||
		     (!strcmp(v, "Ok") && t->container == RS_RESULT))) {
			/* Some(x): what the Option holds */
			held.name = t->elem;
			if (ts_node_named_child_count(p) == 2) {
				stack[sp].node = ts_node_named_child(p, 1);
				stack[sp++].type = &held;
			}
			continue;
		}
		if (!strcmp(k, "struct_pattern")) {
			/* Point { x, y: b, .. } */
			uint32_t count = ts_node_named_child_count(p);
			for (uint32_t i = 0; i < count && sp < 64; i++) {
				TSNode f = ts_node_named_child(p, i);
				const char *name = _kbx_field_text(w, f, "name");
				TSNode sub = _kbx_field(f, "pattern");
				if (!_kbx_is(f, "field_pattern") || !name)
					continue;
				const struct _kbx_vtype *ft = field_of(st, owner, name);
				if (ts_node_is_null(sub)) {
					_kbx_names_push(&st->vars, name, ft, from, to, 0);
					continue;
				}
				stack[sp].node = sub;
				stack[sp++].type = ft;
			}
			continue;
		}
		/* the parts of a tuple struct or variant by position, up to a
		 * `..`; of anything else with no type */
		uint32_t count = ts_node_child_count(p), pos = 0;
		int positional = !strcmp(k, "tuple_struct_pattern");
		for (uint32_t i = 0; i < count && sp < 64; i++) {
			TSNode c = ts_node_child(p, i);
			const char *ck = ts_node_type(c);
			if (ts_node_eq(c, path) || !strcmp(ck, "(") || !strcmp(ck, ")") ||
			    !strcmp(ck, ",") || !strcmp(ck, "field_identifier") ||
			    !strcmp(ck, "scoped_identifier"))
				continue;
			if (!strcmp(ck, "remaining_field_pattern") || !strcmp(ck, ".."))
				positional = 0;
			const struct _kbx_vtype *ct = positional ?
				field_of(st, owner, position_name(w, pos)) : NULL;
			pos++;
			if (ts_node_is_named(c)) {
				stack[sp].node = c;
				stack[sp++].type = ct;
			}
		}
	}
}

/* The parameters of a function or closure, visible over all of it; self
 * has the impl's type. */
static void bind_parameters(struct kbx_walk *w, TSNode n, const char *self_type)
{
	struct rust_state *st = w->lang_state;
	uint32_t from = ts_node_start_byte(n), to = ts_node_end_byte(n);
	TSNode params = _kbx_field(n, "parameters");
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (_kbx_is(p, "self_parameter")) {
			struct _kbx_vtype t = { 0 };
			t.name = self_type;
			_kbx_names_push(&st->vars, "self", &t, from, to, 0);
		} else if (_kbx_is(p, "parameter")) {
			TSNode pattern = _kbx_field(p, "pattern");
			struct _kbx_vtype t = declared_type(w, _kbx_field(p, "type"), 0);
			if (_kbx_is(pattern, "self"))
				t.name = self_type;   /* self: Box<Self> */
			bind_pattern(w, pattern, &t, from, to);
		} else if (!_kbx_is(p, "attribute_item")) {
			bind_pattern(w, p, NULL, from, to);  /* |x| */
		}
	}
}

/* The type parameters of a function, impl, trait or struct, over all of
 * it; an impl's or a trait's Self too (a trait's is no known type). */
static void bind_type_params(struct kbx_walk *w, TSNode n, int self, const char *self_type)
{
	struct rust_state *st = w->lang_state;
	uint32_t from = ts_node_start_byte(n), to = ts_node_end_byte(n);
	TSNode list = _kbx_field(n, "type_parameters");
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		if (_kbx_is(p, "type_parameter"))
			_kbx_names_push(&st->tparams, _kbx_field_text(w, p, "name"), NULL, from, to, 0);
		else if (_kbx_is(p, "type_identifier"))
			_kbx_names_push(&st->tparams, _kbx_node_text(w, p), NULL, from, to, 0);
	}
	if (!self)
		return;
	struct _kbx_vtype t = { 0 };
	/* impl<T> Trait for T: Self is a type parameter */
	if (self_type && !_kbx_names_find(&st->tparams, self_type, from))
		t.name = self_type;
	_kbx_names_push(&st->tparams, "Self", &t, from, to, 0);
}

/* The type an impl is for, by its simple name ("Config" for
 * `impl<'a> Display for Config<'a>`), or NULL. */
static const char *impl_type_name(struct kbx_walk *w, TSNode impl)
{
	TSNode t = type_name_node(_kbx_field(impl, "type"));
	return _kbx_is(t, "type_identifier") ? _kbx_node_text(w, t) : NULL;
}

/* The fields of a struct or enum variant called owner: named, or by
 * position ("0", "1") in a tuple struct or variant. */
static void predefine_fields(struct kbx_walk *w, const char *owner, TSNode list)
{
	struct rust_state *st = w->lang_state;
	int named = _kbx_is(list, "field_declaration_list");
	if (!owner || owner == _kbx_qual_too_long ||
	    (!named && !_kbx_is(list, "ordered_field_declaration_list")))
		return;
	uint32_t count = ts_node_named_child_count(list), pos = 0;
	for (uint32_t i = 0; i < count; i++) {
		TSNode f = ts_node_named_child(list, i);
		if (named && _kbx_is(f, "field_declaration"))
			add_member(&st->fields, &st->nfields, &st->afields, owner,
				   _kbx_field_text(w, f, "name"),
				   declared_type(w, _kbx_field(f, "type"), 0));
		else if (!named && !_kbx_is(f, "attribute_item") &&
			 !_kbx_is(f, "visibility_modifier"))
			add_member(&st->fields, &st->nfields, &st->afields, owner,
				   position_name(w, pos++), declared_type(w, f, 0));
	}
}

/* `#[derive(Default)]` before a struct or enum of this file: its
 * default() is declared to return Self. */
static void predefine_derived(struct kbx_walk *w, TSNode item, const char *owner)
{
	struct rust_state *st = w->lang_state;
	for (TSNode a = ts_node_prev_named_sibling(item); _kbx_is(a, "attribute_item");
	     a = ts_node_prev_named_sibling(a)) {
		const char *text = _kbx_node_text(w, a), *d;
		if (!text || !owner || !strstr(text, "derive"))
			continue;
		for (d = strstr(text, "Default"); d; d = strstr(d + 1, "Default")) {
			char before = d > text ? d[-1] : ' ', after = d[7];
			if ((before == '(' || before == ',' || before == ' ' || before == ':') &&
			    (after == ')' || after == ',' || after == ' ')) {
				struct _kbx_vtype t = { 0 };
				t.name = owner;
				add_member(&st->results, &st->nresults, &st->aresults, owner, "default", t);
				return;
			}
		}
	}
}

/* The fields of the structs, and the results of the functions and of
 * the methods of the impls, of a file or module body, before the walk:
 * a function may come before what it uses. */
static void predefine_evidence(struct kbx_walk *w, TSNode body)
{
	struct rust_state *st = w->lang_state;
	uint32_t n = ts_node_named_child_count(body);
	for (uint32_t i = 0; i < n; i++) {
		TSNode item = ts_node_named_child(body, i);
		size_t tparams = st->tparams.n;
		if (_kbx_is(item, "struct_item")) {
			bind_type_params(w, item, 0, NULL);
			predefine_fields(w, _kbx_field_text(w, item, "name"), _kbx_field(item, "body"));
			predefine_derived(w, item, _kbx_field_text(w, item, "name"));
		} else if (_kbx_is(item, "enum_item")) {
			/* the variants' fields: Ast::Class(Class) */
			const char *e = _kbx_field_text(w, item, "name");
			predefine_derived(w, item, e);
			TSNode list = _kbx_field(item, "body");
			uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
			bind_type_params(w, item, 0, NULL);
			for (uint32_t j = 0; j < count && e; j++) {
				TSNode v = ts_node_named_child(list, j);
				if (_kbx_is(v, "enum_variant"))
					predefine_fields(w, _kbx_join(w, e, ".",
								      _kbx_field_text(w, v, "name")),
							 _kbx_field(v, "body"));
			}
		} else if (_kbx_is(item, "function_item")) {
			TSNode ret = _kbx_field(item, "return_type");
			bind_type_params(w, item, 0, NULL);
			if (!ts_node_is_null(ret))
				add_member(&st->results, &st->nresults, &st->aresults, "",
					   _kbx_field_text(w, item, "name"), declared_type(w, ret, 0));
		} else if (_kbx_is(item, "mod_item") && ts_node_is_null(_kbx_field(item, "body"))) {
			const char *name = _kbx_field_text(w, item, "name");
			if (name && !_kbx_grow((void **)&st->mods, &st->amods, st->nmods,
					       sizeof(*st->mods), 8))
				st->mods[st->nmods++] = name;
		} else if (_kbx_is(item, "impl_item")) {
			const char *owner = impl_type_name(w, item);
			TSNode list = _kbx_field(item, "body");
			uint32_t count = owner && !ts_node_is_null(list) ?
				ts_node_named_child_count(list) : 0;
			bind_type_params(w, item, 1, owner);
			for (uint32_t j = 0; j < count; j++) {
				TSNode f = ts_node_named_child(list, j);
				TSNode ret = _kbx_field(f, "return_type");
				if (!_kbx_is(f, "function_item") || ts_node_is_null(ret))
					continue;
				size_t outer = st->tparams.n;
				bind_type_params(w, f, 0, NULL);
				add_member(&st->results, &st->nresults, &st->aresults, owner,
					   _kbx_field_text(w, f, "name"), declared_type(w, ret, 0));
				_kbx_names_truncate(&st->tparams, outer);
			}
		}
		_kbx_names_truncate(&st->tparams, tparams);
	}
}

/* What `for x in v` gives x: an element of a Vec, slice or array, as v,
 * &v or v.iter() (iter_mut, into_iter, drain; then cloned or copied)
 * iterate it. */
static struct _kbx_vtype element_type(struct kbx_walk *w, TSNode v)
{
	struct _kbx_vtype r = { 0 };
	if (_kbx_is(v, "call_expression") && _kbx_is(_kbx_field(v, "function"), "field_expression")) {
		TSNode fn = _kbx_field(v, "function");
		const char *m = _kbx_field_text(w, fn, "field");
		if (m && (!strcmp(m, "cloned") || !strcmp(m, "copied"))) {
			/* v.iter().cloned() */
			TSNode inner = _kbx_field(fn, "value");
			fn = _kbx_field(inner, "function");
			m = _kbx_is(inner, "call_expression") && _kbx_is(fn, "field_expression") ?
				_kbx_field_text(w, fn, "field") : NULL;
		}
		if (!m || (strcmp(m, "iter") && strcmp(m, "iter_mut") && strcmp(m, "into_iter") &&
			   strcmp(m, "drain")))
			return r;
		v = _kbx_field(fn, "value");
	}
	struct _kbx_vtype c = value_type(w, v, NULL, 0);
	if (c.container == RS_VEC)
		r.name = c.elem;
	return r;
}

/* The nodes whose end ends the scope of a name declared in them. */
static const char *const rust_blocks[] = {
	"block", "closure_expression", "for_expression", "function_item", "if_expression",
	"impl_item", "loop_expression", "match_arm", "match_expression", "mod_item",
	"source_file", "trait_item", "while_expression", NULL
};

/* Names, types and blocks as the walk enters node n. */
static void visit_scope(struct kbx_walk *w, TSNode n, const char *type)
{
	struct rust_state *st = w->lang_state;
	uint32_t pos = ts_node_start_byte(n), end = ts_node_end_byte(n);
	_kbx_names_leave(&st->vars, pos);
	_kbx_names_leave(&st->tparams, pos);
	_kbx_names_leave(&st->scrutinees, pos);
	_kbx_blocks_visit(&st->blocks, n, type, rust_blocks);
	if (!strcmp(type, "let_declaration")) {
		TSNode t = _kbx_field(n, "type");
		struct _kbx_vtype vt = ts_node_is_null(t) ?
			value_type(w, _kbx_field(n, "value"), NULL, 0) : declared_type(w, t, 0);
		bind_pattern(w, _kbx_field(n, "pattern"), &vt, end, _kbx_blocks_end(&st->blocks));
	} else if (!strcmp(type, "let_condition")) {
		/* if let, while let: over the rest of the if or while */
		struct _kbx_vtype vt = value_type(w, _kbx_field(n, "value"), NULL, 0);
		bind_pattern(w, _kbx_field(n, "pattern"), &vt, end, _kbx_blocks_end(&st->blocks));
	} else if (!strcmp(type, "match_expression")) {
		struct _kbx_vtype vt = value_type(w, _kbx_field(n, "value"), NULL, 0);
		_kbx_names_push(&st->scrutinees, "match", &vt, pos, end, 0);
	} else if (!strcmp(type, "match_arm")) {
		TSNode pat = _kbx_field(n, "pattern");
		const struct _kbx_scoped_name *m = _kbx_names_find(&st->scrutinees, "match", pos);
		if (_kbx_is(pat, "match_pattern") && ts_node_named_child_count(pat))
			pat = ts_node_named_child(pat, 0);
		bind_pattern(w, pat, m ? &m->type : NULL, ts_node_end_byte(pat), end);
	} else if (!strcmp(type, "for_expression")) {
		struct _kbx_vtype vt = element_type(w, _kbx_field(n, "value"));
		TSNode body = _kbx_field(n, "body");
		bind_pattern(w, _kbx_field(n, "pattern"), &vt,
			     ts_node_is_null(body) ? end : ts_node_start_byte(body), end);
	} else if (!strcmp(type, "closure_expression")) {
		bind_parameters(w, n, NULL);
	} else if (!strcmp(type, "impl_item")) {
		bind_type_params(w, n, 1, impl_type_name(w, n));
	} else if (!strcmp(type, "trait_item")) {
		bind_type_params(w, n, 1, NULL);
	} else if (!strcmp(type, "function_item")) {
		const struct _kbx_scoped_name *self = _kbx_names_find(&st->tparams, "Self", pos);
		bind_type_params(w, n, 0, NULL);
		bind_parameters(w, n, self ? self->type.name : NULL);
	}
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
	*name = impl_type_name(w, impl);
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
	TSNode list = _kbx_walk_up(w, n);
	TSNode impl = _kbx_is(list, "declaration_list") ? _kbx_walk_up(w, list) : list;
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
	const struct rust_state *st = w->lang_state;
	TSNode fn = _kbx_field(n, "function");
	if (_kbx_is(fn, "generic_function"))
		fn = _kbx_field(fn, "function");  /* f::<T>() */
	if (_kbx_is(fn, "identifier")) {
		/* f() with f a parameter or a local (a closure): a value */
		const char *name = _kbx_node_text(w, fn);
		int value = st && _kbx_names_find(&st->vars, name, ts_node_start_byte(fn));
		_kbx_walk_call(w, n, name, value ? KBX_RECV_VALUE : KBX_RECV_NONE, NULL);
	} else if (_kbx_is(fn, "field_expression")) {
		TSNode value = _kbx_field(fn, "value");
		const char *name = _kbx_field_text(w, fn, "field");
		if (!name || ts_node_is_null(value))
			return;
		if (_kbx_is(value, "self")) {
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
			return;
		}
		/* the receiver's type where the source states it; "?" for a
		 * local whose type it does not */
		int local = 0;
		struct _kbx_vtype t = { 0 };
		if (st)
			t = value_type(w, value, &local, 0);
		/* what a call, an index, a ? or a macro gives is a value too */
		if (_kbx_is(value, "call_expression") || _kbx_is(value, "index_expression") ||
		    _kbx_is(value, "try_expression") || _kbx_is(value, "macro_invocation"))
			local = 1;
		const char *type = method_owner(&t, name);
		_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, _kbx_compact_text(w, value, COMPACT),
				     type ? type : local ? "?" : NULL);
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
		if (!strcmp(p, "Self")) {
			_kbx_walk_call(w, n, name, KBX_RECV_SELF, NULL);
		} else if (!strcmp(p, "self")) {
			_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
		} else {
			/* Type::f(): a function of that type (T::f() with T a
			 * type parameter is no type kbx can name) */
			const char *type = st ? path_type(w, path) : NULL;
			if (!type && st && _kbx_names_find(&st->tparams, p, ts_node_start_byte(path)))
				type = "?";
			_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, p, type);
		}
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

static void rust_import_candidates(const char *importer, const struct kbx_ximport *imp,
				   struct kbx_pathlist *out);

/*
 * Does `use m::name` name a definition of this very file (`use
 * super::{Literal, Literals}` in an inline `mod tests`, or `use
 * crate::utf8::Utf8Range` in src/utf8.rs)?  A file never imports itself,
 * so such an import would stand for a module from outside the
 * repository, and Literal::empty() for a function of that module; left
 * out, the name is found in the file like any other of its names.  A
 * module the file declares (`mod x;`, then `use self::x`) is another
 * file.
 */
static int imports_own_file(struct kbx_walk *w, const char *module, const char *name)
{
	const struct rust_state *st = w->lang_state;
	if (!st || !name)
		return 0;
	for (size_t i = 0; i < st->nmods; i++)
		if (!strcmp(st->mods[i], name))
			return 0;
	struct kbx_ximport imp = { module, name, NULL, 0, 0, 0 };
	struct kbx_pathlist l = { 0 };
	int own = 0;
	rust_import_candidates(w->path, &imp, &l);
	for (size_t i = 0; i < l.n && !own; i++)
		own = !strcmp(l.paths[i], w->path);
	_kbx_pathlist_release(&l);
	return own;
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
		if (module && !(!flags && imports_own_file(w, module, name)))
			_kbx_x_import(w->x, module, name, alias, 0, flags, line);
	}
}

/* The standard library's macros whose arguments are expressions (a
 * format string among them): assert_eq!(a.len(), 2), vec![f(x); n]. */
static int expression_macro(const char *name)
{
	static const char *const names[] = {
		"assert", "assert_eq", "assert_ne", "dbg", "debug_assert", "debug_assert_eq",
		"debug_assert_ne", "eprint", "eprintln", "format", "format_args", "panic", "print",
		"println", "todo", "unimplemented", "unreachable", "vec", "write", "writeln", NULL
	};
	const char *last = name ? strrchr(name, ':') : NULL;
	last = last ? last + 1 : name;
	for (size_t i = 0; last && names[i]; i++)
		if (!strcmp(last, names[i]))
			return 1;
	return 0;
}

static void visit_macro(struct kbx_walk *w, TSNode n, int depth);

/* The calls of a parse of macro arguments, and the names they bind;
 * items in them are not this file's definitions. */
static void visit_macro_nodes(struct kbx_walk *w, TSNode n, int depth)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		const char *type = ts_node_type(c);
		if (!strcmp(type, "macro_invocation")) {
			visit_macro(w, c, depth + 1);
			continue;
		}
		if (strstr(type, "_item") || !strcmp(type, "use_declaration") ||
		    !strcmp(type, "macro_definition"))
			continue;
		visit_scope(w, c, type);
		if (!strcmp(type, "call_expression"))
			visit_call(w, c);
		else if (!strcmp(type, "struct_expression"))
			visit_struct_expression(w, c);
		visit_macro_nodes(w, c, depth);
	}
}

/* The arguments of assert_eq!(..), vec![..] and the like, parsed as
 * Rust over their own bytes of the file (a tuple, an array, a block):
 * the nodes have the file's positions. */
static void visit_macro(struct kbx_walk *w, TSNode n, int depth)
{
	struct rust_state *st = w->lang_state;
	TSNode args = _kbx_child_of_type(n, "token_tree");
	if (!st || depth > 8 || ts_node_is_null(args) ||
	    !expression_macro(_kbx_field_text(w, n, "macro")))
		return;
	if (!st->macro_parser) {
		st->macro_parser = ts_parser_new();
		if (!st->macro_parser)
			return;
		ts_parser_set_language(st->macro_parser, kbx_tree_sitter_rust());
	}
	TSRange r = { ts_node_start_point(args), ts_node_end_point(args),
		      ts_node_start_byte(args), ts_node_end_byte(args) };
	if (!ts_parser_set_included_ranges(st->macro_parser, &r, 1))
		return;
	TSTree *tree = ts_parser_parse_string(st->macro_parser, NULL, w->src, (uint32_t)w->len);
	if (!tree)
		return;
	visit_macro_nodes(w, ts_tree_root_node(tree), depth);
	ts_tree_delete(tree);
}

static int rust_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	if (w->lang_state)
		visit_scope(w, n, type);
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
			TSNode list = _kbx_walk_up(w, n);
			if (_kbx_is(list, "declaration_list") &&
			    _kbx_is(_kbx_walk_up(w, list), "trait_item"))
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
			if (w->lang_state)
				predefine_evidence(w, body);
		} else if (!strcmp(type, "macro_invocation")) {
			visit_macro(w, n, 0);
			return KBX_WALK_SKIP;
		} else if (!strcmp(type, "macro_definition")) {
			return KBX_WALK_SKIP;
		}
		break;
	case 's':
		if (!strcmp(type, "struct_item"))
			visit_type(w, n, KBX_KIND_STRUCT);
		else if (!strcmp(type, "source_file")) {
			predefine_types(w, n);
			if (w->lang_state)
				predefine_evidence(w, n);
		}
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
	struct rust_state *st = calloc(1, sizeof(*st));
	if (st) {
		_kbx_names_init(&st->vars);
		_kbx_names_init(&st->tparams);
		_kbx_names_init(&st->scrutinees);
	}
	w->lang_state = st;
}

static void rust_end(struct kbx_walk *w)
{
	struct rust_state *st = w->lang_state;
	if (st) {
		_kbx_predef_release(&st->types);
		_kbx_names_release(&st->vars);
		_kbx_names_release(&st->tparams);
		_kbx_names_release(&st->scrutinees);
		_kbx_blocks_release(&st->blocks);
		free(st->fields);
		free(st->results);
		free(st->mods);
		if (st->macro_parser)
			ts_parser_delete(st->macro_parser);
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
	.grammar = kbx_tree_sitter_rust,
	.visit = rust_visit,
	.begin = rust_begin,
	.end = rust_end,
	.import_candidates = rust_import_candidates,
	.implicit_self = 0,
	.nested_defs = 1,
	.scope_sep = "::",
	.visibility = _kbx_rust_visibility,
};
