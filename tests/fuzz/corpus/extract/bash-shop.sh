#!/bin/sh
# The shop's front door.
source lib/log.sh
. lib/price.sh

usage() {
	echo "usage: shop.sh ITEM CENTS"
	exit 2
}

report() {
	banner "report"
	log_info "item $1"
	format_price "$2" | tee -a shop.log
}

test $# -eq 2 || usage
report "$1" "$2"
