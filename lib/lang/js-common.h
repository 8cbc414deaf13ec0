/*
 * Private to the JavaScript, TypeScript/TSX, Java, C# and Ruby extractors
 * and to Vue and Svelte components: the JavaScript visitor that
 * TypeScript extends, and a few text helpers that all five need
 * (receiver text, base names, dotted definitions).  Everything here is
 * defined in lib/lang/javascript.c, but _kbx_ts_visit in typescript.c.
 */
#ifndef KBX_LANG_JS_COMMON_H
#define KBX_LANG_JS_COMMON_H

#include "lang.h"

/* ---- JavaScript, shared with TypeScript and TSX ---- */

/* The JavaScript visitor; TypeScript calls it for every node type the two
 * grammars have in common. */
int _kbx_js_visit(struct kbx_walk *w, TSNode n, const char *type);
/* The TypeScript visitor (lib/lang/typescript.c), which Vue and Svelte
 * components with lang="ts" use too. */
int _kbx_ts_visit(struct kbx_walk *w, TSNode n, const char *type);
/* Set up and free the per-file state _kbx_js_visit needs in lang_state;
 * _kbx_ts_begin for TypeScript and TSX, whose annotations and declared
 * fields state types that JavaScript leaves to the run time. */
void _kbx_js_begin(struct kbx_walk *w);
void _kbx_ts_begin(struct kbx_walk *w);
void _kbx_js_end(struct kbx_walk *w);
/* To be called first on entering every node (_kbx_js_visit does): ends
 * what the walk has left behind, the bindings of an anonymous function
 * (which opens no scope of its own) and the type parameters of a
 * generic declaration. */
void _kbx_js_enter(struct kbx_walk *w, TSNode n);
/* Define a class (CLASS, or INTERFACE for TypeScript interfaces) called
 * name at node at, and report the bases listed in the class_heritage or
 * extends_type_clause children of cls (usually at itself). */
int _kbx_js_define_class(struct kbx_walk *w, TSNode at, TSNode cls, int kind, const char *name);
/* A class field (JavaScript field_definition, TypeScript
 * public_field_definition, whose name is in name_field): one that holds a
 * function is a method, one that holds a class expression a nested class. */
void _kbx_js_visit_field(struct kbx_walk *w, TSNode n, const char *name_field);
/* Relative ES/CommonJS specifiers ("./a", "../b/c.js") to files; bare
 * package names get no candidates. */
void _kbx_js_import_candidates(const char *importer, const struct kbx_ximport *imp,
			       struct kbx_pathlist *out);

/* ---- text helpers for all five extractors ---- */

/* Flags for _kbx_jsc_clean_text. */
#define KBX_JSC_STRIP_GENERICS 0x01  /* drop <...> groups: "Base<T>" -> "Base" */
#define KBX_JSC_NONNULL        0x02  /* "?." is ".", and a postfix "!" is dropped */

/*
 * The text of n as one short line, in the arena: whitespace runs become one
 * space (none next to '.', brackets or commas), "::", "->", "?." and "&."
 * become ".", a postfix non-null "!" before "." is dropped, a leading "::"
 * or "global::" is dropped, and the result is capped at a couple of hundred
 * bytes.  NULL when n is null or the text is empty.
 */
const char *_kbx_jsc_clean_text(struct kbx_walk *w, TSNode n, int flags);

/* The text of a string literal node without its quotes (and without a Ruby
 * or C# prefix such as @ or $); NULL if it is not a plain literal. */
const char *_kbx_jsc_string_value(struct kbx_walk *w, TSNode n);

/*
 * The type parameters in scope (class C<T>, function f<T>(), M<T>()), so
 * that a declared type that is one (T) is not taken for a class of that
 * name.  Each is pushed when the walk enters the declaration that lists
 * it, and dropped once the walk is past that declaration's end.
 */
struct _kbx_jsc_tparams {
	struct _kbx_jsc_tparam { const char *name; uint32_t end; } *v;
	size_t n, alloc;
};
/* Push the names that list (type_parameters, type_parameter_list) gives
 * the declaration decl. */
void _kbx_jsc_tparams_push(struct kbx_walk *w, struct _kbx_jsc_tparams *tp, TSNode decl,
			   TSNode list);
/* Is name a type parameter in scope at node at? */
int _kbx_jsc_tparams_has(struct _kbx_jsc_tparams *tp, TSNode at, const char *name);
void _kbx_jsc_tparams_release(struct _kbx_jsc_tparams *tp);

/*
 * The bindings made inside a construct that is no scope of the walker's
 * (an anonymous function, a C# block): each construct pushed is
 * remembered with the number of bindings before it, and what was bound
 * since is dropped once the walk is past its end.
 */
struct _kbx_jsc_unbinds {
	struct _kbx_jsc_unbind { uint32_t end; size_t nbind; } *v;
	size_t n, alloc;
};
/* Drop what is bound from here on at the end of node n. */
void _kbx_jsc_unbind_at_end(struct kbx_walk *w, struct _kbx_jsc_unbinds *u, TSNode n);
/* Entering node at: drop the bindings of the constructs it is past. */
void _kbx_jsc_unbind_leave(struct kbx_walk *w, struct _kbx_jsc_unbinds *u, TSNode at);
void _kbx_jsc_unbinds_release(struct _kbx_jsc_unbinds *u);

/*
 * Define a symbol whose name is written qualified ("Foo.Bar", "A::B") inside
 * the current scope: name is the last component, qual is the current scope's
 * qualified name joined with the whole dotted text, and (when open_scope) a
 * scope is opened for it.  Returns the sym index or -1.
 */
int _kbx_jsc_define_dotted(struct kbx_walk *w, TSNode n, int kind, const char *dotted,
			   int open_scope);

/* The first named child of n whose type is one of types (NULL-ended),
 * or a null node. */
TSNode _kbx_jsc_child_of_types(TSNode n, const char *const *types);
/* Foo(...) written as a call_expression whose callee, a node of type
 * ident, starts with a capital letter (how Kotlin and Swift construct):
 * "Foo", in the arena; NULL for anything else. */
const char *_kbx_jsc_capital_call(struct kbx_walk *w, TSNode v, const char *ident);

/* import a.b.C (Java, Kotlin): the name C of the module a.b, bound to
 * alias if not NULL; a name without a dot is the module itself. */
void _kbx_jsc_import_dotted(struct kbx_walk *w, const char *dotted, const char *alias, int flags,
			    uint32_t line);

/*
 * Add "<dir>/<rel>" for every ancestor directory of importer, deepest first,
 * down to the repository root: a guess at the source roots under which a
 * package path such as "com/acme/util/" may live.  suffix is appended
 * ("/" for a directory, ".java" for a file).
 */
void _kbx_jsc_add_under_ancestors(const char *importer, const char *rel, const char *suffix,
				  struct kbx_pathlist *out);

/*
 * Where a JVM language's import may point when files sit, by convention,
 * in their package's directory (Kotlin, Scala): import a.b.C is a file
 * a/b/C<ext>, else a file of the directory a/b/ under a source root (the
 * importer's ancestors) that defines C; a wildcard import a.b.* is that
 * directory, or the object a/b<ext>.  Nothing for a module under one of
 * the platform roots (NULL-ended: "java", "kotlin").
 */
void _kbx_jsc_package_candidates(const char *importer, const struct kbx_ximport *imp,
				 const char *const *platform, const char *ext,
				 struct kbx_pathlist *out);

#endif
