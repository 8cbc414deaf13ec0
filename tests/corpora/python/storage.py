"""Where inventories are kept: a file and a cache, whose methods share names."""
import sys


class FileStore:
    def __init__(self, path, out=sys.stdout):
        self.path = path
        # an attribute that holds a bound method of another object
        self._write = out.write

    def save(self, rows):
        for row in rows:
            self._write(row + "\n")
        return len(rows)

    def close(self):
        self._write("")


class MemoryStore:
    def __init__(self):
        self.rows = []

    def save(self, rows):
        self.rows.extend(rows)
        return len(rows)

    def _write(self, row):
        self.rows.append(row)

    def join(self, sep):
        return sep.join(self.rows)

    def lower(self):
        self.rows = [row.lower() for row in self.rows]


class Mirror:
    """Writes to a file and keeps a copy in memory."""

    def __init__(self, path):
        self.primary = FileStore(path)
        self.cache: MemoryStore = MemoryStore()

    def save(self, rows):
        self.cache.save(rows)
        return self.primary.save(rows)
