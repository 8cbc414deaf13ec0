/* The grammars, linked in or loaded from kbx-grammars.so (grammars.h). */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "kbx-grammars.h"
#include "lang/grammars.h"
#include "util/modload.h"
#include "util/util.h"

/* tree-sitter's allocator, which kbx sets (cmd/kbx.c) */
extern void *(*ts_current_malloc)(size_t);
extern void *(*ts_current_calloc)(size_t, size_t);
extern void *(*ts_current_realloc)(void *, size_t);
extern void (*ts_current_free)(void *);

/* What the scanners allocate with: tree-sitter's allocator at the time
 * of the call, as for the parser. */
static void *scan_malloc(size_t n)
{
	return ts_current_malloc(n);
}

static void *scan_calloc(size_t n, size_t size)
{
	return ts_current_calloc(n, size);
}

static void *scan_realloc(void *p, size_t n)
{
	return ts_current_realloc(p, n);
}

static void scan_free(void *p)
{
	ts_current_free(p);
}

/* Defined by build/ts/grammar-table.o where that is linked; kbx itself
 * leaves it out, and the address is then NULL. */
extern const struct kbx_grammar_table _kbx_grammar_table __attribute__((weak));

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct kbx_grammar_table *table;
static int out_of_memory;
static char why[PATH_MAX + 512];

static const struct kbx_grammar_table *check(const struct kbx_grammar_table *t,
					     const char *path)
{
	if (t->abi != KBX_GRAMMARS_ABI) {
		snprintf(why, sizeof(why),
			 "grammar module '%s' has table layout %u, this kbx reads %d; install the module built with this kbx",
			 path, (unsigned)t->abi, KBX_GRAMMARS_ABI);
		return NULL;
	}
	if (!t->lock || strcmp(t->lock, KBX_GRAMMARS_LOCK) != 0) {
		snprintf(why, sizeof(why),
			 "grammar module '%s' was built from other grammars (%s) than this kbx (%s); install the module built with this kbx",
			 path, t->lock ? t->lock : "unknown", KBX_GRAMMARS_LOCK);
		return NULL;
	}
	return t;
}

static void load(void)
{
	const struct kbx_grammar_table *t = &_kbx_grammar_table;
	char path[PATH_MAX] = "linked in";
	void *sym;

	if (!t) {
		int rc = _kbx_module_open("grammar module", "KBX_GRAMMARS_PATH",
					  KBX_GRAMMARS_MODULE_FILE, KBX_GRAMMARS_MODULE_SYMBOL,
					  &sym, path, sizeof(path), why, sizeof(why));
		if (rc) {
			out_of_memory = rc == -2;
			return;
		}
		t = sym;
	}
	t = check(t, path);
	if (!t)
		return;
	/* the scanners' memory comes from where the parser's does, and runs
	 * out as kbx says it does (exit status 9) */
	t->use_allocator(scan_malloc, scan_calloc, scan_realloc, scan_free);
	table = t;
}

int _kbx_grammars_load(char *err, size_t errsz)
{
	pthread_once(&once, load);
	if (table)
		return 0;
	if (err && errsz)
		snprintf(err, errsz, "%s", why);
	return out_of_memory ? -2 : -1;
}

kbx_status_t _kbx_grammars_need(struct kbx_error *err)
{
	char msg[sizeof(why)];
	int rc = _kbx_grammars_load(msg, sizeof(msg));

	if (!rc)
		return KBX_OK;
	return _kbx_fail(err, rc == -2 ? KBX_ERR_NOMEM : KBX_ERR_IO, "%s", msg);
}

const TSLanguage *_kbx_grammar(const char *name)
{
	if (_kbx_grammars_load(NULL, 0))
		return NULL;
	for (uint32_t i = 0; i < table->n; i++)
		if (!strcmp(table->grammars[i].name, name))
			return table->grammars[i].language();
	return NULL;
}
