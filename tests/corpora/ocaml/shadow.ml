(* without rec, a let's own name in its body is an earlier definition *)
let compare (a : int) b = compare a b

module Box = struct
  let clamp x = if x < 0 then 0 else x
  let size l =
    let clamp x = clamp (x - 1) in
    clamp (List.length l)
  let rec count = function [] -> 0 | _ :: t -> 1 + count t
end
