def ratio(done, total):
    return done / total

print(ratio(3, 0))
