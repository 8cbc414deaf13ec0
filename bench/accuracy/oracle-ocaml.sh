#!/bin/sh
#
# bench/accuracy/oracle-ocaml.sh: the OCaml oracle, run in the project's
# root by run.sh.
#
#   oracle-ocaml.sh SRCDIR ORACLE.ml
#
# Compiles every .mli and .ml of SRCDIR (relative to the current
# directory), in the order `ocamldep -sort` gives, with Debian's ocamlc
# -bin-annot, as one library whose modules are the files (a dune-wrapped
# library is compiled unwrapped: its modules name each other the same
# way), then builds ORACLE.ml (oracle-ocaml.ml, on compiler-libs) and
# runs it over the .cmt files: the call sites on stdout.  Everything it
# writes is under a temporary directory, removed at the end, so that the
# tree kbx indexes holds only the project's sources.

set -eu
src=$1 ml=$2
b=$(mktemp -d)
trap 'rm -rf "$b"' EXIT
mkdir "$b/cmt" "$b/oracle"
cp "$ml" "$b/oracle/oracle_ocaml.ml"
ocamlc -I +compiler-libs ocamlcommon.cma -o "$b/oracle/oracle" "$b/oracle/oracle_ocaml.ml" >&2
files=$(cd "$src" && ocamldep -sort *.mli *.ml)
for f in $files; do
	# the path the sites are written with: lib/a.ml, or a.ml for "."
	case $src in (.) p=$f ;; (*) p=$src/$f ;; esac
	ocamlc -bin-annot -I "$b/cmt" -c -o "$b/cmt/${f%.*}" "$p" >&2
done
"$b/oracle/oracle" "$b/cmt/"*.cmt
