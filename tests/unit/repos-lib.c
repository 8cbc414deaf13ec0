/*
 * Unit tests of the list of repositories (lib/util/repos.c): names made from
 * roots and their collisions, names refused, the file's round trip and
 * its errors, and the fusion of several stores' ranked lists.  Prints
 * TAP.  Writes only under the directory given as argv[1].
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "search/kbx-search.h"
#include "util/repos.h"
#include "tap.h"

/* Add root with a store at root/.kbx; the name it got, or NULL. */
static const char *add(struct kbx_repo_list *l, const char *root, const char *name)
{
	char dir[512];
	size_t i;
	int added;
	snprintf(dir, sizeof(dir), "%s/.kbx", root);
	if (kbx_repo_list_add(l, dir, root, name, &i, &added, NULL))
		return NULL;
	return l->items[i].name;
}

static void test_names(void)
{
	struct kbx_repo_list l = KBX_REPO_LIST_INIT;
	const char *n;
	ok((n = add(&l, "/src/api", NULL)) && !strcmp(n, "api"), "a name is the root's last component");
	ok((n = add(&l, "/work/api/", NULL)) && !strcmp(n, "work-api"),
	   "a taken name gets the parent in front (trailing slash ignored)");
	ok((n = add(&l, "/other/work/api", NULL)) && !strcmp(n, "api-2"),
	   "then a number after it");
	ok((n = add(&l, "/x/work/api", NULL)) && !strcmp(n, "api-3"), "the next number");
	ok((n = add(&l, "/src/api", NULL)) && !strcmp(n, "api") && l.n == 4,
	   "a store listed already keeps its entry");
	ok(add(&l, "/src/api", "renamed") == NULL, "another name for a listed store is refused");
	ok(add(&l, "/new", "api") == NULL, "a name that is taken is refused");
	ok((n = add(&l, "/home/ann/.dotfiles", NULL)) && !strcmp(n, "dotfiles"),
	   "a leading dot is dropped");
	ok((n = add(&l, "/home/my repo:x", NULL)) && !strcmp(n, "my-repo-x"),
	   "characters a name may not hold become dashes");
	ok((n = add(&l, "/", NULL)) && !strcmp(n, "repo"), "the root directory is 'repo'");
	ok(add(&l, "relative/path", NULL) == NULL, "a relative root is refused");
	ok(add(&l, "/tab\there", NULL) == NULL, "a root with a tab is refused");

	const char *why;
	ok(kbx_repo_name_ok("web_2.0+beta@x", &why) && !why, "letters, digits and . _ - + @ make a name");
	ok(!kbx_repo_name_ok("", &why) && why, "an empty name is refused");
	ok(!kbx_repo_name_ok("-x", &why) && !kbx_repo_name_ok(".x", &why),
	   "a name starting with - or . is refused");
	ok(!kbx_repo_name_ok("a/b", &why) && !kbx_repo_name_ok("a b", &why),
	   "a slash or a blank is refused");
	ok(kbx_repo_name_ok("d\xc3\xa9p\xc3\xb4t", &why), "UTF-8 letters are allowed");

	const char *near[4];
	size_t nn = kbx_repo_list_suggest(&l, "apj", near, 4);
	ok(nn >= 1 && !strcmp(near[0], "api"), "the closest name is suggested first");
	nn = kbx_repo_list_suggest(&l, "zzzzzz", near, 4);
	ok(nn == 0, "nothing is suggested for a name far from all");

	size_t before = l.n;
	kbx_repo_list_remove(&l, 0);
	ok(l.n == before - 1 && !kbx_repo_list_find(&l, "api") && kbx_repo_list_find(&l, "work-api"),
	   "remove drops one entry");
	kbx_repo_list_release(&l);
}

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

static void test_file(const char *dir)
{
	char path[4096], bad[4096];
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_repo_list l = KBX_REPO_LIST_INIT;
	snprintf(path, sizeof(path), "%s/cfg/kbx/repos", dir);
	ok(kbx_repos_load(path, &l, &err) == KBX_OK && l.n == 0, "a missing file is an empty list");

	char *name = NULL;
	int added = 0;
	ok(kbx_repos_register(path, "/r/one/.kbx", "/r/one", 1, &name, &added, &err) == KBX_OK &&
		   added && name && !strcmp(name, "one"),
	   "register creates the directory and the file");
	free(name);
	ok(kbx_repos_register(path, "/s/one/.kbx", "/s/one", 1, &name, &added, &err) == KBX_OK &&
		   added && !strcmp(name, "s-one"),
	   "a second store of the same name is told apart");
	free(name);
	ok(kbx_repos_register(path, "/r/one/.kbx", "/r/one", 1, &name, &added, &err) == KBX_OK &&
		   !added && !strcmp(name, "one"),
	   "registering again adds nothing");
	free(name);

	struct kbx_repos_edit e = KBX_REPOS_EDIT_INIT;
	ok(kbx_repos_edit_begin(&e, path, &err) == KBX_OK && e.list.n == 2, "an edit reads the list");
	free(e.list.items[1].name);
	e.list.items[1].name = strdup("second");
	ok(kbx_repos_edit_commit(&e, &err) == KBX_OK, "an edit commits");
	kbx_repos_edit_end(&e);
	ok(kbx_repos_load(path, &l, &err) == KBX_OK && l.n == 2 && !strcmp(l.items[0].name, "one") &&
		   !strcmp(l.items[0].kbx_dir, "/r/one/.kbx") && !strcmp(l.items[0].root, "/r/one") &&
		   !strcmp(l.items[1].name, "second"),
	   "the list reads back as written, in order");
	kbx_repo_list_release(&l);

	static const struct {
		const char *text, *msg;
	} cases[] = {
		{ "a\t/x\n", "line 1: it is not three tab-separated fields" },
		{ "# c\n\na\t/x\t/y\t/z\n", "line 3: it is not three tab-separated fields" },
		{ "a\tx\t/y\n", "line 1: the store and the root must be absolute paths" },
		{ "-a\t/x\t/y\n", "line 1: the name '-a' starts with" },
		{ "a\t/x\t/y\na\t/z\t/w\n", "line 2: the name is listed twice" },
		{ "a\t/x\t/y\nb\t/x\t/w\n", "line 2: the store is listed twice" },
	};
	snprintf(bad, sizeof(bad), "%s/bad-repos", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char desc[200];
		struct kbx_error e3 = KBX_ERROR_INIT;
		snprintf(desc, sizeof(desc), "a bad file is an error naming the line: %s", cases[i].msg);
		ok(write_file(bad, cases[i].text) == 0 &&
			   kbx_repos_load(bad, &l, &e3) == KBX_ERR_PARSE && strstr(e3.msg, cases[i].msg) &&
			   strstr(e3.msg, bad),
		   desc);
		kbx_repo_list_release(&l);
	}
}

/* fusion: lists of string keys, NULL for none */
struct lists {
	const char *const *keys[3];
	const double *scores[3];
};

static const char *key_of(void *data, size_t list, size_t item)
{
	struct lists *d = data;
	return d->keys[list][item];
}

static double tie_of(void *data, size_t list, size_t item)
{
	struct lists *d = data;
	return d->scores[list] ? d->scores[list][item] : 0;
}

static void test_fuse(void)
{
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_repos_fused *f = NULL;
	size_t n = 0;
	static const char *const a[] = { "a1", "a2", "shared" };
	static const char *const b[] = { "b1", "shared", "b3" };
	static const char *const c[] = { NULL, NULL };
	static const double as[] = { 0.01, 0.009, 0.008 };
	static const double bs[] = { 0.03, 0.02, 0.001 };
	static const double cs[] = { 0.02, 0.01 };
	struct lists d = { { a, b, c }, { as, bs, cs } };
	size_t counts[] = { 3, 3, 2 };
	ok(kbx_repos_fuse(3, counts, 60, key_of, tie_of, &d, &f, &n, &err) == KBX_OK && n == 7,
	   "eight results with one key twice fuse to seven");
	ok(f && f[0].list == 1 && f[0].item == 0 && f[1].list == 2 && f[1].item == 0 &&
		   f[2].list == 0 && f[2].item == 0,
	   "the rank-1 results first, ties by their own score (0.03, 0.02, 0.01)");
	ok(n == 7 && f[3].list == 1 && f[3].item == 1 && f[3].nlists == 2 &&
		   fabs(f[3].score - 1.0 / 62) < 1e-12,
	   "a key in two lists (ranks 3 and 2) counts once: its best rank alone, 1/(60+2), not the sum");
	ok(n == 7 && f[4].list == 2 && f[4].item == 1 && f[5].list == 0 && f[5].item == 1 &&
		   f[4].score == f[3].score && f[5].score == f[3].score,
	   "so it ties with the other rank-2 results and goes first by its own score (0.02, 0.01, 0.009)");
	size_t single = 0;
	for (size_t i = 0; i < n; i++)
		single += f[i].nlists == 1;
	ok(single == n - 1, "every other result is in one list");
	ok(f[n - 1].list == 1 && f[n - 1].item == 2, "the worst rank with the lowest own score is last");
	free(f);

	ok(kbx_repos_fuse(3, counts, 0, NULL, NULL, &d, &f, &n, &err) == KBX_OK && n == 8 &&
		   f[0].list == 0 && f[1].list == 1 && f[2].list == 2 && f[3].list == 0 &&
		   fabs(f[0].score - 1.0 / 61) < 1e-12,
	   "without keys or ties: round robin by rank, earlier list first, k 60 by default");
	free(f);
	size_t zero[] = { 0, 0 };
	ok(kbx_repos_fuse(2, zero, 60, NULL, NULL, NULL, &f, &n, &err) == KBX_OK && n == 0 && !f,
	   "empty lists fuse to nothing");
}

/* Write text to dir/rel, making the directories. */
static void put(const char *dir, const char *rel, const char *text)
{
	char path[4096], cmd[4500];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd) != 0)
		return;
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void test_remote(const char *dir)
{
	static const struct {
		const char *config;
		int want;
		const char *desc;
	} cases[] = {
		{ "[core]\n\tbare = false\n", 0, "no remote" },
		{ "[remote \"origin\"]\n\turl = https://example.org/ann/api.git\n", 1, "an https remote" },
		{ "[remote \"origin\"]\n\turl = git@example.org:ann/api.git\n", 1, "an scp-style remote" },
		{ "[Remote \"up\"]\n  URL=ssh://git@example.org/api\n", 1, "key and section in any case" },
		{ "[remote \"origin\"]\n\turl = /home/ann/src/api\n", 0, "a clone of a local directory" },
		{ "[remote \"origin\"]\n\turl = ../api\n", 0, "a relative path" },
		{ "[remote \"origin\"]\n\turl = file:///home/ann/api\n", 0, "file://" },
		{ "[branch \"main\"]\n\turl = https://example.org/x\n", 0, "a url outside a remote section" },
		{ "[remote \"a\"]\n\turl = /tmp/a\n[remote \"b\"]\n\turl = \"https://example.org/b\"\n", 1,
		  "one remote elsewhere among local ones (quoted)" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char root[4096], rel[64], url[256];
		snprintf(rel, sizeof(rel), "remote%zu/.git/config", i);
		put(dir, rel, cases[i].config);
		snprintf(root, sizeof(root), "%s/remote%zu", dir, i);
		ok(kbx_repo_has_remote(root, url, sizeof(url)) == cases[i].want &&
			   (!cases[i].want || strstr(url, "example.org")),
		   cases[i].desc);
	}
	char root[4096];
	/* a directory inside a repository: the .git above it */
	put(dir, "remote1/src/deep/x.py", "x = 1\n");
	snprintf(root, sizeof(root), "%s/remote1/src/deep", dir);
	ok(kbx_repo_has_remote(root, NULL, 0) == 1, "a directory below the repository's root");
	/* a worktree: .git is a file, the config is the common directory's */
	put(dir, "main/.git/config", "[remote \"origin\"]\n\turl = https://example.org/m\n");
	put(dir, "main/.git/worktrees/wt/commondir", "../..\n");
	char text[4200];
	snprintf(text, sizeof(text), "gitdir: %s/main/.git/worktrees/wt\n", dir);
	put(dir, "wt/.git", text);
	snprintf(root, sizeof(root), "%s/wt", dir);
	ok(kbx_repo_has_remote(root, NULL, 0) == 1, "a worktree reads its common directory's config");
	snprintf(root, sizeof(root), "%s/nowhere", dir);
	ok(kbx_repo_has_remote(root, NULL, 0) == 0, "no git repository: no remote");
}

static void test_prune(const char *dir)
{
	char path[4096], live[4096], store[4200];
	struct kbx_error err = KBX_ERROR_INIT;
	snprintf(path, sizeof(path), "%s/prune/repos", dir);
	snprintf(live, sizeof(live), "%s/prune/live", dir);
	snprintf(store, sizeof(store), "%s/.kbx", live);
	put(dir, "prune/live/.kbx/x", "");
	put(dir, "prune/noindex/x", "");
	char noindex[4096], noindex_store[4200];
	snprintf(noindex, sizeof(noindex), "%s/prune/noindex", dir);
	snprintf(noindex_store, sizeof(noindex_store), "%s/.kbx", noindex);
	int added;
	ok(kbx_repos_register(path, store, live, 1, NULL, &added, &err) == KBX_OK && added &&
		   kbx_repos_register(path, "/gone/a/.kbx", "/gone/a", 1, NULL, &added, &err) == KBX_OK &&
		   kbx_repos_register(path, noindex_store, noindex, 1, NULL, &added, &err) == KBX_OK,
	   "three repositories listed: one there, one gone, one without its index");
	char *name = NULL;
	ok(kbx_repos_register(path, "/other/b/.kbx", "/other/b", 0, &name, &added, &err) == KBX_OK &&
		   !added && !name,
	   "without may_add a store that is not listed stays out");
	ok(kbx_repos_register(path, store, live, 0, &name, &added, &err) == KBX_OK && !added && name &&
		   !strcmp(name, "live"),
	   "without may_add a listed store keeps its entry");
	free(name);

	struct kbx_repo_list dropped = KBX_REPO_LIST_INIT, l = KBX_REPO_LIST_INIT;
	ok(kbx_repos_prune(path, kbx_repo_gone, 1, &dropped, &err) == KBX_OK && dropped.n == 1 &&
		   !strcmp(dropped.items[0].name, "a") && kbx_repos_load(path, &l, &err) == KBX_OK &&
		   l.n == 3,
	   "a dry run names what is gone and drops nothing");
	kbx_repo_list_release(&dropped);
	kbx_repo_list_release(&l);
	ok(kbx_repos_prune(path, kbx_repo_gone, 0, &dropped, &err) == KBX_OK && dropped.n == 1 &&
		   kbx_repos_load(path, &l, &err) == KBX_OK && l.n == 2 &&
		   !strcmp(l.items[0].name, "live") && !strcmp(l.items[1].name, "noindex"),
	   "gone: root and store both missing; a repository without its index stays");
	kbx_repo_list_release(&dropped);
	kbx_repo_list_release(&l);
	ok(kbx_repos_prune(path, kbx_repo_store_gone, 0, &dropped, &err) == KBX_OK && dropped.n == 1 &&
		   !strcmp(dropped.items[0].name, "noindex") && kbx_repos_load(path, &l, &err) == KBX_OK &&
		   l.n == 1,
	   "store gone: what kbx repos prune drops");
	kbx_repo_list_release(&dropped);
	kbx_repo_list_release(&l);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: repos-lib SCRATCH-DIR\n");
		return 2;
	}
	test_names();
	test_file(argv[1]);
	test_fuse();
	test_remote(argv[1]);
	test_prune(argv[1]);
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
