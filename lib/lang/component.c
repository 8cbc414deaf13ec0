/*
 * Vue and Svelte components: the <script> blocks of a .vue or .svelte
 * file, read as JavaScript, or as TypeScript when a block says
 * lang="ts" (or "typescript").  Every byte outside the blocks is blanked
 * (newlines kept) and the JavaScript or TypeScript extractor reads the
 * rest: lines and columns stay those of the whole file.
 *
 * A component is one of four languages: vue and svelte (JavaScript),
 * vue-ts and svelte-ts (TypeScript).  A path names vue or svelte;
 * _kbx_lang_for_text reads the blocks' lang attributes to pick the
 * TypeScript one (_kbx_component_is_ts).
 *
 * What is a script block: a <script ...> tag, its attributes read as
 * HTML does (quoted or bare values, names in any case), up to the next
 * </script.  <!-- comments --> are skipped.  A block is left out, blanked
 * like the markup, when its type says it is no script (type="text/x-
 * template", application/ld+json) or its lang another language (coffee,
 * tsx, which neither grammar reads).  <script setup>, Svelte's
 * <script context="module"> and a second block all count, one after the
 * other in one program.
 *
 * A Vue component written with the options API (export default { ... })
 * is a class named after its file: see vue_options_component().
 */
#include <string.h>
#include <strings.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_javascript)
KBX_GRAMMAR(tree_sitter_typescript)

enum script_kind { SCRIPT_NONE, SCRIPT_JS, SCRIPT_TS };

static int space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Does the value v (vlen bytes) equal one of the words, in any case? */
static int value_is(const char *v, size_t vlen, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		if (strlen(words[i]) == vlen && !strncasecmp(v, words[i], vlen))
			return 1;
	return 0;
}

/* The first occurrence of needle (in any case) in s[at..len), or len. */
static size_t find_nocase(const char *s, size_t len, size_t at, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = at; i + n <= len; i++)
		if (!strncasecmp(s + i, needle, n))
			return i;
	return len;
}

/*
 * Read the attributes of a <script tag from s[at..len) (at is just past
 * "<script"): the tag's end (past '>') in *end, and what its type and
 * lang make of the block.  A self-closing tag holds nothing.
 */
static enum script_kind script_tag(const char *s, size_t len, size_t at, size_t *end,
				   int *self_closing)
{
	static const char *const js_langs[] = { "js", "javascript", "jsx", NULL };
	static const char *const ts_langs[] = { "ts", "typescript", NULL };
	static const char *const js_types[] = {
		"text/javascript", "application/javascript", "module", "text/ecmascript",
		"application/ecmascript", "text/typescript", "application/typescript", NULL
	};
	enum script_kind kind = SCRIPT_JS;
	int type_ok = 1;
	size_t i = at;
	*self_closing = 0;
	while (i < len) {
		while (i < len && space(s[i]))
			i++;
		if (i >= len)
			break;
		if (s[i] == '>') {
			i++;
			break;
		}
		if (s[i] == '/' && i + 1 < len && s[i + 1] == '>') {
			*self_closing = 1;
			i += 2;
			break;
		}
		size_t name = i;
		while (i < len && !space(s[i]) && s[i] != '=' && s[i] != '>' &&
		       !(s[i] == '/' && i + 1 < len && s[i + 1] == '>'))
			i++;
		if (i == name) {
			i++;   /* a stray '/' */
			continue;
		}
		size_t nlen = i - name;
		while (i < len && space(s[i]))
			i++;
		const char *v = NULL;
		size_t vlen = 0;
		if (i < len && s[i] == '=') {
			i++;
			while (i < len && space(s[i]))
				i++;
			if (i < len && (s[i] == '"' || s[i] == '\'')) {
				char q = s[i++];
				v = s + i;
				while (i < len && s[i] != q)
					i++;
				vlen = (size_t)(s + i - v);
				if (i < len)
					i++;
			} else {
				v = s + i;
				while (i < len && !space(s[i]) && s[i] != '>')
					i++;
				vlen = (size_t)(s + i - v);
			}
		}
		if (nlen == 4 && !strncasecmp(s + name, "lang", 4) && v) {
			if (value_is(v, vlen, ts_langs))
				kind = SCRIPT_TS;
			else if (value_is(v, vlen, js_langs))
				kind = SCRIPT_JS;
			else
				kind = SCRIPT_NONE;
		} else if (nlen == 4 && !strncasecmp(s + name, "type", 4) && v && vlen) {
			type_ok = value_is(v, vlen, js_types);
		}
	}
	*end = i;
	return type_ok ? kind : SCRIPT_NONE;
}

/*
 * Walk the script blocks of text[0..len): call keep(data, from, to) for
 * the bytes of each block read as code, and say whether any is
 * TypeScript.
 */
static int scan_blocks(const char *text, size_t len,
		       void (*keep)(void *data, size_t from, size_t to), void *data)
{
	int ts = 0;
	size_t i = 0;
	while (i < len) {
		const char *lt = memchr(text + i, '<', len - i);
		if (!lt)
			break;
		i = (size_t)(lt - text);
		if (i + 4 <= len && !memcmp(text + i, "<!--", 4)) {
			size_t e = i + 4;
			while (e + 3 <= len && memcmp(text + e, "-->", 3))
				e++;
			i = e + 3 <= len ? e + 3 : len;
			continue;
		}
		if (i + 7 < len && !strncasecmp(text + i, "<script", 7) &&
		    (space(text[i + 7]) || text[i + 7] == '>' || text[i + 7] == '/')) {
			size_t body;
			int self_closing;
			enum script_kind k = script_tag(text, len, i + 7, &body, &self_closing);
			if (self_closing) {
				i = body;
				continue;
			}
			size_t close = find_nocase(text, len, body, "</script");
			if (k != SCRIPT_NONE) {
				if (k == SCRIPT_TS)
					ts = 1;
				if (keep)
					keep(data, body, close);
			}
			i = close;
			if (i < len) {
				const char *gt = memchr(text + i, '>', len - i);
				i = gt ? (size_t)(gt - text) + 1 : len;
			}
			continue;
		}
		i++;
	}
	return ts;
}

int _kbx_component_is_ts(const char *text, size_t len)
{
	return scan_blocks(text, len, NULL, NULL);
}

struct blanker {
	char *text;
	size_t len, kept_to;   /* blanked up to here */
	size_t blanked;
};

static void blank_range(struct blanker *b, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (b->text[i] != '\n') {
			b->text[i] = ' ';
			b->blanked++;
		}
}

static void keep_block(void *data, size_t from, size_t to)
{
	struct blanker *b = data;
	blank_range(b, b->kept_to, from);
	b->kept_to = to;
}

static size_t component_mask(char *text, size_t len)
{
	struct blanker b = { text, len, 0, 0 };
	scan_blocks(text, len, keep_block, &b);
	blank_range(&b, b.kept_to, len);
	return b.blanked;
}

/*
 * Vue's options API: `export default { ... }` (or defineComponent({...}))
 * is the component, a class named after its file (Button.vue: Button)
 * whose methods are those the object defines, so that this.f() in one
 * of them is the component's own f.  Its `extends` and `mixins` are its
 * bases.
 */
static void vue_options_component(struct kbx_walk *w, TSNode n)
{
	TSNode obj = _kbx_field(n, "value");
	if (_kbx_is(obj, "call_expression")) {
		TSNode fn = _kbx_field(obj, "function");
		const char *name = _kbx_is(fn, "identifier") ? _kbx_node_text(w, fn) : NULL;
		TSNode args = _kbx_field(obj, "arguments");
		if (!name || strcmp(name, "defineComponent") || ts_node_is_null(args))
			return;
		obj = ts_node_named_child(args, 0);
	}
	if (!_kbx_is(obj, "object"))
		return;
	const char *base = strrchr(w->path, '/');
	base = base ? base + 1 : w->path;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		return;
	int sym = _kbx_walk_define(w, n, KBX_KIND_CLASS,
				   _kbx_arena_strndup(&w->x->arena, base, (size_t)(dot - base)), 1);
	if (sym < 0)
		return;
	uint32_t count = ts_node_named_child_count(obj);
	for (uint32_t i = 0; i < count; i++) {
		TSNode pair = ts_node_named_child(obj, i);
		const char *key = _kbx_is(pair, "pair") ? _kbx_field_text(w, pair, "key") : NULL;
		if (!key || (strcmp(key, "extends") && strcmp(key, "mixins")))
			continue;
		TSNode v = _kbx_field(pair, "value");
		uint32_t nv = _kbx_is(v, "array") ? ts_node_named_child_count(v) : 1;
		for (uint32_t k = 0; k < nv; k++) {
			TSNode b = _kbx_is(v, "array") ? ts_node_named_child(v, k) : v;
			if (_kbx_is(b, "identifier") || _kbx_is(b, "member_expression"))
				_kbx_x_inherit(w->x, sym, _kbx_jsc_clean_text(w, b, 0), _kbx_node_line(b));
		}
	}
}

static int vue_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	if (!strcmp(type, "export_statement"))
		vue_options_component(w, n);
	return _kbx_js_visit(w, n, type);
}

static int vue_ts_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	if (!strcmp(type, "export_statement"))
		vue_options_component(w, n);
	return _kbx_ts_visit(w, n, type);
}

/* The top-level definitions of a component's script are what its
 * markup can use: <script setup>'s and Svelte's bindings, and the
 * functions a block defines for it.  Exported, so kbx dead does not
 * count them as never called. */
static void component_visibility(struct kbx_walk *w, TSNode n, int sym)
{
	_kbx_js_visibility(w, n, sym);
	if (sym >= 0 && (size_t)sym < w->x->nsyms && w->x->syms[sym].parent < 0)
		w->x->syms[sym].flags |= KBX_SYM_EXPORTED;
}

static const char *const vue_extensions[] = { ".vue", NULL };
static const char *const svelte_extensions[] = { ".svelte", NULL };

#define COMPONENT(var, lname, exts, gram, vis, beg)                                   \
	const struct kbx_lang var = {                                                 \
		.name = lname,                                                        \
		.extensions = exts,                                                   \
		.grammar = gram,                                                      \
		.visit = vis,                                                         \
		.begin = beg,                                                         \
		.end = _kbx_js_end,                                                   \
		.import_candidates = _kbx_js_import_candidates,                       \
		.implicit_self = 0,                                                   \
		.nested_defs = 1,                                                     \
		.scope_sep = ".",                                                     \
		.mask = component_mask,                                               \
		.visibility = component_visibility,                                   \
	}

COMPONENT(_kbx_lang_vue, "vue", vue_extensions, kbx_tree_sitter_javascript, vue_visit,
	  _kbx_js_begin);
COMPONENT(_kbx_lang_vue_ts, "vue-ts", NULL, kbx_tree_sitter_typescript, vue_ts_visit,
	  _kbx_ts_begin);
COMPONENT(_kbx_lang_svelte, "svelte", svelte_extensions, kbx_tree_sitter_javascript,
	  _kbx_js_visit, _kbx_js_begin);
COMPONENT(_kbx_lang_svelte_ts, "svelte-ts", NULL, kbx_tree_sitter_typescript, _kbx_ts_visit,
	  _kbx_ts_begin);
