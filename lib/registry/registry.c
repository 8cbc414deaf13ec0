/*
 * Registries: which files of a registry are what, and the helpers its
 * parsers (errors.c, markdown.c) share.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"
#include "registry/parse.h"

/* ---- classifying paths ---- */

static int has_ext(const char *name, size_t len, const char *ext)
{
	size_t el = strlen(ext);
	return len > el && !strncasecmp(name + len - el, ext, el);
}

/*
 * rel is relative to the registry root: the directory that holds
 * errors/, patterns/, ... (a directory of YAML files alone is not a
 * registry: give its parent).  Paths with a component starting with '.'
 * (.github/, .git/) are not part of a registry.  Directory names are
 * matched as written; extensions in any case.
 */
int _kbx_registry_classify(const char *rel, const char **lang, size_t *lang_len, int *type)
{
	static const struct {
		const char *dir;
		int type;
	} doc_dirs[] = {
		{ "patterns", KBX_CHUNK_PATTERN },
		{ "adrs", KBX_CHUNK_ADR },
		{ "docs", KBX_CHUNK_DOC },
		{ "behavioral", KBX_CHUNK_BEHAVIORAL },
	};
	*lang = "";
	*lang_len = 0;
	*type = 0;
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	size_t len = strlen(rel);
	if (!len || rel[len - 1] == '/')
		return KBX_REG_NONE;
	for (const char *p = rel; p; p = strchr(p, '/')) {
		if (*p == '/')
			p++;
		if (*p == '.' || *p == '/')
			return KBX_REG_NONE;
	}
	const char *slash = strchr(rel, '/');
	size_t top_len = slash ? (size_t)(slash - rel) : 0;

	if (top_len == 6 && !strncmp(rel, "errors", 6) &&
	    (has_ext(rel, len, ".yml") || has_ext(rel, len, ".yaml"))) {
		/* errors/<lang>/[...]/x.yml; errors/x.yml has no language */
		const char *l = slash + 1, *end = strchr(l, '/');
		if (end) {
			*lang = l;
			*lang_len = (size_t)(end - l);
		}
		*type = KBX_CHUNK_ERROR;
		return KBX_REG_ERRORS;
	}
	if (!has_ext(rel, len, ".md") && !has_ext(rel, len, ".markdown"))
		return KBX_REG_NONE;
	*type = KBX_CHUNK_DOC;
	for (size_t i = 0; slash && i < sizeof(doc_dirs) / sizeof(doc_dirs[0]); i++)
		if (strlen(doc_dirs[i].dir) == top_len && !strncmp(rel, doc_dirs[i].dir, top_len))
			*type = doc_dirs[i].type;
	return KBX_REG_MARKDOWN;
}

/* ---- notes ---- */

void _kbx_reg_note(const struct kbx_chunk_sink *sink, int kind, const char *path, uint32_t line,
		   uint32_t col, const char *reason, const char *what, const char *fmt, ...)
{
	if (!sink || !sink->note)
		return;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	struct kbx_note n;
	memset(&n, 0, sizeof(n));
	n.kind = kind;
	n.path = path;
	n.line = line;
	n.col = col;
	n.reason = reason;
	n.what = what;
	/* out of memory: the reason alone still tells what happened */
	n.message = sb.failed ? reason : strbuf_str(&sb);
	sink->note(sink->data, &n);
	strbuf_release(&sb);
}

/* ---- lines ---- */

int _kbx_lines_init(struct _kbx_lines *l, const char *buf, size_t len)
{
	size_t n = 1, alloc = 64;
	l->start = malloc(alloc * sizeof(*l->start));
	l->n = 0;
	if (!l->start)
		return -1;
	l->start[0] = 0;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n' && buf[i] != '\r')
			continue;
		if (buf[i] == '\r' && i + 1 < len && buf[i + 1] == '\n')
			i++;
		if (i + 1 == len)
			break;          /* a final line break opens no line */
		if (n + 1 >= alloc) {
			size_t *ns = realloc(l->start, alloc * 2 * sizeof(*ns));
			if (!ns) {
				free(l->start);
				l->start = NULL;
				return -1;
			}
			l->start = ns;
			alloc *= 2;
		}
		l->start[n++] = i + 1;
	}
	l->start[n] = len;
	l->n = len ? n : 0;
	return 0;
}

void _kbx_lines_release(struct _kbx_lines *l)
{
	free(l->start);
	l->start = NULL;
	l->n = 0;
}

int _kbx_lines_blank(const struct _kbx_lines *l, const char *buf, size_t i)
{
	if (i >= l->n)
		return 1;
	for (size_t p = l->start[i]; p < l->start[i + 1]; p++)
		if (buf[p] != ' ' && buf[p] != '\t' && buf[p] != '\r' && buf[p] != '\n')
			return 0;
	return 1;
}

/* ---- YAML nodes ---- */

int _kbx_yaml_is_null(const yaml_node_t *n)
{
	if (n->type == YAML_NO_NODE)
		return 1;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return 0;
	const char *s = (const char *)n->data.scalar.value;
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

int _kbx_yaml_has_nul(const yaml_node_t *n)
{
	return n->type == YAML_SCALAR_NODE &&
	       strlen((const char *)n->data.scalar.value) != n->data.scalar.length;
}

const char *_kbx_yaml_type_name(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return _kbx_yaml_is_null(n) ? "an empty value" : "a single value";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "an empty value";
	}
}

yaml_node_t *_kbx_yaml_get(yaml_document_t *doc, yaml_node_t *map, const char *key,
			   yaml_node_t **key_node)
{
	yaml_node_t *found = NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = _kbx_yaml_node(doc, p->key);
		if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key)) {
			if (key_node)
				*key_node = k;
			found = _kbx_yaml_node(doc, p->value);
		}
	}
	return found;
}

int _kbx_yaml_join_list(yaml_document_t *doc, yaml_node_t *v, struct strbuf *sb,
			const char *sep, yaml_node_t **bad)
{
	if (v->type == YAML_SCALAR_NODE) {
		if (_kbx_yaml_has_nul(v)) {
			*bad = v;
			return -1;
		}
		if (!_kbx_yaml_is_null(v))
			strbuf_addstr(sb, (const char *)v->data.scalar.value);
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		*bad = v;
		return -1;
	}
	size_t before = sb->len;
	for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
		yaml_node_t *e = _kbx_yaml_node(doc, *it);
		if (!e || _kbx_yaml_is_null(e))
			continue;
		if (e->type != YAML_SCALAR_NODE || _kbx_yaml_has_nul(e)) {
			*bad = e;
			return -1;
		}
		if (sb->len > before)
			strbuf_addstr(sb, sep);
		strbuf_addstr(sb, (const char *)e->data.scalar.value);
	}
	return 0;
}
