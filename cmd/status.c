/* kbx status: what the index holds. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "builtin.h"
#include "search/kbx-search.h"
#include "output.h"
#include "parse-options.h"

/* one record: text or JSON (same order as FMT_TEXT, FMT_JSON) */
static const char *const status_formats[] = { "text", "json", NULL };

static const char *const status_usage[] = {
	"kbx status [--format=<format>]",
	NULL
};

/* An ISO 8601 time, or null (JSON) / "never" (text) when there is none. */
static void put_time(struct out *o, const char *key, int64_t t)
{
	char buf[64];
	if (!t) {
		out_field_str(o, key, out_format(o) == FMT_JSON ? NULL : "never");
		return;
	}
	struct tm tm;
	time_t tt = (time_t)t;
	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	out_field_str(o, key, buf);
}

int cmd_status(int argc, const char **argv, struct kbx_ctx *ctx)
{
	struct output_opts oo = OUTPUT_OPTS_INIT;
	struct option opts[] = {
		OPT_KEYWORD_F(0, "format", &oo.format, status_formats, "FORMAT",
			      "output format: text or json"),
		OPT_INT_F(0, "format-version", &oo.format_version, "N",
			  "version of the JSON record (default: the newest)"),
		OPT_KEYWORD_F(0, "color", &oo.color, output_color_names, "WHEN",
			      "colour the text output: auto, always or never"),
		OPT_REPO_F(),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, status_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs) {
		fprintf(stderr, "error: 'status' takes no arguments\n");
		return KBX_EXIT_USAGE;
	}
	struct kbx_store_info info;
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_store_info(ctx->store, &info, &err))
		return die_status(&err);
	struct out *o = out_new(&oo);
	if (!o)
		return KBX_EXIT_USAGE;
	out_record_begin(o, "status");
	out_field_str(o, "root", kbx_store_root(ctx->store));
	out_field_str(o, "store", ctx->kbx_dir);
	out_field_int(o, "schema", info.schema_version);
	out_field_int(o, "generation", (int64_t)info.generation);
	put_time(o, "created", info.created);
	put_time(o, "updated", info.updated);
	out_field_int(o, "files", (int64_t)info.files);
	for (int l = 1; l < 32; l++) {
		const char *name = kbx_lang_str(l);
		char key[48];
		if (!name || !info.files_by_lang[l])
			continue;
		snprintf(key, sizeof(key), "files_%s", name);
		out_field_int(o, key, (int64_t)info.files_by_lang[l]);
	}
	out_field_int(o, "symbols", (int64_t)info.symbols);
	out_field_int(o, "externals", (int64_t)info.externals);
	out_field_int(o, "modules", (int64_t)info.modules);
	out_field_int(o, "edges", (int64_t)info.edges);
	for (int k = 1; k < KBX_EDGE__COUNT; k++) {
		char key[48];
		snprintf(key, sizeof(key), "edges_%s", kbx_edge_kind_str(k));
		out_field_int(o, key, (int64_t)info.edges_by_kind[k]);
	}
	out_field_int(o, "edges_ambiguous", (int64_t)info.ambiguous_edges);
	out_field_int(o, "edges_unresolved", (int64_t)info.unresolved_edges);
	struct kbx_search_info si;
	if (kbx_search_info(ctx->store, &si, &err) == KBX_OK) {
		static const char *const states[] = { "none", "current", "stale", "unreadable" };
		out_field_int(o, "chunks", (int64_t)si.chunks);
		for (int t = 1; t < KBX_CHUNK__COUNT; t++) {
			char key[48];
			snprintf(key, sizeof(key), "chunks_%s", kbx_chunk_type_str(t));
			out_field_int(o, key, (int64_t)si.by_type[t]);
		}
		out_field_int(o, "registries", (int64_t)si.registries);
		out_field_int(o, "postings", (int64_t)si.postings);
		out_field_int(o, "search_generation", (int64_t)si.generation);
		out_field_str(o, "vectors_state", states[si.vector_state & 3]);
		out_field_int(o, "vectors", (int64_t)si.vectors);
		out_field_int(o, "vector_delta", (int64_t)si.vector_delta);
		out_field_int(o, "vectors_missing", (int64_t)si.vectors_missing);
		out_field_str(o, "vector_index", si.vector_kind[0] ? si.vector_kind : NULL);
		out_field_str(o, "embedder", si.identity[0] ? si.identity : NULL);
	}
	out_field_int(o, "store_bytes", (int64_t)info.store_bytes);
	out_field_int(o, "map_bytes", (int64_t)info.map_bytes);
	out_record_end(o);
	return out_finish(o) ? KBX_EXIT_IO : KBX_EXIT_OK;
}
