/*
 * kbx impact: everything that would be affected by changing a symbol, a
 * file, or the lines a unified diff touches: the transitive callers of
 * the functions involved and the transitive importers of the files, each
 * with its distance.
 *
 *   kbx impact SYMBOL|FILE...
 *   git diff main... | kbx impact --diff
 *
 * With --diff, changed lines are mapped onto the index as it is (index
 * the changed tree first): each changed line belongs to the innermost
 * function, method or class whose lines hold it, or to the file itself
 * when it is outside every definition.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "db-graph.h"
#include "dependents.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "util/strbuf.h"

static const char *const impact_usage[] = {
	"kbx impact [--depth=<n>] [--certain] [--format=<format>] <symbol>...",
	"kbx impact (--diff | --diff-file=<file>) [--depth=<n>] [--certain] [--format=<format>]",
	NULL
};

/* The starting points, each with its repository (kbx --db: its index
 * among those asked; else 0). */
struct seeds {
	struct kbx_nodelist l;
	size_t *repo;
};

/* Add a node to the starting points once. */
static void seed_add(struct seeds *s, size_t repo, const struct kbx_node *n)
{
	struct kbx_nodelist *l = &s->l;
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].id == n->id && s->repo[i] == repo)
			return;
	if (l->n == l->alloc) {
		size_t na = l->alloc ? l->alloc * 2 : 16;
		struct kbx_node *p = realloc(l->items, na * sizeof(*p));
		if (!p)
			return;
		l->items = p;
		size_t *r = realloc(s->repo, na * sizeof(*r));
		if (!r)
			return;
		s->repo = r;
		l->alloc = na;
	}
	s->repo[l->n] = repo;
	l->items[l->n++] = *n;
}

static void seeds_release(struct seeds *s)
{
	kbx_nodelist_release(&s->l);
	free(s->repo);
}

/* ---- mapping a unified diff onto definitions ---- */

struct range {
	char *path;
	uint32_t from, to;      /* changed lines in the new file, inclusive */
};

struct diff {
	struct range *r;
	size_t n, alloc;
	char **deleted;         /* files the diff deletes */
	size_t ndeleted;
};

static int add_range(struct diff *d, const char *path, uint32_t from, uint32_t to)
{
	if (d->n && !strcmp(d->r[d->n - 1].path, path) && d->r[d->n - 1].to + 1 >= from) {
		if (to > d->r[d->n - 1].to)
			d->r[d->n - 1].to = to;
		return 0;
	}
	if (d->n == d->alloc) {
		size_t na = d->alloc ? d->alloc * 2 : 32;
		struct range *p = realloc(d->r, na * sizeof(*p));
		if (!p)
			return -1;
		d->r = p;
		d->alloc = na;
	}
	d->r[d->n].path = strdup(path);
	if (!d->r[d->n].path)
		return -1;
	d->r[d->n].from = from;
	d->r[d->n].to = to;
	d->n++;
	return 0;
}

/* "b/src/a.c" -> "src/a.c"; "/dev/null" -> NULL.  Tabs end the name. */
static char *diff_path(const char *s)
{
	size_t len = strcspn(s, "\t\n");
	if (len == 9 && !strncmp(s, "/dev/null", 9))
		return NULL;
	if (len > 2 && (s[0] == 'a' || s[0] == 'b') && s[1] == '/')
		s += 2, len -= 2;
	return strndup(s, len);
}

/* Read a unified diff; every added or removed line becomes a changed line
 * of the new file (a removal marks the line where it happened). */
static int parse_diff(FILE *f, const char *name, struct diff *d)
{
	struct strbuf line = STRBUF_INIT;
	char *path = NULL, *old_path = NULL;
	uint32_t newline = 0;
	int in_hunk = 0, ok = 1;
	unsigned long lineno = 0;
	int c;
	for (;;) {
		strbuf_reset(&line);
		while ((c = getc(f)) != EOF && c != '\n')
			strbuf_addch(&line, c);
		if (c == EOF && !line.len)
			break;
		lineno++;
		const char *l = strbuf_str(&line);
		if (!strncmp(l, "--- ", 4) && !(in_hunk && l[4] != 'a' && l[4] != '/')) {
			free(old_path);
			old_path = diff_path(l + 4);
			in_hunk = 0;
		} else if (!strncmp(l, "+++ ", 4)) {
			free(path);
			path = diff_path(l + 4);
			in_hunk = 0;
			if (!path && old_path) {
				char **p = realloc(d->deleted, (d->ndeleted + 1) * sizeof(*p));
				if (!p) {
					ok = 0;
					break;
				}
				d->deleted = p;
				d->deleted[d->ndeleted++] = strdup(old_path);
			}
		} else if (!strncmp(l, "@@ ", 3)) {
			unsigned long a, b = 1, cnum, dnum = 1;
			if (sscanf(l, "@@ -%lu,%lu +%lu,%lu @@", &a, &b, &cnum, &dnum) < 3 &&
			    sscanf(l, "@@ -%lu +%lu,%lu @@", &a, &cnum, &dnum) < 2 &&
			    sscanf(l, "@@ -%lu,%lu +%lu @@", &a, &b, &cnum) < 3 &&
			    sscanf(l, "@@ -%lu +%lu @@", &a, &cnum) < 2) {
				fprintf(stderr, "error: cannot parse the hunk header at line %lu of %s: '%s'\n",
					lineno, out_esc(name), out_escn(l, strnlen(l, 60)));
				ok = 0;
				break;
			}
			newline = (uint32_t)cnum;
			in_hunk = 1;
		} else if (in_hunk && path) {
			if (l[0] == '+') {
				if (add_range(d, path, newline, newline))
					ok = 0;
				newline++;
			} else if (l[0] == '-') {
				uint32_t at = newline ? newline : 1;
				if (add_range(d, path, at, at))
					ok = 0;
			} else if (l[0] == ' ' || !l[0]) {
				newline++;
			} else if (l[0] != '\\') {
				in_hunk = 0;
			}
		}
		if (c == EOF)
			break;
	}
	free(path);
	free(old_path);
	strbuf_release(&line);
	return ok ? 0 : -1;
}

struct file_defs {
	struct kbx_node *defs;
	size_t n, alloc;
};

static int collect_def(void *data, const struct kbx_edge *e)
{
	struct file_defs *fd = data;
	if (fd->n == fd->alloc) {
		size_t na = fd->alloc ? fd->alloc * 2 : 64;
		struct kbx_node *p = realloc(fd->defs, na * sizeof(*p));
		if (!p)
			return 1;
		fd->defs = p;
		fd->alloc = na;
	}
	fd->defs[fd->n++] = e->to;
	return 0;
}

/* The innermost definition holding line (a callable or a type), or NULL. */
static const struct kbx_node *innermost(const struct file_defs *fd, uint32_t line)
{
	const struct kbx_node *best = NULL;
	for (size_t i = 0; i < fd->n; i++) {
		const struct kbx_node *n = &fd->defs[i];
		if (!KBX_KIND_IS_CALLABLE(n->kind) && !KBX_KIND_IS_TYPE(n->kind))
			continue;
		if (n->line <= line && line <= (n->end_line ? n->end_line : n->line) &&
		    (!best || n->line >= best->line))
			best = n;
	}
	return best;
}

int cmd_impact(int argc, const char **argv, struct kbx_ctx *ctx)
{
	long depth = 0;
	const char *diff_file = NULL;
	int use_diff = 0, certain = 0, all_repos = 0;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	oo.pictures = 1;
	struct option opts[] = {
		OPT_BOOL_F(0, "diff", &use_diff, "read a unified diff from standard input"),
		OPT_STRING_F(0, "diff-file", &diff_file, "FILE", "read the unified diff from FILE"),
		OPT_INT_F('d', "depth", &depth, "N", "follow callers and importers N hops (default: all)"),
		OPT_CERTAIN_F(&certain),
		OPT_OUTPUT_COMMON(&oo),
		OPT_ALL_REPOS_DB_F(&all_repos),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, impact_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (diff_file)
		use_diff = 1;
	if (all_repos && !ctx->db) {
		fprintf(stderr, "error: 'impact --all-repos' asks the database: give kbx --db=URL\n");
		return KBX_EXIT_USAGE;
	}
	if (use_diff && ctx->db) {
		fprintf(stderr, "error: 'impact --diff' is not available with --db: the database is not the tree the diff applies to\n"
			"hint: run it without --db over the index of the changed tree, or give the symbols\n");
		return KBX_EXIT_USAGE;
	}
	if ((use_diff && nargs) || (!use_diff && !nargs) || depth < 0) {
		fprintf(stderr, "error: give symbols or --diff, not both\n");
		usage_with_options(impact_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	struct dependents *dep = dependents_new(ctx->store, (uint32_t)depth,
						certain ? KBX_WALK_CERTAIN : 0);
	if (!dep) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	struct kbx_error err = KBX_ERROR_INIT;
	struct seeds seeds = { KBX_NODELIST_INIT, NULL };
	int rc = 0;

	if (use_diff) {
		FILE *f = stdin;
		if (diff_file && strcmp(diff_file, "-")) {
			f = fopen(diff_file, "r");
			if (!f) {
				perror("error: cannot open the diff");
				return KBX_EXIT_IO;
			}
		}
		struct diff d = { 0 };
		if (parse_diff(f, diff_file ? diff_file : "standard input", &d) < 0)
			rc = KBX_EXIT_USAGE;
		if (f != stdin)
			fclose(f);
		for (size_t i = 0; i < d.ndeleted; i++)
			fprintf(stderr, "note: '%s' is deleted by the diff; what depended on it is not in the index any more\n",
				out_esc(d.deleted[i]));
		/* group ranges by file */
		for (size_t i = 0; i < d.n && !rc;) {
			size_t j = i;
			while (j < d.n && !strcmp(d.r[j].path, d.r[i].path))
				j++;
			struct kbx_nodelist file = KBX_NODELIST_INIT;
			struct kbx_error e2 = KBX_ERROR_INIT;
			if (kbx_lookup(ctx->store, d.r[i].path, &file, &e2) != KBX_OK || !file.n ||
			    file.items[0].kind != KBX_KIND_FILE) {
				fprintf(stderr, "note: '%s' is not in the index; skipped\n",
					out_esc(d.r[i].path));
				kbx_nodelist_release(&file);
				i = j;
				continue;
			}
			struct file_defs fd = { 0 };
			kbx_walk_edges(ctx->store, file.items[0].id, KBX_EDGE_DEFINES, KBX_DIR_OUT, 0,
				       collect_def, &fd, &err);
			for (size_t k = i; k < j; k++)
				for (uint32_t line = d.r[k].from; line <= d.r[k].to; line++) {
					const struct kbx_node *n = innermost(&fd, line);
					seed_add(&seeds, 0, n ? n : &file.items[0]);
				}
			free(fd.defs);
			kbx_nodelist_release(&file);
			i = j;
		}
		for (size_t i = 0; i < d.n; i++)
			free(d.r[i].path);
		free(d.r);
		for (size_t i = 0; i < d.ndeleted; i++)
			free(d.deleted[i]);
		free(d.deleted);
	} else {
		for (int i = 0; i < nargs && !rc; i++) {
			struct kbx_nodelist l = KBX_NODELIST_INIT;
			rc = lookup_symbol(ctx, argv[i], &l);
			for (size_t k = 0; k < l.n; k++)
				seed_add(&seeds, ctx->db ? db_graph_match_repo_index(ctx->db, k) : 0,
					 &l.items[k]);
			kbx_nodelist_release(&l);
		}
	}
	if (rc) {
		seeds_release(&seeds);
		dependents_free(dep);
		return rc;
	}
	for (size_t i = 0; i < seeds.l.n && !rc; i++) {
		if (ctx->db) {
			rc = dependents_walk_db(dep, ctx->db, seeds.repo[i], &seeds.l.items[i]);
			continue;
		}
		kbx_status_t st = dependents_walk(dep, &seeds.l.items[i], &err);
		if (st)
			rc = die_status(&err);
	}
	struct out *o = out_new(&oo);
	if (!o) {
		seeds_release(&seeds);
		dependents_free(dep);
		return KBX_EXIT_USAGE;
	}
	if (!rc)
		dependents_print(o, dep, 0);
	size_t found = dependents_count(dep);
	seeds_release(&seeds);
	dependents_free(dep);
	if (out_finish(o))
		return KBX_EXIT_IO;
	if (rc)
		return rc;
	return found ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
