local M = {}

function M.norm(s)
   return (s:lower())
end

function M.load(name)
   return M.norm(name)
end

return M
