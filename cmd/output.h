/*
 * The one output layer.  Commands describe results here and never print
 * them themselves; --format picks the back end:
 *
 *   text   for people: grouped, coloured only on a terminal (or --color)
 *   json   JSON Lines, one record per line, versioned (doc/schemata in
 *          man/kbx-json.7.md): never coloured, never translated
 *   grep   path:line:col: text, as vim's quickfix and Emacs's grep mode read
 *   nul    canonical ids separated by NUL bytes (also -z)
 *   dot, mermaid   a picture of the edges, printed whole at the end
 *          (picture.h), for the commands that set output_opts.pictures
 *
 * The machine formats' version is OUTPUT_FORMAT_VERSION; --format-version
 * asks for an older one.  Adding a field keeps the version; removing or
 * changing one raises it.
 */
#ifndef KBX_OUTPUT_H
#define KBX_OUTPUT_H

#include <stdint.h>

#include "kbx.h"

#define OUTPUT_FORMAT_VERSION 2
#define OUTPUT_FORMAT_VERSION_MIN 1

enum output_format { FMT_TEXT, FMT_JSON, FMT_GREP, FMT_NUL, FMT_DOT, FMT_MERMAID };
enum output_color { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

extern const char *const output_format_names[];
extern const char *const output_color_names[];

struct output_opts {
	int format;
	long format_version;     /* -1 when not given: the newest */
	int nul;
	int color;               /* -1 when not given: output_color_default */
	int pictures;            /* the command draws edges: dot and mermaid allowed */
};
#define OUTPUT_OPTS_INIT { FMT_TEXT, -1, 0, -1, 0 }

/* The colour when --color is not given: the color.ui setting, which the
 * dispatcher reads. */
extern int output_color_default;

struct out;

/* Check the options and start printing to stdout.  Text for a terminal
 * goes through the pager when the dispatcher allowed one (pager.h).
 * Returns NULL after printing an error (bad --format-version). */
struct out *out_new(const struct output_opts *opts);
/* The checks of out_new() alone, nothing started: for a command that
 * works before it prints, to refuse a bad --format or --format-version
 * before the work.  0, or -1 after printing an error. */
int out_check(const struct output_opts *opts);
/* Flush stdout and free o.  Returns 0, or -1 when writing failed (a full
 * disk, a closed pipe other than a reader that went away). */
int out_finish(struct out *o);
int out_format(const struct out *o);
/* --format=dot or mermaid: a picture is drawn (picture.h) and printed by
 * out_finish().  out_edge() and out_candidate() add to it; commands whose
 * results are not edges add theirs with out_picture_node() and
 * out_picture_edge() (start: a node the question named; confidence:
 * KBX_CONF_*; label: NULL or a few words on the edge), and may name it
 * with out_picture_title() (else "callers of ID" from the first
 * out_edge()). */
int out_is_picture(const struct out *o);
void out_picture_node(struct out *o, const struct kbx_node *n, int start);
void out_picture_edge(struct out *o, const struct kbx_node *from, const struct kbx_node *to,
		      int confidence, const char *label);
/* The same for nodes of several repositories (kbx --db --all-repos):
 * repo is the repository's index, name its name, drawn with the node;
 * name NULL is the one repository. */
void out_picture_node_in(struct out *o, uint32_t repo, const char *name, const struct kbx_node *n,
			 int start);
void out_picture_edge_in(struct out *o, uint32_t from_repo, const char *from_name,
			 const struct kbx_node *from, uint32_t to_repo, const char *to_name,
			 const struct kbx_node *to, int confidence, const char *label);
void out_picture_title(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The machine formats' version being printed (--format-version). */
int out_version(const struct out *o);

/*
 * Text from the repository (names, paths, headings, code; a message that
 * quotes them) is untrusted: print it escaped (quote.h), with its control
 * characters shown as \t, \n, \033..., and valid UTF-8 as it is.
 * out_esc returns s itself when nothing needs escaping, else one of
 * OUT_ESC_SLOTS buffers used in turn, as git's oid_to_hex does: valid
 * until that many more calls of out_esc, out_escn or out_grep_path,
 * enough for the arguments of one printf.  out_escn takes len bytes that
 * need not end in NUL (a node's path).  Messages on standard error
 * escape their values, or a library message as a whole, the same way.
 */
#define OUT_ESC_SLOTS 8
const char *out_esc(const char *s);
const char *out_escn(const char *s, size_t len);
/* The path of a grep line: root (when not NULL) and '/' before path,
 * then as it is when ordinary, else in double quotes with C escapes
 * (strbuf_add_quoted_path), so that one result stays one line that
 * starts "path:line:col:".  From the same buffers as out_esc. */
const char *out_grep_path(const char *root, const char *path, size_t len);

/* out_heading, out_note and out_line escape what they print too, but
 * keep tabs and newlines, which their formats use: a value that may hold
 * one goes through out_esc. */

/* A heading over a group of results (text only). */
void out_heading(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An explanatory line under the results (text only). */
void out_note(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One edge found by asking about `query` in direction dir (KBX_DIR_IN:
 * the result is e->from; KBX_DIR_OUT: e->to).  type names the record:
 * "caller", "callee", "import", "importer", "subclass", ...  folded is
 * how many other candidates of the same ambiguous call get no line of
 * their own (text only: "(+N more; -v lists them)"); 0 otherwise. */
void out_edge(struct out *o, const char *type, const struct kbx_node *query,
	      const struct kbx_edge *e, int dir, unsigned folded);
/* Under the text line of an ambiguous edge e (out_edge), another
 * definition the same call could mean: "or NAME  path:line".  Nothing in
 * the other formats, which have a record or a line for every edge. */
void out_candidate(struct out *o, const struct kbx_edge *e, const struct kbx_node *cand);
/* One definition. */
void out_def(struct out *o, const char *type, const struct kbx_node *n);

/* Generic records, for results that are not nodes or edges. */
void out_record_begin(struct out *o, const char *type);
void out_field_str(struct out *o, const char *key, const char *val);
void out_field_int(struct out *o, const char *key, int64_t val);
void out_record_end(struct out *o);

/*
 * Nested JSON: arrays and objects inside a record (key names the field),
 * or a whole document for the formats that are one JSON value rather
 * than JSON Lines (SARIF: begin with key NULL; the end of the outermost
 * value ends the line).  Inside an array, key is ignored (pass NULL).
 * These write JSON whatever the format: call them only for JSON output.
 * At most OUT_JSON_MAX_DEPTH levels.
 */
#define OUT_JSON_MAX_DEPTH 16
void out_json_begin(struct out *o, const char *key, int array);
void out_json_end(struct out *o);
void out_json_str(struct out *o, const char *key, const char *val);  /* val NULL: null */
void out_json_int(struct out *o, const char *key, int64_t val);
void out_json_bool(struct out *o, const char *key, int val);
void out_json_num(struct out *o, const char *key, double val);
void out_field_num(struct out *o, const char *key, double val);
/* A string of len bytes, not NUL-terminated (a node's path); val NULL:
 * null. */
void out_json_strn(struct out *o, const char *key, const char *val, size_t len);
/* Where a call or import is written: line and col, or both null when
 * line is 0 (no site). */
void out_json_site(struct out *o, const char *line_key, const char *col_key, uint32_t line,
		   uint32_t col);
/* A node as other records point to it: id, name, kind, path and line
 * (null path and line for externals and modules), into the record or
 * the nested object being written. */
void out_json_node_ref(struct out *o, const struct kbx_node *n);

/* One search hit (kbx search), ranked from 1; explain adds each signal's
 * rank and score to the text (JSON always has them).  query is the
 * query's text, for the part a pattern matched. */
struct kbx_search_hit;
struct kbx_search_results;
void out_search_hit(struct out *o, size_t rank, const struct kbx_search_hit *h,
		    const struct kbx_search_results *r, const char *query, int explain);

/* The repository the hits printed next come from (kbx search
 * --all-repos), or name NULL for none: text puts "[name]" before each
 * hit, JSON adds "repo", "repo_root" and "repo_rank" (the hit's rank in
 * its repository), grep prints root/path.  The strings must outlive
 * the hits printed. */
void out_set_repo(struct out *o, const char *name, const char *root, size_t rank);

/* One line of a line-oriented machine format (grep lines, CI workflow
 * commands), printed as given whatever the format, never coloured. */
void out_line(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
