from util.cache import refresh


class Sink:
    def write(self):
        return refresh(self)
