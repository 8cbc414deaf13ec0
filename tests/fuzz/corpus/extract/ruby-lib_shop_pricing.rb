
module Shop
  # Price formatting, mixed into the classes that show prices.
  module Pricing
    def format_price(cents)
      format('%.2f EUR', round_cents(cents) / 100.0)
    end

    def round_cents(cents)
      cents.round
    end
  end
end
