"""Load an inventory file and print the items that need reordering."""
import sys

import pkg.b as m
from models import Item, Perishable
from pkg.b import load
from report import LowStockReport


def build(records):
    items = []
    for r in records:
        if "expires" in r:
            items.append(Perishable(r["name"], r["count"], r["expires"]))
        else:
            items.append(Item(r["name"], r["count"]))
    return items


def merge(records, extra_path):
    """Add the records of a second file, such as a delivery note."""
    return records + m.load(extra_path)


def main(argv):
    if len(argv) < 2:
        print("usage: app.py FILE [EXTRA]", file=sys.stderr)
        return 2
    records = load(argv[1])
    if len(argv) > 2:
        records = merge(records, argv[2])
    items = build(records)
    if "--debug" in argv:
        for item in items:
            print(format_row(item))
    rep = LowStockReport(items)
    print(rep.render())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
