/*
 * bench/kbx-export.c: dump the call graph of a kbx store as TSV, through
 * the public API of lib/kbx.h only (a stop-gap until kbx has an export
 * command of its own).
 *
 *   kbx-export [--sites] [DIR]   (DIR: a directory inside the indexed tree; default .)
 *
 * Output, one record a line, fields separated by tabs:
 *
 *   N  id  kind  lang  name  cid  path  line      every node of the store
 *   E  from  to  confidence  via  nsites           every outgoing CALLS edge
 *
 * path and line are "-" for nodes without them.  With --sites, for the
 * accuracy bench (bench/accuracy/), N records end with one more field,
 * the node's end line ("-" without a path), and E records with the call
 * sites the store keeps for the edge, "line:col:confidence" joined by
 * commas, each call with its own confidence (at
 * most 32 per edge: an edge with 32 may have had more).  Nodes are found by
 * asking for ids 1, 2, ... until as many as the store says it holds were
 * seen (or a long run of ids is missing).  The N records come first, then
 * the E records, so that a reader can build the node table in one pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbx.h"

struct edge_out {
	FILE *f;
	unsigned long long n;
	int sites;
};

static int put_edge(void *data, const struct kbx_edge *e)
{
	struct edge_out *o = data;
	fprintf(o->f, "E\t%u\t%u\t%s\t%s\t%u", e->from.id, e->to.id,
		kbx_confidence_str(e->confidence), kbx_via_str(e->via), e->nsites);
	if (o->sites) {
		fputc('\t', o->f);
		for (uint32_t i = 0; i < e->nsites; i++)
			fprintf(o->f, "%s%u:%u:%s", i ? "," : "", e->sites[i].line, e->sites[i].col,
				kbx_confidence_str(e->sites[i].confidence ? e->sites[i].confidence
									  : e->confidence));
		if (!e->nsites)
			fputc('-', o->f);
	}
	fputc('\n', o->f);
	o->n++;
	return 0;
}

static const char *or_dash(const char *s)
{
	return s && *s ? s : "-";
}

int main(int argc, char **argv)
{
	int sites = argc > 1 && !strcmp(argv[1], "--sites");
	const char *start = argc > 1 + sites ? argv[1 + sites] : ".";
	struct kbx_error err = KBX_ERROR_INIT;
	char *kbx_dir = NULL, *root = NULL;
	kbx_store_t *s = NULL;

	if (kbx_store_locate(start, 0, &kbx_dir, &root, &err) ||
	    kbx_store_open(kbx_dir, root, KBX_OPEN_READ, 0, &s, &err)) {
		fprintf(stderr, "kbx-export: %s\n", err.msg);
		return 2;
	}
	struct kbx_store_info info;
	if (kbx_store_info(s, &info, &err)) {
		fprintf(stderr, "kbx-export: %s\n", err.msg);
		return 2;
	}
	/* files + symbols + externals is a lower bound: "name:" nodes for
	 * ambiguous calls (and modules) come on top, so keep going past it
	 * until a long run of ids is missing. */
	unsigned long long want = info.files + info.symbols + info.externals;
	const unsigned max_gap = 1u << 20;

	uint32_t *ids = NULL;
	size_t nids = 0, alloc = 0;
	unsigned gap = 0;
	for (uint32_t id = 1; gap < max_gap && id < UINT32_MAX; id++) {
		struct kbx_node n;
		struct kbx_error e2 = KBX_ERROR_INIT;
		kbx_status_t st = kbx_node_get(s, id, &n, &e2);
		if (st == KBX_NOT_FOUND) {
			gap++;
			continue;
		}
		if (st) {
			fprintf(stderr, "kbx-export: node %u: %s\n", id, e2.msg);
			return 2;
		}
		gap = 0;
		if (nids == alloc) {
			alloc = alloc ? 2 * alloc : 65536;
			ids = realloc(ids, alloc * sizeof(*ids));
			if (!ids) {
				fprintf(stderr, "kbx-export: out of memory\n");
				return 2;
			}
		}
		ids[nids++] = id;
		char line[16] = "-";
		if (n.path)
			snprintf(line, sizeof(line), "%u", n.line);
		printf("N\t%u\t%s\t%s\t%s\t%s\t%.*s\t%s", n.id, or_dash(kbx_kind_str(n.kind)),
		       or_dash(kbx_lang_str(n.lang)), or_dash(n.name), or_dash(n.cid),
		       n.path ? (int)n.path_len : 1, n.path ? n.path : "-", line);
		if (sites && n.path)
			printf("\t%u", n.end_line);
		else if (sites)
			fputs("\t-", stdout);
		putchar('\n');
	}
	struct edge_out o = { stdout, 0, sites };
	for (size_t i = 0; i < nids; i++) {
		if (kbx_walk_edges(s, ids[i], KBX_EDGE_CALLS, KBX_DIR_OUT, 1, put_edge, &o, &err)) {
			fprintf(stderr, "kbx-export: edges of node %u: %s\n", ids[i], err.msg);
			return 2;
		}
	}
	fprintf(stderr, "kbx-export: %zu nodes (store counts %llu files+symbols+externals), %llu call edges\n",
		nids, want, o.n);
	free(ids);
	kbx_store_close(s);
	free(kbx_dir);
	free(root);
	if (fflush(stdout) || ferror(stdout)) {
		perror("kbx-export: write");
		return 2;
	}
	return 0;
}
