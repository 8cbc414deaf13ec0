#!/bin/sh
# make-tree.sh DIR NPY NC: write a generated repository for the fault
# tests: NPY Python modules and NC C files whose functions call each
# other in one long chain, so that 'callees --transitive' from the first
# function (pkg/m0000.py#f0000_00) reaches every function, and a few
# classes inherit across modules.  Deterministic: the same arguments give
# the same tree.  Needs only sh and awk.
#
# make-tree.sh --touch DIR VERSION FILE...: rewrite the listed modules
# (pkg/mNNNN.py) as of VERSION: each gains a function vVERSION_NNNN that
# the module's first function now calls, so the graph changes.
set -e
if test "$1" = --touch
then
	dir=$2 version=$3
	shift 3
	awk -v dir="$dir" -v v="$version" -v list="$*" -f "$(dirname "$0")/tree.awk"
	exit 0
fi
dir=$1 npy=$2 nc=$3
mkdir -p "$dir/pkg" "$dir/csrc"
: >"$dir/pkg/__init__.py"
awk -v dir="$dir" -v npy="$npy" -v nc="$nc" -f "$(dirname "$0")/tree.awk"
