#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbx.h"
#include "output.h"
#include "parse-options.h"

const char *opt_repo_seen;

static int takes_arg(const struct option *o)
{
	return o->type == OPT_STRING || o->type == OPT_INT || o->type == OPT_SIZE ||
	       o->type == OPT_KEYWORD || o->type == OPT_STRING_LIST;
}

static void opt_name(char *buf, size_t n, const struct option *o)
{
	if (o->long_name)
		snprintf(buf, n, "--%s", o->long_name);
	else
		snprintf(buf, n, "-%c", o->short_name);
}

static int set_value(const struct option *o, const char *arg, int neg)
{
	char name[64];
	opt_name(name, sizeof(name), o);
	switch (o->type) {
	case OPT_BOOL:
		*(int *)o->value = !neg;
		return 0;
	case OPT_COUNT:
		(*(int *)o->value)++;
		return 0;
	case OPT_STRING:
		*(const char **)o->value = neg ? NULL : arg;
		return 0;
	case OPT_STRING_LIST: {
		struct opt_list *l = o->value;
		if (neg) {
			l->n = 0;
			return 0;
		}
		const char **p = realloc(l->items, (size_t)(l->n + 1) * sizeof(*p));
		if (!p) {
			fprintf(stderr, "fatal: out of memory\n");
			return -1;
		}
		l->items = p;
		l->items[l->n++] = arg;
		return 0;
	}
	case OPT_INT: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (!*arg || *end || errno) {
			fprintf(stderr, "error: option '%s' expects a whole number, not '%s'\n", name,
				out_esc(arg));
			return -1;
		}
		*(long *)o->value = v;
		return 0;
	}
	case OPT_SIZE:
		if (kbx_parse_size(arg, (uint64_t *)o->value)) {
			fprintf(stderr, "error: option '%s' expects a size such as 512k or 2m, not '%s'\n",
				name, out_esc(arg));
			return -1;
		}
		return 0;
	case OPT_KEYWORD:
		for (int i = 0; o->keywords[i]; i++)
			if (!strcmp(o->keywords[i], arg)) {
				*(int *)o->value = i;
				return 0;
			}
		fprintf(stderr, "error: option '%s' does not take '%s': use one of", name,
			out_esc(arg));
		for (int i = 0; o->keywords[i]; i++)
			fprintf(stderr, "%s %s", i ? "," : "", o->keywords[i]);
		fputc('\n', stderr);
		return -1;
	default:
		return -1;
	}
}

void list_options(const struct option *opts)
{
	for (const struct option *o = opts; o->type != OPT_END; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		if (o->long_name) {
			printf("--%s%s", o->long_name, takes_arg(o) ? "=" : "");
			/* keywords of other types are what to complete, unchecked */
			if (o->keywords) {
				printf("\t");
				for (int i = 0; o->keywords[i]; i++)
					printf("%s%s", i ? " " : "", o->keywords[i]);
			} else if (o->complete) {
				printf("\t@%s", o->complete);
			}
			putchar('\n');
		}
		if (o->short_name)
			printf("-%c%s\n", o->short_name, takes_arg(o) ? "=" : "");
	}
}

void usage_with_options(const char *const *usage, const struct option *opts, int to_stderr)
{
	FILE *f = to_stderr ? stderr : stdout;
	for (int i = 0; usage[i]; i++)
		fprintf(f, "%s%s\n", i ? "   or: " : "usage: ", usage[i]);
	fputc('\n', f);
	for (const struct option *o = opts; o->type != OPT_END; o++) {
		char left[96];
		int n = 0;
		if (o->flags & OPT_HIDDEN)
			continue;
		if (o->short_name && o->long_name)
			n = snprintf(left, sizeof(left), "-%c, --%s", o->short_name, o->long_name);
		else if (o->short_name)
			n = snprintf(left, sizeof(left), "-%c", o->short_name);
		else
			n = snprintf(left, sizeof(left), "--%s", o->long_name);
		if (takes_arg(o) && n > 0 && (size_t)n < sizeof(left))
			snprintf(left + n, sizeof(left) - (size_t)n, "%s<%s>",
				 o->long_name ? "=" : " ", o->argh ? o->argh : "VALUE");
		fprintf(f, "    %-28s %s\n", left, o->help ? o->help : "");
	}
}

static const struct option *find_long(const struct option *opts, const char *name, size_t len,
				      int *neg)
{
	*neg = 0;
	for (const struct option *o = opts; o->type != OPT_END; o++)
		if (o->long_name && strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	if (len > 3 && !strncmp(name, "no-", 3)) {
		/* only switches and string options have a --no- form: a number or
		 * a keyword has no "unset" value */
		for (const struct option *o = opts; o->type != OPT_END; o++)
			if (o->long_name && !(o->flags & OPT_NONEG) &&
			    (o->type == OPT_BOOL || o->type == OPT_STRING || o->type == OPT_STRING_LIST) &&
			    strlen(o->long_name) == len - 3 &&
			    !strncmp(o->long_name, name + 3, len - 3)) {
				*neg = 1;
				return o;
			}
	}
	return NULL;
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	int nout = 0;
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			argv[nout++] = a;
			continue;
		}
		if (!strcmp(a, "-h")) {
			usage_with_options(usage, opts, 0);
			exit(0);
		}
		if (!strcmp(a, "--list-opts")) {
			list_options(opts);
			exit(0);
		}
		if (a[1] == '-') {
			const char *name = a + 2;
			const char *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			int neg;
			const struct option *o = find_long(opts, name, len, &neg);
			if (!o) {
				fprintf(stderr, "error: unknown option '%s'\n", out_escn(a, len + 2));
				usage_with_options(usage, opts, 1);
				return -1;
			}
			const char *arg = NULL;
			if (takes_arg(o) && !neg) {
				if (eq)
					arg = eq + 1;
				else if (i + 1 < argc)
					arg = argv[++i];
				else {
					fprintf(stderr, "error: option '--%s' needs a value\n", o->long_name);
					return -1;
				}
			} else if (eq) {
				fprintf(stderr, "error: option '--%s' takes no value\n", out_escn(name, len));
				return -1;
			}
			if (set_value(o, arg, neg) < 0)
				return -1;
			continue;
		}
		/* a cluster of short options: -qz, -n5, -n 5 */
		for (const char *p = a + 1; *p; p++) {
			const struct option *o = NULL;
			for (const struct option *q = opts; q->type != OPT_END; q++)
				if (q->short_name == *p) {
					o = q;
					break;
				}
			if (!o) {
				fprintf(stderr, "error: unknown switch '%s'\n", out_escn(p, 1));
				usage_with_options(usage, opts, 1);
				return -1;
			}
			const char *arg = NULL;
			if (takes_arg(o)) {
				if (p[1])
					arg = p + 1;
				else if (i + 1 < argc)
					arg = argv[++i];
				else {
					fprintf(stderr, "error: switch '-%c' needs a value\n", *p);
					return -1;
				}
				if (set_value(o, arg, 0) < 0)
					return -1;
				break;
			}
			if (set_value(o, NULL, 0) < 0)
				return -1;
		}
	}
	for (; i < argc; i++)
		argv[nout++] = argv[i];
	argv[nout] = NULL;
	return nout;
}
