#!/bin/sh
#
# bench/context/run.sh: kbx context on kbx's own tree, copied and indexed
# in a scratch directory (with a scratch HOME: nothing is registered in
# the user's list):
#
#   recall    the share of the questions of code-questions.tsv (dev and
#             held out) whose function is inside a pack of 2,000 tokens
#             (recall.sh)
#   latency   kbx context --budget=2000 for three questions, whole
#             process (hyperfine -N), beside kbx search for the same
#   tokens    kbx's token estimate against GPT tokenizers' counts
#             (tokens.sh; needs `make mcp-deps`)
#
#   run.sh [RUNS]        (default 20 runs each)
#
# The document and error question sets of bench/search/sets/ need the
# registry they are about, which is not part of kbx: when it is there
# (KBX_BENCH_REGISTRY, else ../shared/fixtures/kb-registry beside the
# tree), they are measured on the registry alone and on kbx's tree with
# it, where code crowds the registry's answers.

set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
runs=${1:-20}
KBX=${KBX:-$root/kbx}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbx-context-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
HOME=$tmp
export HOME

mkdir "$tmp/tree"
(cd "$root" && cp -R lib cmd man README.md "$tmp/tree/")
(cd "$tmp/tree" && "$KBX" index -q)

echo "recall inside a 2,000-token pack (questions about kbx's own functions):"
KBX=$KBX sh "$here/recall.sh" "$tmp/tree" "$here/code-questions.tsv"

registry=${KBX_BENCH_REGISTRY:-$root/../shared/fixtures/kb-registry}
if test -d "$registry"; then
	sets="$root/bench/search/sets/doc-questions.tsv $root/bench/search/sets/error-plain.tsv"
	mkdir "$tmp/alone"
	cp -R "$tmp/tree" "$tmp/mixed"
	rm -rf "$tmp/mixed/.kbx"
	for d in alone mixed; do
		# status 11: entries skipped (the fixture repeats an id), the rest indexed
		(cd "$tmp/$d" && "$KBX" registry add "$registry" >/dev/null 2>&1 &&
		 { "$KBX" index -q 2>/dev/null || test $? = 11; })
	done
	echo
	echo "the same for the registry's questions, the registry alone:"
	# shellcheck disable=SC2086 # $sets is two paths
	KBX=$KBX sh "$here/recall.sh" "$tmp/alone" $sets
	echo "and kbx's tree with the registry (code questions too):"
	# shellcheck disable=SC2086
	KBX=$KBX sh "$here/recall.sh" "$tmp/mixed" $sets "$here/code-questions.tsv"
fi

if command -v hyperfine >/dev/null 2>&1; then
	echo
	echo "latency, whole process, $runs runs (median ms):"
	for q in "how are the ranks of several lists combined with a weight for each list" \
		 "what calls strbuf_addstr" \
		 "open a path inside the repository without following any symbolic link"; do
		(cd "$tmp/tree" && hyperfine -N --style none --warmup 3 --runs "$runs" \
			--export-json "$tmp/hf.json" \
			-n context "$KBX context --budget=2000 '$q'" \
			-n search "$KBX search '$q'" >/dev/null 2>&1) || {
			echo "  hyperfine failed for: $q"
			continue
		}
		python3 - "$tmp/hf.json" "$q" <<'PY'
import json, sys
r = {x["command"]: x["median"] * 1000 for x in json.load(open(sys.argv[1]))["results"]}
print("  %-72s context %6.1f  search %6.1f  ratio %.2fx" % (sys.argv[2][:72], r["context"], r["search"],
                                                            r["context"] / r["search"]))
PY
	done
fi

tokdir=${TOKENIZER_DIR:-$root/build/npm}
if test -d "$tokdir/node_modules/gpt-tokenizer" && command -v node >/dev/null 2>&1; then
	echo
	echo "the token estimate against GPT tokenizers (tokens.sh):"
	printf '%s\n' "how are the ranks of several lists combined with a weight for each list" \
		"what calls strbuf_addstr" "how does kbx context pack pieces within a budget" \
		"open a path inside the repository without following any symbolic link" >"$tmp/questions"
	TOKENIZER_DIR=$tokdir KBX=$KBX sh "$here/tokens.sh" "$tmp/tree" "$tmp/questions" ||
		echo "  tokens.sh failed"
else
	echo
	echo "the token estimate: skipped (gpt-tokenizer is not in $tokdir: make mcp-deps)"
fi
