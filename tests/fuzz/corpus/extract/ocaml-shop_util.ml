let log msg = prerr_endline msg

let round x = x
