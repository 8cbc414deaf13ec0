defmodule Shop do
  alias Shop.Cart

  def run do
    cart = Cart.new()
    Cart.add(cart, %Shop.Model.Item{name: "tea"})
    Shop.Legacy.Item.describe(cart)
    Shop.Clock.now()
  end
end

Shop.run()
IO.puts("done")
