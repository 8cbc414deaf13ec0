/*
 * A growable byte string, always NUL-terminated: the one buffer type used
 * wherever a string is built.  STRBUF_INIT for stack buffers;
 * strbuf_release frees the contents.  On allocation failure the buffer
 * keeps what it had and sets its failed flag (checked once at the end,
 * not after every append).
 */
#ifndef KBX_STRBUF_H
#define KBX_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, alloc;
	int failed;
};
#define STRBUF_INIT { NULL, 0, 0, 0 }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Hand the contents to the caller, who frees them; sb is empty after. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
int strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Read a whole file; returns 0 or -1 with errno set. */
int strbuf_read_file(struct strbuf *sb, const char *path, size_t hint);
/* Read a whole regular file of at most max bytes (0: any size), for
 * files of the tree being indexed, which may change under us: a
 * symbolic link is not followed (-1, errno ELOOP), and a FIFO, device or
 * directory is not read (STRBUF_NOT_REGULAR): opening a FIFO would wait
 * for a writer forever, and a device may never end.  STRBUF_TOO_BIG
 * when the file is, or grows while read to, more than max bytes.
 * Returns 0, or one of those, or -1 with errno set. */
#define STRBUF_NOT_REGULAR (-2)
#define STRBUF_TOO_BIG (-3)
int strbuf_read_regular_file(struct strbuf *sb, const char *path, size_t max);
/* The same for rel, a path inside the directory root, with no symbolic
 * link followed in any of its components (ELOOP), for a file a
 * repository names (safefile.h). */
int strbuf_read_regular_at(struct strbuf *sb, const char *root, const char *rel, size_t max);

/* Return the buffer's text ("" for an empty buffer that never grew). */
static inline const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

#endif
