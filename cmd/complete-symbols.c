/*
 * kbx complete-symbols: what the index can complete a typed prefix to,
 * one per line, for the shell completions (plumbing: bare text, never
 * coloured, never grouped).
 *
 *   "add"        names:            add, add_all, ...
 *   "Dog.sp"     qualified names:  Dog.speak (with the separator typed:
 *                "Dog::sp" gives Dog::speak)
 *   "src/a", "src/a.py#", "extern:pri", "module:os"
 *                canonical ids and paths
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "lang/lang.h"
#include "output.h"
#include "parse-options.h"
#include "util/quote.h"
#include "util/strbuf.h"

static const char *const complete_symbols_usage[] = {
	"kbx complete-symbols [--prefix=<prefix>] [--kind=<kinds>] [--max=<n>]",
	NULL
};

struct completer {
	kbx_store_t *store;
	unsigned kinds;          /* bit per kind; 0: all */
	const char *qual;        /* the typed qualifier, dot-joined ("Dog") */
	const char *sep;         /* the separator typed ("." or "::") */
	const char *typed_qual;  /* the qualifier as typed ("Dog" or "ns::Dog") */
	size_t strip;            /* bytes to leave off the front of ids ("module:") */
	long max;                /* --max: lines at most; 0: all */
	long printed;
};

static int kind_ok(const struct completer *c, int kind)
{
	return !c->kinds || (kind > 0 && kind < 32 && (c->kinds & (1u << kind)));
}

/* Print one line, and say whether --max lines are out (which ends the
 * scan: the lines are counted here, after every filter, so that --max
 * holds whatever --kind and the prefix leave out). */
static int print_line(struct completer *c, const char *s, size_t len)
{
	/* a name with a newline would break the one-per-line contract,
	 * and the shell shows the others to the user: no control character
	 * or byte outside UTF-8 (such a name cannot be typed anyway) */
	if (!escape_needed(s, len, 0)) {
		fwrite(s, 1, len, stdout);
		putchar('\n');
		c->printed++;
	}
	return c->max && c->printed >= c->max;
}

static int print_id(void *data, const char *id, size_t len, int kind)
{
	struct completer *c = data;
	if (!kind_ok(c, kind) || len <= c->strip)
		return 0;
	return print_line(c, id + c->strip, len - c->strip);
}

static int print_name(void *data, const char *name, size_t len)
{
	struct completer *c = data;
	if (!c->kinds && !c->qual)
		return print_line(c, name, len);
	/* look at the definitions behind the name: kind and qualifier */
	char buf[512];
	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, name, len);
	buf[len] = '\0';
	struct kbx_nodelist l = KBX_NODELIST_INIT;
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_lookup(c->store, buf, &l, &err) != KBX_OK)
		return 0;
	int full = 0;
	for (size_t i = 0; i < l.n; i++) {
		const struct kbx_node *n = &l.items[i];
		if (!kind_ok(c, n->kind))
			continue;
		if (c->qual) {
			/* Dog.sp: the node's qualified name must end in Dog.speak */
			size_t ql = strlen(n->qual), want = strlen(c->qual) + 1 + len;
			if (ql < want || strncmp(n->qual + ql - want, c->qual, strlen(c->qual)) ||
			    n->qual[ql - want + strlen(c->qual)] != '.' ||
			    (ql > want && n->qual[ql - want - 1] != '.'))
				continue;
		}
		struct strbuf line = STRBUF_INIT;
		if (c->qual)
			strbuf_addf(&line, "%s%s", c->typed_qual, c->sep);
		strbuf_add(&line, buf, len);
		if (!line.failed)
			full = print_line(c, line.buf, line.len);
		strbuf_release(&line);
		break;
	}
	kbx_nodelist_release(&l);
	return full;
}

static unsigned parse_kinds(const char *list)
{
	unsigned bits = 0;
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = _kbx_kind_from_name(t);
		if (!k) {
			fprintf(stderr, "error: --kind does not know '%s': use file, class, struct, interface, trait, enum, function, method, namespace, macro, module, external\n",
				out_esc(t));
			free(copy);
			return (unsigned)-1;
		}
		bits |= 1u << k;
	}
	free(copy);
	return bits;
}

int cmd_complete_symbols(int argc, const char **argv, struct kbx_ctx *ctx)
{
	const char *prefix = "", *kinds = NULL;
	long max = 200;
	struct option opts[] = {
		OPT_STRING_F(0, "prefix", &prefix, "PREFIX",
			     "complete this: a name, Qual.name, a path or an id"),
		OPT_STRING_F(0, "kind", &kinds, "KINDS",
			     "only these kinds, comma-separated (file,class,function,...)"),
		OPT_INT_F(0, "max", &max, "N", "at most N lines (default 200; 0: all)"),
		OPT_REPO_F(),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, complete_symbols_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs || max < 0) {
		usage_with_options(complete_symbols_usage, opts, 1);
		return KBX_EXIT_USAGE;
	}
	struct completer c = { 0 };
	c.store = ctx->store;
	c.max = max;
	if (kinds) {
		c.kinds = parse_kinds(kinds);
		if (c.kinds == (unsigned)-1)
			return KBX_EXIT_USAGE;
	}
	if (!prefix)
		prefix = "";
	struct kbx_error err = KBX_ERROR_INIT;
	kbx_status_t st;
	struct strbuf qual = STRBUF_INIT, typed = STRBUF_INIT;
	const char *sep = NULL, *rest = prefix;
	/* the last separator typed, outside a path or an id */
	if (!strpbrk(prefix, "/#") && strncmp(prefix, "extern:", 7) && strncmp(prefix, "module:", 7) &&
	    strncmp(prefix, "name:", 5)) {
		for (const char *p = prefix; *p; p++) {
			if (p[0] == ':' && p[1] == ':') {
				sep = "::";
				rest = p + 2;
				p++;
			} else if (*p == '.' || (p[0] == '-' && p[1] == '>')) {
				sep = *p == '.' ? "." : "->";
				rest = p + strlen(sep);
				p += strlen(sep) - 1;
			}
		}
	}
	unsigned file_kinds = (1u << KBX_KIND_FILE) | (1u << KBX_KIND_MODULE);
	if (c.kinds && !(c.kinds & ~file_kinds) && !strchr(prefix, '#')) {
		/* files by path ("sr" -> "src/a.py"), modules by name */
		st = KBX_NOT_FOUND;
		if (c.kinds & (1u << KBX_KIND_FILE))
			st = kbx_ids_with_prefix(ctx->store, prefix, 0, print_id, &c, &err);
		if ((!st || st == KBX_NOT_FOUND) && (c.kinds & (1u << KBX_KIND_MODULE)) &&
		    !(max && c.printed >= max)) {
			struct strbuf m = STRBUF_INIT;
			strbuf_addf(&m, "module:%s", prefix);
			c.strip = 7;
			kbx_status_t st2 = kbx_ids_with_prefix(ctx->store, m.buf, 0, print_id, &c, &err);
			strbuf_release(&m);
			if (st == KBX_NOT_FOUND)
				st = st2;
		}
	} else if (strpbrk(prefix, "/#") || !strncmp(prefix, "extern:", 7) ||
	    !strncmp(prefix, "module:", 7) || !strncmp(prefix, "name:", 5)) {
		st = kbx_ids_with_prefix(ctx->store, prefix, 0, print_id, &c, &err);
	} else {
		if (sep) {
			strbuf_add(&typed, prefix, (size_t)(rest - prefix) - strlen(sep));
			for (const char *p = typed.buf; p && *p; p++) {
				if ((p[0] == ':' && p[1] == ':') || (p[0] == '-' && p[1] == '>')) {
					strbuf_addch(&qual, '.');
					p++;
				} else {
					strbuf_addch(&qual, *p);
				}
			}
			c.qual = strbuf_str(&qual);
			c.typed_qual = strbuf_str(&typed);
			c.sep = sep;
		}
		st = kbx_names_with_prefix(ctx->store, rest, 0, print_name, &c, &err);
	}
	strbuf_release(&qual);
	strbuf_release(&typed);
	if (st && st != KBX_NOT_FOUND)
		return die_status(&err);
	if (fflush(stdout) || ferror(stdout))
		return KBX_EXIT_IO;
	return c.printed ? KBX_EXIT_OK : KBX_EXIT_NOT_FOUND;
}
