
# Items as the first catalogue stored them; kept for old invoices.
module Legacy
  class Item
    def initialize(code)
      @code = code
    end

    def to_label
      @code.strip
    end

    def describe
      "legacy item #{to_label}"
    end
  end
end
