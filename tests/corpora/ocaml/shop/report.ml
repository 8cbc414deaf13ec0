(* Util is named before the alias binds it: R still stands for Util *)
let first x = Util.log "first"; x

module R = Util

let rounded x = R.round x
