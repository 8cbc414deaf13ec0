#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/safefile.h"
#include "util/util.h"
#include "util/strbuf.h"

void strbuf_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	sb->failed = 0;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	strbuf_init(sb);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *r;
	if (!sb->buf && strbuf_grow(sb, 0) < 0)
		return NULL;
	r = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb);
	return r;
}

int strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->alloc)
		return 0;
	if (sb->len + extra + 1 < sb->len) {
		sb->failed = 1;
		_kbx_nomem();
		return -1;
	}
	size_t na = sb->alloc ? sb->alloc : 64;
	while (na < sb->len + extra + 1)
		na = na * 3 / 2 + 16;
	char *p = realloc(sb->buf, na);
	if (!p) {
		sb->failed = 1;
		return -1;
	}
	if (!sb->buf)
		p[0] = '\0';
	sb->buf = p;
	sb->alloc = na;
	return 0;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->buf) {
		if (len == 0)
			return;
		if (strbuf_grow(sb, len) < 0)
			return;
	}
	if (len < sb->alloc) {
		sb->len = len;
		sb->buf[len] = '\0';
	}
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	if (strbuf_grow(sb, len) < 0)
		return;
	if (len)   /* data may be NULL then: an empty strbuf's buffer */
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	if (strbuf_grow(sb, 1) < 0)
		return;
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || strbuf_grow(sb, (size_t)n) < 0)
		return;
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

/* Read fd to its end into sb, starting with room for initial bytes; more
 * than max bytes (0: no limit) is STRBUF_TOO_BIG.  Closes fd. */
static int read_fd(struct strbuf *sb, int fd, size_t initial, size_t max)
{
	int rc = 0, e = 0;
	if (strbuf_grow(sb, initial) < 0) {
		rc = -1;
		e = ENOMEM;
	}
	while (!rc) {
		if (max && sb->len > max) {
			/* it grew while we read it */
			rc = STRBUF_TOO_BIG;
			e = EFBIG;
			break;
		}
		if (sb->alloc - sb->len < 4096 && strbuf_grow(sb, sb->alloc) < 0) {
			rc = -1;
			e = ENOMEM;
			break;
		}
		ssize_t r = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			rc = -1;
			e = errno;
			break;
		}
		if (r == 0)
			break;
		sb->len += (size_t)r;
	}
	if (!rc)
		sb->buf[sb->len] = '\0';
	close(fd);
	errno = e;
	return rc;
}

int strbuf_read_file(struct strbuf *sb, const char *path, size_t hint)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	return read_fd(sb, fd, hint ? hint : 8192, 0);
}

/* The checks and the read of strbuf_read_regular_file on an open fd,
 * which is closed. */
static int read_regular_fd(struct strbuf *sb, int fd, size_t max)
{
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = S_ISDIR(st.st_mode) ? EISDIR : 0;
		return STRBUF_NOT_REGULAR;
	}
	if (max && (uint64_t)st.st_size > max) {
		close(fd);
		errno = EFBIG;
		return STRBUF_TOO_BIG;
	}
	size_t want = (size_t)st.st_size + 1;
	return read_fd(sb, fd, want < 8192 ? 8192 : want, max);
}

/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
 * by read_regular_fd, as is anything else that is not a regular file. */
#define REGULAR_OPEN_FLAGS (O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)

int strbuf_read_regular_file(struct strbuf *sb, const char *path, size_t max)
{
	return read_regular_fd(sb, open(path, REGULAR_OPEN_FLAGS), max);
}

int strbuf_read_regular_at(struct strbuf *sb, const char *root, const char *rel, size_t max)
{
	return read_regular_fd(sb, _kbx_open_beneath(root, rel, REGULAR_OPEN_FLAGS), max);
}
