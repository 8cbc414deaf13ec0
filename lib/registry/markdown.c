/*
 * Markdown documents of a registry: YAML front matter (libyaml), then
 * the body cut into chunks at its headings (cmark).
 *
 * The rules, in the order they apply:
 *  - The body is a run of top-level blocks (cmark's, with their source
 *    lines); a block spans the lines up to the next block, so the blank
 *    lines and link definitions between blocks belong to one of them.
 *    A block longer than KBX_MD_HUGE bytes is cut at line boundaries
 *    into blocks of at most KBX_MD_MAX (only then is a code block cut).
 *  - Each top-level heading starts a section; its heading path is the
 *    enclosing headings' texts joined with " > ".  The document's first
 *    heading, when it is a level 1 heading, is its title and stays out
 *    of the path (its section has the path "").
 *  - Chunks are runs of blocks: a new one starts at each heading, unless
 *    the chunk so far is under KBX_MD_MIN bytes (a small section is
 *    merged with the following one), and within a section before a
 *    block that would take it over KBX_MD_MAX bytes.  A last chunk under
 *    KBX_MD_MIN joins the one before if both fit in KBX_MD_MAX.
 *  - A chunk's heading is its first section's path, or the path of a
 *    subsection merged into it when every section merged so far is an
 *    ancestor of that one ("Solution" + "Solution > Retries" gives
 *    "Solution > Retries"); sections side by side are all named, joined
 *    with "; " ("Status" + "Context" gives "Status; Context").
 *  - A chunk's text is the title, its heading path, and the Markdown
 *    source of its lines (code included); its lines are file lines.
 *
 * Front matter: a first line "---", up to the next "---" (or "...")
 * line.  Without one, the id is the path, the title the first heading
 * (else the file name without its extension), the type type_default.
 * Without an id, the id is the path too: a document that names no id is
 * still worth finding, and its path is unique within the registry.
 *
 * A registry's documents are written for kbx, and a front matter that
 * is not closed, not YAML or not a mapping skips the file, with a note
 * that says where.  The repository's own documents are written for
 * readers, and their first "---" is as often a thematic break
 * (markdown-it's sample.md opens "---", an advertisement in bold, "---"):
 * there a block that is not a mapping is body text, fields that are not
 * valid YAML are told and left out, and the file is never skipped (see
 * registry.h).
 */
#include <cmark.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "registry/parse.h"

#define KBX_MD_MIN 300
#define KBX_MD_MAX 3000
#define KBX_MD_HUGE (4 * KBX_MD_MAX)

struct block {
	size_t first, last;     /* 0-based file lines of its span */
	size_t section;         /* index into sections */
	int heading;            /* starts a section */
	int cut;                /* the rest of a huge block cut at lines */
};

struct section {
	char *path;             /* heading path, malloc()ed */
};

struct mdoc {
	const char *path;
	const char *buf;
	size_t len;
	const struct kbx_chunk_sink *sink;
	struct _kbx_lines lines;
	struct block *blocks;
	size_t nblocks, blocks_alloc;
	struct section *sections;
	size_t nsections, sections_alloc;
	int nomem;
	int repository;         /* one of the repository's own documents */
	/* front matter */
	char *id, *title, *category, *lang, *tags;
	int type;
};

static size_t span_bytes(const struct mdoc *m, size_t first, size_t last)
{
	return m->lines.start[last + 1] - m->lines.start[first];
}

static void add_block(struct mdoc *m, size_t first, size_t last, int heading)
{
	if (m->nblocks == m->blocks_alloc) {
		size_t na = m->blocks_alloc ? m->blocks_alloc * 2 : 64;
		struct block *nb = realloc(m->blocks, na * sizeof(*nb));
		if (!nb) {
			m->nomem = 1;
			return;
		}
		m->blocks = nb;
		m->blocks_alloc = na;
	}
	struct block *b = &m->blocks[m->nblocks++];
	b->first = first;
	b->last = last;
	b->heading = heading;
	b->cut = 0;
	b->section = m->nsections ? m->nsections - 1 : 0;
}

static void add_section(struct mdoc *m, char *path)
{
	if (!path) {
		m->nomem = 1;
		return;
	}
	if (m->nsections == m->sections_alloc) {
		size_t na = m->sections_alloc ? m->sections_alloc * 2 : 16;
		struct section *ns = realloc(m->sections, na * sizeof(*ns));
		if (!ns) {
			free(path);
			m->nomem = 1;
			return;
		}
		m->sections = ns;
		m->sections_alloc = na;
	}
	m->sections[m->nsections++].path = path;
}

/* The plain text of a heading: its text and code, breaks as spaces. */
static char *heading_text(cmark_node *h)
{
	struct strbuf sb = STRBUF_INIT;
	cmark_iter *it = cmark_iter_new(h);
	cmark_event_type ev;
	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		if (ev != CMARK_EVENT_ENTER)
			continue;
		cmark_node *n = cmark_iter_get_node(it);
		switch (cmark_node_get_type(n)) {
		case CMARK_NODE_TEXT:
		case CMARK_NODE_CODE:
			strbuf_addstr(&sb, cmark_node_get_literal(n));
			break;
		case CMARK_NODE_SOFTBREAK:
		case CMARK_NODE_LINEBREAK:
			strbuf_addch(&sb, ' ');
			break;
		default:
			break;
		}
	}
	cmark_iter_free(it);
	/* one line, no blanks at the ends: ">" and newlines would read as
	 * part of the path's syntax */
	size_t w = 0;
	for (size_t r = 0; r < sb.len; r++) {
		char c = sb.buf[r] == '\n' || sb.buf[r] == '\r' || sb.buf[r] == '\t' ? ' ' : sb.buf[r];
		if (c == ' ' && (!w || sb.buf[w - 1] == ' '))
			continue;
		sb.buf[w++] = c;
	}
	if (w && sb.buf[w - 1] == ' ')
		w--;
	strbuf_setlen(&sb, w);
	if (sb.failed) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* ---- front matter ---- */

static char *dup_scalar(const yaml_node_t *v)
{
	return strdup((const char *)v->data.scalar.value);
}

/*
 * Does the block buf[off, off + len) look like fields: is its first line
 * that is neither blank nor a comment a key, plain or quoted, then a
 * colon and a blank or the end of the line ("title: [unclosed")?  Not
 * "__Advertisement :)__", nor "**Note**: ...", nor "- item".
 */
static int looks_like_fields(const char *buf, size_t off, size_t len)
{
	const char *s = buf + off, *end = s + len;
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		eol = eol ? eol : end;
		const char *p = s;
		while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == eol || *p == '#') {
			s = eol < end ? eol + 1 : end;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			const char *q = memchr(p + 1, *p, (size_t)(eol - p - 1));
			if (!q)
				return 0;
			p = q + 1;
		} else if (strchr("-?:,[]{}&*!|>%@`", *p)) {
			return 0;       /* a YAML indicator: no plain key */
		}
		for (; p < eol; p++)
			if (*p == ':' && (p + 1 == eol || p[1] == ' ' || p[1] == '\t' || p[1] == '\r'))
				return 1;
		return 0;
	}
	return 0;
}

/* Read the front matter in buf[off, off + len), whose first line is file
 * line line0 (0-based).  0 (in a repository's document, also for fields
 * that are not valid YAML: told, and none is read); 1 when, in a
 * repository's document, it is no front matter and the file is all
 * body; or -1 when the file is skipped (told). */
static int front_matter(struct mdoc *m, size_t off, size_t len, size_t line0,
			kbx_status_t *st, struct kbx_error *err)
{
	static const char *const string_keys[] = { "id", "title", "category", "language" };
	yaml_parser_t parser;
	yaml_document_t doc;
	if (!yaml_parser_initialize(&parser)) {
		*st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)m->buf + off, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.error == YAML_MEMORY_ERROR) {
			*st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		} else {
			const yaml_mark_t *mk = &parser.problem_mark;
			uint32_t line = (uint32_t)(mk->line + line0) + 1, col = KBX_YAML_COL(*mk);
			const char *problem = parser.problem ? parser.problem : "syntax error";
			if (m->repository) {
				/* fields gone wrong are a front matter, told and
				 * left out as a registry's bad field is; anything
				 * else is text after a thematic break */
				int fields = looks_like_fields(m->buf, off, len);
				if (fields)
					_kbx_reg_note(m->sink, KBX_NOTE_WARNING, m->path, line, col,
						      "yaml-syntax", "file",
						      "the front matter is not valid YAML: %s%s%s: fix "
						      "the syntax (it is ignored; the rest of the file is "
						      "indexed)", problem, parser.context ? " " : "",
						      parser.context ? parser.context : "");
				yaml_parser_delete(&parser);
				return fields ? 0 : 1;
			}
			_kbx_reg_note(m->sink, KBX_NOTE_SKIPPED, m->path, line, col, "yaml-syntax", "file",
				      "the front matter is not valid YAML: %s%s%s: fix the syntax (the "
				      "whole file is skipped)", problem, parser.context ? " " : "",
				      parser.context ? parser.context : "");
			*st = _kbx_fail(err, KBX_ERR_PARSE, "cannot parse the front matter of '%s' at "
					"line %u, column %u: %s", m->path, line, col, problem);
		}
		yaml_parser_delete(&parser);
		return -1;
	}
	yaml_parser_delete(&parser);
	int rc = 0;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root || _kbx_yaml_is_null(root))
		goto out;
	if (root->type != YAML_MAPPING_NODE && m->repository) {
		rc = 1;         /* text between two thematic breaks */
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		uint32_t line = (uint32_t)(root->start_mark.line + line0) + 1;
		_kbx_reg_note(m->sink, KBX_NOTE_SKIPPED, m->path, line, KBX_YAML_COL(root->start_mark),
			      "not-a-mapping", "file",
			      "the front matter is %s, not a mapping of fields ('title: ...'): fix "
			      "it (the whole file is skipped)", _kbx_yaml_type_name(root));
		*st = _kbx_fail(err, KBX_ERR_PARSE, "the front matter of '%s' is not a mapping", m->path);
		rc = -1;
		goto out;
	}
	char **dst[] = { &m->id, &m->title, &m->category, &m->lang };
	for (size_t i = 0; i < sizeof(string_keys) / sizeof(string_keys[0]); i++) {
		yaml_node_t *v = _kbx_yaml_get(&doc, root, string_keys[i], NULL);
		if (!v || _kbx_yaml_is_null(v))
			continue;
		if (v->type != YAML_SCALAR_NODE || _kbx_yaml_has_nul(v)) {
			_kbx_reg_note(m->sink, KBX_NOTE_WARNING, m->path,
				      (uint32_t)(v->start_mark.line + line0) + 1, KBX_YAML_COL(v->start_mark),
				      "bad-field", "file",
				      "'%s' in the front matter must be a single value, not %s: fix it "
				      "(it is ignored)", string_keys[i],
				      _kbx_yaml_has_nul(v) ? "text with a NUL character" :
				      _kbx_yaml_type_name(v));
			continue;
		}
		if (!*(const char *)v->data.scalar.value)
			continue;
		if (!(*dst[i] = dup_scalar(v)))
			m->nomem = 1;
	}
	yaml_node_t *v = _kbx_yaml_get(&doc, root, "tags", NULL), *bad = NULL;
	if (v && !_kbx_yaml_is_null(v)) {
		struct strbuf sb = STRBUF_INIT;
		if (_kbx_yaml_join_list(&doc, v, &sb, ",", &bad) < 0) {
			_kbx_reg_note(m->sink, KBX_NOTE_WARNING, m->path,
				      (uint32_t)(bad->start_mark.line + line0) + 1,
				      KBX_YAML_COL(bad->start_mark), "bad-field", "file",
				      "'tags' in the front matter must be a list of single values: fix "
				      "it (the tags are ignored)");
		} else if (sb.failed) {
			m->nomem = 1;
		} else {
			m->tags = strbuf_detach(&sb, NULL);
		}
		strbuf_release(&sb);
	}
	if (m->category) {
		int t = kbx_chunk_type_parse(m->category);
		yaml_node_t *cv = _kbx_yaml_get(&doc, root, "category", NULL);
		if (t && t != KBX_CHUNK_CODE) {
			m->type = t;
		} else {
			_kbx_reg_note(m->sink, KBX_NOTE_WARNING, m->path,
				      (uint32_t)(cv->start_mark.line + line0) + 1,
				      KBX_YAML_COL(cv->start_mark), "unknown-category", "file",
				      "unknown category '%.100s': write pattern, adr, doc, behavioral or "
				      "error (the document is taken as a %s)", m->category,
				      kbx_chunk_type_str(m->type));
		}
	}
out:
	yaml_document_delete(&doc);
	return rc;
}

/* Is s the line "---" (or "..." when dots), blanks allowed after? */
static int is_fence(const char *s, const char *end, int dots)
{
	if (end - s < 3 || memcmp(s, dots ? "..." : "---", 3))
		return 0;
	for (s += 3; s < end; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	return 1;
}

/* ---- chunks ---- */

/* Is a an ancestor of b ("" of everything, "A" of "A > B")? */
static int path_within(const char *a, const char *b)
{
	size_t al = strlen(a);
	return !al || (!strncmp(a, b, al) && !strncmp(b + al, " > ", 3));
}

static int emit(struct mdoc *m, size_t b0, size_t b1, uint32_t seq, const char *heading,
		struct strbuf *text)
{
	size_t first = m->blocks[b0].first, last = m->blocks[b1].last;
	while (first < last && _kbx_lines_blank(&m->lines, m->buf, first))
		first++;
	while (last > first && _kbx_lines_blank(&m->lines, m->buf, last))
		last--;
	strbuf_reset(text);
	strbuf_addstr(text, m->title);
	strbuf_addch(text, '\n');
	if (*heading) {
		strbuf_addstr(text, heading);
		strbuf_addch(text, '\n');
	}
	strbuf_addch(text, '\n');
	size_t s = m->lines.start[first], e = m->lines.start[last + 1], at = text->len;
	strbuf_add(text, m->buf + s, e - s);
	/* the text is a C string: a NUL in the file reads as a blank */
	if (!text->failed)
		for (size_t i = at; i < text->len; i++)
			if (!text->buf[i])
				text->buf[i] = ' ';
	if (text->len && text->buf[text->len - 1] != '\n')
		strbuf_addch(text, '\n');
	if (text->failed)
		return -2;
	struct kbx_chunk c;
	memset(&c, 0, sizeof(c));
	c.type = m->type;
	c.doc_id = m->id ? m->id : m->path;
	c.seq = seq;
	c.title = m->title;
	c.heading = heading;
	c.path = m->path;
	c.line = (uint32_t)first + 1;
	c.end_line = (uint32_t)last + 1;
	c.lang = m->lang ? m->lang : "";
	c.tags = m->tags ? m->tags : "";
	c.category = m->category ? m->category : "";
	c.severity = c.pattern = c.cause = c.fix = c.related = "";
	c.text = text->buf;
	c.text_len = text->len;
	return m->sink->chunk(m->sink->data, &c) ? -1 : 0;
}

/* Name one more section side by side in a chunk's heading: "A; B".
 * *joined is the heading's memory when it is not a section's path.
 * Returns 1 when out of memory. */
static int join_heading(const char **heading, char **joined, const char *path)
{
	if (!*path)
		return 0;
	size_t hl = strlen(*heading), pl = strlen(path);
	char *j = malloc(hl + pl + 3);
	if (!j)
		return 1;
	memcpy(j, *heading, hl);
	if (hl) {
		memcpy(j + hl, "; ", 2);
		hl += 2;
	}
	memcpy(j + hl, path, pl + 1);
	free(*joined);
	*joined = j;
	*heading = j;
	return 0;
}

/* Pack the blocks into chunks and send them.  0, -1 stopped, -2 no memory. */
static int make_chunks(struct mdoc *m)
{
	struct chunk_run {
		size_t b0, b1, bytes;
		const char *heading;
		char *joined;   /* owned: the headings of sections side by side */
	} *runs = calloc(m->nblocks, sizeof(*runs));
	if (!runs)
		return -2;
	int nomem = 0;
	size_t nruns = 0;
	int chain = 0;          /* the merged sections so far are ancestors of each other */
	for (size_t i = 0; i < m->nblocks; i++) {
		const struct block *b = &m->blocks[i];
		size_t bytes = span_bytes(m, b->first, b->last);
		const char *path = m->sections[b->section].path;
		struct chunk_run *cur = nruns ? &runs[nruns - 1] : NULL;
		int fresh = !cur;
		if (cur && b->heading && cur->bytes >= KBX_MD_MIN)
			fresh = 1;
		if (cur && !b->heading && cur->bytes >= KBX_MD_MIN && cur->bytes + bytes > KBX_MD_MAX)
			fresh = 1;
		if (fresh) {
			cur = &runs[nruns++];
			cur->b0 = i;
			cur->bytes = 0;
			cur->heading = path;
			chain = 1;
		} else if (b->heading) {
			if (chain && path_within(cur->heading, path)) {
				cur->heading = path;
			} else {
				chain = 0;
				nomem |= join_heading(&cur->heading, &cur->joined, path);
			}
		}
		cur->b1 = i;
		cur->bytes += bytes;
	}
	if (nruns > 1 && runs[nruns - 1].bytes < KBX_MD_MIN &&
	    runs[nruns - 2].bytes + runs[nruns - 1].bytes <= KBX_MD_MAX) {
		runs[nruns - 2].b1 = runs[nruns - 1].b1;
		nomem |= join_heading(&runs[nruns - 2].heading, &runs[nruns - 2].joined,
				      runs[nruns - 1].heading);
		free(runs[nruns - 1].joined);
		nruns--;
	}
	struct strbuf text = STRBUF_INIT;
	int rc = nomem ? -2 : 0;
	for (size_t r = 0; r < nruns && !rc; r++)
		rc = emit(m, runs[r].b0, runs[r].b1, (uint32_t)r, runs[r].heading, &text);
	strbuf_release(&text);
	for (size_t r = 0; r < nruns; r++)
		free(runs[r].joined);
	free(runs);
	return rc;
}

/* cmark's allocations: it uses what they return without a look, so a
 * refusal ends the process (_kbx_nomem_fatal) instead of a crash */
static void *md_calloc(size_t n, size_t size)
{
	void *p = calloc(n, size);
	if (!p && n && size)
		_kbx_nomem_fatal("parsing Markdown");
	return p;
}

static void *md_realloc(void *old, size_t n)
{
	void *p = realloc(old, n);
	if (!p && n)
		_kbx_nomem_fatal("parsing Markdown");
	return p;
}

static cmark_mem md_mem = { md_calloc, md_realloc, free };

/* Cut the body (file lines from body_line0 on) into blocks and sections. */
static void read_body(struct mdoc *m, size_t body_off, size_t body_line0)
{
	cmark_parser *parser = cmark_parser_new_with_mem(CMARK_OPT_SOURCEPOS |
							 CMARK_OPT_VALIDATE_UTF8, &md_mem);
	cmark_parser_feed(parser, m->buf + body_off, m->len - body_off);
	cmark_node *doc = cmark_parser_finish(parser);
	cmark_parser_free(parser);
	if (!doc) {
		m->nomem = 1;
		return;
	}
	char *stack[7] = { NULL };
	int first_heading = 1;
	size_t last_line = m->lines.n - 1;
	for (cmark_node *n = cmark_node_first_child(doc); n && !m->nomem; n = cmark_node_next(n)) {
		int sl = cmark_node_get_start_line(n);
		if (sl <= 0)
			continue;
		size_t first = (size_t)sl - 1 + body_line0;
		if (first > last_line)
			break;
		/* the span of the block before ends where this one starts */
		if (m->nblocks && m->blocks[m->nblocks - 1].first >= first)
			continue;
		if (m->nblocks)
			m->blocks[m->nblocks - 1].last = first - 1;
		else if (first > body_line0)
			first = body_line0;
		int heading = cmark_node_get_type(n) == CMARK_NODE_HEADING;
		if (heading) {
			int level = cmark_node_get_heading_level(n);
			if (level < 1 || level > 6)
				level = 6;
			char *t = heading_text(n);
			if (!t) {
				m->nomem = 1;
				break;
			}
			if (!m->title && *t && !(m->title = strdup(t))) {
				free(t);
				m->nomem = 1;
				break;
			}
			if (first_heading && level == 1) {
				free(t);
				t = strdup("");
				if (!t) {
					m->nomem = 1;
					break;
				}
				for (int l = 1; l < 7; l++) {
					free(stack[l]);
					stack[l] = NULL;
				}
			} else {
				for (int l = level; l < 7; l++) {
					free(stack[l]);
					stack[l] = NULL;
				}
				stack[level] = t;
				t = NULL;
			}
			first_heading = 0;
			struct strbuf p = STRBUF_INIT;
			for (int l = 1; l < 7; l++) {
				if (!stack[l] || !*stack[l])
					continue;
				if (p.len)
					strbuf_addstr(&p, " > ");
				strbuf_addstr(&p, stack[l]);
			}
			free(t);
			add_section(m, p.failed ? NULL : strdup(strbuf_str(&p)));
			strbuf_release(&p);
		} else if (!m->nsections) {
			add_section(m, strdup(""));     /* text before any heading */
		}
		if (m->nomem)
			break;
		add_block(m, first, last_line, heading);
	}
	for (int l = 0; l < 7; l++)
		free(stack[l]);
	cmark_node_free(doc);
	if (m->nomem)
		return;

	/* cut huge blocks at line boundaries */
	for (size_t i = 0; i < m->nblocks && !m->nomem; i++) {
		struct block *b = &m->blocks[i];
		size_t bytes = span_bytes(m, b->first, b->last);
		if (bytes <= (b->cut ? KBX_MD_MAX : KBX_MD_HUGE) || b->first == b->last)
			continue;
		size_t l = b->first;
		while (l < b->last && span_bytes(m, b->first, l + 1) <= KBX_MD_MAX)
			l++;
		/* b keeps lines first..l, a new block after it the rest */
		struct block rest = { l + 1, b->last, b->section, 0, 1 };
		b->last = l;
		if (rest.first > rest.last)
			continue;
		add_block(m, 0, 0, 0);
		if (m->nomem)
			break;
		memmove(&m->blocks[i + 2], &m->blocks[i + 1], (m->nblocks - i - 2) * sizeof(*m->blocks));
		m->blocks[i + 1] = rest;
	}
}

kbx_status_t _kbx_registry_parse_markdown(const char *path, const char *buf, size_t len,
					  int type_default, int repository,
					  const struct kbx_chunk_sink *sink, struct kbx_error *err)
{
	if (err) {
		err->status = KBX_OK;
		err->msg[0] = '\0';
	}
	struct mdoc m;
	memset(&m, 0, sizeof(m));
	m.path = path;
	m.buf = buf;
	m.len = len;
	m.sink = sink;
	m.type = type_default ? type_default : KBX_CHUNK_DOC;
	m.repository = repository;
	kbx_status_t st = KBX_OK;
	if (_kbx_lines_init(&m.lines, buf, len) < 0)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");

	size_t body_off = 0, body_line0 = 0;
	size_t bom = len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
	if (m.lines.n && is_fence(buf + bom, buf + m.lines.start[1], 0)) {
		size_t close = 1;
		while (close < m.lines.n &&
		       !is_fence(buf + m.lines.start[close], buf + m.lines.start[close + 1], 0) &&
		       !is_fence(buf + m.lines.start[close], buf + m.lines.start[close + 1], 1))
			close++;
		if (close == m.lines.n && repository) {
			close = 0;      /* a thematic break: no front matter */
		} else if (close == m.lines.n) {
			_kbx_reg_note(sink, KBX_NOTE_SKIPPED, path, 1, 1, "yaml-syntax", "file",
				      "the front matter that starts at line 1 has no closing '---' "
				      "line: add one (the whole file is skipped)");
			st = _kbx_fail(err, KBX_ERR_PARSE, "the front matter of '%s' is not closed",
				       path);
			goto out;
		}
		int fm = close ? front_matter(&m, m.lines.start[1],
					      m.lines.start[close] - m.lines.start[1], 1, &st, err)
			       : 1;
		if (fm < 0)
			goto out;
		if (!fm) {
			body_line0 = close + 1;
			body_off = m.lines.start[body_line0];
		}
	}
	if (m.nomem)
		goto nomem;
	if (body_line0 < m.lines.n)
		read_body(&m, body_off, body_line0);
	if (m.nomem)
		goto nomem;
	if (!m.title) {
		const char *base = strrchr(path, '/');
		base = base ? base + 1 : path;
		const char *dot = strrchr(base, '.');
		size_t bl = dot && dot > base ? (size_t)(dot - base) : strlen(base);
		if (!(m.title = strndup(base, bl)))
			goto nomem;
	}
	/* a body of blank lines only has nothing to find */
	size_t l;
	for (l = body_line0; l < m.lines.n; l++)
		if (!_kbx_lines_blank(&m.lines, buf, l))
			break;
	if (l < m.lines.n && m.nblocks) {
		int rc = make_chunks(&m);
		if (rc == -2)
			goto nomem;
		if (rc == -1)
			st = (err && err->status != KBX_OK) ? err->status :
			     _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	goto out;
nomem:
	st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
out:
	for (size_t i = 0; i < m.nsections; i++)
		free(m.sections[i].path);
	free(m.sections);
	free(m.blocks);
	free(m.id);
	free(m.title);
	free(m.category);
	free(m.lang);
	free(m.tags);
	_kbx_lines_release(&m.lines);
	return st;
}
