#!/bin/bash
#
# models/words/build.sh: learn the builtin embedding's word vectors again,
# from the pinned inputs in models/words/SOURCES, into OUT (default
# build/model-words/kbx-words.bin), and compare them with the file the
# tree carries (models/words/kbx-words.bin).
#
#   make model-words          (or: bash models/words/build.sh [OUT])
#
# Needs: apt-get (Debian's mirror; the packages are downloaded, not
# installed), dpkg-deb, python3, fasttext (apt-get install fasttext), and
# the search tokenizer (build/tests/unit/embed-tool, which make builds).
# Steps, each in build/model-words/:
#
#   1. download each package at its version, check its SHA-256, unpack it;
#   2. doc-text.py: the prose of the listed folders, a paragraph a line;
#   3. embed-tool --tokens: cut as kbx cuts texts (identifiers split,
#      stop words dropped, words stemmed), so that the model's words are
#      the tokens kbx looks up;
#   4. fastText skip-gram, word level (no subwords: with them it learns
#      spelling rather than meaning), one thread and a fixed seed, so that
#      the same inputs give the same vectors;
#   5. pack.py: the vectors quantized, with their words' weights and the
#      common direction, in the file lib/embed/words.c maps.
#
# About 3.5 minutes of one core (the training 2.9); the result's
# SHA-256 is printed and compared with the tree's.

set -eu
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${MODEL_WORK:-$root/build/model-words}
out=${1:-$work/kbx-words.bin}
tool=$root/build/tests/unit/embed-tool

# the training's parameters: changing one changes the model
DIM=100 EPOCH=5 WS=5 MINCOUNT=5 NEG=5 SEED=1

say () { printf '==> %s\n' "$*"; }
die () { printf 'models/words: fatal: %s\n' "$*" >&2; exit 2; }

command -v fasttext >/dev/null || die "fasttext is missing: apt-get install fasttext"
command -v dpkg-deb >/dev/null || die "dpkg-deb is missing"
[ -x "$tool" ] || die "$tool is missing: run make build/tests/unit/embed-tool"

mkdir -p "$work/debs" "$work/root"
folders=()
while IFS=$'\t' read -r pkg sum dirs; do
	case $pkg in ''|'#'*) continue ;; esac
	name=${pkg%%=*}
	deb=$(ls "$work/debs/${name}_"*.deb 2>/dev/null | head -n 1 || :)
	if [ -z "$deb" ] || ! echo "$sum  $deb" | sha256sum -c --quiet - 2>/dev/null; then
		rm -f "$work/debs/${name}_"*.deb
		say "downloading $pkg"
		(cd "$work/debs" && apt-get download -q "$pkg") ||
			die "cannot download $pkg: the mirror may have dropped this version (snapshot.debian.org keeps it)"
		deb=$(ls "$work/debs/${name}_"*.deb | head -n 1)
	fi
	echo "$sum  $deb" | sha256sum -c --quiet - || die "$deb: SHA-256 is not the pinned one"
	dpkg-deb -x "$deb" "$work/root"
	for d in $dirs; do
		folders+=("$work/root/usr/share/doc/$d")
	done
done <"$here/SOURCES"

say "text of ${#folders[@]} folders"
python3 "$here/doc-text.py" "${folders[@]}" >"$work/corpus.txt"
say "tokens"
"$tool" --tokens --stdin <"$work/corpus.txt" |
	awk 'NF == 0 { if (line != "") print line; line = ""; next }
	     { line = line (line == "" ? "" : " ") $2 }
	     END { if (line != "") print line }' >"$work/corpus.tok"
wc -lw "$work/corpus.tok"
say "fastText skip-gram, dim $DIM, $EPOCH epochs, one thread"
fasttext skipgram -input "$work/corpus.tok" -output "$work/vectors" -dim $DIM -epoch $EPOCH \
	-ws $WS -minCount $MINCOUNT -neg $NEG -maxn 0 -thread 1 -seed $SEED -verbose 1
say "packing"
python3 "$here/pack.py" "$work/vectors.vec" "$work/corpus.tok" "$out"
if cmp -s "$out" "$here/kbx-words.bin"; then
	say "the same as models/words/kbx-words.bin"
else
	say "differs from models/words/kbx-words.bin: copy it there to use it"
fi
