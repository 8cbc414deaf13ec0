"""Configuration of the login service."""


def parse_config(text):
    """Parse the configuration text into a dictionary of settings."""
    settings = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        settings[key.strip()] = value.strip()
    return settings


def parse_config_file(path):
    """Read a configuration file and parse its settings."""
    with open(path) as f:
        return parse_config(f.read())
