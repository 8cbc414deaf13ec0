/* kvdump: print the statistics of a store file, for debugging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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

int visit(const char *key, const char *value)
{
	return printf("\t%s\t%s\n", key, value) < 0;
}

int main(int argc, char **argv)
{
	kv_stats_t st;
	char backup[4096];
	for (int i = 1; i < argc; i++) {
		/* keep the file as it is now, whatever a writer does meanwhile */
		snprintf(backup, sizeof(backup), "%s.dump", argv[i]);
		if (link(argv[i], backup) < 0)
			fatal("cannot link '%s'", backup);
		struct kv_store *s = store_open(backup, NULL);
		store_stats(s, &st);
		printf("%s: %zu entries, longest chain %zu\n", argv[i], st.entries,
		       st.longest_chain);
		store_each(s, visit);
		store_close(s);
	}
	return 0;
}
