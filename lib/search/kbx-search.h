/*
 * libkbx's retrieval layer: registries, chunks, BM25, vectors, fusion.
 *
 * Same conventions as kbx.h: a quiet library, status codes, struct
 * kbx_error.  The chunks of a store are indexed by kbx_search_index()
 * (after kbx_index_run() for the code graph, or on their own) and
 * searched by kbx_search().  Views returned point into the store's memory
 * map and stay valid until the results are released or the store closed.
 */
#ifndef KBX_SEARCH_H
#define KBX_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"
#include "text/chunk.h"
#include "embed/embed.h"

/* ---- registries: directories of error entries and documents ---- */

/* Call fn with each registry the store indexes (absolute paths), in byte
 * order. */
kbx_status_t kbx_registry_list(kbx_store_t *store,
			       void (*fn)(void *data, const char *path, int64_t added),
			       void *data, struct kbx_error *err);
/* Add (path must be an existing directory; it is made absolute) or
 * remove one; the store must be open for writing.  Adding one already
 * there, or removing one that is not, is KBX_NOT_FOUND-free: add returns
 * KBX_OK and sets *was_there; remove returns KBX_NOT_FOUND. */
kbx_status_t kbx_registry_add(kbx_store_t *store, const char *path, int *was_there,
			      struct kbx_error *err);
kbx_status_t kbx_registry_remove(kbx_store_t *store, const char *path, struct kbx_error *err);

/* ---- indexing ---- */

#define KBX_SEARCH_PART_CODE      1u  /* code chunks from the graph */
#define KBX_SEARCH_PART_REGISTRY  2u  /* the registries and the repository's Markdown */

struct kbx_search_index_opts {
	unsigned parts;                 /* KBX_SEARCH_PART_*; 0: both */
	int rebuild;                    /* make the chunks of these parts again
					 * from nothing (kbx index --rebuild) */
	int markdown;                   /* index the repository's *.md (with REGISTRY) */
	int code_chunks;                /* index code chunks (with CODE) */
	const struct kbx_embed_config *embed;  /* NULL: builtin */
	const char *index_kind;         /* "auto" (NULL), "flat", "hnsw", "ivf" */
	uint32_t hnsw_m, ivf_nlist;     /* 0: chosen from the collection size */
	uint64_t max_file_size;         /* registry and Markdown files; 0: 1 MiB */
	int threads;                    /* threads that make code chunks beside
					 * the one that writes; 0: one per core */
	void (*notify)(void *data, const struct kbx_note *note);
	void *notify_data;
};

struct kbx_search_index_stats {
	uint64_t sources;               /* files looked at */
	uint64_t sources_changed;       /* (re)read */
	uint64_t sources_removed;
	uint64_t files_skipped;         /* registry files skipped whole */
	uint64_t entries_skipped;       /* entries or documents skipped */
	uint64_t docs_skipped;          /* the repository's Markdown files left
					 * out (too large, unreadable) */
	uint64_t warnings;
	uint64_t chunks_added, chunks_removed;
	int code_remade;                /* the code chunks, made by an older kbx
					 * another way, were all made again */
	uint64_t chunks_by_type[KBX_CHUNK__COUNT];   /* in the store after the run */
	uint64_t chunks;
	/* the chunks of this run that needed a vector: each was embedded,
	 * or has the text of another one of this run (embedded once), or
	 * found its vector in the cache that earlier runs filled */
	uint64_t embedded;              /* texts sent to the embedding provider */
	uint64_t embed_repeated;        /* the same text as another chunk of the run */
	uint64_t embed_cached;          /* vectors from an earlier run's cache */
	uint64_t cache_pruned;          /* vectors no chunk has, dropped from the
					 * cache (it had grown past twice the chunks) */
	/* the vector index after the run, whether or not this run built it */
	uint64_t vectors;               /* in the vector file; 0 when there is none */
	char vector_kind[24];           /* "flat", "hnsw32", "ivf1024", or "" */
	int vectors_rebuilt;            /* this run wrote the file */
	uint64_t vector_delta;          /* chunks added since the vector file was
					 * built, searched beside it */
	uint64_t generation;            /* the search generation */
	int committed;                  /* the chunks and BM25 of this run were
					 * committed (also when embedding failed) */
	double seconds, seconds_embed, seconds_vectors;
	double seconds_chunk;           /* reading sources and making chunks */
	double seconds_postings;        /* writing the postings, sorted */
	/* where the CPU time went (user and system, every thread, seconds):
	 * all of it; making chunks (reading the sources, cutting the texts,
	 * writing the chunks; the registries' and Markdown's tokenized as
	 * they are written); tokenizing code chunks for BM25; sorting and writing
	 * the postings; embedding; building the vector file.  What these
	 * leave of cpu is the rest: comparing the sources, the cache of
	 * vectors, the commit. */
	double cpu, cpu_chunk, cpu_tokenize, cpu_postings, cpu_embed, cpu_vectors;
};

/* Bring the chunks, the BM25 index and the vector index up to date.  The
 * chunks and BM25 commit in one write transaction; the vector index is
 * then written to a file stamped with the new search generation.  When
 * embedding fails (a remote provider down) the chunks are still
 * committed, the vector index stays at its old generation (searches say
 * it is stale) and the error is returned.  With opts->rebuild, or after
 * a kbx_index_run() with rebuild whose code chunks no run has made yet,
 * the chunks are dropped and made again in that same transaction.  The
 * counts of what was added and removed are 0 when nothing committed
 * (stats->committed). */
kbx_status_t kbx_search_index(kbx_store_t *store, const struct kbx_search_index_opts *opts,
			      struct kbx_search_index_stats *stats, struct kbx_error *err);

/* ---- searching ---- */

enum kbx_search_mode { KBX_MODE_HYBRID = 0, KBX_MODE_VECTOR = 1, KBX_MODE_LEXICAL = 2 };
enum kbx_fusion { KBX_FUSION_RRF = 0, KBX_FUSION_LINEAR = 1 };
enum kbx_signal { KBX_SIG_VECTOR = 0, KBX_SIG_LEXICAL = 1, KBX_SIG_PATTERN = 2, KBX_SIG__COUNT };

const char *kbx_signal_str(int sig);     /* "vector", "lexical", "pattern" */

struct kbx_search_query {
	const char *text;
	size_t len;
	int mode;                       /* enum kbx_search_mode */
	int fusion;                     /* enum kbx_fusion */
	double vector_weight;           /* linear fusion; < 0: 0.7 */
	double rrf_k;                   /* <= 0: 60 */
	size_t limit;                   /* 0: 10 */
	double min_score;               /* drop hits whose confidence is lower */
	int every_section;              /* not one hit per document */
	int expand;                     /* BM25 looks up words near the query's too */
	size_t depth;                   /* candidates per signal; 0: max(100, 5 * limit) */
	/* filters (NULL or 0: none) */
	unsigned types;                 /* bit (1 << enum kbx_chunk_type) */
	const char *lang;               /* entries for "all" match every language */
	const char *const *tags;        /* every tag must be present */
	size_t ntags;
	const char *severity;
	const char *path;               /* a prefix of the path, or a glob with * ? [ */
	uint32_t ef_search, nprobe;     /* 0: the index's defaults */
	const struct kbx_embed_config *embed;  /* must match the one indexed */
	/* A graph scope: only the code chunks of these graph nodes (ids,
	 * sorted, no repeats) are searched; NULL: no scope.  See
	 * kbx_scope_plan for how the scope is searched. */
	const uint32_t *scope;
	size_t nscope;
	int scope_plan;                 /* enum kbx_scope_plan */
	/* The caller holds nothing read through the store: when an index
	 * run replaced the vector index after the store's snapshot, the
	 * search moves to the latest one (kbx_store_refresh) and runs
	 * again. */
	int refresh;
};

/*
 * How a scoped search runs.  Graph-first: the scope's chunks are looked
 * up and scored one by one (BM25 by a seek per term, vectors read from
 * the cache and compared exactly).  Vector-first: the whole collection is
 * searched as usual, with more candidates, and what is outside the scope
 * is dropped.  AUTO takes graph-first when the scope holds at most
 * KBX_SCOPE_GRAPH_FIRST_MAX chunks or at most a tenth of the code chunks
 * (KBX_SCOPE_GRAPH_FIRST_RATIO): scoring a few chunks directly costs
 * less than a search that throws most of its candidates away, and is
 * exact.
 */
enum kbx_scope_plan { KBX_SCOPE_AUTO = 0, KBX_SCOPE_GRAPH_FIRST = 1, KBX_SCOPE_VECTOR_FIRST = 2 };
#define KBX_SCOPE_GRAPH_FIRST_MAX 256
#define KBX_SCOPE_GRAPH_FIRST_RATIO 0.10
const char *kbx_scope_plan_str(int plan);   /* "auto", "graph-first", "vector-first" */

struct kbx_signal_score {
	int rank;                       /* 1-based; 0: not in this signal's list */
	double score;                   /* cosine, BM25, or specificity */
};

#define KBX_HIT_SECTIONS 3
/* a vector rank's weight against a BM25 or pattern rank's in reciprocal
 * rank fusion */
#define KBX_RRF_VECTOR_WEIGHT 0.5
/* a first hit less confident than this: "no entry matches well" */
#define KBX_WEAK_CONFIDENCE 0.5

/* Another section of a hit's document that ranked too, further down. */
struct kbx_hit_section {
	uint32_t id;                    /* chunk id */
	const char *heading;            /* into the store */
	uint32_t line, end_line;
};

struct kbx_search_hit {
	uint32_t id;                    /* chunk id */
	struct kbx_chunk chunk;         /* strings point into the store */
	double score;                   /* fused */
	/* how likely the hit answers the query, in [0, 1], from its BM25
	 * share of the query, its cosine and a pattern match (calibrated on
	 * question sets: see hit_confidence() in lib/search/search.c) */
	double confidence;
	double lexical_share;           /* BM25 score / the query's bound */
	struct kbx_hit_section sections[KBX_HIT_SECTIONS];
	size_t nsections;
	size_t more_sections;           /* that ranked beyond those */
	struct kbx_signal_score sig[KBX_SIG__COUNT];
	/* pattern signal: where the pattern matched in the query */
	size_t match_off, match_len;
};

struct kbx_signal_report {
	int used;                       /* the signal ran */
	uint64_t candidates;            /* hits before the filters and the depth cut */
	uint64_t passed;                /* of them, those the filters let through */
	int passed_exact;               /* 0: passed is a lower bound */
	size_t expanded;                /* lexical: words near the query's looked up too */
	char expanded_words[256];       /* the first of them, space-separated */
	double ms;
	/* vector: the module was used (a flat index is searched without
	 * it), and the part of ms spent loading it */
	int module;
	double load_ms;
	char note[1600];                /* why it did not run, or a warning */
};

struct kbx_search_results {
	struct kbx_search_hit *hits;
	size_t n;
	struct kbx_signal_report sig[KBX_SIG__COUNT];
	char vector_kind[24];
	uint64_t chunks;                /* in the collection */
	char *strings;                  /* owned */
	/* a scoped search: the plan taken, and the counts it was chosen by */
	int scope_plan;                 /* enum kbx_scope_plan; AUTO: no scope */
	uint64_t scope_nodes;           /* graph nodes in the scope */
	uint64_t scope_chunks;          /* their code chunks (graph-first) */
	uint64_t code_chunks;           /* code chunks in the collection */
	char scope_why[256];            /* why this plan, in words */
	/* the language the query is about, when it says and --lang does
	 * not: entries of other languages weigh less */
	char lang[16];
	char lang_why[64];              /* what said it */
	/* a pasted error message searched for its exception lines */
	int focused;
	/* sections folded into their document's hit */
	size_t folded;
};

/* Run a query.  KBX_NOT_FOUND when nothing matched.  A signal that cannot
 * run (no vector index, a stale one, an embedding provider that fails)
 * is reported in results->sig[].note and left out in hybrid mode; in
 * vector mode it is the error. */
kbx_status_t kbx_search(kbx_store_t *store, const struct kbx_search_query *q,
			struct kbx_search_results *out, struct kbx_error *err);
void kbx_search_results_release(struct kbx_search_results *r);

/* ---- searching an index that lives elsewhere (kbx --db) ---- */

/*
 * The same search as kbx_search(), over the chunks, postings and error
 * patterns of one repository's index as another holds them (the database
 * kbx push fills): the same BM25 (over the pushed counts: the chunks,
 * their lengths, each term's count in each), the same patterns (compiled
 * here from their source), the same fusion, cut and confidence, so that
 * the hits come in the same order as the index's own search.  The vector
 * signal, when the source has vectors: they are searched here as the
 * index searches its flat file (the same codes, exact pass and order),
 * the query embedded here by the embedding named in `embedding` (another
 * one: the signal is left out with a note; in vector mode it is the
 * error, as is why_no_vectors when there are none).  A graph scope is
 * searched as the index searches it (the same plan; graph-first, the
 * scope's vectors compared exactly) when the source gives its chunks.
 */
typedef void (*kbx_posting_fn)(void *fdata, size_t term, uint32_t id, uint32_t tf,
			       uint32_t len);
struct kbx_search_source {
	void *data;
	uint64_t nchunks;               /* in the collection */
	uint64_t chunk_tokens;          /* the sum of their lengths in tokens */
	/* The postings of terms[0..n) (tokens as the tokenizer cuts them;
	 * terms[i] is lens[i] bytes): df[i] filled for every term first,
	 * then fn(fdata, i, chunk id, count in the chunk, the chunk's
	 * length) for each chunk holding terms[i], term after term in the
	 * order given.  With subset (a graph scope's chunks, sorted), fn
	 * is needed for those chunks only (others are passed over); df
	 * counts every chunk still. */
	kbx_status_t (*postings)(void *data, const char *const *terms, const size_t *lens,
				 size_t n, const uint32_t *subset, size_t nsubset, uint64_t *df,
				 kbx_posting_fn fn, void *fdata, struct kbx_error *err);
	/* fn(fdata, chunk id, its pattern in Python syntax) for every
	 * error pattern, by chunk id. */
	kbx_status_t (*patterns)(void *data, void (*fn)(void *fdata, uint32_t id, const char *pattern),
				 void *fdata, struct kbx_error *err);
	/* The chunks ids[0..n) into out[0..n) (type 0 for an id there is
	 * none of); their strings stay valid as long as data does. */
	kbx_status_t (*chunks)(void *data, const uint32_t *ids, size_t n, struct kbx_chunk *out,
			       struct kbx_error *err);
	/* The vectors' 8-bit codes as a flat vector file holds them
	 * (lib/util/vflat.c), or NULL (why_no_vectors then says why): *n
	 * of them, by id, (*ids)[i]'s code the *dim signed bytes at
	 * (*codes)[i * dim], with its scale (*scales)[i]; the arrays stay
	 * valid as long as data does.  embedding: the identity of the
	 * embedder that made the vectors (NULL or "": none). */
	kbx_status_t (*codes)(void *data, uint64_t *n, uint32_t *dim, const int64_t **ids,
			      const float **scales, const int8_t **codes, struct kbx_error *err);
	/* The vectors of ids[0..n) (of those codes gave, ascending) into
	 * x[n * dim]: the candidates the codes pick, or every one where
	 * the search is exact. */
	kbx_status_t (*vectors)(void *data, const int64_t *ids, size_t n, uint32_t dim, float *x,
				struct kbx_error *err);
	const char *embedding;
	/* The document frequencies of terms[0..n) into df[0..n), for the
	 * weights the builtin embedding gives a query's terms; NULL: the
	 * query is embedded unweighted. */
	kbx_status_t (*df)(void *data, const char *const *terms, const size_t *lens, size_t n,
			   uint64_t *df, struct kbx_error *err);
	const char *why_no_vectors;
	/* A graph scope (q->scope), when both are there (else it is
	 * refused): the number of code chunks into *n, and fn(fdata,
	 * chunk id) for each code chunk of the graph nodes nodes[0..n)
	 * (sorted), the scope's chunks its graph-first plan scores. */
	kbx_status_t (*code_chunks)(void *data, uint64_t *n, struct kbx_error *err);
	kbx_status_t (*node_chunks)(void *data, const uint32_t *nodes, size_t n,
				    void (*fn)(void *fdata, uint32_t id), void *fdata,
				    struct kbx_error *err);
};
/* Results as kbx_search's; the hits' strings are data's. */
kbx_status_t kbx_search_source(const struct kbx_search_source *src,
			       const struct kbx_search_query *q, struct kbx_search_results *out,
			       struct kbx_error *err);

/* What kbx push publishes for kbx_search_source: fn(data, chunk id,
 * term, its length, its count in the chunk, the chunk's length) for
 * every posting of the store's snapshot, term by term (counts and
 * lengths as BM25 reads them, at most 65535).  Non-zero from fn stops
 * the walk, and KBX_OK is returned. */
typedef int (*kbx_posting_walk_fn)(void *data, uint32_t id, const char *term, size_t len,
				   uint32_t tf, uint32_t dl);
kbx_status_t kbx_postings_walk(kbx_store_t *store, kbx_posting_walk_fn fn, void *data,
			       struct kbx_error *err);

/* What kbx push publishes of the vectors: the identity of the embedder
 * that made them into ident (empty when the store has no vectors), then
 * fn(data, chunk id, its vector, dim) for every chunk of the store's
 * snapshot, by id, its vector read from the cache the vector index is
 * built from.  *missing counts the chunks that have none there.
 * Non-zero from fn stops the walk, and KBX_OK is returned. */
typedef int (*kbx_vector_walk_fn)(void *data, uint32_t id, const float *v, uint32_t dim);
kbx_status_t kbx_vectors_walk(kbx_store_t *store, char *ident, size_t identsz,
			      kbx_vector_walk_fn fn, void *data, uint64_t *missing,
			      struct kbx_error *err);

/* Call fn with every chunk of the store's snapshot, by chunk id (for
 * kbx push); the chunk's strings are valid during the call only.
 * Non-zero from fn stops the walk, and KBX_OK is returned. */
typedef int (*kbx_chunk_fn)(void *data, uint32_t id, const struct kbx_chunk *chunk);
kbx_status_t kbx_chunks_walk(kbx_store_t *store, kbx_chunk_fn fn, void *data,
			     struct kbx_error *err);

/* Does chunk c pass the filters of q (types, lang, tags, severity, path;
 * not its scope)?  For results found otherwise that the same filters
 * must hold for (kbx context's hybrid step). */
int kbx_search_passes(const struct kbx_search_query *q, const struct kbx_chunk *c);

/* The fused score of ranks (1-based, 0 = absent) under RRF with k: sum of
 * 1 / (k + rank).  Exposed for tests. */
double kbx_rrf(const int *ranks, size_t n, double k);
/* The same with a weight per list (weights[i] / (k + ranks[i])); NULL:
 * every weight 1. */
double kbx_rrf_weighted(const int *ranks, const double *weights, size_t n, double k);

/* Where the store's vector index lives: "<kbx_dir>/vectors.kbxv". */
char *kbx_search_vector_path(kbx_store_t *store);

struct kbx_search_info {
	uint64_t chunks, by_type[KBX_CHUNK__COUNT];
	uint64_t terms, postings;
	uint64_t chunk_tokens;          /* the sum of the chunks' lengths (BM25) */
	uint64_t generation;            /* search generation of the store */
	uint64_t vector_generation;     /* of the vector file; 0 if none */
	uint64_t vectors;
	uint32_t dim;
	char vector_kind[24];
	char identity[128];             /* embedder the vectors come from */
	int vector_state;               /* 0 none, 1 current, 2 stale, 3 unreadable */
	uint64_t vector_delta;          /* chunks added since the file was built */
	uint64_t vectors_missing;       /* chunks committed without a vector (an
					 * embedding failed); the next run makes them */
	uint64_t registries;
};
kbx_status_t kbx_search_info(kbx_store_t *store, struct kbx_search_info *info,
			     struct kbx_error *err);

/* ---- fusing the ranked lists of several stores (fuse.c) ---- */

struct kbx_repos_fused {
	size_t list, item;      /* the item'th result (from 0) of list */
	double score;           /* the fused score */
	size_t nlists;          /* how many lists hold the result */
};

/*
 * Fuse nlists ranked lists (counts[i] results each, best first) by
 * reciprocal rank fusion with k (<= 0: 60): a result of rank r scores
 * 1 / (k + r).  key(data, list, item) names a result; results of the
 * same key in several lists are one, counted once: the one of the best
 * rank is kept and scores by that rank alone (nlists says how many
 * lists held it); NULL key, or a NULL key returned, makes every result
 * its own.  Ties go to tie(data, list, item) (larger first; may
 * be NULL), then to the earlier list.  *out is malloc()ed (the caller
 * frees it), *nout entries, best first.
 */
kbx_status_t kbx_repos_fuse(size_t nlists, const size_t *counts, double k,
			    const char *(*key)(void *data, size_t list, size_t item),
			    double (*tie)(void *data, size_t list, size_t item), void *data,
			    struct kbx_repos_fused **out, size_t *nout, struct kbx_error *err);

#endif
