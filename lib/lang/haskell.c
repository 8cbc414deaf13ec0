/*
 * Haskell: functions (the equations of one name are one definition, and
 * `x = ...` without parameters is one too), the functions of `where` and
 * `let` (seen in their function alone), data and newtype declarations as
 * structs, type classes as interfaces (the methods they declare are
 * functions of the module, as Haskell scopes them), instances as classes
 * named Class.Type that hold their methods and are based on Class (the
 * type by its name alone when qualified: `instance P B.ByteString` is
 * P.ByteString), operators defined (`x <+> y = ...`, `(<+>) x y = ...`:
 * a function named <+>), calls, and imports.
 *
 * A call is the head of an application (`f x y`, `M.f x`, `f $ x`,
 * ``x `f` y``) or an operator (`x <+> y`, `x M.<+> y`); a name passed as
 * an argument (`map price xs`, a section `(<+> y)`) is no call, nor is a
 * data constructor (`x : xs`).  A pattern's variables are locals: a call
 * through one is a call through a value.  `import Shop.Item (price)`
 * brings price, `import Shop.Util` (no list, or `hiding`) everything;
 * every import binds its alias, or else the module's whole name, for
 * qualified calls (`import qualified Data.Map as M`: M.insert).  An
 * unqualified import of a module the header's export list names (`module
 * Shop (module Shop.Item) where`) is passed on: its importers see what it
 * brings (KBX_IMPORT_REEXPORT), and so is a name the export list names
 * that the file does not define, from each unqualified import that
 * brings everything or lists it.  A module Shop.Item is the file
 * Shop/Item.hs under any source directory.  A plain call reaches the
 * file's definitions and what its imports bring (calls_in_imports_only):
 * the Prelude's functions are unresolved.  Types hold no calls: a
 * signature is skipped, and the type of an annotated expression (`read s
 * :: Int`).
 */
#include <stdlib.h>
#include <string.h>

#include "lang.h"
#include "grammars.h"

KBX_GRAMMAR(tree_sitter_haskell)

/* The text of a module node (Data.Map), in the arena. */
static const char *module_text(struct kbx_walk *w, TSNode n)
{
	const char *t = _kbx_is(n, "module") ? _kbx_compact_text(w, n, 0) : NULL;
	size_t len = t ? strlen(t) : 0;
	if (len && t[len - 1] == '.')   /* M. of M.f */
		t = _kbx_arena_strndup(&w->x->arena, t, len - 1);
	return t && *t ? t : NULL;
}

/* The name of a variable or of an operator in parentheses, `(<+>)`:
 * what a definition, a signature or an import list names. */
static const char *var_or_op(struct kbx_walk *w, TSNode n)
{
	if (_kbx_is(n, "variable"))
		return _kbx_node_text(w, n);
	if (_kbx_is(n, "prefix_id")) {
		TSNode op = ts_node_named_child(n, 0);
		if (_kbx_is(op, "operator"))
			return _kbx_node_text(w, op);
	}
	return NULL;
}

/* The modules the header's export list passes on whole (`module X`),
 * the names it lists (f, (<?>)), and the unqualified imports that bring
 * everything (import M, import M hiding (..)). */
struct hs_state {
	const char **reexports;
	size_t n, alloc;
	const char **exports;
	size_t nexp, aexp;
	/* a header was seen, with an export list; the classes the list
	 * names with all their methods, `Priced (..)` */
	int header, list;
	const char **whole;
	size_t nwhole, awhole;
	const char **wild;
	uint32_t *wild_line;
	size_t nwild, awild, awild_line;
	/* the types of the annotated expressions (e :: T) being walked,
	 * to skip when the walk reaches them */
	TSNode types[16];
	size_t ntypes;
};

static void hs_begin(struct kbx_walk *w)
{
	w->lang_state = calloc(1, sizeof(struct hs_state));
}

static int in_list(const char *const *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], name))
			return 1;
	return 0;
}

/* Does the file define name at its top level? */
static int defines(struct kbx_walk *w, const char *name)
{
	for (size_t i = 0; i < w->x->nsyms; i++)
		if (w->x->syms[i].parent < 0 && !strcmp(w->x->syms[i].name, name))
			return 1;
	return 0;
}

/*
 * What the module exports (KBX_SYM_EXPORTED): with no export list, every
 * top-level definition; with one, what it names, and the methods of a
 * class it names with (..) (declared inside the class's lines).  A file
 * without a header is module Main, whose main the runtime calls.
 */
static void mark_exported(struct kbx_walk *w, const struct hs_state *st)
{
	for (size_t i = 0; st->header && i < w->x->nsyms; i++) {
		struct kbx_xsym *s = &w->x->syms[i];
		int ex = !st->list || in_list(st->exports, st->nexp, s->name);
		if (s->parent >= 0)
			continue;
		for (size_t k = 0; !ex && st->nwhole && k < w->x->nsyms; k++) {
			const struct kbx_xsym *t = &w->x->syms[k];
			ex = t->kind == KBX_KIND_INTERFACE && t->parent < 0 &&
			     s->line > t->line && s->line <= t->end_line &&
			     in_list(st->whole, st->nwhole, t->name);
		}
		if (ex)
			s->flags |= KBX_SYM_EXPORTED;
	}
}

/*
 * module Shop.Front (twice) where import Shop.Util: a name the export
 * list names that the file does not define comes from an import; each
 * unqualified import bringing everything may bring it, and passes it on
 * (the importers' lookups find it where a file defines it).
 */
static void hs_end(struct kbx_walk *w)
{
	struct hs_state *st = w->lang_state;
	if (st)
		mark_exported(w, st);
	for (size_t i = 0; st && i < st->nexp; i++) {
		if (defines(w, st->exports[i]))
			continue;
		for (size_t k = 0; k < st->nwild; k++)
			_kbx_x_import(w->x, st->wild[k], st->exports[i], NULL, 0,
				      KBX_IMPORT_REEXPORT, st->wild_line[k]);
	}
	if (st) {
		free(st->reexports);
		free(st->exports);
		free(st->whole);
		free(st->wild);
		free(st->wild_line);
	}
	free(st);
	w->lang_state = NULL;
}

/* module Shop (module Shop.Item, total) where: Shop.Item is passed on */
static void add_name(const char ***v, size_t *n, size_t *alloc, const char *name)
{
	if (name && !_kbx_grow((void **)v, alloc, *n, sizeof(**v), 8))
		(*v)[(*n)++] = name;
}

/* Priced (..), Priced (cost): what an export of a type or class names. */
static void visit_export_type(struct kbx_walk *w, struct hs_state *st, TSNode e)
{
	TSNode t = _kbx_field(e, "type");
	TSNode ch = _kbx_field(e, "children");
	const char *name = _kbx_is(t, "name") ? _kbx_node_text(w, t) : NULL;
	uint32_t count = ts_node_is_null(ch) ? 0 : ts_node_named_child_count(ch);
	add_name(&st->exports, &st->nexp, &st->aexp, name);
	for (uint32_t i = 0; name && i < count; i++) {
		TSNode c = ts_node_named_child(ch, i);
		if (_kbx_is(c, "all_names"))
			add_name(&st->whole, &st->nwhole, &st->awhole, name);
		else
			add_name(&st->exports, &st->nexp, &st->aexp, var_or_op(w, c));
	}
}

static void visit_header(struct kbx_walk *w, TSNode n)
{
	struct hs_state *st = w->lang_state;
	TSNode exports = _kbx_field(n, "exports");
	uint32_t count = ts_node_is_null(exports) ? 0 : ts_node_named_child_count(exports);
	if (!st)
		return;
	st->header = 1;
	st->list = !ts_node_is_null(exports);
	for (uint32_t i = 0; i < count; i++) {
		TSNode e = ts_node_named_child(exports, i);
		if (_kbx_is(e, "module_export")) {
			add_name(&st->reexports, &st->n, &st->alloc,
				 module_text(w, _kbx_field(e, "module")));
		} else if (_kbx_is(e, "export")) {
			const char *v = var_or_op(w, _kbx_field(e, "variable"));
			if (!v)
				v = var_or_op(w, _kbx_field(e, "operator"));
			if (v)
				add_name(&st->exports, &st->nexp, &st->aexp, v);
			else
				visit_export_type(w, st, e);
		}
	}
}

/* Does the export list name v? */
static int exported(struct kbx_walk *w, const char *v)
{
	const struct hs_state *st = w->lang_state;
	return st && v && in_list(st->exports, st->nexp, v);
}

/* Does the export list pass on what an import of mod (as alias) brings?
 * `module X` names the module as the import calls it. */
static int reexported(struct kbx_walk *w, const char *mod, const char *alias)
{
	const struct hs_state *st = w->lang_state;
	for (size_t i = 0; st && i < st->n; i++)
		if (!strcmp(st->reexports[i], alias ? alias : mod))
			return 1;
	return 0;
}

static void visit_import(struct kbx_walk *w, TSNode n)
{
	const char *mod = module_text(w, _kbx_field(n, "module"));
	const char *alias = module_text(w, _kbx_field(n, "alias"));
	TSNode names = _kbx_field(n, "names");
	uint32_t line = _kbx_node_line(n);
	if (!mod)
		return;
	int qualified = _kbx_has_token(n, "qualified");
	int hiding = _kbx_has_token(n, "hiding");
	/* M.f with M the alias, or the module's whole name without one */
	_kbx_x_import(w->x, mod, NULL, alias ? alias : mod, 0, 0, line);
	if (qualified)
		return;
	int pass = reexported(w, mod, alias) ? KBX_IMPORT_REEXPORT : 0;
	if (ts_node_is_null(names) || hiding) {
		struct hs_state *st = w->lang_state;
		_kbx_x_import(w->x, mod, NULL, NULL, 0, KBX_IMPORT_WILDCARD | pass, line);
		if (st && !pass &&
		    !_kbx_grow((void **)&st->wild, &st->awild, st->nwild, sizeof(*st->wild), 4) &&
		    !_kbx_grow((void **)&st->wild_line, &st->awild_line, st->nwild,
			       sizeof(*st->wild_line), 4)) {
			st->wild[st->nwild] = mod;
			st->wild_line[st->nwild++] = line;
		}
		return;
	}
	uint32_t count = ts_node_named_child_count(names);
	for (uint32_t i = 0; i < count; i++) {
		TSNode in = ts_node_named_child(names, i);
		const char *v = _kbx_field_text(w, in, "variable");
		const char *t = _kbx_field_text(w, in, "type");
		if (!v)   /* import M ((<?>)) */
			v = var_or_op(w, _kbx_field(in, "operator"));
		if (v || t)
			_kbx_x_import(w->x, mod, v ? v : t, NULL, 0,
				      pass | (exported(w, v) ? KBX_IMPORT_REEXPORT : 0), line);
	}
}

/* The variables a pattern binds, as locals of the function. */
static void bind_patterns(struct kbx_walk *w, TSNode p)
{
	if (ts_node_is_null(p))
		return;
	if (_kbx_is(p, "variable")) {
		_kbx_walk_bind(w, _kbx_node_text(w, p), NULL);
		return;
	}
	TSTreeCursor c = ts_tree_cursor_new(p);
	int seen = 0;
	if (ts_tree_cursor_goto_first_child(&c)) {
		for (;;) {
			TSNode n = ts_tree_cursor_current_node(&c);
			if (_kbx_is(n, "variable"))
				_kbx_walk_bind(w, _kbx_node_text(w, n), NULL);
			else if (ts_node_child_count(n) && ++seen < 256 &&
				 ts_tree_cursor_goto_first_child(&c))
				continue;
			while (!ts_tree_cursor_goto_next_sibling(&c))
				if (!ts_tree_cursor_goto_parent(&c))
					goto done;
		}
	}
done:
	ts_tree_cursor_delete(&c);
}

/* The head of an infix definition, x <+> y = ... or x `f` y = ...: the
 * name it defines, its operands in *l and *r. */
static const char *infix_head(struct kbx_walk *w, TSNode n, TSNode *l, TSNode *r)
{
	TSNode c = _kbx_child_of_type(n, "infix");
	if (ts_node_is_null(c))
		return NULL;
	TSNode op = _kbx_field(c, "operator");
	*l = _kbx_field(c, "left_operand");
	*r = _kbx_field(c, "right_operand");
	if (_kbx_is(op, "operator"))
		return _kbx_node_text(w, op);
	if (_kbx_is(op, "infix_id"))
		return var_or_op(w, ts_node_named_child(op, 0));
	return NULL;
}

/*
 * f x = ..., f = ..., x <+> y = ..., (<+>) x y = ...: a function, or the
 * next equation of the one the scope defined last under the same name
 * (whose scope it then opens).  Inside a function, `x = ...` without
 * parameters binds a local.
 */
static void visit_function(struct kbx_walk *w, TSNode n)
{
	TSNode name = _kbx_field(n, "name");
	TSNode pats = _kbx_field(n, "patterns");
	TSNode left = { 0 }, right = { 0 };
	const char *f = var_or_op(w, name);
	if (!f && ts_node_is_null(name) && _kbx_is(n, "function"))
		f = infix_head(w, n, &left, &right);
	if (!f) {
		/* (a, b) = ...: a pattern binding */
		if (_kbx_walk_caller(w) >= 0)
			bind_patterns(w, _kbx_field(n, "pattern"));
		return;
	}
	if (_kbx_walk_caller(w) >= 0 && ts_node_is_null(pats) && _kbx_is(n, "bind") &&
	    _kbx_is(name, "variable")) {
		_kbx_walk_bind(w, f, NULL);
		return;
	}
	int parent = _kbx_walk_parent(w);
	int sym = -1;
	/* the definition before this one in the same scope */
	for (size_t i = w->x->nsyms; i-- > 0;) {
		struct kbx_xsym *s = &w->x->syms[i];
		if (s->parent != parent)
			continue;
		if (!strcmp(s->name, f) && KBX_KIND_IS_CALLABLE(s->kind))
			sym = (int)i;
		break;
	}
	if (sym >= 0) {
		_kbx_sym_extend(w, sym, n);
		_kbx_walk_scope(w, sym);
	} else {
		int kind = _kbx_walk_in_type(w) ? KBX_KIND_METHOD : KBX_KIND_FUNCTION;
		sym = _kbx_walk_define(w, n, kind, f, 1);
		if (sym < 0)
			return;
	}
	bind_patterns(w, pats);
	if (!ts_node_is_null(left)) {
		bind_patterns(w, left);
		bind_patterns(w, right);
	}
}

/*
 * instance Priced Cart where ...: the class Priced.Cart; the type is
 * the last one the head names, by its constructor (`MonadParsec e s
 * (ParsecT e s m)` is MonadParsec.ParsecT).  An instance for another
 * kind of type (a list, a tuple, a function) is skipped: its equations
 * are no functions of the module.
 */
static int visit_instance(struct kbx_walk *w, TSNode n)
{
	TSNode cn = _kbx_field(n, "name");
	if (_kbx_is(cn, "qualified"))   /* instance E.Exception T */
		cn = _kbx_field(cn, "id");
	const char *cls = _kbx_is(cn, "name") ? _kbx_node_text(w, cn) : NULL;
	TSNode pats = _kbx_field(n, "patterns");
	uint32_t count = ts_node_is_null(pats) ? 0 : ts_node_named_child_count(pats);
	TSNode t = count ? ts_node_named_child(pats, count - 1) : pats;
	for (int i = 0; i < 64 && (_kbx_is(t, "parens") || _kbx_is(t, "apply")); i++)
		t = _kbx_field(t, _kbx_is(t, "parens") ? "type" : "constructor");
	if (_kbx_is(t, "qualified"))   /* B.ByteString: ByteString */
		t = _kbx_field(t, "id");
	const char *type = _kbx_is(t, "name") ? _kbx_node_text(w, t) : NULL;
	if (!cls || !type || _kbx_walk_parent(w) >= 0)
		return KBX_WALK_SKIP;
	const char *qual = _kbx_join(w, cls, ".", type);
	if (!qual || qual == _kbx_qual_too_long)
		return KBX_WALK_SKIP;
	int sym = _kbx_x_sym_at(w->x, KBX_KIND_CLASS, qual, qual, -1, n);
	if (sym < 0)
		return KBX_WALK_SKIP;
	_kbx_walk_scope(w, sym);
	_kbx_x_inherit(w->x, sym, cls, _kbx_node_line(n));
	return KBX_WALK_CONTINUE;
}

/* The function an application or an operator calls, at node f. */
static void call_head(struct kbx_walk *w, TSNode f)
{
	if (_kbx_is(f, "variable")) {
		_kbx_walk_call(w, f, _kbx_node_text(w, f), KBX_RECV_NONE, NULL);
	} else if (_kbx_is(f, "qualified")) {
		TSNode id = _kbx_field(f, "id");
		const char *mod = module_text(w, _kbx_field(f, "module"));
		if (_kbx_is(id, "variable") && mod)
			_kbx_walk_call(w, f, _kbx_node_text(w, id), KBX_RECV_EXPR, mod);
	}
}

static void visit_infix(struct kbx_walk *w, TSNode n)
{
	if (_kbx_is(_kbx_walk_up(w, n), "function"))
		return;   /* x <+> y = ...: the head of a definition */
	TSNode op = _kbx_field(n, "operator");
	const char *o = _kbx_is(op, "operator") ? _kbx_node_text(w, op) : NULL;
	if (_kbx_is(op, "infix_id")) {
		/* x `f` y */
		call_head(w, ts_node_named_child(op, 0));
	} else if (o && !strcmp(o, "$")) {
		/* f $ x: f is called (f x $ y is the application's) */
		call_head(w, _kbx_field(n, "left_operand"));
	} else if (o) {
		/* x <?> y calls (<?>) */
		_kbx_walk_call(w, op, o, KBX_RECV_NONE, NULL);
	} else if (_kbx_is(op, "qualified") && _kbx_is(_kbx_field(op, "id"), "operator")) {
		/* x M.<?> y */
		const char *mod = module_text(w, _kbx_field(op, "module"));
		if (mod)
			_kbx_walk_call(w, op, _kbx_field_text(w, op, "id"), KBX_RECV_EXPR, mod);
	}
}

/* Is n the type of an annotated expression being walked? */
static int annotation_type(struct kbx_walk *w, TSNode n)
{
	struct hs_state *st = w->lang_state;
	for (size_t i = st ? st->ntypes : 0; i-- > 0;) {
		if (ts_node_eq(st->types[i], n)) {
			st->types[i] = st->types[--st->ntypes];
			return 1;
		}
	}
	return 0;
}

static int hs_visit(struct kbx_walk *w, TSNode n, const char *type)
{
	if (annotation_type(w, n))
		return KBX_WALK_SKIP;
	switch (type[0]) {
	case 'a':
		if (!strcmp(type, "apply")) {
			TSNode f = _kbx_field(n, "function");
			if (!_kbx_is(f, "apply"))
				call_head(w, f);
		}
		break;
	case 'b':
		if (!strcmp(type, "bind"))
			visit_function(w, n);
		break;
	case 'c':
		if (!strcmp(type, "comment") || !strcmp(type, "cpp"))
			return KBX_WALK_SKIP;
		if (!strcmp(type, "class") && _kbx_walk_parent(w) < 0) {
			const char *name = _kbx_field_text(w, n, "name");
			if (name)
				_kbx_walk_define(w, n, KBX_KIND_INTERFACE, name, 1);
		}
		break;
	case 'd':
		if (!strcmp(type, "data_type") && _kbx_walk_parent(w) < 0) {
			const char *name = _kbx_field_text(w, n, "name");
			if (name)
				_kbx_walk_define(w, n, KBX_KIND_STRUCT, name, 0);
		}
		break;
	case 'f':
		if (!strcmp(type, "function"))
			visit_function(w, n);
		break;
	case 'h':
		if (!strcmp(type, "header")) {
			visit_header(w, n);
			return KBX_WALK_SKIP;
		}
		break;
	case 'i':
		if (!strcmp(type, "import"))
			visit_import(w, n);
		else if (!strcmp(type, "infix"))
			visit_infix(w, n);
		else if (!strcmp(type, "instance"))
			return visit_instance(w, n);
		break;
	case 'l':
		if (!strcmp(type, "lambda") && _kbx_walk_caller(w) >= 0)
			bind_patterns(w, _kbx_field(n, "patterns"));
		break;
	case 'n':
		if (!strcmp(type, "newtype") && _kbx_walk_parent(w) < 0) {
			const char *name = _kbx_field_text(w, n, "name");
			if (name)
				_kbx_walk_define(w, n, KBX_KIND_STRUCT, name, 0);
		}
		break;
	case 's':
		if (!strcmp(type, "signature") && _kbx_walk_caller(w) >= 0 &&
		    !ts_node_is_null(_kbx_field(n, "expression"))) {
			/* e :: T in a function: e's calls, not T's */
			struct hs_state *st = w->lang_state;
			TSNode t = _kbx_field(n, "type");
			if (!st || st->ntypes == sizeof(st->types) / sizeof(st->types[0]))
				return KBX_WALK_SKIP;
			if (!ts_node_is_null(t))
				st->types[st->ntypes++] = t;
			return KBX_WALK_CONTINUE;
		}
		if (!strcmp(type, "signature")) {
			/* a class's method, declared by its type: a function of
			 * the module, which calls by its name reach (the
			 * instances' methods are Class.Type.name) */
			int p = _kbx_walk_parent(w);
			const char *name = var_or_op(w, _kbx_field(n, "name"));
			if (p >= 0 && w->x->syms[p].kind == KBX_KIND_INTERFACE && name &&
			    w->x->syms[p].parent < 0)
				_kbx_x_sym_at(w->x, KBX_KIND_FUNCTION, name, name, -1, n);
			return KBX_WALK_SKIP;   /* types: no calls */
		}
		break;
	}
	if (!strcmp(type, "alternative") || !strcmp(type, "bind_statement") ||
	    !strcmp(type, "generator")) {
		/* case x of p -> ..., p <- m: p's variables */
		if (_kbx_walk_caller(w) >= 0)
			bind_patterns(w, _kbx_field(n, "pattern"));
	}
	return KBX_WALK_CONTINUE;
}

/* Shop.Item: Shop/Item.hs, at the top or under a source directory. */
static void hs_import_candidates(const char *importer, const struct kbx_ximport *imp,
				 struct kbx_pathlist *out)
{
	char mod[4096];
	(void)importer;
	if (!imp->module || _kbx_dots_to_slashes(mod, sizeof(mod), imp->module))
		return;
	_kbx_pathlist_addf(out, "%s.hs", mod);
	_kbx_pathlist_addf(out, "*%s.hs", mod);
}

static const char *const haskell_extensions[] = { ".hs", NULL };

const struct kbx_lang _kbx_lang_haskell = {
	.name = "haskell",
	.extensions = haskell_extensions,
	.grammar = kbx_tree_sitter_haskell,
	.visit = hs_visit,
	.begin = hs_begin,
	.end = hs_end,
	.import_candidates = hs_import_candidates,
	.calls_in_imports_only = 1,
	.reexports = 1,
	.nested_defs = 1,
	.scope_sep = ".",
};
