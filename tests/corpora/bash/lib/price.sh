. "$(dirname "$0")/lib/log.sh"

format_price() {
	log_info "formatting $1"
	printf '%d.%02d\n' $(($1 / 100)) $(($1 % 100))
}

usage() {
	echo "usage: price CENTS"
}

banner() {
	echo "-- $* --"
}
