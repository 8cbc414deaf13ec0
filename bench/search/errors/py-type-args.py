def greet(name):
    return "hi " + name

greet()
