/* Names of chunk types, both ways. */
#include <string.h>
#include <strings.h>

#include "text/chunk.h"

static const char *const type_names[KBX_CHUNK__COUNT] = {
	[KBX_CHUNK_ERROR] = "error",
	[KBX_CHUNK_PATTERN] = "pattern",
	[KBX_CHUNK_DOC] = "doc",
	[KBX_CHUNK_ADR] = "adr",
	[KBX_CHUNK_BEHAVIORAL] = "behavioral",
	[KBX_CHUNK_CODE] = "code",
};

const char *kbx_chunk_type_str(int type)
{
	if (type <= 0 || type >= KBX_CHUNK__COUNT)
		return NULL;
	return type_names[type];
}

/* Every spelling users and front matter write; case does not matter. */
static const struct {
	const char *word;
	int type;
} type_words[] = {
	{ "error", KBX_CHUNK_ERROR },
	{ "errors", KBX_CHUNK_ERROR },
	{ "pattern", KBX_CHUNK_PATTERN },
	{ "patterns", KBX_CHUNK_PATTERN },
	{ "doc", KBX_CHUNK_DOC },
	{ "docs", KBX_CHUNK_DOC },
	{ "documentation", KBX_CHUNK_DOC },
	{ "adr", KBX_CHUNK_ADR },
	{ "adrs", KBX_CHUNK_ADR },
	{ "behavioral", KBX_CHUNK_BEHAVIORAL },
	{ "behavioural", KBX_CHUNK_BEHAVIORAL },
	{ "code", KBX_CHUNK_CODE },
};

int kbx_chunk_type_parse(const char *word)
{
	if (!word)
		return 0;
	for (size_t i = 0; i < sizeof(type_words) / sizeof(type_words[0]); i++)
		if (!strcasecmp(word, type_words[i].word))
			return type_words[i].type;
	return 0;
}
