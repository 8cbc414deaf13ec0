/*
 * store-set-meta: change one metadata value of a kbx store, for tests
 * that need a store written by "another version" of kbx.
 *
 *   store-set-meta KBX_DIR KEY VALUE
 */
#include <lmdb.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	int rc;
	if (argc != 4) {
		fprintf(stderr, "usage: store-set-meta KBX_DIR KEY VALUE\n");
		return 2;
	}
	if ((rc = mdb_env_create(&env)) || (rc = mdb_env_set_maxdbs(env, 16)) ||
	    (rc = mdb_env_open(env, argv[1], 0, 0666)) ||
	    (rc = mdb_txn_begin(env, NULL, 0, &txn)) ||
	    (rc = mdb_dbi_open(txn, "meta", 0, &dbi))) {
		fprintf(stderr, "store-set-meta: %s\n", mdb_strerror(rc));
		return 1;
	}
	MDB_val k = { strlen(argv[2]), argv[2] }, v = { strlen(argv[3]), argv[3] };
	if ((rc = mdb_put(txn, dbi, &k, &v, 0)) || (rc = mdb_txn_commit(txn))) {
		fprintf(stderr, "store-set-meta: %s\n", mdb_strerror(rc));
		return 1;
	}
	mdb_env_close(env);
	return 0;
}
