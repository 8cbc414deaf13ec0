/*
 * Fuzz the escaping of repository text (lib/util/quote.c), which stands
 * between any byte a repository holds and the user's terminal.
 *
 * Input: one byte whose low two bits are the flags (ESCAPE_KEEP_TAB,
 * ESCAPE_KEEP_NEWLINE), then the text, any bytes.
 *
 * Checked for strbuf_add_escaped: no byte below 0x20 but a kept tab or
 * newline, no DEL, valid UTF-8 without a C1 control; escaping again
 * changes nothing; escape_needed says whether anything changed; and a
 * text without backslashes reads back from its escapes.  For
 * strbuf_add_quoted_path: no control byte at all, valid UTF-8; an
 * ordinary path as it is, one that is not in double quotes with no ':'
 * and no bare '"' inside, reading back to the path.
 */
#include <string.h>

#include "fuzz.h"
#include "util/quote.h"

/* Valid UTF-8 without C0, DEL or C1 controls, but for the kept ones. */
static void check_clean(const char *s, size_t len, unsigned flags)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = utf8_char_len(s + i, len - i);
		FUZZ_ASSERT(n);
		FUZZ_ASSERT(c >= 0x20 || (c == '\t' && (flags & ESCAPE_KEEP_TAB)) ||
			    (c == '\n' && (flags & ESCAPE_KEEP_NEWLINE)));
		FUZZ_ASSERT(c != 0x7f);
		FUZZ_ASSERT(!(c == 0xc2 && (unsigned char)s[i + 1] < 0xa0));
		i += n;
	}
}

/* Read C escapes back into out (as long as s); the length read. */
static size_t unescape(const char *s, size_t len, char *out)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (s[i] != '\\') {
			out[n++] = s[i];
			continue;
		}
		FUZZ_ASSERT(i + 1 < len);
		char c = s[++i];
		if (c == 't') {
			out[n++] = '\t';
		} else if (c == 'n') {
			out[n++] = '\n';
		} else if (c == 'r') {
			out[n++] = '\r';
		} else if (c == '"' || c == '\\') {
			out[n++] = c;
		} else {
			FUZZ_ASSERT(i + 2 < len && c >= '0' && c <= '3');
			FUZZ_ASSERT(s[i + 1] >= '0' && s[i + 1] <= '7' && s[i + 2] >= '0' && s[i + 2] <= '7');
			out[n++] = (char)((c - '0') << 6 | (s[i + 1] - '0') << 3 | (s[i + 2] - '0'));
			i += 2;
		}
	}
	return n;
}

static void check_escaped(const char *text, size_t len, unsigned flags, char *back)
{
	struct strbuf sb = STRBUF_INIT, again = STRBUF_INIT;
	strbuf_add_escaped(&sb, text, len, flags);
	FUZZ_ASSERT(!sb.failed);
	check_clean(strbuf_str(&sb), sb.len, flags);
	FUZZ_ASSERT(escape_needed(text, len, flags) ==
		    (sb.len != len || memcmp(strbuf_str(&sb), text, len)));
	FUZZ_ASSERT(!escape_needed(strbuf_str(&sb), sb.len, flags));
	strbuf_add_escaped(&again, strbuf_str(&sb), sb.len, flags);
	FUZZ_ASSERT(again.len == sb.len && !memcmp(strbuf_str(&again), strbuf_str(&sb), sb.len));
	if (!memchr(text, '\\', len)) {
		size_t n = unescape(strbuf_str(&sb), sb.len, back);
		FUZZ_ASSERT(n == len && !memcmp(back, text, len));
	}
	strbuf_release(&sb);
	strbuf_release(&again);
}

static void check_quoted(const char *text, size_t len, char *back)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_quoted_path(&sb, text, len);
	FUZZ_ASSERT(!sb.failed);
	const char *q = strbuf_str(&sb);
	check_clean(q, sb.len, 0);
	if (!quote_path_needed(text, len)) {
		FUZZ_ASSERT(sb.len == len && !memcmp(q, text, len));
		FUZZ_ASSERT(!memchr(text, ':', len) && !memchr(text, '"', len) &&
			    !memchr(text, '\\', len));
	} else {
		FUZZ_ASSERT(sb.len >= 2 && q[0] == '"' && q[sb.len - 1] == '"');
		/* nothing inside ends the path or the quotes early */
		FUZZ_ASSERT(!memchr(q, ':', sb.len));
		for (size_t i = 1; i + 1 < sb.len; i++) {
			if (q[i] == '\\')
				i++;
			else
				FUZZ_ASSERT(q[i] != '"');
		}
		size_t n = unescape(q + 1, sb.len - 2, back);
		FUZZ_ASSERT(n == len && !memcmp(back, text, len));
	}
	strbuf_release(&sb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size || size > 65536)
		return 0;
	unsigned flags = data[0] & (ESCAPE_KEEP_TAB | ESCAPE_KEEP_NEWLINE);
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	char *back = malloc(len + 1);
	if (!back)
		return 0;
	check_escaped(text, len, flags, back);
	check_escaped(text, len, 0, back);
	check_quoted(text, len, back);
	free(back);
	return 0;
}
