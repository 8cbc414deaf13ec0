/* TEMPORARY placeholder (lead) until the embed helper's tokenizer lands. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "search/tokenize.h"

struct kbx_tokenizer { int dummy; };

kbx_tokenizer_t *_kbx_tokenizer_new(void) { return calloc(1, sizeof(struct kbx_tokenizer)); }
void _kbx_tokenizer_free(kbx_tokenizer_t *t) { free(t); }

size_t _kbx_tokenize(kbx_tokenizer_t *t, const char *text, size_t len, kbx_token_fn fn, void *data)
{
	size_t n = 0, i = 0;
	char buf[KBX_TOKEN_MAX + 1];
	(void)t;
	while (i < len) {
		while (i < len && !isalnum((unsigned char)text[i]) && !((unsigned char)text[i] & 0x80))
			i++;
		size_t j = i, k = 0;
		while (j < len && (isalnum((unsigned char)text[j]) || ((unsigned char)text[j] & 0x80))) {
			if (k < KBX_TOKEN_MAX)
				buf[k++] = (char)tolower((unsigned char)text[j]);
			j++;
		}
		if (k) {
			n++;
			if (fn(data, buf, k, KBX_TOK_WORD))
				return n;
		}
		i = j;
	}
	return n;
}
