"""Inventory storage: readers and writers for the formats the tool accepts."""
from . import util
from .b import dump, load

__all__ = ["dump", "load", "util"]
