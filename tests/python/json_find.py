"""A value anywhere in a JSON document, for tests that read `attnrt inspect --json` (standard
library only)."""


def find_key(value, key):
    """The value stored under `key` anywhere in a JSON value (dicts and lists), or None."""
    if isinstance(value, dict):
        if key in value:
            return value[key]
        items = value.values()
    elif isinstance(value, list):
        items = value
    else:
        return None
    for item in items:
        found = find_key(item, key)
        if found is not None:
            return found
    return None
