defmodule Shop.Priced do
  @moduledoc "Anything with a price."
  @callback price(term()) :: number()
end
