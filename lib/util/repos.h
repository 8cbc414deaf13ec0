/*
 * The repositories kbx knows: a list of stores in the user's config
 * directory, so that a query can name another repository (kbx --repo) or
 * all of them (kbx search --all-repos).
 *
 *   $XDG_CONFIG_HOME/kbx/repos, or ~/.config/kbx/repos
 *
 * One store a line, three fields separated by tabs:
 *
 *   # kbx repositories: name, store directory, repository root
 *   kbx	/home/ann/src/kbx/.kbx	/home/ann/src/kbx
 *
 * Blank lines and lines starting with '#' are ignored (and dropped when
 * the file is written again).  Paths are absolute and hold no tab or line
 * break.  A store is listed once; so is a name.
 *
 * Changes are made under a lock (flock on repos.lock beside the file,
 * which stays) and written to repos.tmp, then renamed over the file: a
 * reader sees the old list or the new one, and two writers take turns,
 * so that two 'kbx index' runs do not lose each other's entry.
 *
 * Part of the quiet library: nothing here prints or exits.
 */
#ifndef KBX_REPOS_H
#define KBX_REPOS_H

#include <stddef.h>

#include "kbx.h"

struct kbx_repo {
	char *name;
	char *kbx_dir;          /* the store directory, absolute */
	char *root;             /* the repository root, absolute */
};

struct kbx_repo_list {
	struct kbx_repo *items;
	size_t n, alloc;
};
#define KBX_REPO_LIST_INIT { NULL, 0, 0 }
void kbx_repo_list_release(struct kbx_repo_list *l);

/* The list file: $XDG_CONFIG_HOME/kbx/repos when XDG_CONFIG_HOME is an
 * absolute path, else $HOME/.config/kbx/repos (the directory of the
 * user's settings file).  KBX_NOT_FOUND when neither variable helps.
 * *out is malloc()ed; the caller frees it. */
kbx_status_t kbx_repos_path(char **out, struct kbx_error *err);

/* Read the list at path into out (appended; release it).  A file that
 * does not exist is an empty list.  A line that does not parse is
 * KBX_ERR_PARSE naming the file and the line. */
kbx_status_t kbx_repos_load(const char *path, struct kbx_repo_list *out, struct kbx_error *err);

/* The user's list (kbx_repos_path, then kbx_repos_load): no list file,
 * or no place for one, is an empty list and KBX_OK. */
kbx_status_t kbx_repos_read(struct kbx_repo_list *out, struct kbx_error *err);

/* The entry called name, or whose store directory is kbx_dir; NULL if
 * none. */
struct kbx_repo *kbx_repo_list_find(const struct kbx_repo_list *l, const char *name);
struct kbx_repo *kbx_repo_list_find_dir(const struct kbx_repo_list *l, const char *kbx_dir);

/* Up to max names of l close to name (edit distance, or a prefix), for
 * "did you mean"; returns how many were put in out (pointers into l). */
size_t kbx_repo_list_suggest(const struct kbx_repo_list *l, const char *name, const char **out,
			     size_t max);

/* Is name usable as a repository's name?  1 or 0; *why says what is wrong
 * ("is empty", ...).  A name is at most 64 bytes of letters, digits,
 * '.', '_', '-', '+', '@' or bytes above 127 (UTF-8), not starting with
 * '.' or '-'. */
int kbx_repo_name_ok(const char *name, const char **why);

/*
 * Add the store kbx_dir of the repository root to l (both absolute).
 * A store already listed keeps its name (its root is brought up to
 * date): *index is its entry and *added 0.  Otherwise it gets name, or
 * when name is NULL one made from the root: its last component, else
 * "<parent>-<last>" when that is taken, else "<last>-2", "-3", ...; a
 * name never points at another store.  KBX_ERR_USAGE for a name given
 * that is taken or not usable, or a store listed under another name
 * than the one given.
 */
kbx_status_t kbx_repo_list_add(struct kbx_repo_list *l, const char *kbx_dir, const char *root,
			       const char *name, size_t *index, int *added, struct kbx_error *err);
/* Remove entry i, freeing it. */
void kbx_repo_list_remove(struct kbx_repo_list *l, size_t i);

/* A change to the file: lock it and read it, change the list, then
 * commit (write and unlock) or abort (unlock).  The lock is waited for
 * up to ten seconds, then KBX_ERR_BUSY.  The directory is created when
 * missing. */
struct kbx_repos_edit {
	struct kbx_repo_list list;
	char *path;
	int lock_fd;
};
#define KBX_REPOS_EDIT_INIT { KBX_REPO_LIST_INIT, NULL, -1 }
kbx_status_t kbx_repos_edit_begin(struct kbx_repos_edit *e, const char *path,
				  struct kbx_error *err);
kbx_status_t kbx_repos_edit_commit(struct kbx_repos_edit *e, struct kbx_error *err);
/* Unlock without writing and free everything; also after a commit. */
void kbx_repos_edit_end(struct kbx_repos_edit *e);

/*
 * Register a store in the list at path, as 'kbx index' does: nothing is
 * written when it is listed already (with that root).  A store that is
 * not listed is added only when may_add is set; otherwise nothing is
 * written and *name_out is NULL.  *name_out (when not NULL) gets its
 * name, malloc()ed; *added says whether it is new.
 */
kbx_status_t kbx_repos_register(const char *path, const char *kbx_dir, const char *root,
				int may_add, char **name_out, int *added, struct kbx_error *err);

/*
 * Has the git repository holding root (root or a directory above it) a
 * remote on another machine: a URL with a host (https://, ssh://,
 * git://, host:path)?  1 or 0; 0 too when there is no git repository,
 * when its remotes are paths on this machine (a clone of a local
 * directory, file://), or when its config cannot be read.  Reads the
 * config file (.git/config, or the one a .git file names, at most
 * 1 MiB, regular files only); runs no git.  *url (when not NULL) gets
 * the first such URL, up to n bytes with its NUL.
 */
int kbx_repo_has_remote(const char *root, char *url, size_t n);

/*
 * Is the entry gone: its root and its store directory both missing
 * (ENOENT), as when the repository was deleted?  A directory that
 * cannot be looked at for another reason (EACCES, EIO) is not gone.
 */
int kbx_repo_gone(const struct kbx_repo *r);
/* Is its store directory missing (ENOENT)?  What 'kbx repos prune'
 * drops: the repository may be there, its index is not. */
int kbx_repo_store_gone(const struct kbx_repo *r);

/*
 * Drop from the list at path, under its lock, every entry for which
 * gone(entry) is true; the entries dropped are appended to dropped
 * (release it).  With dry_run nothing is written.  A list that does not
 * exist is left so.  The other entries keep their order and names.
 */
kbx_status_t kbx_repos_prune(const char *path, int (*gone)(const struct kbx_repo *),
			     int dry_run, struct kbx_repo_list *dropped, struct kbx_error *err);

#endif
