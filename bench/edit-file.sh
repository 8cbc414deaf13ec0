#!/bin/sh
# bench/edit-file.sh FILE: the one-file edit of the re-index benchmarks:
# append a comment line to FILE, and date it 2 s ahead.  cscope and gtags
# notice a change only when the file is newer than their database to the
# second; without the 2 s, an edit made in the same second as their last
# update goes unseen and they "update" in 5 ms without reading it.  kbx
# sees the new size and mtime either way.
printf '/* kbx bench edit %s */\n' "$(date +%s%N)" >>"$1" &&
touch -d "@$(($(date +%s) + 2))" "$1"
