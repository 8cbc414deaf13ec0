/*
 * replay: run a fuzz harness on files, without libFuzzer, so that the
 * inputs that once crashed (tests/fuzz/regressions/<harness>/) are
 * replayed by every "make check" with the ordinary compiler.
 *
 *   build/tests/fuzz/<harness> FILE|DIR...
 *
 * Each file is one input; a directory stands for the files in it.  One
 * line "ok <path>" per input on stdout; a crash or failed check aborts,
 * as under the fuzzer.  Exit 2 when an input cannot be read.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* A harness without an initializer leaves this weak symbol unset. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return -1;
	}
	size_t alloc = 4096, n = 0, r;
	unsigned char *buf = malloc(alloc);
	while (buf && (r = fread(buf + n, 1, alloc - n, f)) > 0) {
		n += r;
		if (n == alloc) {
			unsigned char *nb = realloc(buf, alloc * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			alloc *= 2;
		}
	}
	int bad = ferror(f) || !buf;
	fclose(f);
	if (bad) {
		free(buf);
		fprintf(stderr, "replay: cannot read '%s'\n", path);
		return -1;
	}
	/* an exact-size copy, so that ASan sees a read past the input */
	unsigned char *in = malloc(n ? n : 1);
	if (!in) {
		free(buf);
		return -1;
	}
	memcpy(in, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(in, n);
	free(in);
	printf("ok %s\n", path);
	fflush(stdout);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: no such file '%s'\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: cannot open '%s'\n", path);
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char **nn = realloc(names, (n + 1) * sizeof(*nn));
		if (!nn)
			break;
		names = nn;
		if ((names[n] = malloc(strlen(path) + strlen(de->d_name) + 2)))
			sprintf(names[n++], "%s/%s", path, de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (run_path(names[i]) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++)
		if (run_path(argv[i]) < 0)
			rc = 2;
	return rc;
}
