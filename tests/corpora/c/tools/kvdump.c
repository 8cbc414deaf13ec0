/* kvdump: print the statistics of a store file, for debugging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../src/util.h"
#include "kv/store.h"

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "kvdump: fatal: ");
	vfprintf(stderr, fmt, ap);
	putc('\n', stderr);
	va_end(ap);
	abort();
}

int main(int argc, char **argv)
{
	kv_stats_t st;
	for (int i = 1; i < argc; i++) {
		struct kv_store *s = store_open(argv[i], NULL);
		store_stats(s, &st);
		printf("%s: %zu entries, longest chain %zu\n", argv[i], st.entries,
		       st.longest_chain);
		store_close(s);
	}
	return 0;
}
