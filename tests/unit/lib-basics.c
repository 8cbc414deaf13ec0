/*
 * Unit tests of the library's small pieces with logic worth pinning: key
 * encoding and its order, record round trips, path joining, the edit
 * distance behind "did you mean", the id set, and the refs blob that
 * incremental indexing depends on.  Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"
#include "graph/graph.h"
#include "search/search.h"
#include "text/tokenize.h"
#include "util/util.h"
#include "tap.h"

static void test_edge_keys(void)
{
	unsigned char a[KBX_EDGE_KEY_LEN], b[KBX_EDGE_KEY_LEN], c[KBX_EDGE_KEY_LEN];
	_kbx_edge_key(a, 1, KBX_EDGE_CALLS, 0xffffffffu);
	_kbx_edge_key(b, 2, KBX_EDGE_DEFINES, 0);
	_kbx_edge_key(c, 1, KBX_EDGE_IMPORTS, 0);
	ok(memcmp(a, b, sizeof(a)) < 0, "edge keys sort by source first");
	ok(memcmp(a, c, sizeof(a)) < 0, "then by kind, so one kind of one node is one range");
	_kbx_edge_key(a, 0x01020304, 3, 0x0a0b0c0d);
	ok(a[0] == 1 && a[3] == 4 && a[4] == 3 && a[5] == 0x0a && a[8] == 0x0d,
	   "edge keys are big-endian source, kind byte, big-endian target");
	ok(_kbx_get_u32(a + 5) == 0x0a0b0c0d, "u32 round trip");
}

/* LMDB's default order: the common bytes, then the shorter first. */
static int default_order(const MDB_val *a, const MDB_val *b)
{
	size_t n = a->mv_size < b->mv_size ? a->mv_size : b->mv_size;
	int c = n ? memcmp(a->mv_data, b->mv_data, n) : 0;
	if (c)
		return c < 0 ? -1 : 1;
	return a->mv_size < b->mv_size ? -1 : a->mv_size > b->mv_size;
}

static int sign(int v)
{
	return v < 0 ? -1 : v > 0;
}

/* The store's comparisons of id and edge keys (set on LMDB for speed)
 * must order every key as the default does: an index written by a kbx
 * without them is read by one with them, and back. */
static void test_key_order(void)
{
	unsigned char ka[12], kb[12];
	unsigned seed = 12345;
	int same_id = 1, same_edge = 1;

	for (int t = 0; t < 200000; t++) {
		static const size_t lens[] = { 4, 4, 4, 9, 9, 9, 0, 3, 5, 8, 10 };
		MDB_val a = { 0, ka }, b = { 0, kb };
		seed = seed * 1103515245 + 12345;
		a.mv_size = lens[(seed >> 16) % 11];
		seed = seed * 1103515245 + 12345;
		b.mv_size = (seed >> 16) & 3 ? a.mv_size : lens[(seed >> 20) % 11];
		for (size_t i = 0; i < sizeof(ka); i++) {
			seed = seed * 1103515245 + 12345;
			/* few byte values, so that long common prefixes occur */
			ka[i] = (unsigned char)((seed >> 16) % 3 ? (seed >> 24) & 1 : seed >> 24);
			seed = seed * 1103515245 + 12345;
			kb[i] = (seed >> 16) % 4 ? ka[i] : (unsigned char)(seed >> 24);
		}
		int want = default_order(&a, &b);
		if (sign(_kbx_cmp_id_key(&a, &b)) != want)
			same_id = 0;
		if (sign(_kbx_cmp_edge_key(&a, &b)) != want)
			same_edge = 0;
	}
	ok(same_id, "id keys compare in LMDB's default order, whatever their length");
	ok(same_edge, "edge keys compare in LMDB's default order, whatever their length");
}

static void test_node_record(void)
{
	struct kbx_node n = { 0 }, d;
	struct strbuf sb = STRBUF_INIT;
	n.id = 7;
	n.kind = KBX_KIND_METHOD;
	n.lang = 3;
	n.cid = "src/a.py#Foo.process";
	n.file = 2;
	n.parent = 5;
	n.line = 10;
	n.col = 5;
	n.end_line = 20;
	_kbx_node_encode(&sb, &n);
	ok(_kbx_node_decode(sb.buf, sb.len, 7, &d) == KBX_OK, "node record decodes");
	ok(d.kind == KBX_KIND_METHOD && d.lang == 3 && d.file == 2 && d.parent == 5 &&
		   d.line == 10 && d.col == 5 && d.end_line == 20,
	   "node header round trip");
	ok(!strcmp(d.name, "process") && !strcmp(d.qual, "Foo.process") && d.path_len == 8 &&
		   !strncmp(d.path, "src/a.py", d.path_len),
	   "name, qualified name and path come from the canonical id");
	ok(_kbx_node_decode(sb.buf, sb.len - 1, 7, &d) == KBX_ERR_CORRUPT,
	   "a record without its terminating NUL is corrupt");
	ok(_kbx_node_decode(sb.buf, 3, 7, &d) == KBX_ERR_CORRUPT, "a short record is corrupt");
	strbuf_release(&sb);

	n.kind = KBX_KIND_EXTERNAL;
	n.cid = "extern:os.path.join";
	_kbx_node_encode(&sb, &n);
	_kbx_node_decode(sb.buf, sb.len, 8, &d);
	ok(!strcmp(d.name, "join") && !strcmp(d.qual, "os.path.join") && !d.path,
	   "an external's name is its last component and it has no path");
	strbuf_release(&sb);
	n.kind = KBX_KIND_FILE;
	n.cid = "lib/x/y.c";
	_kbx_node_encode(&sb, &n);
	_kbx_node_decode(sb.buf, sb.len, 9, &d);
	ok(!strcmp(d.name, "y.c") && d.path_len == 9, "a file's name is its base name");
	strbuf_release(&sb);
}

static void test_edge_value(void)
{
	struct _kbx_edge_val v = { 0 }, d;
	struct strbuf sb = STRBUF_INIT;
	v.confidence = KBX_CONF_AMBIGUOUS;
	v.via = KBX_VIA_NAME;
	v.ncandidates = 3;
	v.nsites = 2;
	v.sites[0].line = 4;
	v.sites[0].col = 9;
	v.sites[1].line = 12;
	v.sites[1].col = 1;
	v.sites[1].confidence = KBX_CONF_UNRESOLVED;
	_kbx_edge_val_encode(&sb, &v);
	ok(_kbx_edge_val_decode(sb.buf, sb.len, &d) == KBX_OK && d.confidence == v.confidence &&
		   d.via == v.via && d.ncandidates == 3 && d.nsites == 2 && d.sites[1].line == 12,
	   "edge value round trip");
	ok(d.sites[0].confidence == KBX_CONF_AMBIGUOUS && d.sites[1].confidence == KBX_CONF_UNRESOLVED,
	   "each site keeps its own confidence; an unset one is the edge's");
	sb.buf[10 + 8] = 7;
	ok(_kbx_edge_val_decode(sb.buf, sb.len, &d) == KBX_ERR_CORRUPT,
	   "a site's confidence out of range is corrupt");
	sb.buf[10 + 8] = KBX_CONF_AMBIGUOUS;
	ok(_kbx_edge_val_decode(sb.buf, sb.len - 1, &d) == KBX_ERR_CORRUPT,
	   "a truncated edge value is corrupt");
	strbuf_release(&sb);
}

static void test_file_record(void)
{
	struct _kbx_file_rec r = { 0 }, d;
	unsigned char buf[KBX_FILE_REC_LEN];
	r.id = 42;
	r.lang = 5;
	r.size = 1ull << 33;
	r.mtime_ns = 1700000000123456789ll;
	memset(r.hash, 0xab, 16);
	_kbx_file_rec_encode(buf, &r);
	ok(_kbx_file_rec_decode(buf, sizeof(buf), &d) == KBX_OK && d.id == 42 && d.lang == 5 &&
		   d.size == r.size && d.mtime_ns == r.mtime_ns && !memcmp(d.hash, r.hash, 16),
	   "file record round trip");
}

static void test_path_join(void)
{
	char out[256];
	ok(_kbx_path_join(out, sizeof(out), "src/a", "../b/c.h") == 0 && !strcmp(out, "src/b/c.h"),
	   "join climbs with ..");
	ok(_kbx_path_join(out, sizeof(out), "", "./x//y/./z.py") == 0 && !strcmp(out, "x/y/z.py"),
	   "join drops . and empty components");
	ok(_kbx_path_join(out, sizeof(out), "a", "../../x") == -1,
	   "join refuses to climb above the root");
	ok(_kbx_path_join(out, 4, "abc", "defgh") == -1, "join refuses what does not fit");
	_kbx_path_dirname(out, sizeof(out), "src/pkg/a.py");
	ok(!strcmp(out, "src/pkg"), "dirname of a nested path");
	_kbx_path_dirname(out, sizeof(out), "a.py");
	ok(!strcmp(out, ""), "dirname of a top-level path is the root");
}

static void test_edit_distance(void)
{
	ok(_kbx_edit_distance("twice", "twise", 3) == 1, "one substitution");
	ok(_kbx_edit_distance("add", "add", 3) == 0, "equal strings");
	ok(_kbx_edit_distance("callers", "caller", 3) == 1, "one deletion");
	ok(_kbx_edit_distance("a", "abcdefgh", 2) == 3, "capped at max + 1");
}

static void test_parse_size(void)
{
	uint64_t v;
	ok(kbx_parse_size("512", &v) == 0 && v == 512, "a plain size");
	ok(kbx_parse_size("2k", &v) == 0 && v == 2048, "k is 1024");
	ok(kbx_parse_size("64m", &v) == 0 && v == 64u << 20, "m is 1024^2");
	ok(kbx_parse_size("1G", &v) == 0 && v == 1u << 30, "G is 1024^3");
	ok(kbx_parse_size("-1", &v) < 0 && kbx_parse_size("1.5m", &v) < 0 &&
		   kbx_parse_size("", &v) < 0 && kbx_parse_size("3mb", &v) < 0,
	   "signs, fractions, nothing and trailing text are refused");
	ok(kbx_parse_size("99999999999999999999", &v) < 0 &&
		   kbx_parse_size("17179869184g", &v) < 0,
	   "overflows are refused");
}

static void test_idset(void)
{
	struct _kbx_idset s = { 0 };
	uint32_t in[] = { 9, 3, 7, 3, 1, 9 };
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		_kbx_idset_add(&s, in[i]);
	ok(s.n == 4 && s.ids[0] == 1 && s.ids[3] == 9, "the id set keeps each id once, sorted");
	ok(_kbx_idset_has(&s, 7) && !_kbx_idset_has(&s, 8), "membership");
	uint32_t more[] = { 8, 2, 9, 8, 12, 1 }, none[1] = { 0 };
	ok(_kbx_idset_add_many(&s, more, 6) == 0 && _kbx_idset_add_many(&s, none, 0) == 0 &&
		   s.n == 7 && s.ids[0] == 1 && s.ids[1] == 2 && s.ids[2] == 3 && s.ids[3] == 7 &&
		   s.ids[4] == 8 && s.ids[5] == 9 && s.ids[6] == 12,
	   "a batch of ids in no order merges in, each once, sorted");
	_kbx_idset_add(&s, 10);
	ok(s.n == 8 && _kbx_idset_has(&s, 10) && _kbx_idset_has(&s, 12) && !_kbx_idset_has(&s, 11),
	   "the set grows after a batch");
	_kbx_idset_release(&s);
	struct _kbx_idset e = { 0 };
	uint32_t first[] = { 5, 5, 4 };
	ok(_kbx_idset_add_many(&e, first, 3) == 0 && e.n == 2 && e.ids[0] == 4 && e.ids[1] == 5,
	   "a batch into an empty set");
	uint32_t sorted[] = { 1, 4, 4, 6, 9 };
	ok(_kbx_idset_add_many(&e, sorted, 5) == 0 && e.n == 5 && e.ids[0] == 1 && e.ids[1] == 4 &&
		   e.ids[2] == 5 && e.ids[3] == 6 && e.ids[4] == 9 && sorted[1] == 4 && sorted[4] == 9,
	   "a batch already in order (repeats too) merges in without a sort");
	_kbx_idset_release(&e);
}

static void test_refs_roundtrip(void)
{
	struct kbx_extract x = KBX_EXTRACT_INIT;
	int cls = _kbx_x_sym(&x, KBX_KIND_CLASS, "Foo", "Foo", -1, 1, 1, 9);
	int m = _kbx_x_sym(&x, KBX_KIND_METHOD, "run", "Foo.run", cls, 2, 5, 4);
	_kbx_x_call(&x, "helper", KBX_RECV_SELF, NULL, m, 3, 9);
	_kbx_x_call(&x, "join", KBX_RECV_EXPR, "os.path", -1, 8, 1);
	_kbx_x_import(&x, "pkg.b", "load", "ld", 0, 0, 1);
	_kbx_x_inherit(&x, cls, "Base", 1);
	_kbx_x_field(&x, cls, "mutex_", "port.Mutex", 2);
	uint32_t ids[2] = { 100, 101 };
	struct strbuf sb = STRBUF_INIT;
	_kbx_refs_encode(&sb, &x, ids, ids, 2);
	struct _kbx_refs r;
	ok(_kbx_refs_decode(sb.buf, sb.len, &r) == KBX_OK, "refs decode");
	ok(r.nnodes == 2 && r.nodes[1] == 101, "refs keep the file's node ids");
	ok(r.ncalls == 2 && r.calls[0].caller == 101 && !strcmp(r.calls[0].name, "helper") &&
		   r.calls[0].recv == KBX_RECV_SELF && !strcmp(r.calls[0].class_qual, "Foo"),
	   "a self call keeps its caller and its class");
	ok(r.calls[1].caller == 0 && !strcmp(r.calls[1].receiver, "os.path"),
	   "a file-level call has no caller and keeps its receiver");
	ok(r.nimports == 1 && !strcmp(r.imports[0].module, "pkg.b") &&
		   !strcmp(r.imports[0].name, "load") && !strcmp(r.imports[0].alias, "ld"),
	   "imports round trip");
	ok(r.ninherits == 1 && r.inherits[0].cls == 100 && !strcmp(r.inherits[0].base, "Base"),
	   "bases round trip");
	ok(r.nfields == 1 && r.fields[0].cls == 100 && !strcmp(r.fields[0].name, "mutex_") &&
		   !strcmp(r.fields[0].type, "port.Mutex"),
	   "fields round trip");
	_kbx_refs_release(&r);
	for (size_t cut = 0; cut < sb.len; cut += 7) {
		if (_kbx_refs_decode(sb.buf, cut, &r) == KBX_OK) {
			_kbx_refs_release(&r);
			ok(0, "a truncated refs blob must not decode");
			break;
		}
	}
	ok(1, "every truncation of a refs blob is refused");
	strbuf_release(&sb);
	_kbx_extract_release(&x);
}

static void test_strbuf(void)
{
	struct strbuf sb = STRBUF_INIT;
	ok(!strcmp(strbuf_str(&sb), ""), "an empty strbuf reads as an empty string");
	strbuf_addf(&sb, "%s-%d", "a", 42);
	strbuf_addch(&sb, '!');
	ok(!strcmp(sb.buf, "a-42!") && sb.len == 5, "addf and addch");
	strbuf_setlen(&sb, 1);
	ok(!strcmp(sb.buf, "a"), "setlen truncates");
	for (int i = 0; i < 10000; i++)
		strbuf_addstr(&sb, "xyz");
	ok(sb.len == 30001 && !sb.failed, "grows");
	strbuf_release(&sb);
}

/* A chunk whose text has no word, counted first by a fresh counter
 * (before it has made its array of terms), has no terms: no failure. */
static void test_termcount_no_words(void)
{
	struct _kbx_termcount *t = _kbx_termcount_new();
	size_t n = 99;
	uint32_t ntok = 99;
	const char *text = "() => () => () => {}";
	ok(t != NULL, "a term counter");
	ok(t && _kbx_termcount_chunk(t, KBX_CHUNK_DOC, text, strlen(text), NULL, &n, &ntok) != NULL && n == 0 && ntok == 0,
	   "a text without a word has no terms, and that is no failure");
	ok(t && _kbx_termcount_chunk(t, KBX_CHUNK_DOC, "timeout", 7, "timeout", &n, &ntok) != NULL && n == 1,
	   "the next text is counted");
	const char *code = "/* Wait for the lock. */\nint wait_lock(void) { return 0; }\n";
	ok(t && n == 1 && ntok == 1, "a document's title is not counted as a name");
	const struct _kbx_term *tc = t ? _kbx_termcount_chunk(t, KBX_CHUNK_CODE, code, strlen(code),
							       NULL, &n, &ntok) : NULL;
	uint32_t lock_tf = 0, ret_tf = 0, wait_tf = 0;
	for (size_t i = 0; tc && i < n; i++) {
		if (tc[i].len == 4 && !memcmp(tc[i].term, "lock", 4))
			lock_tf = tc[i].tf;
		if (tc[i].len == 6 && !memcmp(tc[i].term, "return", 6))
			ret_tf = tc[i].tf;
	}
	ok(lock_tf == 3 && ret_tf == 1,
	   "a code chunk's documentation counts twice, its body once (lock: twice in the text, once more)");
	uint32_t before = ntok;
	tc = t ? _kbx_termcount_chunk(t, KBX_CHUNK_CODE, code, strlen(code), "wait_lock", &n, &ntok)
	       : NULL;
	lock_tf = ret_tf = 0;
	for (size_t i = 0; tc && i < n; i++) {
		if (tc[i].len == 4 && !memcmp(tc[i].term, "lock", 4))
			lock_tf = tc[i].tf;
		if (tc[i].len == 4 && !memcmp(tc[i].term, "wait", 4))
			wait_tf = tc[i].tf;
		if (tc[i].len == 6 && !memcmp(tc[i].term, "return", 6))
			ret_tf = tc[i].tf;
	}
	ok(lock_tf == 3 + KBX_NAME_COUNT && wait_tf == 3 + KBX_NAME_COUNT && ret_tf == 1 &&
		   ntok > before,
	   "the name a code chunk defines counts KBX_NAME_COUNT times more, its other words do not");
	_kbx_termcount_free(t);
}

/* Tokens as one string, for comparing two tokenizations. */
static int tok_append(void *data, const char *tok, size_t len, int kind)
{
	struct strbuf *sb = data;
	strbuf_addf(sb, "%d:%.*s ", kind, (int)len, tok);
	return 0;
}

/* A tokenizer stems its first words without its cache, the rest with it:
 * the tokens are the same either way. */
static void test_tokenizer_cache(void)
{
	const char *text = "Running the parsers: they parsed configurations, the_parser_state "
			   "and ReadConfigFile were waiting; it is a strangely long identifier "
			   "supercalifragilisticexpialidocious 0xdeadbeef12 x ab.";
	kbx_tokenizer_t *t = _kbx_tokenizer_new();
	struct strbuf first, later;
	int same = 1;
	strbuf_init(&first);
	strbuf_init(&later);
	ok(t != NULL, "a tokenizer");
	if (t)
		_kbx_tokenize(t, text, strlen(text), tok_append, &first);
	/* enough words to make the cache, twice over */
	for (int i = 0; t && i < 200; i++) {
		strbuf_reset(&later);
		_kbx_tokenize(t, text, strlen(text), tok_append, &later);
		if (strcmp(first.buf, later.buf))
			same = 0;
	}
	ok(same && first.len > 0, "the same tokens before the cache is made and after");
	_kbx_tokenizer_free(t);
	strbuf_release(&first);
	strbuf_release(&later);

	unsigned char *z = _kbx_zalloc(1 << 20), *y = _kbx_zalloc(100);
	int zero = z && y;
	for (size_t i = 0; zero && i < (1 << 20); i += 4093)
		zero = !z[i];
	for (size_t i = 0; zero && i < 100; i++)
		zero = !y[i];
	ok(zero, "zeroed tables, mapped or not, are zeros");
	_kbx_zfree(z, 1 << 20);
	_kbx_zfree(y, 100);
}

/* The documentation of a code chunk's text (search/code-doc.c). */
static int code_doc_is(const char *text, const char *want)
{
	struct strbuf sb;
	strbuf_init(&sb);
	size_t n = _kbx_code_doc(text, strlen(text), &sb);
	int r = want ? n && !strcmp(strbuf_str(&sb), want) : !n && !sb.len;
	strbuf_release(&sb);
	return r;
}

static void test_code_doc(void)
{
	ok(code_doc_is("/* Read the whole file. */\nint f(void)\n{\n\treturn 0;\n}\n",
		       "/* Read the whole file. */\n"),
	   "code doc: the comment a chunk starts with");
	ok(code_doc_is("/**\n * Two lines\n * of doc.\n */\nint f(void);\n",
		       "/**\n * Two lines\n * of doc.\n */\n"),
	   "code doc: a block comment of several lines");
	ok(code_doc_is("# Twice x, as a number.\n@cache\ndef f(x):\n    \"\"\"Return x twice.\"\"\"\n    return 2 * x\n",
		       "# Twice x, as a number.\nReturn x twice.\n"),
	   "code doc: a comment and a Python docstring, not the decorator");
	ok(code_doc_is("int f(void)\n{\n\treturn 0;\n}\n/* Declared: says what f is. */\n",
		       "/* Declared: says what f is. */\n"),
	   "code doc: a declaration's comment appended at the end");
	ok(code_doc_is("int f(void)\n{\n\treturn 0;\n}\n", NULL),
	   "code doc: none for a chunk without comments");
	ok(code_doc_is("// x\nint f(void) { return 0; }\n", NULL),
	   "code doc: too short a comment is none");
	ok(code_doc_is("#define LONG_ENOUGH_NAME 1\n", NULL) &&
		   code_doc_is("@decorator_with_a_long_name\ndef f():\n    pass\n", NULL),
	   "code doc: a preprocessor line or an annotation is none");
	ok(code_doc_is("# Only a comment, no code at all here.\n",
		       "# Only a comment, no code at all here.\n"),
	   "code doc: a text that is all comment is counted once");
	const char *t = "/* A long enough comment. */\nx\n";
	ok(!_kbx_code_doc_leans(KBX_CHUNK_DOC, t, strlen(t)) &&
		   _kbx_code_doc_leans(KBX_CHUNK_CODE, t, strlen(t)),
	   "code doc: only code chunks lean on it");
}

static float dot(const float *a, const float *b, uint32_t dim)
{
	float s = 0;
	for (uint32_t i = 0; i < dim; i++)
		s += a[i] * b[i];
	return s;
}

/* A code chunk's vector leans on its name (its title), a document's does
 * not; the name is part of the vector cache's key. */
static void test_code_name_leans(void)
{
	/* hashed features alone: no model file to find */
	struct kbx_embed_config cfg = { .provider = "builtin", .model = "hash" };
	struct kbx_error err = { 0 };
	kbx_embedder_t *e = NULL;
	uint32_t dim = 0;
	ok(_kbx_embedder_open(&cfg, &e, &err) == KBX_OK && _kbx_embedder_probe(e, &dim, &err) == KBX_OK,
	   "the builtin embedder");
	if (!e || !dim)
		return;
	const char *text = "int compute(int a)\n{\n\treturn a * 2;\n}\n", *q = "measure the width";
	const char *none = NULL, *name = "measure_width";
	size_t len = strlen(text), ql = strlen(q);
	unsigned char code = KBX_CHUNK_CODE, doc = KBX_CHUNK_DOC;
	float *v = calloc(5 * (size_t)dim, sizeof(float));
	ok(v && !_kbx_embed(e, 1, &q, &ql, 1, v, &err) &&
		   !_kbx_embed_chunks(e, 1, &text, &len, &code, &none, dim, v + dim, &err) &&
		   !_kbx_embed_chunks(e, 1, &text, &len, &code, &name, dim, v + 2 * dim, &err) &&
		   !_kbx_embed_chunks(e, 1, &text, &len, &doc, &none, dim, v + 3 * dim, &err) &&
		   !_kbx_embed_chunks(e, 1, &text, &len, &doc, &name, dim, v + 4 * dim, &err),
	   "code and a document embedded with and without a title");
	ok(v && dot(v, v + 2 * dim, dim) > dot(v, v + dim, dim) + 0.2f &&
		   dot(v + 2 * dim, v + 2 * dim, dim) > 0.999f &&
		   dot(v + 2 * dim, v + 2 * dim, dim) < 1.001f,
	   "a code chunk named for the question's words comes nearer to it, at unit length");
	ok(v && !memcmp(v + 3 * dim, v + 4 * dim, dim * sizeof(float)),
	   "a document's title does not move its vector");
	unsigned char k[4][KBX_VCACHE_KEY_LEN];
	_kbx_vcache_key(k[0], 42, KBX_CHUNK_CODE, text, len, NULL);
	_kbx_vcache_key(k[1], 42, KBX_CHUNK_CODE, text, len, name);
	_kbx_vcache_key(k[2], 42, KBX_CHUNK_DOC, text, len, NULL);
	_kbx_vcache_key(k[3], 42, KBX_CHUNK_DOC, text, len, name);
	ok(memcmp(k[0], k[1], sizeof(k[0])) && !memcmp(k[2], k[3], sizeof(k[2])),
	   "the name is part of a code chunk's cache key, not of a document's");
	free(v);
	_kbx_embedder_close(e);
}

int main(void)
{
	test_edge_keys();
	test_key_order();
	test_code_name_leans();
	test_node_record();
	test_edge_value();
	test_file_record();
	test_path_join();
	test_edit_distance();
	test_parse_size();
	test_idset();
	test_refs_roundtrip();
	test_strbuf();
	test_termcount_no_words();
	test_code_doc();
	test_tokenizer_cache();
	printf("1..%d\n", tests);
	return failures ? 1 : 0;
}
