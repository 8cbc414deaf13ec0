#!/bin/sh

test_description='kbx --db --all-repos: calls between Java and npm repositories

A throwaway cluster as in t9000.  The Java and JavaScript/TypeScript
repositories of tests/corpora/cross-repo are indexed and pushed one by
one.  Java: a definition is java:PACKAGE.QUAL, PACKAGE from its file'"'"'s
package declaration (a comment that looks like one does not count),
public or protected only, in public or protected types; a call through
an import or a static import, or a call on a variable of an imported
type, is java:IMPORTED.NAME, so callers
--all-repos lists it in the other repository, certain when one
repository exports the name, ambiguous when two do (jfork); a file
changed since the index gets no link, with a warning.  npm: a
definition exported by the package of the root'"'"'s package.json is
npm:NAME.QUAL in the "main" file, npm:NAME/STEM.QUAL in another; import
and require of the package reach them; two repositories of one package
name are ambiguous; a malformed package.json, a symbolic link and a
name npm would not take give a warning and no npm: link.'

. ./test-lib.sh

TEST_NAME=t9030
. "$TEST_DIRECTORY/lib/pg-cluster.sh"

jfields () {
	python3 "$TEST_DIRECTORY/lib/jfields.py" "$@"
}

# links REPO: the links of the repository's nodes, "id link" a line
links () {
	sql "SELECT n.cid || ' ' || n.link FROM kbx.nodes n JOIN kbx.repos r ON r.id = n.repo
	     WHERE r.name = '$1' AND n.link IS NOT NULL ORDER BY n.cid"
}

test_expect_success 'a cluster of its own, on a socket, with a password' '
	pg_cluster_start
'

test_expect_success 'Java and npm repositories, pushed one by one' '
	for r in jtext jfork jreport ntext nfork nreport
	do
		cp -R "$CORPORA/cross-repo/$r" $r &&
		(cd $r && kbx index -q && kbx push -q --db="$DB" 2>../$r.err) &&
		test_must_be_empty $r.err || return 1
	done
'

test_expect_success 'Java: public definitions in public types are java:PACKAGE.QUAL' '
	links jtext >actual &&
	cat >expect <<-\EOF &&
	src/main/java/com/acme/text/Buffer.java#Buffer java:com.acme.text.Buffer
	src/main/java/com/acme/text/Buffer.java#Buffer.append java:com.acme.text.Buffer.append
	src/main/java/com/acme/text/Strings.java#Strings java:com.acme.text.Strings
	src/main/java/com/acme/text/Strings.java#Strings.Lines java:com.acme.text.Strings.Lines
	src/main/java/com/acme/text/Strings.java#Strings.Lines.count java:com.acme.text.Strings.Lines.count
	src/main/java/com/acme/text/Strings.java#Strings.center java:com.acme.text.Strings.center
	src/main/java/com/acme/text/Strings.java#Strings.pad java:com.acme.text.Strings.pad
	EOF
	test_cmp expect actual &&
	links jfork >actual &&
	cat >expect <<-\EOF &&
	com/acme/text/Strings.java#Strings java:com.acme.text.Strings
	com/acme/text/Strings.java#Strings.center java:com.acme.text.Strings.center
	EOF
	test_cmp expect actual
'

test_expect_success 'Java: calls through an import and a static import are java:PATH' '
	links jreport >actual &&
	cat >expect <<-\EOF &&
	extern:com.acme.text.Buffer java:com.acme.text.Buffer
	extern:com.acme.text.Buffer.append java:com.acme.text.Buffer.append
	extern:com.acme.text.Strings.Lines.count java:com.acme.text.Strings.Lines.count
	extern:com.acme.text.Strings.center java:com.acme.text.Strings.center
	extern:com.acme.text.Strings.pad java:com.acme.text.Strings.pad
	src/main/java/org/shop/Report.java#Report java:org.shop.Report
	src/main/java/org/shop/Report.java#Report.built java:org.shop.Report.built
	src/main/java/org/shop/Report.java#Report.line java:org.shop.Report.line
	src/main/java/org/shop/Report.java#Report.lines java:org.shop.Report.lines
	src/main/java/org/shop/Report.java#Report.padded java:org.shop.Report.padded
	src/main/java/org/shop/Report.java#Report.page java:org.shop.Report.page
	src/main/java/org/shop/Report.java#Report.title java:org.shop.Report.title
	EOF
	test_cmp expect actual
'

test_expect_success 'Java: a call on a variable of an imported type crosses too' '
	kbx --db="$DB" callers --all-repos --format=json Buffer.append >out.json &&
	jfields repo id to confidence <out.json >actual &&
	echo "jreport src/main/java/org/shop/Report.java#Report.built src/main/java/com/acme/text/Buffer.java#Buffer.append certain" >expect &&
	test_cmp expect actual
'

test_expect_success 'Java: callers --all-repos lists the callers in the other repository' '
	kbx --db="$DB" callers --all-repos --format=json Strings.pad >out.json &&
	jfields repo id to confidence via <out.json >actual &&
	cat >expect <<-\EOF &&
	jtext src/main/java/com/acme/text/Strings.java#Strings.center src/main/java/com/acme/text/Strings.java#Strings.pad certain same-class
	jreport src/main/java/org/shop/Report.java#Report.line src/main/java/com/acme/text/Strings.java#Strings.pad certain package
	jreport src/main/java/org/shop/Report.java#Report.padded src/main/java/com/acme/text/Strings.java#Strings.pad certain package
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" callers --all-repos --format=json Strings.Lines.count >out.json &&
	jfields repo id confidence <out.json >actual &&
	echo "jreport src/main/java/org/shop/Report.java#Report.lines certain" >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" --repo=jtext callers --format=json Strings.pad >out.json &&
	jfields id <out.json >actual &&
	echo "src/main/java/com/acme/text/Strings.java#Strings.center" >expect &&
	test_cmp expect actual
'

test_expect_success 'Java: depth 2 goes on in the calling repository' '
	kbx --db="$DB" callers --all-repos -d 2 --format=json Strings.pad >out.json &&
	jfields repo id depth <out.json >actual &&
	test_grep "^jreport src/main/java/org/shop/Report.java#Report.page 2$" actual
'

test_expect_success 'Java: two repositories of one package export center: ambiguous' '
	kbx --db="$DB" callers --all-repos --format=json center >out.json &&
	jfields type repo id confidence candidates <out.json >actual &&
	cat >expect <<-\EOF &&
	symbol jfork com/acme/text/Strings.java#Strings.center - -
	caller jreport src/main/java/org/shop/Report.java#Report.title ambiguous 2
	symbol jtext src/main/java/com/acme/text/Strings.java#Strings.center - -
	caller jreport src/main/java/org/shop/Report.java#Report.title ambiguous 2
	EOF
	test_cmp expect actual &&
	test_expect_code 1 kbx --db="$DB" callers --all-repos --certain --format=json center >out.json &&
	jfields type repo <out.json >actual &&
	printf "%s\n" "symbol jfork" "symbol jtext" >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" callees --all-repos --format=json Report.title >out.json &&
	jfields repo id confidence via <out.json >actual &&
	cat >expect <<-\EOF &&
	jfork com/acme/text/Strings.java#Strings.center ambiguous package
	jtext src/main/java/com/acme/text/Strings.java#Strings.center ambiguous package
	EOF
	test_cmp expect actual
'

test_expect_success 'Java: a file changed since the index gets no link, and a warning' '
	cp -R "$CORPORA/cross-repo/jtext" jstale &&
	(
		cd jstale &&
		kbx index -q &&
		echo "// edited" >>src/main/java/com/acme/text/Strings.java &&
		kbx push -q --db="$DB" 2>../err
	) &&
	test_grep "warning: 1 Java files changed since the index read them" err &&
	links jstale >actual &&
	test_grep ! Strings.java actual &&
	test_line_count = 2 actual &&
	(cd jstale && kbx index -q && kbx push -q --db="$DB" 2>../err) &&
	test_must_be_empty err &&
	links jstale >actual &&
	test_line_count = 7 actual
'

test_expect_success 'npm: exported definitions are npm:NAME.QUAL in main, npm:NAME/STEM.QUAL elsewhere' '
	links ntext >actual &&
	cat >expect <<-\EOF &&
	lib/index.js#pad npm:@acme/text.pad
	lib/index.js#shout npm:@acme/text.shout
	lib/wrap.js#wrap npm:@acme/text/lib/wrap.wrap
	EOF
	test_cmp expect actual &&
	links nfork >actual &&
	echo "index.ts#shout npm:@acme/text.shout" >expect &&
	test_cmp expect actual
'

test_expect_success 'npm: import and require of the package are npm:SPEC.NAME' '
	links nreport >actual &&
	cat >expect <<-\EOF &&
	extern:@acme/text.pad npm:@acme/text.pad
	extern:@acme/text.shout npm:@acme/text.shout
	extern:@acme/text/lib/wrap.wrap npm:@acme/text/lib/wrap.wrap
	src/report.ts#heading npm:nreport/src/report.heading
	src/report.ts#row npm:nreport/src/report.row
	EOF
	test_cmp expect actual
'

test_expect_success 'npm: callers --all-repos crosses from JavaScript and TypeScript' '
	kbx --db="$DB" callers --all-repos --format=json lib/index.js#pad >out.json &&
	jfields repo id to confidence via <out.json >actual &&
	cat >expect <<-\EOF &&
	nreport src/legacy.js#legacyRow lib/index.js#pad certain package
	nreport src/report.ts#row lib/index.js#pad certain package
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" callers --all-repos --format=json wrap >out.json &&
	jfields repo id confidence <out.json >actual &&
	echo "nreport src/report.ts#heading certain" >expect &&
	test_cmp expect actual
'

test_expect_success 'npm: two repositories of one package name export shout: ambiguous' '
	kbx --db="$DB" callers --all-repos --format=json shout >out.json &&
	jfields type repo id confidence candidates <out.json >actual &&
	cat >expect <<-\EOF &&
	symbol nfork index.ts#shout - -
	caller nreport src/report.ts#heading ambiguous 2
	symbol ntext lib/index.js#shout - -
	caller nreport src/report.ts#heading ambiguous 2
	EOF
	test_cmp expect actual
'

# npm_repo DIR: a repository exporting pad from index.js, with DIR's
# package.json as the test writes it next
npm_repo () {
	mkdir -p "$1" &&
	cp "$CORPORA/cross-repo/nbad/index.js" "$1"/
}

# no_npm_links DIR WHY: the push warns WHY and links nothing
no_npm_links () {
	(cd "$1" && kbx index -q && kbx push -q --db="$DB" 2>../err) &&
	test_grep "^warning: package.json: $2: its JavaScript and TypeScript definitions get no npm: links" err &&
	links "$1" >actual &&
	test_must_be_empty actual
}

test_expect_success 'npm: a malformed package.json: a warning, no links' '
	cp -R "$CORPORA/cross-repo/nbad" nbad &&
	no_npm_links nbad "not valid JSON (.* at byte 38)"
'

test_expect_success 'npm: a package.json that is a symbolic link is not followed' '
	npm_repo nlinked &&
	echo "{\"name\": \"@acme/text\"}" >good.json &&
	ln -s ../good.json nlinked/package.json &&
	no_npm_links nlinked "it is a symbolic link, which kbx never follows"
'

test_expect_success 'npm: a name npm would not take, a name that is not a string' '
	npm_repo nupper &&
	echo "{\"name\": \"Acme Text\"}" >nupper/package.json &&
	no_npm_links nupper "its \"name\" is not a package name npm would take" &&
	npm_repo nnumber &&
	echo "{\"name\": 7}" >nnumber/package.json &&
	no_npm_links nnumber "it has no \"name\" string" &&
	npm_repo narray &&
	echo "[\"pad\"]" >narray/package.json &&
	no_npm_links narray "it is no JSON object"
'

test_expect_success 'npm: a main outside the repository: the files'"'"' own paths only' '
	npm_repo nout &&
	echo "{\"name\": \"nout\", \"main\": \"../other/index.js\"}" >nout/package.json &&
	(cd nout && kbx index -q && kbx push -q --db="$DB" 2>../err) &&
	test_grep "warning: package.json: its \"main\" is no path inside the repository" err &&
	links nout >actual &&
	echo "index.js#pad npm:nout/index.pad" >expect &&
	test_cmp expect actual
'

test_expect_success 'npm: an "exports" map names the subpaths, conditions and patterns' '
	for r in nexp nexpuser
	do
		cp -R "$CORPORA/cross-repo/$r" $r &&
		(cd $r && kbx index -q && kbx push -q --db="$DB" 2>../$r.err) &&
		test_must_be_empty $r.err || return 1
	done &&
	links nexp >actual &&
	cat >expect <<-\EOF &&
	cjs/main.cjs#measure npm:@acme/exp.measure
	esm/main.mjs#measure npm:@acme/exp.measure
	lib/wrap.js#wrap npm:@acme/exp/wrap.wrap
	src/features/upper.js#shout npm:@acme/exp/feature/upper.shout
	EOF
	test_cmp expect actual &&
	kbx --db="$DB" callers --all-repos --format=json src/features/upper.js#shout >out.json &&
	jfields repo id confidence <out.json >actual &&
	echo "nexpuser src/use.js#banner certain" >expect &&
	test_cmp expect actual &&
	kbx --db="$DB" callers --all-repos --format=json lib/wrap.js#wrap >out.json &&
	jfields repo id confidence <out.json >actual &&
	test_grep "^nexpuser src/use.js#banner certain$" actual &&
	kbx --db="$DB" callers --all-repos --format=json esm/main.mjs#measure >out.json &&
	jfields repo id confidence <out.json >actual &&
	echo "nexpuser src/use.js#banner ambiguous" >expect &&
	test_cmp expect actual
'

test_expect_success 'npm: "exports" that name no file of the repository: a warning, no links' '
	npm_repo noexp &&
	echo "{\"name\": \"noexp\", \"exports\": {\"./x\": \"../elsewhere.js\"}}" >noexp/package.json &&
	(cd noexp && kbx index -q && kbx push -q --db="$DB" 2>../err) &&
	test_grep "warning: package.json: its \"exports\" name no file inside the repository" err &&
	links noexp >actual &&
	test_must_be_empty actual
'

test_done
