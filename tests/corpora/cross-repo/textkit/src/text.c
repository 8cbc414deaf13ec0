#include "textkit.h"

static int is_end(char c)
{
	return c == '\0';
}

int text_length(const char *s)
{
	int n = 0;
	while (!is_end(s[n]))
		n++;
	return n;
}

void text_copy(char *dst, const char *src)
{
	int n = text_length(src);
	for (int i = 0; i <= n; i++)
		dst[i] = src[i];
}

unsigned text_hash(const char *s)
{
	unsigned h = 5381;
	for (int i = 0; i < text_length(s); i++)
		h = h * 33 + (unsigned char)s[i];
	return h;
}
