/*
 * vector-flat-direct: kbx's flat index searched by libkbx alone
 * (lib/util/vflat.c, what kbx search uses) against the same index
 * searched through the vector module, which kbx index builds it with.
 *
 * Builds flat indexes (inner product and L2, a dimension with a tail
 * past the 8-float blocks) holding exact duplicates, so that scores tie;
 * saves them; then for queries among them and at random checks that the
 * mapped file searched without the module, the same file opened by the
 * module, and the module's index in memory give the same ids and the
 * same scores bit for bit, in the same order, both when the 4-bit codes
 * pick the candidates and when every vector is scored (the codes scored
 * with AVX2, where the CPU has it, and with the portable loop); that equal scores
 * come in index order; and that the exact scores are those of a sum in
 * double precision.  Then a file of layout 2 (8-bit codes, which an older
 * kbx wrote), written here, read and searched as before; a stale stamp,
 * a file of another kind, and damaged headers, which kbx checks in the
 * mapping rather than with read().
 * Prints TAP.
 *
 *   vector-flat-direct [scratch-dir]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "search/vecmod.h"
#include "tap.h"

#define DIM 45
#define NBASE 3000
#define NQUERY 40
#define K 20

static uint64_t rng_state = 17;

static double rng_uniform(void)
{
	/* splitmix64 */
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return ((z >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Exact score of id's vector in double precision. */
static double reference(const float *base, const float *q, int64_t id, int metric)
{
	const float *v = base + (size_t)((id - 5000) / 3) * DIM;
	double s = 0;

	for (int j = 0; j < DIM; j++)
		s += metric == KBX_VEC_L2 ? ((double)q[j] - v[j]) * ((double)q[j] - v[j])
					  : (double)q[j] * v[j];
	return s;
}

/* Zeros into fp up to offset to (*at: where it is). */
static void pad(FILE *fp, uint64_t *at, uint64_t to)
{
	for (; *at < to; (*at)++)
		fputc(0, fp);
}

/*
 * The vectors of base as layout 2 has them (8-bit codes), written here
 * as an older kbx wrote them; read without the module, its codes scored
 * with AVX2 and with the portable loop alike, and every vector scored,
 * it answers as the 4-bit file (four_bit) does.
 */
static void layout2(const char *dir, int metric, const char *name, const float *base,
		    const int64_t *xids, const struct kbx_vflat *four_bit)
{
	struct kbx_vflat_layout l;
	struct kbx_vf_trailer t = { 0 };
	struct kbx_vflat old;
	unsigned char head[KBX_VFLAT_HEADER_SIZE], tail[KBX_VF_TRAILER_SIZE];
	char path[4096], err[512], desc[256];
	uint64_t at = 0, gen = 0;
	float *factors = malloc(sizeof(float) * 2 * NBASE), q[DIM];
	int8_t *codes;
	FILE *fp;
	int same = 1, rc;

	if (!_kbx_vflat_layout(DIM, NBASE, 8, &l) || !factors ||
	    !(codes = malloc((size_t)l.stride * NBASE)))
		abort();
	_kbx_vflat_codes(base, NBASE, DIM, 8, l.stride, factors, codes);
	_kbx_vflat_header(head, DIM, NBASE, &l);
	snprintf(path, sizeof(path), "%s/flat2-%d.kbxv", dir, metric);
	if (!(fp = fopen(path, "wb")))
		abort();
	fwrite(head, 1, sizeof(head), fp);
	at = sizeof(head);
	fwrite(factors, sizeof(float) * 2, NBASE, fp);
	at += sizeof(float) * 2 * NBASE;
	pad(fp, &at, l.ids);
	fwrite(xids, sizeof(int64_t), NBASE, fp);
	at += sizeof(int64_t) * NBASE;
	pad(fp, &at, l.codes);
	fwrite(codes, l.stride, NBASE, fp);
	at += (uint64_t)l.stride * NBASE;
	pad(fp, &at, l.vectors);
	fwrite(base, sizeof(float) * DIM, NBASE, fp);
	t.generation = 7;
	t.payload = l.end;
	t.ntotal = NBASE;
	t.dim = DIM;
	t.kind = KBX_VF_KIND_FLAT;
	t.metric = metric == KBX_VEC_L2 ? KBX_VF_METRIC_L2 : 0;
	t.flags = KBX_VF_TRAINED;
	t.layout = KBX_VF_LAYOUT_FLAT;
	_kbx_vf_trailer_encode(tail, &t);
	fwrite(tail, 1, sizeof(tail), fp);
	if (fclose(fp))
		abort();

	rc = _kbx_vflat_open(path, 1, 7, &old, &gen, err, sizeof(err));
	snprintf(desc, sizeof(desc), "%s: a file of layout 2 (8-bit codes) is read still", name);
	ok(!rc && old.bits == 8 && old.stride == 64 && four_bit->bits == 4 &&
	   four_bit->stride == 32 && old.n == NBASE, desc);
	if (rc) {
		printf("# %s\n", err);
		free(factors);
		free(codes);
		return;
	}
	for (int qi = 0; qi < NQUERY; qi++) {
		int64_t ids[4][K];
		float dist[4][K];

		for (int j = 0; j < DIM; j++)
			q[j] = (float)(rng_uniform() * 2 - 1);
		rc = _kbx_vflat_search(&old, 1, q, K, 0, ids[0], dist[0], err, sizeof(err));
		_kbx_vflat_portable = 1;
		rc |= _kbx_vflat_search(&old, 1, q, K, 0, ids[1], dist[1], err, sizeof(err));
		_kbx_vflat_portable = 0;
		rc |= _kbx_vflat_search(&old, 1, q, K, KBX_VEC_RERANK_ALL, ids[2], dist[2], err,
					sizeof(err));
		rc |= _kbx_vflat_search(four_bit, 1, q, K, KBX_VEC_RERANK_ALL, ids[3], dist[3], err,
					sizeof(err));
		if (rc || memcmp(ids[0], ids[1], sizeof(ids[0])) ||
		    memcmp(dist[0], dist[1], sizeof(dist[0])) ||
		    memcmp(ids[2], ids[3], sizeof(ids[0])) ||
		    memcmp(dist[2], dist[3], sizeof(dist[0]))) {
			printf("# query %d: layout 2 answers otherwise\n", qi);
			same = 0;
		}
	}
	snprintf(desc, sizeof(desc),
		 "%s: layout 2 searched with AVX2 or the portable loop, and whole, answers as layout 3",
		 name);
	ok(same, desc);
	_kbx_vflat_unmap(&old);
	free(factors);
	free(codes);
}

static void one_metric(const struct kbx_vector_ops *ops, const char *dir, int metric)
{
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = metric, .dim = DIM };
	float *base = malloc(sizeof(float) * NBASE * DIM), *q = malloc(sizeof(float) * DIM);
	int64_t *xids = malloc(sizeof(int64_t) * NBASE);
	kbx_vector_index_t *mem = NULL, *mapped = NULL;
	struct kbx_vflat direct;
	char path[4096], err[512], desc[256];
	const char *name = metric == KBX_VEC_L2 ? "L2" : "inner product";
	uint64_t gen = 0;
	uint32_t reranks[3] = { 0, 1000, KBX_VEC_RERANK_ALL };
	int same = 1, ordered = 1, exact = 1, ties = 0, rc;

	if (!base || !q || !xids)
		abort();
	for (size_t i = 0; i < NBASE; i++) {
		xids[i] = 5000 + 3 * (int64_t)i;
		for (int j = 0; j < DIM; j++)
			base[i * DIM + j] = (float)(rng_uniform() * 2 - 1);
		/* every tenth vector a copy of one before: equal scores */
		if (i % 10 == 9)
			memcpy(base + i * DIM, base + (i - 7) * DIM, sizeof(float) * DIM);
	}
	snprintf(path, sizeof(path), "%s/flat-%d.kbxv", dir, metric);
	rc = ops->create(&spec, &mem, err, sizeof(err)) ||
	     ops->add(mem, NBASE, DIM, base, xids, err, sizeof(err)) ||
	     ops->save(mem, path, 7, err, sizeof(err)) ||
	     ops->open(path, KBX_VEC_OPEN_MMAP | KBX_VEC_OPEN_GENERATION, 7, 0, &mapped, NULL, err,
		       sizeof(err));
	snprintf(desc, sizeof(desc), "%s: the module builds, saves and maps a flat index", name);
	ok(!rc, desc);
	if (rc) {
		printf("# %s\n", err);
		return;
	}
	rc = _kbx_vflat_open(path, 1, 7, &direct, &gen, err, sizeof(err));
	snprintf(desc, sizeof(desc), "%s: libkbx maps the same file without the module", name);
	ok(!rc && gen == 7 && direct.n == NBASE && direct.dim == DIM && direct.metric == metric,
	   desc);
	if (rc) {
		printf("# %s\n", err);
		return;
	}

	for (int qi = 0; qi < NQUERY; qi++) {
		/* half the queries are stored vectors that have a copy */
		if (qi % 2)
			memcpy(q, base + (size_t)(qi * 70 + 2) * DIM, sizeof(float) * DIM);
		else
			for (int j = 0; j < DIM; j++)
				q[j] = (float)(rng_uniform() * 2 - 1);
		for (int r = 0; r < 3; r++) {
			struct kbx_vector_search_params p = { .rerank = reranks[r] };
			int64_t ids[4][K];
			float dist[4][K];

			if (ops->search(mem, 1, DIM, q, K, &p, ids[0], dist[0], err, sizeof(err)) ||
			    ops->search(mapped, 1, DIM, q, K, &p, ids[1], dist[1], err, sizeof(err)) ||
			    _kbx_vflat_search(&direct, 1, q, K, p.rerank, ids[2], dist[2], err,
					      sizeof(err))) {
				printf("# search failed: %s\n", err);
				same = 0;
				continue;
			}
			/* the codes scored by the portable loop, not AVX2 */
			_kbx_vflat_portable = 1;
			if (_kbx_vflat_search(&direct, 1, q, K, p.rerank, ids[3], dist[3], err,
					      sizeof(err))) {
				printf("# search failed: %s\n", err);
				same = 0;
			}
			_kbx_vflat_portable = 0;
			if (memcmp(ids[3], ids[2], sizeof(ids[0])) ||
			    memcmp(dist[3], dist[2], sizeof(dist[0]))) {
				printf("# query %d rerank %u: the portable scan differs\n", qi,
				       p.rerank);
				same = 0;
			}
			if (memcmp(ids[0], ids[2], sizeof(ids[0])) ||
			    memcmp(ids[1], ids[2], sizeof(ids[0])) ||
			    memcmp(dist[0], dist[2], sizeof(dist[0])) ||
			    memcmp(dist[1], dist[2], sizeof(dist[0]))) {
				printf("# query %d rerank %u: the answers differ\n", qi, p.rerank);
				same = 0;
			}
			for (int i = 1; i < K; i++) {
				int worse = metric == KBX_VEC_L2 ? dist[2][i] > dist[2][i - 1]
								 : dist[2][i] < dist[2][i - 1];

				if (dist[2][i] == dist[2][i - 1]) {
					ties++;
					if (ids[2][i] < ids[2][i - 1])
						ordered = 0;
				} else if (!worse) {
					ordered = 0;
				}
			}
			for (int i = 0; i < K && r; i++) {
				double ref = reference(base, q, ids[2][i], metric);

				if (ref - dist[2][i] > 1e-4 || dist[2][i] - ref > 1e-4)
					exact = 0;
			}
		}
	}
	snprintf(desc, sizeof(desc),
		 "%s: without the module, mapped by the module, in memory: the same ids and scores",
		 name);
	ok(same, desc);
	snprintf(desc, sizeof(desc), "%s: best first, equal scores in index order (%d ties seen)",
		 name, ties);
	ok(ordered && ties > 0, desc);
	snprintf(desc, sizeof(desc), "%s: the scores are the exact ones", name);
	ok(exact, desc);
	layout2(dir, metric, name, base, xids, &direct);

	rc = _kbx_vflat_open(path, 1, 8, &direct, &gen, err, sizeof(err));
	snprintf(desc, sizeof(desc), "%s: a file of another stamp is stale, its stamp given", name);
	ok(rc == KBX_VF_STALE && gen == 7 && strstr(err, "is stale"), desc);

	_kbx_vflat_unmap(&direct);
	ops->free_index(mem);
	ops->free_index(mapped);
	free(base);
	free(q);
	free(xids);
}

/* Save 20 random vectors of 8 dimensions in an index of spec at path
 * with the stamp generation; non-zero on failure. */
static int save_twenty(const struct kbx_vector_ops *ops, const struct kbx_vector_spec *spec,
		       const char *path, uint64_t generation)
{
	float v[8 * 20];
	int64_t ids[20];
	kbx_vector_index_t *ix = NULL;
	char err[512];
	int rc;

	for (int i = 0; i < 20 * 8; i++)
		v[i] = (float)rng_uniform();
	for (int i = 0; i < 20; i++)
		ids[i] = i;
	rc = ops->create(spec, &ix, err, sizeof(err)) ||
	     ops->add(ix, 20, 8, v, ids, err, sizeof(err)) ||
	     ops->save(ix, path, generation, err, sizeof(err));
	ops->free_index(ix);
	return rc;
}

static void other_kind(const struct kbx_vector_ops *ops, const char *dir)
{
	struct kbx_vector_spec spec = { .kind = KBX_VEC_HNSW, .metric = KBX_VEC_IP, .dim = 8,
					.hnsw_m = 8 };
	struct kbx_vflat direct;
	char path[4096], err[512] = "";
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/hnsw.kbxv", dir) >= sizeof(path))
		abort();
	ok(!save_twenty(ops, &spec, path, 3), "the module saves an HNSW index");
	rc = _kbx_vflat_open(path, 1, 3, &direct, NULL, err, sizeof(err));
	ok(rc == KBX_VF_NOT_FLAT && !err[0], "an HNSW file is left to the module, quietly");
}

/* Overwrite len bytes at off of the file path. */
static int patch(const char *path, long off, const void *bytes, size_t len)
{
	FILE *fp = fopen(path, "r+b");
	int rc = !fp || fseek(fp, off, SEEK_SET) || fwrite(bytes, 1, len, fp) != len;

	if (fp && fclose(fp))
		rc = 1;
	return rc;
}

static void damaged_header(const struct kbx_vector_ops *ops, const char *dir)
{
	struct kbx_vector_spec spec = { .kind = KBX_VEC_FLAT, .metric = KBX_VEC_IP, .dim = 8 };
	static const unsigned char junk[4] = "junk", version[4] = { 99, 0, 0, 0 },
				   dim[4] = { 9, 0, 0, 0 };
	struct kbx_vflat direct;
	char path[4096], err[512] = "";
	int rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/damaged.kbxv", dir) >= sizeof(path))
		abort();
	ok(!save_twenty(ops, &spec, path, 5), "the module saves a flat index of 20 vectors");

	memset(&direct, 0, sizeof(direct));
	rc = _kbx_vflat_open(path, 1, 5, &direct, NULL, err, sizeof(err));
	ok(rc == KBX_VF_OK && direct.map && direct.n == 20, "it opens as it was written");
	_kbx_vflat_unmap(&direct);

	rc = patch(path, 12, dim, sizeof(dim));
	memset(&direct, 0, sizeof(direct));
	rc = rc ? -1 : _kbx_vflat_open(path, 1, 5, &direct, NULL, err, sizeof(err));
	ok(rc == KBX_VF_FORMAT && strstr(err, "does not match its trailer") && !direct.map,
	   "a header whose dimension is not the trailer's is damaged, and nothing stays mapped");

	rc = patch(path, 8, version, sizeof(version));
	rc = rc ? -1 : _kbx_vflat_open(path, 1, 5, &direct, NULL, err, sizeof(err));
	ok(rc == KBX_VF_FORMAT && strstr(err, "has flat layout 99, which this kbx cannot read"),
	   "a layout from a later kbx is named");

	rc = patch(path, 0, junk, sizeof(junk));
	rc = rc ? -1 : _kbx_vflat_open(path, 1, 5, &direct, NULL, err, sizeof(err));
	ok(rc == KBX_VF_FORMAT && strstr(err, "damaged.kbxv' is damaged: no flat index header"),
	   "a file without the flat header is damaged, named");
}

int main(int argc, char **argv)
{
	const struct kbx_vector_ops *ops;
	char dir[4096], err[512];

	if (argc > 1) {
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	} else {
		snprintf(dir, sizeof(dir), "%s/vflat-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (!mkdtemp(dir))
			return 2;
	}
	if (_kbx_vector_load(&ops, err, sizeof(err))) {
		printf("1..0 # SKIP %s\n", err);
		return 0;
	}
	one_metric(ops, dir, KBX_VEC_IP);
	one_metric(ops, dir, KBX_VEC_L2);
	other_kind(ops, dir);
	damaged_header(ops, dir);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
