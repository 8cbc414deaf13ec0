/*
 * lib/search/: the retrieval layer's index and queries, on lib/graph/
 * (code chunks are the graph's definitions), lib/registry/, lib/embed/
 * and lib/text/: the chunk store and BM25 postings (chunk-store.c,
 * bm25.c), error patterns (patterns.c), keeping the search index in step
 * (sync.c), queries and rank fusion (search.c, fuse.c), the registry list
 * (registries.c), and loading the vector module (vecmod.c, which is how
 * lib/vector/ is reached).  kbx-search.h is its public header.
 *
 * Private to lib/search/: the chunk store's records and writer.
 *
 * A chunk record: a 24-byte header (type, kind, flags, reserved, node,
 * line, end_line, seq, pattern_line, length in tokens) and then the
 * strings, each NUL-terminated, in the order of enum chunk_field.
 *
 * A source is a file that gave chunks: "c:PATH" a code file of the graph,
 * "m:PATH" a Markdown file of the repository, "r:ABSPATH" a registry
 * file.  Its record keeps its size, mtime and content hash (to tell when
 * it changed) and the ids of its chunks (to remove them).
 */
#ifndef KBX_SEARCH_INTERNAL_H
#define KBX_SEARCH_INTERNAL_H

#include "graph/graph.h"
#include "search/kbx-search.h"
#include "text/tokenize.h"

enum chunk_field {
	CF_SOURCE, CF_DOC_ID, CF_TITLE, CF_HEADING, CF_PATH, CF_LANG, CF_TAGS,
	CF_CATEGORY, CF_SEVERITY, CF_PATTERN, CF_CAUSE, CF_FIX, CF_RELATED, CF_TEXT,
	CF__COUNT
};
#define KBX_CHUNK_HDR_LEN 28

struct _kbx_chunk_view {
	struct kbx_chunk c;
	const char *source;
	uint32_t ntokens;           /* the chunk's length for BM25 */
};

void _kbx_chunk_encode(struct strbuf *out, const struct kbx_chunk *c, const char *source,
		       uint32_t ntokens);
kbx_status_t _kbx_chunk_decode(const void *data, size_t len, struct _kbx_chunk_view *v);
/* Fetch chunk id into v, from txn. */
kbx_status_t _kbx_chunk_get(struct kbx_store *s, MDB_txn *txn, uint32_t id,
			    struct _kbx_chunk_view *v);

/* A posting: 8 bytes, fixed, so that LMDB stores a term's postings as one
 * DUPFIXED range. */
#define KBX_POSTING_LEN 8
static inline void _kbx_posting_put(unsigned char p[KBX_POSTING_LEN], uint32_t id,
				    uint32_t tf, uint32_t len)
{
	_kbx_put_u32(p, id);
	if (tf > 0xffff)
		tf = 0xffff;
	if (len > 0xffff)
		len = 0xffff;
	p[4] = (unsigned char)(tf >> 8);
	p[5] = (unsigned char)tf;
	p[6] = (unsigned char)(len >> 8);
	p[7] = (unsigned char)len;
}

/* Source records. */
struct _kbx_source_rec {
	uint64_t size;
	int64_t mtime_ns;
	unsigned char hash[16];
	uint32_t nchunks;
	const unsigned char *ids;   /* nchunks u32 BE, into the record */
	uint32_t flags;
};
#define KBX_SOURCE_HDR_LEN 40
#define KBX_SOURCE_SKIPPED 1u   /* the file was skipped whole last time */

/* The record of a source ("c:PATH", ...) as txn sees it, or KBX_NOT_FOUND. */
kbx_status_t _kbx_source_get(struct kbx_store *s, MDB_txn *txn, const char *key,
			     struct _kbx_source_rec *out, struct kbx_error *err);

/* The vector cache's key of a chunk's text (of chunk type type, with
 * title title, NULL for none) embedded by the embedder whose identity
 * hashes to ident (XXH3 of kbx_embedder identity): 8 bytes of it, then
 * the text's 128-bit hash.  A code chunk whose vector leans on its
 * documentation or its name (code-doc.c) has an identity of its own,
 * the name's hash mixed in. */
#define KBX_VCACHE_KEY_LEN 24
void _kbx_vcache_key(unsigned char out[KBX_VCACHE_KEY_LEN], uint64_t ident, int type,
		     const char *text, size_t len, const char *title);

/* ---- a code chunk's documentation (code-doc.c) ---- */

struct kbx_embedder;

/* Does the line starting at p (up to end) start with a comment or an
 * annotation: a block comment, // and ///, #, --, a decorator (@)? */
int _kbx_comment_text(const char *p, const char *end);

/* The documentation of a code chunk's text: the comment lines it starts
 * with (not its annotations), a docstring after its first line, the
 * comment lines it ends with, appended to out (NULL: only measured).
 * Returns its length, or 0 (nothing appended) when there is none or it
 * is too short to say anything. */
size_t _kbx_code_doc(const char *text, size_t len, struct strbuf *out);

/* Does a chunk of this type and text get a vector leaning on its
 * documentation? */
int _kbx_code_doc_leans(int type, const char *text, size_t len);

/* The name a chunk of this type and title weighs more for (a code
 * chunk's title: its qualified name), or NULL. */
const char *_kbx_code_name(int type, const char *title);

/* Embed n chunk texts (as _kbx_embed() does, into out: n * dim floats);
 * those of code chunks (types[i]) with a name (titles[i]) get the
 * normalised sum of their text's unit vector and a part of their name's
 * (code-doc.c), and those with documentation then the normalised sum of
 * that and their documentation's unit vector.  types NULL: texts only;
 * titles NULL: no names. */
kbx_status_t _kbx_embed_chunks(struct kbx_embedder *e, size_t n, const char *const *texts,
			       const size_t *lens, const unsigned char *types,
			       const char *const *titles, uint32_t dim, float *out,
			       struct kbx_error *err);

/* ---- counting a text's terms for BM25 (chunk-store.c) ---- */

/* A term of a text and how often it comes: term is not NUL-terminated
 * and lives as long as the counter that gave it. */
struct _kbx_term {
	const char *term;
	uint32_t len;
	uint32_t tf;
};

/* A counter holds a tokenizer: one per thread.  NULL when out of memory. */
struct _kbx_termcount;
struct _kbx_termcount *_kbx_termcount_new(void);
void _kbx_termcount_free(struct _kbx_termcount *t);
/* The distinct terms of the text of a chunk of type type, in the order
 * they first come (*nterms of them, valid until the next call), and the
 * number of tokens; NULL when out of memory.  A code chunk's
 * documentation (_kbx_code_doc()) is counted twice: its words say what
 * the code is for, and are few beside the body's.  So is its name
 * (_kbx_code_name() of its title, NULL for none), KBX_NAME_COUNT times
 * more: a question that says what a function does often says it in the
 * words of its name ("read a regular file": strbuf_read_regular_file),
 * which the body says once, on its first line, among all its other
 * words. */
#define KBX_NAME_COUNT 2
const struct _kbx_term *_kbx_termcount_chunk(struct _kbx_termcount *t, int type,
					     const char *text, size_t len, const char *title,
					     size_t *nterms, uint32_t *ntokens);

/* ---- the writer of one run (chunk-store.c) ---- */

struct _kbx_cw;
struct _kbx_cw *_kbx_cw_new(struct kbx_store *s, MDB_txn *txn, struct kbx_error *err);
void _kbx_cw_free(struct _kbx_cw *w);
/* The record of a source, or KBX_NOT_FOUND. */
kbx_status_t _kbx_cw_source(struct _kbx_cw *w, const char *key, struct _kbx_source_rec *out);
/* Drop the chunks of a source (and its record unless keep_record). */
kbx_status_t _kbx_cw_remove_source(struct _kbx_cw *w, const char *key);
/* A source whose content is unchanged but whose size or time moved:
 * record them, keep its chunks. */
kbx_status_t _kbx_cw_touch(struct _kbx_cw *w, const char *key, uint64_t size, int64_t mtime_ns);
/* Start replacing a source's chunks; then add, then end. */
kbx_status_t _kbx_cw_begin(struct _kbx_cw *w, const char *key);
/* Add one chunk of the current source.  A chunk whose document id another
 * source defines already is not added: *dup_of gets that place
 * ("path:line", valid until the next call) and KBX_OK is returned. */
kbx_status_t _kbx_cw_add(struct _kbx_cw *w, const struct kbx_chunk *c, const char **dup_of);
/* The same for a code chunk (no document id to check) whose terms were
 * counted already, on another thread (_kbx_termcount_chunk()), by a
 * counter the writer has adopted. */
kbx_status_t _kbx_cw_add_counted(struct _kbx_cw *w, const struct kbx_chunk *c,
				 const struct _kbx_term *terms, size_t nterms, uint32_t ntokens);
/* Keep counter t, whose terms postings point to, until the writer is
 * freed, which frees it; -1 (t still the caller's) when out of memory. */
int _kbx_cw_adopt(struct _kbx_cw *w, struct _kbx_termcount *t);
kbx_status_t _kbx_cw_end(struct _kbx_cw *w, uint64_t size, int64_t mtime_ns,
			 const unsigned char hash[16], uint32_t flags);
/* Write the postings gathered, sorted; call before commit. */
kbx_status_t _kbx_cw_flush(struct _kbx_cw *w);
/* What the run changed. */
uint64_t _kbx_cw_added(const struct _kbx_cw *w);
uint64_t _kbx_cw_removed(const struct _kbx_cw *w);
/* The ids of the chunks added in this run, in order. */
const uint32_t *_kbx_cw_added_ids(const struct _kbx_cw *w, size_t *n);

/* Collection statistics in meta: "chunks" (count), "chunk_tokens" (sum of
 * lengths), "search_generation", "next_chunk". */

/* ---- the vector file (sync.c) ---- */

/* What tells one file from another put in its place (size, times,
 * inode), as recorded when the vector file is built; -1 when it cannot
 * be lstat()ed or is not a regular file (a link is never the vector
 * file). */
int _kbx_vector_file_stamp(const char *path, char *out, size_t outsz);
/* Is the file at path the vector file the last build wrote, as recorded
 * in txn ("vector_file")?  1 yes, 0 no (another file was put there: a
 * checkout overwrites the ignored files of .kbx/), -1 when there is no
 * regular file at path (errno says why).  Nothing of a file that is not
 * the recorded one is ever read: its contents are untrusted. */
int _kbx_vector_file_recorded(struct kbx_store *s, MDB_txn *txn, const char *path);
/* kbx_search_info in the transaction txn (a run's own read of what it
 * committed). */
void _kbx_search_info_txn(struct kbx_store *s, MDB_txn *txn, struct kbx_search_info *info);
/* "flat", "hnsw32", "ivf1024": an index kind and its parameter. */
void _kbx_vector_kind_name(int kind, uint32_t param, char *out, size_t outsz);

/* ---- error patterns (patterns.c) ---- */

/* Compile a registry pattern (Python syntax) for storage: the serialised
 * PCRE2 code and its specificity (literal characters it requires).
 * Returns 0, or -1 with a message in err (offset included). */
int _kbx_pattern_compile(const char *pattern, struct strbuf *out, char *errbuf, size_t errsz);

/* The language a query is about (lib/search/query-lang.c): "python",
 * "javascript", "typescript", "go", "rust", "java", "csharp", or NULL;
 * why gets what said it. */
const char *_kbx_query_lang(const char *text, size_t len, char *why, size_t whysz);
/* Whether needle occurs in text[0..len) (query-lang.c). */
int _kbx_text_has(const char *text, size_t len, const char *needle);
/* A pasted error message with its exception lines weighed more and its
 * frames cut (query-focus.c): 1 and *out (malloc()ed, NUL-terminated)
 * when the text has such lines, 0 when it is to be searched as it is,
 * -1 when out of memory. */
int _kbx_query_focus(const char *text, size_t len, char **out, size_t *outlen);

struct _kbx_pattern_hit {
	uint32_t id;
	double specificity;
	size_t off, len;
};
/* Match every stored pattern against text; hits sorted most specific
 * first.  *out is malloc()ed.  _kbx_patterns_match_source does the same
 * for src's patterns, compiled here from their source. */
kbx_status_t _kbx_patterns_match(struct kbx_store *s, MDB_txn *txn, const char *text,
				 size_t len, struct _kbx_pattern_hit **out, size_t *n,
				 struct kbx_error *err);
kbx_status_t _kbx_patterns_match_source(const struct kbx_search_source *src, const char *text,
					size_t len, struct _kbx_pattern_hit **out, size_t *n,
					struct kbx_error *err);

/* ---- BM25 (bm25.c) ---- */
struct _kbx_scored {
	uint32_t id;
	float score;
};
/* Score every chunk holding a query term into *out (malloc()ed), in no
 * order: _kbx_scored_top() sorts the best of them.  With subset (chunk
 * ids, any order), only those chunks are scored, by a seek per chunk and
 * term instead of a scan of each term's postings: the graph-first plan.
 * *bound (when not NULL): the score of a chunk that held every query term
 * often, the scale of a score's share of the query (0: no term known). */
struct _kbx_bm25_term {
	const char *term;       /* a token, as the tokenizer gives them */
	size_t len;
	double weight;          /* in place of a query word's count */
};
/* extra[0..nextra): terms looked up besides the query's (words near its
 * words), left out of the bound. */
kbx_status_t _kbx_bm25(struct kbx_store *s, MDB_txn *txn, kbx_tokenizer_t *tok,
		       const char *text, size_t len, const uint32_t *subset, size_t nsubset,
		       const struct _kbx_bm25_term *extra, size_t nextra,
		       struct _kbx_scored **out, size_t *n, double *bound, struct kbx_error *err);
/* The same over src's postings (kbx_search_source). */
kbx_status_t _kbx_bm25_source(const struct kbx_search_source *src, kbx_tokenizer_t *tok,
			      const uint32_t *subset, size_t nsubset,
			      const char *text, size_t len, const struct _kbx_bm25_term *extra,
			      size_t nextra, struct _kbx_scored **out, size_t *n, double *bound,
			      struct kbx_error *err);
/* Put the k best of a[0..n) first, best first (ties by id). */
void _kbx_scored_top(struct _kbx_scored *a, size_t n, size_t k);

#endif
