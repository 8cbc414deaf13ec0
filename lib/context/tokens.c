/*
 * The token estimate of kbx context: what a byte-pair tokenizer of the
 * GPT family would count, without its vocabulary.  Such a tokenizer keeps
 * a common word whole and cuts a rare one or an identifier into pieces
 * of a few letters, keeps digits in groups of three, gives most
 * punctuation a token of its own and merges runs of one character
 * ("----", "    ").  The rules below follow that; kbx-context(1) gives
 * how close they come on code and prose.
 */
#include <stddef.h>

#include "context/context.h"

static int is_lower(unsigned char c)
{
	return c >= 'a' && c <= 'z';
}

static int is_upper(unsigned char c)
{
	return c >= 'A' && c <= 'Z';
}

static int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* Letters per token in a run of letters. */
#define LETTERS_PER_TOKEN 6
#define DIGITS_PER_TOKEN 3
#define SAME_PUNCT_PER_TOKEN 4
#define INDENT_COLUMNS_PER_TOKEN 8

size_t kbx_context_tokens(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t tokens = 0, i = 0;
	int line_start = 1;
	while (i < len) {
		unsigned char c = s[i];
		if (c == '\n') {
			tokens++;
			i++;
			line_start = 1;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r') {
			size_t cols = 0;
			while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
				cols += s[i++] == '\t' ? 4 : 1;
			/* a space between words goes with the next word */
			if (line_start)
				tokens += (cols + INDENT_COLUMNS_PER_TOKEN - 1) / INDENT_COLUMNS_PER_TOKEN;
			else if (cols > 1)
				tokens += (cols - 1 + INDENT_COLUMNS_PER_TOKEN - 1) / INDENT_COLUMNS_PER_TOKEN;
			continue;
		}
		line_start = 0;
		if (is_lower(c) || is_upper(c)) {
			/* one part of an identifier: "parse", "Config" */
			size_t n = 0;
			if (is_upper(s[i]))
				n++, i++;
			while (i < len && is_upper(s[i]) && !(i + 1 < len && is_lower(s[i + 1])))
				n++, i++;
			while (i < len && is_lower(s[i]))
				n++, i++;
			tokens += (n + LETTERS_PER_TOKEN - 1) / LETTERS_PER_TOKEN;
			continue;
		}
		if (is_digit(c)) {
			size_t n = 0;
			while (i < len && is_digit(s[i]))
				n++, i++;
			tokens += (n + DIGITS_PER_TOKEN - 1) / DIGITS_PER_TOKEN;
			continue;
		}
		if (c < 0x80) {
			size_t n = 0;
			while (i < len && s[i] == c)
				n++, i++;
			/* '_' joins the parts of an identifier: the next part's
			 * token takes it */
			if (c == '_' && n == 1 && i < len && (is_lower(s[i]) || is_upper(s[i])))
				continue;
			tokens += n == 1 ? 1 : (n + SAME_PUNCT_PER_TOKEN - 1) / SAME_PUNCT_PER_TOKEN;
			continue;
		}
		/* a UTF-8 character, or a stray byte */
		i++;
		while (i < len && (s[i] & 0xc0) == 0x80)
			i++;
		tokens++;
	}
	return tokens;
}
