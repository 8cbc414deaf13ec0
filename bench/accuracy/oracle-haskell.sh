#!/bin/sh
#
# bench/accuracy/oracle-haskell.sh: the Haskell oracle, run in the
# project's root by run.sh.
#
#   oracle-haskell.sh ORACLE.hs MODULE...
#
# Compiles the project's modules (MODULE..., found from the current
# directory) with Debian's ghc --make -fwrite-ide-info (no code
# optimisation, no linking), then builds ORACLE.hs (oracle-haskell.hs, on
# the ghc library package) and runs it over the .hie files: the call
# sites on stdout.  Everything it writes is under a temporary directory,
# removed at the end, so that the tree kbx indexes holds only the
# project's sources.

set -eu
hs=$1
shift
b=$(mktemp -d)
trap 'rm -rf "$b"' EXIT
mkdir "$b/oracle"
cp "$hs" "$b/oracle/Main.hs"
ghc -v0 -O0 -package ghc -outputdir "$b/oracle" -o "$b/oracle/oracle" "$b/oracle/Main.hs" >&2
# the project as its .cabal builds it: Haskell2010, the package
# environment of Debian's ghc (the libghc-*-dev packages installed)
ghc -v0 --make -O0 -no-link -XHaskell2010 -i. -fwrite-ide-info -hiedir "$b/hie" \
	-odir "$b/o" -hidir "$b/hi" "$@" >&2
"$b/oracle/oracle" $(find "$b/hie" -name '*.hie' | LC_ALL=C sort)
