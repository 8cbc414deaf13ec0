#!/bin/sh

test_description='kbx push: the index published to a throwaway PostgreSQL cluster

A cluster of its own is made with initdb in a temporary directory (owned
by the postgres user when the tests run as root: the server refuses to
run as root), listening on a Unix socket only, with a password for its
one user; it is stopped at the end.  Tested: the DDL of --schema read by
psql, a push, a push with nothing to do, a push after an edit (only that
file'"'"'s rows are written again: their xmin says so), a file deleted,
the URL from KBX_DATABASE_URL and from the user'"'"'s settings but never
from the repository'"'"'s, a wrong password and a server that is not
there (exit codes 13 and 12, the password never printed), no index (3),
two repositories pushed at once while one'"'"'s row is locked, and a push
killed with SIGKILL halfway through its transaction: the database keeps
the previous generation whole.'

. ./test-lib.sh

TEST_NAME=t9000
. "$TEST_DIRECTORY/lib/pg-cluster.sh"

# hold SQL: run SQL (a transaction holding a lock a while) in psql in
# the background; its pid in HOLDER.
hold () {
	psql "$DB" -Xq -c "BEGIN" -c "$1" -c "SELECT pg_sleep(${2:-3})" -c "COMMIT" >/dev/null &
	HOLDER=$!
}

# push_in_background DIR: kbx push in DIR, its output in DIR.out; its
# pid in PUSHER.
push_in_background () {
	(cd "$1" && exec kbx push --db="$DB" >../"$1".out 2>&1) &
	PUSHER=$!
}

# wait_for QUERY VALUE: poll until QUERY gives something else than VALUE
# (5 s at most).
wait_for () {
	wait_i_=0
	while test "$(sql "$1")" = "$2"
	do
		wait_i_=$((wait_i_ + 1))
		test $wait_i_ -lt 100 || return 1
		sleep 0.05
	done
}

# write_tree DIR N: N Python modules calling each other, and a helper
write_tree () {
	mkdir -p "$1" &&
	(
		cd "$1" &&
		printf 'def helper(x):\n    print(x)\n    return x + 1\n' >util.py &&
		i=1 &&
		while test $i -le $2
		do
			printf 'from util import helper\n\n\ndef run_%d(x):\n    """Run step %d."""\n    return helper(x) + %d\n\n\ndef main_%d():\n    return run_%d(1)\n' \
				$i $i $i $i $i >mod$i.py &&
			i=$((i + 1))
		done
	)
}

test_expect_success 'a cluster of its own, on a socket, with a password' '
	pg_cluster_start
'

test_expect_success '--schema: DDL that psql runs, twice' '
	kbx push --schema >schema.sql &&
	test_grep "CREATE TABLE IF NOT EXISTS kbx.edges" schema.sql &&
	test_grep "tsvector" schema.sql &&
	psql "$DB" -Xq -v ON_ERROR_STOP=1 -f schema.sql 2>err &&
	psql "$DB" -Xq -v ON_ERROR_STOP=1 -f schema.sql 2>err &&
	sql "SELECT tablename FROM pg_tables WHERE schemaname = '"'kbx'"' ORDER BY 1" >actual &&
	printf "%s\n" chunks edges files meta nodes postings repos vectors >expect &&
	test_cmp expect actual
'

test_expect_success 'push: the files, nodes, edges and chunks, and the generation' '
	write_tree one 3 &&
	printf "# One\n\nHow to deploy the widgets.\n" >one/README.md &&
	(cd one && kbx index >/dev/null && kbx push --db="$DB" >../out) &&
	test_grep "^pushed '"'one'"' generation 1 to " out &&
	test_grep "6 copied, 0 deleted, 0 unchanged" out &&
	sql "SELECT generation, files FROM kbx.repos WHERE name = '"'one'"'" >actual &&
	echo "1|4" >expect &&
	test_cmp expect actual &&
	sql "SELECT path FROM kbx.files ORDER BY path" >actual &&
	printf "%s\n" "" README.md mod1.py mod2.py mod3.py util.py >expect &&
	test_cmp expect actual &&
	sql "SELECT s.cid || '"' '"' || e.confidence FROM kbx.edges e
	     JOIN kbx.nodes s ON s.repo = e.repo AND s.id = e.src
	     JOIN kbx.nodes d ON d.repo = e.repo AND d.id = e.dst
	     WHERE e.kind = '"'calls'"' AND d.cid = '"'util.py#helper'"' ORDER BY 1" >actual &&
	printf "%s\n" "mod1.py#run_1 certain" "mod2.py#run_2 certain" "mod3.py#run_3 certain" >expect &&
	test_cmp expect actual &&
	sql "SELECT path FROM kbx.chunks WHERE tsv @@ to_tsquery('"'english'"', '"'widget'"')" >actual &&
	echo README.md >expect &&
	test_cmp expect actual
'

test_expect_success 'the rows match what the index holds' '
	(cd one && kbx status --format=json) >status.json &&
	n=$(sql "SELECT count(*) FROM kbx.nodes n JOIN kbx.repos r ON r.id = n.repo
		 WHERE r.name = '"'one'"' AND n.kind <> '"'file'"'") &&
	syms=$(sed -n "s/.*\"symbols\":\([0-9]*\).*/\1/p" status.json) &&
	ext=$(sed -n "s/.*\"externals\":\([0-9]*\).*/\1/p" status.json) &&
	mods=$(sed -n "s/.*\"modules\":\([0-9]*\).*/\1/p" status.json) &&
	test "$n" -ge "$syms" &&
	e=$(sql "SELECT count(*) FROM kbx.edges") &&
	edges=$(sed -n "s/.*\"edges\":\([0-9]*\).*/\1/p" status.json) &&
	test "$e" = "$edges"
'

test_expect_success 'a push with nothing new writes nothing' '
	(cd one && kbx push --db="$DB" >../out) &&
	test_grep "0 copied, 0 deleted, 6 unchanged" out
'

test_expect_success 'after an edit only that file is written again' '
	mark=$(sql "SELECT txid_current()") &&
	printf "\n\ndef extra():\n    return helper(2)\n" >>one/mod2.py &&
	(cd one && kbx index >/dev/null && kbx push --db="$DB" >../out) &&
	test_grep "1 copied, 0 deleted, 5 unchanged" out &&
	for t in nodes chunks
	do
		sql "SELECT DISTINCT path FROM kbx.$t WHERE xmin::text::bigint > $mark" >actual &&
		echo mod2.py >expect &&
		test_cmp expect actual || return 1
	done &&
	sql "SELECT DISTINCT n.path FROM kbx.edges e JOIN kbx.nodes n
	     ON n.repo = e.repo AND n.id = e.src WHERE e.xmin::text::bigint > $mark" >actual &&
	test_cmp expect actual &&
	sql "SELECT name FROM kbx.nodes WHERE path = '"'mod2.py'"' ORDER BY name" >actual &&
	printf "%s\n" extra main_2 mod2.py run_2 >expect &&
	test_cmp expect actual &&
	sql "SELECT count(*) FROM kbx.nodes WHERE path = '"'mod1.py'"' AND xmin::text::bigint > $mark" >actual &&
	echo 0 >expect &&
	test_cmp expect actual
'

test_expect_success 'a file deleted goes with its nodes, edges and chunks' '
	rm one/mod3.py &&
	(cd one && kbx index >/dev/null && kbx push --db="$DB" >../out) &&
	test_grep "0 copied, 1 deleted" out &&
	for t in files nodes chunks
	do
		sql "SELECT count(*) FROM kbx.$t WHERE path = '"'mod3.py'"'" >actual &&
		echo 0 >expect &&
		test_cmp expect actual || return 1
	done &&
	sql "SELECT count(*) FROM kbx.edges e WHERE NOT EXISTS (SELECT 1 FROM kbx.nodes n
	     WHERE n.repo = e.repo AND n.id = e.src)" >actual &&
	echo 0 >expect &&
	test_cmp expect actual &&
	sql "SELECT count(*) FROM kbx.postings p WHERE NOT EXISTS (SELECT 1 FROM kbx.chunks c
	     WHERE c.repo = p.repo AND c.id = p.chunk)" >actual &&
	test_cmp expect actual &&
	sql "SELECT generation, files FROM kbx.repos WHERE name = '"'one'"'" >actual &&
	gen=$(cd one && kbx status --format=json | sed -n "s/.*\"generation\":\([0-9]*\).*/\1/p") &&
	echo "$gen|3" >expect &&
	test_cmp expect actual
'

test_expect_success 'KBX_DATABASE_URL, and the user'"'"'s setting push.database' '
	(cd one && KBX_DATABASE_URL=$DB kbx push -q >../out) &&
	test_must_be_empty out &&
	mkdir -p .config/kbx &&
	printf "push.database = \"%s\"\n" "$DB" >.config/kbx/config &&
	test_when_finished "rm -f .config/kbx/config" &&
	(cd one && kbx push >../out) &&
	test_grep "0 copied, 0 deleted, 5 unchanged" out
'

test_expect_success 'a repository'"'"'s settings cannot choose the database' '
	printf "push.database = \"%s\"\n" "$DB" >one/.kbx/config &&
	test_when_finished "rm -f one/.kbx/config" &&
	(cd one && test_expect_code 2 kbx push >../out 2>../err) &&
	test_grep "warning: ignoring push.database" err &&
	test_grep "error: no database to push to" err
'

test_expect_success 'a wrong password: exit 13, and no password printed' '
	bad="postgresql://kbx:Wrong-Secret-9@/postgres?host=$PGDIR" &&
	(cd one && test_expect_code 13 kbx push --db="$bad" 2>../err) &&
	test_grep "password authentication failed" err &&
	test_grep "kbx:\*\*\*@" err &&
	test_grep ! "Wrong-Secret-9" err &&
	(cd one && test_expect_code 13 kbx push --db="host=$PGDIR user=kbx password=Wrong-Secret-9 dbname=postgres" 2>../err) &&
	test_grep "password=\*\*\*" err &&
	test_grep ! "Wrong-Secret-9" err &&
	(cd one && test_expect_code 13 kbx push --db="postgresql://kbx@/postgres?host=$PGDIR&password=Wrong-Secret-9" 2>../err) &&
	test_grep "&password=\*\*\*" err &&
	test_grep ! "Wrong-Secret-9" err
'

test_expect_success 'no server there: exit 12' '
	(cd one && test_expect_code 12 kbx push --db="postgresql://kbx:$PASSWORD@/postgres?host=$PGDIR/none" 2>../err) &&
	test_grep "cannot connect" err &&
	test_grep "is the server" err &&
	test_grep ! "$PASSWORD" err
'

test_expect_success 'no index: exit 3' '
	mkdir empty &&
	(cd empty && test_expect_code 3 kbx push --db="$DB" 2>../err)
'

test_expect_success 'two repositories at once: a locked row holds back its own push only' '
	write_tree two 3 &&
	(cd two && kbx index >/dev/null) &&
	printf "\ndef more():\n    return 1\n" >>one/mod1.py &&
	(cd one && kbx index >/dev/null) &&
	# the row of "one" held a while, in a transaction of its own
	hold "SELECT 1 FROM kbx.repos WHERE name = '"'one'"' FOR UPDATE" 4 &&
	wait_for "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		  WHERE c.relname = '"'repos'"' AND l.mode = '"'RowShareLock'"' AND l.granted" 0 &&
	push_in_background one &&
	wait_for "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"'kbx'"'
		  AND wait_event_type = '"'Lock'"'" 0 &&
	(cd two && kbx push --db="$DB" >../two.out) &&
	# "two" is in while "one" still waits behind the lock
	kill -0 $HOLDER &&
	kill -0 $PUSHER &&
	test_grep "^pushed '"'two'"'" two.out &&
	wait $HOLDER &&
	wait $PUSHER &&
	test_grep "^pushed '"'one'"'" one.out &&
	sql "SELECT name, files FROM kbx.repos ORDER BY name" >actual &&
	printf "%s\n" "one|3" "two|4" >expect &&
	test_cmp expect actual
'

test_expect_success 'a file whose calls resolve anew is copied though its text is the same' '
	mark=$(sql "SELECT txid_current()") &&
	# helper moves from util.py to a module of its own, which the
	# modules do not import: their calls now go there by name alone
	printf "def helper(x):\n    return x\n" >two/other.py &&
	printf "def unrelated():\n    return 0\n" >two/util.py &&
	(cd two && kbx index >/dev/null && kbx push --db="$DB" >../out) &&
	sql "SELECT DISTINCT n.path FROM kbx.nodes n JOIN kbx.repos r ON r.id = n.repo
	     WHERE r.name = '"'two'"' AND n.xmin::text::bigint > $mark ORDER BY 1" >actual &&
	printf "%s\n" mod1.py mod2.py mod3.py other.py util.py >expect &&
	test_cmp expect actual &&
	sql "SELECT d.cid || '"' '"' || e.via FROM kbx.edges e
	     JOIN kbx.nodes s ON s.repo = e.repo AND s.id = e.src
	     JOIN kbx.nodes d ON d.repo = e.repo AND d.id = e.dst
	     JOIN kbx.repos r ON r.id = e.repo
	     WHERE r.name = '"'two'"' AND s.cid = '"'mod1.py#run_1'"' AND e.kind = '"'calls'"'" >actual &&
	echo "other.py#helper unique-name" >expect &&
	test_cmp expect actual
'

test_expect_success 'a push killed halfway leaves the last generation whole' '
	write_tree big 200 &&
	(cd big && kbx index >/dev/null && kbx push -q --db="$DB") &&
	sql "SELECT generation, files, nodes, edges, chunks FROM kbx.repos WHERE name = '"'big'"'" >before &&
	count_rows="SELECT (SELECT count(*) FROM kbx.nodes n JOIN kbx.repos r ON r.id = n.repo AND r.name = '"'big'"'),
		(SELECT count(*) FROM kbx.chunks n JOIN kbx.repos r ON r.id = n.repo AND r.name = '"'big'"'),
		(SELECT count(*) FROM kbx.nodes WHERE name = '"'changed'"')" &&
	sql "$count_rows" >rows-before &&
	for f in big/mod*.py
	do
		printf "\ndef changed():\n    return 0\n" >>$f || return 1
	done &&
	(cd big && kbx index >/dev/null) &&
	# a lock on the chunks holds the push after it has deleted nodes
	# and edges; it is killed there, then the lock goes
	hold "LOCK TABLE kbx.chunks IN SHARE MODE" 3 &&
	wait_for "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
		  WHERE c.relname = '"'chunks'"' AND l.mode = '"'ShareLock'"' AND l.granted" 0 &&
	push_in_background big &&
	wait_for "SELECT count(*) FROM pg_stat_activity WHERE application_name = '"'kbx'"'
		  AND wait_event_type = '"'Lock'"' AND backend_xid IS NOT NULL" 0 &&
	kill -9 $PUSHER &&
	test_expect_code 137 wait $PUSHER &&
	wait $HOLDER &&
	wait_for "SELECT count(*) > 0 FROM pg_stat_activity WHERE application_name = '"'kbx'"'" t &&
	sql "SELECT generation, files, nodes, edges, chunks FROM kbx.repos WHERE name = '"'big'"'" >after &&
	test_cmp before after &&
	sql "$count_rows" >rows-after &&
	test_cmp rows-before rows-after &&
	(cd big && kbx push --db="$DB" >../out) &&
	test_grep "200 copied, 0 deleted, 2 unchanged" out &&
	sql "SELECT count(*) FROM kbx.nodes WHERE name = '"'changed'"'" >actual &&
	echo 200 >expect &&
	test_cmp expect actual
'

test_expect_success 'the server stopped: exit 12' '
	as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m fast -w stop >/dev/null &&
	(cd one && test_expect_code 12 kbx push --db="$DB" 2>../err) &&
	test_grep "cannot connect" err
'

test_done
