"""Small helpers shared by the readers."""


def normalize(record):
    """Lower-case the keys of a record and turn counts into integers."""
    out = {key.lower(): value for key, value in record.items()}
    if "count" in out:
        out["count"] = int(out["count"])
    return out


def require(record, *keys):
    missing = [key for key in keys if key not in record]
    if missing:
        raise KeyError(", ".join(missing))
    return record
