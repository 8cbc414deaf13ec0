/*
 * store-set-meta: change one metadata value of a kbx store, for tests
 * that need a store written by "another version" of kbx.
 *
 *   store-set-meta KBX_DIR KEY VALUE
 *
 * The environment is KBX_DIR's, or the db.N that KBX_DIR/current names
 * once the store has been compacted (lib/store/compact.c).
 */
#include <lmdb.h>
#include <stdio.h>
#include <string.h>

static const char *env_dir(const char *kbx_dir, char *buf, size_t size)
{
	char path[4096], name[64] = "";
	snprintf(path, sizeof(path), "%s/current", kbx_dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return kbx_dir;
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	name[strcspn(name, "\n")] = '\0';
	snprintf(buf, size, "%s/%s", kbx_dir, name);
	return buf;
}

int main(int argc, char **argv)
{
	MDB_env *env;
	MDB_txn *txn;
	MDB_dbi dbi;
	int rc;
	char dir[4096];
	if (argc != 4) {
		fprintf(stderr, "usage: store-set-meta KBX_DIR KEY VALUE\n");
		return 2;
	}
	if ((rc = mdb_env_create(&env)) || (rc = mdb_env_set_maxdbs(env, 16)) ||
	    (rc = mdb_env_open(env, env_dir(argv[1], dir, sizeof(dir)), 0, 0666)) ||
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
