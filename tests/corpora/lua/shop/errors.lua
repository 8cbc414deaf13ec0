-- Failures.  A handler stored in a field of what a call returns has no
-- name a call could reach it by: error(msg) below is Lua's own error,
-- never this function.
local Item = require "shop.item"

getmetatable(Item.new(1)).error = function(_, msg)
  error(msg)
end

local function check(ok, msg)
  if not ok then
    error(msg)
  end
end

return { check = check }
