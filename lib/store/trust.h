/*
 * Which stores kbx trusts (kbx-security(7)).
 *
 * A store is a directory a checkout can carry: git does not stop anyone
 * committing .kbx/, an archive may hold one, and a checkout of another
 * branch overwrites the ignored files in it.  LMDB trusts its data file
 * and FAISS its index files completely, so kbx opens a store only when it
 * can tell that kbx built it for this user: the data file carries a mark,
 * written when kbx creates it, that only this user's key can make.
 *
 * The key: 32 random bytes in $XDG_STATE_HOME/kbx/store-key (or
 * ~/.local/state/kbx/store-key), mode 0600, made the first time a store
 * is created.  The mark: 64 bytes in the unused tail of the data file's
 * first page (LMDB writes only the head of its meta pages after it
 * creates them):
 *
 *    0   8  "kbxmark1"
 *    8  24  a random nonce, one per store
 *   32  32  HMAC-SHA-256(key, "kbx-store-mark-1" + nonce)
 *
 * A copy of a store (cp -r of a repository) keeps its mark and stays
 * trusted; a data file that arrived from anywhere else has no valid mark.
 */
#ifndef KBX_TRUST_H
#define KBX_TRUST_H

#include "kbx.h"

#define KBX_STORE_KEY_LEN 32
#define KBX_STORE_MARK_OFFSET 2048
#define KBX_STORE_MARK_LEN 64

/* Where the user's key is: malloc()ed into *out.  KBX_NOT_FOUND when
 * neither XDG_STATE_HOME (absolute) nor HOME is set. */
kbx_status_t _kbx_store_key_path(char **out, struct kbx_error *err);

/* Read the user's key into key; with create, make it first when there
 * is none.  KBX_NOT_FOUND when there is none and create is 0;
 * KBX_ERR_UNSAFE when the file is not a regular file of this user that
 * no one else can read or write. */
kbx_status_t _kbx_store_key(unsigned char key[KBX_STORE_KEY_LEN], int create,
			    struct kbx_error *err);

/* A new mark for a store, under key (with a fresh random nonce).
 * -1 when no random bytes could be had. */
int _kbx_store_mark_make(const unsigned char key[KBX_STORE_KEY_LEN],
			 unsigned char mark[KBX_STORE_MARK_LEN]);
/* Is mark one that key made?  (Compared in constant time.) */
int _kbx_store_mark_valid(const unsigned char key[KBX_STORE_KEY_LEN],
			  const unsigned char mark[KBX_STORE_MARK_LEN]);

#endif
