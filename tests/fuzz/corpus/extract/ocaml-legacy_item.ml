let describe n = string_of_int n

let label n = "old " ^ describe n
