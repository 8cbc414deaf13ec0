/*
 * What a pasted error message says most: the exception lines of a
 * traceback or stack, and each chained cause, rather than its frames.
 *
 * A Python traceback ends with the exception ("TimeoutError: ..."), and a
 * chained one has a block per cause ("During handling of the above
 * exception ...", "The above exception was the direct cause ...").  A
 * Java stack says "Exception in thread ..." and "Caused by: ..."; Node's
 * stack starts at "TypeError: ..."; a Go panic says "panic: ..."; a
 * compiler says "error[E0502]: ...", "error TS2345: ...", "error: ...".
 * These lines are written KBX_FOCUS_WEIGHT times into the text that BM25
 * and the embedding see (the last exception line once more: it is the
 * one raised), and the frames, which name the reader's own files and
 * the runtime's, are cut to the first of each block ("at ..." lines:
 * where the throw is) or the last ("File ..." lines and their source
 * line: the most recent call is last).  The regular-expression patterns
 * still see the message as pasted.  On the real messages of
 * bench/search/quality-errors.sh, BM25 alone put a right entry first for
 * 32 of 41 as pasted, 36 keeping three frames a block, 39 keeping one.
 *
 * A text of one line, or one where no line has an exception's shape, is
 * left as it is.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

#define KBX_FOCUS_WEIGHT 3
#define KBX_FOCUS_FRAMES 1      /* frames kept of each block */

enum line_kind { L_OTHER, L_EXCEPTION, L_AT_FRAME, L_FILE_FRAME, L_FRAME_CODE };

static int starts(const char *p, size_t n, const char *w)
{
	size_t l = strlen(w);
	return n >= l && !memcmp(p, w, l);
}

/* "ValueError: x", "asyncio.exceptions.TimeoutError", "KeyError: 'a'",
 * "java.lang.IllegalStateException: x", "TypeError [ERR_X]: y": a dotted
 * name ending in Error, Exception, Warning, Exit, Interrupt or Fault,
 * then the end, ':' or ' ['. */
static int exception_name(const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && (isalnum((unsigned char)p[i]) || p[i] == '_' || p[i] == '.' || p[i] == '$'))
		i++;
	if (!i || (i < n && p[i] != ':' && p[i] != ' '))
		return 0;
	if (i < n && p[i] == ' ' && !(i + 1 < n && p[i + 1] == '['))
		return 0;
	static const char *const ends[] = { "Error", "Exception", "Warning", "Exit",
					    "Interrupt", "Fault", "Iteration" };
	for (size_t k = 0; k < sizeof(ends) / sizeof(ends[0]); k++) {
		size_t l = strlen(ends[k]);
		if (i >= l && !memcmp(p + i - l, ends[k], l))
			return 1;
	}
	return 0;
}

static enum line_kind classify(const char *p, size_t n, int *in_file_frame)
{
	size_t ind = 0;
	while (ind < n && (p[ind] == ' ' || p[ind] == '\t'))
		ind++;
	const char *b = p + ind;
	size_t bn = n - ind;
	if (ind && starts(b, bn, "at "))
		return L_AT_FRAME;
	if (ind && starts(b, bn, "File \"")) {
		*in_file_frame = 1;
		return L_FILE_FRAME;
	}
	if (ind && *in_file_frame)
		return L_FRAME_CODE;      /* the source line under a frame */
	*in_file_frame = 0;
	if (ind)
		return L_OTHER;
	if (starts(b, bn, "Caused by: ") || starts(b, bn, "Exception in thread ") ||
	    starts(b, bn, "panic: ") || starts(b, bn, "fatal error: ") ||
	    starts(b, bn, "error[E") || starts(b, bn, "error: ") ||
	    _kbx_text_has(b, bn, ": error TS") || _kbx_text_has(b, bn, ": error: ") ||
	    _kbx_text_has(b, bn, "): error CS") || starts(b, bn, "Unhandled exception. "))
		return L_EXCEPTION;
	return exception_name(b, bn) ? L_EXCEPTION : L_OTHER;
}

struct line {
	size_t off, len;
	enum line_kind kind;
	int keep;
};

int _kbx_query_focus(const char *text, size_t len, char **out, size_t *outlen)
{
	*out = NULL;
	*outlen = 0;
	size_t nl = 1;
	for (size_t i = 0; i < len; i++)
		nl += text[i] == '\n';
	if (nl < 2)
		return 0;
	struct line *L = calloc(nl, sizeof(*L));
	if (!L)
		return -1;
	size_t n = 0, nexc = 0, last_exc = 0;
	int in_file_frame = 0;
	for (size_t i = 0; i <= len && n < nl;) {
		size_t e, l = _kbx_line_at(text, len, i, &e);
		L[n].off = i;
		L[n].len = l;
		L[n].kind = classify(text + i, l, &in_file_frame);
		L[n].keep = 1;
		if (L[n].kind == L_EXCEPTION) {
			nexc++;
			last_exc = n;
		}
		n++;
		i = e + 1;
	}
	if (!nexc) {
		free(L);
		return 0;
	}
	/* frames: the first few "at" lines of each run, the last few "File"
	 * frames (with their source lines) of each run */
	for (size_t i = 0; i < n;) {
		if (L[i].kind == L_AT_FRAME) {
			size_t k = 0;
			for (; i < n && L[i].kind == L_AT_FRAME; i++)
				L[i].keep = k++ < KBX_FOCUS_FRAMES;
		} else if (L[i].kind == L_FILE_FRAME) {
			size_t b = i, frames = 0;
			for (; i < n && (L[i].kind == L_FILE_FRAME || L[i].kind == L_FRAME_CODE); i++)
				frames += L[i].kind == L_FILE_FRAME;
			size_t seen = 0;
			for (size_t j = b; j < i; j++) {
				seen += L[j].kind == L_FILE_FRAME;
				L[j].keep = seen + KBX_FOCUS_FRAMES > frames;
			}
		} else {
			i++;
		}
	}
	size_t cap = 0;
	for (size_t i = 0; i < n; i++)
		if (L[i].keep)
			cap += (L[i].len + 1) * (L[i].kind == L_EXCEPTION ? KBX_FOCUS_WEIGHT + 1 : 1);
	char *buf = malloc(cap + 1);
	if (!buf) {
		free(L);
		return -1;
	}
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (!L[i].keep)
			continue;
		int times = 1;
		if (L[i].kind == L_EXCEPTION)
			times = KBX_FOCUS_WEIGHT + (i == last_exc);
		for (int t = 0; t < times; t++) {
			memcpy(buf + o, text + L[i].off, L[i].len);
			o += L[i].len;
			buf[o++] = '\n';
		}
	}
	buf[o] = '\0';
	free(L);
	*out = buf;
	*outlen = o;
	return 1;
}
