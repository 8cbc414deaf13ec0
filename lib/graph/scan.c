/*
 * Listing the files to index: a walk of the working tree that honours
 * .gitignore (and .git/info/exclude) and .kbxignore with git's pattern
 * rules, never follows symbolic links, and keeps only files of a known
 * language under the size limit.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/graph.h"
#include "util/safefile.h"

struct ignore_rule {
	char *pattern;     /* without the leading '!' or trailing '/' */
	char *base;        /* directory of the ignore file, "" for the root */
	int negate, dir_only, anchored;
};

struct ignore_list {
	struct ignore_rule *rules;
	size_t n, alloc;
};

/* Add the rules of one ignore file's text (modified in place: lines are
 * cut at their ends) of the directory base ("" for the root). */
static void ignore_add_text(struct ignore_list *l, const char *base, char *text)
{
	char *line = text;
	while (line && *line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		size_t len = strlen(line);
		while (len && (line[len - 1] == '\r' ||
			       (line[len - 1] == ' ' && (len < 2 || line[len - 2] != '\\'))))
			line[--len] = '\0';
		if (len && line[0] != '#') {
			struct ignore_rule r = { 0 };
			char *p = line;
			if (*p == '!') {
				r.negate = 1;
				p++;
			} else if (*p == '\\' && (p[1] == '!' || p[1] == '#')) {
				p++;
			}
			len = strlen(p);
			if (len && p[len - 1] == '/') {
				r.dir_only = 1;
				p[--len] = '\0';
			}
			if (*p == '/') {
				r.anchored = 1;
				p++;
			} else if (strchr(p, '/')) {
				r.anchored = 1;
			}
			if (*p && l->n < 100000) {
				if (l->n == l->alloc) {
					size_t na = l->alloc ? l->alloc * 2 : 16;
					struct ignore_rule *nr = realloc(l->rules, na * sizeof(*nr));
					if (!nr)
						break;
					l->rules = nr;
					l->alloc = na;
				}
				r.pattern = strdup(p);
				r.base = strdup(base);
				if (r.pattern && r.base)
					l->rules[l->n++] = r;
				else {
					free(r.pattern);
					free(r.base);
				}
			}
		}
		line = nl ? nl + 1 : NULL;
	}
}

static void ignore_add_file(struct ignore_list *l, const char *root, const char *base,
			    const char *name)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	strbuf_addf(&path, "%s/%s%s%s", root, base, *base ? "/" : "", name);
	/* a regular file only: a FIFO named .gitignore would block the
	 * walk, and a link to /dev/zero would never end (git does not
	 * follow a symbolic link there either) */
	int rc = path.failed ? -1 : strbuf_read_regular_file(&text, path.buf, 16u << 20);
	if (rc == 0 && text.buf)
		ignore_add_text(l, base, text.buf);
	else if (rc == -1 && errno == ENOMEM)
		_kbx_nomem();
	strbuf_release(&path);
	strbuf_release(&text);
}

static void ignore_truncate(struct ignore_list *l, size_t n)
{
	while (l->n > n) {
		l->n--;
		free(l->rules[l->n].pattern);
		free(l->rules[l->n].base);
	}
}

/*
 * Glob matching for ignore rules, as git's gitignore(5) describes it:
 * '*' any run of characters but '/', '?' one character but '/', '[...]'
 * one character of a set ('!' or '^' negates; ranges a-z; classes such
 * as [:alpha:]; never '/'), '\' quotes the next character, and "**" as a
 * whole path segment: "**" + "/" zero or more directories, a trailing
 * "/" + "**" everything inside a directory.  Any other "**" is a '*'.
 *
 * The pattern is run as a set of states, one a pattern position, over the
 * path one character at a time: O(pattern length x path length) whatever
 * the pattern, where backtracking (and glibc's fnmatch) takes exponential
 * time on patterns such as "a/" + "**" + "/b/" + "**" + "/..." or
 * "*a*a*a*a*b", which anyone can put in a .gitignore.
 */

enum wild_op {
	W_NONE,       /* not the start of a token: never a live state */
	W_LIT,        /* one character, or a '\' and the character it quotes */
	W_ANY,        /* '?' */
	W_CLASS,      /* '[...]' */
	W_STAR,       /* '*': stays on any character but '/'; may be skipped */
	W_DIRS,       /* "**" "/": zero or more directories; may be skipped */
	W_DIRS_IN,    /* inside one of those directories */
	W_REST,       /* a trailing "**": one character or more ... */
	W_REST_IN     /* ... of anything */
};

/* Does the set [...] whose text starts at s (after the '[' and any
 * negation) hold c?  end is the position of its closing ']'. */
static int class_has(const char *s, const char *end, unsigned char c)
{
	static const struct { const char *name; int (*fn)(int); } classes[] = {
		{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
		{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
		{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
		{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit },
	};
	const char *p = s;
	while (p < end) {
		if (p[0] == '[' && p[1] == ':') {
			const char *close = strstr(p + 2, ":]");
			if (close && close < end) {
				size_t n = (size_t)(close - (p + 2));
				for (size_t k = 0; k < sizeof(classes) / sizeof(*classes); k++)
					if (strlen(classes[k].name) == n && !strncmp(p + 2, classes[k].name, n) &&
					    classes[k].fn(c))
						return 1;
				p = close + 2;
				continue;
			}
		}
		unsigned char lo = (unsigned char)*p;
		if (lo == '\\' && p + 1 < end)
			lo = (unsigned char)*++p;
		p++;
		unsigned char hi = lo;
		if (p + 1 < end && p[0] == '-') {
			hi = (unsigned char)p[1];
			p += 2;
			if (hi == '\\' && p < end)
				hi = (unsigned char)*p++;
		}
		if (c >= lo && c <= hi)
			return 1;
	}
	return 0;
}

/* The end of the set [...] starting at pat[i] == '[' (the index of its
 * ']'), or 0 when it is not closed (then '[' is an ordinary character). */
static size_t class_end(const char *pat, size_t i)
{
	size_t j = i + 1;
	if (pat[j] == '!' || pat[j] == '^')
		j++;
	if (pat[j] == ']')
		j++;
	while (pat[j] && pat[j] != ']') {
		if (pat[j] == '[' && pat[j + 1] == ':') {
			const char *close = strstr(pat + j + 2, ":]");
			if (close) {
				j = (size_t)(close - pat) + 2;
				continue;
			}
		}
		if (pat[j] == '\\' && pat[j + 1])
			j++;
		j++;
	}
	return pat[j] == ']' ? j : 0;
}

static int wild_match(const char *pat, const char *str)
{
	size_t n = strlen(pat), quoted = 0;
	/* a pattern ending in an unpaired '\' matches nothing (as fnmatch) */
	while (quoted < n && pat[n - 1 - quoted] == '\\')
		quoted++;
	if (quoted % 2)
		return 0;
	unsigned char small[3 * 128];
	unsigned char *op = n < 128 ? small : malloc(3 * (n + 1));
	if (!op)
		return 0;
	unsigned char *cur = op + n + 1, *nxt = cur + n + 1;
	size_t *next = NULL;
	/* the state after each token: the next position, or past a set, a
	 * quoted character or a double star */
	size_t small_next[128];
	next = n < 128 ? small_next : malloc((n + 1) * sizeof(*next));
	if (!next) {
		if (op != small)
			free(op);
		return 0;
	}
	memset(op, W_NONE, n + 1);
	for (size_t i = 0; i < n;) {
		char c = pat[i];
		next[i] = i + 1;
		if (c == '\\' && pat[i + 1]) {
			op[i] = W_LIT;
			next[i] = i + 2;
		} else if (c == '?') {
			op[i] = W_ANY;
		} else if (c == '[' && class_end(pat, i)) {
			op[i] = W_CLASS;
			next[i] = class_end(pat, i) + 1;
		} else if (c == '*' && pat[i + 1] == '*' && (i == 0 || pat[i - 1] == '/') &&
			   (pat[i + 2] == '/' || !pat[i + 2])) {
			if (pat[i + 2] == '/') {
				op[i] = W_DIRS;
				op[i + 1] = W_DIRS_IN;
				next[i] = i + 3;
				next[i + 1] = i;
			} else {
				op[i] = W_REST;
				op[i + 1] = W_REST_IN;
				next[i + 1] = i + 2;
			}
			i += pat[i + 2] ? 3 : 2;
			continue;
		} else if (c == '*') {
			op[i] = W_STAR;
		} else {
			op[i] = W_LIT;
		}
		i = next[i];
	}

	/* skippable states lead on to their next state */
	memset(cur, 0, n + 1);
	cur[0] = 1;
	for (size_t i = 0; i < n; i++)
		if (cur[i] && (op[i] == W_STAR || op[i] == W_DIRS || op[i] == W_REST_IN))
			cur[next[i]] = 1;
	int any = 1;
	for (const unsigned char *s = (const unsigned char *)str; *s && any; s++) {
		unsigned char c = *s;
		memset(nxt, 0, n + 1);
		for (size_t i = 0; i < n; i++) {
			if (!cur[i])
				continue;
			switch (op[i]) {
			case W_LIT:
				if ((unsigned char)pat[next[i] - 1] == c)
					nxt[next[i]] = 1;
				break;
			case W_ANY:
				if (c != '/')
					nxt[i + 1] = 1;
				break;
			case W_CLASS: {
				size_t first = i + 1;
				int neg = pat[first] == '!' || pat[first] == '^';
				if (neg)
					first++;
				if (c != '/' &&
				    class_has(pat + first, pat + next[i] - 1, c) != neg)
					nxt[next[i]] = 1;
				break;
			}
			case W_STAR:
				if (c != '/')
					nxt[i] = 1;
				break;
			case W_DIRS:
				if (c != '/')
					nxt[i + 1] = 1;
				break;
			case W_DIRS_IN:
				nxt[c == '/' ? i - 1 : i] = 1;
				break;
			case W_REST:
				nxt[i + 1] = 1;
				break;
			case W_REST_IN:
				nxt[i] = 1;
				break;
			}
		}
		any = 0;
		for (size_t i = 0; i <= n; i++) {
			if (!nxt[i])
				continue;
			any = 1;
			if (i < n && (op[i] == W_STAR || op[i] == W_DIRS || op[i] == W_REST_IN))
				nxt[next[i]] = 1;
		}
		unsigned char *t = cur;
		cur = nxt;
		nxt = t;
	}
	int m = any && cur[n];
	if (op != small)
		free(op);
	if (next != small_next)
		free(next);
	return m;
}

/* Is rel (repository-relative) ignored?  The last matching rule wins. */
static int is_ignored(const struct ignore_list *l, const char *rel, int is_dir)
{
	for (size_t i = l->n; i-- > 0;) {
		const struct ignore_rule *r = &l->rules[i];
		if (r->dir_only && !is_dir)
			continue;
		const char *sub = rel;
		size_t bl = strlen(r->base);
		if (bl) {
			if (strncmp(rel, r->base, bl) || rel[bl] != '/')
				continue;
			sub = rel + bl + 1;
		}
		int m;
		if (r->anchored) {
			m = wild_match(r->pattern, sub);
		} else {
			const char *slash = strrchr(sub, '/');
			m = wild_match(r->pattern, slash ? slash + 1 : sub);
		}
		if (m)
			return !r->negate;
	}
	return 0;
}

int _kbx_ignore_match(const char *text, size_t len, const char *base, const char *rel,
		      int is_dir)
{
	struct ignore_list l = { 0 };
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, text, len);
	copy[len] = '\0';
	ignore_add_text(&l, base, copy);
	int m = is_ignored(&l, rel, is_dir);
	ignore_truncate(&l, 0);
	free(l.rules);
	free(copy);
	return m;
}

/* Does one pattern of a glob list match the file rel, or the directory
 * rel[0..len) above it (is_dir)?  As in a .gitignore: a pattern with a
 * '/' before its end is matched against the whole path from the root
 * (a leading '/' dropped), any other against the last component; a
 * trailing '/' matches directories only. */
static int glob_matches(const char *pat, size_t plen, const char *rel, size_t len, int is_dir)
{
	char p[1024], path[4096];
	if (plen >= sizeof(p) || len >= sizeof(path))
		return 0;
	memcpy(p, pat, plen);
	p[plen] = '\0';
	memcpy(path, rel, len);
	path[len] = '\0';
	int dir_only = plen > 1 && p[plen - 1] == '/';
	if (dir_only)
		p[--plen] = '\0';
	if (dir_only && !is_dir)
		return 0;
	int anchored = strchr(p, '/') != NULL;
	const char *pp = p[0] == '/' ? p + 1 : p;
	const char *sub = path;
	if (!anchored) {
		const char *slash = strrchr(path, '/');
		sub = slash ? slash + 1 : path;
	}
	return wild_match(pp, sub);
}

int _kbx_globs_match(const char *list, const char *rel)
{
	if (!list)
		return 0;
	for (const char *g = list; *g;) {
		while (*g == ' ' || *g == '\t')
			g++;
		size_t plen = strcspn(g, " \t");
		if (plen) {
			/* the file, then each directory above it */
			if (glob_matches(g, plen, rel, strlen(rel), 0))
				return 1;
			for (const char *s = strchr(rel, '/'); s; s = strchr(s + 1, '/'))
				if (glob_matches(g, plen, rel, (size_t)(s - rel), 1))
					return 1;
		}
		g += plen;
	}
	return 0;
}

const struct kbx_lang *_kbx_header_lang(const struct kbx_header_langs *h, const char *path,
					const char *text, size_t len)
{
	if (h && _kbx_lang_is_header(path)) {
		if (_kbx_globs_match(h->cpp, path))
			return _kbx_lang_by_name("cpp");
		if (_kbx_globs_match(h->c, path))
			return _kbx_lang_by_name("c");
	}
	return _kbx_lang_for_text(path, text, len);
}

struct walker {
	const char *root;
	uint64_t max_size;
	void (*notify)(void *, const struct kbx_note *);
	void *data;
	struct _kbx_scan *out;
	struct ignore_list ign;
	uint64_t *skipped;
	struct kbx_error *err;
	int depth;
	/* _kbx_scan_dirs: told of each directory entered; no files listed */
	kbx_status_t (*dir_fn)(void *, const char *);
	void *dir_data;
	int markdown;           /* _kbx_scan_markdown: list *.md, not code */
	int missing_ok;         /* enter_parents: a directory that is gone is no obstacle */
};

static int is_markdown(const char *rel)
{
	const char *dot = strrchr(rel, '.');
	const char *slash = strrchr(rel, '/');
	if (!dot || (slash && dot < slash))
		return 0;
	return !strcasecmp(dot, ".md") || !strcasecmp(dot, ".markdown");
}

static void note_skip(struct walker *w, const char *path, const char *why)
{
	if (w->skipped)
		(*w->skipped)++;
	if (w->notify) {
		struct kbx_note n = { 0 };
		n.kind = KBX_NOTE_SKIPPED;
		n.path = path;
		n.message = why;
		w->notify(w->data, &n);
	}
}

/*
 * The language of a file by its path, or, for a script without an
 * extension, by its first line or a modeline (_kbx_lang_for_script): only
 * its first and last KBX_SCRIPT_PEEK bytes are read, and never through a
 * symbolic link.  NULL when it is in no language kbx parses.
 */
static const struct kbx_lang *file_lang(const char *root, const char *rel, uint64_t size)
{
	const struct kbx_lang *lang = _kbx_lang_for_path(rel);
	if (lang || !size || !_kbx_lang_may_be_script(rel))
		return lang;
	int fd = _kbx_open_beneath(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	char head[KBX_SCRIPT_PEEK], tail[KBX_SCRIPT_PEEK];
	struct stat st;
	ssize_t hn = -1, tn = 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		hn = pread(fd, head, sizeof(head), 0);
		off_t from = st.st_size > (off_t)sizeof(tail) ? st.st_size - (off_t)sizeof(tail) : 0;
		if (hn > 0 && from > 0)
			tn = pread(fd, tail, sizeof(tail), from);
	}
	close(fd);
	if (hn <= 0)
		return NULL;
	if (tn <= 0)
		return _kbx_lang_for_script(head, (size_t)hn, head, (size_t)hn);
	return _kbx_lang_for_script(head, (size_t)hn, tail, (size_t)tn);
}

static kbx_status_t add_file(struct walker *w, const char *rel, const struct stat *st)
{
	const struct kbx_lang *lang = w->markdown ? NULL :
		file_lang(w->root, rel, (uint64_t)st->st_size);
	if (w->markdown ? !is_markdown(rel) : !lang)
		return KBX_OK;   /* not a language kbx parses: not worth a note */
	if ((uint64_t)st->st_size > w->max_size) {
		char why[96];
		snprintf(why, sizeof(why), "larger than the size limit (%llu bytes; see --max-file-size)",
			 (unsigned long long)w->max_size);
		note_skip(w, rel, why);
		return KBX_OK;
	}
	struct _kbx_scan *o = w->out;
	if (o->n == o->alloc) {
		size_t na = o->alloc ? o->alloc * 2 : 256;
		struct _kbx_scan_file *nf = realloc(o->files, na * sizeof(*nf));
		if (!nf)
			return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory listing files");
		o->files = nf;
		o->alloc = na;
	}
	struct _kbx_scan_file *f = &o->files[o->n];
	f->path = strdup(rel);
	if (!f->path)
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory listing files");
	f->size = (uint64_t)st->st_size;
	f->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	f->lang = lang;
	o->n++;
	return KBX_OK;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static kbx_status_t walk_dir(struct walker *w, const char *rel)
{
	struct strbuf abs = STRBUF_INIT;
	kbx_status_t st = KBX_OK;
	if (++w->depth > 200) {
		note_skip(w, rel, "directory nesting deeper than 200 levels");
		w->depth--;
		return KBX_OK;
	}
	strbuf_addf(&abs, "%s%s%s", w->root, *rel ? "/" : "", rel);
	if (abs.failed) {
		w->depth--;
		return _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory listing files");
	}
	DIR *d = opendir(abs.buf);
	if (!d) {
		if (errno == ENOMEM)
			_kbx_nomem();   /* scan() fails: no file may go missing */
		note_skip(w, *rel ? rel : ".", strerror(errno));
		strbuf_release(&abs);
		w->depth--;
		return KBX_OK;
	}
	if (w->dir_fn && (st = w->dir_fn(w->dir_data, rel))) {
		closedir(d);
		strbuf_release(&abs);
		w->depth--;
		return st;
	}
	size_t saved = w->ign.n;
	ignore_add_file(&w->ign, w->root, rel, ".gitignore");
	ignore_add_file(&w->ign, w->root, rel, ".kbxignore");

	char **names = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *nm = de->d_name;
		if (!strcmp(nm, ".") || !strcmp(nm, "..") || !strcmp(nm, ".git") ||
		    !strcmp(nm, ".kbx"))
			continue;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			char **nn = realloc(names, alloc * sizeof(*nn));
			if (!nn) {
				st = _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory");
				break;
			}
			names = nn;
		}
		names[n] = strdup(nm);
		if (!names[n]) {
			st = _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory listing files");
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);

	struct strbuf child = STRBUF_INIT;
	for (size_t i = 0; i < n && !st; i++) {
		strbuf_reset(&child);
		strbuf_addf(&child, "%s%s%s", rel, *rel ? "/" : "", names[i]);
		strbuf_reset(&abs);
		strbuf_addf(&abs, "%s/%s", w->root, child.buf);
		if (child.failed || abs.failed) {
			st = _kbx_fail(w->err, KBX_ERR_NOMEM, "out of memory listing files");
			break;
		}
		struct stat sst;
		if (lstat(abs.buf, &sst) < 0) {
			note_skip(w, child.buf, strerror(errno));  /* vanished */
			continue;
		}
		if (S_ISLNK(sst.st_mode))
			continue;  /* never followed: no loops, nothing outside the tree */
		if (S_ISDIR(sst.st_mode)) {
			/* hidden directories (.github, .venv, .tox, quilt's .pc)
			 * hold tooling, environments and copies, not the code:
			 * left out unless named as a PATH argument */
			if (names[i][0] == '.')
				continue;
			/* a nested repository is indexed on its own, as git
			 * leaves it to its own .git */
			strbuf_addstr(&abs, "/.git");
			struct stat gst;
			if (lstat(abs.buf, &gst) == 0)
				continue;
			if (!is_ignored(&w->ign, child.buf, 1))
				st = walk_dir(w, child.buf);
		} else if (S_ISREG(sst.st_mode) && !w->dir_fn) {
			if (!is_ignored(&w->ign, child.buf, 0))
				st = add_file(w, child.buf, &sst);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	strbuf_release(&child);
	strbuf_release(&abs);
	ignore_truncate(&w->ign, saved);
	w->depth--;
	return st;
}

static int cmp_scan(const void *a, const void *b)
{
	return strcmp(((const struct _kbx_scan_file *)a)->path,
		      ((const struct _kbx_scan_file *)b)->path);
}

/* The walk behind _kbx_scan_tree (code files) and _kbx_scan_markdown. */
static kbx_status_t scan(const char *root, const char *const *paths, size_t npaths,
			 uint64_t max_size, void (*notify)(void *, const struct kbx_note *),
			 void *data, struct _kbx_scan *out, uint64_t *skipped, int markdown,
			 struct kbx_error *err)
{
	struct walker w = { 0 };
	kbx_status_t st = KBX_OK;
	/* an ignore rule or a name lost for want of memory would change
	 * which files the index holds: the count says (util.h) */
	unsigned long nomem0 = _kbx_nomem_count;
	w.root = root;
	w.max_size = max_size;
	w.notify = notify;
	w.data = data;
	w.out = out;
	w.skipped = skipped;
	w.err = err;
	w.markdown = markdown;
	memset(out, 0, sizeof(*out));

	ignore_add_file(&w.ign, root, "", ".git/info/exclude");
	if (!npaths) {
		st = walk_dir(&w, "");
	} else {
		for (size_t i = 0; i < npaths && !st; i++) {
			const char *p = paths[i];
			/* load the ignore files of the directories above p, the
			 * root's first, so that deeper rules win as in a full walk */
			size_t saved = w.ign.n;
			char dir[4096];
			ignore_add_file(&w.ign, root, "", ".gitignore");
			ignore_add_file(&w.ign, root, "", ".kbxignore");
			for (const char *s = p; (s = strchr(s, '/')); s++) {
				size_t len = (size_t)(s - p);
				if (len >= sizeof(dir))
					break;
				memcpy(dir, p, len);
				dir[len] = '\0';
				ignore_add_file(&w.ign, root, dir, ".gitignore");
				ignore_add_file(&w.ign, root, dir, ".kbxignore");
			}
			struct strbuf abs = STRBUF_INIT;
			strbuf_addf(&abs, "%s/%s", root, p);
			struct stat sst;
			if (!*p || !strcmp(p, ".")) {
				st = walk_dir(&w, "");
			} else if (lstat(abs.buf, &sst) < 0) {
				/* gone: the caller removes what was indexed under it */
			} else if (S_ISDIR(sst.st_mode)) {
				if (!is_ignored(&w.ign, p, 1))
					st = walk_dir(&w, p);
			} else if (S_ISREG(sst.st_mode) && !is_ignored(&w.ign, p, 0)) {
				st = add_file(&w, p, &sst);
			}
			strbuf_release(&abs);
			ignore_truncate(&w.ign, saved);
		}
	}
	ignore_truncate(&w.ign, 0);
	free(w.ign.rules);
	if (!st && _kbx_nomem_count != nomem0)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory listing files");
	if (st) {
		_kbx_scan_release(out);
		return st;
	}
	if (out->n)
		qsort(out->files, out->n, sizeof(*out->files), cmp_scan);
	/* several PATH arguments may overlap: drop repeats */
	size_t k = 0;
	for (size_t i = 0; i < out->n; i++) {
		if (k && !strcmp(out->files[k - 1].path, out->files[i].path)) {
			free(out->files[i].path);
			continue;
		}
		out->files[k++] = out->files[i];
	}
	out->n = k;
	return KBX_OK;
}

/* Load the ignore files of root and of each directory above rel, the
 * root's first, checking on the way that a walk from the root would
 * enter each of those directories.  Returns 1 when it would, 0 when one
 * of them is hidden, ignored, a symbolic link, a nested repository or
 * gone. */
static int enter_parents(struct walker *w, const char *rel)
{
	struct strbuf dir = STRBUF_INIT, abs = STRBUF_INIT;
	int ok = 1;
	ignore_add_file(&w->ign, w->root, "", ".git/info/exclude");
	ignore_add_file(&w->ign, w->root, "", ".gitignore");
	ignore_add_file(&w->ign, w->root, "", ".kbxignore");
	for (const char *s = rel; ok && (s = strchr(s, '/')); s++) {
		strbuf_reset(&dir);
		strbuf_add(&dir, rel, (size_t)(s - rel));
		struct stat st;
		strbuf_reset(&abs);
		if (!dir.failed)
			strbuf_addf(&abs, "%s/%s", w->root, dir.buf);
		if (dir.failed || abs.failed) {
			ok = 0;   /* counted (util.h): scan() fails */
			break;
		}
		const char *base = strrchr(dir.buf, '/');
		base = base ? base + 1 : dir.buf;
		if (w->missing_ok && !(base[0] == '.' || is_ignored(&w->ign, dir.buf, 1)) &&
		    lstat(abs.buf, &st) < 0 && errno == ENOENT)
			continue;  /* gone, with its ignore files */
		if (base[0] == '.' || is_ignored(&w->ign, dir.buf, 1) ||
		    lstat(abs.buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
			ok = 0;
			break;
		}
		strbuf_addstr(&abs, "/.git");
		if (lstat(abs.buf, &st) == 0) {
			ok = 0;
			break;
		}
		ignore_add_file(&w->ign, w->root, dir.buf, ".gitignore");
		ignore_add_file(&w->ign, w->root, dir.buf, ".kbxignore");
	}
	if (dir.failed || abs.failed)
		ok = 0;
	strbuf_release(&dir);
	strbuf_release(&abs);
	return ok;
}

kbx_status_t _kbx_scan_dirs(const char *root, const char *start,
			    kbx_status_t (*fn)(void *data, const char *rel), void *data,
			    struct kbx_error *err)
{
	struct walker w = { 0 };
	kbx_status_t st = KBX_OK;
	struct _kbx_scan none;
	unsigned long nomem0 = _kbx_nomem_count;
	w.root = root;
	w.max_size = UINT64_MAX;
	w.out = &none;
	w.err = err;
	w.dir_fn = fn;
	w.dir_data = data;
	memset(&none, 0, sizeof(none));
	if (!start || !*start) {
		ignore_add_file(&w.ign, root, "", ".git/info/exclude");
		st = walk_dir(&w, "");
	} else if (enter_parents(&w, start)) {
		/* start itself, as its parent's walk would see it */
		struct strbuf abs = STRBUF_INIT;
		struct stat sst;
		const char *base = strrchr(start, '/');
		base = base ? base + 1 : start;
		strbuf_addf(&abs, "%s/%s", root, start);
		if (base[0] != '.' && lstat(abs.buf, &sst) == 0 &&
		    S_ISDIR(sst.st_mode) && !is_ignored(&w.ign, start, 1)) {
			strbuf_addstr(&abs, "/.git");
			if (lstat(abs.buf, &sst) < 0)
				st = walk_dir(&w, start);
		}
		strbuf_release(&abs);
	}
	ignore_truncate(&w.ign, 0);
	free(w.ign.rules);
	if (!st && _kbx_nomem_count != nomem0)
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory listing files");
	return st;
}

kbx_status_t _kbx_scan_tree(const char *root, const char *const *paths, size_t npaths,
			    uint64_t max_size, void (*notify)(void *, const struct kbx_note *),
			    void *data, struct _kbx_scan *out, uint64_t *skipped,
			    struct kbx_error *err)
{
	return scan(root, paths, npaths, max_size, notify, data, out, skipped, 0, err);
}

kbx_status_t _kbx_scan_markdown(const char *root, uint64_t max_size,
				void (*notify)(void *, const struct kbx_note *), void *data,
				struct _kbx_scan *out, struct kbx_error *err)
{
	return scan(root, NULL, 0, max_size, notify, data, out, NULL, 1, err);
}

int _kbx_scan_wants(const char *root, const char *rel)
{
	return _kbx_scan_would_index(root, rel, 0);
}

int _kbx_scan_would_index(const char *root, const char *rel, int missing_ok)
{
	struct walker w = { 0 };
	w.root = root;
	w.missing_ok = missing_ok;
	int ok = *rel && (_kbx_lang_for_path(rel) ||
			  (_kbx_lang_may_be_script(rel) && !missing_ok &&
			   file_lang(root, rel, 1))) && enter_parents(&w, rel) &&
		 !is_ignored(&w.ign, rel, 0);
	ignore_truncate(&w.ign, 0);
	free(w.ign.rules);
	return ok;
}

void _kbx_scan_release(struct _kbx_scan *scan)
{
	for (size_t i = 0; i < scan->n; i++)
		free(scan->files[i].path);
	free(scan->files);
	memset(scan, 0, sizeof(*scan));
}
