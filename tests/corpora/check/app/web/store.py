class SessionStore:
    def save(self):
        return True
