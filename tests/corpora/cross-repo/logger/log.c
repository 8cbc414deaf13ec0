#include <stdio.h>

/* the same name as textkit's: another repository's call of it is
 * ambiguous between the two */
unsigned text_hash(const char *s)
{
	unsigned h = 0;
	while (*s)
		h = h * 31 + (unsigned char)*s++;
	return h;
}

void log_line(const char *msg)
{
	fprintf(stderr, "[%08x] %s\n", text_hash(msg), msg);
}
