/*
 * kbx help: open a command's manual page with man(1).  From the source
 * tree (before 'make install') the rendered pages in build/man next to
 * the binary are used.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"

#ifndef KBX_MANDIR
#define KBX_MANDIR "/usr/local/share/man"
#endif

static const char *const help_usage[] = {
	"kbx help [<command> | <topic>]",
	NULL
};

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The page "kbx-index" in section 1 or 7: a path to pass to man -l, or
 * NULL to ask man by name. */
static int find_page(const char *page, char *out, size_t n)
{
	char exe[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			for (int sec = 1; sec <= 7; sec += 6) {
				int len2 = snprintf(out, n, "%s/build/man/%s.%d", exe, page, sec);
				if (len2 > 0 && (size_t)len2 < n && file_exists(out))
					return 1;
			}
		}
	}
	for (int sec = 1; sec <= 7; sec += 6) {
		int len2 = snprintf(out, n, "%s/man%d/%s.%d", KBX_MANDIR, sec, page, sec);
		if (len2 > 0 && (size_t)len2 < n && file_exists(out))
			return 1;
	}
	return 0;
}

int cmd_help(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct option opts[] = { OPT_END_F() };
	(void)ctx;
	int nargs = parse_options(argc, argv, opts, help_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	char page[128];
	if (nargs == 0) {
		snprintf(page, sizeof(page), "kbx");
	} else {
		const char *what = argv[0];
		if (!strcmp(what, "kbx"))
			what = NULL;
		else if (!strncmp(what, "kbx-", 4))
			what += 4;
		if (what && (strchr(what, '/') || strlen(what) > 64)) {
			fprintf(stderr, "error: no manual page for '%s'\n", out_esc(argv[0]));
			return KBX_EXIT_USAGE;
		}
		if (what)
			snprintf(page, sizeof(page), "kbx-%s", what);
		else
			snprintf(page, sizeof(page), "kbx");
	}
	char path[PATH_MAX];
	if (!find_page(page, path, sizeof(path))) {
		const struct cmd_struct *c = nargs ? find_command(argv[0]) : NULL;
		fprintf(stderr, "error: no manual page for '%s' is installed\n", out_esc(page));
		if (c) {
			/* the next best thing: the command's own usage */
			const char *hargv[] = { c->name, "-h", NULL };
			fprintf(stderr, "hint: here is 'kbx %s -h'\n", c->name);
			c->fn(2, hargv, ctx);  /* -h exits */
			return KBX_EXIT_NOT_FOUND;
		}
		return KBX_EXIT_NOT_FOUND;
	}
	fflush(stdout);
	execlp("man", "man", "-l", path, (char *)NULL);
	/* no man(1): show the page through the pager-less fallback */
	execlp("cat", "cat", path, (char *)NULL);
	perror("error: cannot run man");
	return KBX_EXIT_IO;
}
