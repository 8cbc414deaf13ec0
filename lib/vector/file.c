/*
 * Index files: a payload followed by a fixed 64-byte trailer.  The
 * payload is a plain FAISS index file (HNSW, IVF, factory indexes), or
 * kbx's own flat layout (flat.c) for KBX_VEC_FLAT, which open() maps
 * rather than reads.  The trailer's layout, and reading it, are in
 * lib/util/vflat.c, which kbx search also uses to map a flat file
 * without this module.
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
#include "util/vflat.h"

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

/* Written through a buffer of 2 MiB, so that each write() is 2 MiB at a
 * multiple of 2 MiB: a file system with large folios (ext4 since Linux
 * 6.16) then caches the new file in huge pages, which a search maps with
 * one page-table entry each (see advise_huge() in lib/util/vflat.c). */
#define SAVE_BUFFER (2u << 20)

static void info_from_trailer(const struct kbx_vf_trailer *t, struct kbx_vector_info *info)
{
	memset(info, 0, sizeof(*info));
	info->kind = t->kind;
	info->metric = t->metric;
	info->dim = t->dim;
	info->param = t->param;
	info->ntotal = t->ntotal;
	info->generation = t->generation;
	info->is_trained = (t->flags & KBX_VF_TRAINED) != 0;
}

int _kbx_vec_peek(const char *path, struct kbx_vector_info *info, char *err, size_t errsz)
{
	struct kbx_vf_trailer t;
	int fd, rc;

	rc = _kbx_vf_open_file(path, &fd, &t, err, errsz);
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
	struct kbx_vf_trailer t;
	FaissIndex *f = NULL;
	FILE *fp;
	int fd, rc, io_flags = 0;
	idx_t ntotal;

	*out = NULL;
	rc = _kbx_vf_open_file(path, &fd, &t, err, errsz);
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

	if (t.layout == KBX_VF_LAYOUT_FLAT) {
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
	unsigned char buf[KBX_VF_TRAILER_SIZE];
	struct kbx_vf_trailer t;
	char *tmp = NULL, *wbuf = NULL;
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
	/* glibc takes a size only with a buffer; without one, stdio's own */
	wbuf = malloc(SAVE_BUFFER);
	if (wbuf)
		(void)setvbuf(fp, wbuf, _IOFBF, SAVE_BUFFER);

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
	t.flags = ix->flat || faiss_Index_is_trained(ix->faiss) ? KBX_VF_TRAINED : 0;
	t.layout = ix->flat ? KBX_VF_LAYOUT_FLAT : KBX_VF_LAYOUT_FAISS;
	t.param = ix->param;
	_kbx_vf_trailer_encode(buf, &t);
	if (fwrite(buf, 1, KBX_VF_TRAILER_SIZE, fp) != KBX_VF_TRAILER_SIZE || fflush(fp) != 0 ||
	    ferror(fp) || fsync(fileno(fp)) < 0)
		goto io_fail;
	rc = fclose(fp);
	fp = NULL;
	free(wbuf);
	wbuf = NULL;
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
	free(wbuf);
	unlink(tmp);
	free(tmp);
	return rc;
}
