/*
 * Fuzz the source-language extractors (lib/lang/): any bytes in a file
 * with a known extension must extract without a crash, leave facts the
 * resolver can trust (indexes in range, names set), give import
 * candidates in the promised normal form, and survive the trip through
 * the refs record the store keeps (lib/store/refs.c).
 *
 * The first byte picks the language (its index in _kbx_languages, modulo
 * their number); the rest is the file.
 */
#include <string.h>

#include "fuzz.h"
#include "graph/graph.h"

static TSParser *parser;
static size_t nlangs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	parser = ts_parser_new();
	while (_kbx_languages[nlangs])
		nlangs++;
	return 0;
}

static int eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* "Candidates are repository-relative paths, normalised: no "./",
 * "../" or "//"", after an optional '*' or '=' and before an optional
 * trailing '/'.  Not empty, and not absolute. */
static int candidate_ok(const char *c)
{
	if (*c == '*' || *c == '=')
		c++;
	if (!*c || *c == '/')
		return 0;
	for (const char *p = c; *p; p++) {
		int seg_start = p == c || p[-1] == '/';
		if (*p == '/' && p[1] == '/')
			return 0;
		if (seg_start && p[0] == '.' &&
		    (!p[1] || p[1] == '/' || (p[1] == '.' && (!p[2] || p[2] == '/'))))
			return 0;
	}
	return 1;
}

static void check_candidate(const struct kbx_ximport *m, const char *c)
{
	FUZZ_ASSERT(c != NULL);
	if (!candidate_ok(c)) {
		fprintf(stderr, "import '%s' (name '%s', level %d, flags %d) gives the candidate '%s'\n",
			m->module, m->name ? m->name : "", m->level, m->flags, c);
		FUZZ_ASSERT(!"import candidate in normal form");
	}
}

static void check_extract(const struct kbx_extract *x, const char *path,
			  const struct kbx_lang *lang)
{
	for (size_t i = 0; i < x->nsyms; i++) {
		const struct kbx_xsym *s = &x->syms[i];
		FUZZ_ASSERT(s->name && s->qual && *s->name);
		FUZZ_ASSERT(s->parent >= -1 && s->parent < (int)i);
		FUZZ_ASSERT(s->kind > KBX_KIND_NONE && s->kind < KBX_KIND__COUNT);
		FUZZ_ASSERT(s->line >= 1);
	}
	for (size_t i = 0; i < x->ncalls; i++) {
		const struct kbx_xcall *c = &x->calls[i];
		FUZZ_ASSERT(c->name);
		FUZZ_ASSERT(c->caller >= -1 && c->caller < (int)x->nsyms);
		FUZZ_ASSERT(c->recv >= KBX_RECV_NONE && c->recv <= KBX_RECV_MACRO);
		FUZZ_ASSERT(!c->recv_type || *c->recv_type);
	}
	for (size_t i = 0; i < x->ninherits; i++) {
		const struct kbx_xinherit *h = &x->inherits[i];
		FUZZ_ASSERT(h->base);
		FUZZ_ASSERT(h->sym >= 0 && h->sym < (int)x->nsyms);
	}
	for (size_t i = 0; i < x->nimports; i++) {
		const struct kbx_ximport *m = &x->imports[i];
		FUZZ_ASSERT(m->module);
		if (!lang->import_candidates)
			continue;
		/* the strings in blocks of their own size, so that ASan sees a
		 * read past their end (in the arena it would not) */
		struct kbx_ximport xi = { strdup(m->module), m->name ? strdup(m->name) : NULL,
					  m->alias ? strdup(m->alias) : NULL, m->level, m->flags,
					  m->line };
		struct kbx_pathlist pl = { 0 };
		if (xi.module)
			lang->import_candidates(path, &xi, &pl);
		for (size_t j = 0; j < pl.n; j++)
			check_candidate(m, pl.paths[j]);
		_kbx_pathlist_release(&pl);
		free((char *)xi.module);
		free((char *)xi.name);
		free((char *)xi.alias);
	}
}

static void count_name(void *data, const char *name)
{
	*(size_t *)data += strlen(name);
}

/* What the store keeps of the extraction decodes to the same facts. */
static void check_refs_roundtrip(const struct kbx_extract *x, const char *path,
				 const struct kbx_lang *lang)
{
	uint32_t *ids = calloc(x->nsyms + 1, sizeof(*ids));
	if (!ids)
		return;
	for (size_t i = 0; i < x->nsyms; i++)
		ids[i] = (uint32_t)i + 100;
	struct strbuf sb = STRBUF_INIT;
	_kbx_refs_encode(&sb, x, ids, ids, x->nsyms);
	FUZZ_ASSERT(!sb.failed);
	struct _kbx_refs r;
	FUZZ_ASSERT(_kbx_refs_decode(sb.buf, sb.len, &r) == KBX_OK);
	FUZZ_ASSERT(r.nnodes == x->nsyms && r.ncalls == x->ncalls);
	FUZZ_ASSERT(r.nimports == x->nimports && r.ninherits == x->ninherits);
	for (size_t i = 0; i < x->ncalls; i++) {
		const struct kbx_xcall *c = &x->calls[i];
		FUZZ_ASSERT(r.calls[i].caller == (c->caller >= 0 ? ids[c->caller] : 0));
		FUZZ_ASSERT(r.calls[i].line == c->line && r.calls[i].col == c->col);
		FUZZ_ASSERT(r.calls[i].recv == c->recv);
		FUZZ_ASSERT(eq(r.calls[i].name, c->name) && eq(r.calls[i].receiver, c->receiver));
		FUZZ_ASSERT(r.calls[i].nargs == (c->nargs < 0 ? -1 : c->nargs));
	}
	size_t na = 0;
	for (size_t i = 0; i < x->nsyms; i++) {
		if (x->syms[i].arity_min < 0)
			continue;
		FUZZ_ASSERT(na < r.narities && r.arities[na].node == ids[i]);
		FUZZ_ASSERT(r.arities[na].min == x->syms[i].arity_min);
		FUZZ_ASSERT(x->syms[i].arity_max < x->syms[i].arity_min ||
			    r.arities[na].max == x->syms[i].arity_max);
		na++;
	}
	FUZZ_ASSERT(na == r.narities);
	size_t nr = 0;
	for (size_t i = 0; i < x->nsyms; i++) {
		if (!x->syms[i].ret_type)
			continue;
		FUZZ_ASSERT(nr < r.nreturns && r.returns[nr].node == ids[i]);
		FUZZ_ASSERT(eq(r.returns[nr].type, x->syms[i].ret_type));
		nr++;
	}
	FUZZ_ASSERT(nr == r.nreturns);
	for (size_t i = 0; i < x->nimports; i++) {
		const struct kbx_ximport *m = &x->imports[i];
		FUZZ_ASSERT(eq(r.imports[i].module, m->module) && eq(r.imports[i].name, m->name));
		FUZZ_ASSERT(eq(r.imports[i].alias, m->alias) && r.imports[i].flags == m->flags);
		FUZZ_ASSERT(r.imports[i].line == m->line);
	}
	for (size_t i = 0; i < x->ninherits; i++) {
		FUZZ_ASSERT(r.inherits[i].cls == ids[x->inherits[i].sym]);
		FUZZ_ASSERT(eq(r.inherits[i].base, x->inherits[i].base));
	}
	/* the names a change elsewhere would look this file up by */
	size_t total = 0;
	r.path = path;
	_kbx_refs_names(&r, lang, count_name, &total);
	_kbx_refs_release(&r);
	strbuf_release(&sb);
	free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size || !parser)
		return 0;
	const struct kbx_lang *lang = _kbx_languages[data[0] % nlangs];
	char path[64];
	/* a path in a subdirectory, so that relative imports can climb */
	snprintf(path, sizeof(path), "src/pkg/mod%s",
		 lang->extensions && lang->extensions[0] ? lang->extensions[0] : "");
	struct kbx_extract x = KBX_EXTRACT_INIT;
	/* as the indexer does: a time limit on the parse (generous: the
	 * sanitizers slow everything down) */
	if (_kbx_extract(lang, parser, path, (const char *)data + 1, size - 1, 2000000, &x) == 0) {
		check_extract(&x, path, lang);
		check_refs_roundtrip(&x, path, lang);
	}
	_kbx_extract_release(&x);
	return 0;
}
