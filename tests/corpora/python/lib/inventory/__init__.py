"""Checks over a whole inventory."""
