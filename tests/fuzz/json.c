/*
 * Fuzz the JSON reader and writer of lib/util/json.c, which read every
 * message a client sends to kbx mcp (and kbx serve).
 *
 * Input: any bytes, read as one JSON text.
 *
 * Checked: the reader either fails with a message or gives a tree; the
 * writer's text of that tree is valid UTF-8 and reads back (a value
 * written from a string with bytes outside UTF-8 holds U+FFFD instead),
 * and writing what was read back gives the same text again.
 */
#include <string.h>

#include "fuzz.h"
#include "util/json.h"
#include "util/quote.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kbx_json *v = NULL, *again = NULL;
	struct kbx_error err = KBX_ERROR_INIT;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

	if (kbx_json_parse((const char *)data, size, &v, &err)) {
		FUZZ_ASSERT(err.msg[0]);
		FUZZ_ASSERT(!v);
		return 0;
	}
	FUZZ_ASSERT(v);
	kbx_json_write(&a, v);
	if (!a.failed) {
		for (size_t i = 0; i < a.len;) {
			size_t n = utf8_char_len(a.buf + i, a.len - i);
			FUZZ_ASSERT(n);
			i += n;
		}
		struct kbx_error err2 = KBX_ERROR_INIT;
		FUZZ_ASSERT(kbx_json_parse(a.buf, a.len, &again, &err2) == KBX_OK);
		kbx_json_write(&b, again);
		FUZZ_ASSERT(b.failed || (a.len == b.len && !memcmp(a.buf, b.buf, a.len)));
	}
	kbx_json_free(v);
	kbx_json_free(again);
	strbuf_release(&a);
	strbuf_release(&b);
	return 0;
}
