"""Classes whose names other files also give to factories and type
variables."""


class Widget:
    def run(self):
        return 1


class Handle:
    def run(self):
        return 2


class Gadget:
    def spin(self):
        return 3
