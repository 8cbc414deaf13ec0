/*
 * embed-tool: the search tokenizer and the embedding providers, from the
 * command line, for the tests (t8020, t8030) and for measuring.
 *
 *   embed-tool --tokens [TEXT...]        the tokens of each text, one a
 *                                        line: "w stem" or "c compound";
 *                                        an empty line after each text
 *   embed-tool [options] [TEXT...]       embed the texts and print
 *
 * Texts are the arguments, or with --stdin the lines of standard input
 * (with --tokens --stdin --whole: all of standard input as one text).
 *
 * Options of the provider (struct kbx_embed_config):
 *   --provider=NAME --model=NAME --url=URL --key-env=VAR --command=CMD
 *   --dim=N --batch=N --timeout=MS --retries=N
 *   --query-prefix=S --doc-prefix=S
 * What to do and print:
 *   --query              embed as queries
 *   --print=vectors      one line per text, the numbers (%.6f) (default)
 *   --print=norms        one line per text, its length (%.4f)
 *   --print=cosine       the cosine of the first text with each of the
 *                        others, one line each (%.4f)
 *   --print=none         nothing (with --identity or --time)
 *   --print=f32          the vectors as raw float32 in the machine's
 *                        byte order, dim per text, nothing between (for
 *                        bench/vector-bench.c -D f32:FILE)
 *   --identity           first a line "identity ID" and "dim N"
 *   --time               to stderr: bytes, texts and seconds (tokens:
 *                        MB/s; embeddings: texts/s)
 *
 * Errors go to stderr as "error: MESSAGE (STATUS)"; the exit code is then
 * 2.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "embed/embed.h"
#include "text/tokenize.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Not from libm, which the programs linked like kbx do not link. */
static double square_root(double x)
{
	double y = x > 1.0 ? x : 1.0;
	int i;

	if (x <= 0.0)
		return 0.0;
	for (i = 0; i < 60; i++)
		y = 0.5 * (y + x / y);
	return y;
}

static int usage(void)
{
	fprintf(stderr, "usage: embed-tool --tokens [--stdin [--whole]] [TEXT...]\n"
			"   or: embed-tool [--provider=NAME] [--model=NAME] [--url=URL] [--key-env=VAR]\n"
			"                  [--command=CMD] [--dim=N] [--batch=N] [--timeout=MS]\n"
			"                  [--retries=N] [--query-prefix=S] [--doc-prefix=S] [--query]\n"
			"                  [--print=vectors|norms|cosine|none|f32] [--identity] [--time]\n"
			"                  [--stdin] [TEXT...]\n");
	return 2;
}

static int print_token(void *data, const char *tok, size_t len, int kind)
{
	(void)data;
	printf("%c %.*s\n", kind == KBX_TOK_COMPOUND ? 'c' : 'w', (int)len, tok);
	return 0;
}

static int count_token(void *data, const char *tok, size_t len, int kind)
{
	(void)tok;
	(void)kind;
	*(size_t *)data += len;
	return 0;
}

static int read_stdin(char ***texts, size_t **lens, size_t *n, int whole)
{
	size_t alloc = 0, cap = 0, len;
	char *line = NULL;
	ssize_t got;

	if (whole) {
		char *buf = NULL;
		size_t used = 0;

		cap = 1 << 16;
		buf = malloc(cap);
		while (buf && (len = fread(buf + used, 1, cap - used, stdin)) > 0) {
			used += len;
			if (used == cap)
				buf = realloc(buf, cap *= 2);
		}
		if (!buf)
			return -1;
		*texts = malloc(sizeof(**texts));
		*lens = malloc(sizeof(**lens));
		if (!*texts || !*lens)
			return -1;
		(*texts)[0] = buf;
		(*lens)[0] = used;
		*n = 1;
		return 0;
	}
	*n = 0;
	while ((got = getline(&line, &cap, stdin)) >= 0) {
		len = (size_t)got;
		if (len && line[len - 1] == '\n')
			len--;
		if (*n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			*texts = realloc(*texts, alloc * sizeof(**texts));
			*lens = realloc(*lens, alloc * sizeof(**lens));
			if (!*texts || !*lens)
				return -1;
		}
		(*texts)[*n] = malloc(len + 1);
		if (!(*texts)[*n])
			return -1;
		memcpy((*texts)[*n], line, len);
		(*texts)[*n][len] = '\0';
		(*lens)[*n] = len;
		(*n)++;
		cap = 0;
		free(line);
		line = NULL;
	}
	free(line);
	return 0;
}

static int opt(const char *arg, const char *name, const char **val)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	*val = arg + n + 1;
	return 1;
}

int main(int argc, char **argv)
{
	struct kbx_embed_config cfg;
	struct kbx_error err = KBX_ERROR_INIT;
	const char *print = "vectors", *v;
	int tokens = 0, use_stdin = 0, whole = 0, is_query = 0, identity = 0, timing = 0;
	char **texts = NULL;
	size_t *lens = NULL, n = 0, i, bytes = 0;
	kbx_embedder_t *e;
	uint32_t dim;
	float *out;
	double t0;
	int a;

	memset(&cfg, 0, sizeof(cfg));
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a];

		if (!strcmp(arg, "--")) {
			a++;
			break;
		} else if (!strcmp(arg, "--tokens")) {
			tokens = 1;
		} else if (!strcmp(arg, "--stdin")) {
			use_stdin = 1;
		} else if (!strcmp(arg, "--whole")) {
			whole = 1;
		} else if (!strcmp(arg, "--query")) {
			is_query = 1;
		} else if (!strcmp(arg, "--identity")) {
			identity = 1;
		} else if (!strcmp(arg, "--time")) {
			timing = 1;
		} else if (opt(arg, "--provider", &cfg.provider) || opt(arg, "--model", &cfg.model) ||
			   opt(arg, "--url", &cfg.url) || opt(arg, "--key-env", &cfg.key_env) ||
			   opt(arg, "--command", &cfg.command) ||
			   opt(arg, "--query-prefix", &cfg.query_prefix) ||
			   opt(arg, "--doc-prefix", &cfg.doc_prefix) || opt(arg, "--print", &print)) {
			;
		} else if (opt(arg, "--dim", &v)) {
			cfg.dim = (uint32_t)strtoul(v, NULL, 10);
		} else if (opt(arg, "--batch", &v)) {
			cfg.batch = (uint32_t)strtoul(v, NULL, 10);
		} else if (opt(arg, "--timeout", &v)) {
			cfg.timeout_ms = (uint32_t)strtoul(v, NULL, 10);
		} else if (opt(arg, "--retries", &v)) {
			cfg.retries = (uint32_t)strtoul(v, NULL, 10);
		} else if (arg[0] == '-' && arg[1]) {
			fprintf(stderr, "error: unknown option '%s'\n", arg);
			return usage();
		} else {
			break;
		}
	}

	if (use_stdin) {
		if (read_stdin(&texts, &lens, &n, whole)) {
			fprintf(stderr, "error: out of memory\n");
			return 2;
		}
	} else {
		n = (size_t)(argc - a);
		texts = calloc(n + 1, sizeof(*texts));
		lens = calloc(n + 1, sizeof(*lens));
		for (i = 0; i < n; i++) {
			texts[i] = argv[a + (int)i];
			lens[i] = strlen(texts[i]);
		}
	}
	for (i = 0; i < n; i++)
		bytes += lens[i];

	if (tokens) {
		kbx_tokenizer_t *t = _kbx_tokenizer_new();
		size_t total = 0, ntok = 0;

		if (!t) {
			fprintf(stderr, "error: out of memory\n");
			return 2;
		}
		t0 = now();
		for (i = 0; i < n; i++) {
			if (timing) {
				ntok += _kbx_tokenize(t, texts[i], lens[i], count_token, &total);
				continue;
			}
			_kbx_tokenize(t, texts[i], lens[i], print_token, NULL);
			putchar('\n');
		}
		if (timing) {
			double s = now() - t0;

			fprintf(stderr, "%zu bytes, %zu tokens in %.3f s: %.1f MB/s\n", bytes, ntok,
				s, bytes / s / 1e6);
		}
		_kbx_tokenizer_free(t);
		return fflush(stdout) || ferror(stdout) ? 2 : 0;
	}

	if (_kbx_embedder_open(&cfg, &e, &err)) {
		fprintf(stderr, "error: %s (%s)\n", err.msg, kbx_status_str(err.status));
		return 2;
	}
	if (_kbx_embedder_probe(e, &dim, &err)) {
		fprintf(stderr, "error: %s (%s)\n", err.msg, kbx_status_str(err.status));
		_kbx_embedder_close(e);
		return 2;
	}
	if (identity)
		printf("identity %s\ndim %u\n", _kbx_embedder_identity(e), dim);
	out = calloc(n ? n : 1, (size_t)dim * sizeof(*out));
	if (!out) {
		fprintf(stderr, "error: out of memory\n");
		return 2;
	}
	t0 = now();
	if (_kbx_embed(e, n, (const char *const *)texts, lens, is_query, out, &err)) {
		fprintf(stderr, "error: %s (%s)\n", err.msg, kbx_status_str(err.status));
		_kbx_embedder_close(e);
		return 2;
	}
	if (timing) {
		double s = now() - t0;

		fprintf(stderr, "%zu texts, %zu bytes in %.3f s: %.0f texts/s, %.1f MB/s\n", n,
			bytes, s, n / s, bytes / s / 1e6);
	}
	for (i = 0; i < n; i++) {
		const float *row = out + i * dim, *first = out;
		double dot = 0, norm = 0;
		uint32_t j;

		if (!strcmp(print, "f32")) {
			if (fwrite(row, sizeof(*row), dim, stdout) != dim)
				break;
		} else if (!strcmp(print, "vectors")) {
			for (j = 0; j < dim; j++)
				printf("%s%.6f", j ? " " : "", row[j]);
			putchar('\n');
		} else if (!strcmp(print, "norms")) {
			for (j = 0; j < dim; j++)
				norm += (double)row[j] * row[j];
			printf("%.4f\n", square_root(norm));
		} else if (!strcmp(print, "cosine")) {
			if (!i)
				continue;
			for (j = 0; j < dim; j++)
				dot += (double)row[j] * first[j];
			printf("%zu %.4f\n", i + 1, dot);
		}
	}
	_kbx_embedder_close(e);
	free(out);
	return fflush(stdout) || ferror(stdout) ? 2 : 0;
}
