"""Configuration of billing."""


def parse_billing_config(text):
    """Parse the billing configuration text into a dictionary of settings."""
    settings = {}
    for line in text.splitlines():
        key, _, value = line.partition("=")
        settings[key.strip()] = value.strip()
    return settings
