#!/bin/sh
#
# bench/serve.sh: kbx serve under load while the index is rebuilt.
#
#   sh bench/serve.sh TREE [SECONDS] [CONNECTIONS]
#
# Copies TREE (git's C sources in make bench) into a scratch directory,
# indexes it, starts kbx serve on a free loopback port and, while a loop
# in another process edits a file and runs kbx index again and again,
# runs wrk against POST /v1/search and then POST /v1/callers for SECONDS
# (default 30) with CONNECTIONS connections (default 64).  Prints, for
# each: requests per second, the 50th and 99th percentile latency, the
# errors (sockets, timeouts, answers other than 200) and how many times
# the index was rebuilt meanwhile.  Needs wrk (Debian's wrk).

set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 2
root=$(cd "$here/.." && pwd) || exit 2
tree=${1:?usage: bench/serve.sh TREE [SECONDS] [CONNECTIONS]}
secs=${2:-30}
conns=${3:-64}
KBX=${KBX:-$root/kbx}
command -v wrk >/dev/null 2>&1 || { echo "bench/serve.sh: wrk is not installed" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbx-serve-bench.XXXXXX") || exit 2
server= looper=
cleanup () {
	test -z "$looper" || kill "$looper" 2>/dev/null
	test -z "$server" || kill "$server" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 2' INT TERM
# a scratch home: the bench registers nothing in the user's list
HOME=$tmp
export HOME

cp -R "$tree" "$tmp/tree" || exit 2
(cd "$tmp/tree" && "$KBX" index -q) || exit 2

(cd "$tmp/tree" && exec "$KBX" serve --listen=127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err") &
server=$!
i=0
until grep -q listening "$tmp/serve.out" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 "$server" 2>/dev/null; then
		cat "$tmp/serve.err" >&2
		exit 2
	fi
	sleep 0.1
done
url=$(sed -n 's|^kbx serve: listening on \(http://[^ ]*\)/$|\1|p' "$tmp/serve.out")

# kbx index in a loop, each time over a changed file, counting its runs
victim=$(cd "$tmp/tree" && ls *.c | head -n 1)
(
	cd "$tmp/tree" || exit 2
	n=0
	while :; do
		n=$((n + 1))
		echo "/* edit $n */" >>"$victim"
		"$KBX" index -q >/dev/null 2>&1 || echo "index failed: $?" >>"$tmp/index.err"
		echo $n >"$tmp/index.count"
	done
) &
looper=$!

run () {
	name=$1 body=$2
	cat >"$tmp/post.lua" <<-LUA
	wrk.method = "POST"
	wrk.body = '$body'
	wrk.headers["Content-Type"] = "application/json"
	LUA
	before=$(cat "$tmp/index.count" 2>/dev/null || echo 0)
	wrk -t2 -c"$conns" -d"${secs}s" --timeout 10s --latency -s "$tmp/post.lua" \
		"$url/v1/$name" >"$tmp/wrk.$name" 2>&1 || { cat "$tmp/wrk.$name" >&2; return 1; }
	after=$(cat "$tmp/index.count" 2>/dev/null || echo 0)
	awk -v name="$name" -v idx=$((after - before)) '
		/Requests\/sec:/ { rps = $2 }
		/^ +50%/ { p50 = $2 }
		/^ +99%/ { p99 = $2 }
		/requests in/ { total = $1 }
		/Socket errors:/ { for (i = 3; i <= NF; i++) if ($i ~ /^[0-9]+,?$/) { sub(",", "", $i); sock += $i } }
		/Non-2xx or 3xx responses:/ { non2xx = $NF }
		END {
			printf "%-8s %8s req/s  p50 %8s  p99 %8s  %7d requests  errors %d (socket %d, non-2xx %d)  index runs %d\n",
				name, rps, p50, p99, total, sock + non2xx, sock, non2xx, idx
		}' "$tmp/wrk.$name"
}

echo "kbx serve, $conns connections, ${secs}s each, kbx index in a loop on $(basename "$tree") ($(find "$tmp/tree" -type f | wc -l) files)"
run search '{"query":"append a formatted string to a buffer","limit":10}' || exit 1
run callers '{"symbol":"strbuf_addf","depth":1}' || exit 1
test ! -s "$tmp/index.err" || { echo "kbx index failed meanwhile:"; sort "$tmp/index.err" | uniq -c; }
