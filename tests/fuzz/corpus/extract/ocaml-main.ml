open Helpers

let show it = print_endline (Item.label it)

let run () =
  let c = Cart.add (Cart.create ()) 3 in
  let total = Cart.total c in
  total |> format_price |> print_endline;
  show c

let () = run ()
