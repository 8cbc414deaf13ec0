/*
 * lib/hybrid/: the top layer of the library: questions for the graph and
 * the search together (kbx hybrid), read into a plan (understand.c) and
 * answered over lib/analysis/ and lib/search/ (hybrid.c); kbx-hybrid.h
 * is its public header.
 *
 * Private to lib/hybrid/: a question read into its parts.
 */
#ifndef KBX_HYBRID_INTERNAL_H
#define KBX_HYBRID_INTERNAL_H

#include "hybrid/kbx-hybrid.h"

/*
 * What the words of a question ask for, before anything is looked up.
 * Every string is malloc()ed or NULL.
 */
struct _kbx_question {
	int relation;            /* enum kbx_hybrid_rel */
	char *relation_words;    /* "what calls" */
	char *target;            /* the phrase the traversal starts from */
	char *within;            /* "within src/auth" */
	char *called_by;         /* "that is called by the HTTP client" */
	char *calls;             /* "that calls save" */
	char *similar;           /* "similar to retry with backoff" */
	char *rest;              /* words no cue took, fillers dropped */
	uint32_t depth;          /* 0: not said; KBX_HYBRID_DEPTH_ALL */
	char *depth_words;
	unsigned kinds;          /* 1 << enum kbx_kind; 0: any */
	char *kind_words;
	/* registry documents asked for: "patterns used by classes extending
	 * X", "documentation about ...", "how do I ..." */
	unsigned doc_types;      /* 1 << enum kbx_chunk_type; 0: none asked */
	char *doc_words;         /* "patterns", "how do I" */
	int doc_head;            /* documents are what the question asks for:
				  * no code search of their words */
	int doc_hop;             /* enum kbx_hybrid_hop: what of the graph's
				  * results the documents are about */
	char *doc_hop_words;     /* "used by", "about" */
	char *glob;              /* "matching 'auth*'": a glob over names */
};

/* Read a question (understand.c).  Returns 0, or -1 when memory runs
 * out. */
int _kbx_understand(const char *query, struct _kbx_question *q);
void _kbx_question_release(struct _kbx_question *q);

/* The graph and search of a store, for kbx_hybrid_over (store-graph.c). */
void _kbx_hybrid_store_graph(kbx_store_t *store, struct kbx_hybrid_graph *g);

#endif
