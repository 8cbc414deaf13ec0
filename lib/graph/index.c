/*
 * kbx_index_run: bring the store up to date with the working tree.
 *
 *   1. scan      list the files to index (scan.c)
 *   2. compare   against the files table: new, changed (by size and
 *                mtime, then by content hash), unchanged, removed
 *   3. parse     changed and new files, on worker threads, in order
 *   4. write     each file's definitions (ids kept stable by canonical
 *                id), DEFINES edges, and its refs; collect the names whose
 *                definitions appeared or disappeared
 *   5. resolve   the edges of every parsed file, and of every unchanged
 *                file whose calls, bases or imports mention one of those
 *                names (resolve.c)
 *
 * All of it happens in one LMDB write transaction, committed at the end:
 * a reader sees the previous index or this one, never a mix.  When the
 * map fills up, the run is abandoned, the map doubled, and the run done
 * again.
 *
 * --rebuild drops the graph in that transaction and builds it again,
 * but leaves the search index alone: lib/search/sync.c replaces it in a
 * transaction of its own, after this one.  Between the two commits a
 * reader sees the new graph and the old chunks.  Those name definitions
 * by canonical id and by node id, and a rebuild gives every definition
 * the node id it had (see id_before), as an ordinary run does: a search
 * scoped by the new graph (kbx search --within) still finds their old
 * chunks, and a hit for a definition that the rebuild removed prints
 * its old path and lines, as the old index had them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "graph/graph.h"
#include "lang/grammars.h"

#define DEFAULT_MAX_FILE_SIZE (1u << 20)
#define DEFAULT_PARSE_TIMEOUT_US 10000000ull
#define WINDOW 256

enum job_state { JOB_PENDING, JOB_DONE };

struct job {
	const struct _kbx_scan_file *f;
	/* by the path; a header's by its text too (_kbx_lang_for_text) */
	const struct kbx_lang *lang;
	int has_old;
	int old_lang;           /* the language the index has for it */
	unsigned char old_hash[16];
	/* results */
	int state;
	int unchanged;          /* same content as indexed */
	const char *skip;       /* why it was skipped, or NULL */
	int nomem;              /* memory ran out reading or parsing it: the run fails */
	char skip_buf[160];
	unsigned char hash[16];
	struct kbx_extract x;
	uint64_t cpu_ns;        /* of the worker, for this file */
};

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *jobs;
	size_t njobs, next, consumed;
	const char *root;
	uint64_t timeout_us;    /* of the parsing thread's CPU time */
	uint64_t max_size;
	const struct kbx_header_langs *headers;
	struct kbx_cpu_watch watch;
};

static int looks_binary(const char *buf, size_t len)
{
	size_t n = len < 8000 ? len : 8000;
	return memchr(buf, '\0', n) != NULL;
}

/* "10 s", "1.5 s", "250 ms": a limit as a note names it */
static const char *limit_str(char *buf, size_t size, uint64_t us)
{
	if (us >= 1000000)
		snprintf(buf, size, "%.3g s", (double)us / 1e6);
	else
		snprintf(buf, size, "%.3g ms", (double)us / 1e3);
	return buf;
}

static void run_job(struct pool *p, struct job *j, TSParser *parser, struct kbx_cpu_slot *slot)
{
	struct strbuf src = STRBUF_INIT;
	/* The file may have changed since the scan: it may be gone, be a
	 * FIFO or a symbolic link now (or a directory above it may), or
	 * have grown past the limit. */
	int rr = strbuf_read_regular_at(&src, p->root, j->f->path, p->max_size);
	if (rr == STRBUF_NOT_REGULAR) {
		j->skip = errno == EISDIR ? "it became a directory while kbx ran"
					  : "not a regular file any more (a FIFO, socket or device)";
		goto out;
	} else if (rr == STRBUF_TOO_BIG) {
		snprintf(j->skip_buf, sizeof(j->skip_buf),
			 "larger than the size limit (%llu bytes; see --max-file-size)",
			 (unsigned long long)p->max_size);
		j->skip = j->skip_buf;
		goto out;
	} else if (rr < 0 && errno == ELOOP) {
		j->skip = "it became a symbolic link, which kbx never follows";
		goto out;
	} else if (rr < 0 && errno == ENOMEM) {
		/* not a file to drop from the index: no run at all */
		j->nomem = 1;
		goto out;
	} else if (rr < 0) {
		snprintf(j->skip_buf, sizeof(j->skip_buf), "cannot read: %s", strerror(errno));
		j->skip = j->skip_buf;
		goto out;
	}
	if (looks_binary(src.buf, src.len)) {
		j->skip = "binary file";
		goto out;
	}
	_kbx_hash128(src.buf, src.len, j->hash);
	if (_kbx_lang_text_decides(j->f->path))
		j->lang = _kbx_header_lang(p->headers, j->f->path, src.buf, src.len);
	if (j->has_old && !memcmp(j->hash, j->old_hash, 16) &&
	    j->old_lang == _kbx_lang_id(j->lang)) {
		/* the same text read as the same language */
		j->unchanged = 1;
		goto out;
	}
	_kbx_cpu_slot_begin(&p->watch, slot);
	int xr = _kbx_extract(j->lang, parser, j->f->path, src.buf, src.len,
			      _kbx_parse_timeout_us(&p->watch, slot, p->timeout_us), &j->x);
	int limit = _kbx_cpu_slot_end(&p->watch, slot);
	if (xr < 0 && j->x.nomem) {
		/* what it extracted is less than the file says */
		j->nomem = 1;
		_kbx_extract_release(&j->x);
	} else if (xr < 0) {
		char lim[32];
		if (j->x.timed_out && limit == KBX_PARSE_WALL_CEILING)
			snprintf(j->skip_buf, sizeof(j->skip_buf),
				 "parsing took longer than %s of wall-clock time, %d times the limit of CPU time (is the machine overloaded?)",
				 limit_str(lim, sizeof(lim), p->timeout_us * KBX_PARSE_WALL_FACTOR),
				 KBX_PARSE_WALL_FACTOR);
		else if (j->x.timed_out && limit)
			snprintf(j->skip_buf, sizeof(j->skip_buf),
				 "parsing took longer than %s of CPU time (index.parseTimeout)",
				 limit_str(lim, sizeof(lim), p->timeout_us));
		else if (j->x.timed_out)
			snprintf(j->skip_buf, sizeof(j->skip_buf),
				 "parsing took longer than %s (index.parseTimeout)",
				 limit_str(lim, sizeof(lim), p->timeout_us));
		else
			snprintf(j->skip_buf, sizeof(j->skip_buf), "cannot parse as %s",
				 j->lang->name);
		j->skip = j->skip_buf;
		_kbx_extract_release(&j->x);
	}
out:
	strbuf_release(&src);
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	TSParser *parser = ts_parser_new();
	struct kbx_cpu_slot *slot = parser ? _kbx_cpu_watch_attach(&p->watch) : NULL;
	if (slot)
		ts_parser_set_cancellation_flag(parser, &slot->flag);
	for (;;) {
		pthread_mutex_lock(&p->mu);
		while (p->next < p->njobs && p->next >= p->consumed + WINDOW)
			pthread_cond_wait(&p->cv, &p->mu);
		size_t i = p->next;
		if (i < p->njobs)
			p->next++;
		pthread_mutex_unlock(&p->mu);
		if (i >= p->njobs)
			break;
		if (parser) {
			uint64_t cpu0 = _kbx_thread_cpu_ns();
			run_job(p, &p->jobs[i], parser, slot);
			p->jobs[i].cpu_ns = _kbx_thread_cpu_ns() - cpu0;
		} else {
			p->jobs[i].skip = "out of memory";
		}
		pthread_mutex_lock(&p->mu);
		p->jobs[i].state = JOB_DONE;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
	_kbx_cpu_watch_detach(&p->watch, slot);
	if (parser)
		ts_parser_delete(parser);
	return NULL;
}

struct run {
	struct kbx_store *s;
	const struct kbx_index_opts *o;
	struct kbx_index_stats *stats;
	struct kbx_error *err;
	struct _kbx_idset resolve;     /* file ids to resolve */
	struct _kbx_idset orphans;
	/* names whose definitions changed */
	char **names;
	size_t nnames, anames;
	int names_oom;                 /* a name was lost: the run must fail */
	uint64_t last_progress_ns;
	/* --rebuild: the index as it was before, for the ids of its
	 * canonical ids, and the first id it had not given out */
	MDB_txn *before;
	uint64_t next_id_before;
};

static void note(struct run *r, int kind, const char *path, const char *msg)
{
	if (!r->o->notify)
		return;
	struct kbx_note n = { 0 };
	n.kind = kind;
	n.path = path;
	n.message = msg;
	r->o->notify(r->o->notify_data, &n);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void progress(struct run *r, const char *phase, uint64_t done, uint64_t total)
{
	if (!r->o->notify)
		return;
	uint64_t t = now_ns();
	if (done != total && t - r->last_progress_ns < 100000000ull)
		return;
	r->last_progress_ns = t;
	struct kbx_note n = { 0 };
	n.kind = KBX_NOTE_PROGRESS;
	n.phase = phase;
	n.done = done;
	n.total = total;
	r->o->notify(r->o->notify_data, &n);
}

static void add_name(void *data, const char *name)
{
	struct run *r = data;
	if (r->nnames == r->anames) {
		size_t na = r->anames ? r->anames * 2 : 64;
		char **nn = realloc(r->names, na * sizeof(*nn));
		if (!nn) {
			r->names_oom = 1;
			return;
		}
		r->names = nn;
		r->anames = na;
	}
	char *c = strdup(name);
	if (c)
		r->names[r->nnames++] = c;
	else
		r->names_oom = 1;
}

static int mdb_fail(struct run *r, int rc, const char *what)
{
	/* a write cut short by a full disk while LMDB spilled pages */
	_kbx_fail_mdb(r->err, _kbx_store_write_error(r->s, rc), what);
	return rc;
}

/* The refnames entries of a file: add (del=0) or remove (del=1). */
struct refname_ctx {
	struct kbx_store *s;
	unsigned char fid[4];
	int del;
	int rc;
};

static void refname_apply(void *data, const char *name)
{
	struct refname_ctx *c = data;
	size_t n = strlen(name);
	if (c->rc || !n || n > 500)
		return;
	MDB_val k = { n, (void *)name }, v = { 4, c->fid };
	int rc;
	if (c->del) {
		rc = mdb_del(c->s->wtxn, c->s->refnames, &k, &v);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	} else {
		rc = mdb_put(c->s->wtxn, c->s->refnames, &k, &v, MDB_NODUPDATA);
		if (rc == MDB_KEYEXIST)
			rc = 0;
	}
	c->rc = rc;
}

static int refnames_update(struct kbx_store *s, const struct _kbx_refs *refs, int del)
{
	struct refname_ctx c = { s, { 0 }, del, 0 };
	_kbx_put_u32(c.fid, refs->file);
	_kbx_refs_names(refs, _kbx_lang_from_id(refs->lang), refname_apply, &c);
	return c.rc;
}

/* Remove what an earlier run recorded for the file: its definitions not
 * in keep (all when keep is NULL), their edges, its refs and refnames. */
static int forget_file(struct run *r, uint32_t fid, const char *path, int lang,
		       const struct _kbx_idset *keep)
{
	struct kbx_store *s = r->s;
	struct _kbx_refs old;
	int rc = 0;
	kbx_status_t st = _kbx_refs_read(s, fid, &old);
	if (st == KBX_OK) {
		old.path = path;
		old.lang = lang;
		rc = refnames_update(s, &old, 1);
		for (size_t i = 0; !rc && i < old.nnodes; i++) {
			uint32_t id = old.nodes[i];
			rc = _kbx_edges_delete_from(s, id, 0, &r->orphans);
			if (rc || (keep && _kbx_idset_has(keep, id)))
				continue;
			struct kbx_node n;
			if (_kbx_node_read(s, s->wtxn, id, &n) == KBX_OK)
				add_name(r, n.name);
			rc = _kbx_node_delete(s, id);
		}
		_kbx_refs_release(&old);
	} else if (st != KBX_NOT_FOUND) {
		/* out of memory is not a damaged store */
		return st == KBX_ERR_NOMEM ? ENOMEM : MDB_CORRUPTED;
	}
	if (!rc)
		rc = _kbx_edges_delete_from(s, fid, 0, &r->orphans);
	if (!rc)
		rc = _kbx_del_u32(s, s->refs, fid);
	return rc;
}

static void mod_key_name(void *data, const char *key)
{
	add_name(data, key);
}

static int remove_file(struct run *r, const char *path, const struct _kbx_file_rec *fr)
{
	struct kbx_store *s = r->s;
	int rc = forget_file(r, fr->id, path, fr->lang, NULL);
	if (!rc)
		rc = _kbx_node_delete(s, fr->id);
	if (!rc) {
		MDB_val k = { strlen(path), (void *)path };
		rc = mdb_del(s->wtxn, s->files, &k, NULL);
		if (rc == MDB_NOTFOUND)
			rc = 0;
	}
	_kbx_path_mod_keys(path, mod_key_name, r);
	r->stats->removed++;
	return rc;
}

/* The node id that canonical id cid had before --rebuild dropped the
 * graph, when this run has not given it to another node (a damaged
 * table might name one id twice); 0 when there is none. */
static uint32_t id_before(struct run *r, const char *cid)
{
	struct kbx_store *s = r->s;
	MDB_val k = { strlen(cid), (void *)cid }, d;
	if (!r->before || !k.mv_size || mdb_get(r->before, s->ids, &k, &d) || d.mv_size != 4)
		return 0;
	uint32_t id = _kbx_get_u32(d.mv_data);
	unsigned char kb[4];
	_kbx_put_u32(kb, id);
	MDB_val nk = { 4, kb }, nd;
	if (!id || id >= r->next_id_before || mdb_get(s->wtxn, s->nodes, &nk, &nd) != MDB_NOTFOUND)
		return 0;
	return id;
}

/* The start of --rebuild, in the write transaction: the graph goes, the
 * search index stays for lib/search/sync.c to replace, and the code
 * chunks are marked to be made again (KBX_META_REBUILD_CODE_CHUNKS).  An
 * index of another schema goes whole: nothing can read it, and its
 * records may not mean what this kbx thinks. */
static int begin_rebuild(struct run *r)
{
	struct kbx_store *s = r->s;
	uint64_t schema = 0;
	int same = _kbx_meta_get_u64(s, s->wtxn, "schema", &schema) == KBX_OK &&
		   schema == KBX_SCHEMA_VERSION;
	/* Without the old ids (no reader slot is free) the rebuild is as
	 * right, with new ids: until the search index commits, a scoped
	 * search then finds none of the old chunks. */
	if (same && mdb_txn_begin(s->env, NULL, MDB_RDONLY, &r->before) == 0) {
		if (_kbx_meta_get_u64(s, r->before, "next_id", &r->next_id_before))
			r->next_id_before = 0;
	} else {
		r->before = NULL;
	}
	int rc = _kbx_store_clear(s, same ? KBX_CLEAR_GRAPH
					  : KBX_CLEAR_GRAPH | KBX_CLEAR_SEARCH | KBX_CLEAR_VECTORS);
	if (!rc)
		rc = _kbx_meta_put_u64(s, s->wtxn, KBX_META_REBUILD_CODE_CHUNKS, 1);
	return rc;
}

static int put_file_rec(struct run *r, const char *path, const struct _kbx_file_rec *fr)
{
	unsigned char rec[KBX_FILE_REC_LEN];
	_kbx_file_rec_encode(rec, fr);
	MDB_val k = { strlen(path), (void *)path }, d = { sizeof(rec), rec };
	return mdb_put(r->s->wtxn, r->s->files, &k, &d, 0);
}

/* The first definition of each qualified name in one file: an open
 * addressing table of indexes into x->syms, at most half full. */
struct qual_table {
	size_t *slots;   /* index + 1; 0 is an empty slot */
	size_t mask;
};

static int qual_table_init(struct qual_table *t, size_t n)
{
	size_t size = 16;
	while (size < 2 * n + 2)
		size *= 2;
	t->slots = calloc(size, sizeof(*t->slots));
	t->mask = size - 1;
	return t->slots ? 0 : -1;
}

/* The index of the first definition named qual, entering i when there
 * is none yet. */
static size_t qual_table_find(struct qual_table *t, const struct kbx_extract *x,
			      const char *qual, size_t i)
{
	unsigned char h[16];
	uint64_t v;
	_kbx_hash128(qual, strlen(qual), h);
	memcpy(&v, h, sizeof(v));
	for (size_t at = (size_t)v & t->mask;; at = (at + 1) & t->mask) {
		size_t k = t->slots[at];
		if (!k) {
			t->slots[at] = i + 1;
			return i;
		}
		if (!strcmp(x->syms[k - 1].qual, qual))
			return k - 1;
	}
}

/* The bodies of a file's definitions: for each stored node, an entry
 * per definition that shares it (owner[i] is the first one's index), in
 * source order. */
static int put_bodies(struct kbx_store *s, const struct kbx_extract *x, const uint32_t *sym_ids,
		      const size_t *owner)
{
	size_t *next = NULL, *last = NULL;
	struct strbuf val = STRBUF_INIT;
	int rc = 0;
	if (!x->nsyms)
		return 0;
	next = malloc(x->nsyms * sizeof(*next));
	last = malloc(x->nsyms * sizeof(*last));
	if (!next || !last) {
		rc = ENOMEM;
		goto out;
	}
	/* chain each definition after the last one of its node */
	for (size_t i = 0; i < x->nsyms; i++) {
		next[i] = (size_t)-1;
		if (!sym_ids[i])
			continue;
		if (owner[i] == i)
			last[i] = i;
		else {
			next[last[owner[i]]] = i;
			last[owner[i]] = i;
		}
	}
	for (size_t i = 0; i < x->nsyms && !rc; i++) {
		if (!sym_ids[i] || owner[i] != i)
			continue;
		strbuf_reset(&val);
		for (size_t j = i; j != (size_t)-1; j = next[j]) {
			const struct kbx_xsym *xs = &x->syms[j];
			struct _kbx_body b = { xs->body_hash, xs->line, xs->col, xs->end_line,
					       (uint8_t)xs->kind };
			unsigned char e[KBX_BODY_ENTRY_LEN];
			_kbx_body_encode(e, &b);
			strbuf_add(&val, e, sizeof(e));
		}
		if (val.failed) {
			rc = ENOMEM;
			break;
		}
		unsigned char kb[4];
		_kbx_put_u32(kb, sym_ids[i]);
		MDB_val k = { 4, kb }, d = { val.len, val.buf };
		rc = mdb_put(s->wtxn, s->bodies, &k, &d, 0);
	}
out:
	free(next);
	free(last);
	strbuf_release(&val);
	return rc;
}

/* Write a parsed file: definitions, DEFINES edges, refs. */
static int apply_parsed(struct run *r, struct job *j, const struct _kbx_file_rec *old)
{
	struct kbx_store *s = r->s;
	const char *path = j->f->path;
	int lang = _kbx_lang_id(j->lang);
	struct kbx_extract *x = &j->x;
	int rc = 0;
	struct _kbx_file_rec fr = { 0 };
	uint32_t *sym_ids = NULL, *uniq = NULL;
	unsigned char *first = NULL;   /* the first definition of its qual name (2: of several) */
	size_t *owner = NULL;          /* the index of that first definition */
	struct qual_table quals = { 0 };
	size_t nuniq = 0;
	struct _kbx_idset keep = { 0 };
	struct strbuf cid = STRBUF_INIT, blob = STRBUF_INIT;

	if (strlen(path) > 400)
		return 0;  /* cannot be a key; skipped by the caller's check */

	/* The file node. */
	if (old) {
		fr.id = old->id;
	} else {
		fr.id = id_before(r, path);
		rc = fr.id ? 0 : _kbx_id_alloc(s, &fr.id);
		if (rc)
			return mdb_fail(r, rc, "cannot allocate an id");
		_kbx_path_mod_keys(path, mod_key_name, r);
	}
	fr.lang = (uint8_t)lang;
	fr.size = j->f->size;
	fr.mtime_ns = j->f->mtime_ns;
	memcpy(fr.hash, j->hash, 16);

	/* Ids for the definitions, stable across runs by canonical id. */
	sym_ids = calloc(x->nsyms + 1, sizeof(*sym_ids));
	uniq = calloc(x->nsyms + 1, sizeof(*uniq));
	first = calloc(x->nsyms + 1, sizeof(*first));
	owner = calloc(x->nsyms + 1, sizeof(*owner));
	if (!sym_ids || !uniq || !first || !owner || qual_table_init(&quals, x->nsyms) < 0) {
		rc = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < x->nsyms && !rc; i++) {
		first[i] = 0;
		if (x->syms[i].qual == _kbx_qual_too_long) {
			sym_ids[i] = 0;
			continue;
		}
		strbuf_reset(&cid);
		strbuf_addf(&cid, "%s#%s", path, x->syms[i].qual);
		if (cid.failed || cid.len > 480) {
			sym_ids[i] = 0;
			continue;
		}
		/* a redefinition in the same file shares the first one's node
		 * (a hash table: generated files hold 100,000 definitions) */
		size_t k = qual_table_find(&quals, x, x->syms[i].qual, i);
		owner[i] = k;
		if (k != i) {
			sym_ids[i] = sym_ids[k];
			first[k] = 2;   /* defined again */
			continue;
		}
		first[i] = 1;
		uint32_t id = _kbx_id_of(s, cid.buf);
		if (!id) {
			id = id_before(r, cid.buf);
			if (id && (id == fr.id || _kbx_idset_has(&keep, id)))
				id = 0;
			if (!id)
				rc = _kbx_id_alloc(s, &id);
			add_name(r, x->syms[i].name);
		}
		sym_ids[i] = id;
		uniq[nuniq++] = id;
		_kbx_idset_add(&keep, id);
	}
	if (rc)
		goto out;

	/* Forget what the last run said, keeping surviving definitions. */
	if (old) {
		rc = forget_file(r, fr.id, path, old->lang, &keep);
		if (rc)
			goto out;
	}

	/* The file node and the definitions. */
	struct kbx_node n = { 0 };
	n.id = fr.id;
	n.kind = KBX_KIND_FILE;
	n.lang = lang;
	n.cid = path;
	const char *slash = strrchr(path, '/');
	n.name = slash ? slash + 1 : path;
	n.line = 1;
	n.end_line = 0;
	rc = _kbx_node_put(s, &n);
	for (size_t i = 0; i < x->nsyms && !rc; i++) {
		if (!sym_ids[i] || !first[i])
			continue;
		const struct kbx_xsym *xs = &x->syms[i];
		strbuf_reset(&cid);
		strbuf_addf(&cid, "%s#%s", path, xs->qual);
		memset(&n, 0, sizeof(n));
		n.id = sym_ids[i];
		n.kind = xs->kind;
		n.lang = lang;
		n.cid = cid.buf;
		n.path = path;          /* its '#'s are counted in the record */
		n.path_len = strlen(path);
		n.name = xs->name;
		n.file = fr.id;
		n.parent = xs->parent >= 0 && sym_ids[xs->parent] ? sym_ids[xs->parent] : fr.id;
		n.line = xs->line;
		n.col = xs->col;
		n.end_line = xs->end_line;
		n.flags = (xs->flags & KBX_SYM_FILE_LOCAL ? KBX_NODE_FILE_LOCAL : 0) |
			  (xs->flags & KBX_SYM_EXPORTED ? KBX_NODE_EXPORTED : 0) |
			  (xs->flags & KBX_SYM_OVERRIDE ? KBX_NODE_OVERRIDE : 0) |
			  (xs->flags & KBX_SYM_IMPLICIT ? KBX_NODE_IMPLICIT : 0) |
			  (xs->flags & KBX_SYM_CONDITIONAL ? KBX_NODE_CONDITIONAL : 0) |
			  (first[i] == 2 ? KBX_NODE_REDEFINED : 0);
		rc = _kbx_node_put(s, &n);
		if (!rc) {
			struct _kbx_edge_val v = { 0 };
			v.confidence = KBX_CONF_CERTAIN;
			v.via = KBX_VIA_SYNTAX;
			v.nsites = 1;
			v.sites[0].line = xs->line;
			v.sites[0].col = xs->col;
			rc = _kbx_edge_put(s, n.parent, KBX_EDGE_DEFINES, n.id, &v);
		}
	}
	if (!rc)
		rc = put_bodies(s, x, sym_ids, owner);
	if (rc)
		goto out;
	rc = put_file_rec(r, path, &fr);
	if (rc)
		goto out;

	/* What it said, for resolving now and later. */
	_kbx_refs_encode(&blob, x, sym_ids, uniq, nuniq);
	if (blob.failed) {
		rc = ENOMEM;
		goto out;
	}
	{
		unsigned char kb[4];
		_kbx_put_u32(kb, fr.id);
		MDB_val k = { 4, kb }, d = { blob.len, blob.buf };
		rc = mdb_put(s->wtxn, s->refs, &k, &d, 0);
	}
	if (!rc) {
		struct _kbx_refs refs;
		kbx_status_t dst = _kbx_refs_decode(blob.buf, blob.len, &refs);
		if (dst == KBX_OK) {
			refs.file = fr.id;
			refs.path = path;
			refs.lang = lang;
			rc = refnames_update(s, &refs, 0);
			_kbx_refs_release(&refs);
		} else {
			rc = dst == KBX_ERR_NOMEM ? ENOMEM : MDB_CORRUPTED;
		}
	}
	if (!rc && _kbx_idset_add(&r->resolve, fr.id) < 0)
		rc = ENOMEM;
	r->stats->parsed++;
out:
	if (rc && !r->err->status)
		mdb_fail(r, rc, "cannot write the index");
	free(sym_ids);
	free(uniq);
	free(first);
	free(owner);
	free(quals.slots);
	_kbx_idset_release(&keep);
	strbuf_release(&cid);
	strbuf_release(&blob);
	return rc;
}

/* The header settings as the meta table keeps them: a hash of both
 * lists, "" when neither is set (as an index from before them). */
static void header_langs_key(const struct kbx_header_langs *h, char out[33])
{
	const char *c = h->c ? h->c : "", *cpp = h->cpp ? h->cpp : "";
	out[0] = '\0';
	if (!*c && !*cpp)
		return;
	struct strbuf b = STRBUF_INIT;
	strbuf_addf(&b, "c=%s", c);
	strbuf_addch(&b, '\0');
	strbuf_addf(&b, "cpp=%s", cpp);
	unsigned char hash[16];
	_kbx_hash128(b.buf ? b.buf : "", b.len, hash);
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", hash[i]);
	strbuf_release(&b);
}

/* Files whose refs mention a changed name need resolving again. */
static int collect_affected(struct run *r)
{
	struct kbx_store *s = r->s;
	MDB_cursor *c;
	/* a lost name would leave the files that call it unresolved: a
	 * wrong answer, committed; better no run at all */
	if (r->names_oom)
		return ENOMEM;
	int rc = mdb_cursor_open(s->wtxn, s->refnames, &c);
	if (rc)
		return rc;
	for (size_t i = 0; i < r->nnames && !rc; i++) {
		MDB_val k = { strlen(r->names[i]), r->names[i] }, d;
		if (!k.mv_size || k.mv_size > 500)
			continue;
		int g = mdb_cursor_get(c, &k, &d, MDB_SET_KEY);
		while (!g) {
			if (d.mv_size == 4) {
				uint32_t fid = _kbx_get_u32(d.mv_data);
				int added = _kbx_idset_add(&r->resolve, fid);
				if (added < 0) {
					rc = ENOMEM;
					break;
				}
				if (added > 0)
					r->stats->reresolved++;
			}
			g = mdb_cursor_get(c, &k, &d, MDB_NEXT_DUP);
		}
		if (g != MDB_NOTFOUND)
			rc = g;
	}
	mdb_cursor_close(c);
	return rc;
}

static int path_selected(const struct kbx_index_opts *o, const char *path)
{
	if (!o->npaths)
		return 1;
	for (size_t i = 0; i < o->npaths; i++) {
		const char *p = o->paths[i];
		size_t n = strlen(p);
		if (!n || !strcmp(p, "."))
			return 1;
		while (n && p[n - 1] == '/')
			n--;
		if (!strncmp(path, p, n) && (path[n] == '\0' || path[n] == '/'))
			return 1;
	}
	return 0;
}

/* Was the index that txn reads made by other rules than KBX_GRAPH_RULES
 * (and does it hold files)?  Rules before the stamp are 1. */
static int rules_stale(struct kbx_store *s, MDB_txn *txn)
{
	uint64_t rules = 1;
	MDB_stat ms;
	_kbx_meta_get_u64(s, txn, KBX_META_GRAPH_RULES, &rules);
	return rules != KBX_GRAPH_RULES && mdb_stat(txn, s->files, &ms) == 0 && ms.ms_entries > 0;
}

/* The same, in a read transaction of its own: before a run's. */
static int graph_rules_stale(struct kbx_store *s)
{
	MDB_txn *txn;
	if (mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn))
		return 0;       /* index_once sees it in its own transaction */
	int stale = rules_stale(s, txn);
	mdb_txn_abort(txn);
	return stale;
}

static kbx_status_t index_once(struct run *r, struct _kbx_scan *scan)
{
	struct kbx_store *s = r->s;
	const struct kbx_index_opts *o = r->o;
	struct kbx_index_stats *stats = r->stats;
	kbx_status_t st;
	int rc = 0;
	struct job *jobs = NULL;
	struct _kbx_file_rec *olds = NULL;
	char *has_old = NULL;
	pthread_t threads[16];
	int nthreads = 0;
	struct pool pool;
	/* allocations refused on this thread from here on (util.h) */
	unsigned long nomem0 = _kbx_nomem_count;
	int pool_started = 0;

	st = _kbx_store_write_begin(s, r->err);
	if (st)
		return st;
	/* an index of other rules is made again whole; a new one is made by
	 * these */
	stats->rules_changed = !o->rebuild && rules_stale(s, s->wtxn);
	rc = _kbx_meta_put_u64(s, s->wtxn, KBX_META_GRAPH_RULES, KBX_GRAPH_RULES);
	if (rc) {
		mdb_fail(r, rc, "cannot write the index's rules");
		goto fail;
	}
	if (o->rebuild || stats->rules_changed) {
		rc = begin_rebuild(r);
		if (rc) {
			mdb_fail(r, rc, "cannot clear the index");
			goto fail;
		}
	}

	/* 2. compare: removed files first */
	{
		MDB_cursor *c;
		MDB_val k, d;
		rc = mdb_cursor_open(s->wtxn, s->files, &c);
		if (rc) {
			mdb_fail(r, rc, "cannot read the files table");
			goto fail;
		}
		size_t si = 0;
		char **gone = NULL;
		struct _kbx_file_rec *gone_rec = NULL;
		size_t ngone = 0, agone = 0;
		for (int g = mdb_cursor_get(c, &k, &d, MDB_FIRST); !g;
		     g = mdb_cursor_get(c, &k, &d, MDB_NEXT)) {
			char *path = strndup(k.mv_data, k.mv_size);
			if (!path)
				break;
			while (si < scan->n && strcmp(scan->files[si].path, path) < 0)
				si++;
			int present = si < scan->n && !strcmp(scan->files[si].path, path);
			if (!present && path_selected(o, path)) {
				if (ngone == agone) {
					agone = agone ? agone * 2 : 16;
					gone = realloc(gone, agone * sizeof(*gone));
					gone_rec = realloc(gone_rec, agone * sizeof(*gone_rec));
					if (!gone || !gone_rec) {
						free(path);
						rc = ENOMEM;
						break;
					}
				}
				_kbx_file_rec_decode(d.mv_data, d.mv_size, &gone_rec[ngone]);
				gone[ngone++] = path;
			} else {
				free(path);
			}
		}
		mdb_cursor_close(c);
		for (size_t i = 0; i < ngone; i++) {
			if (!rc)
				rc = remove_file(r, gone[i], &gone_rec[i]);
			free(gone[i]);
		}
		free(gone);
		free(gone_rec);
		if (rc) {
			mdb_fail(r, rc, "cannot remove deleted files from the index");
			goto fail;
		}
	}

	/* Headers whose language a setting decides are all read again
	 * when the settings differ from the last run's over the whole tree
	 * (the run that records them). */
	char headers_now[33], headers_then[64];
	header_langs_key(&o->headers, headers_now);
	if (_kbx_meta_get_str(s, s->wtxn, KBX_META_HEADER_LANGS, headers_then,
			      sizeof(headers_then)) == KBX_ERR_STORE) {
		_kbx_fail(r->err, KBX_ERR_STORE, "cannot read the index's metadata");
		goto fail;
	}
	int redecide = strcmp(headers_now, headers_then) != 0;

	/* which scanned files need reading */
	jobs = calloc(scan->n + 1, sizeof(*jobs));
	olds = calloc(scan->n + 1, sizeof(*olds));
	has_old = calloc(scan->n + 1, 1);
	if (!jobs || !olds || !has_old) {
		_kbx_fail(r->err, KBX_ERR_NOMEM, "out of memory");
		goto fail;
	}
	size_t njobs = 0;
	size_t *job_file = calloc(scan->n + 1, sizeof(*job_file));
	if (!job_file) {
		_kbx_fail(r->err, KBX_ERR_NOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < scan->n; i++) {
		const struct _kbx_scan_file *f = &scan->files[i];
		stats->scanned++;
		if (strlen(f->path) > 400) {
			note(r, KBX_NOTE_SKIPPED, f->path, "path longer than 400 bytes");
			stats->skipped++;
			continue;
		}
		MDB_val k = { strlen(f->path), f->path }, d;
		/* a header is C or C++ by its text, a component JavaScript or
		 * TypeScript: as its record says, until the text changes */
		const struct kbx_lang *lang = f->lang;
		if (mdb_get(s->wtxn, s->files, &k, &d) == 0 &&
		    _kbx_file_rec_decode(d.mv_data, d.mv_size, &olds[i]) == KBX_OK) {
			has_old[i] = 1;
			const struct kbx_lang *then = _kbx_lang_from_id(olds[i].lang);
			int header = _kbx_lang_is_header(f->path);
			if (then && _kbx_lang_text_variant(lang, then) &&
			    _kbx_lang_text_decides(f->path))
				lang = then;
			if (olds[i].size == f->size && olds[i].mtime_ns == f->mtime_ns &&
			    olds[i].lang == _kbx_lang_id(lang) && !(header && redecide)) {
				stats->unchanged++;
				continue;
			}
		}
		struct job *j = &jobs[njobs];
		j->f = f;
		j->lang = lang;
		j->has_old = has_old[i];
		if (has_old[i]) {
			j->old_lang = olds[i].lang;
			memcpy(j->old_hash, olds[i].hash, 16);
		}
		job_file[njobs++] = i;
	}

	/* 3. parse on workers, 4. write in order on this thread */
	memset(&pool, 0, sizeof(pool));
	pthread_mutex_init(&pool.mu, NULL);
	pthread_cond_init(&pool.cv, NULL);
	pool_started = 1;
	pool.jobs = jobs;
	pool.njobs = njobs;
	pool.root = s->root;
	pool.timeout_us = o->parse_timeout_us ? o->parse_timeout_us : DEFAULT_PARSE_TIMEOUT_US;
	pool.max_size = o->max_file_size ? o->max_file_size : DEFAULT_MAX_FILE_SIZE;
	pool.headers = &o->headers;
	int want = o->threads > 0 ? o->threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (want < 1)
		want = 1;
	if (want > 16)
		want = 16;
	if ((size_t)want > njobs)
		want = njobs ? (int)njobs : 0;
	/* when the watchdog cannot start, the limit is wall-clock time */
	if (want)
		_kbx_cpu_watch_start(&pool.watch, (size_t)want, pool.timeout_us);
	for (int t = 0; t < want; t++)
		if (pthread_create(&threads[nthreads], NULL, worker, &pool) == 0)
			nthreads++;
	if (njobs && !nthreads) {
		_kbx_fail(r->err, KBX_ERR_INTERNAL, "cannot start a parser thread");
		free(job_file);
		goto fail;
	}
	for (size_t ji = 0; ji < njobs; ji++) {
		uint64_t t_wait = now_ns();
		pthread_mutex_lock(&pool.mu);
		while (jobs[ji].state != JOB_DONE)
			pthread_cond_wait(&pool.cv, &pool.mu);
		pool.consumed = ji + 1;
		pthread_cond_broadcast(&pool.cv);
		pthread_mutex_unlock(&pool.mu);
		uint64_t t_write = now_ns(), cpu_write = _kbx_thread_cpu_ns();
		stats->seconds_wait += (double)(t_write - t_wait) / 1e9;
		struct job *j = &jobs[ji];
		stats->cpu_parse += (double)j->x.parse_cpu_ns / 1e9;
		stats->cpu_extract += (double)(j->cpu_ns - j->x.parse_cpu_ns) / 1e9;
		size_t fi = job_file[ji];
		progress(r, "parse", ji + 1, njobs);
		if (rc)
			goto next;
		if (j->nomem) {
			_kbx_fail(r->err, KBX_ERR_NOMEM, "out of memory while parsing '%s'", j->f->path);
			rc = ENOMEM;
		} else if (j->skip) {
			note(r, KBX_NOTE_SKIPPED, j->f->path, j->skip);
			stats->skipped++;
			/* a file that can no longer be read or parsed leaves the index */
			if (has_old[fi])
				rc = remove_file(r, j->f->path, &olds[fi]), stats->removed--;
		} else if (j->unchanged) {
			/* same content, new mtime: remember the mtime only */
			struct _kbx_file_rec fr = olds[fi];
			fr.size = j->f->size;
			fr.mtime_ns = j->f->mtime_ns;
			rc = put_file_rec(r, j->f->path, &fr);
			stats->unchanged++;
		} else {
			if (j->x.had_errors) {
				/* still indexed: tree-sitter recovers; say so */
			}
			rc = apply_parsed(r, j, has_old[fi] ? &olds[fi] : NULL);
		}
next:
		_kbx_extract_release(&j->x);
		stats->seconds_write += (double)(now_ns() - t_write) / 1e9;
		stats->cpu_write += (double)(_kbx_thread_cpu_ns() - cpu_write) / 1e9;
	}
	for (int t = 0; t < nthreads; t++)
		pthread_join(threads[t], NULL);
	_kbx_cpu_watch_stop(&pool.watch);
	free(job_file);
	if (rc) {
		if (!r->err->status)
			mdb_fail(r, rc, "cannot write the index");
		goto fail;
	}

	/* 5. resolve */
	uint64_t t_resolve = now_ns(), cpu_resolve = _kbx_thread_cpu_ns();
	rc = collect_affected(r);
	if (rc) {
		mdb_fail(r, rc, "cannot read the name references");
		goto fail;
	}
	if (r->resolve.n) {
		struct _kbx_resolver *res;
		st = _kbx_resolver_new(s, &res, r->err);
		if (st)
			goto fail;
		for (int phase = KBX_RESOLVE_BASES; phase <= KBX_RESOLVE_CALLS && !st; phase++)
			for (size_t i = 0; i < r->resolve.n && !st; i++) {
				st = _kbx_resolve_file(res, r->resolve.ids[i], phase, &stats->edges,
						       &r->orphans, r->err);
				/* files, as the other phases count: the calls'
				 * pass, the long one (the bases' is a look-up a
				 * file) */
				if (phase == KBX_RESOLVE_CALLS)
					progress(r, "resolve", i + 1, r->resolve.n);
			}
		_kbx_resolver_free(res);
		if (st)
			goto fail;
	}
	rc = _kbx_drop_orphans(s, &r->orphans);
	if (rc) {
		mdb_fail(r, rc, "cannot drop unused external names");
		goto fail;
	}

	stats->seconds_resolve = (double)(now_ns() - t_resolve) / 1e9;
	stats->cpu_resolve = (double)(_kbx_thread_cpu_ns() - cpu_resolve) / 1e9;

	/* a helper that memory ran out in may have said "none" (no such
	 * file, no such name): what this run wrote is not sure; the index
	 * stays as it was */
	if (_kbx_nomem_count != nomem0) {
		_kbx_fail(r->err, KBX_ERR_NOMEM, "out of memory");
		goto fail;
	}

	/* the generation and the time */
	uint64_t gen = 0;
	_kbx_meta_get_u64(s, s->wtxn, "generation", &gen);
	gen++;
	rc = _kbx_meta_put_u64(s, s->wtxn, "generation", gen);
	if (!rc)
		rc = _kbx_meta_put_u64(s, s->wtxn, "updated", (uint64_t)time(NULL));
	if (!rc && s->root)
		rc = _kbx_meta_put_str(s, s->wtxn, "root", s->root);
	/* a run over part of the tree has not read every header again */
	if (!rc && redecide && path_selected(o, ""))
		rc = _kbx_meta_put_str(s, s->wtxn, KBX_META_HEADER_LANGS, headers_now);
	if (rc) {
		mdb_fail(r, rc, "cannot write the index's metadata");
		goto fail;
	}
	stats->generation = gen;
	progress(r, "write", 0, 1);
	uint64_t t_commit = now_ns(), cpu_commit = _kbx_thread_cpu_ns();
	st = _kbx_store_write_commit(s, r->err);
	stats->seconds_commit = (double)(now_ns() - t_commit) / 1e9;
	stats->cpu_commit = (double)(_kbx_thread_cpu_ns() - cpu_commit) / 1e9;
	progress(r, "write", 1, 1);
	goto out;
fail:
	st = r->err->status ? r->err->status : KBX_ERR_INTERNAL;
	_kbx_store_write_abort(s);
out:
	if (r->before) {
		mdb_txn_abort(r->before);
		r->before = NULL;
	}
	if (pool_started) {
		_kbx_cpu_watch_stop(&pool.watch);
		pthread_mutex_destroy(&pool.mu);
		pthread_cond_destroy(&pool.cv);
	}
	if (jobs)
		for (size_t i = 0; i < scan->n; i++)
			_kbx_extract_release(&jobs[i].x);
	free(jobs);
	free(olds);
	free(has_old);
	return st;
}

static void run_reset(struct run *r)
{
	_kbx_idset_release(&r->resolve);
	_kbx_idset_release(&r->orphans);
	for (size_t i = 0; i < r->nnames; i++)
		free(r->names[i]);
	free(r->names);
	r->names = NULL;
	r->nnames = r->anames = 0;
	r->names_oom = 0;
}

kbx_status_t kbx_index_run(kbx_store_t *s, const struct kbx_index_opts *o,
			   struct kbx_index_stats *stats, struct kbx_error *err)
{
	struct kbx_error local = KBX_ERROR_INIT;
	struct kbx_index_opts defaults = { 0 };
	struct _kbx_scan scan;
	kbx_status_t st;
	uint64_t t0 = now_ns(), cpu0 = _kbx_thread_cpu_ns();

	if (!err)
		err = &local;
	if (!o)
		o = &defaults;
	if (!s->writable)
		return _kbx_fail(err, KBX_ERR_USAGE, "the index was opened read-only");
	memset(stats, 0, sizeof(*stats));
	/* the grammars, loaded before any file is read, so that a missing
	 * module is said as such rather than as files that did not parse */
	kbx_status_t loaded = _kbx_grammars_need(err);
	if (loaded)
		return loaded;

	/* an index of other rules is made again whole (index_once): the
	 * whole tree then, whatever paths were asked for */
	struct kbx_index_opts whole;
	if (o->npaths && graph_rules_stale(s)) {
		whole = *o;
		whole.paths = NULL;
		whole.npaths = 0;
		o = &whole;
	}
	uint64_t skipped = 0;
	struct run r = { 0 };
	r.s = s;
	r.o = o;
	r.stats = stats;
	r.err = err;
	progress(&r, "scan", 0, 1);
	st = _kbx_scan_tree(s->root, o->paths, o->npaths,
			    o->max_file_size ? o->max_file_size : DEFAULT_MAX_FILE_SIZE,
			    o->notify, o->notify_data, &scan, &skipped, err);
	if (st)
		return st;
	progress(&r, "scan", 1, 1);
	double scan_seconds = (double)(now_ns() - t0) / 1e9;
	double scan_cpu = (double)(_kbx_thread_cpu_ns() - cpu0) / 1e9;

	for (int attempt = 0;; attempt++) {
		memset(stats, 0, sizeof(*stats));
		err->status = KBX_OK;
		err->msg[0] = '\0';
		r.last_progress_ns = 0;
		st = index_once(&r, &scan);
		run_reset(&r);
		/* only a full map is cured by growing it, not a full disk */
		if (st != KBX_ERR_FULL || attempt >= 12 || !strstr(err->msg, mdb_strerror(MDB_MAP_FULL)))
			break;
		/* the map is full: grow it and run again */
		if (_kbx_store_grow(s, err))
			break;
	}
	stats->seconds_scan = scan_seconds;
	stats->cpu_scan = scan_cpu;
	stats->skipped += skipped;
	stats->scanned += skipped;
	_kbx_scan_release(&scan);
	if (!st) {
		struct kbx_store_info info;
		MDB_stat ms;
		MDB_txn *txn;
		(void)info;
		if (!s->map_lost && mdb_txn_begin(s->env, NULL, MDB_RDONLY, &txn) == 0) {
			if (mdb_stat(txn, s->edges, &ms) == 0)
				stats->edges = ms.ms_entries;
			if (mdb_stat(txn, s->nodes, &ms) == 0)
				stats->symbols = ms.ms_entries;
			mdb_txn_abort(txn);
		}
	}
	stats->seconds = (double)(now_ns() - t0) / 1e9;
	return st;
}
