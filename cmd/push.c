#define _GNU_SOURCE /* memrchr */
/*
 * kbx push: publish this repository's index to PostgreSQL.
 *
 * The database speaks through the module of pg-module.h (libpq, which
 * kbx does not link).  One push is one transaction: the repository's
 * row in kbx.repos is locked (SELECT ... FOR UPDATE: another
 * repository's push takes another row and does not wait), the files
 * whose rows differ from what the database holds are deleted and
 * copied again, the files gone are deleted, and the row gets the new
 * generation.  Readers see the previous generation or this one; a push
 * killed halfway leaves the previous one, as the server rolls back what
 * it did not commit.
 *
 * What is compared is a file's rows: the nodes it defines, the edges
 * from them and its chunks, rendered as they are copied, with the
 * file's content hash.  A file whose content did not change but whose
 * edges were resolved again (a definition it calls moved) is copied
 * again too.  The nodes of no file (extern:, module:, name:) and the
 * chunks of no file are one more unit, of path "".
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "output.h"
#include "parse-options.h"
#include "pg-client.h"
#include "repos-util.h"
#include "lang/lang.h"
#include "search/kbx-search.h"
#include "util/config.h"
#include "util/json.h"
#include "util/repos.h"
#include "util/safefile.h"
#include "util/sha256.h"
#include "util/strbuf.h"
#include "util/util.h"
#include "util/vflat.h"

static const char *const push_usage[] = {
	"kbx push [--db=<url>] [--name=<name>] [-q]",
	"kbx push --schema",
	NULL
};

/* The version of the tables below, in kbx.meta (pg-client.h). */
#define PUSH_SCHEMA_VERSION KBX_PG_SCHEMA

/* The DDL, one statement each; --schema prints them for a DBA. */
static const char *const push_schema[] = {
	"CREATE SCHEMA IF NOT EXISTS kbx",
	"CREATE TABLE IF NOT EXISTS kbx.meta (\n"
	"    key text PRIMARY KEY,\n"
	"    value text NOT NULL\n"
	")",
	"INSERT INTO kbx.meta (key, value) VALUES ('schema', '" PUSH_SCHEMA_VERSION "')\n"
	"    ON CONFLICT (key) DO NOTHING",
	"CREATE TABLE IF NOT EXISTS kbx.repos (\n"
	"    id serial PRIMARY KEY,\n"
	"    name text NOT NULL UNIQUE,\n"
	"    generation bigint NOT NULL DEFAULT 0,   -- kbx index's, as pushed\n"
	"    pushed_at timestamptz,\n"
	"    files bigint NOT NULL DEFAULT 0,\n"
	"    nodes bigint NOT NULL DEFAULT 0,\n"
	"    edges bigint NOT NULL DEFAULT 0,\n"
	"    chunks bigint NOT NULL DEFAULT 0,\n"
	"    chunk_tokens bigint NOT NULL DEFAULT 0, -- the sum of the chunks' lengths (BM25)\n"
	"    embedding text               -- the embedder of kbx.vectors (kbx index's identity,\n"
	"                                 -- builtin/v1/256), NULL: no vectors pushed\n"
	")",
	"CREATE TABLE IF NOT EXISTS kbx.files (\n"
	"    repo integer NOT NULL,\n"
	"    path text NOT NULL,          -- '' holds the nodes and chunks of no file\n"
	"    hash bytea,                  -- the content as kbx index read it\n"
	"    lang text,\n"
	"    rows_hash bytea NOT NULL,    -- of the rows below that the file gave\n"
	"    mtime bigint,                -- its modification time (seconds) as kbx index saw\n"
	"                                 -- it: kbx --db hybrid's recency\n"
	"    PRIMARY KEY (repo, path)\n"
	")",
	"CREATE TABLE IF NOT EXISTS kbx.nodes (\n"
	"    repo integer NOT NULL,\n"
	"    id bigint NOT NULL,\n"
	"    kind text NOT NULL,\n"
	"    lang text,\n"
	"    cid text NOT NULL,           -- canonical id: path#Qual.name, extern:NAME\n"
	"    name text NOT NULL,\n"
	"    qual text,\n"
	"    path text,                   -- NULL for extern:, module: and name: nodes\n"
	"    line integer,\n"
	"    col integer,\n"
	"    end_line integer,\n"
	"    parent bigint,\n"
	"    flags integer NOT NULL,\n"
	"    link text,                   -- the name other repositories call it by\n"
	"                                 -- (defined), or that it calls (extern:)\n"
	"    PRIMARY KEY (repo, id)\n"
	")",
	"CREATE INDEX IF NOT EXISTS nodes_path ON kbx.nodes (repo, path)",
	"CREATE INDEX IF NOT EXISTS nodes_name ON kbx.nodes (name)",
	"CREATE INDEX IF NOT EXISTS nodes_cid ON kbx.nodes (repo, cid)",
	"CREATE INDEX IF NOT EXISTS nodes_link ON kbx.nodes (link) WHERE link IS NOT NULL",
	"CREATE TABLE IF NOT EXISTS kbx.edges (\n"
	"    repo integer NOT NULL,\n"
	"    src bigint NOT NULL,\n"
	"    kind text NOT NULL,          -- defines, calls, imports, inherits\n"
	"    dst bigint NOT NULL,\n"
	"    confidence text NOT NULL,    -- certain, ambiguous, unresolved\n"
	"    via text,\n"
	"    candidates integer NOT NULL,\n"
	"    site_lines integer[] NOT NULL,\n"
	"    site_cols integer[] NOT NULL,\n"
	"    site_confs text[] NOT NULL,  -- each call's own confidence\n"
	"    PRIMARY KEY (repo, src, kind, dst)\n"
	")",
	"CREATE INDEX IF NOT EXISTS edges_dst ON kbx.edges (repo, dst, kind)",
	"CREATE TABLE IF NOT EXISTS kbx.chunks (\n"
	"    repo integer NOT NULL,\n"
	"    id bigint NOT NULL,\n"
	"    type text NOT NULL,          -- code, doc, error, pattern, adr, behavioral\n"
	"    kind text,\n"
	"    node bigint,\n"
	"    doc_id text,\n"
	"    path text NOT NULL,\n"
	"    line integer,\n"
	"    end_line integer,\n"
	"    title text,\n"
	"    heading text,\n"
	"    lang text,\n"
	"    seq integer NOT NULL,        -- the chunk's number in its document\n"
	"    tags text,\n"
	"    category text,\n"
	"    severity text,\n"
	"    pattern text,                -- an error entry's, in Python syntax\n"
	"    pattern_line integer,\n"
	"    cause text,\n"
	"    fix text,\n"
	"    related text,\n"
	"    text text NOT NULL,\n"
	"    tsv tsvector GENERATED ALWAYS AS (to_tsvector('english',\n"
	"        coalesce(title, '') || ' ' || coalesce(heading, '') || ' ' || text)) STORED,\n"
	"    PRIMARY KEY (repo, id)\n"
	")",
	"CREATE INDEX IF NOT EXISTS chunks_path ON kbx.chunks (repo, path)",
	"CREATE INDEX IF NOT EXISTS chunks_tsv ON kbx.chunks USING gin (tsv)",
	"CREATE TABLE IF NOT EXISTS kbx.postings (  -- what kbx --db search's BM25 reads\n"
	"    repo integer NOT NULL,\n"
	"    term text NOT NULL,          -- as kbx's tokenizer cuts the chunk's text\n"
	"    chunk bigint NOT NULL,\n"
	"    tf integer NOT NULL,         -- the term's count in the chunk\n"
	"    len integer NOT NULL,        -- the chunk's length in tokens\n"
	"    PRIMARY KEY (repo, term, chunk) INCLUDE (tf, len)\n"
	")",
	"CREATE INDEX IF NOT EXISTS postings_chunk ON kbx.postings (repo, chunk)",
	"CREATE INDEX IF NOT EXISTS chunks_pattern ON kbx.chunks (repo) WHERE pattern IS NOT NULL",
	"CREATE TABLE IF NOT EXISTS kbx.vectors (  -- what kbx --db search's vector signal reads\n"
	"    repo integer NOT NULL,\n"
	"    chunk bigint NOT NULL,\n"
	"    vec bytea NOT NULL,          -- the chunk's embedding as kbx index made it:\n"
	"                                 -- float4 little-endian, octet_length / 4 of them\n"
	"    code bytea NOT NULL,         -- its 8-bit code, which kbx --db search scans:\n"
	"                                 -- the scale (float4 little-endian), a byte a dimension\n"
	"    PRIMARY KEY (repo, chunk)\n"
	")",
	NULL
};



/* ---- COPY's text format ---- */

/* s as one field: UTF-8 (a byte that is not becomes U+FFFD, as does a
 * NUL, which text cannot hold), with \, tab, newline and CR escaped. */
static void copy_field(struct strbuf *sb, const char *s, size_t len)
{
	pg_text_add(sb, s, len, 1);
}

static void copy_str(struct strbuf *sb, const char *s)
{
	if (s)
		copy_field(sb, s, strlen(s));
	else
		strbuf_addstr(sb, "\\N");
	strbuf_addch(sb, '\t');
}

/* A string that is NULL when empty. */
static void copy_text(struct strbuf *sb, const char *s)
{
	copy_str(sb, s && *s ? s : NULL);
}

static void copy_num(struct strbuf *sb, uint64_t v)
{
	strbuf_addf(sb, "%llu\t", (unsigned long long)v);
}

/* A line number: NULL when 0 (not known). */
static void copy_line(struct strbuf *sb, uint32_t v)
{
	if (v)
		copy_num(sb, v);
	else
		strbuf_addstr(sb, "\\N\t");
}

static void copy_bytea(struct strbuf *sb, const unsigned char *h, size_t n)
{
	strbuf_addstr(sb, "\\\\x");
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%02x", h[i]);
	strbuf_addch(sb, '\t');
}

/* The line ends: the last field's tab becomes a newline. */
static void copy_end_row(struct strbuf *sb)
{
	sb->buf[sb->len - 1] = '\n';
}

/* ---- the local index, read whole ---- */

struct edge_item {
	struct kbx_edge_rec e;   /* sites: into push.sites, from site_off */
	size_t site_off;
};

struct chunk_item {
	uint32_t id;
	struct kbx_chunk c;      /* strings into the store's map */
	size_t post, npost;      /* its postings: push.posts[post..post+npost) */
	const float *vec;        /* its vector (push.vecs), or NULL */
};

/* A chunk's term, with its count: what BM25 reads (kbx --db search). */
struct post_item {
	uint32_t id;
	uint32_t tf, dl;         /* its count, and the chunk's length */
	const char *term;        /* into the store's map, not NUL-terminated */
	size_t len;
	size_t seq;              /* the order walked, for a stable sort */
};

struct file_item {
	char *path;
	int lang;
	uint64_t size;
	unsigned char hash[16];
	int64_t mtime;           /* seconds, as kbx index saw it */
	char *java_package;      /* a Java file's package declaration, or NULL */
};

/* What belongs to one path (a unit), by index into the arrays. */
struct unit_ref {
	const char *unit;        /* the path, or "": not NUL-terminated */
	size_t ulen;
	int table;               /* 0 file, 1 node, 2 edge, 3 chunk */
	size_t idx;
};

struct push {
	struct kbx_node *nodes;
	size_t nnodes, anodes;
	struct edge_item *edges;
	size_t nedges, aedges;
	struct kbx_site *sites;
	size_t nsites, asites;
	struct chunk_item *chunks;
	size_t nchunks, achunks;
	struct post_item *posts;
	size_t nposts, aposts;
	struct file_item *files;
	size_t nfiles, afiles;
	/* the chunks' vectors, by chunk id: vec_ids[i]'s at vecs[i * dim] */
	uint32_t *vec_ids;
	float *vecs;
	size_t nvecs, avecs;
	uint32_t dim;
	int8_t *code;            /* room for one vector's code */
	char *hex;               /* and for its row's vec and code in hex */
	char embedding[256];     /* their embedder; "" when none are pushed */
	int failed;              /* out of memory */
	char *go_module;         /* the module line of the root's go.mod, or NULL */
	char *npm_name;          /* the "name" of the root's package.json, or NULL */
	char *npm_main;          /* its main file, without extension ("index") */
	/* its "exports": the subpath ("." or "./wrap", a '*' once at most)
	 * and the file stem it names ("lib/wrap", a '*' where the subpath
	 * has one), in the order written; with exports, a file they do not
	 * name is no part of the package's interface */
	struct npm_export {
		char *subpath, *stem;
	} *npm_exports;
	size_t npm_nexports, npm_aexports;
	int npm_has_exports;
	size_t java_stale;       /* Java files changed since the index read them */
};

#define GROW(arr, n, alloc) do { \
	if ((n) == (alloc)) { \
		size_t na_ = (alloc) ? (alloc) * 2 : 1024; \
		void *p_ = realloc((arr), na_ * sizeof(*(arr))); \
		if (!p_) { pu->failed = 1; return 1; } \
		(arr) = p_; (alloc) = na_; \
	} } while (0)

static int take_node(void *data, const struct kbx_node *n)
{
	struct push *pu = data;
	GROW(pu->nodes, pu->nnodes, pu->anodes);
	pu->nodes[pu->nnodes++] = *n;
	return 0;
}

static int take_edge(void *data, const struct kbx_edge_rec *e)
{
	struct push *pu = data;
	GROW(pu->edges, pu->nedges, pu->aedges);
	struct edge_item *it = &pu->edges[pu->nedges];
	it->e = *e;
	it->e.sites = NULL;
	it->site_off = pu->nsites;
	for (uint32_t i = 0; i < e->nsites; i++) {
		GROW(pu->sites, pu->nsites, pu->asites);
		pu->sites[pu->nsites++] = e->sites[i];
	}
	pu->nedges++;
	return 0;
}

static int take_chunk(void *data, uint32_t id, const struct kbx_chunk *c)
{
	struct push *pu = data;
	GROW(pu->chunks, pu->nchunks, pu->achunks);
	pu->chunks[pu->nchunks].id = id;
	pu->chunks[pu->nchunks].c = *c;
	pu->nchunks++;
	return 0;
}

static int take_posting(void *data, uint32_t id, const char *term, size_t len, uint32_t tf,
			uint32_t dl)
{
	struct push *pu = data;
	GROW(pu->posts, pu->nposts, pu->aposts);
	pu->posts[pu->nposts] = (struct post_item){ id, tf, dl, term, len, pu->nposts };
	pu->nposts++;
	return 0;
}

static int take_vector(void *data, uint32_t id, const float *v, uint32_t dim)
{
	struct push *pu = data;
	if (!pu->dim)
		pu->dim = dim;
	if (dim != pu->dim) {
		pu->dim = 0;     /* not one index: none are pushed */
		return 1;
	}
	if (pu->nvecs == pu->avecs) {
		size_t na = pu->avecs ? 2 * pu->avecs : 1024;
		uint32_t *ni = realloc(pu->vec_ids, na * sizeof(*ni));
		if (ni)
			pu->vec_ids = ni;
		float *nv = ni ? realloc(pu->vecs, na * dim * sizeof(*nv)) : NULL;
		if (!nv) {
			pu->failed = 1;
			return 1;
		}
		pu->vecs = nv;
		pu->avecs = na;
	}
	pu->vec_ids[pu->nvecs] = id;
	memcpy(pu->vecs + pu->nvecs * dim, v, dim * sizeof(*v));
	pu->nvecs++;
	return 0;
}

/* Give each chunk (sorted by id) its vector. */
static void attach_vectors(struct push *pu)
{
	size_t v = 0;
	for (size_t i = 0; i < pu->nchunks; i++) {
		struct chunk_item *c = &pu->chunks[i];
		while (v < pu->nvecs && pu->vec_ids[v] < c->id)
			v++;
		c->vec = v < pu->nvecs && pu->vec_ids[v] == c->id ? pu->vecs + v * pu->dim : NULL;
	}
}

static int post_cmp(const void *a, const void *b)
{
	const struct post_item *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Give each chunk (sorted by id) its postings. */
static void attach_postings(struct push *pu)
{
	if (pu->nposts)
		qsort(pu->posts, pu->nposts, sizeof(*pu->posts), post_cmp);
	size_t p = 0;
	for (size_t i = 0; i < pu->nchunks; i++) {
		struct chunk_item *c = &pu->chunks[i];
		while (p < pu->nposts && pu->posts[p].id < c->id)
			p++;
		c->post = p;
		while (p < pu->nposts && pu->posts[p].id == c->id)
			p++;
		c->npost = p - c->post;
	}
}

static int take_file(void *data, const struct kbx_file_info *f)
{
	struct push *pu = data;
	GROW(pu->files, pu->nfiles, pu->afiles);
	struct file_item *it = &pu->files[pu->nfiles];
	if (!(it->path = strdup(f->path))) {
		pu->failed = 1;
		return 1;
	}
	it->lang = f->lang;
	it->size = f->size;
	it->mtime = f->mtime_ns / 1000000000;
	it->java_package = NULL;
	memcpy(it->hash, f->hash, sizeof(it->hash));
	pu->nfiles++;
	return 0;
}

static void push_release(struct push *pu)
{
	for (size_t i = 0; i < pu->nfiles; i++) {
		free(pu->files[i].path);
		free(pu->files[i].java_package);
	}
	free(pu->files);
	free(pu->nodes);
	free(pu->edges);
	free(pu->sites);
	free(pu->chunks);
	free(pu->posts);
	free(pu->vec_ids);
	free(pu->vecs);
	free(pu->code);
	free(pu->hex);
	free(pu->go_module);
	free(pu->npm_name);
	free(pu->npm_main);
	for (size_t i = 0; i < pu->npm_nexports; i++) {
		free(pu->npm_exports[i].subpath);
		free(pu->npm_exports[i].stem);
	}
	free(pu->npm_exports);
}

/* The node of id (nodes come sorted by id), or NULL. */
static const struct kbx_node *node_by_id(const struct push *pu, uint32_t id)
{
	size_t lo = 0, hi = pu->nnodes;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pu->nodes[mid].id < id)
			lo = mid + 1;
		else if (pu->nodes[mid].id > id)
			hi = mid;
		else
			return &pu->nodes[mid];
	}
	return NULL;
}

static int unit_ref_cmp(const void *a, const void *b)
{
	const struct unit_ref *x = a, *y = b;
	int c = memcmp(x->unit, y->unit, x->ulen < y->ulen ? x->ulen : y->ulen);
	if (c)
		return c;
	if (x->ulen != y->ulen)
		return x->ulen < y->ulen ? -1 : 1;
	if (x->table != y->table)
		return x->table - y->table;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* ---- the rows ---- */

static void render_file(struct strbuf *sb, const char *repo, const struct file_item *f)
{
	copy_str(sb, repo);
	copy_str(sb, f->path);
	copy_bytea(sb, f->hash, sizeof(f->hash));
	copy_str(sb, kbx_lang_str(f->lang));
}

/*
 * The name under which other repositories reach a node (kbx.nodes.link,
 * which kbx --db matches across repositories at query time), as the
 * language's package naming has it:
 *
 *   C    c:NAME for a function that is not static, and for extern:NAME
 *   Python  py:MOD.QUAL for a definition of MOD's file (pkg/mod.py is
 *        pkg.mod, pkg/__init__.py is pkg, a leading src/ left out), and
 *        py:NAME for extern:NAME (from pkg.mod import f; f() is
 *        extern:pkg.mod.f)
 *   Go   go:MODULE/DIR.QUAL for an exported definition, MODULE from the
 *        root's go.mod; go:PATH.NAME for extern:PATH.NAME (a call
 *        through an import path)
 *   Java java:PACKAGE.QUAL for a public or protected definition whose
 *        enclosing types are all public or protected, PACKAGE from its
 *        file's package declaration (read again from the file, when its
 *        content is still what the index read); java:PATH for
 *        extern:PATH with two dots at least (import com.acme.Strings;
 *        Strings.pad() is extern:com.acme.Strings.pad)
 *   JavaScript, TypeScript
 *        npm:NAME.QUAL for an exported definition of the package's main
 *        file (package.json's "main" without its extension, else
 *        index), npm:NAME/STEM.QUAL for one of another file (its path
 *        without the extension, a last /index left out), NAME from the
 *        root's package.json; npm:SPEC.NAME for extern:SPEC.NAME (a call
 *        through import or require of a package, not of ./file)
 *
 * NULL for the rest.  Each push writes its own repository's: no push
 * touches another's rows.
 */
static int is_lang(const char *lang, const char *a, const char *b, const char *c)
{
	return lang && ((a && !strcmp(lang, a)) || (b && !strcmp(lang, b)) ||
			(c && !strcmp(lang, c)));
}

static size_t count_char(const char *s, int ch)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == ch;
	return n;
}

/* Are n and the definitions enclosing it all exported? */
static int exported_through(const struct push *pu, const struct kbx_node *n)
{
	for (int depth = 0; n && depth < 64; depth++) {
		if (!(n->flags & KBX_NODE_EXPORTED))
			return 0;
		if (!n->parent || n->kind == KBX_KIND_FILE)
			return 1;
		n = node_by_id(pu, n->parent);
		if (n && n->kind == KBX_KIND_FILE)
			return 1;
	}
	return 0;
}

/* A byte npm takes in a package's name */
static int npm_name_char(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || (ch && strchr("-._~", ch));
}

/* The length of a JavaScript or TypeScript file's extension in path (of
 * len bytes), 0 for none; -1 for a declaration file (.d.ts). */
static int js_extension(const char *path, size_t len)
{
	static const char *const exts[] = {
		".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", NULL
	};
	for (size_t i = 0; exts[i]; i++) {
		size_t el = strlen(exts[i]);
		if (len > el && !memcmp(path + len - el, exts[i], el)) {
			if (len > el + 2 && !memcmp(path + len - el - 2, ".d", 2))
				return -1;
			return (int)el;
		}
	}
	return 0;
}

/*
 * With "exports": the first subpath whose file is the definition's (its
 * path without extension, len bytes): npm:NAME.QUAL for ".",
 * npm:NAME/SUB.QUAL for "./SUB" (a pattern's '*' the part of the file's
 * stem it stands for); none for a file no subpath names.
 */
static void npm_export_key(struct strbuf *key, const struct push *pu, const struct kbx_node *n,
			   size_t len)
{
	for (size_t i = 0; i < pu->npm_nexports; i++) {
		const struct npm_export *e = &pu->npm_exports[i];
		const char *star = strchr(e->stem, '*');
		size_t pre = star ? (size_t)(star - e->stem) : strlen(e->stem);
		size_t post = star ? strlen(star + 1) : 0;
		if (!star ? len != pre || memcmp(n->path, e->stem, len) :
		    len <= pre + post || memcmp(n->path, e->stem, pre) ||
		    memcmp(n->path + len - post, star + 1, post))
			continue;
		strbuf_addf(key, "npm:%s", pu->npm_name);
		const char *sub = e->subpath + 1;       /* after the '.' */
		const char *sstar = strchr(sub, '*');
		if (!sstar) {
			strbuf_addstr(key, sub);
		} else {
			strbuf_add(key, sub, (size_t)(sstar - sub));
			strbuf_add(key, n->path + pre, len - pre - post);
			strbuf_addstr(key, sstar + 1);
		}
		strbuf_addf(key, ".%s", n->qual);
		return;
	}
}

/* npm:NAME.QUAL or npm:NAME/STEM.QUAL for a definition of path */
static void npm_key(struct strbuf *key, const struct push *pu, const struct kbx_node *n)
{
	int ext = js_extension(n->path, n->path_len);
	if (ext < 0 || (n->path_len >= 13 && !memcmp(n->path, "node_modules/", 13)) ||
	    memmem(n->path, n->path_len, "/node_modules/", 14))
		return;
	size_t len = n->path_len - (size_t)ext;
	if (pu->npm_has_exports) {
		npm_export_key(key, pu, n, len);
		return;
	}
	strbuf_addf(key, "npm:%s", pu->npm_name);
	size_t ml = pu->npm_main ? strlen(pu->npm_main) : 0;
	int is_main = pu->npm_main && ((len == ml && !memcmp(n->path, pu->npm_main, ml)) ||
				    (len == ml + 6 && !memcmp(n->path, pu->npm_main, ml) &&
				     !memcmp(n->path + ml, "/index", 6)));
	if (!is_main) {
		if (len > 6 && !memcmp(n->path + len - 6, "/index", 6))
			len -= 6;
		strbuf_addch(key, '/');
		strbuf_add(key, n->path, len);
	}
	strbuf_addf(key, ".%s", n->qual);
}

static void link_key(struct strbuf *sb, const struct push *pu, const struct kbx_node *n,
		     const struct file_item *file)
{
	const char *lang = kbx_lang_str(n->lang);
	struct strbuf key = STRBUF_INIT;
	int c = is_lang(lang, "c", "cpp", NULL);
	int py = is_lang(lang, "python", NULL, NULL);
	int go = is_lang(lang, "go", NULL, NULL);
	int java = is_lang(lang, "java", NULL, NULL);
	int js = is_lang(lang, "javascript", "typescript", "tsx");
	int ext = n->kind == KBX_KIND_EXTERNAL && !strncmp(n->cid, "extern:", 7);
	int def = n->path && n->kind != KBX_KIND_FILE && n->qual && *n->qual;
	if (!n->name || !*n->name) {
		/* nothing to link */
	} else if (go && ext && strchr(n->cid, '/')) {
		strbuf_addf(&key, "go:%s", n->cid + 7);
	} else if (go && pu->go_module && def && (n->flags & KBX_NODE_EXPORTED)) {
		/* example.com/lib/text.Length: the module, the package's
		 * directory, the name */
		const char *slash = memrchr(n->path, '/', n->path_len);
		strbuf_addf(&key, "go:%s", pu->go_module);
		if (slash) {
			strbuf_addch(&key, '/');
			strbuf_add(&key, n->path, (size_t)(slash - n->path));
		}
		strbuf_addf(&key, ".%s", n->qual);
	} else if (java && ext && count_char(n->cid + 7, '.') >= 2) {
		strbuf_addf(&key, "java:%s", n->cid + 7);
	} else if (java && def && file && file->java_package && exported_through(pu, n)) {
		strbuf_addf(&key, "java:%s.%s", file->java_package, n->qual);
	} else if (js && ext && (n->cid[7] == '@' || npm_name_char(n->cid[7])) &&
		   n->cid[7] != '.' && n->cid[7] != '_' && strchr(n->cid + 7, '.')) {
		strbuf_addf(&key, "npm:%s", n->cid + 7);
	} else if (js && def && pu->npm_name && (n->flags & KBX_NODE_EXPORTED)) {
		npm_key(&key, pu, n);
	} else if (ext && (c || py) && !(c && strstr(n->cid, "::"))) {
		strbuf_addf(&key, "%s%s", c ? "c:" : "py:", n->cid + 7);
	} else if (c && n->path && n->kind == KBX_KIND_FUNCTION &&
		   !(n->flags & KBX_NODE_FILE_LOCAL) && !strchr(n->qual, '.') &&
		   !strstr(n->qual, "::")) {
		strbuf_addf(&key, "c:%s", n->name);
	} else if (py && def) {
		const char *p = n->path;
		size_t len = n->path_len;
		if (len > 4 && !strncmp(p, "src/", 4))
			p += 4, len -= 4;
		if (len > 3 && !memcmp(p + len - 3, ".py", 3))
			len -= 3;
		if (len >= 9 && !memcmp(p + len - 9, "/__init__", 9))
			len -= 9;
		else if (len == 8 && !memcmp(p, "__init__", 8))
			len = 0;
		strbuf_addstr(&key, "py:");
		for (size_t i = 0; i < len; i++)
			strbuf_addch(&key, p[i] == '/' ? '.' : p[i]);
		strbuf_addf(&key, "%s%s", len ? "." : "", n->qual);
	}
	copy_str(sb, key.len ? key.buf : NULL);
	strbuf_release(&key);
}

static void render_node(struct strbuf *sb, const char *repo, const struct push *pu,
			const struct kbx_node *n, const struct file_item *file)
{
	copy_str(sb, repo);
	copy_num(sb, n->id);
	copy_str(sb, kbx_kind_str(n->kind));
	copy_str(sb, kbx_lang_str(n->lang));
	copy_str(sb, n->cid);
	copy_str(sb, n->name ? n->name : "");
	copy_text(sb, n->qual);
	if (n->path)
		copy_field(sb, n->path, n->path_len), strbuf_addch(sb, '\t');
	else
		copy_str(sb, NULL);
	copy_line(sb, n->line);
	copy_line(sb, n->path ? n->col : 0);
	copy_line(sb, n->end_line);
	copy_line(sb, n->parent);
	copy_num(sb, n->flags);
	link_key(sb, pu, n, file);
	copy_end_row(sb);
}

static void render_edge(struct strbuf *sb, const char *repo, const struct push *pu,
			const struct edge_item *it)
{
	const struct kbx_edge_rec *e = &it->e;
	const struct kbx_site *s = pu->sites + it->site_off;
	copy_str(sb, repo);
	copy_num(sb, e->src);
	copy_str(sb, kbx_edge_kind_str(e->kind));
	copy_num(sb, e->dst);
	copy_str(sb, kbx_confidence_str(e->confidence));
	copy_str(sb, e->via ? kbx_via_str(e->via) : NULL);
	copy_num(sb, e->ncandidates);
	strbuf_addch(sb, '{');
	for (uint32_t i = 0; i < e->nsites; i++)
		strbuf_addf(sb, "%s%u", i ? "," : "", s[i].line);
	strbuf_addstr(sb, "}\t{");
	for (uint32_t i = 0; i < e->nsites; i++)
		strbuf_addf(sb, "%s%u", i ? "," : "", s[i].col);
	strbuf_addstr(sb, "}\t{");
	for (uint32_t i = 0; i < e->nsites; i++)
		strbuf_addf(sb, "%s%s", i ? "," : "",
			    kbx_confidence_str(s[i].confidence ? s[i].confidence : e->confidence));
	strbuf_addstr(sb, "}\n");
}

static void render_chunk(struct strbuf *sb, const char *repo, const struct push *pu,
			 const struct chunk_item *it)
{
	const struct kbx_chunk *c = &it->c;
	copy_str(sb, repo);
	copy_num(sb, it->id);
	copy_str(sb, kbx_chunk_type_str(c->type) ? kbx_chunk_type_str(c->type) : "unknown");
	copy_str(sb, c->type == KBX_CHUNK_CODE ? kbx_kind_str(c->kind) : NULL);
	copy_line(sb, c->node);
	copy_text(sb, c->doc_id);
	copy_str(sb, c->path ? c->path : "");
	copy_line(sb, c->line);
	copy_line(sb, c->end_line);
	copy_text(sb, c->title);
	copy_text(sb, c->heading);
	copy_text(sb, c->lang);
	copy_num(sb, c->seq);
	copy_text(sb, c->tags);
	copy_text(sb, c->category);
	copy_text(sb, c->severity);
	copy_text(sb, c->type == KBX_CHUNK_ERROR ? c->pattern : NULL);
	copy_line(sb, c->pattern_line);
	copy_text(sb, c->cause);
	copy_text(sb, c->fix);
	copy_text(sb, c->related);
	copy_field(sb, c->text ? c->text : "", c->text ? c->text_len : 0);
	strbuf_addch(sb, '\n');
}

/* The chunk's postings, a row each. */
static void render_postings(struct strbuf *sb, const char *repo, const struct push *pu,
			    const struct chunk_item *it)
{
	for (size_t i = 0; i < it->npost; i++) {
		const struct post_item *p = &pu->posts[it->post + i];
		copy_str(sb, repo);
		copy_field(sb, p->term, p->len);
		strbuf_addch(sb, '\t');
		copy_num(sb, it->id);
		copy_num(sb, p->tf);
		copy_num(sb, p->dl);
		copy_end_row(sb);
	}
}

/* The bytes of v[0..n) (little-endian for floats), in hex, into out
 * (8 n characters); then the code's n bytes (2 n). */
static char *hex_floats(char *out, const float *v, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t j = 0; j < n; j++) {
		uint32_t u;
		memcpy(&u, &v[j], sizeof(u));
		for (int b = 0; b < 4; b++, u >>= 8) {
			*out++ = hex[(u >> 4) & 0xf];
			*out++ = hex[u & 0xf];
		}
	}
	return out;
}

static char *hex_bytes(char *out, const int8_t *p, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	for (size_t j = 0; j < n; j++) {
		*out++ = hex[((uint8_t)p[j]) >> 4];
		*out++ = hex[(uint8_t)p[j] & 0xf];
	}
	return out;
}

/* The chunk's vector, a row (none when it has none). */
static void render_vector(struct strbuf *sb, const char *repo, const struct push *pu,
			  const struct chunk_item *it)
{
	if (!it->vec)
		return;
	copy_str(sb, repo);
	copy_num(sb, it->id);
	/* the code a flat vector file holds (lib/util/vflat.c) */
	int8_t *code = pu->code;
	float scale = _kbx_vflat_encode(it->vec, pu->dim, _kbx_vflat_stride(pu->dim), code);
	char *p = pu->hex;
	memcpy(p, "\\\\x", 3), p += 3;
	p = hex_floats(p, it->vec, pu->dim);
	memcpy(p, "\t\\\\x", 4), p += 4;
	p = hex_floats(p, &scale, 1);
	p = hex_bytes(p, code, pu->dim);
	*p++ = '\n';
	strbuf_add(sb, pu->hex, (size_t)(p - pu->hex));
}

/* What a unit's hash takes of a chunk's vector: its id and its bytes
 * (its row, 5 times as long, is rendered only for a unit copied). */
static void vector_bytes(struct strbuf *sb, const struct chunk_item *it, uint32_t dim)
{
	if (!it->vec)
		return;
	strbuf_add(sb, &it->id, sizeof(it->id));
	strbuf_add(sb, it->vec, dim * sizeof(*it->vec));
}

/* Make the tables unless they are there at this version (checked
 * first, so that a user who may not create them can push once a DBA
 * has); an advisory lock keeps two first pushes from racing. */
static int ensure_schema(struct pg_db *db)
{
	struct kbx_pg_result *r = NULL;
	int st = db->ops->exec(db->conn, "SELECT value FROM kbx.meta WHERE key = 'schema'", 0,
			       NULL, &r, db->err, sizeof(db->err));
	if (st == KBX_PG_OK) {
		const char *v = db->ops->nrows(r) ? db->ops->value(r, 0, 0) : NULL;
		int same = v && !strcmp(v, PUSH_SCHEMA_VERSION);
		if (!same)
			fprintf(stderr, "error: the database '%s' holds kbx tables of schema %s; this kbx writes schema %s\n"
				"hint: upgrade kbx, or have them dropped (DROP SCHEMA kbx CASCADE) and push every repository again\n",
				out_esc(db->masked), v ? out_esc(v) : "(none)", PUSH_SCHEMA_VERSION);
		db->ops->clear(r);
		return same ? 0 : KBX_EXIT_DB_ERROR;
	}
	if (st != KBX_PG_ERROR)
		return pg_db_fail(db, st, "cannot read the kbx tables");
	int rc = pg_db_exec(db, "BEGIN", 0, NULL, NULL, "cannot begin a transaction");
	if (!rc)
		rc = pg_db_exec(db, "SELECT pg_advisory_xact_lock(7710019)", 0, NULL, NULL,
			     "cannot lock the schema");
	for (size_t i = 0; !rc && push_schema[i]; i++)
		rc = pg_db_exec(db, push_schema[i], 0, NULL, NULL, "cannot create the kbx tables");
	if (!rc)
		rc = pg_db_exec(db, "COMMIT", 0, NULL, NULL, "cannot create the kbx tables");
	if (rc)
		fprintf(stderr, "hint: 'kbx push --schema' prints the statements, for one who may run them\n");
	return rc;
}

struct remote_file {
	char *path;
	char *rows_hash;         /* hex */
	int64_t mtime;           /* -1: none */
	int seen;
};

static int remote_cmp(const void *a, const void *b)
{
	return strcmp(((const struct remote_file *)a)->path, ((const struct remote_file *)b)->path);
}

/* ---- the command ---- */


static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct push_stats {
	size_t units, replaced, removed, unchanged;
	size_t nodes, edges, chunks;
	size_t skipped_edges;    /* from a node the index does not hold */
};

/* The module path of the go.mod at the repository's root, or NULL:
 * the file is the repository's, read without following a link and at
 * most 64 KiB of it; a module line that is not one plain word is left
 * out. */
static char *go_module_path(const char *root)
{
	char buf[65536];
	int fd = _kbx_open_beneath(root, "go.mod", O_RDONLY);
	if (fd < 0)
		return NULL;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	for (char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (strncmp(line, "module", 6) || (line[6] != ' ' && line[6] != '\t'))
			continue;
		char *p = line + 7;
		while (*p == ' ' || *p == '\t')
			p++;
		int quoted = *p == '"';
		p += quoted;
		size_t len = 0;
		while (p[len] && (unsigned char)p[len] > ' ' && p[len] != '"' && p[len] != 0x7f)
			len++;
		return len && len < 512 ? strndup(p, len) : NULL;
	}
	return NULL;
}

/* Is name one npm would publish: [@scope/]name, each part of lower-case
 * letters, digits, '-', '.', '_' and '~', not starting with '.' or '_',
 * 214 bytes at most? */
static int npm_name_ok(const char *name, size_t len)
{
	if (!len || len > 214)
		return 0;
	const char *p = name, *end = name + len;
	if (*p == '@') {
		const char *slash = memchr(p, '/', len);
		if (!slash || slash == p + 1)
			return 0;
		for (const char *q = p + 1; q < slash; q++)
			if (!npm_name_char(*q))
				return 0;
		p = slash + 1;
	}
	if (p == end || *p == '.' || *p == '_')
		return 0;
	for (; p < end; p++)
		if (!npm_name_char(*p))
			return 0;
	return 1;
}

/* A package.json "main" as a path of the repository without its
 * extension: "./lib/index.js" is lib/index; NULL for one that leaves the
 * repository or is no plain path. */
static char *npm_main_stem(const char *main, size_t len)
{
	while (len >= 2 && !memcmp(main, "./", 2))
		main += 2, len -= 2;
	while (len && main[len - 1] == '/')
		len--;
	if (!len || *main == '/' || memchr(main, '\0', len) || memchr(main, '\\', len))
		return NULL;
	for (size_t i = 0; i < len;) {
		size_t c = i;
		while (c < len && main[c] != '/')
			c++;
		if (c == i || (c - i == 1 && main[i] == '.') ||
		    (c - i == 2 && !memcmp(main + i, "..", 2)))
			return NULL;
		i = c + 1;
	}
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)main[i] < ' ' || main[i] == 0x7f)
			return NULL;
	int ext = js_extension(main, len);
	return strndup(main, ext > 0 ? len - (size_t)ext : len);
}

/* Add subpath -> the file every string under target names (conditions
 * such as "import" and "require", and arrays of fallbacks, alike). */
static void npm_export_targets(struct push *pu, const char *subpath, const struct kbx_json *t,
			       int depth)
{
	if (!t || depth > 8)
		return;
	if (t->type == KBX_JSON_STRING) {
		char *stem = npm_main_stem(t->str, t->len);
		char *sub = strdup(subpath);
		const char *s1 = stem ? strchr(stem, '*') : NULL, *p1 = strchr(subpath, '*');
		/* a pattern on both sides, one '*' each, or on neither */
		if (!stem || !sub || t->len < 2 || memcmp(t->str, "./", 2) || !s1 != !p1 ||
		    (s1 && (strchr(s1 + 1, '*') || strchr(p1 + 1, '*'))) ||
		    (pu->npm_nexports == pu->npm_aexports &&
		     _kbx_grow((void **)&pu->npm_exports, &pu->npm_aexports, pu->npm_nexports,
			       sizeof(*pu->npm_exports), 8))) {
			free(stem);
			free(sub);
			return;
		}
		pu->npm_exports[pu->npm_nexports].subpath = sub;
		pu->npm_exports[pu->npm_nexports++].stem = stem;
		return;
	}
	for (size_t i = 0; (t->type == KBX_JSON_ARRAY || t->type == KBX_JSON_OBJECT) && i < t->n; i++)
		npm_export_targets(pu, subpath, t->items[i], depth + 1);
}

/*
 * package.json's "exports": a string or conditions (the package's "."),
 * or an object of subpaths ("./wrap": ...).  Returns 1 when there are
 * exports but none names a file of the repository.
 */
static int npm_exports(struct push *pu, const struct kbx_json *x)
{
	int subpaths = x->type == KBX_JSON_OBJECT && x->n && x->keylens[0] && x->keys[0][0] == '.';
	pu->npm_has_exports = 1;
	if (!subpaths) {
		npm_export_targets(pu, ".", x, 0);
	} else {
		for (size_t i = 0; i < x->n; i++) {
			const char *k = x->keys[i];
			if (x->keylens[i] != strlen(k) ||
			    (strcmp(k, ".") && strncmp(k, "./", 2)) || strstr(k, ".."))
				continue;
			npm_export_targets(pu, k, x->items[i], 0);
		}
	}
	return !pu->npm_nexports;
}

/* The "name" (and "main") of the package.json at the repository's root,
 * read as go.mod is: the repository's file, without following a link,
 * at most 1 MiB.  None there is no package; one that cannot be used is
 * a warning, and no npm: links. */
static int npm_package(const char *root, struct push *pu)
{
	struct strbuf sb = STRBUF_INIT;
	struct kbx_error err = KBX_ERROR_INIT;
	struct kbx_json *v = NULL;
	const char *why = NULL;
	char whybuf[sizeof(err.msg) + 32];
	int rr = strbuf_read_regular_at(&sb, root, "package.json", 1 << 20);
	if (rr == -1 && errno == ENOENT) {
		strbuf_release(&sb);
		return 0;
	}
	if (rr == -1 && errno == ELOOP)
		why = "it is a symbolic link, which kbx never follows";
	else if (rr == STRBUF_NOT_REGULAR)
		why = "it is not a regular file";
	else if (rr == STRBUF_TOO_BIG)
		why = "it is larger than 1 MiB";
	else if (rr)
		why = strerror(errno);
	else if (kbx_json_parse(strbuf_str(&sb), sb.len, &v, &err))
		why = err.status == KBX_ERR_NOMEM ? "out of memory" :
		      (snprintf(whybuf, sizeof(whybuf), "not valid JSON (%s)", err.msg), whybuf);
	else if (v->type != KBX_JSON_OBJECT)
		why = "it is no JSON object";
	const struct kbx_json *name = why ? NULL : kbx_json_get(v, "name");
	const struct kbx_json *mainv = why ? NULL : kbx_json_get(v, "main");
	if (!why && (!name || name->type != KBX_JSON_STRING))
		why = "it has no \"name\" string";
	else if (!why && !npm_name_ok(name->str, name->len))
		why = "its \"name\" is not a package name npm would take";
	const struct kbx_json *exports = why ? NULL : kbx_json_get(v, "exports");
	if (!why) {
		pu->npm_name = strndup(name->str, name->len);
		if (exports && npm_exports(pu, exports))
			fprintf(stderr, "warning: package.json: its \"exports\" name no file inside "
				"the repository: its definitions get no npm: links\n");
		if (!mainv)
			pu->npm_main = strdup("index");
		else if (mainv->type == KBX_JSON_STRING)
			pu->npm_main = npm_main_stem(mainv->str, mainv->len);
		if (!pu->npm_name || (!mainv && !pu->npm_main))
			pu->failed = 1;
		else if (!pu->npm_main)
			fprintf(stderr, "warning: package.json: its \"main\" is no path inside the "
				"repository: only the files' own paths name its definitions\n");
	} else {
		fprintf(stderr, "warning: package.json: %s: its JavaScript and TypeScript "
			"definitions get no npm: links\n", why);
	}
	kbx_json_free(v);
	strbuf_release(&sb);
	return pu->failed;
}

/* Skip white space and comments from p; the first byte after them. */
static const char *java_skip(const char *p, const char *end)
{
	while (p < end) {
		if (isspace((unsigned char)*p)) {
			p++;
		} else if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
		} else if (end - p >= 2 && p[0] == '/' && p[1] == '*') {
			const char *close = memmem(p + 2, (size_t)(end - p - 2), "*/", 2);
			p = close ? close + 2 : end;
		} else {
			break;
		}
	}
	return p;
}

static int java_word_char(int ch)
{
	return isalnum(ch) || ch == '_' || ch == '$';
}

/* The package a Java file declares ("com.acme.text"), or NULL for none
 * (the unnamed package) or one kbx does not read (a name outside ASCII).
 * Annotations before it (package-info.java) are skipped. */
static char *java_package_of(const char *p, size_t len)
{
	const char *end = p + len;
	for (;;) {
		p = java_skip(p, end);
		if (p == end || *p != '@')
			break;
		for (p++; p < end && (java_word_char((unsigned char)*p) || *p == '.'); p++)
			;
		p = java_skip(p, end);
		if (p < end && *p == '(') {
			int depth = 0;
			for (; p < end; p++) {
				depth += *p == '(';
				if (*p == ')' && !--depth) {
					p++;
					break;
				}
			}
		}
	}
	if (end - p < 8 || memcmp(p, "package", 7) || java_word_char((unsigned char)p[7]))
		return NULL;
	struct strbuf pkg = STRBUF_INIT;
	p += 7;
	for (;;) {
		p = java_skip(p, end);
		const char *w = p;
		while (p < end && java_word_char((unsigned char)*p))
			p++;
		if (p == w || isdigit((unsigned char)*w))
			break;
		strbuf_add(&pkg, w, (size_t)(p - w));
		p = java_skip(p, end);
		if (p < end && *p == ';' && !pkg.failed && pkg.len < 1024)
			return strbuf_detach(&pkg, NULL);
		if (p == end || *p != '.')
			break;
		strbuf_addch(&pkg, '.');
		p++;
	}
	strbuf_release(&pkg);
	return NULL;
}

/* The package of each Java file, read from the file again when its
 * content is still what the index read (else it is counted stale). */
static void java_packages(const char *root, struct push *pu)
{
	struct strbuf src = STRBUF_INIT;
	for (size_t i = 0; i < pu->nfiles; i++) {
		struct file_item *f = &pu->files[i];
		const char *lang = kbx_lang_str(f->lang);
		unsigned char hash[16];
		if (!lang || strcmp(lang, "java") || !f->size)
			continue;
		strbuf_reset(&src);
		if (f->size > SIZE_MAX / 2 ||
		    strbuf_read_regular_at(&src, root, f->path, (size_t)f->size) || src.len != f->size) {
			pu->java_stale++;
			continue;
		}
		_kbx_hash128(src.buf, src.len, hash);
		if (memcmp(hash, f->hash, sizeof(hash))) {
			pu->java_stale++;
			continue;
		}
		f->java_package = java_package_of(src.buf, src.len);
	}
	strbuf_release(&src);
}

/* The chunks' vectors, when the index's are current and every chunk
 * has one: a search of the database then scores what a search of the
 * index does.  Otherwise none (kbx --db search says why). */
static kbx_status_t read_vectors(struct kbx_ctx *ctx, struct push *pu, struct kbx_error *err)
{
	struct kbx_search_info si;
	uint64_t missing = 0;
	kbx_status_t st = kbx_search_info(ctx->store, &si, err);
	if (st || !si.chunks)
		return st;
	const char *why = NULL;
	if (si.vector_state != 1) {
		why = si.vector_state == 0 ? "the index has none" : "the index's are stale or unreadable";
	} else {
		st = kbx_vectors_walk(ctx->store, pu->embedding, sizeof(pu->embedding), take_vector,
				      pu, &missing, err);
		if (st || pu->failed)
			return st;
		if (missing)
			why = "some chunks have none";
		else if (!pu->dim || pu->nvecs != pu->nchunks)
			why = "they are not all of one dimension";
	}
	if (why) {
		fprintf(stderr, "warning: no vectors pushed: %s; 'kbx index' makes them, then push again\n",
			why);
		pu->nvecs = 0;
		pu->embedding[0] = '\0';
	}
	if (pu->nvecs && (!(pu->code = malloc(_kbx_vflat_stride(pu->dim))) ||
			  !(pu->hex = malloc(10 * (size_t)pu->dim + 32)))) {
		pu->failed = 1;
		return KBX_OK;
	}
	attach_vectors(pu);
	return KBX_OK;
}

/* Read the whole index and group it by unit into *refs (sorted). */
static int read_local(struct kbx_ctx *ctx, struct push *pu, struct unit_ref **refs_out,
		      size_t *nrefs_out, struct push_stats *ps)
{
	struct kbx_error err = KBX_ERROR_INIT;
	const char *root = kbx_store_root(ctx->store);
	pu->go_module = go_module_path(root);
	if (npm_package(root, pu)) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	kbx_status_t st = kbx_files_walk(ctx->store, take_file, pu, &err);
	if (!st)
		st = kbx_nodes_walk(ctx->store, take_node, pu, &err);
	if (!st)
		st = kbx_edges_walk_all(ctx->store, take_edge, pu, &err);
	if (!st)
		st = kbx_chunks_walk(ctx->store, take_chunk, pu, &err);
	if (!st)
		st = kbx_postings_walk(ctx->store, take_posting, pu, &err);
	if (!st && !pu->failed)
		attach_postings(pu);
	if (!st && !pu->failed)
		st = read_vectors(ctx, pu, &err);
	if (st)
		return die_status(&err);
	if (!pu->failed)
		java_packages(root, pu);
	if (pu->java_stale)
		fprintf(stderr, "warning: %zu Java files changed since the index read them: their definitions get no java: links until 'kbx index'\n",
			pu->java_stale);
	size_t n = pu->nfiles + pu->nnodes + pu->nedges + pu->nchunks, k = 0;
	struct unit_ref *refs = pu->failed ? NULL : malloc((n ? n : 1) * sizeof(*refs));
	if (!refs) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < pu->nfiles; i++)
		refs[k++] = (struct unit_ref){ pu->files[i].path, strlen(pu->files[i].path), 0, i };
	for (size_t i = 0; i < pu->nnodes; i++) {
		const struct kbx_node *nd = &pu->nodes[i];
		refs[k++] = (struct unit_ref){ nd->path ? nd->path : "", nd->path ? nd->path_len : 0,
					       1, i };
	}
	for (size_t i = 0; i < pu->nedges; i++) {
		const struct kbx_node *src = node_by_id(pu, pu->edges[i].e.src);
		if (!src) {
			ps->skipped_edges++;
			continue;
		}
		refs[k++] = (struct unit_ref){ src->path ? src->path : "", src->path ? src->path_len : 0,
					       2, i };
	}
	for (size_t i = 0; i < pu->nchunks; i++) {
		const char *path = pu->chunks[i].c.path ? pu->chunks[i].c.path : "";
		refs[k++] = (struct unit_ref){ path, strlen(path), 3, i };
	}
	qsort(refs, k, sizeof(*refs), unit_ref_cmp);
	*refs_out = refs;
	*nrefs_out = k;
	return 0;
}

/* The remote files of the repository, sorted by path. */
static int read_remote(struct pg_db *db, const char *repo, struct remote_file **out, size_t *nout)
{
	struct kbx_pg_result *r;
	const char *params[] = { repo };
	int rc = pg_db_exec(db, "SELECT path, encode(rows_hash, 'hex'), mtime FROM kbx.files WHERE repo = $1",
			 1, params, &r, "cannot read the files pushed before");
	if (rc)
		return rc;
	size_t n = db->ops->nrows(r);
	struct remote_file *rf = calloc(n ? n : 1, sizeof(*rf));
	for (size_t i = 0; rf && i < n; i++) {
		rf[i].path = strdup(db->ops->value(r, i, 0));
		rf[i].rows_hash = strdup(db->ops->value(r, i, 1));
		const char *mt = db->ops->value(r, i, 2);
		rf[i].mtime = mt ? strtoll(mt, NULL, 10) : -1;
		if (!rf[i].path || !rf[i].rows_hash) {
			fprintf(stderr, "fatal: out of memory\n");
			db->ops->clear(r);
			return KBX_EXIT_INTERNAL;
		}
	}
	db->ops->clear(r);
	if (!rf) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	qsort(rf, n, sizeof(*rf), remote_cmp);
	*out = rf;
	*nout = n;
	return 0;
}

/* The unit's path as the database holds it (copy_field's UTF-8). */
static void unit_key(struct strbuf *sb, const char *unit, size_t len)
{
	strbuf_reset(sb);
	copy_field(sb, unit, len);
	/* unescape COPY's escapes: the key is compared with the text the
	 * database returns */
	size_t w = 0;
	for (size_t r = 0; r < sb->len; r++) {
		char c = sb->buf[r];
		if (c == '\\' && r + 1 < sb->len) {
			char e = sb->buf[++r];
			c = e == 't' ? '\t' : e == 'n' ? '\n' : e == 'r' ? '\r' : e;
		}
		sb->buf[w++] = c;
	}
	strbuf_setlen(sb, w);
}

struct copy_bufs {
	struct strbuf files, nodes, edges, chunks, postings, vectors;
	struct strbuf gone;      /* array literal of the paths deleted */
	int gone_none;           /* the unit "" is among them */
	/* the files whose rows are the same but whose time is not: array
	 * literals of their paths and times */
	struct strbuf touched, times;
};

/* Render every unit, compare with the remote rows, and collect the rows
 * to copy and the paths to delete. */
static int plan_push(const char *repo, struct push *pu, const struct unit_ref *refs,
		     size_t nrefs, struct remote_file *rf, size_t nrf, struct copy_bufs *cb,
		     struct push_stats *ps)
{
	struct strbuf key = STRBUF_INIT, frow = STRBUF_INIT, rows = STRBUF_INIT, prows = STRBUF_INIT;
	struct strbuf vrows = STRBUF_INIT;
	for (size_t i = 0; i < nrefs;) {
		size_t j = i;
		const struct file_item *file = NULL;
		strbuf_reset(&frow);
		strbuf_reset(&rows);
		strbuf_reset(&prows);
		strbuf_reset(&vrows);
		size_t nn = 0, ne = 0, nc = 0;
		for (; j < nrefs && refs[j].ulen == refs[i].ulen &&
		       !memcmp(refs[j].unit, refs[i].unit, refs[i].ulen); j++) {
			const struct unit_ref *u = &refs[j];
			switch (u->table) {
			case 0: file = &pu->files[u->idx]; break;
			case 1: render_node(&rows, repo, pu, &pu->nodes[u->idx], file); nn++; break;
			case 2: render_edge(&rows, repo, pu, &pu->edges[u->idx]); ne++; break;
			case 3:
				render_chunk(&rows, repo, pu, &pu->chunks[u->idx]);
				render_postings(&prows, repo, pu, &pu->chunks[u->idx]);
				vector_bytes(&vrows, &pu->chunks[u->idx], pu->dim);
				nc++;
				break;
			}
		}
		unit_key(&key, refs[i].unit, refs[i].ulen);
		const char *kstr = strbuf_str(&key);
		if (file) {
			render_file(&frow, repo, file);
		} else {
			copy_str(&frow, repo);
			copy_str(&frow, kstr);
			strbuf_addstr(&frow, "\\N\t\\N\t");
		}
		struct _kbx_sha256 h;
		unsigned char digest[KBX_SHA256_LEN];
		char hex[2 * KBX_SHA256_LEN + 1];
		_kbx_sha256_init(&h);
		_kbx_sha256_add(&h, frow.buf, frow.len);
		_kbx_sha256_add(&h, rows.buf, rows.len);
		_kbx_sha256_add(&h, prows.buf, prows.len);
		_kbx_sha256_add(&h, vrows.buf, vrows.len);
		_kbx_sha256_final(&h, digest);
		for (size_t d = 0; d < KBX_SHA256_LEN; d++)
			snprintf(hex + 2 * d, 3, "%02x", digest[d]);
		struct remote_file probe = { (char *)kstr, NULL, 0, 0 };
		struct remote_file *old = nrf ? bsearch(&probe, rf, nrf, sizeof(*rf), remote_cmp) : NULL;
		if (old)
			old->seen = 1;
		ps->units++;
		ps->nodes += nn;
		ps->edges += ne;
		ps->chunks += nc;
		if (old && !strcmp(old->rows_hash, hex)) {
			ps->unchanged++;
			if (file && old->mtime != file->mtime) {
				pg_array_add(&cb->touched, kstr, strlen(kstr));
				strbuf_addf(&cb->times, "%s%lld", cb->times.len ? "," : "{",
					    (long long)file->mtime);
			}
		} else {
			if (old) {
				pg_array_add(&cb->gone, kstr, strlen(kstr));
				cb->gone_none |= !*kstr;
			}
			strbuf_add(&cb->files, frow.buf, frow.len);
			copy_bytea(&cb->files, digest, sizeof(digest));
			if (file)
				strbuf_addf(&cb->files, "%lld\t", (long long)file->mtime);
			else
				strbuf_addstr(&cb->files, "\\N\t");
			copy_end_row(&cb->files);
			/* the rows go to their tables: split by the order
			 * they were rendered in (nodes, edges, chunks) */
			const char *p = rows.buf;
			for (size_t t = 0; t < nn + ne + nc; t++) {
				const char *nl = memchr(p, '\n', (size_t)(rows.buf + rows.len - p));
				struct strbuf *dst = t < nn ? &cb->nodes : t < nn + ne ? &cb->edges
									     : &cb->chunks;
				strbuf_add(dst, p, (size_t)(nl + 1 - p));
				p = nl + 1;
			}
			strbuf_add(&cb->postings, prows.buf, prows.len);
			for (size_t t = i; t < j; t++)
				if (refs[t].table == 3)
					render_vector(&cb->vectors, repo, pu, &pu->chunks[refs[t].idx]);
			ps->replaced++;
		}
		i = j;
	}
	for (size_t i = 0; i < nrf; i++)
		if (!rf[i].seen) {
			pg_array_add(&cb->gone, rf[i].path, strlen(rf[i].path));
			cb->gone_none |= !*rf[i].path;
			ps->removed++;
		}
	int failed = key.failed || frow.failed || rows.failed || cb->files.failed ||
		     cb->nodes.failed || cb->edges.failed || cb->chunks.failed || cb->gone.failed ||
		     prows.failed || cb->postings.failed || vrows.failed || cb->vectors.failed ||
		     cb->touched.failed || cb->times.failed;
	strbuf_release(&key);
	strbuf_release(&frow);
	strbuf_release(&rows);
	strbuf_release(&prows);
	strbuf_release(&vrows);
	if (failed) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	pg_array_end(&cb->gone);
	if (cb->touched.len) {
		pg_array_end(&cb->touched);
		strbuf_addch(&cb->times, '}');
	}
	return 0;
}

/* The transaction: lock the repository's row, compare, delete, copy,
 * record the generation. */
static int push_transaction(struct kbx_ctx *ctx, struct pg_db *db, const char *name,
			    int quiet)
{
	struct kbx_store_info info;
	struct kbx_error err = KBX_ERROR_INIT;
	if (kbx_store_info(ctx->store, &info, &err))
		return die_status(&err);
	double t0 = now_seconds();
	struct push pu = { 0 };
	struct unit_ref *refs = NULL;
	size_t nrefs = 0, nrf = 0;
	struct remote_file *rf = NULL;
	struct copy_bufs cb = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT,
				STRBUF_INIT, STRBUF_INIT, 0, STRBUF_INIT, STRBUF_INIT };
	struct push_stats ps = { 0 };
	char repo[32], gen[32];
	struct kbx_pg_result *r = NULL;
	const char *name_param[] = { name };
	int rc = pg_db_exec(db, "BEGIN", 0, NULL, NULL, "cannot begin a transaction");
	if (!rc)
		rc = pg_db_exec(db, "INSERT INTO kbx.repos (name) VALUES ($1) ON CONFLICT (name) DO NOTHING",
			     1, name_param, NULL, "cannot add the repository");
	if (!rc)
		rc = pg_db_exec(db, "SELECT id FROM kbx.repos WHERE name = $1 FOR UPDATE", 1, name_param,
			     &r, "cannot lock the repository's row");
	if (!rc) {
		snprintf(repo, sizeof(repo), "%s", db->ops->nrows(r) ? db->ops->value(r, 0, 0) : "");
		db->ops->clear(r);
		rc = read_remote(db, repo, &rf, &nrf);
	}
	if (!rc)
		rc = read_local(ctx, &pu, &refs, &nrefs, &ps);
	if (!rc)
		rc = plan_push(repo, &pu, refs, nrefs, rf, nrf, &cb, &ps);
	if (!rc && ps.skipped_edges)
		fprintf(stderr, "warning: %zu edges from nodes the index does not hold were left out; 'kbx index --rebuild' makes the index whole again\n",
			ps.skipped_edges);
	if (!rc && (ps.replaced || ps.removed)) {
		const char *del[] = { repo, cb.gone.buf, cb.gone_none ? "t" : "f" };
		rc = pg_db_exec(db,
			     "DELETE FROM kbx.edges e USING kbx.nodes n WHERE e.repo = $1 AND n.repo = $1 "
			     "AND e.src = n.id AND (n.path = ANY($2::text[]) OR ($3 AND n.path IS NULL))",
			     3, del, NULL, "cannot delete the edges of changed files");
		if (!rc)
			rc = pg_db_exec(db,
				     "DELETE FROM kbx.nodes WHERE repo = $1 "
				     "AND (path = ANY($2::text[]) OR ($3 AND path IS NULL))",
				     3, del, NULL, "cannot delete the nodes of changed files");
		if (!rc)
			rc = pg_db_exec(db,
				     "DELETE FROM kbx.postings p USING kbx.chunks c WHERE p.repo = $1 "
				     "AND c.repo = $1 AND p.chunk = c.id AND c.path = ANY($2::text[])",
				     2, del, NULL, "cannot delete the postings of changed files");
		if (!rc)
			rc = pg_db_exec(db,
				     "DELETE FROM kbx.vectors v USING kbx.chunks c WHERE v.repo = $1 "
				     "AND c.repo = $1 AND v.chunk = c.id AND c.path = ANY($2::text[])",
				     2, del, NULL, "cannot delete the vectors of changed files");
		if (!rc)
			rc = pg_db_exec(db, "DELETE FROM kbx.chunks WHERE repo = $1 AND path = ANY($2::text[])",
				     2, del, NULL, "cannot delete the chunks of changed files");
		if (!rc)
			rc = pg_db_exec(db, "DELETE FROM kbx.files WHERE repo = $1 AND path = ANY($2::text[])",
				     2, del, NULL, "cannot delete the changed files");
		if (!rc)
			rc = pg_db_copy(db, "COPY kbx.files (repo, path, hash, lang, rows_hash, mtime) FROM STDIN",
				     &cb.files, "cannot copy the files");
		if (!rc)
			rc = pg_db_copy(db, "COPY kbx.nodes (repo, id, kind, lang, cid, name, qual, path, "
				     "line, col, end_line, parent, flags, link) FROM STDIN",
				     &cb.nodes, "cannot copy the nodes");
		if (!rc)
			rc = pg_db_copy(db, "COPY kbx.edges (repo, src, kind, dst, confidence, via, "
				     "candidates, site_lines, site_cols, site_confs) FROM STDIN",
				     &cb.edges, "cannot copy the edges");
		if (!rc)
			rc = pg_db_copy(db, "COPY kbx.chunks (repo, id, type, kind, node, doc_id, path, "
				     "line, end_line, title, heading, lang, seq, tags, category, severity, "
				     "pattern, pattern_line, cause, fix, related, text) FROM STDIN",
				     &cb.chunks, "cannot copy the chunks");
		if (!rc)
			rc = pg_db_copy(db, "COPY kbx.postings (repo, term, chunk, tf, len) FROM STDIN",
				     &cb.postings, "cannot copy the postings");
		if (!rc)
			rc = pg_db_copy(db, "COPY kbx.vectors (repo, chunk, vec, code) FROM STDIN",
				     &cb.vectors, "cannot copy the vectors");
	}
	if (!rc && cb.touched.len) {
		const char *tp[] = { repo, cb.touched.buf, cb.times.buf };
		rc = pg_db_exec(db, "UPDATE kbx.files f SET mtime = t.m FROM unnest($2::text[], "
			     "$3::bigint[]) AS t(p, m) WHERE f.repo = $1 AND f.path = t.p",
			     3, tp, NULL, "cannot record the files' times");
	}
	if (!rc) {
		char nf[32], nn[32], ne[32], nc[32], nt[32];
		struct kbx_search_info si;
		if (kbx_search_info(ctx->store, &si, &err))
			rc = die_status(&err);
		snprintf(gen, sizeof(gen), "%llu", (unsigned long long)info.generation);
		snprintf(nf, sizeof(nf), "%zu", pu.nfiles);
		snprintf(nn, sizeof(nn), "%zu", ps.nodes);
		snprintf(ne, sizeof(ne), "%zu", ps.edges);
		snprintf(nc, sizeof(nc), "%zu", ps.chunks);
		snprintf(nt, sizeof(nt), "%llu", rc ? 0ULL : (unsigned long long)si.chunk_tokens);
		const char *up[] = { repo, gen, nf, nn, ne, nc, nt,
				     pu.embedding[0] ? pu.embedding : NULL };
		if (!rc)
			rc = pg_db_exec(db,
				     "UPDATE kbx.repos SET generation = $2, pushed_at = now(), files = $3, "
				     "nodes = $4, edges = $5, chunks = $6, chunk_tokens = $7, "
				     "embedding = $8 WHERE id = $1",
				     8, up, NULL, "cannot record the generation");
	}
	if (!rc)
		rc = pg_db_exec(db, "COMMIT", 0, NULL, NULL, "cannot commit the push");
	if (!rc && !quiet)
		printf("pushed '%s' generation %s to '%s': %zu indexed files; paths: %zu copied, "
		       "%zu deleted, %zu unchanged; %zu nodes, %zu edges, %zu chunks in %.2f s\n",
		       out_esc(name), gen, out_esc(db->masked), pu.nfiles,
		       ps.replaced, ps.removed, ps.unchanged, ps.nodes, ps.edges, ps.chunks,
		       now_seconds() - t0);
	for (size_t i = 0; i < nrf; i++) {
		free(rf[i].path);
		free(rf[i].rows_hash);
	}
	free(rf);
	free(refs);
	push_release(&pu);
	strbuf_release(&cb.files);
	strbuf_release(&cb.nodes);
	strbuf_release(&cb.edges);
	strbuf_release(&cb.chunks);
	strbuf_release(&cb.postings);
	strbuf_release(&cb.vectors);
	strbuf_release(&cb.gone);
	strbuf_release(&cb.touched);
	strbuf_release(&cb.times);
	return rc;
}

int cmd_push(int argc, const char **argv, struct kbx_ctx *ctx)
{
	const char *db_opt = NULL, *name_opt = NULL;
	int schema = 0, quiet = 0;
	struct option opts[] = {
		OPT_STRING_F(0, "db", &db_opt, "URL",
			     "the database: a postgresql:// URL or libpq's key=value string"),
		OPT_STRING_F(0, "name", &name_opt, "NAME",
			     "the repository's name in the database (default: its name in 'kbx repos', else its directory's)"),
		OPT_BOOL_F(0, "schema", &schema, "print the tables' DDL and exit"),
		OPT_BOOL_F('q', "quiet", &quiet, "print nothing when the push succeeds"),
		OPT_REPO_F(),
		OPT_END_F(),
	};
	int nargs = parse_options(argc, argv, opts, push_usage);
	if (nargs < 0)
		return KBX_EXIT_USAGE;
	if (nargs) {
		fprintf(stderr, "error: 'push' takes no arguments\n");
		return KBX_EXIT_USAGE;
	}
	if (schema) {
		for (size_t i = 0; push_schema[i]; i++)
			printf("%s;\n\n", push_schema[i]);
		return fflush(stdout) || ferror(stdout) ? KBX_EXIT_IO : 0;
	}
	const char *url = pg_database_url(ctx, db_opt);
	if (!url) {
		fprintf(stderr, "error: no database to push to\n"
			"hint: give --db=postgresql://USER@HOST/DB, set KBX_DATABASE_URL, or 'kbx config --user push.database URL'\n");
		return KBX_EXIT_USAGE;
	}
	/* --repo among the options, as for a query (the dispatcher looks
	 * for it only before the command, since --schema needs no index) */
	const char *repo = NULL;
	int all_repos = 0;
	int rc = repo_scan_args(argc, argv, ctx->repo_opt, &repo, &all_repos);
	if (!rc && all_repos) {
		fprintf(stderr, "error: 'push' takes one repository: run it in each, or give --repo=NAME\n");
		rc = KBX_EXIT_USAGE;
	}
	if (!rc && repo && repo != ctx->repo_opt)
		rc = repo_select(ctx, repo);
	if (!rc)
		rc = setup_store(ctx, RUN_NEEDS_INDEX, 0);
	if (rc)
		return rc;
	char *name = push_repository_name(ctx, name_opt);
	const char *why;
	if (!name) {
		fprintf(stderr, "fatal: out of memory\n");
		return KBX_EXIT_INTERNAL;
	}
	if (!kbx_repo_name_ok(name, &why)) {
		fprintf(stderr, "error: '%s' cannot name a repository: it %s\n"
			"hint: give another with --name=NAME\n", out_esc(name), why);
		free(name);
		return KBX_EXIT_USAGE;
	}

	struct pg_db db;
	rc = pg_db_open(&db, url);
	if (!rc)
		rc = ensure_schema(&db);
	if (!rc)
		rc = push_transaction(ctx, &db, name, quiet);
	pg_db_close(&db);
	free(name);
	if (!rc && (fflush(stdout) || ferror(stdout)))
		rc = KBX_EXIT_IO;
	return rc;
}
