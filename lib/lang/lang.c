/* The table of languages kbx knows, and lookups by path and name. */
#include <string.h>

#include "lang.h"

extern const struct kbx_lang _kbx_lang_c, _kbx_lang_cpp, _kbx_lang_python,
	_kbx_lang_javascript, _kbx_lang_typescript, _kbx_lang_tsx, _kbx_lang_go,
	_kbx_lang_rust, _kbx_lang_java, _kbx_lang_csharp, _kbx_lang_ruby;

/* The position in this table is stored on disk (plus one): only append. */
const struct kbx_lang *const _kbx_languages[] = {
	&_kbx_lang_c,
	&_kbx_lang_cpp,
	&_kbx_lang_python,
	&_kbx_lang_javascript,
	&_kbx_lang_typescript,
	&_kbx_lang_tsx,
	&_kbx_lang_go,
	&_kbx_lang_rust,
	&_kbx_lang_java,
	&_kbx_lang_csharp,
	&_kbx_lang_ruby,
	NULL
};

const struct kbx_lang *_kbx_lang_for_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *dot = strrchr(base, '.');
	for (size_t i = 0; _kbx_languages[i]; i++) {
		const struct kbx_lang *l = _kbx_languages[i];
		if (l->filenames)
			for (size_t j = 0; l->filenames[j]; j++)
				if (!strcmp(base, l->filenames[j]))
					return l;
		if (dot && l->extensions)
			for (size_t j = 0; l->extensions[j]; j++)
				if (!strcmp(dot, l->extensions[j]))
					return l;
	}
	return NULL;
}

int _kbx_lang_is_header(const char *path)
{
	size_t n = strlen(path);
	return n > 2 && !strcmp(path + n - 2, ".h") && _kbx_lang_for_path(path) == &_kbx_lang_c;
}

static int word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* Is the word at p (of length n) a C++ construct, by what follows it? */
static int cpp_word(const char *w, size_t n, const char *end)
{
	const char *p = skip_blank(w + n, end);
	if (n == 9 && !memcmp(w, "namespace", 9))
		return p < end && (*p == '{' || word_char(*p));
	if (n == 8 && !memcmp(w, "template", 8))
		return p < end && *p == '<';
	if ((n == 6 && !memcmp(w, "public", 6)) || (n == 7 && !memcmp(w, "private", 7)) ||
	    (n == 9 && !memcmp(w, "protected", 9)))
		return p < end && *p == ':' && (p + 1 >= end || p[1] != ':');
	if (n == 5 && !memcmp(w, "class", 5)) {
		/* class Name [final] [: bases] {   (not a variable named class) */
		if (p >= end || !word_char(*p))
			return 0;
		while (p < end && word_char(*p))
			p++;
		for (int k = 0; k < 200 && p < end; k++, p++)
			if (*p == '{' || *p == ';' || *p == '(' || *p == ')' || *p == '=')
				return *p == '{';
	}
	return 0;
}

/* Does a header's text use C++?  Comments, strings and character
 * literals are skipped; the first 256 KiB are enough. */
static int looks_cpp(const char *s, size_t len)
{
	const char *p = s, *end = s + (len > 262144 ? 262144 : len);
	int line_start = 1;
	while (p < end) {
		char c = *p;
		if (c == '/' && p + 1 < end && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (c == '/' && p + 1 < end && p[1] == '*') {
			const char *q = p + 2;
			while (q + 1 < end && !(q[0] == '*' && q[1] == '/'))
				q++;
			p = q + 2;
			continue;
		}
		if (c == '"' || c == '\'') {
			for (p++; p < end && *p != c && *p != '\n'; p++)
				if (*p == '\\')
					p++;
			p++;
			continue;
		}
		if (c == '#' && line_start) {
			/* #include <string>: a standard header with no extension */
			const char *q = skip_blank(p + 1, end);
			if (end - q > 7 && !memcmp(q, "include", 7)) {
				q = skip_blank(q + 7, end);
				if (q < end && *q == '<') {
					const char *r = q + 1;
					while (r < end && *r != '>' && *r != '\n' && *r != '.')
						r++;
					if (r < end && *r == '>' && r > q + 1)
						return 1;
				}
			}
		}
		if (c == ':' && p + 1 < end && p[1] == ':')
			return 1;
		if (c == '\n')
			line_start = 1;
		else if (c != ' ' && c != '\t')
			line_start = 0;
		if (word_char(c) && (p == s || !word_char(p[-1]))) {
			const char *w = p;
			while (p < end && word_char(*p))
				p++;
			if (cpp_word(w, (size_t)(p - w), end))
				return 1;
			continue;
		}
		p++;
	}
	return 0;
}

const struct kbx_lang *_kbx_lang_for_text(const char *path, const char *text, size_t len)
{
	const struct kbx_lang *l = _kbx_lang_for_path(path);
	if (l == &_kbx_lang_c && text && _kbx_lang_is_header(path) && looks_cpp(text, len))
		return &_kbx_lang_cpp;
	return l;
}

const struct kbx_lang *_kbx_lang_by_name(const char *name)
{
	for (size_t i = 0; _kbx_languages[i]; i++)
		if (!strcmp(_kbx_languages[i]->name, name))
			return _kbx_languages[i];
	return NULL;
}

int _kbx_lang_id(const struct kbx_lang *lang)
{
	for (size_t i = 0; _kbx_languages[i]; i++)
		if (_kbx_languages[i] == lang)
			return (int)i + 1;
	return 0;
}

const struct kbx_lang *_kbx_lang_from_id(int id)
{
	size_t n = sizeof(_kbx_languages) / sizeof(_kbx_languages[0]) - 1;
	if (id < 1 || (size_t)id > n)
		return NULL;
	return _kbx_languages[id - 1];
}

static const char *const kind_names[KBX_KIND__COUNT] = {
	[KBX_KIND_FILE] = "file",
	[KBX_KIND_MODULE] = "module",
	[KBX_KIND_CLASS] = "class",
	[KBX_KIND_STRUCT] = "struct",
	[KBX_KIND_INTERFACE] = "interface",
	[KBX_KIND_TRAIT] = "trait",
	[KBX_KIND_ENUM] = "enum",
	[KBX_KIND_FUNCTION] = "function",
	[KBX_KIND_METHOD] = "method",
	[KBX_KIND_EXTERNAL] = "external",
	[KBX_KIND_NAMESPACE] = "namespace",
	[KBX_KIND_NAMEREF] = "name",
};

const char *_kbx_kind_name(int kind)
{
	if (kind <= 0 || kind >= KBX_KIND__COUNT)
		return NULL;
	return kind_names[kind];
}

int _kbx_kind_from_name(const char *name)
{
	for (int k = 1; k < KBX_KIND__COUNT; k++)
		if (kind_names[k] && !strcmp(kind_names[k], name))
			return k;
	return 0;
}

int _kbx_lang_family(int id)
{
	const struct kbx_lang *l = _kbx_lang_from_id(id);
	if (!l)
		return 0;
	if (!strcmp(l->name, "c") || !strcmp(l->name, "cpp"))
		return 1;
	if (!strcmp(l->name, "javascript") || !strcmp(l->name, "typescript") ||
	    !strcmp(l->name, "tsx"))
		return 2;
	return 10 + id;
}
