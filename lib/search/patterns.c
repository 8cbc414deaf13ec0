/*
 * Error patterns: compiled once, when a registry is indexed, and stored
 * serialised (pcre2_serialize_encode), so that a search only decodes them.
 *
 * Registries write Python-syntax regular expressions.  PCRE2 reads that
 * syntax ((?:...), (?P<name>...), \d, lazy quantifiers, look-arounds).
 * Options: UTF with invalid UTF accepted in the subject (a pasted
 * terminal log may hold anything), UCP so that \d and \w mean what they
 * mean for Python's str patterns, ALT_BSUX for Python's \uhhhh (the
 * registry parser checks patterns with the same options), and MULTILINE
 * so that ^ and $ anchor at each line of a pasted stack trace.
 *
 * A stored pattern: 4 bytes of specificity (literal characters the
 * pattern needs, times 16, big-endian) and the serialised code.
 */
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "search/search.h"

#define PATTERN_OPTIONS (PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_UCP | PCRE2_ALT_BSUX | PCRE2_MULTILINE)
/* A registry pattern that backtracks without end must not hang a search. */
#define MATCH_LIMIT 1000000u
#define DEPTH_LIMIT 10000u

/*
 * How specific a pattern is: the literal characters any match must
 * contain.  Escapes of classes (\d, \w, \s, ...) and everything inside
 * [...] count nothing, an escaped character counts one; an optional or
 * repeated-from-zero atom counts nothing; of alternatives, the weakest
 * counts.  Good enough to rank "KeyError: (.+)" above "Error".
 */
static double specificity(const char *p)
{
	/* per group depth: literals of the current branch, and the minimum
	 * over the branches closed so far */
	double cur[64], best[64];
	int depth = 0;
	cur[0] = 0;
	best[0] = -1;
	double last = 0;   /* what the previous atom counted, for ? * { */
	for (size_t i = 0; p[i];) {
		char c = p[i];
		if (c == '\\' && p[i + 1]) {
			char e = p[i + 1];
			int cls = strchr("dDwWsSbBAZzGhHvVRNXpPkgQE0123456789", e) != NULL;
			last = cls ? 0 : 1;
			if (e == 'p' || e == 'P' || e == 'g' || e == 'k') {
				/* \p{..}, \g{..}, \k<..> */
				i += 2;
				if (p[i] == '{' || p[i] == '<') {
					char close = p[i] == '{' ? '}' : '>';
					while (p[i] && p[i] != close)
						i++;
					if (p[i])
						i++;
				}
			} else {
				i += 2;
			}
			cur[depth] += last;
			continue;
		}
		switch (c) {
		case '[': {
			size_t j = i + 1;
			if (p[j] == '^')
				j++;
			if (p[j] == ']')
				j++;
			while (p[j] && p[j] != ']') {
				if (p[j] == '\\' && p[j + 1])
					j++;
				j++;
			}
			i = p[j] ? j + 1 : j;
			last = 0;
			continue;
		}
		case '(':
			if (depth < 63) {
				depth++;
				cur[depth] = 0;
				best[depth] = -1;
			}
			/* (?:  (?P<name>  (?i) ... : skip the group's header */
			i++;
			if (p[i] == '?') {
				while (p[i] && p[i] != ':' && p[i] != ')' && p[i] != '>' && p[i] != '=' &&
				       p[i] != '!')
					i++;
				if (p[i] == ')') {
					/* an inline flag group (?i): it counts nothing */
					depth--;
					i++;
					last = 0;
				} else if (p[i]) {
					i++;
				}
			}
			continue;
		case ')':
			if (depth > 0) {
				double g = cur[depth];
				if (best[depth] >= 0 && best[depth] < g)
					g = best[depth];
				depth--;
				cur[depth] += g;
				last = g;
			}
			i++;
			continue;
		case '|':
			if (best[depth] < 0 || cur[depth] < best[depth])
				best[depth] = cur[depth];
			cur[depth] = 0;
			i++;
			last = 0;
			continue;
		case '?':
		case '*':
			cur[depth] -= last;
			if (cur[depth] < 0)
				cur[depth] = 0;
			last = 0;
			i++;
			if (p[i] == '?' || p[i] == '+')
				i++;
			continue;
		case '{':
			if (p[i + 1] == '0') {
				cur[depth] -= last;
				if (cur[depth] < 0)
					cur[depth] = 0;
			}
			while (p[i] && p[i] != '}')
				i++;
			if (p[i])
				i++;
			last = 0;
			continue;
		case '+':
		case '.':
		case '^':
		case '$':
			i++;
			last = 0;
			continue;
		default:
			cur[depth] += 1;
			last = 1;
			i++;
			continue;
		}
	}
	while (depth > 0) {
		double g = cur[depth];
		depth--;
		cur[depth] += g;
	}
	double r = cur[0];
	if (best[0] >= 0 && best[0] < r)
		r = best[0];
	return r;
}

int _kbx_pattern_compile(const char *pattern, struct strbuf *out, char *errbuf, size_t errsz)
{
	int ec;
	PCRE2_SIZE off;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, PATTERN_OPTIONS,
				       &ec, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[160];
		pcre2_get_error_message(ec, msg, sizeof(msg));
		if (errbuf && errsz)
			snprintf(errbuf, errsz, "%s at offset %zu", (const char *)msg, (size_t)off);
		return -1;
	}
	uint8_t *bytes = NULL;
	PCRE2_SIZE size = 0;
	const pcre2_code *list[1] = { re };
	int32_t rc = pcre2_serialize_encode(list, 1, &bytes, &size, NULL);
	pcre2_code_free(re);
	if (rc < 0) {
		if (errbuf && errsz)
			snprintf(errbuf, errsz, "cannot serialise the compiled pattern");
		return -1;
	}
	double sp = specificity(pattern);
	uint32_t q = sp * 16 > 0xfffffff ? 0xfffffff : (uint32_t)(sp * 16);
	unsigned char h[4];
	_kbx_put_u32(h, q);
	strbuf_add(out, h, 4);
	strbuf_add(out, bytes, size);
	pcre2_serialize_free(bytes);
	return out->failed ? -1 : 0;
}

static int cmp_hit(const void *a, const void *b)
{
	const struct _kbx_pattern_hit *x = a, *y = b;
	if (x->specificity != y->specificity)
		return x->specificity > y->specificity ? -1 : 1;
	if (x->len != y->len)
		return x->len > y->len ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Matching the patterns of a search, one after another. */
struct matcher {
	const char *text;
	size_t len;
	pcre2_match_context *mctx;
	pcre2_match_data *md;
	struct _kbx_pattern_hit *hits;
	size_t nh, ah;
	int failed;             /* out of memory */
};

static int matcher_init(struct matcher *m, const char *text, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->text = text;
	m->len = len;
	m->mctx = pcre2_match_context_create(NULL);
	m->md = pcre2_match_data_create(1, NULL);
	if (!m->mctx || !m->md)
		return -1;
	pcre2_set_match_limit(m->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(m->mctx, DEPTH_LIMIT);
	return 0;
}

/* Match one stored pattern (4 bytes of specificity, the serialised
 * code) of chunk id. */
static void matcher_try(struct matcher *m, uint32_t id, const void *stored, size_t size)
{
	if (size < 8 || m->failed)
		return;
	pcre2_code *re = NULL;
	/* the serialised bytes must be aligned as PCRE2 wrote them */
	void *copy = malloc(size - 4);
	if (!copy) {
		m->failed = 1;
		return;
	}
	memcpy(copy, (const char *)stored + 4, size - 4);
	int32_t dr = pcre2_serialize_decode(&re, 1, copy, NULL);
	free(copy);
	if (dr < 1)
		return;   /* written by another PCRE2: reindex fixes it */
	int mr = pcre2_match(re, (PCRE2_SPTR)m->text, m->len, 0, 0, m->md, m->mctx);
	if (mr >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
		if (m->nh == m->ah) {
			size_t na = m->ah ? m->ah * 2 : 16;
			struct _kbx_pattern_hit *nhits = realloc(m->hits, na * sizeof(*nhits));
			if (!nhits) {
				pcre2_code_free(re);
				m->failed = 1;
				return;
			}
			m->hits = nhits;
			m->ah = na;
		}
		struct _kbx_pattern_hit *h = &m->hits[m->nh++];
		h->id = id;
		h->specificity = _kbx_get_u32(stored) / 16.0;
		h->off = ov[0];
		h->len = ov[1] >= ov[0] ? ov[1] - ov[0] : 0;
	}
	pcre2_code_free(re);
}

/* The hits, most specific first, into *out; the matcher released. */
static kbx_status_t matcher_finish(struct matcher *m, kbx_status_t st,
				   struct _kbx_pattern_hit **out, size_t *n, struct kbx_error *err)
{
	pcre2_match_context_free(m->mctx);
	pcre2_match_data_free(m->md);
	if (!st && m->failed)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	if (st) {
		free(m->hits);
		return st;
	}
	if (m->nh)
		qsort(m->hits, m->nh, sizeof(*m->hits), cmp_hit);
	*out = m->hits;
	*n = m->nh;
	return KBX_OK;
}

kbx_status_t _kbx_patterns_match(struct kbx_store *s, MDB_txn *txn, const char *text,
				 size_t len, struct _kbx_pattern_hit **out, size_t *n,
				 struct kbx_error *err)
{
	*out = NULL;
	*n = 0;
	struct matcher m;
	if (matcher_init(&m, text, len))
		return matcher_finish(&m, _kbx_fail(err, KBX_ERR_NOMEM, "out of memory"), out, n, err);
	MDB_cursor *c;
	int rc = mdb_cursor_open(txn, s->patterns, &c);
	if (rc)
		return matcher_finish(&m, _kbx_fail_mdb(err, rc, "cannot read the error patterns"),
				      out, n, err);
	MDB_val k, d;
	for (rc = mdb_cursor_get(c, &k, &d, MDB_FIRST); !rc && !m.failed;
	     rc = mdb_cursor_get(c, &k, &d, MDB_NEXT))
		if (k.mv_size == 4)
			matcher_try(&m, _kbx_get_u32(k.mv_data), d.mv_data, d.mv_size);
	mdb_cursor_close(c);
	return matcher_finish(&m, KBX_OK, out, n, err);
}

struct source_match {
	struct matcher *m;
	struct strbuf code;
};

/* A pattern from the source, compiled as kbx index compiles it; one
 * that does not compile here matches nothing, as it is not stored. */
static void source_pattern(void *data, uint32_t id, const char *pattern)
{
	struct source_match *sm = data;
	strbuf_reset(&sm->code);
	if (!pattern || !*pattern || _kbx_pattern_compile(pattern, &sm->code, NULL, 0))
		return;
	matcher_try(sm->m, id, sm->code.buf, sm->code.len);
}

kbx_status_t _kbx_patterns_match_source(const struct kbx_search_source *src, const char *text,
					size_t len, struct _kbx_pattern_hit **out, size_t *n,
					struct kbx_error *err)
{
	*out = NULL;
	*n = 0;
	struct matcher m;
	if (matcher_init(&m, text, len))
		return matcher_finish(&m, _kbx_fail(err, KBX_ERR_NOMEM, "out of memory"), out, n, err);
	struct source_match sm = { &m, STRBUF_INIT };
	kbx_status_t st = src->patterns(src->data, source_pattern, &sm, err);
	if (!st && sm.code.failed)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	strbuf_release(&sm.code);
	return matcher_finish(&m, st, out, n, err);
}
