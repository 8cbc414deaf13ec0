/*
 * kbx hybrid: questions that need the graph and the search together
 * ("what calls add", "functions similar to parse_config within
 * src/auth").  The library makes and runs the plan (lib/hybrid/kbx-hybrid.h);
 * this prints it and the results.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "db-graph.h"
#include "db-hybrid.h"
#include "text/chunk.h"
#include "util/config.h"
#include "hybrid/kbx-hybrid.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "repos-util.h"
#include "util/strbuf.h"

static const char *const hybrid_usage[] = {
	"kbx hybrid [<options>] <question>...",
	NULL
};

static const char *const mode_names[] = { "hybrid", "vector", "lexical", NULL };
static const char *const fusion_names[] = { "rrf", "linear", NULL };
static const char *const plan_names[] = { "auto", "graph-first", "vector-first", NULL };

/* --weight NAME=VALUE */
static int parse_weight(const char *arg, struct kbx_hybrid_weights *w)
{
	static const char *const names[] = { "similarity", "graph", "importance", "recency", NULL };
	double *fields[] = { &w->similarity, &w->graph, &w->importance, &w->recency };
	const char *eq = strchr(arg, '=');
	if (eq) {
		for (int i = 0; names[i]; i++) {
			if (strlen(names[i]) != (size_t)(eq - arg) || strncmp(arg, names[i], (size_t)(eq - arg)))
				continue;
			char *end;
			errno = 0;
			double v = strtod(eq + 1, &end);
			if (errno || end == eq + 1 || *end || v != v || v < 0 || v > 100)
				break;
			*fields[i] = v;
			return 0;
		}
	}
	fprintf(stderr, "error: --weight takes NAME=VALUE, NAME one of similarity, graph, importance, recency and VALUE from 0 to 100, not '%s'\n",
		out_esc(arg));
	return -1;
}

static const char *shown(const struct kbx_node *n)
{
	return n->kind == KBX_KIND_FILE || !n->qual || !*n->qual ? n->cid : n->qual;
}

/* The chunk types of a set, "pattern, doc", into buf. */
static const char *types_str(unsigned types, char *buf, size_t size)
{
	size_t l = 0;
	buf[0] = '\0';
	for (int t = 1; t < KBX_CHUNK__COUNT && l < size; t++)
		if (types & (1u << t))
			l += (size_t)snprintf(buf + l, size - l, "%s%s", l ? ", " : "",
					      kbx_chunk_type_str(t));
	return buf;
}

static void print_docs_plan_json(struct out *o, const struct kbx_hybrid_results *r)
{
	const struct kbx_hybrid_plan *p = &r->plan;
	if (!p->docs_why) {
		out_json_str(o, "documents", NULL);
		return;
	}
	out_json_begin(o, "documents", 0);
	out_json_str(o, "why", kbx_hybrid_docs_why_str(p->docs_why));
	out_json_str(o, "words", p->docs_words);
	out_json_begin(o, "types", 1);
	for (int t = 1; t < KBX_CHUNK__COUNT; t++)
		if (p->docs_types & (1u << t))
			out_json_str(o, NULL, kbx_chunk_type_str(t));
	out_json_end(o);
	out_json_str(o, "hop", kbx_hybrid_hop_str(p->docs_hop));
	out_json_str(o, "hop_words", p->docs_hop_words);
	out_json_int(o, "hop_from", (int64_t)p->docs_from);
	out_json_begin(o, "names", 1);
	for (size_t i = 0; i < p->ndocs_names; i++)
		out_json_str(o, NULL, p->docs_names[i]);
	out_json_end(o);
	out_json_str(o, "search_text", p->docs_text);
	out_json_int(o, "total", (int64_t)r->docs_total);
	out_json_bool(o, "capped", r->docs_capped);
	out_json_num(o, "ms", p->ms_docs);
	out_json_end(o);
}

static void print_plan_json(struct out *o, const struct kbx_hybrid_results *r, const char *question,
			    const char *repo)
{
	const struct kbx_hybrid_plan *p = &r->plan;
	out_record_begin(o, "plan");
	if (repo)
		out_field_str(o, "repo", repo);
	out_field_str(o, "question", question);
	out_field_str(o, "traversal", kbx_hybrid_rel_str(p->relation));
	out_field_str(o, "traversal_words", p->relation_words);
	if (p->depth == KBX_HYBRID_DEPTH_ALL)
		out_field_str(o, "depth", "all");
	else
		out_field_int(o, "depth", p->depth);
	out_field_str(o, "depth_words", p->depth_words);
	out_json_bool(o, "certain", p->certain);
	out_field_str(o, "search_text", p->search_text);
	out_field_str(o, "similar_to", p->similar_to);
	out_field_str(o, "kinds", p->kind_words);
	out_json_begin(o, "resolved", 1);
	for (size_t i = 0; i < p->nterms; i++) {
		const struct kbx_hybrid_term *t = &p->terms[i];
		out_json_begin(o, NULL, 0);
		out_json_str(o, "text", t->text);
		out_json_str(o, "role", t->role);
		out_json_str(o, "how", kbx_hybrid_how_str(t->how));
		if (t->spelling)
			out_json_str(o, "spelling", t->spelling);
		out_json_begin(o, "nodes", 1);
		for (size_t j = 0; j < t->nodes.n; j++) {
			out_json_begin(o, NULL, 0);
			out_json_node_ref(o, &t->nodes.items[j]);
			if (t->scores)
				out_json_num(o, "score", t->scores[j]);
			out_json_end(o);
		}
		out_json_end(o);
		out_json_end(o);
	}
	out_json_end(o);
	out_json_begin(o, "seeds", 1);
	for (size_t i = 0; i < p->nseeds; i++) {
		out_json_begin(o, NULL, 0);
		out_json_node_ref(o, &p->seeds[i].node);
		out_json_str(o, "from", p->seeds[i].from);
		out_json_num(o, "score", p->seeds[i].score);
		out_json_end(o);
	}
	out_json_end(o);
	if (p->scoped) {
		out_json_begin(o, "scope", 0);
		out_json_str(o, "plan", kbx_scope_plan_str(p->scope_plan));
		out_json_int(o, "nodes", (int64_t)p->scope_nodes);
		out_json_str(o, "why", p->scope_why);
		out_json_end(o);
	}
	out_json_begin(o, "signals", 0);
	for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
		if (!p->sig[sg].used && !p->sig[sg].note[0])
			continue;
		out_json_begin(o, kbx_signal_str(sg), 0);
		out_json_bool(o, "used", p->sig[sg].used);
		out_json_int(o, "candidates", (int64_t)p->sig[sg].candidates);
		out_json_num(o, "ms", p->sig[sg].ms);
		if (p->sig[sg].note[0])
			out_json_str(o, "note", p->sig[sg].note);
		out_json_end(o);
	}
	out_json_end(o);
	out_field_int(o, "candidates", (int64_t)p->candidates);
	out_field_int(o, "results_total", (int64_t)r->total);
	print_docs_plan_json(o, r);
	out_json_begin(o, "weights", 0);
	out_json_num(o, "similarity", p->w.similarity);
	out_json_num(o, "graph", p->w.graph);
	out_json_num(o, "importance", p->w.importance);
	out_json_num(o, "recency", p->w.recency);
	out_json_end(o);
	out_json_begin(o, "notes", 1);
	for (size_t i = 0; i < p->nnotes; i++)
		out_json_str(o, NULL, p->notes[i]);
	out_json_end(o);
	out_json_begin(o, "ms", 0);
	out_json_num(o, "plan", p->ms_plan);
	out_json_num(o, "search", p->ms_search);
	out_json_num(o, "expand", p->ms_expand);
	out_json_num(o, "rank", p->ms_rank);
	out_json_end(o);
	out_record_end(o);
}

/* The plan's notes and the signals' warnings, on stderr. */
static void print_notes(const struct kbx_hybrid_plan *p, const char *repo)
{
	for (size_t i = 0; i < p->nnotes; i++)
		fprintf(stderr, "note: %s%s%s\n", repo ? out_esc(repo) : "", repo ? ": " : "",
			out_esc(p->notes[i]));
	for (int sg = 0; sg < KBX_SIG__COUNT; sg++)
		if (p->sig[sg].note[0])
			fprintf(stderr, "warning: %s%s%s\n", repo ? out_esc(repo) : "",
				repo ? ": " : "", out_esc(p->sig[sg].note));
}

/* Why the registry was searched, and the hop step by step. */
static void print_docs_plan_text(struct out *o, const struct kbx_hybrid_results *r)
{
	const struct kbx_hybrid_plan *p = &r->plan;
	char types[96];
	if (!p->docs_why)
		return;
	types_str(p->docs_types, types, sizeof(types));
	if (p->docs_why == KBX_DOCS_FALLBACK)
		out_note(o, "documents  %s: the code part found nothing for the words, so the registry is searched",
			 types);
	else
		out_note(o, "documents  %s (from '%s'): %s", types, out_esc(p->docs_words),
			 p->docs_why == KBX_DOCS_HOWTO ? "a how-to question, answered by documents and code"
						       : "the question asks for them");
	if (p->docs_hop && p->docs_from) {
		const char *target = NULL;
		for (size_t i = 0; i < p->nterms; i++)
			if (!strcmp(p->terms[i].role, "target"))
				target = p->terms[i].text;
		if (p->relation && r->total)
			out_note(o, "step 1     '%s %s': %zu result%s", out_esc(p->relation_words),
				 target ? out_esc(target) : "", r->total, r->total == 1 ? "" : "s");
		else if (p->relation)
			out_note(o, "step 1     '%s %s': nothing; its %zu seed%s stand%s in", out_esc(p->relation_words),
				 target ? out_esc(target) : "", p->nseeds, p->nseeds == 1 ? "" : "s",
				 p->nseeds == 1 ? "s" : "");
		else
			out_note(o, "step 1     '%s', named in the question: %zu node%s",
				 target ? out_esc(target) : "", p->nseeds, p->nseeds == 1 ? "" : "s");
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < p->ndocs_names && i < 12; i++)
			strbuf_addf(&sb, "%s%s", i ? ", " : "", p->docs_names[i]);
		if (p->ndocs_names > 12)
			strbuf_addf(&sb, ", ... (%zu in all)", p->ndocs_names);
		if (p->docs_hop == KBX_HOP_USES)
			out_note(o, "step 2     what the first %zu use (from '%s'), the functions they call and the modules their files import: %s",
				 p->docs_from, p->docs_hop_words ? out_esc(p->docs_hop_words) : "",
				 sb.len ? out_esc(sb.buf) : "none");
		else
			out_note(o, "step 2     the names of the first %zu: %s", p->docs_from,
				 sb.len ? out_esc(sb.buf) : "none");
		strbuf_release(&sb);
		out_note(o, "step 3     the registry's %s searched for them: %s%zu hit%s", types,
			 r->docs_capped ? "at least " : "", r->docs_total,
			 r->docs_total == 1 ? "" : "s");
	}
	if (p->docs_text)
		out_note(o, "           searched for '%s'", out_esc(p->docs_text));
}

static void print_plan_text(struct out *o, const struct kbx_hybrid_results *r)
{
	const struct kbx_hybrid_plan *p = &r->plan;
	out_heading(o, "plan");
	char depth[40];
	if (p->depth == KBX_HYBRID_DEPTH_ALL)
		snprintf(depth, sizeof(depth), "every hop");
	else
		snprintf(depth, sizeof(depth), "%u hop%s", p->depth, p->depth == 1 ? "" : "s");
	if (p->relation)
		out_note(o, "traversal  %s (from '%s'), %s (%s%s%s)", kbx_hybrid_rel_str(p->relation),
			 p->relation_words ? out_esc(p->relation_words) : "", depth,
			 p->depth_words ? "from '" : "the default",
			 p->depth_words ? out_esc(p->depth_words) : "", p->depth_words ? "'" : "");
	else
		out_note(o, "traversal  none: the search's hits are the results");
	if (p->certain)
		out_note(o, "edges      certain only (--certain): no ambiguous call is followed");
	if (p->similar_to)
		out_note(o, "search     code similar to that of %s", out_esc(p->similar_to));
	else if (p->search_text)
		out_note(o, "search     '%s'", out_esc(p->search_text));
	print_docs_plan_text(o, r);
	if (p->kind_words)
		out_note(o, "kinds      %s (from '%s')",
			 p->kinds & (1u << KBX_KIND_FUNCTION) ? "functions and methods"
			 : p->kinds & (1u << KBX_KIND_FILE) ? "files and modules" : "types",
			 out_esc(p->kind_words));
	for (size_t i = 0; i < p->nterms; i++) {
		const struct kbx_hybrid_term *t = &p->terms[i];
		out_note(o, "resolved   %s '%s' by %s%s%s: %zu node%s", t->role, out_esc(t->text),
			 kbx_hybrid_how_str(t->how), t->spelling ? " as " : "",
			 t->spelling ? out_esc(t->spelling) : "", t->nodes.n,
			 t->nodes.n == 1 ? "" : "s");
		for (size_t j = 0; j < t->nodes.n && j < 8; j++) {
			const struct kbx_node *n = &t->nodes.items[j];
			if (t->scores)
				out_note(o, "             %s  (%s, score %.3f)", out_esc(n->cid),
					 kbx_kind_str(n->kind), t->scores[j]);
			else
				out_note(o, "             %s  (%s)", out_esc(n->cid),
					 kbx_kind_str(n->kind));
		}
		if (t->nodes.n > 8)
			out_note(o, "             ... and %zu more", t->nodes.n - 8);
	}
	if (p->nseeds) {
		out_note(o, "seeds      %zu", p->nseeds);
		for (size_t i = 0; i < p->nseeds && i < 10; i++)
			out_note(o, "             %s  (%s, score %.3f)", out_esc(p->seeds[i].node.cid),
				 p->seeds[i].from, p->seeds[i].score);
		if (p->nseeds > 10)
			out_note(o, "             ... and %zu more", p->nseeds - 10);
	}
	if (p->scoped)
		out_note(o, "scope      %s: %s", kbx_scope_plan_str(p->scope_plan),
			 out_esc(p->scope_why));
	for (int sg = 0; sg < KBX_SIG__COUNT; sg++)
		if (p->sig[sg].used)
			out_note(o, "signal     %s: %llu candidate%s in %.2f ms", kbx_signal_str(sg),
				 (unsigned long long)p->sig[sg].candidates,
				 p->sig[sg].candidates == 1 ? "" : "s", p->sig[sg].ms);
	out_note(o, "expanded   %llu node%s reached", (unsigned long long)p->candidates,
		 p->candidates == 1 ? "" : "s");
	out_note(o, "ranking    %.2f similarity + %.2f graph + %.2f importance + %.2f recency",
		 p->w.similarity, p->w.graph, p->w.importance, p->w.recency);
	if (p->docs_text)
		out_note(o, "time       plan %.2f ms, seeds %.2f ms, expansion %.2f ms, ranking %.2f ms, documents %.2f ms",
			 p->ms_plan, p->ms_search, p->ms_expand, p->ms_rank, p->ms_docs);
	else
		out_note(o, "time       plan %.2f ms, seeds %.2f ms, expansion %.2f ms, ranking %.2f ms",
			 p->ms_plan, p->ms_search, p->ms_expand, p->ms_rank);
	/* a heading that follows puts its own blank line */
	if (!r->docs.n)
		printf("\n");
}

/* One result; repo and root name its repository (--all-repos), else
 * NULL. */
static void print_result(struct out *o, size_t rank, const struct kbx_hybrid_result *h,
			 const struct kbx_hybrid_weights *w, int rel, int explain, const char *repo,
			 const char *root)
{
	const struct kbx_node *n = &h->node;
	/* format version 1 counted a named seed's similarity as 1 */
	double sim = h->similarity, score = h->score;
	if (out_version(o) < 2 && h->similarity_from == KBX_SIM_NONE) {
		sim = 1;
		score += w->similarity;
	}
	char tag[80] = "";
	if (repo)
		snprintf(tag, sizeof(tag), "[%s] ", out_esc(repo));
	switch (out_format(o)) {
	case FMT_NUL:
		fputs(n->cid, stdout);
		putchar('\0');
		return;
	case FMT_GREP:
		if (n->path)
			out_line(o, "%s:%u:%u: %s (%s, score %.3f)",
				 out_grep_path(root, n->path, n->path_len), n->line ? n->line : 1,
				 n->col ? n->col : 1, out_esc(shown(n)), kbx_kind_str(n->kind),
				 score);
		return;
	case FMT_JSON: {
		out_record_begin(o, "result");
		out_field_int(o, "rank", (int64_t)rank);
		if (repo) {
			out_field_str(o, "repo", repo);
			out_field_str(o, "repo_root", root);
		}
		out_json_node_ref(o, n);
		out_field_num(o, "score", score);
		out_json_begin(o, "factors", 0);
		out_json_num(o, "similarity", sim);
		out_json_num(o, "graph", h->graph);
		out_json_num(o, "importance", h->importance);
		out_json_num(o, "recency", h->recency);
		out_json_end(o);
		out_field_str(o, "similarity_from", kbx_hybrid_sim_str(h->similarity_from));
		out_json_begin(o, "signals", 0);
		out_json_num(o, "vector", h->vector);
		out_json_num(o, "lexical", h->lexical);
		out_json_end(o);
		out_field_int(o, "hops", h->hops);
		out_field_int(o, "callers", h->callers);
		out_field_int(o, "mtime", h->mtime);
		out_field_str(o, "confidence", kbx_confidence_str(h->confidence));
		out_json_begin(o, "via", 1);
		for (size_t i = 0; i < h->nvia; i++) {
			out_json_begin(o, NULL, 0);
			out_json_node_ref(o, &h->via[i]);
			if (h->via_line[i])
				out_json_int(o, "site_line", h->via_line[i]);
			out_json_end(o);
		}
		out_json_end(o);
		out_record_end(o);
		return;
	}
	default:
		break;
	}
	if (n->path)
		printf("%3zu  %s%s:%u  %s (%s)  %.3f", rank, tag, out_escn(n->path, n->path_len),
		       n->line, out_esc(shown(n)), kbx_kind_str(n->kind), h->score);
	else
		printf("%3zu  %s%s (%s)  %.3f", rank, tag, out_esc(shown(n)), kbx_kind_str(n->kind),
		       h->score);
	if (h->confidence == KBX_CONF_AMBIGUOUS)
		printf("  (through an ambiguous %s)",
		       rel == KBX_REL_IMPORTS || rel == KBX_REL_IMPORTERS ? "import" :
		       rel == KBX_REL_SUBCLASSES || rel == KBX_REL_SUPERCLASSES ? "base" :
		       rel == KBX_REL_IMPACT ? "call or import" : "call");
	putchar('\n');
	if (h->nvia > 1) {
		/* "A -> B" reads "A calls (imports, extends) B": a way from
		 * the seed against the edges (callers, importers, subclasses,
		 * impact) is printed from the result back to the seed */
		int back = rel == KBX_REL_CALLERS || rel == KBX_REL_IMPORTERS ||
			   rel == KBX_REL_SUBCLASSES || rel == KBX_REL_IMPACT;
		printf("     ");
		for (size_t k = 0; k < h->nvia; k++) {
			size_t i = back ? h->nvia - 1 - k : k;
			if (k)
				printf(" -> ");
			printf("%s", out_esc(shown(&h->via[i])));
			if (explain && i && h->via_line[i])
				printf(" [line %u]", h->via_line[i]);
		}
		putchar('\n');
	}
	if (!explain)
		return;
	/* a similarity says what is behind it: a factor with no signal is
	 * not a perfect match */
	if (h->similarity_from == KBX_SIM_NONE)
		printf("     similarity none (no text to compare: its seed was named in the question)");
	else if (h->similarity_from == KBX_SIM_SEED)
		printf("     similarity %.3f (the search score of its seed)", h->similarity);
	else
		printf("     similarity %.3f (vector %.3f, lexical %.3f)", h->similarity, h->vector,
		       h->lexical);
	printf("  graph %.3f (%u hop%s)  importance %.3f (%u caller%s)  recency %.3f\n", h->graph,
	       h->hops, h->hops == 1 ? "" : "s", h->importance, h->callers,
	       h->callers == 1 ? "" : "s", h->recency);
}

/* "N more; --limit to see them" under results the limit cut; what is
 * a noun in the singular, or NULL. */
static void print_more(struct out *o, size_t shown_n, size_t total, const char *what, int at_least)
{
	size_t more = total - shown_n;
	if (total > shown_n)
		out_note(o, "%s%zu more%s%s%s; --limit to see them", at_least ? "at least " : "", more,
			 what ? " " : "", what ? what : "", what && more > 1 ? "s" : "");
	else if (at_least)
		out_note(o, "there may be more%s%s%s; --limit to see them", what ? " " : "",
			 what ? what : "", what ? "s" : "");
}

/* The registry's hits of a plan, under their heading. */
static void print_docs(struct out *o, const struct kbx_hybrid_results *r, int explain)
{
	if (!r->docs.n)
		return;
	out_heading(o, "documents");
	for (size_t i = 0; i < r->docs.n; i++)
		out_search_hit(o, i + 1, &r->docs.hits[i], &r->docs, r->plan.docs_text, explain);
	print_more(o, r->docs.n, r->docs_total, "document", r->docs_capped);
}

/* --all-repos: the registry's hits of every repository, each repository's
 * best first, a registry entry two repositories share once; at most
 * limit.  Returns how many were printed. */
static size_t print_docs_all_repos(struct out *o, size_t nrepos, const char *const *names,
				   const char *const *roots, const struct kbx_hybrid_results *res,
				   const char *ok, size_t limit, int explain)
{
	size_t printed = 0, nseen = 0;
	int capped = 0;
	const struct kbx_search_hit **seen = NULL;
	for (size_t i = 0; i < nrepos; i++) {
		capped |= ok[i] && res[i].docs_capped;
		/* past docs.n, the hits the limit left out, to count them */
		for (size_t j = 0; ok[i] && j < res[i].docs_total; j++) {
			const struct kbx_search_hit *h = &res[i].docs.hits[j];
			size_t k;
			for (k = 0; k < nseen; k++)
				if (!strcmp(seen[k]->chunk.doc_id, h->chunk.doc_id) &&
				    seen[k]->chunk.seq == h->chunk.seq &&
				    !strcmp(seen[k]->chunk.path, h->chunk.path))
					break;
			if (k < nseen)
				continue;
			const struct kbx_search_hit **v = realloc(seen, (nseen + 1) * sizeof(*v));
			if (!v)
				break;
			seen = v;
			seen[nseen++] = h;
			if (printed == limit)
				continue;
			if (!printed)
				out_heading(o, "documents");
			out_set_repo(o, names[i], roots[i], j + 1);
			out_search_hit(o, ++printed, h, &res[i].docs, res[i].plan.docs_text, explain);
		}
	}
	out_set_repo(o, NULL, NULL, 0);
	print_more(o, printed, nseen, "document", capped);
	free(seen);
	return printed;
}

static double result_score(void *data, size_t list, size_t item)
{
	const struct kbx_hybrid_results *res = data;
	return res[list].items[item].score;
}

/* --all-repos: the question asked of every listed repository, each with
 * its own settings (or of every repository of the database, with the
 * user's); the ranked lists fused by reciprocal rank fusion. */
static int hybrid_all_repos(struct kbx_ctx *ctx, const struct kbx_hybrid_opts *ho_in,
			    const struct output_opts *oo, int explain, const char *question)
{
	struct repo_stores rs = REPO_STORES_INIT;
	int rc = ctx->db ? 0 : repo_stores_open(ctx, &rs);
	if (rc)
		return rc;
	size_t nrepos = ctx->db ? db_graph_nrepos(ctx->db) : rs.n;
	struct kbx_hybrid_results *res = calloc(nrepos + 1, sizeof(*res));
	size_t *counts = calloc(nrepos + 1, sizeof(*counts));
	struct kbx_embed_config *ec = calloc(nrepos + 1, sizeof(*ec));
	const char **names = calloc(nrepos + 1, sizeof(*names));
	const char **roots = calloc(nrepos + 1, sizeof(*roots));
	char *ok = calloc(nrepos + 1, 1);
	struct kbx_repos_fused *fused = NULL;
	size_t nfused = 0, asked = 0;
	rc = KBX_EXIT_INTERNAL;
	if (!res || !counts || !ec || !ok || !names || !roots) {
		fprintf(stderr, "fatal: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < nrepos; i++) {
		struct kbx_hybrid_opts ho = *ho_in;
		struct kbx_ctx sctx = *ctx;
		struct kbx_error err = KBX_ERROR_INIT;
		kbx_status_t st;
		if (ctx->db) {
			names[i] = db_graph_repo_name(ctx->db, i);
			rc = db_hybrid(ctx->db, i, &ho, &res[i], &st, &err);
			if (rc)
				goto out;
			rc = KBX_EXIT_INTERNAL;
		} else {
			names[i] = rs.items[i].repo->name;
			roots[i] = rs.items[i].repo->root;
			sctx.config = rs.items[i].config;
			search_embed_config(&sctx, &ec[i]);
			ho.embed = &ec[i];
			st = kbx_hybrid(rs.items[i].store, &ho, &res[i], &err);
		}
		const char *name = names[i];
		if (st == KBX_ERR_USAGE) {
			rc = die_status(&err);
			goto out;
		}
		if (st && st != KBX_NOT_FOUND) {
			fprintf(stderr, "warning: skipping '%s': %s\n", out_esc(name), out_esc(err.msg));
			continue;
		}
		asked++;
		ok[i] = 1;
		if (st == KBX_NOT_FOUND && explain)
			fprintf(stderr, "note: %s: %s\n", out_esc(name), out_esc(err.msg));
		print_notes(&res[i].plan, name);
		counts[i] = res[i].n;
	}
	if (!asked) {
		fprintf(stderr, "error: no repository could be asked\n");
		rc = KBX_EXIT_IO;
		goto out;
	}
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_repos_fuse(nrepos, counts, 0, NULL, result_score, res, &fused, &nfused, &err)) {
		rc = die_status(&err);
		goto out;
	}
	/* each repository's results before the limit cut them */
	size_t nall = nfused;
	for (size_t i = 0; i < nrepos; i++)
		if (ok[i])
			nall += res[i].total - res[i].n;
	if (nfused > ho_in->limit)
		nfused = ho_in->limit;
	struct out *o = out_new(oo);
	if (!o) {
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	for (size_t i = 0; i < nrepos; i++) {
		if (!ok[i])
			continue;
		if (out_format(o) == FMT_JSON)
			print_plan_json(o, &res[i], question, names[i]);
		else if (explain && out_format(o) == FMT_TEXT) {
			out_heading(o, "repository %s", out_esc(names[i]));
			print_plan_text(o, &res[i]);
		}
	}
	if (explain && out_format(o) == FMT_TEXT)
		out_note(o, "fusion     reciprocal rank over %zu repositor%s, k = 60\n", asked,
			 asked == 1 ? "y" : "ies");
	for (size_t f = 0; f < nfused; f++) {
		size_t l = fused[f].list;
		print_result(o, f + 1, &res[l].items[fused[f].item], &res[l].plan.w, res[l].plan.relation,
			     explain, names[l], roots[l]);
	}
	print_more(o, nfused, nall, NULL, 0);
	size_t ndocs = print_docs_all_repos(o, nrepos, names, roots, res, ok, ho_in->limit, explain);
	rc = out_finish(o) ? KBX_EXIT_IO : nfused || ndocs ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
out:
	free(fused);
	for (size_t i = 0; res && i < nrepos; i++)
		kbx_hybrid_release(&res[i]);
	free(res);
	free(counts);
	free(ec);
	free(ok);
	free(names);
	free(roots);
	repo_stores_close(&rs);
	return rc;
}

int cmd_hybrid(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct output_opts oo = OUTPUT_OPTS_INIT;
	int mode = -1, fusion = -1, explain = 0, plan = 0, all_repos = 0, certain = 0;
	long limit = 10, depth = LONG_MIN, expand = 0, seeds = 0;     /* LONG_MIN: not given */
	struct opt_list weights = OPT_LIST_INIT;
	struct option opts[] = {
		OPT_INT_F('n', "limit", &limit, "N", "show at most N results (default 10)"),
		OPT_INT_F('d', "depth", &depth, "N",
			  "hops of the traversal, 0 for all (default: the question's, else 1; defines 2; impact all)"),
		OPT_INT_F(0, "expand", &expand, "N",
			  "with no traversal in the question, add callers and callees N hops around the hits"),
		OPT_INT_F(0, "seeds", &seeds, "N", "search hits taken as starting points (default 3)"),
		OPT_CERTAIN_F(&certain),
		OPT_STRING_LIST_F(0, "weight", &weights, "NAME=W",
				  "a ranking weight: similarity, graph, importance or recency (repeatable)"),
		OPT_KEYWORD_F(0, "plan", &plan, plan_names, "PLAN",
			      "how a scope is searched: auto (default), graph-first or vector-first"),
		OPT_KEYWORD_F(0, "mode", &mode, mode_names, "MODE",
			      "search signals: hybrid (default), vector or lexical"),
		OPT_KEYWORD_F(0, "fusion", &fusion, fusion_names, "HOW",
			      "how the search fuses its lists: rrf (default) or linear"),
		OPT_BOOL_F(0, "explain", &explain,
			   "print the plan, each result's path from its seed and its ranking factors"),
		OPT_BOOL_F(0, "all-repos", &all_repos,
			   "ask every repository kbx repos lists, and fuse the answers"),
		OPT_OUTPUT_COMMON(&oo),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, hybrid_usage);
	int rc = KBX_EXIT_USAGE;
	struct strbuf question = STRBUF_INIT;
	struct kbx_hybrid_results res = { 0 };
	if (nargs < 0)
		goto out;
	if (!nargs) {
		fprintf(stderr, "error: ask a question, for example: kbx hybrid what calls add\n");
		usage_with_options(hybrid_usage, opts, 1);
		goto out;
	}
	if (limit < 1 || limit > 10000) {
		fprintf(stderr, "error: --limit must be from 1 to 10000\n");
		goto out;
	}
	if ((depth != LONG_MIN && depth < 0) || depth > 1000 || expand < 0 || expand > 100 || seeds < 0 || seeds > 1000) {
		fprintf(stderr, "error: --depth must be from 0 (all) to 1000, --expand from 0 to 100 and --seeds from 1 to 1000\n");
		goto out;
	}
	struct kbx_hybrid_opts ho = { 0 };
	ho.w.similarity = ho.w.graph = ho.w.importance = ho.w.recency = -1;
	for (int i = 0; i < weights.n; i++)
		if (parse_weight(weights.items[i], &ho.w))
			goto out;
	struct kbx_config_value v;
	ho.mode = mode >= 0 ? mode
			    : kbx_config_get(ctx->config, "search.mode", &v, NULL) == KBX_OK ? (int)v.number : 0;
	ho.fusion = fusion >= 0 ? fusion
				: kbx_config_get(ctx->config, "search.fusion", &v, NULL) == KBX_OK ? (int)v.number : 0;
	ho.limit = (size_t)limit;
	ho.depth = depth == 0 ? KBX_HYBRID_DEPTH_ALL : depth > 0 ? (uint32_t)depth : 0;
	ho.expand = (uint32_t)expand;
	ho.seeds = (size_t)seeds;
	ho.scope_plan = plan;
	ho.certain = certain;
	struct kbx_embed_config ec;
	search_embed_config(ctx, &ec);
	ho.embed = &ec;
	for (int i = 0; i < nargs; i++) {
		if (i)
			strbuf_addch(&question, ' ');
		strbuf_addstr(&question, argv[i]);
	}
	if (question.failed) {
		fprintf(stderr, "fatal: out of memory\n");
		rc = KBX_EXIT_INTERNAL;
		goto out;
	}
	ho.query = question.buf;
	if (ctx->db && (rc = db_graph_schema(ctx->db, "hybrid")))
		goto out;
	rc = KBX_EXIT_USAGE;
	if (all_repos || (ctx->db && db_graph_all(ctx->db))) {
		rc = hybrid_all_repos(ctx, &ho, &oo, explain, question.buf);
		goto out;
	}

	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st;
	if (ctx->db) {
		rc = db_hybrid(ctx->db, 0, &ho, &res, &st, &err);
		if (rc)
			goto out;
	} else {
		st = kbx_hybrid(ctx->store, &ho, &res, &err);
	}
	if (st && st != KBX_NOT_FOUND) {
		rc = die_status(&err);
		goto out;
	}
	print_notes(&res.plan, NULL);
	struct out *o = out_new(&oo);
	if (!o) {
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	if (explain && out_format(o) == FMT_TEXT)
		print_plan_text(o, &res);
	if (out_format(o) == FMT_JSON)
		print_plan_json(o, &res, question.buf, NULL);
	/* documents first when the question asks for them, and under
	 * their own heading when code is shown too */
	int both = res.n && res.docs.n;
	if (res.plan.docs_why != KBX_DOCS_FALLBACK)
		print_docs(o, &res, explain);
	if (both)
		out_heading(o, "code");
	for (size_t i = 0; i < res.n; i++)
		print_result(o, i + 1, &res.items[i], &res.plan.w, res.plan.relation, explain, NULL, NULL);
	print_more(o, res.n, res.total, NULL, 0);
	if (res.plan.docs_why == KBX_DOCS_FALLBACK)
		print_docs(o, &res, explain);
	/* a name that stands for nothing is an error; a plan that ran and
	 * found nothing is only said */
	if (st == KBX_NOT_FOUND)
		fprintf(stderr, "%s%s\n", res.plan.nseeds ? "" : "error: ", out_esc(err.msg));
	rc = out_finish(o) ? KBX_EXIT_IO : res.n || res.docs.n ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
out:
	kbx_hybrid_release(&res);
	strbuf_release(&question);
	free(weights.items);
	return rc;
}
