/* TEMPORARY placeholder (lead) until the registry helper's version lands. */
#include <string.h>
#include <strings.h>
#include "search/chunk.h"
static const char *const names[] = { NULL, "error", "pattern", "doc", "adr", "behavioral", "code" };
const char *kbx_chunk_type_str(int t) { return t > 0 && t < KBX_CHUNK__COUNT ? names[t] : NULL; }
int kbx_chunk_type_parse(const char *w)
{
	for (int t = 1; t < KBX_CHUNK__COUNT; t++) if (!strcasecmp(w, names[t])) return t;
	return 0;
}
