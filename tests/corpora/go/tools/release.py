"""A release helper beside the Go module's sources, not of its package."""


def Banner():
    return "release"
