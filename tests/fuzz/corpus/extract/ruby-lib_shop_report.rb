
module Shop
  # Prints a cart, one item a line.
  class Report
    def print(cart)
      cart.items.each do |item|
        line = item.to_label
        $stdout.puts(line)
      end
      $stdout.puts(cart.describe)
    end
  end
end
