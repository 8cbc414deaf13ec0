defmodule Shop.Legacy.Item do
  # The same names as Shop.Model.Item.
  def describe(item), do: label(item)

  def price(_item), do: 0

  defp label(item), do: inspect(item)
end
