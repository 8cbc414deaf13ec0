/*
 * libkbx's hybrid questions: the code graph and the retrieval layer
 * together ("what calls add", "functions similar to parse_config within
 * src/auth", "code similar to retry with backoff that is called by the
 * HTTP client").
 *
 * kbx_hybrid() reads a question in words, makes a plan and runs it:
 *
 *   1. understand: the wording selects a traversal (defines, callers,
 *      callees, subclasses, superclasses, imports, importers, impact) and
 *      its depth; the symbols and paths named are resolved against the
 *      symbol table; "similar to ..." and leftover words are the text to
 *      search; "within P", "called by X" and "that calls X" constrain the
 *      results to a part of the graph (the scope);
 *   2. seeds: the resolved symbols, or, when a named thing resolves to no
 *      symbol, the best code chunks the search finds for its words, or,
 *      for a question with no traversal, the search's hits inside the
 *      scope (searched graph-first or vector-first, see kbx-search.h);
 *   3. expand: the traversal from every seed, breadth first, keeping for
 *      each node the fewest hops and the path it was reached by;
 *   4. rank: score = w_s similarity + w_g graph + w_i importance +
 *      w_r recency (each factor in [0, 1], see struct kbx_hybrid_result);
 *   5. documents: when the question asks for the registry's documents
 *      ("patterns used by classes extending X", "docs about ...", "how
 *      do I ..."), or when the code part found nothing for its words,
 *      the registry is searched too, with the words or with the names of
 *      what the graph's results use (the hop, see struct
 *      kbx_hybrid_plan).
 *
 * Same conventions as kbx.h: a quiet library, status codes, struct
 * kbx_error.  Everything returned is owned by the result and freed by
 * kbx_hybrid_release().
 */
#ifndef KBX_HYBRID_H
#define KBX_HYBRID_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"
#include "search/kbx-search.h"

enum kbx_hybrid_rel {
	KBX_REL_NONE = 0,       /* no traversal: the search's hits (and --expand) */
	KBX_REL_DEFINES,
	KBX_REL_CALLERS,
	KBX_REL_CALLEES,
	KBX_REL_SUBCLASSES,
	KBX_REL_SUPERCLASSES,
	KBX_REL_IMPORTS,
	KBX_REL_IMPORTERS,
	KBX_REL_IMPACT,         /* transitive callers and importers */
	KBX_REL__COUNT
};
const char *kbx_hybrid_rel_str(int rel);   /* "callers", ...; "search" for NONE */

/* The ranking's weights (see kbx-retrieval(7)); the defaults are
 * KBX_HYBRID_W_*. */
struct kbx_hybrid_weights {
	double similarity, graph, importance, recency;
};
#define KBX_HYBRID_W_SIMILARITY 0.5
#define KBX_HYBRID_W_GRAPH 0.3
#define KBX_HYBRID_W_IMPORTANCE 0.1
#define KBX_HYBRID_W_RECENCY 0.1
/* Recency halves for every 30 days a file is older than the newest
 * file among the results. */
#define KBX_HYBRID_RECENCY_HALF_LIFE_DAYS 30.0

struct kbx_hybrid_opts {
	const char *query;
	size_t limit;                   /* results; 0: 10 */
	uint32_t depth;                 /* hops of the traversal and of a "called
					 * by"/"calls" scope; 0: the wording's, or
					 * 1 (defines: 2, impact: all) */
	uint32_t expand;                /* with no traversal, hops of callers and
					 * callees added around the hits; 0: none */
	size_t seeds;                   /* search seeds kept; 0: 3 */
	struct kbx_hybrid_weights w;    /* a negative weight: its default */
	int scope_plan;                 /* enum kbx_scope_plan */
	int mode, fusion;               /* the search's (kbx-search.h) */
	const struct kbx_embed_config *embed;
	int certain;                    /* the traversal, the expansion and the
					 * "called by"/"calls" scopes follow only
					 * certain edges (KBX_WALK_CERTAIN) */
};
#define KBX_HYBRID_DEPTH_ALL UINT32_MAX

/* How a phrase of the question was resolved. */
enum kbx_hybrid_how {
	KBX_HOW_UNRESOLVED = 0,
	KBX_HOW_SYMBOL,         /* the symbol table: id, qualified or bare name */
	KBX_HOW_VARIANT,        /* a spelling of its words ("HTTP client": HttpClient) */
	KBX_HOW_FILE,           /* a file, by path or by its name */
	KBX_HOW_DIRECTORY,      /* the files under a directory */
	KBX_HOW_SEARCH,         /* no symbol: the search's best code chunks */
	KBX_HOW_GLOB            /* a glob over names ("auth*") */
};
const char *kbx_hybrid_how_str(int how);

/* A phrase of the question and what it stands for. */
struct kbx_hybrid_term {
	char *text;                     /* as written */
	const char *role;               /* "target", "within", "called-by", "calls",
					 * "similar-to" */
	int how;                        /* enum kbx_hybrid_how */
	char *spelling;                 /* the spelling that resolved it (VARIANT) */
	struct kbx_nodelist nodes;      /* what it resolved to */
	double *scores;                 /* SEARCH: each node's search score */
};

/* One starting point of the traversal. */
struct kbx_hybrid_seed {
	struct kbx_node node;
	const char *from;               /* "symbol", "class member", "search", "scope" */
	double score;                   /* the search's similarity; 1 for symbols */
};

/* Where a result's similarity comes from. */
enum kbx_hybrid_sim {
	KBX_SIM_SEARCH = 0,     /* its code against the search text */
	KBX_SIM_SEED,           /* the search that found its seed */
	KBX_SIM_NONE            /* no text: its seed was named (0) */
};
const char *kbx_hybrid_sim_str(int from);   /* "search", "seed", "none" */

/* One result.  Factors (each in [0, 1]):
 *   similarity  the node's code against the search text: the mean of its
 *               vector cosine and its BM25 score, each relative to the
 *               best among the candidates; when the text named the
 *               starting point instead (a search seed), the seed's; 0
 *               when there is no text (the seed was named)
 *   graph       1 / (1 + hops) from the nearest seed, halved when the
 *               way passes through an ambiguous call
 *   importance  ln(1 + callers) / ln(1 + most callers among the candidates)
 *   recency     0.5 ^ (days older than the newest candidate's file / 30) */
struct kbx_hybrid_result {
	struct kbx_node node;
	double score;
	double similarity, graph, importance, recency;
	int similarity_from;            /* enum kbx_hybrid_sim */
	double vector, lexical;         /* the raw signals (0: not found by it) */
	uint32_t hops;
	uint32_t callers;               /* direct callers (certain and ambiguous) */
	int64_t mtime;                  /* of its file, seconds; 0 if unknown */
	int confidence;                 /* the weakest edge on its path */
	/* the path from its seed: via[0] is the seed, via[nvia - 1] the
	 * result; via_line[i] is the site (in via[i]'s or via[i - 1]'s file)
	 * of the edge between via[i - 1] and via[i], 0 if none */
	struct kbx_node *via;
	uint32_t *via_line;
	size_t nvia;
};

/* What the registry's documents are about, after a traversal:
 * ABOUT its results, or what they USE (their callees and the imports of
 * their files). */
enum kbx_hybrid_hop { KBX_HOP_NONE = 0, KBX_HOP_ABOUT, KBX_HOP_USES };
const char *kbx_hybrid_hop_str(int hop);    /* "none", "about", "uses" */

/* Why the registry was searched. */
enum kbx_hybrid_docs_why {
	KBX_DOCS_NOT = 0,       /* it was not */
	KBX_DOCS_ASKED,         /* the question asks for documents ("patterns ...") */
	KBX_DOCS_HOWTO,         /* a how-to question: documents and code */
	KBX_DOCS_FALLBACK       /* the code part found nothing for the words */
};
const char *kbx_hybrid_docs_why_str(int why);  /* "asked", "how-to", "fallback" */

struct kbx_hybrid_plan {
	int relation;                   /* enum kbx_hybrid_rel */
	char *relation_words;           /* the words that selected it, or NULL */
	uint32_t depth;                 /* KBX_HYBRID_DEPTH_ALL: all */
	char *depth_words;              /* NULL: the default */
	int certain;                    /* only certain edges were followed */
	char *search_text;              /* the text searched, or NULL */
	char *similar_to;               /* the symbol whose code is the search
					 * text ("similar to parse_config") */
	unsigned kinds;                 /* results kept: a set of 1 << kind; 0: all */
	char *kind_words;
	struct kbx_hybrid_term *terms;
	size_t nterms;
	struct kbx_hybrid_seed *seeds;
	size_t nseeds;
	/* the scope and how its search ran */
	int scoped;
	uint64_t scope_nodes;
	int scope_plan;                 /* enum kbx_scope_plan */
	char scope_why[256];
	struct kbx_signal_report sig[KBX_SIG__COUNT];  /* of the last search */
	uint64_t candidates;            /* nodes reached before the cut */
	struct kbx_hybrid_weights w;
	/* the registry's documents */
	int docs_why;                   /* enum kbx_hybrid_docs_why */
	unsigned docs_types;            /* 1 << enum kbx_chunk_type */
	char *docs_words;               /* the words that asked, or NULL */
	int docs_hop;                   /* enum kbx_hybrid_hop */
	char *docs_hop_words;
	size_t docs_from;               /* results of the graph the hop started from */
	char **docs_names;              /* the names the hop collected */
	size_t ndocs_names;
	char *docs_text;                /* the text searched */
	struct kbx_signal_report docs_sig[KBX_SIG__COUNT];
	double ms_docs;
	char **notes;                   /* what the user should know: an
					 * ambiguous name, a skipped signal */
	size_t nnotes;
	double ms_plan, ms_search, ms_expand, ms_rank;
};

struct kbx_hybrid_results {
	struct kbx_hybrid_plan plan;
	struct kbx_hybrid_result *items;
	size_t n;
	size_t total;                   /* results before the limit cut them */
	struct kbx_search_results docs; /* the registry's hits, best first: n of
					 * them within the limit, and hits[]
					 * holds docs_total */
	size_t docs_total;              /* hits before the limit */
	int docs_capped;                /* the search stopped at three times the
					 * limit: there may be more */
	struct kbx_nodelist strings;    /* owns the node strings of via[] */
};

/*
 * The graph and the search a plan reads.  kbx_hybrid() reads a store;
 * kbx_hybrid_over() reads what g gives: the same plan over another copy
 * of an index (kbx --db: the database kbx push fills, one repository).
 * Nodes, edges and hits must be as the store's own calls give them
 * (kbx_lookup, kbx_walk_edges_flags, kbx_search...), in the same order,
 * for the answer to be the same; their strings stay valid as long as
 * data does.  A callback that fails returns its status with err set.
 */
typedef int (*kbx_hybrid_node_fn)(void *fdata, const struct kbx_node *n);
struct kbx_hybrid_graph {
	void *data;
	/* kbx_lookup */
	kbx_status_t (*lookup)(void *data, const char *symbol, struct kbx_nodelist *out,
			       struct kbx_error *err);
	/* the node of id, or of canonical id cid: KBX_NOT_FOUND if none */
	kbx_status_t (*node)(void *data, uint32_t id, struct kbx_node *out, struct kbx_error *err);
	kbx_status_t (*node_by_cid)(void *data, const char *cid, struct kbx_node *out,
				    struct kbx_error *err);
	/* fn with every node whose canonical id starts with prefix, in byte
	 * order of the ids (kbx_ids_with_prefix); non-zero from fn stops */
	kbx_status_t (*prefixed)(void *data, const char *prefix, kbx_hybrid_node_fn fn,
				 void *fdata, struct kbx_error *err);
	/* the file nodes whose path is t or ends in "/t", by path */
	kbx_status_t (*files_named)(void *data, const char *t, struct kbx_nodelist *out,
				    struct kbx_error *err);
	/* kbx_walk_edges_flags from node n */
	kbx_status_t (*walk)(void *data, const struct kbx_node *n, int kind, int dir,
			     uint32_t max_depth, unsigned flags, kbx_edge_fn fn, void *fdata,
			     struct kbx_error *err);
	/* kbx_name_candidates */
	kbx_status_t (*name_candidates)(void *data, const struct kbx_node *ref, int lang,
					struct kbx_nodelist *out, struct kbx_error *err);
	/* kbx_suggest; NULL: no "did you mean" */
	kbx_status_t (*suggest)(void *data, const char *symbol, size_t max,
				struct kbx_nodelist *out, struct kbx_error *err);
	/* the text of node n's code chunk: KBX_NOT_FOUND if it has none */
	kbx_status_t (*code_text)(void *data, const struct kbx_node *n, const char **text,
				  size_t *len, struct kbx_error *err);
	/* kbx_search; a graph scope (q->scope) the source cannot search is
	 * KBX_ERR_USAGE, with err saying so */
	kbx_status_t (*search)(void *data, const struct kbx_search_query *q,
			       struct kbx_search_results *out, struct kbx_error *err);
	/* the chunks that are not code (the registry's documents) */
	kbx_status_t (*documents)(void *data, uint64_t *n, struct kbx_error *err);
	/* each result's direct callers (certain and through its name:) and
	 * its file's modification time in seconds (0: unknown) */
	kbx_status_t (*facts)(void *data, struct kbx_hybrid_result *res, size_t n,
			      struct kbx_error *err);
	/* fn with each code chunk of the file path (kbx context's bodies
	 * when its source is no store); its strings stay valid during the
	 * call only */
	kbx_status_t (*file_chunks)(void *data, const char *path, kbx_chunk_fn fn, void *fdata,
				    struct kbx_error *err);
};

/* Answer a question.  KBX_NOT_FOUND when the plan ran and found nothing
 * (no result and no document)
 * (the plan is still filled, for --explain); KBX_ERR_USAGE when the
 * question has no words kbx can use (the message says what it
 * understands). */
kbx_status_t kbx_hybrid(kbx_store_t *store, const struct kbx_hybrid_opts *opts,
			struct kbx_hybrid_results *out, struct kbx_error *err);
kbx_status_t kbx_hybrid_over(const struct kbx_hybrid_graph *g, const struct kbx_hybrid_opts *opts,
			     struct kbx_hybrid_results *out, struct kbx_error *err);
void kbx_hybrid_release(struct kbx_hybrid_results *r);

/* The nodes a search scope stands for, sorted and unique, for kbx search
 * --within/--callers-of/--callees-of: within (a file, a class, a
 * directory: what is defined in it, at every depth), callers_of and
 * callees_of (at depth hops; a class or file stands for its functions and
 * methods).  NULL arguments are not used; the sets given intersect.
 * *ids is malloc()ed.  KBX_NOT_FOUND (with a message) when a name
 * resolves to nothing; an ambiguous name takes every definition and says
 * so in note (when not NULL, notesz bytes). */
kbx_status_t kbx_hybrid_scope(kbx_store_t *store, const char *within, const char *callers_of,
			      const char *callees_of, uint32_t depth, uint32_t **ids, size_t *n,
			      char *note, size_t notesz, struct kbx_error *err);

#endif
