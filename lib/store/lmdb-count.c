/*
 * LMDB's calls that allocate memory for their caller (a cursor, a
 * transaction's state) are linked through these (-Wl,--wrap, see
 * LMDB_WRAP in the Makefile).  A refusal is counted (_kbx_nomem,
 * util.h) as kbx's own are: the code that asked often goes on without
 * the cursor as if a table were empty, and the count makes the run or
 * the query that did so end with out of memory (exit 9) rather than
 * with an answer that lacks what the store holds.
 */
#include <errno.h>
#include <lmdb.h>

#include "util/util.h"

int __real_mdb_cursor_open(MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor);
int __real_mdb_txn_begin(MDB_env *env, MDB_txn *parent, unsigned int flags, MDB_txn **txn);
int __wrap_mdb_cursor_open(MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor);
int __wrap_mdb_txn_begin(MDB_env *env, MDB_txn *parent, unsigned int flags, MDB_txn **txn);

int __wrap_mdb_cursor_open(MDB_txn *txn, MDB_dbi dbi, MDB_cursor **cursor)
{
	int rc = __real_mdb_cursor_open(txn, dbi, cursor);
	if (rc == ENOMEM)
		_kbx_nomem();
	return rc;
}

int __wrap_mdb_txn_begin(MDB_env *env, MDB_txn *parent, unsigned int flags, MDB_txn **txn)
{
	int rc = __real_mdb_txn_begin(env, parent, flags, txn);
	if (rc == ENOMEM)
		_kbx_nomem();
	return rc;
}
