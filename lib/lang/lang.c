/* The table of languages kbx knows, and lookups by path and name. */
#define _GNU_SOURCE
#include <string.h>
#include <strings.h>

#include "lang.h"

extern const struct kbx_lang _kbx_lang_c, _kbx_lang_cpp, _kbx_lang_python,
	_kbx_lang_javascript, _kbx_lang_typescript, _kbx_lang_tsx, _kbx_lang_go,
	_kbx_lang_rust, _kbx_lang_java, _kbx_lang_csharp, _kbx_lang_ruby, _kbx_lang_php,
	_kbx_lang_lua, _kbx_lang_bash, _kbx_lang_vue, _kbx_lang_vue_ts, _kbx_lang_svelte,
	_kbx_lang_svelte_ts, _kbx_lang_kotlin, _kbx_lang_swift,
	_kbx_lang_scala, _kbx_lang_dart, _kbx_lang_objc, _kbx_lang_elixir, _kbx_lang_zig,
	_kbx_lang_ocaml, _kbx_lang_haskell;

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
	&_kbx_lang_php,
	&_kbx_lang_lua,
	&_kbx_lang_bash,
	&_kbx_lang_vue,
	&_kbx_lang_vue_ts,
	&_kbx_lang_svelte,
	&_kbx_lang_svelte_ts,
	&_kbx_lang_kotlin,
	&_kbx_lang_swift,
	&_kbx_lang_scala,
	&_kbx_lang_dart,
	&_kbx_lang_objc,
	&_kbx_lang_elixir,
	&_kbx_lang_zig,
	&_kbx_lang_ocaml,
	&_kbx_lang_haskell,
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

int _kbx_lang_text_decides(const char *path)
{
	const struct kbx_lang *l = _kbx_lang_for_path(path);
	return _kbx_lang_is_header(path) || l == &_kbx_lang_vue || l == &_kbx_lang_svelte;
}

int _kbx_lang_text_variant(const struct kbx_lang *lang, const struct kbx_lang *then)
{
	if (lang == &_kbx_lang_c)
		return then == &_kbx_lang_cpp || then == &_kbx_lang_objc;
	if (lang == &_kbx_lang_vue)
		return then == &_kbx_lang_vue_ts;
	if (lang == &_kbx_lang_svelte)
		return then == &_kbx_lang_svelte_ts;
	return 0;
}

int _kbx_lang_may_be_script(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	return *base && !strchr(base + 1, '.') && !_kbx_lang_for_path(path);
}

/* What interpreters and editors call a language, and kbx's name for it. */
static const struct {
	const char *word, *lang;
} script_names[] = {
	{ "ash", "bash" }, { "bash", "bash" }, { "dash", "bash" }, { "ksh", "bash" },
	{ "mksh", "bash" }, { "sh", "bash" }, { "shell-script", "bash" },
	{ "lua", "lua" }, { "luajit", "lua" },
	{ "php", "php" },
	{ "python", "python" }, { "pypy", "python" },
	{ "ruby", "ruby" },
	{ "node", "javascript" }, { "nodejs", "javascript" }, { "javascript", "javascript" },
	{ "js", "javascript" },
	{ "typescript", "typescript" }, { "ts-node", "typescript" },
	{ "c", "c" }, { "cpp", "cpp" }, { "c++", "cpp" }, { "go", "go" }, { "rust", "rust" },
	{ "java", "java" }, { "cs", "csharp" }, { "csharp", "csharp" },
	{ "kotlin", "kotlin" }, { "kscript", "kotlin" }, { "swift", "swift" },
	{ "scala", "scala" }, { "scala-cli", "scala" }, { "dart", "dart" },
	{ "objc", "objc" }, { "objective-c", "objc" }, { "elixir", "elixir" },
	{ "zig", "zig" }, { "ocaml", "ocaml" }, { "tuareg", "ocaml" },
	{ "runghc", "haskell" }, { "runhaskell", "haskell" }, { "haskell", "haskell" },
};

/* The language an interpreter's or a file type's name (len bytes at
 * word) stands for: "python3.11", "lua5.4" and "php8.2" are their
 * language's; NULL for any other word. */
static const struct kbx_lang *lang_of_word(const char *word, size_t len)
{
	size_t n = len;
	while (n > 1 && ((word[n - 1] >= '0' && word[n - 1] <= '9') || word[n - 1] == '.'))
		n--;
	if (!n || n > 16)
		return NULL;
	for (size_t i = 0; i < sizeof(script_names) / sizeof(script_names[0]); i++)
		if (strlen(script_names[i].word) == n && !strncasecmp(word, script_names[i].word, n))
			return _kbx_lang_by_name(script_names[i].lang);
	return NULL;
}

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/* #!/bin/sh, #!/usr/bin/env -S lua -e x, #! /usr/bin/python3 -u: the
 * interpreter's base name, past env and its options and settings. */
static const struct kbx_lang *lang_of_shebang(const char *line, size_t len)
{
	size_t i = 2, w;
	int after_env = 0;
	for (;;) {
		while (i < len && blank(line[i]))
			i++;
		for (w = i; w < len && !blank(line[w]) && line[w] != '\r'; w++)
			;
		if (w == i)
			return NULL;
		const char *word = line + i;
		size_t wlen = w - i;
		i = w;
		if (after_env && (word[0] == '-' || memchr(word, '=', wlen)))
			continue;   /* env -S, env VAR=value */
		const char *slash = word;
		for (size_t k = 0; k < wlen; k++)
			if (word[k] == '/')
				slash = word + k + 1;
		wlen -= (size_t)(slash - word);
		word = slash;
		if (!after_env && wlen == 3 && !memcmp(word, "env", 3)) {
			after_env = 1;
			continue;
		}
		return lang_of_word(word, wlen);
	}
}

/* A modeline in one line: vim's "vim: set ft=lua:", "vi: filetype=sh",
 * "ex: ft=php"; Emacs's "-*- mode: lua -*-" and "-*- lua -*-". */
static const struct kbx_lang *lang_of_modeline(const char *line, size_t len)
{
	static const char *const marks[] = { "vim:", "vi:", "ex:", "vim600:", NULL };
	for (size_t m = 0; marks[m]; m++) {
		size_t ml = strlen(marks[m]);
		for (size_t i = 0; i + ml <= len; i++) {
			if (memcmp(line + i, marks[m], ml) || (i && !blank(line[i - 1])))
				continue;
			for (size_t j = i + ml; j + 3 < len; j++) {
				size_t k;
				if (!memcmp(line + j, "ft=", 3))
					k = j + 3;
				else if (j + 9 < len && !memcmp(line + j, "filetype=", 9))
					k = j + 9;
				else
					continue;
				if (j > i + ml && !blank(line[j - 1]) && line[j - 1] != ':')
					continue;
				size_t e = k;
				while (e < len && !blank(line[e]) && line[e] != ':' && line[e] != '\r')
					e++;
				return lang_of_word(line + k, e - k);
			}
		}
	}
	const char *a = len >= 3 ? memmem(line, len, "-*-", 3) : NULL;
	const char *b = a ? memmem(a + 3, len - (size_t)(a + 3 - line), "-*-", 3) : NULL;
	if (!b)
		return NULL;
	const char *p = a + 3, *end = b;
	const char *mode = memmem(p, (size_t)(end - p), "mode:", 5);
	if (mode && (mode == p || blank(mode[-1]) || mode[-1] == ';'))
		p = mode + 5;
	else if (memchr(p, ':', (size_t)(end - p)))
		return NULL;   /* other variables, no mode */
	while (p < end && blank(*p))
		p++;
	const char *q = p;
	while (q < end && !blank(*q) && *q != ';')
		q++;
	return lang_of_word(p, (size_t)(q - p));
}

#define MODELINE_LINES 5

const struct kbx_lang *_kbx_lang_for_script(const char *head, size_t hlen, const char *tail,
					    size_t tlen)
{
	const char *nl = memchr(head, '\n', hlen);
	size_t first = nl ? (size_t)(nl - head) : hlen;
	if (first >= 2 && head[0] == '#' && head[1] == '!')
		return lang_of_shebang(head, first);
	/* the first lines, then the last ones (vim reads five of each) */
	size_t at = 0;
	for (int n = 0; n < MODELINE_LINES && at < hlen; n++) {
		nl = memchr(head + at, '\n', hlen - at);
		size_t end = nl ? (size_t)(nl - head) : hlen;
		const struct kbx_lang *l = lang_of_modeline(head + at, end - at);
		if (l)
			return l;
		if (!nl)
			break;
		at = end + 1;
	}
	if (!tail || !tlen)
		return NULL;
	size_t end = tlen;
	if (end && tail[end - 1] == '\n')
		end--;   /* the last line's end; blank lines count as lines */
	for (int n = 0; n < MODELINE_LINES && end; n++) {
		size_t start = end;
		while (start && tail[start - 1] != '\n')
			start--;
		const struct kbx_lang *l = lang_of_modeline(tail + start, end - start);
		if (l)
			return l;
		if (!start)
			break;
		end = start - 1;
	}
	return NULL;
}

const struct kbx_lang *_kbx_lang_for_text(const char *path, const char *text, size_t len)
{
	const struct kbx_lang *l = _kbx_lang_for_path(path);
	if (!l && text && _kbx_lang_may_be_script(path)) {
		size_t peek = len < KBX_SCRIPT_PEEK ? len : KBX_SCRIPT_PEEK;
		return _kbx_lang_for_script(text, peek, text + len - peek, peek);
	}
	if (l == &_kbx_lang_c && text && _kbx_lang_is_header(path) &&
	    _kbx_objc_looks_objc(text, len))
		return &_kbx_lang_objc;
	if (l == &_kbx_lang_c && text && _kbx_lang_is_header(path) &&
	    _kbx_c_looks_cpp(text, len))
		return &_kbx_lang_cpp;
	if (l == &_kbx_lang_vue && text && _kbx_component_is_ts(text, len))
		return &_kbx_lang_vue_ts;
	if (l == &_kbx_lang_svelte && text && _kbx_component_is_ts(text, len))
		return &_kbx_lang_svelte_ts;
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
	[KBX_KIND_MACRO] = "macro",
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
	if (!strcmp(l->name, "c") || !strcmp(l->name, "cpp") || !strcmp(l->name, "objc"))
		return 1;
	if (!strcmp(l->name, "javascript") || !strcmp(l->name, "typescript") ||
	    !strcmp(l->name, "tsx") || _kbx_lang_script_name(l->name))
		return 2;
	return 10 + id;
}

const char *_kbx_lang_script_name(const char *name)
{
	if (!strcmp(name, "vue") || !strcmp(name, "svelte"))
		return "javascript";
	if (!strcmp(name, "vue-ts") || !strcmp(name, "svelte-ts"))
		return "typescript";
	return NULL;
}
