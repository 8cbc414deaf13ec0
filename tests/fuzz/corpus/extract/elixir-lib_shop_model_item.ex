defmodule Shop.Model.Item do
  @behaviour Shop.Priced
  import Shop.Util.Strings

  defstruct name: "", cents: 0

  def describe(%__MODULE__{name: name} = item) do
    shout(name) <> " " <> Integer.to_string(price(item))
  end

  @impl true
  def price(%__MODULE__{cents: cents}), do: cents
end
