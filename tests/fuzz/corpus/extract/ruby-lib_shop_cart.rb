
require_relative 'base'
require_relative 'pricing'

module Shop
  class Cart < Base
    include Pricing

    # One entry of the cart.
    class Line
      def initialize(item, quantity = 1)
        @item = item
        @quantity = quantity
      end

      def subtotal
        @item.cents * @quantity
      end
    end

    attr_reader :items

    def self.empty
      new([])
    end

    def initialize(items)
      super(items.size)
      @lines = items.map { |item| Line.new(item) }
      @items = items
    end

    def total
      @lines.sum(&:subtotal)
    end

    def describe
      count = items.size
      "#{count} items, #{format_price(total)}"
    end

    def to_h
      super.merge(total: total)
    end
  end
end
