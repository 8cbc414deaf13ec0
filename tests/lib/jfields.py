#!/usr/bin/env python3
"""Fields of JSON Lines records, for the shell tests.

jfields.py FIELD... reads JSON Lines on stdin and prints, for each record,
its FIELDs on one line, separated by spaces: a.b for a nested field, a.0
for an element of an array, "-" for a field that is absent or null, the
elements of an array joined with commas.  With TYPE set in the
environment, only the records of that "type".
"""
import json
import os
import sys


def field(record, path):
    v = record
    for part in path.split("."):
        if isinstance(v, list):
            v = v[int(part)] if int(part) < len(v) else None
        else:
            v = v.get(part) if isinstance(v, dict) else None
    if v is None:
        return "-"
    if isinstance(v, list):
        return ",".join(map(str, v))
    return str(v)


def main():
    keys = sys.argv[1:]
    want = os.environ.get("TYPE")
    for line in sys.stdin:
        r = json.loads(line)
        if want and r.get("type") != want:
            continue
        print(" ".join(field(r, k) for k in keys))


main()
