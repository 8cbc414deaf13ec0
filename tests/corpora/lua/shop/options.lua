-- A class made by a call: class() returns the table the file then
-- stores its methods in, as argparse and the classic libraries do.
local function class(proto)
  proto.__index = proto
  return setmetatable(proto, { __call = function(cls, ...) return cls.new(...) end })
end

local Options = class({ name = "options" })

function Options.new(name)
  return setmetatable({ name = name, seen = {} }, Options)
end

function Options:flag(name)
  self.seen[name] = true
  return self
end

function Options:option(name, default)
  self:flag(name)
  return default
end

local Wrapped = setmetatable({}, { __index = Options })

function Wrapped:option(name)
  return Options.option(self, name, nil)
end

return Options
