/*
 * Unit tests of lib/util/json.c: JSON read into a tree and written back.
 * Each good text must read and write back as the expected compact text;
 * each bad one must fail with KBX_ERR_PARSE and say where.  Prints TAP.
 */
#include <stdio.h>
#include <string.h>

#include "util/json.h"
#include "tap.h"

#define S(lit) lit, sizeof(lit) - 1

struct good {
	const char *in;
	size_t len;
	const char *out;
	size_t outlen;
	const char *desc;
};

static const struct good goods[] = {
	{ S("{\"a\":1,\"b\":[true,false,null],\"c\":\"x\"}"),
	  S("{\"a\":1,\"b\":[true,false,null],\"c\":\"x\"}"), "an object of each type" },
	{ S(" \t\r\n[ 1 , -2.5e3 , 0 ] \n"), S("[1,-2.5e3,0]"), "white space around and inside" },
	{ S("\"\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\""), S("\"\xc3\xa9\xf0\x9f\x98\x80\\n\\\"\\\\/\""),
	  "escapes and a surrogate pair become UTF-8" },
	{ S("\"a\\u0000b\""), S("\"a\\u0000b\""), "a NUL inside a string is kept" },
	{ S("\"\\ud800x\""), S("\"\xef\xbf\xbdx\""), "a lone surrogate becomes U+FFFD" },
	{ S("\"\xff\xfe ok\""), S("\"\xef\xbf\xbd\xef\xbf\xbd ok\""),
	  "bytes outside UTF-8 are written as U+FFFD" },
	{ S("\"\\u001b\x7f\""), S("\"\\u001b\\u007f\""), "ESC and DEL are escaped on output" },
	{ S("{}"), S("{}"), "an empty object" },
	{ S("[[[[]]]]"), S("[[[[]]]]"), "nested empty arrays" },
};

struct bad {
	const char *in;
	size_t len;
	const char *msg;
	const char *desc;
};

static const struct bad bads[] = {
	{ S(""), "a value is missing at byte 1", "nothing" },
	{ S("{\"a\":1"), "',' or '}' expected in an object at byte 7", "an unclosed object" },
	{ S("{a:1}"), "an object's key must be a string at byte 2", "a bare key" },
	{ S("[1,]"), "not a JSON value at byte 4", "a trailing comma" },
	{ S("\"abc"), "unterminated string at byte 5", "an unterminated string" },
	{ S("\"a\nb\""), "control character in a string at byte 3", "a raw newline in a string" },
	{ S("\"\\x\""), "unknown escape in a string at byte 3", "an unknown escape" },
	{ S("01"), "text after the JSON value at byte 2", "a leading zero" },
	{ S("1."), "a digit must follow the decimal point at byte 1", "a bare decimal point" },
	{ S("[1] x"), "text after the JSON value at byte 5", "text after the value" },
	{ S("tru"), "not a JSON value at byte 1", "a cut literal" },
};

int main(void)
{
	char buf[256];
	for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		struct kbx_json *v;
		struct kbx_error err = KBX_ERROR_INIT;
		struct strbuf sb = STRBUF_INIT;
		kbx_status_t st = kbx_json_parse(goods[i].in, goods[i].len, &v, &err);
		if (!st)
			kbx_json_write(&sb, v);
		ok(!st && sb.len == goods[i].outlen && !memcmp(sb.buf, goods[i].out, sb.len),
		   goods[i].desc);
		kbx_json_free(st ? NULL : v);
		strbuf_release(&sb);
	}
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct kbx_json *v;
		struct kbx_error err = KBX_ERROR_INIT;
		kbx_status_t st = kbx_json_parse(bads[i].in, bads[i].len, &v, &err);
		ok(st == KBX_ERR_PARSE && !v && !strcmp(err.msg, bads[i].msg), bads[i].desc);
		if (st != KBX_ERR_PARSE || strcmp(err.msg, bads[i].msg))
			printf("# got '%s'\n", st ? err.msg : "success");
	}

	/* nesting: 64 levels read, 65 do not */
	for (int depth = 64; depth <= 65; depth++) {
		struct kbx_json *v;
		struct kbx_error err = KBX_ERROR_INIT;
		memset(buf, '[', (size_t)depth);
		memset(buf + depth, ']', (size_t)depth);
		kbx_status_t st = kbx_json_parse(buf, (size_t)depth * 2, &v, &err);
		snprintf(buf, sizeof(buf), "%d nested arrays %s", depth, depth == 64 ? "read" : "refused");
		ok(depth == 64 ? st == KBX_OK : st == KBX_ERR_PARSE, buf);
		if (!st)
			kbx_json_free(v);
	}

	/* lookups: the last of a key written twice; numbers */
	struct kbx_json *v;
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_json_parse(S("{\"k\":\"one\",\"n\":12345678901,\"f\":1.5,\"k\":\"two\"}"), &v, &err) == KBX_OK) {
		const struct kbx_json *n = kbx_json_get(v, "n"), *f = kbx_json_get(v, "f");
		ok(!strcmp(kbx_json_get_str(v, "k"), "two"), "a key written twice: the last value");
		ok(n && n->is_int && n->ival == 12345678901LL, "an integer beyond 32 bits");
		ok(f && !f->is_int && f->num == 1.5, "a fraction is not an integer");
		ok(!kbx_json_get(v, "missing") && !kbx_json_get_str(v, "n"), "missing keys and types");
		kbx_json_free(v);
	} else {
		ok(0, "the lookup object reads");
	}
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
