/*
 * Fuzz how kbx hybrid reads a question (_kbx_understand, lib/hybrid/):
 * the words, the cues, the phrases they take.  The input is the question
 * (up to its first NUL byte).  Checked: the traversal is one kbx knows,
 * a depth is either unset or from 1 up, every phrase is non-empty and
 * made of the question's own bytes, a head noun comes with the kinds
 * it stands for, and documents asked for come with the words that
 * asked.
 */
#include <string.h>

#include "fuzz.h"
#include "hybrid/hybrid.h"

static void check_phrase(const char *p, const char *q)
{
	if (!p)
		return;
	FUZZ_ASSERT(*p);
	/* a phrase is words of the question joined by single spaces */
	for (const char *c = p; *c; c++)
		FUZZ_ASSERT(*c == ' ' || memchr(q, *c, strlen(q)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *q = malloc(size + 1);
	if (!q)
		return 0;
	memcpy(q, data, size);
	q[size] = '\0';
	struct _kbx_question x;
	if (_kbx_understand(q, &x) == 0) {
		FUZZ_ASSERT(x.relation >= KBX_REL_NONE && x.relation < KBX_REL__COUNT);
		FUZZ_ASSERT(!x.relation == !x.relation_words || !x.relation_words);
		FUZZ_ASSERT(!x.depth_words == !x.depth);
		FUZZ_ASSERT(!x.kind_words == !x.kinds);
		check_phrase(x.target, q);
		check_phrase(x.within, q);
		check_phrase(x.called_by, q);
		check_phrase(x.calls, q);
		check_phrase(x.similar, q);
		check_phrase(x.rest, q);
		/* the registry's documents: asked for with the words that
		 * asked, a hop with the words that said it */
		FUZZ_ASSERT(!x.doc_words == !x.doc_types);
		FUZZ_ASSERT(!x.doc_head || x.doc_types);
		FUZZ_ASSERT(!x.doc_hop == !x.doc_hop_words);
		FUZZ_ASSERT(x.doc_hop >= KBX_HOP_NONE && x.doc_hop <= KBX_HOP_USES);
		check_phrase(x.doc_words, q);
		check_phrase(x.doc_hop_words, q);
		check_phrase(x.glob, q);
		_kbx_question_release(&x);
	}
	free(q);
	return 0;
}
