/*
 * kbx's vector index files without the vector module: the trailer, and
 * the flat layout mapped and searched.  See vflat.h for why.
 *
 * The trailer ends every index file, after a payload that is a plain
 * FAISS index file (HNSW, IVF, factory indexes) or kbx's flat layout
 * below.  It sits at the end so that a FAISS payload stays a plain FAISS
 * file (FAISS's own tools read it and ignore what follows), and so that
 * FAISS can map an IVF file's inverted lists at their natural offsets.
 * All fields are little-endian:
 *
 *    0  8  magic "kbx-vec\n"
 *    8  4  trailer format, 2 (format 1, read still, has no layout byte)
 *   12  4  trailer size, 64
 *   16  8  generation stamp
 *   24  8  size of the payload before the trailer
 *   32  8  number of vectors
 *   40  4  dimension
 *   44  1  kind (enum kbx_vector_kind)
 *   45  1  metric (enum kbx_vector_metric)
 *   46  1  flags: bit 0 set when the index is trained
 *   47  1  payload layout: 0 FAISS, 1 kbx flat (always 0 in format 1)
 *   48  4  kind's parameter (HNSW m, IVF nlist) or 0
 *   52  4  zero
 *   56  8  FNV-1a 64 hash of bytes 0..55
 *
 * A file is read through one descriptor, trailer first, so that a save
 * renaming a new file into place meanwhile cannot pair one file's
 * trailer with another's index.
 *
 * The flat layout (why it is mapped, and why codes: lib/vector/flat.c),
 * little-endian too:
 *
 *    0  8  magic "kbx-flat"
 *    8  4  layout version, 3 (4-bit codes); 2 (8-bit codes) is read
 *          still; 1 (1-bit codes) no longer
 *   12  4  dimension d
 *   16  8  number of vectors n
 *   24  8  offset of the factors: 64
 *   32  8  offset of the ids: 64 + 8 n
 *   40  8  offset of the codes: ids + 8 n rounded up to a multiple of 64
 *   48  8  offset of the vectors: codes + s n rounded up to 4096
 *   56  4  s, bytes per code: half of d (rounded up) in layout 3, d in
 *          layout 2, rounded up to a multiple of 32
 *   60  4  zero
 *   64     n pairs of floats: the scale of the vector's code (its
 *          coordinates are about code x scale) and its squared length
 *          n ids, int64
 *          n codes of s bytes: in layout 3, 4 bits a coordinate, each
 *          plus 8, coordinate 2j in the low half of byte j and 2j + 1 in
 *          the high half (encode4()); in layout 2, a signed byte a
 *          coordinate; zero coordinates after the first d
 *          n vectors of d floats (IEEE float32), row after row
 *   each part zero-padded up to the next one's offset
 *
 * The vectors start on a page boundary, so that mapped rows are aligned.
 * The layout is read as is on little-endian machines only.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE         /* madvise, MADV_HUGEPAGE */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

#include "util/vflat.h"

#define TRAILER_FORMAT 2
#define TRAILER_FORMAT_OLDEST 1
static const unsigned char trailer_magic[8] = { 'k', 'b', 'x', '-', 'v', 'e', 'c', '\n' };

/* layout 3: 4-bit codes; 2: 8-bit codes, read still */
#define FLAT_VERSION 3
#define FLAT_VERSION_8BIT 2
#define FLAT_PAGE 4096
/* Code bytes are a multiple of this, so that the scan's loop has no
 * remainder to handle for the usual dimensions. */
#define CODE_ALIGN 32
#define CODE_MAX 127
#define CODE4_MAX 7
#define CODE4_ZERO 8
static const unsigned char flat_magic[8] = { 'k', 'b', 'x', '-', 'f', 'l', 'a', 't' };

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_LITTLE_ENDIAN 1
#else
#define HOST_LITTLE_ENDIAN 0
#endif

int _kbx_vf_vfail(char *err, size_t errsz, int status, const char *fmt, va_list ap)
{
	if (err && errsz)
		vsnprintf(err, errsz, fmt, ap);
	return status;
}

static int fail(char *err, size_t errsz, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errsz, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	status = _kbx_vf_vfail(err, errsz, status, fmt, ap);
	va_end(ap);
	return status;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

int _kbx_vf_read_at(int fd, void *buf, size_t len, uint64_t off)
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

/* ------------------------------------------------------------------ */
/* The trailer */

void _kbx_vf_trailer_encode(unsigned char out[KBX_VF_TRAILER_SIZE],
			    const struct kbx_vf_trailer *t)
{
	memset(out, 0, KBX_VF_TRAILER_SIZE);
	memcpy(out, trailer_magic, sizeof(trailer_magic));
	put_le(out + 8, TRAILER_FORMAT, 4);
	put_le(out + 12, KBX_VF_TRAILER_SIZE, 4);
	put_le(out + 16, t->generation, 8);
	put_le(out + 24, t->payload, 8);
	put_le(out + 32, t->ntotal, 8);
	put_le(out + 40, t->dim, 4);
	out[44] = t->kind;
	out[45] = t->metric;
	out[46] = t->flags;
	out[47] = t->layout;
	put_le(out + 48, t->param, 4);
	put_le(out + 56, fnv1a64(out, 56), 8);
}

/* Read and check the trailer of the open file fd (of size size). */
static int trailer_read(int fd, const char *path, off_t size, struct kbx_vf_trailer *t,
			char *err, size_t errsz)
{
	unsigned char buf[KBX_VF_TRAILER_SIZE];
	ssize_t got;

	if (size < KBX_VF_TRAILER_SIZE)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "'%s' is not a kbx vector index: only %lld bytes long", path,
			    (long long)size);
	do
		got = pread(fd, buf, KBX_VF_TRAILER_SIZE, size - KBX_VF_TRAILER_SIZE);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return fail(err, errsz, KBX_VF_IO, "cannot read '%s': %s", path, strerror(errno));
	if (got != KBX_VF_TRAILER_SIZE)
		return fail(err, errsz, KBX_VF_IO, "cannot read '%s': file shrank while being read",
			    path);
	if (memcmp(buf, trailer_magic, sizeof(trailer_magic)) != 0)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "'%s' is not a kbx vector index, or is truncated", path);
	t->format = (uint32_t)get_le(buf + 8, 4);
	if (t->format < TRAILER_FORMAT_OLDEST || t->format > TRAILER_FORMAT ||
	    get_le(buf + 12, 4) != KBX_VF_TRAILER_SIZE)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "'%s' is a vector index of format %u, which this kbx cannot read", path,
			    t->format);
	if (get_le(buf + 56, 8) != fnv1a64(buf, 56))
		return fail(err, errsz, KBX_VF_FORMAT,
			    "vector index '%s' is damaged: its trailer does not match its checksum",
			    path);
	t->generation = get_le(buf + 16, 8);
	t->payload = get_le(buf + 24, 8);
	t->ntotal = get_le(buf + 32, 8);
	t->dim = (uint32_t)get_le(buf + 40, 4);
	t->kind = buf[44];
	t->metric = buf[45];
	t->flags = buf[46];
	t->layout = buf[47];
	t->param = (uint32_t)get_le(buf + 48, 4);
	if (t->payload != (uint64_t)size - KBX_VF_TRAILER_SIZE)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "vector index '%s' is damaged: %llu bytes of index data expected, %lld found",
			    path, (unsigned long long)t->payload,
			    (long long)(size - KBX_VF_TRAILER_SIZE));
	if (t->dim < 1 || t->dim > 65536 || t->kind < KBX_VF_KIND_FLAT ||
	    t->kind > KBX_VF_KIND_LAST || t->metric > KBX_VF_METRIC_L2 ||
	    t->layout > KBX_VF_LAYOUT_FLAT || (t->format == 1 && t->layout != KBX_VF_LAYOUT_FAISS) ||
	    (t->layout == KBX_VF_LAYOUT_FLAT && t->kind != KBX_VF_KIND_FLAT))
		return fail(err, errsz, KBX_VF_FORMAT, "vector index '%s' has an invalid trailer",
			    path);
	return KBX_VF_OK;
}

int _kbx_vf_open_file(const char *path, int *fd, struct kbx_vf_trailer *t, char *err,
		      size_t errsz)
{
	struct stat st;
	int rc;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (*fd < 0)
		return fail(err, errsz, KBX_VF_IO, "cannot open vector index '%s': %s", path,
			    strerror(errno));
	if (fstat(*fd, &st) < 0) {
		rc = fail(err, errsz, KBX_VF_IO, "cannot stat '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = fail(err, errsz, KBX_VF_FORMAT,
			  "'%s' is not a kbx vector index: not a regular file", path);
		goto fail;
	}
	rc = trailer_read(*fd, path, st.st_size, t, err, errsz);
	if (rc)
		goto fail;
	return KBX_VF_OK;
fail:
	close(*fd);
	*fd = -1;
	return rc;
}

/* ------------------------------------------------------------------ */
/* The flat layout */

static uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

uint32_t _kbx_vflat_stride(uint32_t dim)
{
	return (uint32_t)round_up(dim, CODE_ALIGN);
}

uint32_t _kbx_vflat_code_stride(uint32_t dim, uint32_t bits)
{
	return bits == 4 ? (uint32_t)round_up((dim + 1) / 2, CODE_ALIGN) : _kbx_vflat_stride(dim);
}

int _kbx_vflat_layout(uint32_t dim, uint64_t n, uint32_t bits, struct kbx_vflat_layout *l)
{
	l->bits = bits == 4 ? 4 : 8;
	l->stride = _kbx_vflat_code_stride(dim, l->bits);
	if (n > (UINT64_MAX >> 1) / ((uint64_t)dim * sizeof(float) + l->stride + 8 + 8 + 64))
		return 0;
	l->factors = KBX_VFLAT_HEADER_SIZE;
	l->ids = l->factors + 8 * n;
	l->codes = round_up(l->ids + 8 * n, 64);
	l->vectors = round_up(l->codes + (uint64_t)l->stride * n, FLAT_PAGE);
	l->end = l->vectors + 4ull * dim * n;
	return 1;
}

void _kbx_vflat_header(unsigned char head[KBX_VFLAT_HEADER_SIZE], uint32_t dim, uint64_t n,
		       const struct kbx_vflat_layout *l)
{
	memset(head, 0, KBX_VFLAT_HEADER_SIZE);
	memcpy(head, flat_magic, sizeof(flat_magic));
	put_le(head + 8, l->bits == 4 ? FLAT_VERSION : FLAT_VERSION_8BIT, 4);
	put_le(head + 12, dim, 4);
	put_le(head + 16, n, 8);
	put_le(head + 24, l->factors, 8);
	put_le(head + 32, l->ids, 8);
	put_le(head + 40, l->codes, 8);
	put_le(head + 48, l->vectors, 8);
	put_le(head + 56, l->stride, 4);
}

/* What a flat file's payload size must be before its header is read. */
static int check_size(const char *path, uint64_t payload, char *err, size_t errsz)
{
	if (!HOST_LITTLE_ENDIAN)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "cannot read vector index '%s': kbx's flat layout is read on little-endian machines only",
			    path);
	if (payload < KBX_VFLAT_HEADER_SIZE)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "vector index '%s' is damaged: %llu bytes are too few for a flat index",
			    path, (unsigned long long)payload);
	if (payload > SIZE_MAX)
		return fail(err, errsz, KBX_VF_NOMEM,
			    "vector index '%s' is too large for this machine", path);
	return KBX_VF_OK;
}

/* Check a flat header against the trailer's dim, ntotal and payload
 * size; fills *l. */
static int check_head(const unsigned char *head, const char *path, uint64_t payload,
		      uint32_t dim, uint64_t ntotal, struct kbx_vflat_layout *l, char *err,
		      size_t errsz)
{
	uint64_t n;
	uint32_t version;

	if (memcmp(head, flat_magic, sizeof(flat_magic)) != 0)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "vector index '%s' is damaged: no flat index header", path);
	version = (uint32_t)get_le(head + 8, 4);
	if (version < FLAT_VERSION_8BIT)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "vector index '%s' has the flat layout %u of an older kbx: rebuild it ('kbx index --rebuild')",
			    path, (unsigned)version);
	if (version > FLAT_VERSION)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "vector index '%s' has flat layout %u, which this kbx cannot read", path,
			    (unsigned)version);
	n = get_le(head + 16, 8);
	/* Every offset follows from d, n and the layout's code bits; the
	 * file must agree, and its size must be exactly what they give. */
	if (get_le(head + 12, 4) != dim || n != ntotal ||
	    !_kbx_vflat_layout(dim, n, version == FLAT_VERSION ? 4 : 8, l) ||
	    get_le(head + 24, 8) != l->factors || get_le(head + 32, 8) != l->ids ||
	    get_le(head + 40, 8) != l->codes || get_le(head + 48, 8) != l->vectors ||
	    get_le(head + 56, 4) != l->stride || get_le(head + 60, 4) != 0 || l->end != payload)
		return fail(err, errsz, KBX_VF_FORMAT,
			    "vector index '%s' is damaged: its flat index header does not match its trailer or size",
			    path);
	return KBX_VF_OK;
}

int _kbx_vflat_check(int fd, const char *path, uint64_t payload, uint32_t dim,
		     uint64_t ntotal, struct kbx_vflat_layout *l, char *err, size_t errsz)
{
	unsigned char head[KBX_VFLAT_HEADER_SIZE];
	int rc = check_size(path, payload, err, errsz);

	if (rc)
		return rc;
	if (_kbx_vf_read_at(fd, head, sizeof(head), 0) < 0)
		return fail(err, errsz, KBX_VF_IO, "cannot read '%s': %s", path, strerror(errno));
	return check_head(head, path, payload, dim, ntotal, l, err, errsz);
}

/*
 * Ask for the mapping in huge pages where the kernel keeps files so
 * (Linux's file THP: ext4 since 6.16, tmpfs).  A search touches every
 * code and a few hundred rows scattered through the vectors; mapped 4 KiB
 * at a time, the page-table entries made and torn down for them cost a
 * small index's search more than the scoring (git, 12k chunks: the
 * process 1.5 ms against 1.9 ms once the page cache held the file in
 * small pieces).  The advice makes a fault read 2 MiB around it and the
 * page cache keep the file in 2 MiB pieces, mapped by one entry each.
 * The codes are read whole anyway; the rows only up to
 * FLAT_HUGE_ROWS_MAX, since beyond it a first search from a cold cache
 * would read 2 MiB for each of its rows rather than the usual 128 KiB.
 * Advice only: where the kernel has none of it, nothing changes.
 */
#define FLAT_HUGE_ROWS_MAX (64ull << 20)
#define HUGE_PAGE (2u << 20)

static void advise_huge(void *m, size_t len)
{
#ifdef MADV_HUGEPAGE
	(void)madvise(m, len, MADV_HUGEPAGE);
#else
	(void)m;
	(void)len;
#endif
}

/* The part of a mapped file of layout l to advise. */
static size_t huge_part(const struct kbx_vflat_layout *l)
{
	return (size_t)(l->end - l->vectors <= FLAT_HUGE_ROWS_MAX ? l->end : l->vectors);
}

/* *v from the mapping m of the layout l. */
static void set_mapped(struct kbx_vflat *v, void *m, size_t len,
		       const struct kbx_vflat_layout *l, uint32_t dim, uint64_t n, int metric)
{
	const char *base = m;

	memset(v, 0, sizeof(*v));
	v->metric = metric;
	v->dim = dim;
	v->stride = l->stride;
	v->bits = l->bits;
	v->n = n;
	v->map = m;
	v->map_len = len;
	v->factors = (const float *)(base + l->factors);
	v->ids = (const int64_t *)(base + l->ids);
	v->codes = (const int8_t *)(base + l->codes);
	v->x = (const float *)(base + l->vectors);
	v->codes_ok = 1;
}

/* The first len bytes of fd, read-only, into *m. */
static int map_file(int fd, const char *path, size_t len, void **m, char *err, size_t errsz)
{
	*m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (*m == MAP_FAILED)
		return fail(err, errsz, errno == ENOMEM ? KBX_VF_NOMEM : KBX_VF_IO,
			    "cannot map '%s': %s", path, strerror(errno));
	return KBX_VF_OK;
}

int _kbx_vflat_map(int fd, const char *path, uint64_t payload, const struct kbx_vflat_layout *l,
		   uint32_t dim, uint64_t n, int metric, struct kbx_vflat *v, char *err,
		   size_t errsz)
{
	void *m;
	int rc = map_file(fd, path, (size_t)payload, &m, err, errsz);

	if (rc)
		return rc;
	advise_huge(m, huge_part(l));
	set_mapped(v, m, (size_t)payload, l, dim, n, metric);
	return KBX_VF_OK;
}

/* Map the flat file fd of the trailer t, and check its header there:
 * read with read(), the header's page would come into the page cache
 * as a small piece, and the first 2 MiB could not be a huge one. */
static int map_checked(int fd, const char *path, const struct kbx_vf_trailer *t,
		       struct kbx_vflat *v, char *err, size_t errsz)
{
	struct kbx_vflat_layout l;
	size_t len = (size_t)t->payload;
	void *m;
	int rc = check_size(path, t->payload, err, errsz);

	if (!rc)
		rc = map_file(fd, path, len, &m, err, errsz);
	if (rc)
		return rc;
	advise_huge(m, len < HUGE_PAGE ? len : HUGE_PAGE);
	rc = check_head(m, path, t->payload, t->dim, t->ntotal, &l, err, errsz);
	if (rc) {
		munmap(m, len);
		return rc;
	}
	advise_huge(m, huge_part(&l));
	set_mapped(v, m, len, &l, t->dim, t->ntotal, t->metric);
	return KBX_VF_OK;
}

void _kbx_vflat_unmap(struct kbx_vflat *v)
{
	if (v && v->map) {
		munmap(v->map, v->map_len);
		v->map = NULL;
	}
}

int _kbx_vflat_open(const char *path, int check_generation, uint64_t expect_generation,
		    struct kbx_vflat *v, uint64_t *generation, char *err, size_t errsz)
{
	struct kbx_vf_trailer t;
	int fd, rc;

	rc = _kbx_vf_open_file(path, &fd, &t, err, errsz);
	if (rc)
		return rc;
	if (generation)
		*generation = t.generation;
	if (check_generation && t.generation != expect_generation)
		rc = fail(err, errsz, KBX_VF_STALE,
			  "vector index '%s' is stale: it has generation %llu, %llu expected", path,
			  (unsigned long long)t.generation, (unsigned long long)expect_generation);
	else if (t.layout != KBX_VF_LAYOUT_FLAT)
		rc = KBX_VF_NOT_FLAT;
	else
		rc = map_checked(fd, path, &t, v, err, errsz);
	close(fd);      /* a mapping outlives the descriptor */
	if (!rc)
		v->generation = t.generation;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Codes */

/*
 * The code of v[0..dim) into code[0..stride): v / scale rounded, where
 * scale makes the largest coordinate +-CODE_MAX; the rest of the stride
 * zero.  Returns the scale, 0 for a vector of zeros (or of NaNs and
 * infinities, which no code describes: they score 0 and are left to the
 * exact pass).
 */
/* The scale that makes the largest coordinate of v[0..dim) +-max; 0 for
 * a vector of zeros (or of NaNs and infinities, which no code describes:
 * they score 0 and are left to the exact pass). */
static float code_scale(const float *restrict v, uint32_t dim, int max)
{
	float m = 0, scale;
	uint32_t j;

	for (j = 0; j < dim; j++) {
		float a = fabsf(v[j]);

		m = a > m ? a : m;
	}
	scale = m / (float)max;
	return m > 0 && m <= 3.4e38f && scale > 0 ? scale : 0;
}

/* t rounded half away from zero and kept within +-max, without branches,
 * so that the compiler makes the loops that call it vector code; a NaN
 * fails a >= 0.5 and is 0. */
static inline int code_round(float t, int max)
{
	float a = fabsf(t), r = a + 0.5f;
	int c = (int)(r < (float)max ? r : (float)max);

	c = a >= 0.5f ? c : 0;
	return t < 0 ? -c : c;
}

float _kbx_vflat_encode(const float *restrict v, uint32_t dim, uint32_t stride,
			int8_t *restrict code)
{
	float scale = code_scale(v, dim, CODE_MAX), inv;
	uint32_t j;

	memset(code, 0, stride);
	if (!scale)
		return 0;
	inv = 1 / scale;
	for (j = 0; j < dim; j++)
		code[j] = (int8_t)code_round(v[j] * inv, CODE_MAX);
	return scale;
}

/*
 * The 4-bit code of v[0..dim) into code[0..stride): v / scale rounded,
 * where scale makes the largest coordinate +-CODE4_MAX, plus CODE4_ZERO,
 * so that each is a number from 1 to 15 (8 for zero); coordinate 2j in
 * the low half of byte j, 2j + 1 in its high half; the rest of the
 * stride zero coordinates.  Half the bytes of the 8-bit code, for the
 * same answers: on 16,929 chunks of the Python standard library and 300
 * docstring queries, the true ten were among the 200 best 4-bit codes
 * every time (99.97% of them among the 100 best; 3 bits: 99.93% at 200).
 * Returns the scale, 0 for a vector no code describes.
 */
static float encode4(const float *restrict v, uint32_t dim, uint32_t stride,
		     uint8_t *restrict code)
{
	float scale = code_scale(v, dim, CODE4_MAX), inv;
	uint32_t j;

	memset(code, CODE4_ZERO | CODE4_ZERO << 4, stride);
	if (!scale)
		return 0;
	inv = 1 / scale;
	for (j = 0; j < dim; j += 2) {
		int lo = CODE4_ZERO + code_round(v[j] * inv, CODE4_MAX);
		int hi = j + 1 < dim ? CODE4_ZERO + code_round(v[j + 1] * inv, CODE4_MAX)
				     : CODE4_ZERO;

		code[j / 2] = (uint8_t)(lo | hi << 4);
	}
	return scale;
}

/* ------------------------------------------------------------------ */
/* Scoring */

/*
 * The compiler vectorises the inner loops below (GCC at -O2 since version
 * 12: check with -fopt-info-vec); an AVX2 copy of score_exact, used where
 * the CPU has it, is twice as fast as the SSE2 baseline.  Both copies add
 * the same numbers in the same order, so the scores do not depend on the
 * CPU.  Where the CPU has AVX2, score_codes_avx2 and score_codes4_avx2
 * score the codes.
 *
 * Whether it has AVX2 is read from what the C library found when the
 * process started (<sys/platform/x86.h>, glibc 2.33), not asked again:
 * GCC's target_clones and __builtin_cpu_supports link libgcc's
 * __cpu_indicator_init, a constructor that runs CPUID in every kbx
 * process, graph queries included, about 3% of `kbx callers` on this
 * virtual machine, where CPUID traps to the hypervisor.
 */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define HAVE_AVX2_COPIES 1
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define CPU_HAS_AVX2() CPU_FEATURE_ACTIVE(AVX2)
#endif
#endif
#ifndef CPU_HAS_AVX2
#define CPU_HAS_AVX2() __builtin_cpu_supports("avx2")
#endif
#endif

/* Nonzero where the AVX2 copies may run (a read of the C library's
 * table: cheap, and safe from several threads) */
static int use_avx2(void)
{
#ifdef HAVE_AVX2_COPIES
	return CPU_HAS_AVX2();
#else
	return 0;
#endif
}

/*
 * The coarse score of each code, larger is nearer: the dot product of the
 * query's code qc with the vector's, turned into inner product (times the
 * query's scale, the same for every vector, so left out) or into minus
 * the squared distance without the query's length (l2_a = 2 x the
 * query's scale).  The integer sums are exact: 127 x 127 x 65536 < 2^31.
 */
static inline float code_score(const float *restrict factors, uint64_t i, int32_t dot, int l2,
			       float l2_a)
{
	return l2 ? l2_a * factors[2 * i] * (float)dot - factors[2 * i + 1]
		  : factors[2 * i] * (float)dot;
}

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
		out[i] = code_score(factors, i, dot, l2, l2_a);
	}
}

/*
 * The same with AVX2 instructions, where the CPU has them: the products of
 * 32 code bytes at a time, as _mm256_maddubs_epi16 takes them (|q| as
 * unsigned bytes times c with q's sign; a pair's sum is at most 2 x 127 x
 * 127, so it never saturates), widened to 32 bits by _mm256_madd_epi16.
 * The sum is the same integer as score_codes' (the codes are in
 * [-127, 127]: kbx writes no -128), so are the scores.  GCC's vectorised
 * loop widens each byte to 32 bits first: this is about twice as fast.
 */
int _kbx_vflat_portable;

#ifdef HAVE_AVX2_COPIES
/* The sum of the eight 32-bit lanes of acc. */
__attribute__((target("avx2")))
static inline int32_t sum_lanes(__m256i acc)
{
	__m128i s = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));

	s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4e));
	s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xb1));
	return _mm_cvtsi128_si32(s);
}

__attribute__((target("avx2")))
static void score_codes_avx2(const int8_t *restrict qc, const int8_t *restrict codes,
			     const float *restrict factors, uint64_t n, uint32_t stride, int l2,
			     float l2_a, float *restrict out)
{
	const __m256i ones = _mm256_set1_epi16(1);
	uint64_t i;
	uint32_t b;

	for (i = 0; i < n; i++) {
		const int8_t *c = codes + i * stride;
		__m256i acc = _mm256_setzero_si256();
		int32_t dot;

		for (b = 0; b < stride; b += CODE_ALIGN) {
			__m256i q = _mm256_loadu_si256((const __m256i *)(qc + b));
			__m256i x = _mm256_loadu_si256((const __m256i *)(c + b));
			__m256i p = _mm256_maddubs_epi16(_mm256_abs_epi8(q), _mm256_sign_epi8(x, q));

			acc = _mm256_add_epi32(acc, _mm256_madd_epi16(p, ones));
		}
		dot = sum_lanes(acc);
		out[i] = code_score(factors, i, dot, l2, l2_a);
	}
}
#endif

/*
 * The same for 4-bit codes.  The query's 8-bit code comes as two halves
 * of stride bytes, its even coordinates (qc) and its odd ones (qc +
 * stride), to meet the low and the high halves of each code byte; qsum
 * is the sum of its coordinates, for the offset: a coordinate c is held
 * as c + 8, so the dot product is the sum of q x (c + 8) less 8 x qsum.
 * 127 x 15 x 2 x 65536 < 2^31: exact again.
 */
static void score_codes4(const int8_t *restrict qc, const int8_t *restrict codes,
			 const float *restrict factors, uint64_t n, uint32_t stride, int32_t qsum,
			 int l2, float l2_a, float *restrict out)
{
	const int8_t *qe = qc, *qo = qc + stride;
	uint64_t i;
	uint32_t b, j;

	for (i = 0; i < n; i++) {
		const uint8_t *c = (const uint8_t *)codes + i * stride;
		int32_t dot = 0;

		for (b = 0; b < stride; b += CODE_ALIGN) {
			const uint8_t *cb = c + b;
			const int8_t *eb = qe + b, *ob = qo + b;

			for (j = 0; j < CODE_ALIGN; j++)
				dot += eb[j] * (cb[j] & 0x0f) + ob[j] * (cb[j] >> 4);
		}
		dot -= CODE4_ZERO * qsum;
		out[i] = code_score(factors, i, dot, l2, l2_a);
	}
}

#ifdef HAVE_AVX2_COPIES
/* With AVX2: each half of 32 code bytes masked out as unsigned bytes
 * (0 to 15) for _mm256_maddubs_epi16 against the query's signed ones (a
 * pair's sum at most 2 x 15 x 127: no saturation). */
__attribute__((target("avx2")))
static void score_codes4_avx2(const int8_t *restrict qc, const int8_t *restrict codes,
			      const float *restrict factors, uint64_t n, uint32_t stride,
			      int32_t qsum, int l2, float l2_a, float *restrict out)
{
	const __m256i ones = _mm256_set1_epi16(1), low = _mm256_set1_epi8(0x0f);
	uint64_t i;
	uint32_t b;

	for (i = 0; i < n; i++) {
		const int8_t *c = codes + i * stride;
		__m256i acc = _mm256_setzero_si256();
		int32_t dot;

		for (b = 0; b < stride; b += CODE_ALIGN) {
			__m256i x = _mm256_loadu_si256((const __m256i *)(c + b));
			__m256i qe = _mm256_loadu_si256((const __m256i *)(qc + b));
			__m256i qo = _mm256_loadu_si256((const __m256i *)(qc + stride + b));
			__m256i lo = _mm256_and_si256(x, low);
			__m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low);
			__m256i p = _mm256_add_epi32(
				_mm256_madd_epi16(_mm256_maddubs_epi16(lo, qe), ones),
				_mm256_madd_epi16(_mm256_maddubs_epi16(hi, qo), ones));

			acc = _mm256_add_epi32(acc, p);
		}
		dot = sum_lanes(acc) - CODE4_ZERO * qsum;
		out[i] = code_score(factors, i, dot, l2, l2_a);
	}
}
#endif

/*
 * Exact scores of the rows of x at pos[0..n) (rows 0..n when pos is
 * NULL): the inner product with q, or the squared distance.  Sixteen
 * partial sums, added in a fixed order at the end: a sum the compiler
 * may vectorise without reordering additions (one running sum it must
 * leave alone without -ffast-math); sixteen rather than eight keep two
 * AVX2 or four SSE2 sums going at once.
 */
#define LANES 16
#define PREFETCH_AHEAD 4

static inline __attribute__((always_inline)) void
score_exact_rows(const float *restrict q, const float *restrict x, const int64_t *restrict pos,
		 uint64_t n, uint32_t dim, int l2, float *restrict out)
{
	uint64_t i;
	uint32_t j, l;

	for (i = 0; i < n; i++) {
		const float *row = x + (uint64_t)(pos ? pos[i] : (int64_t)i) * dim;
		float acc[LANES] = { 0 }, tail = 0;

		/* rows picked here and there: ask for a later one's lines
		 * while this one is scored, so that their wait overlaps */
		if (pos && i + PREFETCH_AHEAD < n) {
			const char *ahead = (const char *)(x + (uint64_t)pos[i + PREFETCH_AHEAD] * dim);
			for (j = 0; j < dim * sizeof(float); j += 64)
				__builtin_prefetch(ahead + j);
		}

		if (l2) {
			for (j = 0; j + LANES <= dim; j += LANES)
				for (l = 0; l < LANES; l++) {
					float t = q[j + l] - row[j + l];

					acc[l] += t * t;
				}
			for (; j < dim; j++)
				tail += (q[j] - row[j]) * (q[j] - row[j]);
		} else {
			for (j = 0; j + LANES <= dim; j += LANES)
				for (l = 0; l < LANES; l++)
					acc[l] += q[j + l] * row[j + l];
			for (; j < dim; j++)
				tail += q[j] * row[j];
		}
		/* pairs of partial sums, halving, in a fixed order */
		for (l = LANES / 2; l; l /= 2)
			for (j = 0; j < l; j++)
				acc[j] += acc[j + l];
		out[i] = acc[0] + tail;
	}
}

#ifdef HAVE_AVX2_COPIES
__attribute__((target("avx2")))
static void score_exact_avx2(const float *restrict q, const float *restrict x,
			     const int64_t *restrict pos, uint64_t n, uint32_t dim, int l2,
			     float *restrict out)
{
	score_exact_rows(q, x, pos, n, dim, l2, out);
}
#endif

static void score_exact(const float *restrict q, const float *restrict x,
			const int64_t *restrict pos, uint64_t n, uint32_t dim, int l2,
			float *restrict out)
{
#ifdef HAVE_AVX2_COPIES
	if (use_avx2()) {
		score_exact_avx2(q, x, pos, n, dim, l2, out);
		return;
	}
#endif
	score_exact_rows(q, x, pos, n, dim, l2, out);
}

float _kbx_vflat_ip(const float *q, const float *x, uint32_t dim)
{
	float out;

	score_exact(q, x, NULL, 1, dim, 0, &out);
	return out;
}

void _kbx_vflat_codes(const float *x, uint64_t n, uint32_t dim, uint32_t bits, uint32_t stride,
		      float *factors, int8_t *codes)
{
	uint64_t i;
	uint32_t j;

	for (i = 0; i < n; i++) {
		const float *v = x + i * dim;
		double len2 = 0;

		factors[2 * i] = bits == 4 ? encode4(v, dim, stride, (uint8_t *)codes + i * stride)
					   : _kbx_vflat_encode(v, dim, stride, codes + i * stride);
		for (j = 0; j < dim; j++)
			len2 += (double)v[j] * v[j];
		factors[2 * i + 1] = (float)len2;
	}
}

/*
 * One thread cannot keep up with the memory a scan of many vectors reads
 * (nor with the page faults of a freshly mapped file): above this many
 * bytes a second thread scores half of them (starting it costs some 50
 * us, the scan of 8 MB some 0.5 ms).
 */
#define SPLIT_BYTES (8u << 20)

struct score_job {
	int exact;
	const int8_t *qc;
	const float *q;
	const struct kbx_vflat *v;
	uint64_t from, n;
	float l2_a;
	int32_t qsum;           /* 4-bit codes: the sum of qc's coordinates */
	float *out;             /* scores of from .. from + n */
};

static void *score_job_run(void *arg)
{
	struct score_job *job = arg;
	const struct kbx_vflat *v = job->v;
	int l2 = v->metric == KBX_VF_METRIC_L2;

	if (job->exact)
		score_exact(job->q, v->x + job->from * v->dim, NULL, job->n, v->dim, l2, job->out);
#ifdef HAVE_AVX2_COPIES
	else if (v->bits == 4 && !_kbx_vflat_portable && use_avx2())
		score_codes4_avx2(job->qc, v->codes + job->from * v->stride,
				  v->factors + 2 * job->from, job->n, v->stride, job->qsum, l2,
				  job->l2_a, job->out);
	else if (v->bits != 4 && !_kbx_vflat_portable && use_avx2())
		score_codes_avx2(job->qc, v->codes + job->from * v->stride,
				 v->factors + 2 * job->from, job->n, v->stride, l2, job->l2_a,
				 job->out);
#endif
	else if (v->bits == 4)
		score_codes4(job->qc, v->codes + job->from * v->stride, v->factors + 2 * job->from,
			     job->n, v->stride, job->qsum, l2, job->l2_a, job->out);
	else
		score_codes(job->qc, v->codes + job->from * v->stride, v->factors + 2 * job->from,
			    job->n, v->stride, l2, job->l2_a, job->out);
	return NULL;
}

static void score_all(const struct score_job *all, uint64_t row_bytes)
{
	struct score_job mine = *all, other = *all;
	pthread_t thread;
	uint64_t half = all->n / 2;

	if (all->n * row_bytes >= SPLIT_BYTES && half) {
		other.from = all->from + half;
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
 * The positions of the r best of score[0..n) (r <= n) into pos[0..r), in
 * no particular order; the best are the largest, and of equal scores the
 * earlier in the index.  A NaN score is never among them when r others
 * are there to take its place.
 *
 * A min-heap of the best so far, whose top is the score to beat: in a
 * collection in no order of score, the top is beaten some r ln(n / r)
 * times.  Most scores are far below the answer's, so first a bar is set
 * from a sample (every SAMPLE_STEP-th score; the bar is what half as many
 * again as needed of the sample pass) and only the scores above it go
 * to the heap; when fewer than r are above it, or too many, every score
 * does.
 */
#define SAMPLE_STEP 8

/* Is position a before b?  The larger score, a NaN the smallest, then
 * the earlier position: an order with no two alike. */
static inline int better(const float *score, int64_t a, int64_t b)
{
	float x = score[a], y = score[b];

	if (x > y)
		return 1;
	if (x < y)
		return 0;
	if (x == y || (x != x && y != y))
		return a < b;
	return x == x;  /* one NaN: the number is better */
}

static void heap_down(const float *score, int64_t *pos, size_t r, size_t i)
{
	int64_t p = pos[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= r)
			break;
		if (c + 1 < r && better(score, pos[c], pos[c + 1]))
			c++;    /* the worse child */
		if (!better(score, p, pos[c]))
			break;
		pos[i] = pos[c];
		i = c;
	}
	pos[i] = p;
}

/* The r best of the m positions at from[] (in increasing order) into
 * pos[0..r), r <= m. */
static void heap_select(const float *score, const int64_t *from, uint64_t m, int64_t *pos,
			size_t r)
{
	uint64_t j;
	size_t i;

	for (i = 0; i < r; i++)
		pos[i] = from ? from[i] : (int64_t)i;
	for (i = r / 2; i-- > 0;)
		heap_down(score, pos, r, i);
	for (j = r; j < m; j++) {
		int64_t c = from ? from[j] : (int64_t)j;

		if (better(score, c, pos[0])) {
			pos[0] = c;
			heap_down(score, pos, r, 0);
		}
	}
}

static void swap_pos(int64_t *pos, size_t a, size_t b)
{
	int64_t t = pos[a];

	pos[a] = pos[b];
	pos[b] = t;
}

/*
 * The r best of pos[0..m) (r < m) into pos[0..r), in no order: a
 * quickselect, the pivot the median of three, insertion sort for the
 * last few; some m more comparisons, where a heap of the r best makes
 * one for every position and log r for each that enters.  Rounds that
 * do not shrink the range enough (an order made to defeat the pivot)
 * end in heap_select.
 */
static void quick_select(const float *score, int64_t *pos, size_t m, size_t r)
{
	size_t lo = 0, hi = m, i, j, rounds = 0, limit = 2;
	int64_t t;

	for (i = m; i > 1; i /= 2)
		limit += 2;
	while (hi - lo > 16) {
		size_t mid = lo + (hi - lo) / 2, store;

		if (++rounds > limit) {
			int64_t *from = malloc((hi - lo) * sizeof(*from));

			if (from) {
				memcpy(from, pos + lo, (hi - lo) * sizeof(*from));
				heap_select(score, from, hi - lo, pos + lo, r - lo);
				free(from);
				return;
			}
		}
		/* the median of lo, mid and hi - 1 to hi - 1 */
		if (better(score, pos[mid], pos[lo]))
			swap_pos(pos, mid, lo);
		if (better(score, pos[hi - 1], pos[lo]))
			swap_pos(pos, hi - 1, lo);
		if (better(score, pos[mid], pos[hi - 1]))
			swap_pos(pos, mid, hi - 1);
		store = lo;
		for (i = lo; i < hi - 1; i++)
			if (better(score, pos[i], pos[hi - 1]))
				swap_pos(pos, i, store++);
		swap_pos(pos, store, hi - 1);
		/* pos[lo..store) better than the pivot, at pos[store] */
		if (r <= store)
			hi = store;
		else if (r > store + 1)
			lo = store + 1;
		else
			return;
	}
	for (i = lo + 1; i < hi; i++) {
		t = pos[i];
		for (j = i; j > lo && better(score, t, pos[j - 1]); j--)
			pos[j] = pos[j - 1];
		pos[j] = t;
	}
}

static void select_best(const float *score, int64_t *pos, uint64_t n, size_t r)
{
	size_t q = r / SAMPLE_STEP + r / (2 * SAMPLE_STEP) + 4, room = 4 * r;
	uint64_t ns = n / SAMPLE_STEP, m = 0, j;
	int64_t *sample = NULL, *above = NULL;

	if (ns >= 4 * q)
		sample = malloc(q * sizeof(*sample));
	if (sample)
		above = malloc((room + 1) * sizeof(*above));
	if (above) {
		/* the q-th best of the sample: its positions are j * STEP */
		float bar;

		for (j = 0; j < q; j++)
			sample[j] = (int64_t)(j * SAMPLE_STEP);
		for (j = q / 2; j-- > 0;)
			heap_down(score, sample, q, j);
		for (j = q; j < ns; j++) {
			int64_t c = (int64_t)(j * SAMPLE_STEP);

			if (better(score, c, sample[0])) {
				sample[0] = c;
				heap_down(score, sample, q, 0);
			}
		}
		bar = score[sample[0]];
		/* without a branch on the score, which goes either way as
		 * it pleases: each position is written, and kept when above
		 * (room + 1 of them: one more than room is too many) */
		for (j = 0; j < n; j++) {
			above[m] = (int64_t)j;
			m += score[j] > bar;
			if (m > room)
				break;
		}
		/* every one of the r best is above a bar that r pass */
		if (bar == bar && m >= r && m <= room) {
			if (m > r)
				quick_select(score, above, m, r);
			memcpy(pos, above, r * sizeof(*pos));
			free(sample);
			free(above);
			return;
		}
	}
	free(sample);
	free(above);
	heap_select(score, NULL, n, pos, r);
}

/* An exactly scored vector: how good (larger is nearer, a NaN is the
 * worst) and where it is in the index. */
struct cand {
	float good;
	int64_t pos;
};

/* Is a before b in the answer?  Better first, then earlier in the index. */
static int before(const struct cand *a, const struct cand *b)
{
	return a->good > b->good || (a->good == b->good && a->pos < b->pos);
}

/* heap[0..k) with the last in answer order on top. */
static void cand_down(struct cand *heap, size_t k, size_t i)
{
	struct cand c = heap[i];

	for (;;) {
		size_t ch = 2 * i + 1;

		if (ch >= k)
			break;
		if (ch + 1 < k && before(&heap[ch], &heap[ch + 1]))
			ch++;
		if (!before(&c, &heap[ch]))
			break;
		heap[i] = heap[ch];
		i = ch;
	}
	heap[i] = c;
}

/*
 * The k first in answer order of the m scored vectors at pos[j] (j when
 * pos is NULL), sorted, into best[0..*got).
 */
static void keep_first(const float *score, const int64_t *pos, uint64_t m, int l2, size_t k,
		       struct cand *best, size_t *got)
{
	size_t have = 0, i;
	uint64_t j;

	for (j = 0; j < m; j++) {
		struct cand c;

		c.good = l2 ? -score[j] : score[j];
		if (c.good != c.good)
			c.good = -INFINITY;
		c.pos = pos ? pos[j] : (int64_t)j;
		if (have < k) {
			best[have++] = c;
			if (have == k)
				for (i = k / 2; i-- > 0;)
					cand_down(best, k, i);
		} else if (before(&c, &best[0])) {
			best[0] = c;
			cand_down(best, k, 0);
		}
	}
	/* the heap sorted where it is: its top, the last in answer order,
	 * to the end each time (a qsort's call per comparison cost more
	 * than the choosing) */
	if (have < k)
		for (i = have / 2; i-- > 0;)
			cand_down(best, have, i);
	for (i = have; i > 1; i--) {
		struct cand t = best[0];

		best[0] = best[i - 1];
		best[i - 1] = t;
		cand_down(best, i - 1, 0);
	}
	*got = have;
}

/* The bytes of the query's code in a search of v: for 4-bit codes its
 * even and its odd coordinates, then its 8-bit code (pick()). */
static size_t qcode_size(const struct kbx_vflat *v)
{
	return v->bits == 4 ? 2 * (size_t)v->stride + _kbx_vflat_stride(v->dim) : v->stride + 1;
}

/* The coarse pass: the codes scored against q's, the r best into pos
 * (job: the scores' buffer and the query's code, set up by the caller). */
static void pick(struct score_job *job, const float *q, size_t r, int64_t *pos)
{
	const struct kbx_vflat *v = job->v;

	job->q = q;
	if (v->bits == 4) {
		/* the query's 8-bit code after the two halves, then its
		 * even and its odd coordinates into them */
		int8_t *qe = (int8_t *)job->qc, *qo = qe + v->stride, *q8 = qo + v->stride;
		uint32_t j;

		job->l2_a = 2 * _kbx_vflat_encode(q, v->dim, _kbx_vflat_stride(v->dim), q8);
		memset(qe, 0, 2 * (size_t)v->stride);
		job->qsum = 0;
		for (j = 0; j < v->dim; j++) {
			(j & 1 ? qo : qe)[j / 2] = q8[j];
			job->qsum += q8[j];
		}
	} else {
		job->l2_a = 2 * _kbx_vflat_encode(q, v->dim, v->stride, (int8_t *)job->qc);
	}
	score_all(job, v->stride);
	select_best(job->out, pos, v->n, r);
}

int _kbx_vflat_pick(const struct kbx_vflat *v, const float *q, size_t r, int64_t *pos,
		    char *err, size_t errsz)
{
	struct score_job job;
	float *score = malloc((size_t)v->n * sizeof(*score) + 1);
	int8_t *qc = malloc(qcode_size(v));

	if (!score || !qc) {
		free(score);
		free(qc);
		return fail(err, errsz, KBX_VF_NOMEM, "out of memory");
	}
	memset(&job, 0, sizeof(job));
	job.v = v;
	job.n = v->n;
	job.out = score;
	job.qc = qc;
	pick(&job, q, r < v->n ? r : (size_t)v->n, pos);
	free(score);
	free(qc);
	return KBX_VF_OK;
}

int _kbx_vflat_search(const struct kbx_vflat *v, size_t nq, const float *q, size_t k,
		      size_t rerank, int64_t *ids, float *dist, char *err, size_t errsz)
{
	size_t r = rerank ? rerank : KBX_VFLAT_DEFAULT_RERANK;
	int l2 = v->metric == KBX_VF_METRIC_L2;
	int exact;
	size_t qi, i, got;
	uint64_t m;
	float *score = NULL, *fine = NULL;
	int8_t *qc = NULL;
	int64_t *pos = NULL;
	struct cand *best = NULL;
	struct score_job job;
	int rc = KBX_VF_OK;

	if (r < k)
		r = k;
	exact = !v->codes_ok || (uint64_t)r > v->n / 4;
	m = exact ? v->n : r;
	score = malloc((size_t)v->n * sizeof(*score) + 1);
	best = malloc(k * sizeof(*best) + 1);
	if (!exact) {
		qc = malloc(qcode_size(v));
		pos = malloc(r * sizeof(*pos));
		fine = malloc(r * sizeof(*fine));
	}
	if (!score || !best || (!exact && (!qc || !pos || !fine))) {
		rc = fail(err, errsz, KBX_VF_NOMEM, "out of memory");
		goto out;
	}
	memset(&job, 0, sizeof(job));
	job.exact = exact;
	job.v = v;
	job.n = v->n;
	job.out = score;
	job.qc = qc;
	for (qi = 0; qi < nq; qi++) {
		const float *qv = q + qi * v->dim;
		int64_t *qids = ids + qi * k;
		float *qdist = dist + qi * k;

		job.q = qv;
		if (exact) {
			score_all(&job, (uint64_t)v->dim * sizeof(float));
			keep_first(score, NULL, m, l2, k, best, &got);
		} else {
			pick(&job, qv, r, pos);
			score_exact(qv, v->x, pos, r, v->dim, l2, fine);
			keep_first(fine, pos, m, l2, k, best, &got);
		}
		for (i = 0; i < k; i++) {
			if (i >= got) {
				qids[i] = -1;
				qdist[i] = l2 ? INFINITY : -INFINITY;
				continue;
			}
			qids[i] = v->ids[best[i].pos];
			qdist[i] = l2 ? -best[i].good : best[i].good;
			if (qids[i] < 0) {
				rc = fail(err, errsz, KBX_VF_FORMAT,
					  "vector index is damaged: position %lld holds id %lld",
					  (long long)best[i].pos, (long long)qids[i]);
				goto out;
			}
		}
	}
out:
	free(score);
	free(fine);
	free(qc);
	free(pos);
	free(best);
	return rc;
}
