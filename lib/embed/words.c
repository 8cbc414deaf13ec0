/*
 * Learned word vectors for the builtin embedding: a file made by
 * models/words/build.sh (word2vec-style skip-gram vectors, learned by
 * fastText from Debian's programming documentation, tokenized as kbx
 * tokenizes), mapped read-only.
 *
 * The file, little-endian:
 *
 *   header, 64 bytes:
 *     "KBXWORDS", u32 version (1), u32 dim, u32 nwords, u32 pool bytes
 *     (a multiple of 4), u32 body bytes, 16 hex digits of the body's
 *     SHA-256 (the model's name in the embedder identity), zeros
 *   body:
 *     u32 off[nwords + 1]     word i is pool[off[i] .. off[i + 1]),
 *                             words sorted bytewise
 *     pool
 *     f32 scale[nwords]       word i's vector is scale[i] * vec[i]
 *     f32 weight[nwords]      a / (a + p(word)): smooth inverse frequency
 *     f32 common[dim]         the direction every text shares
 *     i8  vec[nwords][dim]
 *
 * Every offset is checked when the file is opened, so that a lookup
 * needs no check of its own.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE         /* madvise, MADV_HUGEPAGE */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/modload.h"
#include "embed/words.h"

#define HEADER 64

struct _kbx_words {
	void *map;
	size_t size;
	uint32_t dim, n;
	const uint32_t *off;
	const unsigned char *pool;
	uint32_t pool_size;
	const float *scale, *weight, *common;
	const signed char *vec;
	char name[17];
};

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int _kbx_words_open(const char *path, struct _kbx_words **out, char *msg, size_t msgsz)
{
	struct _kbx_words *w = NULL;
	struct stat sb;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, msgsz, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode) || sb.st_size < HEADER) {
		snprintf(msg, msgsz, "'%s' is not a word-vector file", path);
		close(fd);
		return -1;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(msg, msgsz, "out of memory");
		close(fd);
		return -1;
	}
	w->size = (size_t)sb.st_size;
	w->map = mmap(NULL, w->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (w->map == MAP_FAILED) {
		snprintf(msg, msgsz, "cannot map '%s': %s", path, strerror(errno));
		free(w);
		return -1;
	}
#ifdef MADV_HUGEPAGE
	/* read from disk in 2 MiB pieces, mapped one entry each where the
	 * kernel caches files so (as the vector file: lib/util/vflat.c);
	 * a query touches the offsets, the pool and a row per word */
	(void)madvise(w->map, w->size, MADV_HUGEPAGE);
#endif
	const unsigned char *h = w->map;
	uint32_t version = get_u32(h + 8), pool, body;
	w->dim = get_u32(h + 12);
	w->n = get_u32(h + 16);
	pool = get_u32(h + 20);
	body = get_u32(h + 24);
	uint64_t need = 4ull * (w->n + 1) + pool + 8ull * w->n + 4ull * w->dim +
			(uint64_t)w->n * w->dim;
	if (memcmp(h, "KBXWORDS", 8) || version != 1 || !w->dim || w->dim > 4096 || !w->n ||
	    pool % 4 || need != body || HEADER + (uint64_t)body != w->size) {
		snprintf(msg, msgsz, "'%s' is not a word-vector file of this kbx (version 1)", path);
		goto bad;
	}
	memcpy(w->name, h + 28, 16);
	w->name[16] = '\0';
	const unsigned char *p = h + HEADER;
	w->off = (const uint32_t *)p;
	w->pool = p + 4ull * (w->n + 1);
	w->scale = (const float *)(w->pool + pool);
	w->weight = w->scale + w->n;
	w->common = w->weight + w->n;
	w->vec = (const signed char *)(w->common + w->dim);
	w->pool_size = pool;
	/* the offsets are checked where they are read (word_at): a query
	 * reads a few dozen of them, a check of all 20,000 here cost more
	 * than its look-ups */
	*out = w;
	return 0;
bad:
	munmap(w->map, w->size);
	free(w);
	return -1;
}

int _kbx_words_load(struct _kbx_words **out, char *msg, size_t msgsz)
{
	char path[PATH_MAX];

	*out = NULL;
	if (_kbx_file_find("the builtin embedding's word vectors", "KBX_WORDS_PATH", KBX_DATA_DIR,
			   "kbx-words.bin", path, sizeof(path), msg, msgsz))
		return -1;
	return _kbx_words_open(path, out, msg, msgsz);
}

void _kbx_words_close(struct _kbx_words *w)
{
	if (!w)
		return;
	munmap(w->map, w->size);
	free(w);
}

uint32_t _kbx_words_dim(const struct _kbx_words *w)
{
	return w->dim;
}

const char *_kbx_words_name(const struct _kbx_words *w)
{
	return w->name;
}

/* Word i's bytes, or NULL where the file's offsets do not rise within
 * the pool (a damaged file: the word is not there). */
static const unsigned char *word_at(const struct _kbx_words *w, uint32_t i, size_t *len)
{
	uint32_t a = w->off[i], b = w->off[i + 1];

	if (a > b || b > w->pool_size) {
		*len = 0;
		return NULL;
	}
	*len = b - a;
	return w->pool + a;
}

long _kbx_words_find(const struct _kbx_words *w, const char *tok, size_t len)
{
	uint32_t lo = 0, hi = w->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		size_t sl;
		const unsigned char *s = word_at(w, mid, &sl);

		if (!s)
			return -1;
		int c = memcmp(s, tok, sl < len ? sl : len);

		if (!c)
			c = sl < len ? -1 : sl > len;
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

float _kbx_words_weight(const struct _kbx_words *w, long i)
{
	return w->weight[i];
}

void _kbx_words_add(const struct _kbx_words *w, long i, float k, float *acc)
{
	const signed char *v = w->vec + (size_t)i * w->dim;

	k *= w->scale[i];
	for (uint32_t j = 0; j < w->dim; j++)
		acc[j] += k * (float)v[j];
}

void _kbx_words_finish(const struct _kbx_words *w, float *acc)
{
	float d = 0.0f;

	for (uint32_t j = 0; j < w->dim; j++)
		d += acc[j] * w->common[j];
	for (uint32_t j = 0; j < w->dim; j++)
		acc[j] -= d * w->common[j];
}

const char *_kbx_words_word(const struct _kbx_words *w, long i, size_t *len)
{
	const unsigned char *s = word_at(w, (uint32_t)i, len);

	return s ? (const char *)s : "";
}

size_t _kbx_words_near(const struct _kbx_words *w, long i, size_t k, float min_cos, long *idx,
		       float *cos)
{
	const signed char *a = w->vec + (size_t)i * w->dim;
	int32_t na = 0;
	size_t n = 0;

	for (uint32_t d = 0; d < w->dim; d++)
		na += (int32_t)a[d] * a[d];
	if (!na || !k)
		return 0;
	for (uint32_t j = 0; j < w->n; j++) {
		const signed char *b = w->vec + (size_t)j * w->dim;
		int32_t dot = 0, nb = 0;

		if ((long)j == i)
			continue;
		for (uint32_t d = 0; d < w->dim; d++) {
			dot += (int32_t)a[d] * b[d];
			nb += (int32_t)b[d] * b[d];
		}
		if (dot <= 0 || !nb)
			continue;
		float c = (float)dot / (sqrtf((float)na) * sqrtf((float)nb));
		if (c < min_cos || (n == k && c <= cos[n - 1]))
			continue;
		/* insert, best first */
		size_t at = n < k ? n++ : k - 1;
		while (at > 0 && cos[at - 1] < c) {
			cos[at] = cos[at - 1];
			idx[at] = idx[at - 1];
			at--;
		}
		cos[at] = c;
		idx[at] = (long)j;
	}
	return n;
}
