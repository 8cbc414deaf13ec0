"""Backups between stores named through their module: the receivers are
typed by a module-qualified constructor, a field's annotation, Optional
and typing.cast; class methods call each other through cls."""
import typing
from typing import Optional

import pkg.util
import storage


class Backup:
    def __init__(self, path):
        self.source = storage.FileStore(path)
        self.target = storage.MemoryStore()
        self.mirror: storage.Mirror

    @classmethod
    def to(cls, path):
        return cls.checked(path)

    @classmethod
    def checked(cls, path):
        return cls(pkg.util.normalize(path))

    def run(self, rows):
        self.source.save(rows)
        self.mirror.save(rows)
        return self.target.save(rows)


def restore(store: Optional[storage.FileStore], cache):
    if store is not None:
        store.close()
    memory = typing.cast(storage.MemoryStore, cache)
    return memory.join(",")
