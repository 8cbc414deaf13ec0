#!/bin/bash
#
# bench/search/quality-code.sh: retrieval quality on code, by the
# docstring method.
#
# The corpus is the system Python's standard library (bench/work/corpora/
# pystdlib, else /usr/lib/python3.11: regular *.py files, no site- or
# dist-packages; Debian ships no test suite, only test/support and
# test/libregrtest, which are kept).  strip_docstrings.py writes a copy
# with every docstring replaced by `pass` (line numbers kept) and, for a
# fixed-seed sample of the documented functions and methods, the first
# sentence of the docstring as the query and the definition's canonical
# id (PATH#Qual.name) as the one right answer; see its header for the
# filter.  kbx indexes the copy (code chunks only: no Markdown there),
# then each query runs once as
#
#     kbx search --type=code --format=json -n 300 --candidates=100 -
#
# which is hybrid's default fusion (depth 100 = what -n 10 uses) and
# carries every candidate's vector and lexical rank, so that the ranks
# of --mode=lexical and --mode=vector are read off the same run; a sample
# of SEARCH_AGREE (default 100) queries is run in each mode with -n 10 to
# check that they agree.  Scored: MRR@10, recall@1, @10, @100.
#
# Writes $SRES/code-*.json(l) and records quality.code.*.

. "$(dirname "$0")/lib.sh"
sforget quality.code.

SRC=$WORK/corpora/pystdlib
[ -d "$SRC" ] || SRC=/usr/lib/python3.11
D=$WORK/search/code
SAMPLE=${SEARCH_SAMPLE:-2000}
AGREE=${SEARCH_AGREE:-100}

ssay "code quality: stripping the docstrings of $SRC"
rm -rf "$D" && mkdir -p "$D"
stats=$($PY "$shere/strip_docstrings.py" "$SRC" "$D/tree" "$D/queries.tsv" "$SAMPLE") ||
	sdie "strip_docstrings.py failed"
sinfo "$stats"
srecord quality.code.corpus "$SRC"
srecord quality.code.strip "$stats"
awk -F'\t' '{ print $1 "\t" $1 }' "$D/queries.tsv" >"$D/truth.tsv"
cp "$D/queries.tsv" "$SRES/code-queries.tsv"

ssay "code quality: kbx index"
mkdir -p "$D/tree/.kbx"
t0=$(now_ms)
(cd "$D/tree" && "$KBX" index --format=json) >"$SRES/code-index.json" 2>"$D/index.err" ||
	sdie "kbx index failed: $(tail -3 "$D/index.err")"
t1=$(now_ms)
srecord quality.code.index_ms $((t1 - t0))
srecord quality.code.index_json "$(cat "$SRES/code-index.json")"
srecord quality.code.status "$(cd "$D/tree" && "$KBX" status --format=json | tr '\n' ' ')"
sinfo "indexed in $((t1 - t0)) ms: $(cut -c1-200 "$SRES/code-index.json")"

ssay "code quality: $(wc -l <"$D/queries.tsv") queries, $SPAR at a time"
srecord_cmd quality.code.run "kbx search --type=code --format=json -n 300 --candidates=100 - <query"
out=$($PY "$shere/runq.py" -P "$SPAR" --dir "$D/tree" "$D/queries.tsv" "$SRES/code-run.jsonl" \
	"$KBX" search --type=code --format=json -n 300 --candidates=100) || sdie "runq.py failed"
sinfo "$out"
srecord quality.code.run "$out"

ssay "code quality: $AGREE queries in each --mode with -n 10, to check the ranks read off the hybrid run"
head -n "$AGREE" "$D/queries.tsv" >"$D/agree.tsv"
for m in lexical vector hybrid; do
	srecord_cmd "quality.code.mode.$m" "kbx search --type=code --format=json -n 10 --mode=$m - <query"
	out=$($PY "$shere/runq.py" -P "$SPAR" --dir "$D/tree" "$D/agree.tsv" "$SRES/code-mode-$m.jsonl" \
		"$KBX" search --type=code --format=json -n 10 --mode=$m) || sdie "runq.py failed"
	sinfo "--mode=$m: $out"
	srecord "quality.code.mode.$m" "$out"
done

ssay "code quality: scores"
$PY "$shere/score.py" "$D/truth.tsv" \
	lexical="$SRES/code-run.jsonl:lexical" vector="$SRES/code-run.jsonl:vector" \
	hybrid="$SRES/code-run.jsonl" --rrf --split \
	--agree "$SRES/code-run.jsonl:lexical=$SRES/code-mode-lexical.jsonl" \
	--agree "$SRES/code-run.jsonl:vector=$SRES/code-mode-vector.jsonl" \
	--agree "$SRES/code-run.jsonl=$SRES/code-mode-hybrid.jsonl" \
	--json "$SRES/code-scores.json" | sed 's/^/    /'

# Linear fusion (min-max scaled BM25 and cosine, mixed by the vector
# weight), run by kbx itself: its scores cannot be re-fused from the
# ranks above.  0.7 is the default of --fusion=linear.
ssay "code quality: --fusion=linear at several vector weights"
{
	echo "Linear fusion, run by kbx (\`--fusion=linear --vector-weight=W\`, all $(wc -l <"$D/queries.tsv") queries, \`-n 10\`):"
	echo
	echo "| vector weight | MRR@10 | recall@1 | recall@10 |"
	echo "|---|---|---|---|"
} >"$SRES/code-linear.md"
for w in ${SEARCH_LINEAR_WEIGHTS:-0.1 0.3 0.5 0.7}; do
	$PY "$shere/runq.py" -P "$SPAR" --dir "$D/tree" "$D/queries.tsv" "$SRES/code-linear-$w.jsonl" \
		"$KBX" search --type=code --format=json -n 10 --fusion=linear --vector-weight="$w" >/dev/null ||
		sdie "runq.py failed"
	row=$($PY - "$SRES/code-linear-$w.jsonl" <<'PYEOF'
import json, sys
n = mrr = r1 = r10 = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    n += 1
    for i, h in enumerate(r["hits"][:10]):
        if h["id"] == r["qid"]:
            mrr += 1 / (i + 1)
            r1 += i == 0
            r10 += 1
            break
print("%.3f | %.3f | %.3f" % (mrr / n, r1 / n, r10 / n))
PYEOF
)
	sinfo "linear, vector weight $w: MRR@10 | R@1 | R@10 = $row"
	srecord "quality.code.linear.$w" "$row"
	echo "| $w | $row |" >>"$SRES/code-linear.md"
done
echo >>"$SRES/code-linear.md"
