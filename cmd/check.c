/* kbx check: the structure rules of a repository, for CI. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "util/quote.h"
#include "analysis/rules.h"
#include "util/strbuf.h"

#define DEFAULT_RULES ".kbx-rules.yml"
#define RULES_MAX (4u << 20)
/* A cycle's edges: how many the text lists, and SARIF relates. */
#define CYCLE_LINES 20
#define SARIF_RELATED_MAX 100
#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

/* The order matters: the first three are FMT_TEXT, FMT_JSON, FMT_GREP. */
static const char *const check_formats[] = { "text", "json", "grep", "sarif", "github", NULL };
enum { CF_TEXT, CF_JSON, CF_GREP, CF_SARIF, CF_GITHUB };

static const char *const check_usage[] = {
	"kbx check [--rules=<file>] [--strict] [--format=<format>]",
	NULL
};

struct report {
	struct out *o;
	const struct kbx_rules *rules;
	const struct kbx_check_result *res;
	const char *rules_shown;   /* the rules file as messages name it */
	const char *rules_repo;    /* ... relative to the repository root, or NULL */
	const char *root;
	int strict;
};

/* ---- escaping for the workflow commands of GitHub Actions ---- */

/* Data (the message): %, CR and LF are escaped; properties (file, title)
 * also ':' and ','.  The other control characters, which GitHub's log
 * would show to a terminal emulator, are escaped first as everywhere
 * else (quote.h). */
static void gh_escape(struct strbuf *sb, const char *s, size_t len, int property)
{
	struct strbuf esc = STRBUF_INIT;
	strbuf_add_escaped(&esc, s, len, ESCAPE_KEEP_NEWLINE);
	s = strbuf_str(&esc);
	len = esc.len;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (c == '%')
			strbuf_addstr(sb, "%25");
		else if (c == '\r')
			strbuf_addstr(sb, "%0D");
		else if (c == '\n')
			strbuf_addstr(sb, "%0A");
		else if (property && c == ':')
			strbuf_addstr(sb, "%3A");
		else if (property && c == ',')
			strbuf_addstr(sb, "%2C");
		else
			strbuf_addch(sb, c);
	}
	strbuf_release(&esc);
}

/* A repository path as a relative URI reference: every byte that is not
 * unreserved, '/', or a sub-delimiter is percent-encoded (':' too, so a
 * first component is never read as a scheme). */
static void uri_escape(struct strbuf *sb, const char *s, size_t len)
{
	static const char keep[] = "-._~/!$&'()*+,;=@";
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    (c && strchr(keep, c)))
			strbuf_addch(sb, (char)c);
		else
			strbuf_addf(sb, "%%%02X", c);
	}
}

/* ---- where a violation points ---- */

struct place {
	const char *path;
	size_t len;
	uint32_t line, col;
};

/* The violation's place, or the rule in the rules file when the
 * violation has no file (never the case today: kept for safety). */
static int place_of(const struct report *r, const struct kbx_violation *v, struct place *p)
{
	if (v->path) {
		p->path = v->path;
		p->len = v->path_len;
		p->line = v->line ? v->line : 1;
		p->col = v->col ? v->col : 1;
		return 1;
	}
	if (!r->rules_repo)
		return 0;
	struct kbx_rule_info info;
	kbx_rules_info(r->rules, v->rule, &info);
	p->path = r->rules_repo;
	p->len = strlen(r->rules_repo);
	p->line = info.line;
	p->col = info.col;
	return 1;
}

static const char *measure_str(int m)
{
	return m == KBX_DIR_IN ? "callers" : m == KBX_DIR_OUT ? "callees" : NULL;
}

/* ---- text ---- */

static const char *rule_status(const struct kbx_rule_result *rr)
{
	return rr->errors ? "FAIL" : rr->warnings ? "warn" : "ok";
}

static void text_report(struct report *r)
{
	const struct kbx_check_result *res = r->res;
	size_t vi = 0, failed = 0, warned = 0;
	for (size_t i = 0; i < res->nrules; i++) {
		const struct kbx_rule_result *rr = &res->rules[i];
		struct kbx_rule_info info;
		kbx_rules_info(r->rules, i, &info);
		out_heading(r->o, "%-4s %s: %s", rule_status(rr), out_esc(info.id),
			    out_esc(info.description ? info.description : info.summary));
		if (info.description)
			out_note(r->o, "  (%s)", out_esc(info.summary));
		failed += rr->errors != 0;
		warned += !rr->errors && rr->warnings;
		for (; vi < res->n && res->items[vi].rule == i; vi++) {
			const struct kbx_violation *v = &res->items[vi];
			struct place p;
			if (place_of(r, v, &p))
				out_note(r->o, "  %s:%u: %s: %s", out_escn(p.path, p.len), p.line,
					 kbx_level_str(v->level), out_esc(v->message));
			else
				out_note(r->o, "  %s: %s", kbx_level_str(v->level),
					 out_esc(v->message));
			/* a cycle: one line per edge, each at its site */
			for (size_t s = 0; s < v->ncycle && v->ncycle > 1; s++) {
				if (s == CYCLE_LINES && v->ncycle > CYCLE_LINES + 1) {
					out_note(r->o, "      ... and %zu more edges (--format=json lists them all)",
						 v->ncycle - s);
					break;
				}
				const struct kbx_cycle_step *st = &v->cycle[s];
				const struct kbx_node *next = &v->cycle[(s + 1) % v->ncycle].node;
				out_note(r->o, "      %s:%u  %s %s%s",
					 out_escn(st->node.path, st->node.path_len),
					 st->line ? st->line : st->node.line,
					 kbx_edge_kind_str(v->edge), out_esc(next->cid),
					 st->certain ? "" : "  (ambiguous)");
			}
		}
		if (!rr->examined) {
			if (info.check == KBX_CHECK_FORBID)
				out_note(r->o, "  (no edge of the rule's kinds starts in its 'from' paths: if that is a surprise, check the globs)");
			else if (info.check == KBX_CHECK_NO_CYCLES)
				out_note(r->o, "  (no edge of the rule's kinds joins two of its paths: if that is a surprise, check the globs)");
			else
				out_note(r->o, "  (no function or method matches the rule: if that is a surprise, check its globs)");
		}
	}
	out_heading(r->o, "%zu rule%s: %zu failed, %zu passed with warnings, %zu passed (%zu error%s, %zu warning%s)",
		    res->nrules, res->nrules == 1 ? "" : "s", failed, warned,
		    res->nrules - failed - warned, res->errors, res->errors == 1 ? "" : "s",
		    res->warnings, res->warnings == 1 ? "" : "s");
}

/* ---- JSON Lines ---- */

static void json_node_id(struct out *o, const char *key, int has, const struct kbx_node *n)
{
	out_field_str(o, key, has ? n->cid : NULL);
}

static void json_report(struct report *r)
{
	const struct kbx_check_result *res = r->res;
	struct out *o = r->o;
	size_t vi = 0, failed = 0, warned = 0;
	for (size_t i = 0; i < res->nrules; i++) {
		const struct kbx_rule_result *rr = &res->rules[i];
		struct kbx_rule_info info;
		kbx_rules_info(r->rules, i, &info);
		failed += rr->errors != 0;
		warned += !rr->errors && rr->warnings;
		out_record_begin(o, "rule");
		out_field_str(o, "id", info.id);
		out_field_str(o, "check", kbx_rule_check_str(info.check));
		out_field_str(o, "severity", kbx_level_str(info.severity));
		out_field_str(o, "status", rr->errors ? "failed" : "passed");
		out_field_int(o, "errors", (int64_t)rr->errors);
		out_field_int(o, "warnings", (int64_t)rr->warnings);
		out_field_int(o, "examined", (int64_t)rr->examined);
		out_field_str(o, "summary", info.summary);
		out_field_str(o, "description", info.description);
		out_field_int(o, "line", info.line);
		out_record_end(o);
		for (; vi < res->n && res->items[vi].rule == i; vi++) {
			const struct kbx_violation *v = &res->items[vi];
			char path[PATH_MAX];
			out_record_begin(o, "violation");
			out_field_str(o, "rule", info.id);
			out_field_str(o, "check", kbx_rule_check_str(info.check));
			out_field_str(o, "level", kbx_level_str(v->level));
			out_field_str(o, "confidence", kbx_confidence_str(v->confidence));
			out_field_str(o, "message", v->message);
			if (v->path && v->path_len < sizeof(path)) {
				memcpy(path, v->path, v->path_len);
				path[v->path_len] = '\0';
				out_field_str(o, "path", path);
				out_field_int(o, "line", v->line);
				out_field_int(o, "col", v->col);
			} else {
				out_field_str(o, "path", NULL);
				out_field_str(o, "line", NULL);
				out_field_str(o, "col", NULL);
			}
			out_field_str(o, "edge", v->edge ? kbx_edge_kind_str(v->edge) : NULL);
			json_node_id(o, "from", v->has_edge, &v->from);
			json_node_id(o, "to", v->has_edge, &v->to);
			if (info.check == KBX_CHECK_FORBID)
				out_field_int(o, "candidates", v->candidates);
			else
				out_field_str(o, "candidates", NULL);
			json_node_id(o, "symbol", v->has_symbol, &v->symbol);
			out_field_str(o, "measure", measure_str(v->measure));
			if (v->measure >= 0) {
				out_field_int(o, "count", (int64_t)v->count);
				out_field_int(o, "possible", (int64_t)v->possible);
				out_field_int(o, "max", (int64_t)v->max);
			} else {
				out_field_str(o, "count", NULL);
				out_field_str(o, "possible", NULL);
				out_field_str(o, "max", NULL);
			}
			if (v->ncycle) {
				out_json_begin(o, "cycle", 1);
				for (size_t s = 0; s < v->ncycle; s++) {
					const struct kbx_cycle_step *st = &v->cycle[s];
					out_json_begin(o, NULL, 0);
					out_json_str(o, "id", st->node.cid);
					out_json_strn(o, "path", st->node.path, st->node.path_len);
					out_json_site(o, "line", "col", st->line, st->col);
					out_json_str(o, "confidence",
						     st->certain ? "certain" : "ambiguous");
					out_json_end(o);
				}
				out_json_end(o);
				out_field_int(o, "component", (int64_t)v->component);
			} else {
				out_field_str(o, "cycle", NULL);
				out_field_str(o, "component", NULL);
			}
			out_record_end(o);
		}
	}
	out_record_begin(o, "summary");
	out_field_str(o, "status", res->errors ? "failed" : "passed");
	out_field_int(o, "rules", (int64_t)res->nrules);
	out_field_int(o, "failed", (int64_t)failed);
	out_field_int(o, "warned", (int64_t)warned);
	out_field_int(o, "passed", (int64_t)(res->nrules - failed));
	out_field_int(o, "errors", (int64_t)res->errors);
	out_field_int(o, "warnings", (int64_t)res->warnings);
	out_json_bool(o, "strict", r->strict);
	out_field_str(o, "rules_file", r->rules_shown);
	out_record_end(o);
}

/* ---- grep and GitHub Actions ---- */

static void grep_report(struct report *r)
{
	for (size_t i = 0; i < r->res->n; i++) {
		const struct kbx_violation *v = &r->res->items[i];
		struct kbx_rule_info info;
		struct place p;
		kbx_rules_info(r->rules, v->rule, &info);
		if (!place_of(r, v, &p))
			continue;
		out_line(r->o, "%s:%u:%u: %s: %s%s", out_grep_path(NULL, p.path, p.len), p.line,
			 p.col, out_esc(info.id), v->level == KBX_LEVEL_WARNING ? "warning: " : "",
			 out_esc(v->message));
	}
}

static void github_report(struct report *r)
{
	const struct kbx_check_result *res = r->res;
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < res->n; i++) {
		const struct kbx_violation *v = &res->items[i];
		struct kbx_rule_info info;
		struct place p;
		kbx_rules_info(r->rules, v->rule, &info);
		strbuf_reset(&sb);
		strbuf_addstr(&sb, v->level == KBX_LEVEL_ERROR ? "::error " : "::warning ");
		if (place_of(r, v, &p)) {
			strbuf_addstr(&sb, "file=");
			gh_escape(&sb, p.path, p.len, 1);
			strbuf_addf(&sb, ",line=%u,col=%u,", p.line, p.col);
		}
		strbuf_addstr(&sb, "title=");
		struct strbuf t = STRBUF_INIT;
		strbuf_addf(&t, "kbx check: %s", info.id);
		gh_escape(&sb, t.buf, t.len, 1);
		strbuf_release(&t);
		strbuf_addstr(&sb, "::");
		gh_escape(&sb, v->message, strlen(v->message), 0);
		out_line(r->o, "%s", strbuf_str(&sb));
	}
	strbuf_release(&sb);
	size_t failed = 0;
	for (size_t i = 0; i < res->nrules; i++)
		failed += res->rules[i].errors != 0;
	out_line(r->o, "kbx check: %zu rule%s, %zu failed (%zu error%s, %zu warning%s)", res->nrules,
		 res->nrules == 1 ? "" : "s", failed, res->errors, res->errors == 1 ? "" : "s",
		 res->warnings, res->warnings == 1 ? "" : "s");
}

/* ---- SARIF 2.1.0 ---- */

static void sarif_text(struct out *o, const char *key, const char *text)
{
	out_json_begin(o, key, 0);
	out_json_str(o, "text", text);
	out_json_end(o);
}

static void sarif_location(struct out *o, const char *path, size_t len, uint32_t line,
			   uint32_t col, const char *message, int64_t id)
{
	struct strbuf uri = STRBUF_INIT;
	uri_escape(&uri, path, len);
	out_json_begin(o, NULL, 0);
	if (id >= 0)
		out_json_int(o, "id", id);
	out_json_begin(o, "physicalLocation", 0);
	out_json_begin(o, "artifactLocation", 0);
	out_json_str(o, "uri", strbuf_str(&uri));
	out_json_str(o, "uriBaseId", "%SRCROOT%");
	out_json_end(o);
	out_json_begin(o, "region", 0);
	out_json_int(o, "startLine", line ? line : 1);
	if (col)
		out_json_int(o, "startColumn", col);
	out_json_end(o);
	out_json_end(o);
	if (message)
		sarif_text(o, "message", message);
	out_json_end(o);
	strbuf_release(&uri);
}

static void sarif_report(struct report *r)
{
	const struct kbx_check_result *res = r->res;
	struct out *o = r->o;
	out_json_begin(o, NULL, 0);
	out_json_str(o, "$schema", SARIF_SCHEMA);
	out_json_str(o, "version", "2.1.0");
	out_json_begin(o, "runs", 1);
	out_json_begin(o, NULL, 0);

	out_json_begin(o, "tool", 0);
	out_json_begin(o, "driver", 0);
	out_json_str(o, "name", "kbx");
	out_json_str(o, "version", KBX_VERSION);
	out_json_begin(o, "rules", 1);
	for (size_t i = 0; i < res->nrules; i++) {
		struct kbx_rule_info info;
		kbx_rules_info(r->rules, i, &info);
		out_json_begin(o, NULL, 0);
		out_json_str(o, "id", info.id);
		sarif_text(o, "shortDescription", info.description ? info.description : info.summary);
		sarif_text(o, "fullDescription", info.summary);
		out_json_begin(o, "defaultConfiguration", 0);
		out_json_str(o, "level", kbx_level_str(info.severity));
		out_json_end(o);
		out_json_begin(o, "properties", 0);
		out_json_str(o, "check", kbx_rule_check_str(info.check));
		out_json_end(o);
		out_json_end(o);
	}
	out_json_end(o);  /* rules */
	out_json_end(o);  /* driver */
	out_json_end(o);  /* tool */

	/* %SRCROOT%: the repository root, as a file URI ending in '/' */
	struct strbuf root = STRBUF_INIT;
	strbuf_addstr(&root, "file://");
	uri_escape(&root, r->root, strlen(r->root));
	if (!root.len || root.buf[root.len - 1] != '/')
		strbuf_addch(&root, '/');
	out_json_begin(o, "originalUriBaseIds", 0);
	out_json_begin(o, "%SRCROOT%", 0);
	out_json_str(o, "uri", strbuf_str(&root));
	out_json_end(o);
	out_json_end(o);
	strbuf_release(&root);

	out_json_begin(o, "invocations", 1);
	out_json_begin(o, NULL, 0);
	out_json_bool(o, "executionSuccessful", 1);
	out_json_end(o);
	out_json_end(o);

	out_json_begin(o, "results", 1);
	for (size_t i = 0; i < res->n; i++) {
		const struct kbx_violation *v = &res->items[i];
		struct kbx_rule_info info;
		struct place p;
		kbx_rules_info(r->rules, v->rule, &info);
		out_json_begin(o, NULL, 0);
		out_json_str(o, "ruleId", info.id);
		out_json_int(o, "ruleIndex", (int64_t)v->rule);
		out_json_str(o, "level", kbx_level_str(v->level));
		sarif_text(o, "message", v->message);
		if (place_of(r, v, &p)) {
			out_json_begin(o, "locations", 1);
			sarif_location(o, p.path, p.len, p.line, p.col, NULL, -1);
			out_json_end(o);
		}
		if (v->ncycle > 1) {
			/* every edge of the cycle, at its site */
			out_json_begin(o, "relatedLocations", 1);
			for (size_t s = 0; s < v->ncycle && s < SARIF_RELATED_MAX; s++) {
				const struct kbx_cycle_step *st = &v->cycle[s];
				const struct kbx_node *next = &v->cycle[(s + 1) % v->ncycle].node;
				if (!st->node.path)
					continue;
				struct strbuf m = STRBUF_INIT;
				strbuf_addf(&m, "%s %s %s%s", st->node.cid, kbx_edge_kind_str(v->edge),
					    next->cid, st->certain ? "" : " (ambiguous)");
				sarif_location(o, st->node.path, st->node.path_len,
					       st->line ? st->line : st->node.line, st->line ? st->col : 0,
					       strbuf_str(&m), (int64_t)s + 1);
				strbuf_release(&m);
			}
			out_json_end(o);
		}
		out_json_begin(o, "properties", 0);
		out_json_str(o, "confidence", kbx_confidence_str(v->confidence));
		out_json_str(o, "check", kbx_rule_check_str(info.check));
		out_json_end(o);
		out_json_end(o);
	}
	out_json_end(o);  /* results */

	out_json_end(o);  /* the run */
	out_json_end(o);  /* runs */
	out_json_end(o);  /* the log */
}

/* ---- the rules file ---- */

/* The rules file relative to the repository root, or NULL when it is
 * outside (malloc()ed). */
static char *repo_relative(const char *file, const char *root)
{
	char abs[PATH_MAX], rootabs[PATH_MAX];
	if (!realpath(file, abs) || !realpath(root, rootabs))
		return NULL;
	size_t n = strlen(rootabs);
	if (!strncmp(abs, rootabs, n) && abs[n] == '/')
		return strdup(abs + n + 1);
	return NULL;
}

static void show_problems(struct out *o, const struct kbx_rules_problems *pr, const char *shown,
			  const char *repo_path, int github)
{
	for (size_t i = 0; i < pr->n; i++) {
		const struct kbx_rules_problem *p = &pr->items[i];
		fprintf(stderr, "error: '%s' at line %u, column %u: %s\n", out_esc(shown), p->line,
			p->col, out_esc(p->msg));
	}
	if (!github)
		return;
	/* annotations on the rules file itself, so that CI shows them in place */
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < pr->n; i++) {
		const struct kbx_rules_problem *p = &pr->items[i];
		strbuf_reset(&sb);
		strbuf_addstr(&sb, "::error ");
		if (repo_path) {
			strbuf_addstr(&sb, "file=");
			gh_escape(&sb, repo_path, strlen(repo_path), 1);
			strbuf_addf(&sb, ",line=%u,col=%u,", p->line, p->col);
		}
		strbuf_addstr(&sb, "title=");
		gh_escape(&sb, "kbx check: bad rules file", 25, 1);
		strbuf_addstr(&sb, "::");
		gh_escape(&sb, p->msg, strlen(p->msg), 0);
		out_line(o, "%s", strbuf_str(&sb));
	}
	strbuf_release(&sb);
}

int cmd_check(int argc, const char **argv, struct kbx_ctx *ctx)
{
	const char *rules_opt = NULL;
	int strict = 0;
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_STRING_F(0, "rules", &rules_opt, "FILE",
			     "the rules file (default: .kbx-rules.yml at the repository root)"),
		OPT_BOOL_F(0, "strict", &strict,
			   "fail on violations that rest on ambiguous edges too"),
		OPT_KEYWORD_F(0, "format", &oo.format, check_formats, "FORMAT",
			      "output format: text, json (JSON Lines), grep, sarif or github"),
		OPT_INT_F(0, "format-version", &oo.format_version, "N",
			  "version of the json records (default: the newest)"),
		OPT_KEYWORD_F(0, "color", &oo.color, output_color_names, "WHEN",
			      "colour the text output: auto, always or never"),
		OPT_REPO_F(),
		OPT_END_F(),
	};
	opts[0].complete = "path";
	int nargs = parse_options(argc, argv, opts, check_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs) {
		fprintf(stderr, "error: 'check' takes no arguments: name the rules file with --rules\n");
		usage_with_options(check_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	int format = oo.format;
	oo.format = format == CF_SARIF ? FMT_JSON : format == CF_GITHUB ? FMT_GREP : format;
	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;

	const char *root = kbx_store_root(ctx->store);
	struct strbuf file = STRBUF_INIT;
	if (rules_opt)
		strbuf_addstr(&file, rules_opt);
	else
		strbuf_addf(&file, "%s/%s", root, DEFAULT_RULES);
	const char *shown = rules_opt ? rules_opt : DEFAULT_RULES;

	/* a regular file of at most RULES_MAX bytes, not read through a
	 * link: a repository could point .kbx-rules.yml at /dev/zero or at
	 * a secret whose lines a parse error would quote */
	struct strbuf text = STRBUF_INIT;
	int rr = rules_opt ? strbuf_read_regular_file(&text, strbuf_str(&file), RULES_MAX)
			   : strbuf_read_regular_at(&text, root, DEFAULT_RULES, RULES_MAX);
	if (rr < 0) {
		int e = errno;
		if (rr == -1 && e == ENOENT && !rules_opt)
			fprintf(stderr, "error: no rules file '%s' at the repository root (%s): write one (see 'kbx help rules') or name one with --rules\n",
				DEFAULT_RULES, out_esc(root));
		else if (rr == -1 && e == ENOENT)
			fprintf(stderr, "error: no rules file '%s': %s\n", out_esc(shown), strerror(e));
		else if (rr == -1 && e == ELOOP)
			fprintf(stderr, "error: the rules file '%s' is a symbolic link: kbx does not follow links for it (kbx-security(7)); use a regular file\n",
				out_esc(shown));
		else if (rr == STRBUF_TOO_BIG)
			fprintf(stderr, "error: the rules file '%s' is larger than %u MiB: is it the right file?\n",
				out_esc(shown), RULES_MAX >> 20);
		else if (rr == STRBUF_NOT_REGULAR)
			fprintf(stderr, "error: cannot read the rules file '%s': it is not a regular file\n",
				out_esc(shown));
		else
			fprintf(stderr, "error: cannot read the rules file '%s': %s\n", out_esc(shown),
				strerror(e));
		strbuf_release(&file);
		strbuf_release(&text);
		out_finish(o);
		return rr == -1 && e == ENOENT ? KBX_EXIT_USAGE : KBX_EXIT_IO;
	}
	char *repo_path = repo_relative(strbuf_str(&file), root);

	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_rules_problems problems = KBX_RULES_PROBLEMS_INIT;
	struct kbx_rules *rules = NULL;
	int rc = 0;
	kbx_status_t st = kbx_rules_parse(text.buf ? text.buf : "", text.len, &rules, &problems, &err);
	strbuf_release(&text);
	if (st == KBX_ERR_PARSE) {
		show_problems(o, &problems, shown, repo_path, format == CF_GITHUB);
		fprintf(stderr, "error: '%s' has %zu problem%s: nothing was checked (see 'kbx help rules')\n",
			out_esc(shown), problems.n, problems.n == 1 ? "" : "s");
		rc = KBX_EXIT_USAGE;
		goto done;
	} else if (st) {
		rc = die_status(&err);
		goto done;
	}

	struct kbx_check_result res = KBX_CHECK_RESULT_INIT;
	st = kbx_rules_check(ctx->store, rules, strict ? KBX_CHECK_STRICT : 0, &res, &err);
	if (st) {
		rc = die_status(&err);
		goto done;
	}
	struct report r = { o, rules, &res, shown, repo_path, root, strict };
	switch (format) {
	case CF_JSON: json_report(&r); break;
	case CF_GREP: grep_report(&r); break;
	case CF_SARIF: sarif_report(&r); break;
	case CF_GITHUB: github_report(&r); break;
	default: text_report(&r); break;
	}
	if (format != CF_TEXT) {
		/* what the text output says in place of an empty result */
		for (size_t i = 0; i < res.nrules; i++) {
			struct kbx_rule_info info;
			kbx_rules_info(rules, i, &info);
			if (!res.rules[i].examined)
				fprintf(stderr, "warning: rule '%s' found nothing to check: if that is a surprise, check its globs\n",
					out_esc(info.id));
		}
	}
	rc = res.errors ? KBX_EXIT_CHECK_FAILED : KBX_EXIT_OK;
	kbx_check_result_release(&res);
done:
	if (out_finish(o))
		rc = KBX_EXIT_IO;
	kbx_rules_free(rules);
	kbx_rules_problems_release(&problems);
	free(repo_path);
	strbuf_release(&file);
	return rc;
}
