/* kbx search: find error entries, documents and code by meaning. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "db-graph.h"
#include "util/config.h"
#include "hybrid/kbx-hybrid.h"
#include "search/kbx-search.h"
#include "output.h"
#include "parse-options.h"
#include "repos-util.h"
#include "util/strbuf.h"

static const char *const search_usage[] = {
	"kbx search [<options>] <query>...",
	"kbx search [<options>] -",
	NULL
};

static const char *const mode_names[] = { "hybrid", "vector", "lexical", NULL };
static const char *const fusion_names[] = { "rrf", "linear", NULL };
/* enum kbx_scope_plan */
static const char *const plan_names[] = { "auto", "graph-first", "vector-first", NULL };
/* what --type completes to (kbx_chunk_type_parse() checks the words) */
const char *const search_type_names[] = { "error", "pattern", "doc", "adr", "behavioral", "code", NULL };

int search_parse_types(const struct opt_list *types, unsigned *out)
{
	for (int i = 0; i < types->n; i++) {
		char *copy = strdup(types->items[i]);
		if (!copy)
			return KBX_EXIT_INTERNAL;
		for (char *save = NULL, *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
			int t = kbx_chunk_type_parse(w);
			if (!t) {
				fprintf(stderr, "error: unknown --type '%s': use error, pattern, doc, adr, behavioral or code\n",
					out_esc(w));
				free(copy);
				return KBX_EXIT_USAGE;
			}
			*out |= 1u << t;
		}
		free(copy);
	}
	return 0;
}

/* The largest query read from stdin: a long stack trace fits. */
#define MAX_STDIN_QUERY (1u << 20)

void search_embed_config(struct kbx_ctx *ctx, struct kbx_embed_config *ec)
{
	struct kbx_config_value v;
	memset(ec, 0, sizeof(*ec));
#define STR(key, field) \
	if (kbx_config_get(ctx->config, key, &v, NULL) == KBX_OK && v.text && *v.text) \
		ec->field = v.text
#define NUM(key, field) \
	if (kbx_config_get(ctx->config, key, &v, NULL) == KBX_OK) \
		ec->field = (uint32_t)v.number
	STR("search.provider", provider);
	STR("search.model", model);
	STR("search.url", url);
	STR("search.apiKeyEnv", key_env);
	STR("search.command", command);
	STR("search.queryPrefix", query_prefix);
	STR("search.documentPrefix", doc_prefix);
	NUM("search.dimensions", dim);
	NUM("search.batchSize", batch);
	NUM("search.timeout", timeout_ms);
	NUM("search.retries", retries);
#undef STR
#undef NUM
	/* A repository's model for a provider it may not choose (http,
	 * command: kbx ignored it) is not the builtin one's: left out, so
	 * that the builtin embedding does not fail on a name it does not
	 * know.  The user's own settings still do. */
	if ((!ec->provider || !strcmp(ec->provider, "builtin")) && ec->model &&
	    strcmp(ec->model, "words") && strcmp(ec->model, "hash") &&
	    kbx_config_get(ctx->config, "search.model", &v, NULL) == KBX_OK &&
	    v.scope == KBX_CONFIG_REPO)
		ec->model = NULL;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || v != v || v < lo || v > hi) {
		fprintf(stderr, "error: %s expects a number from %g to %g, not '%s'\n", opt, lo, hi,
			out_esc(s));
		return -1;
	}
	*out = v;
	return 0;
}

int cmd_search(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct output_opts oo = OUTPUT_OPTS_INIT;
	int mode = -1, fusion = -1, explain = 0, all_repos = 0, every_section = 0, expand = 0;
	/* LONG_MIN: not given (a -1 given is refused) */
	long limit = LONG_MIN, candidates = 0, ef_search = LONG_MIN, nprobe = LONG_MIN, depth = 0;
	int plan = 0;
	const char *vector_weight = NULL, *min_score = NULL, *lang = NULL, *severity = NULL,
		   *path = NULL, *rrf_k = NULL, *within = NULL, *callers_of = NULL,
		   *callees_of = NULL;
	struct opt_list types = OPT_LIST_INIT, tags = OPT_LIST_INIT;
	struct option opts[] = {
		OPT_KEYWORD_F(0, "mode", &mode, mode_names, "MODE",
			      "signals to use: hybrid (default), vector or lexical (BM25 and patterns)"),
		OPT_KEYWORD_F(0, "fusion", &fusion, fusion_names, "HOW",
			      "how to fuse the lists: rrf (default) or linear"),
		OPT_STRING_F(0, "vector-weight", &vector_weight, "W",
			     "linear fusion: weight of the vector list, 0 to 1 (default 0.7)"),
		OPT_STRING_F(0, "rrf-k", &rrf_k, "K", "reciprocal rank fusion's k (default 60)"),
		OPT_SEARCH_FILTERS_F(&types, &lang, &tags, &severity, &path),
		OPT_INT_F('n', "limit", &limit, "N", "show at most N results (default 10)"),
		OPT_STRING_F(0, "min-score", &min_score, "C",
			     "drop results whose confidence (0 to 1) is lower"),
		OPT_BOOL_F(0, "every-section", &every_section,
			   "list each section of a document apart, not one hit per document"),
		OPT_BOOL_F(0, "expand", &expand,
			   "BM25 also looks up the words nearest the query's in the learned vectors"),
		OPT_INT_F(0, "candidates", &candidates, "N",
			  "candidates taken from each signal (default max(100, 5 x limit))"),
		{ OPT_STRING, 0, "within", &within, "SYMBOL|PATH",
		  "only code defined in this file, class or directory", NULL, 0, "symbol" },
		{ OPT_STRING, 0, "callers-of", &callers_of, "SYMBOL",
		  "only code that calls this function (or a method of this class)", NULL, 0, "symbol" },
		{ OPT_STRING, 0, "callees-of", &callees_of, "SYMBOL",
		  "only code this function (or a method of this class) calls", NULL, 0, "symbol" },
		OPT_INT_F(0, "depth", &depth, "N", "hops for --callers-of and --callees-of (default 1)"),
		OPT_KEYWORD_F(0, "plan", &plan, plan_names, "PLAN",
			      "how a scope is searched: auto (default), graph-first or vector-first"),
		OPT_INT_F(0, "ef-search", &ef_search, "N", "HNSW: candidate list size of this query"),
		OPT_INT_F(0, "nprobe", &nprobe, "N", "IVF: lists visited by this query"),
		OPT_BOOL_F(0, "explain", &explain, "show each signal's rank and score for every result"),
		OPT_BOOL_F(0, "all-repos", &all_repos,
			   "search every repository of 'kbx repos' and fuse the results"),
		OPT_OUTPUT_COMMON(&oo),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, search_usage);
	int rc = KBX_EXIT_USAGE;
	struct strbuf query = STRBUF_INIT;
	const char **tagv = NULL;
	uint32_t *scope = NULL;
	struct kbx_search_results res = { 0 };
	if (nargs < 0)
		goto out;
	if (!nargs) {
		fprintf(stderr, "error: give a query, or - to read it from standard input\n");
		usage_with_options(search_usage, opts, 1);
		goto out;
	}

	struct kbx_search_query q = { 0 };
	struct kbx_config_value v;
	q.mode = mode >= 0 ? mode
			   : kbx_config_get(ctx->config, "search.mode", &v, NULL) == KBX_OK ? (int)v.number : 0;
	q.fusion = fusion >= 0 ? fusion
			       : kbx_config_get(ctx->config, "search.fusion", &v, NULL) == KBX_OK ? (int)v.number : 0;
	q.vector_weight = -1;
	if (vector_weight && parse_double("--vector-weight", vector_weight, 0, 1, &q.vector_weight))
		goto out;
	if (vector_weight && q.fusion != KBX_FUSION_LINEAR) {
		fprintf(stderr, "error: --vector-weight applies to --fusion=linear only\n");
		goto out;
	}
	if (rrf_k && parse_double("--rrf-k", rrf_k, 1, 1e6, &q.rrf_k))
		goto out;
	if (min_score && parse_double("--min-score", min_score, 0, 1, &q.min_score))
		goto out;
	q.every_section = every_section;
	q.expand = expand;
	if (limit == LONG_MIN)
		limit = kbx_config_get(ctx->config, "search.limit", &v, NULL) == KBX_OK ? v.number : 10;
	if (limit < 1 || limit > 10000) {
		fprintf(stderr, "error: --limit must be from 1 to 10000\n");
		goto out;
	}
	q.limit = (size_t)limit;
	if (candidates < 0 || candidates > 1000000) {
		fprintf(stderr, "error: --candidates must be from 1 to 1000000\n");
		goto out;
	}
	q.depth = (size_t)candidates;
	if (depth < 0 || depth > 1000) {
		fprintf(stderr, "error: --depth must be from 1 to 1000\n");
		goto out;
	}
	if (depth && !callers_of && !callees_of) {
		fprintf(stderr, "error: --depth applies to --callers-of and --callees-of\n");
		goto out;
	}
	q.scope_plan = plan;
	if (plan && !within && !callers_of && !callees_of) {
		fprintf(stderr, "error: --plan applies to a scope: --within, --callers-of or --callees-of\n");
		goto out;
	}
	if (ef_search == LONG_MIN)
		ef_search = kbx_config_get(ctx->config, "search.efSearch", &v, NULL) == KBX_OK ? v.number : 0;
	if (nprobe == LONG_MIN)
		nprobe = kbx_config_get(ctx->config, "search.nprobe", &v, NULL) == KBX_OK ? v.number : 0;
	if (ef_search < 0 || ef_search > 65536 || nprobe < 0 || nprobe > 65536) {
		fprintf(stderr, "error: --ef-search and --nprobe must be from 0 (the default) to 65536\n");
		goto out;
	}
	q.ef_search = (uint32_t)ef_search;
	q.nprobe = (uint32_t)nprobe;
	rc = search_parse_types(&types, &q.types);
	if (rc)
		goto out;
	rc = KBX_EXIT_USAGE;
	q.lang = lang;
	q.severity = severity;
	if (tags.n) {
		tagv = calloc((size_t)tags.n, sizeof(*tagv));
		if (!tagv) {
			rc = KBX_EXIT_INTERNAL;
			goto out;
		}
		for (int i = 0; i < tags.n; i++)
			tagv[i] = tags.items[i];
		q.tags = tagv;
		q.ntags = (size_t)tags.n;
	}
	if (path) {
		/* a path given from a subdirectory is made relative to the root */
		q.path = path;
	}

	if (nargs == 1 && !strcmp(argv[0], "-")) {
		int r = strbuf_read_file(&query, "/dev/stdin", 4096);
		if (r < 0 && !query.len) {
			fprintf(stderr, "error: cannot read the query from standard input: %s\n",
				strerror(errno));
			rc = KBX_EXIT_IO;
			goto out;
		}
		if (query.len > MAX_STDIN_QUERY) {
			/* the end of a log holds the error; keep the last MiB */
			memmove(query.buf, query.buf + query.len - MAX_STDIN_QUERY, MAX_STDIN_QUERY);
			strbuf_setlen(&query, MAX_STDIN_QUERY);
		}
	} else {
		for (int i = 0; i < nargs; i++) {
			if (i)
				strbuf_addch(&query, ' ');
			strbuf_addstr(&query, argv[i]);
		}
	}
	if (query.failed) {
		fprintf(stderr, "fatal: out of memory\n");
		rc = KBX_EXIT_INTERNAL;
		goto out;
	}
	size_t blank = 0;
	while (blank < query.len && strchr(" \t\r\n", query.buf[blank]))
		blank++;
	if (blank == query.len) {
		fprintf(stderr, "error: the query is empty\n");
		goto out;
	}
	q.text = query.buf;
	q.len = query.len;
	struct kbx_embed_config ec;
	search_embed_config(ctx, &ec);
	q.embed = &ec;

	if (ctx->db && (within || callers_of || callees_of)) {
		fprintf(stderr, "error: --within, --callers-of and --callees-of search the index, not --db\n");
		goto out;
	}
	if (ctx->db && (rc = db_graph_schema(ctx->db, "search")))
		goto out;
	rc = KBX_EXIT_USAGE;
	if (ctx->db && db_graph_all(ctx->db)) {
		rc = db_search_all(ctx, &q, &oo, explain);
		goto out;
	}
	if (all_repos && (within || callers_of || callees_of)) {
		/* a scope names symbols of one repository */
		fprintf(stderr, "error: --within, --callers-of and --callees-of apply to one repository, not --all-repos\n");
		goto out;
	}
	if (all_repos) {
		rc = search_all_repos(ctx, &q, &oo, explain);
		goto out;
	}
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st;
	if (within || callers_of || callees_of) {
		char note[512];
		st = kbx_hybrid_scope(ctx->store, within, callers_of, callees_of, (uint32_t)depth,
				      &scope, &q.nscope, note, sizeof(note), &err);
		if (st == KBX_NOT_FOUND) {
			fprintf(stderr, "error: %s\n", out_esc(err.msg));
			rc = KBX_EXIT_NOT_FOUND;
			goto out;
		}
		if (st) {
			rc = die_status(&err);
			goto out;
		}
		if (note[0])
			fprintf(stderr, "warning: %s\n", out_esc(note));
		q.scope = scope;
		/* code only: registry entries are in no part of the graph */
	}
	q.refresh = !q.scope;
	if (ctx->db) {
		rc = db_search(ctx->db, 0, &q, &res, &st, &err);
		if (rc)
			goto out;
		rc = KBX_EXIT_USAGE;
	} else {
		st = kbx_search(ctx->store, &q, &res, &err);
	}
	if (st && st != KBX_NOT_FOUND) {
		rc = die_status(&err);
		goto out;
	}
	/* a signal that could not run is worth a warning, on stderr */
	for (int sg = 0; sg < KBX_SIG__COUNT; sg++)
		if (res.sig[sg].note[0])
			fprintf(stderr, "warning: %s\n", out_esc(res.sig[sg].note));
	struct out *o = out_new(&oo);
	if (!o) {
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	if (explain && out_format(o) == FMT_TEXT) {
		out_heading(o, "%zu result%s from %llu chunks", res.n, res.n == 1 ? "" : "s",
			    (unsigned long long)res.chunks);
		for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
			if (!res.sig[sg].used)
				continue;
			char pass[96] = "";
			if (res.sig[sg].passed != res.sig[sg].candidates)
				snprintf(pass, sizeof(pass), ", %s%llu after the filters",
					 res.sig[sg].passed_exact ? "" : "at least ",
					 (unsigned long long)res.sig[sg].passed);
			/* the vector module's load is no part of the search */
			char load[96] = "";
			if (sg == KBX_SIG_VECTOR && res.sig[sg].module)
				snprintf(load, sizeof(load), " (+ %.2f ms loading the vector module)",
					 res.sig[sg].load_ms);
			else if (sg == KBX_SIG_VECTOR)
				snprintf(load, sizeof(load), ", no module loaded");
			out_note(o, "%-8s %llu candidate%s%s in %.2f ms%s%s%s", kbx_signal_str(sg),
				 (unsigned long long)res.sig[sg].candidates,
				 res.sig[sg].candidates == 1 ? "" : "s", pass,
				 res.sig[sg].ms - res.sig[sg].load_ms,
				 sg == KBX_SIG_VECTOR ? ", index " : "",
				 sg == KBX_SIG_VECTOR ? res.vector_kind : "", load);
		}
		if (res.sig[KBX_SIG_LEXICAL].expanded)
			out_note(o, "expand   BM25 looked up %zu word%s near the query's too: %s",
				 res.sig[KBX_SIG_LEXICAL].expanded,
				 res.sig[KBX_SIG_LEXICAL].expanded == 1 ? "" : "s",
				 out_esc(res.sig[KBX_SIG_LEXICAL].expanded_words));
		if (res.focused)
			out_note(o, "focus    an error message: its exception lines weigh most, "
				    "frames are cut (the patterns see it whole)");
		if (res.folded)
			out_note(o, "folded   %zu more section%s into their document's hit "
				    "(--every-section lists them apart)",
				 res.folded, res.folded == 1 ? "" : "s");
		if (q.scope)
			out_note(o, "scope    %s: %s", kbx_scope_plan_str(res.scope_plan),
				 out_esc(res.scope_why));
		if (res.lang[0])
			out_note(o, "language %s (from %s): entries of other languages weigh half",
				 res.lang, out_esc(res.lang_why));
		if (q.fusion == KBX_FUSION_LINEAR)
			out_note(o, "fusion   linear, vector weight %.2f", q.vector_weight < 0 ? 0.7 : q.vector_weight);
		else
			out_note(o, "fusion   reciprocal rank, k = %g, vector ranks weigh %g",
				 q.rrf_k > 0 ? q.rrf_k : 60.0, KBX_RRF_VECTOR_WEIGHT);
		printf("\n");
	}
	/* a weak best: say so rather than let the first hit pass for an
	 * answer */
	int weak = res.n && res.hits[0].confidence < KBX_WEAK_CONFIDENCE;
	if (weak && out_format(o) == FMT_TEXT)
		fprintf(stderr, "note: no entry matches well: the best has confidence %.2f "
				"(under %.2f); try other words, or --explain\n",
			res.hits[0].confidence, KBX_WEAK_CONFIDENCE);
	for (size_t i = 0; i < res.n; i++)
		out_search_hit(o, i + 1, &res.hits[i], &res, q.text, explain);
	if (out_format(o) == FMT_JSON && explain) {
		out_record_begin(o, "plan");
		out_field_str(o, "mode", mode_names[q.mode]);
		out_field_str(o, "fusion", fusion_names[q.fusion]);
		out_field_num(o, "rrf_k", q.rrf_k > 0 ? q.rrf_k : 60.0);
		out_field_num(o, "vector_weight", q.vector_weight < 0 ? 0.7 : q.vector_weight);
		out_field_int(o, "chunks", (int64_t)res.chunks);
		out_field_num(o, "rrf_vector_weight", KBX_RRF_VECTOR_WEIGHT);
		out_json_bool(o, "focused", res.focused);
		out_field_int(o, "folded", (int64_t)res.folded);
		out_json_bool(o, "weak", weak);
		if (res.lang[0]) {
			out_json_begin(o, "language", 0);
			out_json_str(o, "name", res.lang);
			out_json_str(o, "from", res.lang_why);
			out_json_end(o);
		}
		if (q.scope) {
			out_json_begin(o, "scope", 0);
			out_json_str(o, "plan", kbx_scope_plan_str(res.scope_plan));
			out_json_int(o, "nodes", (int64_t)res.scope_nodes);
			out_json_int(o, "chunks", (int64_t)res.scope_chunks);
			out_json_int(o, "code_chunks", (int64_t)res.code_chunks);
			out_json_str(o, "why", res.scope_why);
			out_json_end(o);
		}
		out_json_begin(o, "signals", 0);
		for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
			out_json_begin(o, kbx_signal_str(sg), 0);
			out_json_bool(o, "used", res.sig[sg].used);
			out_json_int(o, "candidates", (int64_t)res.sig[sg].candidates);
			out_json_int(o, "passed", (int64_t)res.sig[sg].passed);
			out_json_bool(o, "passed_exact", res.sig[sg].passed_exact);
			if (sg == KBX_SIG_LEXICAL && res.sig[sg].expanded)
				out_json_str(o, "expanded", res.sig[sg].expanded_words);
			out_json_num(o, "ms", res.sig[sg].ms);
			if (res.sig[sg].note[0])
				out_json_str(o, "note", res.sig[sg].note);
			if (sg == KBX_SIG_VECTOR && res.vector_kind[0])
				out_json_str(o, "index", res.vector_kind);
			if (sg == KBX_SIG_VECTOR) {
				out_json_bool(o, "module", res.sig[sg].module);
				out_json_num(o, "load_ms", res.sig[sg].load_ms);
			}
			out_json_end(o);
		}
		out_json_end(o);
		out_record_end(o);
	}
	rc = out_finish(o) ? KBX_EXIT_IO : res.n ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
out:
	kbx_search_results_release(&res);
	free(scope);
	strbuf_release(&query);
	free(tagv);
	free(types.items);
	free(tags.items);
	return rc;
}
