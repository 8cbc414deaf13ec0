local util = require("shop.util")

local Item = {}
Item.__index = Item

function Item.new(name, cents)
  local self = setmetatable({}, Item)
  self.name = name
  self.cents = util.round(cents)
  return self
end

function Item:label()
  return self:describe()
end

function Item:describe()
  util.log(util.format("describe %s", self.name))
  return self.name .. " " .. format_price(self.cents)
end

return Item
