"""Count the stock; run with lib/ on sys.path, so that `inventory` is
lib/inventory/."""
from inventory import audit


def main():
    return audit.run([])
