/*
 * kbx config: get and set kbx's settings (lib/util/config.h; the keys and the
 * files are described in kbx-settings(7)).
 *
 *   kbx config KEY            the value in effect
 *   kbx config KEY VALUE      set it, in the repository's file by default
 *   kbx config --unset KEY    remove it from that file
 *   kbx config --list         every key set, with the value in effect
 *
 * Writing to the repository's file needs no index: the .kbx directory is
 * created, without a store, and 'kbx status' still says to run
 * 'kbx index'.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "builtin.h"
#include "util/config.h"
#include "output.h"
#include "parse-options.h"

static const char *const config_usage[] = {
	"kbx config [--user | --repo] [--show-origin] <key> [<value>]",
	"kbx config [--user | --repo] --unset <key>",
	"kbx config [--user | --repo] --list [--show-origin] [--defaults]",
	NULL
};

enum scope_choice { SCOPE_ALL, SCOPE_USER, SCOPE_REPO };

/* The index directory here or above, for the repository's file; with
 * create, where 'kbx index' would make it. */
static int find_kbx_dir(struct kbx_ctx *ctx, int create, char **kbx_dir)
{
	struct kbx_error err = KBX_ERROR_INIT;
	char *root = NULL;
	*kbx_dir = NULL;
	if (ctx->kbx_dir_opt) {
		*kbx_dir = strdup(ctx->kbx_dir_opt);
		if (!*kbx_dir) {
			fprintf(stderr, "fatal: out of memory\n");
			return KBX_EXIT_INTERNAL;
		}
		return 0;
	}
	kbx_status_t st = kbx_store_locate(".", create, kbx_dir, &root, &err);
	free(root);
	if (st == KBX_ERR_NO_STORE)
		return 0;
	if (st)
		return die_status(&err);
	return 0;
}

/* Make the index directory for its settings file alone, as 'kbx index'
 * makes it (kept out of git), but without a store. */
static int make_kbx_dir(const char *kbx_dir)
{
	struct kbx_error err = KBX_ERROR_INIT;
	return kbx_store_make_dir(kbx_dir, &err) ? die_status(&err) : 0;
}

static int config_error(const struct kbx_config_error *err)
{
	int rc = die_status(&err->err);
	if (err->line)
		fprintf(stderr, "hint: correct or remove that line; 'kbx config --list --defaults' lists the keys, kbx-settings(7) describes them\n");
	return rc;
}

/* The settings the command looks at: both files, or the one chosen. */
static int load(struct kbx_ctx *ctx, int scope, kbx_config_t **cfg, char **path)
{
	struct kbx_config_error err = KBX_CONFIG_ERROR_INIT;
	char *kbx_dir = NULL;
	kbx_status_t st;
	int rc;
	*path = NULL;
	if (scope == SCOPE_ALL || scope == SCOPE_REPO) {
		if ((rc = find_kbx_dir(ctx, 0, &kbx_dir)))
			return rc;
	}
	if (scope == SCOPE_ALL) {
		rc = load_settings(ctx, kbx_dir, cfg);
		free(kbx_dir);
		return rc;
	}
	if (scope == SCOPE_USER) {
		st = kbx_config_user_path(path, &err);
		if (st == KBX_NOT_FOUND)
			st = KBX_OK;  /* no such file: nothing set */
	} else {
		st = kbx_dir ? kbx_config_repo_path(kbx_dir, path, &err) : KBX_OK;
		free(kbx_dir);
	}
	if (!st)
		st = kbx_config_new(cfg, &err);
	if (!st && *path)
		st = kbx_config_read_file(*cfg, *path, scope == SCOPE_USER ? KBX_CONFIG_USER
									  : KBX_CONFIG_REPO, &err);
	if (st) {
		kbx_config_free(*cfg);
		*cfg = NULL;
		free(*path);
		*path = NULL;
		return config_error(&err);
	}
	warn_refused_settings(*cfg);
	return 0;
}

/* "value", or with --show-origin "file:line<TAB>value" (or "default"). */
static void print_value(struct out *o, const char *key, const struct kbx_config_value *v,
			int show_origin)
{
	if (!show_origin && !key) {
		out_note(o, "%s", out_esc(v->text));
		return;
	}
	char origin[4200];
	if (v->path)
		snprintf(origin, sizeof(origin), "%s:%u\t", out_esc(v->path), v->line);
	else if (v->scope == KBX_CONFIG_COMMAND)
		snprintf(origin, sizeof(origin), "command line\t");
	else
		snprintf(origin, sizeof(origin), "default\t");
	if (key)
		out_note(o, "%s%s=%s", show_origin ? origin : "", out_esc(key), out_esc(v->text));
	else
		out_note(o, "%s%s", origin, out_esc(v->text));
}

static int unknown_key(const char *key)
{
	const char *near = kbx_config_key_suggest(key);
	fprintf(stderr, "error: unknown key '%s'\n", out_esc(key));
	if (near)
		fprintf(stderr, "\ndid you mean this?\n\t%s\n", near);
	else
		fprintf(stderr, "hint: 'kbx config --list --defaults' lists every key\n");
	return KBX_EXIT_USAGE;
}

int cmd_config(int argc, const char **argv, struct kbx_ctx *ctx)
{
	int user = 0, repo = 0, unset = 0, list = 0, show_origin = 0, defaults = 0;
	struct option opts[] = {
		OPT_BOOL_F(0, "user", &user,
			   "the user's file ($XDG_CONFIG_HOME/kbx/config or ~/.config/kbx/config)"),
		OPT_BOOL_F(0, "repo", &repo, "the repository's file, .kbx/config (where writes go)"),
		OPT_BOOL_F(0, "unset", &unset, "remove the key from the file"),
		OPT_BOOL_F('l', "list", &list, "list the keys that are set, with their values"),
		OPT_BOOL_F(0, "show-origin", &show_origin,
			   "say which file and line each value comes from"),
		OPT_BOOL_F(0, "defaults", &defaults, "with --list: also the keys left at their defaults"),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, config_usage);
	if (nargs < 0) {
		/* "kbx config search.efSearch -3": the value was taken for
		 * a switch */
		for (int i = 1; i < argc; i++)
			if (argv[i][0] == '-' && ((argv[i][1] >= '0' && argv[i][1] <= '9') || argv[i][1] == '.')) {
				fprintf(stderr, "hint: a value that starts with '-' goes after '--': kbx config KEY -- %s\n",
					out_esc(argv[i]));
				break;
			}
		return KBX_EXIT_USAGE;
	}
	if (user && repo) {
		fprintf(stderr, "error: --user and --repo cannot be used together\n");
		return KBX_EXIT_USAGE;
	}
	int scope = user ? SCOPE_USER : repo ? SCOPE_REPO : SCOPE_ALL;
	if (list + unset > 1 || (list && nargs) || (unset && nargs != 1) ||
	    (!list && (nargs < 1 || nargs > 2)) || (defaults && (!list || scope != SCOPE_ALL)) ||
	    (show_origin && (unset || nargs == 2))) {
		usage_with_options(config_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}

	/* set and unset: one file, the repository's unless --user */
	if (unset || nargs == 2) {
		const char *key = argv[0];
		const char *value = unset ? NULL : argv[1];
		const struct kbx_config_key *k = kbx_config_key_find(key);
		if (!k && value)
			return unknown_key(key);
		if (value) {
			/* checked before anything is created */
			struct kbx_config_value v;
			struct kbx_error verr = KBX_ERROR_INIT;
			const char *why = user ? NULL : kbx_config_repo_refusal(k, value);
			if (kbx_config_parse_value(k, value, &v, &verr))
				return die_status(&verr);
			if (why) {
				fprintf(stderr, "error: %s cannot be set in a repository's settings: %s\n",
					k->name, why);
				fprintf(stderr, "hint: set it in your own settings: kbx config --user %s VALUE (kbx-security(7))\n",
					k->name);
				return KBX_EXIT_USAGE;
			}
		}
		char *path = NULL, *kbx_dir = NULL;
		struct kbx_config_error err = KBX_CONFIG_ERROR_INIT;
		int rc;
		if (user) {
			if (kbx_config_user_path(&path, &err))
				return die_status(&err.err);
		} else {
			if ((rc = find_kbx_dir(ctx, value != NULL, &kbx_dir)))
				return rc;
			if (!kbx_dir) {
				/* --unset with no index directory: nothing set */
				fprintf(stderr, "error: there is no .kbx directory here or above, so no repository setting of %s\n",
					out_esc(k ? k->name : key));
				return KBX_EXIT_NOT_FOUND;
			}
			if (value && (rc = make_kbx_dir(kbx_dir))) {
				free(kbx_dir);
				return rc;
			}
			kbx_status_t st = kbx_config_repo_path(kbx_dir, &path, &err);
			free(kbx_dir);
			if (st)
				return die_status(&err.err);
		}
		kbx_status_t st = kbx_config_write(path, user ? KBX_CONFIG_USER : KBX_CONFIG_REPO,
						   key, value, &err);
		if (st == KBX_NOT_FOUND && !user) {
			/* the value in effect may come from the other file */
			char *upath = NULL;
			kbx_config_t *ucfg = NULL;
			struct kbx_config_value v;
			fprintf(stderr, "error: %s\n", out_esc(err.err.msg));
			if (k && kbx_config_user_path(&upath, NULL) == KBX_OK &&
			    kbx_config_new(&ucfg, NULL) == KBX_OK &&
			    kbx_config_read_file(ucfg, upath, KBX_CONFIG_USER, NULL) == KBX_OK &&
			    kbx_config_get(ucfg, k->name, &v, NULL) == KBX_OK && v.path)
				fprintf(stderr, "hint: the user's file sets it: 'kbx config --user --unset %s'\n",
					k->name);
			kbx_config_free(ucfg);
			free(upath);
			free(path);
			return KBX_EXIT_NOT_FOUND;
		}
		free(path);
		if (st == KBX_NOT_FOUND) {
			fprintf(stderr, "error: %s\n", out_esc(err.err.msg));
			return KBX_EXIT_NOT_FOUND;
		}
		return st ? die_status(&err.err) : KBX_EXIT_OK;
	}

	/* get and list */
	kbx_config_t *cfg = NULL;
	char *path = NULL;
	const struct kbx_config_key *k = NULL;
	if (!list && !(k = kbx_config_key_find(argv[0])))
		return unknown_key(argv[0]);
	int rc = load(ctx, scope, &cfg, &path);
	if (rc)
		return rc;
	free(path);
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct out *o = out_new(&oo);
	if (!o) {
		kbx_config_free(cfg);
		return KBX_EXIT_INTERNAL;
	}
	struct kbx_config_error err = KBX_CONFIG_ERROR_INIT;
	struct kbx_config_value v;
	int found = 0;
	for (const struct kbx_config_key *key = kbx_config_keys; key->name; key++) {
		if (k && key != k)
			continue;
		if (kbx_config_get(cfg, key->name, &v, &err)) {
			rc = die_status(&err.err);
			break;
		}
		/* with a file chosen, only what it sets; else every key has
		 * a value, its default at least */
		if ((list && !defaults && v.scope == KBX_CONFIG_DEFAULT) ||
		    (scope != SCOPE_ALL && v.scope == KBX_CONFIG_DEFAULT))
			continue;
		found = 1;
		print_value(o, list ? key->name : NULL, &v, show_origin);
	}
	kbx_config_free(cfg);
	if (out_finish(o))
		return KBX_EXIT_IO;
	if (rc)
		return rc;
	/* like a query: nothing set in the file asked about is "not found" */
	return found || list ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
