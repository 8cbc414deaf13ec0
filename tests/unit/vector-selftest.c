/*
 * vector-selftest: the vector module, loaded the way kbx loads it.
 *
 * Linked like kbx (libkbx.a, no FAISS): it goes through _kbx_vector_load()
 * and the table the module returns.  Builds flat, HNSW and IVF indexes
 * over seeded random unit vectors, checks exact search, measures recall
 * of the approximate indexes against the exact one, saves, reopens
 * (mapped) and checks the generation stamp and the errors; then the flat
 * index's own file layout and its code scan, damaged files of that
 * layout, and choose().  Prints TAP.
 *
 *   vector-selftest [scratch-dir]   run the tests (files go to scratch-dir,
 *                                   default a new directory under $TMPDIR)
 *   vector-selftest --module-path   load the module and print where from
 *   vector-selftest --module-dir    print the compiled-in KBX_MODULE_DIR
 *   vector-selftest --save-flat FILE N
 *                                   save a flat index of N random vectors
 *                                   (ids 1000 + 7 i) with generation 5
 *   vector-selftest --open FILE     open FILE mapped and search it for its
 *                                   first vector's neighbour; prints
 *                                   "<kind> <count> <best id>", or the
 *                                   error on stderr and exits 1
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "search/vecmod.h"

#define DIM 32
#define NBASE 4000
#define NQUERY 200
#define K 10
#define IVF_NLIST 64
#define HNSW_M 32
#define EF_SEARCH 128
#define NPROBE 32
#define MIN_RECALL 0.80

static int tests, failures;

static int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		failures++;
	fflush(stdout);
	return cond;
}

static void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ---- deterministic data ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_uniform(void)
{
	return ((rng_next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/*
 * The test links like kbx, without libm, hence these two.  A sum of 12
 * uniforms less 6 is close enough to a standard normal for normalised
 * vectors to be spread evenly over the sphere.
 */
static double rng_normal(void)
{
	double sum = 0;
	int i;

	for (i = 0; i < 12; i++)
		sum += rng_uniform();
	return sum - 6;
}

static double square_root(double x)
{
	double r = x > 1 ? x : 1;
	int i;

	if (x <= 0)
		return 0;
	for (i = 0; i < 64; i++)
		r = 0.5 * (r + x / r);
	return r;
}

static float absolute(float x)
{
	return x < 0 ? -x : x;
}

/* n unit vectors, spread evenly over the sphere. */
static float *random_unit_vectors(size_t n, uint64_t seed)
{
	float *v = malloc(n * DIM * sizeof(float));
	size_t i, j;

	if (!v)
		abort();
	rng_state = seed;
	for (i = 0; i < n; i++) {
		double norm = 0;

		for (j = 0; j < DIM; j++) {
			v[i * DIM + j] = (float)rng_normal();
			norm += (double)v[i * DIM + j] * v[i * DIM + j];
		}
		norm = square_root(norm);
		for (j = 0; j < DIM; j++)
			v[i * DIM + j] = (float)(v[i * DIM + j] / norm);
	}
	return v;
}

/* n unit vectors near `centres` random centres, dimension dim: easier
 * than the sphere, as real embeddings are. */
static float *clustered_vectors(size_t n, uint32_t dim, size_t centres, uint64_t seed)
{
	float *c, *v = malloc(n * dim * sizeof(float));
	size_t i, j;

	if (!v)
		abort();
	rng_state = seed;
	c = malloc(centres * dim * sizeof(float));
	if (!c)
		abort();
	for (i = 0; i < centres * dim; i++)
		c[i] = (float)rng_normal();
	for (i = 0; i < n; i++) {
		const float *centre = c + (rng_next() % centres) * dim;
		double norm = 0;

		for (j = 0; j < dim; j++) {
			v[i * dim + j] = centre[j] + (float)(0.6 * rng_normal());
			norm += (double)v[i * dim + j] * v[i * dim + j];
		}
		norm = square_root(norm);
		for (j = 0; j < dim; j++)
			v[i * dim + j] = (float)(v[i * dim + j] / norm);
	}
	free(c);
	return v;
}

static int64_t id_of(size_t i)
{
	return 1000 + (int64_t)i * 7;   /* ids are not positions */
}

/* ---- helpers ---- */

static const struct kbx_vector_ops *V;
static char err[1024];

static kbx_vector_index_t *build(int kind, int metric, uint32_t param, const float *base,
				 const char *name)
{
	struct kbx_vector_spec spec = { .kind = kind, .metric = metric, .dim = DIM };
	kbx_vector_index_t *ix = NULL;
	int64_t *ids = malloc(NBASE * sizeof(*ids));
	int rc;
	size_t i;

	if (!ids)
		abort();
	for (i = 0; i < NBASE; i++)
		ids[i] = id_of(i);
	if (kind == KBX_VEC_HNSW)
		spec.hnsw_m = param;
	if (kind == KBX_VEC_IVF)
		spec.ivf_nlist = param;
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (!ok(rc == KBX_VEC_OK, "create %s index", name)) {
		diag("%s", err);
		free(ids);
		return NULL;
	}
	rc = V->train(ix, NBASE, DIM, base, err, sizeof(err));
	if (rc)
		diag("train: %s", err);
	if (!rc)
		rc = V->add(ix, NBASE, DIM, base, ids, err, sizeof(err));
	if (!ok(rc == KBX_VEC_OK && V->ntotal(ix) == NBASE, "train and add %d vectors to %s",
		NBASE, name)) {
		diag("%s (ntotal %llu)", err, (unsigned long long)V->ntotal(ix));
		V->free_index(ix);
		ix = NULL;
	}
	free(ids);
	return ix;
}

/* Fraction of exact's top K found in approx's top K. */
static double recall(const int64_t *exact, const int64_t *approx, size_t nq)
{
	size_t q, i, j, hits = 0;

	for (q = 0; q < nq; q++)
		for (i = 0; i < K; i++)
			for (j = 0; j < K; j++)
				if (approx[q * K + i] == exact[q * K + j] && exact[q * K + j] >= 0) {
					hits++;
					break;
				}
	return (double)hits / (double)(nq * K);
}

static int search(kbx_vector_index_t *ix, const float *q, size_t nq, size_t k,
		  uint32_t ef, uint32_t nprobe, int64_t *ids, float *dist)
{
	struct kbx_vector_search_params p = { .ef_search = ef, .nprobe = nprobe };
	int rc = V->search(ix, nq, DIM, q, k, &p, ids, dist, err, sizeof(err));

	if (rc)
		diag("search: %s", err);
	return rc;
}

static int contains(const char *s, const char *part)
{
	return strstr(s, part) != NULL;
}

static char *path_join(const char *dir, const char *name)
{
	size_t len = strlen(dir) + strlen(name) + 2;
	char *p = malloc(len);

	if (!p)
		abort();
	snprintf(p, len, "%s/%s", dir, name);
	return p;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		exit(2);
	}
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		exit(2);
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* The trailer's checksum (FNV-1a 64 of its first 56 bytes), after a test
 * changed one of its fields on purpose. */
static void trailer_rehash(unsigned char *data, size_t len)
{
	unsigned char *t = data + len - 64;
	uint64_t h = 0xcbf29ce484222325ull;
	int i;

	for (i = 0; i < 56; i++) {
		h ^= t[i];
		h *= 0x100000001b3ull;
	}
	for (i = 0; i < 8; i++)
		t[56 + i] = (unsigned char)(h >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Write data[0..len) with one change to path, open it; the status. */
static int open_changed(const char *path, const unsigned char *data, size_t len,
			size_t at, unsigned char xor_with, int fix_trailer, unsigned flags)
{
	unsigned char *copy = malloc(len);
	kbx_vector_index_t *ix = NULL;
	int rc;

	if (!copy)
		abort();
	memcpy(copy, data, len);
	copy[at] ^= xor_with;
	if (fix_trailer)
		trailer_rehash(copy, len);
	write_file(path, copy, len);
	free(copy);
	rc = V->open(path, flags, 0, 0, &ix, NULL, err, sizeof(err));
	if (ix) {
		V->free_index(ix);
		return -1;
	}
	return rc;
}

/* Files in dir whose names start with prefix. */
static int count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/* Is path mapped into this process?  -1 when that cannot be told. */
static int is_mapped(const char *file)
{
	char *path = realpath(file, NULL);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];
	size_t plen;
	int found = 0;

	if (!f || !path) {
		if (f)
			fclose(f);
		free(path);
		return -1;
	}
	plen = strlen(path);
	while (fgets(line, sizeof(line), f)) {
		size_t len = strcspn(line, "\n");

		if (len >= plen && !strncmp(line + len - plen, path, plen))
			found = 1;
	}
	fclose(f);
	free(path);
	return found;
}

/*
 * The module must never print: stderr goes to a file while it works, and
 * the file must stay empty.  (FAISS prints warnings of its own in some
 * cases, e.g. k-means with too few points; the module avoids them.)
 */
static FILE *quiet_file;
static int quiet_saved = -1;

static void quiet_begin(void)
{
	fflush(stderr);
	quiet_file = tmpfile();
	quiet_saved = dup(2);
	if (!quiet_file || quiet_saved < 0 || dup2(fileno(quiet_file), 2) < 0) {
		perror("cannot redirect stderr");
		exit(2);
	}
}

static void quiet_end(void)
{
	char line[1024];
	long size;

	fflush(stderr);
	if (dup2(quiet_saved, 2) < 0) {
		perror("cannot restore stderr");
		exit(2);
	}
	close(quiet_saved);
	/* Written through descriptor 2: the stream's own position is stale. */
	size = fseek(quiet_file, 0, SEEK_END) == 0 ? ftell(quiet_file) : -1;
	ok(size == 0, "the module wrote nothing to stderr");
	if (size != 0) {
		rewind(quiet_file);
		while (fgets(line, sizeof(line), quiet_file))
			diag("stderr: %s", line);
	}
	fclose(quiet_file);
}

/* ---- the tests ---- */

static void test_loader(void)
{
	const char *orig = getenv("KBX_MODULE_PATH");
	char *saved = orig ? strdup(orig) : NULL;
	char junk[] = "/tmp/kbx-not-a-module.XXXXXX";
	const struct kbx_vector_ops *ops = NULL;
	Dl_info info;
	int rc, fd;

	setenv("KBX_MODULE_PATH", "/nonexistent/kbx-vector.so", 1);
	rc = _kbx_vector_load(&ops, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_MODULE && !ops && contains(err, "/nonexistent/kbx-vector.so"),
	   "a missing module is an error naming the path");
	diag("%s", err);

	fd = mkstemp(junk);
	if (fd < 0 || write(fd, "not an ELF file\n", 16) != 16 || close(fd) != 0) {
		perror(junk);
		exit(2);
	}
	setenv("KBX_MODULE_PATH", junk, 1);
	rc = _kbx_vector_load(&ops, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_MODULE && contains(err, junk) && contains(err, "cannot load"),
	   "a file that is not a shared object reports the loader's message");
	diag("%s", err);
	unlink(junk);

	/* A real shared object without our entry point: the C library. */
	if (dladdr((void *)&dlopen, &info) && info.dli_fname && info.dli_fname[0] == '/') {
		setenv("KBX_MODULE_PATH", info.dli_fname, 1);
		rc = _kbx_vector_load(&ops, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_MODULE && contains(err, "not a kbx vector module"),
		   "a shared object without " KBX_VECTOR_MODULE_SYMBOL " is refused");
		diag("%s", err);
	} else {
		printf("ok %d # skip cannot find the C library's path\n", ++tests);
	}
	ok(_kbx_vector_module_path() == NULL, "no module path before a successful load");

	if (saved)
		setenv("KBX_MODULE_PATH", saved, 1);
	else
		unsetenv("KBX_MODULE_PATH");
	free(saved);
	rc = _kbx_vector_load(&V, err, sizeof(err));
	if (!ok(rc == KBX_VEC_OK && V, "load the vector module")) {
		diag("%s", err);
		printf("Bail out! no vector module\n");
		exit(1);
	}
	diag("module: %s (backend %s)", _kbx_vector_module_path(), V->backend);
	rc = _kbx_vector_load(&ops, err, sizeof(err));
	ok(rc == KBX_VEC_OK && ops == V, "a second load returns the same table");
	ok(V->abi == KBX_VECTOR_ABI && V->size >= sizeof(*V), "module ABI %u", V->abi);
}

static void test_errors(void)
{
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = KBX_VEC_IP, .dim = DIM };
	kbx_vector_index_t *ix = NULL;
	float v[2 * DIM] = { 0 };
	int64_t ids[2] = { 1, 2 }, out[2];
	int rc, i, named = 1;

	for (i = 0; i < KBX_VEC_STATUS__COUNT; i++)
		named &= V->status_str(i) && *V->status_str(i);
	ok(named, "every status has a description");

	spec.dim = 0;
	rc = V->create(&spec, &ix, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_USAGE && !ix && *err, "dimension 0 is refused: %s", err);

	spec.dim = DIM;
	spec.kind = KBX_VEC_FACTORY;
	spec.factory = "NoSuchIndex42,Flat";
	err[0] = '\0';
	rc = V->create(&spec, &ix, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FAISS && !ix && *err, "a bad factory string is a FAISS error: %s",
	   err);
	ok(!contains(err, ".cpp:"), "the FAISS message is given without its source location");

	spec.kind = 99;
	rc = V->create(&spec, &ix, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_USAGE && !ix, "an unknown kind is refused: %s", err);

	spec.kind = KBX_VEC_IVF;
	spec.ivf_nlist = 0;
	rc = V->create(&spec, &ix, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_USAGE && !ix, "IVF without lists is refused: %s", err);

	spec.kind = KBX_VEC_FLAT;
	spec.metric = 7;
	rc = V->create(&spec, &ix, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_USAGE && !ix, "an unknown metric is refused: %s", err);

	spec.metric = KBX_VEC_IP;
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (!ok(rc == KBX_VEC_OK, "create a flat index"))
		return;
	v[0] = 1;
	v[DIM + 1] = 1;
	rc = V->add(ix, 2, DIM - 1, v, ids, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_DIM, "adding vectors of the wrong dimension is refused: %s", err);
	rc = V->search(ix, 1, DIM + 1, v, 1, NULL, out, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_DIM, "searching with the wrong dimension is refused: %s", err);
	ids[1] = -5;
	rc = V->add(ix, 2, DIM, v, ids, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_USAGE && V->ntotal(ix) == 0, "a negative id is refused: %s", err);
	ids[1] = 2;
	rc = V->add(ix, 2, DIM, v, ids, err, sizeof(err));
	ok(rc == KBX_VEC_OK && V->ntotal(ix) == 2, "add two vectors");
	rc = V->search(ix, 1, DIM, v, 0, NULL, out, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_USAGE, "k = 0 is refused: %s", err);
	{
		int64_t five[5];
		float d5[5];

		rc = V->search(ix, 1, DIM, v, 5, NULL, five, d5, err, sizeof(err));
		ok(rc == KBX_VEC_OK && five[0] == 1 && five[1] == 2 && five[2] == -1 &&
		   five[4] == -1, "k beyond the vector count pads with id -1");
	}
	V->free_index(ix);
	V->free_index(NULL);

	/* Factory strings: one that takes ids, one that does not. */
	spec.kind = KBX_VEC_FACTORY;
	spec.factory = "IDMap,HNSW16,Flat";
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK, "create an index from the factory string '%s'", spec.factory)) {
		int64_t two[2] = { -1, -1 };

		rc = V->add(ix, 2, DIM, v, ids, err, sizeof(err));
		if (!rc)
			rc = V->search(ix, 1, DIM, v + DIM, 2, NULL, two, NULL, err, sizeof(err));
		ok(rc == KBX_VEC_OK && two[0] == 2 && two[1] == 1,
		   "the factory-made index adds and searches");
		V->free_index(ix);
	} else {
		diag("%s", err);
	}
	spec.factory = "HNSW32";
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK, "create an index from the factory string '%s'", spec.factory)) {
		rc = V->add(ix, 2, DIM, v, ids, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_FAISS && V->ntotal(ix) == 0,
		   "an index that refuses ids says so: %s", err);
		V->free_index(ix);
	}
}

static void test_flat_l2(const float *base)
{
	kbx_vector_index_t *ix = build(KBX_VEC_FLAT, KBX_VEC_L2, 0, base, "flat L2");
	int64_t ids[NBASE];
	float dist[NBASE];
	int self = 0, zero = 1, i;

	if (!ix)
		return;
	if (!search(ix, base, NBASE, 1, 0, 0, ids, dist)) {
		for (i = 0; i < NBASE; i++) {
			self += ids[i] == id_of((size_t)i);
			zero &= absolute(dist[i]) < 1e-4f;
		}
	}
	ok(self == NBASE && zero, "flat L2: every vector finds itself at distance 0 (%d/%d)",
	   self, NBASE);
	V->free_index(ix);
}

struct built {
	kbx_vector_index_t *flat, *hnsw, *ivf;
	int64_t exact[NQUERY * K];
	int64_t hnsw_ids[NQUERY * K], ivf_ids[NQUERY * K];
};

static void test_search(const float *base, const float *queries, struct built *b)
{
	static int64_t ids[NBASE * K];
	static float dist[NBASE * K];
	int64_t tmp[NQUERY * K];
	struct kbx_vector_info info;
	kbx_vector_index_t *probe;
	struct kbx_vector_spec spec = { .kind = KBX_VEC_IVF, .metric = KBX_VEC_IP, .dim = DIM,
					.ivf_nlist = IVF_NLIST };
	double r = 0;
	int self = 0, sorted = 1, unit = 1, i, j, rc;

	/* Exact search. */
	b->flat = build(KBX_VEC_FLAT, KBX_VEC_IP, 0, base, "flat");
	if (!b->flat)
		return;
	if (!search(b->flat, base, NBASE, K, 0, 0, ids, dist)) {
		for (i = 0; i < NBASE; i++) {
			self += ids[i * K] == id_of((size_t)i);
			unit &= absolute(dist[i * K] - 1.0f) < 1e-4f;
			for (j = 1; j < K; j++)
				sorted &= dist[i * K + j - 1] >= dist[i * K + j];
		}
	}
	ok(self == NBASE, "flat: every vector is its own nearest neighbour (%d/%d)", self,
	   NBASE);
	ok(unit && sorted, "flat: inner products are 1 for self, results best first");
	search(b->flat, queries, NQUERY, K, 0, 0, b->exact, NULL);

	/* HNSW. */
	b->hnsw = build(KBX_VEC_HNSW, KBX_VEC_IP, HNSW_M, base, "HNSW");
	if (b->hnsw) {
		V->info(b->hnsw, &info);
		ok(info.kind == KBX_VEC_HNSW && info.param == HNSW_M && info.dim == DIM &&
		   info.is_trained && !info.read_only, "HNSW: info describes the index");
		if (!search(b->hnsw, queries, NQUERY, K, EF_SEARCH, 0, b->hnsw_ids, NULL)) {
			r = recall(b->exact, b->hnsw_ids, NQUERY);
			ok(r >= MIN_RECALL, "HNSW recall@%d with efSearch %d: %.3f >= %.2f", K,
			   EF_SEARCH, r, MIN_RECALL);
		}
		if (!search(b->hnsw, queries, NQUERY, K, 16, 0, tmp, NULL)) {
			double low = recall(b->exact, tmp, NQUERY);

			ok(low <= r, "HNSW: efSearch 16 gives lower recall than %d (%.3f)", EF_SEARCH,
			   low);
		}
		for (i = 8; i <= 256; i *= 2)
			if (!search(b->hnsw, queries, NQUERY, K, (uint32_t)i, 0, tmp, NULL))
				diag("HNSW%d recall@%d with efSearch %d: %.3f", HNSW_M, K, i,
				     recall(b->exact, tmp, NQUERY));
		if (!search(b->hnsw, queries, NQUERY, K, EF_SEARCH, 0, tmp, NULL))
			ok(!memcmp(tmp, b->hnsw_ids, sizeof(tmp)),
			   "HNSW: efSearch is set per query (results as before)");
	}

	/* IVF. */
	rc = V->create(&spec, &probe, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK, "create an IVF index")) {
		int64_t one = 1;

		V->info(probe, &info);
		ok(!info.is_trained, "IVF: a new index is not trained");
		rc = V->add(probe, 1, DIM, base, &one, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_STATE, "IVF: add before train is refused: %s", err);
		rc = V->train(probe, IVF_NLIST * 10, DIM, base, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_USAGE, "IVF: too few training vectors are refused: %s", err);
		V->free_index(probe);
	}
	b->ivf = build(KBX_VEC_IVF, KBX_VEC_IP, IVF_NLIST, base, "IVF");
	if (b->ivf) {
		if (!search(b->ivf, queries, NQUERY, K, 0, NPROBE, b->ivf_ids, NULL)) {
			r = recall(b->exact, b->ivf_ids, NQUERY);
			ok(r >= MIN_RECALL, "IVF recall@%d with nprobe %d: %.3f >= %.2f", K, NPROBE, r,
			   MIN_RECALL);
		}
		if (!search(b->ivf, queries, NQUERY, K, 0, IVF_NLIST, tmp, NULL)) {
			r = recall(b->exact, tmp, NQUERY);
			ok(r >= 0.999, "IVF: visiting all %d lists is exact (recall %.3f)", IVF_NLIST, r);
		}
		for (i = 1; i <= IVF_NLIST; i *= 2)
			if (!search(b->ivf, queries, NQUERY, K, 0, (uint32_t)i, tmp, NULL))
				diag("IVF%d recall@%d with nprobe %d: %.3f", IVF_NLIST, K, i,
				     recall(b->exact, tmp, NQUERY));
		{
			int64_t dflt[NQUERY * K];

			if (!search(b->ivf, queries, NQUERY, K, 0, 0, dflt, NULL) &&
			    !search(b->ivf, queries, NQUERY, K, 0, 16, tmp, NULL))
				ok(!memcmp(dflt, tmp, sizeof(tmp)),
				   "IVF: the default nprobe for %d lists is 16 (nlist / 8, at least 16)",
				   IVF_NLIST);
		}
		if (!search(b->ivf, queries, NQUERY, K, 0, 100000, tmp, NULL))
			ok(recall(b->exact, tmp, NQUERY) >= 0.999,
			   "IVF: nprobe beyond nlist is capped, not an error");
	}
}

static void test_files(const char *dir, struct built *b, const float *queries)
{
	char *flat_path = path_join(dir, "flat.kbxv");
	char *hnsw_path = path_join(dir, "hnsw.kbxv");
	char *ivf_path = path_join(dir, "ivf.kbxv");
	char *bad_path = path_join(dir, "bad.kbxv");
	int64_t ids[NQUERY * K];
	struct kbx_vector_info info;
	kbx_vector_index_t *ix = NULL;
	uint64_t gen = 0;
	unsigned char *data;
	size_t len;
	int rc;

	if (!b->flat || !b->hnsw || !b->ivf) {
		ok(0, "indexes to save");
		return;
	}
	rc = V->save(b->flat, flat_path, 7, err, sizeof(err));
	if (!ok(rc == KBX_VEC_OK, "save flat index with generation 7"))
		diag("%s", err);
	rc = V->save(b->hnsw, hnsw_path, 8, err, sizeof(err));
	if (!ok(rc == KBX_VEC_OK, "save HNSW index with generation 8"))
		diag("%s", err);
	rc = V->save(b->ivf, ivf_path, 0xfedcba9876543210ull, err, sizeof(err));
	if (!ok(rc == KBX_VEC_OK, "save IVF index with a 64-bit generation"))
		diag("%s", err);
	ok(count_files(dir, "flat.kbxv.tmp") == 0 && count_files(dir, "ivf.kbxv.tmp") == 0,
	   "no temporary files are left behind");

	rc = V->peek(ivf_path, &info, err, sizeof(err));
	ok(rc == KBX_VEC_OK && info.generation == 0xfedcba9876543210ull && info.dim == DIM &&
	   info.ntotal == NBASE && info.kind == KBX_VEC_IVF && info.param == IVF_NLIST &&
	   info.metric == KBX_VEC_IP && info.is_trained,
	   "peek reads generation, dimension, count and kind from the trailer");

	/* Reopen, mapped, and search again. */
	rc = V->open(flat_path, KBX_VEC_OPEN_MMAP, 0, 0, &ix, &gen, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK && gen == 7, "reopen flat index: generation 7")) {
		search(ix, queries, NQUERY, K, 0, 0, ids, NULL);
		ok(!memcmp(ids, b->exact, sizeof(ids)), "reopened flat index gives the same results");
		V->free_index(ix);
	} else {
		diag("%s", err);
	}
	rc = V->open(hnsw_path, KBX_VEC_OPEN_MMAP | KBX_VEC_OPEN_GENERATION, 8, DIM, &ix, &gen,
		     err, sizeof(err));
	if (ok(rc == KBX_VEC_OK && gen == 8, "reopen HNSW index expecting generation 8")) {
		search(ix, queries, NQUERY, K, EF_SEARCH, 0, ids, NULL);
		ok(!memcmp(ids, b->hnsw_ids, sizeof(ids)), "reopened HNSW index gives the same results");
		V->free_index(ix);
	} else {
		diag("%s", err);
	}
	rc = V->open(ivf_path, KBX_VEC_OPEN_MMAP, 0, DIM, &ix, &gen, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK && gen == 0xfedcba9876543210ull,
	       "reopen IVF index mapped: the 64-bit generation round-trips")) {
		int64_t one = 1;

		search(ix, queries, NQUERY, K, 0, NPROBE, ids, NULL);
		ok(!memcmp(ids, b->ivf_ids, sizeof(ids)), "mapped IVF index gives the same results");
		switch (is_mapped(ivf_path)) {
		case 1:
			ok(1, "the IVF index file is memory-mapped");
			break;
		case 0:
			ok(0, "the IVF index file is memory-mapped");
			break;
		default:
			printf("ok %d # skip no /proc/self/maps\n", ++tests);
		}
		V->info(ix, &info);
		ok(info.read_only && info.generation == gen, "mapped index is read-only");
		rc = V->add(ix, 1, DIM, queries, &one, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_STATE, "adding to a mapped index is refused: %s", err);
		rc = V->save(ix, bad_path, 1, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_STATE && access(bad_path, F_OK) != 0,
		   "saving a mapped index is refused: %s", err);
		V->free_index(ix);
	} else {
		diag("%s", err);
	}

	/* Stale and mismatched files. */
	gen = 0;
	rc = V->open(hnsw_path, KBX_VEC_OPEN_GENERATION, 9, 0, &ix, &gen, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_STALE && !ix && gen == 8 && contains(err, "stale"),
	   "a mismatched generation is reported as stale: %s", err);
	rc = V->open(hnsw_path, 0, 0, DIM * 2, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_DIM && !ix, "a mismatched dimension is reported: %s", err);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_IO && !ix && contains(err, bad_path),
	   "a missing file is an I/O error: %s", err);

	/* Overwrite in place: the new generation replaces the old file. */
	rc = V->save(b->flat, flat_path, 10, err, sizeof(err));
	ok(rc == KBX_VEC_OK && V->peek(flat_path, &info, err, sizeof(err)) == KBX_VEC_OK &&
	   info.generation == 10, "saving over an index replaces it");

	/* Damaged files. */
	data = read_file(flat_path, &len);
	write_file(bad_path, data, len - 1);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FORMAT && !ix, "a truncated file is refused: %s", err);
	write_file(bad_path, data, len - 64);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FORMAT && !ix, "a FAISS file without trailer is refused: %s", err);
	data[len - 64 + 20] ^= 1;       /* a generation bit */
	write_file(bad_path, data, len);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FORMAT && !ix, "a damaged trailer is refused: %s", err);
	data[len - 64 + 20] ^= 1;
	free(data);
	data = read_file(hnsw_path, &len);
	data[8] ^= 0xff;                /* FAISS's header: the vector count */
	write_file(bad_path, data, len);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc != KBX_VEC_OK && !ix, "a damaged FAISS header is refused: %s", err);
	data[8] ^= 0xff;
	/* Format 1, before the layout byte: still read. */
	data[len - 64 + 8] = 1;
	trailer_rehash(data, len);
	write_file(bad_path, data, len);
	rc = V->open(bad_path, 0, 0, DIM, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_OK && ix, "an index file of trailer format 1 is still read");
	V->free_index(ix);
	ix = NULL;
	data[len - 64 + 8] = 3;
	trailer_rehash(data, len);
	write_file(bad_path, data, len);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FORMAT && !ix && contains(err, "format 3"),
	   "a newer trailer format is refused: %s", err);
	data[len - 64 + 8] = 2;
	data[len - 64 + 47] = 1;        /* kbx's flat layout, on an HNSW index */
	trailer_rehash(data, len);
	write_file(bad_path, data, len);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FORMAT && !ix, "a flat layout for another kind is refused: %s", err);
	free(data);
	write_file(bad_path, "tiny", 4);
	rc = V->open(bad_path, 0, 0, 0, &ix, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FORMAT && !ix, "a tiny file is refused: %s", err);

	unlink(flat_path);
	unlink(hnsw_path);
	unlink(ivf_path);
	unlink(bad_path);
	free(flat_path);
	free(hnsw_path);
	free(ivf_path);
	free(bad_path);
}

/* ---- kbx's flat index: its file, its code scan ---- */

#define FLAT_N 70000            /* above 4 x rerank and the two-thread sizes */
#define FLAT_Q 50
#define FLAT_RERANK 100
#define FLAT_DIM 100            /* codes are padded to 128 bytes */

static kbx_vector_index_t *build_flat_dim(const float *x, size_t n, uint32_t dim)
{
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = KBX_VEC_IP, .dim = dim };
	kbx_vector_index_t *ix = NULL;
	int64_t *ids = malloc(n * sizeof(*ids) + 1);
	size_t i;
	int rc;

	if (!ids)
		abort();
	for (i = 0; i < n; i++)
		ids[i] = id_of(i);
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (!rc)
		rc = V->add(ix, n, dim, x, ids, err, sizeof(err));
	free(ids);
	if (rc) {
		diag("%s", err);
		V->free_index(ix);
		return NULL;
	}
	return ix;
}

static kbx_vector_index_t *build_flat(const float *x, size_t n)
{
	return build_flat_dim(x, n, DIM);
}

static void test_flat_codes(const char *dir)
{
	/* The queries come from the same clusters: the last FLAT_Q. */
	float *base = clustered_vectors(FLAT_N + FLAT_Q, FLAT_DIM, FLAT_N / 20, 7);
	const float *queries = base + (size_t)FLAT_N * FLAT_DIM;
	static int64_t exact[FLAT_Q * K], approx[FLAT_Q * K], again[FLAT_Q * K];
	static float dist[FLAT_Q * K];
	struct kbx_vector_search_params all = { .rerank = KBX_VEC_RERANK_ALL };
	struct kbx_vector_search_params few = { .rerank = FLAT_RERANK };
	struct kbx_vector_info info;
	kbx_vector_index_t *ix = build_flat_dim(base, FLAT_N, FLAT_DIM), *mapped = NULL;
	char *path = path_join(dir, "big-flat.kbxv");
	int64_t one[K], far_id = 5;
	float *far = clustered_vectors(1, FLAT_DIM, 1, 5);
	double r;
	int rc, i, same = 1, sorted = 1;

	if (!ok(ix != NULL, "flat: %d clustered vectors added", FLAT_N))
		goto out;

	/* Exact, one query at a time (the scan split between two threads)
	 * and all at once (FAISS's batch kernel) must agree. */
	rc = V->search(ix, FLAT_Q, FLAT_DIM, queries, K, &all, exact, dist, err, sizeof(err));
	for (i = 0; !rc && i < FLAT_Q; i++) {
		float d1[K];

		rc = V->search(ix, 1, FLAT_DIM, queries + (size_t)i * FLAT_DIM, K, &all, one, d1, err,
			       sizeof(err));
		same &= !memcmp(one, exact + i * K, sizeof(one));
	}
	ok(rc == KBX_VEC_OK && same, "flat: exact search of one query equals the batch's");

	/* The code scan finds the vector itself first, and the rest well. */
	rc = V->search(ix, 1, FLAT_DIM, base + 12345 * FLAT_DIM, K, &few, one, dist, err, sizeof(err));
	ok(rc == KBX_VEC_OK && one[0] == id_of(12345),
	   "flat: with the code scan a stored vector finds itself first");
	rc = V->search(ix, FLAT_Q, FLAT_DIM, queries, K, &few, approx, dist, err, sizeof(err));
	for (i = 0; i < FLAT_Q * K; i++)
		sorted &= i % K == 0 || dist[i - 1] >= dist[i];
	r = recall(exact, approx, FLAT_Q);
	ok(rc == KBX_VEC_OK && r >= 0.95 && sorted,
	   "flat: recall@%d of the code scan with rerank %d: %.3f >= 0.95, best first", K,
	   FLAT_RERANK, r);
	rc = V->search(ix, FLAT_Q, FLAT_DIM, queries, K, NULL, again, NULL, err, sizeof(err));
	diag("flat: recall@%d with the default rerank: %.3f", K, recall(exact, again, FLAT_Q));

	/* Saved and mapped, the same codes give the same answers. */
	rc = V->save(ix, path, 11, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK, "flat: save %d vectors", FLAT_N)) {
		rc = V->open(path, KBX_VEC_OPEN_MMAP | KBX_VEC_OPEN_GENERATION, 11, FLAT_DIM, &mapped,
			     NULL, err, sizeof(err));
		if (ok(rc == KBX_VEC_OK, "flat: open it mapped")) {
			rc = V->search(mapped, FLAT_Q, FLAT_DIM, queries, K, &few, again, NULL, err,
				       sizeof(err));
			ok(rc == KBX_VEC_OK && !memcmp(again, approx, sizeof(again)),
			   "flat: the mapped file gives the code scan's answers");
			rc = V->search(mapped, FLAT_Q, FLAT_DIM, queries, K, &all, again, NULL, err,
				       sizeof(err));
			ok(rc == KBX_VEC_OK && !memcmp(again, exact, sizeof(again)),
			   "flat: and the exact answers");
			V->free_index(mapped);
		} else {
			diag("%s", err);
		}
	}

	/* Adding makes the codes again: a new far vector is found. */
	rc = V->add(ix, 1, FLAT_DIM, far, &far_id, err, sizeof(err));
	if (!rc)
		rc = V->search(ix, 1, FLAT_DIM, far, K, &few, one, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_OK && one[0] == far_id,
	   "flat: a vector added after a search is found by the code scan");
	V->info(ix, &info);
	ok(info.kind == KBX_VEC_FLAT && info.ntotal == FLAT_N + 1 && info.is_trained &&
	   !info.read_only, "flat: info describes the index");
out:
	V->free_index(ix);
	unlink(path);
	free(path);
	free(base);
	free(far);
}

/*
 * The code scan beyond unit vectors and inner product: L2 over vectors
 * of many lengths, a dimension that is not a multiple of the codes'
 * padding, and vectors no code describes (zeros, infinities, NaNs).
 */
#define QUANT_N 3000
#define QUANT_Q 40
#define QUANT_RERANK 50         /* 4 x 50 < QUANT_N: the codes are used */

static double scan_recall(int metric, uint32_t dim, float *base, const char *what)
{
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = metric, .dim = dim };
	struct kbx_vector_search_params all = { .rerank = KBX_VEC_RERANK_ALL };
	struct kbx_vector_search_params few = { .rerank = QUANT_RERANK };
	static int64_t exact[QUANT_Q * K], approx[QUANT_Q * K];
	const float *queries = base + (size_t)QUANT_N * dim;
	kbx_vector_index_t *ix = NULL;
	int64_t *ids = malloc(QUANT_N * sizeof(*ids));
	int64_t one[K];
	double r = -1;
	size_t i;
	int rc;

	if (!ids)
		abort();
	for (i = 0; i < QUANT_N; i++)
		ids[i] = id_of(i);
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (!rc)
		rc = V->add(ix, QUANT_N, dim, base, ids, err, sizeof(err));
	if (!rc)
		rc = V->search(ix, QUANT_Q, dim, queries, K, &all, exact, NULL, err, sizeof(err));
	if (!rc)
		rc = V->search(ix, QUANT_Q, dim, queries, K, &few, approx, NULL, err, sizeof(err));
	if (!rc)
		r = recall(exact, approx, QUANT_Q);
	ok(rc == KBX_VEC_OK && r >= 0.95, "flat: %s: recall@%d of the code scan %.3f >= 0.95",
	   what, K, r);
	if (!rc)
		rc = V->search(ix, 1, dim, base + 777 * dim, K, &few, one, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_OK && one[0] == id_of(777), "flat: %s: a stored vector finds itself",
	   what);
	if (rc)
		diag("%s", err);
	V->free_index(ix);
	free(ids);
	return r;
}

static void test_flat_quantized(void)
{
	float *base = clustered_vectors(QUANT_N + QUANT_Q, 7, 40, 17);
	float *wide = clustered_vectors(QUANT_N + QUANT_Q, 64, 60, 19);
	float *plain = clustered_vectors(QUANT_N, 64, 60, 23);
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = KBX_VEC_IP, .dim = 64 };
	struct kbx_vector_search_params few = { .rerank = QUANT_RERANK };
	kbx_vector_index_t *ix = NULL;
	int64_t *ids = malloc(QUANT_N * sizeof(*ids)), got[K];
	float zero[64], odd[64];
	size_t i, j;
	int rc, found;

	if (!ids)
		abort();
	scan_recall(KBX_VEC_IP, 7, base, "dimension 7, inner product");
	/* L2 over lengths from 0.1 to 10: the codes' scales and the stored
	 * lengths must both count. */
	for (i = 0; i < QUANT_N + QUANT_Q; i++) {
		float f = (float)(0.1 + 9.9 * (double)((i * 7919) % 1000) / 1000);

		for (j = 0; j < 64; j++)
			wide[i * 64 + j] *= f;
	}
	scan_recall(KBX_VEC_L2, 64, wide, "dimension 64, L2, vectors of many lengths");

	/* Unit vectors, and zeros, NaNs and infinities among them: the
	 * search neither crashes nor loses the finite neighbours. */
	for (i = 0; i < QUANT_N; i++)
		ids[i] = id_of(i);
	for (j = 0; j < 64; j++)
		plain[10 * 64 + j] = 0;
	plain[11 * 64 + 3] = 0.0f / 0.0f;
	plain[12 * 64 + 5] = 1.0f / 0.0f;
	plain[13 * 64 + 0] = -1.0f / 0.0f;
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (!rc)
		rc = V->add(ix, QUANT_N, 64, plain, ids, err, sizeof(err));
	if (!rc)
		rc = V->search(ix, 1, 64, plain + 500 * 64, K, &few, got, NULL, err, sizeof(err));
	/* (an infinite vector may rightly score above the vector itself) */
	for (found = 0, i = 0; i < K; i++)
		found |= got[i] == id_of(500);
	if (!ok(rc == KBX_VEC_OK && found,
		"flat: zero, NaN and infinite vectors do not disturb the code scan"))
		diag("rc %d (%s), best %lld %lld %lld", rc, rc ? err : "", (long long)got[0],
		     (long long)got[1], (long long)got[2]);
	memset(zero, 0, sizeof(zero));
	if (!rc)
		rc = V->search(ix, 1, 64, zero, K, &few, got, NULL, err, sizeof(err));
	for (found = 0, i = 0; i < K; i++)
		found += got[i] >= 0;
	ok(rc == KBX_VEC_OK && found == K, "flat: a query of zeros gets %d answers", K);
	memcpy(odd, plain + 600 * 64, sizeof(odd));
	odd[9] = 0.0f / 0.0f;
	if (!rc)
		rc = V->search(ix, 1, 64, odd, K, &few, got, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_OK, "flat: a query with a NaN does not fail the search");
	if (rc)
		diag("%s", err);
	V->free_index(ix);
	free(ids);
	free(base);
	free(wide);
	free(plain);
}

static void test_flat_file(const char *dir)
{
	float *base = random_unit_vectors(300, 99);
	kbx_vector_index_t *ix = build_flat(base, 300), *back = NULL;
	char *path = path_join(dir, "flat2.kbxv");
	char *bad = path_join(dir, "flat2-bad.kbxv");
	char *empty = path_join(dir, "empty.kbxv");
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = KBX_VEC_IP, .dim = DIM };
	int64_t ids[K], more_id = 424242, neg;
	unsigned char *data;
	struct kbx_vector_info info;
	size_t len, voff;
	int rc, all_pad;

	if (!ix || V->save(ix, path, 21, err, sizeof(err)) != KBX_VEC_OK) {
		ok(0, "flat: a file to test: %s", err);
		goto out;
	}
	data = read_file(path, &len);
	ok(len > 64 + 8 && !memcmp(data, "kbx-flat", 8) && data[len - 64 + 8] == 2 &&
	   data[len - 64 + 47] == 1,
	   "flat: the file has kbx's flat layout and a format 2 trailer saying so");
	voff = (size_t)data[48] | (size_t)data[49] << 8 | (size_t)data[50] << 16;
	ok(voff % 4096 == 0 && len - 64 - voff == 300 * DIM * sizeof(float),
	   "flat: the vectors start on a page boundary and end before the trailer");

	/* Read, not mapped: add() works and the result saves. */
	rc = V->open(path, 0, 0, DIM, &back, NULL, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK, "flat: open without flags reads the file")) {
		ok(is_mapped(path) != 1, "flat: read, the file is not mapped");
		rc = V->add(back, 1, DIM, base + 7 * DIM, &more_id, err, sizeof(err));
		ok(rc == KBX_VEC_OK && V->ntotal(back) == 301, "flat: a read index takes add()");
		rc = V->save(back, bad, 22, err, sizeof(err));
		ok(rc == KBX_VEC_OK && V->peek(bad, &info, err, sizeof(err)) == KBX_VEC_OK &&
		   info.ntotal == 301 && info.generation == 22, "flat: and saves again");
		V->free_index(back);
		back = NULL;
	}
	rc = V->open(path, KBX_VEC_OPEN_READ_ONLY, 0, DIM, &back, NULL, err, sizeof(err));
	if (ok(rc == KBX_VEC_OK, "flat: open read-only")) {
		ok(is_mapped(path) == 1, "flat: read-only, the file is mapped");
		rc = V->add(back, 1, DIM, base, &more_id, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_STATE, "flat: a mapped index refuses add(): %s", err);
		rc = V->search(back, 1, DIM, base + 42 * DIM, K, NULL, ids, NULL, err, sizeof(err));
		ok(rc == KBX_VEC_OK && ids[0] == id_of(42), "flat: the mapped index searches");
		V->free_index(back);
		back = NULL;
	}

	/* Damage: nothing crashes, everything is a format error. */
	rc = open_changed(bad, data, len, 0, 0x20, 0, KBX_VEC_OPEN_MMAP);
	ok(rc == KBX_VEC_ERR_FORMAT && contains(err, "no flat index header"),
	   "flat: a damaged magic is refused: %s", err);
	rc = open_changed(bad, data, len, 8, 0x07, 0, KBX_VEC_OPEN_MMAP);
	ok(rc == KBX_VEC_ERR_FORMAT && contains(err, "layout 4") && !contains(err, "older"),
	   "flat: a newer layout version is refused: %s", err);
	rc = open_changed(bad, data, len, 8, 0x02, 0, KBX_VEC_OPEN_MMAP);
	ok(rc == KBX_VEC_ERR_FORMAT && contains(err, "layout 1 of an older kbx") &&
	   contains(err, "kbx index --rebuild"),
	   "flat: the 1-bit layout of version 1 is refused with advice: %s", err);
	rc = open_changed(bad, data, len, 57, 0x01, 0, KBX_VEC_OPEN_MMAP);
	ok(rc == KBX_VEC_ERR_FORMAT, "flat: a wrong code size is refused: %s", err);
	rc = open_changed(bad, data, len, 17, 0x01, 0, KBX_VEC_OPEN_MMAP);
	ok(rc == KBX_VEC_ERR_FORMAT, "flat: a vector count the trailer does not have is refused: %s",
	   err);
	rc = open_changed(bad, data, len, 12, 0x01, 0, 0);
	ok(rc == KBX_VEC_ERR_FORMAT, "flat: a dimension the trailer does not have is refused: %s",
	   err);
	rc = open_changed(bad, data, len, 41, 0x10, 0, KBX_VEC_OPEN_MMAP);
	ok(rc == KBX_VEC_ERR_FORMAT, "flat: a wrong offset is refused: %s", err);
	rc = open_changed(bad, data, len, 60, 0x01, 0, KBX_VEC_OPEN_MMAP);
	ok(rc == KBX_VEC_ERR_FORMAT, "flat: a non-zero reserved field is refused: %s", err);
	/* The trailer's own count changed to match a larger n: the file is
	 * then too short for it. */
	{
		unsigned char *copy = malloc(len);

		if (!copy)
			abort();
		memcpy(copy, data, len);
		put_u64(copy + 16, 301);
		put_u64(copy + len - 64 + 32, 301);
		trailer_rehash(copy, len);
		write_file(bad, copy, len);
		rc = V->open(bad, KBX_VEC_OPEN_MMAP, 0, 0, &back, NULL, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_FORMAT && !back,
		   "flat: a header and trailer that promise more vectors than the file has are refused: %s",
		   err);
		/* Cut the last vector, and say so in the trailer's size. */
		memcpy(copy, data, len);
		memmove(copy + len - 64 - DIM * sizeof(float), copy + len - 64, 64);
		put_u64(copy + len - 64 - DIM * sizeof(float) + 24,
			len - 64 - DIM * sizeof(float));
		trailer_rehash(copy, len - DIM * sizeof(float));
		write_file(bad, copy, len - DIM * sizeof(float));
		rc = V->open(bad, KBX_VEC_OPEN_MMAP, 0, 0, &back, NULL, err, sizeof(err));
		ok(rc == KBX_VEC_ERR_FORMAT && !back,
		   "flat: a file cut short with a matching trailer is refused: %s", err);
		free(copy);
	}
	/* Truncated anywhere: the trailer is gone. */
	write_file(bad, data, len / 2);
	rc = V->open(bad, KBX_VEC_OPEN_MMAP, 0, 0, &back, NULL, err, sizeof(err));
	ok(rc == KBX_VEC_ERR_FORMAT && !back, "flat: a truncated file is refused: %s", err);
	/* A negative id in the file: the search says the index is damaged. */
	{
		unsigned char *copy = malloc(len);
		size_t ioff = (size_t)data[32] | (size_t)data[33] << 8;

		if (!copy)
			abort();
		memcpy(copy, data, len);
		neg = -3;
		memcpy(copy + ioff + 42 * 8, &neg, 8);
		write_file(bad, copy, len);
		free(copy);
		rc = V->open(bad, KBX_VEC_OPEN_MMAP, 0, 0, &back, NULL, err, sizeof(err));
		if (ok(rc == KBX_VEC_OK, "flat: a file with a negative id opens")) {
			rc = V->search(back, 1, DIM, base + 42 * DIM, K, NULL, ids, NULL, err,
				       sizeof(err));
			ok(rc == KBX_VEC_ERR_FORMAT && contains(err, "damaged"),
			   "flat: a search that meets it reports damage: %s", err);
			V->free_index(back);
			back = NULL;
		}
	}
	free(data);

	/* An empty flat index. */
	V->free_index(ix);
	ix = NULL;
	rc = V->create(&spec, &ix, err, sizeof(err));
	if (!rc)
		rc = V->save(ix, empty, 1, err, sizeof(err));
	if (!rc)
		rc = V->open(empty, KBX_VEC_OPEN_MMAP, 0, DIM, &back, NULL, err, sizeof(err));
	all_pad = 0;
	if (!rc) {
		rc = V->search(back, 1, DIM, base, K, NULL, ids, NULL, err, sizeof(err));
		all_pad = ids[0] == -1 && ids[K - 1] == -1;
		V->free_index(back);
	}
	ok(rc == KBX_VEC_OK && all_pad, "flat: an empty index saves, maps and finds nothing");
out:
	V->free_index(ix);
	unlink(path);
	unlink(bad);
	unlink(empty);
	free(path);
	free(bad);
	free(empty);
	free(base);
}

static void test_choose(void)
{
	struct kbx_vector_spec spec;
	kbx_vector_index_t *ix;
	int rc, good = 1;
	uint64_t n;

	if (!ok(V->size >= sizeof(*V) && V->choose, "the module has choose()"))
		return;
	memset(&spec, 0, sizeof(spec));
	spec.metric = KBX_VEC_L2;
	spec.factory = "x";
	rc = V->choose(1000, 256, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_FLAT && spec.dim == 256 &&
	   spec.metric == KBX_VEC_L2 && !spec.factory, "choose: 1k vectors get a flat index");
	rc = V->choose(0, 256, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_FLAT, "choose: so does an empty collection");
	rc = V->choose(100000, 256, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_FLAT, "choose: 100k vectors of 256 get a flat index");
	rc = V->choose(1u << 21, 256, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_FLAT,
	   "choose: 2^21 vectors of 256 still get a flat index");
	rc = V->choose((1u << 21) + 1, 256, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_IVF && spec.ivf_nlist == 4096,
	   "choose: one more gets IVF with 4096 lists (%u)", spec.ivf_nlist);
	rc = V->choose(1000000, 356, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_FLAT,
	   "choose: 1M vectors of the builtin embedding's 356 get a flat index");
	rc = V->choose(3000000, 256, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_IVF && spec.ivf_nlist == 4096,
	   "choose: 3M vectors get IVF with 4096 lists (%u)", spec.ivf_nlist);
	rc = V->choose(1000000, 1536, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_IVF && spec.ivf_nlist == 2048,
	   "choose: 1M vectors of 1536 get IVF with 2048 lists (%u)", spec.ivf_nlist);
	rc = V->choose(UINT64_MAX, 256, &spec);
	ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_IVF && spec.ivf_nlist == 65536,
	   "choose: lists stop at 65536");
	for (n = 1; n < (1ull << 40); n = n * 3 + 1) {
		rc = V->choose(n, 65536, &spec);
		if (rc || (spec.kind == KBX_VEC_IVF &&
			   ((uint64_t)spec.ivf_nlist * 39 > n ||
			    (spec.ivf_nlist & (spec.ivf_nlist - 1)))))
			good = 0;
	}
	ok(good, "choose: IVF lists are a power of two that n vectors can train");
	rc = V->choose(10, 0, &spec);
	ok(rc == KBX_VEC_ERR_USAGE, "choose: dimension 0 is refused");
	rc = V->choose(10, KBX_VECTOR_MAX_DIM + 1, &spec);
	ok(rc == KBX_VEC_ERR_USAGE, "choose: a dimension above the maximum is refused");

	/* What it chooses can be built: IVF for 9000 vectors of a large
	 * dimension (128 lists: 256 would want 9984 to train), trained on
	 * 5000 (of the test's DIM; 39 a list is 4992). */
	rc = V->choose(9000, 65536, &spec);
	if (ok(rc == KBX_VEC_OK && spec.kind == KBX_VEC_IVF && spec.ivf_nlist == 128,
	       "choose: 9000 vectors of 65536 get IVF with 128 lists (%u)", spec.ivf_nlist)) {
		float *x = random_unit_vectors(5000, 3);

		spec.dim = DIM;
		rc = V->create(&spec, &ix, err, sizeof(err));
		if (!rc)
			rc = V->train(ix, 5000, DIM, x, err, sizeof(err));
		free(x);
		ok(rc == KBX_VEC_OK, "choose: the IVF spec it gave creates and trains: %s",
		   rc ? err : "ok");
		if (!rc)
			V->free_index(ix);
	}
}

int main(int argc, char **argv)
{
	struct built *b;
	float *base, *queries;
	char tmpl[4096];
	const char *dir;
	int made_dir = 0;

	if (argc > 1 && !strcmp(argv[1], "--module-dir")) {
		printf("%s\n", KBX_MODULE_DIR);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "--module-path")) {
		int rc = _kbx_vector_load(&V, err, sizeof(err));

		if (rc) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		printf("%s\n", _kbx_vector_module_path());
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "--save-flat")) {
		kbx_vector_index_t *ix;
		size_t n = (size_t)strtoul(argv[3], NULL, 10);

		if (_kbx_vector_load(&V, err, sizeof(err))) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		base = random_unit_vectors(n, 42);
		ix = build_flat(base, n);
		if (!ix || V->save(ix, argv[2], 5, err, sizeof(err))) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		V->free_index(ix);
		free(base);
		return 0;
	}
	if (argc > 2 && !strcmp(argv[1], "--open")) {
		struct kbx_vector_info info;
		kbx_vector_index_t *ix;
		int64_t best = -1;

		base = random_unit_vectors(1, 42);
		if (_kbx_vector_load(&V, err, sizeof(err)) ||
		    V->open(argv[2], KBX_VEC_OPEN_MMAP, 0, DIM, &ix, NULL, err, sizeof(err))) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		if (V->search(ix, 1, DIM, base, 1, NULL, &best, NULL, err, sizeof(err))) {
			fprintf(stderr, "error: %s\n", err);
			return 1;
		}
		V->info(ix, &info);
		printf("%s %llu %lld\n", info.kind == KBX_VEC_FLAT ? "flat" : "other",
		       (unsigned long long)info.ntotal, (long long)best);
		V->free_index(ix);
		free(base);
		return 0;
	}
	if (argc > 1) {
		dir = argv[1];
	} else {
		const char *t = getenv("TMPDIR");

		snprintf(tmpl, sizeof(tmpl), "%s/kbx-vector-selftest.XXXXXX", t && *t ? t : "/tmp");
		dir = mkdtemp(tmpl);
		if (!dir) {
			perror(tmpl);
			return 2;
		}
		made_dir = 1;
	}

	test_loader();
	base = random_unit_vectors(NBASE, 42);
	queries = random_unit_vectors(NQUERY, 4242);
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	quiet_begin();
	test_errors();
	test_flat_l2(base);
	test_search(base, queries, b);
	test_files(dir, b, queries);
	test_flat_codes(dir);
	test_flat_quantized();
	test_flat_file(dir);
	test_choose();
	V->free_index(b->flat);
	V->free_index(b->hnsw);
	V->free_index(b->ivf);
	quiet_end();
	free(b);
	free(base);
	free(queries);
	if (made_dir)
		rmdir(dir);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
