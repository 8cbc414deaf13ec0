#!/bin/sh
test_description='kbx index: the <script> blocks of Vue and Svelte components

A .vue or .svelte file is read through its <script> blocks, as
JavaScript, or as TypeScript when a block says lang="ts" (the file is
then vue-ts or svelte-ts); every other byte is blanked, so lines and
columns are those of the whole file.  Blocks of another type or lang
are not code.'

. "$(dirname "$0")"/test-lib.sh

# lang_of PATH: the language kbx gives the definitions of PATH.
lang_of () {
	kbx defines --format=json "$1" >defs.json &&
	sed -n 's/.*"lang":"\([a-z-]*\)".*/\1/p' defs.json | sort -u
}

test_expect_success 'set up components in JavaScript and TypeScript' '
	git init -q repo &&
	mkdir -p repo/src &&
	cat >repo/src/Plain.vue <<-\EOF &&
	<template>
	  <p>{{ hello() }}</p>
	</template>

	<script>
	export function hello() { return 1 }
	</script>
	EOF
	cat >repo/src/Typed.vue <<-\EOF &&
	<script setup lang="ts">
	interface Shape { area(): number }
	function twice(n: number): number { return n * 2 }
	</script>
	EOF
	cat >repo/src/Typed.svelte <<-\EOF &&
	<script lang="typescript">
	  export let size: number
	  function grow(by: number): number { return size + by }
	</script>
	<p>{size}</p>
	EOF
	cat >repo/src/Other.vue <<-\EOF &&
	<script type="text/x-template" id="t"><li>{{ notCode() }}</li></script>
	<script lang="coffee">
	notCoffee = -> 1
	</script>
	<script>function kept() {}</script>
	EOF
	printf "<template><p>no script</p></template>\n" >repo/src/Bare.vue &&
	printf "<script>\nfunction open() { more() }\n" >repo/src/Open.svelte &&
	(cd repo && kbx index -q)
'

test_expect_success 'a component is JavaScript, or TypeScript when a block says so' '
	(cd repo && lang_of src/Plain.vue) >actual && echo vue >expect && test_cmp expect actual &&
	(cd repo && lang_of src/Typed.vue) >actual && echo vue-ts >expect && test_cmp expect actual &&
	(cd repo && lang_of src/Typed.svelte) >actual && echo svelte-ts >expect && test_cmp expect actual &&
	(cd repo && kbx defines --format=json src/Typed.vue) >defs.json &&
	test_grep "\"id\":\"src/Typed.vue#Shape\"" defs.json
'

test_expect_success 'lines and columns are those of the whole file' '
	(cd repo && kbx defines --format=json src/Plain.vue) >defs.json &&
	test_grep "\"id\":\"src/Plain.vue#hello\".*\"line\":6,\"col\":8," defs.json &&
	(cd repo && kbx defines --format=json src/Typed.svelte) >defs.json &&
	test_grep "\"id\":\"src/Typed.svelte#grow\".*\"line\":3,\"col\":3," defs.json
'

test_expect_success 'the markup, templates and other languages are not code' '
	(cd repo && kbx callers --format=json src/Plain.vue#hello >callers.json ||
	 test $? = 1) &&
	test_grep ! "\"sites\"" repo/callers.json &&
	(cd repo && kbx defines --format=json src/Other.vue) >defs.json &&
	test_grep "src/Other.vue#kept" defs.json &&
	test_grep ! notCoffee defs.json &&
	(cd repo && kbx callees --format=json src/Other.vue >out.json || test $? = 1) &&
	test_grep ! notCode repo/out.json
'

test_expect_success 'no script, or one left open, is no error' '
	(cd repo && kbx defines --format=json src/Bare.vue >defs.json || test $? = 1) &&
	test_grep ! "\"kind\":\"function\"" repo/defs.json &&
	(cd repo && kbx callees --format=json src/Open.svelte#open) >out.json &&
	test_grep "\"name\":\"more\"" out.json
'

test_expect_success 'the language follows a block that changes its lang' '
	sed "s/ lang=\"ts\"//; s/^interface.*//; s/: number//g" repo/src/Typed.vue >tmp &&
	mv tmp repo/src/Typed.vue &&
	(cd repo && kbx index -q && lang_of src/Typed.vue) >actual &&
	echo vue >expect && test_cmp expect actual &&
	(cd repo && kbx index --format=json) >index.json &&
	test_grep "\"parsed\":0," index.json
'

test_done
