(* Util is named before the alias binds it: R still stands for Util *)
let first x = Util.log "first"; x

module R = Util

let rounded x = R.round x

(* Stock.Counts.add is in the module Counts, not stock.ml's add *)
let count m = Stock.Counts.add "x" 1 m

(* a local open: Util's log and round in the expression only *)
let loud x = let open Util in log "loud"; round x
let shout x = Util.(round x)
let limit = let open Util in round 3
let other x = round x

(* an open of a module in another file's module *)
let sized l = let open Cart.Inner in sum (add_all l) 1

(* the project's operator, plain and through a local open; the
   standard library's + is no call of it *)
let bump x = Util.(x +% 1) + 1
let plus x = let open Util in x +% 2
