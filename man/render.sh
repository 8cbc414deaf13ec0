#!/bin/sh
#
# render.sh IN OUT: turn one man page written in Markdown into roff.
#
# IN starts with a front matter block:
#
#   ---
#   title: kbx-index
#   section: 1
#   description: build or update the code graph of a repository
#   ---
#
# The rest is CommonMark: "# HEADING" becomes a section (.SH), "## Heading"
# a subsection (.SS).  cmark writes no .TH line and no NAME section, so this
# script adds the .TH line, and a NAME section made of the title and the
# description unless the page has a "# NAME" heading of its own.
#
# Environment: CMARK, the cmark program [cmark]; KBX_VERSION [unknown].
# The date is that of the last commit that touched IN, else that of
# SOURCE_DATE_EPOCH, else the file's modification time.

set -u
me=render.sh
die () {
	echo "$me: error: $*" >&2
	exit 1
}

test $# = 2 || die "usage: $me IN OUT"
in=$1 out=$2
CMARK=${CMARK:-cmark}
version=${KBX_VERSION:-unknown}

test -r "$in" || die "cannot read '$in'"
test "$(sed -n 1p "$in")" = "---" ||
	die "'$in' does not start with a front matter block (a line '---')"
end=$(sed -n '2,$ { /^---$/ { =; q; }; }' "$in")
test -n "$end" || die "'$in': the front matter block has no closing '---' line"

field () {
	sed -n "2,$((end - 1)) s/^$1:[[:space:]]*//p" "$in" | sed 's/[[:space:]]*$//'
}
title=$(field title)
section=$(field section)
description=$(field description)
test -n "$title" || die "'$in': no 'title:' in the front matter"
case $section in
[1-9]) ;;
*) die "'$in': 'section:' must be a digit 1-9, not '$section'" ;;
esac
test -n "$description" || die "'$in': no 'description:' in the front matter"

date=
if test -e "$(dirname "$0")/../.git" && command -v git >/dev/null 2>&1; then
	date=$(git log -1 --format=%cs -- "$in" 2>/dev/null)
fi
if test -z "$date" && test -n "${SOURCE_DATE_EPOCH:-}"; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d 2>/dev/null)
fi
test -n "$date" || date=$(date -u -r "$in" +%Y-%m-%d 2>/dev/null) ||
	date=$(date -u +%Y-%m-%d)

# roff: a backslash is an escape and a leading dot or quote starts a request.
roff_escape () {
	printf '%s' "$1" | sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\\&&/"
}
upper=$(printf '%s' "$title" | tr '[:lower:]' '[:upper:]')

tmp=$out.tmp
{
	printf '.\\" Generated from %s by man/render.sh; do not edit.\n' "$in"
	printf '.TH "%s" "%s" "%s" "kbx %s" "kbx manual"\n' \
		"$upper" "$section" "$date" "$version"
	if ! sed -n "$((end + 1)),\$p" "$in" | grep -q '^#[[:space:]]*NAME[[:space:]]*$'; then
		printf '.SH NAME\n%s \\- %s\n' "$(roff_escape "$title")" \
			"$(roff_escape "$description")"
	fi
	sed -n "$((end + 1)),\$p" "$in" | "$CMARK" --to man
} >"$tmp" || { rm -f "$tmp"; die "cannot render '$in'"; }
mv "$tmp" "$out" || die "cannot write '$out'"
