/*
 * SHA-256 and HMAC-SHA-256 against published test vectors (FIPS 180-4's
 * examples, RFC 4231's HMAC cases), and the store mark built on them.
 * Prints TAP.
 */
#include <stdio.h>
#include <string.h>

#include "util/sha256.h"
#include "tap.h"

static void hex(const unsigned char *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
}

static int sha_is(const void *msg, size_t len, const char *want)
{
	struct _kbx_sha256 c;
	unsigned char d[KBX_SHA256_LEN];
	char h[2 * KBX_SHA256_LEN + 1];
	_kbx_sha256_init(&c);
	_kbx_sha256_add(&c, msg, len);
	_kbx_sha256_final(&c, d);
	hex(d, sizeof(d), h);
	if (strcmp(h, want))
		printf("# got %s\n", h);
	return !strcmp(h, want);
}

static int hmac_is(const unsigned char *key, size_t klen, const void *msg, size_t mlen,
		   const char *want)
{
	unsigned char d[KBX_SHA256_LEN];
	char h[2 * KBX_SHA256_LEN + 1];
	_kbx_hmac_sha256(key, klen, msg, mlen, d);
	hex(d, sizeof(d), h);
	if (strcmp(h, want))
		printf("# got %s\n", h);
	return !strcmp(h, want);
}

int main(void)
{
	static char million[1000000];
	unsigned char key[131];

	ok(sha_is("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
	   "sha256 of the empty string");
	ok(sha_is("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
	   "sha256 of abc");
	ok(sha_is("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
	   "sha256 of the 448-bit message (padding into a second block)");
	memset(million, 'a', sizeof(million));
	ok(sha_is(million, sizeof(million),
		  "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
	   "sha256 of a million a's");
	{
		/* the same message fed in uneven pieces */
		struct _kbx_sha256 c;
		unsigned char d[KBX_SHA256_LEN];
		char h[65];
		_kbx_sha256_init(&c);
		for (size_t off = 0, step = 1; off < sizeof(million); off += step, step = step * 3 % 997 + 1)
			_kbx_sha256_add(&c, million + off,
					off + step > sizeof(million) ? sizeof(million) - off : step);
		_kbx_sha256_final(&c, d);
		hex(d, sizeof(d), h);
		ok(!strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
		   "sha256 in pieces of many sizes");
	}

	memset(key, 0x0b, 20);
	ok(hmac_is(key, 20, "Hi There", 8,
		   "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
	   "hmac-sha256: RFC 4231 case 1");
	ok(hmac_is((const unsigned char *)"Jefe", 4, "what do ya want for nothing?", 28,
		   "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
	   "hmac-sha256: RFC 4231 case 2");
	memset(key, 0xaa, 131);
	ok(hmac_is(key, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54,
		   "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
	   "hmac-sha256: RFC 4231 case 6 (a key longer than a block)");
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
