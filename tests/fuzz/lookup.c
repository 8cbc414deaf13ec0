/*
 * Fuzz what a user types as a symbol: kbx_lookup and what the query
 * commands do with its answer (kbx_suggest, kbx_walk_edges, the prefix
 * scans of complete-symbols), on a small store that the harness indexes
 * once, at start, from the sources below through the library's API.
 *
 * The input is the symbol (up to its first NUL byte).
 */
/* nftw() */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "graph/graph.h"

static const struct { const char *path, *text; } sources[] = {
	{ "src/shapes.py",
	  "import os.path\n"
	  "from pkg.util import helper as h\n"
	  "class Shape:\n"
	  "    def area(self):\n"
	  "        return 0\n"
	  "    def describe(self):\n"
	  "        return str(self.area()) + os.path.join('a', 'b')\n"
	  "class Square(Shape):\n"
	  "    def area(self):\n"
	  "        return h(super().area())\n"
	  "def main():\n"
	  "    Square().describe()\n"
	  "    print(Shape.area)\n" },
	{ "src/pkg/util.py",
	  "def helper(x):\n"
	  "    return max(x, 1)\n"
	  "def area():\n"
	  "    return helper(2)\n" },
	{ "lib/list.c",
	  "#include <stdlib.h>\n"
	  "#include \"list.h\"\n"
	  "struct node { int v; struct node *next; };\n"
	  "static struct node *node_new(int v) { return calloc(1, sizeof(struct node)); }\n"
	  "int list_push(struct node **h, int v) { struct node *n = node_new(v); n->next = *h; *h = n; return 0; }\n"
	  "void list_free(struct node *h) { while (h) { struct node *n = h->next; free(h); h = n; } }\n" },
	{ "lib/list.h", "int list_push(struct node **h, int v);\nvoid list_free(struct node *h);\n" },
	{ "web/app.js",
	  "import { helper } from './util.js';\n"
	  "export class Widget extends Base { render() { return helper(this.name); } }\n"
	  "function main() { new Widget().render(); }\n" },
	{ "web/util.js", "export function helper(x) { return x; }\nclass Base {}\n" },
	{ "cc/geo.cpp",
	  "namespace geo { struct Point { int x; int norm() const; };\n"
	  "int Point::norm() const { return x * x; }\n"
	  "int length(const Point &p) { return p.norm(); } }\n" },
	{ "go/main.go",
	  "package main\nimport \"fmt\"\ntype T struct{}\n"
	  "func (t *T) Run() { fmt.Println(helper()) }\nfunc helper() int { return 1 }\n" },
};

static char tmpdir[] = "/tmp/kbx-fuzz-lookup.XXXXXX";
static kbx_store_t *store;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static void cleanup(void)
{
	kbx_store_close(store);
	store = NULL;
	nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void die(const char *what, const struct kbx_error *err)
{
	fprintf(stderr, "fuzz lookup: %s: %s\n", what, err ? err->msg : strerror(errno));
	cleanup();
	exit(1);
}

static void write_file(const char *rel, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	for (char *p = path + strlen(tmpdir) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			die(path, NULL);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f))
		die(path, NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_index_opts opts = { 0 };
	struct kbx_index_stats stats;
	char kbx_dir[4096];
	if (!mkdtemp(tmpdir))
		die("mkdtemp", NULL);
	for (size_t i = 0; i < sizeof(sources) / sizeof(*sources); i++)
		write_file(sources[i].path, sources[i].text);
	snprintf(kbx_dir, sizeof(kbx_dir), "%s/.kbx", tmpdir);
	if (kbx_store_open(kbx_dir, tmpdir, KBX_OPEN_WRITE | KBX_OPEN_CREATE, 0, &store, &err))
		die("kbx_store_open", &err);
	opts.threads = 1;
	if (kbx_index_run(store, &opts, &stats, &err))
		die("kbx_index_run", &err);
	kbx_store_close(store);
	if (kbx_store_open(kbx_dir, NULL, KBX_OPEN_READ, 0, &store, &err))
		die("kbx_store_open", &err);
	atexit(cleanup);
	return 0;
}

static int count_edge(void *data, const struct kbx_edge *e)
{
	FUZZ_ASSERT(e->from.cid && e->to.cid && e->depth >= 1);
	FUZZ_ASSERT(e->nsites <= KBX_EDGE_MAX_SITES);
	return ++*(size_t *)data > 200;
}

static int name_cb(void *data, const char *name, size_t len)
{
	const char *prefix = data;
	FUZZ_ASSERT(len >= strlen(prefix) && !memcmp(name, prefix, strlen(prefix)));
	return 0;
}

static int id_cb(void *data, const char *id, size_t len, int kind)
{
	const char *prefix = data;
	FUZZ_ASSERT(len >= strlen(prefix) && !memcmp(id, prefix, strlen(prefix)));
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!store || size > 4096)
		return 0;
	char *sym = malloc(size + 1);
	if (!sym)
		return 0;
	memcpy(sym, data, size);
	sym[size] = '\0';

	struct kbx_nodelist l = KBX_NODELIST_INIT;
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = kbx_lookup(store, sym, &l, &err);
	FUZZ_ASSERT(st == KBX_OK || st == KBX_NOT_FOUND || st == KBX_ERR_PARSE);
	FUZZ_ASSERT(st == KBX_OK ? l.n > 0 : l.n == 0);
	if (st != KBX_OK)
		FUZZ_ASSERT(err.status == st && err.msg[0]);
	for (size_t i = 0; i < l.n; i++) {
		const struct kbx_node *n = &l.items[i];
		FUZZ_ASSERT(n->cid && n->name && n->qual);
		size_t edges = 0;
		for (int kind = KBX_EDGE_DEFINES; kind < KBX_EDGE__COUNT; kind++)
			for (int dir = KBX_DIR_OUT; dir <= KBX_DIR_IN; dir++)
				FUZZ_ASSERT(kbx_walk_edges(store, n->id, kind, dir, 3, count_edge, &edges,
							   &err) == KBX_OK);
	}
	kbx_nodelist_release(&l);
	if (st == KBX_NOT_FOUND) {
		/* what lookup_symbol() does next */
		st = kbx_suggest(store, sym, 5, &l, &err);
		FUZZ_ASSERT(st == KBX_OK || st == KBX_NOT_FOUND);
		kbx_nodelist_release(&l);
	}
	kbx_names_with_prefix(store, sym, 20, name_cb, sym, &err);
	kbx_ids_with_prefix(store, sym, 20, id_cb, sym, &err);
	free(sym);
	return 0;
}
