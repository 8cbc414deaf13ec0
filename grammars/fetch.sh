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

rm -rf "$tmp" && mkdir "$tmp" || die "cannot create '$tmp'"
names=
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

	if ! test -f "$tgz"; then
		fetch "$npmname" "$version" "$tgz"
		have=$(sha256 "$tgz.part")
		if test "$have" != "$sum"; then
			rm -f "$tgz.part"
			die "$name $version: checksum mismatch: the registry's tarball has sha256 $have, grammars.lock says $sum"
		fi
		mv "$tgz.part" "$tgz" || die "cannot write '$tgz'"
	else
		have=$(sha256 "$tgz")
		test "$have" = "$sum" ||
			die "$name $version: checksum mismatch: '$tgz' has sha256 $have, grammars.lock says $sum (remove it to fetch it again)"
	fi

	# A fix of kbx's own to the package's sources, applied after
	# unpacking: grammars/patches/NAME-VERSION.patch (paths from package/).
	fix=$patches/$name-$version.patch
	fixsum=
	if test -f "$fix"; then
		fixsum=" $(sha256 "$fix")"
	fi

	# Unpack unless this very tarball is already unpacked (and patched).
	# Files get the time of unpacking (tar -m): npm tarballs carry 1985
	# timestamps, which would hide a new version from make.
	marker=$dest/$name/.kbx-unpacked
	if test "$(cat "$marker" 2>/dev/null)" != "$name $version $sum$fixsum"; then
		rm -rf "${dest:?}/$name" "$dest/$name.new"
		mkdir "$dest/$name.new" || die "cannot create '$dest/$name.new'"
		gzip -dc "$tgz" | (cd "$dest/$name.new" && tar -xmf -) ||
			die "$name $version: cannot unpack '$tgz'"
		test -d "$dest/$name.new/package" ||
			die "$name $version: '$tgz' has no package/ directory"
		if test -n "$fixsum"; then
			patch -s -p1 -N -r - --no-backup-if-mismatch -d "$dest/$name.new/package" <"$fix" ||
				die "$name $version: '$fix' does not apply"
		fi
		echo "$name $version $sum$fixsum" >"$dest/$name.new/.kbx-unpacked"
		mv "$dest/$name.new" "$dest/$name" || die "cannot rename '$dest/$name.new'"
	fi

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
