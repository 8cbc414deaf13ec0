"""Plain-text reports over a list of items."""


class Report:
    title = "Inventory"

    def __init__(self, items):
        self.items = items

    def rows(self):
        return [format_row(item) for item in self.items]

    def render(self):
        return "\n".join([self.title] + self.rows())


class LowStockReport(Report):
    title = "Low stock"

    def __init__(self, items, threshold=3):
        super().__init__(items)
        self.threshold = threshold

    def rows(self):
        def needs_reorder(item):
            return item.count < self.threshold

        low = sorted(filter(needs_reorder, self.items), key=lambda item: item_key(item))
        return [format_row(item) + " (reorder)" for item in low]


def item_key(item):
    return (item.count, item.name)


def format_row(item):
    return "%-20s %5d" % (item.name, item.count)
