#!/bin/sh
test_description='kbx search reads a flat vector index without loading the vector module

A flat index file has kbx'"'"'s own layout: kbx search maps and searches it
itself (lib/util/vflat.c), which gives the same answer as the module
(KBX_VECTOR_FLAT=module sends it there) without the cost of loading
FAISS and its libraries.  --explain says which it was and how long the
module took to load.'

. "$(dirname "$0")"/test-lib.sh

test_unit vector-flat-direct .

test_lazy_prereq STRACE 'strace -f -o /dev/null true'

# the hits and the plan of a JSON search, without the timings and the
# module fields, which differ between the two ways
hits_of () {
	sed -e 's/"ms":[0-9.e+-]*,//g' -e 's/"module":[a-z]*,"load_ms":[0-9.e+-]*//'
}

test_expect_success 'set up a repository with a flat vector index' '
	git init -q repo &&
	mkdir -p repo/src &&
	for n in 1 2 3 4 5 6
	do
		cat >repo/src/mod$n.py <<-EOF || return 1
		def parse_record_$n(line):
		    """Split a record line into its fields."""
		    return line.split(",")


		def send_message_$n(queue, body):
		    """Put a message on the queue and wait for the reply."""
		    queue.put(body)
		    return queue.get(timeout=$n)


		def same_helper(value):
		    return value
		EOF
	done &&
	(cd repo && kbx index -q) &&
	(cd repo && kbx search --mode=vector --explain "split record fields") >out &&
	test_grep "index flat" out
'

test_expect_success 'a flat index is searched without the module, which --explain says' '
	(cd repo && kbx search --mode=vector --explain "split record fields") >out &&
	test_grep "^vector .* in [0-9.]* ms, index flat, no module loaded" out &&
	(cd repo && kbx search --explain --format=json "split record fields") >out.json &&
	test_grep "\"vector\":{\"used\":true,.*\"index\":\"flat\",\"module\":false,\"load_ms\":0" out.json
'

test_expect_success 'without a vector module a flat index is searched all the same' '
	(cd repo && KBX_MODULE_PATH="$TRASH_DIRECTORY/nowhere.so" \
		kbx search --mode=vector --format=json "send a message on the queue") >out &&
	test_grep "send_message_" out
'

test_expect_success 'the module, when it searches, gives the same hits, scores and order' '
	for q in "split record fields" "send a message on the queue" "same helper value" \
		"wait for the reply"
	do
		(cd repo && kbx search --mode=vector --explain --format=json -n 20 "$q") >direct &&
		(cd repo && KBX_VECTOR_FLAT=module \
			kbx search --mode=vector --explain --format=json -n 20 "$q") >module &&
		test_grep "\"module\":false" direct &&
		test_grep "\"module\":true" module &&
		hits_of <direct >direct.hits &&
		hits_of <module >module.hits &&
		test_cmp direct.hits module.hits || return 1
	done
'

test_expect_success '--explain separates the module load from the search' '
	(cd repo && KBX_VECTOR_FLAT=module kbx search --mode=vector --explain "split record fields") >out &&
	test_grep "^vector .* in [0-9.]* ms, index flat (+ [0-9.]* ms loading the vector module)" out &&
	(cd repo && KBX_VECTOR_FLAT=module \
		kbx search --mode=vector --explain --format=json "split record fields") >out.json &&
	sed -n "s/.*\"module\":true,\"load_ms\":\([0-9.e+-]*\).*/\1/p" out.json >load &&
	test -s load &&
	! grep -x "0" load
'

test_expect_success 'a missing module is still reported when the index needs it' '
	(cd repo && KBX_VECTOR_FLAT=module KBX_MODULE_PATH="$TRASH_DIRECTORY/nowhere.so" \
		test_must_fail kbx search --mode=vector "split record fields") 2>err &&
	test_grep "no vector search: .*nowhere.so" err
'

# Where the file system caches files in large folios, a mapping advised
# so is mapped 2 MiB to an entry (README "The vector file in huge
# pages"); the file is written 2 MiB at a time for the same reason.
test_expect_success STRACE 'the vector file is written in 2 MiB pieces; it and the word vectors are mapped with huge-page advice' '
	(cd repo && strace -f -y -e trace=write -o ../wtrace kbx index --rebuild -q) &&
	grep "vectors.kbxv" wtrace >writes &&
	test_file_not_empty writes &&
	# under 2 MiB: the vectors in one write, the trailer in another
	test $(wc -l <writes) -le 2 &&
	(cd repo && strace -y -e trace=mmap,madvise -o ../mtrace \
		kbx search --mode=vector "split record fields") &&
	# the first 2 MiB of the vector file (before its header is read), the
	# file, the word vectors
	grep -c "MADV_HUGEPAGE" mtrace >advised &&
	echo 3 >expect &&
	test_cmp expect advised
'

test_done
