#!/bin/bash
# test.sh: the oracle's sanity run
. ./lib.sh
outer
f=greet
$f w
for s in lib other; do . ./$s.sh; greet v; done
bash --norc -i <session.txt 2>/dev/null
