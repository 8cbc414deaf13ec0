#!/bin/sh
#
# bench/context/tokens.sh: how close kbx context's token estimate comes to
# a byte-pair tokenizer's count, on code and on prose.
#
#   tokens.sh TREE QUESTIONS
#
# TREE is an indexed tree (kbx index, with its Markdown), QUESTIONS a file
# of questions, one a line.  Every piece kbx context packs for them (a
# large budget, each piece once) is counted again by the npm package
# gpt-tokenizer (cl100k_base and o200k_base), which must be installed,
# pinned, in $TOKENIZER_DIR (default build/npm, where `make mcp-deps`
# puts it with the MCP tests' packages, tests/mcp/package.json).
#
# Nothing is fetched by kbx at run time; the package is for this
# measurement only and never committed.  Prints, for code and for
# documents, kbx's total against each tokenizer's, and the share of
# pieces kbx's estimate does not fall short of.

set -eu
here=$(cd "$(dirname "$0")" && pwd)
KBX=${KBX:-$here/../../kbx}
TOKENIZER_DIR=${TOKENIZER_DIR:-$here/../../build/npm}
tree=$1
questions=$2
test -d "$TOKENIZER_DIR/node_modules/gpt-tokenizer" || {
	echo "error: gpt-tokenizer is not in '$TOKENIZER_DIR': run 'make mcp-deps'" >&2
	exit 2
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
while IFS= read -r q; do
	(cd "$tree" && "$KBX" context --format=json --budget=200000 --candidates=40 "$q") >>"$out" || :
done <"$questions"
NODE_PATH="$TOKENIZER_DIR/node_modules" node - "$out" <<'JS'
const fs = require('fs');
const cl = require('gpt-tokenizer/cjs/encoding/cl100k_base');
const o2 = require('gpt-tokenizer/cjs/encoding/o200k_base');
const seen = new Set();
const sums = {};
for (const line of fs.readFileSync(process.argv[2], 'utf8').split('\n')) {
	if (!line) continue;
	const r = JSON.parse(line);
	if (r.type !== 'piece' || seen.has(r.header)) continue;
	seen.add(r.header);
	const kind = r.kind === 'code' || r.kind === 'signature' ? 'code' : 'prose';
	/* the pieces' own tokens: kbx adds a fixed 6 for the fence */
	const est = r.tokens - 6;
	const a = cl.encode(r.header).length + cl.encode(r.text).length;
	const b = o2.encode(r.header).length + o2.encode(r.text).length;
	const s = sums[kind] = sums[kind] || { n: 0, kbx: 0, cl: 0, o2: 0, bytes: 0, under: 0 };
	s.n++; s.kbx += est; s.cl += a; s.o2 += b;
	s.bytes += Buffer.byteLength(r.header) + Buffer.byteLength(r.text);
	if (est < Math.max(a, b)) s.under++;
}
for (const [k, s] of Object.entries(sums))
	console.log(`${k}: ${s.n} pieces, ${s.bytes} bytes; kbx ${s.kbx}, cl100k ${s.cl} (kbx/cl100k ${(s.kbx / s.cl).toFixed(3)}), o200k ${s.o2} (kbx/o200k ${(s.kbx / s.o2).toFixed(3)}), bytes/4 ${(s.bytes / 4 / s.cl).toFixed(3)} of cl100k; pieces under either: ${(100 * s.under / s.n).toFixed(1)}%`);
JS
