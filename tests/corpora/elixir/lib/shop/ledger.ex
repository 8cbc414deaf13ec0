defmodule Shop.Ledger do
  import Record
  require Shop.Util.Strings, as: Words
  Record.defrecord(:entry, [amount: 0, note: ""])
  defrecordp :line, [:text]

  def book(amount, note) do
    entry = entry(amount: amount, note: Words.shout(note))
    line(text: entry(entry, :note))
  end

  def sum(amounts, start \\ zero()) do
    doubled = Enum.map(amounts, &double/1)
    sum = sum_of(doubled, start)
    sum |> settle
  end

  def zero, do: 0

  def check(amounts), do: require(amounts, [], [])

  defp require(xs, _opts, _extra), do: xs

  def tag(<<kind::binary-size(2), _rest::binary>>), do: String.trim(kind)

  defp double(x), do: x * 2

  defp sum_of(xs, start), do: Enum.reduce(xs, start, &+/2)

  defp settle(total), do: max(total, zero()) + max({total, 1})

  defp max({a, b}), do: if(a > b, do: a, else: b)
end
