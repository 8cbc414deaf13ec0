(* bench/accuracy/oracle-ocaml.ml: the OCaml compiler's own binding of
   every call of a project, read from the typed trees (.cmt) that
   `ocamlc -bin-annot` wrote.

     oracle-ocaml FILE.cmt...      (run in the project's root)

   prints one call site a line in score.py's format (file line col nline
   ncol name kind targets what).  Every application of a named function
   (f x, M.f x, M.N.f x, and x |> f, f @@ x, which call f) is a site; the
   typer has resolved the name to a Path.t, which is followed here through
   the project's modules:

     a name bound by a `let` whose value is a function (let f x = ...,
     let f = fun ..., let f = function ..., at any depth): `in`, the
     target the place of the bound name;
     a name bound otherwise (a parameter, a pattern, let x = g y, a
     functor's parameter, a module made by a functor the project applies):
     `dyn`, a call of a value;
     M.f where M is no module of the project (Stdlib, List, ...): `ext`.

   Modules are followed through aliases (module R = Core), submodules
   (Core.Group.get) and `include` (Re.exec, Re including Core).  A path the
   walk cannot follow is counted on stderr and written as `dyn`. *)

open Typedtree

type modref = Q of string | Alias of string * Path.t | Ext

type local = Val of Location.t * bool | Mod of modref

let vals : (string, Location.t * bool) Hashtbl.t = Hashtbl.create 997
let mods : (string, modref) Hashtbl.t = Hashtbl.create 97
let includes : (string, modref) Hashtbl.t = Hashtbl.create 97
let locals : (string, local) Hashtbl.t = Hashtbl.create 997
let units : (string, unit) Hashtbl.t = Hashtbl.create 97
let lost = ref 0

let key u id = u ^ "/" ^ Ident.unique_name id

let is_fn e = match e.exp_desc with Texp_function _ -> true | _ -> false

let rec unwrap me =
  match me.mod_desc with Tmod_constraint (m, _, _, _) -> unwrap m | _ -> me

let bound_ident p =
  match p.pat_desc with
  | Tpat_var (id, _) -> Some id
  | Tpat_alias (_, id, _) -> Some id
  | _ -> None

(* the names a unit defines, by qualified name (Unit.Sub.name) *)
let rec walk_structure u prefix (s : structure) =
  List.iter
    (fun it ->
      match it.str_desc with
      | Tstr_value (_, vbs) ->
          List.iter
            (fun vb ->
              match bound_ident vb.vb_pat with
              | Some id ->
                  Hashtbl.replace vals (prefix ^ "." ^ Ident.name id) (vb.vb_pat.pat_loc, is_fn vb.vb_expr)
              | None -> ())
            vbs
      | Tstr_primitive vd -> Hashtbl.replace vals (prefix ^ "." ^ Ident.name vd.val_id) (vd.val_loc, true)
      | Tstr_module mb -> walk_module u prefix mb.mb_id mb.mb_expr
      | Tstr_recmodule mbs -> List.iter (fun mb -> walk_module u prefix mb.mb_id mb.mb_expr) mbs
      | Tstr_include incl -> (
          match (unwrap incl.incl_mod).mod_desc with
          | Tmod_ident (p, _) -> Hashtbl.add includes prefix (Alias (u, p))
          | Tmod_apply _ -> Hashtbl.add includes prefix Ext
          | _ -> ())
      | _ -> ())
    s.str_items

and walk_module u prefix id me =
  match id with
  | None -> ()
  | Some id -> (
      let q = prefix ^ "." ^ Ident.name id in
      let me = unwrap me in
      let r =
        match me.mod_desc with
        | Tmod_ident (p, _) -> Alias (u, p)
        | Tmod_apply _ | Tmod_unpack _ -> Ext
        | _ -> Q q
      in
      Hashtbl.replace locals (key u id) (Mod r);
      Hashtbl.replace mods q r;
      match me.mod_desc with
      | Tmod_structure s -> walk_structure u q s
      | Tmod_functor (_, body) -> (
          match (unwrap body).mod_desc with Tmod_structure s -> walk_structure u q s | _ -> ())
      | _ -> ())

(* every let of a unit, at any depth: what its name stands for *)
let bind_locals u (s : structure) =
  let open Tast_iterator in
  let value_binding it vb =
    (match bound_ident vb.vb_pat with
    | Some id -> Hashtbl.replace locals (key u id) (Val (vb.vb_pat.pat_loc, is_fn vb.vb_expr))
    | None -> ());
    default_iterator.value_binding it vb
  in
  let it = { default_iterator with value_binding } in
  it.structure it s

(* the qualified name of the module a path names, Ext, or None *)
let rec resolve_mod depth u (p : Path.t) =
  if depth > 32 then None
  else
    match p with
    | Pident id when Ident.global id -> follow depth (Q (Ident.name id))
    | Pident id -> (
        match Hashtbl.find_opt locals (key u id) with
        | Some (Mod r) -> follow depth r
        | _ -> None)
    | Pdot (m, s) -> (
        match resolve_mod (depth + 1) u m with
        | Some (Q q) -> (
            let q = q ^ "." ^ s in
            match Hashtbl.find_opt mods q with Some r -> follow depth r | None -> Some (Q q))
        | r -> r)
    | Papply _ -> Some Ext

and follow depth = function
  | Q q -> (
      match Hashtbl.find_opt mods q with
      | Some (Alias _ as r) when depth < 32 -> follow (depth + 1) r
      | _ -> Some (Q q))
  | Alias (u, p) -> resolve_mod (depth + 1) u p
  | Ext -> Some Ext

let root q = match String.index_opt q '.' with Some i -> String.sub q 0 i | None -> q

let rec lookup depth q s =
  match Hashtbl.find_opt vals (q ^ "." ^ s) with
  | Some v -> `Found v
  | None ->
      if depth > 16 then `Lost
      else
        List.fold_left
          (fun acc r ->
            match acc with
            | `Found _ -> acc
            | _ -> (
                match follow depth r with
                | Some (Q q') when not (Hashtbl.mem units (root q')) -> `Ext
                | Some (Q q') -> (
                    match lookup (depth + 1) q' s with `Found v -> `Found v | `Ext -> `Ext | `Lost -> acc)
                | Some _ -> `Ext
                | None -> acc))
          `Lost (Hashtbl.find_all includes q)

(* kind, targets, what *)
let classify u (p : Path.t) =
  let place (l : Location.t) = Printf.sprintf "%s:%d" l.loc_start.pos_fname l.loc_start.pos_lnum in
  match p with
  | Pident id when not (Ident.global id) -> (
      match Hashtbl.find_opt locals (key u id) with
      | Some (Val (l, true)) -> ("in", place l, Ident.name id)
      | _ -> ("dyn", "-", Ident.name id))
  | Pdot (m, s) -> (
      match resolve_mod 0 u m with
      | Some Ext -> ("ext", "-", Path.name p)
      | Some (Q q) when not (Hashtbl.mem units (root q)) -> ("ext", "-", q ^ "." ^ s)
      | Some (Q q) -> (
          match lookup 0 q s with
          | `Found (l, true) -> ("in", place l, q ^ "." ^ s)
          | `Found (_, false) -> ("dyn", "-", q ^ "." ^ s)
          | `Ext -> ("ext", "-", q ^ "." ^ s)
          | `Lost ->
              incr lost;
              Printf.eprintf "oracle-ocaml: not followed: %s (%s)\n" (Path.name p) q;
              ("dyn", "-", q ^ "." ^ s))
      | Some (Alias _) | None -> ("dyn", "-", Path.name p))
  | _ -> ("ext", "-", Path.name p)

let print_site u (call : Location.t) (lid : Longident.t Location.loc) p =
  let kind, targets, what = classify u p in
  let s = call.loc_start and n = lid.loc.loc_start in
  let last = Longident.last lid.txt in
  Printf.printf "%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\n" s.pos_fname s.pos_lnum
    (s.pos_cnum - s.pos_bol + 1)
    n.pos_lnum
    (n.pos_cnum - n.pos_bol + 1)
    last kind targets what

let calls u (s : structure) =
  let open Tast_iterator in
  let expr it e =
    (match e.exp_desc with
    | Texp_apply ({ exp_desc = Texp_ident (p, lid, _); _ }, args) -> (
        print_site u e.exp_loc lid p;
        (* x |> f, f @@ x: a call of f *)
        let fn_arg = function
          | Some { exp_desc = Texp_ident (fp, flid, _); exp_loc; _ } -> print_site u exp_loc flid fp
          | _ -> ()
        in
        match (Path.name p, args) with
        | "Stdlib.|>", [ _; (_, f) ] -> fn_arg f
        | "Stdlib.@@", [ (_, f); _ ] -> fn_arg f
        | _ -> ())
    | _ -> ());
    default_iterator.expr it e
  in
  let it = { default_iterator with expr } in
  it.structure it s

let () =
  let cmts =
    Array.to_list Sys.argv |> List.tl
    |> List.filter_map (fun f ->
           let c = Cmt_format.read_cmt f in
           match c.cmt_annots with
           | Cmt_format.Implementation s -> Some (c.cmt_modname, s)
           | _ -> None)
  in
  List.iter (fun (u, _) -> Hashtbl.replace units u ()) cmts;
  List.iter
    (fun (u, s) ->
      walk_structure u u s;
      bind_locals u s)
    cmts;
  List.iter (fun (u, s) -> calls u s) cmts;
  if !lost > 0 then Printf.eprintf "oracle-ocaml: %d calls not followed (written as dyn)\n" !lost
