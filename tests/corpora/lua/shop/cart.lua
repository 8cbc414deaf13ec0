local Item = require "shop.item"

local Cart = {}
Cart.__index = Cart

local function sum(items)
  local total = 0
  for _, item in ipairs(items) do
    total = total + item.cents
  end
  return total
end

function Cart.new()
  return setmetatable({ items = {} }, Cart)
end

function Cart:add(name, cents)
  local item = Item.new(name, cents)
  table.insert(self.items, item)
  return item
end

function Cart:total()
  return sum(self.items)
end

Cart.describe = function(self)
  return #self.items .. " items, " .. format_price(self:total())
end

return Cart
