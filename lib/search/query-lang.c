/*
 * The language a query is about, when it says: from the shape of an
 * error message (a Python traceback, a Java or Node stack, rustc's
 * error[E0502], tsc's TS2345, a Go panic, a .NET exception) or from a
 * word that names the language or a tool or framework of it ("python",
 * "django", "node", "rustc", "goroutine", "spring", "dotnet").
 *
 * kbx search weighs entries of other languages down with it (search.c);
 * --lang says otherwise.  The shape wins over words: a Python traceback
 * that mentions "java" in a path is still Python's.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "search/search.h"

struct shape {
	const char *lang;
	const char *needle;     /* found anywhere */
	const char *also;       /* and this too, when not NULL */
	const char *why;
};

static const struct shape shapes[] = {
	{ "python", "Traceback (most recent call last)", NULL, "a Python traceback" },
	{ "python", "\", line ", "File \"", "a Python traceback's frame" },
	{ "rust", "error[E0", NULL, "a rustc error code" },
	{ "rust", "panicked at", "thread '", "a Rust panic" },
	{ "typescript", "error TS", NULL, "a tsc error code" },
	{ "go", "goroutine ", "panic: ", "a Go panic" },
	{ "go", "panic: runtime error", NULL, "a Go panic" },
	{ "java", "Exception in thread \"", NULL, "a Java stack trace" },
	{ "java", ".java:", "\tat ", "a Java stack trace" },
	{ "csharp", "System.", "Exception", "a .NET exception" },
	{ "javascript", "node:internal", NULL, "a Node stack" },
	{ "javascript", ".js:", "    at ", "a JavaScript stack" },
};

struct word {
	const char *word;
	const char *lang;
};

/* Lower case; whole words of the query. */
static const struct word words[] = {
	{ "python", "python" }, { "python3", "python" }, { "django", "python" },
	{ "fastapi", "python" }, { "asyncio", "python" }, { "pip", "python" },
	{ "pytest", "python" }, { "mypy", "python" },
	{ "javascript", "javascript" }, { "js", "javascript" }, { "node", "javascript" },
	{ "nodejs", "javascript" }, { "npm", "javascript" }, { "react", "javascript" },
	{ "typescript", "typescript" }, { "ts", "typescript" }, { "tsc", "typescript" },
	{ "golang", "go" }, { "goroutine", "go" }, { "goroutines", "go" },
	{ "rust", "rust" }, { "rustc", "rust" }, { "cargo", "rust" },
	{ "java", "java" }, { "jvm", "java" }, { "spring", "java" }, { "hibernate", "java" },
	{ "csharp", "csharp" }, { "dotnet", "csharp" }, { "c#", "csharp" },
};

int _kbx_text_has(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (text[i] == needle[0] && !memcmp(text + i, needle, n))
			return 1;
	return 0;
}

const char *_kbx_query_lang(const char *text, size_t len, char *why, size_t whysz)
{
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		const struct shape *s = &shapes[i];
		if (_kbx_text_has(text, len, s->needle) &&
		    (!s->also || _kbx_text_has(text, len, s->also))) {
			snprintf(why, whysz, "%s", s->why);
			return s->lang;
		}
	}
	/* words: the first that names a language; two languages named
	 * (a comparison, a port) say nothing */
	const char *found = NULL;
	char first[32] = "";
	size_t i = 0;
	while (i < len) {
		while (i < len && !isalnum((unsigned char)text[i]) && text[i] != '#')
			i++;
		size_t b = i;
		while (i < len && (isalnum((unsigned char)text[i]) || text[i] == '#'))
			i++;
		size_t l = i - b;
		if (!l || l >= sizeof(first))
			continue;
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
			if (strlen(words[k].word) != l || strncasecmp(text + b, words[k].word, l))
				continue;
			if (found && strcmp(found, words[k].lang))
				return NULL;
			if (!found) {
				found = words[k].lang;
				memcpy(first, text + b, l);
				first[l] = '\0';
			}
			break;
		}
	}
	/* "go" and "c sharp" are too common or two words: only as "go
	 * program", "in go", "c sharp" */
	if (!found) {
		static const char *const phrases[][2] = {
			{ "in go", "go" }, { "go program", "go" }, { "go code", "go" },
			{ "go slice", "go" }, { "go map", "go" }, { "go type", "go" },
			{ "c sharp", "csharp" }, { ".net", "csharp" },
			{ "entity framework", "csharp" },
		};
		for (size_t k = 0; k < sizeof(phrases) / sizeof(phrases[0]); k++) {
			size_t n = strlen(phrases[k][0]);
			for (size_t j = 0; j + n <= len; j++) {
				if (strncasecmp(text + j, phrases[k][0], n))
					continue;
				if ((j && isalnum((unsigned char)text[j - 1])) ||
				    (j + n < len && isalnum((unsigned char)text[j + n])))
					continue;
				snprintf(why, whysz, "the words '%s'", phrases[k][0]);
				return phrases[k][1];
			}
		}
		return NULL;
	}
	snprintf(why, whysz, "the word '%s'", first);
	return found;
}
