#!/bin/sh
# bench/edit-file.sh FILE: the one-file edit of the re-index benchmark:
# append a comment line to FILE (which also updates its mtime).
printf '/* kbx bench edit %s */\n' "$(date +%s%N)" >>"$1"
