"""Orders: validation, pricing and storage."""
import math_utils
from math_utils import add


def validate(order):
    """Reject an order without lines."""
    if not order.lines:
        raise ValueError("empty order")


class OrderService:
    """Processes customer orders."""

    def process(self, order):
        """Validate an order, price it and save it."""
        validate(order)
        order.total = add(order.net, order.tax)
        self.save(order)

    def save(self, order):
        """Write the order to the database."""
        order.saved = True

    def refund(self, order):
        """Give the money back."""
        order.total = math_utils.subtract(order.total, order.total)
