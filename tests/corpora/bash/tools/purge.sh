#!/bin/bash
# Which list_packages runs depends on the machine: one of two.
type dpkg-query >/dev/null 2>&1 && {
	list_packages() {
		dpkg-query -W -f '${Package}\n'
	}
} || {
	list_packages() {
		ls /var/lib/dpkg/info
	}
}

purge() {
	list_packages | grep -c .
}

purge
