# bench/lib.sh: helpers of bench/run.sh (sourced; bash).
#
# Everything measured is written to $RES (bench/work/results/):
#   records.tsv   KEY <tab> VALUE            numbers and facts
#   cmds.tsv      KEY <tab> COMMAND          the exact command behind a key
#   hf/NAME.json  hyperfine's --export-json of one comparison
# bench/report.py turns them into bench/results.md.

say () { printf '\n==> %s\n' "$*"; }
info () { printf '    %s\n' "$*"; }
warn () { printf 'WARNING: %s\n' "$*" >&2; printf '%s\n' "$*" >>"$RES/warnings.txt"; }
die () { printf 'bench: fatal: %s\n' "$*" >&2; exit 2; }

record () { printf '%s\t%s\n' "$1" "$2" >>"$RES/records.tsv"; }
record_cmd () { printf '%s\t%s\n' "$1" "$2" >>"$RES/cmds.tsv"; }

# now_us: microseconds since the epoch
now_us () { local t; t=$(date +%s%N); echo $((t / 1000)); }

# median of the numbers given as arguments (integers or decimals)
median () { printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# tree_stats KEY DIR: files, lines and bytes of the source files in DIR
# (everything but the tools' stores, which are made later)
tree_stats () {
	local key=$1 dir=$2 files lines bytes
	files=$(cd "$dir" && find . -type f \( -name '*.[ch]' -o -name '*.py' \) | wc -l)
	lines=$(cd "$dir" && find . -type f \( -name '*.[ch]' -o -name '*.py' \) -print0 | xargs -0 cat | wc -l)
	bytes=$(cd "$dir" && find . -type f \( -name '*.[ch]' -o -name '*.py' \) -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
	record "$key.files" "$files"
	record "$key.lines" "$lines"
	record "$key.bytes" "$bytes"
	info "$(printf '%-12s %6d files %9d lines %6.1f MB' "$key" "$files" "$lines" "$(echo "$bytes / 1000000" | bc -l)")"
}

# bytes_of DIR FILE...: the sum of the sizes of the named files (apparent size)
bytes_of () {
	local dir=$1 f s=0 b
	shift
	for f in "$@"; do
		if [ -e "$dir/$f" ]; then
			b=$(du -sb "$dir/$f" | cut -f1)
			s=$((s + b))
		fi
	done
	echo "$s"
}

# store_files DIR: the data and lock files of the kbx store of DIR,
# relative to DIR: in the .kbx/db.N that .kbx/current names once a
# compaction has moved them there, else in .kbx
store_files () {
	local env=.kbx
	[ -f "$1/.kbx/current" ] && env=.kbx/$(cat "$1/.kbx/current")
	echo "$env/data.mdb $env/lock.mdb"
}

# data_file DIR: the first of store_files DIR, with DIR before it
data_file () {
	set -- "$1" $(store_files "$1")
	echo "$1/$2"
}

# time_runs KEY DIR RUNS PREP CMD...: run PREP (a shell string, in DIR),
# then CMD (in DIR) under /usr/bin/time, RUNS times; record the median
# wall time (ms, taken around the command with date +%s%N), the median and
# maximum peak RSS (KB, /usr/bin/time %M) and every run.
time_runs () {
	local key=$1 dir=$2 runs=$3 prep=$4 i t0 t1 rc
	shift 4
	local walls=() rsss=() cpus=() m u sy
	record_cmd "$key" "$*"
	[ -n "$prep" ] && record_cmd "$key.prep" "$prep"
	for ((i = 1; i <= runs; i++)); do
		(cd "$dir" && eval "$prep") || die "$key: preparation failed: $prep"
		pushd "$dir" >/dev/null
		t0=$(now_us)
		rc=0
		/usr/bin/time -f '%M %U %S' -o "$TMPD/rss" "$@" >"$TMPD/out" 2>"$TMPD/err" || rc=$?
		t1=$(now_us)
		popd >/dev/null
		if [ $rc -ne 0 ]; then
			warn "$key: '$*' in $dir exited with status $rc; stderr: $(head -c 2000 "$TMPD/err")"
			record "$key.exit" "$rc"
		fi
		walls+=("$(echo "($t1 - $t0) / 1000" | bc -l)")
		read -r m u sy <<<"$(tail -n 1 "$TMPD/rss")"
		rsss+=("$m")
		cpus+=("$(echo "($u + $sy) * 1000" | bc -l)")
	done
	local w r rmax
	w=$(median "${walls[@]}")
	r=$(median "${rsss[@]}")
	rmax=$(printf '%s\n' "${rsss[@]}" | sort -n | tail -n 1)
	record "$key.wall_ms" "$w"
	record "$key.wall_runs" "$(printf '%.0f ' "${walls[@]}")"
	record "$key.wall_min_ms" "$(printf '%s\n' "${walls[@]}" | sort -g | head -n 1)"
	record "$key.cpu_ms" "$(median "${cpus[@]}")"
	record "$key.rss_kb" "$r"
	record "$key.rss_max_kb" "$rmax"
	info "$(printf '%-28s median %9.1f ms  (runs: %s)  CPU %7.0f ms  peak RSS %7.1f MB' "$key" "$w" "$(printf '%.0f ' "${walls[@]}")" "$(median "${cpus[@]}")" "$(echo "$r / 1024" | bc -l)")"
	cp "$TMPD/out" "$RES/out/$key.stdout" 2>/dev/null || true
	cp "$TMPD/err" "$RES/out/$key.stderr" 2>/dev/null || true
}

# hf NAME DIR HYPERFINE-ARGS...: run hyperfine in DIR without a shell (-N),
# exporting to $RES/hf/NAME.json.  Commands that exit non-zero are still
# timed (-i); run_check records their exit status separately.
hf () {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && hyperfine -N -i --style basic --time-unit millisecond \
		--export-json "$RES/hf/$name.json" "$@") >"$RES/out/hf-$name.log" 2>&1 ||
		{ cat "$RES/out/hf-$name.log" >&2; die "hyperfine failed for $name"; }
	# print the summary lines (name, time) only
	awk '/^Benchmark/ { b = $0 } /Time \(/ { print "    " b; print "    " $0 }' "$RES/out/hf-$name.log"
	record_cmd "hf.$name" "cd $dir && hyperfine -N -i --style basic --time-unit millisecond $(shquote "$@")"
}

# shquote ARG...: the arguments as one shell-readable line
shquote () {
	local a out=
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./=:,+@%-]+$ ]]; then
			out+="$a "
		else
			out+="'${a//\'/\'\\\'\'}' "
		fi
	done
	printf '%s' "${out% }"
}

# run_check KEY DIR CMD...: run CMD once in DIR, keep its output in
# $RES/out/KEY.stdout, record its exit status and number of output lines.
run_check () {
	local key=$1 dir=$2 rc=0
	shift 2
	(cd "$dir" && "$@") >"$RES/out/$key.stdout" 2>"$RES/out/$key.stderr" || rc=$?
	record "$key.exit" "$rc"
	record "$key.lines" "$(wc -l <"$RES/out/$key.stdout")"
	record_cmd "$key" "$*"
	if [ $rc -gt 1 ]; then
		warn "$key: '$*' in $dir exited with status $rc: $(head -c 1000 "$RES/out/$key.stderr")"
	fi
	return 0
}

# fresh_tree SRC DST: DST becomes a copy of SRC (the corpora stay pristine)
fresh_tree () {
	rm -rf "$2"
	mkdir -p "$(dirname "$2")"
	cp -a "$1" "$2"
	# kbx finds its store like git finds .git: an empty .kbx makes DST the
	# root of its own index instead of the enclosing kbx work tree.
	mkdir "$2/.kbx"
}

# cpu_busy_pct: how busy the CPUs were over the last second, in percent
# of all cores (from /proc/stat: 100 - idle - iowait)
cpu_busy_pct () {
	local a b
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
	sleep 1
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $5 + $6 }' /proc/stat)
	echo "$a $b" | awk '{ t = $3 - $1; i = $4 - $2; print (t > 0 ? int(100 * (t - i) / t + 0.5) : 0) }'
}

# wait_quiet LABEL: before timing, wait (up to BENCH_QUIET_WAIT s, default
# 30) until the CPUs are nearly idle (under 10% busy over a second).
# Other people's builds on a 2-core machine make wall times noisy; the
# load seen is recorded either way, and so is the CPU time of each index.
wait_quiet () {
	local label=$1 limit=${BENCH_QUIET_WAIT:-15} waited=0 busy
	while :; do
		busy=$(cpu_busy_pct)
		[ "$busy" -lt 10 ] && break
		if [ $waited -ge "$limit" ]; then
			warn "$label: the CPUs stayed busy (${busy}% over the last second) for ${limit}s; measuring anyway"
			break
		fi
		[ $waited -eq 0 ] && info "the CPUs are ${busy}% busy with other work: waiting up to ${limit}s"
		waited=$((waited + 1))
	done
	record "load.$label" "loadavg $(cut -d' ' -f1-3 /proc/loadavg); CPUs ${busy}% busy when started; waited ${waited}s"
}

# build_export OUT LIBDIR: build bench/kbx-export.c, a small C program on
# kbx's public API (lib/kbx.h), into OUT, linked like ./kbx against
# LIBDIR/libkbx.a and LIBDIR/libkbx-grammars.a
build_export () {
	local out=$1 libdir=$2 libs top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	libs=$(sed -n 's/^\(TS\|LMDB\|YAML\|CMARK\|PCRE2\|XXHASH\)_LIBS *= *//p' "$top/config.mk" 2>/dev/null | tr '\n' ' ')
	[ -n "$libs" ] || libs="-llmdb -lyaml -lcmark -lpcre2-8 -lxxhash"
	${CC:-cc} -O2 -I"$top/lib" -o "$out" "$top/bench/kbx-export.c" \
		"$libdir/libkbx.a" "$libdir/libkbx-grammars.a" $libs -ldl -lpthread
}

# install_missing PACKAGE...: apt-get install the Debian packages named
# (the tools a section found missing) when BENCH_INSTALL=1, else stop
# with the command that would
install_missing () {
	[ $# -gt 0 ] || return 0
	if [ "${BENCH_INSTALL:-0}" = 1 ]; then
		apt-get install -y "$@" || die "apt-get install $* failed"
	else
		die "missing: $*; install them with: apt-get install $* (or run with BENCH_INSTALL=1)"
	fi
}
