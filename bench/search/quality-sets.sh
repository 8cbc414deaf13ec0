#!/bin/bash
#
# bench/search/quality-sets.sh: questions of meaning against the
# third-party kb-registry, from bench/search/sets/:
#
#   doc-questions.tsv  questions about its documents, worded away from
#                      their answers (the answer: the document's id)
#   error-plain.tsv    errors described in plain words, without the
#                      message's text (the answer: the entry's id)
#
# Each question is given to `kbx search --format=json -n 10 -` in a
# scratch index of the registry alone, in each mode (hybrid, lexical,
# vector), with the builtin embedding's learned vectors (search.model
# words, the default) and without them (hash); sets.py scores top-1,
# top-3 and MRR@10 per split.  The "held" questions were never looked at
# while choosing a setting: they are the figures to quote.

. "$(dirname "$0")/lib.sh"
sforget quality.sets.
REG=${SEARCH_REGISTRY:-/work/shared/fixtures/kb-registry}
if [ ! -d "$REG/errors" ]; then
	sinfo "no registry at $REG: skipping the question sets"
	srecord quality.sets.skipped "no registry at $REG"
	exit 0
fi
for model in words hash; do
	I=$WORK/search/sets-$model
	rm -rf "$I" && mkdir -p "$I/.kbx"
	(cd "$I" && "$KBX" -c search.model=$model registry add "$REG") >/dev/null 2>&1 ||
		sdie "kbx registry add $REG failed"
	(cd "$I" && "$KBX" -c search.model=$model index -q) || sdie "kbx index failed"
	for set in doc-questions error-plain; do
		for m in hybrid lexical vector; do
			ssay "sets: $set, --mode=$m, search.model=$model"
			srecord_cmd "quality.sets.$set.$model.$m" \
				"kbx -c search.model=$model search --mode=$m --format=json -n 10 - <question"
			out=$($PY "$shere/sets.py" --dir "$I" "$shere/sets/$set.tsv" \
				"$KBX" -c search.model=$model search --mode=$m) || sdie "sets.py failed"
			printf '%s\n' "$out" | sed 's/^/    /'
			srecord "quality.sets.$set.$model.$m" "$(printf '%s\n' "$out" | tail -n 1)"
		done
	done
done
