/*
 * Fusing the ranked lists of several stores (kbx search --all-repos,
 * kbx hybrid --all-repos) by reciprocal rank fusion: the same result
 * from several repositories counts once.
 *
 * Once means once: a registry that two repositories index is one source,
 * not two votes, so its entry scores as the best of its ranks and not as
 * their sum.  Summing would rank a registry shared by two clones above
 * everything each repository found alone, only because it was indexed
 * twice.
 */
#include <stdlib.h>
#include <string.h>

#include "search/search.h"

struct fuse_item {
	size_t list, item;
	const char *key;
	double tie;
};

static int cmp_key(const void *a, const void *b)
{
	const struct fuse_item *x = a, *y = b;
	if (!x->key || !y->key) {
		if (x->key || y->key)
			return x->key ? -1 : 1;
	} else {
		int c = strcmp(x->key, y->key);
		if (c)
			return c;
	}
	if (x->item != y->item)
		return x->item < y->item ? -1 : 1;
	return x->list < y->list ? -1 : x->list > y->list;
}

struct fuse_sort {
	struct kbx_repos_fused f;
	double tie;
};

static int cmp_fused(const void *a, const void *b)
{
	const struct fuse_sort *x = a, *y = b;
	if (x->f.score != y->f.score)
		return x->f.score > y->f.score ? -1 : 1;
	if (x->tie != y->tie)
		return x->tie > y->tie ? -1 : 1;
	if (x->f.list != y->f.list)
		return x->f.list < y->f.list ? -1 : 1;
	return x->f.item < y->f.item ? -1 : x->f.item > y->f.item;
}

kbx_status_t kbx_repos_fuse(size_t nlists, const size_t *counts, double k,
			    const char *(*key)(void *data, size_t list, size_t item),
			    double (*tie)(void *data, size_t list, size_t item), void *data,
			    struct kbx_repos_fused **out, size_t *nout, struct kbx_error *err)
{
	size_t total = 0;
	*out = NULL;
	*nout = 0;
	for (size_t i = 0; i < nlists; i++)
		total += counts[i];
	if (!total)
		return KBX_OK;
	struct fuse_item *items = calloc(total, sizeof(*items));
	struct fuse_sort *res = calloc(total, sizeof(*res));
	int *ranks = calloc(nlists, sizeof(*ranks));
	if (!items || !res || !ranks) {
		free(items);
		free(res);
		free(ranks);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	size_t n = 0;
	for (size_t l = 0; l < nlists; l++)
		for (size_t i = 0; i < counts[l]; i++) {
			items[n].list = l;
			items[n].item = i;
			items[n].key = key ? key(data, l, i) : NULL;
			items[n].tie = tie ? tie(data, l, i) : 0;
			n++;
		}
	/* the same key together, best rank first; keyless ones apart */
	if (n > 1)
		qsort(items, n, sizeof(*items), cmp_key);
	size_t nres = 0;
	for (size_t a = 0; a < n;) {
		size_t b = a + 1;
		if (items[a].key)
			while (b < n && items[b].key && !strcmp(items[a].key, items[b].key))
				b++;
		memset(ranks, 0, nlists * sizeof(*ranks));
		size_t holders = 0;
		for (size_t j = a; j < b; j++)
			if (!ranks[items[j].list]) {
				ranks[items[j].list] = (int)items[j].item + 1;
				holders++;
			}
		/* the same key sorts best rank first: items[a] is the one
		 * kept, and its rank alone is scored */
		int best = (int)items[a].item + 1;
		res[nres].f.list = items[a].list;
		res[nres].f.item = items[a].item;
		res[nres].f.score = kbx_rrf(&best, 1, k > 0 ? k : 60.0);
		res[nres].f.nlists = holders;
		res[nres].tie = items[a].tie;
		nres++;
		a = b;
	}
	if (nres > 1)
		qsort(res, nres, sizeof(*res), cmp_fused);
	struct kbx_repos_fused *o = malloc(nres * sizeof(*o));
	if (!o) {
		free(items);
		free(res);
		free(ranks);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < nres; i++)
		o[i] = res[i].f;
	free(items);
	free(res);
	free(ranks);
	*out = o;
	*nout = nres;
	return KBX_OK;
}
