/*
 * kbx path: the shortest chain of calls (or imports) from one symbol to
 * another, every step with its call or import site.
 *
 *   kbx path [--kind=calls|imports] [--all] [--certain] <from> <to>
 *
 * A breadth-first search from both ends at once, a layer at a time, each
 * hop one range scan of the edge tables: forward along the edges out of
 * <from>, backward along the edges into <to>, always the side with the
 * smaller frontier, until the two meet.  Every node remembers all its
 * neighbours one layer nearer its end, so --all can list every shortest
 * path.  A call through a name that several definitions share is a
 * step to each of them, marked ambiguous wherever it is used; among
 * shortest paths the ones with fewer ambiguous steps come first.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "builtin.h"
#include "db-graph.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"

static const char *const path_usage[] = {
	"kbx path [--kind=<kind>] [--max-depth=<n>] [--all] [--limit=<n>] [--certain] [--format=<format>] <from> <to>",
	NULL
};

static const char *const kind_names[] = { "calls", "imports", NULL };

/* One edge between a node and a neighbour one layer nearer its side's end. */
struct link {
	uint32_t other;         /* the neighbour's entry */
	uint32_t line, col;     /* the site, in the calling or importing file */
	uint32_t ncandidates;   /* ambiguous: how many definitions it could mean */
	int certain;
	uint32_t next;          /* the entry's next link, or NONE */
};

#define NONE UINT32_MAX

/* A node one side has reached. */
struct entry {
	uint32_t repo;          /* kbx --db: its repository's index among those asked */
	uint32_t id;
	uint32_t dist;          /* steps from the side's end */
	uint32_t namb;          /* fewest ambiguous steps on a way of that length */
	uint32_t links;         /* first link, or NONE (the end itself) */
};

struct side {
	int dir;                /* KBX_DIR_OUT from <from>, KBX_DIR_IN from <to> */
	struct entry *e;
	size_t n, alloc;
	uint32_t *slots;        /* open addressing: node id -> entry + 1 (0 empty) */
	size_t nslots;
	uint32_t *frontier, *next;
	size_t nfrontier, nnext, afrontier, anext;
	uint32_t depth;         /* the layers done */
};

struct search {
	kbx_store_t *store;
	struct db_graph *db;    /* kbx --db: ask the database instead */
	int db_rc;              /* its exit code, the error printed */
	struct db_edge_repos at; /* kbx --db: the repositories of the edge handed over */
	int kind;
	unsigned walk_flags;    /* KBX_WALK_CERTAIN with --certain */
	struct side fwd, bwd;
	struct link *links;
	size_t nlinks, alinks;
	struct kbx_cand_cache cands;
	/* while expanding: the side and the entry being expanded */
	struct side *cur;
	uint32_t cur_entry;
	int nomem;
	kbx_status_t st;
	struct kbx_error *err;
};

static uint32_t hash_id(uint32_t repo, uint32_t id)
{
	id ^= repo * 0x9e3779b9U;
	id ^= id >> 16;
	id *= 0x7feb352dU;
	id ^= id >> 15;
	id *= 0x846ca68bU;
	id ^= id >> 16;
	return id;
}

static uint32_t find_entry(const struct side *s, uint32_t repo, uint32_t id)
{
	if (!s->nslots)
		return NONE;
	size_t mask = s->nslots - 1;
	for (size_t i = hash_id(repo, id) & mask;; i = (i + 1) & mask) {
		uint32_t v = s->slots[i];
		if (!v)
			return NONE;
		if (s->e[v - 1].id == id && s->e[v - 1].repo == repo)
			return v - 1;
	}
}

/* The entry of other for the node of entry k of s, or NONE. */
static uint32_t find_same(const struct side *other, const struct side *s, uint32_t k)
{
	return find_entry(other, s->e[k].repo, s->e[k].id);
}

static int grow_slots(struct side *s)
{
	size_t ns = s->nslots ? s->nslots * 2 : 1024;
	uint32_t *slots = calloc(ns, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t k = 0; k < s->n; k++) {
		size_t i = hash_id(s->e[k].repo, s->e[k].id) & (ns - 1);
		while (slots[i])
			i = (i + 1) & (ns - 1);
		slots[i] = (uint32_t)k + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->nslots = ns;
	return 0;
}

static int push(uint32_t **a, size_t *n, size_t *alloc, uint32_t v)
{
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 64;
		uint32_t *p = realloc(*a, na * sizeof(*p));
		if (!p)
			return -1;
		*a = p;
		*alloc = na;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* A new entry for node id at dist, or NONE when memory runs out. */
static uint32_t add_entry(struct side *s, uint32_t repo, uint32_t id, uint32_t dist)
{
	if ((s->n + 1) * 2 > s->nslots && grow_slots(s))
		return NONE;
	if (s->n == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 256;
		struct entry *p = realloc(s->e, na * sizeof(*p));
		if (!p)
			return NONE;
		s->e = p;
		s->alloc = na;
	}
	uint32_t k = (uint32_t)s->n++;
	s->e[k].repo = repo;
	s->e[k].id = id;
	s->e[k].dist = dist;
	s->e[k].namb = UINT32_MAX;
	s->e[k].links = NONE;
	size_t i = hash_id(repo, id) & (s->nslots - 1);
	while (s->slots[i])
		i = (i + 1) & (s->nslots - 1);
	s->slots[i] = k + 1;
	return k;
}

/* Reached node `id` (of repository repo) from the entry being expanded
 * by one edge. */
static void reach(struct search *q, uint32_t repo, uint32_t id, const struct kbx_edge *e,
		  int certain, uint32_t ncand)
{
	struct side *s = q->cur;
	uint32_t dist = s->depth + 1;
	uint32_t k = find_entry(s, repo, id);
	if (k == NONE) {
		k = add_entry(s, repo, id, dist);
		if (k == NONE || push(&s->next, &s->nnext, &s->anext, k)) {
			q->nomem = 1;
			return;
		}
	} else if (s->e[k].dist != dist) {
		return;         /* reached sooner another way */
	}
	/* one link per neighbour: a certain edge wins over an ambiguous one */
	for (uint32_t l = s->e[k].links; l != NONE; l = q->links[l].next)
		if (q->links[l].other == q->cur_entry) {
			if (certain && !q->links[l].certain) {
				q->links[l].certain = 1;
				q->links[l].ncandidates = 1;
			} else {
				return;
			}
			goto update;
		}
	if (q->nlinks == q->alinks) {
		size_t na = q->alinks ? q->alinks * 2 : 256;
		struct link *p = realloc(q->links, na * sizeof(*p));
		if (!p) {
			q->nomem = 1;
			return;
		}
		q->links = p;
		q->alinks = na;
	}
	struct link *l = &q->links[q->nlinks];
	l->other = q->cur_entry;
	l->line = e->nsites ? e->sites[0].line : 0;
	l->col = e->nsites ? e->sites[0].col : 0;
	l->certain = certain;
	l->ncandidates = certain ? 1 : ncand;
	l->next = s->e[k].links;
	s->e[k].links = (uint32_t)q->nlinks++;
update:;
	uint32_t namb = s->e[q->cur_entry].namb + (certain ? 0 : 1);
	if (namb < s->e[k].namb)
		s->e[k].namb = namb;
}

static int on_edge(void *data, const struct kbx_edge *e)
{
	struct search *q = data;
	int certain = kbx_edge_wanted(e, KBX_WALK_CERTAIN);
	uint32_t from = q->db ? (uint32_t)q->at.from : 0, to = q->db ? (uint32_t)q->at.to : 0;
	if (q->db)   /* db_graph_step: the entry the edge leaves */
		q->cur_entry = q->cur->frontier[q->at.near];
	if (q->cur->dir == KBX_DIR_IN) {
		reach(q, from, e->from.id, e, certain, e->ncandidates);
	} else if (e->to.kind == KBX_KIND_NAMEREF) {
		/* a call recorded against a name: a step to each definition
		 * (of the calling repository, which holds the name) */
		const struct kbx_nodelist *l = NULL;
		struct kbx_nodelist dl = KBX_NODELIST_INIT;
		if (q->db && !(q->db_rc = db_graph_name_candidates(q->db, from, &e->to, e->from.lang,
								   &dl)))
			l = &dl;
		else if (!q->db)
			q->st = kbx_cand_cache_get(q->store, &q->cands, &e->to, e->from.lang, &l,
						   q->err);
		for (size_t i = 0; l && i < l->n && !q->nomem; i++)
			reach(q, from, l->items[i].id, e, 0, (uint32_t)l->n);
		kbx_nodelist_release(&dl);
	} else {
		reach(q, to, e->to.id, e, certain, e->ncandidates);
	}
	return q->nomem || q->st || q->db_rc;
}

/* Expand one whole layer of side s.  *meet receives the entries of s
 * that the other side has reached too (appended). */
static kbx_status_t expand(struct search *q, struct side *s, struct side *other, uint32_t **meet,
			   size_t *nmeet, size_t *ameet)
{
	q->cur = s;
	s->nnext = 0;
	if (q->db) {
		/* the whole layer at once; on_edge keeps the error of the
		 * candidates it asked for, and stops the step: it then
		 * returns 0 */
		struct db_node_ref *refs = malloc((s->nfrontier + 1) * sizeof(*refs));
		if (!refs) {
			snprintf(q->err->msg, sizeof(q->err->msg), "out of memory");
			return q->err->status = KBX_ERR_NOMEM;
		}
		for (size_t i = 0; i < s->nfrontier; i++) {
			refs[i].repo = s->e[s->frontier[i]].repo;
			refs[i].id = s->e[s->frontier[i]].id;
		}
		int rc = db_graph_step(q->db, refs, s->nfrontier, q->kind, s->dir, q->walk_flags,
				       on_edge, q, &q->at);
		free(refs);
		if (rc)
			q->db_rc = rc;
		if (q->db_rc)
			return q->err->status = KBX_ERR_IO;
		if (q->nomem) {
			snprintf(q->err->msg, sizeof(q->err->msg), "out of memory");
			return q->err->status = KBX_ERR_NOMEM;
		}
	}
	for (size_t i = 0; i < s->nfrontier && !q->db; i++) {
		q->cur_entry = s->frontier[i];
		kbx_status_t st = kbx_walk_edges_flags(q->store, s->e[q->cur_entry].id, q->kind,
						       s->dir, 1, q->walk_flags, on_edge, q, q->err);
		if (!st && q->st)
			st = q->st;
		if (!st && q->nomem)
			st = KBX_ERR_NOMEM;
		if (st) {
			if (st == KBX_ERR_NOMEM)
				snprintf(q->err->msg, sizeof(q->err->msg), "out of memory");
			q->err->status = st;
			return st;
		}
	}
	s->depth++;
	uint32_t *t = s->frontier;
	size_t ta = s->afrontier;
	s->frontier = s->next;
	s->afrontier = s->anext;
	s->nfrontier = s->nnext;
	s->next = t;
	s->anext = ta;
	s->nnext = 0;
	for (size_t i = 0; i < s->nfrontier; i++)
		if (find_same(other, s, s->frontier[i]) != NONE &&
		    push(meet, nmeet, ameet, s->frontier[i])) {
			snprintf(q->err->msg, sizeof(q->err->msg), "out of memory");
			return q->err->status = KBX_ERR_NOMEM;
		}
	return KBX_OK;
}

/* ---- listing the paths ---- */

struct step {
	uint32_t from, to;      /* node ids */
	uint32_t from_repo, to_repo;
	const struct link *link;
};

struct printer {
	struct search *q;
	struct out *o;
	struct step *steps;     /* the path being built, length len */
	size_t len;
	size_t count, limit;
	uint32_t start;         /* <from>'s node id */
	uint32_t start_repo;
	const char *kind_str;
	int failed;
};

static const char *verb(int kind, int certain)
{
	if (kind == KBX_EDGE_IMPORTS)
		return certain ? "imports" : "may import";
	return certain ? "calls" : "may call";
}

/* The node id, from the index or the database; nonzero when it fails
 * (a database error printed, q->db_rc set). */
static int get_node(struct search *q, uint32_t repo, uint32_t id, struct kbx_node *out)
{
	if (q->db)
		return q->db_rc = db_graph_node(q->db, repo, id, out);
	return kbx_node_get(q->store, id, out, q->err) != KBX_OK;
}

/* kbx --db --all-repos: the name of a node's repository, else NULL. */
static const char *repo_of(const struct search *q, uint32_t repo)
{
	return q->db && db_graph_all(q->db) ? db_graph_repo_name(q->db, repo) : NULL;
}

/* "[repo] " before a node's name in the text (kbx --db --all-repos),
 * else "" (escaped into buf). */
static const char *repo_tag(const struct search *q, uint32_t repo, char *buf, size_t size)
{
	const char *name = repo_of(q, repo);
	if (!name)
		return "";
	snprintf(buf, size, "[%s] ", out_esc(name));
	return buf;
}

static void print_path(struct printer *p)
{
	struct search *q = p->q;
	struct out *o = p->o;
	struct kbx_node *nodes = calloc(p->len + 1, sizeof(*nodes));
	if (!nodes) {
		p->failed = 1;
		return;
	}
	size_t namb = 0;
	/* the repository of each node, for the names (all 0 but with
	 * --all-repos) */
	uint32_t *repos = calloc(p->len + 1, sizeof(*repos));
	if (!repos || get_node(q, p->start_repo, p->start, &nodes[0])) {
		p->failed = 1;
		free(repos);
		free(nodes);
		return;
	}
	repos[0] = p->start_repo;
	for (size_t i = 0; i < p->len; i++) {
		repos[i + 1] = p->steps[i].to_repo;
		if (get_node(q, p->steps[i].to_repo, p->steps[i].to, &nodes[i + 1])) {
			free(repos);
			p->failed = 1;
			free(nodes);
			return;
		}
		if (!p->steps[i].link->certain)
			namb++;
	}
	p->count++;
	if (out_is_picture(o)) {
		if (p->count == 1)
			out_picture_title(o, "paths from %s to %s", nodes[0].cid, nodes[p->len].cid);
		out_picture_node_in(o, repos[0], repo_of(q, repos[0]), &nodes[0], 1);
		out_picture_node_in(o, repos[p->len], repo_of(q, repos[p->len]), &nodes[p->len], 1);
		for (size_t i = 0; i < p->len; i++)
			out_picture_edge_in(o, repos[i], repo_of(q, repos[i]), &nodes[i], repos[i + 1],
					    repo_of(q, repos[i + 1]), &nodes[i + 1],
					    p->steps[i].link->certain ? KBX_CONF_CERTAIN
								      : KBX_CONF_AMBIGUOUS,
					    NULL);
		free(repos);
		free(nodes);
		return;
	}
	char buf[4096], tag[2][300];
	switch (out_format(o)) {
	case FMT_NUL:
		if (p->count > 1)
			putchar('\0');
		for (size_t i = 0; i <= p->len; i++) {
			fputs(nodes[i].cid, stdout);
			putchar('\0');
		}
		break;
	case FMT_GREP:
		for (size_t i = 0; i < p->len; i++) {
			const struct link *l = p->steps[i].link;
			const struct kbx_node *n = &nodes[i];
			if (!n->path)
				continue;
			out_line(o, "%s:%u:%u: path %zu, step %zu of %zu: %s %s %s%s%s",
				 out_grep_path(repo_of(q, repos[i]), n->path, n->path_len),
				 l->line ? l->line : (n->line ? n->line : 1),
				 l->line ? l->col : 1, p->count, i + 1, p->len, out_esc(n->cid),
				 verb(q->kind, l->certain),
				 repo_tag(q, repos[i + 1], tag[0], sizeof(tag[0])),
				 out_esc(nodes[i + 1].cid), l->certain ? "" : " (ambiguous)");
		}
		break;
	case FMT_JSON:
		out_record_begin(o, "path");
		out_field_int(o, "index", (int64_t)p->count);
		out_field_str(o, "kind", p->kind_str);
		out_field_str(o, "from", nodes[0].cid);
		out_field_str(o, "to", nodes[p->len].cid);
		if (repo_of(q, 0)) {
			out_field_str(o, "from_repo", repo_of(q, repos[0]));
			out_field_str(o, "to_repo", repo_of(q, repos[p->len]));
		}
		out_field_int(o, "length", (int64_t)p->len);
		out_field_str(o, "confidence", namb ? "ambiguous" : "certain");
		out_field_int(o, "ambiguous_steps", (int64_t)namb);
		out_json_begin(o, "steps", 1);
		for (size_t i = 0; i < p->len; i++) {
			const struct link *l = p->steps[i].link;
			const struct kbx_node *n = &nodes[i];
			out_json_begin(o, NULL, 0);
			out_json_str(o, "from", n->cid);
			out_json_str(o, "to", nodes[i + 1].cid);
			if (repo_of(q, 0)) {
				out_json_str(o, "from_repo", repo_of(q, repos[i]));
				out_json_str(o, "to_repo", repo_of(q, repos[i + 1]));
			}
			out_json_strn(o, "path", n->path, n->path_len);
			out_json_site(o, "line", "col", l->line, l->col);
			out_json_str(o, "confidence", l->certain ? "certain" : "ambiguous");
			out_json_int(o, "candidates", l->ncandidates);
			out_json_end(o);
		}
		out_json_end(o);
		out_record_end(o);
		break;
	default:
		if (!p->len)
			out_heading(o, "path %zu: %s%s is %s%s itself (0 steps)", p->count,
				    repo_tag(q, repos[0], tag[0], sizeof(tag[0])), out_esc(nodes[0].cid),
				    repo_tag(q, repos[0], tag[1], sizeof(tag[1])), out_esc(nodes[0].cid));
		else
			out_heading(o, "%spath %zu: %s%s to %s%s, %zu step%s%s", namb ? "possible " : "",
				    p->count, repo_tag(q, repos[0], tag[0], sizeof(tag[0])),
				    out_esc(nodes[0].cid),
				    repo_tag(q, repos[p->len], tag[1], sizeof(tag[1])),
				    out_esc(nodes[p->len].cid), p->len, p->len == 1 ? "" : "s",
				    namb ? (namb == 1 ? " (1 ambiguous)" : " (some ambiguous)") : "");
		for (size_t i = 0; i < p->len; i++) {
			const struct link *l = p->steps[i].link;
			const struct kbx_node *n = &nodes[i];
			if (!l->certain)
				snprintf(buf, sizeof(buf), "  (ambiguous: one of %u definitions of '%s')",
					 l->ncandidates, out_esc(nodes[i + 1].name));
			else
				buf[0] = '\0';
			out_line(o, "  %s%s:%u  %s %s %s%s%s",
				 repo_tag(q, repos[i], tag[0], sizeof(tag[0])),
				 n->path ? out_escn(n->path, n->path_len) : "",
				 l->line ? l->line : n->line, out_esc(n->cid), verb(q->kind, l->certain),
				 repo_tag(q, repos[i + 1], tag[1], sizeof(tag[1])),
				 out_esc(nodes[i + 1].cid), buf);
		}
	}
	free(repos);
	free(nodes);
}

/* The links of entry k, ordered so that the way with fewer ambiguous
 * steps comes first; malloc()ed.  NULL when memory runs out (every
 * entry but the ends has a link), after noting the failure in p. */
static uint32_t *sorted_links(struct printer *p, const struct side *s, uint32_t k, size_t *n)
{
	struct search *q = p->q;
	size_t count = 0;
	for (uint32_t l = s->e[k].links; l != NONE; l = q->links[l].next)
		count++;
	*n = 0;
	uint32_t *out = count ? malloc(count * sizeof(*out)) : NULL;
	if (!out) {
		q->err->status = KBX_ERR_NOMEM;
		snprintf(q->err->msg, sizeof(q->err->msg), "out of memory");
		p->failed = 1;
		return NULL;
	}
	for (uint32_t l = s->e[k].links; l != NONE; l = q->links[l].next) {
		uint32_t cost = s->e[q->links[l].other].namb + !q->links[l].certain;
		size_t pos = (*n)++;
		while (pos > 0) {
			const struct link *prev = &q->links[out[pos - 1]];
			if (s->e[prev->other].namb + !prev->certain <= cost)
				break;
			out[pos] = out[pos - 1];
			pos--;
		}
		out[pos] = l;
	}
	return out;
}

/*
 * List the paths through one meeting node, depth first: first the part
 * from <from> to it, filled from its end along the forward side's links
 * (fwd set: the step before position pos), then the part from it to
 * <to> along the backward side's (steps pos..).  mb is the meeting
 * node's backward entry and mid its distance from <from>.
 */
static void walk(struct printer *p, int fwd, uint32_t k, size_t pos, uint32_t mb, size_t mid)
{
	struct search *q = p->q;
	if (p->failed || p->count >= p->limit)
		return;
	if (fwd && !pos) {
		fwd = 0;
		k = mb;
		pos = mid;
	}
	if (!fwd && pos == p->len) {
		print_path(p);
		return;
	}
	const struct side *s = fwd ? &q->fwd : &q->bwd;
	size_t n;
	uint32_t *ls = sorted_links(p, s, k, &n);
	if (!ls)
		return;
	for (size_t i = 0; i < n && !p->failed && p->count < p->limit; i++) {
		const struct link *l = &q->links[ls[i]];
		struct step *st = &p->steps[fwd ? pos - 1 : pos];
		const struct entry *here = &s->e[k], *there = &s->e[l->other];
		st->from = fwd ? there->id : here->id;
		st->to = fwd ? here->id : there->id;
		st->from_repo = fwd ? there->repo : here->repo;
		st->to_repo = fwd ? here->repo : there->repo;
		st->link = l;
		walk(p, fwd, l->other, fwd ? pos - 1 : pos + 1, mb, mid);
	}
	free(ls);
}

static const struct search *sort_q;

static int meet_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct entry *ex = &sort_q->fwd.e[x], *ey = &sort_q->fwd.e[y];
	uint32_t bx = find_same(&sort_q->bwd, &sort_q->fwd, x);
	uint32_t by = find_same(&sort_q->bwd, &sort_q->fwd, y);
	uint32_t cx = ex->namb + sort_q->bwd.e[bx].namb, cy = ey->namb + sort_q->bwd.e[by].namb;
	if (cx != cy)
		return cx < cy ? -1 : 1;
	if (ex->repo != ey->repo)
		return ex->repo < ey->repo ? -1 : 1;
	return ex->id < ey->id ? -1 : ex->id > ey->id;
}

static void side_release(struct side *s)
{
	free(s->e);
	free(s->slots);
	free(s->frontier);
	free(s->next);
}

/* The one node sym names, for a path of kind: a function or method for
 * calls (a file or module for imports) when the name has one, in the
 * repository only (kbx --db --all-repos) unless NULL; *repo: its
 * repository's index with kbx --db (else 0). */
static int endpoint(struct kbx_ctx *ctx, const char *sym, int kind, const char *only,
		    struct kbx_node *out, uint32_t *repo)
{
	struct kbx_nodelist l = KBX_NODELIST_INIT;
	int rc = lookup_symbol(ctx, sym, &l);
	if (rc)
		return rc;
	uint32_t *repos = calloc(l.n, sizeof(*repos));
	if (!repos) {
		kbx_nodelist_release(&l);
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	for (size_t i = 0; ctx->db && i < l.n; i++)
		repos[i] = (uint32_t)db_graph_match_repo_index(ctx->db, i);
	size_t keep = 0;
	for (size_t i = 0; i < l.n; i++) {
		int k = l.items[i].kind;
		if (kind == KBX_EDGE_CALLS ? KBX_KIND_IS_CALLABLE(k)
					   : (k == KBX_KIND_FILE || k == KBX_KIND_MODULE)) {
			repos[keep] = repos[i];
			l.items[keep++] = l.items[i];
		}
	}
	if (keep)
		l.n = keep;
	keep = 0;
	for (size_t i = 0; only && i < l.n; i++)
		if (!strcmp(db_graph_repo_name(ctx->db, repos[i]), only)) {
			repos[keep] = repos[i];
			l.items[keep++] = l.items[i];
		}
	if (only && !keep) {
		fprintf(stderr, "error: no symbol '%s' in repository '%s' of the database\n",
			out_esc(sym), out_esc(only));
		free(repos);
		kbx_nodelist_release(&l);
		return KBX_EXIT_NOT_FOUND;
	}
	if (only)
		l.n = keep;
	const int all = ctx->db && db_graph_all(ctx->db);
	if (l.n > 1) {
		fprintf(stderr, "error: '%s' names %zu definitions: give one of them by its id%s\n",
			out_esc(sym), l.n, all ? " (and its repository with --from-repo or --to-repo)" : "");
		for (size_t i = 0; i < l.n; i++) {
			const struct kbx_node *n = &l.items[i];
			if (all)
				fprintf(stderr, "\t[%s]", out_esc(db_graph_repo_name(ctx->db, repos[i])));
			if (n->path)
				fprintf(stderr, "\t%s\t(%s, %s:%u)\n", out_esc(n->cid),
					kbx_kind_str(n->kind), out_escn(n->path, n->path_len), n->line);
			else
				fprintf(stderr, "\t%s\t(%s)\n", out_esc(n->cid), kbx_kind_str(n->kind));
		}
		free(repos);
		kbx_nodelist_release(&l);
		return KBX_EXIT_USAGE;
	}
	/* the views point into the store's map, not into the list */
	*out = l.items[0];
	*repo = repos[0];
	free(repos);
	kbx_nodelist_release(&l);
	return 0;
}

int cmd_path(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int kind_opt = 0, all = 0, certain = 0, all_repos = 0;
	const char *from_repo = NULL, *to_repo = NULL;
	long max_depth = 0, limit = LONG_MIN;  /* LONG_MIN: not given */
	struct output_opts oo = OUTPUT_OPTS_INIT;
	oo.pictures = 1;
	struct option opts[] = {
		OPT_KEYWORD_F(0, "kind", &kind_opt, kind_names, "KIND",
			      "follow calls (the default) or imports"),
		OPT_INT_F(0, "max-depth", &max_depth, "N",
			  "only paths of at most N steps (default: any length)"),
		OPT_BOOL_F('a', "all", &all, "show every shortest path (up to --limit)"),
		OPT_INT_F('n', "limit", &limit, "N",
			  "show at most N paths (default 1, or 100 with --all)"),
		OPT_CERTAIN_F(&certain),
		OPT_OUTPUT_COMMON(&oo),
		OPT_ALL_REPOS_DB_F(&all_repos),
		OPT_STRING_F(0, "from-repo", &from_repo, "NAME",
			     "with kbx --db and --all-repos: <from> of the repository NAME"),
		OPT_STRING_F(0, "to-repo", &to_repo, "NAME",
			     "with kbx --db and --all-repos: <to> of the repository NAME"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, path_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs != 2) {
		fprintf(stderr, "error: 'path' takes two symbols, where the path starts and where it ends\n");
		usage_with_options(path_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	if (max_depth < 0 || (limit != LONG_MIN && limit < 1)) {
		fprintf(stderr, "error: --max-depth must be 0 (any) or more, and --limit 1 or more\n");
		return KBX_EXIT_USAGE;
	}
	if (all_repos && !ctx->db) {
		fprintf(stderr, "error: 'path --all-repos' asks the database: give kbx --db=URL\n");
		return KBX_EXIT_USAGE;
	}
	if ((from_repo || to_repo) && !(ctx->db && db_graph_all(ctx->db))) {
		fprintf(stderr, "error: --from-repo and --to-repo choose among the repositories of kbx --db=URL path --all-repos\n");
		return KBX_EXIT_USAGE;
	}
	if (limit == LONG_MIN)
		limit = all ? 100 : 1;
	int kind = kind_opt == 1 ? KBX_EDGE_IMPORTS : KBX_EDGE_CALLS;
	struct kbx_node a, b;
	uint32_t ra = 0, rb = 0;
	int rc = endpoint(ctx, argv[0], kind, from_repo, &a, &ra);
	if (!rc)
		rc = endpoint(ctx, argv[1], kind, to_repo, &b, &rb);
	if (rc)
		return rc;

	struct kbx_error err = KBX_ERROR_INIT;
	struct search q = { 0 };
	q.store = ctx->store;
	q.db = ctx->db;
	q.kind = kind;
	q.walk_flags = certain ? KBX_WALK_CERTAIN : 0;
	q.err = &err;
	q.fwd.dir = KBX_DIR_OUT;
	q.bwd.dir = KBX_DIR_IN;
	uint32_t *meet = NULL;
	size_t nmeet = 0, ameet = 0;
	kbx_status_t st = KBX_OK;
	uint32_t fa = add_entry(&q.fwd, ra, a.id, 0), fb = add_entry(&q.bwd, rb, b.id, 0);
	const int same = a.id == b.id && ra == rb;
	if (fa == NONE || fb == NONE || push(&q.fwd.frontier, &q.fwd.nfrontier, &q.fwd.afrontier, fa) ||
	    push(&q.bwd.frontier, &q.bwd.nfrontier, &q.bwd.afrontier, fb) ||
	    (same && push(&meet, &nmeet, &ameet, fa))) {
		st = err.status = KBX_ERR_NOMEM;
		snprintf(err.msg, sizeof(err.msg), "out of memory");
	} else {
		q.fwd.e[fa].namb = q.bwd.e[fb].namb = 0;
	}
	/* a layer at a time, the smaller frontier first, until they meet */
	while (!st && !nmeet && q.fwd.nfrontier && q.bwd.nfrontier &&
	       (!max_depth || q.fwd.depth + q.bwd.depth < (uint32_t)max_depth)) {
		if (q.fwd.nfrontier <= q.bwd.nfrontier) {
			st = expand(&q, &q.fwd, &q.bwd, &meet, &nmeet, &ameet);
		} else {
			size_t before = nmeet;
			st = expand(&q, &q.bwd, &q.fwd, &meet, &nmeet, &ameet);
			/* meeting entries are kept as forward entries */
			for (size_t i = before; !st && i < nmeet; i++)
				meet[i] = find_same(&q.fwd, &q.bwd, meet[i]);
		}
	}
	struct out *o = NULL;
	size_t found = 0;
	if (st) {
		rc = q.db_rc ? q.db_rc : die_status(&err);
	} else if (!(o = out_new(&oo))) {
		rc = KBX_EXIT_USAGE;
	} else if (nmeet) {
		sort_q = &q;
		qsort(meet, nmeet, sizeof(*meet), meet_cmp);
		size_t len = q.fwd.depth + q.bwd.depth;
		struct printer p = { &q, o, NULL, len, 0, (size_t)limit, a.id, ra,
				     kbx_edge_kind_str(kind), 0 };
		p.steps = calloc(len + 1, sizeof(*p.steps));
		if (!p.steps) {
			p.failed = 1;
			err.status = KBX_ERR_NOMEM;
			snprintf(err.msg, sizeof(err.msg), "out of memory");
		}
		for (size_t i = 0; i < nmeet && !p.failed && p.count < p.limit; i++) {
			uint32_t mf = meet[i], mb = find_same(&q.bwd, &q.fwd, mf);
			size_t mid = q.fwd.e[mf].dist;
			walk(&p, 1, mf, mid, mb, mid);
		}
		free(p.steps);
		found = p.count;
		if (p.failed)
			rc = q.db_rc ? q.db_rc : die_status(&err);
		else if (all && found == p.limit)
			out_note(o, "\n(stopped at %zu paths; --limit=N shows more)", found);
	}
	if (!rc && !found) {
		/* --all-repos: each end named with its repository */
		char ta[300] = "", tb[300] = "";
		const char *na = repo_of(&q, ra), *nb = repo_of(&q, rb);
		if (na)
			snprintf(ta, sizeof(ta), "[%s] ", out_esc(na));
		if (nb)
			snprintf(tb, sizeof(tb), "[%s] ", out_esc(nb));
		if (max_depth)
			fprintf(stderr, "no %s path from %s%s to %s%s of at most %ld step(s)%s\n",
				kind == KBX_EDGE_CALLS ? "call" : "import", ta, out_esc(a.cid),
				tb, out_esc(b.cid), max_depth,
				certain ? " of certain edges" : "");
		else
			fprintf(stderr, "no %s path from %s%s to %s%s%s\n",
				kind == KBX_EDGE_CALLS ? "call" : "import", ta, out_esc(a.cid),
				tb, out_esc(b.cid), certain ? " of certain edges" : "");
		/* the order of the two is easy to mistake */
		if (!same)
			fprintf(stderr, "note: the first is %s; 'kbx path %s %s' asks the other way round\n",
				kind == KBX_EDGE_CALLS ? "the caller, the second the callee"
						       : "the importer, the second the file imported",
				out_esc(argv[1]), out_esc(argv[0]));
	}
	free(meet);
	side_release(&q.fwd);
	side_release(&q.bwd);
	free(q.links);
	kbx_cand_cache_release(&q.cands);
	if (o && out_finish(o))
		return KBX_EXIT_IO;
	if (rc)
		return rc;
	return found ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
