"""Small helpers: one of them is never called, one is called a lot."""


def shout(s):
    return s.upper()


def orphan():
    return shout("nobody calls me")


def ping(n):
    return pong(n - 1) if n else 0


def pong(n):
    return ping(n - 1) if n else 0


def fact(n):
    return n * fact(n - 1) if n > 1 else 1


def greet(name):
    return shout(name) + shout("!")


def banner(name):
    return shout(name)


def busy(x):
    a = shout(x)
    b = greet(x)
    c = banner(x)
    return fact(len(a + b + c))
