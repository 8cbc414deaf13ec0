#!/bin/sh
#
# bench/context/recall.sh: the share of questions whose expected document,
# error entry or function is inside a kbx context pack of 2,000 tokens.
#
#   recall.sh [--budget=N] DIR SET.tsv...
#
# DIR is an indexed tree (with its registries added); each SET.tsv holds
# qid, split (dev: may be tuned on; held: never), the right ids
# (comma-separated: canonical ids of code, ids of documents and entries)
# and the question, tab-separated; '#' lines are comments.  The sets of
# bench/search/sets/ are about a registry (kb-registry) that is not part
# of kbx; code-questions.tsv here is about kbx's own tree.  Prints, per
# set and split, the questions whose answer is in the pack, and their
# share; with MISSES=1 the questions that missed.

set -eu
here=$(cd "$(dirname "$0")" && pwd)
KBX=${KBX:-$here/../../kbx}
budget=2000
case ${1:-} in --budget=*) budget=${1#--budget=}; shift ;; esac
dir=$1
shift
for set in "$@"; do
	KBX="$KBX" python3 - "$dir" "$set" "$budget" <<'PY'
import json, os, subprocess, sys
d, path, budget = sys.argv[1], sys.argv[2], sys.argv[3]
tally = {}
for line in open(path, encoding="utf-8"):
    if line.startswith("#") or not line.strip():
        continue
    qid, split, want, q = line.rstrip("\n").split("\t", 3)
    want = set(want.split(","))
    p = subprocess.run([os.environ["KBX"], "context", "--format=json", "--budget=" + budget, q],
                       cwd=d, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    ids = [json.loads(l).get("id") for l in p.stdout.decode().splitlines()
           if l.startswith('{"type":"piece"')]
    hit = bool(want & set(ids))
    t = tally.setdefault(split, [0, 0])
    t[0] += hit
    t[1] += 1
    if not hit and os.environ.get("MISSES"):
        print("  miss %s %s: %s" % (qid, ",".join(sorted(want)), q))
for split, (h, n) in sorted(tally.items()):
    print("%-24s %-5s %2d / %2d = %.2f" % (os.path.basename(path), split, h, n, h / n))
PY
done
