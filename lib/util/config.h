/*
 * kbx's settings: the keys kbx knows, and the two files that set them.
 *
 *   user        $XDG_CONFIG_HOME/kbx/config, or ~/.config/kbx/config
 *   repository  .kbx/config in the index directory
 *
 * and the command line (kbx -c key=value).  The command line wins over
 * the repository file, which wins over the user file, which wins over
 * the key's default.  kbx-settings(7) is the user's side of this.
 *
 * The repository file is untrusted input, like the rest of a checkout
 * (kbx-security(7)): a key that runs a program, names a network address
 * or a credential, or says what kbx trusts is never taken from it.  Such
 * a line is not an error (the rest of the file applies); it is left out
 * and recorded, and the caller warns about it.  The repository file is
 * not read through a symbolic link, nor in a store directory that is one.
 *
 * The file format, one setting a line:
 *
 *   # a comment, on a line of its own
 *   index.maxFileSize = 2m
 *   core.pager = "less -R"
 *
 * Blank lines and lines whose first non-blank character is '#' are
 * ignored.  A key is section.name, matched without regard to case.  The
 * value runs to the end of the line, blanks around it dropped; in double
 * quotes it keeps its blanks, with \" and \\ for a quote and a backslash.
 * When a file sets a key twice, the later line wins.  Every line is
 * checked when the file is read: an unknown key, a value of the wrong
 * type or anything else is an error naming the file and the line.
 *
 * Part of the quiet library: nothing here prints or exits.  Reading the
 * environment (XDG_CONFIG_HOME, HOME) and the files is all it does.
 */
#ifndef KBX_CONFIG_H
#define KBX_CONFIG_H

#include <stdint.h>

#include "kbx.h"

enum kbx_config_type {
	KBX_CONFIG_BOOL = 1,        /* true/false, yes/no, on/off, 1/0 */
	KBX_CONFIG_INT,             /* a whole number */
	KBX_CONFIG_SIZE,            /* bytes: N, Nk, Nm, Ng (powers of 1024) */
	KBX_CONFIG_MILLISECONDS,    /* N (milliseconds), Nms or Ns */
	KBX_CONFIG_KEYWORD,         /* one of a fixed set of words */
	KBX_CONFIG_STRING           /* any text on one line */
};

/* Where a value comes from; a higher scope wins. */
enum kbx_config_scope {
	KBX_CONFIG_DEFAULT = 0,
	KBX_CONFIG_USER = 1,
	KBX_CONFIG_REPO = 2,
	KBX_CONFIG_COMMAND = 3      /* kbx -c key=value */
};

/* Who may set a key: what a key does that a repository must not choose. */
enum kbx_config_reach {
	KBX_CONFIG_ANYWHERE = 0,    /* any file, the repository's too */
	KBX_CONFIG_RUNS_PROGRAM,    /* its value is, or selects, a program to run */
	KBX_CONFIG_NAMES_ADDRESS,   /* a network address kbx connects to */
	KBX_CONFIG_NAMES_CREDENTIAL,/* where a secret is read from */
	KBX_CONFIG_GRANTS_TRUST,    /* what kbx trusts (safe.directory) */
	KBX_CONFIG_USER_LIST        /* what goes into the user's list of repositories
				     * (repos.register): a repository may only
				     * keep itself out */
};

struct kbx_config_key {
	const char *name;               /* "index.maxFileSize", as kbx spells it */
	enum kbx_config_type type;
	const char *default_value;      /* as it would be written in a file */
	const char *const *keywords;    /* KBX_CONFIG_KEYWORD: NULL-terminated */
	int64_t min, max;               /* INT, SIZE, MILLISECONDS: the accepted range */
	const char *summary;            /* one line, for kbx config --list --defaults */
	enum kbx_config_reach reach;    /* not ANYWHERE: the user's alone */
	int repo_default_ok;            /* the repository may still set the default
					 * (search.provider = builtin) */
};

/* Every key kbx knows, ending with an entry whose name is NULL. */
extern const struct kbx_config_key kbx_config_keys[];

/* The key named name (any case), or NULL. */
const struct kbx_config_key *kbx_config_key_find(const char *name);
/* The known key closest to an unknown name, for "did you mean", or NULL
 * when none is close. */
const char *kbx_config_key_suggest(const char *name);
/* "size", "bool", ...: the name of a type, for messages and listings. */
const char *kbx_config_type_str(enum kbx_config_type type);

/* Why a repository's file may not set key to value ("a repository's
 * settings cannot choose a program to run"), or NULL when it may. */
const char *kbx_config_repo_refusal(const struct kbx_config_key *key, const char *value);

/* A failure, and where it is when a file is at fault. */
struct kbx_config_error {
	struct kbx_error err;   /* the status, and a whole message ready to print */
	char path[4096];        /* the file at fault, or "" */
	unsigned line;          /* its line, from 1; 0 for none */
};
#define KBX_CONFIG_ERROR_INIT { KBX_ERROR_INIT, "", 0 }

/* One value, as read. */
struct kbx_config_value {
	const char *text;       /* as written, unquoted (or the default) */
	int64_t number;         /* BOOL: 0 or 1; INT; SIZE: bytes; MILLISECONDS;
				 * KEYWORD: the index into the key's keywords */
	enum kbx_config_scope scope;
	const char *path;       /* the file that set it; NULL for the default */
	unsigned line;
};

/* Check text as a value of key and convert it (into out->number).  On
 * failure KBX_ERR_USAGE, and err's message says what is wrong, without
 * naming a file. */
kbx_status_t kbx_config_parse_value(const struct kbx_config_key *key, const char *text,
				    struct kbx_config_value *out, struct kbx_error *err);

typedef struct kbx_config kbx_config_t;

/* An empty set of settings: every key has its default.  Free with
 * kbx_config_free. */
kbx_status_t kbx_config_new(kbx_config_t **out, struct kbx_config_error *err);
void kbx_config_free(kbx_config_t *cfg);

/* Read the file at path into cfg, as scope.  A file that does not exist
 * sets nothing and is no error.  Any bad line is an error (KBX_ERR_PARSE,
 * or KBX_ERR_IO when the file cannot be read) and err names the file and
 * the line; cfg then holds nothing from that file.  A file larger than
 * 1 MiB, or not a regular file, is an error too.  As KBX_CONFIG_REPO, a
 * symbolic link at path or at the directory holding it is KBX_ERR_UNSAFE,
 * and a line setting a key the repository may not set is left out and
 * recorded (kbx_config_refusals). */
kbx_status_t kbx_config_read_file(kbx_config_t *cfg, const char *path,
				  enum kbx_config_scope scope, struct kbx_config_error *err);

/* The user file: $XDG_CONFIG_HOME/kbx/config when XDG_CONFIG_HOME is an
 * absolute path, else $HOME/.config/kbx/config.  KBX_NOT_FOUND when
 * neither variable helps.  *out is malloc()ed; the caller frees it. */
kbx_status_t kbx_config_user_path(char **out, struct kbx_config_error *err);
/* The repository file: kbx_dir/config.  *out is malloc()ed. */
kbx_status_t kbx_config_repo_path(const char *kbx_dir, char **out, struct kbx_config_error *err);

/* New settings from the user file and, when kbx_dir is not NULL, the
 * repository file of that index directory.  Free with kbx_config_free. */
kbx_status_t kbx_config_load(const char *kbx_dir, kbx_config_t **out,
			     struct kbx_config_error *err);

/* Set key to text in cfg as scope (KBX_CONFIG_COMMAND for kbx -c),
 * checked as a line of a file would be (KBX_ERR_USAGE). */
kbx_status_t kbx_config_set(kbx_config_t *cfg, const char *key, const char *text,
			    enum kbx_config_scope scope, struct kbx_config_error *err);

/* A line of a repository's file that was left out because the key is
 * the user's alone. */
struct kbx_config_refusal {
	const char *key;        /* as kbx spells it */
	const char *path;
	unsigned line;
	const char *reason;     /* kbx_config_repo_refusal's words */
};
/* The lines left out so far; *out stays valid until cfg changes or is
 * freed. */
size_t kbx_config_refusals(const kbx_config_t *cfg, const struct kbx_config_refusal **out);

/* The value of key in cfg: the last line setting it in the file of the
 * highest scope, or its default.  The strings stay valid until cfg is
 * freed.  KBX_ERR_USAGE for a key kbx does not know. */
kbx_status_t kbx_config_get(const kbx_config_t *cfg, const char *key,
			    struct kbx_config_value *out, struct kbx_config_error *err);

/* Set key to value in the file at path, or with value NULL remove every
 * line setting key.  Other lines, comments included, are kept as they
 * are.  The file (and missing directories above it) is created when it
 * does not exist; the new contents are written to path.lock and renamed
 * over path, so that a reader sees the old file or the new one, and two
 * writers cannot lose each other's change (the second gets KBX_ERR_BUSY).
 *
 * The value is checked first (KBX_ERR_USAGE).  An unknown key is
 * KBX_ERR_USAGE when setting; removing one is allowed, so that a file
 * can be cleaned of a key this kbx does not know.  Removing a key the file
 * does not set is KBX_NOT_FOUND.  The rest of the file is not checked.
 *
 * As KBX_CONFIG_REPO, a key the repository may not set is KBX_ERR_USAGE,
 * and a symbolic link at path is KBX_ERR_UNSAFE: a repository's file is
 * never written through a link.  The user's file may be a link (a
 * dotfile kept elsewhere): the file it points to is rewritten. */
kbx_status_t kbx_config_write(const char *path, enum kbx_config_scope scope, const char *key,
			      const char *value, struct kbx_config_error *err);

#endif
