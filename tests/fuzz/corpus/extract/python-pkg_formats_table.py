"""Inventories kept as tab-separated tables with a header line."""
from ..util import normalize


def split_line(line):
    return line.rstrip("\n").split("\t")


def read_table(path):
    rows = []
    with open(path) as f:
        header = split_line(f.readline())
        for line in f:
            fields = split_line(line)
            rows.append(normalize(dict(zip(header, fields))))
    return rows
