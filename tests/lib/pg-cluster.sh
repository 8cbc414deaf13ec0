# The throwaway PostgreSQL cluster of the tests that talk to a database
# (t9000, t9010, t9020, t9030): source it after test-lib.sh with TEST_NAME set (the
# directory's and the password's prefix).  It skips the whole script
# when PostgreSQL or the kbx-pg.so module is not there, and sets PGBIN,
# PGDIR, PASSWORD and DB (the URL of the cluster: a Unix socket in
# PGDIR, a password for its one user, kbx); pg_cluster_start makes and
# starts the cluster, which stops with the script.

PGBIN=
for d in /usr/lib/postgresql/*/bin
do
	test -x "$d/initdb" && test -x "$d/pg_ctl" && PGBIN=$d
done

test_lazy_prereq POSTGRES '
	test -n "$PGBIN" && command -v psql &&
	test -f "$KBX_SRC/build/kbx-pg.so" &&
	{ test "$(id -u)" != 0 || { command -v runuser && id postgres; }; }
'

if ! test_have_prereq POSTGRES
then
	skip_all='PostgreSQL (initdb, pg_ctl, psql) or the kbx-pg.so module is not there'
	test_done
fi

# as_pg CMD...: run a server program as the user that may run it.
as_pg () {
	if test "$(id -u)" = 0
	then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

PGDIR=$(mktemp -d /tmp/kbx-$TEST_NAME.XXXXXX) || exit 1
PASSWORD=$TEST_NAME-Secret-pw
DB="postgresql://kbx:$PASSWORD@/postgres?host=$PGDIR"

pg_stop_ () {
	if test -f "$PGDIR/data/postmaster.pid"
	then
		as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -m immediate -w stop >/dev/null 2>&1
	fi
	rm -rf "$PGDIR"
}
# the cluster goes whatever happens; then test-lib's own handler
trap 'pg_rc_=$?; pg_stop_; (exit $pg_rc_); test_exit_handler_' EXIT

# sql QUERY: one value a line, no headers
sql () {
	psql "$DB" -XAtq -v ON_ERROR_STOP=1 -c "$1"
}

# pg_cluster_start: initdb, then the server on a socket only.
pg_cluster_start () {
	if test "$(id -u)" = 0
	then
		chown postgres "$PGDIR"
	fi &&
	printf "%s\n" "$PASSWORD" >"$PGDIR/pw" &&
	chmod 644 "$PGDIR/pw" &&
	as_pg "$PGBIN/initdb" -D "$PGDIR/data" -U kbx --pwfile="$PGDIR/pw" \
		-A scram-sha-256 --no-sync >"$PGDIR/initdb.log" 2>&1 &&
	as_pg "$PGBIN/pg_ctl" -D "$PGDIR/data" -l "$PGDIR/log" -w \
		-o "-k $PGDIR -c listen_addresses=\"\" -c fsync=off" start >/dev/null &&
	test "$(sql "SELECT 1")" = 1
}

# same Q...: the index's answer and the database's, the same bytes and
# the same exit code, in the current directory (pushed as $NAME)
same () {
	kbx "$@" >local.out 2>local.err
	lrc=$?
	kbx --db="$DB" --repo="$NAME" "$@" >db.out 2>db.err
	drc=$?
	if test $lrc != $drc || ! cmp -s local.out db.out
	then
		echo "kbx $* differs: exit $lrc locally, $drc from the database"
		diff local.out db.out | head -20
		cat db.err
		return 1
	fi
}
