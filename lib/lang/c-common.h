/*
 * Private to the C and C++ extractors: how a declarator names what it
 * declares, which both grammars write alike.  Defined in lib/lang/c.c.
 */
#ifndef KBX_LANG_C_COMMON_H
#define KBX_LANG_C_COMMON_H

#include "lang.h"

/*
 * The name a declarator declares (an identifier, a field, a type name),
 * and through how many pointers its type is reached: -1 for an array or
 * a function pointer.  A null node for a function's declaration, which
 * declares no variable, unless vexing: in a C++ function's body, `T x(y);`
 * and `T x(f());` declare the variable x (the grammar cannot tell them
 * from functions; a compiler knows that y is no type).  parent is the
 * node d is the declarator of.
 */
TSNode _kbx_c_declared_name(struct kbx_walk *w, TSNode parent, TSNode d, int vexing,
			    int *depth);
/* The children of n in the field "declarator" (a declaration may have
 * several), at most max into out; how many. */
uint32_t _kbx_c_declarators(TSNode n, TSNode *out, uint32_t max);

/*
 * #define NAME value and #define NAME(params) value (preproc_def,
 * preproc_function_def of either grammar): a definition of kind macro at
 * the top of the file, whatever #if or function it is written in; one
 * defined in a source file (not a header) is file-local.  An object-like
 * define without a value (`#define LUA_H`) defines nothing: no call can
 * name it.  The calls in the value are the macro's: the value is parsed
 * with grammar as the body of a function (see macro_body_calls() in
 * lib/lang/c.c).  One defined only in some builds (see _kbx_c_conditional)
 * is KBX_SYM_CONDITIONAL.
 */
void _kbx_c_visit_define(struct kbx_walk *w, TSNode n, const TSLanguage *grammar);
/*
 * Is n, a definition of name, there only in some builds: inside an #if,
 * #ifdef or #ifndef (or its #elif or #else) whose branches do not all,
 * #else included, define name?  An include guard (`#ifndef X_H` with
 * `#define X_H` in it) and a default (`#ifndef name`, `#if
 * !defined(name)`) do not count: they hold in every build where nothing
 * outside the repository defines the name.
 */
int _kbx_c_conditional(struct kbx_walk *w, TSNode n, const char *name);
/* An expression statement that is a bare name, `vmbreak;`, in a
 * function, the name bound to no parameter or local: a use of an
 * object-like macro (nothing else does anything there), reported as a
 * call of kind KBX_RECV_MACRO. */
void _kbx_c_visit_bare_name(struct kbx_walk *w, TSNode n);

#endif
