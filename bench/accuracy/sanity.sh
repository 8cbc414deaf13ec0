#!/bin/bash
#
# bench/accuracy/sanity.sh: the oracles and the scorer on tiny hand-made
# projects whose answers are known, one per language (sanity/LANG/).
#
#   sanity/LANG/expected-oracle.tsv   what the oracle must write for the
#                                     project, checked by hand
#   sanity/LANG/kbx.tsv               kbx-export --sites of the project,
#                                     frozen: the resolver will change,
#                                     this file does not
#   sanity/LANG/expected-score.txt    what score.py must print for those
#                                     two; its # lines say how each
#                                     number was counted by hand
#
# For each language: the oracle is run and compared with
# expected-oracle.tsv, then score.py is run on expected-oracle.tsv and
# kbx.tsv and compared with expected-score.txt.  With SANITY_LIVE=1 the
# kbx of the tree (KBX, default ./kbx) is scored too, for information.
# Needs the tools of bench/accuracy/run.sh and, for TypeScript, its npm
# folder (bench/work/accuracy/npm); a language whose tools are missing
# is skipped and said so.  Exit status 0 when nothing failed.

set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
S=$here/sanity
WORK=${BENCH_WORK:-$here/../work}
KBX=${KBX:-$here/../../kbx}
PY=/usr/bin/python3
SCALA_LIB=/usr/share/scala-2.11/lib
KOTLIN_LIB=/usr/share/kotlin/kotlinc/lib
ZIG_DIR=${ZIG_DIR:-$WORK/accuracy/zig}   # the Zig compiler's npm package (fetch.sh)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbx-sanity.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

pass=0 fail=0 skip=0

# oracle LANG: the oracle's output for sanity/LANG on stdout
oracle () {
	case $1 in
	(go)
		(cd "$here/oracle-go" && GO111MODULE=off GOCACHE=$tmp/gocache GOFLAGS= go build -o "$tmp/oracle-go" .) &&
			(cd "$S/go" && GO111MODULE=off "$tmp/oracle-go" . example.com/shop) ;;
	(java)
		(cd "$S/java" && ls *.java | java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED \
			"$here/OracleJava.java" .) ;;
	(py)
		(cd "$S/py" && $PY "$here/oracle-python.py" .) ;;
	(ts)
		(cd "$S/ts" && NODE_PATH=$WORK/accuracy/npm/node_modules node "$here/oracle-ts.js" .) ;;
	(cpp)
		(cd "$S/cpp" && echo cart.cc | $PY "$here/oracle-cpp.py" . -x c++ -std=c++14 -I.) ;;
	(c)
		(cd "$S/c" && echo calc.c | $PY "$here/oracle-cpp.py" --macros . -x c -std=gnu99 -I.) ;;
	(objc)
		(cd "$S/objc" && printf 'main.m\nshop.m\n' | $PY "$here/oracle-cpp.py" --objc . -x objective-c \
			-fobjc-runtime=gcc -fexceptions -fobjc-exceptions \
			$(gnustep-config --objc-flags | tr ' ' '\n' | grep -e '^-D' -e '^-I' -e '^-fconstant-string-class=') \
			-I"$(gcc -print-file-name=include)") ;;
	(rs)
		(cd "$S/rs" && $PY "$here/oracle-rust.py" . shop 2018) ;;
	(lua)
		(cd "$S/lua" && $PY "$here/oracle-lua.py" . lua5.4 test.lua) ;;
	(php)
		(cd "$S/php" && $PY "$here/oracle-php.py" . src test.php) ;;
	(ocaml)
		(cd "$S/ocaml" && sh "$here/oracle-ocaml.sh" . "$here/oracle-ocaml.ml") ;;
	(bash)
		(cd "$S/bash" && $PY "$here/oracle-bash.py" . bash test.sh) ;;
	(zig)
		(cd "$S/zig" && $PY "$here/oracle-zig.py" "$ZIG_DIR/zig" "$ZIG_DIR/lib" main.zig) ;;
	(kotlin)
		mkdir -p "$tmp/oracle-kotlin" &&
			kotlinc -nowarn -cp "$KOTLIN_LIB/kotlin-compiler.jar" -d "$tmp/oracle-kotlin" \
				"$here/OracleKotlin.kt" 2>/dev/null &&
			(cd "$S/kotlin" && printf 'common/Shapes.kt\njvm/Main.kt\n' | java -Xss8m -cp \
				"$tmp/oracle-kotlin:$KOTLIN_LIB/kotlin-compiler.jar:$KOTLIN_LIB/trove4j.jar:$KOTLIN_LIB/kotlin-stdlib.jar:$KOTLIN_LIB/kotlin-reflect.jar:$KOTLIN_LIB/kotlin-script-runtime.jar:$KOTLIN_LIB/annotations-13.0.jar" \
				OracleKotlinKt . "" -common common/ -Xmulti-platform) ;;
	(scala)
		mkdir -p "$tmp/oracle-scala" &&
			scalac -nowarn -d "$tmp/oracle-scala" -cp "$SCALA_LIB/scala-compiler.jar:$SCALA_LIB/scala-reflect.jar" \
				"$here/OracleScala.scala" &&
			(cd "$S/scala" && echo Shop.scala | java -cp \
				"$tmp/oracle-scala:$SCALA_LIB/scala-library.jar:$SCALA_LIB/scala-compiler.jar:$SCALA_LIB/scala-reflect.jar" \
				OracleScala . "") ;;
	esac
}

available () {
	case $1 in
	(go) command -v go ;;
	(java) command -v java ;;
	(py) command -v $PY ;;
	(ts) command -v node && [ -d "$WORK/accuracy/npm/node_modules/typescript" ] ;;
	(cpp|c) $PY -c 'import clang.cindex' ;;
	(objc) $PY -c 'import clang.cindex' && command -v gnustep-config &&
		[ -f /usr/include/GNUstep/Foundation/Foundation.h ] ;;
	(rs) [ -x /usr/bin/rustc ] ;;
	(lua) command -v lua5.4 ;;
	(php) command -v php && php -m | grep -x xdebug ;;
	(ocaml) command -v ocamlc && command -v ocamldep ;;
	(bash) command -v bash ;;
	(scala) command -v scalac && command -v java && [ -f "$SCALA_LIB/scala-compiler.jar" ] ;;
	(kotlin) command -v kotlinc && command -v java && [ -f "$KOTLIN_LIB/kotlin-compiler.jar" ] ;;
	(zig) [ -x "$ZIG_DIR/zig" ] ;;
	esac >/dev/null 2>&1
}

check () {
	local what=$1 expected=$2 got=$3
	if diff -u "$expected" "$got" >"$tmp/diff"; then
		echo "ok - $what"
		pass=$((pass + 1))
	else
		echo "not ok - $what"
		sed 's/^/#   /' "$tmp/diff"
		fail=$((fail + 1))
	fi
}

for lang in go java py ts cpp c objc rs lua php ocaml bash scala kotlin zig; do
	if ! available $lang; then
		echo "ok - $lang # SKIP the oracle's tools are missing"
		skip=$((skip + 1))
		continue
	fi
	if oracle $lang >"$tmp/$lang.oracle" 2>"$tmp/$lang.err"; then
		check "$lang: the oracle's call sites" "$S/$lang/expected-oracle.tsv" "$tmp/$lang.oracle"
	else
		echo "not ok - $lang: the oracle failed: $(head -c 500 "$tmp/$lang.err")"
		fail=$((fail + 1))
	fi
	grep -v '^#' "$S/$lang/expected-score.txt" >"$tmp/$lang.expected-score"
	$PY "$here/score.py" "$S/$lang/expected-oracle.tsv" "$S/$lang/kbx.tsv" >"$tmp/$lang.score" 2>&1
	check "$lang: score.py on the frozen kbx export" "$tmp/$lang.expected-score" "$tmp/$lang.score"
	if [ "${SANITY_LIVE:-0}" = 1 ] && [ -x "$KBX" ]; then
		rm -rf "$tmp/live" && cp -a "$S/$lang" "$tmp/live" && mkdir -p "$tmp/live/.kbx"
		(cd "$tmp/live" && "$KBX" index -q) && "${EXPORT:-$WORK/accuracy/bin/kbx-export}" --sites "$tmp/live" >"$tmp/live.tsv" &&
			echo "# $lang, kbx of this tree: $($PY "$here/score.py" "$S/$lang/expected-oracle.tsv" "$tmp/live.tsv" |
				awk -F'\t' '$1 ~ /^(recall|certain_precision|dup_certain_wrong)$/ { printf "%s %s  ", $1, $2 }')"
	fi
done
echo "1..$((pass + fail + skip))"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail = 0 ]
