/*
 * Index files: a payload followed by a fixed 64-byte trailer.  The
 * payload is a plain FAISS index file (HNSW, IVF, factory indexes), or
 * kbx's own flat layout (flat.c) for KBX_VEC_FLAT, which open() maps
 * rather than reads.
 *
 * The trailer sits at the end so that a FAISS payload stays a plain
 * FAISS file (FAISS's own tools read it and ignore what follows), and so
 * that FAISS can map the file's inverted lists at their natural offsets.
 * All fields are little-endian:
 *
 *    0  8  magic "kbx-vec\n"
 *    8  4  trailer format, 2 (format 1, read still, has no layout byte)
 *   12  4  trailer size, 64
 *   16  8  generation stamp
 *   24  8  size of the FAISS data before the trailer
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
 * The file is read through one descriptor, trailer first, so that a save
 * renaming a new file into place meanwhile cannot pair one file's trailer
 * with another's index.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <faiss/c_api/index_io_c.h>

#include "internal.h"

#define TRAILER_SIZE 64
#define TRAILER_FORMAT 2
#define TRAILER_FORMAT_OLDEST 1
#define LAYOUT_FAISS 0
#define LAYOUT_FLAT 1
static const unsigned char trailer_magic[8] = { 'k', 'b', 'x', '-', 'v', 'e', 'c', '\n' };

#define TRAILER_TRAINED 1u

/*
 * faiss::IO_FLAG_MMAP of FAISS 1.7.3 (index_io.h): map an IVF index's
 * inverted lists instead of reading them.  The C header's
 * FAISS_IO_FLAG_MMAP is 1, which libfaiss_c passes to the C++ reader
 * unchanged and which the reader ignores, so the C++ value is used.
 */
#define KBX_FAISS_IO_FLAG_MMAP 0x646f0008
#ifndef FAISS_IO_FLAG_READ_ONLY
#define FAISS_IO_FLAG_READ_ONLY 2
#endif

struct trailer {
	uint32_t format;
	uint64_t generation;
	uint64_t payload;
	uint64_t ntotal;
	uint32_t dim;
	uint8_t kind, metric, flags, layout;
	uint32_t param;
};

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ull;
	}
	return h;
}

static void trailer_encode(unsigned char out[TRAILER_SIZE], const struct trailer *t)
{
	memset(out, 0, TRAILER_SIZE);
	memcpy(out, trailer_magic, sizeof(trailer_magic));
	put_le(out + 8, TRAILER_FORMAT, 4);
	put_le(out + 12, TRAILER_SIZE, 4);
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

/* Read and check the trailer of the open file fd (of size st_size). */
static int trailer_read(int fd, const char *path, off_t size, struct trailer *t,
			char *err, size_t errsz)
{
	unsigned char buf[TRAILER_SIZE];
	ssize_t got;

	if (size < TRAILER_SIZE)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "'%s' is not a kbx vector index: only %lld bytes long",
				     path, (long long)size);
	do
		got = pread(fd, buf, TRAILER_SIZE, size - TRAILER_SIZE);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot read '%s': %s", path,
				     strerror(errno));
	if (got != TRAILER_SIZE)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO,
				     "cannot read '%s': file shrank while being read", path);
	if (memcmp(buf, trailer_magic, sizeof(trailer_magic)) != 0)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "'%s' is not a kbx vector index, or is truncated", path);
	t->format = (uint32_t)get_le(buf + 8, 4);
	if (t->format < TRAILER_FORMAT_OLDEST || t->format > TRAILER_FORMAT ||
	    get_le(buf + 12, 4) != TRAILER_SIZE)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "'%s' is a vector index of format %u, which this kbx cannot read",
				     path, t->format);
	if (get_le(buf + 56, 8) != fnv1a64(buf, 56))
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
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
	if (t->payload != (uint64_t)size - TRAILER_SIZE)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' is damaged: %llu bytes of index data expected, %lld found",
				     path, (unsigned long long)t->payload,
				     (long long)(size - TRAILER_SIZE));
	if (t->dim < 1 || t->dim > KBX_VECTOR_MAX_DIM || t->kind < KBX_VEC_FLAT ||
	    t->kind > KBX_VEC_FACTORY || t->metric > KBX_VEC_L2 ||
	    t->layout > LAYOUT_FLAT || (t->format == 1 && t->layout != LAYOUT_FAISS) ||
	    (t->layout == LAYOUT_FLAT && t->kind != KBX_VEC_FLAT))
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				     "vector index '%s' has an invalid trailer", path);
	return KBX_VEC_OK;
}

/* Open path and read its trailer; *fd is open on success. */
static int open_index_file(const char *path, int *fd, struct trailer *t, char *err,
			   size_t errsz)
{
	struct stat st;
	int rc;

	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (*fd < 0)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO,
				     "cannot open vector index '%s': %s", path, strerror(errno));
	if (fstat(*fd, &st) < 0) {
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot stat '%s': %s", path,
				   strerror(errno));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				   "'%s' is not a kbx vector index: not a regular file", path);
		goto fail;
	}
	rc = trailer_read(*fd, path, st.st_size, t, err, errsz);
	if (rc)
		goto fail;
	return KBX_VEC_OK;
fail:
	close(*fd);
	*fd = -1;
	return rc;
}

static void info_from_trailer(const struct trailer *t, struct kbx_vector_info *info)
{
	memset(info, 0, sizeof(*info));
	info->kind = t->kind;
	info->metric = t->metric;
	info->dim = t->dim;
	info->param = t->param;
	info->ntotal = t->ntotal;
	info->generation = t->generation;
	info->is_trained = (t->flags & TRAILER_TRAINED) != 0;
}

int _kbx_vec_peek(const char *path, struct kbx_vector_info *info, char *err, size_t errsz)
{
	struct trailer t;
	int fd, rc;

	rc = open_index_file(path, &fd, &t, err, errsz);
	if (rc)
		return rc;
	close(fd);
	info_from_trailer(&t, info);
	return KBX_VEC_OK;
}

int _kbx_vec_open(const char *path, unsigned flags, uint64_t expect_generation,
		  uint32_t expect_dim, kbx_vector_index_t **out, uint64_t *generation,
		  char *err, size_t errsz)
{
	struct trailer t;
	FaissIndex *f = NULL;
	FILE *fp;
	int fd, rc, io_flags = 0;
	idx_t ntotal;

	*out = NULL;
	rc = open_index_file(path, &fd, &t, err, errsz);
	if (rc)
		return rc;
	if (generation)
		*generation = t.generation;
	if ((flags & KBX_VEC_OPEN_GENERATION) && t.generation != expect_generation) {
		close(fd);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STALE,
				     "vector index '%s' is stale: it has generation %llu, %llu expected",
				     path, (unsigned long long)t.generation,
				     (unsigned long long)expect_generation);
	}
	if (expect_dim && t.dim != expect_dim) {
		close(fd);
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_DIM,
				     "vector index '%s' has dimension %u, %u expected", path,
				     t.dim, expect_dim);
	}

	if (t.layout == LAYOUT_FLAT) {
		/* Read-only is all a mapping can be, and all a search needs. */
		rc = _kbx_vec_flat_open(fd, path, t.payload, t.dim, t.ntotal, t.metric,
					(flags & (KBX_VEC_OPEN_MMAP | KBX_VEC_OPEN_READ_ONLY)) != 0,
					out, err, errsz);
		close(fd);      /* a mapping outlives the descriptor */
		if (rc)
			return rc;
		goto done;
	}

	fp = fdopen(fd, "rb");
	if (!fp) {
		rc = _kbx_vec_fail(err, errsz, errno == ENOMEM ? KBX_VEC_ERR_NOMEM : KBX_VEC_ERR_IO,
				   "cannot read '%s': %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if (flags & KBX_VEC_OPEN_MMAP)
		io_flags |= KBX_FAISS_IO_FLAG_MMAP | FAISS_IO_FLAG_READ_ONLY;
	if (flags & KBX_VEC_OPEN_READ_ONLY)
		io_flags |= FAISS_IO_FLAG_READ_ONLY;
	rc = faiss_read_index(fp, io_flags, &f);
	fclose(fp);     /* a mapping made by FAISS outlives the descriptor */
	if (rc) {
		char what[64 + 4096];

		snprintf(what, sizeof(what), "cannot read vector index '%s'", path);
		return _kbx_vec_fail_faiss(err, errsz, rc, what);
	}

	ntotal = faiss_Index_ntotal(f);
	if ((uint32_t)faiss_Index_d(f) != t.dim || ntotal < 0 || (uint64_t)ntotal != t.ntotal) {
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_FORMAT,
				   "vector index '%s' is damaged: its trailer says %llu vectors of dimension %u, the index holds %lld of dimension %d",
				   path, (unsigned long long)t.ntotal, t.dim,
				   (long long)ntotal, faiss_Index_d(f));
		faiss_Index_free(f);
		return rc;
	}
	if (flags & KBX_VEC_OPEN_MMAP)
		_kbx_vec_ivf_no_prefetch(f);
	rc = _kbx_vec_wrap(f, t.kind, t.metric, t.param, out, err, errsz);
	if (rc)
		return rc;
done:
	(*out)->generation = t.generation;
	(*out)->read_only = (flags & (KBX_VEC_OPEN_MMAP | KBX_VEC_OPEN_READ_ONLY)) != 0;
	return KBX_VEC_OK;
}

/* The directory part of path ("." when there is none); malloc()ed. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t len;
	char *dir;

	if (!slash)
		return strdup(".");
	len = slash == path ? 1 : (size_t)(slash - path);
	dir = malloc(len + 1);
	if (dir) {
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	return dir;
}

/* Create a temporary file next to path; *tmp is malloc()ed. */
static int create_temp(const char *path, char **tmp, int *fd, char *err, size_t errsz)
{
	size_t len = strlen(path) + 48;
	unsigned attempt;

	*tmp = malloc(len);
	if (!*tmp)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	for (attempt = 0; attempt < 100; attempt++) {
		snprintf(*tmp, len, "%s.tmp-%ld-%u", path, (long)getpid(), attempt);
		*fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (*fd >= 0)
			return KBX_VEC_OK;
		if (errno != EEXIST)
			break;
	}
	_kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot create '%s': %s", *tmp,
		      strerror(errno));
	free(*tmp);
	*tmp = NULL;
	return KBX_VEC_ERR_IO;
}

static int sync_dir(const char *path, char *err, size_t errsz)
{
	char *dir = dir_of(path);
	int fd, rc = KBX_VEC_OK;

	if (!dir)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_NOMEM, "out of memory");
	fd = open(dir, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fsync(fd) < 0)
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot sync directory '%s': %s",
				   dir, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(dir);
	return rc;
}

int _kbx_vec_save(kbx_vector_index_t *ix, const char *path, uint64_t generation,
		  char *err, size_t errsz)
{
	unsigned char buf[TRAILER_SIZE];
	struct trailer t;
	char *tmp = NULL;
	FILE *fp = NULL;
	off_t payload;
	int fd = -1, rc;

	/* A mapped index's lists live in the file it came from; FAISS would
	 * write a reference to that file rather than the vectors. */
	if (ix->read_only)
		return _kbx_vec_fail(err, errsz, KBX_VEC_ERR_STATE,
				     "cannot save a vector index opened read-only");
	rc = create_temp(path, &tmp, &fd, err, errsz);
	if (rc)
		return rc;
	fp = fdopen(fd, "wb");
	if (!fp) {
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot write '%s': %s", tmp,
				   strerror(errno));
		close(fd);
		goto fail;
	}

	if (ix->flat) {
		rc = _kbx_vec_flat_write(ix, fp, err, errsz);
		if (rc == KBX_VEC_ERR_IO)
			goto io_fail;
		if (rc)
			goto fail;
	} else {
		rc = faiss_write_index(ix->faiss, fp);
	}
	if (rc) {
		char what[64 + 4096];

		snprintf(what, sizeof(what), "cannot write vector index '%s'", tmp);
		rc = _kbx_vec_fail_faiss(err, errsz, rc, what);
		goto fail;
	}
	errno = 0;
	if (fflush(fp) != 0 || (payload = ftello(fp)) < 0)
		goto io_fail;

	memset(&t, 0, sizeof(t));
	t.generation = generation;
	t.payload = (uint64_t)payload;
	t.ntotal = _kbx_vec_ntotal(ix);
	t.dim = ix->dim;
	t.kind = (uint8_t)ix->kind;
	t.metric = (uint8_t)ix->metric;
	t.flags = ix->flat || faiss_Index_is_trained(ix->faiss) ? TRAILER_TRAINED : 0;
	t.layout = ix->flat ? LAYOUT_FLAT : LAYOUT_FAISS;
	t.param = ix->param;
	trailer_encode(buf, &t);
	if (fwrite(buf, 1, TRAILER_SIZE, fp) != TRAILER_SIZE || fflush(fp) != 0 ||
	    ferror(fp) || fsync(fileno(fp)) < 0)
		goto io_fail;
	rc = fclose(fp);
	fp = NULL;
	if (rc != 0)
		goto io_fail;
	if (rename(tmp, path) < 0) {
		rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot rename '%s' to '%s': %s",
				   tmp, path, strerror(errno));
		goto fail;
	}
	free(tmp);
	ix->generation = generation;
	/* The new file is in place; a failure here only means it might not
	 * survive a crash. */
	return sync_dir(path, err, errsz);

io_fail:
	rc = _kbx_vec_fail(err, errsz, KBX_VEC_ERR_IO, "cannot write '%s': %s", tmp,
			   strerror(errno ? errno : EIO));
fail:
	if (fp)
		fclose(fp);
	unlink(tmp);
	free(tmp);
	return rc;
}
