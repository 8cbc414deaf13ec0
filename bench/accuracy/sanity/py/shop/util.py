import os


def norm(path):
    return os.path.normpath(path)


def load(name):
    return norm(name)
