module Counts = Map.Make (String)

let add name n = n + String.length name
