/*
 * Bash (and POSIX sh): functions, the commands that may call them, and
 * `source FILE` / `. FILE` as imports.
 *
 * A command is a call of a function only when a function of that name is
 * defined in the same shell: in the script itself or in a script it
 * sources.  The language says so (calls_in_imports_only), and the
 * resolver then looks nowhere else: a command named like a function of
 * some other script is a program of that name, an unresolved call.
 * Builtins and keywords (echo, cd, test, local...) are not reported; a
 * command named by an expansion ($cmd) or a path is a call through a
 * value, never a function of the script.
 */
#include <string.h>

#include "lang.h"

const TSLanguage *tree_sitter_bash(void);

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
	} else if (!strcmp(type, "comment") || !strcmp(type, "heredoc_body")) {
		return KBX_WALK_SKIP;
	}
	return KBX_WALK_CONTINUE;
}

static const char *const bash_extensions[] = { ".sh", ".bash", NULL };

const struct kbx_lang _kbx_lang_bash = {
	.name = "bash",
	.extensions = bash_extensions,
	.grammar = tree_sitter_bash,
	.visit = bash_visit,
	.import_candidates = _kbx_include_candidates,
	.scope_sep = ".",
	.calls_in_imports_only = 1,
};
