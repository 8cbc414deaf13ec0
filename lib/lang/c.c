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
 * invocations look like calls and are reported as such; a #define with
 * a value or parameters is a definition of kind macro, which the
 * resolver binds them to, and the calls in its value are its own.
 */
#include <string.h>

#include "c-common.h"
#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_c)

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

/* The class or protocol a declaration of depth pointers states
 * (Objective-C's `Cart *c`, `id<Priced> p`), or NULL. */
static const char *object_type(struct kbx_walk *w, TSNode decl, int depth)
{
	TSNode t = _kbx_field(decl, "type");
	if (depth == 1 && _kbx_is(t, "type_identifier"))
		return _kbx_node_text(w, t);
	TSNode list = depth == 0 && _kbx_is(t, "typedefed_specifier") ?
		_kbx_child_of_type(t, "protocol_reference_list") : (TSNode){ 0 };
	if (ts_node_is_null(list) || ts_node_named_child_count(list) != 1)
		return NULL;
	TSNode p = ts_node_named_child(list, 0);
	return _kbx_is(p, "identifier") ? _kbx_node_text(w, p) : NULL;
}

/*
 * The names a declaration or a parameter declares, bound in the current
 * scope: C has no methods, so what matters to C is only that a call of
 * such a name is a call through a pointer (a value), not of the function
 * of that name.  A pointer to a named type keeps the type, which
 * Objective-C's message sends (lib/lang/objc.c, which walks its C with
 * this file's visitor) take as their receiver's.
 */
static void bind_names(struct kbx_walk *w, TSNode decl)
{
	TSNode ds[64];
	uint32_t nd = _kbx_c_declarators(decl, ds, 64);
	for (uint32_t i = 0; i < nd; i++) {
		int depth;
		TSNode name = _kbx_c_declared_name(w, decl, ds[i], 0, &depth);
		if (!ts_node_is_null(name))
			_kbx_walk_bind(w, _kbx_node_text(w, name), object_type(w, decl, depth));
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
	TSNode parent = _kbx_walk_up(w, n);
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
		else if (!strcmp(type, "expression_statement"))
			_kbx_c_visit_bare_name(w, n);
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
		if (!strcmp(type, "preproc_def") || !strcmp(type, "preproc_function_def")) {
			_kbx_c_visit_define(w, n, kbx_tree_sitter_c());
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
	/* every identifier of a file comes here: most are not in capitals,
	 * and none of those is one of these */
	if (n < 8 || *w < 'A' || *w > 'Z' || w[n - 1] < 'A' || w[n - 1] > 'Z')
		return 0;
	if (n > 5 && !memcmp(w, "ABSL_", 5)) {
		w += 5;
		n -= 5;
	}
	for (size_t i = 0; annotations[i]; i++)
		if (annotations[i][0] == *w && strlen(annotations[i]) == n &&
		    !memcmp(w, annotations[i], n))
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

/* ---- macros ---- */

#define MACRO_PARAMS_MAX 64
#define MACRO_BODY_MAX (64 * 1024)

/* The text a macro's value is put in to be parsed: the value is then
 * the statements of a function's body, which is what most values are
 * (an expression, a statement, `do { ... } while (0)`, a block). */
static const char macro_head[] = "void m(void){";
static const char macro_tail[] = "\n;}";

/* Does a file of this name hold macros other files see by including it
 * (a header, or a file without an extension)?  A source file's macros
 * are its own. */
static int shares_macros(const char *path)
{
	static const char *const sources[] = { ".c", ".cc", ".cpp", ".cxx", ".c++", ".C", NULL };
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
	if (!dot || (slash && dot < slash))
		return 1;
	for (size_t i = 0; sources[i]; i++)
		if (!strcmp(dot, sources[i]))
			return 0;
	return 1;
}

struct macro_body {
	const char *text;       /* macro_head, the value, macro_tail */
	size_t len;
	TSPoint at;             /* where the value starts in the file */
	const char *params[MACRO_PARAMS_MAX + 1];
	size_t nparams;
	/* where the names the parse explained start: the calls it found,
	 * the functions it saw defined */
	uint32_t *seen;
	size_t nseen, aseen;
};

static void macro_seen(struct macro_body *b, uint32_t at)
{
	if (!_kbx_grow((void **)&b->seen, &b->aseen, b->nseen, sizeof(*b->seen), 16))
		b->seen[b->nseen++] = at;
}

static int macro_was_seen(const struct macro_body *b, uint32_t at)
{
	for (size_t i = 0; i < b->nseen; i++)
		if (b->seen[i] == at)
			return 1;
	return 0;
}

static int macro_param(const struct macro_body *b, const char *name)
{
	for (size_t i = 0; i < b->nparams; i++)
		if (!strcmp(b->params[i], name))
			return 1;
	return 0;
}

/* Is the name at [s, e) of the body pasted to another token with ##? */
static int pasted(const struct macro_body *b, uint32_t s, uint32_t e)
{
	while (s > 0 && (b->text[s - 1] == ' ' || b->text[s - 1] == '\t'))
		s--;
	while (e < b->len && (b->text[e] == ' ' || b->text[e] == '\t'))
		e++;
	return (s > 0 && b->text[s - 1] == '#') || (e < b->len && b->text[e] == '#');
}

static int macro_keyword(const char *w, size_t n);

/* A call in a macro's value, reported from the macro at its place in
 * the file: f(x) as a call of f, or of a value when f is a parameter;
 * p->f(x) and s.f(x) as calls of a value (a function pointer, as in C
 * code outside macros); ns::f(x) with its scope as the receiver. */
static void macro_call(struct kbx_walk *w, int sym, struct macro_body *b, TSNode call)
{
	TSNode fn = _kbx_field(call, "function");
	if (ts_node_is_null(fn))
		return;
	struct _kbx_arena *a = &w->x->arena;
	int recv = KBX_RECV_NONE;
	const char *name = NULL, *receiver = NULL;
	if (_kbx_is(fn, "field_expression")) {
		fn = _kbx_field(fn, "field");
		recv = KBX_RECV_VALUE;
	}
	uint32_t s = ts_node_start_byte(fn), e = ts_node_end_byte(fn);
	if (e > b->len || s >= e)
		return;
	macro_seen(b, s);
	if (_kbx_is(fn, "identifier") || _kbx_is(fn, "field_identifier")) {
		if (pasted(b, s, e))
			return;
		if (macro_keyword(b->text + s, e - s))
			return;     /* throw(x), which C's grammar reads as a call */
		name = _kbx_arena_strndup(a, b->text + s, e - s);
		if (name && macro_param(b, name))
			recv = KBX_RECV_VALUE;
	} else if (_kbx_is(fn, "qualified_identifier")) {
		/* ns::f, ::f; not a template's f<T> */
		const char *t = b->text + s, *end = b->text + e, *last = NULL;
		if (memchr(t, '<', e - s) || pasted(b, s, e))
			return;
		if (end - t > 2 && t[0] == ':' && t[1] == ':')
			t += 2;
		for (const char *p = t; p + 1 < end; p++)
			if (p[0] == ':' && p[1] == ':')
				last = p;
		name = _kbx_arena_strndup(a, last ? last + 2 : t, (size_t)(end - (last ? last + 2 : t)));
		if (last) {
			char *r = (char *)_kbx_arena_strndup(a, t, (size_t)(last - t));
			size_t k = 0;
			for (size_t i = 0; r && r[i]; i++) {
				if (r[i] == ':' && r[i + 1] == ':')
					i++, r[k++] = '.';
				else if (r[i] != ' ' && r[i] != '\t')
					r[k++] = r[i];
			}
			if (r)
				r[k] = 0;
			receiver = r;
			recv = KBX_RECV_EXPR;
		}
	} else {
		return;
	}
	if (!name || !*name)
		return;
	TSPoint p = ts_node_start_point(call);
	size_t head = sizeof(macro_head) - 1;
	if (!p.row && p.column < head)
		return;
	uint32_t line = b->at.row + p.row + 1;
	uint32_t col = p.row ? p.column + 1 : b->at.column + (uint32_t)(p.column - head) + 1;
	_kbx_x_call(w->x, name, recv, receiver, sym, line, col);
}

static const char *skip_blank(const char *p, const char *end)
{
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p + 1 < end && p[0] == '\\' && p[1] == '\n')
			p += 2;
		else if (p + 2 < end && p[0] == '\\' && p[1] == '\r' && p[2] == '\n')
			p += 3;
		else
			return p;
	}
}

static const char *skip_ident(const char *p, const char *end)
{
	while (p < end && ident_char(*p))
		p++;
	return p;
}

/* Words that a '(' follows without a call (and those of
 * macro_skips_args). */
static int macro_keyword(const char *w, size_t n)
{
	static const char *const words[] = {
		"if", "while", "for", "switch", "return", "sizeof", "do", "else", "case",
		"defined", "typeof", "__typeof__", "__typeof", "_Alignof", "alignof", "__alignof__",
		"_Generic", "__extension__", "_Static_assert", "static_assert", "decltype",
		"noexcept", "throw", "catch", "void", "int", "char", "short", "long",
		"unsigned", "signed", "float", "double", "const", "volatile", "struct", "union",
		"enum", "operator", "new", "delete", "__VA_OPT__", NULL,
	};
	for (size_t i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !memcmp(words[i], w, n))
			return 1;
	return 0;
}

/* Words whose parenthesized arguments hold no calls. */
static int macro_skips_args(const char *w, size_t n)
{
	static const char *const words[] = {
		"__attribute__", "__attribute", "__declspec", "asm", "__asm__", "__asm",
		"alignas", "_Alignas", NULL,
	};
	for (size_t i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !memcmp(words[i], w, n))
			return 1;
	return 0;
}

/* What the parse did not read as a call, read as the preprocessor
 * would: a name followed by '(' (a value's text is often no valid C:
 * `if keyiswhite(n) mark(g, n);`, `cast(t *, f(x))`).  Not a keyword,
 * a member (after '.', "->", "::"), a name pasted with ##, or one the
 * parse explained (a call found, a function defined). */
static void macro_scan_calls(struct kbx_walk *w, int sym, struct macro_body *b)
{
	size_t head = sizeof(macro_head) - 1, tail = sizeof(macro_tail) - 1;
	const char *t = b->text, *p = t + head, *end = t + b->len - tail;
	uint32_t row = 0;
	const char *line = t;     /* where the row starts */
	while (p < end) {
		const char *past = skip_comment_or_literal(p, end);
		if (past != p) {
			for (const char *q = p; q < past; q++)
				if (*q == '\n') {
					row++;
					line = q + 1;
				}
			p = past;
			continue;
		}
		if (*p == '\n') {
			row++;
			line = ++p;
			continue;
		}
		if (!ident_char(*p) || (*p >= '0' && *p <= '9') || (p > t && ident_char(p[-1]))) {
			p++;
			continue;
		}
		const char *name = p;
		p = skip_ident(p, end);
		size_t n = (size_t)(p - name);
		const char *next = skip_blank(p, end);
		const char *prev = name;
		while (prev > t + head && (prev[-1] == ' ' || prev[-1] == '\t'))
			prev--;
		int member = prev > t + head && (prev[-1] == '.' || prev[-1] == '#' ||
						  (prev[-1] == '>' && prev - 1 > t + head && prev[-2] == '-') ||
						  (prev[-1] == ':' && prev - 1 > t + head && prev[-2] == ':'));
		if (next < end && *next == '(' && macro_skips_args(name, n)) {
			/* __attribute__((visibility("default"))): no calls */
			const char *q = next;
			for (int depth = 0; q < end; q++) {
				if (*q == '\n') {
					row++;
					line = q + 1;
				}
				depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
				if (!depth)
					break;
			}
			p = q < end ? q + 1 : end;
			continue;
		}
		if (next >= end || *next != '(' || member || macro_keyword(name, n) ||
		    macro_was_seen(b, (uint32_t)(name - t)))
			continue;
		const char *text = _kbx_arena_strndup(&w->x->arena, name, n);
		if (!text)
			return;
		uint32_t col = (uint32_t)(name - line);
		uint32_t fline = b->at.row + row + 1;
		uint32_t fcol = row ? col + 1 : b->at.column + (uint32_t)(col - head) + 1;
		_kbx_x_call(w->x, text, macro_param(b, text) ? KBX_RECV_VALUE : KBX_RECV_NONE, NULL,
			    sym, fline, fcol);
	}
}

/* The calls in a macro's value (text[0..len), which starts at point at
 * of the file): first as the grammar reads the value as the body of a
 * function (what the preprocessor would put where the macro is used),
 * then, for what that did not read as a call, by the names followed by
 * '(' (macro_scan_calls).  A name pasted with ## names no function as
 * written and is left out. */
static void macro_body_calls(struct kbx_walk *w, int sym, struct macro_body *b,
			     const char *value, size_t len, const TSLanguage *grammar)
{
	size_t head = sizeof(macro_head) - 1, tail = sizeof(macro_tail) - 1;
	if (!len || len > MACRO_BODY_MAX)
		return;
	char *text = malloc(head + len + tail);
	if (!text)
		return;
	memcpy(text, macro_head, head);
	memcpy(text + head, value, len);
	memcpy(text + head + len, macro_tail, tail);
	b->text = text;
	b->len = head + len + tail;
	if (!w->aux_parser)
		w->aux_parser = ts_parser_new();
	TSTree *tree = NULL;
	if (w->aux_parser && ts_parser_set_language(w->aux_parser, grammar))
		tree = ts_parser_parse_string(w->aux_parser, NULL, text, (uint32_t)b->len);
	if (tree) {
		TSNode root = ts_tree_root_node(tree);
		TSTreeCursor cur = ts_tree_cursor_new(root);
		for (int more = 1; more;) {
			TSNode n = ts_tree_cursor_current_node(&cur);
			if (_kbx_is(n, "call_expression")) {
				macro_call(w, sym, b, n);
			} else if (_kbx_is(n, "function_definition") &&
				   !ts_node_eq(n, ts_node_named_child(root, 0))) {
				/* a function the value defines: not a call */
				TSNode name = declarator_name(_kbx_field(n, "declarator"));
				if (!ts_node_is_null(name))
					macro_seen(b, ts_node_start_byte(name));
			}
			/* attributes and asm hold no calls (the scan below
			 * skips them too) */
			int skip = _kbx_is(n, "attribute_specifier") || _kbx_is(n, "attribute_declaration") ||
				   _kbx_is(n, "ms_declspec_modifier") || _kbx_is(n, "gnu_asm_expression");
			if (!skip && ts_tree_cursor_goto_first_child(&cur))
				continue;
			while (!ts_tree_cursor_goto_next_sibling(&cur))
				if (!ts_tree_cursor_goto_parent(&cur)) {
					more = 0;
					break;
				}
		}
		ts_tree_cursor_delete(&cur);
		ts_tree_delete(tree);
	}
	macro_scan_calls(w, sym, b);
	free(b->seen);
	free(text);
}

/* The end of a #define's value starting at p: the first new line that
 * no backslash continues, outside comments and literals.  Read from the
 * text rather than from the grammar's node, which a comment inside a
 * value continued over several lines breaks. */
static const char *define_end(const char *p, const char *end)
{
	const char *start = p;
	while (p < end && *p != '\n') {
		const char *past = skip_comment_or_literal(p, end);
		if (past != p) {
			p = past;
			continue;
		}
		if (*p == '\\' && p + 1 < end && (p[1] == '\n' || (p[1] == '\r' && p + 2 < end &&
								    p[2] == '\n')))
			p += p[1] == '\n' ? 2 : 3;
		else
			p++;
	}
	while (p > start && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\r'))
		p--;
	return p;
}

/* The file's point at byte b, counting from the node n before it. */
static TSPoint point_at(struct kbx_walk *w, TSNode n, const char *b)
{
	TSPoint pt = ts_node_start_point(n);
	for (const char *p = w->src + ts_node_start_byte(n); p < b; p++) {
		if (*p == '\n') {
			pt.row++;
			pt.column = 0;
		} else {
			pt.column++;
		}
	}
	return pt;
}

void _kbx_c_visit_bare_name(struct kbx_walk *w, TSNode n)
{
	TSNode id = ts_node_named_child(n, 0);
	const char *type;
	if (ts_node_named_child_count(n) != 1 || !_kbx_is(id, "identifier") ||
	    _kbx_walk_caller(w) < 0)
		return;
	const char *name = _kbx_node_text(w, id);
	if (name && !_kbx_walk_bound(w, name, 0, &type))
		_kbx_x_call(w->x, name, KBX_RECV_MACRO, NULL, _kbx_walk_caller(w), _kbx_node_line(id),
			    _kbx_node_col(id));
}

/* Does text hold word as a whole identifier? */
static int has_word(const char *text, const char *word)
{
	size_t len = strlen(word);
	for (const char *p = text; p && *p && (p = strstr(p, word)); p += len)
		if ((p == text || !_kbx_word_char((unsigned char)p[-1])) &&
		    !_kbx_word_char((unsigned char)p[len]))
			return 1;
	return 0;
}

/* The name a branch's own #define lines (not nested ones) give name,
 * and whether one names a word of cond (an include guard's
 * `#define X_H`, a default's `#define name` under #ifndef name). */
static void branch_defines(struct kbx_walk *w, TSNode branch, const char *name,
			   const char *cond, int *defines_name, int *defines_cond)
{
	/* a cursor: the children by index would cost a walk from the
	 * first each, and an include guard's branch holds a whole header */
	TSTreeCursor cur = ts_tree_cursor_new(branch);
	for (int more = ts_tree_cursor_goto_first_child(&cur); more;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode d = ts_tree_cursor_current_node(&cur);
		if (!ts_node_is_named(d) ||
		    (!_kbx_is(d, "preproc_def") && !_kbx_is(d, "preproc_function_def")))
			continue;
		const char *dn = _kbx_field_text(w, d, "name");
		if (!dn)
			continue;
		if (!strcmp(dn, name))
			*defines_name = 1;
		if (cond && has_word(cond, dn))
			*defines_cond = 1;
	}
	ts_tree_cursor_delete(&cur);
}

int _kbx_c_conditional(struct kbx_walk *w, TSNode n, const char *name)
{
	TSNode up = _kbx_walk_up(w, n);
	for (int guard = 0; guard < 64 && !ts_node_is_null(up); guard++) {
		if (!_kbx_is(up, "preproc_if") && !_kbx_is(up, "preproc_ifdef") &&
		    !_kbx_is(up, "preproc_elif") && !_kbx_is(up, "preproc_elifdef") &&
		    !_kbx_is(up, "preproc_else")) {
			up = _kbx_walk_up(w, up);
			continue;
		}
		/* the head of the chain: #elif and #else hang from the #if
		 * as its alternative */
		TSNode head = up;
		while (!_kbx_is(head, "preproc_if") && !_kbx_is(head, "preproc_ifdef")) {
			head = _kbx_walk_up(w, head);
			if (ts_node_is_null(head))
				return 0;
		}
		TSNode c = _kbx_field(head, "condition");
		const char *cond = _kbx_node_text(w, ts_node_is_null(c) ? _kbx_field(head, "name") : c);
		int all = 1, last_else = 0, names_cond = 0;
		for (TSNode b = head; !ts_node_is_null(b); b = _kbx_field(b, "alternative")) {
			int dn = 0, dc = 0;
			branch_defines(w, b, name, b.id == head.id ? cond : NULL, &dn, &dc);
			all &= dn;
			names_cond |= dc;
			last_else = _kbx_is(b, "preproc_else");
		}
		/* an include guard, a default (#ifndef name), or every branch
		 * (#else too) defines name: as if unconditional here */
		if (!(cond && (has_word(cond, name) || names_cond)) && !(all && last_else))
			return 1;
		up = _kbx_walk_up(w, head);
	}
	return 0;
}

void _kbx_c_visit_define(struct kbx_walk *w, TSNode n, const TSLanguage *grammar)
{
	struct macro_body b = { 0 };
	const char *end = w->src + w->len, *p = w->src + ts_node_start_byte(n);
	if (ts_node_start_byte(n) >= w->len || *p != '#')
		return;
	/* # define NAME(a, b) value  or  # define NAME value */
	p = skip_blank(p + 1, end);
	if (end - p < 7 || memcmp(p, "define", 6) || !(p[6] == ' ' || p[6] == '\t' || p[6] == '\\'))
		return;
	p = skip_blank(p + 6, end);
	const char *name = p;
	p = skip_ident(p, end);
	if (p == name || (*name >= '0' && *name <= '9'))
		return;
	const char *text = _kbx_arena_strndup(&w->x->arena, name, (size_t)(p - name));
	int function_like = p < end && *p == '(';
	if (function_like) {
		for (p = skip_blank(p + 1, end); p < end && *p != ')' && *p != '\n';) {
			const char *q = skip_ident(p, end);
			if (q > p && b.nparams < MACRO_PARAMS_MAX)
				b.params[b.nparams++] = _kbx_arena_strndup(&w->x->arena, p, (size_t)(q - p));
			p = q > p ? q : p + 1;
			p = skip_blank(p, end);
		}
		if (p >= end || *p != ')')
			return;
		b.params[b.nparams++] = "__VA_ARGS__";
		p++;
	}
	const char *value = skip_blank(p, end);
	const char *vend = define_end(value, end);
	if (!text || (!function_like && vend == value))
		return;     /* #define GUARD_H: nothing calls it */
	for (size_t i = 0; i < b.nparams; i++)
		if (!b.params[i])
			return;
	TSPoint last = point_at(w, n, vend);
	int sym = _kbx_x_sym(w->x, KBX_KIND_MACRO, text, text, -1, _kbx_node_line(n),
			     _kbx_node_col(n), last.row + 1);
	if (sym < 0)
		return;
	w->x->syms[sym].node = n;
	if (!shares_macros(w->path))
		w->x->syms[sym].flags |= KBX_SYM_FILE_LOCAL;
	if (_kbx_c_conditional(w, n, text))
		w->x->syms[sym].flags |= KBX_SYM_CONDITIONAL;
	b.at = point_at(w, n, value);
	macro_body_calls(w, sym, &b, value, (size_t)(vend - value), grammar);
}

static const char *const c_extensions[] = { ".c", ".h", NULL };

const struct kbx_lang _kbx_lang_c = {
	.name = "c",
	.extensions = c_extensions,
	.grammar = kbx_tree_sitter_c,
	.visit = c_visit,
	.import_candidates = _kbx_c_import_candidates,
	.implicit_self = 0,
	.no_type_calls = 1,
	.mask = _kbx_c_mask_macros,
	.scope_sep = ".",
	.visibility = _kbx_c_visibility,
};
