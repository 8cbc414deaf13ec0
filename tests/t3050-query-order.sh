#!/bin/sh
test_description='graph queries answer in the same order whatever the store'"'"'s history

Node ids are handed out as files are indexed, so a store that was built
up by incremental runs numbers its nodes differently from a fresh index
of the same tree.  The order of query results must not show it: every
level of a walk is ordered by the place of the node it reaches (path,
line, column, canonical id), and a node reached twice is reported with
the edge from the first neighbour in that order.

A tree of Python and C files is indexed, then files are removed and put
back and others rewritten in several incremental runs, which gives their
definitions new ids in another order.  Every query, in every format, must
then print byte for byte what it prints from a fresh "kbx index
--rebuild" of the same tree in another store: nothing is sorted here.'

. "$(dirname "$0")"/test-lib.sh

# write_py NAME: a module whose functions call helpers of util.py, one of
# its own and the process() that every module defines (an ambiguous name)
write_py () {
	cat >"repo/$1.py" <<-EOF
	from util import helper, Base
	import util


	class ${1}_Widget(Base):
	    def run(self):
	        return helper(2) + self.tick()

	    def tick(self):
	        return util.count(3)


	def process(x):
	    return helper(x)


	def ${1}_one():
	    return helper(1) + util.count(1)


	def ${1}_two():
	    return ${1}_one() + process(2) + shared_name(3)


	def shared_name(v):
	    return v
	EOF
}

# write_c NAME: a file with a static function every C file has, and
# calls to lib.c and to a function two files define
write_c () {
	cat >"repo/$1.c" <<-EOF
	#include <stdio.h>
	#include "lib.h"

	static int local(int v)
	{
		return count(v);
	}

	int dup(int v)
	{
		return local(v);
	}

	int ${1}_main(void)
	{
		fail("x");
		printf("%d\n", local(1) + dup(2) + count(3));
		return 0;
	}
	EOF
}

test_expect_success 'setup: a tree indexed, then changed in several incremental runs' '
	git init -q repo &&
	cat >repo/util.py <<-\EOF &&
	class Base:
	    def run(self):
	        return helper(0)


	def helper(x):
	    return count(x)


	def count(x):
	    return x
	EOF
	cat >repo/lib.h <<-\EOF &&
	void fail(const char *msg);
	int count(int v);
	EOF
	cat >repo/lib.c <<-\EOF &&
	#include <stdlib.h>
	#include "lib.h"

	void fail(const char *msg)
	{
		(void)msg;
		exit(1);
	}

	int count(int v)
	{
		return v + 1;
	}
	EOF
	cat >repo/user.py <<-\EOF &&
	def use_all(obj):
	    return process(1) + obj.tick() + shared_name(2)


	def again(obj):
	    return obj.run()
	EOF
	cat >repo/user.c <<-\EOF &&
	int dup(int v);

	int user_main(void)
	{
		return dup(1) + count(2);
	}
	EOF
	for m in alpha mid zeta
	do
		write_py $m &&
		write_c $m || return 1
	done &&
	kbx -C repo index -q &&

	mkdir away &&
	mv repo/alpha.py repo/alpha.c repo/mid.c away/ &&
	kbx -C repo index -q &&
	mv away/mid.c repo/ &&
	echo "# changed" >>repo/zeta.py &&
	kbx -C repo index -q &&
	mv away/alpha.py away/alpha.c repo/ &&
	echo "/* changed */" >>repo/lib.c &&
	kbx -C repo index -q &&
	kbx --kbx-dir="$PWD/fresh-store" -C repo index --rebuild -q
'

# the queries; run_queries DIR prints each to its own file in DIR
queries='
callers helper
callers --transitive count
callers --depth=2 --format=json count
callers --format=grep fail
callers dup
callers local
callers --format=json shared_name
callers --transitive --format=grep process
callees --transitive alpha_two
callees --format=json zeta_main
callees --transitive --format=grep util.py#Base.run
imports --format=json alpha.py
importers util.py
importers --format=json util.py
callers tick
callers --transitive --format=json run
importers lib.h
subclasses --transitive Base
superclasses --format=json mid_Widget
defines util.py
defines --transitive --format=json alpha.py
defines --format=nul zeta.c
defs dup
defs --format=json process
impact count
impact --format=json helper fail
impact --format=grep lib.c
'

run_queries () {
	mkdir "$1" &&
	i=0 &&
	while read -r q
	do
		test -n "$q" || continue
		i=$((i + 1)) &&
		echo "kbx $q" >"$1/$i.cmd" &&
		kbx -C repo $q --color=never >"$1/$i.out" 2>"$1/$i.err" &&
		test -s "$1/$i.out" || {
			echo "kbx $q failed or printed nothing" >&4
			return 1
		}
	done <<-EOF
	$queries
	EOF
}

test_expect_success 'the two stores hold the same graph' '
	kbx -C repo status --format=json >inc.status &&
	kbx -C repo --kbx-dir="$PWD/fresh-store" status --format=json >fresh.status &&
	for f in files symbols externals modules edges
	do
		sed -n "s/.*\"$f\":\([0-9]*\).*/\1/p" inc.status >inc.n &&
		sed -n "s/.*\"$f\":\([0-9]*\).*/\1/p" fresh.status >fresh.n &&
		test -s inc.n &&
		test_cmp fresh.n inc.n || return 1
	done
'

test_expect_success 'every query prints the same bytes from both stores' '
	run_queries incremental &&
	(KBX_DIR="$PWD/fresh-store" && export KBX_DIR && run_queries fresh) &&
	for cmd in incremental/*.cmd
	do
		n=${cmd%.cmd} &&
		n=${n#incremental/} &&
		test_cmp fresh/$n.out incremental/$n.out &&
		test_cmp fresh/$n.err incremental/$n.err || {
			cat "$cmd" >&4
			return 1
		}
	done
'

test_expect_success 'a level is ordered by path, line and column' '
	kbx -C repo callers --format=grep helper >out &&
	cat >expect <<-\EOF &&
	alpha.py:7:16: alpha_Widget.run calls helper
	alpha.py:14:12: process calls helper
	alpha.py:18:12: alpha_one calls helper
	mid.py:7:16: mid_Widget.run calls helper
	mid.py:14:12: process calls helper
	mid.py:18:12: mid_one calls helper
	util.py:3:16: Base.run calls helper
	zeta.py:7:16: zeta_Widget.run calls helper
	zeta.py:14:12: process calls helper
	zeta.py:18:12: zeta_one calls helper
	EOF
	test_cmp expect out
'

test_expect_success 'a transitive walk keeps its levels: depth 1 before depth 2' '
	kbx -C repo callers --transitive --format=json util.py#count >out &&
	sed -n "s/.*\"depth\":\([0-9]*\).*/\1/p" out >depths &&
	sort -n depths >sorted &&
	test_cmp sorted depths &&
	grep -c "^2$" depths >n2 &&
	test "$(cat n2)" -gt 0
'

test_done
