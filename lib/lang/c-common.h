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

#endif
