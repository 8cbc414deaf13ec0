#!/bin/sh
#
# fetch.sh DESTDIR [LOCKFILE]
#
# Fetch the tree-sitter grammar packages pinned in grammars.lock into
# DESTDIR and unpack each into DESTDIR/NAME/package/, where NAME is the
# package's name with a scope's "@" dropped and its "/" made "-" (as npm
# names its tarball).  A tarball already in DESTDIR (NAME-VERSION.tgz) is used as it is, so this works offline once the
# tarballs are there; a missing one is fetched with "npm pack", which runs no
# package scripts.  Every tarball must match the SHA-256 in the lock file.
#
# First the runtime, tree-sitter's C library, from the Debian source package
# the lock's "# runtime: PACKAGE VERSION FILE SHA256" line names: FILE (the
# upstream tarball) is fetched with apt-get source into DESTDIR, checked,
# and unpacked into DESTDIR/tree-sitter/ (lib/src/lib.c, lib/include/),
# patched with patches/PACKAGE-UPSTREAM-VERSION.patch.  Its header must
# load the grammars' ABI 13 and 14.
#
# Then each grammar is checked: src/parser.c, src/tree_sitter/parser.h and,
# where the grammar has an external scanner, a C src/scanner.c; the ABI
# (LANGUAGE_VERSION) must be 13 or 14, and the functions parser.c exports
# must be those on the lock file's "# exports:" line for the package.
#
# A package may have a fix of kbx's own, patches/NAME-VERSION.patch beside
# the lock file (paths relative to package/, as "patch -p1" takes them),
# applied once the tarball is unpacked; a changed patch unpacks it again.
#
# Environment: NPM, the npm program [npm].

set -u

me=fetch.sh
die () {
	echo "$me: error: $*" >&2
	exit 1
}

test $# -ge 1 && test $# -le 2 || die "usage: $me DESTDIR [LOCKFILE]"
dest=$1
lock=${2:-$(dirname "$0")/grammars.lock}
patches=$(dirname "$lock")/patches
NPM=${NPM:-npm}

test -r "$lock" || die "cannot read lock file '$lock'"
mkdir -p "$dest" || die "cannot create '$dest'"

sha256 () {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d' ' -f1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d' ' -f1
	else
		openssl dgst -sha256 -r "$1" | cut -d' ' -f1
	fi
}

tmp=$dest/.fetch.$$
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# fetch NAME VERSION TARBALL: download with npm into a scratch directory.
fetch () {
	rm -rf "$tmp" && mkdir "$tmp" || die "cannot create '$tmp'"
	echo "$me: fetching $1@$2"
	if ! (cd "$tmp" && "$NPM" pack --ignore-scripts --silent "$1@$2") \
			>"$tmp/npm.out" 2>"$tmp/npm.err"; then
		cat "$tmp/npm.err" >&2
		die "'$NPM pack $1@$2' failed; without network access, put $1-$2.tgz into '$dest' by hand"
	fi
	got=
	for f in "$tmp"/*.tgz; do
		test -f "$f" || continue
		test -z "$got" || die "'$NPM pack $1@$2' made more than one tarball"
		got=$f
	done
	test -n "$got" || die "'$NPM pack $1@$2' made no tarball"
	mv "$got" "$3.part" || die "cannot write '$3.part'"
}

# unpack DIR ARCHIVE STAMP FIX SUBDIR [TAR-OPTION]: ARCHIVE (a .tar.xz or
# a gzipped tar) unpacked into DIR, with FIX applied from DIR/SUBDIR when
# FIX is a file, unless DIR/.kbx-unpacked already says STAMP.  Files get the
# time of unpacking (tar -m): npm tarballs carry 1985 timestamps, which
# would hide a new version from make.
unpack () {
	u_dir=$1 u_archive=$2 u_stamp=$3 u_fix=$4 u_sub=$5
	shift 5
	test "$(cat "$u_dir/.kbx-unpacked" 2>/dev/null)" != "$u_stamp" || return 0
	rm -rf "${u_dir:?}" "$u_dir.new"
	mkdir "$u_dir.new" || die "cannot create '$u_dir.new'"
	case $u_archive in
	*.xz) u_cat="xz -dc" ;;
	*) u_cat="gzip -dc" ;;
	esac
	$u_cat "$u_archive" | (cd "$u_dir.new" && tar -xmf - "$@") ||
		die "cannot unpack '$u_archive'"
	test -d "$u_dir.new/$u_sub" || die "'$u_archive' has no $u_sub/ directory"
	if test -f "$u_fix"; then
		patch -s -p1 -N -r - --no-backup-if-mismatch -d "$u_dir.new/$u_sub" <"$u_fix" ||
			die "'$u_fix' does not apply to '$u_archive'"
	fi
	echo "$u_stamp" >"$u_dir.new/.kbx-unpacked"
	mv "$u_dir.new" "$u_dir" || die "cannot rename '$u_dir.new'"
}

# pinned FILE SHA256 WHAT COMMAND...: FILE as the lock pins it; when it is
# not there yet, COMMAND fetches it into FILE.part.
pinned () {
	pin_file=$1 pin_sum=$2 pin_what=$3
	shift 3
	if ! test -f "$pin_file"; then
		"$@"
		have=$(sha256 "$pin_file.part")
		if test "$have" != "$pin_sum"; then
			rm -f "$pin_file.part"
			die "$pin_what: checksum mismatch: the one fetched has sha256 $have, grammars.lock says $pin_sum"
		fi
		mv "$pin_file.part" "$pin_file" || die "cannot write '$pin_file'"
	else
		have=$(sha256 "$pin_file")
		test "$have" = "$pin_sum" ||
			die "$pin_what: checksum mismatch: '$pin_file' has sha256 $have, grammars.lock says $pin_sum (remove it to fetch it again)"
	fi
}

# check_grammar PKG DIR: DIR is one grammar's src directory.  Prints what it
# found and the names parser.c exports, one a line, to the file "$tmp/exports".
check_grammar () {
	pkg=$1 src=$2
	rel=${src#"$dest/$pkg/package/"}
	test -f "$src/parser.c" || die "$pkg: no $rel/parser.c"
	test -f "$src/tree_sitter/parser.h" || die "$pkg: no $rel/tree_sitter/parser.h"
	scanner=none
	for s in "$src"/scanner.*; do
		test -f "$s" || continue
		case $s in
		*/scanner.c) scanner=scanner.c ;;
		*) die "$pkg: $rel/${s##*/} is not a C scanner; kbx compiles only C" ;;
		esac
	done
	abi=$(sed -n 's/^#define LANGUAGE_VERSION \([0-9][0-9]*\).*/\1/p' "$src/parser.c")
	case $abi in
	13|14) ;;
	'') die "$pkg: no LANGUAGE_VERSION in $rel/parser.c" ;;
	*) die "$pkg: $rel/parser.c has ABI $abi; the tree-sitter library here loads 13 and 14 only" ;;
	esac
	fns=$(sed -n 's/^.*const TSLanguage \*\(tree_sitter_[A-Za-z0-9_]*\)(void).*/\1/p' \
		"$src/parser.c")
	test -n "$fns" || die "$pkg: $rel/parser.c exports no tree_sitter_* function"
	printf '%s\n' $fns >>"$tmp/exports"
	echo "  $rel: ABI $abi, scanner: $scanner, exports: $fns"
}

# fetch_debian PACKAGE VERSION FILE: apt-get source --download-only, as
# whoever runs this, with lists of its own under $tmp/apt: deb-src lines
# made from the machine's apt sources (so its mirror, proxy and keys).
fetch_debian () {
	rm -rf "$tmp" && mkdir "$tmp" && apt=$(cd "$tmp" && pwd)/apt &&
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" \
		"$apt/parts" "$apt/dl" && : >"$apt/sources.list" ||
		die "cannot create '$tmp/apt'"
	echo "$me: fetching the Debian source package $1=$2"
	command -v apt-get >/dev/null 2>&1 ||
		die "no apt-get to fetch $3: put it into '$dest' by hand"
	for f in /etc/apt/sources.list.d/*.sources; do
		test -f "$f" || continue
		sed 's/^Types:.*/Types: deb-src/' "$f" && echo
	done >"$apt/parts/kbx-src.sources"
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		test -f "$f" || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]/deb-src /p' "$f"
	done >"$apt/parts/kbx-src.list"
	set -- "$1" "$2" "$3" -o Dir::Etc::sourcelist="$apt/sources.list" \
		-o Dir::Etc::sourceparts="$apt/parts" -o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache="$apt/cache" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User="$(id -un)"
	pkg=$1 ver=$2 file=$3
	shift 3
	if ! apt-get "$@" -qq update >"$tmp/apt.out" 2>&1 ||
	   ! (cd "$apt/dl" && apt-get "$@" -qq source --download-only "$pkg=$ver") \
			>>"$tmp/apt.out" 2>&1; then
		cat "$tmp/apt.out" >&2
		die "cannot fetch the Debian source package $pkg=$ver; without network access, put $file into '$dest' by hand"
	fi
	test -f "$apt/dl/$file" || die "the source package $pkg=$ver has no $file"
	mv "$apt/dl/$file" "$dest/$file.part" || die "cannot write '$dest/$file.part'"
	rm -rf "$tmp"
}

# check_runtime DIR: DIR/lib is tree-sitter's C library.
check_runtime () {
	test -f "$1/lib/src/lib.c" || die "runtime: no lib/src/lib.c in '$1'"
	api=$1/lib/include/tree_sitter/api.h
	test -f "$api" || die "runtime: no '$api'"
	max=$(sed -n 's/^#define TREE_SITTER_LANGUAGE_VERSION \([0-9][0-9]*\).*/\1/p' "$api")
	min=$(sed -n 's/^#define TREE_SITTER_MIN_COMPATIBLE_LANGUAGE_VERSION \([0-9][0-9]*\).*/\1/p' "$api")
	test -n "$max" && test -n "$min" || die "runtime: no ABI range in '$api'"
	test "$min" -le 13 && test "$max" -ge 14 ||
		die "runtime: the library loads ABI $min to $max; the grammars are 13 and 14"
	echo "  lib: ABI $min to $max"
}

set -- $(awk '$1 == "#" && $2 == "runtime:" { $1 = $2 = ""; print; exit }' "$lock")
test $# -eq 4 || die "'$lock' has no '# runtime: PACKAGE VERSION FILE SHA256' line"
rt_pkg=$1 rt_ver=$2 rt_file=$3 rt_sum=$4
case $rt_pkg$rt_file in */*|*..*) die "'$lock': bad runtime line" ;; esac
rt_tgz=$dest/$rt_file
pinned "$rt_tgz" "$rt_sum" "$rt_file" fetch_debian "$rt_pkg" "$rt_ver" "$rt_file"
upstream=${rt_ver%-*}
fix=$patches/$rt_pkg-$upstream.patch
fixsum=
test ! -f "$fix" || fixsum=" $(sha256 "$fix")"
case $rt_file in
*.tar.xz|*.tar.gz|*.tgz) ;;
*) die "$rt_file: not a .tar.xz or .tar.gz" ;;
esac
unpack "$dest/tree-sitter" "$rt_tgz" "runtime $rt_file $rt_sum$fixsum" "$fix" . \
	--strip-components=1
echo "runtime: $rt_pkg $rt_ver"
check_runtime "$dest/tree-sitter"

rm -rf "$tmp" && mkdir "$tmp" || die "cannot create '$tmp'"
names=tree-sitter
# The lock has no tabs; read plain space-separated fields.
grep -v '^[[:space:]]*#' "$lock" | grep -v '^[[:space:]]*$' >"$tmp.lines" ||
	die "'$lock' names no grammar"
exec 3<"$tmp.lines"
rm -f "$tmp.lines"
while read -r name version sum extra <&3; do
	test -n "$sum" && test -z "$extra" ||
		die "'$lock': bad line '$name $version $sum $extra'"
	npmname=$name
	case $npmname in
	@*/*) name=$(printf '%s\n' "${npmname#@}" | tr / -) ;;
	*/*|*..*|.*) die "'$lock': bad package name '$npmname'" ;;
	esac
	names="$names $name"
	tgz=$dest/$name-$version.tgz

	pinned "$tgz" "$sum" "$name $version" fetch "$npmname" "$version" "$tgz"

	# A fix of kbx's own to the package's sources, applied after
	# unpacking: grammars/patches/NAME-VERSION.patch (paths from package/).
	fix=$patches/$name-$version.patch
	fixsum=
	if test -f "$fix"; then
		fixsum=" $(sha256 "$fix")"
	fi

	unpack "$dest/$name" "$tgz" "$name $version $sum$fixsum" "$fix" package

	# A package holds one grammar in src/, or several in */src/ or
	# grammars/*/src/.
	: >"$tmp/exports"
	echo "$name $version"
	found=no
	for src in "$dest/$name/package/src" "$dest/$name"/package/*/src \
			"$dest/$name"/package/grammars/*/src; do
		test -f "$src/parser.c" || continue
		check_grammar "$name" "$src"
		found=yes
	done
	test $found = yes || die "$name $version: no src/parser.c in the package"

	want=$(awk -v p="$npmname" '$1 == "#" && $2 == "exports:" && $3 == p {
		for (i = 4; i <= NF; i++) printf "%s ", $i }' "$lock")
	test -n "$want" || die "'$lock' has no '# exports: $npmname ...' line"
	got=$(sort "$tmp/exports" | tr '\n' ' ')
	want=$(printf '%s\n' $want | sort | tr '\n' ' ')
	test "$got" = "$want" ||
		die "$name $version exports '$got' but '$lock' lists '$want'"
done
exec 3<&-

# Remove grammars that were unpacked here once but are no longer locked.
for marker in "$dest"/*/.kbx-unpacked; do
	test -f "$marker" || continue
	dir=${marker%/.kbx-unpacked}
	case " $names " in
	*" ${dir##*/} "*) ;;
	*) echo "$me: removing '$dir', no longer in the lock file"; rm -rf "$dir" ;;
	esac
done
exit 0
