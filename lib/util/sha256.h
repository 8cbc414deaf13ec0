/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the mark that
 * tells a store kbx built for this user from one that came with a
 * checkout (trust.c).  Small inputs only: nothing here is on a hot path.
 */
#ifndef KBX_SHA256_H
#define KBX_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define KBX_SHA256_LEN 32

struct _kbx_sha256 {
	uint32_t h[8];
	uint64_t bytes;         /* message length so far */
	unsigned char block[64];
	size_t used;            /* bytes waiting in block */
};

void _kbx_sha256_init(struct _kbx_sha256 *c);
void _kbx_sha256_add(struct _kbx_sha256 *c, const void *data, size_t len);
void _kbx_sha256_final(struct _kbx_sha256 *c, unsigned char out[KBX_SHA256_LEN]);

/* out = HMAC-SHA-256(key, msg). */
void _kbx_hmac_sha256(const unsigned char *key, size_t keylen, const void *msg, size_t msglen,
		      unsigned char out[KBX_SHA256_LEN]);

#endif
