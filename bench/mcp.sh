#!/bin/sh
#
# bench/mcp.sh: what kbx mcp costs and saves against running kbx once per
# question.  On kbx's own source tree, indexed into a scratch store:
#
#   first answer   from starting a fresh kbx mcp to the answer of its
#                  first tools/call (initialize included)
#   per call       each later tools/call of the same server, in turn
#   whole process  kbx <command> --format=json as a new process each time
#
# for defs (one lookup), callers (a walk with many answers) and
# search (BM25 and vectors), and prints
# the median and mean of each in milliseconds.  Run from the top of the
# source tree after 'make', when the machine is quiet:
#
#   sh bench/mcp.sh [runs]        (default 50 runs each)

set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 2
root=$(cd "$here/.." && pwd) || exit 2
runs=${1:-50}
KBX=${KBX:-$root/kbx}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbx-mcp-bench.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# a scratch home: the bench registers nothing in the user's list
HOME=$tmp
export HOME

cd "$root" || exit 2
"$KBX" --kbx-dir="$tmp/store" index -q || exit 2

python3 - "$KBX" "$tmp/store" "$runs" <<'PY'
import json, statistics, subprocess, sys, time

kbx, store, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
queries = {
    "defs": {"symbol": "kbx_json_parse"},
    "callers": {"symbol": "strbuf_addstr"},
    "search": {"query": "escape control characters before printing"},
}

def argv(tool, args):
    op = args.get("symbol") or args.get("query")
    return [kbx, "--kbx-dir=" + store, tool, "--format=json", "--", op]

def server():
    return subprocess.Popen([kbx, "--kbx-dir=" + store, "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)

def ask(p, i, method, params):
    p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                               "params": params}) + "\n").encode())
    p.stdin.flush()
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == i:
            assert "error" not in m and not m["result"].get("isError"), m
            return m

def stats(xs):
    return "median %7.2f ms  mean %7.2f ms" % (statistics.median(xs) * 1e3,
                                                 statistics.mean(xs) * 1e3)

init = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"}}
# the floor: a process that only starts (kbx --version), and a protocol
# round trip that runs nothing (ping)
p = server()
ask(p, 0, "initialize", init)
floor_run, floor_ping = [], []
for r in range(runs):
    t0 = time.perf_counter()
    subprocess.run([kbx, "--version"], stdout=subprocess.DEVNULL, check=True)
    floor_run.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    ask(p, 100000 + r, "ping", {})
    floor_ping.append(time.perf_counter() - t0)
print("%-8s start only     %s" % ("version", stats(floor_run)))
print("%-8s round trip     %s" % ("ping", stats(floor_ping)))
for tool, args in queries.items():
    call = {"name": tool, "arguments": args}
    first, per, whole = [], [], []
    for r in range(max(5, runs // 5)):
        t0 = time.perf_counter()
        q = server()
        ask(q, 0, "initialize", init)
        ask(q, 1, "tools/call", call)
        first.append(time.perf_counter() - t0)
        q.stdin.close(); q.wait()
    # a call of the server and a whole process in turn, so that what
    # else the machine does weighs on both alike
    for r in range(runs):
        t0 = time.perf_counter()
        ask(p, r + 2, "tools/call", call)
        per.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        subprocess.run(argv(tool, args), stdout=subprocess.DEVNULL, check=True)
        whole.append(time.perf_counter() - t0)
    print("%-8s first answer   %s" % (tool, stats(first)))
    print("%-8s per call       %s" % (tool, stats(per)))
    print("%-8s whole process  %s" % (tool, stats(whole)))
p.stdin.close(); p.wait()
PY
