#!/bin/bash
# bench/languages.sh: one real project per language added by issue 18
# (PHP, Lua, Bash), indexed by kbx: the files and lines kbx read, the
# median index time of three fresh runs, and the share of call sites
# kbx resolved certain, left ambiguous and left unresolved.
#
#   bench/languages.sh [LANG...]      (php lua bash; default all three)
#
#   php   php-monolog      Debian source package
#   lua   luarocks         Debian source package
#   bash  bash-completion  Debian source package (completion scripts have
#                          no extension: their modelines say "sh")
#
# A call site is one (caller, line, column) of kbx-export --sites: an
# ambiguous call is one site however many candidates it lists.  Sources
# go to bench/work/languages/ through a private apt sources list
# (bench/debsrc.sh); nothing of the system's apt state is touched.
#
# Environment: KBX (default ./kbx), KBX_BUILD_DIR (default build).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
RES=${RES:-$top/bench/work/languages}
dl=$RES/dl
mkdir -p "$RES"
. "$top/bench/lib.sh"
. "$top/bench/debsrc.sh"
KBX=${KBX:-$top/kbx}
EXPORT=$RES/kbx-export
build_export "$EXPORT" "${KBX_BUILD_DIR:-$top/build}" || die "cannot build $EXPORT"

langs=${*:-php lua bash}
pkg_of () {
	case $1 in
	php) echo php-monolog ;;
	lua) echo luarocks ;;
	bash) echo bash-completion ;;
	*) die "unknown language '$1' (php, lua or bash)" ;;
	esac
}

debsrc_setup
: >"$RES/MANIFEST"
printf '%-5s %-16s %6s %8s %9s %8s %10s %12s\n' lang project files lines index_ms certain ambiguous unresolved
for lang in $langs; do
	pkg=$(pkg_of "$lang")
	tree=$dl/$pkg
	(fetch_src "$pkg" "$tree" "$RES/MANIFEST") >&2 2>"$RES/$lang.fetch.err" || true
	if [ ! -d "$tree" ]; then
		# a mirror without the Debian part (404): the upstream tarball,
		# without Debian's patches
		orig=$(ls "$dl/src/${pkg}_"*.orig.tar.* 2>/dev/null | head -n 1 || true)
		[ -n "$orig" ] || die "cannot fetch $pkg: $(tail -n 3 "$RES/$lang.fetch.err")"
		warn "$pkg: $(basename "$orig") only, without Debian's patches"
		rm -rf "$tree" "$tree.tmp" && mkdir -p "$tree.tmp"
		tar -C "$tree.tmp" --strip-components=1 -xf "$orig"
		mv "$tree.tmp" "$tree"
		sed -i "/^$pkg /d" "$RES/MANIFEST"
		echo "$pkg $(basename "$orig") upstream" >>"$RES/MANIFEST"
	fi
	runs=()
	for i in 1 2 3; do
		rm -rf "$tree/.kbx" && mkdir "$tree/.kbx"   # the tree is its own root
		t0=$(now_us)
		(cd "$tree" && "$KBX" index -q)
		runs+=($(( ($(now_us) - t0) / 1000 )))
	done
	"$EXPORT" --sites "$tree" >"$RES/$lang.tsv"
	files=$(awk -F'\t' -v l="$lang" '$1 == "N" && $3 == "file" && $4 == l' "$RES/$lang.tsv" | wc -l)
	lines=$(awk -F'\t' -v l="$lang" '$1 == "N" && $3 == "file" && $4 == l { print $7 }' "$RES/$lang.tsv" |
		(cd "$tree" && tr '\n' '\0' | xargs -0 cat) | wc -l)
	shares=$(awk -F'\t' -v l="$lang" '
		$1 == "N" { lang[$2] = $4 }
		$1 == "E" && lang[$2] == l && NF >= 7 {
			n = split($7, s, ",")
			for (i = 1; i <= n; i++) {
				split(s[i], p, ":")
				k = $2 ":" p[1] ":" p[2]
				if (!(k in conf) || p[3] == "ambiguous")
					conf[k] = p[3]
			}
		}
		END {
			for (k in conf) { c[conf[k]]++; t++ }
			if (!t) t = 1
			printf "%.1f%% %.1f%% %.1f%%", 100 * c["certain"] / t,
				100 * c["ambiguous"] / t, 100 * c["unresolved"] / t
		}' "$RES/$lang.tsv")
	read -r certain ambiguous unresolved <<<"$shares"
	printf '%-5s %-16s %6d %8d %9s %8s %10s %12s\n' "$lang" "$pkg" "$files" "$lines" \
		"$(median "${runs[@]}")" "$certain" "$ambiguous" "$unresolved"
done
echo "versions: $(cut -d' ' -f1,2 "$RES/MANIFEST" | tr '\n' ';')"
