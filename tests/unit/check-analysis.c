/*
 * Unit tests of what kbx check is built on: glob matching and checking
 * (lib/analysis/rules.c), strongly connected components and shortest cycles
 * (lib/analysis/cycles.c), including a chain far deeper than a recursive Tarjan
 * could walk on the C stack.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/rules.h"
#include "tap.h"

static int m(const char *pat, const char *path)
{
	return kbx_glob_match(pat, path, strlen(path));
}

static void test_globs(void)
{
	ok(m("lib/**", "lib/a.c") && m("lib/**", "lib/x/y/z.c"), "lib/** matches everything under lib");
	ok(!m("lib/**", "libx/a.c") && !m("lib/**", "cmd/lib/a.c"), "lib/** matches nothing else");
	ok(m("lib/", "lib/a.c") && m("lib/", "lib/x/a.c") && !m("lib/", "cmd/a.c"),
	   "a trailing slash means everything under the directory");
	ok(m("*.c", "a.c") && !m("*.c", "lib/a.c"), "* does not cross '/'");
	ok(m("**/*.c", "a.c") && m("**/*.c", "lib/x/a.c") && !m("**/*.c", "lib/a.h"),
	   "a leading ** matches no component or several");
	ok(m("a/**/b", "a/b") && m("a/**/b", "a/x/b") && m("a/**/b", "a/x/y/b") && !m("a/**/b", "a/x/c"),
	   "a middle ** matches any number of components");
	ok(m("**", "a") && m("**", "a/b/c"), "** alone matches every path");
	ok(m("lib/*_test.c", "lib/x_test.c") && !m("lib/*_test.c", "lib/x_test.h"),
	   "* inside a component");
	ok(m("?.c", "a.c") && !m("?.c", "ab.c") && !m("a?b", "a/b"), "? is one character, never '/'");
	ok(m("[abc].c", "b.c") && !m("[abc].c", "d.c") && m("[a-c].c", "c.c") && m("[!a-c].c", "d.c") &&
		   !m("[!a-c].c", "a.c"),
	   "character classes, ranges and negation");
	ok(m("\\*.c", "*.c") && !m("\\*.c", "a.c"), "a backslash makes the next character literal");
	ok(m("a*b*c", "abbbc") && m("a*b*c", "abc") && !m("a*b*c", "acb"), "star backtracking");
	ok(m("src/**/test/**", "src/x/test/y/z.c") && !m("src/**/test/**", "src/x/y/z.c"),
	   "two ** components");
	ok(!m("lib/a.c", "lib/a.cc") && !m("lib/a.c", "lib/a"), "the whole path must match");

	ok(!kbx_glob_check("lib/**") && !kbx_glob_check("**/x") && !kbx_glob_check("a/**/b") &&
		   !kbx_glob_check("[a-z]*.c") && !kbx_glob_check("lib/"),
	   "valid globs pass the check");
	ok(kbx_glob_check("") && kbx_glob_check("/lib/**") && kbx_glob_check("./lib") &&
		   kbx_glob_check("a**") && kbx_glob_check("***") && kbx_glob_check("lib/[a") &&
		   kbx_glob_check("a\\") && kbx_glob_check("a//b"),
	   "empty, absolute, ./, partial **, unterminated [, trailing \\ and // are refused");
}

/* Build adjacency arrays from an edge list. */
struct graph {
	size_t n;
	size_t *off;
	uint32_t *tg;
};

static void graph_build(struct graph *g, size_t n, const uint32_t (*edges)[2], size_t ne)
{
	g->n = n;
	g->off = calloc(n + 1, sizeof(*g->off));
	g->tg = malloc((ne + 1) * sizeof(*g->tg));
	for (size_t i = 0; i < ne; i++)
		g->off[edges[i][0] + 1]++;
	for (size_t v = 0; v < n; v++)
		g->off[v + 1] += g->off[v];
	size_t *pos = calloc(n + 1, sizeof(*pos));
	for (size_t i = 0; i < ne; i++) {
		uint32_t u = edges[i][0];
		g->tg[g->off[u] + pos[u]++] = edges[i][1];
	}
	free(pos);
}

static void graph_free(struct graph *g)
{
	free(g->off);
	free(g->tg);
}

static void test_scc(void)
{
	/* 0 -> 1 -> 2 -> 0, 2 -> 3, 3 -> 4 -> 3, 5 alone, 6 -> 6 */
	static const uint32_t e[][2] = { { 0, 1 }, { 1, 2 }, { 2, 0 }, { 2, 3 },
					 { 3, 4 }, { 4, 3 }, { 6, 6 } };
	struct graph g;
	graph_build(&g, 7, e, sizeof(e) / sizeof(e[0]));
	uint32_t comp[7];
	size_t nc = 0;
	ok(kbx_scc(g.n, g.off, g.tg, comp, &nc, NULL) == KBX_OK, "scc runs");
	ok(nc == 4 && comp[0] == comp[1] && comp[1] == comp[2] && comp[3] == comp[4] &&
		   comp[0] != comp[3] && comp[5] != comp[0] && comp[5] != comp[3] && comp[6] != comp[5],
	   "components: {0,1,2}, {3,4}, {5}, {6}");
	ok(comp[3] < comp[0], "components come in reverse topological order");
	uint32_t path[7];
	size_t len = 0;
	ok(kbx_scc_cycle(g.n, g.off, g.tg, comp, 0, KBX_ANY_VERTEX, path, &len, NULL) == KBX_OK &&
		   len == 3 && path[0] == 0 && path[1] == 1 && path[2] == 2,
	   "the cycle through 0 is 0 -> 1 -> 2");
	ok(kbx_scc_cycle(g.n, g.off, g.tg, comp, 6, KBX_ANY_VERTEX, path, &len, NULL) == KBX_OK &&
		   len == 1 && path[0] == 6,
	   "a self-loop is a cycle of one");
	ok(kbx_scc_cycle(g.n, g.off, g.tg, comp, 5, KBX_ANY_VERTEX, path, &len, NULL) == KBX_NOT_FOUND,
	   "a vertex on no cycle has none");
	graph_free(&g);

	/* the shortest cycle is found, not the first */
	static const uint32_t e2[][2] = { { 0, 1 }, { 1, 2 }, { 2, 3 }, { 3, 0 }, { 0, 4 }, { 4, 0 } };
	graph_build(&g, 5, e2, sizeof(e2) / sizeof(e2[0]));
	uint32_t comp2[5];
	kbx_scc(g.n, g.off, g.tg, comp2, &nc, NULL);
	ok(kbx_scc_cycle(g.n, g.off, g.tg, comp2, 0, KBX_ANY_VERTEX, path, &len, NULL) == KBX_OK &&
		   len == 2 && path[1] == 4,
	   "the shortest cycle through a vertex");
	ok(kbx_scc_cycle(g.n, g.off, g.tg, comp2, 0, 1, path, &len, NULL) == KBX_OK && len == 4 &&
		   path[0] == 0 && path[1] == 1 && path[2] == 2 && path[3] == 3,
	   "the shortest cycle that starts with a given edge");
	graph_free(&g);

	/* a chain of a million vertices closed into one cycle: a recursive
	 * Tarjan would need a million stack frames */
	size_t n = 1000000;
	uint32_t (*big)[2] = malloc(n * sizeof(*big));
	for (size_t i = 0; i < n; i++) {
		big[i][0] = (uint32_t)i;
		big[i][1] = (uint32_t)((i + 1) % n);
	}
	graph_build(&g, n, (const uint32_t(*)[2])big, n);
	uint32_t *bc = malloc(n * sizeof(*bc));
	uint32_t *bp = malloc(n * sizeof(*bp));
	ok(kbx_scc(g.n, g.off, g.tg, bc, &nc, NULL) == KBX_OK && nc == 1,
	   "a cycle of a million vertices is one component (no recursion)");
	ok(kbx_scc_cycle(g.n, g.off, g.tg, bc, 0, KBX_ANY_VERTEX, bp, &len, NULL) == KBX_OK &&
		   len == n && bp[n - 1] == n - 1,
	   "and its cycle has a million steps");
	/* open the chain: a million components */
	g.off[n]--;
	ok(kbx_scc(g.n, g.off, g.tg, bc, &nc, NULL) == KBX_OK && nc == n && bc[0] == n - 1,
	   "an open chain of a million vertices is a million components");
	free(big);
	free(bc);
	free(bp);
	graph_free(&g);

	static const uint32_t bad[][2] = { { 0, 9 } };
	graph_build(&g, 2, bad, 1);
	uint32_t c2[2];
	ok(kbx_scc(g.n, g.off, g.tg, c2, &nc, NULL) == KBX_ERR_USAGE, "an edge to no vertex is refused");
	graph_free(&g);
}

int main(void)
{
	test_globs();
	test_scc();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
