/*
 * Memory running out while a file's refs record is decoded is reported
 * as that (KBX_ERR_NOMEM, exit 9), not as a damaged store: the decoder
 * used to skip a section whose array it could not allocate and read the
 * next one from the middle of it, which made an address space limit at
 * the wrong moment end an index run with MDB_CORRUPTED (exit 8) although
 * the store was intact.
 *
 * A record of two million calls is decoded under an address space limit
 * (setrlimit RLIMIT_AS) that leaves room for the copy of the record but
 * not for the array of calls.  Skipped under AddressSanitizer, whose
 * shadow memory needs far more address space than any such limit.
 * Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "graph/graph.h"
#include "tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

static unsigned char *put32(unsigned char *p, uint32_t v)
{
	_kbx_put_u32(p, v);
	return p + 4;
}

/* The record as lib/store/refs.c writes it (version 3): version, a word,
 * the node ids, then the calls (caller, line, column, receiver kind, four
 * strings: name, receiver, class, receiver's type), imports, bases and
 * fields; a string is its length and bytes, or 0xffffffff. */
static unsigned char *make_record(uint32_t ncalls, size_t *len)
{
	size_t call_len = 4 + 4 + 4 + 1 + (4 + 3) + 4 + 4 + 4;
	*len = 4 * 3 + 4 + (size_t)ncalls * call_len + 4 + 4 + 4;
	unsigned char *rec = malloc(*len), *p = rec;
	if (!rec)
		return NULL;
	p = put32(p, 3);
	p = put32(p, 0);
	p = put32(p, 0);                /* no node ids */
	p = put32(p, ncalls);
	for (uint32_t i = 0; i < ncalls; i++) {
		/* large ids, as in a store that has seen many runs */
		p = put32(p, 0x7ffffff0u + (i & 7));
		p = put32(p, 1000 + i);
		p = put32(p, 5);
		*p++ = 0;
		p = put32(p, 3);
		memcpy(p, "run", 3);
		p += 3;
		p = put32(p, 0xffffffffu);
		p = put32(p, 0xffffffffu);
		p = put32(p, 0xffffffffu);
	}
	p = put32(p, 0);                /* no imports */
	p = put32(p, 0);                /* no bases */
	p = put32(p, 0);                /* no fields */
	return rec;
}

/* The address space in use now, from /proc/self/statm, in bytes. */
static size_t address_space_used(void)
{
	unsigned long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &pages) != 1)
		pages = 0;
	fclose(f);
	return (size_t)pages * (size_t)sysconf(_SC_PAGESIZE);
}

int main(void)
{
	size_t len;
	struct _kbx_refs r;
	unsigned char *small = make_record(3, &len);
	ok(small && _kbx_refs_decode(small, len, &r) == KBX_OK && r.ncalls == 3 &&
	   !strcmp(r.calls[2].name, "run") && r.calls[2].line == 1002,
	   "the hand-made record decodes");
	if (small && r.calls)
		_kbx_refs_release(&r);
	free(small);

#ifdef UNDER_ASAN
	printf("ok %d # skip an address space limit under AddressSanitizer\n", ++tests);
#else
	const uint32_t ncalls = 2000000;
	unsigned char *rec = make_record(ncalls, &len);
	size_t used = address_space_used();
	struct rlimit old;
	if (!rec || !used || getrlimit(RLIMIT_AS, &old)) {
		ok(0, "a record of two million calls and the address space in use");
	} else {
		/* room for the copy of the record (malloc rounds it up to
		 * pages) and a little more, not for 2,000,001 calls */
		size_t calls_bytes = (size_t)(ncalls + 1) * sizeof(struct _kbx_ref_call);
		struct rlimit lim = old;
		lim.rlim_cur = used + len + calls_bytes / 2;
		int limited = old.rlim_cur == RLIM_INFINITY || old.rlim_cur > lim.rlim_cur;
		if (limited && setrlimit(RLIMIT_AS, &lim) == 0) {
			kbx_status_t st = _kbx_refs_decode(rec, len, &r);
			setrlimit(RLIMIT_AS, &old);
			ok(st == KBX_ERR_NOMEM, "a record whose calls do not fit in memory: out of memory, not corrupt");
			if (st == KBX_OK)
				_kbx_refs_release(&r);
		} else {
			ok(0, "an address space limit can be set");
		}
		kbx_status_t st = _kbx_refs_decode(rec, len, &r);
		ok(st == KBX_OK && r.ncalls == ncalls, "without the limit the same record decodes");
		if (st == KBX_OK)
			_kbx_refs_release(&r);
	}
	free(rec);
#endif
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
