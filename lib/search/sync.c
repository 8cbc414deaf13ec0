/*
 * kbx_search_index: bring the retrieval layer up to date.
 *
 *   1. code chunks: every file of the code graph whose content changed
 *      since its chunks were made gives one chunk per function, method
 *      and class (the graph's definitions, with their line ranges);
 *   2. registries and the repository's Markdown: every file that changed
 *      is parsed again (lib/registry/);
 *   3. vectors: every chunk's vector is taken from the cache or embedded,
 *      in the same write transaction, which then commits;
 *   4. the vector index is rebuilt from the cache when the chunks or the
 *      embedder changed, and saved stamped with the search generation.
 *
 * A source (file) is skipped whole or not at all; its chunks change in the
 * transaction that commits everything else, so a killed run leaves the
 * previous state.
 *
 * The graph commits before this transaction begins (lib/index.c): in
 * between, a reader sees the new graph with the old chunks, as the old
 * index had them.  A rebuild (opts->rebuild, or the mark a rebuild of the
 * graph leaves, KBX_META_REBUILD_CODE_CHUNKS) drops the chunks and makes
 * them again here, in the same transaction, so that searches see all the
 * old chunks or all the new ones.  The vector file is the last to change,
 * and searches tell whether it holds their chunks by its stamp (see
 * run_vector in search.c): until it is written they search the one before
 * and the delta beside it, which holds every chunk added since.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xxhash.h>

#include "search/search.h"
#include "registry/registry.h"
#include "embed/embed.h"
#include "search/vecmod.h"

#define DEFAULT_MAX_FILE_SIZE (1u << 20)
/* A chunk's text is cut at this many bytes: a 5,000-line generated
 * function says nothing more to a search than its first 16 KiB. */
#define MAX_CHUNK_TEXT (16u << 10)
#define EMBED_BATCH 256
/* The vector file is built again when the chunks added since it was
 * built pass a tenth of the collection, and at least this many. */
#define DELTA_MIN 2000
/* the cache may hold twice as many vectors as there are chunks, and this
 * many more, before those no chunk has are dropped (prune_cache) */
#define CACHE_SLACK 64

struct sync {
	struct kbx_store *s;
	const struct kbx_search_index_opts *o;
	struct kbx_search_index_stats *stats;
	struct kbx_error *err;
	struct _kbx_cw *w;
	/* the source being parsed */
	const struct _kbx_scan *markdown;  /* the repository's Markdown files */
	const char *source_path;
	const char *source_rel;     /* a registry file's path in its registry */
	int source_skipped;     /* the whole file */
	int source_partial;     /* some entries: read it again next time */
	kbx_status_t sink_status;
	uint64_t chunks_dropped; /* by a rebuild that dropped the tables */
	kbx_embedder_t *embed;
	/* the texts whose vectors the code chunks' workers made in this
	 * run, in the cache already, of fresh_dim floats */
	struct textset *fresh;
	uint32_t fresh_dim;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void notify(struct sync *y, const struct kbx_note *n)
{
	if (y->o->notify)
		y->o->notify(y->o->notify_data, n);
}

static void progress(struct sync *y, const char *phase, uint64_t done, uint64_t total)
{
	struct kbx_note n = { 0 };
	n.kind = KBX_NOTE_PROGRESS;
	n.phase = phase;
	n.done = done;
	n.total = total;
	notify(y, &n);
}

/* ---- the sink the registry parsers write to ---- */

static int sink_chunk(void *data, const struct kbx_chunk *c)
{
	struct sync *y = data;
	const char *dup = NULL;
	/* a registry document that names no id is known by its path within
	 * the registry, never by a path of this machine */
	struct kbx_chunk rel;
	if (y->source_rel && c->doc_id == c->path) {
		rel = *c;
		rel.doc_id = y->source_rel;
		c = &rel;
	}
	kbx_status_t st = _kbx_cw_add(y->w, c, &dup);
	if (st) {
		y->sink_status = st;
		return 1;
	}
	if (dup && c->seq == 0) {
		char msg[900];
		snprintf(msg, sizeof(msg),
			 "duplicate id '%s': already defined at %s; give one of them another id",
			 c->doc_id, dup);
		struct kbx_note n = { 0 };
		n.kind = KBX_NOTE_SKIPPED;
		n.path = c->path;
		n.line = c->line;
		n.message = msg;
		n.reason = "duplicate-id";
		n.what = "entry";
		y->stats->entries_skipped++;
		y->source_partial = 1;
		notify(y, &n);
	}
	return 0;
}

static void sink_note(void *data, const struct kbx_note *n)
{
	struct sync *y = data;
	if (n->kind == KBX_NOTE_SKIPPED) {
		if (n->what && !strcmp(n->what, "entry")) {
			y->stats->entries_skipped++;
			y->source_partial = 1;
		} else {
			y->stats->files_skipped++;
			y->source_skipped = 1;
		}
	} else if (n->kind == KBX_NOTE_WARNING) {
		y->stats->warnings++;
		y->source_partial = 1;
	}
	notify(y, n);
}

/* ---- reading files ---- */

/* Read path, or with root the repository file root/path, which is
 * opened without following a link in any of its components. */
static int read_file(const char *root, const char *path, uint64_t max, struct strbuf *sb,
		     const char **why)
{
	strbuf_reset(sb);
	int rc = root ? strbuf_read_regular_at(sb, root, path, (size_t)max)
		      : strbuf_read_regular_file(sb, path, (size_t)max);
	if (rc == STRBUF_TOO_BIG) {
		*why = "larger than the size limit";
		return -1;
	}
	if (rc == STRBUF_NOT_REGULAR) {
		*why = "not a regular file";
		return -1;
	}
	if (rc < 0) {
		*why = strerror(errno);
		return -1;
	}
	return 0;
}

static void skip_note(struct sync *y, const char *path, const char *why, const char *reason)
{
	char msg[512];
	snprintf(msg, sizeof(msg), "%s", why);
	struct kbx_note n = { 0 };
	n.kind = KBX_NOTE_SKIPPED;
	n.path = path;
	n.message = msg;
	n.reason = reason;
	n.what = "file";
	y->stats->files_skipped++;
	notify(y, &n);
}

/* The keys of the texts embedded in this run, to tell a text seen again
 * (embed_repeated) from a vector an earlier run left in the cache
 * (embed_cached): open addressing over the keys' hash bytes, an all-zero
 * slot free (a key is a 128-bit hash: never all zero in practice, and a
 * miss would only move one count). */
struct textset {
	unsigned char (*k)[KBX_VCACHE_KEY_LEN];
	size_t n, cap;          /* cap: a power of two, or 0 */
};

static const unsigned char no_key[KBX_VCACHE_KEY_LEN];

static size_t textset_slot(const struct textset *ks, const unsigned char *key)
{
	uint64_t h;
	memcpy(&h, key + 8, sizeof(h));
	size_t i = (size_t)h & (ks->cap - 1);
	while (memcmp(ks->k[i], no_key, KBX_VCACHE_KEY_LEN) &&
	       memcmp(ks->k[i], key, KBX_VCACHE_KEY_LEN))
		i = (i + 1) & (ks->cap - 1);
	return i;
}

static int textset_has(const struct textset *ks, const unsigned char *key)
{
	return ks->cap && !memcmp(ks->k[textset_slot(ks, key)], key, KBX_VCACHE_KEY_LEN);
}

/* Remember key.  Out of memory, it is not remembered: a repeat of it
 * then counts as cached, a count and never a vector. */
static void textset_add(struct textset *ks, const unsigned char *key)
{
	if (2 * (ks->n + 1) > ks->cap) {
		struct textset bigger = { NULL, ks->n, ks->cap ? 2 * ks->cap : 1024 };
		bigger.k = calloc(bigger.cap, sizeof(*bigger.k));
		if (!bigger.k)
			return;
		for (size_t i = 0; i < ks->cap; i++)
			if (memcmp(ks->k[i], no_key, KBX_VCACHE_KEY_LEN))
				memcpy(bigger.k[textset_slot(&bigger, ks->k[i])], ks->k[i],
				       KBX_VCACHE_KEY_LEN);
		free(ks->k);
		*ks = bigger;
	}
	size_t i = textset_slot(ks, key);
	if (memcmp(ks->k[i], key, KBX_VCACHE_KEY_LEN)) {
		memcpy(ks->k[i], key, KBX_VCACHE_KEY_LEN);
		ks->n++;
	}
}

/* ---- code chunks ---- */

struct defn {
	uint32_t id, parent;
	int kind;
	uint32_t line, col, end_line;
	char *cid, *qual, *name;
};

struct defs {
	struct defn *d;
	size_t n, a;
};

static int collect_def(void *data, const struct kbx_edge *e)
{
	struct defs *ds = data;
	const struct kbx_node *t = &e->to;
	if (!(KBX_KIND_IS_TYPE(t->kind) || KBX_KIND_IS_CALLABLE(t->kind)))
		return 0;
	if (ds->n == ds->a) {
		size_t na = ds->a ? ds->a * 2 : 32;
		struct defn *nd = realloc(ds->d, na * sizeof(*nd));
		if (!nd)
			return 1;
		ds->d = nd;
		ds->a = na;
	}
	struct defn *d = &ds->d[ds->n];
	d->id = t->id;
	d->parent = t->parent;
	d->kind = t->kind;
	d->line = t->line;
	d->col = t->col;
	d->end_line = t->end_line ? t->end_line : t->line;
	d->cid = strdup(t->cid);
	d->qual = strdup(t->qual ? t->qual : "");
	d->name = strdup(t->name ? t->name : "");
	if (!d->cid || !d->qual || !d->name) {
		free(d->cid);
		free(d->qual);
		free(d->name);
		return 1;
	}
	ds->n++;
	return 0;
}

/* Offsets of the starts of lines 1..n (lines[i] = offset of line i+1). */
static size_t *line_starts(const char *buf, size_t len, size_t *nlines)
{
	/* memchr, which looks at many bytes a step, finds each end */
	const char *end = buf + len, *p;
	size_t n = 1;
	for (p = buf; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		n++;
	size_t *l = malloc((n + 1) * sizeof(*l));
	if (!l)
		return NULL;
	size_t k = 0;
	l[k++] = 0;
	for (p = buf; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		l[k++] = (size_t)(p - buf) + 1;
	l[k] = len;
	*nlines = n;
	return l;
}

/* Is line n (1-based) a comment or an annotation line: what documents
 * the definition below it in C-like languages and PHP (a block comment,
 * // and /// lines), Python, Ruby and Bash (#), Lua (--), and decorators
 * or attributes (@, #[)? */
static int comment_line(const char *buf, const size_t *ls, size_t nlines, uint32_t n)
{
	if (n < 1 || n > nlines)
		return 0;
	return _kbx_comment_text(buf + ls[n - 1], buf + ls[n]);
}

/* The first line of the comment block right above line n (no blank line
 * between), at most 40 lines up; n when there is none. */
static uint32_t doc_comment_start(const char *buf, const size_t *ls, size_t nlines, uint32_t n)
{
	uint32_t a = n;
	while (a > 1 && n - a < 40 && comment_line(buf, ls, nlines, a - 1))
		a--;
	return a;
}

/* The bytes of lines [a, b] (1-based, inclusive). */
static void line_range(const char *buf, const size_t *ls, size_t nlines, uint32_t a, uint32_t b,
		       const char **p, size_t *len)
{
	if (a < 1)
		a = 1;
	if (a > nlines)
		a = (uint32_t)nlines;
	if (b < a)
		b = a;
	if (b > nlines)
		b = (uint32_t)nlines;
	size_t from = ls[a - 1], to = ls[b];
	*p = buf + from;
	*len = to - from;
}

/* ---- code chunks, made on worker threads ---- */

/*
 * The files whose chunks must be made again go to worker threads, in
 * order.  Each reads its file and the definitions the graph has for it,
 * in a read transaction of its own (the graph committed before this
 * run's write transaction began, and the run changes no table of the
 * graph), cuts the chunks' texts, counts their terms and, with the
 * builtin embedding, embeds the texts that the cache has no vector for.
 * This thread, the only writer, takes the files in order and writes what
 * they made: the chunks get the ids, and the store the records, that one
 * thread making them would give.
 */

#define CODE_WINDOW 64

/* C and C++ declarations read for their comments: see add_decl_doc(). */
#define DECL_FILES 128          /* files whose declarations a worker keeps */
#define DECL_INCLUDES 64        /* files looked in for one file's definitions */
#define DECL_DEPTH 4            /* include levels looked down, nearest first */
#define DECL_FILE_MAX (2u << 20)
#define DECL_DOC_MAX 2048       /* bytes of one comment */

struct decl_doc {
	char *name;
	char *doc;
	size_t len;
};

struct decl_file {
	char *path;
	struct decl_doc *d;     /* sorted by name */
	size_t n;
	uint64_t used;          /* the worker's clock when last asked */
};

struct decl_cache {
	struct decl_file f[DECL_FILES];
	size_t n;
	uint64_t clock;
	struct strbuf buf;
};

struct code_chunk {
	struct defn d;
	char *text;
	size_t len;
	struct _kbx_term *terms;        /* the strings are the worker's counter's */
	size_t nterms;
	uint32_t ntokens;
	unsigned char key[KBX_VCACHE_KEY_LEN];
	float *vec;                     /* a vector the cache lacked, or NULL */
};

struct code_job {
	const char *path;
	const struct _kbx_file_rec *fr;
	int done;
	int unreadable;                 /* gone or unreadable since the graph saw it */
	kbx_status_t st;                /* a failure, which ends the run */
	char msg[sizeof(((struct kbx_error *)0)->msg)];
	struct code_chunk *c;
	size_t n;
	/* the worker's CPU time for tokenizing and embedding the file's
	 * chunks (read per file: a thread's CPU clock costs a system call) */
	uint64_t tokenize_ns, embed_ns;
};

struct code_pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct code_job *jobs;
	size_t njobs, next, consumed;
	int stop;
	uint64_t ident;                 /* the embedder's, for the cache's keys */
	uint32_t dim;
};

struct code_worker {
	struct code_pool *p;
	pthread_t thread;
	int started;
	struct kbx_store view;          /* the store, read in the worker's transaction */
	struct _kbx_termcount *count;
	kbx_embedder_t *embed;          /* NULL: the writer embeds */
	struct strbuf buf, text;
	struct decl_cache decls;        /* C and C++ declarations read (add_decl_doc) */
};

static void code_job_release(struct code_job *j)
{
	for (size_t i = 0; i < j->n; i++) {
		struct code_chunk *c = &j->c[i];
		free(c->d.cid);
		free(c->d.qual);
		free(c->d.name);
		free(c->text);
		free(c->terms);
		free(c->vec);
	}
	free(j->c);
	j->c = NULL;
	j->n = 0;
}

static void code_job_fail(struct code_job *j, kbx_status_t st, const char *msg)
{
	j->st = st;
	snprintf(j->msg, sizeof(j->msg), "%s", msg);
}

/*
 * The text of definition d: its lines with the comment that documents it;
 * a class's lines up to its first member, then its members' names (the
 * members are chunks of their own).  At most cap bytes of the file's
 * lines; when the definition starts further along its line than half of
 * that (minified code: a whole file on one line), the text starts where
 * the definition does.
 */
static void chunk_text(struct strbuf *text, const struct defs *ds, const struct defn *d,
		       const char *buf, const size_t *ls, size_t nlines, size_t cap)
{
	const char *p;
	size_t len;
	uint32_t last = d->end_line;
	strbuf_reset(text);
	if (KBX_KIND_IS_TYPE(d->kind))
		for (size_t j = 0; j < ds->n; j++)
			if (ds->d[j].parent == d->id && ds->d[j].line > d->line &&
			    ds->d[j].line - 1 < last)
				last = ds->d[j].line - 1;
	uint32_t from = doc_comment_start(buf, ls, nlines, d->line);
	line_range(buf, ls, nlines, from, last, &p, &len);
	if (len > cap && from == d->line && d->col - 1 > cap / 2 && d->line <= nlines &&
	    d->col - 1 < ls[d->line] - ls[d->line - 1]) {
		p += d->col - 1;
		len -= d->col - 1;
	}
	strbuf_add(text, p, len > cap ? cap : len);
	if (KBX_KIND_IS_TYPE(d->kind)) {
		int any = 0;
		for (size_t j = 0; j < ds->n; j++)
			if (ds->d[j].parent == d->id) {
				strbuf_addstr(text, any ? " " : "\n");
				strbuf_addstr(text, ds->d[j].name);
				any = 1;
			}
	}
}

/*
 * How much of its lines each chunk of a file may take.  Nested
 * definitions repeat their inner ones' text, and a minified file's
 * thousands of functions share one line: the file's chunks together take
 * at most CHUNK_BUDGET times the file's size (and a little more), so
 * that the work is linear in the file; when they would take more, each
 * takes an equal share, no less than MIN_CHUNK_TEXT bytes.
 */
#define CHUNK_BUDGET 4
#define MIN_CHUNK_TEXT 256u

static size_t chunk_cap(const struct defs *ds, const size_t *ls, size_t nlines, size_t flen)
{
	size_t budget = CHUNK_BUDGET * flen + (64u << 10), total = 0;
	for (size_t i = 0; i < ds->n; i++) {
		const char *p;
		size_t len;
		line_range("", ls, nlines, ds->d[i].line, ds->d[i].end_line, &p, &len);
		total += len > MAX_CHUNK_TEXT ? MAX_CHUNK_TEXT : len;
	}
	if (total <= budget || !ds->n)
		return MAX_CHUNK_TEXT;
	size_t share = budget / ds->n;
	return share < MIN_CHUNK_TEXT ? MIN_CHUNK_TEXT : share;
}

/*
 * C and C++ put a function's documentation where it is declared, most
 * often in a header ("lib/kbx.h: Read a size as users write it..."),
 * while its definition in the .c file has none: a chunk of the
 * definition alone leaves out the words a question would use.  So a
 * function of a C or C++ file without a comment of its own takes the
 * comment of its declaration, in the file itself (a static function
 * declared at the top) or in a file it includes or one those include,
 * up to DECL_DEPTH levels down (a library's header included through the
 * module's own, which includes the library's public one), appended to
 * its chunk's text.  A file's declarations are read once per worker: the comment
 * above each line that starts a statement at the left margin, whose
 * first name before a '(' is the function's, and which ends with ';'
 * before any '{'.  A header's comment changed later reaches the chunk
 * when its own file is indexed again (or on --rebuild).
 */
static void decl_file_release(struct decl_file *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->d[i].name);
		free(f->d[i].doc);
	}
	free(f->d);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

static void decl_cache_release(struct decl_cache *dc)
{
	for (size_t i = 0; i < dc->n; i++)
		decl_file_release(&dc->f[i]);
	strbuf_release(&dc->buf);
	memset(dc, 0, sizeof(*dc));
}

static int is_ident(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int cmp_decl(const void *a, const void *b)
{
	return strcmp(((const struct decl_doc *)a)->name, ((const struct decl_doc *)b)->name);
}

/* The documented declarations of the text buf into f. */
static void decl_index(struct decl_file *f, const char *buf, size_t blen)
{
	size_t nlines = 0, alloc = 0;
	size_t *ls = line_starts(buf, blen, &nlines);
	if (!ls)
		return;
	for (uint32_t n = 2; n <= nlines; n++) {
		const char *p = buf + ls[n - 1], *end = buf + ls[n];
		if (p >= end || !is_ident((unsigned char)*p) || !comment_line(buf, ls, nlines, n - 1))
			continue;
		const char *paren = memchr(p, '(', (size_t)(end - p));
		if (!paren)
			continue;
		const char *ne = paren;
		while (ne > p && (ne[-1] == ' ' || ne[-1] == '\t'))
			ne--;
		const char *nb = ne;
		while (nb > p && is_ident((unsigned char)nb[-1]))
			nb--;
		if (nb == ne || (nb[0] >= '0' && nb[0] <= '9'))
			continue;
		/* a declaration: ';' before any '{', within a few lines */
		const char *q = paren, *lim = buf + blen;
		if (lim - q > 2048)
			lim = q + 2048;
		while (q < lim && *q != ';' && *q != '{')
			q++;
		if (q >= lim || *q != ';')
			continue;
		uint32_t a = doc_comment_start(buf, ls, nlines, n);
		size_t from = ls[a - 1], to = ls[n - 1];
		if (to - from > DECL_DOC_MAX)
			to = from + DECL_DOC_MAX;
		if (_kbx_grow((void **)&f->d, &alloc, f->n, sizeof(*f->d), 16))
			break;
		struct decl_doc *d = &f->d[f->n];
		d->name = strndup(nb, (size_t)(ne - nb));
		d->doc = strndup(buf + from, to - from);
		d->len = to - from;
		if (!d->name || !d->doc) {
			free(d->name);
			free(d->doc);
			break;
		}
		f->n++;
	}
	free(ls);
	if (f->n > 1)
		qsort(f->d, f->n, sizeof(*f->d), cmp_decl);
}

/* The declarations of root/path, read on first use; NULL when it cannot
 * be read or out of memory. */
static struct decl_file *decl_file_get(struct decl_cache *dc, const char *root, const char *path)
{
	dc->clock++;
	for (size_t i = 0; i < dc->n; i++)
		if (dc->f[i].path && !strcmp(dc->f[i].path, path)) {
			dc->f[i].used = dc->clock;
			return &dc->f[i];
		}
	struct decl_file *f;
	if (dc->n < DECL_FILES) {
		f = &dc->f[dc->n++];
	} else {
		f = &dc->f[0];
		for (size_t i = 1; i < dc->n; i++)
			if (dc->f[i].used < f->used)
				f = &dc->f[i];
		decl_file_release(f);
	}
	memset(f, 0, sizeof(*f));
	f->used = dc->clock;
	const char *why;
	if (!(f->path = strdup(path)))
		return NULL;
	/* unreadable: no declarations, remembered as such */
	if (read_file(root, path, DECL_FILE_MAX, &dc->buf, &why) == 0)
		decl_index(f, dc->buf.buf ? dc->buf.buf : "", dc->buf.len);
	return f;
}

static const struct decl_doc *decl_find(const struct decl_file *f, const char *name)
{
	struct decl_doc key = { (char *)name, NULL, 0 };
	return f && f->n ? bsearch(&key, f->d, f->n, sizeof(*f->d), cmp_decl) : NULL;
}

/* The files whose declarations may document a definition of a file:
 * the file itself, then the repository files it includes, nearest first,
 * DECL_DEPTH levels down, at most DECL_INCLUDES. */
struct include_list {
	char **paths;
	size_t n, alloc;
	struct decl_file *files[DECL_INCLUDES + 1];   /* their declarations, once read */
};

static int collect_include(void *data, const struct kbx_edge *e)
{
	struct include_list *l = data;
	const struct kbx_node *t = &e->to;
	if (t->kind != KBX_KIND_FILE || !t->path || l->n >= DECL_INCLUDES)
		return 0;
	if (_kbx_grow((void **)&l->paths, &l->alloc, l->n, sizeof(*l->paths), 8))
		return 1;
	if ((l->paths[l->n] = strndup(t->path, t->path_len)))
		l->n++;
	return 0;
}

/* Append to the chunk text of d the comment of its declaration, when d
 * is a function without a comment of its own. */
static void add_decl_doc(struct code_worker *wk, const struct defn *d, const char *buf,
			 const size_t *ls, size_t nlines, struct include_list *inc)
{
	if (!KBX_KIND_IS_CALLABLE(d->kind) || doc_comment_start(buf, ls, nlines, d->line) < d->line)
		return;
	for (size_t i = 0; i < inc->n; i++) {
		const struct decl_doc *dd = decl_find(inc->files[i], d->name);
		if (dd) {
			strbuf_addch(&wk->text, '\n');
			strbuf_add(&wk->text, dd->doc, dd->len);
			return;
		}
	}
}

/* One file's chunks, on a worker (or on the writer when no worker
 * could start). */
static void cut_code_chunks(struct code_worker *wk, struct code_job *j)
{
	struct kbx_store *s = &wk->view;
	struct defs ds = { 0 };
	struct include_list inc = { 0 };
	size_t *ls = NULL, nlines = 0;
	const char *why = NULL;
	struct kbx_error err = KBX_ERROR_INIT;

	if (read_file(s->root, j->path, 64u << 20, &wk->buf, &why) < 0) {
		/* no chunks until the next run sees it again */
		j->unreadable = 1;
		return;
	}
	kbx_status_t st = kbx_walk_edges(s, j->fr->id, KBX_EDGE_DEFINES, KBX_DIR_OUT, 0, collect_def,
					 &ds, &err);
	if (st == KBX_NOT_FOUND)
		st = KBX_OK;
	if (st) {
		code_job_fail(j, st, err.msg);
		goto out;
	}
	const char *lang = kbx_lang_str(j->fr->lang);
	if (lang && (!strcmp(lang, "c") || !strcmp(lang, "cpp"))) {
		if (_kbx_grow((void **)&inc.paths, &inc.alloc, 0, sizeof(*inc.paths), 8) ||
		    !(inc.paths[0] = strdup(j->path))) {
			code_job_fail(j, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		inc.n = 1;
		st = kbx_walk_edges(s, j->fr->id, KBX_EDGE_IMPORTS, KBX_DIR_OUT, DECL_DEPTH, collect_include,
				    &inc, &err);
		if (st && st != KBX_NOT_FOUND) {
			code_job_fail(j, st, err.msg);
			goto out;
		}
		st = KBX_OK;
		/* read once per job; the cache holds more than one job's
		 * files, so none of these is dropped while the job runs */
		for (size_t i = 0; i < inc.n; i++)
			inc.files[i] = decl_file_get(&wk->decls, s->root, inc.paths[i]);
	}
	const char *buf = wk->buf.buf ? wk->buf.buf : "";
	ls = line_starts(buf, wk->buf.len, &nlines);
	j->c = calloc(ds.n + 1, sizeof(*j->c));
	if (!ls || !j->c) {
		code_job_fail(j, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	size_t cap = chunk_cap(&ds, ls, nlines, wk->buf.len);
	for (size_t i = 0; i < ds.n; i++) {
		struct code_chunk *c = &j->c[j->n];
		chunk_text(&wk->text, &ds, &ds.d[i], buf, ls, nlines, cap);
		if (inc.n)
			add_decl_doc(wk, &ds.d[i], buf, ls, nlines, &inc);
		c->text = wk->text.failed ? NULL : malloc(wk->text.len + 1);
		if (!c->text) {
			code_job_fail(j, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		memcpy(c->text, strbuf_str(&wk->text), wk->text.len + 1);
		c->len = wk->text.len;
		c->d = ds.d[i];
		ds.d[i].cid = ds.d[i].qual = ds.d[i].name = NULL;
		j->n++;
	}
	uint64_t cpu_tokenize = _kbx_thread_cpu_ns();
	for (size_t i = 0; i < j->n; i++) {
		struct code_chunk *c = &j->c[i];
		size_t nterms;
		const struct _kbx_term *terms = _kbx_termcount_chunk(
			wk->count, KBX_CHUNK_CODE, c->text, c->len, c->d.qual, &nterms, &c->ntokens);
		c->terms = terms ? malloc((nterms + 1) * sizeof(*c->terms)) : NULL;
		if (!c->terms) {
			code_job_fail(j, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		memcpy(c->terms, terms, nterms * sizeof(*terms));
		c->nterms = nterms;
	}
	uint64_t cpu_embed = _kbx_thread_cpu_ns();
	j->tokenize_ns = cpu_embed - cpu_tokenize;
	for (size_t i = 0; wk->embed && i < j->n; i++) {
		struct code_chunk *c = &j->c[i];
		/* a vector the cache has already is not made again */
		_kbx_vcache_key(c->key, wk->p->ident, KBX_CHUNK_CODE, c->text, c->len, c->d.qual);
		MDB_val ck = { KBX_VCACHE_KEY_LEN, c->key }, cv;
		if (!mdb_get(s->rtxn, s->vcache, &ck, &cv))
			continue;
		c->vec = malloc(wk->p->dim * sizeof(float));
		const char *t = c->text, *title = c->d.qual;
		/* a failure leaves the text to the writer, which says why */
		static const unsigned char code = KBX_CHUNK_CODE;
		if (c->vec && _kbx_embed_chunks(wk->embed, 1, &t, &c->len, &code, &title,
						wk->p->dim, c->vec, &err)) {
			free(c->vec);
			c->vec = NULL;
		}
	}
	if (wk->embed)
		j->embed_ns = _kbx_thread_cpu_ns() - cpu_embed;
out:
	for (size_t i = 0; i < inc.n; i++)
		free(inc.paths[i]);
	free(inc.paths);
	free(ls);
	for (size_t i = 0; i < ds.n; i++) {
		free(ds.d[i].cid);
		free(ds.d[i].qual);
		free(ds.d[i].name);
	}
	free(ds.d);
}

/* The chunks of one file.  An allocation refused on the way (util.h),
 * even where the code goes on without it (a file it could not read, a
 * vector left to the writer), fails the job: the run then keeps the
 * search index as it was rather than commit it with chunks missing. */
static void make_code_chunks(struct code_worker *wk, struct code_job *j)
{
	unsigned long nomem0 = _kbx_nomem_count;
	cut_code_chunks(wk, j);
	if (!j->st && _kbx_nomem_count != nomem0)
		code_job_fail(j, KBX_ERR_NOMEM, "out of memory");
}

static void *code_worker_main(void *arg)
{
	struct code_worker *wk = arg;
	struct code_pool *p = wk->p;
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (!p->stop && p->next < p->njobs && p->next >= p->consumed + CODE_WINDOW)
			pthread_cond_wait(&p->cv, &p->mu);
		size_t i = p->njobs;
		if (!p->stop && p->next < p->njobs)
			i = p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->njobs)
			break;
		make_code_chunks(wk, &p->jobs[i]);
		pthread_mutex_lock(&p->mu);
		p->jobs[i].done = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	return NULL;
}

/* A worker's state, and its read transaction; -1 when it cannot have
 * them.  Its counter goes to the writer w, whose postings point to the
 * terms it interns. */
static int code_worker_init(struct code_worker *wk, struct code_pool *p, struct kbx_store *s,
			    kbx_embedder_t *e, struct _kbx_cw *w)
{
	memset(wk, 0, sizeof(*wk));
	wk->p = p;
	wk->view = *s;
	wk->view.wtxn = NULL;
	wk->view.rtxn = NULL;
	strbuf_init(&wk->buf);
	strbuf_init(&wk->text);
	strbuf_init(&wk->decls.buf);
	wk->count = _kbx_termcount_new();
	if (wk->count && _kbx_cw_adopt(w, wk->count)) {
		_kbx_termcount_free(wk->count);
		wk->count = NULL;
	}
	if (!wk->count)
		return -1;
	if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &wk->view.rtxn)) {
		wk->view.rtxn = NULL;
		return -1;
	}
	if (p->dim)
		wk->embed = _kbx_embedder_clone(e);
	return 0;
}

static void code_worker_release(struct code_worker *wk)
{
	if (wk->view.rtxn)
		mdb_txn_abort(wk->view.rtxn);
	/* wk->count is the writer's */
	_kbx_embedder_close(wk->embed);
	strbuf_release(&wk->buf);
	strbuf_release(&wk->text);
	decl_cache_release(&wk->decls);
	memset(wk, 0, sizeof(*wk));
}

/* Write one file's chunks, as a worker made them. */
static kbx_status_t write_code_job(struct sync *y, struct code_job *j)
{
	struct strbuf key = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	strbuf_addf(&key, "c:%s", j->path);
	if (key.failed) {
		st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	st = _kbx_cw_begin(y->w, key.buf);
	if (st)
		goto out;
	y->stats->sources_changed++;
	y->stats->cpu_tokenize += (double)j->tokenize_ns / 1e9;
	y->stats->cpu_embed += (double)j->embed_ns / 1e9;
	if (j->st) {
		st = _kbx_fail(y->err, j->st, "%s", j->msg);
		goto out;
	}
	if (j->unreadable) {
		static const unsigned char zero[16];
		st = _kbx_cw_end(y->w, 0, 0, zero, KBX_SOURCE_SKIPPED);
		goto out;
	}
	const char *lang = kbx_lang_str(j->fr->lang);
	for (size_t i = 0; i < j->n && !st; i++) {
		struct code_chunk *cc = &j->c[i];
		struct kbx_chunk c = { 0 };
		c.type = KBX_CHUNK_CODE;
		c.doc_id = cc->d.cid;
		c.title = cc->d.qual;
		c.heading = "";
		c.path = j->path;
		c.line = cc->d.line;
		c.end_line = cc->d.end_line;
		c.lang = lang ? lang : "";
		c.tags = c.category = c.severity = c.pattern = c.cause = c.fix = c.related = "";
		c.text = cc->text;
		c.text_len = cc->len;
		c.node = cc->d.id;
		c.kind = cc->d.kind;
		st = _kbx_cw_add_counted(y->w, &c, cc->terms, cc->nterms, cc->ntokens);
		if (st || !cc->vec || textset_has(y->fresh, cc->key))
			continue;
		/* into the cache now; ensure_vectors counts it as embedded */
		MDB_val k = { KBX_VCACHE_KEY_LEN, cc->key },
			v = { y->fresh_dim * sizeof(float), cc->vec };
		int rc = mdb_put(y->s->wtxn, y->s->vcache, &k, &v, 0);
		if (rc)
			st = _kbx_fail_mdb(y->err, _kbx_store_write_error(y->s, rc),
					   "cannot write the vector cache");
		else
			textset_add(y->fresh, cc->key);
	}
	if (!st)
		st = _kbx_cw_end(y->w, j->fr->size, j->fr->mtime_ns, j->fr->hash, 0);
out:
	strbuf_release(&key);
	return st;
}

/* Make and write the chunks of the files todo[0..n), recorded as rec[]. */
static kbx_status_t code_files(struct sync *y, char **todo, const struct _kbx_file_rec *rec,
			       size_t n)
{
	struct code_pool p;
	struct code_worker wk[16], inline_wk;
	int nworkers = 0, want = y->o->threads > 0 ? y->o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	kbx_status_t st = KBX_OK;
	unsigned long nomem0 = _kbx_nomem_count;
	if (!n)
		return KBX_OK;
	memset(&p, 0, sizeof(p));
	memset(&inline_wk, 0, sizeof(inline_wk));
	p.jobs = calloc(n, sizeof(*p.jobs));
	if (!p.jobs)
		return _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		p.jobs[i].path = todo[i];
		p.jobs[i].fr = &rec[i];
	}
	p.njobs = n;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	/* the builtin embedding runs on the workers too */
	if (y->embed && _kbx_embedder_dim(y->embed)) {
		const char *ident = _kbx_embedder_identity(y->embed);
		p.ident = XXH3_64bits(ident, strlen(ident));
		p.dim = _kbx_embedder_dim(y->embed);
		y->fresh_dim = p.dim;
	}
	if (want < 1)
		want = 1;
	if (want > 16)
		want = 16;
	if ((size_t)want > n)
		want = (int)n;
	for (int t = 0; t < want; t++) {
		if (code_worker_init(&wk[nworkers], &p, y->s, y->embed, y->w))
			break;
		if (pthread_create(&wk[nworkers].thread, NULL, code_worker_main, &wk[nworkers])) {
			code_worker_release(&wk[nworkers]);
			break;
		}
		wk[nworkers++].started = 1;
	}
	/* no worker: this thread makes the chunks itself */
	if (!nworkers && code_worker_init(&inline_wk, &p, y->s, y->embed, y->w)) {
		/* its counter or its read transaction: memory, or the store */
		st = _kbx_nomem_count != nomem0
			     ? _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory")
			     : _kbx_fail(y->err, KBX_ERR_STORE,
					 "cannot begin a read transaction for the code chunks");
		goto out;
	}
	for (size_t i = 0; i < n && !st; i++) {
		struct code_job *j = &p.jobs[i];
		if (!nworkers) {
			make_code_chunks(&inline_wk, j);
		} else {
			pthread_mutex_lock(&p.mu);
			while (!j->done)
				pthread_cond_wait(&p.cv, &p.mu);
			p.consumed = i + 1;
			pthread_cond_broadcast(&p.cv);
			pthread_mutex_unlock(&p.mu);
		}
		st = write_code_job(y, j);
		code_job_release(j);
		if ((i + 1) % 64 == 0)
			progress(y, "chunk", i + 1, n);
	}
out:
	pthread_mutex_lock(&p.mu);
	p.stop = 1;
	pthread_cond_broadcast(&p.cv);
	pthread_mutex_unlock(&p.mu);
	for (int t = 0; t < nworkers; t++) {
		pthread_join(wk[t].thread, NULL);
		code_worker_release(&wk[t]);
	}
	code_worker_release(&inline_wk);
	for (size_t i = 0; i < n; i++)
		code_job_release(&p.jobs[i]);
	pthread_mutex_destroy(&p.mu);
	pthread_cond_destroy(&p.cv);
	free(p.jobs);
	return st;
}

static kbx_status_t sync_code(struct sync *y)
{
	struct kbx_store *s = y->s;
	MDB_txn *txn = s->wtxn;
	MDB_cursor *c;
	MDB_val k, d;
	kbx_status_t st = KBX_OK;
	struct strbuf key = STRBUF_INIT;

	/* changed files: the file table against the code sources */
	char **todo = NULL;
	struct _kbx_file_rec *todo_rec = NULL;
	size_t ntodo = 0, atodo = 0;
	int rc = mdb_cursor_open(txn, s->files, &c);
	if (rc)
		return _kbx_fail_mdb(y->err, rc, "cannot read the files table");
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc && !st;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct _kbx_file_rec fr;
		if (_kbx_file_rec_decode(d.mv_data, d.mv_size, &fr))
			continue;
		y->stats->sources++;
		strbuf_reset(&key);
		strbuf_addstr(&key, "c:");
		strbuf_add(&key, k.mv_data, k.mv_size);
		if (key.failed) {
			st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		struct _kbx_source_rec sr = { 0 };
		kbx_status_t ss = _kbx_cw_source(y->w, key.buf, &sr);
		if (ss == KBX_OK && !memcmp(sr.hash, fr.hash, 16) && !(sr.flags & KBX_SOURCE_SKIPPED))
			continue;
		if (ss && ss != KBX_NOT_FOUND) {
			st = ss;
			break;
		}
		if (ntodo == atodo) {
			atodo = atodo ? atodo * 2 : 64;
			char **nt = realloc(todo, atodo * sizeof(*nt));
			struct _kbx_file_rec *nr = realloc(todo_rec, atodo * sizeof(*nr));
			if (nt)
				todo = nt;
			if (nr)
				todo_rec = nr;
			if (!nt || !nr) {
				st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
				break;
			}
		}
		todo[ntodo] = strndup(k.mv_data, k.mv_size);
		todo_rec[ntodo] = fr;
		if (!todo[ntodo]) {
			st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		ntodo++;
	}
	mdb_cursor_close(c);
	if (!st)
		st = code_files(y, todo, todo_rec, ntodo);
	for (size_t i = 0; i < ntodo; i++)
		free(todo[i]);
	free(todo);
	free(todo_rec);

	/* code sources whose file left the graph */
	char **gone = NULL;
	size_t ngone = 0, agone = 0;
	if (!st) {
		rc = mdb_cursor_open(txn, s->sources, &c);
		if (rc) {
			st = _kbx_fail_mdb(y->err, rc, "cannot read the sources");
		} else {
			k.mv_data = "c:";
			k.mv_size = 2;
			for (rc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
			     !rc && k.mv_size >= 2 && !memcmp(k.mv_data, "c:", 2);
			     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
				MDB_val fk = { k.mv_size - 2, (char *)k.mv_data + 2 }, fd;
				if (mdb_get(txn, s->files, &fk, &fd) != MDB_NOTFOUND)
					continue;
				if (ngone == agone) {
					agone = agone ? agone * 2 : 16;
					char **ng = realloc(gone, agone * sizeof(*ng));
					if (!ng)
						break;
					gone = ng;
				}
				gone[ngone] = strndup(k.mv_data, k.mv_size);
				if (gone[ngone])
					ngone++;
			}
			mdb_cursor_close(c);
		}
	}
	for (size_t i = 0; i < ngone; i++) {
		if (!st) {
			st = _kbx_cw_remove_source(y->w, gone[i]);
			y->stats->sources_removed++;
		}
		free(gone[i]);
	}
	free(gone);
	strbuf_release(&key);
	return st;
}

/* ---- registries and Markdown ---- */

/* Parse one registry or Markdown file into the current source. */
/* shown is the path in messages; with root (a Markdown file of the
 * repository) the file read is root/shown, opened without following
 * links, else (a registry's file) abs. */
static kbx_status_t parse_source(struct sync *y, const char *key, const char *shown,
				 const char *rel, const char *root, const char *abs, int kind,
				 const char *lang, int type,
				 const struct stat *stp)
{
	struct _kbx_source_rec sr = { 0 };
	kbx_status_t st = _kbx_cw_source(y->w, key, &sr);
	if (st && st != KBX_NOT_FOUND)
		return st;
	int have = st == KBX_OK;
	uint64_t max = y->o->max_file_size ? y->o->max_file_size : DEFAULT_MAX_FILE_SIZE;
	int64_t mtime = (int64_t)stp->st_mtim.tv_sec * 1000000000 + stp->st_mtim.tv_nsec;
	y->stats->sources++;
	/* unchanged: same size and time, and nothing was skipped in it (a
	 * file with problems is read, and its problems told, every run) */
	if (have && sr.size == (uint64_t)stp->st_size && sr.mtime_ns == mtime && !sr.flags)
		return KBX_OK;

	struct strbuf buf = STRBUF_INIT;
	const char *why = NULL;
	if ((uint64_t)stp->st_size > max) {
		char msg[160];
		snprintf(msg, sizeof(msg),
			 "larger than the size limit (%llu bytes; see --max-file-size)",
			 (unsigned long long)max);
		st = _kbx_cw_begin(y->w, key);
		if (!st)
			st = _kbx_cw_end(y->w, (uint64_t)stp->st_size, mtime, sr.hash, KBX_SOURCE_SKIPPED);
		skip_note(y, shown, msg, "too-large");
		return st;
	}
	if (read_file(root, root ? shown : abs, max, &buf, &why) < 0) {
		char msg[300];
		snprintf(msg, sizeof(msg), "cannot read: %s", why);
		skip_note(y, shown, msg, "unreadable");
		strbuf_release(&buf);
		return KBX_OK;   /* keep what it gave last time */
	}
	unsigned char hash[16];
	_kbx_hash128(buf.buf ? buf.buf : "", buf.len, hash);
	if (have && !memcmp(hash, sr.hash, 16) && !sr.flags) {
		/* touched, not changed: remember the new size and time, so
		 * that the next run does not read it again */
		strbuf_release(&buf);
		return _kbx_cw_touch(y->w, key, (uint64_t)stp->st_size, mtime);
	}
	y->stats->sources_changed++;
	st = _kbx_cw_begin(y->w, key);
	if (st) {
		strbuf_release(&buf);
		return st;
	}
	struct kbx_chunk_sink sink = { y, sink_chunk, sink_note };
	y->source_path = shown;
	y->source_rel = rel;
	y->source_skipped = y->source_partial = 0;
	y->sink_status = KBX_OK;
	struct kbx_error perr = KBX_ERROR_INIT;
	if (kind == KBX_REG_ERRORS)
		st = _kbx_registry_parse_errors(shown, buf.buf ? buf.buf : "", buf.len, lang, &sink,
						&perr);
	else
		st = _kbx_registry_parse_markdown(shown, buf.buf ? buf.buf : "", buf.len, type,
						  root != NULL, &sink, &perr);
	strbuf_release(&buf);
	if (y->sink_status) {
		return y->sink_status;
	}
	if (st == KBX_ERR_PARSE) {
		/* told through the sink; whatever it gave before is gone, as
		 * the file that gave it is */
		y->source_skipped = 1;
		st = KBX_OK;
	}
	if (st) {
		*y->err = perr;
		return st;
	}
	uint32_t flags = y->source_skipped || y->source_partial ? KBX_SOURCE_SKIPPED : 0;
	return _kbx_cw_end(y->w, (uint64_t)stp->st_size, mtime, hash, flags);
}

struct keyset {
	char **k;
	size_t n, a;
};

static int keyset_add(struct keyset *ks, const char *key)
{
	if (ks->n == ks->a) {
		size_t na = ks->a ? ks->a * 2 : 64;
		char **nk = realloc(ks->k, na * sizeof(*nk));
		if (!nk)
			return -1;
		ks->k = nk;
		ks->a = na;
	}
	ks->k[ks->n] = strdup(key);
	if (!ks->k[ks->n])
		return -1;
	ks->n++;
	return 0;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int keyset_has(const struct keyset *ks, const char *key)
{
	/* bsearch() and qsort() want a non-null base even for 0 items */
	return ks->n && bsearch(&key, ks->k, ks->n, sizeof(*ks->k), cmp_strp) != NULL;
}

static void keyset_release(struct keyset *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->k[i]);
	free(ks->k);
	memset(ks, 0, sizeof(*ks));
}

/* Walk a registry directory: every file below it, hidden ones excepted,
 * in byte order. */
static kbx_status_t walk_registry(struct sync *y, const char *root, const char *rel,
				  struct keyset *seen, int depth)
{
	struct strbuf dir = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	strbuf_addstr(&dir, root);
	if (*rel) {
		strbuf_addch(&dir, '/');
		strbuf_addstr(&dir, rel);
	}
	if (dir.failed)
		return _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
	if (depth > 64) {
		skip_note(y, dir.buf, "nested too deep (64 directories)", "too-deep");
		strbuf_release(&dir);
		return KBX_OK;
	}
	DIR *dh = opendir(dir.buf);
	if (!dh) {
		if (errno == ENOMEM)
			_kbx_nomem();   /* not unreadable: the run fails (index_txn) */
		char msg[300];
		snprintf(msg, sizeof(msg), "cannot open the directory: %s", strerror(errno));
		skip_note(y, dir.buf, msg, "unreadable");
		strbuf_release(&dir);
		return KBX_OK;
	}
	char **names = NULL;
	size_t n = 0, a = 0;
	struct dirent *de;
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == a) {
			a = a ? a * 2 : 32;
			char **nn = realloc(names, a * sizeof(*nn));
			if (!nn)
				break;
			names = nn;
		}
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(dh);
	if (n)
		qsort(names, n, sizeof(*names), cmp_strp);
	struct strbuf r = STRBUF_INIT, abs = STRBUF_INIT, key = STRBUF_INIT;
	for (size_t i = 0; i < n && !st; i++) {
		strbuf_reset(&r);
		if (*rel) {
			strbuf_addstr(&r, rel);
			strbuf_addch(&r, '/');
		}
		strbuf_addstr(&r, names[i]);
		strbuf_reset(&abs);
		strbuf_addf(&abs, "%s/%s", root, r.buf);
		if (r.failed || abs.failed) {
			st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		struct stat sb;
		if (lstat(abs.buf, &sb) < 0)
			continue;
		if (S_ISDIR(sb.st_mode)) {
			st = walk_registry(y, root, r.buf, seen, depth + 1);
			continue;
		}
		if (!S_ISREG(sb.st_mode))
			continue;
		const char *lang = NULL;
		size_t lang_len = 0;
		int type = 0;
		int kind = _kbx_registry_classify(r.buf, &lang, &lang_len, &type);
		if (kind == KBX_REG_NONE)
			continue;
		char langbuf[64] = "";
		if (lang && lang_len < sizeof(langbuf)) {
			memcpy(langbuf, lang, lang_len);
			langbuf[lang_len] = '\0';
		}
		strbuf_reset(&key);
		strbuf_addf(&key, "r:%s", abs.buf);
		if (key.failed || keyset_add(seen, key.buf)) {
			st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		st = parse_source(y, key.buf, abs.buf, r.buf, NULL, abs.buf, kind, langbuf, type,
				  &sb);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	strbuf_release(&r);
	strbuf_release(&abs);
	strbuf_release(&key);
	strbuf_release(&dir);
	return st;
}

static void list_registry(void *data, const char *path, int64_t added)
{
	(void)added;
	keyset_add(data, path);
}

/* Sources with the prefix that the run did not see: their files are gone. */
static kbx_status_t remove_unseen(struct sync *y, const char *prefix, struct keyset *seen)
{
	struct kbx_store *s = y->s;
	MDB_cursor *c;
	MDB_val k, d;
	struct keyset gone = { 0 };
	size_t pl = strlen(prefix);
	if (seen->n)
		qsort(seen->k, seen->n, sizeof(*seen->k), cmp_strp);
	int rc = mdb_cursor_open(s->wtxn, s->sources, &c);
	if (rc)
		return _kbx_fail_mdb(y->err, rc, "cannot read the sources");
	k.mv_data = (void *)prefix;
	k.mv_size = pl;
	struct strbuf key = STRBUF_INIT;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
	     !rc && k.mv_size >= pl && !memcmp(k.mv_data, prefix, pl);
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		strbuf_reset(&key);
		strbuf_add(&key, k.mv_data, k.mv_size);
		if (!key.failed && !keyset_has(seen, key.buf))
			keyset_add(&gone, key.buf);
	}
	mdb_cursor_close(c);
	strbuf_release(&key);
	kbx_status_t st = KBX_OK;
	for (size_t i = 0; i < gone.n && !st; i++) {
		st = _kbx_cw_remove_source(y->w, gone.k[i]);
		y->stats->sources_removed++;
	}
	keyset_release(&gone);
	return st;
}

static kbx_status_t sync_registries(struct sync *y)
{
	struct keyset regs = { 0 }, seen = { 0 };
	kbx_status_t st = kbx_registry_list(y->s, list_registry, &regs, y->err);
	if (st)
		return st;
	for (size_t i = 0; i < regs.n && !st; i++) {
		struct stat sb;
		if (stat(regs.k[i], &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			char msg[300];
			snprintf(msg, sizeof(msg),
				 "the registry is not a directory any more (%s): 'kbx registry remove' it or restore it; its entries stay as they were",
				 strerror(errno ? errno : ENOTDIR));
			skip_note(y, regs.k[i], msg, "registry-missing");
			/* keep its sources: mark them seen */
			struct strbuf pre = STRBUF_INIT;
			strbuf_addf(&pre, "r:%s/", regs.k[i]);
			MDB_cursor *c;
			MDB_val k, d;
			if (!pre.failed && mdb_cursor_open(y->s->wtxn, y->s->sources, &c) == 0) {
				k.mv_data = pre.buf;
				k.mv_size = pre.len;
				for (int rc = mdb_cursor_get(c, &k, &d, MDB_SET_RANGE);
				     !rc && k.mv_size >= pre.len && !memcmp(k.mv_data, pre.buf, pre.len);
				     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
					char *kk = strndup(k.mv_data, k.mv_size);
					if (kk) {
						keyset_add(&seen, kk);
						free(kk);
					}
				}
				mdb_cursor_close(c);
			}
			strbuf_release(&pre);
			continue;
		}
		st = walk_registry(y, regs.k[i], "", &seen, 0);
	}
	if (!st)
		st = remove_unseen(y, "r:", &seen);
	keyset_release(&regs);
	keyset_release(&seen);
	return st;
}

/* The repository's Markdown, listed once per run by kbx_search_index. */
static kbx_status_t sync_markdown(struct sync *y, const struct _kbx_scan *scan)
{
	struct kbx_store *s = y->s;
	struct keyset seen = { 0 };
	kbx_status_t st = KBX_OK;
	struct strbuf key = STRBUF_INIT, abs = STRBUF_INIT;
	for (size_t i = 0; i < scan->n && !st; i++) {
		const char *p = scan->files[i].path;
		strbuf_reset(&key);
		strbuf_addf(&key, "m:%s", p);
		strbuf_reset(&abs);
		strbuf_addf(&abs, "%s/%s", s->root, p);
		if (key.failed || abs.failed || keyset_add(&seen, key.buf)) {
			st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		struct stat sb;
		if (stat(abs.buf, &sb) < 0)
			continue;
		st = parse_source(y, key.buf, p, NULL, s->root, abs.buf, KBX_REG_MARKDOWN, "",
				  KBX_CHUNK_DOC, &sb);
	}
	if (!st)
		st = remove_unseen(y, "m:", &seen);
	strbuf_release(&key);
	strbuf_release(&abs);
	keyset_release(&seen);
	return st;
}

/* ---- vectors ---- */

/* what a leaning vector's key has in place of the embedder's identity */
#define DOC_LEAN_SALT 0x646f632d6c65616eull   /* "doc-lean" */
/* and the hash of the name it leans on, with this seed */
#define NAME_LEAN_SEED 0x6e616d652d6c6eull    /* "name-ln" */

void _kbx_vcache_key(unsigned char out[KBX_VCACHE_KEY_LEN], uint64_t ident, int type,
		     const char *text, size_t len, const char *title)
{
	const char *name = _kbx_code_name(type, title);
	if (_kbx_code_doc_leans(type, text, len))
		ident ^= DOC_LEAN_SALT;
	if (name)
		ident ^= XXH3_64bits_withSeed(name, strlen(name), NAME_LEAN_SEED);
	for (int i = 0; i < 8; i++)
		out[i] = (unsigned char)(ident >> (56 - 8 * i));
	_kbx_hash128(text, len, out + 8);
}

struct pending {
	const char **texts;
	const char **titles;
	size_t *lens;
	unsigned char (*keys)[24];
	unsigned char *types;
	size_t n;
};

static kbx_status_t embed_pending(struct sync *y, kbx_embedder_t *e, struct pending *p)
{
	if (!p->n)
		return KBX_OK;
	uint32_t dim = 0;
	float *vecs = NULL;
	uint64_t t0 = now_ns();
	/* http and command tell their dimension by a first answer */
	kbx_status_t st = _kbx_embedder_probe(e, &dim, y->err);
	if (!st) {
		vecs = malloc(p->n * dim * sizeof(float));
		if (!vecs)
			st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
	}
	uint64_t cpu0 = _kbx_thread_cpu_ns();
	if (!st)
		st = _kbx_embed_chunks(e, p->n, p->texts, p->lens, p->types, p->titles, dim, vecs,
				       y->err);
	y->stats->seconds_embed += (double)(now_ns() - t0) / 1e9;
	y->stats->cpu_embed += (double)(_kbx_thread_cpu_ns() - cpu0) / 1e9;
	for (size_t i = 0; i < p->n && !st; i++) {
		MDB_val k = { 24, p->keys[i] }, v = { dim * sizeof(float), vecs + i * dim };
		int rc = mdb_put(y->s->wtxn, y->s->vcache, &k, &v, 0);
		if (rc)
			st = _kbx_fail_mdb(y->err, _kbx_store_write_error(y->s, rc),
					   "cannot write the vector cache");
	}
	if (!st)
		y->stats->embedded += p->n;
	free(vecs);
	p->n = 0;
	return st;
}

/* Make sure chunks have a vector in the cache, for embedder e: the ids
 * given, or every chunk when ids is NULL. */
static kbx_status_t ensure_vectors(struct sync *y, kbx_embedder_t *e, const uint32_t *ids,
				   size_t nids)
{
	struct kbx_store *s = y->s;
	const char *ident = _kbx_embedder_identity(e);
	uint64_t ih = XXH3_64bits(ident, strlen(ident));
	struct pending p = { 0 };
	p.texts = malloc(EMBED_BATCH * sizeof(*p.texts));
	p.lens = malloc(EMBED_BATCH * sizeof(*p.lens));
	p.keys = malloc(EMBED_BATCH * sizeof(*p.keys));
	p.types = malloc(EMBED_BATCH * sizeof(*p.types));
	p.titles = malloc(EMBED_BATCH * sizeof(*p.titles));
	char **owned = calloc(EMBED_BATCH, sizeof(*owned));
	if (!p.texts || !p.lens || !p.keys || !p.types || !p.titles || !owned) {
		free(p.texts);
		free(p.titles);
		free(p.lens);
		free(p.keys);
		free(p.types);
		free(owned);
		return _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
	}
	MDB_cursor *c;
	MDB_val k, d;
	kbx_status_t st = KBX_OK;
	uint64_t total = 0, done = 0;
	size_t next_id = 0;
	struct textset seen = { NULL, 0, 0 };
	_kbx_meta_get_u64(s, s->wtxn, "chunks", &total);
	if (ids)
		total = nids;
	int rc = mdb_cursor_open(s->wtxn, s->chunks, &c);
	if (rc)
		st = _kbx_fail_mdb(y->err, rc, "cannot read the chunks");
	for (;;) {
		if (st)
			break;
		if (ids) {
			/* the chunks added: each looked up by id */
			unsigned char k4[4];
			if (next_id == nids)
				break;
			_kbx_put_u32(k4, ids[next_id++]);
			k.mv_data = k4;
			k.mv_size = 4;
			rc = mdb_cursor_get(c, &k, &d, MDB_SET_KEY);
			if (rc == MDB_NOTFOUND)
				continue;
		} else {
			rc = mdb_cursor_get(c, &k, &d, done ? MDB_NEXT : MDB_FIRST);
		}
		if (rc)
			break;
		struct _kbx_chunk_view v;
		if (_kbx_chunk_decode(d.mv_data, d.mv_size, &v)) {
			done++;
			continue;
		}
		unsigned char key[24];
		_kbx_vcache_key(key, ih, v.c.type, v.c.text, v.c.text_len, v.c.title);
		MDB_val ck = { 24, key }, cv;
		if (++done % 1024 == 0 && total > 1)
			progress(y, "embed", done, total);
		/* the same text as a chunk before it in this run: embedded
		 * once, for both */
		if (textset_has(&seen, key)) {
			y->stats->embed_repeated++;
			continue;
		}
		/* embedded by a worker that made the code chunks */
		if (y->fresh && textset_has(y->fresh, key)) {
			y->stats->embedded++;
			textset_add(&seen, key);
			continue;
		}
		if (mdb_get(s->wtxn, s->vcache, &ck, &cv) == 0) {
			y->stats->embed_cached++;
			continue;
		}
		/* the same text twice in one batch, when seen could not
		 * grow, is still embedded once */
		int again = 0;
		for (size_t i = 0; i < p.n; i++)
			if (!memcmp(p.keys[i], key, 24))
				again = 1;
		if (again) {
			y->stats->embed_repeated++;
			continue;
		}
		textset_add(&seen, key);
		/* copy the text, then its title: the cursor's page may move
		 * when the cache is written */
		const char *title = v.c.title ? v.c.title : "";
		size_t tl = strlen(title);
		free(owned[p.n]);
		owned[p.n] = malloc(v.c.text_len + tl + 2);
		if (!owned[p.n]) {
			st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
			break;
		}
		memcpy(owned[p.n], v.c.text, v.c.text_len);
		owned[p.n][v.c.text_len] = '\0';
		memcpy(owned[p.n] + v.c.text_len + 1, title, tl + 1);
		p.texts[p.n] = owned[p.n];
		p.titles[p.n] = owned[p.n] + v.c.text_len + 1;
		p.lens[p.n] = v.c.text_len;
		p.types[p.n] = (unsigned char)v.c.type;
		memcpy(p.keys[p.n], key, 24);
		p.n++;
		if (p.n == EMBED_BATCH) {
			/* writing the cache invalidates the chunk cursor's
			 * position only in another table: LMDB cursors survive
			 * writes to other databases of the same transaction */
			st = embed_pending(y, e, &p);
		}
	}
	if (rc && rc != MDB_NOTFOUND && !st)
		st = _kbx_fail_mdb(y->err, rc, "cannot read the chunks");
	if (c)
		mdb_cursor_close(c);
	if (!st)
		st = embed_pending(y, e, &p);
	for (size_t i = 0; i < EMBED_BATCH; i++)
		free(owned[i]);
	free(owned);
	free(p.titles);
	free(p.texts);
	free(p.lens);
	free(p.keys);
	free(p.types);
	free(seen.k);
	return st;
}

char *kbx_search_vector_path(kbx_store_t *s)
{
	return _kbx_path_concat(s->dir, "vectors.kbxv");
}

/* Pick the index for n vectors. */
static void choose_spec(const struct kbx_search_index_opts *o, uint64_t n, uint32_t dim,
			struct kbx_vector_spec *spec, const struct kbx_vector_ops *ops)
{
	memset(spec, 0, sizeof(*spec));
	spec->metric = KBX_VEC_IP;
	spec->dim = dim;
	const char *kind = o->index_kind && *o->index_kind ? o->index_kind : "auto";
	if (!strcmp(kind, "auto")) {
#ifdef KBX_VECTOR_HAS_CHOOSE
		if (ops->size >= offsetof(struct kbx_vector_ops, choose) + sizeof(ops->choose) &&
		    ops->choose) {
			ops->choose(n, dim, spec);
			spec->metric = KBX_VEC_IP;
		} else
#endif
		{
			(void)ops;
			spec->kind = KBX_VEC_FLAT;
		}
	} else if (!strcmp(kind, "hnsw")) {
		spec->kind = KBX_VEC_HNSW;
		spec->hnsw_m = o->hnsw_m;
	} else if (!strcmp(kind, "ivf") && n < 39) {
		/* FAISS trains a list on 39 vectors at least: too few to
		 * group, and exact search is as fast for so few */
		spec->kind = KBX_VEC_FLAT;
	} else if (!strcmp(kind, "ivf")) {
		spec->kind = KBX_VEC_IVF;
		uint64_t nl = o->ivf_nlist;
		if (!nl) {
			nl = 1;
			while (nl * nl < n)
				nl *= 2;
		}
		/* FAISS wants 39 training points per list */
		while (nl > 1 && nl * 39 > n)
			nl /= 2;
		spec->ivf_nlist = (uint32_t)nl;
	} else {
		spec->kind = KBX_VEC_FLAT;
	}
}

void _kbx_vector_kind_name(int kind, uint32_t param, char *out, size_t outsz)
{
	switch (kind) {
	case KBX_VEC_FLAT: snprintf(out, outsz, "flat"); break;
	case KBX_VEC_HNSW: snprintf(out, outsz, "hnsw%u", param); break;
	case KBX_VEC_IVF: snprintf(out, outsz, "ivf%u", param); break;
	default: snprintf(out, outsz, "other"); break;
	}
}

/* No vector file, nor a new one a killed run left beside it. */
static kbx_status_t remove_vector_files(const char *path, struct kbx_error *err)
{
	struct strbuf next = STRBUF_INIT;
	strbuf_addf(&next, "%s.new", path);
	if (next.failed)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	kbx_status_t st = KBX_OK;
	if (unlink(path) < 0 && errno != ENOENT)
		st = _kbx_fail(err, KBX_ERR_IO, "cannot remove '%s': %s", path, strerror(errno));
	else if (unlink(next.buf) < 0 && errno != ENOENT)
		st = _kbx_fail(err, KBX_ERR_IO, "cannot remove '%s': %s", next.buf, strerror(errno));
	strbuf_release(&next);
	return st;
}

/* What a failure of the vector module is: it says KBX_VEC_ERR_IO for any
 * file it cannot write, and its message says why, as strerror() words
 * it; a full disk or a file size limit is KBX_ERR_FULL, as for the
 * store (exit status 7). */
static kbx_status_t vector_write_status(int vr, const char *msg)
{
	if (vr == KBX_VEC_ERR_NOMEM)
		return KBX_ERR_NOMEM;
	if (vr == KBX_VEC_ERR_IO && (strstr(msg, strerror(ENOSPC)) || strstr(msg, strerror(EFBIG)) ||
				     strstr(msg, strerror(EDQUOT))))
		return KBX_ERR_FULL;
	return KBX_ERR_IO;
}

static kbx_status_t build_vectors(struct sync *y, const char *ident, uint64_t generation)
{
	struct kbx_store *s = y->s;
	const struct kbx_vector_ops *ops;
	char msg[512] = "";
	uint64_t t0 = now_ns(), cpu0 = _kbx_process_cpu_ns();
	MDB_txn *txn;
	if (s->map_lost)
		return _kbx_fail(y->err, KBX_ERR_NOMEM, "the store's map is lost: see ulimit -v");
	int rc = mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn);
	if (rc)
		return _kbx_fail_mdb(y->err, rc, "cannot begin a read transaction");
	uint64_t ih = XXH3_64bits(ident, strlen(ident));
	uint64_t total = 0;
	_kbx_meta_get_u64(s, txn, "chunks", &total);
	if (!total) {
		/* nothing to search: no file, and no module to load for it */
		mdb_txn_abort(txn);
		char *path = kbx_search_vector_path(s);
		kbx_status_t st = KBX_OK;
		if (!path)
			return _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
		st = remove_vector_files(path, y->err);
		free(path);
		y->stats->vectors = 0;
		y->stats->vectors_rebuilt = !st;
		return st;
	}
	if ((rc = _kbx_vector_load(&ops, msg, sizeof(msg)))) {
		mdb_txn_abort(txn);
		return _kbx_fail(y->err, rc == KBX_VEC_ERR_NOMEM ? KBX_ERR_NOMEM : KBX_ERR_IO,
				 "cannot build the vector index: %s", msg);
	}
	int64_t *ids = malloc((total + 1) * sizeof(*ids));
	float *vecs = NULL;
	uint32_t dim = 0;
	size_t n = 0;
	kbx_status_t st = KBX_OK;
	MDB_cursor *c = NULL;
	MDB_val k, d;
	if (!ids)
		st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
	if (!st && (rc = mdb_cursor_open(txn, s->chunks, &c)))
		st = _kbx_fail_mdb(y->err, rc, "cannot read the chunks");
	for (rc = st ? MDB_NOTFOUND : mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc && !st;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct _kbx_chunk_view v;
		if (k.mv_size != 4 || _kbx_chunk_decode(d.mv_data, d.mv_size, &v))
			continue;
		unsigned char key[24];
		_kbx_vcache_key(key, ih, v.c.type, v.c.text, v.c.text_len, v.c.title);
		MDB_val ck = { 24, key }, cv;
		if (mdb_get(txn, s->vcache, &ck, &cv))
			continue;   /* cannot happen after ensure_vectors */
		uint32_t vd = (uint32_t)(cv.mv_size / sizeof(float));
		if (!dim) {
			dim = vd;
			vecs = malloc((total + 1) * (size_t)dim * sizeof(float));
			if (!vecs) {
				st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory for %llu vectors",
					       (unsigned long long)total);
				break;
			}
		}
		if (vd != dim || n >= total + 1)
			continue;
		ids[n] = _kbx_get_u32(k.mv_data);
		memcpy(vecs + n * dim, cv.mv_data, dim * sizeof(float));
		n++;
	}
	if (c)
		mdb_cursor_close(c);
	mdb_txn_abort(txn);

	char *path = kbx_search_vector_path(s);
	if (!st && !path)
		st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
	kbx_vector_index_t *ix = NULL;
	if (!st && n == 0) {
		/* nothing to search: no file, and searches say so */
		st = remove_vector_files(path, y->err);
		y->stats->vectors = 0;
		y->stats->vectors_rebuilt = !st;
		goto out;
	}
	if (!st) {
		struct kbx_vector_spec spec;
		choose_spec(y->o, n, dim, &spec, ops);
		_kbx_vector_kind_name(spec.kind,
				      spec.kind == KBX_VEC_HNSW ? (spec.hnsw_m ? spec.hnsw_m : 32)
								: spec.ivf_nlist,
				      y->stats->vector_kind, sizeof(y->stats->vector_kind));
		progress(y, "vectors", 0, 1);
		int vr = ops->create(&spec, &ix, msg, sizeof(msg));
		if (!vr && spec.kind == KBX_VEC_IVF) {
			/* train on a sample spread over the collection */
			size_t want = (size_t)spec.ivf_nlist * 64;
			if (want > n)
				want = n;
			size_t step = n / want;
			float *sample = malloc(want * (size_t)dim * sizeof(float));
			if (!sample) {
				vr = KBX_VEC_ERR_NOMEM;
				snprintf(msg, sizeof(msg), "out of memory");
			}
			else {
				for (size_t i = 0; i < want; i++)
					memcpy(sample + i * dim, vecs + i * step * dim, dim * sizeof(float));
				vr = ops->train(ix, want, dim, sample, msg, sizeof(msg));
				free(sample);
			}
		}
		if (!vr)
			vr = ops->add(ix, n, dim, vecs, ids, msg, sizeof(msg));
		/* beside the current file: mark_vectors_built records it,
		 * then renames it into place */
		struct strbuf next = STRBUF_INIT;
		strbuf_addf(&next, "%s.new", path);
		if (!vr && next.failed) {
			vr = KBX_VEC_ERR_NOMEM;
			snprintf(msg, sizeof(msg), "out of memory");
		}
		if (!vr)
			vr = ops->save(ix, next.buf, generation, msg, sizeof(msg));
		strbuf_release(&next);
		if (vr)
			st = _kbx_fail(y->err, vector_write_status(vr, msg),
				       "cannot build the vector index '%s': %s", path, msg);
		progress(y, "vectors", 1, 1);
		/* the summary names only a file that was written */
		if (!st) {
			y->stats->vectors = n;
			y->stats->vectors_rebuilt = 1;
		}
	}
out:
	if (ix)
		ops->free_index(ix);
	free(path);
	free(ids);
	free(vecs);
	y->stats->seconds_vectors = (double)(now_ns() - t0) / 1e9;
	y->stats->cpu_vectors = (double)(_kbx_process_cpu_ns() - cpu0) / 1e9;
	return st;
}

int _kbx_vector_file_stamp(const char *path, char *out, size_t outsz)
{
	struct stat sb;
	if (lstat(path, &sb) < 0)
		return -1;
	if (!S_ISREG(sb.st_mode)) {
		errno = S_ISLNK(sb.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	/* what a rename keeps: the file is stamped before it is renamed
	 * into place (mark_vectors_built) */
	snprintf(out, outsz, "%llu:%lld.%09ld:%llu:%llu", (unsigned long long)sb.st_size,
		 (long long)sb.st_mtim.tv_sec, (long)sb.st_mtim.tv_nsec,
		 (unsigned long long)sb.st_ino, (unsigned long long)sb.st_dev);
	return 0;
}

static int stamp_is(struct kbx_store *s, MDB_txn *txn, const char *key, const char *now)
{
	char then[128];
	return _kbx_meta_get_str(s, txn, key, then, sizeof(then)) == KBX_OK && !strcmp(now, then);
}

static int stamp_recorded(struct kbx_store *s, MDB_txn *txn, const char *now)
{
	/* the current file, or the next one while it is put in place
	 * (mark_vectors_built) */
	return stamp_is(s, txn, "vector_file", now) || stamp_is(s, txn, "vector_file_next", now);
}

/*
 * Did kbx write the vector file at path?  Its stamp must be one the store
 * records.  A reader's snapshot may be older than the file: a rebuild can
 * record the next file, rename it into place and record it as current
 * between the reader's snapshot and its look at the file.  So a stamp the
 * snapshot does not know is looked up again in the latest committed state,
 * with the file stamped again (it may have been replaced meanwhile).
 * Whether the file's vectors fit the snapshot is the generation's question
 * (kbx_search), not this one.
 */
int _kbx_vector_file_recorded(struct kbx_store *s, MDB_txn *txn, const char *path)
{
	char now[128];
	if (_kbx_vector_file_stamp(path, now, sizeof(now)))
		return -1;
	if (stamp_recorded(s, txn, now))
		return 1;
	for (int tries = 0; tries < 3; tries++) {
		MDB_txn *latest = NULL;
		if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &latest))
			return 0;
		int ok = stamp_recorded(s, latest, now);
		mdb_txn_abort(latest);
		if (ok)
			return 1;
		char again[128];
		if (_kbx_vector_file_stamp(path, again, sizeof(again)))
			return -1;
		if (!strcmp(again, now))
			return 0;
		memcpy(now, again, sizeof(now));
	}
	return 0;
}

/* Is the vector file the one the last build wrote, for this embedder?
 * (It may be older than the chunks: those added since are in vdelta.)
 * Its generation is in the meta table ("vectors"), so that a run that
 * changes nothing does not load the vector module. */
static int vectors_current(struct kbx_store *s, MDB_txn *txn, const char *ident,
			   const char *stored_ident)
{
	if (!stored_ident || strcmp(ident, stored_ident))
		return 0;
	uint64_t built = 0;
	if (_kbx_meta_get_u64(s, txn, "vectors", &built))
		return 0;
	char *path = kbx_search_vector_path(s);
	uint64_t nchunks = 0;
	_kbx_meta_get_u64(s, txn, "chunks", &nchunks);
	/* the file recorded as the current one: one that is only the next
	 * is of a run killed before it recorded the file, and "vectors"
	 * is not its generation; it is built again */
	char now[128];
	int ok = -1;
	if (path && !_kbx_vector_file_stamp(path, now, sizeof(now)))
		ok = stamp_is(s, txn, "vector_file", now);
	if (ok < 0)
		/* no chunks: no file is right */
		ok = path && !nchunks && errno == ENOENT;
	free(path);
	return ok;
}


/*
 * The cache keeps every vector it is given: an edit leaves the vector of
 * the text it replaced behind, and another embedder's vectors stay for a
 * switch back.  So that it does not grow without end, once it holds more
 * than twice as many vectors as there are chunks (and CACHE_SLACK more),
 * those that no chunk has now, for embedder e, are dropped.  A key does
 * not tell its embedder: another embedder's vectors go too, and a switch
 * back embeds again.  Readers of older snapshots are not affected.
 */
static kbx_status_t prune_cache(struct sync *y, kbx_embedder_t *e)
{
	struct kbx_store *s = y->s;
	MDB_stat ms;
	uint64_t nchunks = 0, nomem0 = _kbx_nomem_count;
	_kbx_meta_get_u64(s, s->wtxn, "chunks", &nchunks);
	if (mdb_stat(s->wtxn, s->vcache, &ms) || ms.ms_entries <= 2 * nchunks + CACHE_SLACK)
		return KBX_OK;
	const char *ident = _kbx_embedder_identity(e);
	uint64_t ih = XXH3_64bits(ident, strlen(ident));
	struct textset keep = { NULL, 0, 0 };
	MDB_cursor *c = NULL;
	MDB_val k, d;
	kbx_status_t st = KBX_OK;
	int rc = mdb_cursor_open(s->wtxn, s->chunks, &c);
	for (rc = rc ? rc : mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct _kbx_chunk_view v;
		unsigned char key[KBX_VCACHE_KEY_LEN];
		if (k.mv_size != 4 || _kbx_chunk_decode(d.mv_data, d.mv_size, &v))
			continue;
		_kbx_vcache_key(key, ih, v.c.type, v.c.text, v.c.text_len, v.c.title);
		textset_add(&keep, key);
	}
	if (c)
		mdb_cursor_close(c);
	c = NULL;
	if (rc != MDB_NOTFOUND) {
		st = _kbx_fail_mdb(y->err, rc, "cannot read the chunks");
		goto out;
	}
	/* a key not remembered for want of memory would lose its vector:
	 * nothing is dropped (and the run ends out of memory) */
	if (_kbx_nomem_count != nomem0)
		goto out;
	rc = mdb_cursor_open(s->wtxn, s->vcache, &c);
	for (rc = rc ? rc : mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		if (k.mv_size == KBX_VCACHE_KEY_LEN && textset_has(&keep, k.mv_data))
			continue;
		/* the cursor is then on the next vector, which MDB_NEXT gives */
		rc = mdb_cursor_del(c, 0);
		if (rc)
			break;
		y->stats->cache_pruned++;
	}
	if (rc != MDB_NOTFOUND)
		st = _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
				   "cannot drop old vectors from the cache");
out:
	if (c)
		mdb_cursor_close(c);
	free(keep.k);
	return st;
}

/* Enter the chunks added into vdelta (their vcache keys), and count it. */
static kbx_status_t add_to_delta(struct sync *y, kbx_embedder_t *e, const uint32_t *ids,
				 size_t nids, uint64_t *count)
{
	struct kbx_store *s = y->s;
	const char *ident = _kbx_embedder_identity(e);
	uint64_t ih = XXH3_64bits(ident, strlen(ident));
	for (size_t i = 0; i < nids; i++) {
		struct _kbx_chunk_view v;
		if (_kbx_chunk_get(s, s->wtxn, ids[i], &v))
			continue;
		unsigned char k4[4], key[24];
		_kbx_put_u32(k4, ids[i]);
		_kbx_vcache_key(key, ih, v.c.type, v.c.text, v.c.text_len, v.c.title);
		MDB_val k = { 4, k4 }, d = { 24, key };
		int rc = mdb_put(s->wtxn, s->vdelta, &k, &d, 0);
		if (rc)
			return _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
					     "cannot write the vector delta");
	}
	MDB_stat ms;
	*count = mdb_stat(s->wtxn, s->vdelta, &ms) == 0 ? ms.ms_entries : 0;
	return KBX_OK;
}

/* Does the store hold a source of a part that is not in drop? */
static int other_sources(struct kbx_store *s, unsigned drop)
{
	static const struct {
		const char *prefix;
		unsigned part;
	} kinds[] = {
		{ "c:", KBX_SEARCH_PART_CODE },
		{ "m:", KBX_SEARCH_PART_REGISTRY },
		{ "r:", KBX_SEARCH_PART_REGISTRY },
	};
	MDB_cursor *c;
	int found = 0;
	if (mdb_cursor_open(s->wtxn, s->sources, &c))
		return 1;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !found; i++) {
		MDB_val k = { 2, (void *)kinds[i].prefix }, d;
		found = !(drop & kinds[i].part) && !mdb_cursor_get(c, &k, &d, MDB_SET_RANGE) &&
			k.mv_size >= 2 && !memcmp(k.mv_data, kinds[i].prefix, 2);
	}
	mdb_cursor_close(c);
	return found;
}

/* A rebuild: the chunks of the parts in drop go, in the run's
 * transaction, and the sync that follows finds every source new.  When
 * no other part has chunks, the tables are dropped whole; else the
 * part's sources go one by one. */
static kbx_status_t drop_parts(struct sync *y, unsigned drop)
{
	struct kbx_store *s = y->s;
	struct keyset none = { 0 };
	kbx_status_t st = KBX_OK;
	if (!other_sources(s, drop)) {
		uint64_t n = 0;
		MDB_stat ms;
		_kbx_meta_get_u64(s, s->wtxn, "chunks", &n);
		if (mdb_stat(s->wtxn, s->sources, &ms) == 0)
			y->stats->sources_removed += ms.ms_entries;
		int rc = _kbx_store_clear(s, KBX_CLEAR_SEARCH);
		if (rc)
			return _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
					     "cannot drop the search index");
		y->chunks_dropped = n;
		return KBX_OK;
	}
	if (drop & KBX_SEARCH_PART_CODE)
		st = remove_unseen(y, "c:", &none);
	if (!st && (drop & KBX_SEARCH_PART_REGISTRY))
		st = remove_unseen(y, "r:", &none);
	if (!st && (drop & KBX_SEARCH_PART_REGISTRY))
		st = remove_unseen(y, "m:", &none);
	return st;
}

/* Which parts a run makes again from nothing: those asked for by
 * --rebuild, and the code chunks that a rebuild of the graph left to be
 * made again (KBX_META_REBUILD_CODE_CHUNKS), whose mark goes with them. */
static kbx_status_t rebuild_parts(struct sync *y, unsigned parts, unsigned *drop)
{
	struct kbx_store *s = y->s;
	uint64_t mark;
	*drop = y->o->rebuild ? parts : 0;
	if (!(parts & KBX_SEARCH_PART_CODE))
		return KBX_OK;
	if (_kbx_meta_get_u64(s, s->wtxn, KBX_META_REBUILD_CODE_CHUNKS, &mark) != KBX_NOT_FOUND)
		*drop |= KBX_SEARCH_PART_CODE;
	/* made another way by an older kbx: made again (none yet: nothing
	 * to make again) */
	uint64_t format = 1, ncode = 0;
	_kbx_meta_get_u64(s, s->wtxn, KBX_META_CODE_CHUNKS_FORMAT, &format);
	_kbx_meta_get_u64(s, s->wtxn, "chunks.code", &ncode);
	if (format != KBX_CODE_CHUNKS_FORMAT) {
		if (ncode) {
			*drop |= KBX_SEARCH_PART_CODE;
			y->stats->code_remade = 1;
		}
		int rc = _kbx_meta_put_u64(s, s->wtxn, KBX_META_CODE_CHUNKS_FORMAT,
					   KBX_CODE_CHUNKS_FORMAT);
		if (rc)
			return _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
					     "cannot write the index's metadata");
	}
	int rc = _kbx_meta_del(s, s->wtxn, KBX_META_REBUILD_CODE_CHUNKS);
	if (rc)
		return _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
				     "cannot write the index's metadata");
	return KBX_OK;
}

/* Vectors of another embedder: a new search generation, which no vector
 * file is stamped with, and the old file forgotten, so that no search
 * compares the new embedder's queries with the old one's vectors while
 * the new file is built. */
static kbx_status_t new_embedder(struct sync *y, uint64_t *gen)
{
	struct kbx_store *s = y->s;
	int rc = _kbx_store_clear(s, KBX_CLEAR_VECTORS);
	if (!rc)
		rc = _kbx_meta_put_u64(s, s->wtxn, "search_generation", *gen + 1);
	if (rc)
		return _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
				     "cannot write the vector identity");
	(*gen)++;
	return KBX_OK;
}

/* A run that did not commit added, removed and read again nothing: those
 * counts go; what it did all the same stays (the skipped files and the
 * warnings it told, the texts it sent to the embedder). */
static void uncount(struct kbx_search_index_stats *stats)
{
	stats->sources_changed = stats->sources_removed = 0;
	stats->chunks_added = stats->chunks_removed = 0;
	stats->cache_pruned = 0;
}

/* Every chunk's id, in order. */
static kbx_status_t all_chunk_ids(struct sync *y, uint32_t **out, size_t *n)
{
	struct kbx_store *s = y->s;
	MDB_cursor *c;
	MDB_val k, d;
	size_t alloc = 0;
	*out = NULL;
	*n = 0;
	int rc = mdb_cursor_open(s->wtxn, s->chunks, &c);
	if (rc)
		return _kbx_fail_mdb(y->err, rc, "cannot read the chunks");
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		if (k.mv_size != 4)
			continue;
		if (_kbx_grow((void **)out, &alloc, *n, sizeof(**out), 1024)) {
			mdb_cursor_close(c);
			return _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
		}
		(*out)[(*n)++] = _kbx_get_u32(k.mv_data);
	}
	mdb_cursor_close(c);
	if (rc != MDB_NOTFOUND)
		return _kbx_fail_mdb(y->err, rc, "cannot read the chunks");
	return KBX_OK;
}

/* How many chunks have no vector in the cache from the embedder of
 * identity ident, into *missing; an LMDB error when they cannot be read. */
static int count_unembedded(struct sync *y, const char *ident, uint64_t *missing)
{
	struct kbx_store *s = y->s;
	uint64_t ih = XXH3_64bits(ident, strlen(ident));
	MDB_cursor *c;
	MDB_val k, d;
	*missing = 0;
	int rc = mdb_cursor_open(s->wtxn, s->chunks, &c);
	if (rc)
		return rc;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc; rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
		struct _kbx_chunk_view v;
		if (k.mv_size != 4 || _kbx_chunk_decode(d.mv_data, d.mv_size, &v))
			continue;
		unsigned char key[KBX_VCACHE_KEY_LEN];
		_kbx_vcache_key(key, ih, v.c.type, v.c.text, v.c.text_len, v.c.title);
		MDB_val ck = { sizeof(key), key }, cv;
		if (mdb_get(s->wtxn, s->vcache, &ck, &cv))
			(*missing)++;
	}
	mdb_cursor_close(c);
	return rc == MDB_NOTFOUND ? 0 : rc;
}

/* Has the delta grown past what searches should compare one by one: a
 * tenth of the collection, and DELTA_MIN? */
static int delta_outgrown(struct kbx_store *s, uint64_t ndelta)
{
	uint64_t nchunks = 0;
	_kbx_meta_get_u64(s, s->wtxn, "chunks", &nchunks);
	uint64_t limit = nchunks / 10 > DELTA_MIN ? nchunks / 10 : DELTA_MIN;
	return ndelta > limit;
}

static kbx_status_t index_txn(struct sync *y, kbx_embedder_t *e, int *rebuild_vectors,
			      uint64_t *generation)
{
	struct kbx_store *s = y->s;
	const struct kbx_search_index_opts *o = y->o;
	unsigned parts = o->parts ? o->parts : KBX_SEARCH_PART_CODE | KBX_SEARCH_PART_REGISTRY;
	unsigned drop = 0;
	*rebuild_vectors = 0;   /* set below, and only for a run that commits */
	y->chunks_dropped = 0;
	/* allocations refused on this thread from here on (util.h) */
	unsigned long nomem0 = _kbx_nomem_count;
	kbx_status_t st = _kbx_store_write_begin(s, y->err);
	if (st)
		return st;
	y->w = _kbx_cw_new(s, s->wtxn, y->err);
	if (!y->w) {
		_kbx_store_write_abort(s);
		return y->err->status;
	}
	uint64_t t0 = now_ns(), cpu0 = _kbx_process_cpu_ns();
	st = rebuild_parts(y, parts, &drop);
	if (!st && drop)
		st = drop_parts(y, drop);
	if (!st && (parts & KBX_SEARCH_PART_CODE)) {
		if (o->code_chunks)
			st = sync_code(y);
		else {
			struct keyset none = { 0 };
			st = remove_unseen(y, "c:", &none);
		}
	}
	if (!st && (parts & KBX_SEARCH_PART_REGISTRY)) {
		progress(y, "registry", 0, 1);
		st = sync_registries(y);
		if (!st) {
			if (y->markdown)
				st = sync_markdown(y, y->markdown);
			else {
				struct keyset none = { 0 };
				st = remove_unseen(y, "m:", &none);
			}
		}
		progress(y, "registry", 1, 1);
	}
	uint64_t t1 = now_ns(), cpu1 = _kbx_process_cpu_ns();
	y->stats->seconds_chunk = (double)(t1 - t0) / 1e9;
	/* what the workers tokenized and embedded is cpu_tokenize's and
	 * cpu_embed's */
	y->stats->cpu_chunk = (double)(cpu1 - cpu0) / 1e9 - y->stats->cpu_tokenize -
			      y->stats->cpu_embed;
	if (!st)
		st = _kbx_cw_flush(y->w);
	y->stats->seconds_postings = (double)(now_ns() - t1) / 1e9;
	y->stats->cpu_postings = (double)(_kbx_process_cpu_ns() - cpu1) / 1e9;
	y->stats->chunks_added = _kbx_cw_added(y->w);
	y->stats->chunks_removed = _kbx_cw_removed(y->w) + y->chunks_dropped;

	/* vectors into the cache, in this transaction */
	char stored[256] = "";
	uint64_t gen = 0;
	if (!st) {
		_kbx_meta_get_str(s, s->wtxn, "vector_identity", stored, sizeof(stored));
		_kbx_meta_get_u64(s, s->wtxn, "search_generation", &gen);
	}
	int changed = y->stats->chunks_added || y->stats->chunks_removed;
	/* An http or command embedder knows its dimension, which is part of
	 * its identity, only once it has answered: ask it now when there
	 * may be something to embed.  When it does not answer and nothing
	 * changed, the vectors there are still right. */
	if (!st && !_kbx_embedder_dim(e)) {
		uint32_t dim;
		struct kbx_error perr = KBX_ERROR_INIT;
		kbx_status_t pst = _kbx_embedder_probe(e, &dim, &perr);
		/* provider and model, without the dimension */
		const char *id0 = _kbx_embedder_identity(e);
		const char *slash = strrchr(id0, '/'), *sslash = strrchr(stored, '/');
		size_t l0 = slash ? (size_t)(slash - id0) : strlen(id0);
		size_t ls = sslash ? (size_t)(sslash - stored) : strlen(stored);
		if (l0 != ls || strncmp(id0, stored, l0))
			changed = 1;   /* another embedder: its vectors are needed */
		if (pst && changed) {
			*y->err = perr;
			y->stats->warnings++;
			st = pst;
		} else if (pst) {
			*rebuild_vectors = 0;
			goto done;
		}
	}
	const char *ident = _kbx_embedder_identity(e);
	if (!st) {
		int same_embedder = !strcmp(ident, stored);
		int base_ok = vectors_current(s, s->wtxn, ident, stored);
		/* the index type asked for changed (search.index): build again */
		char kind_then[32];
		const char *kind_now = o->index_kind && *o->index_kind ? o->index_kind : "auto";
		if (_kbx_meta_get_str(s, s->wtxn, "vector_kind_setting", kind_then, sizeof(kind_then)) ==
			    KBX_OK && strcmp(kind_then, kind_now))
			base_ok = 0;
		/* chunks an earlier run committed without their vectors */
		uint64_t missing = 0;
		_kbx_meta_get_u64(s, s->wtxn, KBX_META_VECTORS_MISSING, &missing);
		if (changed || !base_ok || missing) {
			/* the same embedder: only the new chunks can lack a
			 * vector, and those an earlier run left without;
			 * another one: every chunk may */
			size_t nids = 0;
			const uint32_t *ids = _kbx_cw_added_ids(y->w, &nids);
			uint32_t *all = NULL;
			if (missing && same_embedder) {
				size_t nall = 0;
				st = all_chunk_ids(y, &all, &nall);
				ids = all;
				nids = nall;
			}
			kbx_status_t es = st ? st
				: same_embedder ? ensure_vectors(y, e, ids, nids)
						: ensure_vectors(y, e, NULL, 0);
			if (es) {
				/* keep the chunks; the vector index stays behind */
				if (!st)
					y->stats->warnings++;
				st = es;
			} else {
				int rc = _kbx_meta_put_str(s, s->wtxn, "vector_identity", _kbx_embedder_identity(e));
				if (!rc && missing)
					rc = _kbx_meta_del(s, s->wtxn, KBX_META_VECTORS_MISSING);
				if (rc)
					st = _kbx_fail_mdb(y->err, rc, "cannot write the vector identity");
				else if (!same_embedder)
					st = new_embedder(y, &gen);
			}
			/* The chunks added go to the delta that searches scan
			 * beside the vector file, in this transaction, so that
			 * they are searchable whether or not the file is built
			 * again.  It is, when the delta has grown past a tenth
			 * of the collection, the file is not right, or a
			 * rebuild dropped the chunks it holds (searches then
			 * find them all in the delta until it is). */
			uint64_t ndelta = 0;
			if (!st)
				st = add_to_delta(y, e, ids, nids, &ndelta);
			if (!st)
				st = prune_cache(y, e);
			free(all);
			*rebuild_vectors = !st && (drop || !base_ok || !same_embedder || missing ||
						   delta_outgrown(s, ndelta));
			y->stats->vector_delta = ndelta;
		} else {
			/* Nothing changed, and yet the delta may hold more than
			 * the file should leave to it: a run whose file could
			 * not be written (a full disk) left there every chunk
			 * it made.  The file is written now. */
			MDB_stat ms;
			uint64_t ndelta = mdb_stat(s->wtxn, s->vdelta, &ms) == 0 ? ms.ms_entries : 0;
			*rebuild_vectors = delta_outgrown(s, ndelta);
			y->stats->vector_delta = ndelta;
		}
	}
	/* An embedding that failed (IO, USAGE, PARSE from the provider)
	 * commits the chunks without their vectors.  Those of the vectors'
	 * embedder that have none are counted: searches say so, and the next
	 * run makes them and writes the vector file again. */
	if ((st == KBX_ERR_IO || st == KBX_ERR_USAGE || st == KBX_ERR_PARSE) && *stored) {
		uint64_t left = 0;
		int rc = count_unembedded(y, stored, &left);
		if (rc)
			st = _kbx_fail_mdb(y->err, rc, "cannot read the chunks");
		else if ((rc = left ? _kbx_meta_put_u64(s, s->wtxn, KBX_META_VECTORS_MISSING, left)
				    : _kbx_meta_del(s, s->wtxn, KBX_META_VECTORS_MISSING)))
			st = _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
					   "cannot write the index's metadata");
	}
done:
	_kbx_cw_free(y->w);
	y->w = NULL;
	if ((!st || st == KBX_ERR_IO || st == KBX_ERR_USAGE || st == KBX_ERR_PARSE) &&
	    _kbx_nomem_count != nomem0)
		st = _kbx_fail(y->err, KBX_ERR_NOMEM, "out of memory");
	/* an embedding failure (IO, USAGE, PARSE from the provider) still
	 * commits the chunks; anything else undoes the run */
	if (st && st != KBX_ERR_IO && st != KBX_ERR_USAGE && st != KBX_ERR_PARSE) {
		_kbx_store_write_abort(s);
		*rebuild_vectors = 0;
		uncount(y->stats);
		return st;
	}
	/* the chunks of a rebuild, without their vectors: the vector file
	 * holds none of them, and searches must say it is stale */
	if (st && drop) {
		int rc = _kbx_store_clear(s, KBX_CLEAR_VECTORS);
		if (rc) {
			_kbx_store_write_abort(s);
			*rebuild_vectors = 0;
			uncount(y->stats);
			return _kbx_fail_mdb(y->err, _kbx_store_write_error(s, rc),
					     "cannot write the index's metadata");
		}
	}
	struct kbx_error save = *y->err;
	kbx_status_t cst = _kbx_store_write_commit(s, y->err);
	if (cst) {
		*rebuild_vectors = 0;
		uncount(y->stats);
		return cst;
	}
	y->stats->committed = 1;
	*y->err = save;
	*generation = gen;
	return st;
}

/* One attempt of the run: the write transaction and what it remembers
 * of the vectors it made. */
static kbx_status_t index_once(struct sync *y, kbx_embedder_t *e, int *rebuild_vectors,
			       uint64_t *generation)
{
	struct textset fresh = { NULL, 0, 0 };
	y->embed = e;
	y->fresh = &fresh;
	y->fresh_dim = 0;
	kbx_status_t st = index_txn(y, e, rebuild_vectors, generation);
	y->fresh = NULL;
	free(fresh.k);
	return st;
}

/* The bytes of the files below dir (hidden ones left out), for sizing
 * the map before a run. */
static uint64_t tree_bytes(const char *dir, int depth)
{
	uint64_t total = 0;
	DIR *dh = depth < 64 ? opendir(dir) : NULL;
	if (!dh)
		return 0;
	struct dirent *de;
	struct strbuf p = STRBUF_INIT;
	while ((de = readdir(dh))) {
		if (de->d_name[0] == '.')
			continue;
		strbuf_reset(&p);
		strbuf_addf(&p, "%s/%s", dir, de->d_name);
		struct stat sb;
		if (p.failed || lstat(p.buf, &sb) < 0)
			continue;
		if (S_ISDIR(sb.st_mode))
			total += tree_bytes(p.buf, depth + 1);
		else if (S_ISREG(sb.st_mode))
			total += (uint64_t)sb.st_size;
	}
	closedir(dh);
	strbuf_release(&p);
	return total;
}

/* What a run may write, from the size of its inputs: chunks, postings,
 * cached vectors and the records around them take about ten times the
 * text they come from.  Asked for before the write transaction, so that
 * a first run over a large tree does not fill the map and start again
 * (each time from the beginning) while it doubles. */
static uint64_t estimate_growth(struct kbx_store *s, unsigned parts,
			       const struct _kbx_scan *markdown)
{
	uint64_t bytes = 0;
	MDB_txn *txn;
	if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))
		return 0;
	if (parts & KBX_SEARCH_PART_CODE) {
		MDB_cursor *c;
		MDB_val k, d;
		if (mdb_cursor_open(txn, s->files, &c) == 0) {
			for (int rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc;
			     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
				struct _kbx_file_rec fr;
				if (!_kbx_file_rec_decode(d.mv_data, d.mv_size, &fr))
					bytes += fr.size;
			}
			mdb_cursor_close(c);
		}
	}
	if (parts & KBX_SEARCH_PART_REGISTRY) {
		MDB_cursor *c;
		MDB_val k, d;
		if (mdb_cursor_open(txn, s->registries, &c) == 0) {
			for (int rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc;
			     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
				char *dir = strndup(k.mv_data, k.mv_size);
				if (dir)
					bytes += tree_bytes(dir, 0);
				free(dir);
			}
			mdb_cursor_close(c);
		}
	}
	mdb_txn_abort(txn);
	for (size_t i = 0; markdown && i < markdown->n; i++)
		bytes += markdown->files[i].size;
	return bytes * 10;
}

/* Remember which generation the vector file was built for. */
/* Put the meta string key = v (v NULL: delete key) in a transaction of
 * its own. */
static kbx_status_t put_meta_now(struct kbx_store *s, const char *key, const char *v,
				 struct kbx_error *err)
{
	kbx_status_t st = _kbx_store_write_begin(s, err);
	if (st)
		return st;
	int rc = v ? _kbx_meta_put_str(s, s->wtxn, key, v) : _kbx_meta_del(s, s->wtxn, key);
	if (rc) {
		_kbx_store_write_abort(s);
		return _kbx_fail_mdb(err, _kbx_store_write_error(s, rc), "cannot record the vector index");
	}
	return _kbx_store_write_commit(s, err);
}

/*
 * Put the vector file built beside the current one (path.new) into place.
 * A search reads a vector file only when its stamp is one the store
 * records (_kbx_vector_file_recorded): a checkout could have put any file
 * there.  So, in three steps, each of which a reader or a kill may see:
 *
 *   1. the new file's stamp is recorded as "vector_file_next" (the stamp
 *      is of what a rename keeps);
 *   2. the new file is renamed into place;
 *   3. the new file is recorded as the current one ("vector_file",
 *      "vectors", the delta emptied) and "vector_file_next" dropped.
 *
 * Before 2 the old file matches "vector_file", after it the new one
 * matches "vector_file_next", then "vector_file": a reader always has a
 * file it may read.  No new file (no vectors): no stamp at all.
 */
static kbx_status_t mark_vectors_built(struct kbx_store *s, uint64_t gen,
				       const struct kbx_search_index_stats *stats,
				       const char *kind_setting, struct kbx_error *err)
{
	char stamp[128] = "";
	char *path = kbx_search_vector_path(s);
	struct strbuf next = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	if (!path)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	strbuf_addf(&next, "%s.new", path);
	int have_next = !next.failed && !_kbx_vector_file_stamp(next.buf, stamp, sizeof(stamp));
	if (have_next)
		st = put_meta_now(s, "vector_file_next", stamp, err);
	if (!st && have_next && rename(next.buf, path) < 0)
		st = _kbx_fail(err, KBX_ERR_IO, "cannot rename '%s' to '%s': %s", next.buf, path,
			       strerror(errno));
	if (!st && !have_next)
		stamp[0] = '\0';
	free(path);
	strbuf_release(&next);
	if (st)
		return st;

	st = _kbx_store_write_begin(s, err);
	if (st)
		return st;
	int rc = _kbx_meta_put_u64(s, s->wtxn, "vectors", gen);
	if (!rc)
		rc = _kbx_meta_put_u64(s, s->wtxn, "vector_count", stats->vectors);
	/* the file holds every chunk there is: the delta starts again */
	if (!rc)
		rc = mdb_drop(s->wtxn, s->vdelta, 0);
	if (!rc)
		rc = _kbx_meta_put_str(s, s->wtxn, "vector_kind", stats->vector_kind);
	if (!rc)
		rc = _kbx_meta_put_str(s, s->wtxn, "vector_kind_setting", kind_setting);
	if (!rc)
		rc = _kbx_meta_put_str(s, s->wtxn, "vector_file", stamp);
	if (!rc)
		rc = _kbx_meta_del(s, s->wtxn, "vector_file_next");
	if (rc) {
		_kbx_store_write_abort(s);
		return _kbx_fail_mdb(err, _kbx_store_write_error(s, rc), "cannot record the vector index");
	}
	return _kbx_store_write_commit(s, err);
}

/* The notes of the scan of the repository's Markdown, passed on and
 * counted: the summary says how many files it left out. */
struct markdown_notes {
	void (*notify)(void *data, const struct kbx_note *note);
	void *data;
	uint64_t skipped;
};

static void markdown_note(void *data, const struct kbx_note *n)
{
	struct markdown_notes *m = data;
	if (n->kind == KBX_NOTE_SKIPPED)
		m->skipped++;
	if (m->notify)
		m->notify(m->data, n);
}

kbx_status_t kbx_search_index(kbx_store_t *s, const struct kbx_search_index_opts *o,
			      struct kbx_search_index_stats *stats, struct kbx_error *err)
{
	struct kbx_error local = KBX_ERROR_INIT;
	struct kbx_search_index_opts defaults = { 0 };
	/* memory refused after the commit (the vector file, the totals):
	 * the run says so, as one refused before it does (util.h) */
	unsigned long nomem0 = _kbx_nomem_count;
	if (!err)
		err = &local;
	if (!o) {
		defaults.markdown = 1;
		defaults.code_chunks = 1;
		o = &defaults;
	}
	if (!s->writable)
		return _kbx_fail(err, KBX_ERR_USAGE, "the index was opened read-only");
	memset(stats, 0, sizeof(*stats));
	uint64_t t0 = now_ns(), cpu0 = _kbx_process_cpu_ns();
	struct sync y = { 0 };
	y.s = s;
	y.o = o;
	y.stats = stats;
	y.err = err;

	struct kbx_embed_config builtin = { 0 };
	kbx_embedder_t *e = NULL;
	kbx_status_t st = _kbx_embedder_open(o->embed ? o->embed : &builtin, &e, err);
	if (st)
		return st;
	int rebuild = 0;
	uint64_t gen = 0;
	kbx_status_t ist;
	/* the repository's Markdown is listed once: for sizing the map,
	 * and for every attempt of the run */
	unsigned parts = o->parts ? o->parts : KBX_SEARCH_PART_CODE | KBX_SEARCH_PART_REGISTRY;
	struct _kbx_scan md = { 0 };
	struct markdown_notes mn = { o->notify, o->notify_data, 0 };
	if ((parts & KBX_SEARCH_PART_REGISTRY) && o->markdown) {
		uint64_t max = o->max_file_size ? o->max_file_size : DEFAULT_MAX_FILE_SIZE;
		st = _kbx_scan_markdown(s->root, max, markdown_note, &mn, &md, err);
		stats->docs_skipped = mn.skipped;
		if (st) {
			_kbx_scan_release(&md);
			_kbx_embedder_close(e);
			return st;
		}
		y.markdown = &md;
	}
	_kbx_store_reserve(s, estimate_growth(s, parts, y.markdown));
	if (s->map_lost) {
		/* a resize that failed left LMDB without a map: no
		 * transaction may begin (lib/store/store.c) */
		_kbx_embedder_close(e);
		_kbx_scan_release(&md);
		return _kbx_fail(err, KBX_ERR_NOMEM,
				 "the store's map could not grow (the address space ran out: see ulimit -v)");
	}
	for (int attempt = 0;; attempt++) {
		struct kbx_search_index_stats zero = { 0 };
		*stats = zero;
		stats->docs_skipped = mn.skipped;
		err->status = KBX_OK;
		err->msg[0] = '\0';
		ist = index_once(&y, e, &rebuild, &gen);
		if (ist != KBX_ERR_FULL || attempt >= 12 || !strstr(err->msg, mdb_strerror(MDB_MAP_FULL)))
			break;
		if (_kbx_store_grow(s, err))
			break;
	}
	/* rebuild is set only by a run that committed */
	if (rebuild) {
		kbx_status_t vst = build_vectors(&y, _kbx_embedder_identity(e), gen);
		if (!vst)
			vst = mark_vectors_built(s, gen, stats,
						 o->index_kind && *o->index_kind ? o->index_kind : "auto",
						 err);
		if (vst && !ist)
			ist = vst;
	}
	_kbx_embedder_close(e);
	_kbx_scan_release(&md);
	/* the totals after the run */
	MDB_txn *txn;
	if (!s->map_lost && mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn) == 0) {
		_kbx_meta_get_u64(s, txn, "chunks", &stats->chunks);
		for (int t = 1; t < KBX_CHUNK__COUNT; t++) {
			char key[32];
			snprintf(key, sizeof(key), "chunks.%s", kbx_chunk_type_str(t));
			_kbx_meta_get_u64(s, txn, key, &stats->chunks_by_type[t]);
		}
		_kbx_meta_get_u64(s, txn, "search_generation", &stats->generation);
		/* the vector index as it is now, whether this run built it,
		 * added to its delta, or failed to write it */
		struct kbx_search_info info;
		_kbx_search_info_txn(s, txn, &info);
		stats->vectors = info.vectors;
		stats->vector_delta = info.vector_delta;
		snprintf(stats->vector_kind, sizeof(stats->vector_kind), "%s",
			 info.vector_state ? info.vector_kind : "");
		mdb_txn_abort(txn);
	}
	stats->seconds = (double)(now_ns() - t0) / 1e9;
	stats->cpu = (double)(_kbx_process_cpu_ns() - cpu0) / 1e9;
	if (!ist && _kbx_nomem_count != nomem0)
		ist = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	return ist;
}
