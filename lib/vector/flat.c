/*
 * kbx's own flat index (KBX_VEC_FLAT): every vector kept whole, a file
 * layout that open() maps instead of reads, and a search that scores
 * exactly either every vector or, in large collections, the candidates
 * that a scan of 8-bit codes picks.
 *
 * Why not FAISS's IndexFlat: FAISS 1.7.3 reads a flat index by copying
 * every vector into memory, 100 MB at 100k vectors of dimension 256, some
 * 80 ms for each kbx process.  Mapping the file costs a few page-table
 * entries, and the page cache holds the vectors once for all processes.
 *
 * Why the codes: scoring every vector reads all of them; at 100k x 256
 * that is 100 MB and 18 ms on a 2-core machine (bench/vector.sh), too
 * slow for a search per process.  Each vector also has a code of one
 * signed byte per dimension, the vector scaled so that its largest
 * coordinate is +-127 and rounded, and the scale.  A search rounds the
 * query the same way, scores every code by an integer dot product (a
 * quarter of the bytes of the vectors, a loop the compiler turns into
 * SIMD instructions), keeps the `rerank` best and scores those exactly
 * with FAISS's kernel.  The rounding moves a score by about a hundredth
 * of the scores' spread, so the true neighbours are nearly always among
 * the few hundred best codes.  (One bit per dimension, the sign against
 * the mean, read an eighth of the bytes but found only 63-78% of the
 * true ten on the builtin embedder's sparse hashed vectors at rerank
 * 1000.)  Recall@10 against exhaustive search is in the comment above
 * _kbx_vec_choose() (index.c).  Up to 4 x rerank vectors everything is
 * scored: exact.
 *
 * The layout is the payload of an index file (file.c puts the trailer
 * after it); little-endian, like the trailer:
 *
 *    0  8  magic "kbx-flat"
 *    8  4  layout version, 2 (version 1 had 1-bit codes; no longer read)
 *   12  4  dimension d
 *   16  8  number of vectors n
 *   24  8  offset of the factors: 64
 *   32  8  offset of the ids: 64 + 8 n
 *   40  8  offset of the codes: ids + 8 n rounded up to a multiple of 64
 *   48  8  offset of the vectors: codes + s n rounded up to 4096
 *   56  4  s, bytes per code: d rounded up to a multiple of 32
 *   60  4  zero
 *   64     n pairs of floats: the scale of the vector's code (its
 *          coordinates are about code x scale) and its squared length
 *          n ids, int64
 *          n codes of s signed bytes, zero after the first d
 *          n vectors of d floats (IEEE float32), row after row
 *   each part zero-padded up to the next one's offset
 *
 * The vectors start on a page boundary, so the mapping hands FAISS's
 * kernel aligned rows.  The layout is read and written as is on
 * little-endian machines only; elsewhere open() and save() refuse it.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define FLAT_HEADER_SIZE 64
#define FLAT_VERSION 2
#define FLAT_PAGE 4096
/* Code bytes are a multiple of this, so that the scan's loop has no
 * remainder to handle for the usual dimensions. */
#define CODE_ALIGN 32
#define CODE_MAX 127
static const unsigned char flat_magic[8] = { 'k', 'b', 'x', '-', 'f', 'l', 'a', 't' };

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 1
#else
#define HOST_LITTLE_ENDIAN 0
#endif

struct _kbx_vec_flat {
	uint64_t n, cap;        /* vectors held, room in the arrays (not mapped) */
	uint32_t stride;        /* bytes per code */
	const int64_t *ids;
	const float *x;
	const float *factors;   /* per vector: the code's scale, the squared length */
	const int8_t *codes;
	int codes_ok;           /* factors and codes describe the n vectors */
	int64_t *own_ids;       /* the arrays when in memory, else NULL */
	float *own_x;
	float *own_factors;
	int8_t *own_codes;
	void *map;              /* the mapping when mapped, else NULL */
	size_t map_len;
};

/* Where the parts of the layout start, from d and n alone. */
struct flat_layout {
	uint64_t factors, ids, codes, vectors, end;
	uint32_t stride;
};

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

static uint32_t code_stride(uint32_t dim)
{
	return (uint32_t)round_up(dim, CODE_ALIGN);
}

/* 0 when n vectors of dimension dim would not fit in 2^63 bytes. */
static int layout_of(uint32_t dim, uint64_t n, struct flat_layout *l)
{
	l->stride = code_stride(dim);
	if (n > (UINT64_MAX >> 1) / ((uint64_t)dim * sizeof(float) + l->stride + 8 + 8 + 64))
		return 0;
	l->factors = FLAT_HEADER_SIZE;
	l->ids = l->factors + 8 * n;
	l->codes = round_up(l->ids + 8 * n, 64);
	l->vectors = round_up(l->codes + (uint64_t)l->stride * n, FLAT_PAGE);
	l->end = l->vectors + 4ull * dim * n;
	return 1;
}

int _kbx_vec_flat_create(const struct kbx_vector_spec *spec, kbx_vector_index_t **out,
			 char *err, size_t errsz)
{
	kbx_vector_index_t *ix = calloc(1, sizeof(*ix));

	if (!ix || !(ix->flat = calloc(1, sizeof(*ix->flat)))) {
		free(ix);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	}
	ix->kind = KBX_VEC_FLAT;
	ix->metric = spec->metric;
	ix->dim = spec->dim;
	ix->flat->stride = code_stride(spec->dim);
	*out = ix;
	return KBX_VEC_OK;
}

uint64_t _kbx_vec_flat_ntotal(const kbx_vector_index_t *ix)
{
	return ix->flat->n;
}

int _kbx_vec_flat_add(kbx_vector_index_t *ix, size_t n, const float *x, const int64_t *ids,
		      char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	size_t dim = ix->dim;

	if (fl->map)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STATE,
				     "cannot add to a vector index opened read-only");
	if (n > SIZE_MAX / sizeof(float) / dim - fl->n)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	if (fl->n + n > fl->cap) {
		uint64_t cap = fl->cap ? fl->cap : 1024;
		int64_t *nids;
		float *nx;

		while (cap < fl->n + n)
			cap = cap > SIZE_MAX / sizeof(float) / dim / 2 ? fl->n + n : cap * 2;
		nids = realloc(fl->own_ids, cap * sizeof(*nids));
		if (!nids)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		fl->own_ids = nids;
		fl->ids = nids;
		nx = realloc(fl->own_x, cap * dim * sizeof(*nx));
		if (!nx)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		fl->own_x = nx;
		fl->x = nx;
		fl->cap = cap;
	}
	memcpy(fl->own_ids + fl->n, ids, n * sizeof(*ids));
	memcpy(fl->own_x + fl->n * dim, x, n * dim * sizeof(*x));
	fl->n += n;
	fl->codes_ok = 0;
	return KBX_VEC_OK;
}

/*
 * The code of v[0..dim) into code[0..stride): v / scale rounded, where
 * scale makes the largest coordinate +-CODE_MAX; the rest of the stride
 * zero.  Returns the scale, 0 for a vector of zeros (or of NaNs and
 * infinities, which no code describes: they score 0 and are left to the
 * exact pass).
 */
static float encode(const float *v, uint32_t dim, uint32_t stride, int8_t *code)
{
	float m = 0, inv, scale;
	uint32_t j;

	for (j = 0; j < dim; j++) {
		float a = v[j] < 0 ? -v[j] : v[j];

		if (a > m)
			m = a;
	}
	memset(code, 0, stride);
	scale = m / CODE_MAX;
	if (!(m > 0) || !(m <= 3.4e38f) || !(scale > 0))
		return 0;
	inv = 1 / scale;
	for (j = 0; j < dim; j++) {
		float t = v[j] * inv;

		/* written so that a NaN falls through to 0 */
		if (t >= 0.5f)
			code[j] = (int8_t)(t >= CODE_MAX - 0.5f ? CODE_MAX : (int)(t + 0.5f));
		else if (t <= -0.5f)
			code[j] = (int8_t)(t <= 0.5f - CODE_MAX ? -CODE_MAX : -(int)(0.5f - t));
	}
	return scale;
}

/* (Re)compute the codes and factors of an index in memory. */
static int make_codes(kbx_vector_index_t *ix, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	uint32_t dim = ix->dim, stride = fl->stride, j;
	float *factors = NULL;
	int8_t *codes = NULL;
	uint64_t i;

	if (fl->n <= SIZE_MAX / stride / 2) {
		factors = malloc(fl->n ? (size_t)fl->n * 2 * sizeof(*factors) : 1);
		codes = malloc(fl->n ? (size_t)fl->n * stride : 1);
	}
	if (!factors || !codes) {
		free(factors);
		free(codes);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < fl->n; i++) {
		const float *v = fl->x + i * dim;
		double len2 = 0;

		factors[2 * i] = encode(v, dim, stride, codes + i * stride);
		for (j = 0; j < dim; j++)
			len2 += (double)v[j] * v[j];
		factors[2 * i + 1] = (float)len2;
	}
	free(fl->own_factors);
	free(fl->own_codes);
	fl->factors = fl->own_factors = factors;
	fl->codes = fl->own_codes = codes;
	fl->codes_ok = 1;
	return KBX_VEC_OK;
}

/*
 * The coarse score of each code, larger is nearer: the dot product of the
 * query's code qc with the vector's, turned into inner product (times the
 * query's scale, the same for every vector, so left out) or into minus
 * the squared distance without the query's length (l2_a = 2 x the
 * query's scale).  The integer sums are exact: 127 x 127 x 65536 < 2^31.
 *
 * The compiler vectorises the inner loops (GCC at -O2 since version 12);
 * target_clones adds an AVX2 copy, picked at load time where the CPU has
 * it, which is twice as fast as the SSE2 baseline.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 6 && defined(__x86_64__) && \
	!defined(__SANITIZE_ADDRESS__)
#define SCAN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SCAN_CLONES
#endif

SCAN_CLONES
static void score_codes(const int8_t *restrict qc, const int8_t *restrict codes,
			const float *restrict factors, uint64_t n, uint32_t stride, int l2,
			float l2_a, float *restrict out)
{
	uint64_t i;
	uint32_t b, j;

	for (i = 0; i < n; i++) {
		const int8_t *c = codes + i * stride;
		int32_t dot = 0;

		/* blocks of a fixed count, which GCC vectorises at -O2
		 * where it would leave a loop of `stride` alone */
		for (b = 0; b < stride; b += CODE_ALIGN) {
			const int8_t *qb = qc + b, *cb = c + b;

			for (j = 0; j < CODE_ALIGN; j++)
				dot += qb[j] * cb[j];
		}
		out[i] = l2 ? l2_a * factors[2 * i] * (float)dot - factors[2 * i + 1]
			    : factors[2 * i] * (float)dot;
	}
}

/*
 * One thread cannot keep up with the memory a scan of many codes reads
 * (nor with the page faults of a freshly mapped file): above this many
 * codes, a second thread scores half of them (starting it costs some
 * 50 us, the scan of 32k codes of 256 bytes some 0.5 ms).
 */
#define SPLIT_CODES 32768

struct score_job {
	const int8_t *qc, *codes;
	const float *factors;
	uint64_t n;
	uint32_t stride;
	int l2;
	float l2_a;
	float *out;
};

static void *score_job_run(void *arg)
{
	struct score_job *job = arg;

	score_codes(job->qc, job->codes, job->factors, job->n, job->stride, job->l2, job->l2_a,
		    job->out);
	return NULL;
}

static void score_all(const struct score_job *all)
{
	struct score_job mine = *all, other = *all;
	pthread_t thread;
	uint64_t half = all->n / 2;

	if (all->n >= SPLIT_CODES) {
		other.codes = all->codes + half * all->stride;
		other.factors = all->factors + 2 * half;
		other.n = all->n - half;
		other.out = all->out + half;
		if (pthread_create(&thread, NULL, score_job_run, &other) == 0) {
			mine.n = half;
			score_job_run(&mine);
			pthread_join(thread, NULL);
			return;
		}
	}
	score_job_run(&mine);
}

/*
 * The positions of the r largest of score[0..n) (r <= n) into pos[0..r),
 * in no particular order: a min-heap of the best so far, whose top is
 * the score to beat.  In a collection in no order of score, the top is
 * beaten some r ln(n / r) times, so the pass costs little more than
 * reading the scores.  A NaN score never beats the top.
 */
static void heap_down(const float *score, int64_t *pos, size_t r, size_t i)
{
	int64_t p = pos[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= r)
			break;
		if (c + 1 < r && score[pos[c + 1]] < score[pos[c]])
			c++;
		if (!(score[pos[c]] < score[p]))
			break;
		pos[i] = pos[c];
		i = c;
	}
	pos[i] = p;
}

static void select_best(const float *score, int64_t *pos, uint64_t n, size_t r)
{
	uint64_t j;
	size_t i;

	for (i = 0; i < r; i++)
		pos[i] = (int64_t)i;
	for (i = r / 2; i-- > 0;)
		heap_down(score, pos, r, i);
	for (j = r; j < n; j++) {
		if (score[j] > score[pos[0]]) {
			pos[0] = (int64_t)j;
			heap_down(score, pos, r, 0);
		}
	}
}

static int search_codes(kbx_vector_index_t *ix, size_t nq, const float *q, size_t k,
			size_t r, int64_t *labels, float *dist, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	uint32_t dim = ix->dim;
	float *score = malloc((size_t)fl->n * sizeof(*score));
	int8_t *qc = malloc(fl->stride);
	int64_t *pos = malloc(r * sizeof(*pos));
	struct score_job job;
	size_t i;
	int rc = KBX_VEC_OK;

	if (!score || !qc || !pos) {
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		goto out;
	}
	job.qc = qc;
	job.codes = fl->codes;
	job.factors = fl->factors;
	job.n = fl->n;
	job.stride = fl->stride;
	job.l2 = ix->metric == KBX_VEC_L2;
	job.out = score;
	for (i = 0; i < nq && !rc; i++) {
		const float *v = q + i * dim;

		job.l2_a = 2 * encode(v, dim, fl->stride, qc);
		score_all(&job);
		select_best(score, pos, fl->n, r);
		rc = _kbx_vec_knn_subset(ix->metric, v, fl->x, pos, r, dim, k, dist + i * k,
					 labels + i * k, err, errsz);
	}
out:
	free(score);
	free(qc);
	free(pos);
	return rc;
}

int _kbx_vec_flat_search(kbx_vector_index_t *ix, size_t n, const float *q, size_t k,
			 uint32_t rerank, int64_t *ids, float *dist, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	size_t r = rerank ? rerank : _KBX_VEC_DEFAULT_RERANK;
	size_t i;
	int rc;

	if (r < k)
		r = k;
	if ((uint64_t)r > fl->n / 4) {
		rc = _kbx_vec_knn(ix->metric, q, n, fl->x, fl->n, ix->dim, k, dist, ids, err,
				  errsz);
	} else {
		if (!fl->codes_ok && (rc = make_codes(ix, err, errsz)))
			return rc;
		rc = search_codes(ix, n, q, k, r, ids, dist, err, errsz);
	}
	if (rc)
		return rc;
	/* The kernels answer with positions; turn them into ids. */
	for (i = 0; i < n * k; i++) {
		if (ids[i] < 0)
			continue;
		if ((uint64_t)ids[i] >= fl->n || fl->ids[ids[i]] < 0)
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
					     "vector index is damaged: position %lld holds id %lld",
					     (long long)ids[i],
					     (uint64_t)ids[i] < fl->n ? (long long)fl->ids[ids[i]] : -1LL);
		ids[i] = fl->ids[ids[i]];
	}
	return KBX_VEC_OK;
}

/* fwrite() of count items, none being no call (ptr may then be NULL). */
static int write_items(FILE *fp, const void *ptr, size_t size, uint64_t count)
{
	return !count || fwrite(ptr, size, (size_t)count, fp) == count ? 0 : -1;
}

/* Zeros up to offset `to`, *at being where the stream is. */
static int pad_to(FILE *fp, uint64_t *at, uint64_t to)
{
	static const unsigned char zeros[FLAT_PAGE];

	while (*at < to) {
		size_t len = to - *at < sizeof(zeros) ? (size_t)(to - *at) : sizeof(zeros);

		if (fwrite(zeros, 1, len, fp) != len)
			return -1;
		*at += len;
	}
	return 0;
}

int _kbx_vec_flat_write(kbx_vector_index_t *ix, FILE *fp, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	unsigned char head[FLAT_HEADER_SIZE];
	struct flat_layout l;
	uint64_t at;
	int rc;

	if (!HOST_LITTLE_ENDIAN)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE,
				     "kbx's flat vector index is written on little-endian machines only");
	if (!layout_of(ix->dim, fl->n, &l))
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_USAGE, "the vector index is too large");
	if (!fl->codes_ok && (rc = make_codes(ix, err, errsz)))
		return rc;
	memset(head, 0, sizeof(head));
	memcpy(head, flat_magic, sizeof(flat_magic));
	put_le(head + 8, FLAT_VERSION, 4);
	put_le(head + 12, ix->dim, 4);
	put_le(head + 16, fl->n, 8);
	put_le(head + 24, l.factors, 8);
	put_le(head + 32, l.ids, 8);
	put_le(head + 40, l.codes, 8);
	put_le(head + 48, l.vectors, 8);
	put_le(head + 56, l.stride, 4);
	errno = 0;
	at = sizeof(head);
	if (fwrite(head, 1, sizeof(head), fp) != sizeof(head) ||
	    write_items(fp, fl->factors, 2 * sizeof(float), fl->n) ||
	    (at += 8 * fl->n, pad_to(fp, &at, l.ids)) ||
	    write_items(fp, fl->ids, sizeof(*fl->ids), fl->n) ||
	    (at += 8 * fl->n, pad_to(fp, &at, l.codes)) ||
	    write_items(fp, fl->codes, l.stride, fl->n) ||
	    (at += (uint64_t)l.stride * fl->n, pad_to(fp, &at, l.vectors)) ||
	    write_items(fp, fl->x, sizeof(float) * ix->dim, fl->n))
	{
		/* The caller names the file. */
		if (!errno)
			errno = EIO;
		return KBX_VEC_ERR_IO;
	}
	return KBX_VEC_OK;
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
	char *p = buf;

	while (len) {
		ssize_t got = pread(fd, p, len, (off_t)off);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (!got)
				errno = EIO;
			return -1;
		}
		p += got;
		len -= (size_t)got;
		off += (uint64_t)got;
	}
	return 0;
}

int _kbx_vec_flat_open(int fd, const char *path, uint64_t payload, uint32_t dim,
		       uint64_t ntotal, int metric, int map, kbx_vector_index_t **out,
		       char *err, size_t errsz)
{
	unsigned char head[FLAT_HEADER_SIZE];
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = metric, .dim = dim };
	struct _kbx_vec_flat *fl;
	struct flat_layout l;
	kbx_vector_index_t *ix;
	uint64_t n;
	int rc;

	if (!HOST_LITTLE_ENDIAN)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "cannot read vector index '%s': kbx's flat layout is read on little-endian machines only",
				     path);
	if (payload < FLAT_HEADER_SIZE)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' is damaged: %llu bytes are too few for a flat index",
				     path, (unsigned long long)payload);
	if (read_at(fd, head, sizeof(head), 0) < 0)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot read '%s': %s", path,
				     strerror(errno));
	if (memcmp(head, flat_magic, sizeof(flat_magic)) != 0)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' is damaged: no flat index header", path);
	if (get_le(head + 8, 4) < FLAT_VERSION)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' has the flat layout %u of an older kbx: rebuild it ('kbx index --rebuild')",
				     path, (unsigned)get_le(head + 8, 4));
	if (get_le(head + 8, 4) != FLAT_VERSION)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' has flat layout %u, which this kbx cannot read",
				     path, (unsigned)get_le(head + 8, 4));
	n = get_le(head + 16, 8);
	/* Every offset follows from d and n; the file must agree, and its
	 * size must be exactly what they give. */
	if (get_le(head + 12, 4) != dim || n != ntotal || !layout_of(dim, n, &l) ||
	    get_le(head + 24, 8) != l.factors || get_le(head + 32, 8) != l.ids ||
	    get_le(head + 40, 8) != l.codes || get_le(head + 48, 8) != l.vectors ||
	    get_le(head + 56, 4) != l.stride || get_le(head + 60, 4) != 0 || l.end != payload)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' is damaged: its flat index header does not match its trailer or size",
				     path);
	if (payload > SIZE_MAX)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM,
				     "vector index '%s' is too large for this machine", path);

	rc = _kbx_vec_flat_create(&spec, &ix, err, errsz);
	if (rc)
		return rc;
	fl = ix->flat;
	if (map) {
		void *m = mmap(NULL, (size_t)payload, PROT_READ, MAP_SHARED, fd, 0);
		const char *base = m;

		if (m == MAP_FAILED) {
			rc = _kbx_vec_fail(err, errsz,
					   errno == ENOMEM ? KBX_VEC_ERR_NOMEM : KBX_VEC_ERR_IO,
					   "cannot map '%s': %s", path, strerror(errno));
			_kbx_vec_free(ix);
			return rc;
		}
		fl->map = m;
		fl->map_len = (size_t)payload;
		fl->factors = (const float *)(base + l.factors);
		fl->ids = (const int64_t *)(base + l.ids);
		fl->codes = (const int8_t *)(base + l.codes);
		fl->x = (const float *)(base + l.vectors);
		fl->n = n;
		fl->codes_ok = 1;
		ix->read_only = 1;
	} else if (n) {
		/* Read to be added to: the codes are made again when needed. */
		fl->own_ids = malloc((size_t)n * sizeof(int64_t));
		fl->own_x = malloc((size_t)(payload - l.vectors));
		if (!fl->own_ids || !fl->own_x) {
			_kbx_vec_free(ix);
			return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		}
		fl->ids = fl->own_ids;
		fl->x = fl->own_x;
		fl->cap = fl->n = n;
		if (read_at(fd, fl->own_ids, (size_t)n * sizeof(int64_t), l.ids) < 0 ||
		    read_at(fd, fl->own_x, (size_t)(payload - l.vectors), l.vectors) < 0) {
			rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot read '%s': %s", path,
					   strerror(errno));
			_kbx_vec_free(ix);
			return rc;
		}
	}
	*out = ix;
	return KBX_VEC_OK;
}

void _kbx_vec_flat_free(struct _kbx_vec_flat *fl)
{
	if (!fl)
		return;
	if (fl->map)
		munmap(fl->map, fl->map_len);
	free(fl->own_ids);
	free(fl->own_x);
	free(fl->own_factors);
	free(fl->own_codes);
	free(fl);
}
