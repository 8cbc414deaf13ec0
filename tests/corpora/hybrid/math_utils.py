"""Small arithmetic helpers used by the order code."""


def add(a, b):
    """Return the sum of two amounts."""
    return a + b


def subtract(a, b):
    """Return the difference of two amounts."""
    return a - b


class Calculator:
    """Keeps a running total."""

    def __init__(self):
        self.value = 0

    def total(self, items):
        """Add up every item."""
        for item in items:
            self.value = add(self.value, item)
        return self.value
