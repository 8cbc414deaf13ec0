/* kbx repos: list and name the repositories kbx knows. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "db-graph.h"
#include "output.h"
#include "parse-options.h"
#include "repos-util.h"
#include "util/strbuf.h"

static const char *const repos_usage[] = {
	"kbx repos [list] [--format=<format>] [--names]",
	"kbx repos add [--name=<name>] <path>",
	"kbx repos remove <name>...",
	"kbx repos rename <old> <new>",
	"kbx repos prune [--dry-run]",
	NULL
};

/* one record a repository: text or JSON (same order as FMT_TEXT, FMT_JSON) */
static const char *const list_formats[] = { "text", "json", NULL };

/* "5 minutes ago", or the date for anything older than a month. */
static void human_time(char *buf, size_t n, int64_t t, time_t now)
{
	int64_t d = (int64_t)now - t;
	if (d < 0)
		d = 0;
	if (d < 60)
		snprintf(buf, n, "just now");
	else if (d < 3600)
		snprintf(buf, n, "%lld minute%s ago", (long long)(d / 60), d < 120 ? "" : "s");
	else if (d < 86400)
		snprintf(buf, n, "%lld hour%s ago", (long long)(d / 3600), d < 7200 ? "" : "s");
	else if (d < 86400 * 31)
		snprintf(buf, n, "%lld day%s ago", (long long)(d / 86400), d < 2 * 86400 ? "" : "s");
	else {
		struct tm tm;
		time_t tt = (time_t)t;
		localtime_r(&tt, &tm);
		strftime(buf, n, "on %Y-%m-%d", &tm);
	}
}

/* What state a registered store is in, and what it holds when it can be
 * read: "ok", "missing" (the directory is gone), "no-index" (not built),
 * "schema" (written by another version), "refused" (kbx did not build it
 * for this user, or it is a link: kbx-security(7)) or "error". */
static const char *probe(const struct kbx_ctx *ctx, const struct kbx_repo *r,
			 struct kbx_store_info *info, struct kbx_error *err)
{
	struct stat sb;
	kbx_store_t *s = NULL;
	if (stat(r->kbx_dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "'%s' is gone: 'kbx repos prune' drops it",
			 r->kbx_dir);
		return "missing";
	}
	int trusted = store_trusted(ctx->config, r->kbx_dir, r->root);
	kbx_status_t st = kbx_store_open(r->kbx_dir, NULL,
					 KBX_OPEN_READ | (trusted ? KBX_OPEN_TRUSTED : 0), 0, &s, err);
	if (!st)
		st = kbx_store_info(s, info, err);
	kbx_store_close(s);
	switch (st) {
	case KBX_OK: return "ok";
	case KBX_ERR_NO_STORE: return "no-index";
	case KBX_ERR_SCHEMA: return "schema";
	case KBX_ERR_UNSAFE: return "refused";
	default: return "error";
	}
}

/* Run in a repository with an index that is not listed (repos.register
 * left it out: it has no remote), say how to list it. */
static void hint_unlisted(const struct kbx_repo_list *l)
{
	struct kbx_error err = KBX_ERROR_INIT;
	char *kbx_dir = NULL, *root = NULL;
	char dir[PATH_MAX];
	struct stat sb;
	if (!kbx_store_locate(".", 0, &kbx_dir, &root, &err) && realpath(kbx_dir, dir) &&
	    stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode) && !kbx_repo_list_find_dir(l, dir))
		fprintf(stderr, "note: the repository here, '%s', is not listed: 'kbx repos add .' lists it (see repos.register in kbx-settings(7))\n",
			out_esc(root));
	free(kbx_dir);
	free(root);
}

static int repos_list(const struct kbx_ctx *ctx, const struct output_opts *oo, int names_only)
{
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_repo_list l = KBX_REPO_LIST_INIT;
	/* not for the completions' --names: they must be quick and quiet */
	if (!names_only)
		repo_prune_gone();
	kbx_status_t st = kbx_repos_read(&l, &err);
	if (st) {
		kbx_repo_list_release(&l);
		return die_status(&err);
	}
	struct out *o = out_new(oo);
	if (!o) {
		kbx_repo_list_release(&l);
		return KBX_EXIT_USAGE;
	}
	int json = out_format(o) == FMT_JSON;
	size_t width = 4;
	for (size_t i = 0; i < l.n; i++)
		if (strlen(out_esc(l.items[i].name)) > width)
			width = strlen(out_esc(l.items[i].name));
	time_t now = time(NULL);
	for (size_t i = 0; i < l.n; i++) {
		const struct kbx_repo *r = &l.items[i];
		if (names_only) {
			out_line(o, "%s", out_esc(r->name));
			continue;
		}
		struct kbx_store_info info;
		memset(&info, 0, sizeof(info));
		err.msg[0] = '\0';
		const char *status = probe(ctx, r, &info, &err);
		int ok = !strcmp(status, "ok");
		if (json) {
			char when[32] = "";
			time_t t = (time_t)info.updated;
			struct tm tm;
			if (ok && info.updated && gmtime_r(&t, &tm))
				strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
			out_record_begin(o, "repo");
			out_field_str(o, "name", r->name);
			out_field_str(o, "root", r->root);
			out_field_str(o, "store", r->kbx_dir);
			out_field_str(o, "status", status);
			out_field_str(o, "error", ok ? NULL : err.msg);
			if (ok) {
				out_field_int(o, "files", (int64_t)info.files);
				out_json_begin(o, "languages", 0);
				for (int lang = 1; lang < 32; lang++)
					if (info.files_by_lang[lang] && kbx_lang_str(lang))
						out_json_int(o, kbx_lang_str(lang),
							     (int64_t)info.files_by_lang[lang]);
				out_json_end(o);
				out_field_int(o, "symbols", (int64_t)info.symbols);
				out_field_int(o, "generation", (int64_t)info.generation);
				out_field_str(o, "indexed", *when ? when : NULL);
				if (info.updated)
					out_field_int(o, "indexed_epoch", info.updated);
				else
					out_field_str(o, "indexed_epoch", NULL);
			}
			out_record_end(o);
			continue;
		}
		out_line(o, "%-*s  %-8s  %s", (int)width, out_esc(r->name), status, out_esc(r->root));
		if (!ok) {
			out_line(o, "%-*s  %s", (int)width, "", out_esc(err.msg));
			continue;
		}
		struct strbuf sb = STRBUF_INIT;
		char when[64] = "never";
		strbuf_addf(&sb, "%llu file%s", (unsigned long long)info.files,
			    info.files == 1 ? "" : "s");
		const char *sep = " (";
		for (int lang = 1; lang < 32; lang++)
			if (info.files_by_lang[lang] && kbx_lang_str(lang)) {
				strbuf_addf(&sb, "%s%s %llu", sep, kbx_lang_str(lang),
					    (unsigned long long)info.files_by_lang[lang]);
				sep = ", ";
			}
		if (strcmp(sep, " ("))
			strbuf_addch(&sb, ')');
		if (info.updated)
			human_time(when, sizeof(when), info.updated, now);
		strbuf_addf(&sb, ", %llu symbol%s, indexed %s", (unsigned long long)info.symbols,
			    info.symbols == 1 ? "" : "s", when);
		out_line(o, "%-*s  %s", (int)width, "", strbuf_str(&sb));
		strbuf_release(&sb);
	}
	size_t n = l.n;
	if (!names_only)
		hint_unlisted(&l);
	kbx_repo_list_release(&l);
	if (out_finish(o))
		return KBX_EXIT_IO;
	return n ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}

/* Lock and read the list for a change; 0 or an exit code. */
static int edit_begin(struct kbx_repos_edit *e)
{
	struct kbx_error err = KBX_ERROR_INIT;
	char *path = NULL;
	kbx_status_t st = kbx_repos_path(&path, &err);
	if (!st)
		st = kbx_repos_edit_begin(e, path, &err);
	free(path);
	if (st) {
		kbx_repos_edit_end(e);
		return die_status(&err);
	}
	return 0;
}

static int edit_commit(struct kbx_repos_edit *e)
{
	struct kbx_error err = KBX_ERROR_INIT;
	int rc = kbx_repos_edit_commit(e, &err) ? die_status(&err) : 0;
	kbx_repos_edit_end(e);
	return rc;
}

static int unknown_name(const struct kbx_repo_list *l, const char *name)
{
	const char *near[4];
	size_t n = kbx_repo_list_suggest(l, name, near, 4);
	fprintf(stderr, "error: no repository is called '%s': see 'kbx repos'\n", out_esc(name));
	if (n) {
		fprintf(stderr, "\nthe most similar name%s\n", n > 1 ? "s are" : " is");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "\t%s\n", out_esc(near[i]));
	}
	return KBX_EXIT_NOT_FOUND;
}

static int repos_add(const char *where, const char *name)
{
	struct kbx_error err = KBX_ERROR_INIT;
	char *kbx_dir = NULL, *root = NULL;
	struct stat sb;
	if (stat(where, &sb) < 0) {
		fprintf(stderr, "error: cannot add '%s': %s\n", out_esc(where), strerror(errno));
		return KBX_EXIT_USAGE;
	}
	if (kbx_store_locate(where, 0, &kbx_dir, &root, &err))
		return die_status(&err);
	struct kbx_repos_edit e = KBX_REPOS_EDIT_INIT;
	int rc = edit_begin(&e);
	if (!rc) {
		size_t i;
		int added;
		if (kbx_repo_list_add(&e.list, kbx_dir, root, name, &i, &added, &err)) {
			rc = die_status(&err);
			kbx_repos_edit_end(&e);
		} else {
			if (added)
				fprintf(stderr, "added '%s': %s\n", out_esc(e.list.items[i].name),
					out_esc(root));
			else
				fprintf(stderr, "'%s' is listed already, as '%s'\n", out_esc(root),
					out_esc(e.list.items[i].name));
			rc = edit_commit(&e);
		}
	}
	free(kbx_dir);
	free(root);
	return rc;
}

static int repos_remove(int n, const char **names)
{
	struct kbx_repos_edit e = KBX_REPOS_EDIT_INIT;
	int rc = edit_begin(&e);
	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		struct kbx_repo *r = kbx_repo_list_find(&e.list, names[i]);
		if (!r) {
			rc = unknown_name(&e.list, names[i]);
			kbx_repos_edit_end(&e);
			return rc;
		}
		kbx_repo_list_remove(&e.list, (size_t)(r - e.list.items));
	}
	return edit_commit(&e);
}

static int repos_rename(const char *old, const char *new)
{
	const char *why;
	if (!kbx_repo_name_ok(new, &why)) {
		fprintf(stderr, "error: the name '%s' %s\n", out_esc(new), why);
		return KBX_EXIT_USAGE;
	}
	struct kbx_repos_edit e = KBX_REPOS_EDIT_INIT;
	int rc = edit_begin(&e);
	if (rc)
		return rc;
	struct kbx_repo *r = kbx_repo_list_find(&e.list, old);
	struct kbx_repo *taken = kbx_repo_list_find(&e.list, new);
	if (!r) {
		rc = unknown_name(&e.list, old);
	} else if (taken && taken != r) {
		fprintf(stderr, "error: the name '%s' is taken by '%s': remove or rename that one first\n",
			out_esc(new), out_esc(taken->root));
		rc = KBX_EXIT_USAGE;
	} else {
		char *copy = strdup(new);
		if (!copy) {
			fprintf(stderr, "fatal: out of memory\n");
			rc = KBX_EXIT_INTERNAL;
		} else {
			free(r->name);
			r->name = copy;
			return edit_commit(&e);
		}
	}
	kbx_repos_edit_end(&e);
	return rc;
}

static int repos_prune(int dry_run)
{
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_repo_list dropped = KBX_REPO_LIST_INIT;
	char *path = NULL;
	kbx_status_t st = kbx_repos_path(&path, &err);
	if (!st)
		st = kbx_repos_prune(path, kbx_repo_store_gone, dry_run, &dropped, &err);
	free(path);
	for (size_t i = 0; i < dropped.n; i++)
		fprintf(stderr, "%s '%s': '%s' is gone\n", dry_run ? "would drop" : "dropped",
			out_esc(dropped.items[i].name), out_esc(dropped.items[i].kbx_dir));
	kbx_repo_list_release(&dropped);
	return st ? die_status(&err) : KBX_EXIT_OK;
}

int cmd_repos(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct output_opts oo = OUTPUT_OPTS_INIT;
	int names = 0, dry_run = 0;
	const char *name = NULL;
	struct option opts[] = {
		OPT_KEYWORD_F(0, "format", &oo.format, list_formats, "FORMAT",
			      "list: text or json (one record a repository)"),
		OPT_INT_F(0, "format-version", &oo.format_version, "N",
			  "list: version of the JSON records (default: the newest)"),
		OPT_BOOL_F(0, "names", &names, "list: only the names, one a line"),
		OPT_STRING_F(0, "name", &name, "NAME", "add: the name (default: from the directory)"),
		OPT_BOOL_F('n', "dry-run", &dry_run, "prune: say what would be dropped, drop nothing"),
		OPT_END_F(),
	};
	(void)ctx;
	int nargs = parse_options(argc, argv, opts, repos_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	const char *sub = nargs ? argv[0] : "list";
	if (ctx->db_given && strcmp(sub, "list")) {
		fprintf(stderr, "error: 'repos %s' changes the local list: run it without --db\n",
			out_esc(sub));
		return KBX_EXIT_USAGE;
	}
	if (!strcmp(sub, "list")) {
		if (nargs > 1) {
			fprintf(stderr, "error: 'repos list' takes no arguments\n");
			return KBX_EXIT_USAGE;
		}
		if (ctx->db_given)
			return db_graph_repos(ctx, &oo, names);
		return repos_list(ctx, &oo, names);
	}
	if (!strcmp(sub, "add")) {
		if (nargs != 2) {
			fprintf(stderr, "error: 'repos add' takes one path: a repository with an index\n");
			return KBX_EXIT_USAGE;
		}
		return repos_add(argv[1], name);
	}
	if (!strcmp(sub, "remove")) {
		if (nargs < 2) {
			fprintf(stderr, "error: 'repos remove' needs the name of a repository\n");
			return KBX_EXIT_USAGE;
		}
		return repos_remove(nargs - 1, argv + 1);
	}
	if (!strcmp(sub, "rename")) {
		if (nargs != 3) {
			fprintf(stderr, "error: 'repos rename' takes the old name and the new one\n");
			return KBX_EXIT_USAGE;
		}
		return repos_rename(argv[1], argv[2]);
	}
	if (!strcmp(sub, "prune")) {
		if (nargs > 1) {
			fprintf(stderr, "error: 'repos prune' takes no arguments\n");
			return KBX_EXIT_USAGE;
		}
		return repos_prune(dry_run);
	}
	fprintf(stderr, "error: unknown subcommand '%s': say list, add, remove, rename or prune\n",
		out_esc(sub));
	usage_with_options(repos_usage, opts, 1);
	return KBX_EXIT_USAGE;
}
