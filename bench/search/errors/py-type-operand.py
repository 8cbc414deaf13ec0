count = "3"
print(count + 1)
