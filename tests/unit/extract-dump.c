/*
 * extract-dump: print what a language extractor finds in files, one fact a
 * line, in a stable order, for the fixture tests under tests/corpora/.
 *
 *   extract-dump [--c-headers=GLOBS] [--cpp-headers=GLOBS] FILE...
 *
 * The options set the language of .h headers as the settings
 * index.cHeaders and index.cppHeaders do for kbx index.
 *
 * Each line is one of
 *   def KIND QUAL LINE [in PARENT]
 *   call CALLER NAME LINE [self|super|value|recv=TEXT [type=TYPE]|open=MODULE]
 *   import MODULE [name=N] [as=A] [level=L] [system] [wildcard] [mod] [static] LINE
 *   inherit CLASS BASE LINE
 *   field CLASS.NAME TYPE LINE
 * where CALLER is the qualified name of the enclosing function or "<file>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t alloc = 65536, n = 0;
	char *buf = malloc(alloc);
	size_t r;
	while (buf && (r = fread(buf + n, 1, alloc - n, f)) > 0) {
		n += r;
		if (n == alloc) {
			char *nb = realloc(buf, alloc *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	int status = 0;
	TSParser *parser = ts_parser_new();
	struct kbx_header_langs headers = { NULL, NULL };
	int first = 1;
	for (; first < argc && !strncmp(argv[first], "--", 2); first++) {
		if (!strncmp(argv[first], "--c-headers=", 12))
			headers.c = argv[first] + 12;
		else if (!strncmp(argv[first], "--cpp-headers=", 14))
			headers.cpp = argv[first] + 14;
		else {
			fprintf(stderr, "error: unknown option '%s'\n", argv[first]);
			return 2;
		}
	}
	for (int i = first; i < argc; i++) {
		const char *path = argv[i];
		if (!_kbx_lang_for_path(path) && !_kbx_lang_may_be_script(path)) {
			fprintf(stderr, "error: no language for '%s'\n", path);
			status = 2;
			continue;
		}
		size_t len;
		char *src = slurp(path, &len);
		if (!src) {
			fprintf(stderr, "error: cannot read '%s'\n", path);
			status = 2;
			continue;
		}
		/* a header is C or C++ as kbx index reads it, a script without
		 * an extension what its first line or a modeline says */
		const struct kbx_lang *lang = _kbx_header_lang(&headers, path, src, len);
		if (!lang) {
			fprintf(stderr, "error: no language for '%s'\n", path);
			free(src);
			status = 2;
			continue;
		}
		struct kbx_extract x = KBX_EXTRACT_INIT;
		if (_kbx_extract(lang, parser, path, src, len, 0, &x) < 0) {
			fprintf(stderr, "error: cannot parse '%s'\n", path);
			status = 2;
		}
		if (argc - first > 1)
			printf("# %s\n", path);
		for (size_t j = 0; j < x.nsyms; j++) {
			const struct kbx_xsym *s = &x.syms[j];
			printf("def %s %s %u", _kbx_kind_name(s->kind), s->qual, s->line);
			if (s->parent >= 0)
				printf(" in %s", x.syms[s->parent].qual);
			if (s->arity_min >= 0 && s->arity_max == KBX_ARITY_ANY)
				printf(" args=%d..", s->arity_min);
			else if (s->arity_min >= 0)
				printf(" args=%d..%d", s->arity_min, s->arity_max);
			if (s->ret_type)
				printf(" returns=%s", s->ret_type);
			if (s->cb_types)
				printf(" callbacks=%s", s->cb_types);
			putchar('\n');
		}
		for (size_t j = 0; j < x.ncalls; j++) {
			const struct kbx_xcall *c = &x.calls[j];
			printf("call %s %s %u", c->caller >= 0 ? x.syms[c->caller].qual : "<file>",
			       c->name, c->line);
			if (c->recv == KBX_RECV_SELF)
				printf(" self");
			else if (c->recv == KBX_RECV_SUPER)
				printf(" super");
			else if (c->recv == KBX_RECV_VALUE)
				printf(" value");
			else if (c->recv == KBX_RECV_MACRO)
				printf(" macro");
			else if (c->recv == KBX_RECV_EXPR)
				printf(" recv=%s", c->receiver ? c->receiver : "?");
			else if (c->receiver)
				printf(" open=%s", c->receiver);
			if (c->recv_type)
				printf(" type=%s", c->recv_type);
			if (c->nargs >= 0)
				printf(" args=%d", c->nargs);
			putchar('\n');
		}
		for (size_t j = 0; j < x.nimports; j++) {
			const struct kbx_ximport *m = &x.imports[j];
			printf("import %s", m->module);
			if (m->name)
				printf(" name=%s", m->name);
			if (m->alias)
				printf(" as=%s", m->alias);
			if (m->level)
				printf(" level=%d", m->level);
			if (m->flags & KBX_IMPORT_SYSTEM)
				printf(" system");
			if (m->flags & KBX_IMPORT_WILDCARD)
				printf(" wildcard");
			if (m->flags & KBX_IMPORT_MOD)
				printf(" mod");
			if (m->flags & KBX_IMPORT_STATIC)
				printf(" static");
			if (m->flags & KBX_IMPORT_REEXPORT)
				printf(" reexport");
			if (m->flags & KBX_IMPORT_OUTER)
				printf(" outer");
			if (m->flags & KBX_IMPORT_PACKAGE)
				printf(" package");
			printf(" %u\n", m->line);
		}
		for (size_t j = 0; j < x.ninherits; j++) {
			const struct kbx_xinherit *h = &x.inherits[j];
			printf("inherit %s %s %u\n", x.syms[h->sym].qual, h->base, h->line);
		}
		for (size_t j = 0; j < x.nfields; j++) {
			const struct kbx_xfield *f = &x.fields[j];
			printf("field %s.%s %s %u\n", x.syms[f->sym].qual, f->name, f->type, f->line);
		}
		_kbx_extract_release(&x);
		free(src);
	}
	ts_parser_delete(parser);
	return status;
}
