/*
 * JSON read into a tree and written back (json.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/quote.h"
#include "util/util.h"

struct reader {
	const char *s, *end, *start;
	struct kbx_error *err;
	kbx_status_t st;
};

static int fail(struct reader *r, const char *what)
{
	if (!r->st)
		r->st = _kbx_fail(r->err, KBX_ERR_PARSE, "%s at byte %zu", what,
				  (size_t)(r->s - r->start) + 1);
	return -1;
}

static int nomem(struct reader *r)
{
	if (!r->st)
		r->st = _kbx_fail(r->err, KBX_ERR_NOMEM, "out of memory reading JSON");
	return -1;
}

static void skip_space(struct reader *r)
{
	while (r->s < r->end && (*r->s == ' ' || *r->s == '\t' || *r->s == '\n' || *r->s == '\r'))
		r->s++;
}

struct kbx_json *kbx_json_new(enum kbx_json_type type)
{
	struct kbx_json *v = calloc(1, sizeof(*v));
	if (v)
		v->type = type;
	return v;
}

void kbx_json_free(struct kbx_json *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		kbx_json_free(v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->keylens);
	free(v->str);
	free(v);
}

/* Append v (key: its key of keylen bytes, for an object). */
static int append(struct kbx_json *c, char *key, size_t keylen, struct kbx_json *v)
{
	if (c->n == c->alloc) {
		size_t na = c->alloc ? c->alloc * 2 : 4;
		struct kbx_json **ni = realloc(c->items, na * sizeof(*ni));
		if (!ni)
			return -1;
		c->items = ni;
		if (c->type == KBX_JSON_OBJECT) {
			char **nk = realloc(c->keys, na * sizeof(*nk));
			if (!nk)
				return -1;
			c->keys = nk;
			size_t *nl = realloc(c->keylens, na * sizeof(*nl));
			if (!nl)
				return -1;
			c->keylens = nl;
		}
		c->alloc = na;
	}
	if (c->type == KBX_JSON_OBJECT) {
		c->keys[c->n] = key;
		c->keylens[c->n] = keylen;
	}
	c->items[c->n++] = v;
	return 0;
}

static int hex4(struct reader *r, unsigned *out)
{
	unsigned v = 0;
	if (r->end - r->s < 4)
		return fail(r, "a \\u escape needs four hex digits");
	for (int i = 0; i < 4; i++) {
		char c = *r->s++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return fail(r, "a \\u escape needs four hex digits");
	}
	*out = v;
	return 0;
}

static void add_utf8(struct strbuf *sb, unsigned cp)
{
	if (cp < 0x80) {
		strbuf_addch(sb, (int)cp);
	} else if (cp < 0x800) {
		strbuf_addch(sb, (int)(0xc0 | (cp >> 6)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addch(sb, (int)(0xe0 | (cp >> 12)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addch(sb, (int)(0xf0 | (cp >> 18)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addch(sb, (int)(0x80 | (cp & 0x3f)));
	}
}

/* A string, the opening quote at r->s, into *out (len bytes). */
static int read_string(struct reader *r, char **out, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	r->s++;
	for (;;) {
		const char *p = r->s;
		while (p < r->end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
			p++;
		strbuf_add(&sb, r->s, (size_t)(p - r->s));
		r->s = p;
		if (p == r->end) {
			strbuf_release(&sb);
			return fail(r, "unterminated string");
		}
		if (*p == '"') {
			r->s++;
			break;
		}
		if ((unsigned char)*p < 0x20) {
			strbuf_release(&sb);
			return fail(r, "control character in a string");
		}
		/* a backslash */
		if (++r->s == r->end) {
			strbuf_release(&sb);
			return fail(r, "unterminated string");
		}
		char c = *r->s++;
		unsigned cp;
		switch (c) {
		case '"': case '\\': case '/': strbuf_addch(&sb, c); break;
		case 'b': strbuf_addch(&sb, '\b'); break;
		case 'f': strbuf_addch(&sb, '\f'); break;
		case 'n': strbuf_addch(&sb, '\n'); break;
		case 'r': strbuf_addch(&sb, '\r'); break;
		case 't': strbuf_addch(&sb, '\t'); break;
		case 'u':
			if (hex4(r, &cp)) {
				strbuf_release(&sb);
				return -1;
			}
			if (cp >= 0xd800 && cp < 0xdc00 && r->end - r->s >= 6 && r->s[0] == '\\' &&
			    r->s[1] == 'u') {
				const char *save = r->s;
				unsigned lo;
				r->s += 2;
				if (hex4(r, &lo)) {
					strbuf_release(&sb);
					return -1;
				}
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				else
					r->s = save;   /* a lone high surrogate */
			}
			/* a lone surrogate has no UTF-8 form */
			if (cp >= 0xd800 && cp < 0xe000)
				cp = 0xfffd;
			add_utf8(&sb, cp);
			break;
		default:
			strbuf_release(&sb);
			r->s--;
			return fail(r, "unknown escape in a string");
		}
	}
	if (sb.failed) {
		strbuf_release(&sb);
		return nomem(r);
	}
	*out = strbuf_detach(&sb, len);
	return *out ? 0 : nomem(r);
}

static int read_number(struct reader *r, struct kbx_json *v)
{
	const char *p = r->s;
	int integral = 1;
	if (p < r->end && *p == '-')
		p++;
	if (p < r->end && *p == '0') {
		p++;
	} else if (p < r->end && *p >= '1' && *p <= '9') {
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	} else {
		return fail(r, "not a JSON value");
	}
	if (p < r->end && *p == '.') {
		integral = 0;
		if (++p == r->end || *p < '0' || *p > '9')
			return fail(r, "a digit must follow the decimal point");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < r->end && (*p == 'e' || *p == 'E')) {
		integral = 0;
		p++;
		if (p < r->end && (*p == '+' || *p == '-'))
			p++;
		if (p == r->end || *p < '0' || *p > '9')
			return fail(r, "a digit must follow the exponent");
		while (p < r->end && *p >= '0' && *p <= '9')
			p++;
	}
	v->len = (size_t)(p - r->s);
	v->str = malloc(v->len + 1);
	if (!v->str)
		return nomem(r);
	memcpy(v->str, r->s, v->len);
	v->str[v->len] = '\0';
	r->s = p;
	v->num = strtod(v->str, NULL);
	if (integral) {
		errno = 0;
		long long ll = strtoll(v->str, NULL, 10);
		if (!errno) {
			v->is_int = 1;
			v->ival = ll;
		}
	}
	return 0;
}

static int read_value(struct reader *r, struct kbx_json **out, int depth);

static int read_container(struct reader *r, struct kbx_json *v, int depth)
{
	int object = v->type == KBX_JSON_OBJECT;
	char close = object ? '}' : ']';
	r->s++;
	skip_space(r);
	if (r->s < r->end && *r->s == close) {
		r->s++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		size_t keylen = 0;
		struct kbx_json *item;
		skip_space(r);
		if (object) {
			if (r->s == r->end || *r->s != '"')
				return fail(r, "an object's key must be a string");
			if (read_string(r, &key, &keylen))
				return -1;
			skip_space(r);
			if (r->s == r->end || *r->s != ':') {
				free(key);
				return fail(r, "':' must follow an object's key");
			}
			r->s++;
		}
		if (read_value(r, &item, depth + 1)) {
			free(key);
			return -1;
		}
		if (append(v, key, keylen, item)) {
			free(key);
			kbx_json_free(item);
			return nomem(r);
		}
		skip_space(r);
		if (r->s < r->end && *r->s == ',') {
			r->s++;
			continue;
		}
		if (r->s < r->end && *r->s == close) {
			r->s++;
			return 0;
		}
		return fail(r, object ? "',' or '}' expected in an object" : "',' or ']' expected in an array");
	}
}

static int literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(r->end - r->s) < n || memcmp(r->s, word, n))
		return fail(r, "not a JSON value");
	r->s += n;
	return 0;
}

static int read_value(struct reader *r, struct kbx_json **out, int depth)
{
	struct kbx_json *v;
	int rc;
	*out = NULL;
	if (depth > KBX_JSON_MAX_DEPTH)
		return fail(r, "nested deeper than 64 levels");
	skip_space(r);
	if (r->s == r->end)
		return fail(r, "a value is missing");
	switch (*r->s) {
	case '{': v = kbx_json_new(KBX_JSON_OBJECT); break;
	case '[': v = kbx_json_new(KBX_JSON_ARRAY); break;
	case '"': v = kbx_json_new(KBX_JSON_STRING); break;
	case 't': v = kbx_json_new(KBX_JSON_TRUE); break;
	case 'f': v = kbx_json_new(KBX_JSON_FALSE); break;
	case 'n': v = kbx_json_new(KBX_JSON_NULL); break;
	default: v = kbx_json_new(KBX_JSON_NUMBER); break;
	}
	if (!v)
		return nomem(r);
	switch (v->type) {
	case KBX_JSON_OBJECT:
	case KBX_JSON_ARRAY: rc = read_container(r, v, depth); break;
	case KBX_JSON_STRING: rc = read_string(r, &v->str, &v->len); break;
	case KBX_JSON_TRUE: rc = literal(r, "true"); break;
	case KBX_JSON_FALSE: rc = literal(r, "false"); break;
	case KBX_JSON_NULL: rc = literal(r, "null"); break;
	default: rc = read_number(r, v); break;
	}
	if (rc) {
		kbx_json_free(v);
		return -1;
	}
	*out = v;
	return 0;
}

kbx_status_t kbx_json_parse(const char *s, size_t len, struct kbx_json **out,
			    struct kbx_error *err)
{
	struct reader r = { s, s + len, s, err, KBX_OK };
	*out = NULL;
	struct kbx_json *v;
	if (read_value(&r, &v, 1))
		return r.st;
	skip_space(&r);
	if (r.s != r.end) {
		kbx_json_free(v);
		fail(&r, "text after the JSON value");
		return r.st;
	}
	*out = v;
	return KBX_OK;
}

const struct kbx_json *kbx_json_get(const struct kbx_json *obj, const char *key)
{
	if (!obj || obj->type != KBX_JSON_OBJECT)
		return NULL;
	size_t kl = strlen(key);
	for (size_t i = obj->n; i-- > 0;)
		if (obj->keylens[i] == kl && !memcmp(obj->keys[i], key, kl))
			return obj->items[i];
	return NULL;
}

const char *kbx_json_get_str(const struct kbx_json *obj, const char *key)
{
	const struct kbx_json *v = kbx_json_get(obj, key);
	return v && v->type == KBX_JSON_STRING ? v->str : NULL;
}

struct kbx_json *kbx_json_new_str(const char *s, size_t len)
{
	struct kbx_json *v = kbx_json_new(KBX_JSON_STRING);
	if (!v)
		return NULL;
	v->str = malloc(len + 1);
	if (!v->str) {
		free(v);
		return NULL;
	}
	memcpy(v->str, s, len);
	v->str[len] = '\0';
	v->len = len;
	return v;
}

struct kbx_json *kbx_json_new_int(int64_t n)
{
	char buf[32];
	struct kbx_json *v = kbx_json_new(KBX_JSON_NUMBER);
	if (!v)
		return NULL;
	snprintf(buf, sizeof(buf), "%lld", (long long)n);
	v->str = strdup(buf);
	if (!v->str) {
		free(v);
		return NULL;
	}
	v->len = strlen(buf);
	v->num = (double)n;
	v->is_int = 1;
	v->ival = n;
	return v;
}

int kbx_json_add(struct kbx_json *c, const char *key, struct kbx_json *v)
{
	char *k = NULL;
	size_t kl = 0;
	if (!v)
		return -1;
	if (c->type == KBX_JSON_OBJECT) {
		kl = strlen(key);
		k = strdup(key);
		if (!k) {
			kbx_json_free(v);
			return -1;
		}
	}
	if (append(c, k, kl, v)) {
		free(k);
		kbx_json_free(v);
		return -1;
	}
	return 0;
}

void strbuf_add_json_str(struct strbuf *sb, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	strbuf_addch(sb, '"');
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			switch (c) {
			case '\n': strbuf_addstr(sb, "\\n"); break;
			case '\t': strbuf_addstr(sb, "\\t"); break;
			case '\r': strbuf_addstr(sb, "\\r"); break;
			default:
				strbuf_addstr(sb, "\\u00");
				strbuf_addch(sb, hex[c >> 4]);
				strbuf_addch(sb, hex[c & 15]);
			}
			i++;
		} else if (c < 0x80) {
			strbuf_addch(sb, c);
			i++;
		} else {
			size_t n = utf8_char_len(s + i, len - i);
			if (n) {
				strbuf_add(sb, s + i, n);
				i += n;
			} else {
				strbuf_addstr(sb, "\xef\xbf\xbd");   /* U+FFFD */
				i++;
			}
		}
	}
	strbuf_addch(sb, '"');
}

void kbx_json_write(struct strbuf *sb, const struct kbx_json *v)
{
	switch (v->type) {
	case KBX_JSON_NULL: strbuf_addstr(sb, "null"); break;
	case KBX_JSON_FALSE: strbuf_addstr(sb, "false"); break;
	case KBX_JSON_TRUE: strbuf_addstr(sb, "true"); break;
	case KBX_JSON_NUMBER: strbuf_add(sb, v->str, v->len); break;
	case KBX_JSON_STRING: strbuf_add_json_str(sb, v->str, v->len); break;
	case KBX_JSON_ARRAY:
	case KBX_JSON_OBJECT:
		strbuf_addch(sb, v->type == KBX_JSON_ARRAY ? '[' : '{');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addch(sb, ',');
			if (v->type == KBX_JSON_OBJECT) {
				strbuf_add_json_str(sb, v->keys[i], v->keylens[i]);
				strbuf_addch(sb, ':');
			}
			kbx_json_write(sb, v->items[i]);
		}
		strbuf_addch(sb, v->type == KBX_JSON_ARRAY ? ']' : '}');
		break;
	}
}
