/*
 * libkbx's context packs: the answer to a question as text for a model,
 * within a budget of tokens (kbx context).
 *
 * kbx_context() asks every source (a store, with its embedder) the
 * question twice, as kbx hybrid and as kbx search do, fuses the ranked
 * lists by reciprocal rank, and packs the best candidates until the
 * budget is spent:
 *
 *   1. hybrid: kbx_hybrid()'s results (code reached by the plan) and its
 *      registry documents;
 *   2. search: kbx_search()'s hits, code, documents and error entries,
 *      with the search filters;
 *   3. neighbours: the callers and callees of the central symbols (the
 *      best few functions of steps 1 and 2), as signatures;
 *   4. pack: best first; a code piece is the definition's whole body read
 *      from the repository's file again, a document its indexed section,
 *      an error entry its type, cause and fix.  One piece per document
 *      and per definition; a piece whose lines overlap one already packed
 *      is left out; a body larger than what is left is cut, with a
 *      marker, when it is worth it.
 *
 * Files are read as every command reads the repository (kbx-security(7)):
 * no symbolic link followed, at most max_file_size bytes.  A file that
 * changed since it was indexed (lines out of range, the definition's name
 * no longer on its line) gives no piece; the plan's notes say so.
 *
 * Tokens are an estimate (kbx_context_tokens()); kbx-context(1) says how
 * close it comes to a BPE tokenizer's count.  Same conventions as kbx.h:
 * a quiet library, status codes, struct kbx_error; everything returned
 * is owned by the result and freed by kbx_context_release().
 */
#ifndef KBX_CONTEXT_H
#define KBX_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"
#include "hybrid/kbx-hybrid.h"
#include "search/kbx-search.h"

#define KBX_CONTEXT_DEFAULT_BUDGET 4000
#define KBX_CONTEXT_MIN_BUDGET 64
#define KBX_CONTEXT_MAX_BUDGET 1000000
/* Central symbols whose callers and callees are packed as signatures,
 * and how many of each per symbol. */
#define KBX_CONTEXT_CENTRAL 3
#define KBX_CONTEXT_NEIGHBOURS 8
/* Tokens every piece costs besides its header and text: the fence or
 * the blank lines around it. */
#define KBX_CONTEXT_PIECE_OVERHEAD 6

/* The estimated tokens of len bytes of text (see kbx-context(1)):
 * letters in runs, a token per 6 (an identifier's parts: split at '_'
 * and at a lower-to-upper change); digits a token per 3; punctuation a
 * token per character but a run of one character, a token per 4;
 * newlines one each; indentation a token per 8 columns; any other UTF-8
 * character one. */
size_t kbx_context_tokens(const char *text, size_t len);

/* One store to ask, or a graph (kbx_hybrid_over's: kbx --db) instead of
 * it.  A graph's definitions are not read from the repository's files,
 * which may not be on this machine, but from its code chunks (the
 * definitions' lines as kbx index cut them, file_chunks): a line no
 * chunk holds reads as blank, and a chunk cut at its size limit ends
 * there. */
struct kbx_context_source {
	kbx_store_t *store;
	const struct kbx_hybrid_graph *graph;  /* NULL: the store's */
	const char *repo;                      /* its name (--all-repos), or NULL */
	const struct kbx_embed_config *embed;  /* NULL: builtin */
};

struct kbx_context_opts {
	const char *question;
	size_t budget;                  /* tokens; 0: KBX_CONTEXT_DEFAULT_BUDGET */
	size_t candidates;              /* asked of each step; 0: 20 */
	int mode, fusion;               /* the search's (kbx-search.h) */
	uint64_t max_file_size;         /* a repository file read again; 0: 1 MiB */
	/* the search filters (struct kbx_search_query); they apply to the
	 * hybrid step's results too */
	unsigned types;
	const char *lang;
	const char *const *tags;
	size_t ntags;
	const char *severity;
	const char *path;
};

enum kbx_context_kind {
	KBX_PIECE_CODE = 1,             /* a definition's body */
	KBX_PIECE_SIGNATURE,            /* a caller's or callee's first lines */
	KBX_PIECE_DOC,                  /* a document's section */
	KBX_PIECE_ERROR                 /* an error entry: cause and fix */
};
const char *kbx_context_kind_str(int kind);   /* "code", "signature", "doc", "error" */

struct kbx_context_piece {
	int kind;                       /* enum kbx_context_kind */
	size_t source;                  /* index of the source it comes from */
	char *id;                       /* canonical node id; a document's id and
					 * "#" section; an error's id */
	char *title;                    /* qualified name, document title, error type */
	char *heading;                  /* a document's section heading, or "" */
	char *path;                     /* as indexed; "" when none */
	uint32_t line, end_line;        /* the lines the text holds; 0: none */
	uint32_t def_end_line;          /* code: the definition's last line
					 * (beyond end_line when cut) */
	int cut;                        /* the body was cut to fit */
	int shortened;                  /* code as its signature, a document or entry as
					 * its first lines, to leave room for more */
	char *lang;                     /* "python", ..., or "" */
	char *why;                      /* the plan step that found it, in words */
	int step;                       /* enum kbx_context_step */
	double score;                   /* the fused rank score it was packed by */
	char *severity, *cause, *fix;   /* error entries; "" otherwise */
	char *header;                   /* one line: path and lines, id, why */
	char *text;                     /* what the model reads */
	size_t tokens;                  /* header, text and KBX_CONTEXT_PIECE_OVERHEAD */
};

enum kbx_context_step {
	KBX_STEP_HYBRID = 0,
	KBX_STEP_SEARCH,
	KBX_STEP_NEIGHBOURS,
	KBX_STEP__COUNT
};
const char *kbx_context_step_str(int step);   /* "hybrid", "search", "neighbours" */

struct kbx_context_plan {
	/* per step: candidates found, packed, and the time it took */
	size_t found[KBX_STEP__COUNT], packed[KBX_STEP__COUNT];
	double ms[KBX_STEP__COUNT];
	double ms_pack;
	char *relation;                 /* the hybrid traversal ("callers", "search") */
	char *search_text;              /* what the hybrid step searched, or NULL */
	char **central;                 /* the central symbols' ids */
	size_t ncentral;
	size_t candidates;              /* distinct candidates, after dedup */
	size_t duplicates;              /* the same document or definition again */
	size_t overlaps;                /* left out: lines overlap a packed piece */
	size_t over_budget;             /* left out: no room */
	size_t shortened;               /* pieces shortened to leave room (piece.shortened) */
	size_t stale;                   /* left out: the file changed or cannot be read */
	char **notes;                   /* what the user should know */
	size_t nnotes;
};

struct kbx_context {
	struct kbx_context_piece *pieces;
	size_t n;
	size_t budget;
	size_t tokens;                  /* the pieces' sum, at most budget */
	struct kbx_context_plan plan;
};

/* Build the pack for opts->question from nsources sources.  KBX_NOT_FOUND
 * when nothing was found to pack (the plan is filled still);
 * KBX_ERR_USAGE for an empty question or a budget out of range.  A
 * source whose steps fail is skipped with a note unless it is the only
 * one (its error is returned). */
kbx_status_t kbx_context(const struct kbx_context_source *sources, size_t nsources,
			 const struct kbx_context_opts *opts, struct kbx_context *out,
			 struct kbx_error *err);
void kbx_context_release(struct kbx_context *c);

#endif
