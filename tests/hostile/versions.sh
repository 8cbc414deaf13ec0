# versions.sh: helpers for the fault tests that index one version of a
# generated tree after another (make-tree.sh --touch) while readers
# query it.  Sourced by a test script, after test-lib.sh.

# tree_modules N: the first N modules of the tree, one a line
tree_modules () {
	awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "pkg/m%04d.py\n", i }'
}

# versions_in FILE: the version of each function vV_NNNN that FILE (ids
# separated by NUL bytes) names, one a line
versions_in () {
	tr '\0' '\n' <"$1" | sed -n 's/^pkg\/m[0-9]*\.py#v\([0-9]*\)_[0-9]*$/\1/p'
}

# one_version FILE COUNT: FILE names COUNT version functions, all of one
# version, and no other; prints that version
one_version () {
	versions_in "$1" >"$1.v" &&
	test $(wc -l <"$1.v") = "$2" &&
	sort -u "$1.v" >"$1.u" &&
	test $(wc -l <"$1.u") = 1 &&
	cat "$1.u"
}

# The graph query of the tree: the transitive callees of its first
# function name one version function a module rewritten (the first
# MODULES, 400 unless set)
read_graph () {
	kbx -C repo callees --transitive --format=nul pkg/m0000.py#f0000_00 >"$1.out" 2>"$1.err"
}
check_graph () {
	one_version "$1.out" ${MODULES:-400}
}

# reader_loop KIND NAME: query until writer.done appears, with the
# script's read_KIND NAME (the answer in NAME.out, stderr in NAME.err)
# and check_KIND NAME (prints the version answered).  A failure, a
# warning or a wrong answer is a line in NAME.bad, each version
# answered a line in NAME.seen, and the number of queries goes to
# NAME.count.
reader_loop () {
	n=0
	while ! test -f writer.done
	do
		n=$((n + 1))
		read_$1 "$2"
		rc=$?
		if test $rc != 0
		then
			echo "$1 query $n: exit $rc: $(cat "$2.err")" >>"$2.bad"
		elif test -s "$2.err"
		then
			echo "$1 query $n: a warning: $(cat "$2.err")" >>"$2.bad"
		elif ! check_$1 "$2" >>"$2.seen"
		then
			echo "$1 query $n: a mixed, partial or empty answer:" >>"$2.bad"
			versions_in "$2.out" | sort | uniq -c >>"$2.bad"
		fi
	done
	echo $n >"$2.count"
}

# writer_loop N: index versions 1 to N of the tree in repo, one after
# the other, each with the script's index_version V after its modules
# (the first MODULES, 400 unless set) are rewritten; writer.committed
# lists the versions committed, writer.bad says why the loop stopped,
# and writer.done is written at the end
writer_loop () {
	v=1
	while test $v -le $1
	do
		"$TEST_DIRECTORY"/hostile/make-tree.sh --touch repo $v \
			$(tree_modules ${MODULES:-400}) &&
		index_version $v ||
		{ echo "version $v: kbx index exited $?" >>writer.bad; break; }
		echo $v >>writer.committed
		v=$((v + 1))
	done
	: >writer.done
}

# readers_ok NAME...: no reader wrote a NAME.bad (the first lines of one
# go to the test's log), and every version they saw was committed
readers_ok () {
	test_path_is_missing writer.bad &&
	for r in "$@"
	do
		if test -f $r.bad
		then
			head -n 20 $r.bad >&4 &&
			return 1
		fi
	done &&
	sort -u writer.committed >committed
}
