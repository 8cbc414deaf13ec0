/*
 * PHP: classes, interfaces, traits and enums with their methods, functions,
 * namespaces (`namespace A\B;` and `namespace A\B { }`, which qualify what
 * they hold: A.B.User), calls (f(), \A\f(), $this->m(), self::m(),
 * static::m(), parent::m(), Foo::m(), $x->m(), new Foo), `use` imports
 * (with `as` and groups), include/require of a literal path (a wildcard
 * import, as Ruby's require), and extends, implements and trait `use` as
 * inheritance.
 *
 * Names are written with '\' in PHP and kept with '.' here, as every other
 * language's qualified names.  A variable's type is known where it is a
 * typed parameter or was assigned `new T` in the same function; any other
 * `$x->m()` has a receiver of unknown type ("?"), which no name proves.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "js-common.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_php)

struct php_state {
	const char *ns;      /* the current namespace, dotted, or NULL */
	uint32_t ns_end;     /* where it ends (a braced one), else UINT32_MAX */
	struct php_use {
		const char *name;    /* a local name `use` has bound so far */
		const char *full;    /* what it stands for, dotted */
	} *used;
	size_t nused, aused;
};

static void php_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct php_state));
}

static void php_end(struct kbx_walk *w)
{
	struct php_state *st = w->lang_state;
	if (st)
		free(st->used);
	free(st);
	w->lang_state = NULL;
}

/* A name as written ("\App\Models\User", "namespace_name") as "App.Models.User",
 * in the arena; NULL when n is null or empty. */
static const char *php_name(struct kbx_walk *w, TSNode n)
{
	if (ts_node_is_null(n))
		return NULL;
	const char *t = _kbx_node_text(w, n);
	if (!t)
		return NULL;
	while (*t == '\\' || *t == ' ')
		t++;
	size_t len = strlen(t);
	if (!len || len > 400)
		return NULL;
	char *s = (char *)_kbx_arena_strndup(&w->x->arena, t, len);
	if (!s)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\')
			s[o++] = '.';
		else if (_kbx_word_char(c))
			s[o++] = (char)c;
	}
	s[o] = '\0';
	return o ? s : NULL;
}

/* The namespace that holds byte pos, or NULL. */
static const char *current_ns(struct kbx_walk *w, uint32_t pos)
{
	struct php_state *st = w->lang_state;
	if (!st || !st->ns)
		return NULL;
	if (pos >= st->ns_end) {
		st->ns = NULL;
		return NULL;
	}
	return st->ns;
}

/* Define name at n: inside a class, a member; at the top, qualified by
 * the namespace. */
static int php_define(struct kbx_walk *w, TSNode n, int kind)
{
	const char *name = php_name(w, _kbx_field(n, "name"));
	if (!name)
		return -1;
	int parent = _kbx_walk_parent(w);
	const char *ns = parent < 0 ? current_ns(w, ts_node_start_byte(n)) : NULL;
	if (!ns)
		return _kbx_walk_define(w, n, kind, name, 1);
	const char *qual = _kbx_join(w, ns, ".", name);
	if (!qual || qual == _kbx_qual_too_long)
		return -1;
	int sym = _kbx_x_sym_at(w->x, kind, name, qual, -1, n);
	if (sym >= 0)
		_kbx_walk_scope(w, sym);
	return sym;
}

/*
 * A class as a name n refers to it, qualified as PHP resolves it: a name
 * written with a leading '\' as it is; a name a `use` binds as written
 * (the resolver follows the import); a qualified name whose first part
 * a `use` binds, that part replaced by what the use names (use
 * A\Rules\English; English\Factory is A.Rules.English.Factory: the
 * import binds a namespace, which has no node to follow); any other
 * inside a namespace in that namespace (Item in namespace Shop is
 * Shop.Item).
 */
static const char *class_ref(struct kbx_walk *w, TSNode n)
{
	struct php_state *st = w->lang_state;
	const char *name = php_name(w, n);
	const char *raw = name ? _kbx_node_text(w, n) : NULL;
	if (!raw || raw[0] == '\\' || !st)
		return name;
	size_t first = strcspn(name, ".");
	for (size_t i = st->nused; i-- > 0;) {
		const struct php_use *u = &st->used[i];
		if (strlen(u->name) != first || strncmp(u->name, name, first))
			continue;
		if (!name[first])
			return name;
		const char *q = _kbx_join(w, u->full, "", name + first);
		return q == _kbx_qual_too_long ? NULL : q;
	}
	const char *ns = current_ns(w, ts_node_start_byte(n));
	if (!ns)
		return name;
	const char *q = _kbx_join(w, ns, ".", name);
	return q == _kbx_qual_too_long ? NULL : q;
}

/* The names a base_clause, class_interface_clause or trait use lists. */
static void add_bases(struct kbx_walk *w, int sym, TSNode list)
{
	if (sym < 0 || ts_node_is_null(list))
		return;
	uint32_t count = ts_node_named_child_count(list);
	for (uint32_t i = 0; i < count; i++) {
		TSNode b = ts_node_named_child(list, i);
		const char *t = ts_node_type(b);
		if (strcmp(t, "name") && strcmp(t, "qualified_name"))
			continue;
		const char *base = class_ref(w, b);
		if (base)
			_kbx_x_inherit(w->x, sym, base, _kbx_node_line(b));
	}
}

static void define_type(struct kbx_walk *w, TSNode n, int kind)
{
	int sym = php_define(w, n, kind);
	add_bases(w, sym, _kbx_child_of_type(n, "base_clause"));
	add_bases(w, sym, _kbx_child_of_type(n, "class_interface_clause"));
}

static void define_function(struct kbx_walk *w, TSNode n, int kind)
{
	if (php_define(w, n, kind) < 0)
		return;
	/* typed parameters: what $p->m() calls */
	TSNode params = _kbx_field(n, "parameters");
	uint32_t count = ts_node_is_null(params) ? 0 : ts_node_named_child_count(params);
	for (uint32_t i = 0; i < count; i++) {
		TSNode p = ts_node_named_child(params, i);
		TSNode var = _kbx_field(p, "name");
		const char *name = _kbx_is(var, "variable_name") ? _kbx_node_text(w, var) : NULL;
		if (!name)
			continue;
		TSNode type = _kbx_field(p, "type");
		TSNode named = ts_node_is_null(type) ? type : ts_node_named_child(type, 0);
		const char *tt = ts_node_is_null(named) ? "" : ts_node_type(named);
		_kbx_walk_bind(w, name, !strcmp(tt, "name") || !strcmp(tt, "qualified_name") ?
			       class_ref(w, named) : NULL);
	}
}

/* The class `new self` and `new static` name: the enclosing one, also
 * from a closure inside its method. */
static const char *self_class(struct kbx_walk *w)
{
	for (size_t i = w->nscope; i-- > 0;) {
		const struct kbx_xsym *sym = &w->x->syms[w->scope_sym[i]];
		if (KBX_KIND_IS_TYPE(sym->kind))
			return sym->qual;
	}
	return NULL;
}

static void visit_new(struct kbx_walk *w, TSNode n)
{
	TSNode cls = ts_node_named_child(n, 0);
	const char *t = ts_node_is_null(cls) ? "" : ts_node_type(cls);
	const char *name = !strcmp(t, "name") || !strcmp(t, "qualified_name") ||
		!strcmp(t, "relative_scope") ? php_name(w, cls) : NULL;
	if (!name || !strcmp(name, "parent"))
		return;
	if (!strcmp(name, "self") || !strcmp(name, "static"))
		name = self_class(w);  /* new static: the class or a subclass */
	else
		name = class_ref(w, cls);
	_kbx_walk_call_dotted(w, n, name);
}

static void visit_member_call(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	if (!_kbx_is(name, "name"))
		return;  /* $x->$method() */
	const char *m = _kbx_node_text(w, name);
	TSNode obj = _kbx_field(n, "object");
	if (!m || ts_node_is_null(obj))
		return;
	const char *text = _kbx_jsc_clean_text(w, obj, KBX_JSC_NONNULL);
	if (!text)
		return;
	if (!strcmp(text, "$this")) {
		_kbx_walk_call(w, n, m, KBX_RECV_SELF, NULL);
		return;
	}
	const char *type = NULL;
	if (!_kbx_is(obj, "variable_name") || !_kbx_walk_bound(w, text, 0, &type) || !type)
		type = "?";   /* a value: no class of that name */
	_kbx_walk_call_typed(w, n, m, KBX_RECV_EXPR, text, type);
}

static void visit_scoped_call(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	TSNode scope = _kbx_field(n, "scope");
	if (!_kbx_is(name, "name") || ts_node_is_null(scope))
		return;
	const char *m = _kbx_node_text(w, name);
	const char *st = ts_node_type(scope);
	if (!m)
		return;
	if (!strcmp(st, "relative_scope")) {
		const char *which = _kbx_node_text(w, scope);
		_kbx_walk_call(w, n, m, which && !strcmp(which, "parent") ? KBX_RECV_SUPER :
			       KBX_RECV_SELF, NULL);
	} else if (!strcmp(st, "name") || !strcmp(st, "qualified_name")) {
		const char *cls = class_ref(w, scope);
		if (cls)
			_kbx_walk_call(w, n, m, KBX_RECV_EXPR, cls);
	} else {
		const char *text = _kbx_jsc_clean_text(w, scope, 0);
		if (text)
			_kbx_walk_call_typed(w, n, m, KBX_RECV_EXPR, text, "?");
	}
}

/* Language constructs the grammar reads as calls: no function's name. */
static int is_construct(const char *name)
{
	static const char *const words[] = {
		"isset", "empty", "unset", "eval", "exit", "die", "list", "array", NULL
	};
	for (size_t i = 0; words[i]; i++)
		if (!strcasecmp(name, words[i]))
			return 1;
	return 0;
}

static void visit_function_call(struct kbx_walk *w, TSNode n)
{
	TSNode f = _kbx_field(n, "function");
	const char *t = ts_node_is_null(f) ? "" : ts_node_type(f);
	const char *name = !strcmp(t, "name") || !strcmp(t, "qualified_name") ? php_name(w, f) :
		NULL;
	if (name && !is_construct(name))
		_kbx_walk_call_dotted(w, n, name);
}

/* $x = new T(...): $x is a T from here on in this function. */
static void visit_assignment(struct kbx_walk *w, TSNode n)
{
	TSNode left = _kbx_field(n, "left");
	TSNode right = _kbx_field(n, "right");
	if (!_kbx_is(left, "variable_name") || ts_node_is_null(right))
		return;
	const char *var = _kbx_node_text(w, left);
	if (!var || !strcmp(var, "$this"))
		return;
	const char *type = NULL;
	if (_kbx_is(right, "object_creation_expression")) {
		TSNode cls = ts_node_named_child(right, 0);
		if (_kbx_is(cls, "name") || _kbx_is(cls, "qualified_name"))
			type = class_ref(w, cls);
	}
	_kbx_walk_bind(w, var, type);
}

/* use A\B\C;  use A\B\C as D;  use function A\f;  use A\{B, C as D}; */
static void use_clause(struct kbx_walk *w, TSNode clause, const char *prefix, uint32_t line)
{
	TSNode target = { 0 };
	uint32_t count = ts_node_named_child_count(clause);
	for (uint32_t i = 0; i < count && ts_node_is_null(target); i++) {
		TSNode c = ts_node_named_child(clause, i);
		if (_kbx_is(c, "name") || _kbx_is(c, "qualified_name"))
			target = c;
	}
	const char *full = php_name(w, target);
	if (!full)
		return;
	if (prefix)
		full = _kbx_join(w, prefix, ".", full);
	if (!full || full == _kbx_qual_too_long)
		return;
	TSNode alias = _kbx_field(clause, "alias");
	if (!ts_node_is_null(alias) && ts_node_start_byte(alias) == ts_node_start_byte(target))
		alias = (TSNode){ 0 };
	const char *as = ts_node_is_null(alias) ? NULL : _kbx_node_text(w, alias);
	const char *dot = strrchr(full, '.');
	struct php_state *st = w->lang_state;
	if (st && !_kbx_grow((void **)&st->used, &st->aused, st->nused, sizeof(*st->used), 8))
		st->used[st->nused++] = (struct php_use){ as ? as : dot ? dot + 1 : full, full };
	if (!dot) {
		_kbx_x_import(w->x, full, NULL, as, 0, 0, line);
		return;
	}
	const char *module = _kbx_arena_strndup(&w->x->arena, full, (size_t)(dot - full));
	_kbx_x_import(w->x, module, dot + 1, as, 0, 0, line);
}

static void visit_use(struct kbx_walk *w, TSNode n)
{
	uint32_t line = _kbx_node_line(n);
	const char *prefix = NULL;
	uint32_t count = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode c = ts_node_named_child(n, i);
		const char *t = ts_node_type(c);
		if (!strcmp(t, "namespace_name") || !strcmp(t, "qualified_name"))
			prefix = php_name(w, c);
		else if (!strcmp(t, "namespace_use_clause"))
			use_clause(w, c, NULL, line);
		else if (!strcmp(t, "namespace_use_group")) {
			uint32_t k = ts_node_named_child_count(c);
			for (uint32_t j = 0; j < k; j++) {
				TSNode g = ts_node_named_child(c, j);
				if (_kbx_is(g, "namespace_use_clause") ||
				    _kbx_is(g, "namespace_use_group_clause"))
					use_clause(w, g, prefix, line);
			}
		}
	}
}

/* include 'x.php', require_once __DIR__ . '/x.php': a literal path, or
 * one the file's own directory starts (__DIR__, dirname(__FILE__)). */
static void visit_include(struct kbx_walk *w, TSNode n)
{
	TSNode arg = ts_node_named_child(n, 0);
	while (_kbx_is(arg, "parenthesized_expression"))
		arg = ts_node_named_child(arg, 0);
	int level = 0;
	if (_kbx_is(arg, "binary_expression")) {
		TSNode left = _kbx_field(arg, "left");
		const char *lt = _kbx_node_text(w, left);
		if (!lt || (strcmp(lt, "__DIR__") && strcmp(lt, "dirname(__FILE__)")))
			return;
		arg = _kbx_field(arg, "right");
		level = 1;
	}
	if (!_kbx_is(arg, "string") && !_kbx_is(arg, "encapsed_string"))
		return;
	TSNode content = _kbx_child_of_type(arg, "string_content");
	if (ts_node_is_null(content) || ts_node_named_child_count(arg) != 1)
		return;  /* "$dir/x.php": not a literal */
	const char *path = _kbx_node_text(w, content);
	if (!path)
		return;
	if (level)
		while (*path == '/')
			path++;
	if (*path && *path != '/')
		_kbx_x_import(w->x, path, NULL, NULL, level, KBX_IMPORT_WILDCARD,
			      _kbx_node_line(n));
}

static int php_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	struct php_state *st = w->lang_state;
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "assignment_expression"))
			visit_assignment(w, n);
		break;
	case 'c':
		if (!strcmp(type, "class_declaration"))
			define_type(w, n, KBX_KIND_CLASS);
		else if (!strcmp(type, "comment"))
			return KBX_WALK_SKIP;
		break;
	case 'e':
		if (!strcmp(type, "enum_declaration"))
			define_type(w, n, KBX_KIND_ENUM);
		break;
	case 'f':
		if (!strcmp(type, "function_definition"))
			define_function(w, n, KBX_KIND_FUNCTION);
		else if (!strcmp(type, "function_call_expression"))
			visit_function_call(w, n);
		break;
	case 'i':
		if (!strcmp(type, "interface_declaration"))
			define_type(w, n, KBX_KIND_INTERFACE);
		else if (!strcmp(type, "include_expression") ||
			 !strcmp(type, "include_once_expression"))
			visit_include(w, n);
		break;
	case 'm':
		if (!strcmp(type, "method_declaration"))
			define_function(w, n, _kbx_walk_in_type(w) ? KBX_KIND_METHOD :
					KBX_KIND_FUNCTION);
		else if (!strcmp(type, "member_call_expression"))
			visit_member_call(w, n);
		break;
	case 'n':
		if (!strcmp(type, "namespace_definition") && st) {
			st->ns = php_name(w, _kbx_field(n, "name"));
			st->ns_end = ts_node_is_null(_kbx_field(n, "body")) ? UINT32_MAX :
				ts_node_end_byte(n);
		} else if (!strcmp(type, "namespace_use_declaration")) {
			visit_use(w, n);
			return KBX_WALK_SKIP;
		} else if (!strcmp(type, "nullsafe_member_call_expression")) {
			visit_member_call(w, n);
		}
		break;
	case 'o':
		if (!strcmp(type, "object_creation_expression"))
			visit_new(w, n);
		break;
	case 'r':
		if (!strcmp(type, "require_expression") || !strcmp(type, "require_once_expression"))
			visit_include(w, n);
		break;
	case 's':
		if (!strcmp(type, "scoped_call_expression"))
			visit_scoped_call(w, n);
		break;
	case 't':
		if (!strcmp(type, "trait_declaration"))
			define_type(w, n, KBX_KIND_TRAIT);
		break;
	case 'u':
		/* use T1, T2; inside a class: its traits */
		if (!strcmp(type, "use_declaration")) {
			add_bases(w, _kbx_walk_class(w), n);
			return KBX_WALK_SKIP;
		}
		break;
	}
	return KBX_WALK_CONTINUE;
}

/*
 * use A\B\C: the class C in A/B/C.php under some source root (PSR-4 maps
 * a namespace prefix to a directory, so A may be missing from the path,
 * and A\B too): the longest suffix first, down to the directory that
 * holds the class.  include and require: beside the including file, then
 * from the top (PHP's include path holds "." and the script's directory).
 */
static void php_import_candidates(const char *importer, const struct kbx_ximport *imp,
				  struct kbx_pathlist *out)
{
	const char *m = imp->module;
	char mod[4096];
	if (!m || !*m)
		return;
	if (imp->flags & KBX_IMPORT_WILDCARD) {
		_kbx_include_candidates(importer, imp, out);
		return;
	}
	if (_kbx_dots_to_slashes(mod, sizeof(mod), m))
		return;
	if (!imp->name) {
		_kbx_pathlist_addf(out, "*%s.php", mod);
		return;
	}
	for (const char *s = mod; s; s = strchr(s, '/')) {
		if (*s == '/')
			s++;
		_kbx_pathlist_addf(out, "*%s/%s.php", s, imp->name);
	}
	_kbx_pathlist_addf(out, "*%s.php", imp->name);
}

static const char *const php_extensions[] = { ".php", ".phtml", ".php5", ".php7",
	NULL };

const struct kbx_lang _kbx_lang_php = {
	.name = "php",
	.extensions = php_extensions,
	.grammar = kbx_tree_sitter_php,
	.visit = php_visit,
	.begin = php_begin,
	.end = php_end,
	.import_candidates = php_import_candidates,
	.scope_sep = "::",
	.visibility = _kbx_php_visibility,
};
