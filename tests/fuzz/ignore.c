/*
 * Fuzz the ignore-file matcher of the tree scan (lib/graph/scan.c) through
 * _kbx_ignore_match: a .gitignore is text anyone can write, and the scan
 * must neither crash nor hang on it.
 *
 * Input: the ignore file's text, a NUL byte, then paths to test, one a
 * line; a path ending in '/' is tested as a directory.  Bit 0 of the
 * first byte puts the ignore file in the directory "sub" instead of the
 * root (the paths are then tried both inside and outside it).
 *
 * For one plain rule (no set, quote, negation, "**" or trailing '/', and
 * few stars) the answer must be fnmatch(3)'s with FNM_PATHNAME, on the
 * whole path when the rule holds a '/', else on the path's last component.
 */
#include <fnmatch.h>
#include <string.h>

#include "fuzz.h"
#include "graph/graph.h"

/* Is text one rule that fnmatch can judge?  Then its pattern in pat. */
static int plain_rule(const char *text, size_t len, char *pat, size_t patsz)
{
	size_t stars = 0;
	if (len && text[len - 1] == '\n')
		len--;
	if (!len || len >= patsz || text[0] == '#' || text[0] == '!' || text[0] == '/' ||
	    text[len - 1] == '/' || text[len - 1] == ' ')
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (c == '\n' || c == '\r' || c == '\0' || c == '[' || c == '\\' ||
		    (c == '*' && i + 1 < len && text[i + 1] == '*'))
			return 0;
		stars += c == '*';
	}
	if (stars > 3)
		return 0;  /* fnmatch's time grows exponentially with them */
	memcpy(pat, text, len);
	pat[len] = '\0';
	return 1;
}

static void check_one(const char *text, size_t tlen, const char *base, const char *path,
		      size_t plen)
{
	char rel[1024];
	int is_dir = 0;
	if (plen && path[plen - 1] == '/') {
		is_dir = 1;
		plen--;
	}
	if (!plen || plen >= sizeof(rel) - 8)
		return;
	memcpy(rel, path, plen);
	rel[plen] = '\0';
	int m = _kbx_ignore_match(text, tlen, base, rel, is_dir);
	FUZZ_ASSERT(m == 0 || m == 1 || m == -1);
	if (*base) {
		/* rules of sub/.gitignore apply only inside sub/ */
		char in[1024 + 8];
		snprintf(in, sizeof(in), "%s/%s", base, rel);
		m = _kbx_ignore_match(text, tlen, base, in, is_dir);
		FUZZ_ASSERT(m == 0 || m == 1 || m == -1);
		if (strncmp(rel, "sub/", 4) && strcmp(rel, "sub"))
			FUZZ_ASSERT(_kbx_ignore_match(text, tlen, base, rel, is_dir) <= 0);
	}
	char pat[256];
	if (!*base && plain_rule(text, tlen, pat, sizeof(pat))) {
		const char *slash = strrchr(rel, '/');
		const char *subject = strchr(pat, '/') ? rel : slash ? slash + 1 : rel;
		int expect = fnmatch(pat, subject, FNM_PATHNAME) == 0;
		if (m != expect) {
			fprintf(stderr, "rule '%s', path '%s': %d, but fnmatch says %d\n", pat, rel,
				m, expect);
			FUZZ_ASSERT(!"the matcher agrees with fnmatch");
		}
	}
	/* a text with no rules ignores nothing */
	FUZZ_ASSERT(_kbx_ignore_match("", 0, base, rel, is_dir) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size || size > 8192)
		return 0;
	const char *base = data[0] & 1 ? "sub" : "";
	const char *text = (const char *)data + 1;
	const char *end = (const char *)data + size;
	const char *nul = memchr(text, '\0', (size_t)(end - text));
	size_t tlen = nul ? (size_t)(nul - text) : (size_t)(end - text);
	if (!nul) {
		/* no paths given: a few that patterns often meet */
		static const char *const paths[] = {
			"a", "a.py", "src/", "src/a.c", "build/x/y.o", "sub/", "sub/a.py",
			"sub/deep/b.rs", ".hidden", "doc/readme.md", NULL
		};
		for (size_t i = 0; paths[i]; i++)
			check_one(text, tlen, base, paths[i], strlen(paths[i]));
		return 0;
	}
	const char *p = nul + 1;
	for (int n = 0; p < end && n < 16; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t plen = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (!memchr(p, '\0', plen))
			check_one(text, tlen, base, p, plen);
		p += plen + 1;
	}
	return 0;
}
