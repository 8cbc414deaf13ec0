require "helpers"
local Cart = require("shop.cart")

local function show(thing)
  print(thing:label())
  print(thing:describe())
end

local cart = Cart.new()
local pen = cart:add("pen", 150)
show(pen)
print(cart:describe())
