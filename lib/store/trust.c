/*
 * The user's store key and the store mark (trust.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "util/sha256.h"
#include "store/trust.h"

static const char key_header[] = "kbx store key 1 ";
static const unsigned char mark_magic[8] = { 'k', 'b', 'x', 'm', 'a', 'r', 'k', '1' };
static const char mark_context[] = "kbx-store-mark-1";

#define NONCE_LEN 24
#define KEY_TEXT_LEN (sizeof(key_header) - 1 + 2 * KBX_STORE_KEY_LEN + 1)

kbx_status_t _kbx_store_key_path(char **out, struct kbx_error *err)
{
	kbx_status_t st = _kbx_xdg_path("XDG_STATE_HOME", ".local/state", "kbx/store-key", out);
	if (st == KBX_NOT_FOUND)
		return _kbx_fail(err, st,
				 "kbx has nowhere to keep its store key: neither XDG_STATE_HOME nor HOME is set");
	return st ? _kbx_fail(err, st, "out of memory") : KBX_OK;
}

static int fill_random(unsigned char *p, size_t n)
{
	while (n) {
		ssize_t r = getrandom(p, n, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Read and check the key file at path.  KBX_NOT_FOUND when it is not
 * there. */
static kbx_status_t read_key(const char *path, unsigned char key[KBX_STORE_KEY_LEN],
			     struct kbx_error *err)
{
	char text[KEY_TEXT_LEN + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT)
			return KBX_NOT_FOUND;
		if (errno == ELOOP)
			return _kbx_fail(err, KBX_ERR_UNSAFE,
					 "kbx's store key '%s' is a symbolic link: it must be a file of your own; remove the link and kbx makes a new key (then run 'kbx index --rebuild' in your repositories)",
					 path);
		return _kbx_fail(err, KBX_ERR_IO, "cannot read kbx's store key '%s': %s", path,
				 strerror(errno));
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int e = errno;
		close(fd);
		return _kbx_fail(err, KBX_ERR_IO, "cannot read kbx's store key '%s': %s", path,
				 strerror(e));
	}
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return _kbx_fail(err, KBX_ERR_UNSAFE,
				 "kbx's store key '%s' must be a regular file that only you can read and write (chmod 600 '%s')",
				 path, path);
	}
	ssize_t n = read(fd, text, sizeof(text));
	int e = errno;
	close(fd);
	if (n < 0)
		return _kbx_fail(err, KBX_ERR_IO, "cannot read kbx's store key '%s': %s", path,
				 strerror(e));
	if ((size_t)n != KEY_TEXT_LEN || memcmp(text, key_header, sizeof(key_header) - 1) ||
	    text[KEY_TEXT_LEN - 1] != '\n')
		goto bad;
	for (size_t i = 0; i < KBX_STORE_KEY_LEN; i++) {
		int hi = hexval(text[sizeof(key_header) - 1 + 2 * i]);
		int lo = hexval(text[sizeof(key_header) - 1 + 2 * i + 1]);
		if (hi < 0 || lo < 0)
			goto bad;
		key[i] = (unsigned char)(hi << 4 | lo);
	}
	return KBX_OK;
bad:
	return _kbx_fail(err, KBX_ERR_CORRUPT,
			 "kbx's store key '%s' is damaged: remove it and kbx makes a new one (then run 'kbx index --rebuild' in your repositories)",
			 path);
}

/* Write a new key next to path and link it into place: of two processes
 * making the key at once, one wins and both use its key. */
static kbx_status_t make_key(const char *path, struct kbx_error *err)
{
	unsigned char key[KBX_STORE_KEY_LEN];
	char text[KEY_TEXT_LEN + 1], failed[4096];
	struct strbuf tmp = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	int e = _kbx_make_parents(path, failed, sizeof(failed));
	if (e)
		return _kbx_fail(err, e == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
				 "cannot create the directory '%s' for kbx's store key: %s", failed,
				 strerror(e));
	if (fill_random(key, sizeof(key)) < 0)
		return _kbx_fail(err, KBX_ERR_INTERNAL, "no random bytes for kbx's store key: %s",
				 strerror(errno));
	memcpy(text, key_header, sizeof(key_header) - 1);
	for (size_t i = 0; i < sizeof(key); i++)
		snprintf(text + sizeof(key_header) - 1 + 2 * i, 3, "%02x", key[i]);
	text[KEY_TEXT_LEN - 1] = '\n';
	strbuf_addf(&tmp, "%s.XXXXXX", path);
	if (tmp.failed)
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	int fd = mkostemp(tmp.buf, O_CLOEXEC);  /* mode 0600 */
	if (fd < 0) {
		e = errno;
		strbuf_release(&tmp);
		return _kbx_fail(err, e == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO,
				 "cannot create kbx's store key next to '%s': %s", path, strerror(e));
	}
	ssize_t w = write(fd, text, KEY_TEXT_LEN);
	e = errno;
	if (w == (ssize_t)KEY_TEXT_LEN && fsync(fd) < 0)
		w = -1, e = errno;
	if (close(fd) < 0 && w == (ssize_t)KEY_TEXT_LEN)
		w = -1, e = errno;
	if (w != (ssize_t)KEY_TEXT_LEN)
		st = _kbx_fail(err, e == ENOSPC || w >= 0 ? KBX_ERR_FULL : KBX_ERR_IO,
			       "cannot write kbx's store key '%s': %s", tmp.buf,
			       w >= 0 ? strerror(ENOSPC) : strerror(e));
	else if (link(tmp.buf, path) < 0 && errno != EEXIST)
		st = _kbx_fail(err, KBX_ERR_IO, "cannot create kbx's store key '%s': %s", path,
			       strerror(errno));
	unlink(tmp.buf);
	strbuf_release(&tmp);
	return st;
}

kbx_status_t _kbx_store_key(unsigned char key[KBX_STORE_KEY_LEN], int create,
			    struct kbx_error *err)
{
	char *path;
	kbx_status_t st = _kbx_store_key_path(&path, err);
	if (st)
		return st;
	st = read_key(path, key, err);
	if (st == KBX_NOT_FOUND && create) {
		st = make_key(path, err);
		if (!st)
			st = read_key(path, key, err);
	}
	free(path);
	return st;
}

static void mark_mac(const unsigned char key[KBX_STORE_KEY_LEN], const unsigned char *nonce,
		     unsigned char mac[KBX_SHA256_LEN])
{
	unsigned char msg[sizeof(mark_context) - 1 + NONCE_LEN];
	memcpy(msg, mark_context, sizeof(mark_context) - 1);
	memcpy(msg + sizeof(mark_context) - 1, nonce, NONCE_LEN);
	_kbx_hmac_sha256(key, KBX_STORE_KEY_LEN, msg, sizeof(msg), mac);
}

int _kbx_store_mark_make(const unsigned char key[KBX_STORE_KEY_LEN],
			 unsigned char mark[KBX_STORE_MARK_LEN])
{
	memcpy(mark, mark_magic, sizeof(mark_magic));
	if (fill_random(mark + 8, NONCE_LEN) < 0)
		return -1;
	mark_mac(key, mark + 8, mark + 8 + NONCE_LEN);
	return 0;
}

int _kbx_store_mark_valid(const unsigned char key[KBX_STORE_KEY_LEN],
			  const unsigned char mark[KBX_STORE_MARK_LEN])
{
	unsigned char mac[KBX_SHA256_LEN], diff = 0;
	if (memcmp(mark, mark_magic, sizeof(mark_magic)))
		return 0;
	mark_mac(key, mark + 8, mac);
	for (size_t i = 0; i < sizeof(mac); i++)
		diff |= mac[i] ^ mark[8 + NONCE_LEN + i];
	return !diff;
}
