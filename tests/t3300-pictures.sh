#!/bin/sh
test_description='pictures of the graph: --format=dot and --format=mermaid

callers, callees, imports, importers, subclasses, impact, path and cycles
draw their edges as Graphviz DOT and Mermaid: nodes grouped by file, the
node asked about drawn bold, ambiguous calls dashed; names and paths from
the repository cannot break out of a label; commands that print no edges
refuse the formats.'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a Python repository with an ambiguous call and odd paths' '
	git init -q repo &&
	mkdir -p "repo/we\"ird<dir>&x" &&
	cat >repo/store.py <<-\EOF &&
	def write_file(data):
	    return data


	class Disk:
	    def save(self, data):
	        return write_file(data)


	class Cloud:
	    def save(self, data):
	        return write_file(data)


	class Base:
	    pass


	class Child(Base):
	    pass
	EOF
	cat >repo/app.py <<-\EOF &&
	from store import write_file


	def persist(target, data):
	    target.save(data)


	def quick(data):
	    return write_file(data)


	def ping(n):
	    return pong(n)


	def pong(n):
	    return ping(n)
	EOF
	cat >"repo/we\"ird<dir>&x/odd.py" <<-\EOF &&
	from store import write_file


	def odd(data):
	    return write_file(data)
	EOF
	(cd repo && kbx index -q)
'

test_expect_success 'callers --format=dot: a digraph, files as clusters, the query bold' '
	(cd repo && kbx callers --format=dot write_file) >out.dot &&
	head -n 1 out.dot >first &&
	echo "digraph \"callers of store.py#write_file\" {" >expect &&
	test_cmp expect first &&
	test_grep "subgraph cluster_" out.dot &&
	test_grep "label=\"app.py\"" out.dot &&
	test_grep "label=\"quick\\\\n:8\"" out.dot &&
	test_grep "label=\"write_file\\\\n:1\", penwidth=2.5, style=bold" out.dot &&
	test_grep "label=\"Disk.save\\\\n:6\"" out.dot &&
	test $(grep -c " -> " out.dot) = 4 &&
	tail -n 1 out.dot >last &&
	echo "}" >expect &&
	test_cmp expect last
'

test_expect_success 'a path with quotes, < > and & stays inside its DOT label' '
	test_grep "label=\"we\\\\\"ird<dir>&x/odd.py\"" out.dot
'

test_expect_success 'an ambiguous call is dashed; a certain one is not' '
	(cd repo && kbx callees --format=dot persist) >callees.dot &&
	test $(grep -c " -> .*style=dashed" callees.dot) = 2 &&
	(cd repo && kbx callees --format=dot quick) >quick.dot &&
	test_grep " -> " quick.dot &&
	test_grep ! "dashed" quick.dot
'

test_expect_success 'mermaid: a flowchart, subgraphs per file, dotted arrows for ambiguous calls' '
	(cd repo && kbx callees --format=mermaid persist) >callees.mmd &&
	sed -n 2p callees.mmd >second &&
	echo "flowchart LR" >expect &&
	test_cmp expect second &&
	test_grep "^  subgraph f[0-9]*\\[\"store.py\"\\]" callees.mmd &&
	test $(grep -c " -\\.-> " callees.mmd) = 2 &&
	test_grep "^  class n[0-9]* start$" callees.mmd
'

test_expect_success 'mermaid labels hold no markup from the repository' '
	(cd repo && kbx callers --format=mermaid write_file) >callers.mmd &&
	test_grep "we#34;ird#60;dir#62;#38;x/odd.py" callers.mmd &&
	test_grep ! "<dir>" callers.mmd
'

test_expect_success 'every node an edge names is declared, in DOT and Mermaid' '
	for f in out.dot callees.dot callers.mmd callees.mmd; do
		sed -n "s/.*\\(n[0-9][0-9]*\\) -[-.>]*.* \\(n[0-9][0-9]*\\).*/\\1\\n\\2/p" $f |
			sort -u >used &&
		sed -n "s/^[[:space:]]*\\(n[0-9][0-9]*\\)[[:space:]]*\\[.*/\\1/p" $f | sort -u >declared &&
		comm -23 used declared >missing &&
		test_must_be_empty missing || return 1
	done
'

test_expect_success 'path, cycles, subclasses, imports and impact draw pictures too' '
	(cd repo && kbx path --format=dot persist write_file) >path.dot &&
	test_grep "paths from app.py#persist to store.py#write_file" path.dot &&
	test $(grep -c " -> " path.dot) = 2 &&
	(cd repo && kbx cycles --format=mermaid) >cycles.mmd &&
	test_grep " --> " cycles.mmd &&
	test $(grep -c -- "-->" cycles.mmd) = 2 &&
	(cd repo && kbx subclasses --format=dot Base) >sub.dot &&
	test_grep "Child" sub.dot &&
	(cd repo && kbx importers --format=dot store.py) >imp.dot &&
	test $(grep -c " -> " imp.dot) = 2 &&
	(cd repo && kbx impact --format=dot write_file) >impact.dot &&
	test_grep "label=\"distance 1\"" impact.dot &&
	test_grep "label=\"distance 2\"" impact.dot
'

test_lazy_prereq DOT '
	dot -V
'

test_expect_success DOT 'Graphviz reads every picture' '
	for f in out.dot callees.dot path.dot sub.dot imp.dot impact.dot; do
		dot -Tsvg "$f" -o "$f.svg" || return 1
	done
'

# The Mermaid parser: mermaid.parse() of the pinned npm package (make
# mermaid-deps), run by headless Chromium.
MERMAID_JS=$test_build_dir_/npm-mermaid/mermaid.min.js
test_lazy_prereq MERMAID '
	test -f "$MERMAID_JS" && command -v chromium && command -v python3
'

test_expect_success MERMAID 'the Mermaid parser reads every Mermaid picture, and refuses a broken one' '
	(cd repo && kbx callers --format=mermaid write_file) >m1.mmd &&
	(cd repo && kbx callees --format=mermaid persist) >m2.mmd &&
	(cd repo && kbx impact --format=mermaid write_file) >m3.mmd &&
	(cd repo && kbx path --format=mermaid persist write_file) >m4.mmd &&
	(cd repo && kbx cycles --format=mermaid) >m5.mmd &&
	(cd repo && kbx subclasses --format=mermaid Base) >m6.mmd &&
	(cd repo && kbx imports --format=mermaid app.py) >m7.mmd &&
	(cd repo && kbx importers --format=mermaid store.py) >m8.mmd &&
	(cd repo && kbx callers -d 2 --format=mermaid write_file) >m9.mmd &&
	sed "s/ --> / -->/; s/^  end\$/  end end/" m1.mmd >broken.mmd &&
	sh "$TEST_DIRECTORY/mermaid/check.sh" "$MERMAID_JS" m1.mmd m2.mmd m3.mmd m4.mmd m5.mmd \
		m6.mmd m7.mmd m8.mmd m9.mmd broken.mmd >parsed &&
	for f in m1 m2 m3 m4 m5 m6 m7 m8 m9
	do
		test_grep "^$f.mmd ok\$" parsed || return 1
	done &&
	test_grep "^broken.mmd error: " parsed
'

test_expect_success 'commands that print no edges refuse the formats' '
	(cd repo && test_expect_code 2 kbx defs --format=dot write_file) 2>err &&
	test_grep "draws edges" err &&
	(cd repo && test_expect_code 2 kbx status --format=mermaid) 2>err
'

test_done
