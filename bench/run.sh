#!/bin/bash
#
# bench/run.sh: kbx against cscope, GNU Global and a pickled NetworkX graph
# on real trees; writes bench/results.md.  `make bench` runs it after
# building ./kbx.
#
#   1. corpora   bench/fetch-corpora.sh fills bench/work/corpora/ the first
#                time (the only step that uses the network): Debian's git
#                and postgresql-15 source packages, C files only, and the
#                system Python 3.11 standard library.
#   2. C         the git tree, side by side: full index time (median of 3),
#                peak RSS and store size of kbx, cscope -b -q -k, cscope -b
#                and gtags; query latency (hyperfine) of kbx callers/callees
#                against cscope -d -L3/-L2 and global -r; agreement of the
#                answers with cscope's; re-index after a one-file edit and
#                with no change.
#   3. Python    the standard library: kbx index and queries against the
#                seeds' design (a NetworkX DiGraph of the same edges,
#                pickled, loaded by a python3 process per query).
#   4. scaling   trees of ~10k, ~100k, ~390k (git), ~1M and ~2M lines
#                (git + postgresql): index time, store size, query and
#                re-index latency against lines.
#   5. analytics bench/analytics.sh: kbx impact, path and cycles on the git
#                tree against a pickled NetworkX graph of its edges.
#   6. hybrid    bench/hybrid.sh: kbx hybrid on the git and Python trees,
#                one question of each shape, beside kbx callers, kbx
#                search and NetworkX; writes bench/work/results/hybrid.md.
#   7. search    bench/search/run.sh:
#                retrieval quality, search latency at 1k-1M chunks and
#                indexing throughput; writes bench/work/results/search.md.
#   7b. mcp      bench/mcp.sh: kbx mcp's first answer and later calls
#                against the same commands as new processes, on kbx's own
#                tree; writes bench/work/results/mcp.md.
#   7c. serve    bench/serve.sh: kbx serve under wrk, 64 connections for
#                30 s against /v1/search and /v1/callers on git's C tree
#                while kbx index re-indexes it in a loop; writes
#                bench/work/results/serve.md.
#   7d. context  bench/context/run.sh: kbx context on kbx's own tree, the
#                share of questions answered inside a 2,000-token pack and
#                its latency beside kbx search; writes .../context.md.
#   7e. languages bench/languages.sh: one real project per language of
#                issue 18 (PHP, Lua, Bash, Vue, Svelte, Kotlin, Swift,
#                Scala, Objective-C, Elixir, OCaml, Haskell, Zig):
#                files, lines, index time, calls certain / ambiguous /
#                unresolved; writes bench/work/results/languages.md.
#   7f. org      bench/org.sh: ORG_N (default 1,000) repositories pushed to a
#                throwaway PostgreSQL cluster: push time, database size,
#                questions across all of them through the database and
#                through the local list; writes bench/work/results/org.md.
#   8. accuracy  bench/accuracy/run.sh (only when named in BENCH_SECTIONS):
#                kbx's call edges against the compilers of Go, Java,
#                TypeScript, C++ and Rust and Python's ast on real
#                projects (goldmark, commons-io, rxjs, leveldb,
#                regex-syntax, jinja2): recall, precision of certain
#                edges, confidently wrong calls; and the precision of
#                kbx dead there (bench/accuracy/dead.sh).
#   9. report    bench/report.py writes bench/results.md.
#
# Environment:
#   KBX             the kbx binary (default: ./kbx at the top of the tree)
#   KBX_BUILD_DIR   where libkbx.a is, for the edge exporter (default build/)
#   BENCH_SECTIONS  which of "c py scale analytics hybrid search mcp serve
#                   context languages org accuracy" to run (default: all but accuracy; accuracy installs
#                   compilers and fetches its own projects, so it runs
#                   only when named)
#   BENCH_RUNS      runs of each hyperfine query benchmark (default 30)
#   BENCH_INSTALL=1 apt-get install the tools that are missing
#   BENCH_QUIET_WAIT seconds to wait, before each group of measurements, for
#                   other processes to leave the CPUs (default 15)
#   BENCH_WORK      work directory (default bench/work)

set -u
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
WORK=${BENCH_WORK:-$here/work}
KBX=${KBX:-$root/kbx}
KBX_BUILD_DIR=${KBX_BUILD_DIR:-$root/build}
SECTIONS=${BENCH_SECTIONS:-c py scale analytics hybrid search mcp serve context languages org}
QRUNS=${BENCH_RUNS:-30}
PY=/usr/bin/python3          # Debian's python3 with Debian's python3-networkx

RES=$WORK/results
TREES=$WORK/trees
CORPORA=$WORK/corpora
export RES

. "$here/lib.sh"

has () { case " $SECTIONS " in (*" $1 "*) return 0 ;; esac; return 1; }
# the sections that measure against the peers on the shared corpora
peers=0
for s in $SECTIONS; do
	[ "$s" = accuracy ] || [ "$s" = mcp ] || [ "$s" = serve ] || [ "$s" = context ] || peers=1
done

start_s=$(date +%s)
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/kbx-bench.XXXXXX") || exit 2
trap 'rm -rf "$TMPD"' EXIT
trap 'exit 2' HUP INT TERM

# ---------------------------------------------------------------------------
say "checking the tools"

need_pkgs=()
peer_tools="cscope:cscope gtags:global global:global hyperfine:hyperfine"
[ $peers = 1 ] || peer_tools=
for t in $peer_tools bc:bc dpkg-source:dpkg-dev; do
	command -v "${t%%:*}" >/dev/null 2>&1 || need_pkgs+=("${t#*:}")
done
[ -x /usr/bin/time ] || need_pkgs+=(time)
[ $peers = 0 ] || { [ -x $PY ] && $PY -c 'import networkx' 2>/dev/null; } || need_pkgs+=(python3-networkx)
install_missing ${need_pkgs[@]+"${need_pkgs[@]}"}
[ -x "$KBX" ] || die "no kbx binary at $KBX: run make first"
[ -f "$KBX_BUILD_DIR/libkbx.a" ] || die "no $KBX_BUILD_DIR/libkbx.a: run make first"

rm -rf "$RES"
mkdir -p "$RES/hf" "$RES/out" "$TREES" "$WORK/bin"

# Measure a private copy of the binary (and link the exporter against a
# copy of the libraries): a rebuild of ./kbx during the run must not
# change, or break, what is measured.
cp "$KBX" "$WORK/bin/kbx.tmp" && mv "$WORK/bin/kbx.tmp" "$WORK/bin/kbx" ||
	die "cannot copy $KBX"
# with its modules, which kbx loads from build/ next to the executable
mkdir -p "$WORK/bin/build"
for m in kbx-vector.so kbx-embed.so kbx-grammars.so kbx-words.bin; do
	[ -f "$(dirname "$KBX")/build/$m" ] && cp "$(dirname "$KBX")/build/$m" "$WORK/bin/build/"
done
KBX_ORIG=$KBX
record meta.kbx_source "$KBX (sha256 $(sha256sum "$WORK/bin/kbx" | cut -c1-12))"
KBX=$WORK/bin/kbx
cp "$KBX_BUILD_DIR/libkbx.a" "$KBX_BUILD_DIR/libkbx-grammars.a" "$TMPD/" ||
	die "cannot copy the libraries from $KBX_BUILD_DIR"

record meta.date "$(date -u '+%Y-%m-%d %H:%M UTC')"
record meta.kbx "$("$KBX" --version 2>&1 | head -n 1)"
record meta.kbx_path "$KBX"
record meta.python "$($PY --version 2>&1) ($PY)"
if [ $peers = 1 ]; then
	record meta.cscope "$(cscope -V 2>&1 | head -n 1)"
	record meta.global "$(global --version | head -n 1)"
	record meta.hyperfine "$(hyperfine --version)"
	record meta.networkx "$($PY -c 'import networkx; print(networkx.__version__)')"
fi
record meta.cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
record meta.cores "$(nproc)"
record meta.mem "$(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)"
record meta.os "$(. /etc/os-release && echo "$PRETTY_NAME") $(uname -r)"
record meta.load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
record meta.quiet_wait "${BENCH_QUIET_WAIT:-15}"
record meta.fs "$(df -T "$WORK" | awk 'NR == 2 { print $2 }')"
info "kbx: $("$KBX" --version | head -n 1) ($KBX)"
[ $peers = 0 ] ||
	info "$(cscope -V 2>&1 | head -n 1); $(global --version | head -n 1); $(hyperfine --version); networkx $($PY -c 'import networkx; print(networkx.__version__)')"

# The edge exporter for the NetworkX comparison: a small C program on
# kbx's public API (lib/kbx.h), linked like ./kbx.
EXPORT=$WORK/bin/kbx-export
info "building $EXPORT"
build_export "$EXPORT" "$TMPD" || die "cannot build the edge exporter"
# The floor under kbx's parse phase: tree-sitter alone, one thread.
TSPARSE=$WORK/bin/ts-parse
info "building $TSPARSE"
# The grammar archive holds tree-sitter's runtime too (grammars.lock).
${CC:-cc} -O2 -I"$KBX_BUILD_DIR/grammars/tree-sitter/lib/include" \
	-o "$TSPARSE" "$here/ts-parse.c" "$TMPD/libkbx-grammars.a" ||
	die "cannot build ts-parse"
record meta.tree_sitter "$(awk '$2 == "runtime:" { print "libtree-sitter " $4 " (Debian source, patched: grammars.lock)"; exit }' "$root/grammars/grammars.lock")"

# ---------------------------------------------------------------------------
if [ $peers = 1 ]; then
	say "corpora"
	if [ ! -f "$CORPORA/.complete" ]; then
		info "bench/work/corpora is not populated: fetching (network)"
		BENCH_WORK=$WORK bash "$here/fetch-corpora.sh" || die "fetching the corpora failed"
	else
		info "using $CORPORA (no network needed; rm -rf $CORPORA to fetch again)"
	fi
	while read -r pkg ver rest; do
		record "corpus.$pkg" "$ver"
	done <"$CORPORA/MANIFEST"
	record corpus.pg_excluded "$(tr '\n' ' ' <"$CORPORA/postgresql-c.excluded")"
fi


# index_peers KEYPREFIX DIR RUNS: full index by kbx and the peers in DIR
index_all () {
	local p=$1 dir=$2 runs=$3
	(cd "$dir" && find . -type f -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort >cscope.files)
	time_runs "$p.kbx" "$dir" "$runs" "" "$KBX" index --rebuild -q
	record "$p.kbx.store_bytes" "$(bytes_of "$dir" $(store_files "$dir"))"
	"$KBX" -C "$dir" status --format=json >"$RES/out/$p.kbx.status.json" 2>&1
	time_runs "$p.kbx_scratch" "$dir" "$runs" "rm -rf .kbx && mkdir .kbx" "$KBX" index -q
	record "$p.kbx_scratch.store_bytes" "$(bytes_of "$dir" $(store_files "$dir"))"
	"$KBX" -C "$dir" index --format=json --rebuild >"$RES/out/$p.kbx.summary.json" 2>&1
	time_runs "$p.kbx_t1" "$dir" "$runs" "" "$KBX" index --rebuild -q --threads=1
	time_runs "$p.cscope_plain" "$dir" "$runs" "rm -f cscope-plain.out" cscope -b -f cscope-plain.out
	record "$p.cscope_plain.store_bytes" "$(bytes_of "$dir" cscope-plain.out)"
	time_runs "$p.cscope_qk" "$dir" "$runs" "rm -f cscope.out cscope.in.out cscope.po.out" cscope -b -q -k
	record "$p.cscope_qk.store_bytes" "$(bytes_of "$dir" cscope.out cscope.in.out cscope.po.out)"
	time_runs "$p.gtags" "$dir" "$runs" "rm -f GTAGS GRTAGS GPATH" gtags
	record "$p.gtags.store_bytes" "$(bytes_of "$dir" GTAGS GRTAGS GPATH)"
	time_runs "$p.ts_parse" "$dir" "$runs" "" "$TSPARSE" --walk cscope.files
	info "    $(cat "$RES/out/$p.ts_parse.stdout")"
}

# ---------------------------------------------------------------------------
if has c; then
	say "C: the git tree (Debian source package git, *.c and *.h only)"
	G=$TREES/git-c
	fresh_tree "$CORPORA/git-c" "$G"
	tree_stats c.tree "$G"

	say "C: full index, 3 runs each (kbx --rebuild, kbx from scratch, kbx --threads=1, cscope -b, cscope -b -q -k, gtags)"
	wait_quiet c.idx
	index_all c.idx "$G" 3

	say "C: query latency (hyperfine -N, warmup 5, $QRUNS runs), answers compared with cscope's"
	wait_quiet c.query
	for n in xstrdup strbuf_addf die error oid_to_hex; do
		run_check "c.q.callers.$n.kbx" "$G" "$KBX" callers "$n"
		run_check "c.q.callers.$n.kbxjson" "$G" "$KBX" callers --format=json "$n"
		run_check "c.q.callers.$n.cscope" "$G" cscope -d -L3 "$n"
		run_check "c.q.callers.$n.global" "$G" global -r "$n"
		# -r prints the files that refer to n; -rx, what kbx prints:
		# every reference with its line
		run_check "c.q.callers.$n.globalx" "$G" global -rx "$n"
		record "c.q.callers.$n.agree" "$($PY "$here/compare.py" callers \
			"$RES/out/c.q.callers.$n.kbxjson.stdout" "$RES/out/c.q.callers.$n.cscope.stdout" \
			"$RES/out/c.q.callers.$n.diff.txt")"
		record "c.q.callers.$n.ndefs" "$("$KBX" -C "$G" defs --format=json "$n" 2>/dev/null | grep -c '"type":"def"')"
		info "callers $n: $(grep "^c.q.callers.$n.agree" "$RES/records.tsv" | cut -f2)"
		hf "c-callers-$n" "$G" --warmup 5 --runs "$QRUNS" \
			-n "kbx callers $n" "$KBX callers $n" \
			-n "cscope -d -L3 $n" "cscope -d -L3 $n" \
			-n "global -r $n" "global -r $n" \
			-n "global -rx $n" "global -rx $n"
	done
	for n in cmd_commit setup_revisions diff_flush; do
		run_check "c.q.callees.$n.kbx" "$G" "$KBX" callees "$n"
		run_check "c.q.callees.$n.kbxjson" "$G" "$KBX" callees --format=json "$n"
		run_check "c.q.callees.$n.cscope" "$G" cscope -d -L2 "$n"
		record "c.q.callees.$n.agree" "$($PY "$here/compare.py" callees \
			"$RES/out/c.q.callees.$n.kbxjson.stdout" "$RES/out/c.q.callees.$n.cscope.stdout" \
			"$RES/out/c.q.callees.$n.diff.txt")"
		info "callees $n: $(grep "^c.q.callees.$n.agree" "$RES/records.tsv" | cut -f2)"
		hf "c-callees-$n" "$G" --warmup 5 --runs "$QRUNS" \
			-n "kbx callees $n" "$KBX callees $n" \
			-n "cscope -d -L2 $n" "cscope -d -L2 $n"
	done

	# A search of git's code chunks against the same with
	# --mode=lexical: what the vector signal costs.  Once as kbx index
	# left the page cache, once after the vector file has left it and one
	# search has read it back, as a search finds it later in the day
	# (README "The vector file in huge pages").
	say "C: kbx search against --mode=lexical (hyperfine -N, $QRUNS runs)"
	q_search="read a config file and parse its sections"
	hf "c-search" "$G" --warmup 5 --runs "$QRUNS" \
		-n "kbx search" "$KBX search '$q_search'" \
		-n "kbx search --mode=lexical" "$KBX search --mode=lexical '$q_search'"
	if $PY -c 'import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' "$G/.kbx/vectors.kbxv"; then
		(cd "$G" && "$KBX" search "$q_search" >/dev/null 2>&1)
		hf "c-search-reread" "$G" --warmup 5 --runs "$QRUNS" \
			-n "kbx search" "$KBX search '$q_search'" \
			-n "kbx search --mode=lexical" "$KBX search --mode=lexical '$q_search'"
	fi

	# A graph query's start-up, step by step, beside GNU Global's: each
	# command does the one before it and one step more.  Page faults
	# (perf stat, when the kernel lets it count) do not drift with the
	# load on the machine as times do.
	say "C: a graph query step by step, kbx beside global (hyperfine -N, $QRUNS runs; page faults by perf stat)"
	wait_quiet c.steps
	hf "c-steps" "$G" --warmup 5 --runs "$QRUNS" \
		-n "kbx --version" "$KBX --version" \
		-n "kbx defs strbuf_addf" "$KBX defs strbuf_addf" \
		-n "kbx callers strbuf_addf" "$KBX callers strbuf_addf" \
		-n "global --version" "global --version" \
		-n "global strbuf_addf" "global strbuf_addf" \
		-n "global -r strbuf_addf" "global -r strbuf_addf"
	if command -v perf >/dev/null 2>&1; then
		for c in "$KBX --version" "$KBX defs strbuf_addf" "$KBX callers strbuf_addf" \
			 "global --version" "global strbuf_addf" "global -r strbuf_addf"; do
			key=$(echo "$c" | sed "s|^$KBX|kbx|" | tr ' ' '_')
			# shellcheck disable=SC2086 # $c is a command line
			f=$(cd "$G" && perf stat -x, -e page-faults -r 20 $c 2>&1 >/dev/null |
				awk -F, '/page-faults/ { print $1 }')
			case $f in ''|*[!0-9]*) ;; *) record "c.steps.faults.$key" "$f" ;; esac
		done
	fi

	say "C: re-index with no change (warmup 2, 10 runs)"
	wait_quiet c.reindex
	hf "c-reindex-nochange" "$G" --warmup 2 --runs 10 \
		-n "kbx index" "$KBX index -q" \
		-n "cscope -b -q -k" "cscope -b -q -k" \
		-n "gtags -i" "gtags -i"

	say "C: re-index after a one-file edit (append a comment, then update; warmup 1, 7 runs per file)"
	for f in abspath.c builtin/commit.c diff.c refs/files-backend.c strbuf.h; do
		key=$(echo "$f" | tr '/.' '__')
		hf "c-reindex-edit-$key" "$G" --warmup 1 --runs 7 \
			--prepare "$here/edit-file.sh $f" \
			-n "kbx index ($f)" "$KBX index -q" \
			-n "cscope -b -q -k ($f)" "cscope -b -q -k" \
			-n "gtags -i ($f)" "gtags -i"
		record "c.reindex.file.$key" "$f"
		# what one such update does (files parsed, re-resolved)
		"$here/edit-file.sh" "$G/$f"
		"$KBX" -C "$G" index --format=json >"$RES/out/c.reindex.$key.summary.json" 2>&1 </dev/null
	done
fi

# ---------------------------------------------------------------------------
if has py; then
	say "Python: the standard library (/usr/lib/python3.11, *.py)"
	P=$TREES/pystdlib
	fresh_tree "$CORPORA/pystdlib" "$P"
	tree_stats py.tree "$P"

	say "Python: kbx full index, 3 runs"
	wait_quiet py.idx
	time_runs py.idx.kbx "$P" 3 "" "$KBX" index --rebuild -q
	record py.idx.kbx.store_bytes "$(bytes_of "$P" $(store_files "$P"))"
	time_runs py.idx.kbx_scratch "$P" 3 "rm -rf .kbx && mkdir .kbx" "$KBX" index -q
	record py.idx.kbx_scratch.store_bytes "$(bytes_of "$P" $(store_files "$P"))"
	"$KBX" -C "$P" status --format=json >"$RES/out/py.kbx.status.json" 2>&1
	"$KBX" -C "$P" index --format=json --rebuild >"$RES/out/py.idx.kbx.summary.json" 2>&1
	(cd "$P" && find . -type f -name '*.py' | sed 's|^\./||' | LC_ALL=C sort >"$WORK/pystdlib.files")
	time_runs py.idx.ts_parse "$P" 3 "" "$TSPARSE" --walk "$WORK/pystdlib.files"
	info "    $(cat "$RES/out/py.idx.ts_parse.stdout")"

	say "Python: the seeds' design: the same edges in a pickled networkx.DiGraph"
	EDGES=$WORK/pystdlib-edges.tsv
	PICKLE=$WORK/pystdlib-graph.pickle
	time_runs py.export "$P" 1 "" "$EXPORT"
	cp "$RES/out/py.export.stdout" "$EDGES"
	info "$(cat "$RES/out/py.export.stderr")"
	record py.export.nodes "$(grep -c '^N' "$EDGES")"
	record py.export.edges "$(grep -c '^E' "$EDGES")"
	time_runs py.nx_build "$P" 1 "" $PY "$here/nx_build.py" "$EDGES" "$PICKLE"
	record py.nx.pickle_bytes "$(stat -c %s "$PICKLE")"
	time_runs py.nx_load "$P" 3 "" $PY -c "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))" "$PICKLE"

	say "Python: query latency (hyperfine -N, warmup 5, $QRUNS runs)"
	wait_quiet py.query
	hf "py-baseline" "$P" --warmup 5 --runs "$QRUNS" \
		-n "python3 -c pass" "$PY -c pass" \
		-n "python3 -c 'import networkx'" "$PY -c 'import networkx'" \
		-n "kbx --version" "$KBX --version"
	for q in callers:join callers:warn callers:deepcopy callers:getLogger callers:urlparse \
		callees:Popen._execute_child callees:compile_file callees:_parse_makefile; do
		c=${q%%:*} n=${q#*:}
		run_check "py.q.$c.$n.kbx" "$P" "$KBX" "$c" --format=json "$n"
		run_check "py.q.$c.$n.nx" "$P" $PY "$here/nx_query.py" "$PICKLE" "$c" "$n"
		k=$(grep -c "\"type\":\"${c%s}\"" "$RES/out/py.q.$c.$n.kbx.stdout")
		x=$(grep -c '^  ' "$RES/out/py.q.$c.$n.nx.stdout")
		record "py.q.$c.$n.agree" "kbx=$k nx=$x"
		record "py.q.$c.$n.ndefs" "$("$KBX" -C "$P" defs --format=json "$n" 2>/dev/null | grep -c '"type":"def"')"
		info "$c $n: kbx $k results, networkx $x"
		hf "py-$c-$n" "$P" --warmup 5 --runs "$QRUNS" \
			-n "kbx $c $n" "$KBX $c $n" \
			-n "networkx $c $n" "$PY $here/nx_query.py $PICKLE $c $n"
	done

	say "Python: re-index (no change; one-file edit of asyncio/base_events.py)"
	hf "py-reindex" "$P" --warmup 1 --runs 7 \
		-n "kbx index (no change)" "$KBX index -q"
	hf "py-reindex-edit" "$P" --warmup 1 --runs 7 \
		--prepare "$here/edit-file.sh asyncio/base_events.py" \
		-n "kbx index (asyncio/base_events.py)" "$KBX index -q"
fi

# ---------------------------------------------------------------------------
if has scale; then
	say "scaling: trees of whole files of git (and postgresql-15 past git's size)"
	gfirst=git-compat-util.h,cache.h,strbuf.h,strbuf.c,wrapper.c,usage.c,hex.c,builtin.h,builtin/commit.c
	pfirst=src/backend/utils/mmgr/mcxt.c,src/include/utils/palloc.h
	$PY "$here/mktree.py" "$TREES/scale-010k" 10000 "git=$CORPORA/git-c:$gfirst" >/dev/null
	$PY "$here/mktree.py" "$TREES/scale-100k" 100000 "git=$CORPORA/git-c:$gfirst" >/dev/null
	$PY "$here/mktree.py" "$TREES/scale-390k" 0 "git=$CORPORA/git-c:$gfirst" >/dev/null
	$PY "$here/mktree.py" "$TREES/scale-1m" 1000000 "git=$CORPORA/git-c:$gfirst" \
		"postgresql=$CORPORA/postgresql-c:$pfirst" >/dev/null
	$PY "$here/mktree.py" "$TREES/scale-2m" 0 "git=$CORPORA/git-c:$gfirst" \
		"postgresql=$CORPORA/postgresql-c:$pfirst" >/dev/null
	for s in 010k 100k 390k 1m 2m; do
		S=$TREES/scale-$s
		mkdir -p "$S/.kbx"
		tree_stats "scale.$s.tree" "$S"
	done
	for s in 010k 100k 390k 1m 2m; do
		S=$TREES/scale-$s
		say "scaling: $s ($(grep "^scale.$s.tree.lines" "$RES/records.tsv" | cut -f2) lines)"
		(cd "$S" && find . -type f -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort >cscope.files)
		wait_quiet "scale.$s"
		time_runs "scale.$s.kbx" "$S" 3 "" "$KBX" index --rebuild -q
		record "scale.$s.kbx.store_bytes" "$(bytes_of "$S" $(store_files "$S"))"
		"$KBX" -C "$S" status --format=json >"$RES/out/scale.$s.kbx.status.json" 2>&1
		"$KBX" -C "$S" index --format=json --rebuild >"$RES/out/scale.$s.kbx.summary.json" 2>&1
		time_runs "scale.$s.cscope_qk" "$S" 3 "rm -f cscope.out cscope.in.out cscope.po.out" cscope -b -q -k
		record "scale.$s.cscope_qk.store_bytes" "$(bytes_of "$S" cscope.out cscope.in.out cscope.po.out)"
		args=(-n "kbx callers xstrdup" "$KBX callers xstrdup"
			-n "kbx callers die" "$KBX callers die"
			-n "kbx callees cmd_commit" "$KBX callees cmd_commit"
			-n "cscope -d -L3 xstrdup" "cscope -d -L3 xstrdup"
			-n "cscope -d -L3 die" "cscope -d -L3 die")
		case $s in (1m|2m)
			args+=(-n "kbx callers palloc" "$KBX callers palloc"
				-n "cscope -d -L3 palloc" "cscope -d -L3 palloc") ;;
		esac
		for n in xstrdup die palloc; do
			run_check "scale.$s.q.callers.$n.kbx" "$S" "$KBX" callers "$n"
		done
		hf "scale-$s-query" "$S" --warmup 3 --runs 20 "${args[@]}"
		hf "scale-$s-reindex" "$S" --warmup 1 --runs 7 \
			-n "kbx index (no change)" "$KBX index -q"
		hf "scale-$s-reindex-edit" "$S" --warmup 1 --runs 7 \
			--prepare "$here/edit-file.sh git/builtin/commit.c" \
			-n "kbx index (git/builtin/commit.c edited)" "$KBX index -q"
	done
fi

# ---------------------------------------------------------------------------
if has analytics; then
	. "$here/analytics.sh"
fi

# ---------------------------------------------------------------------------
if has hybrid; then
	say "hybrid: bench/hybrid.sh"
	BENCH_WORK=$WORK KBX=$KBX RES=$RES bash "$here/hybrid.sh" || warn "bench/hybrid.sh failed"
fi

# ---------------------------------------------------------------------------
if has search; then
	say "search: bench/search/run.sh (quality, latency, throughput)"
	BENCH_WORK=$WORK KBX=$KBX_ORIG bash "$here/search/run.sh" || warn "bench/search/run.sh failed"
fi

# ---------------------------------------------------------------------------
if has mcp; then
	say "mcp: bench/mcp.sh (kbx mcp against a process per question)"
	if out=$(KBX=$KBX_ORIG sh "$here/mcp.sh" "$QRUNS"); then
		{
			echo "# kbx mcp against a process per question"
			echo
			echo "bench/mcp.sh, $QRUNS runs each, on kbx's own tree (milliseconds):"
			echo
			echo '```'
			echo "$out"
			echo '```'
		} >"$RES/mcp.md"
	else
		warn "bench/mcp.sh failed"
	fi
fi

# ---------------------------------------------------------------------------
if has serve; then
	say "serve: bench/serve.sh (kbx serve under wrk while kbx index runs)"
	[ -f "$CORPORA/.complete" ] || BENCH_WORK=$WORK bash "$here/fetch-corpora.sh" ||
		die "fetching the corpora failed"
	if out=$(KBX=$KBX_ORIG sh "$here/serve.sh" "$CORPORA/git-c" 30 64); then
		{
			echo "# kbx serve under load"
			echo
			echo "bench/serve.sh: wrk, 64 connections, 30 s each, kbx index in a loop:"
			echo
			echo '```'
			echo "$out"
			echo '```'
		} >"$RES/serve.md"
	else
		warn "bench/serve.sh failed"
	fi
fi

# ---------------------------------------------------------------------------
if has context; then
	say "context: bench/context/run.sh (recall in a 2,000-token pack, latency)"
	if out=$(KBX=$KBX_ORIG sh "$here/context/run.sh" "$QRUNS"); then
		{
			echo "# kbx context on kbx's own tree"
			echo
			echo '```'
			echo "$out"
			echo '```'
		} >"$RES/context.md"
	else
		warn "bench/context/run.sh failed"
	fi
fi

# ---------------------------------------------------------------------------
if has languages; then
	say "languages: bench/languages.sh (one real project per language of issue 18)"
	if out=$(KBX=$KBX_ORIG RES=$WORK/languages bash "$here/languages.sh"); then
		{
			echo "# The languages of issue 18 on real projects"
			echo
			echo '```'
			echo "$out"
			echo '```'
		} >"$RES/languages.md"
	else
		warn "bench/languages.sh failed"
	fi
fi

# ---------------------------------------------------------------------------
if has org; then
	say "org: bench/org.sh (${ORG_N:-1000} repositories in PostgreSQL)"
	if KBX=$KBX_ORIG RES=$WORK/org bash "$here/org.sh" "$WORK/corpora/pystdlib"; then
		cp "$WORK/org/org.md" "$RES/org.md"
	else
		warn "bench/org.sh failed"
	fi
fi

# ---------------------------------------------------------------------------
if has accuracy; then
	say "accuracy: bench/accuracy/run.sh (call edges against compilers)"
	BENCH_WORK=$WORK KBX=$KBX EXPORT=$EXPORT RES=$RES bash "$here/accuracy/run.sh" ||
		warn "bench/accuracy/run.sh failed"
fi

# ---------------------------------------------------------------------------
record meta.load_end "$(cut -d' ' -f1-3 /proc/loadavg)"
record meta.runtime_s "$(($(date +%s) - start_s))"
record meta.sections "$SECTIONS"
say "writing bench/results.md"
$PY "$here/report.py" "$RES" "$here/results.md" || die "report.py failed"
info "done in $(($(date +%s) - start_s)) s: bench/results.md (raw data in $RES)"
if [ -s "$RES/warnings.txt" ]; then
	echo
	echo "warnings:"
	sed 's/^/    /' "$RES/warnings.txt"
fi
