/*
 * Settings: the known keys, reading and checking the user and repository
 * files, and rewriting one setting of a file in place (see config.h for
 * the format).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/config.h"
#include "util/util.h"

static const char *const color_words[] = { "auto", "always", "never", NULL };

/* Keep in step with man/kbx-settings.7.md, which describes each of them. */
static const char *const fusion_words[] = { "rrf", "linear", NULL };
static const char *const index_words[] = { "auto", "flat", "hnsw", "ivf", NULL };
static const char *const mode_words[] = { "hybrid", "vector", "lexical", NULL };
static const char *const provider_words[] = { "builtin", "http", "command", NULL };
/* true and false are what earlier versions took: always and never */
static const char *const register_words[] = { "auto", "always", "never", "true", "false", NULL };
static const char *const compact_words[] = { "auto", "eager", "never", NULL };

const struct kbx_config_key kbx_config_keys[] = {
	{ "color.ui", KBX_CONFIG_KEYWORD, "auto", color_words, 0, 0,
	  "colour the text output: auto (on a terminal), always or never",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "core.pager", KBX_CONFIG_STRING, "less -FRX", NULL, 0, 0,
	  "the pager for long text output (KBX_PAGER wins; PAGER when unset)",
	  KBX_CONFIG_RUNS_PROGRAM, 0 },
	{ "dead.ignore", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "kbx dead: globs, separated by blanks, of names it never reports",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.cHeaders", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "globs, separated by blanks, of .h headers read as C whatever their text",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.codeChunks", KBX_CONFIG_BOOL, "true", NULL, 0, 0,
	  "make a search chunk of every function, method and class",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.compact", KBX_CONFIG_KEYWORD, "auto", compact_words, 0, 0,
	  "when kbx index writes the store again compacted: auto (stores of 8 MiB or more), eager (whatever the size) or never",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.cppHeaders", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "globs, separated by blanks, of .h headers read as C++ whatever their text",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.markdown", KBX_CONFIG_BOOL, "true", NULL, 0, 0,
	  "index the repository's Markdown files for kbx search",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.maxFileSize", KBX_CONFIG_SIZE, "1m", NULL, 1, INT64_C(1) << 30,
	  "skip files larger than this (kbx index --max-file-size wins)",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.parseTimeout", KBX_CONFIG_MILLISECONDS, "10000", NULL, 1, 3600000,
	  "give up parsing a file after this many milliseconds",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "index.threads", KBX_CONFIG_INT, "0", NULL, 0, 16,
	  "parser threads, 0 for one per core (kbx index --threads wins)",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "pager.enabled", KBX_CONFIG_BOOL, "true", NULL, 0, 0,
	  "page long text output on a terminal (kbx --no-pager wins)",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "push.database", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "kbx push: the PostgreSQL database (a postgresql:// URL or libpq's key=value string)",
	  KBX_CONFIG_NAMES_ADDRESS, 0 },
	{ "repos.register", KBX_CONFIG_KEYWORD, "auto", register_words, 0, 0,
	  "which repositories kbx index lists for --repo and --all-repos: auto (those with a remote), always or never",
	  KBX_CONFIG_USER_LIST, 0 },
	{ "safe.directory", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "repositories whose index kbx opens though another user owns it or kbx did not build it: absolute paths separated by ':', or '*'",
	  KBX_CONFIG_GRANTS_TRUST, 0 },
	{ "search.apiKeyEnv", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "http embeddings: the environment variable holding the API key",
	  KBX_CONFIG_NAMES_CREDENTIAL, 0 },
	{ "search.batchSize", KBX_CONFIG_INT, "64", NULL, 1, 4096,
	  "http and command embeddings: texts per request",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.command", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "command embeddings: the program (run by /bin/sh -c)",
	  KBX_CONFIG_RUNS_PROGRAM, 0 },
	{ "search.dimensions", KBX_CONFIG_INT, "0", NULL, 0, 65536,
	  "the vectors' dimension; 0: the provider's own",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.documentPrefix", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "text put before every chunk that is embedded (\"passage: \")",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.efSearch", KBX_CONFIG_INT, "0", NULL, 0, 65536,
	  "HNSW candidate list size per query; 0: the index's default",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.fusion", KBX_CONFIG_KEYWORD, "rrf", fusion_words, 0, 0,
	  "how kbx search fuses its lists: rrf or linear",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.index", KBX_CONFIG_KEYWORD, "auto", index_words, 0, 0,
	  "vector index type: auto (from the collection size), flat, hnsw or ivf",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.limit", KBX_CONFIG_INT, "10", NULL, 1, 10000,
	  "results kbx search shows (--limit wins)",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.mode", KBX_CONFIG_KEYWORD, "hybrid", mode_words, 0, 0,
	  "kbx search's signals: hybrid, vector or lexical (--mode wins)",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.model", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "http embeddings: the model name sent to the server",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.nprobe", KBX_CONFIG_INT, "0", NULL, 0, 65536,
	  "IVF lists visited per query; 0: the index's default",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.provider", KBX_CONFIG_KEYWORD, "builtin", provider_words, 0, 0,
	  "embedding provider: builtin (offline), http or command",
	  KBX_CONFIG_RUNS_PROGRAM, 1 },
	{ "search.queryPrefix", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "text put before every query that is embedded (\"query: \")",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.retries", KBX_CONFIG_INT, "3", NULL, 0, 20,
	  "http embeddings: retries after a failed request",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.timeout", KBX_CONFIG_MILLISECONDS, "30000", NULL, 1, 3600000,
	  "http and command embeddings: time limit of one request",
	  KBX_CONFIG_ANYWHERE, 0 },
	{ "search.url", KBX_CONFIG_STRING, "", NULL, 0, 0,
	  "http embeddings: the server (http://host:port, .../v1 or .../v1/embeddings)",
	  KBX_CONFIG_NAMES_ADDRESS, 0 },
	{ NULL, 0, NULL, NULL, 0, 0, NULL, KBX_CONFIG_ANYWHERE, 0 }
};

#define MAX_FILE_BYTES (1u << 20)

struct entry {
	size_t key;             /* index into kbx_config_keys */
	enum kbx_config_scope scope;
	char *text;
	int64_t number;
	const char *path;       /* one of cfg->paths */
	unsigned line;
};

struct kbx_config {
	struct entry *entries;
	size_t n, alloc;
	char **paths;           /* the files read, owned */
	size_t npaths;
	struct kbx_config_refusal *refused;   /* key and reason: static */
	size_t nrefused;
};

static kbx_status_t fail_at(struct kbx_config_error *err, kbx_status_t st, const char *path,
			    unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static kbx_status_t fail_at(struct kbx_config_error *err, kbx_status_t st, const char *path,
			    unsigned line, const char *fmt, ...)
{
	if (!err)
		return st;
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(err->path, sizeof(err->path), "%s", path ? path : "");
	err->line = line;
	if (path && line)
		return _kbx_fail(&err->err, st, "bad setting in '%s' at line %u: %s", path, line, msg);
	if (path)
		return _kbx_fail(&err->err, st, "%s: '%s'", msg, path);
	return _kbx_fail(&err->err, st, "%s", msg);
}

/* An unknown key, with the nearest known one when there is one. */
static kbx_status_t fail_unknown(struct kbx_config_error *err, kbx_status_t st, const char *path,
				 unsigned line, const char *key)
{
	const char *near = kbx_config_key_suggest(key);
	if (near)
		return fail_at(err, st, path, line, "unknown key '%s'; did you mean '%s'?", key, near);
	return fail_at(err, st, path, line, "unknown key '%s' (see kbx-settings(7))", key);
}

const char *kbx_config_type_str(enum kbx_config_type type)
{
	switch (type) {
	case KBX_CONFIG_BOOL: return "bool";
	case KBX_CONFIG_INT: return "int";
	case KBX_CONFIG_SIZE: return "size";
	case KBX_CONFIG_MILLISECONDS: return "milliseconds";
	case KBX_CONFIG_KEYWORD: return "keyword";
	case KBX_CONFIG_STRING: return "string";
	}
	return "?";
}

const struct kbx_config_key *kbx_config_key_find(const char *name)
{
	for (const struct kbx_config_key *k = kbx_config_keys; k->name; k++)
		if (!strcasecmp(k->name, name))
			return k;
	return NULL;
}

const char *kbx_config_repo_refusal(const struct kbx_config_key *key, const char *value)
{
	if (key->repo_default_ok && value && !strcasecmp(value, key->default_value))
		return NULL;
	/* search.provider: http sends the code to an address */
	if (!strcmp(key->name, "search.provider") && value && !strcasecmp(value, "http"))
		return "a repository's settings cannot choose an address to send its code to";
	switch (key->reach) {
	case KBX_CONFIG_ANYWHERE:
		return NULL;
	case KBX_CONFIG_RUNS_PROGRAM:
		return "a repository's settings cannot choose a program to run";
	case KBX_CONFIG_NAMES_ADDRESS:
		return "a repository's settings cannot choose an address to contact";
	case KBX_CONFIG_NAMES_CREDENTIAL:
		return "a repository's settings cannot choose a credential to send";
	case KBX_CONFIG_GRANTS_TRUST:
		return "a repository's settings cannot say what kbx trusts";
	case KBX_CONFIG_USER_LIST:
		/* leaving itself out is the one change a checkout may make */
		if (value && (!strcasecmp(value, "never") || !strcasecmp(value, "false")))
			return NULL;
		return "a repository's settings can keep it out of the user's list of repositories (never), not put it in";
	}
	return "a repository's settings cannot set it";
}

size_t kbx_config_refusals(const kbx_config_t *cfg, const struct kbx_config_refusal **out)
{
	*out = cfg ? cfg->refused : NULL;
	return cfg ? cfg->nrefused : 0;
}

static kbx_status_t add_refusal(kbx_config_t *cfg, const struct kbx_config_refusal *r)
{
	struct kbx_config_refusal *nr = realloc(cfg->refused, (cfg->nrefused + 1) * sizeof(*nr));
	if (!nr)
		return KBX_ERR_NOMEM;
	cfg->refused = nr;
	cfg->refused[cfg->nrefused++] = *r;
	return KBX_OK;
}

static void lower_copy(char *dst, size_t n, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < n; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[i] = '\0';
}

const char *kbx_config_key_suggest(const char *name)
{
	char want[128], have[128];
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	size_t len = strlen(name);
	size_t limit = len / 3 > 2 ? len / 3 : 2;
	if (len >= sizeof(want))
		return NULL;
	lower_copy(want, sizeof(want), name);
	const char *wdot = strchr(want, '.');
	for (const struct kbx_config_key *k = kbx_config_keys; k->name; k++) {
		lower_copy(have, sizeof(have), k->name);
		size_t d = _kbx_edit_distance(want, have, limit);
		/* the right name in the wrong section: core.threads */
		const char *hdot = strchr(have, '.');
		if (wdot && hdot && !strcmp(wdot, hdot) && d > 1)
			d = 1;
		if (d <= limit && d < best_d) {
			best_d = d;
			best = k->name;
		}
	}
	return best;
}

/* ---- values ---- */

static int parse_uint(const char *s, const char **end, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = s;
	if (!isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*end = p;
	*out = v;
	return 0;
}

/* A limit as it would be written: 1g rather than 1073741824. */
static void size_written(char *buf, size_t n, enum kbx_config_type type, int64_t v)
{
	static const char units[] = "kmg";
	int u = 0;
	if (type == KBX_CONFIG_SIZE)
		while (u < 3 && v && v % 1024 == 0) {
			v /= 1024;
			u++;
		}
	if (u)
		snprintf(buf, n, "%lld%c", (long long)v, units[u - 1]);
	else
		snprintf(buf, n, "%lld", (long long)v);
}

kbx_status_t kbx_config_parse_value(const struct kbx_config_key *key, const char *text,
				    struct kbx_config_value *out, struct kbx_error *err)
{
	const char *end;
	uint64_t u;
	int64_t v = 0;
	memset(out, 0, sizeof(*out));
	out->text = text;
	switch (key->type) {
	case KBX_CONFIG_BOOL:
		if (!strcasecmp(text, "true") || !strcasecmp(text, "yes") ||
		    !strcasecmp(text, "on") || !strcmp(text, "1"))
			out->number = 1;
		else if (!strcasecmp(text, "false") || !strcasecmp(text, "no") ||
			 !strcasecmp(text, "off") || !strcmp(text, "0"))
			out->number = 0;
		else
			return _kbx_fail(err, KBX_ERR_USAGE,
					 "%s: '%s' is not a boolean: use true or false", key->name, text);
		return KBX_OK;
	case KBX_CONFIG_KEYWORD:
		for (int i = 0; key->keywords[i]; i++)
			if (!strcasecmp(key->keywords[i], text)) {
				out->number = i;
				return KBX_OK;
			}
		{
			char list[256] = "";
			size_t n = 0;
			for (int i = 0; key->keywords[i] && n < sizeof(list); i++)
				n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
						      key->keywords[i]);
			return _kbx_fail(err, KBX_ERR_USAGE, "%s: '%s' is not one of %s", key->name,
					 text, list);
		}
	case KBX_CONFIG_STRING:
		return KBX_OK;
	case KBX_CONFIG_INT: {
		const char *p = text;
		int neg = *p == '-';
		if (*p == '-' || *p == '+')
			p++;
		if (parse_uint(p, &end, &u) || *end || u > INT64_MAX)
			return _kbx_fail(err, KBX_ERR_USAGE, "%s: '%s' is not a whole number",
					 key->name, text);
		v = neg ? -(int64_t)u : (int64_t)u;
		break;
	}
	case KBX_CONFIG_SIZE:
		if (kbx_parse_size(text, &u) || u > (uint64_t)INT64_MAX)
			return _kbx_fail(err, KBX_ERR_USAGE, "%s: '%s' is not a size such as 512k or 2m",
					 key->name, text);
		v = (int64_t)u;
		break;
	case KBX_CONFIG_MILLISECONDS: {
		uint64_t mul = 1;
		if (parse_uint(text, &end, &u))
			goto bad_ms;
		if (!strcmp(end, "ms"))
			end += 2;
		else if (!strcmp(end, "s"))
			mul = 1000, end++;
		if (*end || u > (uint64_t)INT64_MAX / mul)
			goto bad_ms;
		v = (int64_t)(u * mul);
		break;
	bad_ms:
		return _kbx_fail(err, KBX_ERR_USAGE,
				 "%s: '%s' is not a duration such as 500 (milliseconds), 500ms or 10s",
				 key->name, text);
	}
	}
	if (v < key->min || v > key->max) {
		char lo[32], hi[32];
		size_written(lo, sizeof(lo), key->type, key->min);
		size_written(hi, sizeof(hi), key->type, key->max);
		return _kbx_fail(err, KBX_ERR_USAGE, "%s: %s is out of range: use %s to %s", key->name,
				 text, lo, hi);
	}
	out->number = v;
	return KBX_OK;
}

/* ---- the set of settings ---- */

kbx_status_t kbx_config_new(kbx_config_t **out, struct kbx_config_error *err)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
	return KBX_OK;
}

void kbx_config_free(kbx_config_t *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n; i++)
		free(cfg->entries[i].text);
	for (size_t i = 0; i < cfg->npaths; i++)
		free(cfg->paths[i]);
	free(cfg->entries);
	free(cfg->paths);
	free(cfg->refused);
	free(cfg);
}

static int key_char(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

/* A key: section.name, each a letter then letters, digits, '-' or '_'.
 * Returns its length (0: not a key). */
static size_t key_length(const char *s)
{
	size_t i = 0;
	int parts = 0;
	for (;;) {
		if (!isalpha((unsigned char)s[i]))
			return 0;
		while (key_char((unsigned char)s[i]))
			i++;
		parts++;
		if (s[i] != '.')
			break;
		i++;
	}
	return parts == 2 ? i : 0;
}

/* Split one line.  Returns 0 for a blank or comment line, 1 for a
 * setting (key and value filled, value malloc()ed), -1 with msg set. */
static int parse_line(char *line, char **key, char **value, char *msg, size_t msgn)
{
	char *p = line;
	size_t len = strlen(line);
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		line[--len] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#')
		return 0;
	if (*p == '[') {
		snprintf(msg, msgn, "sections are not used: write each setting as 'section.name = value'");
		return -1;
	}
	size_t kl = key_length(p);
	if (!kl) {
		size_t n = strcspn(p, " \t=");
		snprintf(msg, msgn, "'%.*s' is not a key: a key is section.name, such as index.threads",
			 (int)(n > 80 ? 80 : n), p);
		return -1;
	}
	*key = p;
	char *q = p + kl;
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q != '=') {
		snprintf(msg, msgn, "expected '=' after '%.*s'", (int)(kl > 80 ? 80 : kl), p);
		return -1;
	}
	p[kl] = '\0';
	q++;
	while (*q == ' ' || *q == '\t')
		q++;
	if (*q != '"') {
		*value = strdup(q);
		if (!*value) {
			snprintf(msg, msgn, "out of memory");
			return -1;
		}
		return 1;
	}
	/* a quoted value */
	char *v = malloc(strlen(q) + 1), *w = v;
	if (!v) {
		snprintf(msg, msgn, "out of memory");
		return -1;
	}
	for (q++; *q && *q != '"'; q++) {
		if (*q == '\\') {
			if (q[1] != '"' && q[1] != '\\') {
				snprintf(msg, msgn, "in quotes a backslash is written \\\\ and a quote \\\"");
				free(v);
				return -1;
			}
			q++;
		}
		*w++ = *q;
	}
	*w = '\0';
	if (*q != '"') {
		snprintf(msg, msgn, "the closing quote is missing");
		free(v);
		return -1;
	}
	for (q++; *q == ' ' || *q == '\t'; q++)
		;
	if (*q) {
		snprintf(msg, msgn, "text after the closing quote: a comment takes a line of its own");
		free(v);
		return -1;
	}
	*value = v;
	return 1;
}

static kbx_status_t add_entry(kbx_config_t *cfg, const struct entry *e)
{
	if (cfg->n == cfg->alloc) {
		size_t na = cfg->alloc ? cfg->alloc * 2 : 16;
		struct entry *ne = realloc(cfg->entries, na * sizeof(*ne));
		if (!ne)
			return KBX_ERR_NOMEM;
		cfg->entries = ne;
		cfg->alloc = na;
	}
	cfg->entries[cfg->n++] = *e;
	return KBX_OK;
}

/* The text of a settings file into text: 0, 1 when there is none, or a
 * status with err set.  A repository's file is not read through a link,
 * nor in a directory that is one (the store directory of a checkout);
 * the user's may be a link to a file kept elsewhere. */
static kbx_status_t read_settings(const char *path, enum kbx_config_scope scope,
				  struct strbuf *text, int *none, struct kbx_config_error *err)
{
	char resolved[PATH_MAX];
	const char *from = path;
	*none = 0;
	if (scope == KBX_CONFIG_REPO) {
		char *dir = strdup(path), *slash;
		struct stat dst;
		if (!dir)
			return fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
		if ((slash = strrchr(dir, '/')) && slash != dir)
			*slash = '\0';
		int link = slash && lstat(dir, &dst) == 0 && S_ISLNK(dst.st_mode);
		free(dir);
		if (link)
			return fail_at(err, KBX_ERR_UNSAFE, NULL, 0,
				       "the settings in '%s' are in a directory that is a symbolic link: kbx does not follow links in a repository; remove the link",
				       path);
	} else if (realpath(path, resolved)) {
		from = resolved;
	}
	int rc = strbuf_read_regular_file(text, from, MAX_FILE_BYTES);
	int e = errno;
	if (rc == 0)
		return KBX_OK;
	if (rc == -1 && (e == ENOENT || e == ENOTDIR)) {
		*none = 1;
		return KBX_OK;
	}
	if (rc == -1 && e == ELOOP)
		return fail_at(err, KBX_ERR_UNSAFE, NULL, 0,
			       "the settings file '%s' is a symbolic link: kbx does not follow links in a repository; replace it with a file",
			       path);
	if (rc == STRBUF_TOO_BIG)
		return fail_at(err, KBX_ERR_PARSE, NULL, 0,
			       "the settings file '%s' is larger than 1 MiB: is it the right file?", path);
	if (rc == STRBUF_NOT_REGULAR)
		return fail_at(err, KBX_ERR_IO, NULL, 0,
			       "cannot read the settings in '%s': it is %s", path,
			       e == EISDIR ? "a directory" : "not a regular file");
	return fail_at(err, KBX_ERR_IO, NULL, 0, "cannot read the settings in '%s': %s", path,
		       strerror(e));
}

kbx_status_t kbx_config_read_file(kbx_config_t *cfg, const char *path,
				  enum kbx_config_scope scope, struct kbx_config_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int none;
	kbx_status_t rst = read_settings(path, scope, &text, &none, err);
	if (rst || none) {
		strbuf_release(&text);
		return rst;
	}
	char **np = realloc(cfg->paths, (cfg->npaths + 1) * sizeof(*np));
	char *owned = strdup(path);
	if (np)
		cfg->paths = np;
	if (!np || !owned) {
		free(owned);
		strbuf_release(&text);
		return fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
	}
	cfg->paths[cfg->npaths++] = owned;

	size_t first = cfg->n, first_refused = cfg->nrefused;
	kbx_status_t st2 = KBX_OK;
	unsigned lineno = 0;
	char *line = text.buf;
	char *end = text.buf + text.len;
	while (line < end && !st2) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		char *next = nl ? nl + 1 : end;
		lineno++;
		if (memchr(line, '\0', (size_t)((nl ? nl : end) - line))) {
			st2 = fail_at(err, KBX_ERR_PARSE, path, lineno,
				      "a NUL byte: this is not a text file");
			break;
		}
		if (nl)
			*nl = '\0';
		else
			*end = '\0';
		char *key = NULL, *value = NULL, msg[512];
		int r = parse_line(line, &key, &value, msg, sizeof(msg));
		if (r < 0) {
			st2 = fail_at(err, KBX_ERR_PARSE, path, lineno, "%s", msg);
			break;
		}
		if (r > 0) {
			const struct kbx_config_key *k = kbx_config_key_find(key);
			struct kbx_config_value v;
			struct kbx_error verr = KBX_ERROR_INIT;
			if (!k) {
				st2 = fail_unknown(err, KBX_ERR_PARSE, path, lineno, key);
			} else if (kbx_config_parse_value(k, value, &v, &verr)) {
				st2 = fail_at(err, KBX_ERR_PARSE, path, lineno, "%s", verr.msg);
			} else if (scope == KBX_CONFIG_REPO && kbx_config_repo_refusal(k, value)) {
				struct kbx_config_refusal refusal = {
					k->name, owned, lineno, kbx_config_repo_refusal(k, value)
				};
				if (add_refusal(cfg, &refusal))
					st2 = fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
			} else {
				struct entry e = { (size_t)(k - kbx_config_keys), scope, value, v.number,
						   owned, lineno };
				if (add_entry(cfg, &e))
					st2 = fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
				else
					value = NULL;
			}
		}
		free(value);
		line = next;
	}
	strbuf_release(&text);
	if (st2) {
		/* nothing from a bad file */
		for (size_t i = first; i < cfg->n; i++)
			free(cfg->entries[i].text);
		cfg->n = first;
		cfg->nrefused = first_refused;
	}
	return st2;
}

kbx_status_t kbx_config_set(kbx_config_t *cfg, const char *key, const char *text,
			    enum kbx_config_scope scope, struct kbx_config_error *err)
{
	const struct kbx_config_key *k = kbx_config_key_find(key);
	struct kbx_config_value v;
	struct kbx_error verr = KBX_ERROR_INIT;
	if (!k)
		return fail_unknown(err, KBX_ERR_USAGE, NULL, 0, key);
	if (kbx_config_parse_value(k, text, &v, &verr))
		return fail_at(err, KBX_ERR_USAGE, NULL, 0, "%s", verr.msg);
	struct entry e = { (size_t)(k - kbx_config_keys), scope, strdup(text), v.number, NULL, 0 };
	if (!e.text || add_entry(cfg, &e)) {
		free(e.text);
		return fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
	}
	return KBX_OK;
}

static kbx_status_t join(char **out, const char *a, const char *b, struct kbx_config_error *err)
{
	*out = _kbx_path_concat(a, b);
	if (!*out)
		return fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
	return KBX_OK;
}

kbx_status_t kbx_config_user_path(char **out, struct kbx_config_error *err)
{
	kbx_status_t st = _kbx_xdg_path("XDG_CONFIG_HOME", ".config", "kbx/config", out);
	if (st == KBX_NOT_FOUND)
		return fail_at(err, st, NULL, 0,
			       "there is no user settings file: neither XDG_CONFIG_HOME nor HOME is set");
	return st ? fail_at(err, st, NULL, 0, "out of memory") : KBX_OK;
}

kbx_status_t kbx_config_repo_path(const char *kbx_dir, char **out, struct kbx_config_error *err)
{
	return join(out, kbx_dir, "config", err);
}

kbx_status_t kbx_config_load(const char *kbx_dir, kbx_config_t **out,
			     struct kbx_config_error *err)
{
	kbx_config_t *cfg;
	char *path = NULL;
	kbx_status_t st = kbx_config_new(&cfg, err);
	*out = NULL;
	if (st)
		return st;
	st = kbx_config_user_path(&path, NULL);
	if (st == KBX_OK) {
		st = kbx_config_read_file(cfg, path, KBX_CONFIG_USER, err);
		free(path);
		path = NULL;
	} else if (st == KBX_NOT_FOUND) {
		st = KBX_OK;
	} else {
		st = fail_at(err, st, NULL, 0, "out of memory");
	}
	if (!st && kbx_dir) {
		st = kbx_config_repo_path(kbx_dir, &path, err);
		if (!st)
			st = kbx_config_read_file(cfg, path, KBX_CONFIG_REPO, err);
		free(path);
	}
	if (st) {
		kbx_config_free(cfg);
		return st;
	}
	*out = cfg;
	return KBX_OK;
}

kbx_status_t kbx_config_get(const kbx_config_t *cfg, const char *key,
			    struct kbx_config_value *out, struct kbx_config_error *err)
{
	const struct kbx_config_key *k = kbx_config_key_find(key);
	if (!k)
		return fail_at(err, KBX_ERR_USAGE, NULL, 0, "unknown key '%s'", key);
	size_t ki = (size_t)(k - kbx_config_keys);
	const struct entry *best = NULL;
	for (size_t i = 0; cfg && i < cfg->n; i++) {
		const struct entry *e = &cfg->entries[i];
		if (e->key == ki && (!best || e->scope >= best->scope))
			best = e;
	}
	if (best) {
		out->text = best->text;
		out->number = best->number;
		out->scope = best->scope;
		out->path = best->path;
		out->line = best->line;
		return KBX_OK;
	}
	struct kbx_error verr = KBX_ERROR_INIT;
	if (kbx_config_parse_value(k, k->default_value, out, &verr))
		return fail_at(err, KBX_ERR_INTERNAL, NULL, 0, "bad default: %s", verr.msg);
	out->scope = KBX_CONFIG_DEFAULT;
	out->path = NULL;
	out->line = 0;
	return KBX_OK;
}

/* ---- writing ---- */

/* mkdir -p for the directory that will hold path. */
static kbx_status_t make_parents(const char *path, struct kbx_config_error *err)
{
	char dir[4096];
	int e = _kbx_make_parents(path, dir, sizeof(dir));
	if (e == ENOMEM)
		return fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
	if (e)
		return fail_at(err, e == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO, NULL, 0,
			       "cannot create the directory '%s': %s", dir, strerror(e));
	return KBX_OK;
}

/* The value as it is written: quoted when its blanks or a leading quote
 * would otherwise be lost. */
static void add_value(struct strbuf *sb, const char *v)
{
	size_t len = strlen(v);
	int quote = !len || v[0] == '"' || v[0] == ' ' || v[0] == '\t' || v[len - 1] == ' ' ||
		    v[len - 1] == '\t';
	if (!quote) {
		strbuf_addstr(sb, v);
		return;
	}
	strbuf_addch(sb, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '"');
}

/* Does this line of a file set key?  Only its key is looked at, so a
 * line that is wrong in other ways is still found (and kept otherwise). */
static int line_sets(const char *line, size_t len, const char *key)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	size_t kl = strlen(key);
	if (len - i < kl || strncasecmp(line + i, key, kl))
		return 0;
	i += kl;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return i < len && line[i] == '=';
}

static kbx_status_t write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t w = write(fd, buf, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return _kbx_write_status(errno);
		}
		buf += w;
		len -= (size_t)w;
	}
	return KBX_OK;
}

kbx_status_t kbx_config_write(const char *path_in, enum kbx_config_scope scope, const char *key,
			      const char *value, struct kbx_config_error *err)
{
	const struct kbx_config_key *k = kbx_config_key_find(key);
	struct strbuf old = STRBUF_INIT, out = STRBUF_INIT, lock = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	char resolved[PATH_MAX];
	const char *path = path_in;
	struct stat lst, fst;
	int have_old = 0, fd = -1;

	if (value) {
		struct kbx_config_value v;
		struct kbx_error verr = KBX_ERROR_INIT;
		if (!k)
			return fail_unknown(err, KBX_ERR_USAGE, NULL, 0, key);
		if (strpbrk(value, "\n\r"))
			return fail_at(err, KBX_ERR_USAGE, NULL, 0,
				       "%s: a value is one line: it cannot hold a line break", k->name);
		if (kbx_config_parse_value(k, value, &v, &verr))
			return fail_at(err, KBX_ERR_USAGE, NULL, 0, "%s", verr.msg);
		const char *why = scope == KBX_CONFIG_REPO ? kbx_config_repo_refusal(k, value) : NULL;
		if (why)
			return fail_at(err, KBX_ERR_USAGE, NULL, 0,
				       "%s cannot be set in a repository's settings: %s; set it in your own with 'kbx config --user %s VALUE'",
				       k->name, why, k->name);
	} else if (!k && !key_length(key)) {
		return fail_at(err, KBX_ERR_USAGE, NULL, 0,
			       "'%s' is not a key: a key is section.name, such as index.threads", key);
	}

	/* the user's file kept elsewhere and linked here (dotfiles) stays
	 * a link: write where it points; a repository's file is never
	 * written through a link */
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if (scope == KBX_CONFIG_REPO)
			return fail_at(err, KBX_ERR_UNSAFE, NULL, 0,
				       "the settings file '%s' is a symbolic link: kbx does not write through links in a repository; remove it",
				       path);
		if (realpath(path, resolved))
			path = resolved;
	}
	int none = 0;
	st = read_settings(path, scope, &old, &none, err);
	if (st)
		return st;
	if (!none && stat(path, &fst) == 0)
		have_old = 1;
	else if (none && (st = make_parents(path, err)))
		return st;

	/* the new contents: the first line setting key replaced, the others
	 * dropped, everything else as it was */
	int found = 0;
	const char *name = k ? k->name : key;
	const char *p = strbuf_str(&old), *end = p + old.len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (line_sets(p, len, name)) {
			if (value && !found) {
				strbuf_addf(&out, "%s = ", name);
				add_value(&out, value);
				strbuf_addch(&out, '\n');
			}
			found = 1;
		} else {
			strbuf_add(&out, p, len);
			strbuf_addch(&out, '\n');
		}
		p += len + (nl ? 1 : 0);
	}
	if (!value && !found) {
		strbuf_release(&old);
		strbuf_release(&out);
		return fail_at(err, KBX_NOT_FOUND, NULL, 0, "'%s' does not set %s", path, name);
	}
	if (value && !found) {
		strbuf_addf(&out, "%s = ", name);
		add_value(&out, value);
		strbuf_addch(&out, '\n');
	}
	strbuf_addf(&lock, "%s.lock", path);
	if (out.failed || lock.failed) {
		st = fail_at(err, KBX_ERR_NOMEM, NULL, 0, "out of memory");
		goto done;
	}

	fd = open(lock.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			st = fail_at(err, KBX_ERR_BUSY, NULL, 0,
				     "'%s' exists: another kbx is changing '%s'; if none is, remove the lock file and retry",
				     lock.buf, path);
		else
			st = fail_at(err, errno == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO, NULL, 0,
				     "cannot create '%s': %s", lock.buf, strerror(errno));
		goto done;
	}
	/* keep the permissions of the file it replaces */
	if (have_old)
		(void)fchmod(fd, fst.st_mode & 07777);
	st = write_all(fd, out.buf ? out.buf : "", out.len);
	if (!st && fsync(fd) < 0)
		st = errno == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO;
	if (close(fd) < 0 && !st)
		st = errno == ENOSPC ? KBX_ERR_FULL : KBX_ERR_IO;
	fd = -1;
	if (st) {
		int e = errno;
		unlink(lock.buf);
		st = fail_at(err, st, NULL, 0, "cannot write '%s': %s", lock.buf, strerror(e));
		goto done;
	}
	if (rename(lock.buf, path) < 0) {
		int e = errno;
		unlink(lock.buf);
		st = fail_at(err, KBX_ERR_IO, NULL, 0, "cannot rename '%s' to '%s': %s", lock.buf, path,
			     strerror(e));
	}
done:
	strbuf_release(&old);
	strbuf_release(&out);
	strbuf_release(&lock);
	return st;
}
