
# Loads the shop library and runs a checkout from the command line.
require 'json'
require_relative 'shop/item'
require_relative 'shop/cart'
require_relative 'shop/report'

module Shop
  def self.checkout(names)
    items = names.map { |name| Item.new(name, 250) }
    cart = Cart.new(items)
    Report.new.print(cart)
    puts JSON.generate(cart.to_h)
  end
end

Shop.checkout(ARGV)
