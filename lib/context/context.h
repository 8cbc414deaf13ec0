/*
 * lib/context/: the top layer of the library, above lib/hybrid/ and
 * lib/search/: context packs for a model (kbx context): the candidates
 * the hybrid questions and the search find, their callers' and callees'
 * signatures from the graph, packed within a token budget (context.c),
 * and the token estimate (tokens.c).  kbx-context.h is its public
 * header.
 */
#ifndef KBX_CONTEXT_INTERNAL_H
#define KBX_CONTEXT_INTERNAL_H

#include "context/kbx-context.h"

#endif
