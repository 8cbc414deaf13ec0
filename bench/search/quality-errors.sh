#!/bin/bash
#
# bench/search/quality-errors.sh: retrieval quality on real error
# messages.
#
# The small failing programs of bench/search/errors/ are run (or
# compiled) with the tools installed here: python3 (/usr/bin/python3),
# node, gcc, g++, rustc, javac/java; go, tsc and dotnet are used when
# present (they are not on the machine these figures come from), and
# their standard error (whole tracebacks, compiler diagnostics) is kept
# in bench/work/search/errors/captured/NAME.LANG.txt.  The index is a
# scratch directory with nothing but the third-party registry
# SEARCH_REGISTRY (default /work/shared/fixtures/kb-registry, referenced
# by path, never copied; the section is skipped when it is absent) added
# with `kbx registry add`.  errors_truth.py decides the right entries
# (patterns of the message's language that match it, with Python's re;
# see its header).  Each message is piped to
#
#     kbx search --type=error --format=json --mode=MODE -
#
# for MODE lexical (BM25 + patterns), vector and hybrid, without --lang,
# and scored: MRR@10, recall@1, recall@10.  The per-signal ranks of the
# hybrid run (BM25 alone, patterns alone) are scored as well.

. "$(dirname "$0")/lib.sh"
sforget quality.errors.
REG=${SEARCH_REGISTRY:-/work/shared/fixtures/kb-registry}
if [ ! -d "$REG/errors" ]; then
	sinfo "no registry at $REG: skipping the error benchmark"
	srecord quality.errors.skipped "no registry at $REG"
	exit 0
fi
E=$WORK/search/errors
C=$E/captured
rm -rf "$E" && mkdir -p "$C" "$E/run"

ssay "errors: running the failing programs"
tools=
have () { command -v "$1" >/dev/null 2>&1; }
for t in /usr/bin/python3 node gcc g++ rustc javac java go tsc dotnet; do
	if have "$t"; then
		v=$("$t" --version 2>&1 | head -n 1)
		[ "$t" = javac ] && v=$(javac -version 2>&1)
		tools+="$t: $v; "
	else
		tools+="$t: not installed; "
	fi
done
srecord quality.errors.tools "$tools"
sinfo "$tools"
for f in "$shere"/errors/*; do
	b=$(basename "$f")
	name=${b%.*}
	w=$E/run/$name
	mkdir -p "$w" && cp "$f" "$w/"
	case $b in
	(*.py) lang=python; (cd "$w" && timeout 20 /usr/bin/python3 "$b") ;;
	(*.js) lang=javascript; (cd "$w" && timeout 20 node "$b") ;;
	(*.c) lang=c; (cd "$w" && timeout 60 gcc -c -o x.o "$b") ;;
	(*.cc) lang=cpp; (cd "$w" && timeout 60 g++ -c -o x.o "$b") ;;
	(*.rs) lang=rust; have rustc || continue
		(cd "$w" && timeout 120 rustc -o prog "$b" 2>err && timeout 20 ./prog) ;;
	(*.java) lang=java; have javac || continue
		(cd "$w" && timeout 120 javac "$b" 2>err && timeout 60 java -Xmx32m "$name") ;;
	(*) continue ;;
	esac >"$w/stdout" 2>"$w/stderr"
	# a compiler's messages went to err, a program's to stderr
	[ -s "$w/err" ] && cat "$w/err" >>"$w/stderr"
	# the temporary paths are this run's: make them stable
	sed "s|$w/||g; s|$w|.|g" "$w/stderr" >"$C/$name.$lang.txt"
	sinfo "$(printf '%-22s %-10s %4d lines: %s' "$name" "$lang" "$(wc -l <"$C/$name.$lang.txt")" \
		"$(grep -m1 -E 'Error|error|panic|Exception|Warning' "$C/$name.$lang.txt" | cut -c1-90)")"
done

ssay "errors: the right answers (patterns of $REG matched with Python's re)"
$PY "$shere/errors_truth.py" "$REG" "$C" "$E/queries.tsv" "$E/truth.tsv" >"$SRES/errors-truth.txt" ||
	sdie "errors_truth.py failed"
sed 's/^/    /' "$SRES/errors-truth.txt"
cp "$E/truth.tsv" "$SRES/errors-truth.tsv"
srecord quality.errors.captured "$(ls "$C" | wc -l)"
srecord quality.errors.queries "$(wc -l <"$E/queries.tsv")"
srecord quality.errors.excluded "$(grep -c '^excluded' "$SRES/errors-truth.txt")"

ssay "errors: index of the registry alone"
I=$E/index
mkdir -p "$I/.kbx"
(cd "$I" && "$KBX" registry add "$REG") >/dev/null 2>&1 || sdie "kbx registry add $REG failed"
(cd "$I" && "$KBX" index --format=json) >"$SRES/errors-index.json" 2>"$E/index.err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 11 ] || sdie "kbx index failed ($rc): $(tail -3 "$E/index.err")"
srecord quality.errors.index_exit "$rc"
srecord quality.errors.index_json "$(cat "$SRES/errors-index.json")"
sinfo "$(cat "$SRES/errors-index.json" | cut -c1-300)"

ssay "errors: $(wc -l <"$E/queries.tsv") messages, each in three modes"
for m in lexical vector hybrid; do
	srecord_cmd "quality.errors.$m" "kbx search --type=error --format=json -n 100 --mode=$m - <message"
	out=$($PY "$shere/runq.py" -P "$SPAR" --dir "$I" "$E/queries.tsv" "$SRES/errors-$m.jsonl" \
		"$KBX" search --type=error --format=json -n 100 --mode=$m) || sdie "runq.py failed"
	sinfo "--mode=$m: $out"
	srecord "quality.errors.run.$m" "$out"
done
$PY "$shere/score.py" "$E/truth.tsv" lexical="$SRES/errors-lexical.jsonl" \
	vector="$SRES/errors-vector.jsonl" hybrid="$SRES/errors-hybrid.jsonl" \
	"BM25 alone (from the hybrid run)=$SRES/errors-hybrid.jsonl:lexical" \
	"patterns alone (from the hybrid run)=$SRES/errors-hybrid.jsonl:pattern" \
	--json "$SRES/errors-scores.json" | sed 's/^/    /'

ssay "errors: the confidence, fitted again on the dev halves (calibrate.py)"
srecord_cmd quality.errors.calibration "calibrate.py --dir INDEX --captured CAPTURED truth.tsv sets/doc-questions.tsv sets/error-plain.tsv -- kbx"
out=$($PY "$shere/calibrate.py" --dir "$I" --captured "$C" "$E/truth.tsv" \
	"$shere/sets/doc-questions.tsv" "$shere/sets/error-plain.tsv" -- "$KBX") ||
	sdie "calibrate.py failed"
printf '%s\n' "$out" | sed 's/^/    /'
srecord quality.errors.calibration "$(printf '%s' "$out" | tr '\n' ' ')"
