#!/bin/bash
# An extended glob the pinned tree-sitter-bash cannot read: the file
# does not parse whole, so each function is read on its own, and one
# that does not parse even alone is still defined by its header line.
on_solaris() {
	if [[ $OSTYPE == *@(solaris|aix)* ]]; then echo; fi
}

stock_level() {
	on_solaris || log_info "stock $1"
	restock_hint "$1"
}

restock_hint() {
	log_error "low: $1"
}

. "$(dirname "$0")/log.sh"
stock_level "$@"
