#!/bin/sh

test_description='kbx serve: the page in a real browser

Headless Chromium loads the page of kbx serve with a link that picks a
repository, asks a question and draws the graph around a symbol; the
test reads the document as the page built it (--dump-dom): the
repository list, the plan, the nodes with their paths from the seed,
the chunks with their text and path:line, and the SVG picture with its
nodes and its ambiguous edges dashed; text from the repository that
looks like markup stays text; and a screenshot of the page, reduced to
a coarse grid of ink, shade and blank cells and compared with the one
in tests/serve/page-layout.txt: it matches under other fonts, and not
when the answer or the graph is missing.  Skipped without chromium
(Debian: chromium).'

. ./test-lib.sh
. "$TEST_DIRECTORY/mcp/fixture.sh"

command -v chromium >/dev/null 2>&1 || test_skip 'chromium is not installed'
command -v curl >/dev/null 2>&1 || test_skip 'curl is not installed'
python3 -c 'import html.parser' 2>/dev/null || test_skip 'python3 is not installed'

# browse URL-PATH: the document after the page's scripts ran, into dom
browse () {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$TRASH_DIRECTORY/chromium" --virtual-time-budget=15000 \
		--dump-dom "http://127.0.0.1:$PORT$1" >dom 2>chromium.err
}

# page EXPR: print the Python expression EXPR of the document in dom,
# with text(ID) the text of an element, items(ID) the texts of its
# <li>, tags(NAME) the attributes of each element NAME
page () {
	python3 - "$1" <<-\PY
	import html.parser, json, sys
	class P(html.parser.HTMLParser):
	    def __init__(self):
	        super().__init__()
	        self.stack, self.text, self.li, self.tags = [], {}, {}, []
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        self.tags.append((tag, a))
	        if tag in ("meta", "link", "input", "br", "img"):
	            return
	        self.stack.append((tag, a.get("id")))
	        if tag == "li":
	            for t, i in reversed(self.stack[:-1]):
	                if i:
	                    self.li.setdefault(i, []).append("")
	                    break
	    def handle_endtag(self, tag):
	        while self.stack:
	            t, i = self.stack.pop()
	            if t == tag:
	                break
	    def handle_data(self, data):
	        for t, i in self.stack:
	            if i:
	                self.text[i] = self.text.get(i, "") + data
	        if any(t == "li" for t, i in self.stack):
	            for t, i in reversed(self.stack):
	                if i and i in self.li:
	                    self.li[i][-1] += data
	                    break
	p = P()
	p.feed(open("dom", encoding="utf-8").read())
	text = lambda i: " ".join(p.text.get(i, "").split())
	items = lambda i: [" ".join(s.split()) for s in p.li.get(i, [])]
	tags = lambda n: [a for t, a in p.tags if t == n]
	v = eval(sys.argv[1])
	print(v if isinstance(v, str) else json.dumps(v))
	PY
}

test_expect_success 'setup: a small C repository with an ambiguous call, indexed, listed and served' '
	mcp_fixture_repo repo &&
	printf "int helper(void) { return 1; }\n" >repo/x.c &&
	printf "int helper(void) { return 2; }\n" >repo/y.c &&
	printf "int helper(void);\nint use_helper(void) { return helper(); }\n" >repo/z.c &&
	(cd repo && kbx index -q) &&
	kbx repos add --name=calc repo &&
	{
		(cd repo && exec kbx serve --listen=127.0.0.1:0 >../serve.out 2>../serve.err) &
	} &&
	SERVE_PID=$! &&
	i=0 &&
	until grep -q "listening" serve.out 2>/dev/null
	do
		i=$((i + 1)) &&
		test $i -lt 100 &&
		sleep 0.1 || return 1
	done &&
	PORT=$(sed -n "s|.*127.0.0.1:\([0-9]*\)/\$|\1|p" serve.out) &&
	test -n "$PORT"
'

test_expect_success 'the page lists the repositories, picks one, asks and draws' '
	browse "/?repo=calc&q=who+calls+add_numbers&symbol=compute_total" &&
	page "tags(\"body\")[0].get(\"data-ready\")" >actual &&
	echo yes >expect &&
	test_cmp expect actual &&
	page "[o.get(\"value\") for o in tags(\"option\")]" >actual &&
	echo "[\"\", \"calc\"]" >expect &&
	test_cmp expect actual &&
	page "text(\"repo\")" >actual &&
	test_grep "calc (ok, 5 files)" actual
'

test_expect_success 'the plan: the traversal and the seed with its path:line' '
	page "text(\"plan\")" >actual &&
	test_grep "traversal: callers" actual &&
	test_grep "seed add_numbers (function, from symbol) calc.c:1" actual
'

test_expect_success 'the nodes reached, each with its path from the seed' '
	page "len(items(\"nodes\"))" >actual &&
	echo 1 >expect &&
	test_cmp expect actual &&
	page "items(\"nodes\")[0]" >actual &&
	test_grep "^scale function calc.c:2 certain, score 0.350" actual &&
	test_grep "from the seed: add_numbers → scale\$" actual
'

test_expect_success 'the chunks with their text and path:line' '
	page "items(\"chunks\")[0]" >actual &&
	test_grep "^scale calc.c:2 code: hybrid callers #1" actual &&
	test_grep "int scale(int x) { return add_numbers(x, x); }" actual &&
	page "len(items(\"chunks\"))" >count &&
	test "$(cat count)" -ge 3
'

test_expect_success 'the graph: callers to the left, callees to the right, two hops' '
	page "text(\"graph\")" &&
	page "[a.get(\"class\") for a in tags(\"g\")]" >actual &&
	echo "[\"node center\", \"node\", \"node\", \"node\"]" >expect &&
	test_cmp expect actual &&
	page "[a.get(\"class\") for a in tags(\"path\") if \"edge\" in a.get(\"class\", \"\")]" >actual &&
	echo "[\"edge\", \"edge\", \"edge\"]" >expect &&
	test_cmp expect actual &&
	page "text(\"graph\")" >actual &&
	for node in mainmain.c:2 compute_totalcalc.c:3 scalecalc.c:2 add_numberscalc.c:1
	do
		test_grep "$node" actual || return 1
	done
'

test_expect_success 'an ambiguous call is drawn dashed' '
	browse "/?repo=calc&symbol=use_helper" &&
	page "[(a.get(\"class\"), a.get(\"stroke-dasharray\")) for a in tags(\"path\") if \"edge\" in a.get(\"class\", \"\")]" >actual &&
	echo "[[\"edge ambiguous\", \"5 4\"], [\"edge ambiguous\", \"5 4\"]]" >expect &&
	test_cmp expect actual
'

test_expect_success 'a symbol with no definition: the reason where the picture would be' '
	browse "/?repo=calc&symbol=no_such_function" &&
	page "text(\"graph\")" >actual &&
	echo "no picture: no definition of no_such_function" >expect &&
	test_cmp expect actual
'

test_expect_success 'markup in the repository stays text in the page' '
	cat >repo/evil.c <<-\EOF &&
	const char *evil_markup(void) { return "<img src=x onerror=\"document.body.dataset.pwned=1\"> <b>bold</b>"; }
	EOF
	(cd repo && kbx index -q) &&
	browse "/?repo=calc&q=img+onerror+evil_markup&symbol=evil_markup" &&
	page "tags(\"body\")[0].get(\"data-pwned\")" >actual &&
	echo null >expect &&
	test_cmp expect actual &&
	page "tags(\"img\") + tags(\"b\")" >actual &&
	echo "[]" >expect &&
	test_cmp expect actual &&
	page "text(\"chunks\")" >actual &&
	test_grep "<img src=x onerror=" actual
'

# shot FILE URL-PATH [WIDTH]: a screenshot of the page, WIDTH (1200) by
# 900 pixels, into FILE
shot () {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
		--user-data-dir="$TRASH_DIRECTORY/chromium" --virtual-time-budget=15000 \
		--window-size=${3:-1200},900 --screenshot="$TRASH_DIRECTORY/$1" \
		"http://127.0.0.1:$PORT$2" 2>chromium.err
}

# layout grid|compare ...: tests/serve/layout.py, which prints what does
# not match when the comparison fails
layout () {
	python3 "$TEST_DIRECTORY/serve/layout.py" "$@" >layout.out
	layout_rc_=$?
	cat layout.out
	test $layout_rc_ = 0 || sed "s/^/# /" layout.out >&3
	return $layout_rc_
}

test_expect_success 'a screenshot of the page has the layout of the reference' '
	shot page.png "/?repo=calc&q=who+calls+add_numbers&symbol=compute_total" &&
	layout grid page.png >grid &&
	test_line_count = 30 grid &&
	layout compare "$TEST_DIRECTORY/serve/page-layout.txt" page.png >out &&
	cat out
'

test_lazy_prereq OTHER_FONTS 'fc-list : family | grep -q "^Liberation Sans" && fc-list : family | grep -q "^Liberation Mono"'

test_expect_success OTHER_FONTS 'under other fonts the layout still matches' '
	cat >fonts.conf <<-\EOF &&
	<?xml version="1.0"?>
	<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
	<fontconfig>
	  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
	  <match target="pattern"><test name="family"><string>sans-serif</string></test>
	    <edit name="family" mode="prepend" binding="strong"><string>Liberation Sans</string></edit></match>
	  <match target="pattern"><test name="family"><string>system-ui</string></test>
	    <edit name="family" mode="prepend" binding="strong"><string>Liberation Sans</string></edit></match>
	  <match target="pattern"><test name="family"><string>monospace</string></test>
	    <edit name="family" mode="prepend" binding="strong"><string>Liberation Mono</string></edit></match>
	</fontconfig>
	EOF
	rm -rf chromium &&
	(
		FONTCONFIG_FILE="$TRASH_DIRECTORY/fonts.conf" &&
		export FONTCONFIG_FILE &&
		shot fonts.png "/?repo=calc&q=who+calls+add_numbers&symbol=compute_total"
	) &&
	rm -rf chromium &&
	! cmp -s page.png fonts.png &&
	layout compare "$TEST_DIRECTORY/serve/page-layout.txt" fonts.png
'

test_expect_success 'the layout comparison fails on a page without results or graph' '
	shot empty.png "/?repo=calc" &&
	test_expect_code 1 layout compare "$TEST_DIRECTORY/serve/page-layout.txt" empty.png >out &&
	test_grep "cells do not match" out
'

test_expect_success 'the layout comparison fails on a page with the graph but no answer' '
	shot nograph.png "/?repo=calc&symbol=compute_total" &&
	test_expect_code 1 layout compare "$TEST_DIRECTORY/serve/page-layout.txt" nograph.png >out
'

test_expect_success 'stop the server' '
	kill -TERM $SERVE_PID &&
	wait $SERVE_PID
'

test_done
