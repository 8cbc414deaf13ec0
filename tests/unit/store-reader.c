/*
 * store-reader: a reader that keeps one store open while the test
 * changes it underneath, as a long-lived kbx process would.
 *
 *   store-reader KBX_DIR
 *
 * Opens the store for reading, then reads commands from standard input,
 * one a line, and answers each with one line on standard output:
 *   info      "generation=G files=F symbols=S edges=E": read through the
 *             handle as it is (every files, nodes and edges record)
 *   outdated  "outdated=0" or "outdated=1" (kbx_store_outdated)
 *   refresh   "refreshed", or "error: ..." (kbx_store_refresh)
 * Exits 0 at the end of its input, 1 when a command failed.
 */
#include <stdio.h>
#include <string.h>

#include "kbx.h"

int main(int argc, char **argv)
{
	kbx_store_t *s;
	struct kbx_error err = KBX_ERROR_INIT;
	char line[64];
	int rc = 0;
	if (argc != 2) {
		fprintf(stderr, "usage: store-reader KBX_DIR\n");
		return 2;
	}
	if (kbx_store_open(argv[1], NULL, KBX_OPEN_READ, 0, &s, &err)) {
		fprintf(stderr, "store-reader: %s\n", err.msg);
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		struct kbx_store_info info;
		err = (struct kbx_error)KBX_ERROR_INIT;
		if (!strcmp(line, "info")) {
			if (kbx_store_info(s, &info, &err)) {
				printf("error: %s\n", err.msg);
				rc = 1;
				continue;
			}
			printf("generation=%llu files=%llu symbols=%llu edges=%llu\n",
			       (unsigned long long)info.generation, (unsigned long long)info.files,
			       (unsigned long long)info.symbols, (unsigned long long)info.edges);
		} else if (!strcmp(line, "outdated")) {
			printf("outdated=%d\n", kbx_store_outdated(s));
		} else if (!strcmp(line, "refresh")) {
			if (kbx_store_refresh(s, &err)) {
				printf("error: %s\n", err.msg);
				rc = 1;
			} else {
				printf("refreshed\n");
			}
		} else {
			printf("error: unknown command '%s'\n", line);
			rc = 1;
		}
	}
	kbx_store_close(s);
	return rc;
}
