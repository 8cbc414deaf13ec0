/*
 * Python: classes, functions and methods, calls, imports and class bases
 * from tree-sitter-python.
 *
 * A method is a function whose innermost enclosing definition is a class;
 * a function inside a function is qualified by it ("outer.inner").
 * Lambdas are not definitions, so calls inside them belong to the
 * enclosing function.  `self.f()` and `cls.f()` are self calls, any
 * `super(...).f()` is a super call.
 */
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_python)

/* How Python writes a receiver or base on one line: string literals in
 * either quote as written, a backslash-newline as white space. */
#define COMPACT (KBX_COMPACT_SQUOTE | KBX_COMPACT_LINE_CONT)

/* ---- the types of names: the evidence for calls ----
 *
 * Python states few types, so a name gets one only where the source says
 * it: a parameter's or a variable's annotation, a constructor call C(...)
 * of a capitalised name or of a builtin class (dict(), str()) that is
 * not a function or a variable of this file, typing.cast(T, v), a literal, `except E as e`, or a copy of
 * another name that has one.  A function is one scope (blocks are not),
 * and a name assigned anywhere in it is local all through it, so a
 * scope's names are collected before its body is walked: a name has a
 * type when every binding of it in the scope gives that type (None
 * aside: a method call on None fails), and is otherwise bound without
 * one (a value that proves nothing about what it calls).  Defs, classes
 * and imports are not values: they are not bound, and calls through them
 * keep their rules.
 *
 * Instance attributes are kept apart, per class (fields): every
 * `self.x = v` in the class's methods, its annotated or assigned class
 * attributes, and properties with a return annotation.  They are not
 * bound in the walker, since a method's bare names never see its class's
 * attributes in Python.
 */

/* What a scope says of one name. */
struct py_name {
	const char *name;
	const char *type;    /* what every binding so far said, with PN_TYPED */
	unsigned flags;
};
#define PN_TYPED   0x01  /* some binding gave type */
#define PN_UNKNOWN 0x02  /* some binding gave no type, or another one */
#define PN_NOTVAL  0x04  /* a def, class, import, global or nonlocal here */
#define PN_FUNC    0x08  /* with PN_NOTVAL: a def */
#define PN_COPY    0x10  /* bound from another name (x = y) */
#define PN_CHECK   0x20  /* the type is a name that must be a class (C(), annotations) */
#define PN_PARAM   0x40
/* for fields only */
#define PF_SELF    0x100 /* assigned as self.x in a method */
#define PF_METHOD  0x200 /* a def of the class body */

/* x = y, resolved once the scope is collected */
struct py_copy {
	size_t dst;
	const char *src;
};

/* The names of one scope, with a hash index (a generated module may
 * assign thousands). */
struct py_table {
	struct py_name *v;
	size_t n, alloc;
	uint32_t *slot;      /* index + 1, 0 empty; nslot a power of two */
	size_t nslot;
	struct py_copy *copies;
	size_t ncopies, acopies;
};

struct py_field {
	const char *name;
	const char *type;
	unsigned flags;
};

/* A class's fields: fields[first .. first + n), by its sym index. */
struct py_class {
	size_t first, n;
	int overflow;        /* more fields than PY_MAX_FIELDS: none is known */
};

struct py_state {
	struct py_table module;   /* the module's names, for the whole walk */
	struct py_table scope;    /* a function's, while it is collected */
	struct py_table shared;   /* names declared global or nonlocal anywhere */
	struct py_field *fields;
	size_t nfields, afields;
	struct py_class *classes; /* by sym index */
	size_t nclasses;
};

/* Scopes are bound in the walker, which looks names up one by one: a
 * scope with more names than this binds only the first ones (the others
 * are resolved by name, as before types). */
#define PY_MAX_BOUND 4096
#define PY_MAX_FIELDS 1024

static void py_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct py_state));
}

static void table_release(struct py_table *t)
{
	free(t->v);
	free(t->slot);
	free(t->copies);
	memset(t, 0, sizeof(*t));
}

static void py_end(struct kbx_walk *w)
{
	struct py_state *st = w->lang_state;
	if (st) {
		table_release(&st->module);
		table_release(&st->scope);
		table_release(&st->shared);
		free(st->fields);
		free(st->classes);
		free(st);
	}
	w->lang_state = NULL;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Empty the table, clearing only the slots its names took (a big
 * function must not make every later one pay for its table). */
static void table_reset(struct py_table *t)
{
	for (size_t j = 0; j < t->n; j++) {
		size_t i = name_hash(t->v[j].name) & (t->nslot - 1);
		while (t->slot[i] != j + 1)
			i = (i + 1) & (t->nslot - 1);
		t->slot[i] = 0;
	}
	t->n = 0;
	t->ncopies = 0;
}

static struct py_name *table_find(const struct py_table *t, const char *name)
{
	if (!t->nslot || !name)
		return NULL;
	for (size_t i = name_hash(name) & (t->nslot - 1);; i = (i + 1) & (t->nslot - 1)) {
		uint32_t k = t->slot[i];
		if (!k)
			return NULL;
		if (!strcmp(t->v[k - 1].name, name))
			return &t->v[k - 1];
	}
}

/* The entry for name, added when new; NULL when out of memory. */
static struct py_name *table_get(struct py_table *t, const char *name)
{
	struct py_name *e = table_find(t, name);
	if (e)
		return e;
	if (t->n + 1 > t->nslot / 2) {
		size_t ns = t->nslot ? t->nslot * 2 : 64;
		uint32_t *slot = calloc(ns, sizeof(*slot));
		if (!slot)
			return NULL;
		for (size_t j = 0; j < t->n; j++) {
			size_t i = name_hash(t->v[j].name) & (ns - 1);
			while (slot[i])
				i = (i + 1) & (ns - 1);
			slot[i] = (uint32_t)j + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = ns;
	}
	if (_kbx_grow((void **)&t->v, &t->alloc, t->n, sizeof(*t->v), 32))
		return NULL;
	size_t i = name_hash(name) & (t->nslot - 1);
	while (t->slot[i])
		i = (i + 1) & (t->nslot - 1);
	t->slot[i] = (uint32_t)t->n + 1;
	e = &t->v[t->n++];
	*e = (struct py_name){ name, NULL, 0 };
	return e;
}

/* What a value says of the name it is bound to. */
struct py_value {
	const char *type;    /* NULL: nothing */
	const char *copy;    /* a name ("y", "self.y") whose type it has */
	int none;            /* None */
	unsigned flags;      /* PN_CHECK */
};

/* Merge one binding's type into what the others said. */
static void merge_type(const char **type, unsigned *flags, const char *t, unsigned tflags)
{
	if (!t) {
		*flags |= PN_UNKNOWN;
	} else if ((*flags & PN_TYPED) && strcmp(*type, t)) {
		*flags |= PN_UNKNOWN;
	} else {
		*type = t;
		*flags |= PN_TYPED | tflags;
	}
}

static void bind_name(struct py_table *t, const char *name, const struct py_value *v)
{
	if (!name || !*name)
		return;
	struct py_name *e = table_get(t, name);
	if (!e || v->none)
		return;
	if (v->copy) {
		if (_kbx_grow((void **)&t->copies, &t->acopies, t->ncopies, sizeof(*t->copies), 16)) {
			e->flags |= PN_UNKNOWN;
			return;
		}
		t->copies[t->ncopies++] = (struct py_copy){ (size_t)(e - t->v), v->copy };
		e->flags |= PN_COPY;
		return;
	}
	merge_type(&e->type, &e->flags, v->type, v->flags);
}

static void mark_name(struct py_table *t, const char *name, unsigned flags)
{
	struct py_name *e = name && *name ? table_get(t, name) : NULL;
	if (e)
		e->flags |= flags;
}

static const struct py_value py_unknown = { NULL, NULL, 0, 0 };

/* The classes Python's builtins module defines, sorted (C locale): a
 * name of these that the file does not bind is that class, so dict(),
 * str.join and object.__new__ are theirs, outside the repository. */
static const char *const py_builtin_types[] = {
	"ArithmeticError", "AssertionError", "AttributeError", "BaseException",
	"BaseExceptionGroup", "BlockingIOError", "BrokenPipeError", "BufferError",
	"BytesWarning", "ChildProcessError", "ConnectionAbortedError", "ConnectionError",
	"ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError",
	"EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup",
	"FileExistsError", "FileNotFoundError", "FloatingPointError", "FutureWarning",
	"GeneratorExit", "IOError", "ImportError", "ImportWarning", "IndentationError",
	"IndexError", "InterruptedError", "IsADirectoryError", "KeyError",
	"KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError",
	"NotADirectoryError", "NotImplementedError", "OSError", "OverflowError",
	"PendingDeprecationWarning", "PermissionError", "ProcessLookupError",
	"RecursionError", "ReferenceError", "ResourceWarning", "RuntimeError",
	"RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError",
	"SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "TypeError",
	"UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError",
	"UnicodeTranslateError", "UnicodeWarning", "UserWarning", "ValueError", "Warning",
	"ZeroDivisionError", "bool", "bytearray", "bytes", "classmethod", "complex", "dict",
	"enumerate", "filter", "float", "frozenset", "int", "list", "map", "memoryview",
	"object", "property", "range", "reversed", "set", "slice", "staticmethod", "str",
	"tuple", "type", "zip",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int builtin_type(const char *s)
{
	return s && bsearch(&s, py_builtin_types, sizeof(py_builtin_types) / sizeof(*py_builtin_types),
			    sizeof(*py_builtin_types), cmp_str) != NULL;
}

/* A capitalised name, as classes are written (Repo, HTTPServer, _Node),
 * not a CONSTANT_NAME. */
static int class_like(const char *s)
{
	while (*s == '_')
		s++;
	if (*s < 'A' || *s > 'Z')
		return 0;
	int lower = 0, underscore = 0;
	for (; *s; s++) {
		if (*s >= 'a' && *s <= 'z')
			lower = 1;
		else if (*s == '_')
			underscore = 1;
	}
	return lower || !underscore;
}

/* A dotted name: words between single dots. */
static int dotted_name(const char *s, size_t len)
{
	if (!len || s[0] == '.' || s[len - 1] == '.')
		return 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '.' ? s[i + 1] == '.' : !_kbx_word_char((unsigned char)s[i]))
			return 0;
	return 1;
}

static int slice_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && !memcmp(s, word, len);
}

/* The last dotted component of s[0..len). */
static const char *last_part(const char *s, size_t *len)
{
	size_t i = *len;
	while (i > 0 && s[i - 1] != '.')
		i--;
	*len -= i;
	return s + i;
}

/* The end of the first element of a top-level list separated by sep in
 * s[0..len): its length; len when there is no separator. */
static size_t top_level_part(const char *s, size_t len, char sep)
{
	int depth = 0;
	char quote = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (quote) {
			if (c == quote)
				quote = 0;
		} else if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '[' || c == '(') {
			depth++;
		} else if (c == ']' || c == ')') {
			depth--;
		} else if (c == sep && depth == 0) {
			return i;
		}
	}
	return len;
}

/* The one element of a top-level list that is not None, or NULL (several
 * or none); its length in *len. */
static const char *only_not_none(const char *s, size_t *len, char sep)
{
	const char *one = NULL;
	size_t onelen = 0, rest = *len;
	while (rest) {
		size_t k = top_level_part(s, rest, sep);
		size_t a = 0, b = k;
		while (a < b && s[a] == ' ')
			a++;
		while (b > a && s[b - 1] == ' ')
			b--;
		if (!slice_is(s + a, b - a, "None")) {
			if (one)
				return NULL;
			one = s + a;
			onelen = b - a;
		}
		if (k == rest)
			break;
		s += k + 1;
		rest -= k + 1;
	}
	*len = onelen;
	return one;
}

/*
 * The class an annotation written as s[0..len) names, as recv_type wants
 * it: "Repo", "mod.Repo", "Repo" for "Repo", Optional[Repo], Repo | None
 * and Union[Repo, None], "t.List" for t.List[Repo].  NULL for anything
 * else: several types, Any, object, a type computed or too deep.
 */
static const char *annotation_text_type(struct kbx_walk *w, const char *s, size_t len)
{
	for (int guard = 0; guard < 16 && s; guard++) {
		while (len && s[0] == ' ')
			s++, len--;
		while (len && s[len - 1] == ' ')
			len--;
		if (len >= 2 && (s[0] == '"' || s[0] == '\'') && s[len - 1] == s[0]) {
			s++;      /* a forward reference: "Repo" */
			len -= 2;
			continue;
		}
		if (top_level_part(s, len, '|') < len) {
			s = only_not_none(s, &len, '|');
			continue;
		}
		if (len && s[len - 1] == ']') {
			size_t lb = 0;
			while (lb < len && s[lb] != '[')
				lb++;
			if (lb == len || !dotted_name(s, lb))
				return NULL;
			size_t hl = lb;
			const char *head = last_part(s, &hl);
			const char *args = s + lb + 1;
			size_t alen = len - lb - 2;
			if (slice_is(head, hl, "Optional") || slice_is(head, hl, "Annotated") ||
			    slice_is(head, hl, "ClassVar") || slice_is(head, hl, "Final") ||
			    slice_is(head, hl, "Type") || slice_is(head, hl, "type")) {
				s = args;
				len = top_level_part(args, alen, ',');
				continue;
			}
			if (slice_is(head, hl, "Union")) {
				len = alen;
				s = only_not_none(args, &len, ',');
				continue;
			}
			len = lb;   /* a generic: List[Repo] is a List */
		}
		if (!dotted_name(s, len))
			return NULL;
		size_t ll = len;
		const char *last = last_part(s, &ll);
		if (slice_is(last, ll, "Any") || slice_is(last, ll, "object") ||
		    slice_is(last, ll, "None") || slice_is(last, ll, "NoReturn") ||
		    slice_is(last, ll, "Never") || slice_is(last, ll, "Self"))
			return NULL;
		return _kbx_arena_strndup(&w->x->arena, s, len);
	}
	return NULL;
}

static const char *annotation_type(struct kbx_walk *w, TSNode t)
{
	if (ts_node_is_null(t))
		return NULL;
	const char *s = _kbx_compact_text(w, t, COMPACT);
	size_t len = s ? strlen(s) : 0;
	/* a text cut short says nothing */
	return len && len < 200 ? annotation_text_type(w, s, len) : NULL;
}

/* ---- collecting a scope ---- */

/* What a scan collects into, and for which class self.x is looked up. */
struct py_scan {
	struct py_state *st;
	struct py_table *t;
	int cls;             /* the class of `self`, or -1 */
	/* while a class's fields are collected: where they start in
	 * st->fields, and the end of the function nested in a method being
	 * scanned (0: none), whose names are not the method's */
	size_t field_first;
	uint32_t nested_end;
};

typedef int (*py_scan_fn)(struct kbx_walk *w, struct py_scan *s, TSNode n, const char *type);

/* Call fn on every named node below root, in order, without recursion;
 * fn returns 1 to go into the node's children. */
static void scan_below(struct kbx_walk *w, TSNode root, py_scan_fn fn, struct py_scan *s)
{
	TSTreeCursor cur = ts_tree_cursor_new(root);
	uint32_t depth = 0;
	if (!ts_tree_cursor_goto_first_child(&cur))
		goto done;
	depth = 1;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		int down = ts_node_is_named(n) && fn(w, s, n, ts_node_type(n));
		if (down && ts_tree_cursor_goto_first_child(&cur)) {
			depth++;
			continue;
		}
		while (!ts_tree_cursor_goto_next_sibling(&cur))
			if (--depth == 0 || !ts_tree_cursor_goto_parent(&cur))
				goto done;
	}
done:
	ts_tree_cursor_delete(&cur);
}

/* The class whose instance `self` is: the innermost enclosing class, in
 * a method or in a function nested in one (a closure over self). */
static int self_class(const struct kbx_walk *w)
{
	for (size_t i = w->nscope; i-- > 0;)
		if (KBX_KIND_IS_TYPE(w->x->syms[w->scope_sym[i]].kind))
			return w->scope_sym[i];
	return -1;
}

static const struct py_field *field_of(const struct py_state *st, int cls, const char *name)
{
	if (cls < 0 || (size_t)cls >= st->nclasses || !name)
		return NULL;
	const struct py_class *c = &st->classes[cls];
	if (c->overflow)
		return NULL;
	for (size_t i = c->first; i < c->first + c->n; i++)
		if (!strcmp(st->fields[i].name, name))
			return &st->fields[i];
	return NULL;
}

static const char *field_type(const struct py_field *f)
{
	return f && (f->flags & (PN_TYPED | PN_UNKNOWN)) == PN_TYPED ? f->type : NULL;
}

/* Is name a value of the scope being collected or of the module (a
 * variable, a parameter, a def), so that calling it constructs nothing
 * kbx can name? */
static int value_name(struct kbx_walk *w, const struct py_scan *s, const char *name, size_t len,
		      int defs_too)
{
	char buf[256];
	const char *type;
	if (len >= sizeof(buf))
		return 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	if (!strcmp(buf, "self") || !strcmp(buf, "cls"))
		return 1;
	const struct py_table *ts[2] = { s->t, &s->st->module };
	for (int i = 0; i < 2; i++) {
		const struct py_name *e = table_find(ts[i], buf);
		if (e && (!(e->flags & PN_NOTVAL) || (defs_too && (e->flags & PN_FUNC))))
			return 1;
		if (e)
			return 0;   /* a class or an import */
	}
	/* a variable of an enclosing function */
	return _kbx_walk_bound(w, buf, 0, &type);
}

/* Is the type a binding got from a call or an annotation a class?  Not
 * when it names a value of this file (a variable, a TypeVar, a def: a
 * factory), or a dotted path through one (obj.Make()). */
static int check_type(struct kbx_walk *w, const struct py_scan *s, const char *type)
{
	const char *dot = strchr(type, '.');
	if (dot)
		return !value_name(w, s, type, (size_t)(dot - type), 0);
	return !value_name(w, s, type, strlen(type), 1);
}

/* typing.cast(T, v), t.cast("T", v), cast(T, v): not a method of a
 * variable, nor a function of this file called cast. */
static int is_cast(struct kbx_walk *w, const struct py_scan *s, const char *f)
{
	const char *dot = strchr(f, '.');
	if (dot)
		return !strcmp(dot, ".cast") && !value_name(w, s, f, (size_t)(dot - f), 0);
	return !strcmp(f, "cast") && !value_name(w, s, f, 4, 1);
}

/* What the value v says of the name bound to it. */
static struct py_value value_of(struct kbx_walk *w, struct py_scan *s, TSNode v)
{
	struct py_value r = { NULL, NULL, 0, 0 };
	for (int guard = 0; guard < 64; guard++) {
		if (_kbx_is(v, "parenthesized_expression"))
			v = ts_node_named_child(v, 0);
		else if (_kbx_is(v, "assignment"))
			v = _kbx_field(v, "right");   /* a = b = v */
		else
			break;
	}
	if (ts_node_is_null(v))
		return r;
	const char *type = ts_node_type(v);
	if (!strcmp(type, "none")) {
		r.none = 1;
	} else if (!strcmp(type, "identifier")) {
		r.copy = _kbx_node_text(w, v);
	} else if (!strcmp(type, "attribute")) {
		TSNode o = _kbx_field(v, "object");
		const char *on = _kbx_is(o, "identifier") ? _kbx_node_text(w, o) : NULL;
		if (on && !strcmp(on, "self") && s->cls >= 0)
			r.type = field_type(field_of(s->st, s->cls, _kbx_field_text(w, v, "attribute")));
	} else if (!strcmp(type, "call")) {
		TSNode fn = _kbx_field(v, "function");
		const char *f = _kbx_is(fn, "identifier") || _kbx_is(fn, "attribute") ?
			_kbx_compact_text(w, fn, COMPACT) : NULL;
		if (!f || !dotted_name(f, strlen(f)))
			return r;
		const char *last = strrchr(f, '.');
		last = last ? last + 1 : f;
		if (is_cast(w, s, f)) {
			TSNode args = _kbx_field(v, "arguments");
			r.type = annotation_type(w, ts_node_is_null(args) ? args :
						 ts_node_named_child(args, 0));
			r.flags = PN_CHECK;
		} else if (class_like(last) ||
			   (last == f && builtin_type(f) && strcmp(f, "type"))) {
			/* type(x) is x's class, not a new type */
			r.type = f;
			r.flags = PN_CHECK;
		}
	} else if (!strcmp(type, "string") || !strcmp(type, "concatenated_string")) {
		const char *t = _kbx_node_text(w, v);
		int bytes = 0;
		for (; t && *t && *t != '"' && *t != '\''; t++)
			if (*t == 'b' || *t == 'B')
				bytes = 1;
		r.type = bytes ? "bytes" : "str";
	} else if (!strcmp(type, "integer")) {
		r.type = "int";
	} else if (!strcmp(type, "float")) {
		r.type = "float";
	} else if (!strcmp(type, "true") || !strcmp(type, "false")) {
		r.type = "bool";
	} else if (!strcmp(type, "list") || !strcmp(type, "list_comprehension")) {
		r.type = "list";
	} else if (!strcmp(type, "dictionary") || !strcmp(type, "dictionary_comprehension")) {
		r.type = "dict";
	} else if (!strcmp(type, "set") || !strcmp(type, "set_comprehension")) {
		r.type = "set";
	} else if (!strcmp(type, "tuple")) {
		r.type = "tuple";
	}
	return r;
}

/* Bind every name an assignment target holds: the name itself gets v,
 * the names a pattern unpacks get nothing known. */
static int target_node(struct kbx_walk *w, struct py_scan *s, TSNode n, const char *type)
{
	if (!strcmp(type, "identifier")) {
		bind_name(s->t, _kbx_node_text(w, n), &py_unknown);
		return 0;
	}
	return !strcmp(type, "pattern_list") || !strcmp(type, "tuple_pattern") ||
		!strcmp(type, "list_pattern") || !strcmp(type, "tuple") || !strcmp(type, "list") ||
		!strcmp(type, "parenthesized_expression") || !strcmp(type, "list_splat_pattern") ||
		!strcmp(type, "list_splat") || !strcmp(type, "as_pattern_target");
}

static void bind_target(struct kbx_walk *w, struct py_scan *s, TSNode t, const struct py_value *v)
{
	if (ts_node_is_null(t))
		return;
	if (_kbx_is(t, "as_pattern_target") && ts_node_named_child_count(t) == 1)
		t = ts_node_named_child(t, 0);
	if (_kbx_is(t, "identifier"))
		bind_name(s->t, _kbx_node_text(w, t), v);
	else if (!target_node(w, s, t, ts_node_type(t)))
		return;
	else
		scan_below(w, t, target_node, s);
}

static void bind_assignment(struct kbx_walk *w, struct py_scan *s, TSNode n)
{
	TSNode ann = _kbx_field(n, "type");
	struct py_value v;
	if (!ts_node_is_null(ann)) {
		/* x: T = v says T, whatever v is */
		v = py_unknown;
		v.type = annotation_type(w, ann);
		v.flags = PN_CHECK;
	} else {
		v = value_of(w, s, _kbx_field(n, "right"));
	}
	bind_target(w, s, _kbx_field(n, "left"), &v);
}

/* The names an import binds in its scope: not values. */
static void mark_import(struct kbx_walk *w, struct py_scan *s, TSNode n)
{
	TSNode modnode = _kbx_field(n, "module_name");
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (!ts_node_is_null(modnode) && ts_node_eq(c, modnode))
			continue;
		const char *name = NULL;
		if (_kbx_is(c, "dotted_name")) {
			name = _kbx_node_text(w, ts_node_named_child(c, ts_node_is_null(modnode) ? 0 :
					ts_node_named_child_count(c) - 1));
		} else if (_kbx_is(c, "aliased_import")) {
			name = _kbx_field_text(w, c, "alias");
		}
		mark_name(s->t, name, PN_NOTVAL);
	}
}

/* The names a parameter list binds, with their annotations. */
static void bind_params(struct kbx_walk *w, struct py_scan *s, TSNode params)
{
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		const char *t = ts_node_type(p);
		struct py_value v = py_unknown;
		TSNode name = p;
		if (!strcmp(t, "typed_parameter")) {
			name = ts_node_named_child(p, 0);
			if (_kbx_is(name, "identifier")) {
				v.type = annotation_type(w, _kbx_field(p, "type"));
				v.flags = PN_CHECK;
			}
		} else if (!strcmp(t, "typed_default_parameter")) {
			name = _kbx_field(p, "name");
			v.type = annotation_type(w, _kbx_field(p, "type"));
			v.flags = PN_CHECK;
		} else if (!strcmp(t, "default_parameter")) {
			name = _kbx_field(p, "name");
		}
		/* *args, **kwargs: a tuple and a dict of what the annotation says */
		if (_kbx_is(name, "list_splat_pattern") || _kbx_is(name, "dictionary_splat_pattern"))
			name = ts_node_named_child(name, 0);
		if (!_kbx_is(name, "identifier"))
			continue;
		const char *text = _kbx_node_text(w, name);
		bind_name(s->t, text, &v);
		mark_name(s->t, text, PN_PARAM);
	}
}

/* The names a case pattern captures: case Point(x=px) as p, case [a, *rest]. */
static int capture_node(struct kbx_walk *w, struct py_scan *s, TSNode n, const char *type)
{
	if (!strcmp(type, "dotted_name")) {
		TSNode parent = _kbx_walk_up(w, n);
		/* the class of a class pattern, a value such as Color.RED */
		if (ts_node_named_child_count(n) == 1 &&
		    !(_kbx_is(parent, "class_pattern") &&
		      ts_node_eq(ts_node_named_child(parent, 0), n)))
			bind_name(s->t, _kbx_node_text(w, ts_node_named_child(n, 0)), &py_unknown);
		return 0;
	}
	if (!strcmp(type, "as_pattern") || !strcmp(type, "splat_pattern") ||
	    !strcmp(type, "dictionary_splat_pattern")) {
		TSNode last = ts_node_named_child(n, ts_node_named_child_count(n) - 1);
		if (_kbx_is(last, "identifier"))
			bind_name(s->t, _kbx_node_text(w, last), &py_unknown);
	}
	return 1;
}

/* One node of a scope's body: what it binds, and whether to go on into
 * it (never into a nested def or class, whose names are its own). */
static int scope_node(struct kbx_walk *w, struct py_scan *s, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "assignment")) {
			bind_assignment(w, s, n);
		} else if (!strcmp(type, "augmented_assignment")) {
			bind_target(w, s, _kbx_field(n, "left"), &py_unknown);
		} else if (!strcmp(type, "as_pattern")) {
			/* with f() as x: what __enter__ returns; except E as e: an E */
			TSNode alias = _kbx_field(n, "alias");
			struct py_value v = py_unknown;
			if (_kbx_is(_kbx_walk_up(w, n), "except_clause")) {
				TSNode e = ts_node_named_child(n, 0);
				if (_kbx_is(e, "identifier") || _kbx_is(e, "attribute")) {
					v.type = annotation_type(w, e);
					v.flags = PN_CHECK;
				}
			}
			if (!ts_node_is_null(alias))
				bind_target(w, s, alias, &v);
		}
		break;
	case 'c':
		if (!strcmp(type, "class_definition")) {
			mark_name(s->t, _kbx_field_text(w, n, "name"), PN_NOTVAL);
			return 0;
		}
		if (!strcmp(type, "case_pattern")) {
			scan_below(w, n, capture_node, s);
			return 0;
		}
		break;
	case 'f':
		if (!strcmp(type, "function_definition")) {
			mark_name(s->t, _kbx_field_text(w, n, "name"), PN_NOTVAL | PN_FUNC);
			return 0;
		}
		if (!strcmp(type, "for_statement") || !strcmp(type, "for_in_clause"))
			bind_target(w, s, _kbx_field(n, "left"), &py_unknown);
		else if (!strcmp(type, "future_import_statement"))
			return 0;
		break;
	case 'g':
		if (!strcmp(type, "global_statement"))
			return 0;   /* in the shared table */
		break;
	case 'i':
		if (!strcmp(type, "import_statement") || !strcmp(type, "import_from_statement")) {
			mark_import(w, s, n);
			return 0;
		}
		break;
	case 'l':
		if (!strcmp(type, "lambda_parameters"))
			bind_params(w, s, n);
		break;
	case 'n':
		if (!strcmp(type, "named_expression")) {
			struct py_value v = value_of(w, s, _kbx_field(n, "value"));
			bind_target(w, s, _kbx_field(n, "name"), &v);
		} else if (!strcmp(type, "nonlocal_statement")) {
			return 0;
		}
		break;
	}
	return 1;
}

/* The names declared global or nonlocal anywhere in the file: another
 * scope assigns them, so no scope knows their type. */
static int shared_node(struct kbx_walk *w, struct py_scan *s, TSNode n, const char *type)
{
	if (strcmp(type, "global_statement") && strcmp(type, "nonlocal_statement"))
		return 1;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "identifier"))
			mark_name(&s->st->shared, _kbx_node_text(w, c), PN_UNKNOWN);
	}
	return 0;
}

/* The type copied from src (x = y), as the collected scope knows it. */
static const char *copy_type(struct kbx_walk *w, const struct py_scan *s, const char *src)
{
	const struct py_name *e = table_find(s->t, src);
	if (e)
		return (e->flags & (PN_TYPED | PN_UNKNOWN | PN_NOTVAL | PN_COPY)) == PN_TYPED ?
			e->type : NULL;
	/* a name of an enclosing function or of the module */
	const char *type = NULL;
	return _kbx_walk_bound(w, src, 0, &type) ? type : NULL;
}

/* Settle the collected scope: copies, types that must be classes, names
 * other scopes assign. */
static void finish_scope(struct kbx_walk *w, struct py_scan *s)
{
	struct py_table *t = s->t;
	for (size_t i = 0; i < t->n; i++) {
		struct py_name *e = &t->v[i];
		if ((e->flags & PN_TYPED) && (e->flags & PN_CHECK) && !check_type(w, s, e->type))
			e->flags |= PN_UNKNOWN;
		if (table_find(&s->st->shared, e->name))
			e->flags |= PN_UNKNOWN;
	}
	for (size_t i = 0; i < t->ncopies; i++) {
		struct py_name *e = &t->v[t->copies[i].dst];
		merge_type(&e->type, &e->flags, copy_type(w, s, t->copies[i].src), 0);
	}
}

/* Bind the settled scope's values in the walker's innermost scope. */
static void bind_scope(struct kbx_walk *w, const struct py_table *t)
{
	size_t bound = 0;
	for (size_t i = 0; i < t->n && bound < PY_MAX_BOUND; i++) {
		const struct py_name *e = &t->v[i];
		if (e->flags & PN_NOTVAL)
			continue;
		_kbx_walk_bind(w, e->name, (e->flags & (PN_TYPED | PN_UNKNOWN)) == PN_TYPED ?
			       e->type : NULL);
		bound++;
	}
}

/* ---- the fields of a class ---- */

/* The field name of the class being collected, added when new; NULL
 * when there are too many or memory ran out. */
static struct py_field *class_field(struct py_state *st, size_t first, const char *name)
{
	if (!name || !*name)
		return NULL;
	for (size_t i = first; i < st->nfields; i++)
		if (!strcmp(st->fields[i].name, name))
			return &st->fields[i];
	if (st->nfields - first >= PY_MAX_FIELDS ||
	    _kbx_grow((void **)&st->fields, &st->afields, st->nfields, sizeof(*st->fields), 32))
		return NULL;
	st->fields[st->nfields] = (struct py_field){ name, NULL, 0 };
	return &st->fields[st->nfields++];
}

/* The type a value gives a field, settled now: the scan's scope is
 * collected. */
static void merge_field(struct kbx_walk *w, struct py_scan *s, struct py_field *f,
			const struct py_value *v, unsigned flags)
{
	if (!f)
		return;
	f->flags |= flags;
	if (v->none)
		return;
	const char *type = v->type;
	if (v->copy)
		type = s->nested_end ? NULL : copy_type(w, s, v->copy);
	else if (type && (v->flags & PN_CHECK) && !check_type(w, s, type))
		type = NULL;
	merge_type(&f->type, &f->flags, type, 0);
}

/* The attribute name of self.name, or NULL. */
static const char *self_attribute(struct kbx_walk *w, TSNode n)
{
	if (!_kbx_is(n, "attribute"))
		return NULL;
	TSNode o = _kbx_field(n, "object");
	const char *on = _kbx_is(o, "identifier") ? _kbx_node_text(w, o) : NULL;
	return on && !strcmp(on, "self") ? _kbx_field_text(w, n, "attribute") : NULL;
}

/* self.x = v (and self.x: T) in a method: a field x. */
static int self_assign_node(struct kbx_walk *w, struct py_scan *s, TSNode n, const char *type)
{
	struct py_state *st = s->st;
	if (s->nested_end && ts_node_start_byte(n) >= s->nested_end)
		s->nested_end = 0;
	if (!strcmp(type, "class_definition"))
		return 0;   /* its self is another */
	if (!strcmp(type, "function_definition") || !strcmp(type, "lambda")) {
		if (!s->nested_end)
			s->nested_end = ts_node_end_byte(n);
		return 1;
	}
	int plain = !strcmp(type, "assignment");
	if (!plain && strcmp(type, "augmented_assignment"))
		return 1;
	TSNode left = _kbx_field(n, "left");
	const char *name = self_attribute(w, left);
	if (name) {
		struct py_value v = py_unknown;
		TSNode ann = _kbx_field(n, "type");
		if (plain && !ts_node_is_null(ann)) {
			v.type = annotation_type(w, ann);
			v.flags = PN_CHECK;
		} else if (plain) {
			v = value_of(w, s, _kbx_field(n, "right"));
		}
		merge_field(w, s, class_field(st, s->field_first, name), &v, PF_SELF);
		return 1;
	}
	/* self.a, self.b = pair: fields of unknown type */
	uint32_t count = ts_node_is_null(left) ? 0 : ts_node_named_child_count(left);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(left, i);
		if (_kbx_is(c, "list_splat_pattern") || _kbx_is(c, "list_splat"))
			c = ts_node_named_child(c, 0);
		merge_field(w, s, class_field(st, s->field_first, self_attribute(w, c)), &py_unknown,
			    PF_SELF);
	}
	return 1;
}

/* @property, @cached_property, @functools.cached_property */
static int is_property(struct kbx_walk *w, TSNode decorated)
{
	uint32_t count = ts_node_named_child_count(decorated);
	for (uint32_t i = 0; i < count; i++) {
		TSNode d = ts_node_named_child(decorated, i);
		if (!_kbx_is(d, "decorator"))
			continue;
		const char *t = _kbx_compact_text(w, ts_node_named_child(d, 0), COMPACT);
		const char *last = t ? strrchr(t, '.') : NULL;
		last = last ? last + 1 : t;
		if (last && (!strcmp(last, "property") || !strcmp(last, "cached_property")))
			return 1;
	}
	return 0;
}

/* The fields of class cls (node n), collected when its scope opens: a
 * method may use a field that a later method assigns. */
static void collect_fields(struct kbx_walk *w, int cls, TSNode n)
{
	struct py_state *st = w->lang_state;
	if (!st || cls < 0)
		return;
	if ((size_t)cls >= st->nclasses) {
		size_t nc = (size_t)cls + 64;
		struct py_class *c = realloc(st->classes, nc * sizeof(*c));
		if (!c)
			return;
		memset(c + st->nclasses, 0, (nc - st->nclasses) * sizeof(*c));
		st->classes = c;
		st->nclasses = nc;
	}
	struct py_scan s = { st, &st->scope, -1, st->nfields, 0 };
	int overflow = 0;
	TSNode body = _kbx_field(n, "body");
	uint32_t count = ts_node_is_null(body) ? 0 : ts_node_named_child_count(body);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(body, i);
		TSNode d = _kbx_is(c, "decorated_definition") ? _kbx_field(c, "definition") : c;
		if (_kbx_is(d, "function_definition")) {
			struct py_field *f = class_field(st, s.field_first,
							 _kbx_field_text(w, d, "name"));
			overflow |= !f;
			if (f && !ts_node_eq(d, c) && is_property(w, c)) {
				struct py_value v = py_unknown;
				v.type = annotation_type(w, _kbx_field(d, "return_type"));
				v.flags = PN_CHECK;
				table_reset(&st->scope);
				merge_field(w, &s, f, &v, 0);
			}
			if (f)
				f->flags |= PF_METHOD;
			/* the method's own names, then what it assigns to self */
			table_reset(&st->scope);
			bind_params(w, &s, _kbx_field(d, "parameters"));
			TSNode mbody = _kbx_field(d, "body");
			if (ts_node_is_null(mbody))
				continue;
			scan_below(w, mbody, scope_node, &s);
			finish_scope(w, &s);
			s.nested_end = 0;
			scan_below(w, mbody, self_assign_node, &s);
		} else if (_kbx_is(d, "expression_statement")) {
			/* class attributes: x = v, x: T = v, x: T */
			TSNode a = ts_node_named_child(d, 0);
			TSNode left = _kbx_field(a, "left");
			if (!_kbx_is(a, "assignment") || !_kbx_is(left, "identifier"))
				continue;
			struct py_field *f = class_field(st, s.field_first, _kbx_node_text(w, left));
			overflow |= !f;
			struct py_value v = py_unknown;
			TSNode ann = _kbx_field(a, "type");
			if (!ts_node_is_null(ann)) {
				v.type = annotation_type(w, ann);
				v.flags = PN_CHECK;
			} else {
				v = value_of(w, &s, _kbx_field(a, "right"));
			}
			table_reset(&st->scope);
			merge_field(w, &s, f, &v, 0);
		}
	}
	/* a field dropped at the limit could be a method's name */
	size_t nf = st->nfields - s.field_first;
	st->classes[cls] = (struct py_class){ s.field_first, nf, overflow || nf >= PY_MAX_FIELDS };
}

/* ---- the walk ---- */

/* The module's names, bound before its code is walked: a function may
 * use a variable assigned below it. */
static void bind_module(struct kbx_walk *w, TSNode root)
{
	struct py_state *st = w->lang_state;
	if (!st)
		return;
	struct py_scan s = { st, &st->module, -1, 0, 0 };
	scan_below(w, root, shared_node, &s);
	scan_below(w, root, scope_node, &s);
	finish_scope(w, &s);
	bind_scope(w, &st->module);
}

/* A function's parameters and locals, bound when its scope opens. */
static void bind_function(struct kbx_walk *w, TSNode n)
{
	struct py_state *st = w->lang_state;
	if (!st)
		return;
	struct py_scan s = { st, &st->scope, self_class(w), 0, 0 };
	table_reset(&st->scope);
	bind_params(w, &s, _kbx_field(n, "parameters"));
	TSNode body = _kbx_field(n, "body");
	if (!ts_node_is_null(body))
		scan_below(w, body, scope_node, &s);
	finish_scope(w, &s);
	bind_scope(w, &st->scope);
}

/*
 * The receiver's type where the source states it, for obj.name(): a
 * field of self (self.repo), a constructor C(...) or cast(T, v); "?" for
 * a value kbx cannot type (an attribute of a variable, a subscript, a
 * call's result), so that no class or module of that name is taken for
 * it; a builtin class the file does not bind (str.join); NULL for any
 * other name (the walker looks it up), a dotted path of names (a module,
 * a class) and a literal.
 */
static const char *receiver_type(struct kbx_walk *w, TSNode obj)
{
	struct py_state *st = w->lang_state;
	for (int guard = 0; guard < 64 && _kbx_is(obj, "parenthesized_expression"); guard++)
		obj = ts_node_named_child(obj, 0);
	if (ts_node_is_null(obj) || !st)
		return NULL;
	const char *type = ts_node_type(obj);
	struct py_table none = { 0 };
	struct py_scan s = { st, &none, self_class(w), 0, 0 };
	if (!strcmp(type, "identifier")) {
		/* str.join, object.__new__: a builtin class the file does not
		 * bind; any other name the walker looks up */
		const char *name = _kbx_node_text(w, obj);
		const char *bound;
		if (builtin_type(name) && !_kbx_walk_bound(w, name, 0, &bound) &&
		    check_type(w, &s, name))
			return name;
		return NULL;
	}
	if (!strcmp(type, "string") ||
	    !strcmp(type, "concatenated_string") || !strcmp(type, "list") ||
	    !strcmp(type, "dictionary") || !strcmp(type, "set") || !strcmp(type, "integer") ||
	    !strcmp(type, "float") || !strcmp(type, "list_comprehension") ||
	    !strcmp(type, "dictionary_comprehension") || !strcmp(type, "set_comprehension"))
		return NULL;
	if (!strcmp(type, "attribute")) {
		const char *field = self_attribute(w, obj);
		if (field) {
			const char *t = field_type(field_of(st, s.cls, field));
			return t ? t : "?";
		}
		const char *text = _kbx_compact_text(w, obj, COMPACT);
		const char *dot = text ? strchr(text, '.') : NULL;
		if (!text || !dotted_name(text, strlen(text)) || !dot)
			return "?";
		/* a.b.c: a module or a class, unless a is a variable */
		return value_name(w, &s, text, (size_t)(dot - text), 0) ? "?" : NULL;
	}
	if (!strcmp(type, "call")) {
		struct py_value v = value_of(w, &s, obj);
		if (v.type && (!(v.flags & PN_CHECK) || check_type(w, &s, v.type)))
			return v.type;
	}
	return "?";
}

/* Count the leading dots of a relative import. */
static int import_level(struct kbx_walk *w, TSNode prefix)
{
	int level = 0;
	for (uint32_t i = ts_node_start_byte(prefix); i < ts_node_end_byte(prefix) && i < w->len; i++)
		if (w->src[i] == '.')
			level++;
	return level;
}

static void visit_import(struct kbx_walk *w, TSNode n)
{
	uint32_t line = _kbx_node_line(n);
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "dotted_name"))
			_kbx_x_import(w->x, _kbx_node_text(w, c), NULL, NULL, 0, 0, line);
		else if (_kbx_is(c, "aliased_import"))
			_kbx_x_import(w->x, _kbx_field_text(w, c, "name"), NULL,
				      _kbx_field_text(w, c, "alias"), 0, 0, line);
	}
}

static void visit_import_from(struct kbx_walk *w, TSNode n)
{
	uint32_t line = _kbx_node_line(n);
	TSNode modnode = _kbx_field(n, "module_name");
	if (ts_node_is_null(modnode))
		return;
	const char *module = "";
	int level = 0;
	if (_kbx_is(modnode, "relative_import")) {
		uint32_t count = ts_node_named_child_count(modnode);
		for (uint32_t i = 0; i < count; i++) {
			TSNode c = ts_node_named_child(modnode, i);
			if (_kbx_is(c, "import_prefix"))
				level = import_level(w, c);
			else if (_kbx_is(c, "dotted_name"))
				module = _kbx_node_text(w, c);
		}
	} else {
		module = _kbx_node_text(w, modnode);
	}
	if (!module)
		return;
	module = _kbx_arena_strdup(&w->x->arena, module);

	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (ts_node_eq(c, modnode))
			continue;
		if (_kbx_is(c, "dotted_name"))
			_kbx_x_import(w->x, module, _kbx_node_text(w, c), NULL, level, 0, line);
		else if (_kbx_is(c, "aliased_import"))
			_kbx_x_import(w->x, module, _kbx_field_text(w, c, "name"),
				      _kbx_field_text(w, c, "alias"), level, 0, line);
		else if (_kbx_is(c, "wildcard_import"))
			_kbx_x_import(w->x, module, NULL, NULL, level, KBX_IMPORT_WILDCARD, line);
	}
}

/*
 * The name a base class expression refers to: "Base", "mod.Base"; generic
 * arguments are dropped ("Generic[T]" -> "Generic").  NULL for anything
 * computed (a call, a keyword argument, a splat).
 */
static const char *base_name(struct kbx_walk *w, TSNode b)
{
	for (int guard = 0; guard < 8 && _kbx_is(b, "subscript"); guard++)
		b = _kbx_field(b, "value");
	if (_kbx_is(b, "identifier") || _kbx_is(b, "attribute"))
		return _kbx_compact_text(w, b, COMPACT);
	return NULL;
}

static int visit_class(struct kbx_walk *w, TSNode n)
{
	const char *name = _kbx_field_text(w, n, "name");
	int sym = _kbx_walk_define(w, n, KBX_KIND_CLASS, name, 1);
	if (sym < 0)
		return KBX_WALK_CONTINUE;
	collect_fields(w, sym, n);
	TSNode bases = _kbx_field(n, "superclasses");
	if (ts_node_is_null(bases))
		return KBX_WALK_CONTINUE;
	uint32_t count = ts_node_named_child_count(bases);
	for (uint32_t i = 0; i < count; i++) {
		TSNode b = ts_node_named_child(bases, i);
		const char *base = base_name(w, b);
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(b));
	}
	return KBX_WALK_CONTINUE;
}

static int visit_function(struct kbx_walk *w, TSNode n)
{
	if (_kbx_walk_define(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION,
			     _kbx_field_text(w, n, "name"), 1) >= 0)
		bind_function(w, n);
	return KBX_WALK_CONTINUE;
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	const char *type;
	if (_kbx_is(fn, "identifier")) {
		const char *name = _kbx_node_text(w, fn);
		/* super() only names the receiver of a super call; a variable
		 * of this function, an enclosing one or the module is a value */
		if (name && strcmp(name, "super"))
			_kbx_walk_call(w, n, name,
				       _kbx_walk_bound(w, name, 0, &type) ? KBX_RECV_VALUE :
				       KBX_RECV_NONE, NULL);
		return;
	}
	if (!_kbx_is(fn, "attribute"))
		return;  /* f()(), f[0](): nothing to name */
	const char *name = _kbx_field_text(w, fn, "attribute");
	TSNode obj = _kbx_field(fn, "object");
	if (ts_node_is_null(obj) || !name)
		return;
	if (_kbx_is(obj, "identifier")) {
		const char *o = _kbx_node_text(w, obj);
		if (o && (!strcmp(o, "self") || !strcmp(o, "cls"))) {
			/* self.f() where the class sets self.f = value and has no
			 * method f: a call through that value */
			struct py_state *st = w->lang_state;
			const struct py_field *f = st && !strcmp(o, "self") ?
				field_of(st, self_class(w), name) : NULL;
			int value = f && (f->flags & (PF_SELF | PF_METHOD)) == PF_SELF;
			_kbx_walk_call(w, n, name, value ? KBX_RECV_VALUE : KBX_RECV_SELF, NULL);
			return;
		}
	} else if (_kbx_is(obj, "call")) {
		TSNode inner = _kbx_field(obj, "function");
		if (_kbx_is(inner, "identifier")) {
			const char *f = _kbx_node_text(w, inner);
			if (f && !strcmp(f, "super")) {
				_kbx_walk_call(w, n, name, KBX_RECV_SUPER, NULL);
				return;
			}
		}
	}
	_kbx_walk_call_typed(w, n, name, KBX_RECV_EXPR, _kbx_compact_text(w, obj, COMPACT),
			     receiver_type(w, obj));
}

static int py_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'm':
		if (!strcmp(type, "module"))
			bind_module(w, n);
		break;
	case 'c':
		if (!strcmp(type, "call"))
			visit_call(w, n);
		else if (!strcmp(type, "class_definition"))
			return visit_class(w, n);
		break;
	case 'f':
		if (!strcmp(type, "function_definition"))
			return visit_function(w, n);
		if (!strcmp(type, "future_import_statement"))
			return KBX_WALK_SKIP;
		break;
	case 'i':
		if (!strcmp(type, "import_statement")) {
			visit_import(w, n);
			return KBX_WALK_SKIP;
		}
		if (!strcmp(type, "import_from_statement")) {
			visit_import_from(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * The files that module dir/mod may be, given an imported name (NULL for
 * the module itself): the name as a submodule first, because
 * `from pkg import b` most often means pkg/b.py, then the module's own
 * file and package.
 */
static void add_module(struct kbx_pathlist *out, const char *dir, const char *mod,
		       const char *name)
{
	char root[4096], sub[4096];
	if (_kbx_path_join(root, sizeof(root), dir, mod) < 0)
		return;
	if (name && strchr(name, '.') == NULL &&
	    _kbx_path_join(sub, sizeof(sub), root, name) == 0) {
		_kbx_pathlist_addf(out, "=%s.py", sub);
		_kbx_pathlist_addf(out, "=%s/__init__.py", sub);
	}
	if (!*mod) {
		/* `from . import x`: the package itself */
		_kbx_pathlist_addf(out, "%s%s__init__.py", root, *root ? "/" : "");
	} else {
		_kbx_pathlist_addf(out, "%s.py", root);
		_kbx_pathlist_addf(out, "%s/__init__.py", root);
		_kbx_pathlist_addf(out, "%s.pyi", root);
	}
}

static void py_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	char mod[4096], dir[4096];
	if (!imp->module || _kbx_dots_to_slashes(mod, sizeof(mod), imp->module) < 0)
		return;
	const char *name = (imp->flags & KBX_IMPORT_WILDCARD) ? NULL : imp->name;
	_kbx_path_dirname(dir, sizeof(dir), importer);

	if (imp->level > 0) {
		/* one dot is the importer's package, each further dot one up */
		for (int i = 1; i < imp->level; i++) {
			if (!*dir)
				return;  /* climbs above the repository */
			char up[4096];
			_kbx_path_dirname(up, sizeof(up), dir);
			memcpy(dir, up, strlen(up) + 1);
		}
		add_module(out, dir, mod, name);
		return;
	}
	if (!*mod)
		return;
	/* absolute: from the repository root, then next to the importer
	 * (a script's own directory is on sys.path), then anywhere below a
	 * source root such as src/ */
	add_module(out, "", mod, name);
	if (*dir)
		add_module(out, dir, mod, name);
	/* below a source root, the imported name as a submodule first, as
	 * above: `from jinja2 import nodes` is src/jinja2/nodes.py */
	if (name && *name && dotted_name(name, strlen(name)) && !strchr(name, '.')) {
		_kbx_pathlist_addf(out, "=*%s/%s.py", mod, name);
		_kbx_pathlist_addf(out, "=*%s/%s/__init__.py", mod, name);
	}
	if (strchr(mod, '/')) {
		_kbx_pathlist_addf(out, "*%s.py", mod);
		_kbx_pathlist_addf(out, "*%s/__init__.py", mod);
	} else {
		/* a lone name: only a package directory, since a stray
		 * tools/json.py must not capture `import json` */
		_kbx_pathlist_addf(out, "*%s/__init__.py", mod);
	}
}

static const char *const py_extensions[] = { ".py", ".pyi", NULL };

const struct kbx_lang _kbx_lang_python = {
	.name = "python",
	.extensions = py_extensions,
	.grammar = kbx_tree_sitter_python,
	.visit = py_visit,
	.begin = py_begin,
	.end = py_end,
	.import_candidates = py_import_candidates,
	.implicit_self = 0,
	.nested_defs = 1,
	.scope_sep = ".",
	.visibility = _kbx_python_visibility,
};
