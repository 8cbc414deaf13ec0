#!/bin/bash
# Sources through variables that hold the script's directory.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../lib/price.sh"
TOP="${BASH_SOURCE%/*}/.."
. "${TOP}/lib/log.sh"

restock() {
	log_info "restocking $1"
	format_price "$2"
}

restock "$@"
