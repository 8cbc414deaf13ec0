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
suite=${BENCH_SUITE:-bookworm}

say () { printf '==> %s\n' "$*"; }
die () { printf 'fetch-corpora: fatal: %s\n' "$*" >&2; exit 2; }

command -v apt-get >/dev/null || die "apt-get is missing: this needs a Debian machine"
command -v dpkg-source >/dev/null ||
	die "dpkg-source is missing: apt-get install dpkg-dev"

mkdir -p "$dl" "$corpora"

# --- the mirror --------------------------------------------------------
mirror_of_system () {
	# deb822 .sources files first (URIs: lines), then one-line lists;
	# the first Debian archive (not -security) wins.
	local f u
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		for u in $(sed -n 's/^URIs:[[:space:]]*//p' "$f"); do
			case $u in
			(*debian-security*|*security.debian.org*) ;;
			(*/debian|*/debian/) echo "${u%/}"; return 0 ;;
			esac
		done
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		u=$(awk '$1 ~ /^deb(-src)?$/ { for (i = 2; i <= NF; i++) if ($i ~ /^(https?|file):/) { print $i; exit } }' "$f" |
			grep -v -e security | head -n 1 || true)
		case $u in (*/debian|*/debian/) echo "${u%/}"; return 0 ;; esac
	done
	return 1
}
mirror=${BENCH_MIRROR:-$(mirror_of_system || true)}
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
say "Debian mirror: $mirror (suite $suite, from the system's apt configuration)"

apt=$dl/apt
mkdir -p "$apt/parts" "$apt/lists/partial"
echo "deb-src $mirror $suite main" >"$apt/sources.list"
APT_OPTS=(
	-o "Dir::Etc::sourcelist=$apt/sources.list"
	-o "Dir::Etc::sourceparts=$apt/parts"
	-o "Dir::State::Lists=$apt/lists"
	-o "Dir::Cache::pkgcache="
	-o "Dir::Cache::srcpkgcache="
	-o "APT::Sandbox::User=root"
)

if ! ls "$apt/lists/"*Sources* >/dev/null 2>&1; then
	say "apt-get update (private lists in $apt/lists)"
	apt-get "${APT_OPTS[@]}" -q update
fi

# fetch_src PACKAGE[=VERSION] DIR: download the source package into
# $dl/src/ and unpack it into DIR (patches applied, as apt-get source does).
fetch_src () {
	local spec=$1 out=$2 pkg=${1%%=*} dsc
	mkdir -p "$dl/src"
	dsc=$(ls "$dl/src/${pkg}_"*.dsc 2>/dev/null | head -n 1 || true)
	if [ -z "$dsc" ]; then
		say "apt-get source --download-only $spec"
		(cd "$dl/src" && apt-get "${APT_OPTS[@]}" -q source --download-only "$spec")
		dsc=$(ls "$dl/src/${pkg}_"*.dsc | head -n 1)
	fi
	if [ ! -d "$out" ]; then
		say "dpkg-source -x $(basename "$dsc")"
		rm -rf "$out.tmp"
		dpkg-source -q -x "$dsc" "$out.tmp" >/dev/null
		mv "$out.tmp" "$out"
	fi
	echo "$pkg $(sed -n 's/^Version: //p' "$dsc") $(sha256sum "$dsc" | cut -c1-64)" >>"$corpora/MANIFEST.tmp"
}

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
fetch_src "git${BENCH_GIT_VERSION:+=$BENCH_GIT_VERSION}" "$dl/git"
fetch_src "postgresql-15${BENCH_PG_VERSION:+=$BENCH_PG_VERSION}" "$dl/postgresql-15"

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
