# bench/debsrc.sh: Debian source packages through a private sources list
# (sourced by bench/fetch-corpora.sh and bench/accuracy/fetch.sh; bash).
#
# The mirror is the one this machine is configured with (read from
# /etc/apt/sources.list{,.d}); the sources list, the package lists and
# the downloads live under $dl (set by the caller): the system's apt
# state is not touched.
#
#   debsrc_setup             write $dl/apt/sources.list, apt-get update once
#   fetch_src PKG[=VER] DIR MANIFEST
#                            download the source package into $dl/src/,
#                            unpack it into DIR (patches applied, as apt-get
#                            source does) and append "PKG VERSION SHA256-of-
#                            the-.dsc" to MANIFEST
#
# Needs: apt-get, dpkg-source (package dpkg-dev), xz-utils; the caller's
# say and die functions.

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

debsrc_setup () {
	command -v apt-get >/dev/null || die "apt-get is missing: this needs a Debian machine"
	command -v dpkg-source >/dev/null || die "dpkg-source is missing: apt-get install dpkg-dev"
	local suite=${BENCH_SUITE:-bookworm} mirror
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
}

fetch_src () {
	local spec=$1 out=$2 manifest=$3 pkg=${1%%=*} dsc
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
	echo "$pkg $(sed -n 's/^Version: //p' "$dsc") $(sha256sum "$dsc" | cut -c1-64)" >>"$manifest"
}
