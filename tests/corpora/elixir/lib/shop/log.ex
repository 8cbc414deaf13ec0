defmodule Shop.Log do
  def write(text), do: IO.puts(text)
end

defmodule Shop.Registry do
  def register(cart), do: Shop.Log.write(inspect(cart))
end
