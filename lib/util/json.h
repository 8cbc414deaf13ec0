/*
 * JSON values read into a tree and written back (RFC 8259), for the
 * protocol kbx mcp speaks and the JSON Lines its commands print.  The
 * text comes from whoever writes to kbx's standard input: the reader
 * bounds the nesting (KBX_JSON_MAX_DEPTH) and takes lengths, never NUL
 * terminators, so a string may hold "\u0000".  The writer always writes
 * valid UTF-8: a byte outside a well-formed sequence becomes U+FFFD.
 *
 * kbx itself does not link Jansson (only the embedding module does, to
 * keep every command's start-up small); what is needed here is a reader
 * of one message and a writer, with limits of our choosing.
 */
#ifndef KBX_JSON_H
#define KBX_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "kbx.h"
#include "util/strbuf.h"

#define KBX_JSON_MAX_DEPTH 64

enum kbx_json_type {
	KBX_JSON_NULL,
	KBX_JSON_FALSE,
	KBX_JSON_TRUE,
	KBX_JSON_NUMBER,
	KBX_JSON_STRING,
	KBX_JSON_ARRAY,
	KBX_JSON_OBJECT
};

struct kbx_json {
	enum kbx_json_type type;
	/* a string's bytes (NUL-terminated, but len counts them: it may hold
	 * NUL), or a number's text as written */
	char *str;
	size_t len;
	double num;                 /* a number's value */
	int is_int;                 /* a number without fraction or exponent
				     * that fits an int64_t: then in ival */
	int64_t ival;
	/* an array's items, an object's values and keys (keys[i] names
	 * items[i]; keylens[i] its length) in the order written */
	struct kbx_json **items;
	char **keys;
	size_t *keylens;
	size_t n, alloc;
};

/*
 * Read the JSON text of len bytes at s into *out (free with
 * kbx_json_free).  Anything but white space after the value is an
 * error.  KBX_ERR_PARSE with err->msg saying what and at which byte;
 * KBX_ERR_NOMEM.
 */
kbx_status_t kbx_json_parse(const char *s, size_t len, struct kbx_json **out,
			    struct kbx_error *err);
void kbx_json_free(struct kbx_json *v);

/* The value of key in the object obj, or NULL (also when obj is NULL or
 * not an object).  The last one when a key is written twice. */
const struct kbx_json *kbx_json_get(const struct kbx_json *obj, const char *key);
/* The string value of key, or NULL when it is missing or not a string. */
const char *kbx_json_get_str(const struct kbx_json *obj, const char *key);

/* New values, for building a tree to write: NULL when out of memory.
 * kbx_json_add takes v into arr (key NULL) or obj (a key copied); it
 * frees v and returns -1 when out of memory. */
struct kbx_json *kbx_json_new(enum kbx_json_type type);
struct kbx_json *kbx_json_new_str(const char *s, size_t len);
struct kbx_json *kbx_json_new_int(int64_t n);
int kbx_json_add(struct kbx_json *container, const char *key, struct kbx_json *v);

/* Append v as compact JSON (one line: no raw newline). */
void kbx_json_write(struct strbuf *sb, const struct kbx_json *v);
/* Append len bytes of s as a JSON string, quotes included. */
void strbuf_add_json_str(struct strbuf *sb, const char *s, size_t len);

#endif
