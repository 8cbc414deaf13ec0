/*
 * kbx_context: gather what the hybrid questions and the search find for
 * a question, and pack it within a token budget (see kbx-context.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "context/context.h"
#include "hybrid/kbx-hybrid.h"
#include "lang/lang.h"
#include "util/util.h"

#define DEFAULT_CANDIDATES 50
#define DEFAULT_MAX_FILE_SIZE (1u << 20)
/* reciprocal rank fusion's k, as kbx search --all-repos */
#define RRF_K 60.0
/* a signature ranks below the symbol it is a neighbour of */
#define NEIGHBOUR_WEIGHT 0.5
/* the lines that make a signature, at most */
#define SIGNATURE_LINES 4
/* whole pieces packed before later code comes as its signature and later
 * documents and entries as their first lines, when the candidates left
 * would not all fit whole: one, the best, so that the budget goes to
 * more candidates (chosen on the dev questions of bench/context: in a
 * 2,000-token pack 1 found 165 of 195 answers, 2 found 157, 3 found 154) */
#define CONTEXT_FULL 1
#define SHORT_LINES 4
#define SHORT_BYTES 480

const char *kbx_context_kind_str(int kind)
{
	static const char *const names[] = { "?", "code", "signature", "doc", "error" };
	return kind >= KBX_PIECE_CODE && kind <= KBX_PIECE_ERROR ? names[kind] : "?";
}

const char *kbx_context_step_str(int step)
{
	static const char *const names[KBX_STEP__COUNT] = { "hybrid", "search", "neighbours" };
	return step >= 0 && step < KBX_STEP__COUNT ? names[step] : "?";
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* Something worth packing, before it is read. */
struct cand {
	struct kbx_context_piece p;     /* the fields known so far; text NULL */
	char *key;                      /* one per definition and per document */
	char *doc_text;                 /* documents and errors: the indexed text */
	uint32_t node;                  /* code: graph node id */
	int node_kind;
	size_t order;                   /* found before others of the same score */
};

struct cached_file {
	size_t source;
	char *path;
	struct strbuf buf;
	size_t *starts;                 /* of each line; starts[nlines] = len */
	size_t nlines;
	int bad;                        /* could not be read: said once */
	/* what the index says of it: 1, the text it indexed (a graph's
	 * chunks always are), else the definitions still where it puts
	 * them (kbx_defs_in_place) */
	int same;
	struct kbx_def_places kept;
};

struct run {
	const struct kbx_context_source *sources;
	size_t nsources;
	const struct kbx_context_opts *opts;
	struct kbx_context *out;
	struct cand *c;
	size_t n, alloc;
	/* the candidates by key: open addressing, index + 1 (0: empty);
	 * NULL once c is sorted, or out of memory: then searched in turn */
	uint32_t *tab;
	size_t tab_cap;
	struct cached_file *files;
	size_t nfiles;
	kbx_comparer_t **cmps;          /* per source, made when a file has changed */
	uint64_t max_file_size;
	int traversal;          /* a hybrid step walked the graph (callers, ...) */
	int nomem;
};

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static void note(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct run *r, const char *fmt, ...)
{
	struct kbx_context_plan *p = &r->out->plan;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	char **v = sb.failed ? NULL : realloc(p->notes, (p->nnotes + 1) * sizeof(*v));
	if (!v) {
		strbuf_release(&sb);
		r->nomem = 1;
		return;
	}
	p->notes = v;
	p->notes[p->nnotes++] = strbuf_detach(&sb, NULL);
}

static void piece_release(struct kbx_context_piece *p)
{
	free(p->id);
	free(p->title);
	free(p->heading);
	free(p->path);
	free(p->lang);
	free(p->why);
	free(p->severity);
	free(p->cause);
	free(p->fix);
	free(p->header);
	free(p->text);
}

static void cand_release(struct cand *c)
{
	piece_release(&c->p);
	free(c->key);
	free(c->doc_text);
}

static void tab_insert(uint32_t *t, size_t cap, const char *key, size_t i)
{
	for (size_t h = (size_t)_kbx_fnv1a_str(key) & (cap - 1);; h = (h + 1) & (cap - 1))
		if (!t[h]) {
			t[h] = (uint32_t)i + 1;
			return;
		}
}

/* Enter r->c[i] in the table, growing it at half full; a table that
 * cannot grow is dropped (the candidates are then searched in turn). */
static void tab_put(struct run *r, size_t i)
{
	if (!r->tab && r->tab_cap)
		return;
	if (2 * (r->n + 1) > r->tab_cap) {
		size_t cap = r->tab_cap ? 2 * r->tab_cap : 256;
		uint32_t *t = calloc(cap, sizeof(*t));
		free(r->tab);
		r->tab = t;
		r->tab_cap = cap;
		if (!t)
			return;
		for (size_t j = 0; j < r->n; j++)
			if (j != i)
				tab_insert(t, cap, r->c[j].key, j);
	}
	tab_insert(r->tab, r->tab_cap, r->c[i].key, i);
}

/* The table again, after c was sorted. */
static void tab_rebuild(struct run *r)
{
	if (!r->tab)
		return;
	memset(r->tab, 0, r->tab_cap * sizeof(*r->tab));
	for (size_t i = 0; i < r->n; i++)
		tab_insert(r->tab, r->tab_cap, r->c[i].key, i);
}

/* The candidate of key, or NULL. */
static struct cand *find_cand(struct run *r, const char *key)
{
	if (!r->tab) {
		for (size_t i = 0; i < r->n; i++)
			if (!strcmp(r->c[i].key, key))
				return &r->c[i];
		return NULL;
	}
	size_t mask = r->tab_cap - 1;
	for (size_t h = (size_t)_kbx_fnv1a_str(key) & mask; r->tab[h]; h = (h + 1) & mask)
		if (!strcmp(r->c[r->tab[h] - 1].key, key))
			return &r->c[r->tab[h] - 1];
	return NULL;
}

/*
 * Add a candidate found at rank (from 1) of one ranked list, or fold it
 * into the one of its key found before: its score grows by the rank's
 * share and its why names both.  Takes c's strings either way.
 */
static void add_cand(struct run *r, struct cand *c, size_t rank)
{
	double share = 1.0 / (RRF_K + (double)rank);
	struct cand *o = find_cand(r, c->key);
	if (o) {
		o->p.score += share;
		r->out->plan.duplicates++;
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "%s; %s", o->p.why, c->p.why);
		if (!sb.failed) {
			free(o->p.why);
			o->p.why = strbuf_detach(&sb, NULL);
		}
		strbuf_release(&sb);
		cand_release(c);
		return;
	}
	if (r->n == r->alloc) {
		size_t a = r->alloc ? 2 * r->alloc : 32;
		struct cand *v = realloc(r->c, a * sizeof(*v));
		if (!v) {
			cand_release(c);
			r->nomem = 1;
			return;
		}
		r->c = v;
		r->alloc = a;
	}
	c->p.score = share;
	c->order = r->n;
	r->out->plan.found[c->p.step]++;
	r->c[r->n++] = *c;
	tab_put(r, r->n - 1);
}

static int cand_failed(const struct cand *c)
{
	const struct kbx_context_piece *p = &c->p;
	return !c->key || !p->id || !p->title || !p->heading || !p->path || !p->lang || !p->why ||
	       !p->severity || !p->cause || !p->fix;
}

/* A candidate from a search hit's chunk (code, document or error). */
static void add_chunk(struct run *r, size_t src, int step, const struct kbx_chunk *ch,
		      size_t rank, const char *why)
{
	struct cand c;
	memset(&c, 0, sizeof(c));
	struct strbuf key = STRBUF_INIT;
	c.p.source = src;
	c.p.step = step;
	if (ch->type == KBX_CHUNK_CODE) {
		c.p.kind = KBX_PIECE_CODE;
		c.node = ch->node;
		c.node_kind = ch->kind;
		strbuf_addf(&key, "n:%zu:%u", src, ch->node);
	} else {
		c.p.kind = ch->type == KBX_CHUNK_ERROR ? KBX_PIECE_ERROR : KBX_PIECE_DOC;
		strbuf_addf(&key, "d:%zu:%s\n%s", src, ch->doc_id, ch->path);
	}
	c.key = strbuf_detach(&key, NULL);
	c.p.id = dup_or_empty(ch->doc_id);
	c.p.title = dup_or_empty(ch->title);
	c.p.heading = dup_or_empty(ch->heading);
	c.p.path = dup_or_empty(ch->path);
	c.p.line = ch->line;
	c.p.end_line = c.p.def_end_line = ch->end_line;
	c.p.lang = dup_or_empty(ch->lang);
	c.p.why = dup_or_empty(why);
	c.p.severity = dup_or_empty(ch->severity);
	c.p.cause = dup_or_empty(ch->cause);
	c.p.fix = dup_or_empty(ch->fix);
	if (ch->type != KBX_CHUNK_CODE)
		c.doc_text = ch->text ? strndup(ch->text, ch->text_len) : strdup("");
	if (cand_failed(&c) || (ch->type != KBX_CHUNK_CODE && !c.doc_text)) {
		cand_release(&c);
		r->nomem = 1;
		return;
	}
	add_cand(r, &c, rank);
}

/* A candidate from a graph node: a body (step hybrid) or a signature
 * (step neighbours). */
static void add_node(struct run *r, size_t src, int step, int kind, const struct kbx_node *n,
		     size_t rank, double score, const char *why)
{
	struct cand c;
	memset(&c, 0, sizeof(c));
	struct strbuf key = STRBUF_INIT;
	strbuf_addf(&key, "n:%zu:%u", src, n->id);
	c.key = strbuf_detach(&key, NULL);
	c.p.kind = kind;
	c.p.source = src;
	c.p.step = step;
	c.node = n->id;
	c.node_kind = n->kind;
	c.p.id = dup_or_empty(n->cid);
	c.p.title = dup_or_empty(n->qual && *n->qual ? n->qual : n->name);
	c.p.heading = strdup("");
	c.p.path = n->path ? strndup(n->path, n->path_len) : strdup("");
	c.p.line = n->line;
	c.p.end_line = c.p.def_end_line = n->end_line;
	c.p.lang = dup_or_empty(kbx_lang_str(n->lang));
	c.p.why = dup_or_empty(why);
	c.p.severity = strdup("");
	c.p.cause = strdup("");
	c.p.fix = strdup("");
	if (cand_failed(&c)) {
		cand_release(&c);
		r->nomem = 1;
		return;
	}
	if (rank) {
		add_cand(r, &c, rank);
		return;
	}
	/* a neighbour: never in place of the symbol's own body */
	if (find_cand(r, c.key)) {
		cand_release(&c);
		return;
	}
	add_cand(r, &c, 1);
	r->c[r->n - 1].p.score = score;
}

/* Would the search filters keep a node the hybrid step found? */
static int node_passes(const struct kbx_search_query *q, const struct kbx_node *n)
{
	struct kbx_chunk ch;
	memset(&ch, 0, sizeof(ch));
	char *path = n->path ? strndup(n->path, n->path_len) : strdup("");
	if (!path)
		return 0;
	ch.type = KBX_CHUNK_CODE;
	ch.doc_id = n->cid;
	ch.title = ch.heading = ch.tags = ch.category = ch.severity = ch.pattern = "";
	ch.cause = ch.fix = ch.related = ch.text = "";
	ch.path = path;
	ch.lang = kbx_lang_str(n->lang) ? kbx_lang_str(n->lang) : "";
	int ok = kbx_search_passes(q, &ch);
	free(path);
	return ok;
}

static void fill_query(const struct kbx_context_opts *o, const struct kbx_context_source *s,
		       size_t limit, struct kbx_search_query *q)
{
	memset(q, 0, sizeof(*q));
	q->text = o->question;
	q->len = strlen(o->question);
	q->mode = o->mode;
	q->fusion = o->fusion;
	q->vector_weight = -1;
	q->limit = limit;
	q->types = o->types;
	q->lang = o->lang;
	q->tags = o->tags;
	q->ntags = o->ntags;
	q->severity = o->severity;
	q->path = o->path;
	q->embed = s->embed;
	q->refresh = 1;
}

/* Steps 1 and 2 for one source.  Returns the status of the first step
 * that failed for another reason than finding nothing. */
static kbx_status_t ask_source(struct run *r, size_t src, struct kbx_error *err)
{
	const struct kbx_context_source *s = &r->sources[src];
	const struct kbx_context_opts *o = r->opts;
	struct kbx_context_plan *plan = &r->out->plan;
	size_t limit = o->candidates ? o->candidates : DEFAULT_CANDIDATES;
	struct kbx_search_query q;
	fill_query(o, s, limit, &q);
	char why[160];
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct kbx_hybrid_opts ho;
	memset(&ho, 0, sizeof(ho));
	ho.query = o->question;
	ho.limit = limit;
	ho.w.similarity = ho.w.graph = ho.w.importance = ho.w.recency = -1;
	ho.mode = o->mode;
	ho.fusion = o->fusion;
	ho.embed = s->embed;
	struct kbx_hybrid_results hr;
	memset(&hr, 0, sizeof(hr));
	struct kbx_error herr = KBX_ERROR_INIT;
	kbx_status_t st = s->graph ? kbx_hybrid_over(s->graph, &ho, &hr, &herr)
				   : kbx_hybrid(s->store, &ho, &hr, &herr);
	if (st == KBX_ERR_USAGE || st == KBX_NOT_FOUND) {
		/* no words the plan can use, or a plan that found nothing:
		 * the search may still */
		if (st == KBX_ERR_USAGE || !hr.plan.nseeds)
			note(r, "%s%shybrid: %s", s->repo ? s->repo : "", s->repo ? ": " : "", herr.msg);
		st = KBX_OK;
	}
	if (st) {
		kbx_hybrid_release(&hr);
		*err = herr;
		return st;
	}
	if (hr.plan.relation != KBX_REL_NONE)
		r->traversal = 1;
	if (!plan->relation) {
		plan->relation = strdup(kbx_hybrid_rel_str(hr.plan.relation));
		plan->search_text = hr.plan.search_text ? strdup(hr.plan.search_text) : NULL;
		if (!plan->relation || (hr.plan.search_text && !plan->search_text))
			r->nomem = 1;
	}
	size_t rank = 0;
	int any_filter = o->types || (o->lang && *o->lang) || o->ntags ||
			 (o->severity && *o->severity) || (o->path && *o->path);
	for (size_t i = 0; i < hr.n; i++) {
		const struct kbx_node *n = &hr.items[i].node;
		if (!n->path || n->kind == KBX_KIND_FILE || !n->line || !n->end_line)
			continue;
		if (any_filter && !node_passes(&q, n))
			continue;
		snprintf(why, sizeof(why), "hybrid %s #%zu", kbx_hybrid_rel_str(hr.plan.relation), i + 1);
		add_node(r, src, KBX_STEP_HYBRID, KBX_PIECE_CODE, n, ++rank, 0, why);
	}
	rank = 0;
	for (size_t i = 0; i < hr.docs.n; i++) {
		const struct kbx_chunk *ch = &hr.docs.hits[i].chunk;
		if (any_filter && !kbx_search_passes(&q, ch))
			continue;
		snprintf(why, sizeof(why), "hybrid document #%zu", i + 1);
		add_chunk(r, src, KBX_STEP_HYBRID, ch, ++rank, why);
	}
	kbx_hybrid_release(&hr);
	plan->ms[KBX_STEP_HYBRID] += ms_since(&t0);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct kbx_search_results sr;
	memset(&sr, 0, sizeof(sr));
	struct kbx_error serr = KBX_ERROR_INIT;
	st = s->graph ? s->graph->search(s->graph->data, &q, &sr, &serr)
		      : kbx_search(s->store, &q, &sr, &serr);
	if (st && st != KBX_NOT_FOUND) {
		kbx_search_results_release(&sr);
		*err = serr;
		return st;
	}
	for (int sg = 0; sg < KBX_SIG__COUNT; sg++)
		if (sr.sig[sg].note[0])
			note(r, "%s%ssearch: %s", s->repo ? s->repo : "", s->repo ? ": " : "",
			     sr.sig[sg].note);
	for (size_t i = 0; i < sr.n; i++) {
		const struct kbx_chunk *ch = &sr.hits[i].chunk;
		if (ch->type == KBX_CHUNK_CODE && (!ch->node || !ch->line))
			continue;
		snprintf(why, sizeof(why), "search #%zu (%s)", i + 1, kbx_chunk_type_str(ch->type));
		add_chunk(r, src, KBX_STEP_SEARCH, ch, i + 1, why);
	}
	kbx_search_results_release(&sr);
	plan->ms[KBX_STEP_SEARCH] += ms_since(&t0);
	return KBX_OK;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (x->p.score != y->p.score)
		return x->p.score > y->p.score ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

struct walk {
	struct run *r;
	size_t src;
	const struct cand *central;
	int dir;
	size_t taken;
};

static int walk_one(void *data, const struct kbx_edge *e)
{
	struct walk *w = data;
	const struct kbx_node *n = w->dir == KBX_DIR_IN ? &e->from : &e->to;
	if (!n->path || !n->line || !KBX_KIND_IS_CALLABLE(n->kind) || n->id == w->central->node)
		return 0;
	char why[320];
	snprintf(why, sizeof(why), "%s %s", w->dir == KBX_DIR_IN ? "calls" : "called by",
		 w->central->p.title);
	add_node(w->r, w->src, KBX_STEP_NEIGHBOURS, KBX_PIECE_SIGNATURE, n, 0,
		 w->central->p.score * NEIGHBOUR_WEIGHT, why);
	return ++w->taken >= KBX_CONTEXT_NEIGHBOURS || w->r->nomem;
}

/* Step 3: the callers and callees of the best few functions. */
static kbx_status_t add_neighbours(struct run *r, struct kbx_error *err)
{
	struct kbx_context_plan *plan = &r->out->plan;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t ncentral = 0, n = r->n;
	for (size_t i = 0; i < n && ncentral < KBX_CONTEXT_CENTRAL && !r->nomem; i++) {
		if (r->c[i].p.kind != KBX_PIECE_CODE || !KBX_KIND_IS_CALLABLE(r->c[i].node_kind))
			continue;
		/* copied: adding neighbours may move the array */
		struct cand central = r->c[i];
		char **v = realloc(plan->central, (plan->ncentral + 1) * sizeof(*v));
		if (!v || !(v[plan->ncentral] = strdup(central.p.id))) {
			if (v)
				plan->central = v;
			r->nomem = 1;
			break;
		}
		plan->central = v;
		plan->ncentral++;
		ncentral++;
		central.p.title = strdup(central.p.title);
		if (!central.p.title) {
			r->nomem = 1;
			break;
		}
		const struct kbx_hybrid_graph *g = r->sources[central.p.source].graph;
		struct kbx_node cn;
		kbx_status_t gst = g ? g->node(g->data, central.node, &cn, err) : KBX_OK;
		if (gst && gst != KBX_NOT_FOUND) {
			free(central.p.title);
			return gst;
		}
		for (int dir = KBX_DIR_IN; dir >= KBX_DIR_OUT && !gst; dir--) {
			struct walk w = { r, central.p.source, &central, dir, 0 };
			kbx_status_t st = g ? g->walk(g->data, &cn, KBX_EDGE_CALLS, dir, 1, 0, walk_one, &w,
						      err)
					    : kbx_walk_edges(r->sources[central.p.source].store,
							     central.node, KBX_EDGE_CALLS, dir, 1, walk_one,
							     &w, err);
			if (st && st != KBX_NOT_FOUND) {
				free(central.p.title);
				return st;
			}
		}
		free(central.p.title);
	}
	plan->ms[KBX_STEP_NEIGHBOURS] = ms_since(&t0);
	return KBX_OK;
}

/* A line of a file as the code chunks give it; prio: 1 a type's (a
 * class's header, its members' names after it), 2 another's. */
struct chunk_line {
	const char *p;
	size_t len;
	int prio;
};

struct chunk_file {
	struct run *r;
	char **texts;            /* copies of the chunks' texts */
	size_t ntexts;
	struct chunk_line *lines;  /* lines[0] is line 1 */
	size_t nlines;
};

static int looks_comment(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p == '\n' || *p == '\r')
		return 0;
	return *p == '#' || *p == '@' || (*p == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*')) ||
	       *p == '*' || (p + 1 < end && p[0] == '-' && p[1] == '-');
}

/*
 * A chunk's text on the lines it came from.  The text is the
 * definition's lines [line, end_line] after the comment lines above
 * it (kbx index's chunks): where its last line is end_line, the count
 * of its lines says where it starts; else (a class, whose text ends at
 * its first member and names its members, a text cut at its size
 * limit, a C function's declaration comment after it) the definition's
 * line is the first that is no comment.
 */
static int take_chunk_lines(void *data, uint32_t id, const struct kbx_chunk *c)
{
	struct chunk_file *cf = data;
	(void)id;
	if (!c->line || c->end_line < c->line || c->end_line > 10000000)
		return 0;
	char **tv = realloc(cf->texts, (cf->ntexts + 1) * sizeof(*tv));
	char *t = tv ? strndup(c->text, c->text_len) : NULL;
	if (tv)
		cf->texts = tv;
	if (!t) {
		cf->r->nomem = 1;
		return 1;
	}
	cf->texts[cf->ntexts++] = t;
	if (c->end_line > cf->nlines) {
		struct chunk_line *nl = realloc(cf->lines, c->end_line * sizeof(*nl));
		if (!nl) {
			cf->r->nomem = 1;
			return 1;
		}
		memset(nl + cf->nlines, 0, (c->end_line - cf->nlines) * sizeof(*nl));
		cf->lines = nl;
		cf->nlines = c->end_line;
	}
	size_t k = 0, lead = 0, len = strlen(t);
	int in_lead = 1;
	for (const char *p = t; p < t + len; k++) {
		const char *e = memchr(p, '\n', (size_t)(t + len - p));
		e = e ? e + 1 : t + len;
		if (in_lead && looks_comment(p, e) && lead < 40)
			lead++;
		else
			in_lead = 0;
		p = e;
	}
	size_t span = c->end_line - c->line;
	size_t at = k > span && k - 1 - span <= lead ? k - 1 - span : lead;
	int prio = KBX_KIND_IS_TYPE(c->kind) ? 1 : 2;
	size_t i = 0;
	for (const char *p = t; p < t + len; i++) {
		const char *e = memchr(p, '\n', (size_t)(t + len - p));
		e = e ? e + 1 : t + len;
		if (i >= at) {
			size_t ln = c->line + (i - at);  /* 1-based */
			if (ln > c->end_line)
				break;
			struct chunk_line *l = &cf->lines[ln - 1];
			if (prio >= l->prio) {
				l->p = p;
				l->len = (size_t)(e - p);
				l->prio = prio;
			}
		}
		p = e;
	}
	return 0;
}

/* A file of a graph source made of its code chunks' lines (see struct
 * kbx_context_source).  Returns 0, or -1 with f->bad set. */
static int graph_file(struct run *r, const struct kbx_hybrid_graph *g, struct cached_file *f)
{
	struct chunk_file cf = { r, NULL, 0, NULL, 0 };
	struct kbx_error e = KBX_ERROR_INIT;
	kbx_status_t st = g->file_chunks(g->data, f->path, take_chunk_lines, &cf, &e);
	int ok = !st && !r->nomem && cf.nlines;
	for (size_t i = 0; ok && i < cf.nlines; i++) {
		if (cf.lines[i].len)
			strbuf_add(&f->buf, cf.lines[i].p, cf.lines[i].len);
		if (!cf.lines[i].len || cf.lines[i].p[cf.lines[i].len - 1] != '\n')
			strbuf_addch(&f->buf, '\n');
	}
	f->starts = ok ? malloc((cf.nlines + 2) * sizeof(*f->starts)) : NULL;
	if (ok && (f->buf.failed || !f->starts)) {
		r->nomem = 1;
		ok = 0;
	}
	if (ok) {
		f->starts[0] = 0;
		for (size_t i = 0; i < f->buf.len; i++)
			if (f->buf.buf[i] == '\n')
				f->starts[++f->nlines] = i + 1;
	}
	for (size_t i = 0; i < cf.ntexts; i++)
		free(cf.texts[i]);
	free(cf.texts);
	free(cf.lines);
	if (ok)
		return 0;
	if (!r->nomem)
		note(r, "cannot read the definitions of '%s'%s%s; its pieces are left out", f->path,
		     st ? ": " : " in the database", st ? e.msg : "");
	f->bad = 1;
	return -1;
}

/*
 * Is f the text kbx index read, and if not, which definitions are still
 * at the lines the index gives?  The file's hash against the one the
 * index recorded, then, for a file edited since, the definitions
 * extracted again (kbx_defs_in_place).  When that cannot be told, none
 * is taken to be in place, and still_there() leaves them out.
 */
static void compare_with_index(struct run *r, size_t src, struct cached_file *f)
{
	struct kbx_error e = KBX_ERROR_INIT;
	if (!r->cmps && !(r->cmps = calloc(r->nsources, sizeof(*r->cmps)))) {
		r->nomem = 1;
		return;
	}
	if (!r->cmps[src] &&
	    kbx_comparer_new(r->sources[src].store, KBX_INDEX_IS_OLD, &r->cmps[src], &e)) {
		r->nomem = 1;
		return;
	}
	kbx_status_t st = kbx_defs_in_place(r->cmps[src], f->path, f->buf.buf, f->buf.len, &f->same,
					    &f->kept, &e);
	if (st == KBX_ERR_NOMEM)
		r->nomem = 1;
	else if (st && st != KBX_NOT_FOUND)
		note(r, "cannot compare '%s' with the index: %s", f->path, e.msg);
}

/* A repository file, read once per pack; NULL (with a note) when it
 * cannot be read as the rules say. */
static struct cached_file *get_file(struct run *r, size_t src, const char *path)
{
	for (size_t i = 0; i < r->nfiles; i++)
		if (r->files[i].source == src && !strcmp(r->files[i].path, path))
			return r->files[i].bad ? NULL : &r->files[i];
	struct cached_file *v = realloc(r->files, (r->nfiles + 1) * sizeof(*v));
	if (!v) {
		r->nomem = 1;
		return NULL;
	}
	r->files = v;
	struct cached_file *f = &r->files[r->nfiles];
	memset(f, 0, sizeof(*f));
	f->source = src;
	f->path = strdup(path);
	if (!f->path) {
		r->nomem = 1;
		return NULL;
	}
	r->nfiles++;
	const struct kbx_hybrid_graph *g = r->sources[src].graph;
	if (g) {
		f->same = 1;
		return graph_file(r, g, f) ? NULL : f;
	}
	const char *root = kbx_store_root(r->sources[src].store);
	int rc = strbuf_read_regular_at(&f->buf, root, path, r->max_file_size);
	if (rc) {
		const char *why = rc == STRBUF_TOO_BIG ? "it is larger than the size limit"
				  : rc == STRBUF_NOT_REGULAR ? "it is not a regular file"
				  : errno == ELOOP ? "a symbolic link is on its way (kbx-security(7))"
				  : errno == ENOENT ? "it is gone since it was indexed"
				  : strerror(errno);
		note(r, "cannot read '%s': %s; its pieces are left out", path, why);
		f->bad = 1;
		return NULL;
	}
	size_t nl = 0;
	for (size_t i = 0; i < f->buf.len; i++)
		nl += f->buf.buf[i] == '\n';
	f->starts = malloc((nl + 2) * sizeof(*f->starts));
	if (!f->starts) {
		r->nomem = 1;
		f->bad = 1;
		return NULL;
	}
	f->starts[0] = 0;
	for (size_t i = 0; i < f->buf.len; i++)
		if (f->buf.buf[i] == '\n')
			f->starts[++f->nlines] = i + 1;
	/* a last line without a newline */
	if (!f->nlines || f->starts[f->nlines] < f->buf.len)
		f->starts[++f->nlines] = f->buf.len;
	compare_with_index(r, src, f);
	return f;
}

/*
 * Is the definition still where the index put it?  Its lines within the
 * file, and the file the text the index read or the definition found at
 * those same lines in it again.  Not its name among the lines: a
 * constructor is "constructor" to the index, a googletest case
 * "TestBody", and neither name is written there.
 */
static int still_there(struct run *r, const struct cand *c, const struct cached_file *f)
{
	if (!c->p.line || c->p.def_end_line < c->p.line || c->p.def_end_line > f->nlines) {
		note(r, "'%s' has changed since it was indexed: it has %zu lines, the index puts %s at lines %u-%u; left out (run kbx index)",
		     c->p.path, f->nlines, c->p.title, c->p.line, c->p.def_end_line);
		return 0;
	}
	if (f->same)
		return 1;
	for (size_t i = 0; c->node && i < f->kept.n; i++) {
		const struct kbx_def_place *k = &f->kept.items[i];
		if (k->id == c->node && k->line == c->p.line && c->p.def_end_line <= k->end_line)
			return 1;
	}
	note(r, "'%s' has changed since it was indexed: '%s' is no longer at lines %u-%u; left out (run kbx index)",
	     c->p.path, c->p.title, c->p.line, c->p.def_end_line);
	return 0;
}

/* The last line of a signature: where the body opens, at most
 * SIGNATURE_LINES lines down. */
static uint32_t signature_end(const struct cached_file *f, uint32_t line, uint32_t end)
{
	for (uint32_t l = line; l <= end && l < line + SIGNATURE_LINES; l++) {
		size_t s = f->starts[l - 1], e = f->starts[l];
		while (e > s && (f->buf.buf[e - 1] == '\n' || f->buf.buf[e - 1] == ' ' ||
				 f->buf.buf[e - 1] == '\t' || f->buf.buf[e - 1] == '\r'))
			e--;
		if (memchr(f->buf.buf + s, '{', e - s) || (e > s && (f->buf.buf[e - 1] == ':' ||
								     f->buf.buf[e - 1] == ';')))
			return l;
		/* a Ruby def, or a Python one ending "-> T:" on the next line */
	}
	uint32_t last = line + SIGNATURE_LINES - 1;
	return last < end ? last : end;
}

static void set_header(struct kbx_context_piece *p, const char *repo, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (repo)
		strbuf_addf(sb, "[%s] ", repo);
	if (*p->path && p->line)
		strbuf_addf(sb, "%s:%u-%u", p->path, p->line, p->end_line);
	else if (*p->path)
		strbuf_addstr(sb, p->path);
	strbuf_addf(sb, "  %s  (%s)", p->id, p->why);
	free(p->header);
	p->header = strbuf_detach(sb, NULL);
}

static size_t piece_tokens(const struct kbx_context_piece *p)
{
	return kbx_context_tokens(p->header, strlen(p->header)) +
	       kbx_context_tokens(p->text, strlen(p->text)) + KBX_CONTEXT_PIECE_OVERHEAD;
}

/* The text of a document or error piece. */
static char *doc_text(const struct cand *c)
{
	if (c->p.kind == KBX_PIECE_DOC || (!*c->p.cause && !*c->p.fix))
		return strdup(c->doc_text);
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, c->p.title);
	if (*c->p.severity)
		strbuf_addf(&sb, " (%s)", c->p.severity);
	strbuf_addch(&sb, '\n');
	if (*c->p.cause)
		strbuf_addf(&sb, "Cause: %s\n", c->p.cause);
	if (*c->p.fix)
		strbuf_addf(&sb, "Fix: %s\n", c->p.fix);
	if (sb.failed) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* An error entry shortened: its title and the first sentence of its
 * cause, the fix left out and said so; 0 when out of memory or when the
 * entry is that short already. */
static int shorten_entry(char **text, const struct cand *c, struct strbuf *sb)
{
	const char *cause = c->p.cause;
	size_t n = strlen(cause), cut = 0;
	while (cut < n && cut < SHORT_BYTES / 2 &&
	       !(cause[cut] == '.' && (cause[cut + 1] == ' ' || cause[cut + 1] == '\n' || !cause[cut + 1])))
		cut++;
	if (cut < n && cause[cut] == '.')
		cut++;
	while (cut && ((unsigned char)cause[cut] & 0xC0) == 0x80)
		cut--;
	if (cut >= n && !*c->p.fix)
		return 0;
	strbuf_reset(sb);
	strbuf_addstr(sb, c->p.title);
	if (*c->p.severity)
		strbuf_addf(sb, " (%s)", c->p.severity);
	strbuf_addf(sb, "\nCause: %.*s%s\n[kbx: shortened to leave room: %s left out]\n", (int)cut,
		    cause, cut < n ? " ..." : "", cut < n ? "the rest of the cause and the fix" : "the fix");
	if (sb->failed)
		return 0;
	free(*text);
	*text = strbuf_detach(sb, NULL);
	return *text != NULL;
}

/* A document's section shortened: its title and heading on one line,
 * then its first lines of prose (headings and blank lines skipped: the
 * chunk's text starts with the title and heading, and the section with
 * its heading again), SHORT_BYTES / 2 at most; 0 as for shorten(). */
static int shorten_doc(char **text, struct strbuf *sb)
{
	const char *t = *text, *end = t + strlen(t);
	const char *l1 = t, *e1 = memchr(t, '\n', (size_t)(end - t));
	if (!e1)
		return 0;
	const char *l2 = e1 + 1, *e2 = memchr(l2, '\n', (size_t)(end - l2));
	if (!e2)
		return 0;
	strbuf_reset(sb);
	strbuf_add(sb, l1, (size_t)(e1 - l1));
	if (e2 > l2)
		strbuf_addf(sb, " / %.*s", (int)(e2 - l2), l2);
	strbuf_addch(sb, '\n');
	size_t kept = 0, lines = 0;
	const char *p = e2 + 1;
	while (p < end) {
		const char *e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		int skip = e == p || *p == '#';
		if (!skip && kept >= SHORT_BYTES / 2)
			break;
		if (!skip) {
			size_t len = (size_t)(e - p), room = SHORT_BYTES / 2 - kept;
			if (len > room) {
				len = room;
				while (len && ((unsigned char)p[len] & 0xC0) == 0x80)
					len--;
			}
			strbuf_add(sb, p, len);
			strbuf_addstr(sb, len < (size_t)(e - p) ? " ...\n" : "\n");
			kept += len + 1;
		}
		p = e < end ? e + 1 : end;
	}
	for (const char *q = p; q < end; q++)
		lines += *q == '\n';
	lines += end > p && end[-1] != '\n';
	if (p >= end)
		return 0;  /* all of it kept: no shorter */
	strbuf_addf(sb, "[kbx: shortened to leave room: %zu more line%s left out]\n", lines,
		    lines == 1 ? "" : "s");
	if (sb->failed)
		return 0;
	free(*text);
	*text = strbuf_detach(sb, NULL);
	return *text != NULL;
}

/* Cut *text to its first SHORT_LINES lines (SHORT_BYTES at most, at a
 * character boundary) and a marker saying how much was left out; 0 when
 * it is that short already or out of memory. */
static int shorten(char **text, struct strbuf *sb)
{
	const char *t = *text;
	size_t len = strlen(t), cut = 0, lines = 0;
	while (cut < len && lines < SHORT_LINES && cut < SHORT_BYTES) {
		if (t[cut++] == '\n')
			lines++;
	}
	if (cut > SHORT_BYTES) {
		cut = SHORT_BYTES;
		while (cut && ((unsigned char)t[cut] & 0xC0) == 0x80)
			cut--;
	}
	if (cut >= len)
		return 0;
	size_t rest = t[len - 1] != '\n';
	for (size_t i = cut; i < len; i++)
		rest += t[i] == '\n';
	strbuf_reset(sb);
	strbuf_add(sb, t, cut);
	if (cut && t[cut - 1] != '\n')
		strbuf_addch(sb, '\n');
	strbuf_addf(sb, "[kbx: shortened to leave room: %zu more line%s left out]\n", rest,
		    rest == 1 ? "" : "s");
	if (sb->failed)
		return 0;
	free(*text);
	*text = strbuf_detach(sb, NULL);
	return *text != NULL;
}

static char *file_lines(const struct cached_file *f, uint32_t from, uint32_t to)
{
	size_t s = f->starts[from - 1], e = f->starts[to];
	char *t = strndup(f->buf.buf + s, e - s);
	/* the text is a C string: a NUL in the file reads as a blank */
	for (size_t i = 0; t && i < e - s; i++)
		if (!t[i])
			t[i] = ' ';
	return t;
}

/* p's text (taken) and its last line, cut or not, its header made
 * again; 0 when out of memory. */
static int put_text(struct run *r, struct kbx_context_piece *p, char *text, uint32_t end_line,
		    int cut, struct strbuf *sb)
{
	free(p->text);
	p->text = text;
	p->end_line = end_line;
	p->cut = cut;
	set_header(p, r->sources[p->source].repo, sb);
	return p->header != NULL;
}

/* Cut a body to at most room tokens, whole lines and the marker.
 * Returns 0 when not even its first line fits. */
static int cut_body(struct run *r, struct kbx_context_piece *p, const struct cached_file *f,
		    size_t room, struct strbuf *sb)
{
	uint32_t lo = p->line, hi = p->def_end_line - 1, best = 0;
	char *best_text = NULL;
	while (lo <= hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		char *body = file_lines(f, p->line, mid);
		if (!body) {
			r->nomem = 1;
			break;
		}
		strbuf_reset(sb);
		strbuf_addf(sb, "%s[kbx: cut here to fit the budget: lines %u-%u of %s left out]\n", body,
			    mid + 1, p->def_end_line, p->title);
		free(body);
		free(p->text);
		p->text = strbuf_detach(sb, NULL);
		p->end_line = mid;
		set_header(p, r->sources[p->source].repo, sb);
		if (!p->text || !p->header) {
			r->nomem = 1;
			break;
		}
		if (piece_tokens(p) <= room) {
			best = mid;
			free(best_text);
			best_text = strdup(p->text);
			lo = mid + 1;
		} else {
			if (mid == p->line)
				break;
			hi = mid - 1;
		}
	}
	if (!best || !best_text) {
		free(best_text);
		return 0;
	}
	return put_text(r, p, best_text, best, 1, sb);
}

/*
 * The first body, when the candidates after it would not all fit: cut to
 * at most cap tokens, so that one long function does not leave room for
 * nothing else (a 1,600-token function took four fifths of a 2,000-token
 * pack).  Kept whole when not even its first line fits.  Returns 0 when
 * out of memory.
 */
static int cap_first(struct run *r, struct kbx_context_piece *p, const struct cached_file *f,
		     size_t cap, struct strbuf *sb)
{
	uint32_t end = p->end_line;
	char *whole = strdup(p->text);
	if (!whole) {
		r->nomem = 1;
		return 0;
	}
	if (cut_body(r, p, f, cap, sb)) {
		free(whole);
		p->tokens = piece_tokens(p);
		return 1;
	}
	if (!put_text(r, p, whole, end, 0, sb) || r->nomem) {
		r->nomem = 1;
		return 0;
	}
	return 1;
}

static int overlaps(const struct kbx_context *out, const struct kbx_context_piece *p)
{
	if (!*p->path || !p->line)
		return 0;
	for (size_t i = 0; i < out->n; i++) {
		const struct kbx_context_piece *q = &out->pieces[i];
		if (q->source == p->source && q->line && !strcmp(q->path, p->path) &&
		    q->line <= p->def_end_line && p->line <= q->end_line)
			return 1;
	}
	return 0;
}

/* About what candidate c costs packed whole (its header estimated from
 * its path and title); 0 when its file cannot be read.  Says nothing:
 * the packing below notes what it leaves out. */
static size_t whole_tokens(struct run *r, const struct cand *c)
{
	const struct kbx_context_piece *p = &c->p;
	char *text;
	if (p->kind == KBX_PIECE_CODE || p->kind == KBX_PIECE_SIGNATURE) {
		const struct cached_file *f = get_file(r, p->source, p->path);
		if (!f || !p->line || p->def_end_line < p->line || p->def_end_line > f->nlines)
			return 0;
		uint32_t end = p->kind == KBX_PIECE_SIGNATURE ? signature_end(f, p->line, p->def_end_line)
							       : p->end_line;
		text = file_lines(f, p->line, end);
	} else {
		text = doc_text(c);
	}
	if (!text)
		return 0;
	size_t t = kbx_context_tokens(text, strlen(text)) + kbx_context_tokens(p->path, strlen(p->path)) +
		   kbx_context_tokens(p->title, strlen(p->title)) + KBX_CONTEXT_PIECE_OVERHEAD;
	free(text);
	return t;
}

/* The kinds a pack keeps leaders of: code (bodies and signatures),
 * document sections, error entries. */
static int kind_of(const struct cand *c)
{
	return c->p.kind == KBX_PIECE_SIGNATURE ? KBX_PIECE_CODE : c->p.kind;
}

/*
 * The best KIND_LEADERS candidates of each kind other than the first
 * candidate's come right after it, in score order; then the rest, by
 * score.  Where code and a registry are indexed together, code is most
 * of the index and fills the ranks: a question that a registry's entry
 * or document answers found it, but below so many functions that a pack
 * held only code.  Chosen on the dev questions (README "Context packs"):
 * 3 rather than 2 or 5.  Not when the hybrid step walked the graph: the
 * answer to "what calls X" is its callers.  0 when out of memory.
 */
#define KIND_LEADERS 3

static int leaders_first(struct run *r)
{
	struct cand *order = malloc(r->n * sizeof(*order));
	unsigned char *taken = calloc(r->n, 1);
	if (!order || !taken) {
		free(order);
		free(taken);
		r->nomem = 1;
		return 0;
	}
	size_t m = 0, led[KBX_PIECE_ERROR + 1] = { 0 };
	int first = kind_of(&r->c[0]);
	order[m++] = r->c[0];
	taken[0] = 1;
	for (size_t i = 1; i < r->n; i++) {
		int k = kind_of(&r->c[i]);
		if (k != first && k <= KBX_PIECE_ERROR && led[k] < KIND_LEADERS) {
			led[k]++;
			order[m++] = r->c[i];
			taken[i] = 1;
		}
	}
	for (size_t i = 1; i < r->n; i++)
		if (!taken[i])
			order[m++] = r->c[i];
	memcpy(r->c, order, r->n * sizeof(*order));
	free(order);
	free(taken);
	return 1;
}

/* Step 4. */
static void pack(struct run *r)
{
	struct kbx_context *out = r->out;
	struct kbx_context_plan *plan = &out->plan;
	struct strbuf sb = STRBUF_INIT;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* sorted, the table's indexes are stale: no more lookups by key */
	free(r->tab);
	r->tab = NULL;
	r->tab_cap = 1;
	if (r->n > 1)
		qsort(r->c, r->n, sizeof(*r->c), cand_cmp);
	/* a question of meaning; the answer to "what calls X" is its
	 * callers, in their order */
	if (r->n > 2 && !r->traversal && !leaders_first(r))
		return;
	plan->candidates = r->n;
	out->pieces = calloc(r->n ? r->n : 1, sizeof(*out->pieces));
	if (!out->pieces) {
		r->nomem = 1;
		return;
	}
	int any_code = 0;
	size_t full = 0;        /* whole pieces packed: bodies, documents, entries */
	/* what the candidates from i on cost whole: none is shortened
	 * while they all fit */
	size_t *after = calloc(r->n + 1, sizeof(*after));
	if (!after) {
		r->nomem = 1;
		return;
	}
	for (size_t i = r->n; i-- > 0;)
		after[i] = after[i + 1] + whole_tokens(r, &r->c[i]);
	for (size_t i = 0; i < r->n && !r->nomem; i++) {
		struct cand *c = &r->c[i];
		struct kbx_context_piece *p = &c->p;
		size_t room = out->budget - out->tokens;
		if (room <= KBX_CONTEXT_PIECE_OVERHEAD) {
			plan->over_budget++;
			continue;
		}
		if (overlaps(out, p)) {
			plan->overlaps++;
			continue;
		}
		const struct cached_file *f = NULL;
		if (p->kind == KBX_PIECE_CODE || p->kind == KBX_PIECE_SIGNATURE) {
			f = get_file(r, p->source, p->path);
			if (!f || !still_there(r, c, f)) {
				plan->stale++;
				continue;
			}
			if (p->kind == KBX_PIECE_CODE) {
				p->text = file_lines(f, p->line, p->end_line);
				set_header(p, r->sources[p->source].repo, &sb);
				if (!p->text || !p->header) {
					r->nomem = 1;
					break;
				}
				/* past the first whole pieces, or a body that
				 * would take more than a third of what is left:
				 * its signature, so that more candidates fit */
				if (full && after[i] > room &&
				    (full >= CONTEXT_FULL || piece_tokens(p) > room / 3)) {
					free(p->text);
					p->text = NULL;
					p->kind = KBX_PIECE_SIGNATURE;
					p->shortened = 1;
				}
			}
			if (p->kind == KBX_PIECE_SIGNATURE) {
				p->end_line = signature_end(f, p->line, p->def_end_line);
				p->text = file_lines(f, p->line, p->end_line);
			}
		} else {
			p->text = doc_text(c);
			set_header(p, r->sources[p->source].repo, &sb);
			/* the same for a document (its first lines) or an
			 * entry (its title and the first sentence of its
			 * cause) */
			if (p->text && p->header && full && after[i] > room &&
			    (full >= CONTEXT_FULL || piece_tokens(p) > room / 3) &&
			    (p->kind == KBX_PIECE_ERROR && *p->cause ? shorten_entry(&p->text, c, &sb)
			     : p->kind == KBX_PIECE_DOC		 ? shorten_doc(&p->text, &sb)
								 : shorten(&p->text, &sb)))
				p->shortened = 1;
		}
		set_header(p, r->sources[p->source].repo, &sb);
		if (!p->text || !p->header) {
			r->nomem = 1;
			break;
		}
		p->tokens = piece_tokens(p);
		if (p->kind == KBX_PIECE_CODE && !any_code && after[i] > room &&
		    p->tokens > out->budget / 2 && !cap_first(r, p, f, out->budget / 2, &sb))
			break;
		if (p->tokens > room) {
			/* a body alone larger than what is left: cut it when it is
			 * the first, or when a good part of the budget is left,
			 * keeping some room for the smaller pieces after it */
			size_t keep = any_code ? room / 5 : 0;
			if (p->kind != KBX_PIECE_CODE || (any_code && room < out->budget / 4) ||
			    !cut_body(r, p, f, room - keep, &sb)) {
				plan->over_budget++;
				continue;
			}
			p->tokens = piece_tokens(p);
		}
		any_code |= p->kind == KBX_PIECE_CODE;
		full += p->kind != KBX_PIECE_SIGNATURE && !p->shortened;
		plan->shortened += p->shortened;
		out->tokens += p->tokens;
		plan->packed[p->step]++;
		out->pieces[out->n++] = *p;
		memset(p, 0, sizeof(*p));
	}
	free(after);
	strbuf_release(&sb);
	plan->ms_pack = ms_since(&t0);
}

kbx_status_t kbx_context(const struct kbx_context_source *sources, size_t nsources,
			 const struct kbx_context_opts *opts, struct kbx_context *out,
			 struct kbx_error *err)
{
	memset(out, 0, sizeof(*out));
	out->budget = opts->budget ? opts->budget : KBX_CONTEXT_DEFAULT_BUDGET;
	if (out->budget < KBX_CONTEXT_MIN_BUDGET || out->budget > KBX_CONTEXT_MAX_BUDGET)
		return _kbx_fail(err, KBX_ERR_USAGE, "the budget must be from %d to %d tokens",
				 KBX_CONTEXT_MIN_BUDGET, KBX_CONTEXT_MAX_BUDGET);
	const char *q = opts->question ? opts->question : "";
	while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
		q++;
	if (!*q)
		return _kbx_fail(err, KBX_ERR_USAGE, "the question is empty");
	struct run r;
	memset(&r, 0, sizeof(r));
	r.sources = sources;
	r.nsources = nsources;
	r.opts = opts;
	r.out = out;
	r.max_file_size = opts->max_file_size ? opts->max_file_size : DEFAULT_MAX_FILE_SIZE;
	kbx_status_t st = KBX_OK;
	size_t asked = 0;
	for (size_t i = 0; i < nsources && !r.nomem; i++) {
		struct kbx_error e = KBX_ERROR_INIT;
		st = ask_source(&r, i, &e);
		if (st == KBX_ERR_NOMEM)
			r.nomem = 1;
		if (st && nsources == 1) {
			*err = e;
			goto out;
		}
		if (st) {
			note(&r, "skipping '%s': %s", sources[i].repo ? sources[i].repo : "?", e.msg);
			continue;
		}
		asked++;
	}
	if (!r.nomem && !asked) {
		st = _kbx_fail(err, KBX_ERR_IO, "no repository could be asked");
		goto out;
	}
	if (r.n > 1)
		qsort(r.c, r.n, sizeof(*r.c), cand_cmp);
	tab_rebuild(&r);
	st = KBX_OK;
	if (!r.nomem)
		st = add_neighbours(&r, err);
	if (st)
		goto out;
	if (!r.nomem)
		pack(&r);
	if (r.nomem)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	else if (!out->n && r.n)
		st = _kbx_fail(err, KBX_NOT_FOUND, "nothing found fits in %zu tokens", out->budget);
	else if (!out->n)
		st = _kbx_fail(err, KBX_NOT_FOUND, "nothing found for the question");
out:
	for (size_t i = 0; i < r.n; i++)
		cand_release(&r.c[i]);
	free(r.c);
	free(r.tab);
	for (size_t i = 0; i < r.nfiles; i++) {
		free(r.files[i].path);
		strbuf_release(&r.files[i].buf);
		free(r.files[i].starts);
		kbx_def_places_release(&r.files[i].kept);
	}
	free(r.files);
	for (size_t i = 0; r.cmps && i < nsources; i++)
		kbx_comparer_free(r.cmps[i]);
	free(r.cmps);
	return st;
}

void kbx_context_release(struct kbx_context *c)
{
	for (size_t i = 0; i < c->n; i++)
		piece_release(&c->pieces[i]);
	free(c->pieces);
	struct kbx_context_plan *p = &c->plan;
	free(p->relation);
	free(p->search_text);
	for (size_t i = 0; i < p->ncentral; i++)
		free(p->central[i]);
	free(p->central);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	memset(c, 0, sizeof(*c));
}
