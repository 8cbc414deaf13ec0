#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "kv/store.h"
#include "util.h"

#define MAX_LISTED 100

int compat_level(void);

void fatal(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("kv: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static void usage(void)
{
	fputs("usage: kv FILE get KEY | put KEY VALUE | list [N]\n", stderr);
	if (compat_level() > 2)
		fputs("kv: built with newer sources\n", stderr);
	exit(2);
}

static void list(struct kv_store *s, size_t n)
{
	struct kv_index ix = { 0 };
	index_build(&ix, s, clamp_size(n, MAX_LISTED));
	for (size_t i = 0; i < ix.n; i++)
		printf("%s\t%s\n", ix.keys[i], store_get(s, ix.keys[i]));
	index_release(&ix);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	struct kv_store *s = store_open(argv[1], NULL);
	if (!s)
		fatal("cannot open '%s'", argv[1]);
	if (!strcmp(argv[2], "get") && argc == 4) {
		const char *v = store_get(s, argv[3]);
		if (!v)
			return 1;
		puts(v);
	} else if (!strcmp(argv[2], "put") && argc == 5) {
		store_put(s, argv[3], argv[4]);
	} else if (!strcmp(argv[2], "list")) {
		list(s, argc > 3 ? strtoul(argv[3], NULL, 10) : MAX_LISTED);
	} else {
		usage();
	}
	store_close(s);
	return 0;
}
