#!/bin/sh
#
# install.sh DESTDIR
#
# Install the Mermaid parser that tests/t3300-pictures.sh reads kbx's
# --format=mermaid pictures with: the mermaid package of npm, at the
# version and sha512 integrity pinned below, fetched with "npm pack"
# (the one tarball, no dependencies: its dist/mermaid.min.js bundles
# them), checked, and its mermaid.min.js put into DESTDIR.  Headless
# Chromium runs it (tests/mermaid/check.sh).  Nothing is done when
# DESTDIR already holds this version.
#
# Environment: NPM, the npm program [npm].

set -u
me=install.sh
version=12.3.0
integrity=sha512-4113TdXeLAsMruJ79OpFL5O8+LTFXhQqZ260rF3tgUmiNAtRm4Uume04I+65PRN6yZ69J4f8rVYWW8zRk65UYw==
die () {
	echo "$me: error: $*" >&2
	exit 1
}
test $# = 1 || die "usage: $me DESTDIR"
dest=$1
NPM=${NPM:-npm}

test "$(cat "$dest/VERSION" 2>/dev/null)" = "$version" && test -f "$dest/mermaid.min.js" && exit 0
mkdir -p "$dest/tmp" || die "cannot create '$dest'"
echo "$me: fetching mermaid $version into '$dest'"
(cd "$dest/tmp" && "$NPM" pack "mermaid@$version" --silent >/dev/null) ||
	die "'$NPM pack mermaid@$version' failed; without network access the Mermaid test is skipped"
tarball=$dest/tmp/mermaid-$version.tgz
got=sha512-$(openssl dgst -sha512 -binary "$tarball" | base64 -w0) ||
	die "cannot compute the checksum of '$tarball'"
test "$got" = "$integrity" || die "'$tarball' is not the pinned mermaid $version (sha512 differs)"
tar xzf "$tarball" -C "$dest/tmp" package/dist/mermaid.min.js package/LICENSE ||
	die "cannot unpack '$tarball'"
mv "$dest/tmp/package/dist/mermaid.min.js" "$dest/tmp/package/LICENSE" "$dest/" &&
	echo "$version" >"$dest/VERSION" && rm -rf "$dest/tmp" ||
	die "cannot install into '$dest'"
