/*
 * vector-bench: what a vector index costs a kbx process that opens it,
 * searches once and exits, and how good its answers are.
 *
 * For one collection (N vectors of DIM floats, unit length, inner
 * product) and each index kind asked for, it builds the index through the
 * vector module (loaded as kbx loads it), saves it, and reports
 *
 *   size     the file's size
 *   build    create + train + add, in seconds (save not included)
 *   open     in a fresh process: module load + open(), in milliseconds
 *   search   in the same fresh process: one query, k = 10
 *   total    the child's whole life, fork/exec to exit, as the parent saw it
 *   warm     mean single-query search in a long-lived process
 *   recall   recall@10 against exact search, over NQ queries
 *
 * The fresh-process figures are the best of RUNS children; the page
 * cache is warm (the file was just written and read), which is the usual
 * state of an index searched again and again.
 *
 * Data: "clustered" (default) imitates text embeddings: each vector is a
 * weighted sum of one to three of T random "topic" directions plus noise,
 * normalised; queries come from the same process.  "random" is Gaussian
 * vectors on the sphere, the worst case for approximate search.
 * "code:DIR[,DIR...]" embeds N chunks of the C files under the DIRs by
 * hashed identifiers (see code_init()), sparse vectors like an embedder
 * without a model makes.  "f32:FILE" takes real embeddings: raw
 * little-endian float32, DIM per vector, unit length; the first N are the
 * collection, the last NQ the queries.
 *
 * Usage:
 *   vector-bench [-n N] [-d DIM] [-q NQ] [-r RUNS] [-D DATA]
 *                [-o DIR] [-s] KIND...
 *
 * KIND is one of
 *   auto            the module's choose() for this N and DIM
 *   flat            exact search (KBX_VEC_FLAT)
 *   hnswM           KBX_VEC_HNSW with m = M
 *   ivfL            KBX_VEC_IVF with L lists, opened mapped
 *   f:STRING        a FAISS factory string, e.g. f:IVF1024,SQ8
 * optionally followed by @ef=E, @nprobe=P, @rerank=R or @rerank=all (the
 * search parameter of every run; default: the module's).  -s sweeps efSearch /
 * nprobe in the long-lived process and prints recall and time for each.
 *
 * Build (bench/vector.sh does this):
 *   cc -O2 -Ilib -o vector-bench bench/vector-bench.c build/libkbx.a -ldl -lpthread -lm
 * and run it with KBX_MODULE_PATH=build/kbx-vector.so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "search/vecmod.h"

#define K 10

static const struct kbx_vector_ops *V;
static char err[4096];

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("vector-bench: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* ---- data ---- */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_uniform(void)
{
	return ((rng_next() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

static double rng_normal(void)
{
	return sqrt(-2 * log(rng_uniform())) * cos(2 * M_PI * rng_uniform());
}

static void normalise(float *v, uint32_t dim)
{
	double norm = 0;
	uint32_t j;

	for (j = 0; j < dim; j++)
		norm += (double)v[j] * v[j];
	norm = sqrt(norm);
	for (j = 0; j < dim; j++)
		v[j] = (float)(v[j] / norm);
}

struct dataset {
	int clustered;
	struct code *code;      /* "code:DIR" data, else NULL */
	FILE *f32;              /* "f32:FILE" data, else NULL */
	size_t f32_n;
	uint32_t dim;
	size_t ntopics;
	float *topics;
};

static void dataset_init(struct dataset *ds, int clustered, size_t n, uint32_t dim)
{
	size_t i, j;

	ds->clustered = clustered;
	ds->dim = dim;
	/* Roughly one topic per 50 chunks, within reason. */
	ds->ntopics = n / 50 < 32 ? 32 : n / 50 > 8192 ? 8192 : n / 50;
	ds->topics = malloc(ds->ntopics * dim * sizeof(float));
	if (!ds->topics)
		die("out of memory");
	rng_state = 12345;
	for (i = 0; i < ds->ntopics; i++) {
		for (j = 0; j < dim; j++)
			ds->topics[i * dim + j] = (float)rng_normal();
		normalise(ds->topics + i * dim, dim);
	}
}

/* Vector number i of stream seed (0: the collection, 1: the queries);
 * each vector has its own generator state, so any one can be made alone. */
static void dataset_vector(const struct dataset *ds, uint64_t seed, size_t i, float *v)
{
	uint32_t dim = ds->dim, j;
	double sigma;
	int m, t;

	rng_state = seed * 0x100000000ull + i * 7919 + 1;
	rng_next();
	if (!ds->clustered) {
		for (j = 0; j < dim; j++)
			v[j] = (float)rng_normal();
		normalise(v, dim);
		return;
	}
	memset(v, 0, dim * sizeof(float));
	m = 1 + (int)(rng_next() % 3);
	for (t = 0; t < m; t++) {
		const float *topic = ds->topics + (rng_next() % ds->ntopics) * dim;
		double w = 0.5 + 0.5 * rng_uniform();

		for (j = 0; j < dim; j++)
			v[j] += (float)(w * topic[j]);
	}
	/* Noise of about 0.7 times the signal's norm: neighbours in the
	 * same topics have cosines of 0.5 to 0.8, like real embeddings. */
	sigma = 0.7 / sqrt((double)dim);
	for (j = 0; j < dim; j++)
		v[j] += (float)(sigma * rng_normal());
	normalise(v, dim);
}

/*
 * "code:DIR": real text.  The C sources under DIR (bench/work/corpora/
 * has git's and PostgreSQL's) are cut into N chunks of equal line count,
 * and each chunk is embedded the way an offline embedder without a model
 * does it: identifiers and their camelCase/snake_case parts, weighted by
 * (1 + log tf) * idf, hashed with a sign into two of DIM buckets each,
 * normalised.  A query is four lines taken from a random chunk.
 */
struct code {
	char *text;             /* all files, concatenated */
	size_t *line;           /* offsets of line starts; nlines + 1 */
	size_t nlines, per_chunk;
	uint64_t *df_key;       /* token hash -> chunks that have it */
	uint32_t *df_count;
	size_t df_slots;
	size_t nchunks;
};

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void code_collect(const char *dir, char ***paths, size_t *n, size_t *cap)
{
	char cmd[8192];
	char buf[8192];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "find '%s' -type f \\( -name '*.c' -o -name '*.h' \\)", dir);
	p = popen(cmd, "r");
	if (!p)
		die("cannot run find");
	while (fgets(buf, sizeof(buf), p)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*paths = realloc(*paths, *cap * sizeof(**paths));
			if (!*paths)
				die("out of memory");
		}
		(*paths)[(*n)++] = strdup(buf);
	}
	pclose(p);
}

static uint64_t hash_bytes(const char *s, size_t len, uint64_t seed)
{
	uint64_t h = 0xcbf29ce484222325ull ^ seed;

	while (len--) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ull;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static int is_ident(int c, int first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (!first && c >= '0' && c <= '9');
}

/* Call fn for each token of text: identifiers, and their parts when they
 * have several; lower-cased. */
static void tokens(const char *t, size_t len, void (*fn)(const char *, size_t, void *), void *arg)
{
	char tok[128];
	size_t i = 0;

	while (i < len) {
		size_t j = i, n, k, start;

		if (!is_ident((unsigned char)t[i], 1)) {
			i++;
			continue;
		}
		while (j < len && is_ident((unsigned char)t[j], 0))
			j++;
		n = j - i < sizeof(tok) ? j - i : sizeof(tok);
		for (k = 0; k < n; k++)
			tok[k] = (char)(t[i + k] >= 'A' && t[i + k] <= 'Z' ? t[i + k] + 32 : t[i + k]);
		if (n > 1)
			fn(tok, n, arg);
		/* parts: split at '_' and at lower->Upper */
		start = 0;
		for (k = 1; k <= n; k++) {
			int cut = k == n || t[i + k] == '_' ||
				  (t[i + k] >= 'A' && t[i + k] <= 'Z' && t[i + k - 1] >= 'a' &&
				   t[i + k - 1] <= 'z');
			if (!cut)
				continue;
			if (k - start > 1 && k - start < n)
				fn(tok + start, k - start, arg);
			start = t[i + k] == '_' ? k + 1 : k;
		}
		i = j;
	}
}

struct bag {
	uint64_t h[4096];
	uint32_t tf[4096];
	size_t n;
};

static void bag_add(const char *tok, size_t len, void *arg)
{
	struct bag *b = arg;
	uint64_t h = hash_bytes(tok, len, 0);
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->h[i] == h) {
			b->tf[i]++;
			return;
		}
	if (b->n < 4096) {
		b->h[b->n] = h;
		b->tf[b->n++] = 1;
	}
}

static uint32_t *df_slot(struct code *c, uint64_t h)
{
	size_t i = h & (c->df_slots - 1);

	while (c->df_key[i] && c->df_key[i] != h)
		i = (i + 1) & (c->df_slots - 1);
	c->df_key[i] = h;
	return &c->df_count[i];
}

static void code_embed(struct code *c, const char *text, size_t len, uint32_t dim, float *v)
{
	static struct bag b;
	size_t i;

	b.n = 0;
	tokens(text, len, bag_add, &b);
	memset(v, 0, dim * sizeof(float));
	for (i = 0; i < b.n; i++) {
		uint64_t h = b.h[i], h2 = hash_bytes((const char *)&h, 8, 1);
		uint32_t df = *df_slot(c, h);
		double w = (1 + log(b.tf[i])) * log((1.0 + c->nchunks) / (1.0 + df));

		v[h % dim] += (float)((h >> 40 & 1) ? w : -w);
		v[h2 % dim] += (float)((h2 >> 40 & 1) ? w : -w);
	}
	for (i = 0; i < dim && !v[i]; i++)
		;
	if (i == dim)
		v[0] = 1;       /* nothing to embed: some unit vector */
	normalise(v, dim);
}

static void code_init(struct dataset *ds, const char *dir, size_t n)
{
	struct code *c = calloc(1, sizeof(*c));
	char **paths = NULL;
	size_t npaths = 0, cap = 0, size = 0, tcap = 1 << 20, i, ch;
	char *dirs = strdup(dir), *d, *save = NULL;

	if (!c || !dirs)
		die("out of memory");
	for (d = strtok_r(dirs, ",", &save); d; d = strtok_r(NULL, ",", &save))
		code_collect(d, &paths, &npaths, &cap);
	if (!npaths)
		die("no C files under '%s'", dir);
	qsort(paths, npaths, sizeof(*paths), path_cmp);
	c->text = malloc(tcap);
	for (i = 0; i < npaths; i++) {
		FILE *f = fopen(paths[i], "rb");
		size_t got;

		if (!f)
			continue;
		for (;;) {
			if (tcap - size < 65536) {
				tcap *= 2;
				c->text = realloc(c->text, tcap);
				if (!c->text)
					die("out of memory");
			}
			got = fread(c->text + size, 1, tcap - size - 1, f);
			if (!got)
				break;
			size += got;
		}
		fclose(f);
		if (size && c->text[size - 1] != '\n')
			c->text[size++] = '\n';
		free(paths[i]);
	}
	free(paths);
	free(dirs);
	for (i = 0; i < size; i++)
		c->nlines += c->text[i] == '\n';
	c->line = malloc((c->nlines + 1) * sizeof(*c->line));
	c->line[0] = 0;
	for (i = 0, ch = 1; i < size; i++)
		if (c->text[i] == '\n')
			c->line[ch++] = i + 1;
	if (c->nlines < n)
		die("'%s' has %zu lines, fewer than %zu chunks", dir, c->nlines, n);
	c->per_chunk = c->nlines / n;
	c->nchunks = n;
	/* document frequencies */
	c->df_slots = 1 << 22;
	c->df_key = calloc(c->df_slots, sizeof(*c->df_key));
	c->df_count = calloc(c->df_slots, sizeof(*c->df_count));
	if (!c->df_key || !c->df_count)
		die("out of memory");
	for (ch = 0; ch < n; ch++) {
		static struct bag b;
		size_t from = c->line[ch * c->per_chunk], to = c->line[(ch + 1) * c->per_chunk];

		b.n = 0;
		tokens(c->text + from, to - from, bag_add, &b);
		for (i = 0; i < b.n; i++)
			(*df_slot(c, b.h[i]))++;
	}
	ds->code = c;
}

static float *dataset_make(const struct dataset *ds, uint64_t seed, size_t n)
{
	float *x = malloc(n * ds->dim * sizeof(float));
	size_t i;

	if (!x)
		die("out of memory for %zu vectors", n);
	if (ds->f32) {
		/* the collection from the front, the queries from the end */
		size_t first = seed ? ds->f32_n - n : 0;

		if (fseek(ds->f32, (long)(first * ds->dim * sizeof(float)), SEEK_SET) ||
		    fread(x, sizeof(float) * ds->dim, n, ds->f32) != n)
			die("cannot read %zu vectors from the data file", n);
		return x;
	}
	if (ds->code) {
		struct code *c = ds->code;

		rng_state = seed;
		for (i = 0; i < n; i++) {
			size_t ch = seed ? rng_next() % c->nchunks : i, first, from, to;

			first = ch * c->per_chunk;
			if (seed)
				first += rng_next() % c->per_chunk;
			from = c->line[first];
			to = c->line[seed ? (first + 4 < c->nlines ? first + 4 : c->nlines)
					  : (ch + 1) * c->per_chunk];
			code_embed(c, c->text + from, to - from, ds->dim, x + i * ds->dim);
		}
		return x;
	}
	for (i = 0; i < n; i++)
		dataset_vector(ds, seed, i, x + i * ds->dim);
	return x;
}

/* ---- kinds ---- */

struct kind {
	char name[128];
	struct kbx_vector_spec spec;
	char factory[256];
	struct kbx_vector_search_params params;
	unsigned open_flags;
};

static void parse_kind(const char *arg, size_t n, uint32_t dim, struct kind *kd)
{
	char buf[256], *at;

	memset(kd, 0, sizeof(*kd));
	snprintf(kd->name, sizeof(kd->name), "%s", arg);
	snprintf(buf, sizeof(buf), "%s", arg);
	at = strchr(buf, '@');
	if (at) {
		*at++ = '\0';
		if (!strncmp(at, "ef=", 3))
			kd->params.ef_search = (uint32_t)atoi(at + 3);
		else if (!strncmp(at, "nprobe=", 7))
			kd->params.nprobe = (uint32_t)atoi(at + 7);
		else if (!strcmp(at, "rerank=all"))
			kd->params.rerank = KBX_VEC_RERANK_ALL;
		else if (!strncmp(at, "rerank=", 7))
			kd->params.rerank = (uint32_t)atoi(at + 7);
		else
			die("unknown search parameter '%s'", at);
	}
	kd->spec.metric = KBX_VEC_IP;
	kd->spec.dim = dim;
	kd->open_flags = KBX_VEC_OPEN_MMAP;
	if (!strcmp(buf, "auto")) {
		if (V->size < offsetof(struct kbx_vector_ops, choose) + sizeof(V->choose) ||
		    !V->choose)
			die("the module has no choose()");
		if (V->choose(n, dim, &kd->spec))
			die("choose() failed");
	} else if (!strcmp(buf, "flat")) {
		kd->spec.kind = KBX_VEC_FLAT;
	} else if (!strncmp(buf, "hnsw", 4)) {
		kd->spec.kind = KBX_VEC_HNSW;
		kd->spec.hnsw_m = (uint32_t)atoi(buf + 4);
	} else if (!strncmp(buf, "ivf", 3)) {
		kd->spec.kind = KBX_VEC_IVF;
		kd->spec.ivf_nlist = (uint32_t)atoi(buf + 3);
	} else if (!strncmp(buf, "f:", 2)) {
		kd->spec.kind = KBX_VEC_FACTORY;
		snprintf(kd->factory, sizeof(kd->factory), "%s", buf + 2);
		kd->spec.factory = kd->factory;
	} else {
		die("unknown kind '%s'", buf);
	}
}

static uint32_t parse_u32(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (*end == 'k')
		v *= 1000, end++;
	else if (*end == 'M')
		v *= 1000000, end++;
	if (*end || v > UINT32_MAX)
		die("'%s' is not a count", s);
	return (uint32_t)v;
}

/* ---- the fresh process ---- */

/*
 * vector-bench --child FILE FLAGS QUERIES QUERY DIM EF NPROBE RERANK: load the
 * module, open FILE, search for vector QUERY of the file QUERIES (raw
 * floats), print "load open search" in ms.
 */
static int child_main(char **argv)
{
	double t0, t1, t2, t3;
	struct kbx_vector_search_params params;
	kbx_vector_index_t *ix;
	int64_t ids[K];
	float dist[K], *q;
	uint32_t dim = parse_u32(argv[5]);
	FILE *f = fopen(argv[3], "rb");

	q = malloc(dim * sizeof(float));
	if (!q || !f || fseek(f, (long)parse_u32(argv[4]) * dim * 4, SEEK_SET) ||
	    fread(q, sizeof(float), dim, f) != dim)
		die("cannot read query %s of '%s'", argv[4], argv[3]);
	fclose(f);
	params.ef_search = parse_u32(argv[6]);
	params.nprobe = parse_u32(argv[7]);
	params.rerank = parse_u32(argv[8]);

	t0 = now_ms();
	if (_kbx_vector_load(&V, err, sizeof(err)))
		die("%s", err);
	t1 = now_ms();
	if (V->open(argv[1], parse_u32(argv[2]), 0, dim, &ix, NULL, err, sizeof(err)))
		die("%s", err);
	t2 = now_ms();
	if (V->search(ix, 1, dim, q, K, &params, ids, dist, err, sizeof(err)))
		die("%s", err);
	t3 = now_ms();
	printf("%.3f %.3f %.3f\n", t1 - t0, t2 - t1, t3 - t2);
	V->free_index(ix);
	free(q);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double best(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[0];
}

struct fresh {
	double load, open, search, total;
};

static void run_children(const char *self, const char *file, const struct kind *kd,
			 const char *qfile, size_t nq, uint32_t dim, int runs,
			 struct fresh *out)
{
	double *load = calloc((size_t)runs, sizeof(double)), *open_ = calloc((size_t)runs, sizeof(double));
	double *search = calloc((size_t)runs, sizeof(double)), *total = calloc((size_t)runs, sizeof(double));
	char cmd[32768];
	int r;

	if (!load || !open_ || !search || !total)
		die("out of memory");
	for (r = 0; r < runs; r++) {
		FILE *p;
		double t0;
		int status;

		snprintf(cmd, sizeof(cmd), "exec '%s' --child '%s' %u '%s' %zu %u %u %u %u", self,
			 file, kd->open_flags, qfile, (size_t)r % nq, dim, kd->params.ef_search,
			 kd->params.nprobe, kd->params.rerank);
		t0 = now_ms();
		p = popen(cmd, "r");
		if (!p)
			die("cannot run '%s': %s", cmd, strerror(errno));
		if (fscanf(p, "%lf %lf %lf", &load[r], &open_[r], &search[r]) != 3)
			die("no figures from '%s'", cmd);
		status = pclose(p);
		total[r] = now_ms() - t0;
		if (status != 0)
			die("'%s' failed", cmd);
	}
	/* total includes popen()'s shell, which exec()s the child. */
	/* Other processes only ever add time: the best run is the figure
	 * least disturbed by them. */
	out->load = best(load, runs);
	out->open = best(open_, runs);
	out->search = best(search, runs);
	out->total = best(total, runs);
	free(load);
	free(open_);
	free(search);
	free(total);
}

/* ---- the long-lived process ---- */

/*
 * Recall@K: the share of the true K nearest found.  Collections of real
 * text have duplicate chunks, whose vectors tie: a result counts when it
 * is one of the exact top K or scores as high as the K-th of them.
 */
static const float *g_base, *g_queries, *g_exact_dist;
static uint32_t g_dim;

static double recall_at_k(const int64_t *exact, const int64_t *approx, size_t nq)
{
	size_t q, i, j, hits = 0;

	for (q = 0; q < nq; q++)
		for (i = 0; i < K; i++) {
			int64_t id = approx[q * K + i];
			double ip = 0;

			for (j = 0; j < K; j++)
				if (id == exact[q * K + j])
					break;
			if (j < K) {
				hits++;
				continue;
			}
			if (id < 1 || !g_base)
				continue;
			for (j = 0; j < g_dim; j++)
				ip += (double)g_queries[q * g_dim + j] * g_base[(size_t)(id - 1) * g_dim + j];
			if (ip >= g_exact_dist[q * K + K - 1] - 1e-5)
				hits++;
		}
	return (double)hits / (double)(nq * K);
}

/* Search the queries one at a time; mean ms per query, recall into *r. */
static double search_each(kbx_vector_index_t *ix, const float *queries, size_t nq,
			  uint32_t dim, const struct kbx_vector_search_params *p,
			  const int64_t *exact, double *r)
{
	int64_t *ids = malloc(nq * K * sizeof(*ids));
	double t0;
	size_t q;

	if (!ids)
		die("out of memory");
	t0 = now_ms();
	for (q = 0; q < nq; q++)
		if (V->search(ix, 1, dim, queries + q * dim, K, p, ids + q * K, NULL, err,
			      sizeof(err)))
			die("search: %s", err);
	t0 = (now_ms() - t0) / (double)nq;
	*r = recall_at_k(exact, ids, nq);
	free(ids);
	return t0;
}

static void sweep(kbx_vector_index_t *ix, const struct kind *kd, const float *queries,
		  size_t nq, uint32_t dim, const int64_t *exact)
{
	struct kbx_vector_info info;
	uint32_t v;
	double r, ms;

	V->info(ix, &info);
	for (v = 1; v <= 8192; v *= 2) {
		struct kbx_vector_search_params p = { 0, 0, 0 };
		const char *what;

		if (info.kind == KBX_VEC_HNSW || strstr(kd->name, "HNSW")) {
			if (v < 8)
				continue;
			if (v > 1024)
				break;
			p.ef_search = v;
			what = "efSearch";
		} else if (info.kind == KBX_VEC_IVF || strstr(kd->name, "IVF")) {
			if (info.param && v > info.param)
				break;
			if (v > 1024)
				break;
			p.nprobe = v;
			what = "nprobe";
		} else {
			if (v < 64)
				continue;
			p.rerank = v;
			what = "rerank";
		}
		ms = search_each(ix, queries, nq, dim, &p, exact, &r);
		printf("#   %-24s %s %4u: recall@%d %.3f, %.3f ms/query\n", kd->name, what, v,
		       K, r, ms);
	}
}

int main(int argc, char **argv)
{
	size_t n = 100000, nq = 200, i;
	uint32_t dim = 256;
	int runs = 20, clustered = 1, do_sweep = 0, opt, a;
	const char *dir = NULL, *data = "clustered";
	char self[4096], tmpl[4096], qpath[8192];
	struct dataset ds;
	float *base, *queries;
	int64_t *ids, *exact;
	float *exact_dist;
	kbx_vector_index_t *ex;
	struct kbx_vector_spec flat_spec = { .kind = KBX_VEC_FLAT, .metric = KBX_VEC_IP };
	struct kbx_vector_search_params exact_params = { .rerank = UINT32_MAX };
	ssize_t len;
	double t0;

	if (argc > 1 && !strcmp(argv[1], "--child")) {
		if (argc != 10)
			die("--child takes 8 arguments");
		return child_main(argv + 1);
	}
	while ((opt = getopt(argc, argv, "n:d:q:r:D:o:s")) != -1) {
		switch (opt) {
		case 'n': n = parse_u32(optarg); break;
		case 'd': dim = parse_u32(optarg); break;
		case 'q': nq = parse_u32(optarg); break;
		case 'r': runs = (int)parse_u32(optarg); break;
		case 'D': data = optarg; break;
		case 'o': dir = optarg; break;
		case 's': do_sweep = 1; break;
		default:
			fprintf(stderr, "usage: vector-bench [-n N] [-d DIM] [-q NQ] [-r RUNS] [-D DATA] [-o DIR] [-s] KIND...\n");
			return 2;
		}
	}
	if (optind >= argc)
		die("no index kind given");
	if (strcmp(data, "clustered") && strcmp(data, "random") && strncmp(data, "code:", 5) &&
	    strncmp(data, "f32:", 4))
		die("unknown data '%s'", data);
	clustered = !strcmp(data, "clustered");
	if (runs < 1)
		runs = 1;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		die("cannot find my own executable");
	self[len] = '\0';
	if (!dir) {
		const char *t = getenv("TMPDIR");

		snprintf(tmpl, sizeof(tmpl), "%s/kbx-vector-bench.XXXXXX", t && *t ? t : "/tmp");
		dir = mkdtemp(tmpl);
		if (!dir)
			die("cannot create '%s': %s", tmpl, strerror(errno));
	}
	if (_kbx_vector_load(&V, err, sizeof(err)))
		die("%s", err);

	dataset_init(&ds, clustered, n, dim);
	ds.code = NULL;
	ds.f32 = NULL;
	if (!strncmp(data, "code:", 5))
		code_init(&ds, data + 5, n);
	if (!strncmp(data, "f32:", 4)) {
		struct stat fst;

		ds.f32 = fopen(data + 4, "rb");
		if (!ds.f32 || fstat(fileno(ds.f32), &fst))
			die("cannot open '%s'", data + 4);
		ds.f32_n = (size_t)fst.st_size / (dim * sizeof(float));
		if (ds.f32_n < n + nq)
			die("'%s' holds %zu vectors of dimension %u, fewer than %zu + %zu",
			    data + 4, ds.f32_n, dim, n, nq);
	}
	t0 = now_ms();
	base = dataset_make(&ds, 0, n);
	queries = dataset_make(&ds, 1, nq);
	ids = malloc(n * sizeof(*ids));
	exact = malloc(nq * K * sizeof(*exact));
	exact_dist = malloc(nq * K * sizeof(*exact_dist));
	if (!ids || !exact)
		die("out of memory");
	for (i = 0; i < n; i++)
		ids[i] = (int64_t)i + 1;
	snprintf(qpath, sizeof(qpath), "%s/queries.f32", dir);
	{
		FILE *f = fopen(qpath, "wb");

		if (!f || fwrite(queries, sizeof(float) * dim, nq, f) != nq || fclose(f))
			die("cannot write '%s'", qpath);
	}
	fprintf(stderr, "# %zu %s vectors of dimension %u made in %.1f s\n", n, data, dim,
		(now_ms() - t0) / 1e3);

	/* The truth: an exact index in memory, all queries at once. */
	flat_spec.dim = dim;
	if (V->create(&flat_spec, &ex, err, sizeof(err)) ||
	    V->add(ex, n, dim, base, ids, err, sizeof(err)) ||
	    V->search(ex, nq, dim, queries, K, &exact_params, exact, exact_dist, err,
		      sizeof(err)))
		die("exact search: %s", err);
	V->free_index(ex);
	g_base = base;
	g_queries = queries;
	g_exact_dist = exact_dist;
	g_dim = dim;

	printf("# N=%zu dim=%u data=%s queries=%zu fresh-process runs=%d k=%d\n", n, dim, data,
	       nq, runs, K);
	printf("%-28s %10s %9s %8s %8s %8s %8s %8s %7s\n", "kind", "size_MB", "build_s",
	       "load_ms", "open_ms", "srch_ms", "total_ms", "warm_ms", "recall");
	fflush(stdout);
	for (a = optind; a < argc; a++) {
		struct kind kd;
		kbx_vector_index_t *ix;
		struct fresh fr;
		struct stat st;
		char path[8192];
		double build_s, warm, r;

		parse_kind(argv[a], n, dim, &kd);
		if (!strcmp(argv[a], "auto"))
			snprintf(kd.name, sizeof(kd.name), "auto=%s%u",
				 kd.spec.kind == KBX_VEC_FLAT ? "flat" :
				 kd.spec.kind == KBX_VEC_HNSW ? "hnsw" :
				 kd.spec.kind == KBX_VEC_IVF ? "ivf" : "?",
				 kd.spec.kind == KBX_VEC_HNSW ? kd.spec.hnsw_m :
				 kd.spec.kind == KBX_VEC_IVF ? kd.spec.ivf_nlist : 0);
		snprintf(path, sizeof(path), "%s/index-%d.kbxv", dir, a);
		t0 = now_ms();
		if (V->create(&kd.spec, &ix, err, sizeof(err)))
			die("%s: create: %s", kd.name, err);
		if (V->train(ix, n, dim, base, err, sizeof(err)))
			die("%s: train: %s", kd.name, err);
		if (V->add(ix, n, dim, base, ids, err, sizeof(err)))
			die("%s: add: %s", kd.name, err);
		build_s = (now_ms() - t0) / 1e3;
		if (V->save(ix, path, 1, err, sizeof(err)))
			die("%s: save: %s", kd.name, err);
		V->free_index(ix);
		if (stat(path, &st))
			die("cannot stat '%s'", path);

		if (V->open(path, kd.open_flags, 0, dim, &ix, NULL, err, sizeof(err)))
			die("%s: open: %s", kd.name, err);
		warm = search_each(ix, queries, nq, dim, &kd.params, exact, &r);
		if (do_sweep)
			sweep(ix, &kd, queries, nq, dim, exact);
		V->free_index(ix);

		run_children(self, path, &kd, qpath, nq, dim, runs, &fr);
		printf("%-28s %10.1f %9.2f %8.2f %8.2f %8.2f %8.2f %8.3f %7.3f\n", kd.name,
		       st.st_size / 1e6, build_s, fr.load, fr.open, fr.search, fr.total, warm, r);
		fflush(stdout);
		unlink(path);
	}
	unlink(qpath);
	if (!strncmp(dir, tmpl, strlen(dir)))
		rmdir(dir);
	free(base);
	free(queries);
	free(ids);
	free(exact);
	free(exact_dist);
	free(ds.topics);
	return 0;
}
