total = 0
for price in ["3.50", "2.25"]:
    total = total + price
