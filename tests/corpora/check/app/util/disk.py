class Disk:
    def save(self):
        return flush()

    def sync(self):
        return self.save()


def flush():
    return 0
