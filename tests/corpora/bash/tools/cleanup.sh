#!/bin/bash
# Not sourcing anything: a log_info here is some program of that name.
cleanup() {
	rm -f shop.log
	log_info "cleaned"
	usage
}

usage() {
	echo "usage: cleanup.sh"
}

trap cleanup EXIT
cleanup
