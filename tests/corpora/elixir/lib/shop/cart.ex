defmodule Shop.Cart do
  @behaviour Shop.Priced
  alias Shop.Model.Item
  alias Shop.{Log, Registry}
  require Logger

  defmodule Inner do
    def weigh(item), do: Item.price(item)

    def total(items), do: length(items)
  end

  def new, do: %{items: []}

  def add(cart, %Item{} = item) do
    Log.write(Item.describe(item))
    Registry.register(cart)
    total(cart)
    __MODULE__.price(cart)
    Logger.info("added")
    :ets.insert(:carts, {item})
    cart
  end

  def total(cart) do
    Enum.reduce(cart.items, 0, fn item, sum -> sum + Inner.weigh(item) end)
  end

  def total(cart, discount), do: total(cart) - discount

  @impl true
  def price(cart), do: total(cart)

  def pick(cart, mod) do
    mod.price(cart)
  end
end
