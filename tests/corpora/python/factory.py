"""Capitalised names that are not classes: a factory function and a type
variable; and a class brought in from widgets, for others to import from
here."""
from typing import TypeVar

from storage import MemoryStore
from widgets import Gadget

Handle = TypeVar("Handle")


def Widget():
    return MemoryStore()


def spare():
    return Gadget()
