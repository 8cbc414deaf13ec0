def depth(n):
    return depth(n + 1)

depth(0)
