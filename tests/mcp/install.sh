#!/bin/sh
#
# install.sh DESTDIR
#
# Install what the MCP tests run (tests/t8410-mcp-sdk.sh): the official
# MCP SDK, the conformance suite and, on x86-64 Linux, a Node 22 that the
# suite needs; and gpt-tokenizer, which bench/context/tokens.sh counts
# tokens with; all pinned with their dependencies by package-lock.json
# beside this script, into DESTDIR/node_modules.  "npm ci" checks every
# tarball against the lock's integrity hash and runs no package scripts.
# Nothing is done when DESTDIR already holds this very lock's install.
#
# Environment: NPM, the npm program [npm].

set -u
me=install.sh
die () {
	echo "$me: error: $*" >&2
	exit 1
}
test $# = 1 || die "usage: $me DESTDIR"
dest=$1
here=$(dirname "$0")
NPM=${NPM:-npm}

mkdir -p "$dest" || die "cannot create '$dest'"
if cmp -s "$here/package-lock.json" "$dest/.installed-lock" &&
   test -d "$dest/node_modules/@modelcontextprotocol/sdk"; then
	exit 0
fi
cp "$here/package.json" "$here/package-lock.json" "$dest/" ||
	die "cannot copy the package files into '$dest'"
echo "$me: installing the pinned MCP SDK and conformance suite into '$dest'"
(cd "$dest" && "$NPM" ci --ignore-scripts --no-audit --no-fund --loglevel=error) ||
	die "'$NPM ci' failed in '$dest'; without network access the MCP tests are skipped"
cp "$here/package-lock.json" "$dest/.installed-lock" || die "cannot write '$dest/.installed-lock'"
