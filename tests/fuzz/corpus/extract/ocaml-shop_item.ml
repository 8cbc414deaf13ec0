type t = { price : int }

let make price =
  Util.log "new item";
  { price = Util.round price }

let describe it = string_of_int it.price

let label it = "item " ^ describe it
