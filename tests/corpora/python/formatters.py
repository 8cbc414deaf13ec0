"""Classes whose bases are outside the repository."""
import string


class SafeFormatter(string.Formatter):
    def __init__(self):
        super().__init__()

    def render(self, text):
        return self.format(text)


class Hooked(string.Template):
    def run(self):
        return self.hook()


class WithHook(Hooked):
    def hook(self):
        return 1
