/*
 * Structure rules: a rules file (YAML, described in kbx-rules(7)) says
 * what the code graph must look like, and kbx_rules_check() says where it
 * does not.  Part of the quiet library: nothing here prints; problems
 * with a rules file and violations of its rules come back as data for
 * the caller to show.
 *
 *   struct kbx_rules_problems problems = KBX_RULES_PROBLEMS_INIT;
 *   struct kbx_rules *rules;
 *   if (kbx_rules_parse(text, len, &rules, &problems, &err) == KBX_ERR_PARSE)
 *           ... show every problem, each with its line and column ...
 *   struct kbx_check_result res = KBX_CHECK_RESULT_INIT;
 *   kbx_rules_check(store, rules, 0, &res, &err);
 *   ... res.items[0 .. res.n) ...
 *   kbx_check_result_release(&res);
 *   kbx_rules_free(rules);
 */
#ifndef KBX_RULES_H
#define KBX_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"

/* The version of the rules file format this library reads. */
#define KBX_RULES_VERSION 1

/* The kinds of check a rule makes. */
enum kbx_rule_check {
	KBX_CHECK_FORBID = 1,         /* no edge from one set of paths to another */
	KBX_CHECK_NO_CYCLES = 2,      /* no cycle of edges within a set of paths */
	KBX_CHECK_LIMIT = 3,          /* at most so many callers or callees */
	KBX_CHECK_MUST_BE_CALLED = 4  /* at least one caller */
};
/* "forbid", "no-cycles", "limit", "must-be-called": the key in the file. */
const char *kbx_rule_check_str(int check);

/* How bad a violation is. */
enum kbx_level {
	KBX_LEVEL_WARNING = 1,  /* reported; the check still passes */
	KBX_LEVEL_ERROR = 2     /* the check fails */
};
const char *kbx_level_str(int level);  /* "warning", "error" */

/* ---- globs ---- */

/*
 * Does path (path_len bytes, not necessarily NUL-terminated) match the
 * glob pattern?  Paths are relative to the repository root, with '/'
 * between components, and the whole path must match.  In a pattern,
 * '*' matches any run of characters other than '/', '?' any one
 * character other than '/', "[abc]", "[a-z]" and "[!a-z]" one character
 * in (or not in) a set, and '\' makes the next character literal.  A
 * component that is exactly "**" matches any number of components, none
 * included, and a pattern that ends in '/' matches everything under that
 * directory: "lib/" is the same as "lib/" followed by "**".
 */
int kbx_glob_match(const char *pattern, const char *path, size_t path_len);

/* NULL when pattern is a valid glob; else a message that says what is
 * wrong with it, for "bad glob '...': <message>" (static storage). */
const char *kbx_glob_check(const char *pattern);

/* ---- the rules file ---- */

struct kbx_rules;

/* One thing wrong with a rules file. */
struct kbx_rules_problem {
	uint32_t line, col;     /* 1-based; col counts characters */
	char *msg;              /* what is wrong and what to do; owned by the list */
};
struct kbx_rules_problems {
	struct kbx_rules_problem *items;
	size_t n, alloc;
};
#define KBX_RULES_PROBLEMS_INIT { NULL, 0, 0 }
void kbx_rules_problems_release(struct kbx_rules_problems *p);

/*
 * Parse and validate the text of a rules file (len bytes).  On success
 * *out is the rules (free with kbx_rules_free).  When the file does not
 * validate, every problem found is appended to problems, in the order of
 * the file, and the result is KBX_ERR_PARSE (err says how many); other
 * failures are KBX_ERR_NOMEM.
 */
kbx_status_t kbx_rules_parse(const char *text, size_t len, struct kbx_rules **out,
			     struct kbx_rules_problems *problems, struct kbx_error *err);
void kbx_rules_free(struct kbx_rules *rules);

/* What a rule is, for reports.  The strings belong to the rules. */
struct kbx_rule_info {
	const char *id;
	int check;                /* enum kbx_rule_check */
	const char *description;  /* as written, or NULL */
	const char *summary;      /* what the rule requires, generated:
				   * "nothing in lib/ calls or imports cmd/" */
	int severity;             /* KBX_LEVEL_ERROR unless the rule says warning */
	uint32_t line, col;       /* where the rule starts in the file */
};
size_t kbx_rules_count(const struct kbx_rules *rules);
void kbx_rules_info(const struct kbx_rules *rules, size_t i, struct kbx_rule_info *out);

/* ---- checking ---- */

/* One step of a cycle: a node and the site of its edge to the next node
 * of the cycle (the last step's edge leads back to the first). */
struct kbx_cycle_step {
	struct kbx_node node;
	uint32_t line, col;       /* 0 when the edge records no site */
	int certain;              /* 0 when that edge is ambiguous */
};

/* One place where the graph breaks a rule. */
struct kbx_violation {
	size_t rule;              /* index of the rule (kbx_rules_info) */
	int level;                /* enum kbx_level */
	int confidence;           /* KBX_CONF_CERTAIN, or KBX_CONF_AMBIGUOUS when
				   * it rests on edges kbx could not pin down */
	char *message;            /* one line, naming the nodes by canonical id */
	/* where to point the user: the call or import site, or the
	 * definition; path is NULL when there is no file to point at */
	const char *path;
	size_t path_len;
	uint32_t line, col;
	/* forbid: the offending edge; no-cycles: the first edge of the cycle */
	int edge;                 /* enum kbx_edge_kind, 0 for none */
	int has_edge;
	struct kbx_node from, to;
	uint32_t candidates;      /* an ambiguous edge: how many definitions the
				   * call could mean; else 1 */
	/* limit, must-be-called: the function */
	int has_symbol;
	struct kbx_node symbol;
	/* limit: KBX_DIR_IN for callers, KBX_DIR_OUT for callees, else -1 */
	int measure;
	uint64_t count;           /* certain callers or callees */
	uint64_t possible;        /* with the ambiguous ones too */
	uint64_t max;             /* the limit */
	/* no-cycles: one shortest cycle, and how many nodes reach each other */
	struct kbx_cycle_step *cycle;
	size_t ncycle;
	size_t component;
};

struct kbx_rule_result {
	size_t errors, warnings;
	/* how much the rule looked at, to tell a rule whose globs match
	 * nothing from one that holds: forbid, edges leaving its from set;
	 * no-cycles, nodes in its set with an edge of its kinds; limit and
	 * must-be-called, functions and methods in its set */
	uint64_t examined;
};

struct kbx_check_result {
	struct kbx_violation *items;   /* by rule, then path, line, column */
	size_t n, alloc;
	struct kbx_rule_result *rules; /* one per rule */
	size_t nrules;
	size_t errors, warnings;
};
#define KBX_CHECK_RESULT_INIT { NULL, 0, 0, NULL, 0, 0, 0 }

/* Flags of kbx_rules_check. */
#define KBX_CHECK_STRICT 0x01  /* violations that rest on ambiguous edges take
				* the rule's severity instead of warning */

/*
 * Check every rule against the index.  A violation that the index proves
 * takes the rule's severity; one that rests only on ambiguous edges is a
 * warning (unless KBX_CHECK_STRICT).  Node views in the result point into
 * the store: release the result before closing it.
 */
kbx_status_t kbx_rules_check(kbx_store_t *store, const struct kbx_rules *rules, int flags,
			     struct kbx_check_result *out, struct kbx_error *err);
void kbx_check_result_release(struct kbx_check_result *res);

#endif
