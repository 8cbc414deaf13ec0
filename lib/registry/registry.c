/* TEMPORARY placeholder (lead) until the registry helper's parsers land. */
#include <string.h>
#include "registry/registry.h"
#include "internal.h"
int _kbx_registry_classify(const char *rel, const char **lang, size_t *lang_len, int *type)
{
	*lang = ""; *lang_len = 0; *type = KBX_CHUNK_DOC;
	size_t l = strlen(rel);
	if (!strncmp(rel, "errors/", 7) && l > 4 && !strcmp(rel + l - 4, ".yml")) {
		const char *s = strchr(rel + 7, '/');
		if (s) { *lang = rel + 7; *lang_len = (size_t)(s - rel - 7); }
		return KBX_REG_ERRORS;
	}
	if (l > 3 && !strcmp(rel + l - 3, ".md")) return KBX_REG_MARKDOWN;
	return KBX_REG_NONE;
}
kbx_status_t _kbx_registry_parse_errors(const char *path, const char *buf, size_t len, const char *lang_default, const struct kbx_chunk_sink *sink, struct kbx_error *err)
{
	(void)path; (void)buf; (void)len; (void)lang_default; (void)sink; (void)err;
	return KBX_OK;
}
kbx_status_t _kbx_registry_parse_markdown(const char *path, const char *buf, size_t len, int type_default, const struct kbx_chunk_sink *sink, struct kbx_error *err)
{
	struct kbx_chunk c = { 0 };
	(void)err;
	c.type = type_default; c.doc_id = path; c.title = path; c.heading = ""; c.path = path;
	c.line = 1; c.end_line = 1; c.lang = c.tags = c.category = c.severity = c.pattern = c.cause = c.fix = c.related = "";
	c.text = buf; c.text_len = len;
	return sink->chunk(sink->data, &c) ? KBX_ERR_NOMEM : KBX_OK;
}
