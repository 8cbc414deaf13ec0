/*
 * Unit tests of lib/util/quote.c, the escaping of repository text for
 * terminals and line formats: a table of inputs and the exact text each
 * function must give.  (The fuzz harness tests/fuzz/quote.c reads the
 * quoted form back.)  Prints TAP.
 */
#include <stdio.h>
#include <string.h>

#include "util/quote.h"
#include "tap.h"

/* A literal with its length, so that a NUL byte can be part of it. */
#define S(lit) lit, sizeof(lit) - 1

/* Not a flag of quote.h: the case is one of strbuf_add_quoted_path. */
#define QUOTE_PATH 0x100

struct test_case {
	const char *in;
	size_t len;
	unsigned flags;
	const char *out;
	const char *desc;
};

static const struct test_case cases[] = {
	{ S("src/main.c"), 0, "src/main.c", "ordinary text is unchanged" },
	{ S(""), 0, "", "the empty string" },
	{ S("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80"), 0,
	  "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xf0\x9f\x98\x80",
	  "valid UTF-8 of two, three and four bytes is kept" },
	{ S("a\\b \"q\" x:y"), 0, "a\\b \"q\" x:y",
	  "backslashes, quotes and colons are not escaped" },
	{ S("\033]0;pwned\007"), 0, "\\033]0;pwned\\007", "an OSC title: ESC and BEL" },
	{ S("\033[2J"), 0, "\\033[2J", "clear the screen" },
	{ S("\033]8;;http://x\033\\link\033]8;;\033\\"), 0,
	  "\\033]8;;http://x\\033\\link\\033]8;;\\033\\", "an OSC 8 hyperlink" },
	{ S("\033]52;c;aGk=\007"), 0, "\\033]52;c;aGk=\\007", "an OSC 52 clipboard write" },
	{ S("a\tb\nc\rd"), 0, "a\\tb\\nc\\rd", "tab, newline and CR by their C names" },
	{ S("a\tb\nc"), ESCAPE_KEEP_TAB, "a\tb\\nc", "ESCAPE_KEEP_TAB keeps tabs only" },
	{ S("a\tb\nc\r"), ESCAPE_KEEP_NEWLINE, "a\\tb\nc\\r", "ESCAPE_KEEP_NEWLINE keeps \\n, not \\r" },
	{ S("\x01\x1f\x7f"), 0, "\\001\\037\\177", "other C0 controls and DEL in octal" },
	{ S("a\0b"), 0, "a\\000b", "a NUL byte" },
	{ S("\x9b" "31m"), 0, "\\23331m", "a raw C1 byte (CSI) outside UTF-8" },
	{ S("\xc2\x9b" "31m"), 0, "\\302\\23331m", "a C1 control written in UTF-8, both bytes" },
	{ S("\xc2\xa0x"), 0, "\xc2\xa0x", "U+00A0, just above C1, is kept" },
	{ S("\xff\xfe"), 0, "\\377\\376", "bytes that start no UTF-8 sequence" },
	{ S("\xc3"), 0, "\\303", "a sequence cut short at the end" },
	{ S("\xc3(x"), 0, "\\303(x", "a lead byte without its continuation" },
	{ S("\xc0\xaf"), 0, "\\300\\257", "an overlong form" },
	{ S("\xe0\x80\xaf"), 0, "\\340\\200\\257", "an overlong three-byte form" },
	{ S("\xed\xa0\x80"), 0, "\\355\\240\\200", "a surrogate" },
	{ S("\xf4\x90\x80\x80"), 0, "\\364\\220\\200\\200", "beyond U+10FFFF" },
	{ S("\xf8\x88\x80\x80\x80"), 0, "\\370\\210\\200\\200\\200", "a five-byte form" },
	{ S("\\033"), 0, "\\033", "escaping escaped text again changes nothing" },

	/* strbuf_add_quoted_path */
	{ S("src/main.c"), QUOTE_PATH, "src/main.c", "an ordinary path as it is" },
	{ S("dir with space/\xc3\xa9t\xc3\xa9.py"), QUOTE_PATH, "dir with space/\xc3\xa9t\xc3\xa9.py",
	  "spaces and UTF-8 need no quotes" },
	{ S("a:b.py"), QUOTE_PATH, "\"a\\072b.py\"", "a colon: quoted, and \\072 inside" },
	{ S("new\nline.py"), QUOTE_PATH, "\"new\\nline.py\"", "a newline" },
	{ S("tab\there.py"), QUOTE_PATH, "\"tab\\there.py\"", "a tab" },
	{ S("\033]0;t\007.py"), QUOTE_PATH, "\"\\033]0;t\\007.py\"", "an OSC title" },
	{ S("q\"uote.py"), QUOTE_PATH, "\"q\\\"uote.py\"", "a double quote" },
	{ S("back\\slash.py"), QUOTE_PATH, "\"back\\\\slash.py\"", "a backslash" },
	{ S("l\xe9gacy.py"), QUOTE_PATH, "\"l\\351gacy.py\"", "Latin-1, not UTF-8" },
	{ S("\xc2\x85.py"), QUOTE_PATH, "\"\\302\\205.py\"", "NEL, a C1 control in UTF-8" },
};

static void test_cases(void)
{
	char desc[160];
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct test_case *c = &cases[i];
		const char *what = c->flags & QUOTE_PATH ? "quote" : "escape";
		struct strbuf sb = STRBUF_INIT;
		int needed;
		if (c->flags & QUOTE_PATH) {
			strbuf_add_quoted_path(&sb, c->in, c->len);
			needed = quote_path_needed(c->in, c->len);
		} else {
			strbuf_add_escaped(&sb, c->in, c->len, c->flags);
			needed = escape_needed(c->in, c->len, c->flags);
		}
		int same = !strcmp(strbuf_str(&sb), c->out);
		snprintf(desc, sizeof(desc), "%s: %s", what, c->desc);
		ok(same, desc);
		if (!same)
			printf("# got '%s', want '%s'\n", strbuf_str(&sb), c->out);
		snprintf(desc, sizeof(desc), "%s: needed exactly when the text changes: %s", what,
			 c->desc);
		ok(needed == (c->len != strlen(c->out) || memcmp(c->in, c->out, c->len)), desc);
		strbuf_release(&sb);
	}
}

static void test_utf8_char_len(void)
{
	ok(utf8_char_len(S("a")) == 1, "utf8_char_len: ASCII");
	ok(utf8_char_len(S("\xc3\xa9")) == 2, "utf8_char_len: two bytes");
	ok(utf8_char_len(S("\xe2\x82\xac")) == 3, "utf8_char_len: three bytes");
	ok(utf8_char_len(S("\xf0\x9f\x98\x80")) == 4, "utf8_char_len: four bytes");
	ok(utf8_char_len(S("\xf4\x8f\xbf\xbf")) == 4, "utf8_char_len: U+10FFFF");
	ok(utf8_char_len("\xe2\x82\xac", 2) == 0, "utf8_char_len: cut by len");
	ok(utf8_char_len(S("\x80")) == 0, "utf8_char_len: a continuation byte alone");
	ok(utf8_char_len("", 0) == 0, "utf8_char_len: nothing left");
}

/* Each byte that must be escaped, at every place of a longer text of
 * printable ASCII (escape_needed reads sixteen bytes at a time first),
 * and what must not be: UTF-8 letters, every printable byte; for a
 * path, '"', '\\' and ':' too, and a tab (kept in text by a flag). */
static void test_every_place(void)
{
	static const struct {
		const char *bytes;
		size_t n;
		int needed;
	} at[] = {
		{ "\x01", 1, 1 }, { "\x1b", 1, 1 }, { "\x1f", 1, 1 }, { "\x7f", 1, 1 },
		{ "\n", 1, 1 }, { "\xc2\x9b", 2, 1 }, { "\xff", 1, 1 }, { "\x80", 1, 1 },
		{ "\xc3\xa9", 2, 0 }, { "\xe2\x82\xac", 3, 0 }, { " ", 1, 0 }, { "~", 1, 0 },
	};
	int right = 1;

	for (size_t k = 0; k < sizeof(at) / sizeof(*at); k++)
		for (size_t place = 0; place < 24; place++)
			for (size_t len = place + at[k].n; len <= 32; len += 3) {
				char text[40];
				memset(text, 'a' + (char)(place % 26), sizeof(text));
				memcpy(text + place, at[k].bytes, at[k].n);
				if (!!escape_needed(text, len, 0) != at[k].needed) {
					printf("# byte %zu at %zu of %zu\n", k, place, len);
					right = 0;
				}
			}
	for (int c = 0x20; c < 0x7f; c++) {
		char text[17];
		memset(text, c, sizeof(text));
		if (escape_needed(text, sizeof(text), 0))
			right = 0;
	}
	ok(right, "escape_needed: a control at any place of a long text, and nothing else");

	static const char path_bytes[] = "\"\\:\t\x01";
	right = 1;
	for (size_t k = 0; k < sizeof(path_bytes) - 1; k++)
		for (size_t place = 0; place < 24; place++)
			for (size_t len = place + 1; len <= 32; len += 3) {
				char text[40];
				memset(text, 'A' + (char)(place % 26), sizeof(text));
				text[place] = path_bytes[k];
				if (!quote_path_needed(text, len) ||
				    (path_bytes[k] != '\t' && path_bytes[k] != '\x01' &&
				     escape_needed(text, len, 0)) ||
				    (path_bytes[k] == '\t' && escape_needed(text, len, ESCAPE_KEEP_TAB))) {
					printf("# path byte %zu at %zu of %zu\n", k, place, len);
					right = 0;
				}
			}
	ok(right, "quote_path_needed: '\"', '\\\\', ':' or a control at any place; text keeps all but the control, a tab with its flag");
}

int main(void)
{
	test_cases();
	test_every_place();
	test_utf8_char_len();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
