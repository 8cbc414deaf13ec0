/*
 * lib/registry/: the parsers of registries, on lib/util/ and lib/text/
 * alone (they read a buffer and give chunks; lib/search/ stores them).
 *
 * Registries: error dictionaries (YAML) and document registries (Markdown
 * with YAML front matter), turned into chunks (lib/text/chunk.h).
 *
 * Part of the quiet library: parsers read a buffer the caller has loaded,
 * report through the sink, and never print.
 *
 * Layout of a registry directory (as in a typical knowledge registry):
 *
 *   errors/<language>/...*.yml|*.yaml   error entries; the language comes
 *                                       from the directory unless an entry
 *                                       names one ("language:")
 *   patterns/ adrs/ docs/ behavioral/   Markdown documents; the type comes
 *                                       from the front matter's category,
 *                                       else from the top directory
 *   anything else *.md                  documents of type doc
 */
#ifndef KBX_REGISTRY_H
#define KBX_REGISTRY_H

#include <stddef.h>

#include "kbx.h"
#include "text/chunk.h"

/* What a file of a registry is, from its path relative to the registry
 * root: KBX_REG_ERRORS (with *lang set to the language directory, or ""
 * -- a static string or a pointer into rel), KBX_REG_MARKDOWN (with
 * *type the default chunk type from the top directory), or KBX_REG_NONE
 * for files a registry does not index. */
enum kbx_reg_file { KBX_REG_NONE = 0, KBX_REG_ERRORS = 1, KBX_REG_MARKDOWN = 2 };
int _kbx_registry_classify(const char *rel, const char **lang, size_t *lang_len, int *type);

/*
 * An error registry file: a YAML sequence of mappings with id, error_type,
 * severity, pattern, cause, fix_template, tags, and optionally
 * related_errors and language.  path is what messages and chunks show.
 * Every entry becomes one chunk (seq 0).
 *
 * Returns KBX_OK when the file was read (entries may have been skipped:
 * told through note with what "entry"); KBX_ERR_PARSE when the whole file
 * was skipped (a YAML syntax error with line and column, or a document
 * that is not a list of entries), already told through note with what
 * "file"; KBX_ERR_NOMEM; or the status a stopped sink asked for.
 */
kbx_status_t _kbx_registry_parse_errors(const char *path, const char *buf, size_t len,
					const char *lang_default,
					const struct kbx_chunk_sink *sink, struct kbx_error *err);

/*
 * A Markdown document: an optional front matter block (between "---"
 * lines at the very top: id, title, category, language, version,
 * created_at, tags), then the body, cut by heading into chunks: a chunk
 * per section, sections shorter than a minimum merged with the next one,
 * sections longer than a maximum split at paragraph boundaries.  Each
 * chunk keeps the document's id (the front matter's, else the path), its
 * title (front matter, else the first heading, else the file name), its
 * heading path and its line range in the file.
 *
 * type_default applies when the front matter names no category.  Returns
 * as _kbx_registry_parse_errors does; in a registry's document a front
 * matter that is not closed, not valid YAML or not a mapping skips the
 * file.
 *
 * repository: the document is one of the repository's own, written for
 * readers and not for kbx, where a first line "---" is as often a
 * thematic break.  A leading block that is not closed, or whose YAML is
 * a single value or a list, is no front matter: the whole file is body
 * text, with no note; so is one that is not valid YAML, unless it looks
 * like fields (its first line that is neither blank nor a comment is
 * "key: ..."): that is a front matter gone wrong, and a warning (what
 * "file", reason "yaml-syntax") says where the YAML parser stopped; its
 * fields are ignored and the body after it is indexed.  A repository's
 * document is never skipped.
 */
kbx_status_t _kbx_registry_parse_markdown(const char *path, const char *buf, size_t len,
					  int type_default, int repository,
					  const struct kbx_chunk_sink *sink, struct kbx_error *err);

#endif
