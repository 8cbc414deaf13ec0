/* The table of languages kbx knows, and lookups by path and name. */
#include <string.h>

#include "lang.h"

extern const struct kbx_lang _kbx_lang_c, _kbx_lang_cpp, _kbx_lang_python,
	_kbx_lang_javascript, _kbx_lang_typescript, _kbx_lang_tsx, _kbx_lang_go,
	_kbx_lang_rust, _kbx_lang_java, _kbx_lang_csharp, _kbx_lang_ruby, _kbx_lang_php,
	_kbx_lang_lua, _kbx_lang_bash;

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

const struct kbx_lang *_kbx_lang_for_text(const char *path, const char *text, size_t len)
{
	const struct kbx_lang *l = _kbx_lang_for_path(path);
	if (l == &_kbx_lang_c && text && _kbx_lang_is_header(path) &&
	    _kbx_c_looks_cpp(text, len))
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
	if (!strcmp(l->name, "c") || !strcmp(l->name, "cpp"))
		return 1;
	if (!strcmp(l->name, "javascript") || !strcmp(l->name, "typescript") ||
	    !strcmp(l->name, "tsx"))
		return 2;
	return 10 + id;
}
