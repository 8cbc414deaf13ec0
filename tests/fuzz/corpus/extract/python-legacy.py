"""The pickle-based store of version 1, kept to migrate old archives."""
import pickle

from models import Item


class LegacyItem(Item):
    """An item from a version 1 archive, where counts were strings."""

    def validate(self):
        return self.count.isdigit()


def load(path):
    with open(path, "rb") as f:
        return pickle.load(f)


def format_row(row):
    return ", ".join(str(value) for value in row)
