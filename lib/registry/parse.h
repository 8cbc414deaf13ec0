/*
 * What the registry parsers share (lib/registry/registry.c): notes to
 * the sink, the line table of a buffer, and reading libyaml's nodes.
 * Private to lib/registry/.
 */
#ifndef KBX_REGISTRY_PARSE_H
#define KBX_REGISTRY_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

#include "registry/registry.h"
#include "util/strbuf.h"

/* Tell the sink something (when it has a note callback). */
void _kbx_reg_note(const struct kbx_chunk_sink *sink, int kind, const char *path, uint32_t line,
		   uint32_t col, const char *reason, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

/*
 * Where each line of a buffer starts.  Lines end at "\n", "\r\n" or a
 * lone "\r", as both cmark and libyaml count them.  start[i] is the byte
 * offset of line i (0-based); start[n] is len, so line i spans
 * start[i]..start[i + 1].
 */
struct _kbx_lines {
	size_t *start;
	size_t n;
};
int _kbx_lines_init(struct _kbx_lines *l, const char *buf, size_t len);
void _kbx_lines_release(struct _kbx_lines *l);
/* Is line i (0-based) empty or only blanks?  Lines past the end are. */
int _kbx_lines_blank(const struct _kbx_lines *l, const char *buf, size_t i);

/* The libyaml document's node i, or NULL. */
static inline yaml_node_t *_kbx_yaml_node(yaml_document_t *doc, int i)
{
	return yaml_document_get_node(doc, i);
}
/* A plain empty scalar, "~" or "null" (any case YAML allows): no value. */
int _kbx_yaml_is_null(const yaml_node_t *n);
/* A scalar holding a NUL byte, which a C string cannot carry. */
int _kbx_yaml_has_nul(const yaml_node_t *n);
/* "a list", "a mapping", ... for messages. */
const char *_kbx_yaml_type_name(const yaml_node_t *n);
/* The value of key in a mapping (the last one when the key is repeated,
 * as most YAML loaders do), or NULL; *key_node gets the key's node. */
yaml_node_t *_kbx_yaml_get(yaml_document_t *doc, yaml_node_t *map, const char *key,
			   yaml_node_t **key_node);
/*
 * Join a list of scalars (or one scalar) with ',' into sb.  Returns 0,
 * or -1 when v is a mapping or holds something other than scalars, with
 * *bad the offending node.  Null items are left out.
 */
int _kbx_yaml_join_list(yaml_document_t *doc, yaml_node_t *v, struct strbuf *sb,
			const char *sep, yaml_node_t **bad);

#define KBX_YAML_LINE(m) ((uint32_t)(m).line + 1)
#define KBX_YAML_COL(m) ((uint32_t)(m).column + 1)

#endif
