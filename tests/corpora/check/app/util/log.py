class Log:
    def write(self):
        return 1
