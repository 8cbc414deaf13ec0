defmodule Shop.Clock do
  def now, do: System.system_time(:second)
end
