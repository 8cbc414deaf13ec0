#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/lang.h"
#include "output.h"
#include "search/kbx-search.h"
#include "util/util.h"
#include "pager.h"
#include "picture.h"
#include "util/quote.h"
#include "util/strbuf.h"

const char *const output_format_names[] = { "text", "json", "grep", "nul", "dot", "mermaid", NULL };
const char *const output_color_names[] = { "auto", "always", "never", NULL };
int output_color_default = COLOR_AUTO;

struct out {
	int format;
	int color;
	int version;
	int fields;             /* fields written in the current record */
	int text_indent;
	int in_group;
	/* nested JSON (out_json_*): open arrays and objects, innermost last */
	int depth;
	int items[OUT_JSON_MAX_DEPTH];
	unsigned char is_array[OUT_JSON_MAX_DEPTH];
	int document;           /* the outermost value is a document, not in a record */
	/* out_set_repo: the repository of the hits printed next */
	const char *repo, *repo_root;
	size_t repo_rank;
	/* --format=dot or mermaid */
	struct picture *pic;
	struct strbuf title;
	int nomem;
};

#define C_RESET "\033[m"
#define C_HEAD "\033[1m"
#define C_PATH "\033[35m"
#define C_LINE "\033[32m"
#define C_NAME "\033[1;33m"
#define C_WARN "\033[31m"

int out_check(const struct output_opts *opts)
{
	int format = opts->nul ? FMT_NUL : opts->format;
	if ((format == FMT_DOT || format == FMT_MERMAID) && !opts->pictures) {
		fprintf(stderr, "error: --format=%s draws edges, and this command prints none: "
			"use text, json, grep or nul\n", output_format_names[format]);
		return -1;
	}
	long version = opts->format_version == -1 ? OUTPUT_FORMAT_VERSION : opts->format_version;
	if (opts->format_version < -1 || opts->format_version > 1000 ||
	    version < OUTPUT_FORMAT_VERSION_MIN || version > OUTPUT_FORMAT_VERSION) {
		fprintf(stderr, "error: --format-version=%ld is not supported: this kbx prints versions %d to %d\n",
			opts->format_version, OUTPUT_FORMAT_VERSION_MIN, OUTPUT_FORMAT_VERSION);
		return -1;
	}
	return 0;
}

struct out *out_new(const struct output_opts *opts)
{
	if (out_check(opts))
		return NULL;
	struct out *o = calloc(1, sizeof(*o));
	if (!o) {
		fprintf(stderr, "fatal: out of memory\n");
		return NULL;
	}
	o->format = opts->nul ? FMT_NUL : opts->format;
	if (o->format == FMT_DOT || o->format == FMT_MERMAID) {
		strbuf_init(&o->title);
		if (!(o->pic = picture_new(o->format))) {
			fprintf(stderr, "fatal: out of memory\n");
			free(o);
			return NULL;
		}
	}
	/* -1: not given, the newest */
	o->version = opts->format_version == -1 ? OUTPUT_FORMAT_VERSION : (int)opts->format_version;
	if (o->format == FMT_TEXT) {
		/* --color, else the color.ui setting */
		int color = opts->color >= 0 ? opts->color : output_color_default;
		int tty = isatty(1);
		/* long text for a person: through the pager, which then stands
		 * for the terminal */
		if (tty)
			pager_setup();
		if (color == COLOR_ALWAYS)
			o->color = 1;
		else if (color == COLOR_AUTO) {
			const char *nc = getenv("NO_COLOR");
			const char *term = getenv("TERM");
			o->color = tty && !(nc && *nc) && !(term && !strcmp(term, "dumb"));
		}
	}
	return o;
}

int out_format(const struct out *o)
{
	return o->format;
}

int out_version(const struct out *o)
{
	return o->version;
}

int out_is_picture(const struct out *o)
{
	return o->pic != NULL;
}

void out_picture_node(struct out *o, const struct kbx_node *n, int start)
{
	out_picture_node_in(o, 0, NULL, n, start);
}

void out_picture_edge(struct out *o, const struct kbx_node *from, const struct kbx_node *to,
		      int confidence, const char *label)
{
	out_picture_edge_in(o, 0, NULL, from, 0, NULL, to, confidence, label);
}

void out_picture_node_in(struct out *o, uint32_t repo, const char *name, const struct kbx_node *n,
			 int start)
{
	struct picture_repo r = { repo, name };
	if (o->pic && picture_node(o->pic, name ? &r : NULL, n, start))
		o->nomem = 1;
}

void out_picture_edge_in(struct out *o, uint32_t from_repo, const char *from_name,
			 const struct kbx_node *from, uint32_t to_repo, const char *to_name,
			 const struct kbx_node *to, int confidence, const char *label)
{
	struct picture_repo fr = { from_repo, from_name }, tr = { to_repo, to_name };
	if (o->pic && picture_edge(o->pic, from_name ? &fr : NULL, from, to_name ? &tr : NULL, to,
				   confidence, label))
		o->nomem = 1;
}

void out_picture_title(struct out *o, const char *fmt, ...)
{
	va_list ap;
	if (!o->pic)
		return;
	strbuf_reset(&o->title);
	va_start(ap, fmt);
	strbuf_vaddf(&o->title, fmt, ap);
	va_end(ap);
}

int out_finish(struct out *o)
{
	int nomem = o->nomem;
	if (o->pic) {
		if (!nomem)
			picture_print(o->pic, o->title.len ? o->title.buf : "kbx");
		picture_free(o->pic);
		strbuf_release(&o->title);
	}
	free(o);
	if (nomem) {
		fprintf(stderr, "fatal: out of memory drawing the picture\n");
		return -1;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (errno == EPIPE)
			return 0;  /* the reader stopped reading: | head */
		fprintf(stderr, "error: cannot write the output: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static const char *col(const struct out *o, const char *c)
{
	return o->color ? c : "";
}

/* ---- escaping ---- */

static struct strbuf esc_slots[OUT_ESC_SLOTS];
static unsigned esc_next;

static struct strbuf *esc_slot(void)
{
	struct strbuf *sb = &esc_slots[esc_next++ % OUT_ESC_SLOTS];
	strbuf_reset(sb);
	return sb;
}

const char *out_esc(const char *s)
{
	size_t len = strlen(s);
	if (!escape_needed(s, len, 0))
		return s;
	return out_escn(s, len);
}

const char *out_escn(const char *s, size_t len)
{
	struct strbuf *sb = esc_slot();
	strbuf_add_escaped(sb, s, len, 0);
	return sb->failed ? "?" : strbuf_str(sb);
}

const char *out_grep_path(const char *root, const char *path, size_t len)
{
	struct strbuf *sb = esc_slot();
	if (root) {
		struct strbuf full = STRBUF_INIT;
		strbuf_addf(&full, "%s/%.*s", root, (int)len, path);
		strbuf_add_quoted_path(sb, strbuf_str(&full), full.len);
		strbuf_release(&full);
	} else {
		strbuf_add_quoted_path(sb, path, len);
	}
	return sb->failed ? "?" : strbuf_str(sb);
}

/*
 * The text of a result, put together in a buffer and written once a
 * line: a graph answer of a thousand lines made some fifteen stdio
 * calls a line (colours that are empty strings, separators, numbers).
 * The text_* functions below write here; whoever ends a line calls
 * line_end(), before anything else goes to stdout.
 */
static char line_buf[4096];
static size_t line_len;

static void line_flush(void)
{
	if (line_len)
		fwrite(line_buf, 1, line_len, stdout);
	line_len = 0;
}

static void line_put_long(const char *s, size_t n)
{
	line_flush();
	if (n > sizeof(line_buf))
		fwrite(s, 1, n, stdout);
	else {
		memcpy(line_buf, s, n);
		line_len = n;
	}
}

/* inlined where n is a constant: the copy is then a move or two */
static inline __attribute__((always_inline)) void line_put(const char *s, size_t n)
{
	if (n > sizeof(line_buf) - line_len) {
		line_put_long(s, n);
		return;
	}
	memcpy(line_buf + line_len, s, n);
	line_len += n;
}

/* A string literal: its length known where it is written. */
#define line_lit(s) line_put(s, sizeof(s) - 1)

static void line_str(const char *s)
{
	line_put(s, strlen(s));
}

static void line_uint(uint32_t v)
{
	char buf[10], *p = buf + sizeof(buf);
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	line_put(p, (size_t)(buf + sizeof(buf) - p));
}

/* len bytes of s escaped (flags: quote.h's ESCAPE_KEEP_*). */
static void line_escaped(const char *s, size_t len, unsigned flags)
{
	if (!escape_needed(s, len, flags)) {
		line_put(s, len);
		return;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_escaped(&sb, s, len, flags);
	line_put(strbuf_str(&sb), sb.len);
	strbuf_release(&sb);
}

static void line_end(void)
{
	line_lit("\n");
	line_flush();
}

/* Print len bytes of s escaped, now: through the line, which it ends
 * without a newline. */
static void put_escaped(const char *s, size_t len, unsigned flags)
{
	line_escaped(s, len, flags);
	line_flush();
}

/* The line of out_heading, out_note and out_line: formatted, then
 * escaped but for its tabs and newlines. */
static void put_line(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_vaddf(&sb, fmt, ap);
	put_escaped(strbuf_str(&sb), sb.len, ESCAPE_KEEP_TAB | ESCAPE_KEEP_NEWLINE);
	strbuf_release(&sb);
}

/* ---- JSON ---- */

/* A JSON string: control characters escaped (the C1 ones too, so that
 * JSON read on a terminal is safe), each byte that is not part of
 * well-formed UTF-8 replaced by U+FFFD. */
static void json_str(const char *s, size_t len)
{
	putchar('"');
	const char *p = s, *end = s + len;
	while (p < end) {
		unsigned char ch = (unsigned char)*p;
		size_t n = utf8_char_len(p, (size_t)(end - p));
		if (ch == '"' || ch == '\\') {
			putchar('\\');
			putchar(ch);
		} else if (ch < 0x20 || ch == 0x7f) {
			switch (ch) {
			case '\n': fputs("\\n", stdout); break;
			case '\t': fputs("\\t", stdout); break;
			case '\r': fputs("\\r", stdout); break;
			default: printf("\\u%04x", ch);
			}
		} else if (ch < 0x80) {
			putchar(ch);
		} else if (!n) {
			fputs("\\ufffd", stdout);
			n = 1;
		} else if (ch == 0xc2 && (unsigned char)p[1] < 0xa0) {
			printf("\\u%04x", (unsigned char)p[1]);
		} else {
			fwrite(p, 1, n, stdout);
		}
		p += n;
	}
	putchar('"');
}

static void json_key(struct out *o, const char *key)
{
	if (o->fields++)
		putchar(',');
	json_str(key, strlen(key));
	putchar(':');
}

void out_record_begin(struct out *o, const char *type)
{
	o->fields = 0;
	if (o->format == FMT_JSON) {
		putchar('{');
		json_key(o, "type");
		json_str(type, strlen(type));
	}
}

void out_field_str(struct out *o, const char *key, const char *val)
{
	if (o->format == FMT_JSON) {
		json_key(o, key);
		if (val)
			json_str(val, strlen(val));
		else
			fputs("null", stdout);
	} else if (o->format == FMT_TEXT) {
		printf("%s%s:%s %s\n", col(o, C_HEAD), key, col(o, C_RESET),
		       val ? out_esc(val) : "-");
	}
}

void out_field_int(struct out *o, const char *key, int64_t val)
{
	if (o->format == FMT_JSON) {
		json_key(o, key);
		printf("%lld", (long long)val);
	} else if (o->format == FMT_TEXT) {
		printf("%s%s:%s %lld\n", col(o, C_HEAD), key, col(o, C_RESET), (long long)val);
	}
}

void out_record_end(struct out *o)
{
	if (o->format == FMT_JSON)
		fputs("}\n", stdout);
}

/* ---- nested JSON ---- */

/* Start a member: the comma, and the key unless in an array.  At depth 0
 * a key means a field of the current record. */
static void json_member(struct out *o, const char *key)
{
	if (!o->depth) {
		if (key)
			json_key(o, key);
		return;
	}
	int d = o->depth > OUT_JSON_MAX_DEPTH ? OUT_JSON_MAX_DEPTH : o->depth;
	if (o->items[d - 1]++)
		putchar(',');
	if (key && !o->is_array[d - 1]) {
		json_str(key, strlen(key));
		putchar(':');
	}
}

void out_json_begin(struct out *o, const char *key, int array)
{
	if (!o->depth)
		o->document = !key;
	json_member(o, key);
	putchar(array ? '[' : '{');
	if (o->depth < OUT_JSON_MAX_DEPTH) {
		o->items[o->depth] = 0;
		o->is_array[o->depth] = (unsigned char)(array != 0);
	}
	o->depth++;
}

void out_json_end(struct out *o)
{
	if (!o->depth)
		return;
	o->depth--;
	int d = o->depth < OUT_JSON_MAX_DEPTH ? o->depth : OUT_JSON_MAX_DEPTH - 1;
	putchar(o->is_array[d] ? ']' : '}');
	if (!o->depth && o->document) {
		putchar('\n');
		o->document = 0;
	}
}

void out_json_str(struct out *o, const char *key, const char *val)
{
	json_member(o, key);
	if (val)
		json_str(val, strlen(val));
	else
		fputs("null", stdout);
}

void out_json_int(struct out *o, const char *key, int64_t val)
{
	json_member(o, key);
	printf("%lld", (long long)val);
}

void out_json_strn(struct out *o, const char *key, const char *val, size_t len)
{
	json_member(o, key);
	if (val)
		json_str(val, len);
	else
		fputs("null", stdout);
}

void out_json_site(struct out *o, const char *line_key, const char *col_key, uint32_t line,
		   uint32_t col)
{
	if (line) {
		out_json_int(o, line_key, line);
		out_json_int(o, col_key, col);
	} else {
		out_json_str(o, line_key, NULL);
		out_json_str(o, col_key, NULL);
	}
}

void out_json_node_ref(struct out *o, const struct kbx_node *n)
{
	out_json_str(o, "id", n->cid);
	out_json_str(o, "name", n->name);
	out_json_str(o, "kind", kbx_kind_str(n->kind));
	if (n->path) {
		out_json_strn(o, "path", n->path, n->path_len);
		out_json_int(o, "line", n->line);
	} else {
		out_json_str(o, "path", NULL);
		out_json_str(o, "line", NULL);
	}
}

void out_json_bool(struct out *o, const char *key, int val)
{
	json_member(o, key);
	fputs(val ? "true" : "false", stdout);
}

/* A number as JSON allows: no NaN or infinity (null instead), and as
 * few digits as read back the same double. */
static void json_num(double v)
{
	if (v != v || v > 1e300 || v < -1e300) {
		fputs("null", stdout);
		return;
	}
	char buf[40];
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, stdout);
}

void out_json_num(struct out *o, const char *key, double val)
{
	json_member(o, key);
	json_num(val);
}

void out_field_num(struct out *o, const char *key, double val)
{
	if (o->format == FMT_JSON) {
		json_key(o, key);
		json_num(val);
	} else if (o->format == FMT_TEXT) {
		printf("%s%s:%s %g\n", col(o, C_HEAD), key, col(o, C_RESET), val);
	}
}

/* ---- search hits ---- */

void out_set_repo(struct out *o, const char *name, const char *root, size_t rank)
{
	o->repo = name;
	o->repo_root = name ? root : NULL;
	o->repo_rank = name ? rank : 0;
}


/* Up to max_lines lines of text, each cut at width, indented, escaped
 * but for tabs (the text is code or prose: a tab is harmless, and code
 * is indented with them). */
static void text_lines(const char *text, size_t len, int max_lines, size_t width,
		       const char *indent)
{
	int lines = 0;
	size_t i = 0;
	/* skip blank lines at the start */
	while (i < len && (text[i] == '\n' || text[i] == '\r'))
		i++;
	while (i < len && lines < max_lines) {
		size_t e, l = _kbx_line_at(text, len, i, &e);
		if (l > width) {
			/* cut at a UTF-8 boundary */
			l = width;
			while (l > 0 && ((unsigned char)text[i + l] & 0xc0) == 0x80)
				l--;
			fputs(indent, stdout);
			put_escaped(text + i, l, ESCAPE_KEEP_TAB);
			fputs("...\n", stdout);
		} else if (l || lines) {
			fputs(indent, stdout);
			put_escaped(text + i, l, ESCAPE_KEEP_TAB);
			putchar('\n');
		}
		if (l)
			lines++;
		i = e + 1;
	}
	if (i < len && lines == max_lines)
		printf("%s...\n", indent);
}

static void json_list(struct out *o, const char *key, const char *csv)
{
	out_json_begin(o, key, 1);
	const char *p = csv;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		while (l && *p == ' ') {
			p++;
			l--;
		}
		while (l && p[l - 1] == ' ')
			l--;
		if (l) {
			json_member(o, NULL);
			json_str(p, l);
		}
		if (!e)
			break;
		p = e + 1;
	}
	out_json_end(o);
}

/* Where a document's section says something: past the lines that
 * repeat its title and headings (a chunk's text starts with them, for
 * the search's sake) and past blank lines. */
static size_t body_start(const struct kbx_chunk *c)
{
	size_t i = 0, len = c->text_len;
	const char *t = c->text;
	while (i < len) {
		size_t e, l = _kbx_line_at(t, len, i, &e);
		int same = (l == strlen(c->title) && !memcmp(t + i, c->title, l)) ||
			   (l == strlen(c->heading) && !memcmp(t + i, c->heading, l));
		if (l && !same && t[i] != '#')
			break;
		i = e < len ? e + 1 : e;
	}
	return i;
}

void out_search_hit(struct out *o, size_t rank, const struct kbx_search_hit *h,
		    const struct kbx_search_results *r, const char *query, int explain)
{
	const struct kbx_chunk *c = &h->chunk;
	const char *type = kbx_chunk_type_str(c->type);
	const char *kind = c->type == KBX_CHUNK_CODE ? _kbx_kind_name(c->kind) : NULL;
	if (o->format == FMT_NUL) {
		fputs(c->doc_id, stdout);
		putchar('\0');
		return;
	}
	if (o->format == FMT_GREP) {
		const char *root = o->repo_root && c->path[0] != '/' ? o->repo_root : NULL;
		printf("%s:%u:1: %s %s", out_grep_path(root, c->path, strlen(c->path)),
		       c->line ? c->line : 1, type ? type : "?", out_esc(c->doc_id));
		if (*c->title && strcmp(c->title, c->doc_id))
			printf(" %s", out_esc(c->title));
		if (*c->heading)
			printf(" > %s", out_esc(c->heading));
		putchar('\n');
		return;
	}
	if (o->format == FMT_JSON) {
		out_record_begin(o, "hit");
		out_json_int(o, "rank", (int64_t)rank);
		if (o->repo) {
			out_json_str(o, "repo", o->repo);
			out_json_str(o, "repo_root", o->repo_root);
			out_json_int(o, "repo_rank", (int64_t)o->repo_rank);
		}
		out_json_str(o, "id", c->doc_id);
		out_json_str(o, "chunk_type", type);
		out_json_int(o, "chunk", h->id);
		out_json_int(o, "seq", c->seq);
		out_json_str(o, "title", c->title);
		out_json_str(o, "heading", c->heading);
		out_json_str(o, "path", c->path);
		out_json_int(o, "line", c->line);
		out_json_int(o, "end_line", c->end_line);
		out_json_str(o, "lang", *c->lang ? c->lang : NULL);
		json_list(o, "tags", c->tags);
		json_member(o, "text");
		json_str(c->text, c->text_len);
		if (c->type == KBX_CHUNK_ERROR) {
			out_json_str(o, "error_type", c->title);
			out_json_str(o, "severity", c->severity);
			out_json_str(o, "pattern", *c->pattern ? c->pattern : NULL);
			out_json_str(o, "cause", c->cause);
			out_json_str(o, "fix_template", c->fix);
			json_list(o, "related_errors", c->related);
		} else if (c->type == KBX_CHUNK_CODE) {
			/* the canonical id leads into the graph: kbx callers ID */
			out_json_str(o, "node", c->doc_id);
			out_json_str(o, "kind", kind);
		} else {
			out_json_str(o, "category", *c->category ? c->category : NULL);
		}
		out_json_num(o, "score", h->score);
		out_json_num(o, "confidence", h->confidence);
		if (h->nsections) {
			out_json_begin(o, "sections", 1);
			for (size_t i = 0; i < h->nsections; i++) {
				out_json_begin(o, NULL, 0);
				out_json_int(o, "chunk", h->sections[i].id);
				out_json_str(o, "heading", h->sections[i].heading);
				out_json_int(o, "line", h->sections[i].line);
				out_json_int(o, "end_line", h->sections[i].end_line);
				out_json_end(o);
			}
			out_json_end(o);
			out_json_int(o, "more_sections", (int64_t)h->more_sections);
		}
		out_json_begin(o, "signals", 0);
		for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
			if (!r->sig[sg].used)
				continue;
			out_json_begin(o, kbx_signal_str(sg), 0);
			if (h->sig[sg].rank) {
				out_json_int(o, "rank", h->sig[sg].rank);
				out_json_num(o, "score", h->sig[sg].score);
				if (sg == KBX_SIG_LEXICAL)
					out_json_num(o, "share", h->lexical_share);
				if (sg == KBX_SIG_PATTERN && query && h->match_len) {
					json_member(o, "match");
					json_str(query + h->match_off, h->match_len);
				}
			} else {
				json_member(o, "rank");
				fputs("null", stdout);
			}
			out_json_end(o);
		}
		out_json_end(o);
		out_record_end(o);
		return;
	}
	/* text */
	printf("%s%zu.%s ", col(o, C_HEAD), rank, col(o, C_RESET));
	if (o->repo)
		printf("%s[%s]%s ", col(o, C_PATH), out_esc(o->repo), col(o, C_RESET));
	printf("%s%s%s %s%s%s", col(o, C_LINE), type ? type : "?", col(o, C_RESET),
	       col(o, C_NAME), out_esc(c->doc_id), col(o, C_RESET));
	if (c->type == KBX_CHUNK_ERROR) {
		printf("  %s", out_esc(c->title));
		if (*c->severity)
			printf(" [%s]", out_esc(c->severity));
	} else if (c->type == KBX_CHUNK_CODE) {
		if (kind)
			printf("  %s", kind);
	} else {
		if (*c->title && strcmp(c->title, c->doc_id))
			printf("  %s", out_esc(c->title));
		if (*c->heading)
			printf(" > %s", out_esc(c->heading));
	}
	if (*c->lang)
		printf(" (%s)", out_esc(c->lang));
	putchar('\n');
	printf("   %s%s%s", col(o, C_PATH), out_esc(c->path), col(o, C_RESET));
	if (c->line) {
		printf(":%s%u%s", col(o, C_LINE), c->line, col(o, C_RESET));
		if (c->end_line > c->line)
			printf("-%u", c->end_line);
	}
	putchar('\n');
	if (c->type == KBX_CHUNK_ERROR) {
		printf("   %scause:%s\n", col(o, C_HEAD), col(o, C_RESET));
		text_lines(c->cause, strlen(c->cause), 3, 100, "     ");
		printf("   %sfix:%s\n", col(o, C_HEAD), col(o, C_RESET));
		text_lines(c->fix, strlen(c->fix), 8, 100, "     ");
	} else if (c->type == KBX_CHUNK_CODE) {
		text_lines(c->text, c->text_len, 4, 100, "   | ");
	} else {
		size_t skip = body_start(c);
		text_lines(c->text + skip, c->text_len - skip, 4, 100, "   | ");
	}
	for (size_t i = 0; i < h->nsections; i++) {
		const struct kbx_hit_section *hs = &h->sections[i];
		printf("   %salso%s %s", col(o, C_HEAD), col(o, C_RESET),
		       *hs->heading ? out_esc(hs->heading) : "(the top)");
		if (hs->line)
			printf("  :%u", hs->line);
		putchar('\n');
	}
	if (h->more_sections)
		printf("   %salso%s %zu more section%s\n", col(o, C_HEAD), col(o, C_RESET),
		       h->more_sections, h->more_sections == 1 ? "" : "s");
	if (explain) {
		printf("   %sconfidence%s %.2f", col(o, C_HEAD), col(o, C_RESET), h->confidence);
		if (r->sig[KBX_SIG_LEXICAL].used)
			printf(" (BM25 share of the query %.2f)", h->lexical_share);
		putchar('\n');
		printf("   %sscore%s %.4f:", col(o, C_HEAD), col(o, C_RESET), h->score);
		for (int sg = 0; sg < KBX_SIG__COUNT; sg++) {
			if (!r->sig[sg].used)
				continue;
			if (h->sig[sg].rank)
				printf("  %s #%d (%.4g)", kbx_signal_str(sg), h->sig[sg].rank,
				       h->sig[sg].score);
			else
				printf("  %s -", kbx_signal_str(sg));
		}
		putchar('\n');
		if (h->sig[KBX_SIG_PATTERN].rank && query && h->match_len)
			printf("   %smatched%s %s%s\n", col(o, C_HEAD), col(o, C_RESET),
			       out_escn(query + h->match_off, h->match_len > 120 ? 120 : h->match_len),
			       h->match_len > 120 ? "..." : "");
	}
	putchar('\n');
}

void out_line(struct out *o, const char *fmt, ...)
{
	va_list ap;
	(void)o;
	va_start(ap, fmt);
	put_line(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* ---- text helpers ---- */

void out_heading(struct out *o, const char *fmt, ...)
{
	if (o->format != FMT_TEXT)
		return;
	va_list ap;
	if (o->in_group)
		putchar('\n');
	o->in_group = 1;
	fputs(col(o, C_HEAD), stdout);
	va_start(ap, fmt);
	put_line(fmt, ap);
	va_end(ap);
	fputs(col(o, C_RESET), stdout);
	putchar('\n');
}

void out_note(struct out *o, const char *fmt, ...)
{
	if (o->format != FMT_TEXT)
		return;
	va_list ap;
	va_start(ap, fmt);
	put_line(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* kbx --db --all-repos: the repository of a node or an edge's result
 * (out_set_repo), in JSON and before a text line. */
static void json_repo(struct out *o)
{
	if (o->repo) {
		json_key(o, "repo");
		json_str(o->repo, strlen(o->repo));
	}
}

static void text_repo(struct out *o)
{
	if (o->repo) {
		line_str(col(o, C_PATH));
		line_lit("[");
		line_escaped(o->repo, strlen(o->repo), 0);
		line_lit("]");
		line_str(col(o, C_RESET));
		line_lit(" ");
	}
}

static void json_node_fields(struct out *o, const struct kbx_node *n)
{
	json_key(o, "id");
	json_str(n->cid, strlen(n->cid));
	json_key(o, "name");
	json_str(n->name, strlen(n->name));
	json_key(o, "kind");
	fputs("\"", stdout);
	fputs(kbx_kind_str(n->kind), stdout);
	fputs("\"", stdout);
	json_key(o, "path");
	if (n->path)
		json_str(n->path, n->path_len);
	else
		fputs("null", stdout);
	json_key(o, "line");
	if (n->path && n->line)
		printf("%u", n->line);
	else
		fputs("null", stdout);
	json_key(o, "col");
	if (n->path && n->col)
		printf("%u", n->col);
	else
		fputs("null", stdout);
	json_key(o, "end_line");
	if (n->path && n->end_line)
		printf("%u", n->end_line);
	else
		fputs("null", stdout);
	const char *lang = kbx_lang_str(n->lang);
	json_key(o, "lang");
	if (lang)
		json_str(lang, strlen(lang));
	else
		fputs("null", stdout);
}

static void nul_id(const struct kbx_node *n)
{
	fputs(n->cid, stdout);
	putchar('\0');
}

/* How a node reads in text: "Foo.process" or "src/a.py" or "printf". */
static void text_name(struct out *o, const struct kbx_node *n)
{
	const char *s = n->kind == KBX_KIND_FILE ? n->cid : n->qual;
	line_str(col(o, C_NAME));
	line_escaped(s, strlen(s), 0);
	line_str(col(o, C_RESET));
}

static void text_loc(struct out *o, const char *path, size_t plen, uint32_t line, uint32_t c)
{
	line_str(col(o, C_PATH));
	line_escaped(path, plen, 0);
	line_str(col(o, C_RESET));
	line_lit(":");
	line_str(col(o, C_LINE));
	line_uint(line);
	line_str(col(o, C_RESET));
	if (c) {
		line_lit(":");
		line_uint(c);
	}
}

/* "Foo.process  src/a.py:12", or "printf  (external)" for a node of no
 * file. */
static void text_name_place(struct out *o, const struct kbx_node *n)
{
	text_name(o, n);
	if (n->path) {
		line_lit("  ");
		text_loc(o, n->path, n->path_len, n->line, 0);
	} else {
		line_lit("  (");
		line_str(kbx_kind_str(n->kind));
		line_lit(")");
	}
}

/* The indentation of a result at depth (1: direct neighbours). */
static void text_indent(uint32_t depth)
{
	line_lit("  ");
	for (uint32_t i = 1; i < depth; i++)
		line_lit("  ");
}

/* Beyond the direct neighbours, what a result is linked to, in words
 * that read the right way: "[depth 2, calls run_edge_query]" under
 * callers, "[depth 2, called by Loader.run]" under callees. */
static void text_link(struct out *o, const struct kbx_edge *e, int dir)
{
	const char *verb;
	switch (e->kind) {
	case KBX_EDGE_CALLS: verb = dir == KBX_DIR_IN ? "calls" : "called by"; break;
	case KBX_EDGE_IMPORTS: verb = dir == KBX_DIR_IN ? "imports" : "imported by"; break;
	case KBX_EDGE_INHERITS: verb = dir == KBX_DIR_IN ? "extends" : "extended by"; break;
	default: verb = dir == KBX_DIR_IN ? "defines" : "in"; break;
	}
	const struct kbx_node *near = dir == KBX_DIR_IN ? &e->to : &e->from;
	line_lit("  [depth ");
	line_uint(e->depth);
	line_lit(", ");
	line_str(verb);
	line_lit(" ");
	text_name(o, near);
	line_lit("]");
}

void out_edge(struct out *o, const char *type, const struct kbx_node *query,
	      const struct kbx_edge *e, int dir, unsigned folded)
{
	const struct kbx_node *res = dir == KBX_DIR_IN ? &e->from : &e->to;
	/* call and import sites are in the source's file */
	const struct kbx_node *site_file = &e->from;
	uint32_t site_line = e->nsites ? e->sites[0].line : 0;
	uint32_t site_col = e->nsites ? e->sites[0].col : 0;

	if (o->pic) {
		if (!o->title.len)
			strbuf_addf(&o->title, "%ss of %s", type, query->cid);
		out_picture_node(o, query, 1);
		out_picture_edge(o, &e->from, &e->to, e->confidence, NULL);
		return;
	}
	switch (o->format) {
	case FMT_NUL:
		nul_id(res);
		return;
	case FMT_GREP: {
		/* callers: jump to the call site; callees and the rest: to the
		 * definition when there is one, else to the site */
		const char *path;
		size_t plen;
		uint32_t line, c;
		if (dir == KBX_DIR_IN || !res->path) {
			path = site_file->path;
			plen = site_file->path_len;
			line = site_line ? site_line : site_file->line;
			c = site_line ? site_col : site_file->col;
		} else {
			path = res->path;
			plen = res->path_len;
			line = res->line;
			c = res->col;
		}
		if (!path)
			return;
		printf("%s:%u:%u: %s %s %s", out_grep_path(o->repo, path, plen), line ? line : 1,
		       c ? c : 1, out_esc(e->from.kind == KBX_KIND_FILE ? e->from.cid : e->from.qual),
		       kbx_edge_kind_str(e->kind),
		       out_esc(e->to.kind == KBX_KIND_FILE ? e->to.cid : e->to.qual));
		if (e->confidence == KBX_CONF_AMBIGUOUS)
			printf(" (ambiguous, %u candidates)", e->ncandidates);
		else if (e->confidence == KBX_CONF_UNRESOLVED)
			printf(" (%s)", kbx_kind_str(e->to.kind));
		putchar('\n');
		return;
	}
	case FMT_JSON:
		o->fields = 0;
		putchar('{');
		json_key(o, "type");
		json_str(type, strlen(type));
		json_node_fields(o, res);
		json_key(o, "query");
		json_str(query->cid, strlen(query->cid));
		json_repo(o);
		json_key(o, "edge");
		printf("\"%s\"", kbx_edge_kind_str(e->kind));
		json_key(o, "confidence");
		printf("\"%s\"", kbx_confidence_str(e->confidence));
		json_key(o, "via");
		printf("\"%s\"", kbx_via_str(e->via));
		/* how many definitions the call could mean: 1 when resolved,
		 * 0 when none in the repository */
		json_key(o, "candidates");
		printf("%u", e->confidence == KBX_CONF_UNRESOLVED ? 0 : e->ncandidates ? e->ncandidates : 1);
		json_key(o, "depth");
		printf("%u", e->depth);
		json_key(o, "from");
		json_str(e->from.cid, strlen(e->from.cid));
		json_key(o, "to");
		json_str(e->to.cid, strlen(e->to.cid));
		json_key(o, "sites");
		putchar('[');
		for (uint32_t i = 0; i < e->nsites; i++) {
			printf("%s{\"path\":", i ? "," : "");
			if (site_file->path)
				json_str(site_file->path, site_file->path_len);
			else
				fputs("null", stdout);
			printf(",\"line\":%u,\"col\":%u", e->sites[i].line, e->sites[i].col);
			/* a call less sure than the edge's surest says so */
			if (e->sites[i].confidence && e->sites[i].confidence != e->confidence)
				printf(",\"confidence\":\"%s\"",
				       kbx_confidence_str(e->sites[i].confidence));
			putchar('}');
		}
		putchar(']');
		fputs("}\n", stdout);
		return;
	default:
		break;
	}

	/* text: the lines of a long answer, printed without printf's
	 * parsing of a format for each piece */
	text_indent(e->depth);
	text_repo(o);
	if (dir == KBX_DIR_IN) {
		if (site_file->path)
			text_loc(o, site_file->path, site_file->path_len, site_line, 0);
		line_lit("  ");
		text_name(o, res);
		line_lit(" (");
		line_str(kbx_kind_str(res->kind));
		line_lit(")");
	} else {
		text_name_place(o, res);
		if (site_line) {
			line_lit("  at line ");
			line_uint(site_line);
		}
	}
	if (e->depth > 1)
		text_link(o, e, dir);
	if (e->confidence == KBX_CONF_AMBIGUOUS) {
		line_lit("  ");
		line_str(col(o, C_WARN));
		line_lit("ambiguous");
		line_str(col(o, C_RESET));
		if (e->ncandidates > 1) {
			line_lit(": one of ");
			line_uint(e->ncandidates);
			line_lit(" candidates");
		} else {
			/* the one definition of the name, on a receiver of
			 * unknown type: it may be a method from outside the
			 * repository */
			line_lit(": the only candidate, not proved");
		}
	}
	if (folded) {
		line_lit(" (+");
		line_uint(folded);
		line_lit(" more; -v lists them)");
	}
	if (e->nsites > 1) {
		line_lit("  (");
		line_uint(e->nsites);
		line_lit(" sites)");
	}
	line_end();
}

void out_candidate(struct out *o, const struct kbx_edge *e, const struct kbx_node *cand)
{
	if (o->pic) {
		out_picture_edge(o, &e->from, cand, KBX_CONF_AMBIGUOUS, NULL);
		return;
	}
	if (o->format != FMT_TEXT)
		return;
	text_indent(e->depth + 1);
	line_lit("or ");
	text_name_place(o, cand);
	line_end();
}

void out_def(struct out *o, const char *type, const struct kbx_node *n)
{
	switch (o->format) {
	case FMT_NUL:
		nul_id(n);
		return;
	case FMT_GREP:
		if (n->path)
			printf("%s:%u:%u: %s %s\n", out_grep_path(o->repo, n->path, n->path_len),
			       n->line ? n->line : 1, n->col ? n->col : 1, kbx_kind_str(n->kind),
			       out_esc(n->kind == KBX_KIND_FILE ? n->cid : n->qual));
		return;
	case FMT_JSON:
		o->fields = 0;
		putchar('{');
		json_key(o, "type");
		json_str(type, strlen(type));
		json_node_fields(o, n);
		json_repo(o);
		fputs("}\n", stdout);
		return;
	default:
		break;
	}
	line_lit("  ");
	text_repo(o);
	if (n->path) {
		text_loc(o, n->path, n->path_len, n->line ? n->line : 1, 0);
		line_lit("  ");
	}
	text_name(o, n);
	line_lit(" (");
	line_str(kbx_kind_str(n->kind));
	line_lit(")");
	line_end();
}
