(* without rec, a let's own name in its body is an earlier definition *)
let compare (a : int) b = compare a b

module Box = struct
  let clamp x = if x < 0 then 0 else x
  let size l =
    let clamp x = clamp (x - 1) in
    clamp (List.length l)
  let rec count = function [] -> 0 | _ :: t -> 1 + count t
end

(* a second let of a name hides the first from there on; kbx keeps one
   node for both, so a call of it is ambiguous *)
let twice x = x
let twice x = twice x * 2
let use x = twice x

module Sorted = struct
  let compare (a : int) b = if a < b then -1 else 1
end

(* outside Sorted, compare is not Sorted.compare *)
let order a b = compare a b

(* a let rec of the same name in a let's body: the calls after it are
   of that one *)
let paint c =
  let rec paint n = if n > 0 then paint (n - 1) else c in
  paint 3
