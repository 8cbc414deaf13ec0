/*
 * Opening the files of a repository, which is untrusted input: a path a
 * repository names is opened without following a symbolic link in any of
 * its components, so that no link committed to the tree can make kbx read
 * or write a file outside it (kbx-security(7)).
 */
#ifndef KBX_SAFEFILE_H
#define KBX_SAFEFILE_H

/*
 * Open rel, a path relative to the directory root ("src/a.c": no leading
 * '/', no "..", no empty component), with flags (O_RDONLY, ...; O_NOFOLLOW
 * and O_CLOEXEC are added) without following a symbolic link anywhere in
 * rel.  root itself is the caller's and may hold links.  Returns a file
 * descriptor the caller closes, or -1 with errno set: ELOOP when a
 * component of rel is a symbolic link, EINVAL for a path that is not
 * relative and plain, else what open(2) says.
 */
int _kbx_open_beneath(const char *root, const char *rel, int flags);

#endif
