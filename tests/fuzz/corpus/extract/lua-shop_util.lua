-- Small helpers of the shop.
local M = {}

function M.log(message)
  print("[shop] " .. message)
end

function M.round(x)
  return math.floor(x + 0.5)
end

-- set at run time: no definition in this file
M.format = string.format

return M
