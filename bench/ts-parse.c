/*
 * bench/ts-parse.c: the floor under kbx's parse phase: tree-sitter alone
 * parsing every file named in LIST (one path a line; default: stdin) with
 * the grammars kbx links (C for *.c/*.h, Python for *.py), one thread,
 * nothing extracted.  Prints files, lines, bytes, nodes visited and the
 * CPU time.
 *
 *   ts-parse [--walk] [LIST]
 *
 * --walk also visits every node with a tree cursor, as an extractor must.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_c(void);
const TSLanguage *tree_sitter_python(void);

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	size_t r;
	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	int walk = argc > 1 && !strcmp(argv[1], "--walk");
	FILE *in = stdin;
	if (argc > 1 + walk && !(in = fopen(argv[1 + walk], "r"))) {
		perror(argv[1 + walk]);
		return 2;
	}
	TSParser *p = ts_parser_new();
	char path[4096];
	unsigned long long files = 0, lines = 0, bytes = 0, nodes = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	while (fgets(path, sizeof(path), in)) {
		path[strcspn(path, "\n")] = '\0';
		size_t len = strlen(path), n;
		const TSLanguage *lang = len > 3 && !strcmp(path + len - 3, ".py") ? tree_sitter_python()
										: tree_sitter_c();
		char *src = slurp(path, &n);
		if (!src)
			continue;
		ts_parser_set_language(p, lang);
		TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)n);
		if (walk && t) {
			TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
			for (;;) {
				nodes++;
				if (ts_tree_cursor_goto_first_child(&c))
					continue;
				while (!ts_tree_cursor_goto_next_sibling(&c))
					if (!ts_tree_cursor_goto_parent(&c))
						goto done;
			}
done:
			ts_tree_cursor_delete(&c);
		}
		ts_tree_delete(t);
		for (size_t i = 0; i < n; i++)
			lines += src[i] == '\n';
		bytes += n;
		files++;
		free(src);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
	double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	printf("files=%llu lines=%llu bytes=%llu nodes=%llu cpu_ms=%.0f\n", files, lines, bytes, nodes, ms);
	ts_parser_delete(p);
	return 0;
}
