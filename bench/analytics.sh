# bench/analytics.sh: the "analytics" section of bench/run.sh (sourced by
# it, with its helpers and variables: KBX, PY, RES, TREES, CORPORA,
# EXPORT, hf, run_check, record, ...).
#
# On the git tree: whole-process latency (hyperfine) of kbx impact of
# widely called functions, kbx path between functions far apart and
# kbx cycles over the whole graph, against the same questions asked of a
# pickled NetworkX DiGraph of the same edges (bench/nx_query.py impact:
# transitive predecessors; path: nx.shortest_path), and cscope -d -L3 as
# a one-hop reference for impact (cscope has no transitive query).
# Results: records analytics.* and hf/analytics-*.json in $RES.

say "analytics: kbx impact, path and cycles on the git tree, against networkx"
AG=$TREES/git-c
if [ ! -d "$AG/.kbx" ] || [ ! -f "$(data_file "$AG")" ]; then
	fresh_tree "$CORPORA/git-c" "$AG"
fi
"$KBX" -C "$AG" index -q || die "analytics: kbx index of $AG failed"
[ -n "$(grep '^analytics.tree.lines' "$RES/records.tsv" 2>/dev/null)" ] || tree_stats analytics.tree "$AG"

AEDGES=$WORK/git-edges.tsv
APICKLE=$WORK/git-graph.pickle
time_runs analytics.export "$AG" 1 "" "$EXPORT"
cp "$RES/out/analytics.export.stdout" "$AEDGES"
record analytics.nx.nodes "$(grep -c '^N' "$AEDGES")"
record analytics.nx.edges "$(grep -c '^E' "$AEDGES")"
time_runs analytics.nx_build "$AG" 1 "" $PY "$here/nx_build.py" "$AEDGES" "$APICKLE"
record analytics.nx.pickle_bytes "$(stat -c %s "$APICKLE")"

# cscope's database, for the one-hop reference (the C section builds it)
have_cscope=0
if command -v cscope >/dev/null 2>&1; then
	if [ ! -f "$AG/cscope.out" ]; then
		(cd "$AG" && find . -type f -name '*.[ch]' | sed 's|^\./||' | LC_ALL=C sort >cscope.files &&
			cscope -b -q -k) || warn "analytics: cscope -b -q -k failed in $AG"
	fi
	[ -f "$AG/cscope.out" ] && have_cscope=1
fi

wait_quiet analytics
ANALYTICS_IMPACT="strbuf_addf xstrdup oid_to_hex"
for n in $ANALYTICS_IMPACT; do
	run_check "analytics.impact.$n.kbx" "$AG" "$KBX" impact --format=json "$n"
	run_check "analytics.impact.$n.nx" "$AG" $PY "$here/nx_query.py" "$APICKLE" impact "$n"
	k=$(grep -c '"type":"\(changed\|affected\)"' "$RES/out/analytics.impact.$n.kbx.stdout")
	x=$(grep -c '^  ' "$RES/out/analytics.impact.$n.nx.stdout")
	record "analytics.impact.$n.agree" "kbx=$k nx=$x"
	info "impact $n: kbx $k nodes, networkx $x"
	args=(-n "kbx impact $n" "$KBX impact $n"
		-n "networkx impact $n" "$PY $here/nx_query.py $APICKLE impact $n")
	[ $have_cscope = 1 ] && args+=(-n "cscope -d -L3 $n (one hop)" "cscope -d -L3 $n")
	hf "analytics-impact-$n" "$AG" --warmup 5 --runs "$QRUNS" "${args[@]}"
done

ANALYTICS_PATHS="cmd_push:write_or_die cmd_log:zlib_post_call cmd_commit:git_inflate"
for q in $ANALYTICS_PATHS; do
	a=${q%%:*} b=${q#*:}
	run_check "analytics.path.$a.$b.kbx" "$AG" "$KBX" path --format=json "$a" "$b"
	run_check "analytics.path.$a.$b.nx" "$AG" $PY "$here/nx_query.py" "$APICKLE" path "$a" "$b"
	k=$(sed -n 's/.*"length":\([0-9]*\).*/\1/p' "$RES/out/analytics.path.$a.$b.kbx.stdout" | head -n 1)
	x=$(grep -c '^  ' "$RES/out/analytics.path.$a.$b.nx.stdout")
	record "analytics.path.$a.$b.agree" "kbx=${k:-none} nx=$x"
	info "path $a $b: kbx ${k:-no path}, networkx $x steps"
	hf "analytics-path-$a-$b" "$AG" --warmup 5 --runs "$QRUNS" \
		-n "kbx path $a $b" "$KBX path $a $b" \
		-n "kbx path --all $a $b" "$KBX path --all $a $b" \
		-n "networkx path $a $b" "$PY $here/nx_query.py $APICKLE path $a $b"
done

run_check analytics.cycles.kbx "$AG" "$KBX" cycles --format=json
record analytics.cycles.count "$(grep -c '"type":"cycle"' "$RES/out/analytics.cycles.kbx.stdout")"
record analytics.cycles.certain "$(grep -c '"confidence":"certain","component"' "$RES/out/analytics.cycles.kbx.stdout")"
info "cycles: $(grep '^analytics.cycles.count' "$RES/records.tsv" | cut -f2) ($(grep '^analytics.cycles.certain' "$RES/records.tsv" | cut -f2) certain)"
hf "analytics-cycles" "$AG" --warmup 3 --runs "$QRUNS" \
	-n "kbx cycles" "$KBX cycles" \
	-n "kbx cycles --certain" "$KBX cycles --certain"
