"""Seventeen kinds of handle, each with its own close()."""


class Handle0:
    def close(self):
        return 0


class Handle1:
    def close(self):
        return 1


class Handle2:
    def close(self):
        return 2


class Handle3:
    def close(self):
        return 3


class Handle4:
    def close(self):
        return 4


class Handle5:
    def close(self):
        return 5


class Handle6:
    def close(self):
        return 6


class Handle7:
    def close(self):
        return 7


class Handle8:
    def close(self):
        return 8


class Handle9:
    def close(self):
        return 9


class Handle10:
    def close(self):
        return 10


class Handle11:
    def close(self):
        return 11


class Handle12:
    def close(self):
        return 12


class Handle13:
    def close(self):
        return 13


class Handle14:
    def close(self):
        return 14


class Handle15:
    def close(self):
        return 15


class Handle16:
    def close(self):
        return 16
