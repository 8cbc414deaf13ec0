/*
 * Bash (and POSIX sh): functions, the commands that may call them, and
 * `source FILE` / `. FILE` as imports.
 *
 * A command is a call of a function only when a function of that name is
 * defined in the same shell: in the script itself or in a script it
 * sources, which proves it.  The language says so (calls_in_imports_only,
 * loaded_elsewhere): the resolver then takes a function of that name in
 * another script for a candidate only (the shell may have loaded it some
 * other way: a completion script runs in the shell that loaded
 * bash_completion), and a command no script defines is a program.
 * Builtins and keywords (echo, cd, test, local...) are not reported; a
 * command named by an expansion ($cmd) or a path is a call through a
 * value, never a function of the script.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_bash)

static int is_builtin(const char *name)
{
	static const char *const words[] = {
		".", ":", "[", "[[", "alias", "bg", "bind", "break", "builtin", "caller", "cd",
		"command", "compgen", "complete", "continue", "declare", "dirs", "disown", "echo",
		"enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash",
		"help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
		"printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set",
		"shift", "shopt", "source", "suspend", "test", "times", "trap", "true", "type",
		"typeset", "ulimit", "umask", "unalias", "unset", "wait", NULL
	};
	for (size_t i = 0; words[i]; i++)
		if (!strcmp(name, words[i]))
			return 1;
	return 0;
}

/* A word that can name a function: no expansion, quote or path. */
static int plain_word(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (strchr("$/\\\"'`=*?[]{}~", *s) || (unsigned char)*s <= ' ')
			return 0;
	return 1;
}

/*
 * Variables that hold a script's directory, or a path from it, for the
 * source lines that use them: DIR=$(dirname "$0"),
 * HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd),
 * TOP="${BASH_SOURCE%/*}/..", ROOT=$(cd "$(dirname "$0")/.." && pwd).
 */
#define DIR_VARS 16

struct dir_var {
	const char *name;       /* in the extract's arena */
	const char *rest;       /* "" or a path from the directory ("..") */
	int level;              /* 1: the sourcing file's (BASH_SOURCE), 0: $0's */
};

struct bash_state {
	struct dir_var v[DIR_VARS];
	size_t n;
};

static void bash_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct bash_state));
}

static size_t bash_pieces(const char *src, size_t len, uint32_t *starts, size_t max);
static const char *header_name(const char *p, const char *end, size_t *len);

/*
 * In a file the grammar could not read whole, a piece that does not
 * parse even alone gives no function: its header line still says one
 * is defined there, over the piece's lines, and the commands the grammar
 * read in them are its calls.
 */
static void define_lost(struct kbx_walk *w)
{
	struct kbx_extract *x = w->x;
	uint32_t starts[KBX_MAX_PIECES];
	size_t n = bash_pieces(w->src, w->len, starts, KBX_MAX_PIECES);
	uint32_t line = 1;
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		for (; at < starts[i]; at++)
			line += w->src[at] == '\n';
		size_t nlen;
		const char *name = header_name(w->src + starts[i], w->src + w->len, &nlen);
		if (!name)
			continue;
		int found = 0;
		for (size_t k = 0; k < x->nsyms && !found; k++)
			found = x->syms[k].line == line && strlen(x->syms[k].name) == nlen &&
				!strncmp(x->syms[k].name, name, nlen);
		if (found)
			continue;
		uint32_t last = line;
		size_t to = i + 1 < n ? starts[i + 1] : w->len;
		for (size_t k = starts[i]; k + 1 < to; k++)
			last += w->src[k] == '\n';
		const char *s = _kbx_arena_strndup(&w->x->arena, name, nlen);
		int sym = s ? _kbx_x_sym(x, KBX_KIND_FUNCTION, s, s, -1, line, 1, last) : -1;
		/* the commands the grammar still read in its lines are its */
		for (size_t k = 0; sym >= 0 && k < x->ncalls; k++)
			if (x->calls[k].caller < 0 && x->calls[k].line > line &&
			    x->calls[k].line <= last)
				x->calls[k].caller = sym;
	}
}

static void bash_end(struct kbx_walk *w)
{
	if (w->x->had_errors)
		define_lost(w);
	free(w->lang_state);
	w->lang_state = NULL;
}

/*
 * Where text names a script's directory ("$(dirname "$0")",
 * "${BASH_SOURCE%/*}", "$(dirname "${BASH_SOURCE[0]}")"), the point just
 * after that name, and its level (1 for BASH_SOURCE); NULL when it names
 * none.
 */
static const char *after_script_dir(const char *text, int *level)
{
	const char *p = strstr(text, "BASH_SOURCE");
	*level = p != NULL;
	if (p) {
		if (p > text && p[-1] == '{') {         /* ${BASH_SOURCE%/*} */
			const char *e = strchr(p, '}');
			if (!e)
				return NULL;
			if (strncmp(p + 11, "%/*", 3) && strncmp(p + 11, "[0]%/*", 6)) {
				/* ${BASH_SOURCE[0]}: the file, inside a dirname */
				p = e + 1;
			} else {
				return e + 1;
			}
		}
	} else if (!(p = strstr(text, "\"$0\"")) && !(p = strstr(text, "$0"))) {
		return NULL;
	}
	/* inside $(dirname ...): after its closing parenthesis */
	const char *d = strstr(text, "dirname");
	if (!d || d > p)
		return NULL;
	int depth = 0;
	for (const char *q = d; *q; q++) {
		if (*q == '(')
			depth++;
		else if (*q == ')' && depth-- == 0)
			return q + 1;
	}
	return NULL;
}

/* A literal path piece of text from p (up to a quote, a space, an
 * expansion or the end of a command substitution): "" when none. */
static const char *literal_rest(struct kbx_walk *w, const char *p)
{
	const char *e = p;
	while (*e && !strchr("\"' \t$`)&;|", *e))
		e++;
	return _kbx_arena_strndup(&w->x->arena, p, (size_t)(e - p));
}

static void visit_assignment(struct kbx_walk *w, TSNode n)
{
	struct bash_state *st = w->lang_state;
	const char *name = _kbx_field_text(w, n, "name");
	const char *value = _kbx_field_text(w, n, "value");
	int level;
	if (!st || !name || !value || st->n == DIR_VARS)
		return;
	const char *after = after_script_dir(value, &level);
	if (!after)
		return;
	/* $(cd "$(dirname "$0")/.." && pwd): the piece inside the cd */
	const char *rest = literal_rest(w, *after == '"' ? after + 1 : after);
	if (!rest || (*rest && *rest != '/'))
		return;
	struct dir_var *v = &st->v[st->n++];
	v->name = _kbx_arena_strndup(&w->x->arena, name, strlen(name));
	v->rest = *rest ? rest + 1 : rest;
	v->level = level;
}

/* "$DIR/lib/x.sh", "${DIR}/lib/x.sh", $DIR/lib/x.sh with DIR a script's
 * directory: the path from that directory, and its level; NULL if not. */
static const char *from_dir_var(struct kbx_walk *w, const char *text, int *level)
{
	const struct bash_state *st = w->lang_state;
	const char *p = text;
	if (!st || !st->n)
		return NULL;
	if (*p == '"')
		p++;
	if (*p++ != '$')
		return NULL;
	int brace = *p == '{';
	p += brace;
	const char *name = p;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '_')
		p++;
	size_t len = (size_t)(p - name);
	if (!len || (brace && *p++ != '}') || *p != '/')
		return NULL;
	for (size_t i = st->n; i-- > 0;) {
		const struct dir_var *v = &st->v[i];
		if (strlen(v->name) != len || strncmp(v->name, name, len))
			continue;
		const char *rest = literal_rest(w, p + 1);
		if (!rest || !*rest || strchr(rest, '$'))
			return NULL;
		*level = v->level;
		if (!*v->rest)
			return rest;
		char path[4096];
		int plen = snprintf(path, sizeof(path), "%s/%s", v->rest, rest);
		if (plen < 0 || (size_t)plen >= sizeof(path))
			return NULL;
		return _kbx_arena_strndup(&w->x->arena, path, (size_t)plen);
	}
	return NULL;
}

/*
 * source FILE: a literal path, or one made from a script's directory:
 * "${BASH_SOURCE%/*}/x.sh" and "$(dirname "${BASH_SOURCE[0]}")/x.sh" are
 * beside the sourcing file (level 1); a literal path and
 * "$(dirname "$0")/x.sh", the directory of the script that was run
 * (which may be another one, that sourced this), are tried beside it and
 * then from the top (level 0).
 */
static void visit_source(struct kbx_walk *w, TSNode n, TSNode arg)
{
	const char *t = ts_node_type(arg);
	const char *text = _kbx_node_text(w, arg);
	if (!text)
		return;
	int level;
	const char *via_var = from_dir_var(w, text, &level);
	if (via_var) {
		_kbx_x_import(w->x, via_var, NULL, NULL, level, KBX_IMPORT_WILDCARD,
			      _kbx_node_line(n));
		return;
	}
	if (!strcmp(t, "word")) {
		if (!strchr(text, '$') && !strchr(text, '`'))
			_kbx_x_import(w->x, text, NULL, NULL, 0, KBX_IMPORT_WILDCARD,
				      _kbx_node_line(n));
		return;
	}
	if (strcmp(t, "string") && strcmp(t, "concatenation") && strcmp(t, "raw_string"))
		return;
	if (!strcmp(t, "raw_string")) {
		size_t len = strlen(text);
		if (len >= 2)
			_kbx_x_import(w->x, _kbx_arena_strndup(&w->x->arena, text + 1, len - 2),
				      NULL, NULL, 0, KBX_IMPORT_WILDCARD, _kbx_node_line(n));
		return;
	}
	/* "$(dirname "$0")/lib/x.sh": the script's directory, then a
	 * literal rest */
	if (!strstr(text, "dirname") && !strstr(text, "BASH_SOURCE"))
		return;
	const char *end = text + strlen(text);
	if (end > text && *(end - 1) == '"')
		end--;
	const char *rest = end;
	while (rest > text && !strchr("$`)}\"", *(rest - 1)))
		rest--;
	if (rest == end || *rest != '/' || rest[1] == '\0')
		return;
	const char *path = _kbx_arena_strndup(&w->x->arena, rest + 1, (size_t)(end - rest - 1));
	if (path && !strchr(path, '$'))
		_kbx_x_import(w->x, path, NULL, NULL, strstr(text, "BASH_SOURCE") ? 1 : 0,
			      KBX_IMPORT_WILDCARD, _kbx_node_line(n));
}

static void visit_command(struct kbx_walk *w, TSNode n)
{
	TSNode cn = _kbx_field(n, "name");
	TSNode word = ts_node_is_null(cn) ? cn : ts_node_named_child(cn, 0);
	if (!_kbx_is(word, "word"))
		return;  /* $cmd, "$(...)" */
	const char *name = _kbx_node_text(w, word);
	if (!name)
		return;
	if (!strcmp(name, "source") || !strcmp(name, ".")) {
		TSNode arg = _kbx_field(n, "argument");
		if (!ts_node_is_null(arg))
			visit_source(w, n, arg);
		return;
	}
	if (!plain_word(name) || is_builtin(name))
		return;
	/* `name()` that the grammar could not read as a definition (in a
	 * piece that does not parse): a header, no call */
	const char *p = w->src + ts_node_end_byte(word), *end = w->src + w->len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p >= 2 && p[0] == '(' && p[1] == ')')
		return;
	_kbx_walk_call(w, n, name, KBX_RECV_NONE, NULL);
}

static int bash_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	if (!strcmp(type, "function_definition")) {
		const char *name = _kbx_field_text(w, n, "name");
		if (name)
			_kbx_walk_define(w, n, KBX_KIND_FUNCTION, name, 1);
	} else if (!strcmp(type, "command")) {
		visit_command(w, n);
	} else if (!strcmp(type, "variable_assignment")) {
		visit_assignment(w, n);
	} else if (!strcmp(type, "comment") || !strcmp(type, "heredoc_body")) {
		return KBX_WALK_SKIP;
	}
	return KBX_WALK_CONTINUE;
}

/* Is c a byte of a function's name?  Bash takes more than a variable's
 * (bash_completion has __ltrim_colon_completions, _comp_cmd_git-x). */
static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == ':' || c == '.' || c == '@';
}

/* The name a line starting at p defines at its start, `name()` or
 * `function name`, and its length; NULL when the line defines none. */
static const char *header_name(const char *p, const char *end, size_t *len)
{
	const char *q, *name;
	if (end - p > 9 && !memcmp(p, "function", 8) && (p[8] == ' ' || p[8] == '\t')) {
		for (q = p + 8; q < end && (*q == ' ' || *q == '\t'); q++)
			;
		for (name = q; q < end && name_char(*q); q++)
			;
		if (q == name || *name == '-')
			return NULL;
		*len = (size_t)(q - name);
		return name;
	}
	if (p >= end || !name_char(*p) || *p == '-' || (*p >= '0' && *p <= '9'))
		return NULL;
	for (name = q = p; q < end && name_char(*q); q++)
		;
	*len = (size_t)(q - name);
	while (q < end && (*q == ' ' || *q == '\t'))
		q++;
	return end - q >= 2 && q[0] == '(' && q[1] == ')' ? name : NULL;
}

/*
 * The pieces of a script tree-sitter-bash could not read whole (kbx_lang's
 * pieces): one begins at each function defined at the start of a line,
 * `name()` or `function name`, with whatever top-level code follows it
 * up to the next; the first at 0.
 */
static size_t bash_pieces(const char *src, size_t len, uint32_t *starts, size_t max)
{
	size_t n = 0, nlen;
	if (!max)
		return 0;
	starts[n++] = 0;
	for (size_t i = 0; i < len && n < max;) {
		const char *p = src + i, *end = src + len;
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t next = eol ? (size_t)(eol - src) + 1 : len;
		if (i > starts[n - 1] && header_name(p, end, &nlen))
			starts[n++] = (uint32_t)i;
		i = next;
	}
	return n;
}

static const char *const bash_extensions[] = { ".sh", ".bash", NULL };

const struct kbx_lang _kbx_lang_bash = {
	.name = "bash",
	.extensions = bash_extensions,
	.grammar = kbx_tree_sitter_bash,
	.visit = bash_visit,
	.begin = bash_begin,
	.end = bash_end,
	.pieces = bash_pieces,
	.import_candidates = _kbx_include_candidates,
	.scope_sep = ".",
	.calls_in_imports_only = 1,
	.loaded_elsewhere = 1,
	/* f() { ...; } twice in a script, or once in each branch of
	 * `_have x && { f() {...} } || { f() {...} }`: the one that ran
	 * last is the one called */
	.later_shadows = 1,
};
