/*
 * C: functions, structs, unions and enums, calls, and #include lines from
 * tree-sitter-c.
 *
 * A struct, union or enum is a definition only where it has a body; an
 * anonymous one takes the name of the typedef that wraps it.  C has one
 * namespace for tags, so structs open no scope and a struct declared
 * inside another is not qualified by it.  C has no methods: a call
 * through a struct member (`ops->read(f)`), a parameter or a local
 * variable is a call through a function pointer, reported as a call of a
 * value with the member's or variable's name; calls through `(*fp)()`
 * are skipped.  Macro
 * invocations look like calls and are reported as such: the resolver
 * finds no definition for them.
 */
#include <string.h>

#include "c-common.h"
#include "lang.h"

const TSLanguage *tree_sitter_c(void);

/* How C writes a receiver on one line: "->" as ".", string and character
 * literals as written, a backslash-newline as white space. */
#define COMPACT (KBX_COMPACT_SQUOTE | KBX_COMPACT_LINE_CONT | KBX_COMPACT_ARROW)

/*
 * The identifier a function definition's declarator names, looking
 * through pointers, parentheses and attributes: `int *(*f(void))(int)`
 * names f.  Bounded, as declarators nest only as deep as the source.
 */
static TSNode declarator_name(TSNode d)
{
	for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
		const char *t = ts_node_type(d);
		if (!strcmp(t, "identifier"))
			return d;
		if (!strcmp(t, "parenthesized_declarator")) {
			d = ts_node_named_child(d, 0);
			/* attributes may come first: skip to a declarator */
			while (!ts_node_is_null(d) && !strcmp(ts_node_type(d), "attribute_specifier"))
				d = ts_node_next_named_sibling(d);
			continue;
		}
		if (!strcmp(t, "function_declarator") || !strcmp(t, "pointer_declarator") ||
		    !strcmp(t, "attributed_declarator")) {
			d = _kbx_field(d, "declarator");
			continue;
		}
		break;
	}
	TSNode null = { 0 };
	return null;
}

int _kbx_c_is_static(struct kbx_walk *w, TSNode n)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (!_kbx_is(c, "storage_class_specifier"))
			continue;
		uint32_t s = ts_node_start_byte(c), e = ts_node_end_byte(c);
		if (e - s == 6 && e <= w->len && !memcmp(w->src + s, "static", 6))
			return 1;
	}
	return 0;
}

/* An annotation macro after a name, `Mutex mu_ GUARDED_BY(x);`, which
 * the grammar reads as a function MACRO(x) after an ERROR holding mu_:
 * the name, or a null node. */
static TSNode annotated_name(struct kbx_walk *w, TSNode parent, TSNode fd)
{
	const char *macro = _kbx_field_text(w, fd, "declarator");
	TSNode err = _kbx_child_of_type(parent, "ERROR");
	if (!macro || !*macro || ts_node_is_null(err) || !ts_node_named_child_count(err))
		return (TSNode){ 0 };
	for (const char *c = macro; *c; c++)
		if (!(*c >= 'A' && *c <= 'Z') && !(*c >= '0' && *c <= '9') && *c != '_')
			return (TSNode){ 0 };
	TSNode name = ts_node_named_child(err, 0);
	return _kbx_is(name, "identifier") ? name : (TSNode){ 0 };
}

/* Whether a function declarator's parameters can only be parameters:
 * none (`T x();` declares a function), or one has a name, a built-in
 * type, or a pointer or reference declarator (`T x(y)` and `T x(f())`
 * could be a variable's arguments). */
static int declares_parameters(TSNode fd)
{
	TSNode list = _kbx_field(fd, "parameters");
	uint32_t count = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
	if (!count)
		return 1;
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(list, i);
		if (!_kbx_is(p, "parameter_declaration"))
			return 1;
		TSNode t = _kbx_field(p, "type"), d = _kbx_field(p, "declarator");
		if (!_kbx_is(t, "type_identifier") && !_kbx_is(t, "qualified_identifier"))
			return 1;
		if (!ts_node_is_null(d) && !_kbx_is(d, "abstract_function_declarator"))
			return 1;
	}
	return 0;
}

/* See c-common.h. */
TSNode _kbx_c_declared_name(struct kbx_walk *w, TSNode parent, TSNode d, int vexing, int *depth)
{
	*depth = 0;
	for (int guard = 0; guard < 32 && !ts_node_is_null(d); guard++) {
		const char *t = ts_node_type(d);
		TSNode next;
		if (!strcmp(t, "identifier") || !strcmp(t, "field_identifier") ||
		    !strcmp(t, "type_identifier"))
			return d;
		if (!strcmp(t, "pointer_declarator")) {
			if (*depth >= 0)
				(*depth)++;
			next = _kbx_field(d, "declarator");
		} else if (!strcmp(t, "array_declarator")) {
			*depth = -1;
			next = _kbx_field(d, "declarator");
		} else if (!strcmp(t, "function_declarator")) {
			next = _kbx_field(d, "declarator");
			if (vexing && _kbx_is(next, "identifier") && !declares_parameters(d))
				return next;
			if (!_kbx_is(next, "parenthesized_declarator"))
				return annotated_name(w, parent, d);  /* else a function */
			*depth = -1;        /* (*f)(...): a pointer to one */
		} else if (!strcmp(t, "init_declarator") || !strcmp(t, "attributed_declarator")) {
			next = _kbx_field(d, "declarator");
		} else if (!strcmp(t, "reference_declarator") ||
			   !strcmp(t, "parenthesized_declarator")) {
			uint32_t n = ts_node_named_child_count(d);
			next = n ? ts_node_named_child(d, n - 1) : (TSNode){ 0 };
		} else {
			break;
		}
		parent = d;
		d = next;
	}
	return (TSNode){ 0 };
}

uint32_t _kbx_c_declarators(TSNode n, TSNode *out, uint32_t max)
{
	uint32_t k = 0;
	TSTreeCursor c = ts_tree_cursor_new(n);
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			const char *f = ts_tree_cursor_current_field_name(&c);
			if (f && !strcmp(f, "declarator") && k < max)
				out[k++] = ts_tree_cursor_current_node(&c);
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
	return k;
}

/*
 * The names a declaration or a parameter declares, bound in the current
 * scope with no type: C has no methods, so what matters is only that a
 * call of such a name is a call through a pointer (a value), not of the
 * function of that name.
 */
static void bind_names(struct kbx_walk *w, TSNode decl)
{
	TSNode ds[64];
	uint32_t nd = _kbx_c_declarators(decl, ds, 64);
	for (uint32_t i = 0; i < nd; i++) {
		int depth;
		TSNode name = _kbx_c_declared_name(w, decl, ds[i], 0, &depth);
		if (!ts_node_is_null(name))
			_kbx_walk_bind(w, _kbx_node_text(w, name), NULL);
	}
}

/* Does the declarator declare a function (a parameter list somewhere
 * on the way to its name)?  `namespace kv {`, which C's grammar reads as
 * a definition of kv, does not. */
static int declares_function(TSNode d)
{
	for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
		if (_kbx_is(d, "function_declarator"))
			return 1;
		d = _kbx_is(d, "parenthesized_declarator") ? ts_node_named_child(d, 0)
							   : _kbx_field(d, "declarator");
	}
	return 0;
}

static void visit_function(struct kbx_walk *w, TSNode n)
{
	TSNode d = _kbx_field(n, "declarator");
	TSNode name = declarator_name(d);
	if (ts_node_is_null(name) || !declares_function(d))
		return;
	int sym = _kbx_walk_define(w, n, KBX_KIND_FUNCTION, _kbx_node_text(w, name), 1);
	if (sym < 0)
		return;
	if (_kbx_c_is_static(w, n))
		w->x->syms[sym].flags |= KBX_SYM_FILE_LOCAL;
	/* the parameters: those of the function declarator nearest the name
	 * (in `int (*f(int a))(char b)`, a) */
	TSNode params = { 0 };
	for (int guard = 0; guard < 64 && !ts_node_is_null(d) && !ts_node_eq(d, name); guard++) {
		if (_kbx_is(d, "function_declarator"))
			params = _kbx_field(d, "parameters");
		d = _kbx_is(d, "parenthesized_declarator") ? ts_node_named_child(d, 0)
							   : _kbx_field(d, "declarator");
	}
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		if (_kbx_is(p, "parameter_declaration"))
			bind_names(w, p);
	}
}

const char *_kbx_c_typedef_name(struct kbx_walk *w, TSNode n)
{
	TSNode parent = ts_node_parent(n);
	if (_kbx_is(parent, "type_definition")) {
		TSNode d = _kbx_field(parent, "declarator");
		if (_kbx_is(d, "type_identifier"))
			return _kbx_node_text(w, d);
	}
	return NULL;
}

/* struct_specifier, union_specifier, enum_specifier */
static void visit_type(struct kbx_walk *w, TSNode n, int kind)
{
	if (ts_node_is_null(_kbx_field(n, "body")))
		return;  /* a use or a forward declaration */
	const char *name = _kbx_field_text(w, n, "name");
	if (!name)
		name = _kbx_c_typedef_name(w, n);
	if (name)
		_kbx_walk_define(w, n, kind, name, 0);
}

static void visit_call(struct kbx_walk *w, TSNode n)
{
	TSNode fn = _kbx_field(n, "function");
	if (_kbx_is(fn, "identifier")) {
		_kbx_walk_call(w, n, _kbx_node_text(w, fn), KBX_RECV_NONE, NULL);
	} else if (_kbx_is(fn, "field_expression")) {
		/* a function pointer in a struct: a call through a value, which
		 * no definition's name proves (C has no methods) */
		const char *name = _kbx_field_text(w, fn, "field");
		if (name)
			_kbx_walk_call(w, n, name, KBX_RECV_VALUE, NULL);
	}
}

void _kbx_c_visit_include(struct kbx_walk *w, TSNode n)
{
	TSNode path = _kbx_field(n, "path");
	if (ts_node_is_null(path))
		return;
	const char *text = _kbx_node_text(w, path);
	if (!text)
		return;
	size_t len = strlen(text);
	int flags = 0;
	if (_kbx_is(path, "system_lib_string"))
		flags = KBX_IMPORT_SYSTEM;
	else if (!_kbx_is(path, "string_literal"))
		return;  /* #include MACRO */
	if (len < 2)
		return;
	const char *module = _kbx_arena_strndup(&w->x->arena, text + 1, len - 2);
	_kbx_x_import(w->x, module, NULL, NULL, 0, flags, _kbx_node_line(n));
}

static int c_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	switch (type[0]) {
	case 'c':
		if (!strcmp(type, "call_expression"))
			visit_call(w, n);
		break;
	case 'd':
		if (!strcmp(type, "declaration") && _kbx_walk_caller(w) >= 0)
			bind_names(w, n);
		break;
	case 'e':
		if (!strcmp(type, "enum_specifier"))
			visit_type(w, n, KBX_KIND_ENUM);
		break;
	case 'f':
		/* C has no functions in functions (but GCC's, which are
		 * rare): one inside a body is a macro the grammar misread,
		 * `vmcase(OP_MOVE) { ... }`, whose calls are the enclosing
		 * function's; no definition that other files' calls reach */
		if (!strcmp(type, "function_definition") && _kbx_walk_caller(w) < 0)
			visit_function(w, n);
		break;
	case 'p':
		if (!strcmp(type, "preproc_include")) {
			_kbx_c_visit_include(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 's':
		if (!strcmp(type, "struct_specifier"))
			visit_type(w, n, KBX_KIND_STRUCT);
		break;
	case 'u':
		if (!strcmp(type, "union_specifier"))
			visit_type(w, n, KBX_KIND_STRUCT);
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * #include "x.h": next to the includer first, as the preprocessor does,
 * then from the repository root, then any file whose path ends in x.h
 * (headers under include/ and the like; several matches stay ambiguous).
 * System includes name no file of ours.
 */
void _kbx_c_import_candidates(const char *importer, const struct kbx_ximport *imp,
			      struct kbx_pathlist *out)
{
	char dir[4096], p[4096];
	if (!imp->module || !*imp->module || (imp->flags & KBX_IMPORT_SYSTEM))
		return;
	_kbx_path_dirname(dir, sizeof(dir), importer);
	/* ("." and "a/.." name no file) */
	if (*dir && _kbx_path_join(p, sizeof(p), dir, imp->module) == 0 && *p)
		_kbx_pathlist_add(out, p);
	if (_kbx_path_join(p, sizeof(p), "", imp->module) == 0 && *p) {
		_kbx_pathlist_add(out, p);
		_kbx_pathlist_addf(out, "*%s", p);
	}
}

static int ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int all_caps(const char *w, size_t n)
{
	if (n < 3 || !(w[0] >= 'A' && w[0] <= 'Z'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((w[i] >= 'A' && w[i] <= 'Z') || (w[i] >= '0' && w[i] <= '9') || w[i] == '_'))
			return 0;
	return 1;
}

static int export_suffix(const char *w, size_t n)
{
	static const char *const suffixes[] = { "_EXPORT", "_API", "_DLL", "_PUBLIC",
						"_VISIBLE", "_EXTERN", NULL };
	for (size_t i = 0; suffixes[i]; i++) {
		size_t k = strlen(suffixes[i]);
		if (n > k && !memcmp(w + n - k, suffixes[i], k))
			return 1;
	}
	return 0;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Past the comment or the string or character literal that starts at p
 * (p itself when none does), never past end. */
static const char *skip_comment_or_literal(const char *p, const char *end)
{
	if (*p == '/' && p + 1 < end && p[1] == '/') {
		while (p < end && *p != '\n')
			p++;
		return p;
	}
	if (*p == '/' && p + 1 < end && p[1] == '*') {
		for (p += 2; p + 1 < end && !(p[0] == '*' && p[1] == '/'); p++)
			;
		return p + 2 < end ? p + 2 : end;
	}
	if (*p == '"' || *p == '\'') {
		char q = *p;
		for (p++; p < end && *p != q && *p != '\n'; p++)
			if (*p == '\\' && p + 1 < end)
				p++;
		return p < end ? p + 1 : end;
	}
	return p;
}

/* Is the word at w (of length n) a C++ construct, by what follows it? */
static int cpp_word(const char *w, size_t n, const char *end)
{
	const char *p = skip_space(w + n, end);
	if (n == 9 && !memcmp(w, "namespace", 9))
		return p < end && (*p == '{' || ident_char(*p));
	if (n == 8 && !memcmp(w, "template", 8))
		return p < end && *p == '<';
	if ((n == 6 && !memcmp(w, "public", 6)) || (n == 7 && !memcmp(w, "private", 7)) ||
	    (n == 9 && !memcmp(w, "protected", 9)))
		return p < end && *p == ':' && (p + 1 >= end || p[1] != ':');
	if (n == 5 && !memcmp(w, "class", 5)) {
		/* class Name [final] [: bases] {   (not a variable named class) */
		if (p >= end || !ident_char(*p))
			return 0;
		while (p < end && ident_char(*p))
			p++;
		for (int k = 0; k < 200 && p < end; k++, p++)
			if (*p == '{' || *p == ';' || *p == '(' || *p == ')' || *p == '=')
				return *p == '{';
	}
	return 0;
}

int _kbx_c_looks_cpp(const char *s, size_t len)
{
	const char *p = s, *end = s + (len > 262144 ? 262144 : len);
	int line_start = 1;
	while (p < end) {
		const char *past = skip_comment_or_literal(p, end);
		if (past != p) {
			p = past;
			continue;
		}
		char c = *p;
		if (c == '#' && line_start) {
			/* #include <string>: a standard header with no extension */
			const char *q = skip_space(p + 1, end);
			if (end - q > 7 && !memcmp(q, "include", 7)) {
				q = skip_space(q + 7, end);
				if (q < end && *q == '<') {
					const char *r = q + 1;
					while (r < end && *r != '>' && *r != '\n' && *r != '.')
						r++;
					if (r < end && *r == '>' && r > q + 1)
						return 1;
				}
			}
		}
		if (c == ':' && p + 1 < end && p[1] == ':')
			return 1;
		if (c == '\n')
			line_start = 1;
		else if (c != ' ' && c != '\t')
			line_start = 0;
		if (ident_char(c) && (p == s || !ident_char(p[-1]))) {
			const char *w = p;
			while (p < end && ident_char(*p))
				p++;
			if (cpp_word(w, (size_t)(p - w), end))
				return 1;
			continue;
		}
		p++;
	}
	return 0;
}

/* Clang's thread-safety annotations, by the names projects give their
 * macros (also with abseil's ABSL_ in front): they follow a declarator
 * (`void f() LOCKS_EXCLUDED(mu_);`, `int n_ GUARDED_BY(mu_);`) or come
 * before a class's name (`class LOCKABLE Mutex`), and the grammar
 * cannot read them there. */
static const char *const annotations[] = {
	"GUARDED_BY", "PT_GUARDED_BY", "ACQUIRED_AFTER", "ACQUIRED_BEFORE",
	"EXCLUSIVE_LOCKS_REQUIRED", "SHARED_LOCKS_REQUIRED", "LOCKS_EXCLUDED", "LOCK_RETURNED",
	"LOCKABLE", "SCOPED_LOCKABLE", "EXCLUSIVE_LOCK_FUNCTION", "SHARED_LOCK_FUNCTION",
	"UNLOCK_FUNCTION", "EXCLUSIVE_TRYLOCK_FUNCTION", "SHARED_TRYLOCK_FUNCTION",
	"ASSERT_EXCLUSIVE_LOCK", "ASSERT_SHARED_LOCK", "NO_THREAD_SAFETY_ANALYSIS",
	"LOCKS_REQUIRED", NULL,
};

static int annotation(const char *w, size_t n)
{
	if (n > 5 && !memcmp(w, "ABSL_", 5)) {
		w += 5;
		n -= 5;
	}
	for (size_t i = 0; annotations[i]; i++)
		if (strlen(annotations[i]) == n && !memcmp(w, annotations[i], n))
			return 1;
	return 0;
}

/* Blank from p to the parenthesis that closes the one at p, new lines
 * kept (they number the lines); where it ends. */
static char *blank_parens(char *p, char *end, size_t *blanked)
{
	int depth = 0;
	for (; p < end; p++) {
		char c = *p;
		if (c == '(')
			depth++;
		else if (c == ')')
			depth--;
		if (c != '\n') {
			*p = ' ';
			(*blanked)++;
		}
		if (!depth)
			return p + 1;
	}
	return p;
}

/* Does p start a type's name and then its body or bases, `Name {`,
 * `Name final :`?  (Not `struct TAG var;`, where the capital name is
 * the tag.) */
static int type_head(const char *p, const char *end)
{
	while (p < end && ident_char(*p))
		p++;
	p = skip_space(p, end);
	if (end - p >= 5 && !memcmp(p, "final", 5) && (end - p == 5 || !ident_char(p[5])))
		p = skip_space(p + 5, end);
	return p < end && (*p == '{' || (*p == ':' && (p + 1 >= end || p[1] != ':')));
}

size_t _kbx_c_mask_macros(char *text, size_t len)
{
	char *p = text, *end = text + len;
	size_t blanked = 0;
	int line_start = 1;
	/* the last word, for `class MACRO Name` */
	const char *prev = NULL;
	size_t prevn = 0;
	while (p < end) {
		char c = *p;
		char *past = (char *)skip_comment_or_literal(p, end);
		if (past != p) {
			if (c == '"' || c == '\'')
				prev = NULL;
			p = past;
			continue;
		}
		if (c == '#' && line_start) {
			/* a preprocessor line, with its continuations */
			while (p < end && *p != '\n') {
				if (*p == '\\' && p + 1 < end && p[1] == '\n')
					p++;
				p++;
			}
			continue;
		}
		if (c == '\n')
			line_start = 1;
		else if (c != ' ' && c != '\t' && c != '\r')
			line_start = 0;
		if (ident_char(c) && !(c >= '0' && c <= '9')) {
			char *w = p;
			while (p < end && ident_char(*p))
				p++;
			size_t n = (size_t)(p - w);
			const char *next = skip_space(p, end);
			int after_tag = prev && ((prevn == 5 && !memcmp(prev, "class", 5)) ||
						 (prevn == 6 && !memcmp(prev, "struct", 6)) ||
						 (prevn == 5 && !memcmp(prev, "union", 5)));
			int blank = 0;
			if (annotation(w, n)) {
				memset(w, ' ', n);
				blanked += n;
				if (next < end && *next == '(')
					p = blank_parens((char *)next, end, &blanked);
				continue;
			}
			if (all_caps(w, n) && next < end && *next != '(') {
				if (after_tag && ident_char(*next))
					blank = type_head(next, end);    /* class MACRO Name { */
				else if (export_suffix(w, n))
					blank = 1;
			}
			if (blank) {
				memset(w, ' ', n);
				blanked += n;
			} else {
				prev = w;
				prevn = n;
			}
			continue;
		}
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			prev = NULL;
		p++;
	}
	return blanked;
}

static const char *const c_extensions[] = { ".c", ".h", NULL };

const struct kbx_lang _kbx_lang_c = {
	.name = "c",
	.extensions = c_extensions,
	.grammar = tree_sitter_c,
	.visit = c_visit,
	.import_candidates = _kbx_c_import_candidates,
	.implicit_self = 0,
	.no_type_calls = 1,
	.mask = _kbx_c_mask_macros,
	.scope_sep = ".",
	.visibility = _kbx_c_visibility,
};
