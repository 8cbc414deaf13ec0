/* Status codes and error messages, paths, hashing, edit distance, and
 * the small containers of ids the layers share (util.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <xxhash.h>

#include "util/util.h"

static uint64_t cpu_clock_ns(clockid_t clock)
{
	struct timespec ts;
	if (clock_gettime(clock, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t _kbx_thread_cpu_ns(void)
{
	return cpu_clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

uint64_t _kbx_process_cpu_ns(void)
{
	return cpu_clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static const char *const status_names[KBX_STATUS__COUNT] = {
	[KBX_OK] = "success",
	[KBX_NOT_FOUND] = "nothing found",
	[KBX_ERR_USAGE] = "usage error",
	[KBX_ERR_NO_STORE] = "no index",
	[KBX_ERR_SCHEMA] = "index written by another version",
	[KBX_ERR_IO] = "input/output error",
	[KBX_ERR_STORE] = "store error",
	[KBX_ERR_BUSY] = "index is busy",
	[KBX_ERR_NOMEM] = "out of memory",
	[KBX_ERR_FULL] = "disk or map full",
	[KBX_ERR_CORRUPT] = "index is corrupt",
	[KBX_ERR_PARSE] = "cannot parse",
	[KBX_ERR_INTERNAL] = "internal error",
	[KBX_ERR_UNSAFE] = "refused as unsafe",
};

const char *kbx_status_str(kbx_status_t status)
{
	if ((int)status < 0 || status >= KBX_STATUS__COUNT)
		return "unknown status";
	return status_names[status];
}

int kbx_parse_size(const char *text, uint64_t *out)
{
	uint64_t v = 0, mul = 1;
	const char *p = text;
	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == 'k' || *p == 'K')
		mul = 1024, p++;
	else if (*p == 'm' || *p == 'M')
		mul = 1024 * 1024, p++;
	else if (*p == 'g' || *p == 'G')
		mul = 1024ull * 1024 * 1024, p++;
	if (*p || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

char *_kbx_path_concat(const char *a, const char *b)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_addstr(&sb, a);
	if (sb.len && sb.buf[sb.len - 1] != '/')
		strbuf_addch(&sb, '/');
	strbuf_addstr(&sb, b);
	if (sb.failed) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb, NULL);
}

kbx_status_t _kbx_write_status(int e)
{
	return e == ENOSPC || e == EDQUOT ? KBX_ERR_FULL : KBX_ERR_IO;
}

kbx_status_t _kbx_fail(struct kbx_error *err, kbx_status_t status, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
		err->status = status;
	}
	return status;
}

void _kbx_hash128(const void *data, size_t len, unsigned char out[16])
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	XXH128_canonical_t c;
	XXH128_canonicalFromHash(&c, h);
	memcpy(out, c.digest, 16);
}

_Thread_local unsigned long _kbx_nomem_count;

static void (*nomem_handler)(const char *what);

void _kbx_set_nomem_fatal(void (*handler)(const char *what))
{
	nomem_handler = handler;
}

void _kbx_nomem_fatal(const char *what)
{
	if (nomem_handler)
		nomem_handler(what);
	abort();
}

uint64_t _kbx_fnv1a(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

/* Tables from this size on are mapped. */
#define ZALLOC_MAP_MIN (64 * 1024)

void *_kbx_zalloc(size_t size)
{
	if (size < ZALLOC_MAP_MIN)
		return calloc(1, size ? size : 1);
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void _kbx_zfree(void *p, size_t size)
{
	if (!p)
		return;
	if (size < ZALLOC_MAP_MIN)
		free(p);
	else
		munmap(p, size);
}

uint64_t _kbx_fnv1a_str(const char *s)
{
	return _kbx_fnv1a(s, strlen(s));
}

size_t _kbx_edit_distance(const char *a, const char *b, size_t max)
{
	size_t la = strlen(a), lb = strlen(b);
	if ((la > lb ? la - lb : lb - la) > max)
		return max + 1;
	if (lb > 255 || la > 255)
		return max + 1;
	size_t row[256], prev;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		size_t best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t v = prev + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
			if (v < best)
				best = v;
		}
		if (best > max)
			return max + 1;
	}
	return row[lb];
}

kbx_status_t _kbx_xdg_path(const char *var, const char *home_dir, const char *rel, char **out)
{
	const char *base = getenv(var);
	const char *home = getenv("HOME");
	char *dir = NULL;
	*out = NULL;
	/* the spec: a relative path is to be ignored */
	if (base && base[0] == '/')
		*out = _kbx_path_concat(base, rel);
	else if (home && *home && (dir = _kbx_path_concat(home, home_dir)))
		*out = _kbx_path_concat(dir, rel);
	else if (!home || !*home)
		return KBX_NOT_FOUND;
	free(dir);
	return *out ? KBX_OK : KBX_ERR_NOMEM;
}

int _kbx_make_parents(const char *path, char *failed, size_t failedsz)
{
	char *copy = strdup(path);
	if (!copy)
		return ENOMEM;
	char *slash = strrchr(copy, '/');
	if (slash && slash != copy) {
		*slash = '\0';
		for (char *p = copy + 1;; p++) {
			if (*p && *p != '/')
				continue;
			char c = *p;
			*p = '\0';
			if (mkdir(copy, 0777) < 0 && errno != EEXIST) {
				int e = errno;
				if (failedsz)
					snprintf(failed, failedsz, "%s", copy);
				free(copy);
				return e;
			}
			if (!c)
				break;
			*p = c;
		}
	}
	free(copy);
	return 0;
}

int _kbx_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

int _kbx_u32s_add(struct _kbx_u32s *s, uint32_t v)
{
	if (s->n == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 256;
		uint32_t *p = realloc(s->v, na * sizeof(*p));
		if (!p)
			return -1;
		s->v = p;
		s->alloc = na;
	}
	s->v[s->n++] = v;
	return 0;
}

void _kbx_u32s_settle(struct _kbx_u32s *s)
{
	if (s->n < 2)
		return;
	qsort(s->v, s->n, sizeof(*s->v), _kbx_cmp_u32);
	size_t o = 1;
	for (size_t i = 1; i < s->n; i++)
		if (s->v[i] != s->v[o - 1])
			s->v[o++] = s->v[i];
	s->n = o;
}

int _kbx_u32s_has(const struct _kbx_u32s *s, uint32_t v)
{
	return s->n && bsearch(&v, s->v, s->n, sizeof(*s->v), _kbx_cmp_u32) != NULL;
}

static size_t idmap_home(uint32_t id, size_t nslot)
{
	return (size_t)(id * 2654435761u) & (nslot - 1);
}

long _kbx_idmap_get(const struct _kbx_idmap *m, uint32_t id)
{
	if (!m->nslot)
		return -1;
	for (size_t h = idmap_home(id, m->nslot);; h = (h + 1) & (m->nslot - 1)) {
		if (!m->slot[h].used)
			return -1;
		if (m->slot[h].id == id)
			return (long)m->slot[h].index;
	}
}

int _kbx_idmap_put(struct _kbx_idmap *m, uint32_t id, uint32_t index)
{
	if ((m->n + 1) * 2 > m->nslot) {
		size_t nslot = m->nslot ? m->nslot * 2 : 256;
		struct _kbx_idmap_slot *slot = calloc(nslot, sizeof(*slot));
		if (!slot)
			return -1;
		for (size_t i = 0; i < m->nslot; i++) {
			if (!m->slot[i].used)
				continue;
			size_t h = idmap_home(m->slot[i].id, nslot);
			while (slot[h].used)
				h = (h + 1) & (nslot - 1);
			slot[h] = m->slot[i];
		}
		free(m->slot);
		m->slot = slot;
		m->nslot = nslot;
	}
	size_t h = idmap_home(id, m->nslot);
	while (m->slot[h].used && m->slot[h].id != id)
		h = (h + 1) & (m->nslot - 1);
	if (!m->slot[h].used)
		m->n++;
	m->slot[h].id = id;
	m->slot[h].index = index;
	m->slot[h].used = 1;
	return 0;
}

void _kbx_idmap_clear(struct _kbx_idmap *m)
{
	if (m->slot)
		memset(m->slot, 0, m->nslot * sizeof(*m->slot));
	m->n = 0;
}

void _kbx_idmap_release(struct _kbx_idmap *m)
{
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

/* The first place in s whose id is not below id. */
static size_t idset_lower(const struct _kbx_idset *s, uint32_t id)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int _kbx_idset_add(struct _kbx_idset *s, uint32_t id)
{
	size_t lo = idset_lower(s, id);
	if (lo < s->n && s->ids[lo] == id)
		return 0;
	if (s->n == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 64;
		uint32_t *p = realloc(s->ids, na * sizeof(*p));
		if (!p)
			return -1;
		s->ids = p;
		s->alloc = na;
	}
	memmove(s->ids + lo + 1, s->ids + lo, (s->n - lo) * sizeof(*s->ids));
	s->ids[lo] = id;
	s->n++;
	return 1;
}

int _kbx_idset_add_many(struct _kbx_idset *s, uint32_t *ids, size_t n)
{
	if (!n)
		return 0;
	/* ids often come sorted (a walk's level in place order, and the
	 * same ids again for a second set): one pass says so */
	size_t i0 = 1;
	while (i0 < n && ids[i0 - 1] <= ids[i0])
		i0++;
	if (i0 < n)
		qsort(ids, n, sizeof(*ids), _kbx_cmp_u32);
	size_t cap = s->n + n;
	uint32_t *out = malloc(cap * sizeof(*out));
	if (!out)
		return -1;
	size_t i = 0, j = 0, k = 0;
	while (i < s->n || j < n) {
		uint32_t v;
		if (j == n || (i < s->n && s->ids[i] <= ids[j]))
			v = s->ids[i++];
		else
			v = ids[j++];
		if (!k || out[k - 1] != v)
			out[k++] = v;
	}
	free(s->ids);
	s->ids = out;
	s->n = k;
	s->alloc = cap;
	return 0;
}

int _kbx_idset_has(const struct _kbx_idset *s, uint32_t id)
{
	size_t lo = idset_lower(s, id);
	return lo < s->n && s->ids[lo] == id;
}

void _kbx_idset_release(struct _kbx_idset *s)
{
	free(s->ids);
	memset(s, 0, sizeof(*s));
}

size_t _kbx_line_at(const char *text, size_t len, size_t i, size_t *end)
{
	size_t e = i;
	while (e < len && text[e] != '\n')
		e++;
	*end = e;
	size_t l = e - i;
	if (l && text[i + l - 1] == '\r')
		l--;
	return l;
}
