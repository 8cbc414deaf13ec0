# mcp_fixture_repo DIR: the small C repository with a document that the
# MCP tests (t8400, t8410) ask about: add_numbers, called by scale, called
# by compute_total, called by main; a git repository with one commit.
# Sourced by the test scripts after test-lib.sh.
mcp_fixture_repo () {
	git init -q "$1" &&
	cat >"$1/calc.c" <<-\EOF &&
	int add_numbers(int a, int b) { return a + b; }
	int scale(int x) { return add_numbers(x, x); }
	int compute_total(int n) { return scale(n) + 1; }
	EOF
	cat >"$1/main.c" <<-\EOF &&
	int compute_total(int n);
	int main(void) { return compute_total(2); }
	EOF
	printf "# Totals\n\ncompute_total doubles a number and adds one.\n" >"$1/README.md" &&
	git -C "$1" add . &&
	git -C "$1" -c user.name=t -c user.email=t@example.org commit -q -m init
}
