"""Inventory items and how they are checked."""
import datetime


class Item:
    """A counted thing on a shelf."""

    class Meta:
        table = "items"

        def describe(self):
            return "table " + self.table

    def __init__(self, name, count):
        self.name = name
        self.count = count

    @property
    def key(self):
        return self.name.lower()

    def validate(self):
        return check_count(self.count)

    def label(self):
        if not self.validate():
            raise ValueError(self.name)
        return "%s x%d" % (self.name, self.count)


class Perishable(Item):
    """An item that goes off."""

    def __init__(self, name, count, expires):
        super().__init__(name, count)
        self.expires = expires

    def validate(self):
        return super().validate() and check_expiry(self.expires)


def check_count(count):
    return isinstance(count, int) and count >= 0


def check_expiry(expires):
    return expires > datetime.date.today()


PLACEHOLDER = Item("placeholder", 0)
