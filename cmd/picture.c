/*
 * Pictures of the graph.  See picture.h.
 */
#define _GNU_SOURCE /* qsort_r */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"
#include "output.h"
#include "picture.h"
#include "util/util.h"

struct pnode {
	char *name;             /* the name drawn: qualified name, or the path of a file */
	char *file;             /* the group: the node's file; NULL outside the repository */
	uint32_t line;
	int start;
};

struct pedge {
	uint32_t from, to;      /* indexes of nodes */
	int confidence;
	char *label;
};

struct picture {
	int format;
	struct pnode *nodes;
	size_t nnodes, anodes;
	/* node id -> nodes[], one map a repository (kbx --db --all-repos:
	 * the same id in two repositories is two nodes) */
	struct _kbx_idmap *index;
	size_t nindex;
	struct pedge *edges;
	size_t nedges, aedges;
};

struct picture *picture_new(int format)
{
	struct picture *p = calloc(1, sizeof(*p));
	if (p)
		p->format = format;
	return p;
}

void picture_free(struct picture *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nnodes; i++) {
		free(p->nodes[i].name);
		free(p->nodes[i].file);
	}
	for (size_t i = 0; i < p->nedges; i++)
		free(p->edges[i].label);
	free(p->nodes);
	free(p->edges);
	for (size_t i = 0; i < p->nindex; i++)
		_kbx_idmap_release(&p->index[i]);
	free(p->index);
	free(p);
}

/* The node's index, added when new; -1 when out of memory.  A node of
 * a named repository is drawn with the repository's name: its file as
 * grep output names it (repo/path), a node outside any file as
 * "[repo] name". */
static long node_index(struct picture *p, const struct picture_repo *r, const struct kbx_node *n)
{
	uint32_t repo = r ? r->index : 0;
	if (repo >= p->nindex) {
		size_t want = (size_t)repo + 1;
		struct _kbx_idmap *m = realloc(p->index, want * sizeof(*m));
		if (!m)
			return -1;
		memset(m + p->nindex, 0, (want - p->nindex) * sizeof(*m));
		p->index = m;
		p->nindex = want;
	}
	struct _kbx_idmap *map = &p->index[repo];
	long at = _kbx_idmap_get(map, n->id);
	if (at >= 0)
		return at;
	if (_kbx_grow((void **)&p->nodes, &p->anodes, p->nnodes, sizeof(*p->nodes), 32))
		return -1;
	struct pnode *pn = &p->nodes[p->nnodes];
	const char *name = n->kind == KBX_KIND_FILE || !n->qual ? n->cid : n->qual;
	const char *rname = r && r->name ? r->name : NULL;
	memset(pn, 0, sizeof(*pn));
	if (rname && !n->path) {
		if (asprintf(&pn->name, "[%s] %s", rname, name ? name : "?") < 0)
			pn->name = NULL;
	} else {
		pn->name = strdup(name ? name : "?");
	}
	if (n->path && rname) {
		if (asprintf(&pn->file, "%s/%.*s", rname, (int)n->path_len, n->path) < 0)
			pn->file = NULL;
	} else if (n->path) {
		pn->file = strndup(n->path, n->path_len);
	}
	pn->line = n->kind == KBX_KIND_FILE ? 0 : n->line;
	if (!pn->name || (n->path && !pn->file) ||
	    _kbx_idmap_put(map, n->id, (uint32_t)p->nnodes)) {
		free(pn->name);
		free(pn->file);
		return -1;
	}
	return (long)p->nnodes++;
}

int picture_node(struct picture *p, const struct picture_repo *r, const struct kbx_node *n,
		 int start)
{
	long i = node_index(p, r, n);
	if (i < 0)
		return -1;
	if (start)
		p->nodes[i].start = 1;
	return 0;
}

/* certain before ambiguous before unresolved */
static int surer(int a, int b)
{
	return a && (!b || a < b);
}

int picture_edge(struct picture *p, const struct picture_repo *from_repo,
		 const struct kbx_node *from, const struct picture_repo *to_repo,
		 const struct kbx_node *to, int confidence, const char *label)
{
	long f = node_index(p, from_repo, from), t = node_index(p, to_repo, to);
	if (f < 0 || t < 0)
		return -1;
	for (size_t i = 0; i < p->nedges; i++) {
		struct pedge *e = &p->edges[i];
		if (e->from == (uint32_t)f && e->to == (uint32_t)t) {
			if (surer(confidence, e->confidence))
				e->confidence = confidence;
			return 0;
		}
	}
	if (_kbx_grow((void **)&p->edges, &p->aedges, p->nedges, sizeof(*p->edges), 32))
		return -1;
	struct pedge *e = &p->edges[p->nedges];
	e->from = (uint32_t)f;
	e->to = (uint32_t)t;
	e->confidence = confidence;
	e->label = label ? strdup(label) : NULL;
	if (label && !e->label)
		return -1;
	p->nedges++;
	return 0;
}

/*
 * A label's text.  Control characters and bytes that are not UTF-8 are
 * first shown as C escapes (out_esc); then, for DOT, '"' and '\' are
 * escaped (a backslash would start \n or \l in a label); for Mermaid,
 * every character its labels read as markup becomes an entity code
 * ("#quot;"), so that a name can neither close the label nor add HTML.
 */
static void put_label(int format, const char *s)
{
	for (s = out_esc(s); *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (format == FMT_DOT) {
			if (c == '"' || c == '\\')
				putchar('\\');
			putchar(c);
		} else if (strchr("\"#&<>`[](){}|;", c) && c) {
			printf("#%u;", c);
		} else {
			putchar(c);
		}
	}
}

static void put_node_label(int format, const struct pnode *n)
{
	put_label(format, n->name);
	if (n->line)
		printf("%s%u", format == FMT_DOT ? "\\n:" : "<br>:", n->line);
}

static int by_file(const void *a, const void *b, void *data)
{
	const struct pnode *nodes = data;
	const struct pnode *x = &nodes[*(const uint32_t *)a], *y = &nodes[*(const uint32_t *)b];
	if (!x->file != !y->file)
		return x->file ? -1 : 1;
	int c = x->file ? strcmp(x->file, y->file) : 0;
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The nodes in order, each file's in a cluster (DOT) or subgraph
 * (Mermaid); nodes outside the repository outside any. */
static void print_nodes(const struct picture *p, const uint32_t *order)
{
	int dot = p->format == FMT_DOT;
	const char *group = NULL;
	size_t ngroup = 0;
	for (size_t k = 0; k < p->nnodes; k++) {
		const struct pnode *n = &p->nodes[order[k]];
		if (group && (!n->file || strcmp(group, n->file))) {
			fputs(dot ? "\t}\n" : "  end\n", stdout);
			group = NULL;
		}
		if (n->file && !group) {
			printf(dot ? "\tsubgraph cluster_%zu {\n\t\tlabel=\"" : "  subgraph f%zu[\"", ngroup++);
			put_label(p->format, n->file);
			fputs(dot ? "\";\n\t\tstyle=rounded;\n\t\tcolor=\"#999999\";\n" : "\"]\n", stdout);
			group = n->file;
		}
		printf("%sn%u%s", group ? (dot ? "\t\t" : "    ") : (dot ? "\t" : "  "), order[k],
		       dot ? " [label=\"" : "[\"");
		put_node_label(p->format, n);
		if (dot)
			printf("\"%s];\n", n->start ? ", penwidth=2.5, style=bold" : "");
		else
			fputs("\"]\n", stdout);
	}
	if (group)
		fputs(dot ? "\t}\n" : "  end\n", stdout);
}

static void print_dot(const struct picture *p, const uint32_t *order, const char *title)
{
	fputs("digraph \"", stdout);
	put_label(FMT_DOT, title);
	fputs("\" {\n\trankdir=LR;\n\tnode [shape=box, fontname=\"monospace\", fontsize=10];\n"
	      "\tedge [color=\"#444444\"];\n", stdout);
	print_nodes(p, order);
	for (size_t i = 0; i < p->nedges; i++) {
		const struct pedge *e = &p->edges[i];
		printf("\tn%u -> n%u", e->from, e->to);
		int attrs = e->confidence == KBX_CONF_AMBIGUOUS || e->confidence == KBX_CONF_UNRESOLVED ||
			    e->label;
		if (attrs) {
			const char *sep = "";
			fputs(" [", stdout);
			if (e->confidence == KBX_CONF_AMBIGUOUS) {
				fputs("style=dashed", stdout);
				sep = ", ";
			} else if (e->confidence == KBX_CONF_UNRESOLVED) {
				fputs("style=dotted", stdout);
				sep = ", ";
			}
			if (e->label) {
				printf("%slabel=\"", sep);
				put_label(FMT_DOT, e->label);
				putchar('"');
			}
			putchar(']');
		}
		fputs(";\n", stdout);
	}
	fputs("}\n", stdout);
}

static void print_mermaid(const struct picture *p, const uint32_t *order, const char *title)
{
	/* a comment names the question; "%%" comments end at the line */
	printf("%%%% %s\nflowchart LR\n", out_esc(title));
	print_nodes(p, order);
	for (size_t i = 0; i < p->nedges; i++) {
		const struct pedge *e = &p->edges[i];
		int weak = e->confidence == KBX_CONF_AMBIGUOUS || e->confidence == KBX_CONF_UNRESOLVED;
		printf("  n%u %s", e->from, weak ? "-.->" : "-->");
		if (e->label) {
			fputs("|\"", stdout);
			put_label(FMT_MERMAID, e->label);
			fputs("\"|", stdout);
		}
		printf(" n%u\n", e->to);
	}
	int any = 0;
	for (size_t i = 0; i < p->nnodes; i++)
		any |= p->nodes[i].start;
	if (any) {
		fputs("  classDef start stroke-width:3px\n  class ", stdout);
		const char *sep = "";
		for (size_t i = 0; i < p->nnodes; i++)
			if (p->nodes[i].start) {
				printf("%sn%zu", sep, i);
				sep = ",";
			}
		fputs(" start\n", stdout);
	}
}

void picture_print(const struct picture *p, const char *title)
{
	uint32_t *order = malloc((p->nnodes ? p->nnodes : 1) * sizeof(*order));
	if (!order) {
		fprintf(stderr, "fatal: out of memory\n");
		return;
	}
	for (size_t i = 0; i < p->nnodes; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, p->nnodes, sizeof(*order), by_file, p->nodes);
	if (p->format == FMT_DOT)
		print_dot(p, order, title);
	else
		print_mermaid(p, order, title);
	free(order);
}
