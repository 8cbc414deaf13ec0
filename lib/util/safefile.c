/*
 * Opening a repository's files without following links (safefile.h).
 * Linux's openat2(2) resolves the whole path in the kernel under
 * RESOLVE_NO_SYMLINKS; where it is missing (kernels before 5.6, or a
 * seccomp filter that refuses it) each component is opened in turn with
 * O_NOFOLLOW.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#endif

#include "util/safefile.h"

static int plain_relative(const char *rel)
{
	if (!*rel || *rel == '/')
		return 0;
	for (const char *p = rel; *p;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (!slash)
			break;
		p = slash + 1;
	}
	return 1;
}

/* One component at a time, each directory opened with O_NOFOLLOW. */
static int open_by_components(int dirfd, const char *rel, int flags)
{
	char name[4096];
	const char *p = rel;
	int fd = dirfd;
	for (;;) {
		const char *slash = strchr(p, '/');
		if (!slash)
			break;
		size_t n = (size_t)(slash - p);
		if (n >= sizeof(name)) {
			if (fd != dirfd)
				close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		int next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		if (fd != dirfd)
			close(fd);
		if (next < 0) {
			/* a link to a directory fails O_DIRECTORY|O_NOFOLLOW with
			 * ENOTDIR: say what it is */
			errno = e == ENOTDIR ? ELOOP : e;
			return -1;
		}
		fd = next;
		p = slash + 1;
	}
	int out = openat(fd, p, flags | O_NOFOLLOW | O_CLOEXEC, 0666);
	int e = errno;
	if (fd != dirfd)
		close(fd);
	errno = e;
	return out;
}

#if defined(__linux__) && defined(SYS_openat2) && defined(RESOLVE_NO_SYMLINKS)
#define HAVE_OPENAT2 1
static int openat2_no_links(int dirfd, const char *path, int flags, unsigned long long resolve)
{
	struct open_how how;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC);
	how.mode = (flags & O_CREAT) ? 0666 : 0;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | resolve;
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

static int no_openat2(int e)
{
	return e == ENOSYS || e == EPERM || e == E2BIG;
}
#endif

int _kbx_open_beneath(const char *root, const char *rel, int flags)
{
	if (!plain_relative(rel)) {
		errno = EINVAL;
		return -1;
	}
#ifdef HAVE_OPENAT2
	/* The usual case, in one call: root is the canonical path kbx found
	 * it by, with no link in it, so the whole of root/rel must have
	 * none.  Should root hold a link after all (ELOOP), it is opened on
	 * its own below and only rel is held to that. */
	char full[4096];
	if (root[0] == '/' && (size_t)snprintf(full, sizeof(full), "%s/%s", root, rel) < sizeof(full)) {
		int fd = openat2_no_links(AT_FDCWD, full, flags, 0);
		if (fd >= 0 || (errno != ELOOP && !no_openat2(errno)))
			return fd;
	}
#endif
	int dirfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -1;
	int fd;
#ifdef HAVE_OPENAT2
	fd = openat2_no_links(dirfd, rel, flags, RESOLVE_BENEATH);
	if (fd < 0 && no_openat2(errno))
		fd = open_by_components(dirfd, rel, flags);
#else
	fd = open_by_components(dirfd, rel, flags);
#endif
	int e = errno;
	close(dirfd);
	errno = e;
	return fd;
}
