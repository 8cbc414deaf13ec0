"""Copy inventories between stores: which save() a call means follows from
what the code says of its receiver, or stays open."""
from storage import FileStore, MemoryStore, Mirror


def open_store(path):
    return FileStore(path)


def to_cache(rows):
    cache = MemoryStore()
    cache.save(rows)
    return cache


def to_file(store: FileStore, rows):
    n = store.save(rows)
    store.close()
    return n


def to_mirror(path, rows):
    mirror: Mirror = Mirror(path)
    return mirror.save(rows)


def to_any(path, rows):
    store = open_store(path)
    return store.save(rows)


def each(rows, callback):
    for row in rows:
        callback(row)
        row.lower()


def header(parts):
    return b"".join(parts)


def short_name(url):
    return url[2:12].lower()


def short_key(name):
    key = str(name)
    return key.lower()


def join_all(parts):
    return str.join(",", parts)
