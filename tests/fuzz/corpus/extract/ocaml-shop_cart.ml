module U = Util

module Inner = struct
  let sum a b = a + b
  let add_all l = List.fold_left sum 0 l
  let describe l = string_of_int (add_all l)
end

type t = { items : Item.t list }

let create () = { items = [] }

let add c price =
  U.log "added";
  { items = Item.make price :: c.items }

let total c =
  let prices = List.map (fun (i : Item.t) -> i.Item.price) c.items in
  Inner.add_all prices

let describe c = string_of_int (total c)

class counter start = object (self)
  val mutable n = start
  method incr = n <- n + 1; self#get
  method get = n
end
