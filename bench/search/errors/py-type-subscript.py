value = None
print(value[0])
