class Conn:
    def close(self):
        return None
