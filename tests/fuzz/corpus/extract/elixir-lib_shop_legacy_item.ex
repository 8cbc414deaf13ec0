defmodule Shop.Legacy.Item do
  # The same names as Shop.Model.Item.
  def describe(item), do: label(item)

  def price(_item), do: 0

  def convert(item) do
    alias Shop.Model.Item, as: Model
    Model.price(item)
  end

  # The alias above held in convert alone.
  def again(item), do: Model.price(item)

  defp label(item), do: inspect(item)
end
