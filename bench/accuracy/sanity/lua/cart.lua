local util = require("util")

local Cart = {}
Cart.__index = Cart

function Cart.new()
   return setmetatable({ items = {} }, Cart)
end

function Cart:add(name)
   table.insert(self.items, util.norm(name))
   return self
end

function Cart:size()
   return #self.items
end

local Box = {}
Box.__index = Box

function Box.new()
   return setmetatable({}, Box)
end

function Box:size()
   return 0
end

local function total(things)
   local n = 0
   for _, t in ipairs(things) do
      n = n + t:size()
   end
   return n
end

local function each(list, f)
   for _, x in ipairs(list) do
      f(x)
   end
end

local M = { Cart = Cart, Box = Box, total = total, each = each }

M.error = function(msg)
   error("cart: " .. msg)
end

return M
