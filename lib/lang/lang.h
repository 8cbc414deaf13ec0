/*
 * lib/lang/: one extractor per language over tree-sitter, on nothing of
 * lib/ but this header; lib/store/ keeps what it finds (refs) and
 * lib/graph/ resolves it.
 *
 * Source-language extraction: what a parser found in one file, before any
 * cross-file resolution.
 *
 * Every language has one file lib/lang/<name>.c that defines a
 * `const struct kbx_lang _kbx_lang_<name>` and is listed in the table in
 * lib/lang/lang.c.  A language's job is to walk a tree-sitter tree and
 * report, through the _kbx_x_* functions below:
 *
 *   - definitions (classes, structs, interfaces, traits, enums, functions,
 *     methods) with their enclosing definition;
 *   - call sites, attributed to the innermost enclosing function or method,
 *     or to the file itself (caller == -1) for module-level code;
 *   - imports, exactly as written, with the local names they bind;
 *   - inheritance: the base names a class lists as written.
 *
 * Nothing here looks at other files: turning names into graph edges is the
 * resolver's work (lib/graph/resolve.c), which asks the language for the paths an
 * import may refer to through import_candidates().
 *
 * To add a language: write lib/lang/<name>.c, add it to the table in
 * lib/lang/lang.c, add its grammar to grammars/grammars.lock (its
 * "exports:" line names the entry point, which the file reaches through
 * KBX_GRAMMAR() of grammars.h: the grammars are a module), add a fixture
 * tree under tests/corpora/<name>/ with its expected facts.
 */
#ifndef KBX_LANG_H
#define KBX_LANG_H

#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <tree_sitter/api.h>

/* Node kinds, shared by the extractor, the store and the output layer.
 * Values are stored on disk: only ever append. */
enum kbx_kind {
	KBX_KIND_NONE = 0,
	KBX_KIND_FILE = 1,
	KBX_KIND_MODULE = 2,     /* an imported module that is not a file here */
	KBX_KIND_CLASS = 3,
	KBX_KIND_STRUCT = 4,
	KBX_KIND_INTERFACE = 5,
	KBX_KIND_TRAIT = 6,
	KBX_KIND_ENUM = 7,
	KBX_KIND_FUNCTION = 8,
	KBX_KIND_METHOD = 9,
	KBX_KIND_EXTERNAL = 10,  /* a called name defined nowhere in the repository */
	KBX_KIND_NAMESPACE = 11, /* C++ namespace, Rust mod, Ruby module, C# namespace */
	KBX_KIND_NAMEREF = 12,   /* calls on an unknown receiver whose name has too
				  * many definitions to list one by one */
	KBX_KIND_MACRO = 13,     /* a C or C++ #define with a value or parameters */
	KBX_KIND__COUNT
};

/* "function", "class", ...: the names users see and type; NULL if unknown. */
const char *_kbx_kind_name(int kind);
int _kbx_kind_from_name(const char *name);

/* True for kinds that can hold methods and be inherited from. */
#define KBX_KIND_IS_TYPE(k) ((k) >= KBX_KIND_CLASS && (k) <= KBX_KIND_ENUM)
#define KBX_KIND_IS_CALLABLE(k) ((k) == KBX_KIND_FUNCTION || (k) == KBX_KIND_METHOD)

/* How a call names its receiver. */
enum kbx_recv {
	KBX_RECV_NONE = 0,  /* foo() */
	KBX_RECV_SELF = 1,  /* self.foo(), this.foo(), this->foo(), @foo, Self::foo() */
	KBX_RECV_EXPR = 2,  /* obj.foo(), pkg.foo(), Type::foo(): receiver holds the text */
	KBX_RECV_SUPER = 3, /* super().foo(), super.foo(), base.Foo() */
	KBX_RECV_VALUE = 4, /* foo() where foo is a parameter or a local variable: a call
			     * through a value, which no name of the repository proves */
	KBX_RECV_MACRO = 5  /* C and C++: a bare name as a statement (`vmbreak;`), which
			     * does something only as an object-like macro: resolved to
			     * macros alone, and dropped when none is found */
};

/* Flags on an import. */
#define KBX_IMPORT_SYSTEM   0x01  /* #include <x.h>: never a file of this repository */
#define KBX_IMPORT_WILDCARD 0x02  /* from m import *, import pkg.*, use m::* */
#define KBX_IMPORT_MOD      0x04  /* Rust `mod name;` declaration */
#define KBX_IMPORT_STATIC   0x08  /* Java import static: a class's members, not a type */
#define KBX_IMPORT_REEXPORT 0x10  /* what it brings the file passes on to its own
				   * importers (Haskell's `module X` export) */
#define KBX_IMPORT_OUTER    0x20  /* with WILDCARD: a package around the file's own
				   * (Scala's package a.b then package c), whose
				   * names its own package's hide */
#define KBX_IMPORT_PACKAGE  0x40  /* no import: the package the file declares itself
				   * in (Kotlin's package header, Scala's package
				   * clause), which the resolver compares */

struct kbx_xsym {
	int kind;            /* enum kbx_kind */
	const char *name;    /* simple name: "process" */
	const char *qual;    /* qualified within the file, dot-joined: "Foo.process" */
	int parent;          /* index in syms of the enclosing definition, -1 if none */
	uint32_t line, col;  /* start, 1-based line and 1-based byte column */
	uint32_t end_line;
	unsigned flags;      /* KBX_SYM_* */
	/* A hash of the definition's own syntax: its tokens and the shape
	 * of its tree, without white space, comments and the definitions
	 * nested in it (see body_hashes() in extract.c).  0 when unknown. */
	uint64_t body_hash;
	/* For a function or method: how many arguments a call of it may
	 * pass (its parameters without and with those that have defaults;
	 * max KBX_ARITY_ANY for varargs); -1 when the language does not
	 * say.  The resolver passes over a member of the name a call cannot
	 * be to (Kotlin: a subclass's start(a, b) for start()). */
	int arity_min, arity_max;
	/* For a function or method: the type it returns (its first result),
	 * as its file writes it, without pointers ("Segments",
	 * "text.Segments"), or NULL: what x.f().g() and x := f() are, where
	 * the language records it (Go). */
	const char *ret_type;
	/* For a function or method: the types its parameters' callbacks are
	 * given, "@J.I:TYPE;..." (parameter J, a function type, gives its
	 * parameter I a TYPE), or NULL: what x is in f((x) => x.g()), where
	 * the language records it (TypeScript). */
	const char *cb_types;
	/* The definition's node; valid only until _kbx_extract returns
	 * (null for a definition not made from a node). */
	TSNode node;
};
#define KBX_ARITY_ANY 0xffff

/* A definition other files cannot reach by name (C and C++ `static`
 * functions and variables at file scope): the resolver never offers it
 * as a candidate to a call from another file.  Stored in the node. */
#define KBX_SYM_FILE_LOCAL 0x01
/* Visible outside its module by the language's own rules (exported,
 * public, pub), and a method that says it overrides a base's method:
 * set by the language's visibility() (lib/lang/visibility.c). */
#define KBX_SYM_EXPORTED   0x02
#define KBX_SYM_OVERRIDE   0x04
/* Called by the language or a framework rather than by its name: a
 * property or accessor, a function a decorator, annotation or attribute
 * registers, or a named function expression used as a value. */
#define KBX_SYM_IMPLICIT   0x08
/* Defined only in some builds (C's #if with no definition of the name
 * in its other branches): a call of the name may reach a library's
 * definition in another build, so it is never certain (see
 * _kbx_c_conditional in lib/lang/c-common.h). */
#define KBX_SYM_CONDITIONAL 0x10

struct kbx_xcall {
	const char *name;     /* the called name: "process" */
	const char *receiver; /* for KBX_RECV_EXPR: the receiver as written ("m", "os.path",
	                       * "Foo"); for KBX_RECV_NONE: the module opened around
	                       * the call (OCaml's let open M in, M.(...)), whose
	                       * definitions come first, or NULL; NULL otherwise */
	int recv;             /* enum kbx_recv */
	int caller;           /* index in syms of the innermost enclosing function or
	                       * method; -1 for file-level code */
	uint32_t line, col;
	/* For KBX_RECV_EXPR: the receiver's static type where the source
	 * states it (a declared type of the local, parameter or field it
	 * names, new T(), T{}, T::new()), '.'-qualified as written, without
	 * generic arguments, pointers or references ("Map", "sync.Mutex",
	 * "geo.Circle"); "?" for a variable whose type the source does not
	 * state (so the receiver is no class or module of that name);
	 * "=K:NAME" for what call K of the file, of NAME, returns (Go: the
	 * resolver reads its callee's ret_type); "=K@J.I:NAME" for the type
	 * call K's callee gives parameter I of the function passed as its
	 * argument J (its cb_types); NULL
	 * when the source does not say.  The resolver
	 * finds the method in that type and its bases, or calls it an
	 * external Type.name; without it a receiver's call is never
	 * certain (kbx-graph(7)). */
	const char *recv_type;
	/* How many arguments the call passes (a trailing lambda counts),
	 * or -1 when the language does not say or cannot tell (a spread
	 * *args). */
	int nargs;
};

struct kbx_ximport {
	const char *module;  /* as written: "pkg.b", "./utils", "fmt", "crate::b", "util.h" */
	const char *name;    /* the name imported from it, or NULL for the module itself */
	const char *alias;   /* the local name it is bound to, or NULL when that is the
	                      * name itself (or, for a module, its last component) */
	int level;           /* Python relative level (number of leading dots), else 0 */
	int flags;           /* KBX_IMPORT_* */
	uint32_t line;
};

struct kbx_xinherit {
	int sym;             /* index in syms of the class, struct or type */
	const char *base;    /* the base as written, dots for qualification: "pkg.Base" */
	uint32_t line;
};

/* A field of a class with the type its declaration states (C++'s
 * `port::Mutex mutex_;`, an Objective-C instance variable `NSImage
 * *img;`): what a method defined in another file (`void DBImpl::f()` in
 * db_impl.cc, an @implementation in a .m) calls on it, the resolver
 * types by it. */
struct kbx_xfield {
	int sym;             /* index in syms of the class */
	const char *name;
	const char *type;    /* as struct kbx_xcall's recv_type */
	uint32_t line;
};

/* A small bump allocator: extraction results live until _kbx_extract_release. */
struct _kbx_arena {
	struct _kbx_arena_block *head;
};

struct kbx_extract {
	struct kbx_xsym *syms;       size_t nsyms, asyms;
	struct kbx_xcall *calls;     size_t ncalls, acalls;
	struct kbx_ximport *imports; size_t nimports, aimports;
	struct kbx_xinherit *inherits; size_t ninherits, ainherits;
	struct kbx_xfield *fields;   size_t nfields, afields;
	struct _kbx_arena arena;
	int timed_out;               /* the parse hit its time limit */
	uint64_t parse_cpu_ns;       /* tree-sitter's parse alone, of the
				      * thread's CPU time (the rest of
				      * _kbx_extract is the walk) */
	int had_errors;              /* the tree had ERROR nodes (still extracted) */
	int nomem;                   /* memory ran out: what was extracted is not
				      * all the file says (_kbx_extract fails) */
};
#define KBX_EXTRACT_INIT { 0 }

void _kbx_extract_release(struct kbx_extract *x);
/* Copy len bytes into the arena, NUL-terminated. */
const char *_kbx_arena_strndup(struct _kbx_arena *a, const char *s, size_t len);
const char *_kbx_arena_strdup(struct _kbx_arena *a, const char *s);

/* Appenders; they return the index of the new element, or -1 when out of memory. */
int _kbx_x_sym(struct kbx_extract *x, int kind, const char *name, const char *qual,
	       int parent, uint32_t line, uint32_t col, uint32_t end_line);
/* _kbx_x_sym at node n: its lines, its column, and its body hash. */
int _kbx_x_sym_at(struct kbx_extract *x, int kind, const char *name, const char *qual,
		  int parent, TSNode n);
int _kbx_x_call(struct kbx_extract *x, const char *name, int recv, const char *receiver,
		int caller, uint32_t line, uint32_t col);
int _kbx_x_import(struct kbx_extract *x, const char *module, const char *name,
		  const char *alias, int level, int flags, uint32_t line);
int _kbx_x_inherit(struct kbx_extract *x, int sym, const char *base, uint32_t line);
int _kbx_x_field(struct kbx_extract *x, int sym, const char *name, const char *type,
		 uint32_t line);

/*
 * The tree walker: a depth-first walk with a TSTreeCursor (never recursion
 * over the tree, and never ts_node_string(): both overflow the stack on
 * large generated files).  The language's visit() is called on entering
 * every named node.  It may open a scope for a definition with
 * _kbx_walk_scope(); the scope closes by itself when the walk leaves that
 * node.  Returning KBX_WALK_SKIP skips the node's children.
 */
#define KBX_WALK_CONTINUE 0
#define KBX_WALK_SKIP     1

/* A name in scope and its static type, as a language binds it while it
 * walks declarations (_kbx_walk_bind). */
struct _kbx_binding {
	const char *name;
	const char *type;      /* NULL: the source does not say */
	size_t level;          /* the scope depth (nscope) it was bound at */
	int conflict;          /* bound again at this level with another type */
};

struct _kbx_class_init {
	int cls, sym;
	const char *name;
};

struct kbx_walk {
	struct kbx_extract *x;
	const char *src;       /* the file's bytes */
	size_t len;
	const char *path;      /* repository-relative path of the file */
	void *lang_state;      /* free for the language's own use */
	/* the scope stack: sym indexes; maintained by the walker */
	int *scope_sym;
	uint32_t *scope_depth;
	size_t nscope, ascope;
	uint32_t depth;        /* depth of the node being visited */
	/* the nodes from the root down to the one being visited
	 * (up[depth]); maintained by the walker, read through
	 * _kbx_walk_up */
	TSNode *up;
	size_t aup;
	/* the names bound in the open scopes, innermost last; maintained
	 * by the walker with the scopes */
	struct _kbx_binding *bind;
	size_t nbind, abind;
	/* the class initialisers made so far: (class sym, name, init sym) */
	struct _kbx_class_init *inits;
	size_t ninits, ainits;
	/* a second parser for pieces of the file read on their own (a C
	 * macro's body): made by the language when it needs one, deleted
	 * by the walker at the end */
	TSParser *aux_parser;
};

/*
 * The parent of node n: use this, never ts_node_parent, which the
 * tree-sitter runtime answers by walking down from the root (so that a
 * visitor asking it at every level of a deeply nested file takes time
 * quadratic in the depth).  For the node being visited or any of its
 * ancestors the walker's path answers at once; for another node (a
 * descendant the visitor reached itself) the walk down starts from the
 * deepest ancestor on the path that holds it.  A null node at the root.
 */
TSNode _kbx_walk_up(const struct kbx_walk *w, TSNode n);

/* Open a scope for sym (an index in x->syms) covering the current node. */
void _kbx_walk_scope(struct kbx_walk *w, int sym);
/* The innermost enclosing function or method, or -1 (file level). */
int _kbx_walk_caller(const struct kbx_walk *w);

/*
 * Types of names in scope, the evidence that proves a call's target (see
 * kbx_xcall.recv_type).  A language binds each parameter, local and
 * field it sees declared with _kbx_walk_bind (in the innermost open
 * scope) or _kbx_walk_bind_field (in the enclosing class, so that its
 * methods see it; bind a class's fields when its scope opens, since a
 * method may come before a field).  type is as for recv_type, or NULL
 * for a variable whose type the source does not state (it still hides
 * the outer bindings of the name).  A name bound twice in one scope
 * with two types is unknown.  Bindings close with their scope.
 */
void _kbx_walk_bind(struct kbx_walk *w, const char *name, const char *type);
void _kbx_walk_bind_field(struct kbx_walk *w, const char *name, const char *type);
/* What was bound for name, innermost first: 1 with *type (NULL when
 * unknown), 0 when name is bound nowhere.  With fields_only, only the
 * enclosing class's fields count (this.x, self.x). */
int _kbx_walk_bound(const struct kbx_walk *w, const char *name, int fields_only,
		    const char **type);
/* Is name a parameter or local of the innermost function? */
int _kbx_walk_is_local(const struct kbx_walk *w, const char *name);

/* Make definition sym reach at least to the end of node n (a function
 * defined by several clauses or equations, an initialiser made of
 * several blocks, a body that follows its signature). */
void _kbx_sym_extend(struct kbx_walk *w, int sym, TSNode n);

/* Open, for the node at, the scope of an initialiser of the enclosing
 * class: a method named name (Java's "<clinit>" and "<init>") that the
 * language calls, made the first time the class needs it, so that the
 * calls of field initialisers and initialiser blocks belong to the class
 * (resolved in its scope) rather than to the file.  Returns its sym, or
 * -1 outside a class. */
int _kbx_walk_class_init(struct kbx_walk *w, TSNode at, const char *name);
/* The innermost enclosing class/struct/interface/trait/enum, or -1. */
int _kbx_walk_class(const struct kbx_walk *w);
/* The innermost enclosing definition of any kind, or -1. */
int _kbx_walk_parent(const struct kbx_walk *w);
/* The qualified name of a new definition called name inside the current
 * scope: "name" at top level, "Outer.name" inside Outer.  In the arena. */
const char *_kbx_walk_qual(struct kbx_walk *w, const char *name);
/* Define name of kind at node n inside the current scope, and (when
 * open_scope) open a scope for it.  Returns the sym index or -1. */
int _kbx_walk_define(struct kbx_walk *w, TSNode n, int kind, const char *name, int open_scope);
/* Does the C or C++ declaration n have `static` among its specifiers? */
int _kbx_c_is_static(struct kbx_walk *w, TSNode n);
/* The text of a node, in the arena; NULL for a null node. */
const char *_kbx_node_text(struct kbx_walk *w, TSNode n);
/* The text of a node's field child, or NULL when the field is absent. */
const char *_kbx_field_text(struct kbx_walk *w, TSNode n, const char *field);
/* 1-based line and column of a node's start. */
uint32_t _kbx_node_line(TSNode n);
uint32_t _kbx_node_col(TSNode n);

/*
 * Small helpers the language files share, defined in lib/lang/extract.c.
 */

/* A child by field name, without the strlen at each call site; a null
 * node when the field is absent. */
TSNode _kbx_field(TSNode n, const char *name);
/* True when n is not null and of the given type. */
int _kbx_is(TSNode n, const char *type);
/* The first named child of n with the given type, or a null node. */
TSNode _kbx_child_of_type(TSNode n, const char *type);
/* Whether n has an anonymous child token of the given type ("struct"). */
int _kbx_has_token(TSNode n, const char *type);
/* Letters, digits, '_' and every byte of a UTF-8 sequence. */
int _kbx_word_char(unsigned char c);
/* Is s one plain name (letters, digits, '_', '$'), not a path or a call? */
int _kbx_plain_name(const char *s);
/* True when the innermost enclosing definition is a class-like type (so a
 * function defined here is a method). */
int _kbx_walk_in_type(const struct kbx_walk *w);
/* Report a call of name at node at, from the innermost enclosing function
 * or method.  receiver is used for KBX_RECV_EXPR only.  As _kbx_x_call.
 * What the bindings know is used: a receiver that is a bound name gets
 * its type as recv_type, and a plain call of a parameter or local
 * becomes KBX_RECV_VALUE. */
int _kbx_walk_call(struct kbx_walk *w, TSNode at, const char *name, int recv,
		   const char *receiver);
/* The same with the receiver's type given by the language (new T().m(),
 * this.field.m(), a chain it could follow); type NULL: as _kbx_walk_call. */
int _kbx_walk_call_typed(struct kbx_walk *w, TSNode at, const char *name, int recv,
			 const char *receiver, const char *type);
/* Report a call to a dotted name at node at: "a.b.f" is f with the
 * receiver "a.b", "f" a plain call.  Nothing for NULL or "". */
void _kbx_walk_call_dotted(struct kbx_walk *w, TSNode at, const char *dotted);
/* a, sep and b joined ("Foo" "." "bar" -> "Foo.bar"), in the arena; NULL
 * when out of memory.  A result longer than 480 bytes, or a join with
 * _kbx_qual_too_long, gives _kbx_qual_too_long itself (compare the
 * pointer): a definition with that qual is not stored, and a call,
 * import or base that names it is dropped. */
const char *_kbx_join(struct kbx_walk *w, const char *a, const char *sep, const char *b);
/* "=K:NAME", the recv_type of a value that call K of the file (the K-th
 * kbx_xcall, of name) returns (see kbx_xcall.recv_type), in the arena;
 * NULL without a name or for one over 40 bytes. */
const char *_kbx_call_result(struct kbx_walk *w, size_t k, const char *name);
extern const char _kbx_qual_too_long[];

/* Flags for _kbx_compact_text: what differs between languages. */
#define KBX_COMPACT_SQUOTE      0x01  /* '...' is a literal, kept as written */
#define KBX_COMPACT_BACKQUOTE   0x02  /* `...` is a raw literal (no escapes) */
#define KBX_COMPACT_LINE_CONT   0x04  /* backslash-newline is white space */
#define KBX_COMPACT_ARROW       0x08  /* "->" is written "." */
#define KBX_COMPACT_SCOPE       0x10  /* "::" is written ".", a leading one dropped */
#define KBX_COMPACT_LEAD_SCOPE  0x20  /* with SCOPE: a leading "::" is "." too */
#define KBX_COMPACT_NO_TEMPLATE 0x40  /* C++: a balanced <...> after a name is
				       * dropped, "<<" and "<=" are not */
#define KBX_COMPACT_NO_GENERICS 0x80  /* Rust: everything from a '<' after a
				       * name or "::" to its '>' is dropped,
				       * with the turbofish's "::" */

/*
 * The text of an expression or name on one line, in the arena: white space
 * is dropped except one space between two word characters, "..." string
 * literals are kept as written (their line breaks and tabs as spaces), and
 * the flags add what a language needs.  Cut short after some 250 bytes.
 * NULL when the node lies outside the source.
 */
const char *_kbx_compact_text(struct kbx_walk *w, TSNode n, int flags);

/* "a.b.c" as "a/b/c" into out; -1 when it does not fit, or when a name
 * between dots is empty or holds other than letters, digits, '_', '$',
 * '@' and UTF-8. */
int _kbx_dots_to_slashes(char *out, size_t outsz, const char *dotted);
/* True when s ends with suffix. */
int _kbx_has_suffix(const char *s, const char *suffix);
/* Make room in *arr (of *alloc elements of elem bytes, n used) for one
 * more, starting at first elements and doubling.  0, or -1 when out of
 * memory (the array is then unchanged). */
int _kbx_grow(void **arr, size_t *alloc, size_t n, size_t elem, size_t first);

/*
 * Definitions made ahead of the walk (Go and Rust define the types of a
 * body before the methods that may precede them), found again by the start
 * byte of their node when the walk reaches it, or by qualified name.
 */
struct _kbx_predef {
	struct _kbx_predef_entry { uint32_t start; int sym; } *v;
	size_t n, alloc;
};
void _kbx_predef_add(struct _kbx_predef *p, uint32_t start, int sym);
/* The sym defined for the node starting at start, or -1. */
int _kbx_predef_find(const struct _kbx_predef *p, uint32_t start);
/* The first sym whose qualified name is qual, or -1. */
int _kbx_predef_by_qual(const struct kbx_walk *w, const struct _kbx_predef *p,
			const char *qual);
void _kbx_predef_release(struct _kbx_predef *p);

/*
 * Where an import may point.  A candidate is a repository-relative path,
 * normalised (no "./", "../" or "//"; see _kbx_path_join).  Candidates are
 * tried in order and the first that exists wins.  Forms:
 *   "pkg/b.py"      the file that holds the imported module
 *   "pkg/"          (trailing '/') a directory: every file directly in it
 *                   (a Go package, a Java package); "/" is the top of the
 *                   repository
 *   "*com/x/A.java" (leading '*') any file whose path ends in "/com/x/A.java"
 *                   or is exactly "com/x/A.java"; several matches are all kept
 *                   and calls through them become ambiguous
 *   "=pkg/b.py"     (leading '=') the imported *name* is itself this module
 *                   (Python `from pkg import b` where pkg/b.py exists): the
 *                   local name then refers to the module, not a symbol in it
 */
struct kbx_pathlist {
	char **paths;
	size_t n, alloc;
};
void _kbx_pathlist_add(struct kbx_pathlist *l, const char *path);
void _kbx_pathlist_addf(struct kbx_pathlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void _kbx_pathlist_release(struct kbx_pathlist *l);

/* Join dir and rel ("src/a", "../b/c.h" -> "src/b/c.h") and normalise the
 * result into out (size outsz).  dir may be "" for the root.  Returns 0, or
 * -1 when the path climbs above the root or does not fit. */
int _kbx_path_join(char *out, size_t outsz, const char *dir, const char *rel);
/* The file a script includes by its path (PHP include, Bash source):
 * beside the including file, then, unless imp->level says the path is
 * the including file's own directory's, from the top. */
void _kbx_include_candidates(const char *importer, const struct kbx_ximport *imp,
			     struct kbx_pathlist *out);
/* The directory part of a repository-relative path ("src/a.py" -> "src",
 * "a.py" -> "") into out. */
void _kbx_path_dirname(char *out, size_t outsz, const char *path);

/* ---- shared by the C and C++ extractors, defined in lib/lang/c.c ---- */

/* #include "x.h" and #include <x.h> as imports (not #include MACRO). */
void _kbx_c_visit_include(struct kbx_walk *w, TSNode n);
/* The name `typedef struct { ... } name_t;` gives the anonymous struct,
 * union or enum n, or NULL. */
const char *_kbx_c_typedef_name(struct kbx_walk *w, TSNode n);
/* Blank the export macros of a C or C++ text (kbx_lang's mask): an
 * all-capital name between `class`, `struct` or `union` and the type's
 * name (`class LEVELDB_EXPORT Status {`), and anywhere an all-capital
 * name ending in _EXPORT, _API, _DLL, _PUBLIC, _VISIBLE or _EXTERN not
 * called like a function (`LEVELDB_EXPORT Status DestroyDB(...);`).
 * Comments, literals and preprocessor lines are left as they are. */
size_t _kbx_c_mask_macros(char *text, size_t len);
/* Does a header's text use C++ (see _kbx_lang_for_text)?  Comments and
 * literals are skipped; the first 256 KiB are enough. */
int _kbx_c_looks_cpp(const char *text, size_t len);
/* #include "x.h": next to the includer, from the root, then by suffix. */
void _kbx_c_import_candidates(const char *importer, const struct kbx_ximport *imp,
			      struct kbx_pathlist *out);

/* The most pieces a file is parsed in (kbx_lang's pieces). */
#define KBX_MAX_PIECES 4096

struct kbx_lang {
	const char *name;               /* "python", "c", "tsx", ... as shown to users */
	const char *const *extensions;  /* ".py", ".pyi", NULL-terminated */
	const char *const *filenames;   /* exact base names (e.g. "Rakefile"), or NULL */
	const TSLanguage *(*grammar)(void);
	/* Called for every named node on entering it. */
	int (*visit)(struct kbx_walk *w, TSNode node, const char *type);
	/* Optional: called once before and after the walk (to set up lang_state). */
	void (*begin)(struct kbx_walk *w);
	void (*end)(struct kbx_walk *w);
	/* Paths the import may name, best first.  importer is the importing
	 * file's repository-relative path. */
	void (*import_candidates)(const char *importer, const struct kbx_ximport *imp,
				  struct kbx_pathlist *out);
	/* Optional: the file that says which import path names its
	 * directory ("go.mod"), and how to read it: module_path puts the
	 * path that text[0..len) declares in out (size outsz) and returns
	 * 0, else -1.  The resolver reads each such file beside and above
	 * the language's files; an import of a declared path, or of a path
	 * under it, then names that directory, or the one under it, and no
	 * other (the longest declared path decides: a nested module maps
	 * its own directory). */
	const char *module_file;
	int (*module_path)(const char *text, size_t len, char *out, size_t outsz);
	/* Optional, with module_file: the declared path names files under
	 * this subdirectory of the module file's directory rather than
	 * directories under the directory itself (Dart: package:shop/a.dart
	 * is lib/a.dart beside the pubspec.yaml that says `name: shop`). */
	const char *module_dir;
	/* Plain calls inside a method may call a method of the same class
	 * without `this` (Java, C#, C++, Ruby): the resolver then tries the
	 * enclosing class first for KBX_RECV_NONE too. */
	int implicit_self;
	/* The separator users write in qualified names ("." or "::"); kbx
	 * accepts either everywhere. */
	const char *scope_sep;
	/* A directory is one module whose files see each other's names
	 * without imports (Go packages): the resolver tries the files of
	 * the caller's directory before the whole repository. */
	int dir_is_package;
	/* Functions may be defined inside functions, and are then seen
	 * only there (Python, JavaScript, Rust, C# local functions): the
	 * resolver looks for a plain call's name in the caller and the
	 * functions enclosing it first, and nowhere else finds such a
	 * helper. */
	int nested_defs;
	/* A plain call reaches only the definitions of its own file and
	 * of the files it imports (Bash: a function exists only in the
	 * shell that defined or sourced it): the resolver looks nowhere
	 * else, and an unfound name is an external (a program). */
	int calls_in_imports_only;
	/* With calls_in_imports_only: what the source proves is not all
	 * that may be in scope (a shell may have loaded another script's
	 * functions some other way, as bash_completion is for the
	 * completion scripts), so the definitions of the name in other
	 * files are ambiguous candidates rather than none (Bash). */
	int loaded_elsewhere;
	/* A name may be used unqualified only where the file defines it,
	 * imports it or shares its package; a wildcard import from
	 * outside the repository (import java.io._) may bring any name.
	 * So in a file with one, a name found only by its uniqueness in
	 * the repository is not proved: it is ambiguous between that
	 * definition and what the import brings; and a dotted type
	 * (java.io.Reader) that no import and no qualified name of the
	 * repository accounts for is never a project type by its last
	 * segment alone (Java, Kotlin, Scala). */
	int wildcards_hide;
	/* A method may be defined in another file than its class, which
	 * declares the fields (C++'s void Foo::f() in foo.cc, Foo's fields in
	 * foo.h; an Objective-C @implementation in Foo.m, its instance
	 * variables in Foo.h): a call on a name no declaration of the
	 * caller's file types looks for a field of the caller's class, or
	 * of its bases, of that name, and takes its declared type. */
	int fields_elsewhere;
	/* A call is bound at run time by the receiver's class, whatever its
	 * declared type (Objective-C's messages): a send to a receiver
	 * declared as a class outside the repository is ambiguous between
	 * that class's method and the overrides of the repository's
	 * subclasses of it (NSBezierPath *p; [p stroke] may run
	 * PRCurvesPath's stroke). */
	int late_binding;
	/* Its imports may pass on what they bring (KBX_IMPORT_REEXPORT):
	 * a name not found in an imported file is looked for in the
	 * files that file passes on. */
	int reexports;
	/* A file's declaration may be another file, bound by name and
	 * passed on like any declaration (Zig's pub const mem =
	 * @import("mem.zig") in std.zig): an import's name may be dotted
	 * (const expect = std.testing.expect: "testing.expect" of
	 * std.zig), and the resolver walks each component but the last
	 * through the files the previous one passes on by that name, as
	 * it walks a dotted receiver (std.mem.swap()).  And a name is in
	 * scope only where its file declares or imports it: a type or a
	 * qualified R.f() is never another file's by its name alone. */
	int module_values;
	/* A module is the table its file returns (Lua): the language
	 * marks that table's class KBX_SYM_EXPORTED, and m.f() with m a
	 * module it imports finds f there when f is not at the module's
	 * top. */
	int returned_table;
	/* A function may be declared for another type (Kotlin's extension
	 * functions, Swift's extensions, qualified Type.name): x.f() on a
	 * receiver of type T that has no member f is the function or
	 * method T.f where one is defined. */
	int extension_functions;
	/* A receiver's type (kbx_xcall.recv_type) and a base are written
	 * with their full name, which the language has expanded from its
	 * aliases (Elixir's modules): the resolver takes the type whose
	 * qualified name is that, and no other type of that last name. */
	int absolute_types;
	/* A definition hides an earlier one of its qualified name in its
	 * file (OCaml's let f = ... twice): the one node kbx keeps for
	 * both (KBX_NODE_REDEFINED) stands for the earlier definition at
	 * some calls and the later at others, so a call reaching it is
	 * ambiguous.  So it is where the compiler chooses one of them
	 * (Zig's pub usingnamespace switch (kind) { .a => struct { fn
	 * init... }, .b => struct { fn init... } }), or the shell runs one
	 * of two branches that define it (Bash). */
	int later_shadows;
	/* A plain call sees the definitions at the top of its file and in
	 * the modules enclosing it, not those inside another module of the
	 * file, which it names M.f (OCaml). */
	int closed_modules;
	/* Calling a type's name never constructs it (C, where a struct's
	 * name is not a call): a plain call is then resolved to functions
	 * alone. */
	int no_type_calls;
	/* Optional: blank, with spaces, what the grammar cannot read in a
	 * copy of the text (C and C++ export macros: `class API_EXPORT
	 * Store {`), every other byte where it was; how many bytes. */
	size_t (*mask)(char *text, size_t len);
	/* Optional: where the top-level pieces of a text begin (byte
	 * offsets, ascending, at most max, the first 0), for a file the
	 * grammar cannot read whole: each piece is then parsed alone, and
	 * an error loses only its own piece (a shell script's functions
	 * after an unreadable one).  Returns their number, at most
	 * KBX_MAX_PIECES. */
	size_t (*pieces)(const char *src, size_t len, uint32_t *starts, size_t max);
	/* Optional: called after visit() for each definition it made (sym),
	 * with the node visited, to set KBX_SYM_EXPORTED and
	 * KBX_SYM_OVERRIDE (lib/lang/visibility.c). */
	void (*visibility)(struct kbx_walk *w, TSNode node, int sym);
};

/* The visibility() of each language (lib/lang/visibility.c). */
void _kbx_c_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_cpp_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_csharp_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_go_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_java_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_js_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_python_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_ruby_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_php_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_rust_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_kotlin_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_swift_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_scala_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_dart_visibility(struct kbx_walk *w, TSNode n, int sym);
void _kbx_elixir_visibility(struct kbx_walk *w, TSNode n, int sym);

/* The table of languages, NULL-terminated. */
extern const struct kbx_lang *const _kbx_languages[];
/* The language for a path by extension or file name, or NULL. */
const struct kbx_lang *_kbx_lang_for_path(const char *path);
/* A ".h" file is C, C++ or Objective-C, and only its text says which: a
 * header with a line that starts, outside comments, with @interface,
 * @protocol, @implementation, @end or #import is Objective-C
 * (_kbx_objc_looks_objc, in lib/lang/objc.c); else one whose text has a
 * construct C does not (a namespace, a class with a body, a template, an
 * access label, "::", an extensionless standard include such as
 * <string>) is C++.  _kbx_lang_for_text gives the language for a path
 * and its text; _kbx_lang_is_header: may the text change it? */
const struct kbx_lang *_kbx_lang_for_text(const char *path, const char *text, size_t len);
int _kbx_lang_is_header(const char *path);
int _kbx_objc_looks_objc(const char *text, size_t len);
/* Vue and Svelte components are JavaScript (vue, svelte) or, when a
 * script block says lang="ts", TypeScript (vue-ts, svelte-ts): see
 * lib/lang/component.c.  _kbx_component_is_ts: does a component's text
 * hold a TypeScript block?  _kbx_lang_text_decides: may a path's text
 * change its language (a header, a component)?  _kbx_lang_text_variant:
 * may the text make then of a path's language lang (C's are C++ and
 * Objective-C, vue's vue-ts, svelte's svelte-ts)? */
int _kbx_component_is_ts(const char *text, size_t len);
int _kbx_lang_text_decides(const char *path);
int _kbx_lang_text_variant(const struct kbx_lang *lang, const struct kbx_lang *then);
/* "javascript" or "typescript" for a component language's name (the
 * language its script blocks are in), NULL for any other name. */
const char *_kbx_lang_script_name(const char *name);
/*
 * Scripts without an extension: the language a "#!" first line names
 * (#!/bin/sh, #!/usr/bin/env lua, php, python3, node, ruby...), or else a
 * modeline in the first or last five lines (vim's "vim: set ft=bash:",
 * Emacs's "-*- mode: lua -*-").  head holds the first hlen bytes of the
 * file, tail its last tlen bytes (both at most KBX_SCRIPT_PEEK; they may
 * overlap).  NULL when neither says.  _kbx_lang_for_text asks it for a
 * path _kbx_lang_may_be_script accepts: a base name with no '.' but a
 * leading one, which no file name of a language matches.
 */
#define KBX_SCRIPT_PEEK 1024
const struct kbx_lang *_kbx_lang_for_script(const char *head, size_t hlen, const char *tail,
					    size_t tlen);
int _kbx_lang_may_be_script(const char *path);
const struct kbx_lang *_kbx_lang_by_name(const char *name);
/* An id stored on disk for a language: its position in the table, plus 1. */
int _kbx_lang_id(const struct kbx_lang *lang);
const struct kbx_lang *_kbx_lang_from_id(int id);
/* Languages whose code can call each other's definitions share a family
 * (C, C++ and Objective-C; JavaScript, TypeScript and TSX; each other language alone).
 * 0 for an unknown id. */
int _kbx_lang_family(int id);

/*
 * Parse src with lang and fill x.  parser is reused between calls by the
 * caller (one per thread).  timeout_us bounds the parse in wall-clock
 * time (0: no limit); a cancellation flag the caller set on the parser
 * (the CPU-time watchdog below) ends it too.  Returns 0, or -1 when the
 * parse was abandoned (x->timed_out set) or memory ran out.
 */
int _kbx_extract(const struct kbx_lang *lang, TSParser *parser, const char *path,
		 const char *src, size_t len, uint64_t timeout_us, struct kbx_extract *x);

/*
 * The parse time limit in CPU time (lib/lang/cpu-limit.c).  One watchdog
 * thread watches the CPU clocks of the threads that parse: a thread
 * takes a slot with _kbx_cpu_watch_attach(), hands &slot->flag to
 * ts_parser_set_cancellation_flag(), and brackets each parse with
 * _kbx_cpu_slot_begin() and _kbx_cpu_slot_end().  The watchdog sets the
 * flag once the parse has used limit_us of the thread's CPU time, or
 * KBX_PARSE_WALL_FACTOR times as much wall-clock time, whichever comes
 * first.  _kbx_parse_timeout_us() is the value for
 * ts_parser_set_timeout_micros(): none with a watchdog, the limit in
 * wall-clock time without one (it could not start, or the slot is
 * NULL).
 */
#define KBX_PARSE_WALL_FACTOR 10
#define KBX_PARSE_CPU_LIMIT 1     /* values of the flag */
#define KBX_PARSE_WALL_CEILING 2

struct kbx_cpu_slot {
	size_t flag;            /* the parser's cancellation flag */
	clockid_t clock;        /* the parsing thread's CPU clock */
	uint64_t deadline_ns;   /* on that clock */
	uint64_t wall_deadline_ns; /* on CLOCK_MONOTONIC */
	int active, used;
};

struct kbx_cpu_watch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	int running, stop;
	uint64_t limit_ns, poll_ns;
	struct kbx_cpu_slot *slots;
	size_t nslots;
};

/* Start the watchdog with nslots slots; -1 when it cannot start (the
 * watch is then inert: attach returns NULL). */
int _kbx_cpu_watch_start(struct kbx_cpu_watch *w, size_t nslots, uint64_t limit_us);
/* Stop and join it; every thread must have detached. */
void _kbx_cpu_watch_stop(struct kbx_cpu_watch *w);
/* A slot for the calling thread, or NULL (no watchdog, no free slot). */
struct kbx_cpu_slot *_kbx_cpu_watch_attach(struct kbx_cpu_watch *w);
void _kbx_cpu_watch_detach(struct kbx_cpu_watch *w, struct kbx_cpu_slot *slot);
/* Clear the flag and start counting the calling thread's CPU time. */
void _kbx_cpu_slot_begin(struct kbx_cpu_watch *w, struct kbx_cpu_slot *slot);
/* Stop counting; the flag: 0, KBX_PARSE_CPU_LIMIT or KBX_PARSE_WALL_CEILING. */
int _kbx_cpu_slot_end(struct kbx_cpu_watch *w, struct kbx_cpu_slot *slot);
uint64_t _kbx_parse_timeout_us(const struct kbx_cpu_watch *w, const struct kbx_cpu_slot *slot,
			       uint64_t limit_us);

#endif
