local util = {}

function util.format(template, ...)
  return template:format(...)
end

return util
