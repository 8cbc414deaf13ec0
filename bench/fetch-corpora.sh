#!/bin/bash
#
# bench/fetch-corpora.sh: put the benchmark corpora into bench/work/corpora/.
# The only step of the benchmark that uses the network; run.sh calls it
# when bench/work/corpora/.complete is missing.  Idempotent.
#
#   git-c/        the C sources (*.c *.h) of Debian bookworm's source
#                 package "git", as `apt-get source git` unpacks it
#                 (Debian patches applied): every directory kept (builtin/,
#                 compat/, contrib/, t/helper/, xdiff/, reftable/, ...)
#                 but quilt's .pc/ (pre-patch copies), everything that is
#                 not *.c or *.h dropped.
#   postgresql-c/ the same for "postgresql-15", minus the files over 1 MiB
#                 (kbx skips those by default, so no tool gets them); used
#                 only for the >1M-line scaling trees.
#   pystdlib/     the regular *.py files of /usr/lib/python3.11 (the
#                 system's Debian Python standard library), without
#                 site-packages/ and dist-packages/ (third-party code) and
#                 without symlinks (two: sitecustomize.py and a
#                 _sysconfigdata alias, which kbx skips as git would).
#                 Debian ships no test suite there (only test/support and
#                 test/libregrtest, which are kept).
#
# The source packages come from the Debian mirror this machine is already
# configured with (read from /etc/apt/sources.list{,.d}), through a private
# sources list and private package lists under bench/work/dl/apt/: the
# system's apt state is not touched.  Pin versions with BENCH_GIT_VERSION
# and BENCH_PG_VERSION (e.g. BENCH_GIT_VERSION=1:2.39.5-0+deb12u3) when the
# mirror still has them; the versions used are written to
# bench/work/corpora/MANIFEST.
#
# Needs: apt-get, dpkg-source (package dpkg-dev), xz-utils.

set -eu
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
work=${BENCH_WORK:-$here/work}
dl=$work/dl
corpora=$work/corpora

say () { printf '==> %s\n' "$*"; }
die () { printf 'fetch-corpora: fatal: %s\n' "$*" >&2; exit 2; }

mkdir -p "$dl" "$corpora"

. "$here/debsrc.sh"
debsrc_setup

# c_only SRC DST: copy SRC's regular *.c and *.h files of at most 1 MiB to
# DST, keeping the layout; list what was left out for size.
c_only () {
	local src=$1 dst=$2
	rm -rf "$dst" "$dst.tmp"
	mkdir -p "$dst.tmp"
	# .pc/ is quilt's copy of the files as they were before Debian's
	# patches: old duplicates, not sources.
	(cd "$src" && find . -path ./.pc -prune -o -type f \( -name '*.c' -o -name '*.h' \) -size -1025k -print0 |
		tar --null -T - -cf -) | tar -C "$dst.tmp" -xf -
	(cd "$src" && find . -path ./.pc -prune -o -type f \( -name '*.c' -o -name '*.h' \) -size +1024k -print |
		sed 's|^\./||') >"$dst.tmp.toolarge"
	mv "$dst.tmp" "$dst"
	mv "$dst.tmp.toolarge" "$dst.excluded"
}

: >"$corpora/MANIFEST.tmp"
fetch_src "git${BENCH_GIT_VERSION:+=$BENCH_GIT_VERSION}" "$dl/git" "$corpora/MANIFEST.tmp"
fetch_src "postgresql-15${BENCH_PG_VERSION:+=$BENCH_PG_VERSION}" "$dl/postgresql-15" "$corpora/MANIFEST.tmp"

say "C-only trees: $corpora/git-c, $corpora/postgresql-c"
c_only "$dl/git" "$corpora/git-c"
c_only "$dl/postgresql-15" "$corpora/postgresql-c"

say "Python standard library: /usr/lib/python3.11 -> $corpora/pystdlib"
[ -d /usr/lib/python3.11 ] || die "/usr/lib/python3.11 is missing (package libpython3.11-stdlib)"
rm -rf "$corpora/pystdlib" "$corpora/pystdlib.tmp"
mkdir -p "$corpora/pystdlib.tmp"
(cd /usr/lib/python3.11 && find . \( -path ./site-packages -o -path ./dist-packages \) -prune -o \
	-type f -name '*.py' -print0 | tar --null -T - -cf -) | tar -C "$corpora/pystdlib.tmp" -xf -
mv "$corpora/pystdlib.tmp" "$corpora/pystdlib"
echo "python3.11-stdlib $(dpkg-query -W -f='${Version}' libpython3.11-stdlib 2>/dev/null || echo unknown) /usr/lib/python3.11" \
	>>"$corpora/MANIFEST.tmp"

mv "$corpora/MANIFEST.tmp" "$corpora/MANIFEST"
for t in git-c postgresql-c pystdlib; do
	n=$(find "$corpora/$t" -type f | wc -l)
	l=$(find "$corpora/$t" -type f -print0 | xargs -0 cat | wc -l)
	printf '    %-14s %6d files %9d lines\n' "$t" "$n" "$l"
done
touch "$corpora/.complete"
say "corpora ready (versions in $corpora/MANIFEST)"
