#!/bin/sh
test_description='kbx dead: functions nothing calls, and what it leaves out'

. "$(dirname "$0")"/test-lib.sh

test_expect_success 'set up a repository of five languages' '
	git init -q repo &&
	mkdir -p repo/app repo/tests repo/csrc repo/gosrc repo/java repo/web &&
	cat >repo/app/core.py <<-\EOF &&
	from http.server import BaseHTTPRequestHandler


	class Base:
	    def render(self):
	        return 0

	    def run(self):
	        return self.render()


	class Child(Base):
	    def __init__(self):
	        self.x = 1

	    def render(self):
	        return 2

	    def _unused_helper(self):
	        return 3


	class Handler(BaseHTTPRequestHandler):
	    def do_GET(self):
	        return None


	class Walker:
	    def _step(self):
	        return 1


	class Runner:
	    def _step(self):
	        return 2


	def _drive(obj):
	    return obj._step()


	def _private_dead():
	    return _drive(None)


	def public_api():
	    return _used() + _sorted([])


	def _used():
	    return 2


	def _by_key(x):
	    return x


	def _sorted(xs):
	    return sorted(xs, key=_by_key)


	def _legacy_thing():
	    return 0


	def _old_report():
	    return 0


	@app.route("/")
	def _index():
	    return "hi"


	@staticmethod
	def _wrapped_dead():
	    return 1
	EOF
	i=0 &&
	while test $i -lt 18
	do
		printf "class T%d:\n    def _tick(self):\n        return %d\n\n\n" $i $i || return 1
		i=$((i + 1))
	done >repo/app/ticks.py &&
	printf "def _call_ticks(x):\n    return x._tick()\n" >>repo/app/ticks.py &&
	cat >repo/tests/test_core.py <<-\EOF &&
	def test_core():
	    assert _helper()


	def _helper():
	    return True


	def _unused_in_tests():
	    return 1
	EOF
	cat >repo/csrc/util.c <<-\EOF &&
	#include <stdlib.h>

	static int unused_static(void)
	{
		return 1;
	}

	static int compare(const void *a, const void *b)
	{
		return *(const int *)a - *(const int *)b;
	}

	static int helper(int *v)
	{
		qsort(v, 2, sizeof(*v), compare);
		return v[0];
	}

	int exported_fn(void)
	{
		return 2;
	}

	int main(void)
	{
		int v[2] = { 2, 1 };
		return helper(v);
	}
	EOF
	cat >repo/gosrc/main.go <<-\EOF &&
	package main

	type shape interface {
		area() int
	}

	type sq struct{}

	func (s sq) area() int { return 1 }

	func (s sq) lonely() int { return 2 }

	func unusedLower() int { return 0 }

	func Exported() int { return 1 }

	func init() {}

	func main() {}
	EOF
	cat >repo/gosrc/main_test.go <<-\EOF &&
	package main

	import "testing"

	func TestArea(t *testing.T) {}
	EOF
	cat >repo/java/Zoo.java <<-\EOF &&
	class Animal {
	    void speak() {}
	}

	class Dog extends Animal {
	    Dog() {}

	    @Override
	    void speak() {}

	    private void secret() {}
	}

	class Cat extends Animal {
	    void speak() {}

	    public void purr() {}

	    public static void main(String[] args) {}
	}
	EOF
	cat >repo/web/app.ts <<-\EOF &&
	export function api(): number {
	  return 1;
	}

	function localDead(): number {
	  return 2;
	}

	class Box {
	  constructor() {}

	  get size(): number {
	    return 1;
	  }

	  hidden(): number {
	    return 3;
	  }
	}

	export class Shelf {
	  method(): number {
	    return 4;
	  }

	  #priv(): number {
	    return 5;
	  }
	}
	EOF
	(cd repo && git add . && git commit -qm base && kbx index -q)
'

test_expect_success 'the dead ones, by file and line, exit 0' '
	(cd repo && kbx dead --format=nul >../out 2>../err) &&
	tr "\0" "\n" <out >actual &&
	cat >expect <<-\EOF &&
	app/core.py#Child._unused_helper
	app/core.py#_private_dead
	app/core.py#_legacy_thing
	app/core.py#_old_report
	app/core.py#_wrapped_dead
	app/ticks.py#_call_ticks
	csrc/util.c#unused_static
	gosrc/main.go#shape.area
	gosrc/main.go#sq.lonely
	gosrc/main.go#unusedLower
	java/Zoo.java#Animal.speak
	java/Zoo.java#Dog.secret
	web/app.ts#localDead
	web/app.ts#Box.hidden
	web/app.ts#Shelf.#priv
	EOF
	test_cmp expect actual &&
	test_grep "^15 dead; 26 functions left out: 9 entry points, 5 overrides, 2 referenced, 7 exported, 3 tests" err
'

explain () {
	(cd repo && kbx dead --explain --format=json "$@" >../out.json) &&
	grep "\"id\":\"$1\"" out.json
}

test_expect_success 'a certain call keeps a function alive' '
	(cd repo && kbx dead --format=nul >../out) &&
	test_grep ! "_used" out &&
	test_grep ! "csrc/util.c#helper" out
'

test_expect_success 'an ambiguous call keeps every candidate alive' '
	(cd repo && kbx callers --format=json Walker._step >../callers.json) &&
	test_grep "\"confidence\":\"ambiguous\"" callers.json &&
	(cd repo && kbx dead --explain --format=nul >../out) &&
	test_grep ! "_step" out
'

test_expect_success 'a call through a name reference keeps every method of that name alive' '
	(cd repo && kbx callers --format=json T3._tick >../callers.json) &&
	test_grep "\"confidence\":\"ambiguous\"" callers.json &&
	(cd repo && kbx dead --explain --format=nul >../out) &&
	tr "\0" "\n" <out >ids &&
	test_grep ! "#T[0-9]*\._tick" ids
'

test_expect_success '--certain: what only ambiguous calls reach is dead, and says so' '
	(cd repo && kbx dead --format=nul >../all 2>/dev/null) &&
	(cd repo && kbx dead --certain --format=nul >../out 2>../err) &&
	tr "\0" "\n" <all | sort >all.ids &&
	tr "\0" "\n" <out | sort >out.ids &&
	comm -13 all.ids out.ids >added &&
	{
		echo app/core.py#Walker._step &&
		echo app/core.py#Runner._step &&
		i=0 &&
		while test $i -lt 18
		do
			echo "app/ticks.py#T$i._tick" || return 1
			i=$((i + 1))
		done
	} | sort >expect &&
	sort added >actual &&
	test_cmp expect actual &&
	comm -23 all.ids out.ids >gone &&
	test_must_be_empty gone &&
	test_grep "^35 dead, 20 of which only ambiguous calls may reach (--certain); 26 functions left out" err
'

test_expect_success '--certain marks them in text and grep; JSON records keep their fields' '
	(cd repo && kbx dead --certain --color=never >../out 2>/dev/null) &&
	test_grep "^  app/core.py:29  Walker._step (method)  (only ambiguous calls may reach it)$" out &&
	test_grep "^  app/core.py:42  _private_dead (function)$" out &&
	(cd repo && kbx dead --certain --format=grep >../out 2>/dev/null) &&
	test_grep "^app/ticks.py:2:5: dead method T0._tick (only ambiguous calls may reach it)$" out &&
	(cd repo && kbx dead -q --certain --format=json >../out.json 2>/dev/null) &&
	test_grep "^{\"type\":\"dead\",\"id\":\"app/core.py#Walker._step\",.*\"reason\":\"dead\",\"why\":null}$" out.json &&
	(cd repo && kbx dead -q --format=json >../plain.json 2>/dev/null) &&
	grep -v "\"id\":\"app/[a-z]*.py#\(Walker\|Runner\|T[0-9]*\)\._" out.json >rest.json &&
	test_cmp plain.json rest.json
'

test_expect_success 'entry points are left out, each with its reason' '
	(cd repo && kbx dead --explain --format=json >../out.json) &&
	test_grep "\"id\":\"app/core.py#Child.__init__\".*\"reason\":\"entry-point\"" out.json &&
	test_grep "\"id\":\"csrc/util.c#main\".*\"reason\":\"entry-point\"" out.json &&
	test_grep "\"id\":\"gosrc/main.go#init\".*\"reason\":\"entry-point\"" out.json &&
	test_grep "\"id\":\"java/Zoo.java#Cat.main\".*\"reason\":\"entry-point\"" out.json &&
	test_grep "\"id\":\"java/Zoo.java#Dog.constructor\".*\"reason\":\"entry-point\"" out.json &&
	test_grep "\"id\":\"web/app.ts#Box.constructor\".*\"reason\":\"entry-point\"" out.json &&
	test_grep "\"id\":\"web/app.ts#Box.size\".*\"reason\":\"entry-point\"" out.json &&
	test_grep "\"id\":\"app/core.py#_index\".*\"reason\":\"entry-point\"" out.json
'

test_expect_success 'a method is kept alive by the base it overrides' '
	test_grep "\"id\":\"app/core.py#Child.render\".*\"reason\":\"override\".*overrides Base.render" out.json &&
	test_grep "\"id\":\"java/Zoo.java#Cat.speak\".*\"reason\":\"override\".*overrides Animal.speak" out.json &&
	test_grep "\"id\":\"java/Zoo.java#Dog.speak\".*\"reason\":\"override\"" out.json &&
	test_grep "\"id\":\"app/core.py#Handler.do_GET\".*\"reason\":\"override\".*BaseHTTPRequestHandler" out.json &&
	test_grep "\"id\":\"gosrc/main.go#sq.area\".*\"reason\":\"override\"" out.json
'

test_expect_success 'a function used as a value is referenced, not dead' '
	test_grep "\"id\":\"csrc/util.c#compare\".*\"reason\":\"referenced\"" out.json &&
	test_grep "\"id\":\"app/core.py#_by_key\".*\"reason\":\"referenced\"" out.json
'

test_expect_success 'exported functions are left out; --include-exported reports them' '
	test_grep "\"id\":\"app/core.py#public_api\".*\"exported\":true,\"reason\":\"exported\"" out.json &&
	test_grep "\"id\":\"csrc/util.c#exported_fn\".*\"reason\":\"exported\"" out.json &&
	test_grep "\"id\":\"gosrc/main.go#Exported\".*\"reason\":\"exported\"" out.json &&
	test_grep "\"id\":\"java/Zoo.java#Cat.purr\".*\"reason\":\"exported\"" out.json &&
	test_grep "\"id\":\"web/app.ts#api\".*\"reason\":\"exported\"" out.json &&
	test_grep "\"id\":\"web/app.ts#Shelf.method\".*\"reason\":\"exported\"" out.json &&
	(cd repo && kbx dead --include-exported --format=nul >../out) &&
	tr "\0" "\n" <out >ids &&
	for id in app/core.py#public_api csrc/util.c#exported_fn gosrc/main.go#Exported \
		java/Zoo.java#Cat.purr web/app.ts#api web/app.ts#Shelf.method
	do
		grep -x "$id" ids || return 1
	done
'

test_expect_success 'tests are left out; --include-tests reports them' '
	test_grep "\"id\":\"tests/test_core.py#test_core\".*\"reason\":\"test\"" out.json &&
	test_grep "\"id\":\"tests/test_core.py#_unused_in_tests\".*\"reason\":\"test\"" out.json &&
	test_grep "\"id\":\"gosrc/main_test.go#TestArea\".*\"reason\":\"test\"" out.json &&
	(cd repo && kbx dead --include-tests --format=nul >../out) &&
	tr "\0" "\n" <out >ids &&
	grep -x "tests/test_core.py#test_core" ids &&
	grep -x "tests/test_core.py#_unused_in_tests" ids &&
	grep -x "gosrc/main_test.go#TestArea" ids &&
	! grep -x "tests/test_core.py#_helper" ids
'

test_expect_success 'dead.ignore and --ignore leave names out' '
	(cd repo && kbx config dead.ignore "_legacy_* Child._unused*" &&
	 kbx dead --ignore="app/core.py#_old_*" --explain --format=json >../out.json 2>../err) &&
	test_grep "\"id\":\"app/core.py#_legacy_thing\".*\"reason\":\"ignored\".*_legacy_\*" out.json &&
	test_grep "\"id\":\"app/core.py#Child._unused_helper\".*\"reason\":\"ignored\"" out.json &&
	test_grep "\"id\":\"app/core.py#_old_report\".*\"reason\":\"ignored\"" out.json &&
	test_grep "^{\"type\":\"summary\",.*\"reasons\":{\"ignored\":3," out.json &&
	test_must_be_empty err &&
	(cd repo && kbx dead --ignore="app/core.py#_old_*" >../out 2>../err) &&
	test_grep "^12 dead; .* 3 configured" out &&
	test_must_be_empty err &&
	(cd repo && kbx config --unset dead.ignore)
'

test_expect_success 'a bad glob is a usage error' '
	(cd repo && test_expect_code 2 kbx dead --ignore="[" 2>../err) &&
	test_grep "bad ignore glob" err
'

test_expect_success '--path, operands and --kind limit what is reported' '
	(cd repo && kbx dead -q --format=nul web >../out) &&
	printf "web/app.ts#localDead\0web/app.ts#Box.hidden\0web/app.ts#Shelf.#priv\0" >expect &&
	test_cmp expect out &&
	(cd repo && kbx dead -q --format=nul --path="**/*.go" --kind=function >../out) &&
	printf "gosrc/main.go#unusedLower\0" >expect &&
	test_cmp expect out
'

test_expect_success 'text and grep formats, and --limit' '
	(cd repo && kbx dead -q --color=never java >../out) &&
	cat >expect <<-\EOF &&
	  java/Zoo.java:2  Animal.speak (method)
	  java/Zoo.java:11  Dog.secret (method)
	EOF
	test_cmp expect out &&
	(cd repo && kbx dead -q --format=grep --limit=1 java >../out) &&
	echo "java/Zoo.java:2:5: dead method Animal.speak" >expect &&
	test_cmp expect out &&
	(cd repo && kbx dead --explain --color=never csrc >../out 2>/dev/null) &&
	test_grep "csrc/util.c:8  compare (function)  (left out: referenced: csrc/util.c names it" out
'

test_expect_success 'the summary: under the text on stdout, a JSON record, stderr for grep' '
	(cd repo && kbx dead --color=never java >../out 2>../err) &&
	cat >expect <<-\EOF &&
	  java/Zoo.java:2  Animal.speak (method)
	  java/Zoo.java:11  Dog.secret (method)

	2 dead; 5 functions left out: 2 entry points, 2 overrides, 1 exported (--explain lists them)
	EOF
	test_cmp expect out &&
	test_must_be_empty err &&
	(cd repo && kbx dead --format=json java >../out.json 2>../err) &&
	tail -n 1 out.json >last &&
	echo "{\"type\":\"summary\",\"dead\":2,\"shown\":2,\"only_ambiguous\":0,\"left_out\":5,\"reasons\":{\"ignored\":0,\"entry-point\":2,\"override\":2,\"referenced\":0,\"test\":0,\"exported\":1}}" >expect &&
	test_cmp expect last &&
	test_must_be_empty err &&
	(cd repo && kbx dead --format=grep java >../out 2>../err) &&
	test_line_count = 2 out &&
	test_grep "^2 dead; 5 functions left out" err &&
	(cd repo && kbx dead -q --format=json java >../out.json) &&
	test_grep ! summary out.json
'

test_expect_success 'exit 1 when nothing is dead' '
	(cd repo && test_expect_code 1 kbx dead -q --format=nul gosrc/main_test.go >../out) &&
	test_must_be_empty out
'

# What real projects hide from the graph: each function below is used
# without a call kbx can bind to it, beside one nothing uses, which must
# still be reported.
test_expect_success 'set up a repository of what real projects do' '
	git init -q real &&
	mkdir -p real/py real/web real/cpp real/rs &&
	cat >real/py/visit.py <<-\EOF &&
	class Visitor:
	    def visit(self, node):
	        return getattr(self, f"visit_{type(node).__name__}")(node)

	    def visit_Name(self, node):
	        return 1


	class Parser:
	    def parse(self, token):
	        return getattr(self, "parse_%s" % token)()

	    def parse_set(self):
	        return 3

	    def unused_method(self):
	        return 4


	def make_logged(base):
	    def _log(obj):
	        return obj

	    class Logged(base):
	        def __str__(self):
	            _log(self)
	            return ""

	    return Logged
	EOF
	cat >real/web/errors.ts <<-\EOF &&
	function createErrorClass(impl: any) {
	  return impl(Error);
	}
	export const AppError = createErrorClass((_super: any) =>
	  function AppErrorImpl(this: any, message: string) {
	    this.message = message;
	  });
	function pipe(fns: any[]) {
	  return function piped(x: any) {
	    return fns.reduce((p, f) => f(p), x);
	  };
	}
	export function run() {
	  return pipe([])(1);
	}
	class Events {
	  handleClick() {
	    return 1;
	  }
	  emitChange() {
	    return 2;
	  }
	  unusedEvent() {
	    return 3;
	  }
	}
	export function dispatch(e: Events, name: string) {
	  e["handle" + name]();
	  return (e as any)[`emit${name}`]();
	}
	EOF
	cat >real/cpp/shape.h <<-\EOF &&
	namespace geo {
	class Shape {
	 public:
	  virtual ~Shape() {}
	  virtual double Area() const = 0;
	};
	class Square : public Shape {
	 public:
	  double Area() const override;
	  double Side() const;
	};
	struct Point {
	  int x;
	};
	bool operator==(const Point& a, const Point& b);
	}  // namespace geo
	EOF
	cat >real/cpp/shape.cc <<-\EOF &&
	#include "shape.h"
	namespace geo {
	double Square::Area() const { return 4.0; }
	double Square::Side() const { return 2.0; }
	bool operator==(const Point& a, const Point& b) { return a.x == b.x; }
	}  // namespace geo
	EOF
	cat >real/cpp/main.cc <<-\EOF &&
	#include "shape.h"
	static double Total(const geo::Shape& s) { return s.Area(); }
	static double Unused() { return 0; }
	int main() {
	  geo::Square q;
	  geo::Point a{1}, b{2};
	  return (a == b) + static_cast<int>(Total(q));
	}
	EOF
	cat >real/rs/lib.rs <<-\EOF &&
	pub struct Lits {
	    v: Vec<u8>,
	}

	impl Lits {
	    fn all_complete(&self) -> bool {
	        self.v.is_empty()
	    }

	    fn never(&self) -> bool {
	        false
	    }
	}

	macro_rules! check {
	    ($l:expr) => {{
	        let l = $l;
	        assert!(l.all_complete());
	    }};
	}

	pub fn run(l: Lits) {
	    check!(l);
	}
	EOF
	(cd real && git add . && git commit -qm base && kbx index -q) &&
	(cd real && kbx dead --include-exported --explain --format=json >../real.json 2>/dev/null)
'

# reason ID: the reason kbx dead gives for the function of id ID
reason () {
	awk -v id="\"id\":\"$1\"," 'index($0, id) {
		sub(/.*"reason":"/, ""); sub(/".*/, ""); print }' real.json
}

test_expect_success 'a name a string builds at run time is referenced' '
	test "$(reason "py/visit.py#Visitor.visit_Name")" = referenced &&
	test "$(reason "py/visit.py#Parser.parse_set")" = referenced &&
	test "$(reason "web/errors.ts#Events.handleClick")" = referenced &&
	test "$(reason "web/errors.ts#Events.emitChange")" = referenced &&
	test_grep "py/visit.py builds names that start with .visit_." real.json &&
	test "$(reason "py/visit.py#Parser.unused_method")" = dead &&
	test "$(reason "web/errors.ts#Events.unusedEvent")" = dead
'

test_expect_success 'a method of a class in a function calls the function'\''s helpers' '
	(cd real && kbx callers --format=nul "py/visit.py#make_logged._log" >../out) &&
	printf "py/visit.py#make_logged.Logged.__str__\0" >expect &&
	test_cmp expect out &&
	test "$(reason "py/visit.py#make_logged._log")" = ""
'

test_expect_success 'a named function expression is a value, not dead' '
	test "$(reason "web/errors.ts#AppErrorImpl")" = entry-point &&
	test "$(reason "web/errors.ts#pipe.piped")" = entry-point
'

test_expect_success 'C++: a method defined outside its class file overrides, operators are called' '
	test "$(reason "cpp/shape.cc#geo.Square.Area")" = override &&
	test "$(reason "cpp/shape.cc#geo.operator==")" = entry-point &&
	test "$(reason "cpp/shape.cc#geo.Square.Side")" = dead &&
	test "$(reason "cpp/main.cc#Unused")" = dead
'

test_expect_success 'Rust: a name in a macro_rules! body is referenced' '
	test "$(reason "rs/lib.rs#Lits.all_complete")" = referenced &&
	test "$(reason "rs/lib.rs#Lits.never")" = dead
'

test_expect_success 'PHP: a magic method is an entry point, a private one dead, a public one exported' '
	git init -q php &&
	cat >php/money.php <<-\EOF &&
	<?php
	class Money
	{
	    public function __toString()
	    {
	        return "0";
	    }

	    private function unused()
	    {
	    }

	    public function api()
	    {
	    }
	}
	EOF
	(cd php && kbx index -q && kbx dead --explain --format=json >../php.json 2>/dev/null) &&
	test_grep "\"id\":\"money.php#Money.__toString\".*\"reason\":\"entry-point\"" php.json &&
	test_grep "\"id\":\"money.php#Money.unused\".*\"reason\":\"dead\"" php.json &&
	test_grep "\"id\":\"money.php#Money.api\".*\"reason\":\"exported\"" php.json
'

test_expect_success 'Kotlin: private and internal are dead when unused, public is exported, override and annotated functions are left out' '
	git init -q kt &&
	cat >kt/Shop.kt <<-\EOF &&
	package shop

	open class Base {
	    open fun hook() {}
	}

	class Shop : Base() {
	    private fun unused() {}
	    internal fun inside() {}
	    fun api() {}
	    override fun hook() {}
	    @Composable
	    fun Screen() {}
	}
	EOF
	(cd kt && kbx index -q && kbx dead --explain --format=json >../kt.json 2>/dev/null) &&
	test_grep "\"id\":\"Shop.kt#Shop.unused\".*\"reason\":\"dead\"" kt.json &&
	test_grep "\"id\":\"Shop.kt#Shop.inside\".*\"reason\":\"dead\"" kt.json &&
	test_grep "\"id\":\"Shop.kt#Shop.api\".*\"reason\":\"exported\"" kt.json &&
	test_grep "\"id\":\"Shop.kt#Shop.hook\".*\"reason\":\"override\"" kt.json &&
	test_grep ! "\"id\":\"Shop.kt#Shop.Screen\".*\"reason\":\"dead\"" kt.json
'

test_expect_success 'Vue: a component'"'"'s methods and its script'"'"'s functions are exported (its markup uses them)' '
	git init -q vue &&
	cat >vue/Card.vue <<-\EOF &&
	<template><button @click="open">{{ title() }}</button></template>
	<script>
	export default {
	  methods: {
	    open() {},
	    close() {},
	  },
	}
	</script>
	<script setup>
	function title() { return 1 }
	</script>
	EOF
	(cd vue && kbx index -q &&
	 { kbx dead --explain --format=json >../vue.json 2>/dev/null || test $? = 1; }) &&
	test_grep "\"id\":\"Card.vue#Card.close\".*\"reason\":\"exported\"" vue.json &&
	test_grep "\"id\":\"Card.vue#title\".*\"reason\":\"exported\"" vue.json
'

test_expect_success 'Swift: internal (the default) is dead when unused, public is exported, override and attributes are left out' '
	git init -q sw &&
	cat >sw/Shop.swift <<-\EOF &&
	open class Base {
	    open func hook() {}
	}

	public class Shop: Base {
	    func unused() {}
	    public func api() {}
	    override public func hook() {}
	    @objc func tapped() {}
	}
	EOF
	(cd sw && kbx index -q && kbx dead --explain --format=json >../sw.json 2>/dev/null) &&
	test_grep "\"id\":\"Shop.swift#Shop.unused\".*\"reason\":\"dead\"" sw.json &&
	test_grep "\"id\":\"Shop.swift#Shop.api\".*\"reason\":\"exported\"" sw.json &&
	test_grep "\"id\":\"Shop.swift#Shop.hook\".*\"reason\":\"override\"" sw.json &&
	test_grep ! "\"id\":\"Shop.swift#Shop.tapped\".*\"reason\":\"dead\"" sw.json
'

test_expect_success 'Scala: private is dead when unused, public (the default) is exported, override and annotations are left out' '
	git init -q sc &&
	cat >sc/Shop.scala <<-\EOF &&
	abstract class Base {
	  def hook(): Unit = {}
	}

	class Shop extends Base {
	  private def unused(): Unit = {}
	  def api(): Unit = {}
	  override def hook(): Unit = {}
	  @Test private def checked(): Unit = {}
	}
	EOF
	(cd sc && kbx index -q && kbx dead --explain --format=json >../sc.json 2>/dev/null) &&
	test_grep "\"id\":\"Shop.scala#Shop.unused\".*\"reason\":\"dead\"" sc.json &&
	test_grep "\"id\":\"Shop.scala#Shop.api\".*\"reason\":\"exported\"" sc.json &&
	test_grep "\"id\":\"Shop.scala#Shop.hook\".*\"reason\":\"override\"" sc.json &&
	test_grep ! "\"id\":\"Shop.scala#Shop.checked\".*\"reason\":\"dead\"" sc.json
'

test_expect_success 'Dart: a name starting with _ is dead when unused, others are exported, @override and getters are left out' '
	git init -q dt &&
	cat >dt/shop.dart <<-\EOF &&
	class Base {
	  void hook() {}
	}

	class Shop extends Base {
	  void _unused() {}
	  void api() {}
	  @override
	  void hook() {}
	  int get _size => 1;
	}
	EOF
	(cd dt && kbx index -q && kbx dead --explain --format=json >../dt.json 2>/dev/null) &&
	test_grep "\"id\":\"shop.dart#Shop._unused\".*\"reason\":\"dead\"" dt.json &&
	test_grep "\"id\":\"shop.dart#Shop.api\".*\"reason\":\"exported\"" dt.json &&
	test_grep "\"id\":\"shop.dart#Shop.hook\".*\"reason\":\"override\"" dt.json &&
	test_grep ! "\"id\":\"shop.dart#Shop._size\".*\"reason\":\"dead\"" dt.json
'

test_expect_success 'Elixir: defp is dead when unused, def and defmacro are exported' '
	git init -q ex &&
	cat >ex/shop.ex <<-\EOF &&
	defmodule Shop do
	  def api(x), do: used(x)
	  defmacro build(x), do: x
	  defp used(x), do: x
	  defp unused(x), do: x
	end
	EOF
	(cd ex && kbx index -q && kbx dead --explain --format=json >../ex.json 2>/dev/null) &&
	test_grep "\"id\":\"shop.ex#Shop.unused\".*\"reason\":\"dead\"" ex.json &&
	test_grep "\"id\":\"shop.ex#Shop.api\".*\"reason\":\"exported\"" ex.json &&
	test_grep "\"id\":\"shop.ex#Shop.build\".*\"reason\":\"exported\"" ex.json &&
	test_grep ! "\"id\":\"shop.ex#Shop.used\".*\"reason\":\"dead\"" ex.json
'

test_expect_success 'Objective-C: a static function is dead when unused, methods are exported and not dead' '
	git init -q oc &&
	cat >oc/shop.m <<-\EOF &&
	static int unused(void) { return 0; }
	@interface Shop
	- (void)api;
	@end
	@implementation Shop
	- (void)api {}
	@end
	EOF
	(cd oc && kbx index -q && kbx dead --explain --format=json >../oc.json 2>/dev/null) &&
	test_grep "\"id\":\"shop.m#unused\".*\"reason\":\"dead\"" oc.json &&
	test_grep "\"id\":\"shop.m#Shop.api\".*\"exported\":true" oc.json &&
	test_grep ! "\"id\":\"shop.m#Shop.api\".*\"reason\":\"dead\"" oc.json
'

test_expect_success 'Haskell: a where-function passed as a value (ok'"'"') is referenced, instances'"'"' and defaults of a class'"'"'s methods are overrides, Shape (..) exports, an unused one is dead' '
	git init -q hs &&
	cat >hs/Shop.hs <<-\EOF &&
	module Shop (run, Shape (..)) where

	class Shape a where
	  area :: a -> Int
	  area _ = 0

	instance Shape Bool where
	  area b = if b then 1 else 0

	run :: Int -> Int
	run n = step ok'"'"' n
	  where
	    ok'"'"' x = x + 1
	    unused'"'"' x = x

	step :: (Int -> Int) -> Int -> Int
	step f n = f n

	helper :: Int -> Int
	helper x
	  | x > 0 = x
	  | otherwise = 0
	EOF
	(cd hs && kbx index -q && kbx dead --explain --format=json >../hs.json 2>/dev/null) &&
	test_grep "\"id\":\"Shop.hs#run.ok'"'"'\".*\"reason\":\"referenced\"" hs.json &&
	test_grep "\"id\":\"Shop.hs#Shape.Bool.area\".*\"reason\":\"override\"" hs.json &&
	test_grep "\"id\":\"Shop.hs#Shape.area\".*\"reason\":\"override\"" hs.json &&
	test_grep "\"id\":\"Shop.hs#area\".*\"reason\":\"exported\"" hs.json &&
	test_grep "\"id\":\"Shop.hs#run.unused'"'"'\".*\"reason\":\"dead\"" hs.json &&
	test_grep "\"id\":\"Shop.hs#helper\".*\"reason\":\"dead\"" hs.json &&
	test_grep ! "\"id\":\"Shop.hs#run\".*\"reason\":\"dead\"" hs.json
'

test_done
