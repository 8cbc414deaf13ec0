/*
 * Reading a question: which traversal its words ask for, what it starts
 * from, what constrains the answer and what is to be searched.
 *
 * The question is cut into words (a "quoted phrase" or `code` is one
 * word and always a name).  Cues are matched as whole words, case aside,
 * in this order, each taking the words it matches:
 *
 *   depth        transitively, recursively, indirectly, at any depth,
 *                directly, N hops, N levels, depth N
 *   constraints  within|inside|under P;  (that|which) (is|are) called
 *                (by|from) X;  (that|which) call(s) X;  calling X
 *   documents    at the head: documentation, docs, patterns, errors,
 *                adrs, guidelines (what the registry holds), then "used
 *                by" (what the graph's answer uses) or "about", "for",
 *                "relevant to" (the answer itself);  how do I, how to
 *   depth, constraints, ... as above
 *   similarity   similar to S;  like S
 *   names        matching G, named G (a glob: * ? [...]); a word with
 *                glob characters left over is one too
 *   traversal    "what calls X", "callers of X", "subclasses of X",
 *                "what does X call", "methods in X", ... (the table below)
 *
 * A phrase runs from its cue to the next cue word or boundary word
 * (that, which, within, similar, like, ...); leading articles are
 * dropped.  The words no cue took, fillers aside, are searched too.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hybrid/hybrid.h"
#include "lang/lang.h"
#include "text/chunk.h"
#include "util/strbuf.h"

#define MAX_WORDS 128

struct word {
	char *text;              /* as written, punctuation around it cut */
	int literal;             /* quoted: a name, never a cue */
	int used;
};

struct words {
	struct word w[MAX_WORDS];
	size_t n;
};

/* Words that end a phrase. */
static const char *const boundaries[] = {
	"that", "which", "within", "inside", "under", "similar", "like", "transitively",
	"recursively", "indirectly", "directly", "with", "and", "or", "whose", "where", "calling",
	"matching", "named", "?", NULL
};

/* Words that mean nothing on their own, dropped from what is left. */
static const char *const fillers[] = {
	"a", "an", "the", "all", "any", "code", "find", "show", "me", "list", "please", "what",
	"which", "who", "where", "is", "are", "of", "in", "that", "to", "for", "some", "every",
	"functions", "function", "methods", "method", "classes", "class", "files", "file",
	"does", "do", "give", "get", "i", "want", "need", "this", "these", "my", "our",
	"components", "component", "symbols", "symbol", "names", "things", NULL
};

static int in_set(const char *const *set, const char *w)
{
	for (; *set; set++)
		if (!strcasecmp(*set, w))
			return 1;
	return 0;
}

static void words_release(struct words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->w[i].text);
	ws->n = 0;
}

/* Cut the question into words. */
static int split(const char *q, struct words *ws)
{
	const char *p = q;
	while (*p && ws->n < MAX_WORDS) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		struct word *w = &ws->w[ws->n];
		memset(w, 0, sizeof(*w));
		if (*p == '"' || *p == '`' || *p == '\'') {
			char quote = *p++;
			const char *end = strchr(p, quote);
			if (end) {
				w->text = strndup(p, (size_t)(end - p));
				w->literal = 1;
				p = end + 1;
				if (!w->text)
					return -1;
				if (*w->text)
					ws->n++;
				else
					free(w->text);
				continue;
			}
		}
		const char *s = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		const char *e = p;
		/* punctuation around a word is not part of it; inside it is
		 * ("a.py", "Foo::bar", "src/auth") */
		while (s < e && strchr("\"'`(,;!?", *s))
			s++;
		/* "." alone is the repository's root */
		while (e > s && strchr("\"'`),;!?:.", e[-1]) && !(e - s == 1 && *s == '.'))
			e--;
		if (e == s)
			continue;
		w->text = strndup(s, (size_t)(e - s));
		if (!w->text)
			return -1;
		ws->n++;
	}
	return 0;
}

/* Do the unused words from i on read cue (space-separated words)?
 * Returns how many words matched, 0 if not. */
static size_t match(const struct words *ws, size_t i, const char *cue)
{
	size_t k = i;
	const char *c = cue;
	while (*c) {
		size_t len = strcspn(c, " ");
		if (k >= ws->n || ws->w[k].used || ws->w[k].literal ||
		    strlen(ws->w[k].text) != len || strncasecmp(ws->w[k].text, c, len))
			return 0;
		k++;
		c += len;
		while (*c == ' ')
			c++;
	}
	return k - i;
}

static void use(struct words *ws, size_t from, size_t n)
{
	for (size_t i = from; i < from + n && i < ws->n; i++)
		ws->w[i].used = 1;
}

static int is_article(const char *w)
{
	return !strcasecmp(w, "the") || !strcasecmp(w, "a") || !strcasecmp(w, "an");
}

/* The phrase from word i: up to the next used or boundary word, articles
 * at its start dropped.  Marks its words used.  NULL when empty. */
static char *phrase(struct words *ws, size_t i, size_t stop, int at_boundaries)
{
	struct strbuf sb = STRBUF_INIT;
	if (stop > ws->n)
		stop = ws->n;
	while (i < stop && !ws->w[i].used && !ws->w[i].literal && is_article(ws->w[i].text))
		ws->w[i++].used = 1;
	for (; i < stop && !ws->w[i].used; i++) {
		if (at_boundaries && !ws->w[i].literal && in_set(boundaries, ws->w[i].text) &&
		    sb.len)
			break;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, ws->w[i].text);
		ws->w[i].used = 1;
	}
	if (!sb.len || sb.failed) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

/* The words a cue matched, as written. */
static char *joined(const struct words *ws, size_t from, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = from; i < from + n && i < ws->n; i++) {
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, ws->w[i].text);
	}
	return sb.failed ? (strbuf_release(&sb), NULL) : strbuf_detach(&sb, NULL);
}

/* ---- depth ---- */

static int parse_count(const char *w, uint32_t *out)
{
	static const char *const numbers[] = { "zero", "one", "two", "three", "four", "five",
					       "six", "seven", "eight", "nine", "ten", NULL };
	for (uint32_t i = 0; numbers[i]; i++)
		if (!strcasecmp(w, numbers[i])) {
			*out = i;
			return i > 0;
		}
	char *end;
	unsigned long v = strtoul(w, &end, 10);
	if (*end || end == w || !v || v > 1000)
		return 0;
	*out = (uint32_t)v;
	return 1;
}

/* The depth the words from..from+n said. */
static void set_depth(struct words *ws, struct _kbx_question *q, uint32_t depth, size_t from,
		      size_t n)
{
	q->depth = depth;
	free(q->depth_words);
	q->depth_words = joined(ws, from, n);
	use(ws, from, n);
}

static void read_depth(struct words *ws, struct _kbx_question *q)
{
	static const char *const all[] = { "transitively", "recursively", "indirectly",
					   "at any depth", "all levels", "at every level",
					   "directly or indirectly", NULL };
	static const char *const one[] = { "directly", "direct", "immediate", NULL };
	for (size_t i = 0; i < ws->n; i++) {
		size_t m;
		uint32_t v;
		for (const char *const *c = all; *c; c++)
			if ((m = match(ws, i, *c))) {
				set_depth(ws, q, KBX_HYBRID_DEPTH_ALL, i, m);
				goto next;
			}
		for (const char *const *c = one; *c; c++)
			if ((m = match(ws, i, *c))) {
				set_depth(ws, q, 1, i, m);
				goto next;
			}
		/* "depth 3", "3 hops", "3 levels", "up to 3 hops" */
		if (match(ws, i, "depth") && i + 1 < ws->n && parse_count(ws->w[i + 1].text, &v)) {
			set_depth(ws, q, v, i, 2);
		} else if (!ws->w[i].used && parse_count(ws->w[i].text, &v) && i + 1 < ws->n &&
			   (match(ws, i + 1, "hops") || match(ws, i + 1, "hop") ||
			    match(ws, i + 1, "levels") || match(ws, i + 1, "level") ||
			    match(ws, i + 1, "deep"))) {
			size_t from = i >= 2 && match(ws, i - 2, "up to") ? i - 2 : i;
			set_depth(ws, q, v, from, i + 2 - from);
		}
next:;
	}
}

/* ---- constraints and similarity ---- */

/* Find cue anywhere; the phrase after it goes to *out. */
static int take_after(struct words *ws, const char *const *cues, char **out)
{
	for (size_t i = 0; i < ws->n; i++)
		for (const char *const *c = cues; *c; c++) {
			size_t m = match(ws, i, *c);
			if (!m)
				continue;
			char *p = phrase(ws, i + m, ws->n, 1);
			if (!p)
				continue;
			use(ws, i, m);
			free(*out);
			*out = p;
			return 1;
		}
	return 0;
}

static void read_constraints(struct words *ws, struct _kbx_question *q)
{
	static const char *const called_by[] = {
		"that is called by", "that are called by", "which is called by", "which are called by",
		"that is called from", "that are called from", "which is called from",
		"which are called from", "that get called by", "that gets called by",
		"that is used by", "that are used by", NULL
	};
	static const char *const calls[] = {
		"that calls", "that call", "which calls", "which call", "that uses", "that use",
		"calling", NULL
	};
	static const char *const within[] = { "within", "inside", "under", NULL };
	take_after(ws, called_by, &q->called_by);
	take_after(ws, calls, &q->calls);
	take_after(ws, within, &q->within);
}

static void read_similar(struct words *ws, struct _kbx_question *q)
{
	static const char *const cues[] = { "similar to", "something like", "like", "resembling",
					    NULL };
	for (size_t i = 0; i < ws->n; i++)
		for (const char *const *c = cues; *c; c++) {
			size_t m = match(ws, i, *c);
			if (!m)
				continue;
			/* the rest of the question, up to a constraint or
			 * another cue already taken */
			char *p = phrase(ws, i + m, ws->n, 0);
			if (!p)
				continue;
			use(ws, i, m);
			free(q->similar);
			q->similar = p;
			return;
		}
}

/* ---- registry documents ---- */

#define DOC_TYPES (1u << KBX_CHUNK_DOC | 1u << KBX_CHUNK_PATTERN | 1u << KBX_CHUNK_ADR | \
		   1u << KBX_CHUNK_BEHAVIORAL)
#define REGISTRY_TYPES (DOC_TYPES | 1u << KBX_CHUNK_ERROR)

/* Nouns that name what the registry holds; not "rules", "notes" or
 * "exceptions", which name code as often. */
static const struct {
	const char *words;
	unsigned types;
} doc_nouns[] = {
	{ "documentation", DOC_TYPES }, { "documents", DOC_TYPES }, { "docs", DOC_TYPES },
	{ "guides", DOC_TYPES },
	{ "best practices", 1u << KBX_CHUNK_PATTERN }, { "patterns", 1u << KBX_CHUNK_PATTERN },
	{ "practices", 1u << KBX_CHUNK_PATTERN }, { "idioms", 1u << KBX_CHUNK_PATTERN },
	{ "error entries", 1u << KBX_CHUNK_ERROR }, { "errors", 1u << KBX_CHUNK_ERROR },
	{ "decision records", 1u << KBX_CHUNK_ADR }, { "decisions", 1u << KBX_CHUNK_ADR },
	{ "adrs", 1u << KBX_CHUNK_ADR },
	{ "guidelines", 1u << KBX_CHUNK_BEHAVIORAL }, { "instructions", 1u << KBX_CHUNK_BEHAVIORAL },
	{ NULL, 0 }
};

/* What the documents are about: what the graph's answer uses, or the
 * answer itself. */
static const struct {
	const char *words;
	int hop;
} doc_hops[] = {
	{ "that are used by", KBX_HOP_USES }, { "that is used by", KBX_HOP_USES },
	{ "used by", KBX_HOP_USES }, { "used in", KBX_HOP_USES }, { "applied by", KBX_HOP_USES },
	{ "applied in", KBX_HOP_USES }, { "followed by", KBX_HOP_USES },
	{ "relevant to", KBX_HOP_ABOUT }, { "related to", KBX_HOP_ABOUT },
	{ "about", KBX_HOP_ABOUT }, { "for", KBX_HOP_ABOUT }, { "on", KBX_HOP_ABOUT },
	{ "concerning", KBX_HOP_ABOUT }, { "regarding", KBX_HOP_ABOUT },
	{ "covering", KBX_HOP_ABOUT }, { "describing", KBX_HOP_ABOUT },
	{ "that apply to", KBX_HOP_ABOUT }, { "that explain", KBX_HOP_ABOUT },
	{ NULL, 0 }
};

/* Words that may come before the question's head ("show me the docs
 * about ...", "are there patterns for ..."). */
static const char *const leads[] = {
	"show", "me", "find", "list", "the", "a", "an", "any", "all", "some", "which", "what",
	"are", "there", "is", "give", "get", "i", "want", "need", "please", "registry", NULL
};

static void add_words(struct strbuf *sb, const struct words *ws, size_t from, size_t n)
{
	for (size_t i = from; i < from + n && i < ws->n; i++) {
		if (sb->len)
			strbuf_addch(sb, ' ');
		strbuf_addstr(sb, ws->w[i].text);
	}
}

/*
 * The registry's documents, when the question asks for them: a document
 * noun at its head ("patterns used by classes extending X",
 * "documentation relevant to this bug", "docs and patterns about ..."),
 * then what they are about; or a how-to question ("how do I add a
 * timeout"), which asks for documents and code both.  Runs first: "used
 * by" would otherwise read as a "called by" constraint.
 */
static void read_docs(struct words *ws, struct _kbx_question *q)
{
	static const char *const howto[] = { "how do i", "how do we", "how do you", "how can i",
					     "how can we", "how should i", "how should we",
					     "how does one", "how to", NULL };
	size_t i = 0, m;
	for (const char *const *h = howto; *h; h++)
		for (size_t k = 0; k < ws->n && k < 3; k++)
			if ((m = match(ws, k, *h))) {
				q->doc_types = 1u << KBX_CHUNK_ERROR | DOC_TYPES;
				q->doc_words = joined(ws, k, m);
				use(ws, k, m);
				return;
			}
	while (i < ws->n && i < 6 && !ws->w[i].literal && in_set(leads, ws->w[i].text))
		i++;
	struct strbuf sb = STRBUF_INIT;
	size_t start = i;
	unsigned types = 0;
	for (;;) {
		size_t hm = 0;
		for (size_t k = 0; doc_nouns[k].words; k++)
			if ((hm = match(ws, i, doc_nouns[k].words))) {
				types |= doc_nouns[k].types;
				break;
			}
		if (!hm)
			break;
		add_words(&sb, ws, i, hm);
		i += hm;
		/* "docs and patterns", "errors or patterns" */
		if (i + 1 < ws->n && (match(ws, i, "and") || match(ws, i, "or"))) {
			size_t k;
			for (k = 0; doc_nouns[k].words; k++)
				if (match(ws, i + 1, doc_nouns[k].words))
					break;
			if (doc_nouns[k].words) {
				i++;
				continue;
			}
		}
		break;
	}
	/* a noun of the registry is the head when what follows it says
	 * what the documents are about, or starts a clause: in "error
	 * handling code" the noun is a modifier */
	static const char *const follows[] = { "that", "which", "with", "from", "similar", "like",
					       "within", "under", "inside", "?", NULL };
	size_t k;
	m = 0;
	for (k = 0; types && doc_hops[k].words; k++)
		if ((m = match(ws, i, doc_hops[k].words)))
			break;
	if (!types || sb.failed ||
	    (!m && i < ws->n && (ws->w[i].literal || !in_set(follows, ws->w[i].text)))) {
		strbuf_release(&sb);
		return;
	}
	q->doc_types = types;
	q->doc_head = 1;
	q->doc_words = strbuf_detach(&sb, NULL);
	use(ws, start, i - start);
	if (m) {
		q->doc_hop = doc_hops[k].hop;
		q->doc_hop_words = joined(ws, i, m);
		use(ws, i, m);
	}
}

/* ---- names by glob ---- */

static int has_glob(const char *w)
{
	return strpbrk(w, "*?[") != NULL;
}

/* "matching 'auth*'", "named get_*": the word after the cue, as written
 * (a word with glob characters that no cue took is read with the rest). */
static void read_glob(struct words *ws, struct _kbx_question *q)
{
	static const char *const cues[] = { "whose names match", "whose name matches",
					    "with names matching", "with a name matching",
					    "that match", "that matches", "which match", "matching",
					    "named", NULL };
	for (size_t i = 0; i < ws->n; i++)
		for (const char *const *c = cues; *c; c++) {
			size_t m = match(ws, i, *c);
			if (!m || i + m >= ws->n || ws->w[i + m].used)
				continue;
			q->glob = strdup(ws->w[i + m].text);
			use(ws, i, m + 1);
			return;
		}
}

/* ---- traversals ---- */

struct cue {
	const char *words;
	int rel;
};

/* "<cue> X" */
static const struct cue prefix_cues[] = {
	{ "what calls", KBX_REL_CALLERS }, { "who calls", KBX_REL_CALLERS },
	{ "what else calls", KBX_REL_CALLERS }, { "which functions call", KBX_REL_CALLERS },
	{ "which methods call", KBX_REL_CALLERS }, { "functions that call", KBX_REL_CALLERS },
	{ "methods that call", KBX_REL_CALLERS }, { "callers of", KBX_REL_CALLERS },
	{ "who uses", KBX_REL_CALLERS }, { "what uses", KBX_REL_CALLERS },
	{ "uses of", KBX_REL_CALLERS }, { "usages of", KBX_REL_CALLERS },
	{ "call sites of", KBX_REL_CALLERS }, { "where is", KBX_REL_CALLERS },
	{ "callees of", KBX_REL_CALLEES }, { "what is called by", KBX_REL_CALLEES },
	{ "what gets called by", KBX_REL_CALLEES }, { "functions called by", KBX_REL_CALLEES },
	{ "methods called by", KBX_REL_CALLEES }, { "called by", KBX_REL_CALLEES },
	{ "called from", KBX_REL_CALLEES }, { "calls made by", KBX_REL_CALLEES },
	{ "subclasses of", KBX_REL_SUBCLASSES }, { "subtypes of", KBX_REL_SUBCLASSES },
	{ "classes that extend", KBX_REL_SUBCLASSES }, { "classes extending", KBX_REL_SUBCLASSES },
	{ "classes that inherit from", KBX_REL_SUBCLASSES },
	{ "classes inheriting from", KBX_REL_SUBCLASSES }, { "what extends", KBX_REL_SUBCLASSES },
	{ "who extends", KBX_REL_SUBCLASSES }, { "what inherits from", KBX_REL_SUBCLASSES },
	{ "classes derived from", KBX_REL_SUBCLASSES }, { "derived classes of", KBX_REL_SUBCLASSES },
	{ "derived from", KBX_REL_SUBCLASSES }, { "implementations of", KBX_REL_SUBCLASSES },
	{ "what implements", KBX_REL_SUBCLASSES }, { "classes that implement", KBX_REL_SUBCLASSES },
	{ "children of", KBX_REL_SUBCLASSES },
	{ "superclasses of", KBX_REL_SUPERCLASSES }, { "supertypes of", KBX_REL_SUPERCLASSES },
	{ "base classes of", KBX_REL_SUPERCLASSES }, { "bases of", KBX_REL_SUPERCLASSES },
	{ "parent classes of", KBX_REL_SUPERCLASSES }, { "parents of", KBX_REL_SUPERCLASSES },
	{ "what imports", KBX_REL_IMPORTERS }, { "who imports", KBX_REL_IMPORTERS },
	{ "which files import", KBX_REL_IMPORTERS }, { "files that import", KBX_REL_IMPORTERS },
	{ "files importing", KBX_REL_IMPORTERS }, { "modules that import", KBX_REL_IMPORTERS },
	{ "importers of", KBX_REL_IMPORTERS },
	{ "imports of", KBX_REL_IMPORTS }, { "what is imported by", KBX_REL_IMPORTS },
	{ "modules imported by", KBX_REL_IMPORTS }, { "files imported by", KBX_REL_IMPORTS },
	{ "imported by", KBX_REL_IMPORTS }, { "dependencies of", KBX_REL_IMPORTS },
	{ "methods defined in", KBX_REL_DEFINES }, { "functions defined in", KBX_REL_DEFINES },
	{ "classes defined in", KBX_REL_DEFINES }, { "what is defined in", KBX_REL_DEFINES },
	{ "methods in", KBX_REL_DEFINES }, { "methods of", KBX_REL_DEFINES },
	{ "functions in", KBX_REL_DEFINES }, { "functions of", KBX_REL_DEFINES },
	{ "classes in", KBX_REL_DEFINES }, { "members of", KBX_REL_DEFINES },
	{ "definitions in", KBX_REL_DEFINES }, { "symbols in", KBX_REL_DEFINES },
	{ "contents of", KBX_REL_DEFINES }, { "what is in", KBX_REL_DEFINES },
	{ "everything in", KBX_REL_DEFINES },
	{ "impact of", KBX_REL_IMPACT }, { "impact of changing", KBX_REL_IMPACT },
	{ "what is affected by changing", KBX_REL_IMPACT }, { "affected by changing", KBX_REL_IMPACT },
	{ "what is affected by", KBX_REL_IMPACT }, { "affected by", KBX_REL_IMPACT },
	{ "what depends on", KBX_REL_IMPACT }, { "dependents of", KBX_REL_IMPACT },
	{ "blast radius of", KBX_REL_IMPACT }, { "what breaks if i change", KBX_REL_IMPACT },
	{ "what breaks if", KBX_REL_IMPACT },
	{ NULL, 0 }
};

/* "what does X <verb>" */
static const struct cue infix_verbs[] = {
	{ "call", KBX_REL_CALLEES }, { "use", KBX_REL_CALLEES }, { "import", KBX_REL_IMPORTS },
	{ "define", KBX_REL_DEFINES }, { "contain", KBX_REL_DEFINES }, { "extend", KBX_REL_SUPERCLASSES },
	{ "inherit from", KBX_REL_SUPERCLASSES }, { "inherit", KBX_REL_SUPERCLASSES },
	{ "implement", KBX_REL_SUPERCLASSES }, { "affect", KBX_REL_IMPACT },
	{ "impact", KBX_REL_IMPACT }, { "break", KBX_REL_IMPACT },
	{ NULL, 0 }
};

/* The kind a cue's or the question's head noun asks for. */
static void read_kind(const char *w, struct _kbx_question *q)
{
	unsigned k = 0;
	if (!strcasecmp(w, "methods") || !strcasecmp(w, "functions") ||
	    !strcasecmp(w, "method") || !strcasecmp(w, "function"))
		k = 1u << KBX_KIND_FUNCTION | 1u << KBX_KIND_METHOD;
	else if (!strcasecmp(w, "classes") || !strcasecmp(w, "class") || !strcasecmp(w, "types"))
		k = 1u << KBX_KIND_CLASS | 1u << KBX_KIND_STRUCT | 1u << KBX_KIND_INTERFACE |
		    1u << KBX_KIND_TRAIT | 1u << KBX_KIND_ENUM;
	else if (!strcasecmp(w, "files") || !strcasecmp(w, "modules"))
		k = 1u << KBX_KIND_FILE | 1u << KBX_KIND_MODULE;
	if (k && !q->kinds) {
		q->kinds = k;
		q->kind_words = strdup(w);
	}
}

static void read_relation(struct words *ws, struct _kbx_question *q)
{
	for (size_t i = 0; i < ws->n; i++) {
		/* "what does X call", "what do X import", "who does X call" */
		size_t m = match(ws, i, "what does");
		if (!m)
			m = match(ws, i, "what do");
		if (!m)
			m = match(ws, i, "who does");
		if (!m)
			m = match(ws, i, "which functions does");
		if (m) {
			for (size_t j = i + m + 1; j < ws->n; j++)
				for (const struct cue *c = infix_verbs; c->words; c++) {
					size_t vm = match(ws, j, c->words);
					if (!vm)
						continue;
					char *target = phrase(ws, i + m, j, 0);
					if (!target)
						continue;
					q->relation = c->rel;
					q->relation_words = joined(ws, i, m);
					struct strbuf sb = STRBUF_INIT;
					strbuf_addf(&sb, "%s ... %s", q->relation_words ? q->relation_words : "",
						    ws->w[j].text);
					free(q->relation_words);
					q->relation_words = sb.failed ? NULL : strbuf_detach(&sb, NULL);
					use(ws, i, m);
					use(ws, j, vm);
					q->target = target;
					return;
				}
		}
		/* the longest prefix cue here */
		const struct cue *best = NULL;
		size_t bm = 0;
		for (const struct cue *c = prefix_cues; c->words; c++) {
			size_t cm = match(ws, i, c->words);
			if (cm > bm) {
				bm = cm;
				best = c;
			}
		}
		if (!best)
			continue;
		/* "where is X used|called" */
		char *target = phrase(ws, i + bm, ws->n, 1);
		if (!target) {
			/* "what calls" and nothing after it: a traversal
			 * without its name (the caller says so) */
			if (i + bm == ws->n && strcmp(best->words, "where is")) {
				q->relation = best->rel;
				q->relation_words = joined(ws, i, bm);
				use(ws, i, bm);
				return;
			}
			continue;
		}
		if (!strcmp(best->words, "where is")) {
			size_t e = i + bm;
			while (e < ws->n && ws->w[e].used)
				e++;
			if (!(e < ws->n && (match(ws, e, "used") || match(ws, e, "called")))) {
				/* not a traversal after all: give the words back */
				for (size_t k = i + bm; k < e; k++)
					ws->w[k].used = 0;
				free(target);
				continue;
			}
			use(ws, e, 1);
		}
		/* "the function that reads the index": a generic noun and a
		 * clause that says which one; the clause is the target */
		static const char *const generic[] = { "function", "functions", "method", "methods",
						       "class", "classes", "code", "one", "thing",
						       "file", "module", NULL };
		if (in_set(generic, target)) {
			size_t e = i + bm;
			while (e < ws->n && ws->w[e].used)
				e++;
			if (e < ws->n && (match(ws, e, "that") || match(ws, e, "which"))) {
				char *clause = phrase(ws, e + 1, ws->n, 0);
				if (clause) {
					use(ws, e, 1);
					free(target);
					target = clause;
				}
			}
		}
		read_kind(ws->w[i].text, q);
		if (bm > 1)
			read_kind(ws->w[i + bm - 2].text, q);
		q->relation = best->rel;
		q->relation_words = joined(ws, i, bm);
		use(ws, i, bm);
		q->target = target;
		return;
	}
}

/* ---- the rest ---- */

/* Does the word hold a letter or a digit (or any non-ASCII byte)? */
static int wordy(const char *w)
{
	for (; *w; w++)
		if (isalnum((unsigned char)*w) || (unsigned char)*w >= 0x80)
			return 1;
	return 0;
}

/* A word with glob characters and a letter or digit ("auth*", not "*"),
 * left over by every cue, is a glob over names. */
static void read_bare_glob(struct words *ws, struct _kbx_question *q)
{
	for (size_t i = 0; i < ws->n && !q->glob; i++)
		if (!ws->w[i].used && has_glob(ws->w[i].text) && wordy(ws->w[i].text)) {
			q->glob = strdup(ws->w[i].text);
			use(ws, i, 1);
		}
}

static char *leftover(struct words *ws)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < ws->n; i++) {
		if (ws->w[i].used || (!ws->w[i].literal && in_set(fillers, ws->w[i].text)) ||
		    !wordy(ws->w[i].text))
			continue;
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_addstr(&sb, ws->w[i].text);
	}
	if (!sb.len || sb.failed) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

int _kbx_understand(const char *query, struct _kbx_question *q)
{
	struct words *ws = calloc(1, sizeof(*ws));
	memset(q, 0, sizeof(*q));
	if (!ws || split(query, ws)) {
		if (ws)
			words_release(ws);
		free(ws);
		return -1;
	}
	/* the head noun ("functions similar to ...", "classes in ...") */
	for (size_t i = 0; i < ws->n && i < 2; i++)
		if (!ws->w[i].literal)
			read_kind(ws->w[i].text, q);
	read_depth(ws, q);
	read_docs(ws, q);
	read_glob(ws, q);
	read_constraints(ws, q);
	read_relation(ws, q);
	read_similar(ws, q);
	read_bare_glob(ws, q);
	q->rest = leftover(ws);
	words_release(ws);
	free(ws);
	return 0;
}

void _kbx_question_release(struct _kbx_question *q)
{
	free(q->relation_words);
	free(q->target);
	free(q->within);
	free(q->called_by);
	free(q->calls);
	free(q->similar);
	free(q->rest);
	free(q->depth_words);
	free(q->kind_words);
	free(q->doc_words);
	free(q->doc_hop_words);
	free(q->glob);
	memset(q, 0, sizeof(*q));
}
