function format_price(cents)
  return string.format("%d.%02d", cents // 100, cents % 100)
end
