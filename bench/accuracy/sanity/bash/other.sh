# other.sh: greet defined again
greet() {
	echo "hello $1"
}
