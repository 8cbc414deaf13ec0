let format_price cents =
  let pad s = "$" ^ s in
  pad (string_of_int (cents / 100))
