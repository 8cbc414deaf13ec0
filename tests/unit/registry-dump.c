/*
 * registry-dump: print what the registry parsers make of files, in a
 * stable text form, for tests/t8000-registry-parse.sh.
 *
 *   registry-dump [--root DIR] [--text] [--stop-after N] [--repository] FILE...
 *   registry-dump --classify PATH...
 *
 * Each FILE is classified by its path relative to DIR (default: the
 * current directory) and parsed; paths are shown relative to DIR.  For
 * each chunk:
 *
 *   chunk PATH #SEQ
 *   type, doc_id, title, heading, lines, lang, tags, category,
 *   severity, pattern, pattern_line, cause, fix, related: one line each
 *   ("key: value", newlines in values shown as \n)
 *   text: the searched text, on one line, only with --text
 *
 * and for each note, in the order they come:
 *
 *   note KIND PATH:LINE:COL REASON WHAT: MESSAGE
 *
 * then "status PATH STATUS" for each file.  --stop-after N makes the
 * sink stop each parse after N chunks, with the status KBX_ERR_IO.
 * --repository reads each Markdown file as one of the repository's own
 * documents, not a registry's.  A file of no registry kind prints "none
 * PATH".  Exit 2 when a file cannot be read.
 *
 * --classify prints, for each registry-relative PATH (nothing is read),
 * "PATH: none", "PATH: errors LANG" or "PATH: markdown TYPE".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbx.h"
#include "registry/registry.h"
#include "util/strbuf.h"

static int show_text;
static int repository;
static long stop_after = -1;
static long chunks_seen;

static void field(const char *key, const char *v)
{
	printf("  %s: ", key);
	for (; *v; v++) {
		if (*v == '\n')
			fputs("\\n", stdout);
		else if (*v == '\\')
			fputs("\\\\", stdout);
		else
			putchar(*v);
	}
	putchar('\n');
}

static int on_chunk(void *data, const struct kbx_chunk *c)
{
	if (stop_after >= 0 && chunks_seen++ >= stop_after) {
		struct kbx_error *err = data;
		err->status = KBX_ERR_IO;
		snprintf(err->msg, sizeof(err->msg), "stopped by the sink");
		return 1;
	}
	printf("chunk %s #%u\n", c->path, c->seq);
	field("type", kbx_chunk_type_str(c->type) ? kbx_chunk_type_str(c->type) : "?");
	field("doc_id", c->doc_id);
	field("title", c->title);
	field("heading", c->heading);
	printf("  lines: %u-%u\n", c->line, c->end_line);
	field("lang", c->lang);
	field("tags", c->tags);
	field("category", c->category);
	if (c->type == KBX_CHUNK_ERROR) {
		field("severity", c->severity);
		field("pattern", c->pattern);
		printf("  pattern_line: %u\n", c->pattern_line);
		field("cause", c->cause);
		field("fix", c->fix);
		field("related", c->related);
	}
	if (strlen(c->text) != c->text_len) {
		fprintf(stderr, "registry-dump: text_len %zu but strlen %zu\n", c->text_len,
			strlen(c->text));
		abort();
	}
	if (show_text)
		field("text", c->text);
	else
		printf("  text_len: %zu\n", c->text_len);
	return 0;
}

static void on_note(void *data, const struct kbx_note *n)
{
	(void)data;
	printf("note %s %s:%u:%u %s %s: %s\n",
	       n->kind == KBX_NOTE_SKIPPED ? "skipped" : n->kind == KBX_NOTE_WARNING ? "warning" : "?",
	       n->path ? n->path : "(null)", n->line, n->col, n->reason ? n->reason : "(null)",
	       n->what ? n->what : "(null)", n->message ? n->message : "(null)");
}

int main(int argc, char **argv)
{
	const char *root = NULL;
	int i = 1, rc = 0;
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--root") && i + 1 < argc)
			root = argv[++i];
		else if (!strcmp(argv[i], "--text"))
			show_text = 1;
		else if (!strcmp(argv[i], "--stop-after") && i + 1 < argc)
			stop_after = atol(argv[++i]);
		else if (!strcmp(argv[i], "--repository"))
			repository = 1;
		else
			break;
	}
	if (i < argc && !strcmp(argv[i], "--classify")) {
		static const char *const kinds[] = { "none", "errors", "markdown" };
		for (i++; i < argc; i++) {
			const char *lang;
			size_t lang_len;
			int type, k = _kbx_registry_classify(argv[i], &lang, &lang_len, &type);
			printf("%s: %s", argv[i], kinds[k]);
			if (k == KBX_REG_ERRORS)
				printf(" %.*s", (int)lang_len, lang);
			else if (k == KBX_REG_MARKDOWN)
				printf(" %s", kbx_chunk_type_str(type));
			putchar('\n');
		}
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	}
	struct kbx_chunk_sink sink = { NULL, on_chunk, on_note };
	for (; i < argc; i++) {
		const char *file = argv[i], *rel = file;
		size_t rl = root ? strlen(root) : 0;
		if (root && !strncmp(file, root, rl) && file[rl] == '/')
			rel = file + rl + 1;
		struct strbuf sb = STRBUF_INIT;
		if (strbuf_read_file(&sb, file, 0) < 0) {
			fprintf(stderr, "registry-dump: cannot read '%s'\n", file);
			rc = 2;
			continue;
		}
		const char *lang;
		size_t lang_len;
		int type;
		struct kbx_error err = KBX_ERROR_INIT;
		kbx_status_t st;
		sink.data = &err;
		chunks_seen = 0;
		switch (_kbx_registry_classify(rel, &lang, &lang_len, &type)) {
		case KBX_REG_ERRORS: {
			char *l = strndup(lang, lang_len);
			st = _kbx_registry_parse_errors(rel, strbuf_str(&sb), sb.len, l, &sink, &err);
			free(l);
			break;
		}
		case KBX_REG_MARKDOWN:
			st = _kbx_registry_parse_markdown(rel, strbuf_str(&sb), sb.len, type, repository,
							  &sink, &err);
			break;
		default:
			printf("none %s\n", rel);
			strbuf_release(&sb);
			continue;
		}
		printf("status %s %s%s%s\n", rel, kbx_status_str(st), st ? ": " : "", st ? err.msg : "");
		strbuf_release(&sb);
	}
	if (fflush(stdout) || ferror(stdout))
		rc = 2;
	return rc;
}
