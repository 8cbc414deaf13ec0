#!/bin/sh
test_description='kbx search: a code chunk leans on its documentation

A code chunk is embedded twice, whole and its documentation alone (the
comment above it, a docstring, a declaration comment appended), and its
vector is the normalised sum of the two; its BM25 terms count the
documentation twice, and the name it defines twice more (its vector
leans on the name too: tests/unit/lib-basics).  An index made by a kbx
that did not has its code chunks made again by the next run.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a repository with a documented function' '
	mkdir repo &&
	cat >repo/store.c <<-\EOF &&
	#include <stdlib.h>
	#include <string.h>

	/* Mark a newly created database file as belonging to the user who runs
	 * this program. */
	int stamp_file(const char *dir, const char *name, unsigned char *key, size_t keylen)
	{
		char path[4096];
		size_t n = strlen(dir);
		if (n + strlen(name) + 2 > sizeof(path))
			return -1;
		memcpy(path, dir, n);
		path[n] = 0x2f;
		strcpy(path + n + 1, name);
		for (size_t i = 0; i < keylen; i++)
			key[i] ^= (unsigned char)path[i % (n + 1)];
		return write_bytes(path, key, keylen, 0, 1);
	}

	int write_bytes(const char *path, const unsigned char *buf, size_t len, long offset, int sync)
	{
		(void)path; (void)buf; (void)len; (void)offset; (void)sync;
		return 0;
	}

	int open_user_database(const char *path, int create)
	{
		/* a user database: created when asked */
		(void)path;
		return create;
	}
	EOF
	cat >repo/util.py <<-\EOF &&
	def pick(items, n):
	    """Choose a random handful of the elements, without repeats."""
	    return items[:n]
	EOF
	cat >repo/light.c <<-\EOF &&
	/* Light the lantern. */
	int glow(int a, int b)
	{
		int sum = a + b;
		return sum * 2;
	}

	int lamp_count(int lantern) { return 3; }
	EOF
	cat >repo/words.c <<-\EOF &&
	int measure_width(int a)
	{
		return a * 2;
	}

	int compute(int width, int measure)
	{
		int total = width + measure;
		return total * width / measure;
	}
	EOF
	(cd repo && kbx index -q)
'

# first NAME MODE QUESTION: the first code hit of kbx search --mode=MODE
# is NAME.
first () {
	(cd repo && kbx search --mode="$2" --type=code --format=json -n 1 "$3" >../hit.json) &&
	test_grep "\"id\":\"$1\"" hit.json
}

test_expect_success 'a question worded like the comment finds the function by its vector' '
	first "store.c#stamp_file" vector \
		"record that a database file just made is the current user'\''s"
'

test_expect_success 'the documentation counts twice for BM25: before a shorter body that says the word once' '
	first "light.c#glow" lexical "lantern"
'

test_expect_success 'the name counts more for BM25: before a body that says its words more often' '
	first "words.c#measure_width" lexical "measure the width"
'

test_expect_success 'a comment taken away is no longer found by its words' '
	sed -i "/Mark a newly created/,/this program/d" repo/store.c &&
	(cd repo && kbx index -q) &&
	(cd repo && test_might_fail kbx search --mode=lexical --type=code --format=json "belonging" >../out) &&
	test_grep ! "stamp_file" out
'

test_expect_success 'an index whose code chunks were made the old way has them made again' '
	# the same answers, under new chunk ids (an id is never reused)
	(cd repo && kbx search --format=json -n 5 "random handful") |
		sed "s/\"chunk\":[0-9]*,//" >before &&
	"$KBX_TEST_UNIT/store-set-meta" repo/.kbx code_chunks_format 1 &&
	(cd repo && kbx index 2>../err) &&
	test_grep "search: .* [1-9][0-9]* added, [1-9][0-9]* removed" err &&
	test_grep "the code chunks were made by an older kbx, which weighed them otherwise" err &&
	(cd repo && kbx index 2>../err) &&
	test_grep "search: .* 0 added, 0 removed" err &&
	test_grep ! "made by an older kbx" err &&
	"$KBX_TEST_UNIT/store-set-meta" repo/.kbx code_chunks_format 2 &&
	(cd repo && kbx index --format=json >../summary.json) &&
	test_grep "\"code_remade\":true" summary.json &&
	(cd repo && kbx index --format=json >../summary.json) &&
	test_grep ! "code_remade" summary.json &&
	(cd repo && kbx search --format=json -n 5 "random handful") |
		sed "s/\"chunk\":[0-9]*,//" >after &&
	test_cmp before after
'

test_expect_success 'the vector cache drops the vectors no chunk has once it holds too many' '
	mkdir cache &&
	printf "def area(w, h):\n    \"\"\"The area of a rectangle.\"\"\"\n    return w * h\n\n\ndef grow(x):\n    return x + 0\n" >cache/shapes.py &&
	(cd cache && kbx index -q) &&
	# each edit leaves the old vector of grow behind; 2 chunks: the
	# cache may hold 2 x 2 + 64 vectors
	i=1 && pruned=0 &&
	while test $i -le 70; do
		sed -i "s/return x + [0-9]*/return x + $i/" cache/shapes.py &&
		(cd cache && kbx index --format=json >../summary.json) &&
		n=$(sed -n "s/.*\"cache_pruned\":\([0-9]*\).*/\1/p" summary.json) &&
		pruned=$((pruned + n)) &&
		i=$((i + 1)) || return 1
	done &&
	test $pruned -ge 60 &&
	# every vector a chunk has stayed: a rebuild embeds nothing
	(cd cache && kbx index --rebuild 2>../err) &&
	test_grep "vectors: 0 embedded, 2 from the cache" err &&
	(cd cache && kbx search --mode=vector --type=code --format=json -n 1 "rectangle area" >../hit.json) &&
	test_grep "\"id\":\"shapes.py#area\"" hit.json
'

test_done
