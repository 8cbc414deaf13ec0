local cart = require("cart")
local util = require("util")

local c = cart.Cart.new():add("A"):add("b")
assert(cart.total({ c, cart.Box.new() }) == 2)
cart.each({ "x" }, function(s) print(util.load(s)) end)
print(string.format("%d", c:size()))
print(pcall(cart.error, "x"))
getmetatable(c).error = function(_, msg) error(msg) end
print(pcall(c.error, c, "y"))
