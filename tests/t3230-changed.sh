#!/bin/sh
test_description='kbx changed: definitions added, removed or changed by body, against the working tree or a git revision'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a repository with a call chain' '
	git init -q repo &&
	(cd repo && git config user.name Tester && git config user.email tester@example.com) &&
	cat >repo/core.py <<-\EOF &&
	def parse(text):
	    # split on white space
	    return text.split()


	def load(path):
	    return parse(open(path).read())


	def spare():
	    return 0
	EOF
	cat >repo/app.py <<-\EOF &&
	from core import load


	def run(path):
	    return load(path)


	def main():
	    return run("x")
	EOF
	cat >repo/util.c <<-\EOF &&
	static int twice(int x)
	{
		return 2 * x;
	}

	int quad(int x)
	{
		return twice(twice(x));
	}
	EOF
	(cd repo && git add . && git commit -qm base && kbx index -q)
'

test_expect_success 'a fresh index: nothing changed (exit 1), for every format' '
	(cd repo && test_expect_code 1 kbx changed >../out &&
	 test_expect_code 1 kbx changed --format=json >>../out &&
	 test_expect_code 1 kbx changed HEAD >>../out) &&
	test_must_be_empty out
'

test_expect_success 'white space and comments are not a change' '
	(cd repo &&
	 sed -e "s/# split on white space/# split the text/" \
	     -e "s/return text.split()/return  text.split( )/" core.py >tmp && mv tmp core.py &&
	 sed -e "s|2 \* x;|2*x; /* double */|" util.c >tmp && mv tmp util.c &&
	 test_grep "2\*x; /\* double" util.c &&
	 test_grep "split( )" core.py &&
	 test_expect_code 1 kbx changed >../out) &&
	test_must_be_empty out
'

test_expect_success 'a body edit is a change; the index against the working tree' '
	(cd repo && sed "s/text.split( )/text.split(\",\")/" core.py >tmp && mv tmp core.py &&
	 kbx changed >../out) &&
	cat >expect <<-\EOF &&
	changed
	  core.py:1  parse (function)
	EOF
	test_cmp expect out
'

test_expect_success 'added and removed definitions' '
	(cd repo &&
	 sed "/^def spare/,\$d" core.py >tmp && mv tmp core.py &&
	 printf "\n\ndef extra():\n    return 1\n" >>app.py &&
	 kbx changed --format=grep >../out) &&
	cat >expect <<-\EOF &&
	core.py:1:1: changed function parse
	app.py:12:1: added function extra
	core.py:10:1: removed function spare
	EOF
	test_cmp expect out
'

test_expect_success 'body hashes follow an incremental index: nothing left to report' '
	(cd repo && kbx index -q &&
	 test_expect_code 1 kbx changed >../out) &&
	test_must_be_empty out
'

test_expect_success 'a function moved within its file: not a change, but --moved lists it' '
	(cd repo && cat >app.py <<-\EOF &&
	from core import load


	def main():
	    return run("x")


	def run(path):
	    return load(path)


	def extra():
	    return 1
	EOF
	 test_expect_code 1 kbx changed >../out &&
	 kbx changed --moved --format=json >../moved.json) &&
	test_must_be_empty out &&
	test_grep "\"id\":\"app.py#main\".*\"status\":\"moved\".*\"old_line\":8" moved.json &&
	test_grep "\"id\":\"app.py#run\".*\"status\":\"moved\"" moved.json &&
	test_line_count = 2 moved.json
'

test_expect_success 'a renamed file: its definitions moved, not removed and added' '
	(cd repo && kbx index -q && mv util.c calc.c &&
	 test_expect_code 1 kbx changed >../out &&
	 kbx changed --moved >../moved) &&
	test_must_be_empty out &&
	test_grep "calc.c:6  quad (function)  was util.c:6" moved
'

test_expect_success 'a revision against the index' '
	(cd repo && kbx index -q && git add -A && kbx changed HEAD --format=json >../out.json) &&
	test_grep "\"id\":\"core.py#parse\".*\"status\":\"changed\"" out.json &&
	test_grep "\"id\":\"core.py#spare\".*\"path\":\"core.py\",\"line\":10.*\"status\":\"removed\"" out.json &&
	test_grep "\"id\":\"app.py#extra\".*\"status\":\"added\"" out.json &&
	test_grep ! "quad\|twice\|app.py#main\|app.py#run" out.json &&
	test_line_count = 3 out.json
'

test_expect_success 'a revision: the renamed file is matched by git, --moved shows it' '
	(cd repo && kbx changed --moved HEAD --format=grep >../out) &&
	test_grep "^calc.c:6:1: moved function quad" out &&
	test_grep ! "removed function quad" out
'

test_expect_success 'a revision: a stale index is compared as it is, with a warning' '
	(cd repo && cp app.py ../app.py.saved &&
	 printf "\ndef late():\n    return 2\n" >>app.py &&
	 kbx changed HEAD --format=nul >../out 2>../err &&
	 cp ../app.py.saved app.py) &&
	test_grep "differs from the index.*app.py.*kbx index" err &&
	printf "core.py#parse\0app.py#extra\0core.py#spare\0" >expect &&
	test_cmp expect out
'

test_expect_success '--callers --transitive: transitive callers of changed functions' '
	(cd repo && kbx changed HEAD --callers --transitive --format=json >../out.json) &&
	test_grep "\"type\":\"affected\",\"id\":\"core.py#load\".*\"distance\":1.*\"from\":\"core.py#parse\"" out.json &&
	test_grep "\"type\":\"affected\",\"id\":\"app.py#run\".*\"distance\":2" out.json &&
	test_grep "\"type\":\"affected\",\"id\":\"app.py#main\".*\"distance\":3" out.json
'

test_expect_success '--callers: the direct callers by default, and the text format' '
	(cd repo && kbx changed HEAD --callers >../out) &&
	cat >expect <<-\EOF &&
	changed
	  core.py:1  parse (function)

	added
	  app.py:12  extra (function)

	removed
	  core.py:10  spare (function)

	distance 1: direct callers
	  core.py:6  load (function)
	EOF
	test_cmp expect out &&
	(cd repo && kbx changed HEAD --callers --depth=1 >../out1) &&
	test_cmp expect out1
'

test_expect_success '--callers --depth=2, and --depth=0 as --transitive' '
	(cd repo && kbx changed HEAD --callers --depth=2 --format=grep >../out) &&
	test_grep "^core.py:6:1: affected load (distance 1)" out &&
	test_grep "^app.py:[0-9]*:1: affected run (distance 2)" out &&
	test_grep ! "(distance 3)" out &&
	(cd repo && kbx changed HEAD --callers --depth=0 --format=grep >../all) &&
	(cd repo && kbx changed HEAD --callers -t --format=grep >../t) &&
	test_cmp all t &&
	test_grep "affected main (distance 3)" all
'

test_expect_success '--callers of a function removed from the index: who still calls its name' '
	(cd repo && git commit -qm second && kbx index -q &&
	 sed "/^def load/,\$d" core.py >tmp && mv tmp core.py && kbx index -q &&
	 kbx changed HEAD --callers --depth=2 --format=grep >../out) &&
	test_grep "^core.py:6:1: removed function load" out &&
	test_grep "^app.py:8:1: affected run (distance 1)" out &&
	test_grep "^app.py:4:1: affected main (distance 2)" out
'

test_expect_success 'a bad revision is an error (exit 2)' '
	(cd repo && test_expect_code 2 kbx changed no-such-branch >../out 2>../err) &&
	test_must_be_empty out &&
	test_grep "unknown revision .no-such-branch." err
'

test_expect_success 'more than one revision is a usage error' '
	(cd repo && test_expect_code 2 kbx changed HEAD HEAD 2>../err) &&
	test_grep "at most one revision" err
'

test_expect_success 'outside a git repository: a revision is an error, the working tree works' '
	mkdir plain &&
	printf "def f():\n    return 1\n" >plain/m.py &&
	(cd plain && kbx index -q &&
	 test_expect_code 2 kbx changed HEAD 2>../err &&
	 printf "def f():\n    return 2\n" >m.py &&
	 kbx changed --format=grep >../out) &&
	test_grep "not in a git repository (git: .fatal: not a git repository" err &&
	echo "m.py:1:1: changed function f" >expect &&
	test_cmp expect out
'

test_lazy_prereq GIT_OWNER_KNOB '
	git init -q owner-probe &&
	! env GIT_TEST_ASSUME_DIFFERENT_OWNER=1 git -C owner-probe rev-parse 2>/dev/null
'

test_expect_success GIT_OWNER_KNOB 'a repository git refuses for its owner: git says why, and what to do' '
	(cd repo && test_expect_code 2 env GIT_TEST_ASSUME_DIFFERENT_OWNER=1 \
		kbx changed HEAD >../out 2>../err) &&
	test_must_be_empty out &&
	test_line_count = 1 err &&
	test_grep "^error: git refuses to work in .*: .fatal: [^\x27]*ownership" err &&
	test_grep "git.s safe.directory, as git says: .git config --global --add safe.directory .*/repo" err &&
	test_grep ! "not in a git repository" err
'

test_expect_success 'ignored files are not new code' '
	(cd plain && mkdir vendor && printf "def v():\n    return 1\n" >vendor/v.py &&
	 echo vendor >.kbxignore && test_expect_code 0 kbx changed --format=grep >../out) &&
	test_grep ! vendor out
'

test_expect_success 'a store of schema 2 is refused with advice' '
	"$KBX_TEST_UNIT/store-set-meta" plain/.kbx schema 2 &&
	(cd plain && test_expect_code 4 kbx changed 2>../err) &&
	test_grep "schema version 2 but this kbx uses version 4" err &&
	(cd plain && kbx index -q --rebuild && test_expect_code 1 kbx changed)
'

test_expect_success 'headers read as C++ or Objective-C, and a TypeScript component: unchanged' '
	git init -q hdr &&
	(cd hdr && git config user.name Tester && git config user.email tester@example.com) &&
	cat >hdr/shape.h <<-\EOF &&
	class Shape {
	public:
	  int area();
	};
	EOF
	cat >hdr/view.h <<-\EOF &&
	@interface View : NSObject
	- (void)draw;
	@end
	EOF
	cat >hdr/card.vue <<-\EOF &&
	<script lang="ts">
	function size(x: number): number { return x }
	</script>
	EOF
	(cd hdr && git add . && git commit -qm base && kbx index -q &&
	 kbx status >../status &&
	 test_expect_code 1 kbx changed HEAD >../out 2>../err &&
	 touch shape.h view.h card.vue &&
	 test_expect_code 1 kbx changed HEAD >>../out 2>>../err &&
	 test_expect_code 1 kbx changed >>../out 2>>../err) &&
	test_grep "^files_cpp: 1" status &&
	test_grep "^files_objc: 1" status &&
	test_grep "^files_vue-ts: 1" status &&
	test_must_be_empty out &&
	test_must_be_empty err
'

test_expect_success 'a header whose text changed is still reported' '
	(cd hdr && cp shape.h ../shape.h.saved &&
	 printf "class Circle {\npublic:\n  int r() { return 1; }\n};\n" >>shape.h &&
	 test_expect_code 1 kbx changed HEAD --format=grep >../out 2>../err &&
	 kbx changed --format=grep >../wt &&
	 printf "int plain(void) { return 0; }\n" >shape.h &&
	 kbx changed --format=grep >../toc &&
	 cp ../shape.h.saved shape.h) &&
	test_grep "differs from the index (first .shape.h.)" err &&
	test_grep ! "view.h\|card.vue" err &&
	test_must_be_empty out &&
	test_grep "^shape.h:[0-9]*:[0-9]*: added .*Circle" wt &&
	test_grep "^shape.h:1:1: added function plain" toc &&
	test_grep "^shape.h:1:1: removed class Shape" toc
'

test_expect_success 'a bad --format is refused before git runs or a file is read' '
	mkdir -p fakebin &&
	real_git=$(command -v git) &&
	printf "#!/bin/sh\necho ran >>\"%s/git-ran\"\nexec \"%s\" \"\$@\"\n" \
		"$(pwd)" "$real_git" >fakebin/git &&
	chmod +x fakebin/git &&
	(cd hdr && echo "// edited" >>shape.h &&
	 PATH="$(pwd)/../fakebin:$PATH" &&
	 test_expect_code 2 kbx changed --format=dot HEAD >../out 2>../err &&
	 test_expect_code 2 kbx changed --format=mermaid --callers HEAD >>../out 2>>../err &&
	 test_expect_code 2 kbx changed --format-version=99 HEAD >>../out 2>>../err &&
	 test_expect_code 2 kbx changed --format=dot >>../out 2>>../err &&
	 git checkout -q shape.h) &&
	(cd plain && PATH="$(pwd)/../fakebin:$PATH" &&
	 test_expect_code 2 kbx changed --format=dot HEAD 2>>../err) &&
	test_must_be_empty out &&
	test_line_count = 5 err &&
	test_grep ! "warning\|git repository" err &&
	test_grep "^error: --format=dot draws edges" err &&
	test_grep "^error: --format=mermaid draws edges" err &&
	test_grep "^error: --format-version=99 is not supported" err &&
	echo ran >expect &&
	test_cmp expect git-ran
'

test_unit body-hash

test_done
