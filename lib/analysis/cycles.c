/*
 * Cycles in a directed graph: strongly connected components (Tarjan's
 * algorithm, with an explicit stack instead of recursion, so that a call
 * chain thousands of functions deep cannot overflow the C stack) and a
 * shortest cycle through a vertex, to show the user one concrete loop.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "graph/graph.h"

#define UNSEEN UINT32_MAX

struct frame {
	uint32_t v;
	size_t next;    /* the position in targets of the next successor to try */
};

kbx_status_t kbx_scc(size_t n, const size_t *offsets, const uint32_t *targets, uint32_t *comp,
		     size_t *ncomp, struct kbx_error *err)
{
	*ncomp = 0;
	if (!n)
		return KBX_OK;
	if (n >= UNSEEN)
		return _kbx_fail(err, KBX_ERR_USAGE, "a graph of %zu vertices is too large", n);
	uint32_t *index = malloc(n * sizeof(*index));
	uint32_t *low = malloc(n * sizeof(*low));
	uint32_t *stack = malloc(n * sizeof(*stack));
	struct frame *calls = malloc(n * sizeof(*calls));
	unsigned char *onstack = calloc(n, 1);
	kbx_status_t st = KBX_OK;
	if (!index || !low || !stack || !calls || !onstack) {
		st = _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t v = 0; v < n; v++)
		index[v] = UNSEEN;

	uint32_t counter = 0, nc = 0;
	size_t sp = 0, cp = 0;
	for (size_t root = 0; root < n; root++) {
		if (index[root] != UNSEEN)
			continue;
		index[root] = low[root] = counter++;
		stack[sp++] = (uint32_t)root;
		onstack[root] = 1;
		calls[cp].v = (uint32_t)root;
		calls[cp].next = offsets[root];
		cp++;
		while (cp) {
			struct frame *f = &calls[cp - 1];
			uint32_t v = f->v;
			if (f->next < offsets[v + 1]) {
				uint32_t w = targets[f->next++];
				if (w >= n) {
					st = _kbx_fail(err, KBX_ERR_USAGE,
						       "vertex %u has an edge to %u, which is not a vertex",
						       v, w);
					goto out;
				}
				if (index[w] == UNSEEN) {
					/* descend: w's frame goes on top */
					index[w] = low[w] = counter++;
					stack[sp++] = w;
					onstack[w] = 1;
					calls[cp].v = w;
					calls[cp].next = offsets[w];
					cp++;
				} else if (onstack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			/* every successor of v is done: v may root a component */
			if (low[v] == index[v]) {
				uint32_t w;
				do {
					w = stack[--sp];
					onstack[w] = 0;
					comp[w] = nc;
				} while (w != v);
				nc++;
			}
			cp--;
			if (cp) {
				uint32_t u = calls[cp - 1].v;
				if (low[v] < low[u])
					low[u] = low[v];
			}
		}
	}
	*ncomp = nc;
out:
	free(index);
	free(low);
	free(stack);
	free(calls);
	free(onstack);
	return st;
}

kbx_status_t kbx_scc_cycle(size_t n, const size_t *offsets, const uint32_t *targets,
			   const uint32_t *comp, uint32_t start, uint32_t first, uint32_t *path,
			   size_t *len, struct kbx_error *err)
{
	*len = 0;
	if (start >= n || (first != KBX_ANY_VERTEX && first >= n))
		return _kbx_fail(err, KBX_ERR_USAGE, "vertex %u is not in the graph",
				 start >= n ? start : first);
	if (first == start) {
		path[0] = start;
		*len = 1;
		return KBX_OK;
	}
	uint32_t c = comp[start];
	/* breadth first from start, within its component, until an edge
	 * leads back to start: the first such edge closes a shortest cycle */
	uint32_t *parent = malloc(n * sizeof(*parent));
	uint32_t *queue = malloc(n * sizeof(*queue));
	if (!parent || !queue) {
		free(parent);
		free(queue);
		return _kbx_fail(err, KBX_ERR_NOMEM, "out of memory");
	}
	for (size_t v = 0; v < n; v++)
		parent[v] = UNSEEN;
	size_t head = 0, tail = 0;
	parent[start] = start;
	uint32_t last = UNSEEN;
	if (first == KBX_ANY_VERTEX) {
		queue[tail++] = start;
	} else if (comp[first] == c) {
		/* the first step is given: search from there */
		parent[first] = start;
		queue[tail++] = first;
	}
	while (head < tail && last == UNSEEN) {
		uint32_t u = queue[head++];
		for (size_t i = offsets[u]; i < offsets[u + 1]; i++) {
			uint32_t w = targets[i];
			if (w >= n || comp[w] != c)
				continue;
			if (w == start) {
				last = u;
				break;
			}
			if (parent[w] == UNSEEN) {
				parent[w] = u;
				queue[tail++] = w;
			}
		}
	}
	kbx_status_t st = KBX_NOT_FOUND;
	if (last != UNSEEN) {
		/* walk back from the last vertex to start, then reverse */
		size_t k = 0;
		for (uint32_t v = last; v != start; v = parent[v])
			path[k++] = v;
		path[k++] = start;
		for (size_t i = 0; i < k / 2; i++) {
			uint32_t t = path[i];
			path[i] = path[k - 1 - i];
			path[k - 1 - i] = t;
		}
		*len = k;
		st = KBX_OK;
	}
	free(parent);
	free(queue);
	return st;
}
