/*
 * lib/util/: the bottom layer of the library, shared by every other:
 * status codes and error messages, the growable string (strbuf.h),
 * escaping text for terminals (quote.h), opening a repository's files
 * without following links (safefile.h), SHA-256 (sha256.h), loading
 * run-time modules (modload.h), the settings (config.h), the user's
 * list of repositories (repos.h), JSON read and written (json.h), and
 * the vector index files' trailer and kbx's flat vector index, searched
 * without the module (vflat.h).
 *
 * It includes nothing of lib/ but kbx.h: every layer above may use it
 * (the README's "The tree" gives the order of the layers, and t5700
 * checks it).  This header holds the names private to lib/ that the
 * layers share: lower layers' private headers include it.
 */
#ifndef KBX_UTIL_H
#define KBX_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stddef.h>

#include "kbx.h"
#include "util/strbuf.h"

/* The largest file any index run reads (the top of index.maxFileSize):
 * a bound for commands that read indexed files again. */
#define KBX_MAX_FILE_SIZE_LIMIT (UINT64_C(1) << 30)

/* Set err (when not NULL) and return status. */
kbx_status_t _kbx_fail(struct kbx_error *err, kbx_status_t status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The status of a failed write or creation whose errno is e: a full disk
 * (ENOSPC, EDQUOT) or any other failure to write. */
kbx_status_t _kbx_write_status(int e);

/* The CPU time (user and system) of the calling thread, or of the whole
 * process, in nanoseconds: what index runs report by phase.  0 when the
 * clock cannot be read. */
uint64_t _kbx_thread_cpu_ns(void);
uint64_t _kbx_process_cpu_ns(void);

/* A file in one of the user's base directories, as the XDG base
 * directory spec places it: $var/rel when the variable var
 * (XDG_CONFIG_HOME, XDG_STATE_HOME) is an absolute path, else
 * $HOME/home_dir/rel (home_dir ".config", ".local/state").  malloc()ed
 * into *out: KBX_NOT_FOUND when neither variable helps, KBX_ERR_NOMEM. */
kbx_status_t _kbx_xdg_path(const char *var, const char *home_dir, const char *rel, char **out);

/* "a" + "/" + "b" (one slash), malloc()ed; NULL when out of memory. */
char *_kbx_path_concat(const char *a, const char *b);
/* mkdir -p of the directory that will hold path: 0, or the errno of the
 * mkdir that failed, with the directory it failed on in failed. */
int _kbx_make_parents(const char *path, char *failed, size_t failedsz);

/* A list of u32 (node or chunk ids) built by appending, then settled:
 * sorted, without repeats, and searched.  Unlike struct _kbx_idset,
 * which keeps itself sorted on every insert, it suits large lists built
 * in no order.  Zero-initialise; free(s.v) when done. */
struct _kbx_u32s {
	uint32_t *v;
	size_t n, alloc;
};
int _kbx_u32s_add(struct _kbx_u32s *s, uint32_t v);            /* -1: out of memory */
void _kbx_u32s_settle(struct _kbx_u32s *s);
int _kbx_u32s_has(const struct _kbx_u32s *s, uint32_t v);     /* once settled */
int _kbx_cmp_u32(const void *a, const void *b);                /* for qsort, bsearch */

/* Node id -> index into the caller's array of results (open addressing,
 * grows by itself).  Zero-initialise; release when done. */
struct _kbx_idmap_slot {
	uint32_t id, index;
	int used;
};
struct _kbx_idmap {
	struct _kbx_idmap_slot *slot;
	size_t nslot, n;
};
long _kbx_idmap_get(const struct _kbx_idmap *m, uint32_t id);           /* -1: absent */
int _kbx_idmap_put(struct _kbx_idmap *m, uint32_t id, uint32_t index);  /* -1: out of memory */
void _kbx_idmap_clear(struct _kbx_idmap *m);                            /* keeps the room */
void _kbx_idmap_release(struct _kbx_idmap *m);

/* ---- zeroed tables (util.c) ---- */
/* size bytes of zeros: a large table is mapped from the kernel's zero
 * pages, so that only the pages used are ever touched (a query uses a
 * few slots of a tokenizer's cache, and calloc() may clear every page
 * of memory it reuses); NULL when out of memory.  Freed by _kbx_zfree
 * with the same size. */
void *_kbx_zalloc(size_t size);
void _kbx_zfree(void *p, size_t size);

/* ---- hashing, edit distance, a sorted set (util.c) ---- */
void _kbx_hash128(const void *data, size_t len, unsigned char out[16]);
/* FNV-1a of len bytes: the hash of kbx's small open-addressing tables
 * (not stored anywhere: free to change). */
uint64_t _kbx_fnv1a(const char *s, size_t len);
uint64_t _kbx_fnv1a_str(const char *s);   /* of a string */
/* Damerau-free Levenshtein distance, capped at max+1. */
size_t _kbx_edit_distance(const char *a, const char *b, size_t max);
/* Allocations refused on this thread so far: every malloc, calloc,
 * realloc, strdup and strndup of the code kbx links statically
 * (lib/util/alloc-count.c, through -Wl,--wrap), LMDB's cursors and
 * transactions (lib/store/lmdb-count.c), and what else calls
 * _kbx_nomem (memory the C library or the kernel refused: opendir,
 * mmap).  A phase that must not go on with less than it asked for
 * (extracting a file, resolving its calls, a command) compares the
 * count before and after: memory that ran out in a helper that only
 * says "nothing" would otherwise make a plausible wrong answer. */
extern _Thread_local unsigned long _kbx_nomem_count;
static inline void _kbx_nomem(void)
{
	_kbx_nomem_count++;
}

/* Memory ran out inside another project's code that cannot go on
 * without it (cmark does not check what its allocator returns): the
 * handler the program set (cmd/kbx.c's says so and exits with status
 * 9, having committed nothing), else abort().  Never returns. */
void _kbx_nomem_fatal(const char *what) __attribute__((noreturn));
void _kbx_set_nomem_fatal(void (*handler)(const char *what));

/* A set of u32 ids (sorted array). */
struct _kbx_idset {
	uint32_t *ids;
	size_t n, alloc;
};
int _kbx_idset_add(struct _kbx_idset *s, uint32_t id);
/* Add ids[0..n) at once (in any order, repeats allowed; ids is sorted in
 * place): one merge instead of an insert each, for a batch of ids in no
 * order.  0, or -1 when out of memory (s is then unchanged). */
int _kbx_idset_add_many(struct _kbx_idset *s, uint32_t *ids, size_t n);
int _kbx_idset_has(const struct _kbx_idset *s, uint32_t id);
void _kbx_idset_release(struct _kbx_idset *s);

/* ---- lines of text (util.c) ---- */
/* The length of the line of text[0..len) that starts at i, without its
 * "\r\n" or "\n"; *end gets where its newline is (or len). */
size_t _kbx_line_at(const char *text, size_t len, size_t i, size_t *end);

#endif
