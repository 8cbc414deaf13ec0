/*
 * lib/vector/: the vector module, built apart as kbx-vector.so and
 * reached only through lib/search/vecmod.c; it includes nothing of lib/
 * but kbx.h, lib/util/ and its own headers.
 *
 * The vector module: nearest-neighbour indexes for kbx's retrieval layer.
 *
 * The module (kbx-vector.so) links FAISS, OpenBLAS, OpenMP and the C++
 * runtime.  The kbx binary does not: loading those costs every process
 * about 1.7 ms at start-up, so only the commands that search or build
 * vectors load the module, through _kbx_vector_load() (lib/search/vecmod.h),
 * which returns the table of operations below.  This header is shared by
 * both sides and holds no FAISS type.
 *
 * Conventions of every operation:
 *   - it returns a KBX_VEC_* status, 0 on success;
 *   - on failure it writes a one-line message (first word lower case, no
 *     full stop, no newline) into err, truncated to errsz bytes; err may
 *     be NULL when errsz is 0;
 *   - it never prints, exits, or touches the terminal.
 *
 * Threads: one index is used by one thread at a time (search sets its
 * efSearch or nprobe); FAISS parallelises a batch of queries by itself,
 * and a FLAT search over many vectors splits its scan between two threads.
 *
 * Files: save() writes the index followed by a 64-byte trailer that
 * records the dimension, the kind, the vector count and a 64-bit
 * generation stamp, so that a caller can tell an index built from an older
 * code graph (see open()).  For HNSW, IVF and FACTORY the part before the
 * trailer is a plain FAISS index file; FLAT has a layout of kbx's own
 * (lib/vector/flat.c) that open() maps rather than reads, since every kbx
 * command is a new process that opens the index again.  A mapped file
 * must not be rewritten in place while open (save() never does: it
 * renames a new file over the old one, which stays mapped until freed).
 *
 * Which kind to build: choose() below picks it from the collection's size.
 */
#ifndef KBX_VECTOR_H
#define KBX_VECTOR_H

#include <stddef.h>
#include <stdint.h>

/* Raise when struct kbx_vector_ops, a struct the caller passes, or the
 * meaning of an operation changes incompatibly.  Appending an operation at
 * the end of the table keeps the number: the loader checks the module's
 * table is at least as large as the one it was compiled with.
 * 2: kbx_vector_search_params.rerank; choose() appended. */
#define KBX_VECTOR_ABI 2

/* The one symbol the module exports, and its type. */
#define KBX_VECTOR_MODULE_SYMBOL "kbx_vector_module"
#define KBX_VECTOR_MODULE_FILE "kbx-vector.so"
struct kbx_vector_ops;
/* Returns the table when the module speaks ABI abi, NULL otherwise. */
const struct kbx_vector_ops *kbx_vector_module(int abi);
typedef const struct kbx_vector_ops *(*kbx_vector_module_fn)(int abi);

/* Status codes.  Only ever append. */
enum kbx_vector_status {
	KBX_VEC_OK = 0,
	KBX_VEC_ERR_USAGE,      /* bad argument: dimension, kind, k, factory string */
	KBX_VEC_ERR_NOMEM,
	KBX_VEC_ERR_IO,         /* a file could not be opened, read, written or renamed */
	KBX_VEC_ERR_FORMAT,     /* not a kbx vector index, truncated, or a newer format */
	KBX_VEC_ERR_STALE,      /* the file's generation is not the one expected */
	KBX_VEC_ERR_DIM,        /* vectors or file of another dimension than expected */
	KBX_VEC_ERR_STATE,      /* not now: add before train, add to a read-only index */
	KBX_VEC_ERR_FAISS,      /* FAISS refused; the message is its own */
	KBX_VEC_ERR_MODULE,     /* (loader) module missing, unloadable, or another ABI */
	KBX_VEC_STATUS__COUNT
};

/* Stored in index files: only append. */
enum kbx_vector_kind {
	KBX_VEC_FLAT = 1,       /* every vector kept whole, file mapped on open;
				 * exact up to 4 x rerank vectors, beyond that
				 * 4-bit codes pick rerank candidates that are
				 * scored exactly (see search params) */
	KBX_VEC_HNSW = 2,       /* graph search ("IDMap,HNSW<m>,Flat") */
	KBX_VEC_IVF = 3,        /* inverted lists ("IVF<nlist>,Flat"); needs train() */
	KBX_VEC_FACTORY = 4     /* any FAISS factory string that accepts ids */
};

/* Stored in index files: only append. */
enum kbx_vector_metric {
	KBX_VEC_IP = 0,         /* inner product, larger is nearer; for unit vectors
				 * this is the cosine similarity kbx uses */
	KBX_VEC_L2 = 1          /* squared Euclidean distance, smaller is nearer */
};

#define KBX_VECTOR_MAX_DIM 65536

/* A new index. */
struct kbx_vector_spec {
	int kind;               /* enum kbx_vector_kind */
	int metric;             /* enum kbx_vector_metric */
	uint32_t dim;           /* 1 .. KBX_VECTOR_MAX_DIM */
	uint32_t hnsw_m;        /* HNSW: neighbours per node; 0 means 32 */
	uint32_t ivf_nlist;     /* IVF: number of lists, >= 1; training needs
				 * at least 39 vectors per list */
	const char *factory;    /* FACTORY: e.g. "IDMap,HNSW16,Flat" */
};

/* Per-query search knobs; 0 means the module's default.  A knob that does
 * not apply to the index (nprobe on HNSW) is ignored.  The defaults reach
 * recall@10 >= 0.95 against exhaustive search on clustered data (see
 * bench/vector.sh and the comment of choose() in lib/vector/index.c). */
struct kbx_vector_search_params {
	uint32_t ef_search;     /* HNSW: candidate list size; default 64, raised to k */
	uint32_t nprobe;        /* IVF: lists visited; default nlist / 8, at least
				 * 16, capped at nlist */
	uint32_t rerank;        /* FLAT: candidates scored exactly; default 200,
				 * raised to k; when 4 x rerank >= the vector count
				 * every vector is scored (exact search), so
				 * KBX_VEC_RERANK_ALL asks for exact search */
};
#define KBX_VEC_RERANK_ALL UINT32_MAX

/* The table has choose() (ABI 2); callers built against older headers
 * can test for it. */
#define KBX_VECTOR_HAS_CHOOSE 1

/* What an index or an index file is. */
struct kbx_vector_info {
	int kind;               /* enum kbx_vector_kind */
	int metric;             /* enum kbx_vector_metric */
	uint32_t dim;
	uint32_t param;         /* HNSW: m; IVF: nlist; otherwise 0 */
	uint64_t ntotal;        /* vectors in the index */
	uint64_t generation;    /* stamp of the file last read or written; 0 if none */
	int is_trained;         /* add() is allowed (unless read_only) */
	int read_only;          /* opened with KBX_VEC_OPEN_MMAP or _READ_ONLY */
};

/* open() flags. */
#define KBX_VEC_OPEN_MMAP        1u  /* map the vectors rather than read them, where
				      * the format allows: FLAT, and IVF (FAISS
				      * 1.7.3 maps its lists); implies read-only.
				      * HNSW is read whole whatever the flags */
#define KBX_VEC_OPEN_READ_ONLY   2u  /* refuse add() and train(); FLAT is mapped */
#define KBX_VEC_OPEN_GENERATION  4u  /* fail with KBX_VEC_ERR_STALE unless the file's
				      * stamp equals expect_generation */

typedef struct kbx_vector_index kbx_vector_index_t;

struct kbx_vector_ops {
	uint32_t abi;           /* KBX_VECTOR_ABI of the module */
	uint32_t size;          /* sizeof(struct kbx_vector_ops) in the module */
	const char *backend;    /* "faiss", for version output */

	/* A short description of a status ("index is stale"); never NULL. */
	const char *(*status_str)(int status);

	/* A new empty index; free it with free_index(). */
	int (*create)(const struct kbx_vector_spec *spec, kbx_vector_index_t **out,
		      char *err, size_t errsz);

	/* Train on n vectors of dim floats each (x[n * dim]).  IVF needs it
	 * before add(); on an index that is trained already it does nothing. */
	int (*train)(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *x,
		     char *err, size_t errsz);

	/* Add n vectors x[n * dim] with their ids (>= 0; -1 marks "no result"
	 * in searches).  Ids are not checked for duplicates. */
	int (*add)(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *x,
		   const int64_t *ids, char *err, size_t errsz);

	/* The k nearest neighbours of each of n queries q[n * dim], best
	 * first, into ids[n * k] and dist[n * k] (dist may be NULL).  Where
	 * fewer than k are found the rest of the row holds id -1.  params may
	 * be NULL for the defaults. */
	int (*search)(kbx_vector_index_t *ix, size_t n, uint32_t dim, const float *q,
		      size_t k, const struct kbx_vector_search_params *params,
		      int64_t *ids, float *dist, char *err, size_t errsz);

	/* Write the index to path with the given stamp, atomically: a
	 * temporary file in the same directory, fsync, rename, fsync of the
	 * directory.  Readers see the old file or the new one, never a mix. */
	int (*save)(kbx_vector_index_t *ix, const char *path, uint64_t generation,
		    char *err, size_t errsz);

	/* Open an index file.  flags: KBX_VEC_OPEN_*.  expect_dim, when not
	 * 0, must equal the file's dimension (else KBX_VEC_ERR_DIM).  The
	 * file's stamp goes to *generation (may be NULL), also when the result
	 * is KBX_VEC_ERR_STALE; *out is set only on success. */
	int (*open)(const char *path, unsigned flags, uint64_t expect_generation,
		    uint32_t expect_dim, kbx_vector_index_t **out, uint64_t *generation,
		    char *err, size_t errsz);

	/* Read only the trailer of an index file: cheap, for status output. */
	int (*peek)(const char *path, struct kbx_vector_info *info, char *err, size_t errsz);

	int (*info)(const kbx_vector_index_t *ix, struct kbx_vector_info *info);
	uint64_t (*ntotal)(const kbx_vector_index_t *ix);

	/* Free the index (and unmap its file); NULL is allowed. */
	void (*free_index)(kbx_vector_index_t *ix);

	/* (Appended in ABI 2.)  The kind of index for a collection of n
	 * vectors of dimension dim that a new process opens and searches
	 * once: fills spec's kind, dim, hnsw_m, ivf_nlist and factory; keeps
	 * spec->metric.  FLAT up to n x dim = 2^29 (2M vectors of 256), IVF
	 * above with an nlist that n vectors can train (the figures are in
	 * lib/vector/index.c).  Build what it says with create(), train()
	 * (a no-op for FLAT) and add().  KBX_VEC_ERR_USAGE for a dimension
	 * out of range. */
	int (*choose)(uint64_t n, uint32_t dim, struct kbx_vector_spec *spec);
};

#endif
