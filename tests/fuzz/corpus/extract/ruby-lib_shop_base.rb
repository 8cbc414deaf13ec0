
module Shop
  # Base class of everything the shop keeps.
  class Base
    attr_reader :id, :updated_at

    def initialize(id)
      @id = id
      touch
    end

    def touch
      @updated_at = Time.now
    end

    def to_h
      { id: id, updated_at: updated_at.to_s }
    end
  end
end
