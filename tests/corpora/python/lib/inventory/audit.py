"""The items that fail their own checks."""


def run(items):
    return [item for item in items if not item.validate()]
