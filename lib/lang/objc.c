/*
 * Objective-C: classes (@interface), protocols, categories, methods named
 * by their selectors, and all of C (functions, structs, enums, macros,
 * calls and #include, through the C extractor), from tree-sitter-objc,
 * whose grammar is C's with Objective-C added.
 *
 * A class is defined where its @interface is (with its superclass and
 * the protocols it adopts as bases); a class extension `@interface Foo ()`
 * and a category `@interface Foo (Cat)` define no class.  Methods are
 * defined where they have a body, in an @implementation (of the class or
 * of a category), named Class.selector: `- (void)add:(Item *)i count:(int)n`
 * is Cart.add:count:.  When this file's @interface defines the class, its
 * methods are members of it; otherwise (the @interface is in a header) they
 * are qualified by the class's name alone, as C++ writes a method out of
 * line, and the resolver finds them as members of the class the header
 * defines.  The methods a protocol declares are its methods (they have no
 * body anywhere).
 *
 * A message send [obj sel:x with:y] is a call of the selector sel:with:.
 * self and super are the receivers they are; the receiver's type is what
 * the source states: a parameter, local or instance variable declared
 * with a class type (Cart *c), a property of the class read through
 * self.prop, [[Foo alloc] ...], [Foo new] and a cast, [(Foo *)x ...].  A
 * receiver declared `id` is of no known type, and a capitalised name
 * bound to nothing is the class of that name (a class method).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "c-common.h"
#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_objc)
extern const struct kbx_lang _kbx_lang_c;

/* A field of a class of this file: an instance variable or property. */
struct oc_field {
	int cls;
	const char *name, *type;
};

struct oc_state {
	struct oc_field *fields;
	size_t nfields, afields;
};

static void oc_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct oc_state));
}

static void oc_end(struct kbx_walk *w)
{
	struct oc_state *st = w->lang_state;
	if (st)
		free(st->fields);
	free(st);
	w->lang_state = NULL;
}

/* A written type as recv_type wants it: the class of `Cart *`, NULL for
 * id, instancetype, a built-in or anything else. */
static const char *class_type(struct kbx_walk *w, TSNode t)
{
	if (_kbx_is(t, "type_name"))
		t = _kbx_child_of_type(t, "type_identifier");
	if (!_kbx_is(t, "type_identifier"))
		return NULL;
	const char *s = _kbx_node_text(w, t);
	if (!s || !strcmp(s, "instancetype") || !strcmp(s, "id"))
		return NULL;
	return s;
}

/* The selector of a method definition or declaration: "total",
 * "add:count:", "a::" for `- (void)a:(int)x :(int)y`. */
static const char *method_selector(struct kbx_walk *w, TSNode m)
{
	char buf[480];
	size_t n = 0;
	uint32_t count = ts_node_named_child_count(m);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(m, i);
		const char *part = NULL;
		size_t len = 1;
		if (_kbx_is(c, "identifier")) {
			part = _kbx_node_text(w, c);
			len = part ? strlen(part) : 0;
		} else if (_kbx_is(c, "method_parameter")) {
			part = ":";
		} else {
			continue;
		}
		if (!part || n + len >= sizeof(buf))
			return NULL;
		memcpy(buf + n, part, len);
		n += len;
	}
	return n ? _kbx_arena_strndup(&w->x->arena, buf, n) : NULL;
}

/* The selector a message sends: its method parts, each with the ':'
 * written after it. */
static const char *message_selector(struct kbx_walk *w, TSNode msg)
{
	char buf[480];
	size_t n = 0;
	int ok = 1;
	TSTreeCursor c = ts_tree_cursor_new(msg);
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			TSNode k = ts_tree_cursor_current_node(&c);
			const char *f = ts_tree_cursor_current_field_name(&c);
			const char *part = NULL;
			if (f && !strcmp(f, "method"))
				part = _kbx_node_text(w, k);
			else if (!ts_node_is_named(k) && !strcmp(ts_node_type(k), ":"))
				part = ":";
			if (!part)
				continue;
			size_t len = strlen(part);
			if (n + len >= sizeof(buf)) {
				ok = 0;
				break;
			}
			memcpy(buf + n, part, len);
			n += len;
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return ok && n ? _kbx_arena_strndup(&w->x->arena, buf, n) : NULL;
}

/* ---- fields ---- */

/* The name a struct_declaration declares (through pointers), and its
 * class type. */
static void add_field(struct kbx_walk *w, int cls, TSNode decl)
{
	struct oc_state *st = w->lang_state;
	TSNode d = _kbx_child_of_type(decl, "struct_declarator");
	if (!st || ts_node_is_null(d))
		return;
	for (int guard = 0; guard < 16 && !ts_node_is_null(d) && !_kbx_is(d, "identifier");
	     guard++)
		d = _kbx_is(d, "struct_declarator") ? ts_node_named_child(d, 0)
						    : _kbx_field(d, "declarator");
	const char *name = _kbx_node_text(w, d);
	if (!name || _kbx_grow((void **)&st->fields, &st->afields, st->nfields,
			       sizeof(*st->fields), 16))
		return;
	/* the last type named: `IBOutlet PRCurvesView *view` is a
	 * PRCurvesView (IBOutlet, a macro, reads as a type too) */
	TSNode type = { 0 };
	uint32_t count = ts_node_named_child_count(decl);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(decl, i);
		if (_kbx_is(c, "type_identifier"))
			type = c;
	}
	st->fields[st->nfields].cls = cls;
	st->fields[st->nfields].name = name;
	st->fields[st->nfields].type = class_type(w, type);
	/* and for the @implementation of another file (Foo.m of Foo.h) */
	_kbx_x_field(w->x, cls, name, st->fields[st->nfields].type, _kbx_node_line(decl));
	st->nfields++;
}

/* The instance variables and properties an @interface declares. */
static void collect_fields(struct kbx_walk *w, int cls, TSNode n)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "property_declaration")) {
			TSNode d = _kbx_child_of_type(c, "struct_declaration");
			if (!ts_node_is_null(d))
				add_field(w, cls, d);
		} else if (_kbx_is(c, "instance_variables")) {
			uint32_t nv = ts_node_named_child_count(c);
			for (uint32_t k = 0; k < nv; k++) {
				TSNode v = ts_node_named_child(c, k);
				TSNode d = _kbx_child_of_type(v, "struct_declaration");
				if (!ts_node_is_null(d))
					add_field(w, cls, d);
			}
		}
	}
}

/* ---- definitions ---- */

/* The protocols in a list (<P, Q>) as bases of sym. */
static void add_protocols(struct kbx_walk *w, int sym, TSNode list)
{
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		if (_kbx_is(p, "type_name"))
			p = _kbx_child_of_type(p, "type_identifier");
		if (_kbx_is(p, "identifier") || _kbx_is(p, "type_identifier"))
			_kbx_x_inherit(w->x, sym, _kbx_node_text(w, p), _kbx_node_line(p));
	}
}

/* The class's name: the first identifier child. */
static const char *class_name(struct kbx_walk *w, TSNode n)
{
	return _kbx_node_text(w, _kbx_child_of_type(n, "identifier"));
}

/* The class this file's @interface defined as name, or -1. */
static int class_of_file(struct kbx_walk *w, const char *name)
{
	for (size_t i = 0; i < w->x->nsyms; i++) {
		const struct kbx_xsym *s = &w->x->syms[i];
		if (s->kind == KBX_KIND_CLASS && s->parent < 0 && !strcmp(s->qual, name))
			return (int)i;
	}
	return -1;
}

/* @interface Foo : Base <P, Q>: a class (not a category or an extension,
 * which are written with parentheses). */
static void visit_interface(struct kbx_walk *w, TSNode n)
{
	const char *name = class_name(w, n);
	if (!name || !ts_node_is_null(_kbx_field(n, "category")) || _kbx_has_token(n, "("))
		return;
	int sym = _kbx_walk_define(w, n, KBX_KIND_CLASS, name, 0);
	if (sym < 0)
		return;
	TSNode super = _kbx_field(n, "superclass");
	if (!ts_node_is_null(super))
		_kbx_x_inherit(w->x, sym, _kbx_node_text(w, super), _kbx_node_line(super));
	add_protocols(w, sym, _kbx_child_of_type(n, "parameterized_arguments"));
	add_protocols(w, sym, _kbx_child_of_type(n, "protocol_reference_list"));
	collect_fields(w, sym, n);
}

/* @protocol P <Q>: an interface, whose declared methods are its own. */
static void visit_protocol(struct kbx_walk *w, TSNode n)
{
	int sym = _kbx_walk_define(w, n, KBX_KIND_INTERFACE, class_name(w, n), 1);
	if (sym >= 0)
		add_protocols(w, sym, _kbx_child_of_type(n, "protocol_reference_list"));
}

/* @implementation Foo, @implementation Foo (Cat): the scope of the class
 * when this file defines it, with its fields bound. */
static void visit_implementation(struct kbx_walk *w, TSNode n)
{
	struct oc_state *st = w->lang_state;
	const char *name = class_name(w, n);
	int cls = name ? class_of_file(w, name) : -1;
	if (cls < 0)
		return;
	_kbx_walk_scope(w, cls);
	for (size_t i = 0; st && i < st->nfields; i++)
		if (st->fields[i].cls == cls)
			_kbx_walk_bind_field(w, st->fields[i].name, st->fields[i].type);
}

/* The parameters of a method: `(Item *)item` binds item to Item. */
static void bind_method_params(struct kbx_walk *w, TSNode m)
{
	uint32_t count = ts_node_named_child_count(m);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(m, i);
		if (!_kbx_is(p, "method_parameter"))
			continue;
		TSNode mt = _kbx_child_of_type(p, "method_type");
		const char *name = _kbx_node_text(w, _kbx_child_of_type(p, "identifier"));
		if (name)
			_kbx_walk_bind(w, name, ts_node_is_null(mt) ? NULL :
				       class_type(w, _kbx_child_of_type(mt, "type_name")));
	}
}

/* The @implementation (of a class or a category) a method is in. */
static TSNode implementation_of(struct kbx_walk *w, TSNode m)
{
	TSNode up = _kbx_walk_up(w, m);
	if (_kbx_is(up, "implementation_definition"))
		up = _kbx_walk_up(w, up);
	return _kbx_is(up, "class_implementation") ? up : (TSNode){ 0 };
}

/* A method with a body: Class.selector. */
static void visit_method(struct kbx_walk *w, TSNode n)
{
	const char *sel = method_selector(w, n);
	TSNode impl = implementation_of(w, n);
	const char *cls = ts_node_is_null(impl) ? NULL : class_name(w, impl);
	if (!sel || !cls)
		return;
	int sym;
	int parent = _kbx_walk_class(w);
	if (parent >= 0 && !strcmp(w->x->syms[parent].qual, cls)) {
		sym = _kbx_walk_define(w, n, KBX_KIND_METHOD, sel, 1);
	} else {
		/* the class's @interface is in another file */
		const char *qual = _kbx_join(w, cls, ".", sel);
		if (!qual || qual == _kbx_qual_too_long)
			return;
		sym = _kbx_x_sym_at(w->x, KBX_KIND_METHOD, sel, qual, -1, n);
		if (sym >= 0)
			_kbx_walk_scope(w, sym);
	}
	if (sym >= 0)
		bind_method_params(w, n);
}

/* A method a protocol declares. */
static void visit_method_declaration(struct kbx_walk *w, TSNode n)
{
	int cls = _kbx_walk_class(w);
	if (cls >= 0 && w->x->syms[cls].kind == KBX_KIND_INTERFACE)
		_kbx_walk_define(w, n, KBX_KIND_METHOD, method_selector(w, n), 0);
}

/* ---- calls ---- */

/* [Foo alloc], [Foo new]: Foo. */
static const char *allocated_type(struct kbx_walk *w, TSNode msg)
{
	TSNode r = _kbx_field(msg, "receiver");
	const char *sel = message_selector(w, msg);
	if (!_kbx_is(r, "identifier") || !sel || (strcmp(sel, "alloc") && strcmp(sel, "new")))
		return NULL;
	const char *name = _kbx_node_text(w, r);
	const char *type;
	if (!name || !isupper((unsigned char)name[0]) || _kbx_walk_bound(w, name, 0, &type))
		return NULL;
	return name;
}

static void visit_message(struct kbx_walk *w, TSNode n)
{
	const char *sel = message_selector(w, n);
	TSNode r = _kbx_field(n, "receiver");
	if (!sel || ts_node_is_null(r))
		return;
	if (_kbx_is(r, "identifier")) {
		const char *name = _kbx_node_text(w, r);
		if (!name)
			return;
		if (!strcmp(name, "self"))
			_kbx_walk_call(w, n, sel, KBX_RECV_SELF, NULL);
		else if (!strcmp(name, "super"))
			_kbx_walk_call(w, n, sel, KBX_RECV_SUPER, NULL);
		else
			_kbx_walk_call(w, n, sel, KBX_RECV_EXPR, name);
		return;
	}
	const char *text = _kbx_compact_text(w, r, KBX_COMPACT_ARROW);
	if (!text)
		return;
	const char *type = NULL;
	const char *object = _kbx_is(r, "field_expression") ?
		_kbx_field_text(w, r, "argument") : NULL;
	if (object && !strcmp(object, "self")) {
		const char *field = _kbx_field_text(w, r, "field");
		if (field && !_kbx_walk_bound(w, field, 1, &type))
			type = NULL;
	} else if (_kbx_is(r, "message_expression")) {
		type = allocated_type(w, r);
	} else if (_kbx_is(r, "cast_expression")) {
		/* [(Foo *)x sel]: the class the cast states */
		type = class_type(w, _kbx_field(_kbx_field(r, "type"), "type"));
	}
	_kbx_walk_call_typed(w, n, sel, KBX_RECV_EXPR, text, type);
}

/* ---- the walk ---- */

static int oc_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "class_interface")) {
			visit_interface(w, n);
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "class_implementation")) {
			visit_implementation(w, n);
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "class_declaration"))
			return KBX_WALK_SKIP;   /* @class Foo; */
		break;
	case 'm':
		if (!strcmp(type, "message_expression")) {
			visit_message(w, n);
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "method_definition")) {
			visit_method(w, n);
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "method_declaration")) {
			visit_method_declaration(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 'p':
		if (!strcmp(type, "protocol_declaration")) {
			visit_protocol(w, n);
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "preproc_def") || !strcmp(type, "preproc_function_def")) {
			_kbx_c_visit_define(w, n, kbx_tree_sitter_objc());
			return KBX_WALK_SKIP;
		}
		break;
	}
	/* the rest is C */
	return _kbx_lang_c.visit(w, n, type);
}

/* ---- headers ---- */

/* Does a line (at p, before end) start, past blanks, with word followed
 * by a non-word byte? */
static int starts_with_word(const char *p, const char *end, const char *word)
{
	size_t len = strlen(word);
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return (size_t)(end - p) >= len && !memcmp(p, word, len) &&
	       ((size_t)(end - p) == len || !_kbx_word_char((unsigned char)p[len]));
}

int _kbx_objc_looks_objc(const char *s, size_t len)
{
	static const char *const marks[] = {
		"@interface", "@protocol", "@implementation", "@end", "#import", NULL
	};
	if (len > 256 * 1024)
		len = 256 * 1024;
	const char *p = s, *end = s + len;
	int in_comment = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (!in_comment)
			for (size_t m = 0; marks[m]; m++)
				if (starts_with_word(p, eol, marks[m]))
					return 1;
		/* a block comment that stays open past this line */
		for (const char *q = p; q + 1 < eol; q++) {
			if (!in_comment && q[0] == '/' && q[1] == '/')
				break;
			if (!in_comment && q[0] == '/' && q[1] == '*') {
				in_comment = 1;
				q++;
			} else if (in_comment && q[0] == '*' && q[1] == '/') {
				in_comment = 0;
				q++;
			}
		}
		p = eol + 1;
	}
	return 0;
}

static const char *const objc_extensions[] = { ".m", NULL };

const struct kbx_lang _kbx_lang_objc = {
	.name = "objc",
	.extensions = objc_extensions,
	.grammar = kbx_tree_sitter_objc,
	.visit = oc_visit,
	.begin = oc_begin,
	.end = oc_end,
	.import_candidates = _kbx_c_import_candidates,
	.no_type_calls = 1,
	.fields_elsewhere = 1,
	.late_binding = 1,
	.mask = _kbx_c_mask_macros,
	.scope_sep = ".",
	.visibility = _kbx_c_visibility,
};
