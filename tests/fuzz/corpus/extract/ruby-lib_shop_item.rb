
module Shop
  class Item
    attr_reader :name, :cents

    def initialize(name, cents)
      @name = name
      @cents = cents
    end

    def to_label
      name.upcase
    end

    def describe
      "#{to_label} (#{cents})"
    end
  end
end
