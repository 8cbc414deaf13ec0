# Logging for the shop's scripts.

log_info() {
	printf '%s\n' "info: $*" >&2
}

log_error() {
	printf '%s\n' "error: $*" >&2
	log_count
}

log_count() {
	errors=$((errors + 1))
}

banner() {
	echo "== $* =="
}
