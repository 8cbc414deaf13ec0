# lib.sh: sourced by test.sh and by the interactive session
greet() {
	printf 'hi %s\n' "$1"
}

outer() {
	greet x
	local v
	v=$(greet y)
	greet \
		z
	ls -d / >/dev/null
}

twice() {
	greet a
	greet a
}

solo() {
	greet s
}
