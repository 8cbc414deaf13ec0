items = [1, 2, 3]
print(items[3])
