let norm s = String.lowercase_ascii s

let twice f x = f (f x)

module Money = struct
  let cents x = x * 100
  let show x = string_of_int (cents x)
end
