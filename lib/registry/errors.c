/*
 * Error registries: YAML lists of error entries, one chunk each.
 *
 *   - id: "py-key-001"            required, unique within the file
 *     error_type: "KeyError"      required (the chunk's title)
 *     severity: "warning"         required, kept as written
 *     pattern: "KeyError: (.+)"   required, a Python regular expression
 *     cause: ...                  required
 *     fix_template: ...           required
 *     tags: [dict, lookup]        optional: every entry of the reference
 *                                 registries has tags, but an entry
 *                                 without them is still worth finding
 *     related_errors: [...]       optional
 *     language: "all"             optional, else the directory's
 *
 * A list given as a single value (tags: dict) is a list of one.  Unknown
 * keys are ignored, so that registries can grow fields without breaking
 * older readers.  The whole file is loaded before anything is sent to
 * the sink: a syntax error anywhere gives no chunks at all.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "registry/parse.h"

enum field { F_ID, F_TYPE, F_SEVERITY, F_PATTERN, F_CAUSE, F_FIX, F_TAGS, F_RELATED, F_LANG, F__COUNT };

static const char *const field_names[F__COUNT] = {
	"id", "error_type", "severity", "pattern", "cause", "fix_template", "tags",
	"related_errors", "language",
};
#define F_REQUIRED F_TAGS      /* fields before this one are required */

struct efile {
	const char *path;
	const char *buf;
	const char *lang_default;
	const struct kbx_chunk_sink *sink;
	struct _kbx_lines lines;
	yaml_document_t *doc;
	/* the ids seen so far: open addressing over id node pointers */
	yaml_node_t **ids;
	size_t ids_alloc, ids_n;
	struct strbuf text, tags, related;
};


static const char *scalar(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

/* The entry first seen with id's value, or NULL after adding id.
 * Returns (yaml_node_t *)-1 when out of memory. */
static yaml_node_t *ids_check_add(struct efile *f, yaml_node_t *id)
{
	if (2 * (f->ids_n + 1) > f->ids_alloc) {
		size_t na = f->ids_alloc ? f->ids_alloc * 2 : 64;
		yaml_node_t **nt = calloc(na, sizeof(*nt));
		if (!nt)
			return (yaml_node_t *)-1;
		for (size_t i = 0; i < f->ids_alloc; i++) {
			if (!f->ids[i])
				continue;
			size_t j = _kbx_fnv1a_str(scalar(f->ids[i])) & (na - 1);
			while (nt[j])
				j = (j + 1) & (na - 1);
			nt[j] = f->ids[i];
		}
		free(f->ids);
		f->ids = nt;
		f->ids_alloc = na;
	}
	size_t j = _kbx_fnv1a_str(scalar(id)) & (f->ids_alloc - 1);
	for (; f->ids[j]; j = (j + 1) & (f->ids_alloc - 1))
		if (!strcmp(scalar(f->ids[j]), scalar(id)))
			return f->ids[j];
	f->ids[j] = id;
	f->ids_n++;
	return NULL;
}

/*
 * The pattern in words, for the searched text: escapes dropped ("\\."
 * is "."), classes, groups' syntax, anchors and quantifiers left out,
 * alternatives separated by spaces.  "Cannot read propert(?:y|ies) of
 * (undefined|null)" reads "Cannot read property ies of undefined null";
 * good enough for words, which is all the text is for.
 */
static void pattern_words(struct strbuf *sb, const char *p)
{
	size_t start = sb->len;
	while (*p) {
		char c = *p;
		if (c == '\\' && p[1]) {
			char e = p[1];
			p += 2;
			if (strchr("dDwWsSbBAZzGnrtfv", e) || (e >= '0' && e <= '9')) {
				strbuf_addch(sb, ' ');
			} else if (e == 'x' || e == 'u' || e == 'U' || e == 'N' || e == 'p' || e == 'P') {
				/* \xhh, \uhhhh, \N{...}, \p{...}: not words */
				if (*p == '{')
					while (*p && *p != '}')
						p++;
				else
					while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') ||
					       (*p >= 'A' && *p <= 'F'))
						p++;
				if (*p == '}')
					p++;
				strbuf_addch(sb, ' ');
			} else {
				strbuf_addch(sb, e);
			}
			continue;
		}
		if (c == '[') {
			/* a class: skip to its closing bracket ("[]]" and "[^]]"
			 * hold a literal one) */
			p++;
			if (*p == '^')
				p++;
			if (*p == ']')
				p++;
			while (*p && *p != ']')
				p += (*p == '\\' && p[1]) ? 2 : 1;
			if (*p)
				p++;
			strbuf_addch(sb, ' ');
			continue;
		}
		if (c == '(' && p[1] == '?') {
			/* (?:  (?P<name>  (?<name>  (?=  (?!  (?i) ... */
			p += 2;
			if (*p == 'P' && p[1] == '<')
				p++;
			if (*p == '<' && p[1] != '=' && p[1] != '!') {
				while (*p && *p != '>')
					p++;
				if (*p)
					p++;
			} else if (*p == 'P' && p[1] == '=') {
				while (*p && *p != ')')
					p++;
			} else {
				while (*p && strchr(":=!<>aiLmsux-", *p)) {
					p++;
					if (p[-1] == ':' || p[-1] == '=' || p[-1] == '!')
						break;
				}
			}
			continue;
		}
		if (c == '{') {
			const char *q = p + 1;
			while ((*q >= '0' && *q <= '9') || *q == ',')
				q++;
			if (*q == '}' && q > p + 1) {
				p = q + 1;
				continue;
			}
		}
		if (c == '.' && (p[1] == '*' || p[1] == '+' || p[1] == '?')) {
			strbuf_addch(sb, ' ');
			p += 2;
			continue;
		}
		if (strchr("()^$*+?|", c))
			strbuf_addch(sb, c == '|' ? ' ' : '\0');
		else
			strbuf_addch(sb, c);
		p++;
		if (sb->len > start && sb->buf[sb->len - 1] == '\0')
			strbuf_setlen(sb, sb->len - 1);
	}
	/* squeeze blanks */
	size_t w = start;
	int blank = 1;
	for (size_t r = start; r < sb->len; r++) {
		char ch = sb->buf[r];
		if (ch == ' ' || ch == '\t') {
			if (!blank)
				sb->buf[w++] = ' ';
			blank = 1;
		} else {
			sb->buf[w++] = ch;
			blank = 0;
		}
	}
	if (w > start && sb->buf[w - 1] == ' ')
		w--;
	strbuf_setlen(sb, w);
}

/* Where a node's text ends: the end of its last scalar for block
 * collections, whose own end mark lies at the next token. */
static yaml_mark_t node_end(yaml_document_t *doc, yaml_node_t *n, int depth)
{
	if (depth < 32 && n->type == YAML_SEQUENCE_NODE &&
	    n->data.sequence.style == YAML_BLOCK_SEQUENCE_STYLE &&
	    n->data.sequence.items.top > n->data.sequence.items.start) {
		yaml_node_t *last = _kbx_yaml_node(doc, n->data.sequence.items.top[-1]);
		if (last)
			return node_end(doc, last, depth + 1);
	}
	if (depth < 32 && n->type == YAML_MAPPING_NODE &&
	    n->data.mapping.style == YAML_BLOCK_MAPPING_STYLE &&
	    n->data.mapping.pairs.top > n->data.mapping.pairs.start) {
		yaml_node_t *last = _kbx_yaml_node(doc, n->data.mapping.pairs.top[-1].value);
		if (last)
			return node_end(doc, last, depth + 1);
	}
	return n->end_mark;
}

/* The last line (1-based) of an entry starting at line first: where its
 * text ends, less the blank lines a block scalar takes in. */
static uint32_t entry_end_line(struct efile *f, yaml_node_t *map, uint32_t first)
{
	yaml_mark_t m = node_end(f->doc, map, 0);
	size_t line = m.line;   /* 0-based */
	/* a mark at the start of a line (or after its indentation only)
	 * ends the line before */
	if (line < f->lines.n) {
		size_t s = f->lines.start[line], p = s;
		while (p < f->lines.start[line + 1] && (f->buf[p] == ' ' || f->buf[p] == '\t'))
			p++;
		if (m.column == 0 || p - s >= m.column)
			line = line ? line - 1 : 0;
	} else if (f->lines.n) {
		line = f->lines.n - 1;
	}
	while (line + 1 > first && _kbx_lines_blank(&f->lines, f->buf, line))
		line--;
	return line + 1 < first ? first : (uint32_t)line + 1;
}

/* A string field: its node, checked.  0 fine, 1 missing, 2 bad, 3 blank. */
static int check_string(yaml_node_t *v)
{
	if (!v || _kbx_yaml_is_null(v))
		return 1;
	if (v->type != YAML_SCALAR_NODE || _kbx_yaml_has_nul(v))
		return 2;
	const char *s = scalar(v);
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return *s ? 0 : 3;
}

/* Text a chunk carries: without the final line break block scalars have. */
static char *trimmed(yaml_node_t *v, struct strbuf *keep)
{
	strbuf_reset(keep);
	if (!v || v->type != YAML_SCALAR_NODE || _kbx_yaml_is_null(v))
		return (char *)"";
	size_t len = v->data.scalar.length;
	const char *s = scalar(v);
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\r'))
		len--;
	strbuf_add(keep, s, len);
	return keep->failed ? NULL : keep->buf ? keep->buf : (char *)"";
}

enum { E_OK = 0, E_SKIP = 1, E_STOP = -1, E_NOMEM = -2 };

static int do_entry(struct efile *f, yaml_node_t *map, size_t pos)
{
	const struct kbx_chunk_sink *sink = f->sink;
	uint32_t line = KBX_YAML_LINE(map->start_mark), col = KBX_YAML_COL(map->start_mark);
	yaml_node_t *v[F__COUNT];
	for (int i = 0; i < F__COUNT; i++)
		v[i] = _kbx_yaml_get(f->doc, map, field_names[i], NULL);

	/* how notes name the entry */
	char name[160];
	if (check_string(v[F_ID]) == 0)
		snprintf(name, sizeof(name), "entry '%.100s'", scalar(v[F_ID]));
	else
		snprintf(name, sizeof(name), "entry %zu (line %u)", pos, line);

	for (int i = 0; i < F__COUNT; i++) {
		int bad;
		if (i < F_REQUIRED) {
			bad = check_string(v[i]);
		} else if (!v[i] || _kbx_yaml_is_null(v[i])) {
			bad = 0;
		} else if (i == F_LANG) {
			bad = check_string(v[i]) == 2 ? 2 : 0;
		} else {
			struct strbuf tmp = STRBUF_INIT;
			yaml_node_t *badn = NULL;
			bad = _kbx_yaml_join_list(f->doc, v[i], &tmp, ",", &badn) ? 2 : 0;
			strbuf_release(&tmp);
			if (bad) {
				if (badn == v[i])
					_kbx_reg_note(sink, KBX_NOTE_SKIPPED, f->path,
						      KBX_YAML_LINE(badn->start_mark),
						      KBX_YAML_COL(badn->start_mark), "bad-field", "entry",
						      "%s: '%s' must be a list, not %s: fix the entry "
						      "(it is skipped)", name, field_names[i],
						      _kbx_yaml_type_name(badn));
				else
					_kbx_reg_note(sink, KBX_NOTE_SKIPPED, f->path,
						      KBX_YAML_LINE(badn->start_mark),
						      KBX_YAML_COL(badn->start_mark), "bad-field", "entry",
						      "%s: an item of '%s' is %s: items must be single "
						      "values (the entry is skipped)", name, field_names[i],
						      _kbx_yaml_has_nul(badn) ? "text with a NUL character" :
						      _kbx_yaml_type_name(badn));
				return E_SKIP;
			}
		}
		if (bad == 1 || bad == 3) {
			_kbx_reg_note(sink, KBX_NOTE_SKIPPED, f->path, line, col, "missing-field", "entry",
				      "%s has %s '%s': %s (the entry is skipped)", name,
				      bad == 1 ? "no" : "an empty", field_names[i],
				      bad == 1 ? "add it" : "fill it in");
			return E_SKIP;
		}
		if (bad == 2) {
			_kbx_reg_note(sink, KBX_NOTE_SKIPPED, f->path, KBX_YAML_LINE(v[i]->start_mark),
				      KBX_YAML_COL(v[i]->start_mark), "bad-field", "entry",
				      "%s: '%s' must be a single value, not %s%s: fix the entry "
				      "(it is skipped)", name, field_names[i],
				      _kbx_yaml_has_nul(v[i]) ? "text with" : _kbx_yaml_type_name(v[i]),
				      _kbx_yaml_has_nul(v[i]) ? " a NUL character" : "");
			return E_SKIP;
		}
	}

	yaml_node_t *first = ids_check_add(f, v[F_ID]);
	if (first == (yaml_node_t *)-1)
		return E_NOMEM;
	if (first) {
		_kbx_reg_note(sink, KBX_NOTE_SKIPPED, f->path, KBX_YAML_LINE(v[F_ID]->start_mark),
			      KBX_YAML_COL(v[F_ID]->start_mark), "duplicate-id", "entry",
			      "id '%.100s' at line %u is already used at line %u: give one of them "
			      "another id (the entry at line %u is skipped)", scalar(v[F_ID]),
			      KBX_YAML_LINE(v[F_ID]->start_mark), KBX_YAML_LINE(first->start_mark),
			      KBX_YAML_LINE(v[F_ID]->start_mark));
		return E_SKIP;
	}

	/* Python's re on str patterns: Unicode classes (\d, \w), \uhhhh
	 * escapes; (?P<name>) is PCRE2's too. */
	const char *pattern = scalar(v[F_PATTERN]);
	int errcode;
	PCRE2_SIZE erroff;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, v[F_PATTERN]->data.scalar.length,
				       PCRE2_UTF | PCRE2_UCP | PCRE2_ALT_BSUX, &errcode, &erroff, NULL);
	if (re) {
		pcre2_code_free(re);
	} else {
		if (errcode == PCRE2_ERROR_NOMEMORY)
			return E_NOMEM;
		PCRE2_UCHAR msg[256];
		if (pcre2_get_error_message(errcode, msg, sizeof(msg)) < 0)
			strcpy((char *)msg, "error");
		_kbx_reg_note(sink, KBX_NOTE_WARNING, f->path, KBX_YAML_LINE(v[F_PATTERN]->start_mark),
			      KBX_YAML_COL(v[F_PATTERN]->start_mark), "bad-pattern", "entry",
			      "%s: the pattern does not compile (%s, at offset %zu): fix the regular "
			      "expression (the entry is kept, without its pattern)", name,
			      (const char *)msg, (size_t)erroff);
		pattern = "";
	}

	strbuf_reset(&f->tags);
	strbuf_reset(&f->related);
	yaml_node_t *dummy;
	if (v[F_TAGS])
		_kbx_yaml_join_list(f->doc, v[F_TAGS], &f->tags, ",", &dummy);
	if (v[F_RELATED])
		_kbx_yaml_join_list(f->doc, v[F_RELATED], &f->related, ",", &dummy);

	struct strbuf cause = STRBUF_INIT, fix = STRBUF_INIT;
	const char *cause_s = trimmed(v[F_CAUSE], &cause), *fix_s = trimmed(v[F_FIX], &fix);

	/* what is searched: the type, the message in words, why, how to fix */
	struct strbuf *t = &f->text;
	strbuf_reset(t);
	strbuf_addstr(t, scalar(v[F_TYPE]));
	strbuf_addch(t, '\n');
	if (*pattern) {
		size_t before = t->len;
		pattern_words(t, pattern);
		if (t->len > before)
			strbuf_addch(t, '\n');
	}
	strbuf_addstr(t, cause_s ? cause_s : "");
	strbuf_addstr(t, "\n\n");
	strbuf_addstr(t, fix_s ? fix_s : "");
	strbuf_addch(t, '\n');
	if (f->tags.len) {
		strbuf_addstr(t, "\ntags: ");
		for (size_t i = 0; i < f->tags.len; i++) {
			if (f->tags.buf[i] == ',')
				strbuf_addstr(t, ", ");
			else
				strbuf_addch(t, f->tags.buf[i]);
		}
		strbuf_addch(t, '\n');
	}

	int rc = E_OK;
	if (!cause_s || !fix_s || t->failed || f->tags.failed || f->related.failed) {
		rc = E_NOMEM;
	} else {
		struct kbx_chunk c;
		memset(&c, 0, sizeof(c));
		c.type = KBX_CHUNK_ERROR;
		c.doc_id = scalar(v[F_ID]);
		c.seq = 0;
		c.title = scalar(v[F_TYPE]);
		c.heading = "";
		c.path = f->path;
		c.line = line;
		c.end_line = entry_end_line(f, map, line);
		c.lang = v[F_LANG] && !_kbx_yaml_is_null(v[F_LANG]) ? scalar(v[F_LANG]) : f->lang_default;
		c.tags = strbuf_str(&f->tags);
		c.category = "";       /* no front matter: nothing written */
		c.severity = scalar(v[F_SEVERITY]);
		c.pattern = pattern;
		c.pattern_line = KBX_YAML_LINE(v[F_PATTERN]->start_mark);
		c.cause = cause_s;
		c.fix = fix_s;
		c.related = strbuf_str(&f->related);
		c.text = strbuf_str(t);
		c.text_len = t->len;
		if (sink->chunk(sink->data, &c))
			rc = E_STOP;
	}
	strbuf_release(&cause);
	strbuf_release(&fix);
	return rc;
}

/* A document's root: 0 a list of entries or nothing, -1 anything else. */
static int root_ok(yaml_document_t *doc, yaml_node_t *root)
{
	if (_kbx_yaml_is_null(root))
		return 0;
	if (root->type != YAML_SEQUENCE_NODE)
		return -1;
	if (root->data.sequence.items.top == root->data.sequence.items.start)
		return 0;
	for (yaml_node_item_t *it = root->data.sequence.items.start; it < root->data.sequence.items.top; it++) {
		yaml_node_t *e = _kbx_yaml_node(doc, *it);
		if (e && e->type == YAML_MAPPING_NODE)
			return 0;
	}
	return -1;
}

static kbx_status_t stopped(struct kbx_error *err)
{
	if (err && err->status != KBX_OK)
		return err->status;
	return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
}

kbx_status_t _kbx_registry_parse_errors(const char *path, const char *buf, size_t len,
					const char *lang_default,
					const struct kbx_chunk_sink *sink, struct kbx_error *err)
{
	if (err) {
		err->status = KBX_OK;
		err->msg[0] = '\0';
	}
	struct efile f;
	memset(&f, 0, sizeof(f));
	f.path = path;
	f.buf = buf;
	f.lang_default = lang_default ? lang_default : "";
	f.sink = sink;
	strbuf_init(&f.text);
	strbuf_init(&f.tags);
	strbuf_init(&f.related);

	yaml_parser_t parser;
	yaml_document_t *docs = NULL;
	size_t ndocs = 0;
	kbx_status_t st = KBX_OK;
	if (!yaml_parser_initialize(&parser))
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);

	/* every document first, so that a syntax error skips the whole file */
	for (;;) {
		yaml_document_t *nd = realloc(docs, (ndocs + 1) * sizeof(*nd));
		if (!nd) {
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		docs = nd;
		if (!yaml_parser_load(&parser, &docs[ndocs])) {
			if (parser.error == YAML_MEMORY_ERROR) {
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				goto out;
			}
			const yaml_mark_t *m = &parser.problem_mark;
			const char *problem = parser.problem ? parser.problem : "syntax error";
			_kbx_reg_note(sink, KBX_NOTE_SKIPPED, path, KBX_YAML_LINE(*m), KBX_YAML_COL(*m),
				      "yaml-syntax", "file",
				      "not valid YAML: %s%s%s: fix the syntax (the whole file is skipped)",
				      problem, parser.context ? " " : "",
				      parser.context ? parser.context : "");
			st = _kbx_fail(err, KBX_ERR_PARSE, "cannot parse '%s' at line %u, column %u: %s",
				       path, KBX_YAML_LINE(*m), KBX_YAML_COL(*m), problem);
			goto out;
		}
		if (!yaml_document_get_root_node(&docs[ndocs])) {
			yaml_document_delete(&docs[ndocs]);
			break;
		}
		ndocs++;
	}
	for (size_t d = 0; d < ndocs; d++) {
		yaml_node_t *root = yaml_document_get_root_node(&docs[d]);
		if (root_ok(&docs[d], root) < 0) {
			_kbx_reg_note(sink, KBX_NOTE_SKIPPED, path, KBX_YAML_LINE(root->start_mark),
				      KBX_YAML_COL(root->start_mark), "not-a-list", "file",
				      "the file holds %s, not a list of error entries ('- id: ...'): "
				      "make it a list (the whole file is skipped)",
				      _kbx_yaml_type_name(root));
			st = _kbx_fail(err, KBX_ERR_PARSE,
				       "'%s' at line %u is not a list of error entries", path,
				       KBX_YAML_LINE(root->start_mark));
			goto out;
		}
	}

	if (_kbx_lines_init(&f.lines, buf, len) < 0) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t d = 0; d < ndocs && st == KBX_OK; d++) {
		f.doc = &docs[d];
		yaml_node_t *root = yaml_document_get_root_node(f.doc);
		if (root->type != YAML_SEQUENCE_NODE)
			continue;
		size_t pos = 0;
		for (yaml_node_item_t *it = root->data.sequence.items.start;
		     it < root->data.sequence.items.top; it++) {
			yaml_node_t *e = _kbx_yaml_node(f.doc, *it);
			pos++;
			if (!e)
				continue;
			if (e->type != YAML_MAPPING_NODE) {
				_kbx_reg_note(sink, KBX_NOTE_SKIPPED, path, KBX_YAML_LINE(e->start_mark),
					      KBX_YAML_COL(e->start_mark), "not-a-mapping", "entry",
					      "item %zu of the list is %s, not an entry ('id: ...', "
					      "'error_type: ...'): fix or remove it (it is skipped)", pos,
					      _kbx_yaml_type_name(e));
				continue;
			}
			int rc = do_entry(&f, e, pos);
			if (rc == E_NOMEM) {
				st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
				break;
			}
			if (rc == E_STOP) {
				st = stopped(err);
				break;
			}
		}
	}
out:
	for (size_t d = 0; d < ndocs; d++)
		yaml_document_delete(&docs[d]);
	free(docs);
	yaml_parser_delete(&parser);
	_kbx_lines_release(&f.lines);
	free(f.ids);
	strbuf_release(&f.text);
	strbuf_release(&f.tags);
	strbuf_release(&f.related);
	return st;
}
