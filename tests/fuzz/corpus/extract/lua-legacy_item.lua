local Item = {}

function Item:label()
  return string.upper(self:describe())
end

function Item:describe()
  return "legacy"
end

return Item
