/*
 * kbx's vector index files, read without the vector module: the 64-byte
 * trailer every index file ends with, and the whole of kbx's own flat
 * layout (KBX_VEC_FLAT), mapped and searched.
 *
 * A search of a flat index needs no FAISS: it scans 4-bit codes and
 * scores a few hundred vectors exactly, plain C that the compiler turns
 * into SIMD instructions.  Loading kbx-vector.so for it (FAISS, OpenBLAS,
 * libgomp, libstdc++, libgfortran) costs the dynamic loader more than the
 * search, so the search layer maps a flat file itself (vecmod.c) and
 * loads the module only for HNSW, IVF and FACTORY files and to build
 * indexes.  The module's flat index (lib/vector/flat.c) writes the layout
 * described there and searches through the same functions, so that both
 * paths give the same ids, scores and order.
 *
 * This file stands below lib/vector/ (which includes it) and knows no
 * FAISS type.  Its status codes have the values of the module's
 * (enum kbx_vector_status in lib/vector/vector.h, which flat.c checks).
 */
#ifndef KBX_VFLAT_H
#define KBX_VFLAT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum kbx_vflat_status {
	KBX_VF_OK = 0,
	KBX_VF_NOMEM = 2,
	KBX_VF_IO = 3,
	KBX_VF_FORMAT = 4,
	KBX_VF_STALE = 5,
	KBX_VF_DIM = 6,
	KBX_VF_NOT_FLAT = 100   /* a good index file, of a kind the module reads */
};

/* The message fmt into err[errsz] (when err is not NULL); returns status. */
int _kbx_vf_vfail(char *err, size_t errsz, int status, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* Values of enum kbx_vector_kind and _metric stored in files. */
#define KBX_VF_KIND_FLAT 1
#define KBX_VF_KIND_LAST 4
#define KBX_VF_METRIC_L2 1

/* The trailer (its layout is described in vflat.c). */
#define KBX_VF_TRAILER_SIZE 64
#define KBX_VF_LAYOUT_FAISS 0
#define KBX_VF_LAYOUT_FLAT 1
#define KBX_VF_TRAINED 1u

struct kbx_vf_trailer {
	uint32_t format;
	uint64_t generation;
	uint64_t payload;       /* bytes before the trailer */
	uint64_t ntotal;
	uint32_t dim;
	uint8_t kind, metric, flags, layout;
	uint32_t param;
};

void _kbx_vf_trailer_encode(unsigned char out[KBX_VF_TRAILER_SIZE],
			    const struct kbx_vf_trailer *t);

/* Open path (no links followed) and read and check its trailer; *fd is
 * open on success, -1 otherwise.  KBX_VF_IO or _FORMAT with a message
 * naming the file in err. */
int _kbx_vf_open_file(const char *path, int *fd, struct kbx_vf_trailer *t, char *err,
		      size_t errsz);

/* pread() of len bytes at off, all of them (-1 with errno else). */
int _kbx_vf_read_at(int fd, void *buf, size_t len, uint64_t off);

/* Where the parts of the flat layout start, from d and n alone; 0 when
 * they would not fit in 2^63 bytes. */
struct kbx_vflat_layout {
	uint64_t factors, ids, codes, vectors, end;
	uint32_t stride;        /* bytes per code */
	uint32_t bits;          /* of each coordinate of a code: 8 or 4 */
};
/* The bits of the codes kbx writes (layout 3); layout 2's, 8, are read
 * still. */
#define KBX_VFLAT_BITS 4
int _kbx_vflat_layout(uint32_t dim, uint64_t n, uint32_t bits, struct kbx_vflat_layout *l);
#define KBX_VFLAT_HEADER_SIZE 64
void _kbx_vflat_header(unsigned char head[KBX_VFLAT_HEADER_SIZE], uint32_t dim, uint64_t n,
		       const struct kbx_vflat_layout *l);
/* Read the flat header of fd and check it against the trailer's dim,
 * ntotal and payload size; fills *l. */
int _kbx_vflat_check(int fd, const char *path, uint64_t payload, uint32_t dim,
		     uint64_t ntotal, struct kbx_vflat_layout *l, char *err, size_t errsz);

/*
 * A flat index to search: the arrays in memory or in a mapping.  codes
 * and factors may be NULL when only exact search is wanted (codes_ok 0).
 */
struct kbx_vflat {
	int metric;             /* 0 inner product, 1 squared L2 */
	uint32_t dim, stride;
	uint64_t n;
	const int64_t *ids;
	const float *x;         /* n rows of dim floats */
	const float *factors;   /* per vector: the code's scale, the squared length */
	const int8_t *codes;    /* n codes of stride bytes */
	uint32_t bits;          /* of a code's coordinate: 8 (one signed
				 * byte each; also when 0) or 4 (two to a
				 * byte, the even one low, each plus 8) */
	int codes_ok;
	void *map;              /* the mapping, when mapped */
	size_t map_len;
	uint64_t generation;    /* the file's stamp, when opened by _kbx_vflat_open */
};

/* Map the layout l of the first payload bytes of fd into *v. */
int _kbx_vflat_map(int fd, const char *path, uint64_t payload, const struct kbx_vflat_layout *l,
		   uint32_t dim, uint64_t n, int metric, struct kbx_vflat *v, char *err,
		   size_t errsz);
/* Unmap a mapped *v (anything else it points at is the caller's). */
void _kbx_vflat_unmap(struct kbx_vflat *v);

/*
 * Open the index file path and map it when its layout is flat.  With
 * check_generation, a file whose stamp is not expect_generation is
 * KBX_VF_STALE; the stamp goes to *generation (may be NULL) also then.
 * A good file of another layout is KBX_VF_NOT_FLAT (no message): the
 * module reads it.  Free *v with _kbx_vflat_unmap().
 */
int _kbx_vflat_open(const char *path, int check_generation, uint64_t expect_generation,
		    struct kbx_vflat *v, uint64_t *generation, char *err, size_t errsz);

/* The 8-bit code of v[0..dim) into code[0..stride) (see vflat.c);
 * returns its scale, 0 for a vector no code describes.  A stride of
 * _kbx_vflat_stride(dim) bytes. */
uint32_t _kbx_vflat_stride(uint32_t dim);
float _kbx_vflat_encode(const float *restrict v, uint32_t dim, uint32_t stride,
			int8_t *restrict code);
/* The bytes of a code of dim coordinates of bits (8 or 4) each. */
uint32_t _kbx_vflat_code_stride(uint32_t dim, uint32_t bits);

/* The codes of bits (8 or 4) and factors (scale, squared length) of n
 * vectors x[n * dim] into codes[n * stride] and factors[2 * n], as a flat
 * file holds them (stride: _kbx_vflat_code_stride()). */
void _kbx_vflat_codes(const float *x, uint64_t n, uint32_t dim, uint32_t bits, uint32_t stride,
		      float *factors, int8_t *codes);

/* The inner product of q and x[0..dim) as the exact pass of a search
 * sums it: a vector scored outside an index (the delta beside it, a
 * database's vectors) scores as it would in the index, to the bit. */
float _kbx_vflat_ip(const float *q, const float *x, uint32_t dim);

/* Nonzero: score the codes with the portable loop even where the
 * CPU has AVX2 (the tests compare the two; the scores are the same). */
extern int _kbx_vflat_portable;

/* The coarse pass of a search alone: the positions of the r (at most n)
 * vectors whose codes score best against q's, in no order, into pos[r].
 * Needs the codes and factors only (not x): a caller that holds the
 * vectors elsewhere (a database) then fetches those r and scores them
 * exactly, as _kbx_vflat_search does.  KBX_VF_NOMEM. */
int _kbx_vflat_pick(const struct kbx_vflat *v, const float *q, size_t r, int64_t *pos,
		    char *err, size_t errsz);

/* Candidates the codes pick for exact scoring when rerank is 0. */
#define KBX_VFLAT_DEFAULT_RERANK 200

/*
 * The k nearest of each of nq queries q[nq * dim], best first, into
 * ids[nq * k] and dist[nq * k] (inner product, or squared distance).
 * Up to 4 x rerank vectors, or without codes, every vector is scored
 * exactly; beyond, the rerank best codes are.  Equal scores come in
 * the order of the vectors in the index.  Where fewer than k exist the
 * row ends with id -1.  KBX_VF_NOMEM, or KBX_VF_FORMAT for an id < 0.
 */
int _kbx_vflat_search(const struct kbx_vflat *v, size_t nq, const float *q, size_t k,
		      size_t rerank, int64_t *ids, float *dist, char *err, size_t errsz);

#endif
