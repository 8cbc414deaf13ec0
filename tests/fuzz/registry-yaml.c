/*
 * Fuzz the error registry parser (lib/registry/errors.c): registries are
 * files anyone can write, and indexing must neither crash nor hang on
 * them, nor hand the chunk store something malformed.
 *
 * Input: the YAML file.  Checked: the status is success, a parse error
 * or out of memory; a parse error sends no chunk and tells one note on
 * the file; every chunk's strings are there, its text is text_len long,
 * its lines lie in the file, and ids are unique; every note has a path,
 * a reason and a message.
 */
#include <string.h>

#include "fuzz.h"
#include "registry/registry.h"

#define MAX_IDS 256

struct seen {
	size_t lines;
	size_t chunks, notes, file_notes;
	char *ids[MAX_IDS];
	size_t nids;
};

static void check_str(const char *s)
{
	FUZZ_ASSERT(s != NULL);
	(void)strlen(s);
}

static int on_chunk(void *data, const struct kbx_chunk *c)
{
	struct seen *s = data;
	s->chunks++;
	FUZZ_ASSERT(c->type == KBX_CHUNK_ERROR);
	FUZZ_ASSERT(c->seq == 0);
	check_str(c->doc_id);
	FUZZ_ASSERT(*c->doc_id);
	check_str(c->title);
	check_str(c->heading);
	FUZZ_ASSERT(!strcmp(c->path, "errors/x/fuzz.yml"));
	check_str(c->lang);
	check_str(c->tags);
	check_str(c->category);
	check_str(c->severity);
	check_str(c->pattern);
	check_str(c->cause);
	check_str(c->fix);
	check_str(c->related);
	FUZZ_ASSERT(c->text && strlen(c->text) == c->text_len);
	FUZZ_ASSERT(c->line >= 1 && c->line <= c->end_line && c->end_line <= s->lines);
	FUZZ_ASSERT(c->pattern_line >= 1 && c->pattern_line <= s->lines);
	for (size_t i = 0; i < s->nids; i++)
		FUZZ_ASSERT(strcmp(s->ids[i], c->doc_id));
	if (s->nids < MAX_IDS)
		FUZZ_ASSERT((s->ids[s->nids++] = strdup(c->doc_id)) != NULL);
	return 0;
}

static void on_note(void *data, const struct kbx_note *n)
{
	struct seen *s = data;
	s->notes++;
	FUZZ_ASSERT(n->kind == KBX_NOTE_SKIPPED || n->kind == KBX_NOTE_WARNING);
	FUZZ_ASSERT(n->path && !strcmp(n->path, "errors/x/fuzz.yml"));
	FUZZ_ASSERT(n->reason && *n->reason);
	FUZZ_ASSERT(n->message && *n->message);
	FUZZ_ASSERT(n->what);
	FUZZ_ASSERT(n->line >= 1 && n->col >= 1);
	if (!strcmp(n->what, "file"))
		s->file_notes++;
}

/* Lines as libyaml may count them: every break, and one more. */
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
	struct seen s;
	memset(&s, 0, sizeof(s));
	s.lines = count_lines(data, size);
	struct kbx_chunk_sink sink = { &s, on_chunk, on_note };
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st = _kbx_registry_parse_errors("errors/x/fuzz.yml", (const char *)data, size,
						     "x", &sink, &err);
	FUZZ_ASSERT(st == KBX_OK || st == KBX_ERR_PARSE || st == KBX_ERR_NOMEM);
	FUZZ_ASSERT(st == err.status);
	if (st == KBX_ERR_PARSE) {
		FUZZ_ASSERT(s.chunks == 0 && s.file_notes == 1 && s.notes == 1 && *err.msg);
	} else if (st == KBX_OK) {
		FUZZ_ASSERT(s.file_notes == 0);
	}
	for (size_t i = 0; i < s.nids; i++)
		free(s.ids[i]);
	return 0;
}
