port = int("80a")
