"""Reading and writing inventory files in the current JSON format."""
import json

from .formats.table import read_table
from .util import normalize, require


def load(path):
    """Load an inventory file, whatever its format, as a list of records."""
    if path.endswith(".tsv"):
        return read_table(path)
    with open(path) as f:
        data = json.loads(f.read())
    return [require(normalize(r), "name", "count") for r in data]


def dump(records, path):
    with open(path, "w") as f:
        f.write(json.dumps(records, indent=2))
