"""Refreshing writes through a target of unknown type."""


def refresh(target):
    return target.write()
