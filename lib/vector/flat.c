/*
 * kbx's own flat index (KBX_VEC_FLAT): every vector kept whole, a file
 * layout that open() maps instead of reads, and a search that scores
 * exactly either every vector or, in large collections, the candidates
 * that a scan of 1-bit codes picks.
 *
 * Why not FAISS's IndexFlat: FAISS 1.7.3 reads a flat index by copying
 * every vector into memory, 100 MB at 100k vectors of dimension 256, some
 * 80 ms for each kbx process.  Mapping the file costs a few page-table
 * entries, and the page cache holds the vectors once for all processes.
 *
 * Why the codes: scoring every vector reads all of them; at 100k x 256
 * that is 100 MB and 18 ms on a 2-core machine (bench/vector.sh), too
 * slow for a search per process.  Each vector also has a code of one bit
 * per dimension, the sign of the vector minus the collection's mean (32
 * bytes at dimension 256).  A search scores every code against the query
 * kept whole, each bit standing for +1 or -1 (3 MB read at 100k, 2-3 ms),
 * keeps the `rerank` best and scores those exactly with FAISS's kernel.
 * (Hamming distance between the query's signs and the codes is ten times
 * cheaper but found a tenth of the neighbours on sparse vectors, whose
 * many zero dimensions have no sign.)  Recall@10 against exhaustive
 * search is in the comment above _kbx_vec_choose() (index.c).  Up to
 * 4 x rerank vectors everything is scored: exact.
 *
 * The layout is the payload of an index file (file.c puts the trailer
 * after it); little-endian, like the trailer:
 *
 *    0  8  magic "kbx-flat"
 *    8  4  layout version, 1
 *   12  4  dimension d
 *   16  8  number of vectors n
 *   24  8  offset of the mean: 64
 *   32  8  offset of the ids: 64 + 4 d rounded up to a multiple of 8
 *   40  8  offset of the codes: ids + 8 n rounded up to a multiple of 64
 *   48  8  offset of the vectors: codes + 8 w n rounded up to 4096
 *   56  4  w, 64-bit words per code: (d + 63) / 64
 *   60  4  zero
 *   64     the mean of the vectors, d floats
 *          n ids, int64
 *          n codes of w words; bit j % 64 of word j / 64 is set when
 *          dimension j of the vector is above the mean's
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
#define FLAT_VERSION 1
#define FLAT_PAGE 4096
static const unsigned char flat_magic[8] = { 'k', 'b', 'x', '-', 'f', 'l', 'a', 't' };

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 1
#else
#define HOST_LITTLE_ENDIAN 0
#endif

struct _kbx_vec_flat {
	uint64_t n, cap;        /* vectors held, room in the arrays (not mapped) */
	uint32_t words;         /* 64-bit words per code */
	const int64_t *ids;
	const float *x;
	const float *mean;
	const uint64_t *codes;
	int codes_ok;           /* mean and codes describe the n vectors */
	int64_t *own_ids;       /* the arrays when in memory, else NULL */
	float *own_x;
	float *own_mean;
	uint64_t *own_codes;
	void *map;              /* the mapping when mapped, else NULL */
	size_t map_len;
};

/* Where the parts of the layout start, from d and n alone. */
struct flat_layout {
	uint64_t mean, ids, codes, vectors, end;
	uint32_t words;
};

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

/* 0 when n vectors of dimension dim would not fit in 2^63 bytes. */
static int layout_of(uint32_t dim, uint64_t n, struct flat_layout *l)
{
	l->words = (dim + 63) / 64;
	if (n > (UINT64_MAX >> 1) / ((uint64_t)dim * sizeof(float) + 8 * l->words + 8 + 64))
		return 0;
	l->mean = FLAT_HEADER_SIZE;
	l->ids = round_up(l->mean + 4ull * dim, 8);
	l->codes = round_up(l->ids + 8 * n, 64);
	l->vectors = round_up(l->codes + 8ull * l->words * n, FLAT_PAGE);
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
	ix->flat->words = (spec->dim + 63) / 64;
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

/* (Re)compute the mean and the codes of an index in memory. */
static int make_codes(kbx_vector_index_t *ix, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	uint32_t dim = ix->dim, words = fl->words, j;
	double *sum = calloc(dim, sizeof(*sum));
	float *mean = malloc(dim * sizeof(*mean));
	uint64_t *codes = NULL, i;

	if (fl->n && fl->n <= SIZE_MAX / 8 / words)
		codes = calloc((size_t)fl->n * words, 8);
	if (!sum || !mean || (fl->n && !codes)) {
		free(sum);
		free(mean);
		free(codes);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < fl->n; i++)
		for (j = 0; j < dim; j++)
			sum[j] += fl->x[i * dim + j];
	for (j = 0; j < dim; j++)
		mean[j] = fl->n ? (float)(sum[j] / (double)fl->n) : 0.0f;
	free(sum);
	for (i = 0; i < fl->n; i++) {
		const float *v = fl->x + i * dim;
		uint64_t *c = codes + i * words;

		for (j = 0; j < dim; j++)
			if (v[j] > mean[j])
				c[j / 64] |= 1ull << (j % 64);
	}
	free(fl->own_mean);
	free(fl->own_codes);
	fl->mean = fl->own_mean = mean;
	fl->codes = fl->own_codes = codes;
	fl->codes_ok = 1;
	return KBX_VEC_OK;
}

/*
 * The query against the codes, asymmetrically: the query stays in full
 * and each code stands for the vector of +1 (bit set) and -1 (bit clear),
 * so a code's score is sum_j q_j * (+-1).  Summed a byte at a time from
 * tables made per query: table b holds, for each of the 256 values of
 * byte b of a code, the sum of its eight terms.
 */
static void make_tables(const float *q, uint32_t dim, uint32_t nbytes, float *tab)
{
	uint32_t b, t, v;

	for (b = 0; b < nbytes; b++) {
		float qb[8], *row = tab + (size_t)b * 256;
		float base = 0;

		for (t = 0; t < 8; t++) {
			qb[t] = 8 * b + t < dim ? q[8 * b + t] : 0.0f;
			base -= qb[t];
		}
		row[0] = base;
		for (v = 1; v < 256; v++)
			row[v] = row[v & (v - 1)] + 2 * qb[__builtin_ctz(v)];
	}
}

static void score_codes(const float *tab, const uint64_t *codes, uint64_t n, uint32_t words,
			float *out)
{
	const unsigned char *c = (const unsigned char *)codes;
	uint32_t nbytes = 8 * words, b;
	uint64_t i;

	if (words == 4) {       /* dimension 256: unrolled */
		for (i = 0; i < n; i++, c += 32) {
			float s0 = 0, s1 = 0, s2 = 0, s3 = 0;

			for (b = 0; b < 32; b += 4) {
				s0 += tab[(b + 0) * 256 + c[b + 0]];
				s1 += tab[(b + 1) * 256 + c[b + 1]];
				s2 += tab[(b + 2) * 256 + c[b + 2]];
				s3 += tab[(b + 3) * 256 + c[b + 3]];
			}
			out[i] = (s0 + s1) + (s2 + s3);
		}
		return;
	}
	for (i = 0; i < n; i++, c += nbytes) {
		float sum = 0;

		for (b = 0; b < nbytes; b++)
			sum += tab[b * 256 + c[b]];
		out[i] = sum;
	}
}

/*
 * One thread cannot keep up with the memory a scan of many codes reads:
 * above this many codes, a second thread scores half of them (starting
 * it costs some 50 us, the scan of 64k codes some 2 ms).
 */
#define SPLIT_CODES 65536

struct score_job {
	const float *tab;
	const uint64_t *codes;
	uint64_t n;
	uint32_t words;
	float *out;
};

static void *score_job_run(void *arg)
{
	struct score_job *job = arg;

	score_codes(job->tab, job->codes, job->n, job->words, job->out);
	return NULL;
}

static void score_all(const float *tab, const uint64_t *codes, uint64_t n, uint32_t words,
		      float *out)
{
	struct score_job job;
	pthread_t thread;
	uint64_t half = n / 2;

	if (n < SPLIT_CODES) {
		score_codes(tab, codes, n, words, out);
		return;
	}
	job.tab = tab;
	job.codes = codes + half * words;
	job.n = n - half;
	job.words = words;
	job.out = out + half;
	if (pthread_create(&thread, NULL, score_job_run, &job) != 0) {
		score_codes(tab, codes, n, words, out);
		return;
	}
	score_codes(tab, codes, half, words, out);
	pthread_join(thread, NULL);
}

/* Move the r largest of score[pos[0..n)] to pos[0..r) (r < n), in no
 * particular order: quickselect. */
static void select_best(const float *score, int64_t *pos, uint64_t n, uint64_t r)
{
	uint64_t lo = 0, hi = n - 1;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	while (lo < hi) {
		uint64_t i = lo, j = hi, pick;
		float pivot;
		int64_t t;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		pick = lo + seed % (hi - lo + 1);
		pivot = score[pos[pick]];
		while (i <= j) {
			while (score[pos[i]] > pivot)
				i++;
			while (score[pos[j]] < pivot)
				j--;
			if (i <= j) {
				t = pos[i];
				pos[i] = pos[j];
				pos[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		/* [lo, j] >= pivot >= [i, hi] */
		if (r - 1 <= j && j != (uint64_t)-1)
			hi = j;
		else if (r - 1 >= i)
			lo = i;
		else
			break;
	}
}

static int search_codes(kbx_vector_index_t *ix, size_t nq, const float *q, size_t k,
			size_t r, int64_t *labels, float *dist, char *err, size_t errsz)
{
	struct _kbx_vec_flat *fl = ix->flat;
	uint32_t dim = ix->dim, nbytes = 8 * fl->words;
	float *score = malloc((size_t)fl->n * sizeof(*score));
	float *tab = malloc((size_t)nbytes * 256 * sizeof(*tab));
	int64_t *pos = malloc((size_t)fl->n * sizeof(*pos));
	size_t i;
	uint64_t j;
	int rc = KBX_VEC_OK;

	if (!score || !tab || !pos) {
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nq && !rc; i++) {
		const float *v = q + i * dim;

		make_tables(v, dim, nbytes, tab);
		score_all(tab, fl->codes, fl->n, fl->words, score);
		for (j = 0; j < fl->n; j++)
			pos[j] = (int64_t)j;
		select_best(score, pos, fl->n, r);
		rc = _kbx_vec_knn_subset(ix->metric, v, fl->x, pos, r, dim, k, dist + i * k,
					 labels + i * k, err, errsz);
	}
out:
	free(score);
	free(tab);
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

static void put_le(unsigned char *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
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
	put_le(head + 24, l.mean, 8);
	put_le(head + 32, l.ids, 8);
	put_le(head + 40, l.codes, 8);
	put_le(head + 48, l.vectors, 8);
	put_le(head + 56, l.words, 4);
	errno = 0;
	at = sizeof(head);
	if (fwrite(head, 1, sizeof(head), fp) != sizeof(head) ||
	    fwrite(fl->mean, sizeof(float), ix->dim, fp) != ix->dim ||
	    (at += 4ull * ix->dim, pad_to(fp, &at, l.ids)) ||
	    write_items(fp, fl->ids, sizeof(*fl->ids), fl->n) ||
	    (at += 8 * fl->n, pad_to(fp, &at, l.codes)) ||
	    write_items(fp, fl->codes, 8ull * l.words, fl->n) ||
	    (at += 8ull * l.words * fl->n, pad_to(fp, &at, l.vectors)) ||
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
	if (get_le(head + 8, 4) != FLAT_VERSION)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' has flat layout %u, which this kbx cannot read",
				     path, (unsigned)get_le(head + 8, 4));
	n = get_le(head + 16, 8);
	/* Every offset follows from d and n; the file must agree, and its
	 * size must be exactly what they give. */
	if (get_le(head + 12, 4) != dim || n != ntotal || !layout_of(dim, n, &l) ||
	    get_le(head + 24, 8) != l.mean || get_le(head + 32, 8) != l.ids ||
	    get_le(head + 40, 8) != l.codes || get_le(head + 48, 8) != l.vectors ||
	    get_le(head + 56, 4) != l.words || get_le(head + 60, 4) != 0 || l.end != payload)
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
		fl->mean = (const float *)(base + l.mean);
		fl->ids = (const int64_t *)(base + l.ids);
		fl->codes = (const uint64_t *)(base + l.codes);
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
	free(fl->own_mean);
	free(fl->own_codes);
	free(fl);
}
