/*
 * kbx context: the answer to a question as text for a model, within a
 * budget of tokens.  The library gathers and packs it
 * (lib/context/kbx-context.h); this prints it as Markdown or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "context/kbx-context.h"
#include "db-graph.h"
#include "db-hybrid.h"
#include "output.h"
#include "parse-options.h"
#include "repos-util.h"
#include "util/config.h"
#include "util/strbuf.h"

static const char *const context_usage[] = {
	"kbx context [<options>] <question>...",
	"kbx context [<options>] -",
	NULL
};

static const char *const format_names[] = { "markdown", "json", NULL };
static const char *const mode_names[] = { "hybrid", "vector", "lexical", NULL };

/* The longest question, from the arguments or standard input. */
#define MAX_QUESTION (1u << 20)

/* A fence longer than any run of backticks in text. */
static size_t fence_len(const char *text)
{
	size_t longest = 0, run = 0;
	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	return longest < 3 ? 3 : longest + 1;
}

static void print_piece_markdown(struct out *o, const struct kbx_context_piece *p)
{
	size_t f = fence_len(p->text);
	const char *info = p->kind == KBX_PIECE_DOC ? "markdown"
			   : p->kind == KBX_PIECE_ERROR ? "text" : p->lang;
	size_t len = strlen(p->text);
	static const char ticks[] = "````````````````````````````````````````````````````````````````";
	if (f > sizeof(ticks) - 1)
		f = sizeof(ticks) - 1;
	out_line(o, "## %s\n", out_esc(p->header));
	out_line(o, "%.*s%s", (int)f, ticks, info);
	/* tabs and newlines stay; other control characters are escaped */
	out_line(o, "%.*s", (int)(len && p->text[len - 1] == '\n' ? len - 1 : len), p->text);
	out_line(o, "%.*s\n", (int)f, ticks);
}

static void print_piece_json(struct out *o, size_t rank, const struct kbx_context_piece *p,
			     const struct kbx_context_source *src)
{
	out_record_begin(o, "piece");
	out_field_int(o, "rank", (int64_t)rank);
	if (src->repo) {
		out_field_str(o, "repo", src->repo);
		out_field_str(o, "repo_root", src->store ? kbx_store_root(src->store) : NULL);
	}
	out_field_str(o, "kind", kbx_context_kind_str(p->kind));
	out_field_str(o, "id", p->id);
	out_field_str(o, "title", p->title);
	out_field_str(o, "heading", p->heading);
	out_field_str(o, "path", *p->path ? p->path : NULL);
	if (p->line) {
		out_field_int(o, "line", p->line);
		out_field_int(o, "end_line", p->end_line);
	} else {
		out_json_str(o, "line", NULL);
		out_json_str(o, "end_line", NULL);
	}
	if (p->kind == KBX_PIECE_CODE || p->kind == KBX_PIECE_SIGNATURE)
		out_field_int(o, "def_end_line", p->def_end_line);
	else
		out_json_str(o, "def_end_line", NULL);
	out_json_bool(o, "cut", p->cut);
	out_json_bool(o, "shortened", p->shortened);
	out_field_str(o, "lang", *p->lang ? p->lang : NULL);
	out_field_str(o, "step", kbx_context_step_str(p->step));
	out_field_str(o, "why", p->why);
	out_field_num(o, "score", p->score);
	out_field_str(o, "severity", p->kind == KBX_PIECE_ERROR ? p->severity : NULL);
	out_field_str(o, "cause", p->kind == KBX_PIECE_ERROR ? p->cause : NULL);
	out_field_str(o, "fix", p->kind == KBX_PIECE_ERROR ? p->fix : NULL);
	out_field_str(o, "header", p->header);
	out_field_str(o, "text", p->text);
	out_field_int(o, "tokens", (int64_t)p->tokens);
	out_record_end(o);
}

static void print_pack_json(struct out *o, const struct kbx_context *c, const char *question)
{
	const struct kbx_context_plan *p = &c->plan;
	out_record_begin(o, "pack");
	out_field_str(o, "question", question);
	out_field_int(o, "budget", (int64_t)c->budget);
	out_field_int(o, "tokens", (int64_t)c->tokens);
	out_field_int(o, "pieces", (int64_t)c->n);
	out_field_str(o, "estimate", "kbx");
	out_field_str(o, "traversal", p->relation);
	out_field_str(o, "search_text", p->search_text);
	out_json_begin(o, "steps", 1);
	for (int s = 0; s < KBX_STEP__COUNT; s++) {
		out_json_begin(o, NULL, 0);
		out_json_str(o, "step", kbx_context_step_str(s));
		out_json_int(o, "found", (int64_t)p->found[s]);
		out_json_int(o, "packed", (int64_t)p->packed[s]);
		out_json_num(o, "ms", p->ms[s]);
		out_json_end(o);
	}
	out_json_end(o);
	out_json_begin(o, "central", 1);
	for (size_t i = 0; i < p->ncentral; i++)
		out_json_str(o, NULL, p->central[i]);
	out_json_end(o);
	out_field_int(o, "candidates", (int64_t)p->candidates);
	out_field_int(o, "duplicates", (int64_t)p->duplicates);
	out_field_int(o, "overlaps", (int64_t)p->overlaps);
	out_field_int(o, "over_budget", (int64_t)p->over_budget);
	out_field_int(o, "shortened", (int64_t)p->shortened);
	out_field_int(o, "stale", (int64_t)p->stale);
	out_json_begin(o, "notes", 1);
	for (size_t i = 0; i < p->nnotes; i++)
		out_json_str(o, NULL, p->notes[i]);
	out_json_end(o);
	out_field_num(o, "ms_pack", p->ms_pack);
	out_record_end(o);
}

/* Text from the repository or the question inside the plan's HTML
 * comment: escaped (out_esc), and "--" broken up as "- -", which cannot
 * end the comment (nor may a comment hold it).  One buffer, reused. */
static const char *in_comment(const char *s)
{
	static struct strbuf sb = STRBUF_INIT;
	s = out_esc(s);
	if (!strstr(s, "--"))
		return s;
	strbuf_reset(&sb);
	for (; *s; s++) {
		strbuf_addch(&sb, *s);
		if (*s == '-' && s[1] == '-')
			strbuf_addch(&sb, ' ');
	}
	return sb.failed ? "?" : sb.buf;
}

static void print_plan_markdown(struct out *o, const struct kbx_context *c)
{
	const struct kbx_context_plan *p = &c->plan;
	out_line(o, "<!-- kbx context plan");
	for (int s = 0; s < KBX_STEP__COUNT; s++)
		out_line(o, "step %-10s %zu found, %zu packed, %.2f ms", kbx_context_step_str(s),
			 p->found[s], p->packed[s], p->ms[s]);
	if (p->relation)
		out_line(o, "traversal  %s%s%s", p->relation, p->search_text ? ", searched for " : "",
			 p->search_text ? in_comment(p->search_text) : "");
	for (size_t i = 0; i < p->ncentral; i++)
		out_line(o, "central    %s", in_comment(p->central[i]));
	out_line(o, "packed     %zu piece%s, %zu of %zu tokens (estimated), %.2f ms", c->n,
		 c->n == 1 ? "" : "s", c->tokens, c->budget, p->ms_pack);
	out_line(o, "left out   %zu the same again, %zu overlapping, %zu over the budget, %zu changed or unreadable",
		 p->duplicates, p->overlaps, p->over_budget, p->stale);
	out_line(o, "shortened  %zu piece%s to leave room: code to its signature, the rest to its first lines", p->shortened,
		 p->shortened == 1 ? "" : "s");
	out_line(o, "-->\n");
}

/* The question: the operands, or standard input for "-". */
static int read_question(int nargs, const char **argv, struct strbuf *q)
{
	if (nargs == 1 && !strcmp(argv[0], "-")) {
		if (strbuf_read_file(q, "/dev/stdin", 4096) < 0 && !q->len) {
			fprintf(stderr, "error: cannot read the question from standard input: %s\n",
				strerror(errno));
			return KBX_EXIT_IO;
		}
	} else {
		for (int i = 0; i < nargs; i++) {
			if (i)
				strbuf_addch(q, ' ');
			strbuf_addstr(q, argv[i]);
		}
	}
	if (q->failed) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	if (q->len > MAX_QUESTION) {
		fprintf(stderr, "error: the question is %zu bytes, more than the %u kbx context takes: shorten it\n",
			q->len, MAX_QUESTION);
		return KBX_EXIT_USAGE;
	}
	if (strlen(q->buf ? q->buf : "") != q->len) {
		fprintf(stderr, "error: the question holds a NUL byte\n");
		return KBX_EXIT_USAGE;
	}
	size_t blank = 0;
	while (blank < q->len && strchr(" \t\r\n", q->buf[blank]))
		blank++;
	if (blank == q->len) {
		fprintf(stderr, "error: the question is empty\n");
		return KBX_EXIT_USAGE;
	}
	return 0;
}

static int print_context(const struct kbx_context *c, const struct kbx_context_source *sources,
			 int format, long format_version, int explain, const char *question)
{
	struct output_opts oo = OUTPUT_OPTS_INIT;
	oo.format = format ? FMT_JSON : FMT_TEXT;
	oo.format_version = format_version;
	oo.color = COLOR_NEVER;
	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;
	if (format) {
		for (size_t i = 0; i < c->n; i++)
			print_piece_json(o, i + 1, &c->pieces[i], &sources[c->pieces[i].source]);
		print_pack_json(o, c, question);
	} else {
		if (explain)
			print_plan_markdown(o, c);
		for (size_t i = 0; i < c->n; i++)
			print_piece_markdown(o, &c->pieces[i]);
	}
	return out_finish(o) ? KBX_EXIT_IO : c->n ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}

int cmd_context(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int format = 0, mode = -1, explain = 0, all_repos = 0;
	long budget = KBX_CONTEXT_DEFAULT_BUDGET, candidates = 0, format_version = -1;
	const char *lang = NULL, *severity = NULL, *path = NULL;
	struct opt_list types = OPT_LIST_INIT, tags = OPT_LIST_INIT;
	struct option opts[] = {
		OPT_INT_F(0, "budget", &budget, "N", "at most N tokens, as kbx estimates them (default 4000)"),
		OPT_KEYWORD_F(0, "format", &format, format_names, "FORMAT",
			      "output format: markdown (default) or json (JSON Lines)"),
		OPT_INT_F(0, "format-version", &format_version, "N",
			  "version of the JSON format to print (default: the newest)"),
		OPT_BOOL_F(0, "explain", &explain, "print the plan before the pieces (outside the budget)"),
		OPT_INT_F(0, "candidates", &candidates, "N", "candidates asked of the hybrid and search steps (default 50)"),
		OPT_KEYWORD_F(0, "mode", &mode, mode_names, "MODE",
			      "search signals: hybrid (default), vector or lexical"),
		OPT_SEARCH_FILTERS_F(&types, &lang, &tags, &severity, &path),
		OPT_BOOL_F(0, "all-repos", &all_repos,
			   "ask every repository of 'kbx repos' and pack the best of them all"),
		OPT_REPO_F(),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, context_usage);
	int rc = KBX_EXIT_USAGE;
	struct strbuf question = STRBUF_INIT;
	struct repo_stores rs = REPO_STORES_INIT;
	struct kbx_context_source *sources = NULL;
	struct kbx_embed_config *ec = NULL;
	struct db_hgraph *dbh = NULL;
	struct kbx_hybrid_graph *graphs = NULL;
	struct kbx_context c = { 0 };
	const char **tagv = NULL;
	size_t nsources = 0;
	if (nargs < 0)
		goto out;
	if (!nargs) {
		fprintf(stderr, "error: ask a question, or give - to read it from standard input\n");
		usage_with_options(context_usage, opts, 1);
		goto out;
	}
	if (budget < KBX_CONTEXT_MIN_BUDGET || budget > KBX_CONTEXT_MAX_BUDGET) {
		fprintf(stderr, "error: --budget must be from %d to %d tokens\n", KBX_CONTEXT_MIN_BUDGET,
			KBX_CONTEXT_MAX_BUDGET);
		goto out;
	}
	if (candidates < 0 || candidates > 1000) {
		fprintf(stderr, "error: --candidates must be from 1 to 1000\n");
		goto out;
	}
	struct kbx_context_opts co = { 0 };
	rc = search_parse_types(&types, &co.types);
	if (rc)
		goto out;
	rc = read_question(nargs, argv, &question);
	if (rc)
		goto out;
	rc = KBX_EXIT_INTERNAL;
	if (tags.n) {
		tagv = calloc((size_t)tags.n, sizeof(*tagv));
		if (!tagv)
			goto out;
		for (int i = 0; i < tags.n; i++)
			tagv[i] = tags.items[i];
	}
	struct kbx_config_value v;
	co.question = question.buf;
	co.budget = (size_t)budget;
	co.candidates = (size_t)candidates;
	co.mode = mode >= 0 ? mode
			    : kbx_config_get(ctx->config, "search.mode", &v, NULL) == KBX_OK ? (int)v.number : 0;
	co.fusion = kbx_config_get(ctx->config, "search.fusion", &v, NULL) == KBX_OK ? (int)v.number : 0;
	if (kbx_config_get(ctx->config, "index.maxFileSize", &v, NULL) == KBX_OK)
		co.max_file_size = (uint64_t)v.number;
	co.lang = lang;
	co.tags = tagv;
	co.ntags = (size_t)tags.n;
	co.severity = severity;
	co.path = path;

	if (ctx->db) {
		/* the repositories kbx --db names (--repo, --all-repos) */
		if ((rc = db_graph_schema(ctx->db, "context")))
			goto out;
		nsources = db_graph_nrepos(ctx->db);
	} else if (all_repos) {
		rc = repo_stores_open(ctx, &rs);
		if (rc)
			goto out;
		nsources = rs.n;
	} else {
		nsources = 1;
	}
	rc = KBX_EXIT_INTERNAL;
	sources = calloc(nsources, sizeof(*sources));
	ec = calloc(nsources, sizeof(*ec));
	dbh = calloc(nsources, sizeof(*dbh));
	graphs = calloc(nsources, sizeof(*graphs));
	if (!sources || !ec || !dbh || !graphs)
		goto out;
	for (size_t i = 0; i < nsources; i++) {
		struct kbx_ctx sctx = *ctx;
		if (ctx->db) {
			dbh[i] = (struct db_hgraph){ ctx->db, i, 0, NULL, NULL, 0, KBX_NODELIST_INIT };
			db_hybrid_graph(&dbh[i], &graphs[i]);
			sources[i].graph = &graphs[i];
			if (db_graph_all(ctx->db))
				sources[i].repo = db_graph_repo_name(ctx->db, i);
		} else if (all_repos) {
			sctx.config = rs.items[i].config;
			sources[i].store = rs.items[i].store;
			sources[i].repo = rs.items[i].repo->name;
		} else {
			sources[i].store = ctx->store;
		}
		/* each store is searched with the embedder it was indexed with */
		search_embed_config(&sctx, &ec[i]);
		sources[i].embed = &ec[i];
	}
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = kbx_context(sources, nsources, &co, &c, &err);
	/* a statement the database refused: its error is printed */
	for (size_t i = 0; ctx->db && i < nsources; i++)
		if (dbh[i].rc) {
			rc = dbh[i].rc;
			goto out;
		}
	if (st && st != KBX_NOT_FOUND) {
		rc = die_status(&err);
		goto out;
	}
	for (size_t i = 0; i < c.plan.nnotes; i++)
		fprintf(stderr, "note: %s\n", out_esc(c.plan.notes[i]));
	if (st == KBX_NOT_FOUND)
		fprintf(stderr, "%s\n", out_esc(err.msg));
	rc = print_context(&c, sources, format, format_version, explain, question.buf);
out:
	kbx_context_release(&c);
	free(sources);
	free(ec);
	for (size_t i = 0; dbh && ctx->db && i < nsources; i++)
		db_hgraph_release(&dbh[i]);
	free(dbh);
	free(graphs);
	repo_stores_close(&rs);
	strbuf_release(&question);
	free(tagv);
	free(types.items);
	free(tags.items);
	return rc;
}
