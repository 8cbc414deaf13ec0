#!/bin/sh
#
# bench/startup.sh: what linking FAISS costs every process at start-up,
# and what the dlopen()ed vector module costs the commands that need it.
#
# Measures with hyperfine, without a shell in between (-N):
#
#   trivial C       int main(void) { return 0; }
#   C + FAISS libs  the same, linked with FAISS_LIBS (faiss, openblas,
#                   gomp, stdc++) kept even when unused (--no-as-needed),
#                   as the kbx binary would be if it linked them
#   kbx --version   the real binary, when ./kbx exists
#   dlopen module   a C program that loads build/kbx-vector.so through
#                   _kbx_vector_load() (lib/search/vecmod.c), as a vector
#                   command does before its first search
#
# and prints the mean (and median) of each in milliseconds and its ratio
# to the trivial program's.  The figures are only as quiet as the machine:
# run it when nothing else is.  Run from the top of the source tree after 'make':
#
#   sh bench/startup.sh [runs]        (default 300 runs each)
#
# Environment: CC, FAISS_LIBS (default from config.mk, else the Debian
# line), KBX_MODULE_PATH (default build/kbx-vector.so).

set -u

here=$(cd "$(dirname "$0")" && pwd) || exit 2
root=$(cd "$here/.." && pwd) || exit 2
runs=${1:-300}
CC=${CC:-cc}

die () {
	echo "fatal: $*" >&2
	exit 2
}

command -v hyperfine >/dev/null 2>&1 ||
	die "hyperfine is not installed (Debian: apt-get install hyperfine)"

if test -z "${FAISS_LIBS:-}" && test -f "$root/config.mk"; then
	FAISS_LIBS=$(sed -n 's/^FAISS_LIBS *= *//p' "$root/config.mk")
fi
FAISS_LIBS=${FAISS_LIBS:--lfaiss -lopenblas -lgomp -lstdc++ -lm}
module=${KBX_MODULE_PATH:-$root/build/kbx-vector.so}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbx-startup.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
trap 'exit 2' HUP INT TERM

cat >"$tmp/trivial.c" <<'EOF'
int main(void) { return 0; }
EOF

cat >"$tmp/load.c" <<'EOF'
#include <stdio.h>
#include "vecmod.h"

int main(void)
{
	const struct kbx_vector_ops *ops;
	char err[1024];

	if (_kbx_vector_load(&ops, err, sizeof(err))) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	return 0;
}
EOF

$CC -O2 -o "$tmp/trivial" "$tmp/trivial.c" || die "cannot compile a trivial C program"
# shellcheck disable=SC2086 # FAISS_LIBS is a list of flags
$CC -O2 -o "$tmp/linked" "$tmp/trivial.c" -Wl,--no-as-needed $FAISS_LIBS ||
	die "cannot link against $FAISS_LIBS"
$CC -O2 -I"$root/lib" -o "$tmp/load" "$tmp/load.c" "$root/lib/search/vecmod.c" -ldl -lpthread ||
	die "cannot compile the module loader"

set -- trivial "$tmp/trivial" linked "$tmp/linked"
if test -x "$root/kbx"; then
	set -- "$@" kbx "$root/kbx --version"
fi
if test -f "$module" && KBX_MODULE_PATH=$module "$tmp/load"; then
	set -- "$@" dlopen "$tmp/load"
else
	echo "warning: no loadable vector module at '$module'; build it with 'make'" >&2
fi

names=
i=0
while test $# -gt 0; do
	i=$((i + 1))
	names="$names $1"
	echo "$2" >"$tmp/cmd$i"
	shift 2
done

export KBX_MODULE_PATH="$module"
set --
j=0
for n in $names; do
	j=$((j + 1))
	set -- "$@" -n "$n" "$(cat "$tmp/cmd$j")"
done
hyperfine -N --style none --warmup 20 --runs "$runs" \
	--export-csv "$tmp/out.csv" "$@" >/dev/null 2>"$tmp/hyperfine.err" || {
	cat "$tmp/hyperfine.err" >&2
	die "hyperfine failed"
}

# command,mean,stddev,median,user,system,min,max (seconds)
awk -F, -v runs="$runs" '
	NR == 1 { next }
	{
		name[NR] = $1; mean[NR] = $2 * 1000; sd[NR] = $3 * 1000; med[NR] = $4 * 1000
		if (!base) { base = mean[NR]; mbase = med[NR] }
		last = NR
	}
	END {
		printf "%-32s %8s %8s %6s %8s %6s\n", "start-up, " runs " runs", "mean ms", "+/- ms",
			"ratio", "median", "ratio"
		label["trivial"] = "trivial C program"
		label["linked"] = "C + faiss/openblas/gomp/stdc++"
		label["kbx"] = "kbx --version"
		label["dlopen"] = "C + dlopen(kbx-vector.so)"
		for (i = 2; i <= last; i++)
			printf "%-32s %8.2f %8.2f %5.1fx %8.2f %5.1fx\n", \
				(name[i] in label ? label[name[i]] : name[i]), mean[i], sd[i], \
				mean[i] / base, med[i], med[i] / mbase
	}' "$tmp/out.csv"
