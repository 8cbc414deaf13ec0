#!/bin/sh
# make-corpus.sh: write the seed corpora of the fuzz harnesses,
# tests/fuzz/corpus/<harness>/, from the fixture trees and a store that
# kbx indexes from one of them.  Run from the top of the source tree after
# make; the corpora are kept in git, so this is only needed to refresh
# them.  (The inputs libFuzzer finds are kept in build/fuzz/, never here.)
set -eu
top=$(pwd)
out=tests/fuzz/corpus
test -x ./kbx && test -d tests/corpora || { echo "run from the top of a built tree" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out/extract" "$out/records" "$out/lookup" "$out/ignore" "$out/parse-options" \
	"$out/registry-yaml" "$out/registry-markdown" "$out/quote"

# extract: the language's index in _kbx_languages (lib/lang/lang.c) as
# the first byte, then a fixture file of that language (vue-ts and
# svelte-ts read the vue and svelte trees).
i=0
for lang in c cpp python javascript typescript tsx go rust java csharp ruby php lua bash \
	    vue vue-ts svelte svelte-ts kotlin swift scala dart objc elixir zig ocaml haskell; do
	dir=${lang%-ts}
	for f in $(find "tests/corpora/$dir" -type f ! -name 'expected-*' ! -name README \
			! -name '*.toml' ! -name '*.mod' ! -name pubspec.yaml | sort); do
		name=$lang-$(echo "${f#tests/corpora/$dir/}" | tr / _)
		{ printf "\\$(printf %03o $i)"; cat "$f"; } >"$out/extract/$name"
	done
	i=$((i + 1))
done

# records: node, edge, file and refs records as a store holds them
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -R tests/corpora/python "$tmp/repo"
(cd "$tmp/repo" && "$top/kbx" index >/dev/null)
for db in nodes edges files refs; do
	# mdb_dump prints keys and values in hex, one a line, after HEADER=END
	mdb_dump -s "$db" "$tmp/repo/.kbx" |
	sed -n '/^HEADER=END/,/^DATA=END/p' | sed '1d;$d' |
	awk 'NR % 2 == 0' | head -n 6 | {
		n=0
		while read -r hex; do
			n=$((n + 1))
			printf '%s' "$hex" | sed 's/../\\x&/g' | xargs -0 printf '%b' \
				>"$out/records/$db-$n"
		done
	}
done

# lookup: symbols in every form kbx takes, and some it refuses
n=0
for s in Shape Shape.area 'src/shapes.py#Shape.area' src/shapes.py ./src/pkg/util.py \
	 'Point::norm' 'geo::Point::norm' 'Widget->render' os.path.join extern:print \
	 module:os.path name:area list_push helper hel 'a..b' .x x. '#' 'src/shapes.py#' \
	 'cc/geo.cpp#geo.Point' T.Run main; do
	n=$((n + 1))
	printf '%s' "$s" >"$out/lookup/sym-$n"
done

# ignore: a .gitignore, a NUL, then paths (a trailing / for a directory)
put_ignore () {
	name=$1 sub=$2 text=$3
	shift 3
	{ printf '%s' "$sub"; printf '%s' "$text"; printf '\0'; printf '%s\n' "$@"; } \
		>"$out/ignore/$name"
}
put_ignore basic '0' '*.o
build/
!keep.o
' a.o keep.o build/ src/build/ src/a.c
put_ignore anchored '0' '/top.py
docs/*.md
\#literal
\!bang
  # not a comment
trailing\ 
' top.py sub/top.py docs/a.md docs/x/a.md '#literal' '!bang'
put_ignore dstar '1' '**/gen/
a/**/b
logs/**
**/*.tmp
' gen/ x/gen/ a/b a/x/y/b logs/1/2 z.tmp d/e/z.tmp
put_ignore classes '0' '[a-c]*.py
?.rs
*.[!c]
' a.py d.py x.rs xy.rs q.h q.c
cp tests/corpora/python/.gitignore "$out/ignore/fixture" 2>/dev/null || :

# parse-options: argv, NUL-separated
put_argv () {
	name=$1
	shift
	printf '%s\0' "$@" >"$out/parse-options/$name"
}
put_argv depth -d 3 --transitive sym
put_argv cluster -tvv -d5 -ksymbol -- -x
put_argv format --format=json --format-version 1 --color=never -z a b
put_argv neg --no-transitive --no-name --name=x --no-path -p a --path=b
put_argv size --max-file-size=512k --max-file-size 2m --max-file-size=1g
put_argv bad --depth=x --format=yaml --unknown -q
put_argv kind --kind=function -k class --kind method

# registry-yaml: the error files of the registry fixtures, good and bad
for f in $(find tests/registry -path '*/errors/*' -name '*.yml' | sort); do
	cp "$f" "$out/registry-yaml/$(echo "${f#tests/registry/}" | tr / _)"
done

# registry-markdown: a byte for the default type, then a fixture document
for f in $(find tests/registry -name '*.md' | sort); do
	{ printf 'b'; cat "$f"; } >"$out/registry-markdown/$(echo "${f#tests/registry/}" | tr / _)"
done

# quote: a byte of flags (1 keeps tabs, 2 newlines), then text a
# repository may hold: names, and what a hostile one puts in them
put_quote () {
	printf "$2" >"$out/quote/$1"
}
put_quote empty '\000'
put_quote path '\000src/pkg/util.py'
put_quote utf8 '\000caf\303\251 \346\227\245 \360\237\230\200.md'
put_quote osc-title '\000\033]0;pwned\007.py'
put_quote clear '\000\033[2J\033[H'
put_quote osc8 '\000\033]8;;http://x/\033\\link\033]8;;\033\\'
put_quote osc52 '\000\033]52;c;cm0gLXJmIH4=\007'
put_quote c1 '\000\233\061m \302\233\061m \302\240'
put_quote invalid '\000\377\376 \300\257 \355\240\200 \364\220\200\200 \303'
put_quote colon '\000dir:with:colons/a "b" \\c.py'
put_quote lines '\003\tdef f():\n\t\treturn 1\r\n'
put_quote nul '\001a\000b\tc'
echo "seed corpora written to $out/"
