/*
 * Fuzz the Markdown registry parser (lib/registry/markdown.c): front
 * matter through libyaml, the body through cmark, cut into chunks.
 *
 * Input: the first byte picks the default type (its value modulo 5,
 * plus 1), the rest is the document, parsed as a registry's and as one
 * of the repository's own.  Checked: the status is success, a parse
 * error or out of memory; a parse error sends no chunk and one note on
 * the file, and never comes of a repository's document; chunks are numbered from 0, their line ranges lie in
 * the file, in order and without overlap, and their text is text_len
 * long and starts with the title; notes have a path, reason and message.
 */
#include <string.h>

#include "fuzz.h"
#include "registry/registry.h"

struct seen {
	size_t lines;
	size_t chunks, notes, file_skips;
	uint32_t last_end;
	char *doc_id;
};

static int on_chunk(void *data, const struct kbx_chunk *c)
{
	struct seen *s = data;
	FUZZ_ASSERT(c->seq == s->chunks);
	s->chunks++;
	FUZZ_ASSERT(c->type >= KBX_CHUNK_ERROR && c->type <= KBX_CHUNK_BEHAVIORAL);
	FUZZ_ASSERT(c->doc_id && *c->doc_id && c->title && c->heading && c->lang && c->tags &&
		    c->category && c->severity && c->pattern && c->cause && c->fix && c->related);
	FUZZ_ASSERT(!strcmp(c->path, "docs/fuzz.md"));
	if (!s->doc_id)
		FUZZ_ASSERT((s->doc_id = strdup(c->doc_id)) != NULL);
	else
		FUZZ_ASSERT(!strcmp(s->doc_id, c->doc_id));
	FUZZ_ASSERT(c->text && strlen(c->text) == c->text_len);
	FUZZ_ASSERT(c->text_len > strlen(c->title));
	FUZZ_ASSERT(!strncmp(c->text, c->title, strlen(c->title)));
	FUZZ_ASSERT(c->line >= 1 && c->line <= c->end_line && c->end_line <= s->lines);
	FUZZ_ASSERT(c->line > s->last_end);
	s->last_end = c->end_line;
	return 0;
}

static void on_note(void *data, const struct kbx_note *n)
{
	struct seen *s = data;
	s->notes++;
	FUZZ_ASSERT(n->kind == KBX_NOTE_SKIPPED || n->kind == KBX_NOTE_WARNING);
	FUZZ_ASSERT(n->path && !strcmp(n->path, "docs/fuzz.md"));
	FUZZ_ASSERT(n->reason && *n->reason && n->message && *n->message && n->what);
	FUZZ_ASSERT(n->line >= 1 && n->col >= 1);
	if (n->kind == KBX_NOTE_SKIPPED)
		s->file_skips++;
}

static size_t count_lines(const uint8_t *data, size_t size)
{
	size_t n = 1;
	for (size_t i = 0; i < size; i++)
		if (data[i] == '\n' || data[i] == '\r' || data[i] == 0x85 ||
		    (i + 2 < size && data[i] == 0xe2 && data[i + 1] == 0x80 &&
		     (data[i + 2] == 0xa8 || data[i + 2] == 0xa9)))
			n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	int type = data[0] % 5 + 1;
	data++, size--;
	for (int repository = 0; repository < 2; repository++) {
		struct seen s;
		memset(&s, 0, sizeof(s));
		s.lines = count_lines(data, size);
		struct kbx_chunk_sink sink = { &s, on_chunk, on_note };
		struct kbx_error err = KBX_ERROR_INIT;
		kbx_status_t st = _kbx_registry_parse_markdown("docs/fuzz.md", (const char *)data,
							       size, type, repository, &sink, &err);
		FUZZ_ASSERT(st == KBX_OK || st == KBX_ERR_PARSE || st == KBX_ERR_NOMEM);
		FUZZ_ASSERT(st == err.status);
		FUZZ_ASSERT(!repository || st != KBX_ERR_PARSE);
		if (st == KBX_ERR_PARSE)
			FUZZ_ASSERT(s.chunks == 0 && s.file_skips == 1 && s.notes == 1 && *err.msg);
		else if (st == KBX_OK)
			FUZZ_ASSERT(s.file_skips == 0);
		free(s.doc_id);
	}
	return 0;
}
