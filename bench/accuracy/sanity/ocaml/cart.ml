module M = Util.Money

let add items name = Util.norm name :: items

let total prices =
  let open Util.Money in
  List.fold_left (fun acc p -> acc + cents p) 0 prices

let rec count = function [] -> 0 | _ :: t -> 1 + count t

let label items =
  let show n = string_of_int n in
  show (count items) ^ M.show 1

let apply f x = f x

let run () = Util.twice (fun s -> s) "a" |> print_endline
