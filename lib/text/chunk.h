/*
 * Chunks: the units the retrieval layer indexes and returns.
 *
 * An error registry entry is one chunk; a Markdown document is cut into
 * chunks by heading; a function, method or class of the code graph is one
 * chunk.  Producers (lib/registry/ for registries, lib/search/ for code)
 * fill a struct kbx_chunk whose strings they own for the duration of one
 * callback; the chunk store (lib/search/store-chunks.c) copies what it keeps.
 */
#ifndef KBX_SEARCH_CHUNK_H
#define KBX_SEARCH_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"

/* Stored on disk: only append. */
enum kbx_chunk_type {
	KBX_CHUNK_ERROR = 1,       /* an error registry entry */
	KBX_CHUNK_PATTERN = 2,     /* a pattern document (category: pattern) */
	KBX_CHUNK_DOC = 3,         /* documentation (category: doc, or any Markdown) */
	KBX_CHUNK_ADR = 4,         /* an architecture decision record */
	KBX_CHUNK_BEHAVIORAL = 5,  /* a behavioural guideline */
	KBX_CHUNK_CODE = 6,        /* a function, method or class */
	KBX_CHUNK__COUNT
};

/* "error", "pattern", "doc", "adr", "behavioral", "code"; NULL if unknown. */
const char *kbx_chunk_type_str(int type);
/* The type named by a word as users and front matter write it ("adr",
 * "adrs", "pattern", "patterns", ...), or 0. */
int kbx_chunk_type_parse(const char *word);

/*
 * One chunk.  Every string is NUL-terminated and never NULL: "" when
 * absent.  Lists (tags, related errors) are joined with ','.
 */
struct kbx_chunk {
	int type;                 /* enum kbx_chunk_type */
	const char *doc_id;       /* the entry's or document's id; for code the
				   * canonical node id ("src/a.py#Foo.bar") */
	uint32_t seq;             /* chunk number within the document, from 0 */
	const char *title;        /* document title; error: its error_type;
				   * code: the qualified name */
	const char *heading;      /* heading path, " > "-joined ("Solution > Retries") */
	const char *path;         /* the file, as shown to the user */
	uint32_t line, end_line;  /* 1-based, inclusive; 0 if unknown */
	const char *lang;         /* "python", "all", or "" */
	const char *tags;
	const char *category;     /* the front matter's category, as written */
	/* errors */
	const char *severity;
	const char *pattern;      /* Python-syntax regular expression; "" when
				   * none or when it did not compile */
	uint32_t pattern_line;    /* where the pattern is written, for messages */
	const char *cause;
	const char *fix;
	const char *related;
	/* what is searched: embedded and indexed for BM25 */
	const char *text;
	size_t text_len;
	/* code */
	uint32_t node;            /* graph node id; 0 for registry chunks */
	int kind;                 /* code: enum kbx_kind */
};

/*
 * Where a parser sends what it finds.  chunk() returns 0, or non-zero to
 * stop the parse (the parser then returns KBX_ERR_NOMEM or the status the
 * callback set in the sink's err).  note() receives warnings (pattern does
 * not compile) and skips (a file, an entry) with path, line, column and a
 * message that says what to do; it may be NULL.
 */
struct kbx_chunk_sink {
	void *data;
	int (*chunk)(void *data, const struct kbx_chunk *c);
	void (*note)(void *data, const struct kbx_note *note);
};

#endif
