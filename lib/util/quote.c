/* Escaping and quoting untrusted text for terminals and line formats (quote.h). */
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "util/quote.h"

size_t utf8_char_len(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n, i;
	uint32_t cp;

	if (!len)
		return 0;
	if (u[0] < 0x80)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		n = 2;
		cp = u[0] & 0x1f;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		n = 3;
		cp = u[0] & 0x0f;
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		n = 4;
		cp = u[0] & 0x07;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* How many bytes at the start of s are printed as they are.  quote: the
 * rules of a path in strbuf_add_quoted_path, where '"', '\' and ':'
 * are unusual too. */
static size_t plain_span(const char *s, size_t len, unsigned flags, int quote)
{
	size_t i = 0;

	while (i < len) {
#ifdef __SSE2__
		/* sixteen bytes a step while each is printable ASCII
		 * (0x20-0x7e), and for a path none of '"', '\\' and ':':
		 * most text is; the first byte that is not is looked at below */
		if (i + 16 <= len) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
			/* signed: a byte of 0x80 or more is negative, below 0x20 */
			__m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
						   _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
			if (quote)
				bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
								     _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')),
										  _mm_cmpeq_epi8(v, _mm_set1_epi8(':')))));
			unsigned mask = (unsigned)_mm_movemask_epi8(bad);
			if (!mask) {
				i += 16;
				continue;
			}
			i += (size_t)__builtin_ctz(mask);
		}
#endif
		/* a byte a step, as tight as it goes, while printable ASCII
		 * (most names and paths are shorter than sixteen bytes) */
		if (!quote)
			while (i < len && (unsigned char)(s[i] - 0x20) < 0x5f)
				i++;
		else
			while (i < len && (unsigned char)(s[i] - 0x20) < 0x5f && s[i] != '"' &&
			       s[i] != '\\' && s[i] != ':')
				i++;
		if (i == len)
			break;
		unsigned char c = (unsigned char)s[i];
		size_t n;

		if (c < 0x20 || c == 0x7f) {
			if (!(c == '\t' && (flags & ESCAPE_KEEP_TAB)) &&
			    !(c == '\n' && (flags & ESCAPE_KEEP_NEWLINE)))
				break;
			n = 1;
		} else if (c < 0x80) {
			if (quote && (c == '"' || c == '\\' || c == ':'))
				break;
			n = 1;
		} else {
			n = utf8_char_len(s + i, len - i);
			/* U+0080-U+009F, the C1 controls, are 0xc2 0x80-0x9f */
			if (!n || (c == 0xc2 && (unsigned char)s[i + 1] < 0xa0))
				break;
		}
		i += n;
	}
	return i;
}

/* Escape what starts s, where plain_span stopped: one byte, or both
 * bytes of a C1 control written in UTF-8.  Returns the bytes used. */
static size_t escape_one(struct strbuf *sb, const char *s, size_t len)
{
	size_t n = (unsigned char)s[0] == 0xc2 && utf8_char_len(s, len) == 2 ? 2 : 1;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char oct[4] = { '\\', (char)('0' + (c >> 6)), (char)('0' + ((c >> 3) & 7)),
				(char)('0' + (c & 7)) };

		if (c == '\t')
			strbuf_add(sb, "\\t", 2);
		else if (c == '\n')
			strbuf_add(sb, "\\n", 2);
		else if (c == '\r')
			strbuf_add(sb, "\\r", 2);
		else if (c == '"' || c == '\\') {
			/* only a quoted path stops at these */
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, c);
		} else
			strbuf_add(sb, oct, sizeof(oct));
	}
	return n;
}

static void add_escaped(struct strbuf *sb, const char *s, size_t len, unsigned flags, int quote)
{
	while (len) {
		size_t n = plain_span(s, len, flags, quote);

		strbuf_add(sb, s, n);
		s += n;
		len -= n;
		if (len) {
			n = escape_one(sb, s, len);
			s += n;
			len -= n;
		}
	}
}

void strbuf_add_escaped(struct strbuf *sb, const char *s, size_t len, unsigned flags)
{
	add_escaped(sb, s, len, flags, 0);
}

int escape_needed(const char *s, size_t len, unsigned flags)
{
	return plain_span(s, len, flags, 0) < len;
}

int quote_path_needed(const char *s, size_t len)
{
	return plain_span(s, len, 0, 1) < len;
}

void strbuf_add_quoted_path(struct strbuf *sb, const char *s, size_t len)
{
	if (!quote_path_needed(s, len)) {
		strbuf_add(sb, s, len);
		return;
	}
	strbuf_addch(sb, '"');
	add_escaped(sb, s, len, 0, 1);
	strbuf_addch(sb, '"');
}
