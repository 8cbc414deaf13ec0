defmodule Shop.Util.Strings do
  def shout(text), do: String.upcase(text)

  def whisper(text) do
    text |> String.downcase() |> trim()
  end

  defp trim(text), do: String.trim(text)
end
