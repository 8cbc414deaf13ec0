#!/bin/sh
test_description='kbx index --watch: the index follows the files as they are saved

A watcher runs in the background while files are edited, added, deleted
and renamed in the ways editors do it; after each change the queries are
polled (every 0.1 s, for at most 10 s) until they show it.  Then the
watcher is stopped with a signal and must exit 0.'

. "$(dirname "$0")"/test-lib.sh

test_lazy_prereq INOTIFY '
	test -r /proc/sys/fs/inotify/max_user_watches
'
if ! test_have_prereq INOTIFY
then
	skip_all='no inotify on this system'
	test_expect_success 'no watcher is left behind' '
	if test -n "$watch_pid"
	then
		kill $watch_pid
	fi
'

test_done
fi

# start_watch [OPTIONS...]: start "kbx index --watch OPTIONS" in repo/,
# in the background, its output in watch.out and watch.err, and wait
# until it watches (or has failed).  A timeout ends it if this script
# never does.  The last watcher's output goes first: the poll must not
# read its "watching" before the new one's redirection empties the file.
start_watch () {
	rm -f watch.out watch.err
	(cd repo && exec timeout 120 kbx index --watch "$@" \
		</dev/null >../watch.out 2>../watch.err 3>&- 4>&- 5>&- 6>&-) &
	watch_pid=$!
	poll 'test_grep_quiet "^watching " watch.err || ! kill -0 $watch_pid'
}

# stop_watch SIGNAL: send it, and wait for the exit status in watch.code.
stop_watch () {
	kill -s "$1" $watch_pid &&
	wait $watch_pid
	echo $? >watch.code
	watch_pid=
}

# stop_watch_often SIGNAL: send it to kbx itself (started by
# start_bare_watch), again and again until it is gone or 100000 times,
# and wait for the exit status in watch.code.
stop_watch_often () {
	n=0
	while kill -s "$1" $watch_pid 2>/dev/null && test $n -lt 100000
	do
		n=$((n + 1))
	done
	kill -s KILL $watch_pid 2>/dev/null
	wait $watch_pid
	echo $? >watch.code
	watch_pid=
}

# start_bare_watch: start_watch without timeout(1) between us and kbx.
start_bare_watch () {
	rm -f watch.out watch.err
	(cd repo && exec kbx index --watch \
		</dev/null >../watch.out 2>../watch.err 3>&- 4>&- 5>&- 6>&-) &
	watch_pid=$!
	poll 'test_grep_quiet "^watching " watch.err || ! kill -0 $watch_pid'
}

# start_quiet_watch [OPTIONS...]: start_watch for a watcher that says
# nothing: wait until the process runs.
start_quiet_watch () {
	rm -f watch.out watch.err
	(cd repo && exec timeout 120 kbx index --watch "$@" \
		</dev/null >../watch.out 2>../watch.err 3>&- 4>&- 5>&- 6>&-) &
	watch_pid=$!
}

test_grep_quiet () {
	grep "$@" >/dev/null 2>&1
}

# poll 'COMMANDS': run them every 0.1 s until they succeed, for at most
# 10 s; fail (saying what was waited for) if they never do.
poll () {
	poll_n=0
	until eval "$1"
	do
		poll_n=$((poll_n + 1))
		if test $poll_n -ge 100
		then
			echo "error: waited 10 s in vain for: $1" >&4
			return 1
		fi
		sleep 0.1
	done
}

# defs_json NAME: the JSON records of kbx defs NAME in repo/ (into
# defs.json; empty when there is none).  kbx must not crash.
defs_json () {
	(cd repo && test_might_fail kbx defs --format=json "$1" >../defs.json 2>/dev/null)
}

# has_def NAME PATH: NAME is defined in PATH, by the index.
has_def () {
	defs_json "$1" && test_grep_quiet "\"path\":\"$2\"" defs.json
}

# no_def NAME: the index knows no definition of NAME.
no_def () {
	defs_json "$1" && ! test -s defs.json
}

# no_def_at NAME PATH: the index has no definition of NAME in PATH.
no_def_at () {
	defs_json "$1" && ! test_grep_quiet "\"path\":\"$2\"" defs.json
}

# calls CALLER CALLEE: the index has a call from CALLER to CALLEE.
calls () {
	(cd repo && test_might_fail kbx callers --format=json "$2" >../callers.json 2>/dev/null) &&
	test_grep_quiet "\"name\":\"$1\"" callers.json
}

# runs: how many update lines the watcher has printed.
runs () {
	grep -c "^[0-2][0-9]:[0-5][0-9]:[0-6][0-9] " watch.err
}

# json_runs N: the watcher has printed N JSON records.
json_runs () {
	test "$(grep -c "^{\"type\":\"index\"" watch.out)" = "$1"
}

# write_quiet: (re)write quiet.py, until a watcher that cannot say when
# it is ready sees it.
write_quiet () {
	printf "def quiet():\n    pass\n" >repo/quiet.py
}

test_expect_success 'setup: a repository with an ignored directory' '
	mkdir -p repo/sub repo/build &&
	printf "def f():\n    g()\n\ndef g():\n    return 1\n" >repo/a.py &&
	printf "def s():\n    return 2\n" >repo/sub/s.py &&
	printf "build/\n*.gen.py\n" >repo/.gitignore &&
	(cd repo && kbx index -q)
'

test_expect_success '--watch takes no path' '
	(cd repo && test_expect_code 2 kbx index --watch a.py 2>../err) &&
	test_grep "takes no path" err
'

test_expect_success 'the watcher starts: an update, then the directories it watches' '
	start_watch &&
	kill -0 $watch_pid &&
	test_grep "^indexed 2 files" watch.err &&
	test_grep "^watching 2 directories for changes" watch.err
'

test_expect_success 'an edit in place is indexed' '
	printf "\ndef h():\n    g()\n" >>repo/a.py &&
	poll "calls h g" &&
	# the update is committed (and seen) before its line is printed
	poll "test_grep_quiet \"^[0-9:]* a.py: 1 parsed, 0 removed\" watch.err" &&
	runs >n &&
	test $(cat n) -ge 1
'

test_expect_success 'a new file in a subdirectory' '
	printf "from a import f\n\ndef k():\n    f()\n" >repo/sub/b.py &&
	poll "calls k f"
'

test_expect_success 'a new directory, and files in it, also made later' '
	mkdir -p repo/new/deeper &&
	printf "def m():\n    s()\n" >repo/new/deeper/m.py &&
	poll "has_def m new/deeper/m.py" &&
	sleep 0.3 &&
	printf "def m2():\n    return 3\n" >repo/new/deeper/m2.py &&
	poll "has_def m2 new/deeper/m2.py"
'

test_expect_success 'saved as a temporary file renamed over the old one' '
	printf "def f():\n    g()\n\ndef g():\n    return 1\n\ndef h2():\n    g()\n" >repo/.a.py.tmp1234 &&
	mv repo/.a.py.tmp1234 repo/a.py &&
	poll "calls h2 g" &&
	poll "no_def h"
'

test_expect_success 'saved by moving the old file away and writing a new one' '
	mv repo/a.py repo/a.py~ &&
	printf "def f():\n    g()\n\ndef g():\n    return 1\n\ndef h3():\n    g()\n" >repo/a.py &&
	rm repo/a.py~ &&
	poll "calls h3 g" &&
	poll "no_def h2" &&
	has_def g a.py
'

test_expect_success 'deleted and created again' '
	rm repo/sub/s.py &&
	poll "no_def_at s sub/s.py" &&
	printf "def s():\n    return 4\n\ndef s5():\n    return 5\n" >repo/sub/s.py &&
	poll "has_def s5 sub/s.py"
'

test_expect_success 'a deleted file leaves the index' '
	rm repo/sub/b.py &&
	poll "no_def k"
'

test_expect_success 'a renamed file' '
	mv repo/new/deeper/m2.py repo/new/deeper/renamed.py &&
	poll "has_def m2 new/deeper/renamed.py" &&
	defs_json m2 &&
	test_line_count = 1 defs.json
'

test_expect_success 'a renamed directory, still watched under its new name' '
	mv repo/new repo/moved &&
	poll "has_def m moved/deeper/m.py" &&
	poll "no_def_at m new/deeper/m.py" &&
	printf "def later():\n    return 6\n" >repo/moved/deeper/later.py &&
	poll "has_def later moved/deeper/later.py"
'

test_expect_success 'a deleted directory' '
	rm -r repo/moved &&
	poll "no_def m" &&
	poll "no_def later"
'

test_expect_success 'ignored files and directories are not indexed' '
	printf "def in_build():\n    pass\n" >repo/build/x.py &&
	mkdir repo/build/sub &&
	printf "def in_build_sub():\n    pass\n" >repo/build/sub/y.py &&
	printf "def generated():\n    pass\n" >repo/z.gen.py &&
	printf "def sentinel1():\n    pass\n" >repo/sentinel1.py &&
	poll "has_def sentinel1 sentinel1.py" &&
	no_def in_build &&
	no_def in_build_sub &&
	no_def generated
'

test_expect_success 'editors swap, backup and lock files cause no update' '
	runs >before &&
	printf "x" >repo/.a.py.swp &&
	printf "x" >repo/4913 &&
	rm repo/4913 &&
	printf "x" >"repo/#a.py#" &&
	ln -s nobody@host.1234 "repo/.#a.py" &&
	sleep 0.6 &&
	runs >after &&
	test_cmp before after &&
	rm "repo/.#a.py" repo/.a.py.swp "repo/#a.py#"
'

test_expect_success 'a changed .gitignore: what it now leaves out goes, and comes back' '
	printf "build/\n*.gen.py\nsub/\n" >repo/.gitignore &&
	poll "no_def s5" &&
	poll "test_grep_quiet \"the whole tree\" watch.err" &&
	printf "def s6():\n    pass\n" >repo/sub/s6.py &&
	printf "build/\n" >repo/.gitignore &&
	poll "has_def s5 sub/s.py" &&
	poll "has_def s6 sub/s6.py" &&
	poll "has_def generated z.gen.py"
'

test_expect_success 'a burst of changes makes few updates' '
	runs >before &&
	mkdir repo/burst &&
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
	do
		printf "def burst_$i():\n    return $i\n" >repo/burst/b$i.py || return 1
	done &&
	poll "has_def burst_20 burst/b20.py" &&
	has_def burst_1 burst/b1.py &&
	runs >after &&
	test $(($(cat after) - $(cat before))) -le 3
'

test_expect_success 'queries work while it watches; another kbx index is told to retry' '
	(cd repo && kbx defs f >../out) &&
	test_grep "a.py:1" out &&
	(cd repo && test_expect_code 5 kbx index 2>../err) &&
	test_grep "another kbx process (pid [1-9][0-9]*) is indexing" err
'

test_expect_success 'SIGTERM stops it with status 0, after one line per update' '
	stop_watch TERM &&
	echo 0 >expect &&
	test_cmp expect watch.code &&
	runs >n &&
	test $(cat n) -ge 12 &&
	test_must_be_empty watch.out &&
	test_grep ! "^error" watch.err
'

test_expect_success 'SIGINT stops it too; -q prints nothing' '
	start_quiet_watch -q &&
	poll "write_quiet && has_def quiet quiet.py" &&
	stop_watch INT &&
	test_cmp expect watch.code &&
	test_must_be_empty watch.err &&
	test_must_be_empty watch.out
'

test_expect_success 'with --format=json, one index record per update on stdout' '
	start_watch --format=json &&
	printf "def js():\n    pass\n" >repo/js.py &&
	poll "has_def js js.py" &&
	poll "json_runs 2" &&
	stop_watch TERM &&
	test_cmp expect watch.code
'

# --rebuild compacts the store into a new .kbx/db.N before watching
# (kbx-index(1), COMPACTION; index.compact=eager, as the store is small):
# the watcher must write its updates there, where the queries read, not
# to the store it opened.
test_expect_success '--watch --rebuild compacts first, then updates the compacted store' '
	test_path_is_file repo/.kbx/data.mdb &&
	(cd repo && kbx config index.compact eager) &&
	start_watch --rebuild &&
	test_grep "^compacted the index from" watch.err &&
	new=$(cat repo/.kbx/current) &&
	test_path_is_file "repo/.kbx/$new/data.mdb" &&
	test_path_is_missing repo/.kbx/data.mdb &&
	printf "def after_compaction():\n    pass\n" >repo/compacted.py &&
	poll "has_def after_compaction compacted.py" &&
	echo "$new" >expect.current &&
	test_cmp expect.current repo/.kbx/current &&
	stop_watch TERM &&
	test_cmp expect watch.code
'

# timeout(1) passes a signal to its child and then to its process group:
# the second must not find the signals unblocked while we shut down.
test_expect_success 'a stream of SIGTERMs still ends it with status 0' '
	start_bare_watch &&
	stop_watch_often TERM &&
	test_cmp expect watch.code
'

test_done
