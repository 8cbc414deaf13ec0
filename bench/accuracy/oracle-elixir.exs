# bench/accuracy/oracle-elixir.exs: the call sites of an Elixir project
# as Elixir's own compiler binds them, in the format score.py reads.
#
#   elixir oracle-elixir.exs ROOT DIR...
#
# Compiles every .ex file under ROOT/DIR... (Kernel.ParallelCompiler,
# into a temporary directory, removed afterwards) with a compiler tracer
# (Code.put_compiler_option(:tracers, ...)) and the parser's columns on.
# The tracer hears every function and macro the compiler binds while it
# expands the code: remote calls (Mod.f(), and Erlang's :ets.new()), local
# calls (f() of the module itself), imported calls (f() of an imported
# module, Kernel's included) and the captures &Mod.f/1, &f/1 (a function
# passed by name: the compiler binds it like a call, and so is it
# counted).  Each is one site: the caller's file, its line, the column of
# the name, the name, and what it is bound to:
#
#   in    a function or macro the project defines (a def, defp, defmacro,
#         defmacrop, defguard, defdelegate of a module compiled here): its
#         target is the place of its first clause, path:line, as the
#         compiler's debug information records it (every clause of a
#         name/arity is one function); then, when the module defines the
#         name with another arity first, the place of that one: kbx keeps
#         the arities of a name in a module as one node, at the first
#         (as OracleJava.java does for overloads)
#   virt  a function of a protocol the project defines (defprotocol): the
#         call dispatches on its argument at run time
#   ext   a function or macro of a module outside the project (Elixir's
#         standard library, Erlang's)
#
# The caller column is the place of the function (name/arity) the call is
# written in, as targets, "-" in a module's body.
#
# Left out, and counted on stderr: what the source does not write at that
# place, i.e. code that a macro's expansion brings (the compiler's events
# without a column, or whose name is not on the line: `use Mix.Task`
# expands to calls nobody wrote); operators (+, |>, not, in ..); the forms of
# the language (Kernel.SpecialForms: case, fn, quote, __MODULE__ ...) and
# Kernel's defining macros (def, defmodule, defstruct, @, if, unless ...),
# which are syntax to kbx, not calls; a name/arity of a project module
# that no definition of the source stands for (exception/1 of
# defexception, __struct__/1 of defstruct: the compiler writes them).
# Kernel.length and the :erlang.length it inlines to, both heard at one
# place, are one site, the first.  With KBX_ORACLE_DEBUG set in the
# environment, every event left out is printed on stderr with its reason.

defmodule KbxOracle.Tracer do
  @calls [:remote_function, :remote_macro, :imported_function, :imported_macro]

  def trace({kind, meta, module, name, arity}, env) when kind in @calls do
    put(meta, module, name, arity, kind, env)
  end

  def trace({kind, meta, name, arity}, env) when kind in [:local_function, :local_macro] do
    put(meta, env.module, name, arity, kind, env)
  end

  def trace(_event, _env), do: :ok

  defp put(meta, module, name, arity, kind, env) do
    :ets.insert_new(:kbx_oracle_calls, {
      {env.file, meta[:line], meta[:column], name},
      module, arity, kind, env.module, env.function
    })

    :ok
  end
end

defmodule KbxOracle do
  # Kernel's macros that kbx reads as the language's syntax
  @syntax ~w(def defp defmacro defmacrop defguard defguardp defdelegate defmodule
             defprotocol defimpl defstruct defexception defoverridable defcallback
             use @ if unless sigil_r sigil_R sigil_s sigil_S sigil_c
             sigil_C sigil_w sigil_W sigil_D sigil_T sigil_N sigil_U var! binding)a

  def main([root | dirs]) when dirs != [] do
    root = Path.expand(root)

    files =
      dirs
      |> Enum.flat_map(&Path.wildcard(Path.join([root, &1, "**", "*.ex"])))
      |> Enum.sort()

    :ets.new(:kbx_oracle_calls, [:named_table, :public, :ordered_set])
    out = Path.join(System.tmp_dir!(), "kbx-oracle-elixir-#{System.unique_integer([:positive])}")
    File.mkdir_p!(out)
    Code.put_compiler_option(:tracers, [KbxOracle.Tracer])
    Code.put_compiler_option(:parser_options, columns: true)
    Code.put_compiler_option(:ignore_module_conflict, true)

    modules =
      try do
        case Kernel.ParallelCompiler.compile_to_path(files, out) do
          {:ok, mods, _warnings} -> mods
          {:error, errors, _} -> fail("the project does not compile: #{inspect(errors)}")
        end
      after
        Code.put_compiler_option(:tracers, [])
      end

    defs = Map.new(modules, fn m -> {m, definitions(out, m, root)} end)
    File.rm_rf!(out)
    emit(root, defs)
  end

  def main(_), do: fail("usage: elixir oracle-elixir.exs ROOT DIR...")

  defp fail(msg) do
    IO.puts(:stderr, "oracle-elixir: " <> msg)
    System.halt(2)
  end

  # {name, arity} => "path:line" of a module compiled here; :protocol
  # when it is a protocol
  defp definitions(out, m, root) do
    beam = String.to_charlist(Path.join(out, Atom.to_string(m) <> ".beam"))
    {:ok, {^m, [debug_info: {:debug_info_v1, backend, data}]}} = :beam_lib.chunks(beam, [:debug_info])
    {:ok, info} = backend.debug_info(:elixir_v1, m, data, [])
    path = Path.relative_to(info.file, root)

    lines = for {na, _kind, meta, _clauses} <- info.definitions, meta[:line], do: {na, meta[:line]}

    first =
      Enum.reduce(lines, %{}, fn {{name, _}, line}, acc -> Map.update(acc, name, line, &min(&1, line)) end)

    places =
      Map.new(lines, fn {{name, _} = na, line} ->
        {na, Enum.uniq(["#{path}:#{line}", "#{path}:#{first[name]}"]) |> Enum.join(",")}
      end)

    protocol = Enum.any?(info.definitions, fn {na, _, _, _} -> na == {:__protocol__, 1} end)
    %{places: places, protocol: protocol}
  end

  defp emit(root, defs) do
    sources = :ets.new(:kbx_oracle_sources, [:set])
    dropped = %{}
    seen = MapSet.new()

    {dropped, _} =
      :ets.tab2list(:kbx_oracle_calls)
      |> Enum.reduce({dropped, seen}, fn {{file, line, col, name}, module, arity, kind, cmod, cfun},
                                          {dropped, seen} ->
        text = source_line(sources, file, line)
        why = drop?(name, module, kind, line, col, text)
        key = {file, line, col}

        cond do
          why != nil ->
            if System.get_env("KBX_ORACLE_DEBUG"), do: IO.puts(:stderr, "#{why}\t#{Path.relative_to(file, root)}:#{line}:#{col}\t#{inspect(module)}.#{name}/#{arity}\t#{String.trim(text)}")
            {Map.update(dropped, why, 1, &(&1 + 1)), seen}

          MapSet.member?(seen, key) ->
            {Map.update(dropped, "the same place twice", 1, &(&1 + 1)), seen}

          true ->
            case bind(defs, module, name, arity) do
              nil ->
                {Map.update(dropped, "no definition in the source", 1, &(&1 + 1)), MapSet.put(seen, key)}

              {okind, target} ->
                caller =
                  case cfun && defs[cmod] && defs[cmod].places[cfun] do
                    nil -> "-"
                    false -> "-"
                    place -> place
                  end

                what = "#{inspect(module)}.#{name}/#{arity}" <> if(capture?(text, col, name), do: " (capture)", else: "")
                rel = Path.relative_to(file, root)

                IO.puts(Enum.join([rel, line, col, line, col, name, okind, target, what, caller], "\t"))
                {dropped, MapSet.put(seen, key)}
            end
        end
      end)

    for {why, n} <- Enum.sort(dropped), do: IO.puts(:stderr, "oracle-elixir: left out, #{why}: #{n}")
  end

  defp bind(defs, module, name, arity) do
    case defs[module] do
      nil ->
        {"ext", "-"}

      %{places: places, protocol: protocol} ->
        case places[{name, arity}] do
          nil -> nil
          place -> {if(protocol, do: "virt", else: "in"), place}
        end
    end
  end

  defp drop?(name, module, kind, line, col, text) do
    s = Atom.to_string(name)

    cond do
      line == nil or col == nil -> "a macro's expansion (no column)"
      name in [:not, :and, :or, :in, :when] -> "an operator"
      not Regex.match?(~r/^[a-z_][A-Za-z0-9_]*[?!]?$/, s) -> "an operator"
      module == Kernel.SpecialForms -> "a special form"
      module == Kernel and kind in [:imported_macro, :remote_macro] and name in @syntax -> "Kernel's syntax"
      not written?(text, col, s) -> "not written there (Access's [], interpolation's to_string, a macro's expansion)"
      true -> nil
    end
  end

  # the name is written at the column (1-based, in characters)
  defp written?(text, col, s) do
    String.slice(text, col - 1, String.length(s)) == s
  end

  # &name/arity or &Mod.name/arity at the column
  defp capture?(text, col, name) do
    before = String.slice(text, 0, col - 1)
    after_ = String.slice(text, col - 1 + String.length(Atom.to_string(name)), 3)
    String.match?(after_, ~r/^\s*\/\d/) and String.match?(before, ~r/&\s*([A-Z:_][\w.]*\.)?$/)
  end

  defp source_line(tab, file, line) do
    lines =
      case :ets.lookup(tab, file) do
        [{_, ls}] ->
          ls

        [] ->
          ls =
            case File.read(file) do
              {:ok, t} -> t |> String.split("\n") |> List.to_tuple()
              _ -> {}
            end

          :ets.insert(tab, {file, ls})
          ls
      end

    if line && line >= 1 && line <= tuple_size(lines), do: elem(lines, line - 1), else: ""
  end
end

KbxOracle.main(System.argv())
