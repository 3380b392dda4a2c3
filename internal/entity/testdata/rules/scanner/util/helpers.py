def get_value(mapping, key, default=None):
    return mapping.get(key, default)


def get_int(mapping, key):
    return int(get_value(mapping, key, 0))


def chunked(items, size):
    return [items[i:i + size] for i in range(0, len(items), size)]
