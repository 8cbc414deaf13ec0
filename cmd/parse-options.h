/*
 * Declarative option tables.  A command lists its options once; the same
 * table parses argv, prints -h, and answers --list-opts for the shell
 * completions and the man-page synopsis check, so none of them can drift.
 */
#ifndef KBX_PARSE_OPTIONS_H
#define KBX_PARSE_OPTIONS_H

#include <stdint.h>

enum opt_type {
	OPT_END = 0,
	OPT_BOOL,       /* --flag / --no-flag: int, set to 1 or 0 */
	OPT_COUNT,      /* -v -v: int, incremented */
	OPT_STRING,     /* --name=VALUE: const char * */
	OPT_INT,        /* --name=N: long, decimal */
	OPT_SIZE,       /* --name=N[k|m|g]: uint64_t bytes */
	OPT_KEYWORD,    /* --name=one|two: int index into keywords */
	OPT_STRING_LIST /* repeatable --name=VALUE: struct opt_list */
};

#define OPT_HIDDEN 0x01    /* not shown in -h */
#define OPT_NONEG  0x02    /* no --no- form */

struct opt_list {
	const char **items;     /* malloc()ed; the strings are argv's */
	int n;
};
#define OPT_LIST_INIT { NULL, 0 }

struct option {
	enum opt_type type;
	int short_name;
	const char *long_name;
	void *value;
	const char *argh;               /* "N", "PATH": shown in -h */
	const char *help;
	const char *const *keywords;    /* OPT_KEYWORD: NULL-terminated */
	int flags;
	/* where a keyword's or string's values come from, for completion:
	 * "symbol", "path", "command" (free text otherwise) */
	const char *complete;
};

#define OPT_BOOL_F(s, l, v, h) { OPT_BOOL, (s), (l), (v), NULL, (h), NULL, 0, NULL }
#define OPT_COUNT_F(s, l, v, h) { OPT_COUNT, (s), (l), (v), NULL, (h), NULL, OPT_NONEG, NULL }
#define OPT_STRING_F(s, l, v, a, h) { OPT_STRING, (s), (l), (v), (a), (h), NULL, 0, NULL }
#define OPT_INT_F(s, l, v, a, h) { OPT_INT, (s), (l), (v), (a), (h), NULL, 0, NULL }
#define OPT_SIZE_F(s, l, v, a, h) { OPT_SIZE, (s), (l), (v), (a), (h), NULL, 0, NULL }
#define OPT_KEYWORD_F(s, l, v, k, a, h) { OPT_KEYWORD, (s), (l), (v), (a), (h), (k), 0, NULL }
#define OPT_STRING_LIST_F(s, l, v, a, h) { OPT_STRING_LIST, (s), (l), (v), (a), (h), NULL, 0, NULL }
#define OPT_END_F() { OPT_END, 0, NULL, NULL, NULL, NULL, NULL, 0, NULL }

/* --repo=NAME, which every command that reads an index takes: the
 * dispatcher acts on it before the command runs (cmd/kbx.c,
 * repos-util.h); the table lists it so that -h, --list-opts and the
 * man pages show it, and its value lands in opt_repo_seen, unused. */
extern const char *opt_repo_seen;
#define OPT_REPO_F() \
	{ OPT_STRING, 0, "repo", &opt_repo_seen, "NAME", \
	  "run against the repository NAME of 'kbx repos', or a directory", NULL, OPT_NONEG, "repo" }

/* --certain, the same for every command that follows or counts edges
 * (path, cycles, callers, callees, impact, dead, hybrid): the library
 * says what it keeps (KBX_WALK_CERTAIN in kbx.h). */
#define OPT_CERTAIN_F(v) \
	OPT_BOOL_F(0, "certain", (v), \
		   "only certain edges: leave out the calls and imports kbx could not pin down")

/* --all-repos of the commands that kbx --db runs over the database
 * (db-graph.h); without --db they say it needs one. */
#define OPT_ALL_REPOS_DB_F(v) \
	OPT_BOOL_F(0, "all-repos", (v), \
		   "with kbx --db: ask every repository of the database")

/* The output options every query command takes (see output.h), and
 * --repo. */
struct output_opts;
#define OPT_OUTPUT_COMMON(o) \
	OPT_KEYWORD_F(0, "format", &(o)->format, output_format_names, "FORMAT", \
		      "output format: text, json (JSON Lines), grep (path:line:col: text), nul; dot or mermaid (a picture) for commands that print edges"), \
	OPT_INT_F(0, "format-version", &(o)->format_version, "N", \
		  "version of the machine formats to print (default: the newest)"), \
	OPT_BOOL_F('z', NULL, &(o)->nul, "print ids separated by NUL bytes (like --format=nul)"), \
	OPT_KEYWORD_F(0, "color", &(o)->color, output_color_names, "WHEN", \
		      "colour the text output: auto, always or never"), \
	OPT_REPO_F()

/* Parse argv[1..]; options may follow operands unless "--" ends them.
 * Returns the number of operands left in argv[0..] (argv[0] is dropped),
 * or -1 after printing an error (the caller exits 2).  -h prints usage
 * to stdout and exits 0; --list-opts prints the table and exits 0. */
int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage);
void usage_with_options(const char *const *usage, const struct option *opts, int to_stderr);
/* For completions: one line per option: "--long=", "--flag", "-z". */
void list_options(const struct option *opts);

#endif
