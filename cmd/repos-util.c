/*
 * Several repositories, the command side: --repo, registering after an
 * index run, and opening every registered store for --all-repos.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/config.h"
#include "search/kbx-search.h"
#include "output.h"
#include "repos-util.h"
#include "util/strbuf.h"

/* the store --repo chose, kept for the whole run (ctx->kbx_dir_opt
 * points here) */
static char *selected_kbx_dir;

static int looks_like_path(const char *s)
{
	return strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..");
}

static void print_known(const struct kbx_repo_list *l, const char *name)
{
	const char *near[4];
	size_t n = kbx_repo_list_suggest(l, name, near, 4);
	if (n) {
		fprintf(stderr, "\nthe most similar name%s\n", n > 1 ? "s are" : " is");
		for (size_t i = 0; i < n; i++)
			fprintf(stderr, "\t%s\n", out_esc(near[i]));
	} else if (l->n) {
		fprintf(stderr, "hint: the repositories kbx knows:");
		for (size_t i = 0; i < l->n && i < 20; i++)
			fprintf(stderr, "%s %s", i ? "," : "", out_esc(l->items[i].name));
		fprintf(stderr, "%s\n", l->n > 20 ? ", ... (see 'kbx repos')" : "");
	} else {
		fprintf(stderr, "hint: kbx knows no repositories yet: 'kbx index' in one lists it, as does 'kbx repos add <path>'\n");
	}
}

int repo_resolve(const char *name, char **kbx_dir, char **root)
{
	struct kbx_error err = KBX_ERROR_INIT;
	*kbx_dir = *root = NULL;
	if (looks_like_path(name)) {
		struct stat st;
		if (stat(name, &st) < 0 || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "error: --repo: there is no directory '%s'\n", out_esc(name));
			return KBX_EXIT_NO_INDEX;
		}
		if (kbx_store_locate(name, 0, kbx_dir, root, &err))
			return die_status(&err);
		return 0;
	}
	struct kbx_repo_list l = KBX_REPO_LIST_INIT;
	kbx_status_t st = kbx_repos_read(&l, &err);
	if (st) {
		kbx_repo_list_release(&l);
		return die_status(&err);
	}
	const struct kbx_repo *r = kbx_repo_list_find(&l, name);
	if (!r) {
		fprintf(stderr, "error: no repository is called '%s': see 'kbx repos'\n",
			out_esc(name));
		print_known(&l, name);
		kbx_repo_list_release(&l);
		return KBX_EXIT_NO_INDEX;
	}
	*kbx_dir = strdup(r->kbx_dir);
	*root = strdup(r->root);
	kbx_repo_list_release(&l);
	if (!*kbx_dir || !*root) {
		free(*kbx_dir);
		free(*root);
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	return 0;
}

int repo_select(struct kbx_ctx *ctx, const char *name)
{
	char *kbx_dir, *root;
	int rc = repo_resolve(name, &kbx_dir, &root);
	if (rc)
		return rc;
	struct stat st;
	if (stat(kbx_dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "error: the index of '%s' at '%s' is gone: 'kbx repos prune' drops it from the list\n",
			out_esc(name), out_esc(kbx_dir));
		free(kbx_dir);
		free(root);
		return KBX_EXIT_NO_INDEX;
	}
	/* operands such as paths are then the other repository's; a root
	 * that is gone leaves the store usable from here */
	if (chdir(root) < 0 && errno != ENOENT) {
		fprintf(stderr, "error: cannot change to '%s': %s\n", out_esc(root), strerror(errno));
		free(kbx_dir);
		free(root);
		return KBX_EXIT_IO;
	}
	free(root);
	free(selected_kbx_dir);
	selected_kbx_dir = kbx_dir;
	ctx->kbx_dir_opt = selected_kbx_dir;
	return 0;
}

int repo_scan_args(int argc, const char **argv, const char *global, const char **repo,
		   int *all_repos)
{
	*repo = global;
	*all_repos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--"))
			break;
		if (!strncmp(a, "--repo=", 7))
			*repo = a + 7;
		else if (!strcmp(a, "--repo") && i + 1 < argc)
			*repo = argv[++i];
		else if (!strcmp(a, "--all-repos"))
			*all_repos = 1;
		else if (!strcmp(a, "--no-all-repos"))
			*all_repos = 0;
	}
	if (*repo && *all_repos) {
		fprintf(stderr, "error: --repo names one repository and --all-repos all of them: give one of the two\n");
		return KBX_EXIT_USAGE;
	}
	return 0;
}

/* repos.register, as kbx_config_keys words it */
enum { REGISTER_AUTO, REGISTER_ALWAYS, REGISTER_NEVER, REGISTER_TRUE, REGISTER_FALSE };

void repo_register_store(struct kbx_ctx *ctx)
{
	struct kbx_config_value v;
	struct kbx_error err = KBX_ERROR_INIT;
	long mode = REGISTER_AUTO;
	if (kbx_config_get(ctx->config, "repos.register", &v, NULL) == KBX_OK)
		mode = (long)v.number;
	if (mode == REGISTER_NEVER || mode == REGISTER_FALSE)
		return;
	char *path = NULL;
	kbx_status_t st = kbx_repos_path(&path, &err);
	if (st == KBX_NOT_FOUND)
		return;   /* no config directory: nowhere to keep the list */
	char dir[PATH_MAX], root[PATH_MAX];
	if (!st && (!realpath(ctx->kbx_dir, dir) || !realpath(kbx_store_root(ctx->store), root))) {
		st = KBX_ERR_IO;
		snprintf(err.msg, sizeof(err.msg), "cannot resolve '%s': %s", ctx->kbx_dir,
			 strerror(errno));
	}
	/* auto: a repository with a remote elsewhere is worth knowing by
	 * name; a local clone or a scratch directory is listed only when
	 * the user says so (kbx repos add), and then kept */
	int may_add = mode != REGISTER_AUTO || (!st && kbx_repo_has_remote(root, NULL, 0));
	char *name = NULL;
	int added = 0;
	if (!st)
		st = kbx_repos_register(path, dir, root, may_add, &name, &added, &err);
	if (st)
		fprintf(stderr, "warning: the index is not in the list of repositories: %s\n"
			"hint: set repos.register to never to stop listing indexes ('kbx config --user repos.register never')\n",
			out_esc(err.msg));
	free(name);
	free(path);
}

void repo_prune_gone(void)
{
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_repo_list dropped = KBX_REPO_LIST_INIT;
	char *path = NULL;
	kbx_status_t st = kbx_repos_path(&path, &err);
	if (st == KBX_NOT_FOUND) {
		free(path);
		return;
	}
	if (!st)
		st = kbx_repos_prune(path, kbx_repo_gone, 0, &dropped, &err);
	if (st)
		fprintf(stderr, "warning: cannot drop the repositories that are gone from the list: %s\n",
			out_esc(err.msg));
	for (size_t i = 0; i < dropped.n; i++)
		fprintf(stderr, "note: dropped '%s' from the list of repositories: '%s' is gone\n",
			out_esc(dropped.items[i].name), out_esc(dropped.items[i].root));
	kbx_repo_list_release(&dropped);
	free(path);
}

/* ---- every store at once ---- */

void repo_stores_close(struct repo_stores *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		kbx_store_close(rs->items[i].store);
		kbx_config_free(rs->items[i].config);
	}
	free(rs->items);
	rs->items = NULL;
	rs->n = 0;
	kbx_repo_list_release(&rs->list);
}

/* On failure, what was opened is closed again: the caller has nothing
 * to release. */
int repo_stores_open(struct kbx_ctx *ctx, struct repo_stores *rs)
{
	struct kbx_error err = KBX_ERROR_INIT;
	repo_prune_gone();
	kbx_status_t st = kbx_repos_read(&rs->list, &err);
	if (st) {
		repo_stores_close(rs);
		return die_status(&err);
	}
	if (!rs->list.n) {
		fprintf(stderr, "error: kbx knows no repositories: run 'kbx repos add .' in one ('kbx index' lists a repository with a remote by itself; see 'kbx repos')\n");
		repo_stores_close(rs);
		return KBX_EXIT_NO_INDEX;
	}
	rs->items = calloc(rs->list.n, sizeof(*rs->items));
	if (!rs->items) {
		fprintf(stderr, "fatal: out of memory\n");
		repo_stores_close(rs);
		return KBX_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < rs->list.n; i++) {
		const struct kbx_repo *r = &rs->list.items[i];
		struct repo_store *s = &rs->items[rs->n];
		struct stat sb;
		if (stat(r->kbx_dir, &sb) < 0) {
			fprintf(stderr, "warning: skipping '%s': its index '%s' is gone ('kbx repos prune' drops it)\n",
				out_esc(r->name), out_esc(r->kbx_dir));
			continue;
		}
		int trusted = store_trusted(ctx->config, r->kbx_dir, r->root);
		st = kbx_store_open(r->kbx_dir, NULL, KBX_OPEN_READ | (trusted ? KBX_OPEN_TRUSTED : 0),
				    0, &s->store, &err);
		if (st) {
			fprintf(stderr, "warning: skipping '%s': %s\n", out_esc(r->name),
				out_esc(err.msg));
			continue;
		}
		if (load_settings(ctx, r->kbx_dir, &s->config)) {
			fprintf(stderr, "warning: skipping '%s': its settings cannot be read\n",
				out_esc(r->name));
			kbx_store_close(s->store);
			s->store = NULL;
			continue;
		}
		s->repo = r;
		rs->n++;
	}
	if (!rs->n) {
		fprintf(stderr, "error: none of the %zu repositories kbx knows has an index that can be read\n",
			rs->list.n);
		repo_stores_close(rs);
		return KBX_EXIT_NO_INDEX;
	}
	return 0;
}

/* ---- kbx search --all-repos ---- */

struct fuse_data {
	struct kbx_search_results *res;   /* one per store */
	struct strbuf *keys;              /* one per hit, "" for none */
	size_t *first;                    /* index of each store's first key */
};

/* The same registry entry indexed by two repositories is one result:
 * registry paths are absolute, the repository's own are not. */
static const char *hit_key(void *data, size_t list, size_t item)
{
	struct fuse_data *d = data;
	const struct strbuf *k = &d->keys[d->first[list] + item];
	return k->len ? k->buf : NULL;
}

static double hit_score(void *data, size_t list, size_t item)
{
	struct fuse_data *d = data;
	return d->res[list].hits[item].score;
}

int search_all_repos(struct kbx_ctx *ctx, const struct kbx_search_query *q_in,
		     const struct output_opts *oo, int explain)
{
	struct repo_stores rs = REPO_STORES_INIT;
	int rc = repo_stores_open(ctx, &rs);
	if (rc)
		return rc;
	struct kbx_search_results *res = calloc(rs.n, sizeof(*res));
	struct kbx_embed_config *ec = calloc(rs.n, sizeof(*ec));
	const char **names = calloc(rs.n, sizeof(*names)), **roots = calloc(rs.n, sizeof(*roots));
	size_t searched = 0;
	rc = KBX_EXIT_INTERNAL;
	if (!res || !ec || !names || !roots) {
		fprintf(stderr, "fatal: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < rs.n; i++) {
		struct kbx_search_query q = *q_in;
		struct kbx_ctx sctx = *ctx;
		struct kbx_error err = KBX_ERROR_INIT;
		names[i] = rs.items[i].repo->name;
		roots[i] = rs.items[i].repo->root;
		/* each store is searched with the embedder it was indexed with */
		sctx.config = rs.items[i].config;
		search_embed_config(&sctx, &ec[i]);
		q.embed = &ec[i];
		q.refresh = !q.scope;
		kbx_status_t st = kbx_search(rs.items[i].store, &q, &res[i], &err);
		searched += search_repo_done(names[i], st, &err, &res[i]);
	}
	rc = search_fuse_print(names, roots, rs.n, res, searched, q_in, oo, explain);
out:
	for (size_t i = 0; res && i < rs.n; i++)
		kbx_search_results_release(&res[i]);
	free(res);
	free(ec);
	free(names);
	free(roots);
	repo_stores_close(&rs);
	return rc;
}

int search_repo_done(const char *name, kbx_status_t st, const struct kbx_error *err,
		     struct kbx_search_results *res)
{
	if (st && st != KBX_NOT_FOUND) {
		fprintf(stderr, "warning: skipping '%s': %s\n", out_esc(name), out_esc(err->msg));
		kbx_search_results_release(res);
		memset(res, 0, sizeof(*res));
		return 0;
	}
	for (int sg = 0; sg < KBX_SIG__COUNT; sg++)
		if (res->sig[sg].note[0])
			fprintf(stderr, "warning: %s: %s\n", out_esc(name), out_esc(res->sig[sg].note));
	return 1;
}

int search_fuse_print(const char *const *names, const char *const *roots, size_t nrepos,
		      const struct kbx_search_results *res, size_t searched,
		      const struct kbx_search_query *q_in, const struct output_opts *oo, int explain)
{
	size_t *counts = calloc(nrepos + 1, sizeof(*counts));
	size_t *first = calloc(nrepos + 1, sizeof(*first));
	struct strbuf *keys = NULL;
	struct kbx_repos_fused *fused = NULL;
	size_t nfused = 0;
	int rc = KBX_EXIT_INTERNAL;
	if (!counts || !first)
		goto oom;
	for (size_t i = 0; i < nrepos; i++) {
		counts[i] = res[i].n;
		first[i + 1] = first[i] + res[i].n;
	}
	if (!searched) {
		fprintf(stderr, "error: no repository could be searched\n");
		rc = KBX_EXIT_IO;
		goto out;
	}
	keys = calloc(first[nrepos] ? first[nrepos] : 1, sizeof(*keys));
	if (!keys)
		goto oom;
	for (size_t i = 0; i < nrepos; i++)
		for (size_t h = 0; h < res[i].n; h++) {
			const struct kbx_chunk *c = &res[i].hits[h].chunk;
			struct strbuf *k = &keys[first[i] + h];
			strbuf_init(k);
			if (c->path && c->path[0] == '/')
				strbuf_addf(k, "%d\t%s\t%u\t%s", c->type, c->doc_id, c->seq, c->path);
			if (k->failed)
				goto oom;
		}
	struct fuse_data fd = { (struct kbx_search_results *)res, keys, first };
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_repos_fuse(nrepos, counts, q_in->rrf_k, hit_key, hit_score, &fd, &fused, &nfused,
			   &err)) {
		rc = die_status(&err);
		goto out;
	}
	size_t limit = q_in->limit ? q_in->limit : 10;
	if (nfused > limit)
		nfused = limit;
	struct out *o = out_new(oo);
	if (!o) {
		rc = KBX_EXIT_USAGE;
		goto out;
	}
	if (explain && out_format(o) == FMT_TEXT) {
		out_heading(o, "%zu result%s from %zu repositor%s", nfused, nfused == 1 ? "" : "s",
			    searched, searched == 1 ? "y" : "ies");
		for (size_t i = 0; i < nrepos; i++)
			out_note(o, "%-12s %zu hit%s from %llu chunks", out_esc(names[i]), res[i].n,
				 res[i].n == 1 ? "" : "s", (unsigned long long)res[i].chunks);
		out_note(o, "fusion       reciprocal rank over the repositories, k = %g",
			 q_in->rrf_k > 0 ? q_in->rrf_k : 60.0);
		out_line(o, "%s", "");
	}
	for (size_t f = 0; f < nfused; f++) {
		out_set_repo(o, names[fused[f].list], roots ? roots[fused[f].list] : NULL,
			     fused[f].item + 1);
		out_search_hit(o, f + 1, &res[fused[f].list].hits[fused[f].item], &res[fused[f].list],
			       q_in->text, explain);
	}
	out_set_repo(o, NULL, NULL, 0);
	if (explain && out_format(o) == FMT_JSON) {
		out_record_begin(o, "plan");
		out_field_str(o, "fusion", "rrf");
		out_field_num(o, "rrf_k", q_in->rrf_k > 0 ? q_in->rrf_k : 60.0);
		out_json_begin(o, "repos", 1);
		for (size_t i = 0; i < nrepos; i++) {
			out_json_begin(o, NULL, 0);
			out_json_str(o, "name", names[i]);
			out_json_int(o, "chunks", (int64_t)res[i].chunks);
			out_json_int(o, "hits", (int64_t)res[i].n);
			out_json_end(o);
		}
		out_json_end(o);
		out_record_end(o);
	}
	rc = out_finish(o) ? KBX_EXIT_IO : nfused ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
	goto out;
oom:
	fprintf(stderr, "fatal: out of memory\n");
	rc = KBX_EXIT_INTERNAL;
out:
	if (keys)
		for (size_t i = 0; i < first[nrepos]; i++)
			strbuf_release(&keys[i]);
	free(keys);
	free(fused);
	free(counts);
	free(first);
	return rc;
}
