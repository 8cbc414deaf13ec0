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

-- an object of a class made by a call: its type is not known
local Options = require "shop.options"
local opts = Options.new("cli")
opts:option("verbose", false)
