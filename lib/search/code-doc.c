/*
 * A code chunk's documentation weighs more than its body's words.
 *
 * A code chunk's text is its definition's lines with the comment above
 * them (and, for a C function documented where it is declared, that
 * comment appended: sync.c).  Embedded whole, the comment's words are a
 * few among the body's identifiers, and a question worded like the
 * comment ("the definitions in a given version of a file's text") comes
 * out far from a chunk whose comment says nearly that (a cosine of 0.10
 * against 0.53 for the comment alone, with the builtin embedding).  So a
 * code chunk that has a documentation part is embedded twice, whole and
 * that part alone, and its vector is the normalised sum of the two unit
 * vectors: a question near either is near the chunk.  A chunk without
 * one keeps the vector of its text.  Its BM25 terms count the
 * documentation twice (chunk-store.c) for the same reason.
 *
 * The documentation part is read from the text alone, so that the same
 * text always gets the same vector and the same cache key wherever it is
 * looked up: the comment lines it starts with, a docstring right after
 * its first lines (Python's and others' triple-quoted strings), and the
 * comment lines it ends with (the declaration's comment appended).
 *
 * A code chunk's name (its title: the qualified name it defines) leans
 * the same way, first: its text's vector is the normalised sum of the
 * text's unit vector and half the name's (before the documentation's
 * is added), and BM25 counts the name's words twice more
 * (chunk-store.c).  A question often says what a function does in the
 * words of its name, which its text says once among all the others.
 * The name is part of the vector cache's key (sync.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"
#include "embed/embed.h"

/* the weight of the name's unit vector in the first sum (chosen on the
 * dev questions: 0.5, 0.75 and 1 tried), and of the documentation's in
 * the second */
#define DOC_WEIGHT 1.0f
#define NAME_WEIGHT 0.5f
/* lines looked down for a docstring, and a docstring's length at most */
#define DOCSTRING_WITHIN 4
#define DOCSTRING_LINES 40
/* a part shorter than this says too little to lean on */
#define DOC_MIN 12

/* The end of the line starting at p (after its newline), at most end. */
static const char *line_end(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	return nl ? nl + 1 : end;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

int _kbx_comment_text(const char *p, const char *end)
{
	p = skip_blank(p, end);
	if (p >= end || *p == '\n' || *p == '\r')
		return 0;
	return *p == '#' || *p == '@' || (*p == '/' && p + 1 < end && (p[1] == '/' || p[1] == '*')) ||
	       *p == '*' || (p + 1 < end && p[0] == '-' && p[1] == '-');
}

/* The triple quote a line starts with ("""  or '''), after an optional
 * r/b/u prefix, or NULL. */
static const char *docstring_open(const char *p, const char *end)
{
	p = skip_blank(p, end);
	if (p < end && (*p == 'r' || *p == 'R' || *p == 'u' || *p == 'U' || *p == 'b'))
		p++;
	if (end - p >= 3 && (p[0] == '"' || p[0] == '\'') && p[1] == p[0] && p[2] == p[0])
		return p;
	return NULL;
}

/* The docstring in the first lines after the first one of [p, end):
 * [*a, *b), or 0. */
static int find_docstring(const char *p, const char *end, const char **a, const char **b)
{
	p = line_end(p, end);
	for (int i = 0; i < DOCSTRING_WITHIN && p < end; i++, p = line_end(p, end)) {
		const char *q = docstring_open(p, end);
		if (!q)
			continue;
		char quote = *q;
		const char *s = q + 3, *lim = p;
		for (int n = 0; n < DOCSTRING_LINES && lim < end; n++)
			lim = line_end(lim, end);
		for (; s + 2 < lim; s++)
			if (s[0] == quote && s[1] == quote && s[2] == quote) {
				*a = q + 3;
				*b = s;
				return 1;
			}
		return 0;
	}
	return 0;
}

/* A line of documentation: a comment, not an annotation (@, #[) nor a
 * preprocessor line (#define). */
static int doc_line(const char *p, const char *end)
{
	p = skip_blank(p, end);
	if (!_kbx_comment_text(p, end) || *p == '@')
		return 0;
	if (*p == '#')
		return p + 1 >= end || p[1] == ' ' || p[1] == '\t' || p[1] == '#' ||
		       p[1] == '\n' || p[1] == '\r';
	return 1;
}

static void add_doc(struct strbuf *out, size_t *n, const char *p, size_t len)
{
	if (out) {
		strbuf_add(out, p, len);
		if (len && p[len - 1] != '\n')
			strbuf_addch(out, '\n');
	}
	*n += len;
}

size_t _kbx_code_doc(const char *text, size_t len, struct strbuf *out)
{
	const char *end = text + len, *p = text, *e;
	size_t n = 0, at = out ? out->len : 0;
	/* the comment lines it starts with, its annotations left out */
	for (; p < end && _kbx_comment_text(p, end); p = e) {
		e = line_end(p, end);
		if (doc_line(p, end))
			add_doc(out, &n, p, (size_t)(e - p));
	}
	const char *a, *b;
	if (p < end && find_docstring(p, end, &a, &b) && b > a)
		add_doc(out, &n, a, (size_t)(b - a));
	/* the comment lines it ends with, after something that is not one */
	const char *tail = end, *q = end;
	while (q > p) {
		const char *ls = q - 1;
		if (ls > p && *ls == '\n')
			ls--;
		while (ls > p && ls[-1] != '\n')
			ls--;
		if (!doc_line(ls, q))
			break;
		tail = q = ls;
	}
	if (tail > p && tail < end)
		add_doc(out, &n, tail, (size_t)(end - tail));
	if (n < DOC_MIN) {
		if (out)
			strbuf_setlen(out, at);
		return 0;
	}
	return n;
}

int _kbx_code_doc_leans(int type, const char *text, size_t len)
{
	return type == KBX_CHUNK_CODE && _kbx_code_doc(text, len, NULL) > 0;
}

const char *_kbx_code_name(int type, const char *title)
{
	return type == KBX_CHUNK_CODE && title && *title ? title : NULL;
}

/* Each vector out[of[j]] (of dimension dim) plus weight times part j of
 * pv, normalised. */
static void lean_on(float *out, const size_t *of, size_t m, const float *pv, uint32_t dim,
		    float weight)
{
	for (size_t j = 0; j < m; j++) {
		float *v = out + of[j] * (size_t)dim;
		const float *d = pv + j * (size_t)dim;
		double norm = 0;
		for (uint32_t k = 0; k < dim; k++) {
			v[k] += weight * d[k];
			norm += (double)v[k] * v[k];
		}
		if (norm > 0) {
			float s = (float)(1.0 / sqrt(norm));
			for (uint32_t k = 0; k < dim; k++)
				v[k] *= s;
		}
	}
}

kbx_status_t _kbx_embed_chunks(kbx_embedder_t *e, size_t n, const char *const *texts,
			       const size_t *lens, const unsigned char *types,
			       const char *const *titles, uint32_t dim, float *out,
			       struct kbx_error *err)
{
	kbx_status_t st = _kbx_embed(e, n, texts, lens, 0, out, err);
	if (st || !types)
		return st;
	/* the names, then the documentation parts (joined a chunk at a
	 * time), each leaned on in turn: parts[0..m) of chunks of[0..m).
	 * The documentation last, so that it weighs as much as the text
	 * and the name together: where a chunk has one, its words are the
	 * nearest to what a question says. */
	char **docs = calloc(n + 1, sizeof(*docs));
	const char **parts = calloc(n + 1, sizeof(*parts));
	size_t *dl = calloc(n + 1, sizeof(*dl)), *of = calloc(n + 1, sizeof(*of)), m = 0;
	float *pv = malloc((n + 1) * (size_t)dim * sizeof(float));
	if (!docs || !parts || !dl || !of || !pv) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; titles && i < n; i++) {
		const char *name = _kbx_code_name(types[i], titles[i]);
		if (!name)
			continue;
		parts[m] = name;
		dl[m] = strlen(name);
		of[m++] = i;
	}
	if (m && (st = _kbx_embed(e, m, parts, dl, 0, pv, err)))
		goto out;
	lean_on(out, of, m, pv, dim, NAME_WEIGHT);
	m = 0;
	for (size_t i = 0; i < n; i++) {
		struct strbuf sb;
		strbuf_init(&sb);
		if (types[i] != KBX_CHUNK_CODE || !_kbx_code_doc(texts[i], lens[i], &sb)) {
			strbuf_release(&sb);
			continue;
		}
		if (sb.failed) {
			strbuf_release(&sb);
			st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
			goto out;
		}
		dl[m] = sb.len;
		docs[m] = strbuf_detach(&sb, NULL);
		parts[m] = docs[m];
		of[m++] = i;
	}
	if (m && (st = _kbx_embed(e, m, parts, dl, 0, pv, err)))
		goto out;
	lean_on(out, of, m, pv, dim, DOC_WEIGHT);
out:
	for (size_t j = 0; docs && j < n; j++)
		free(docs[j]);
	free(docs);
	free(parts);
	free(dl);
	free(of);
	free(pv);
	return st;
}
