/*
 * Which definitions a language makes visible outside their module, and
 * which say in their own syntax that they override a base's method: the
 * KBX_SYM_EXPORTED and KBX_SYM_OVERRIDE flags, which kbx dead reads.
 *
 * Each language's visibility() is called by the walker after its visit()
 * for every definition that visit made, with the node visited (for most
 * definitions their own node; for the types Go and Rust define ahead of
 * the walk, the body holding them).  A parent is always defined before
 * its children, so its flags are known when a member's are decided.
 *
 * KBX_SYM_IMPLICIT marks what the runtime or a framework calls without
 * naming it: Python functions under a decorator other than the few that
 * only wrap (staticmethod, classmethod, functools, abc), Java methods
 * with an annotation other than the compiler's own, C# members with an
 * attribute, C# properties, indexers and operators, JavaScript get and
 * set accessors.
 *
 * The rules are what the syntax says, never a guess about a module's
 * public surface:
 *
 *   C, C++      a function or method that is not static
 *   Go          a name that starts with an upper-case letter
 *   Python      a name without a leading underscore, not inside a
 *               function, in a class (if any) that is exported itself
 *   Rust        `pub` (not `pub(crate)` and the like, which stay in the
 *               crate); a method in `impl Trait for T` overrides
 *   Java        public or protected, or a member of an interface;
 *               @Override overrides
 *   C#          public or protected, or a member of an interface; the
 *               override modifier overrides
 *   JavaScript, TypeScript
 *               a declaration under `export`, `exports.f = ...`, and the
 *               methods of an exported class that are not #private or
 *               private; TypeScript's override modifier overrides
 *   Ruby        methods (public unless a `private` section says otherwise,
 *               which the extractor does not follow); top-level defs are not
 *   PHP         classes, interfaces, traits, enums and functions (PHP has
 *               no private ones); methods not declared private, in an
 *               exported type
 *   Kotlin      what is not private or internal (public is the default),
 *               in an exported type; the override modifier overrides; an
 *               annotation other than @Deprecated, @Suppress and @JvmStatic
 *               (@Test, @Composable) says a framework calls it
 *   Swift       public or open (internal, the default, stays in the
 *               module), in an exported type; override overrides; an
 *               attribute (@objc, @IBAction, @main) says the runtime calls it
 *   Scala       what is not private (public is the default; protected is
 *               seen by subclasses elsewhere), in an exported type; the
 *               override modifier overrides; an annotation other than
 *               @deprecated, @tailrec, @inline, @nowarn and @unused (@main,
 *               @Test) says the runtime or a framework calls it
 */
#include <string.h>

#include "lang.h"

static struct kbx_xsym *sym_at(struct kbx_walk *w, int i)
{
	return i >= 0 && (size_t)i < w->x->nsyms ? &w->x->syms[i] : NULL;
}

/* Is the parent of sym a type whose own flags say it is exported?  True
 * at top level. */
static int parent_exported(struct kbx_walk *w, const struct kbx_xsym *s)
{
	const struct kbx_xsym *p = sym_at(w, s->parent);
	if (!p)
		return 1;
	if (KBX_KIND_IS_CALLABLE(p->kind))
		return 0;
	return !!(p->flags & KBX_SYM_EXPORTED);
}

/* Does the text of n hold word as a whole word? */
static int has_word(struct kbx_walk *w, TSNode n, const char *word)
{
	uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
	size_t len = strlen(word);
	if (e > w->len || s > e || !len)
		return 0;
	for (uint32_t i = s; i + len <= e; i++) {
		if (memcmp(w->src + i, word, len))
			continue;
		int before = i > s && _kbx_word_char((unsigned char)w->src[i - 1]);
		int after = i + len < e && _kbx_word_char((unsigned char)w->src[i + len]);
		if (!before && !after)
			return 1;
	}
	return 0;
}

/* A named child of n of type type whose text holds word, or of that type
 * at all when word is NULL. */
static int child_says(struct kbx_walk *w, TSNode n, const char *type, const char *word)
{
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, type) && (!word || has_word(w, c, word)))
			return 1;
	}
	return 0;
}

void _kbx_c_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	(void)n;
	if (s && KBX_KIND_IS_CALLABLE(s->kind) && !(s->flags & KBX_SYM_FILE_LOCAL))
		s->flags |= KBX_SYM_EXPORTED;
}

void _kbx_cpp_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	if (!s || !KBX_KIND_IS_CALLABLE(s->kind))
		return;
	if (!(s->flags & KBX_SYM_FILE_LOCAL))
		s->flags |= KBX_SYM_EXPORTED;
	/* void f() override;  virtual_specifier sits in the declarator */
	TSNode d = _kbx_field(n, "declarator");
	if (!ts_node_is_null(d) && child_says(w, d, "virtual_specifier", "override"))
		s->flags |= KBX_SYM_OVERRIDE;
}

void _kbx_go_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	(void)n;
	if (s && s->name[0] >= 'A' && s->name[0] <= 'Z')
		s->flags |= KBX_SYM_EXPORTED;
}

/* Decorators that only wrap a function: it is still called by its name. */
static const char *const py_wrappers[] = {
	"staticmethod", "classmethod", "abstractmethod", "abc.abstractmethod", "override",
	"typing.override", "functools.wraps", "wraps", "functools.lru_cache", "lru_cache",
	"functools.cache", "cache", "contextmanager", "contextlib.contextmanager", NULL
};

/* Does a decorator of the function n register it or make it a property? */
static int py_registering_decorator(struct kbx_walk *w, TSNode n)
{
	TSNode d = _kbx_walk_up(w, n);
	if (!_kbx_is(d, "decorated_definition"))
		return 0;
	uint32_t count = ts_node_named_child_count(d);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(d, i);
		if (!_kbx_is(c, "decorator") || !ts_node_named_child_count(c))
			continue;
		TSNode e = ts_node_named_child(c, 0);
		if (_kbx_is(e, "call"))
			e = _kbx_field(e, "function");  /* @lru_cache(maxsize=8) */
		uint32_t a = ts_node_start_byte(e), b = ts_node_end_byte(e);
		if (ts_node_is_null(e) || b > w->len || a >= b)
			continue;
		int wrapper = 0;
		for (size_t k = 0; py_wrappers[k] && !wrapper; k++)
			wrapper = strlen(py_wrappers[k]) == b - a &&
				  !memcmp(w->src + a, py_wrappers[k], b - a);
		if (!wrapper)
			return 1;
	}
	return 0;
}

void _kbx_python_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	if (!s)
		return;
	if (s->name[0] != '_' && parent_exported(w, s))
		s->flags |= KBX_SYM_EXPORTED;
	if (KBX_KIND_IS_CALLABLE(s->kind) && py_registering_decorator(w, n))
		s->flags |= KBX_SYM_IMPLICIT;
}

static void rust_fn_visibility(struct kbx_walk *w, TSNode n, struct kbx_xsym *s)
{
	if (!_kbx_is(n, "function_item") && !_kbx_is(n, "function_signature_item"))
		return;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "visibility_modifier") &&
		    ts_node_end_byte(c) - ts_node_start_byte(c) == 3)
			s->flags |= KBX_SYM_EXPORTED;  /* exactly "pub" */
	}
	/* the methods of a trait are as visible as the trait */
	const struct kbx_xsym *p = sym_at(w, s->parent);
	if (p && p->kind == KBX_KIND_TRAIT && (p->flags & KBX_SYM_EXPORTED))
		s->flags |= KBX_SYM_EXPORTED;
	TSNode list = _kbx_walk_up(w, n);
	TSNode impl = _kbx_is(list, "declaration_list") ? _kbx_walk_up(w, list) : list;
	if (_kbx_is(impl, "impl_item") && !ts_node_is_null(_kbx_field(impl, "trait")))
		s->flags |= KBX_SYM_OVERRIDE;
}

/* Rust types: pub on the item itself (predefined types are told with
 * the body that holds them: nothing to say then). */
static void rust_type_visibility(struct kbx_walk *w, TSNode n, struct kbx_xsym *s)
{
	if (!_kbx_is(n, "trait_item"))
		return;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (_kbx_is(c, "visibility_modifier") &&
		    ts_node_end_byte(c) - ts_node_start_byte(c) == 3)
			s->flags |= KBX_SYM_EXPORTED;
	}
}

void _kbx_rust_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	if (!s)
		return;
	if (KBX_KIND_IS_CALLABLE(s->kind))
		rust_fn_visibility(w, n, s);
	else
		rust_type_visibility(w, n, s);
}

/* Java and C#: public or protected, or inside an interface. */
static void jvm_visibility(struct kbx_walk *w, TSNode n, struct kbx_xsym *s, const char *mods)
{
	const struct kbx_xsym *p = sym_at(w, s->parent);
	if (child_says(w, n, mods, "public") || child_says(w, n, mods, "protected") ||
	    (p && p->kind == KBX_KIND_INTERFACE))
		s->flags |= KBX_SYM_EXPORTED;
}

void _kbx_java_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	if (!s)
		return;
	jvm_visibility(w, n, s, "modifiers");
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		if (!_kbx_is(c, "modifiers"))
			continue;
		uint32_t nm = ts_node_named_child_count(c);
		for (uint32_t k = 0; k < nm; k++) {
			TSNode a = ts_node_named_child(c, k);
			if (!_kbx_is(a, "marker_annotation") && !_kbx_is(a, "annotation"))
				continue;
			if (has_word(w, a, "Override"))
				s->flags |= KBX_SYM_OVERRIDE;
			else if (!has_word(w, a, "Deprecated") && !has_word(w, a, "SuppressWarnings") &&
				 !has_word(w, a, "SafeVarargs"))
				s->flags |= KBX_SYM_IMPLICIT;  /* @Test, @Bean, @GetMapping */
		}
	}
}

void _kbx_csharp_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	if (!s)
		return;
	jvm_visibility(w, n, s, "modifier");
	if (child_says(w, n, "modifier", "override"))
		s->flags |= KBX_SYM_OVERRIDE;
	if (KBX_KIND_IS_CALLABLE(s->kind) &&
	    (child_says(w, n, "attribute_list", NULL) || _kbx_is(n, "property_declaration") ||
	     _kbx_is(n, "indexer_declaration") || _kbx_is(n, "operator_declaration") ||
	     _kbx_is(n, "conversion_operator_declaration") || _kbx_is(n, "destructor_declaration")))
		s->flags |= KBX_SYM_IMPLICIT;
}

/* Is n (a declaration, a declarator, an assignment) under an export
 * statement, looking up through the few nodes a declaration wraps it in? */
static int js_under_export(struct kbx_walk *w, TSNode n)
{
	for (int i = 0; i < 4 && !ts_node_is_null(n); i++) {
		const char *t = ts_node_type(n);
		if (!strcmp(t, "export_statement"))
			return 1;
		if (!strcmp(t, "program") || !strcmp(t, "statement_block") ||
		    !strcmp(t, "class_body"))
			return 0;
		n = _kbx_walk_up(w, n);
	}
	return 0;
}

void _kbx_js_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	if (!s)
		return;
	const struct kbx_xsym *p = sym_at(w, s->parent);
	if (p && KBX_KIND_IS_TYPE(p->kind) && _kbx_is(n, "method_definition")) {
		TSNode name = _kbx_field(n, "name");
		if ((p->flags & KBX_SYM_EXPORTED) && !_kbx_is(name, "private_property_identifier") &&
		    !child_says(w, n, "accessibility_modifier", "private"))
			s->flags |= KBX_SYM_EXPORTED;
		if (child_says(w, n, "override_modifier", NULL))
			s->flags |= KBX_SYM_OVERRIDE;
		/* get x() and set x(v) run when the property is read or written */
		TSNode first = ts_node_child(n, 0);
		for (uint32_t i = 0; !ts_node_is_null(first) && i < 4; i++) {
			if (ts_node_is_named(first) && !_kbx_is(first, "accessibility_modifier") &&
			    !_kbx_is(first, "override_modifier"))
				break;
			const char *t = ts_node_type(first);
			if (!strcmp(t, "get") || !strcmp(t, "set")) {
				s->flags |= KBX_SYM_IMPLICIT;
				break;
			}
			first = ts_node_next_sibling(first);
		}
		return;
	}
	if (p && KBX_KIND_IS_CALLABLE(p->kind))
		return;
	if (js_under_export(w, n)) {
		s->flags |= KBX_SYM_EXPORTED;
		return;
	}
	if (_kbx_is(n, "assignment_expression")) {
		TSNode left = _kbx_field(n, "left");
		if (_kbx_is(left, "member_expression")) {
			TSNode obj = _kbx_field(left, "object");
			uint32_t a = ts_node_is_null(obj) ? 0 : ts_node_start_byte(obj);
			uint32_t b = ts_node_is_null(obj) ? 0 : ts_node_end_byte(obj);
			if (!ts_node_is_null(obj) && b <= w->len && a <= b &&
			    ((b - a == 7 && !memcmp(w->src + a, "exports", 7)) ||
			     (b - a == 14 && !memcmp(w->src + a, "module.exports", 14))))
				s->flags |= KBX_SYM_EXPORTED;
		}
	}
}

void _kbx_ruby_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	(void)n;
	if (s && s->kind == KBX_KIND_METHOD)
		s->flags |= KBX_SYM_EXPORTED;
}

void _kbx_php_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	if (!s || !parent_exported(w, s))
		return;
	if (s->kind == KBX_KIND_METHOD) {
		/* no modifier: public (and the null node has no end) */
		TSNode mod = _kbx_child_of_type(n, "visibility_modifier");
		if (!ts_node_is_null(mod)) {
			uint32_t a = ts_node_start_byte(mod), b = ts_node_end_byte(mod);
			if (b <= w->len && b - a == 7 && !memcmp(w->src + a, "private", 7))
				return;
		}
	}
	s->flags |= KBX_SYM_EXPORTED;
}

void _kbx_kotlin_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	TSNode mods = _kbx_child_of_type(n, "modifiers");
	if (!s)
		return;
	int none = ts_node_is_null(mods);
	if (parent_exported(w, s) &&
	    (none || (!child_says(w, mods, "visibility_modifier", "private") &&
		      !child_says(w, mods, "visibility_modifier", "internal"))))
		s->flags |= KBX_SYM_EXPORTED;
	if (!none && child_says(w, mods, "member_modifier", "override"))
		s->flags |= KBX_SYM_OVERRIDE;
	uint32_t count = none ? 0 : ts_node_named_child_count(mods);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(mods, i);
		if (_kbx_is(a, "annotation") && !has_word(w, a, "Deprecated") &&
		    !has_word(w, a, "Suppress") && !has_word(w, a, "JvmStatic"))
			s->flags |= KBX_SYM_IMPLICIT;
	}
}

void _kbx_swift_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	TSNode mods = _kbx_child_of_type(n, "modifiers");
	if (!s || ts_node_is_null(mods))
		return;
	if (parent_exported(w, s) && (child_says(w, mods, "visibility_modifier", "public") ||
				      child_says(w, mods, "visibility_modifier", "open")))
		s->flags |= KBX_SYM_EXPORTED;
	if (child_says(w, mods, "member_modifier", "override"))
		s->flags |= KBX_SYM_OVERRIDE;
	if (child_says(w, mods, "attribute", NULL))
		s->flags |= KBX_SYM_IMPLICIT;
}

void _kbx_scala_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	static const char *const plain[] = {
		"deprecated", "tailrec", "inline", "nowarn", "unused", NULL
	};
	struct kbx_xsym *s = sym_at(w, sym);
	TSNode mods = _kbx_child_of_type(n, "modifiers");
	if (!s)
		return;
	int none = ts_node_is_null(mods);
	if (parent_exported(w, s) &&
	    (none || !child_says(w, mods, "access_modifier", "private")))
		s->flags |= KBX_SYM_EXPORTED;
	if (!none && _kbx_has_token(mods, "override"))
		s->flags |= KBX_SYM_OVERRIDE;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(n, i);
		const char *name = _kbx_is(a, "annotation") ? _kbx_field_text(w, a, "name") : NULL;
		size_t k = 0;
		while (name && plain[k] && strcmp(name, plain[k]))
			k++;
		if (name && !plain[k])
			s->flags |= KBX_SYM_IMPLICIT;
	}
}

void _kbx_dart_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	(void)n;
	if (s && s->name[0] != '_' && parent_exported(w, s))
		s->flags |= KBX_SYM_EXPORTED;
}

/* Elixir: a module, and what def, defmacro, defguard and defdelegate
 * define, are public; defp, defmacrop and defguardp private.  n is the
 * call of def (or defmodule). */
void _kbx_elixir_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	struct kbx_xsym *s = sym_at(w, sym);
	const char *macro = _kbx_field_text(w, n, "target");
	size_t len = macro ? strlen(macro) : 0;
	if (s && (!KBX_KIND_IS_CALLABLE(s->kind) || (len && macro[len - 1] != 'p')))
		s->flags |= KBX_SYM_EXPORTED;
}
